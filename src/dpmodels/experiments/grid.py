"""Run cells locally (joblib, processes) or on a Dask cluster; resumable tidy results.

Layout of an experiment's folder ``OUT/ID/``::

    cells/<key>-<hash>.parquet   one small file per finished cell (CSV when pyarrow is absent)
    results.parquet              the rows of every cell of the current grid, merged (or .csv)

A cell whose file exists is not recomputed (rerunning resumes an interrupted grid). The file is
keyed by the cell's key and arguments, not by the library's code: after changing a learner,
delete ``OUT/ID/cells`` (or use a new ``--out``) to recompute. Files are
written atomically (temporary name, then rename) by the process that collects the results, never
by the workers, so a remote Dask worker needs no shared file system. Progress bars (tqdm) show
cells done and the estimated time left.

Dask: ``dask="local"`` starts a :class:`distributed.LocalCluster` with ``workers`` single-threaded
worker processes; any other string is a scheduler address (``tcp://host:8786``). Both need the
optional extra ``dpmodels[distributed]``; the cells are the same as with joblib, so the rows are
the same (up to ``fit_seconds``).
"""

from __future__ import annotations

import os
import time
import warnings
from pathlib import Path

import pandas as pd

from .._optional import available, missing
from .registry import ROW_FIELDS, Cell

__all__ = ["run_cells", "read_results", "write_frame", "read_frame", "results_path", "has_parquet"]


def has_parquet() -> bool:
    return available("pyarrow")


def _ext(fmt=None) -> str:
    fmt = fmt or ("parquet" if has_parquet() else "csv")
    return "." + fmt


