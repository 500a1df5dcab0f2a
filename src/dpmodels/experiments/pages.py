"""Generated result pages: ``docs/results/ID.md`` from the committed tidy rows of a run, and the check
that no documented number drifts from its results file.

``dpmodels reproduce ID --report DOCS`` (after running ``ID``) writes

* ``DOCS/results/data/ID.csv.gz`` — the run's tidy rows (:data:`registry.ROW_FIELDS`), small enough to
  commit (a run over :data:`MAX_ROWS` rows is refused with the reason: summarise it in the id first);
* ``DOCS/results/data/ID.json`` — what ran: the commit, the date, the size, cells, CPU seconds, and the
  figures, copied to ``DOCS/figures/results/ID/``;
* ``DOCS/results/ID.md`` — a page whose generated block (between :data:`BEGIN` and :data:`END`) holds
  the id's table (our numbers beside the paper's, as the id's ``table`` draws it), its agreement test
  and outcome where the id defines one, and the run's provenance. Text below the block is the
  hand-written analysis of causes and is kept when the page is regenerated.

:func:`check` (``make results-check``, run by CI) rebuilds every generated block from its data files and
fails on any difference (``--refresh ID`` rewrites a block from its committed rows after a change
of the id's table code; ``--refresh coverage`` the coverage table after a change of a row; ``--refresh
index`` the front page's list of ids with and without a page, which a new page also refreshes), and checks that the coverage table on the front page of ``docs/results.md``
is the one :mod:`.coverage` generates (its counts computed from the statuses).
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd

from .registry import ROW_FIELDS, get

__all__ = [
    "write_page",
    "check",
    "refresh",
    "refresh_coverage",
    "page_block",
    "BEGIN",
    "END",
    "COVERAGE_BEGIN",
    "COVERAGE_END",
    "MAX_ROWS",
]

BEGIN = "<!-- generated: do not edit between these markers; `dpmodels reproduce {id} --report docs` -->"
END = "<!-- end of generated block -->"
COVERAGE_BEGIN = "<!-- coverage: generated from dpmodels/experiments/coverage.py; do not edit -->"
COVERAGE_END = "<!-- end of coverage -->"
INDEX_BEGIN = "<!-- pages: generated from the committed pages and experiments/catalogue.py; do not edit -->"
INDEX_END = "<!-- end of pages -->"
MAX_ROWS = 200_000
_PAPERS = (("lib", "library"), ("000", "paper 000"), ("002", "paper 002"), ("003", "paper 003"))


def _commit() -> str:
    try:
        out = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, timeout=10)
        # local changes to anything but the docs (which --report itself rewrites) mark the code as changed
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no", "--", ".", ":(exclude)docs"],
            capture_output=True,
            text=True,
        )
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    if out.returncode != 0:
        return "unknown"
    return out.stdout.strip() + ("+changes" if dirty.stdout.strip() else "")


def _rows_name(eid: str, meta: dict) -> str:
    """The rows file of ``eid``'s page: the one its run metadata names (``rows``: an id drawn from
    another id's cells shares that id's file), else ``ID.csv.gz``."""
    return meta.get("rows") or f"{eid}.csv.gz"


def _committed(docs: Path, eid: str) -> tuple[dict | None, Path]:
    """``eid``'s committed run metadata (None when there is none), read once, and its rows file."""
    d = Path(docs) / "results" / "data"
    path = d / f"{eid}.json"
    meta = json.loads(path.read_text()) if path.exists() else None
    return meta, d / _rows_name(eid, meta or {})


def _shares_rows(exp) -> str | None:
    """The id whose committed rows file ``exp``'s page reads: its ``source`` when both commit the
    same rows (neither summarises them, same extra columns), so a grid's rows are committed once."""
    if not exp.source or exp.page_rows is not None:
        return None
    src = get(exp.source)
    return src.id if src.page_rows is None and tuple(src.page_columns) == tuple(exp.page_columns) else None


