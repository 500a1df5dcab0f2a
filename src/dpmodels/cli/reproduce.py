"""``dpmodels reproduce``: every figure and table of the papers, by id (see ``--list``).

    dpmodels reproduce --list
    dpmodels reproduce 000-fig4 --workers 2
    dpmodels reproduce all --quick
    dpmodels reproduce 002-table2 --data-dir ~/tabular-benchmark --dask tcp://scheduler:8786
    dpmodels reproduce 003 --finished-only     # draw a long grid's finished cells, run nothing

Results go to ``--out`` (default ``results``): ``ID/results.parquet`` (tidy rows), ``ID/*.png``,
``ID/table.md``, and ``report.md`` / ``report.html`` over everything in the folder. A rerun
resumes: finished cells are not recomputed (a cell is keyed by its parameters, not by the
library's code: after upgrading dpmodels, use a new ``--out`` or delete ``ID/cells``).

On a remote Dask cluster the workers need dpmodels installed, and ``--data-dir`` must name a folder
they see at the same path (the cells carry the path; results come back to this process).
"""

from __future__ import annotations

import argparse
import math
import sys
import types

from .._optional import available, missing

__all__ = ["add_parser", "cmd_reproduce"]


def _one_line_error(self, message):
    """argparse's error, on one line (no usage block): 'dpmodels reproduce: error: ...'."""
    self.exit(2, f"{self.prog}: error: {message}\n")


def add_parser(sub) -> argparse.ArgumentParser:
    r = sub.add_parser(
        "reproduce",
        help="reproduce the papers' figures and tables (see --list)",
        description="Recompute the papers' results with this library's learners; write tidy results, "
        "PNG figures and a report.",
    )
    r.error = types.MethodType(_one_line_error, r)
    r.add_argument(
        "ids",
        nargs="*",
        metavar="ID",
        help="experiment ids, 'all', a paper ('000', '002', '003') or 'lib'",
    )
    r.add_argument("--list", action="store_true", help="list every id, what it draws and its full-size cost here")
    r.add_argument("--verbose", action="store_true", help="with --list: each id's long description")
    r.add_argument("--quick", action="store_true", help="reduced sizes (every id together in minutes)")
    r.add_argument(
        "--runs", type=int, default=None, help="repetitions (random splits / runs) instead of the id's default"
    )
    r.add_argument("--datasets", nargs="+", default=None, help="restrict to these datasets")
    r.add_argument(
        "--epsilons", nargs="+", type=float, default=None, help="use these ε values instead of the id's grid"
    )
    r.add_argument("--out", default="results", help="output folder (default: results)")
    r.add_argument(
        "--workers", type=int, default=1, help="parallel worker processes (joblib, or Dask workers for --dask local)"
    )
    r.add_argument(
        "--dask",
        default=None,
        metavar="ADDRESS",
        help="run the cells on a Dask cluster: a scheduler address or 'local'",
    )
    r.add_argument(
        "--data-dir", default=None, help="folder with the unbundled OpenML benchmark files (clf_num/, clf_cat/)"
    )
    r.add_argument(
        "--download",
        action="store_true",
        help="fetch unbundled OpenML datasets with sklearn's fetch_openml (needs network)",
    )
    r.add_argument("--no-progress", action="store_true", help="no progress bars")
    r.add_argument(
        "--report",
        default=None,
        metavar="DOCS",
        help="also write each id's page DOCS/results/ID.md and its committed rows DOCS/results/data/ (see make results-check)",
    )
    r.add_argument(
        "--finished-only",
        action="store_true",
        help="run nothing: draw figures, tables and the report from the cells already finished",
    )
    r.set_defaults(func=cmd_reproduce)
    return r


def _check(args):
    if args.runs is not None and args.runs < 1:
        raise ValueError(f"--runs must be a positive integer, got {args.runs}")
    if args.workers < 1:
        raise ValueError(f"--workers must be a positive integer, got {args.workers}")
    if args.epsilons is not None and not all(math.isfinite(e) and e > 0 for e in args.epsilons):
        raise ValueError("--epsilons must be finite positive numbers")
    if args.data_dir is not None:
        from pathlib import Path

        if not Path(args.data_dir).is_dir():
            raise ValueError(f"--data-dir {args.data_dir!r} is not a folder")
    if args.report is not None:
        from pathlib import Path

        if not Path(args.report).is_dir():
            raise ValueError(f"--report {args.report!r} is not a folder (give the docs folder)")
    if args.dask is not None:
        if not available("distributed"):
            raise ValueError(f"--dask: {missing('distributed')}")


def list_ids(out=None, *, verbose: bool = False) -> None:
    """One line per id from the static catalogue (no experiment module is imported); with
    ``verbose``, every registered id with its long description and measured cost."""
    from ..experiments.catalogue import list_lines

    out = sys.stdout if out is None else out
    if not verbose:
        for line in list_lines():
            print(line, file=out)
        print("\ndetails: dpmodels reproduce --list --verbose; quick sizes: dpmodels reproduce all --quick", file=out)
        return
    from ..experiments.registry import PAPER_IDS, all_experiments

    exps = all_experiments()
    for e in exps:
        cost = e.full_cost if not e.unavailable else f"unavailable: {e.unavailable}"
        print(f"{e.id} ({e.kind}, paper {e.paper}): {e.title}\n  draws: {e.draws}\n  full-size cost: {cost}", file=out)
    missing = [i for i in PAPER_IDS if i not in {e.id for e in exps}]
    if missing:
        print(f"\nnot registered in this build: {', '.join(missing)}", file=out)


def cmd_reproduce(args) -> int:
    from ..experiments.registry import Size, resolve

    _check(args)
    if args.list:
        list_ids(verbose=args.verbose)
        return 0
    if not args.ids:
        raise ValueError("give experiment ids, 'all', or --list")
    ids = resolve(args.ids)
    import os

    if args.data_dir:
        os.environ["DPMODELS_DATA_DIR"] = os.path.abspath(args.data_dir)  # workers inherit it
    size = Size(
        quick=args.quick,
        runs=args.runs,
        datasets=tuple(args.datasets) if args.datasets else None,
        epsilons=tuple(args.epsilons) if args.epsilons else None,
        data_dir=os.path.abspath(args.data_dir) if args.data_dir else None,
        download=args.download,
    )
    from ..experiments.run import reproduce

    reproduce(
        ids,
        size,
        args.out,
        workers=args.workers,
        dask=args.dask,
        progress=not args.no_progress,
        finished_only=args.finished_only,
    )
    if args.report:
        from ..experiments.pages import write_page

        for eid in ids:
            print(f"page: {write_page(eid, args.out, args.report)}")
    return 0