def write_frame(df: pd.DataFrame, path: Path) -> Path:
    """Write atomically as Parquet or CSV, by the suffix of ``path``."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    if path.suffix == ".parquet":
        df.to_parquet(tmp, index=False)
    else:
        df.to_csv(tmp, index=False)
    os.replace(tmp, path)
    return path


def read_frame(path: Path) -> pd.DataFrame:
    path = Path(path)
    return pd.read_parquet(path) if path.suffix == ".parquet" else pd.read_csv(path)


def _frame(rows) -> pd.DataFrame:
    df = pd.DataFrame(list(rows))
    if df.empty:
        df = pd.DataFrame(columns=list(ROW_FIELDS))
    missing = [c for c in ROW_FIELDS if c not in df.columns]
    if missing:
        raise ValueError(f"cell rows lack the fields {missing}")
    extra = [c for c in df.columns if c not in ROW_FIELDS]
    return df[list(ROW_FIELDS) + extra]


def _existing(cell_dir: Path, uid: str) -> Path | None:
    for ext in (".parquet", ".csv"):
        p = cell_dir / f"{uid}{ext}"
        if p.exists():
            return p
    return None


def _run_cell(cell: Cell):
    """Run one cell with single-threaded BLAS (cells are the unit of parallelism)."""
    from threadpoolctl import threadpool_limits

    t, c = time.perf_counter(), _cpu_with_children()
    with threadpool_limits(limits=1, user_api="blas"), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # leak rows are in the ledgers; the runner would repeat them per fit
        rows = cell.run()
    return cell.uid, rows, time.perf_counter() - t, _cpu_with_children() - c


def _cpu_with_children() -> float:
    """CPU seconds of this process and of its finished children (a cell may fork its fits)."""
    ts = os.times()
    return time.process_time() + ts.children_user + ts.children_system


def _progress(total, desc, enabled):
    """A bar over the grid's cells (public: the grid is), shown as every dpmodels bar is: on an
    interactive stderr or with ``DPMODELS_PROGRESS=1`` (:func:`dpmodels.guards.progress_bar`);
    ``enabled=False`` (``--no-progress``) hides it."""
    if not enabled or total == 0:
        return None
    from ..guards import progress_bar

    return progress_bar(total=total, desc=desc, unit="cell", leave=True)


def _dask_client(address, workers):
    if not available("distributed"):
        raise ValueError(f"--dask: {missing('distributed')}")
    from distributed import Client, LocalCluster

    if address == "local":
        cluster = LocalCluster(
            n_workers=max(1, int(workers)), threads_per_worker=1, processes=True, dashboard_address=None
        )
        return Client(cluster), cluster
    return Client(address), None


def finished(cells, cell_dir) -> list:
    """The cells of ``cells`` whose result file exists in ``cell_dir``."""
    return [c for c in cells if _existing(Path(cell_dir), c.uid) is not None]


def run_cells(
    cells,
    cell_dir,
    *,
    workers: int = 1,
    dask: str | None = None,
    progress: bool = True,
    desc: str = "cells",
    client=None,
    fmt: str | None = None,
) -> dict:
    """Run every cell whose result file is missing; return ``{"ran", "cached", "seconds", "cpu_seconds"}``
    (``cpu_seconds``: the CPU time the cells used in their processes, a load-independent cost).

    ``workers``: joblib processes (1 = in this process); ``dask``: ``"local"`` or a scheduler
    address; ``client``: an existing ``distributed.Client`` (takes precedence).
    """
    cell_dir = Path(cell_dir)
    cell_dir.mkdir(parents=True, exist_ok=True)
    ext = _ext(fmt)
    uids = [c.uid for c in cells]
    if len(set(uids)) != len(uids):
        raise ValueError("two cells of the grid have the same key and parameters")
    todo = [c for c in cells if _existing(cell_dir, c.uid) is None]
    todo.sort(key=lambda c: -c.cost)
    bar = _progress(len(todo), desc, progress)
    t0 = time.perf_counter()

    cpu = [0.0]

    def save(uid, rows, cpu_s=0.0):
        cpu[0] += cpu_s
        write_frame(_frame(rows), cell_dir / f"{uid}{ext}")
        if bar is not None:
            bar.update(1)

    try:
        if not todo:
            pass
        elif client is not None or dask:
            own = None
            if client is None:
                client, own = _dask_client(dask, workers)
            try:
                from distributed import as_completed

                futures = client.map(_run_cell, todo, pure=False)
                for fut in as_completed(futures):
                    uid, rows, _, c = fut.result()
                    save(uid, rows, c)
            finally:
                if own is not None:
                    client.close()
                    own.close()
        elif workers <= 1:
            for c in todo:
                uid, rows, _, cs = _run_cell(c)
                save(uid, rows, cs)
        else:
            from joblib import Parallel, delayed

            par = Parallel(n_jobs=int(workers), return_as="generator_unordered", batch_size=1)
            for uid, rows, _, cs in par(delayed(_run_cell)(c) for c in todo):
                save(uid, rows, cs)
    finally:
        if bar is not None:
            bar.close()
    return {
        "ran": len(todo),
        "cached": len(cells) - len(todo),
        "seconds": time.perf_counter() - t0,
        "cpu_seconds": cpu[0],
    }


def results_path(exp_dir: Path) -> Path:
    exp_dir = Path(exp_dir)
    for ext in (".parquet", ".csv"):
        if (exp_dir / f"results{ext}").exists():
            return exp_dir / f"results{ext}"
    return exp_dir / f"results{_ext()}"


def read_results(cells, cell_dir, out_path=None) -> pd.DataFrame:
    """Merge the rows of ``cells`` (only the current grid's files) and write them to ``out_path``
    (a partial grid: pass the :func:`finished` cells)."""
    cell_dir = Path(cell_dir)
    frames = []
    for c in cells:
        p = _existing(cell_dir, c.uid)
        if p is None:
            raise FileNotFoundError(f"cell {c.key} has not run yet ({cell_dir})")
        frames.append(read_frame(p))
    frames = [f for f in frames if len(f)]
    df = pd.concat(frames, ignore_index=True) if frames else _frame([])
    if out_path is not None:
        out_path = Path(out_path)
        for old in (out_path.with_suffix(".parquet"), out_path.with_suffix(".csv")):
            if old != out_path and old.exists():
                old.unlink()
        write_frame(df, out_path)
    return df