def read_rows(path: Path) -> pd.DataFrame:
    df = pd.read_csv(path, dtype={"parameters": str, "dataset": str, "learner": str, "metric": str, "attack": str})
    missing = [c for c in ROW_FIELDS if c not in df.columns]
    if missing:
        raise ValueError(f"{path}: not a tidy results file (missing columns {missing})")
    return df


def page_block(eid: str, df: pd.DataFrame, meta: dict) -> str:
    """The generated block of ``eid``'s page from its rows and run metadata (deterministic)."""
    exp = get(eid)
    rows = _rows_name(eid, meta)
    size = meta.get("size", {})
    mode = "quick" if size.get("quick") else "full"
    if size.get("runs") is not None:
        mode += f", runs = {size['runs']}"
    lines = [
        BEGIN.format(id=eid),
        "",
        f"**Draws:** {exp.draws}",
        "",
        f"**Run:** {mode} size, {len(df):,} result rows from {meta.get('cells', 0)} cells, "
        f"{meta.get('cpu_seconds', 0):,.0f} CPU-s in the cells"
        + (f" (the cells of `{exp.source}`)" if exp.source else "")
        + (
            f", not counting {meta['cells_elsewhere']} cells finished by an earlier run in another environment"
            if meta.get("cells_elsewhere")
            else ""
        )
        + (
            f", not counting {meta['cells_earlier']} cells an earlier, interrupted run of the grid finished"
            if meta.get("cells_earlier")
            else ""
        )
        + f"; commit `{meta.get('commit', 'unknown')}`, "
        f"{meta.get('finished', '?')}. Rows: [`data/{rows}`](data/{rows}).",
        "",
    ]
    if exp.table is not None and len(df):
        lines += [exp.table(df).rstrip(), ""]
    agreement = getattr(exp, "agreement", None)
    if agreement is not None and len(df):
        lines += ["**Agreement with the paper:** " + agreement(df).strip(), ""]
    for fig in meta.get("figures", []):
        lines += [f"![{eid}](../figures/results/{eid}/{fig})", ""]
    lines.append(END)
    return "\n".join(lines)


def write_page(eid: str, out, docs) -> Path:
    """Copy ``eid``'s tidy rows from the run folder ``out`` into ``docs`` and (re)write its page."""
    from . import grid

    out, docs = Path(out), Path(docs)
    exp = get(eid)
    src = exp.source or eid
    commit = _commit()  # before this page's own files change the work tree
    path = grid.results_path(out / src)
    if not path.exists():
        raise ValueError(f"{eid}: no results in {out / src}; run `dpmodels reproduce {eid} --out {out}` first")
    df = grid.read_frame(path)
    if exp.page_rows is not None:  # the id's own summary of rows too many to commit
        df = exp.page_rows(df)
    if len(df) > MAX_ROWS:
        raise ValueError(
            f"{eid}: {len(df):,} result rows are too many to commit (> {MAX_ROWS:,}); summarise them first"
        )
    df = df[list(ROW_FIELDS) + [c for c in exp.page_columns if c in df.columns]].copy()
    # a fit's wall time on a shared machine carries no more than 3 significant digits; its noise
    # digits made up a third of a committed rows file
    df["fit_seconds"] = [float(f"{t:.3g}") for t in df["fit_seconds"]]
    shared = _shares_rows(exp)
    data = docs / "results" / "data"
    rows_path, meta_path = data / f"{shared or eid}.csv.gz", data / f"{eid}.json"
    rows_path.parent.mkdir(parents=True, exist_ok=True)
    # the same rows, byte for byte, whichever id of a shared grid writes them (no file name kept)
    df.to_csv(rows_path, index=False, compression={"method": "gzip", "mtime": 0}, float_format="%.10g")
    if shared:
        (data / f"{eid}.csv.gz").unlink(missing_ok=True)  # a copy committed before rows were shared
    run_meta = {}
    # an id drawn from another id's cells (``source``) reports that run: its date, cells and CPU
    if (out / src / "meta.json").exists():
        run_meta = json.loads((out / src / "meta.json").read_text())
    meta = dict(
        id=eid,
        commit=run_meta.get("commit", commit),  # the run's own commit when it recorded one
        finished=run_meta.get("finished", time.strftime("%Y-%m-%d %H:%M:%S")),
        size=run_meta.get("size", {}),
        cells=run_meta.get("cells", 0),
        cpu_seconds=run_meta.get("cpu_seconds", 0.0),
    )
    for key in ("cells_elsewhere", "cells_earlier"):
        if run_meta.get(key):
            meta[key] = run_meta[key]
    if shared:
        meta["rows"] = rows_path.name
    fig_dir = docs / "figures" / "results" / eid
    pngs = sorted((out / eid).glob("*.png"))
    if pngs:
        fig_dir.mkdir(parents=True, exist_ok=True)
        for png in pngs:
            shutil.copyfile(png, fig_dir / png.name)
    meta["figures"] = [p.name for p in pngs]
    meta_path.write_text(json.dumps(meta, indent=2, default=str) + "\n")
    block = page_block(eid, read_rows(rows_path), meta)
    page = docs / "results" / f"{eid}.md"
    tail = ""
    if page.exists():
        text = page.read_text()
        if END in text:
            tail = text.split(END, 1)[1].lstrip("\n")
    page.write_text(f"# {eid} — {exp.title}\n\n{block}\n" + (f"\n{tail}" if tail else ""))
    front = docs / "results.md"
    if front.exists() and INDEX_BEGIN in front.read_text():  # a new page joins the front page's list
        refresh_index(docs)
    return page


