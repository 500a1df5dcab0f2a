"""Run registered experiments end to end: cells -> tidy results -> PNG figures -> tables -> report.

``reproduce(["000-fig4"], Size(quick=True), out="results")`` runs (or resumes) the grid of each
id into ``out/ID/`` (see :mod:`.grid` for the layout), draws its figure(s), writes its table
(``out/ID/table.md``) and a ``meta.json`` (size, cells run / reused, wall time, load average),
then rewrites ``out/report.md`` and ``out/report.html`` over every id that has results in ``out``.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

from . import grid
from .registry import Cell, Experiment, Size, Skip, get, requirement_met

__all__ = ["ExperimentRun", "run_experiment", "reproduce"]


@dataclass
class ExperimentRun:
    id: str
    rows: int = 0
    figures: list = field(default_factory=list)
    table: str | None = None
    skipped: list = field(default_factory=list)
    notes: list = field(default_factory=list)
    cells_run: int = 0
    cells_cached: int = 0
    seconds: float = 0.0
    cpu_seconds: float = 0.0
    cells_missing: int = 0


def _code_commit() -> str:
    """The commit the cells ran at (a result page reports it; "+changes" when the code differs)."""
    from .pages import _commit

    return _commit()


def _load_average() -> float | None:
    try:
        return round(os.getloadavg()[0], 2)
    except OSError:  # pragma: no cover - not on every platform
        return None


def _grid(exp: Experiment, size: Size):
    items = exp.cells(size) if exp.cells is not None else []
    cells = [c for c in items if isinstance(c, Cell)]
    skips = [c for c in items if isinstance(c, Skip)]
    return cells, skips


def run_experiment(
    eid: str, size: Size, out, *, workers=1, dask=None, client=None, progress=True, plot=True, finished_only=False
) -> ExperimentRun:
    """Run (resume) one id's grid and write its results, figures, table and metadata.

    ``finished_only``: run nothing; draw the figures and tables from the cells already finished
    (a long grid's partial state), with a note saying how many cells are missing.
    """
    exp = get(eid)
    out = Path(out)
    res = ExperimentRun(eid)
    # the commit whose code this run executes, taken before its cells run: a long run may outlive
    # the checkout's HEAD (a merge while the cells ran would otherwise be named as their code)
    commit = _code_commit()
    if exp.unavailable:
        res.notes.append(f"not available in this build: {exp.unavailable}")
        return res
    src = get(exp.source) if exp.source else exp
    src_dir = out / src.id
    cells, skips = _grid(src, size)
    res.skipped = [f"{s.key}: {s.reason}" for s in skips]
    # cells whose optional package does not import here: read when another environment ran them
    # (e.g. `make reproduce-diffprivlib`), otherwise listed as skipped with the package's name
    absent = [c for c in cells if not requirement_met(c.requires)]
    if absent:
        have = grid.finished(absent, src_dir / "cells")
        ids = {id(c) for c in have}
        cells = [c for c in cells if requirement_met(c.requires) or id(c) in ids]
        for pkg in sorted({c.requires for c in absent if id(c) not in ids}):
            keys = [c.key for c in absent if id(c) not in ids and c.requires == pkg]
            res.skipped.append(
                f"{len(keys)} cells ({keys[0]}, ...): need {pkg}, which does not import in this environment"
            )
        for pkg in sorted({c.requires for c in have}):  # per package: a grid may need several
            n = sum(c.requires == pkg for c in have)
            res.notes.append(f"{n} cells needing {pkg} read from another environment's run")
    t0 = time.perf_counter()
    if finished_only:
        done = grid.finished(cells, src_dir / "cells")
        res.cells_cached, res.cells_missing = len(done), len(cells) - len(done)
        if res.cells_missing:
            res.notes.append(
                f"{res.cells_missing} of {len(cells)} cells not run yet: drawn from the "
                f"{len(done)} finished ones (partial grid)"
            )
        cells = done
    else:
        stats = grid.run_cells(
            cells, src_dir / "cells", workers=workers, dask=dask, client=client, progress=progress, desc=src.id
        )
        res.cells_run, res.cells_cached, res.cpu_seconds = stats["ran"], stats["cached"], stats["cpu_seconds"]
    df = grid.read_results(cells, src_dir / "cells", grid.results_path(src_dir))
    res.seconds = time.perf_counter() - t0
    res.rows = len(df)
    exp_dir = out / exp.id
    exp_dir.mkdir(parents=True, exist_ok=True)
    res.figures, res.table, notes = render(exp, df, exp_dir, plot=plot, size=size)
    res.notes += notes
    meta = dict(
        id=exp.id,
        size=asdict(size),
        cells=len(cells) + res.cells_missing,
        cells_run=res.cells_run,
        cells_missing=res.cells_missing,
        cells_cached=res.cells_cached,
        seconds=round(res.seconds, 2),
        cpu_seconds=round(res.cpu_seconds, 1),
        rows=res.rows,
        workers=workers,
        dask=dask,
        load_average_1min=_load_average(),
        skipped=res.skipped,
        source=exp.source,
        finished=time.strftime("%Y-%m-%d %H:%M:%S"),
        commit=commit,
    )
    old = exp_dir / "meta.json"
    prev = json.loads(old.read_text()) if old.exists() else None
    if prev is not None and prev.get("size") == json.loads(json.dumps(meta["size"])) and not res.cells_missing:
        if res.cells_run == 0 and prev.get("cells") == len(cells):
            # everything reused: keep the measurement of the run that computed it
            meta = dict(prev, rows=res.rows, skipped=res.skipped, rendered=time.strftime("%Y-%m-%d %H:%M:%S"))
        elif res.cells_run == 0 and prev.get("cells", 0) < len(cells):
            # nothing computed, more cells finished than the last run had: cells another run (another
            # environment) finished were put beside them. Keep the last run's measurement and say how
            # many cells it does not cover, instead of a run that computed nothing claiming the grid.
            meta = dict(
                prev,
                cells=len(cells),
                cells_elsewhere=prev.get("cells_elsewhere", 0) + len(cells) - prev.get("cells", 0),
                rows=res.rows,
                skipped=res.skipped,
                rendered=time.strftime("%Y-%m-%d %H:%M:%S"),
            )
        elif res.cells_run and res.cells_cached == prev.get("cells_run", 0) + prev.get("cells_cached", 0):
            meta = _continued(prev, meta)
    if "runs" not in meta and res.cells_run and res.cells_cached:
        # cells finished by an earlier run that left no measurement of them (an interrupted run):
        # this run's CPU time does not cover them, and the page says so
        meta["cells_earlier"] = res.cells_cached
    old.write_text(json.dumps(meta, indent=2, default=str) + "\n")
    return res


def _continued(prev: dict, meta: dict) -> dict:
    """The metadata of a run that completed a grid an earlier run began (e.g. the cells needing
    diffprivlib, run in its side environment after the main one ran the rest): the grid's CPU time
    is both runs', and both commits are named when they differ."""
    commits = [c for c in str(prev.get("commit", "unknown")).split(" + ") if c != meta["commit"]]
    return dict(
        meta,
        cpu_seconds=round(prev.get("cpu_seconds", 0.0) + meta["cpu_seconds"], 1),
        commit=" + ".join([*commits, meta["commit"]]),
        runs=prev.get("runs", 1) + 1,
    )


def render(exp: Experiment, df, exp_dir: Path, plot=True, size: Size | None = None):
    """Draw the figures and the table of ``exp`` from ``df`` into ``exp_dir``; return them and notes.

    A figure of a reduced grid (``size.quick`` or ``size.runs``) is headed with what it is and how
    many runs (distinct seeds) it uses (:func:`.plots.run_note`).
    """
    figures, notes, table = [], [], None
    if plot and exp.plot is not None and len(df):
        from .plots import figure_note, run_note

        note = None
        if size is not None:
            note = run_note(size.quick, int(df["seed"].nunique()) if "seed" in df else 0, size.runs)
        try:
            with figure_note(note):
                figures = [str(p) for p in exp.plot(df, exp_dir)]
        except ImportError as exc:
            notes.append(str(exc))
    if exp.table is not None and len(df):
        table = exp.table(df)
        (exp_dir / "table.md").write_text(table + "\n")
    return figures, table, notes


def reproduce(
    ids, size: Size, out, *, workers=1, dask=None, progress=True, log=print, finished_only=False
) -> list[ExperimentRun]:
    """Run every id (sharing one Dask client when ``dask`` is set), then write the report.
    ``finished_only``: draw everything from the cells already finished, run nothing."""
    from .report import write_report

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    client = cluster = None
    if dask:
        client, cluster = grid._dask_client(dask, workers)
    runs = []
    try:
        for eid in ids:
            r = run_experiment(
                eid, size, out, workers=workers, client=client, progress=progress, finished_only=finished_only
            )
            runs.append(r)
            msg = (
                f"{eid}: {r.rows} rows, {r.cells_run} cells run, {r.cells_cached} reused, {r.seconds:.1f} s "
                f"(cells' CPU time {r.cpu_seconds:.1f} s)"
            )
            log(msg)
            for s in r.skipped:
                log(f"  skipped {s}")
            for n in r.notes:
                log(f"  note: {n}")
    finally:
        if client is not None:
            client.close()
        if cluster is not None:
            cluster.close()
    md, html = write_report(out)
    log(f"report: {md} and {html}")
    return runs