def refresh(eid: str, docs) -> Path:
    """Rewrite ``eid``'s generated block from its committed rows and run metadata, without rerunning
    it: for a change of the id's table or agreement code (the rows, the run and its commit stay)."""
    docs = Path(docs)
    meta, rows_path = _committed(docs, eid)
    page = docs / "results" / f"{eid}.md"
    if meta is None or not rows_path.exists() or not page.exists():
        raise ValueError(f"{eid}: no committed page and rows to refresh in {docs}")
    text = page.read_text()
    old = _block(text, BEGIN.format(id=eid), END)
    if old is None:
        raise ValueError(f"{page}: no generated block")
    page.write_text(text.replace(old, page_block(eid, read_rows(rows_path), meta)))
    return page


def refresh_coverage(docs) -> Path:
    """Rewrite the coverage block of ``docs/results.md`` from :mod:`.coverage` (after editing a row)."""
    from .coverage import coverage_markdown

    return _front_block(docs, COVERAGE_BEGIN, COVERAGE_END, coverage_markdown())


def index_markdown(docs) -> str:
    """The front page's list of ids: per paper, those with a generated page and those without one
    yet (with their full-size cost here, from :mod:`.catalogue`), so the list cannot go stale."""
    from .catalogue import CATALOGUE, sort_key

    docs = Path(docs)
    have = {p.name[: -len(".json")] for p in (docs / "results" / "data").glob("*.json")}
    with_page = sum(eid in have for eid in CATALOGUE)
    lines = [f"Generated pages: {with_page} of {len(CATALOGUE)} ids.", ""]
    for paper, name in _PAPERS:
        ids = sorted((e for e, entry in CATALOGUE.items() if entry.paper == paper), key=sort_key)
        done = [f"[{e}](results/{e}.md)" for e in ids if e in have]
        todo = [f"`{e}` ({CATALOGUE[e].cost})" for e in ids if e not in have]
        if done:
            lines.append(f"- {name}: " + ", ".join(done))
        if todo:
            lines.append(f"- {name}, no page yet (full-size cost here): " + ", ".join(todo))
    return "\n".join(lines)


def _front_block(docs, begin: str, end: str, body: str) -> Path:
    front = Path(docs) / "results.md"
    text = front.read_text()
    old = _block(text, begin, end)
    if old is None:
        raise ValueError(f"{front}: the block {begin} is missing")
    front.write_text(text.replace(old, f"{begin}\n{body}\n{end}"))
    return front


def refresh_index(docs) -> Path:
    """Rewrite the list of ids on the front page of ``docs/results.md`` (after a page is added)."""
    return _front_block(docs, INDEX_BEGIN, INDEX_END, index_markdown(docs))


def _block(text: str, begin: str, end: str) -> str | None:
    if begin not in text or end not in text:
        return None
    return begin + text.split(begin, 1)[1].split(end, 1)[0] + end


_PIPE = re.compile(r"(?<!\\)\|")


def broken_tables(text: str) -> list[int]:
    """Line numbers (from 1) of Markdown table rows whose cell count is not their header's: an
    unescaped '|' inside a cell ("median |ρ|") starts a column and shifts the rest of the row."""
    bad, width = [], None
    for i, line in enumerate(text.splitlines(), 1):
        if not line.startswith("|"):
            width = None
            continue
        n = len(_PIPE.findall(line))
        if width is None:
            width = n
        elif n != width:
            bad.append(i)
    return bad


def check(docs) -> list[str]:
    """Every difference between the documented pages and what their data files generate."""
    from .coverage import coverage_markdown

    docs = Path(docs)
    problems = []
    front = docs / "results.md"
    # every page read once: its generated block and its tables are checked from the same text
    texts = {p: p.read_text() for p in [front, *sorted((docs / "results").glob("*.md"))] if p.exists()}
    if front in texts:
        found = _block(texts[front], COVERAGE_BEGIN, COVERAGE_END)
        want = f"{COVERAGE_BEGIN}\n{coverage_markdown()}\n{COVERAGE_END}"
        if found is None:
            problems.append(f"{front}: the coverage block is missing")
        elif found != want:
            problems.append(f"{front}: the coverage table differs from dpmodels/experiments/coverage.py")
        found = _block(texts[front], INDEX_BEGIN, INDEX_END)
        if found is None:
            problems.append(f"{front}: the list of pages is missing")
        elif found != f"{INDEX_BEGIN}\n{index_markdown(docs)}\n{INDEX_END}":
            problems.append(f"{front}: the list of pages is stale (--refresh index)")
    data = docs / "results" / "data"
    read = set()
    for meta_path in sorted(data.glob("*.json")):
        eid = meta_path.name[: -len(".json")]
        page = docs / "results" / f"{eid}.md"
        meta, rows_path = _committed(docs, eid)
        if page not in texts or meta is None or not rows_path.exists():
            problems.append(f"{meta_path}: no page {page.name} or no rows file {rows_path.name}")
            continue
        read.add(rows_path.name)
        for fig in meta.get("figures", []):
            if not (docs / "figures" / "results" / eid / fig).exists():
                problems.append(f"{page}: its figure {fig} is missing from docs/figures/results/{eid}/")
        want = page_block(eid, read_rows(rows_path), meta)
        found = _block(texts[page], BEGIN.format(id=eid), END)
        if found != want:
            problems.append(f"{page}: its generated block differs from {rows_path.name} (regenerate, never edit)")
    for rows_path in sorted(data.glob("*.csv.gz")):
        if rows_path.name not in read:
            problems.append(f"{rows_path}: no page reads it (no {rows_path.name[: -len('.csv.gz')]}.json names it)")
    for page, text in texts.items():
        bad = broken_tables(text)
        if bad:
            problems.append(f"{page}: table rows with a cell count other than their header's, lines {bad[:5]}")
    return problems


def main(argv=None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if "--refresh" in args:  # python -m dpmodels.experiments.pages DOCS --refresh ID ...
        i = args.index("--refresh")
        docs = args[0] if i > 0 else "docs"
        for eid in args[i + 1 :]:  # "coverage": the front page's coverage table
            fn = {"coverage": refresh_coverage, "index": refresh_index}.get(eid)
            print(f"page: {fn(docs) if fn else refresh(eid, docs)}")
        return 0
    docs = args[0] if args else "docs"
    problems = check(docs)
    for p in problems:
        print(p, file=sys.stderr)
    n = len(list((Path(docs) / "results" / "data").glob("*.json")))
    print(f"results-check: {n} generated pages and the coverage table; {len(problems)} differences")
    return 1 if problems else 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
