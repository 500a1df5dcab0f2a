"""PrivaTree out of core: the CPU of a fit by Dask's workers against the pyarrow loop, same files.

    python benchmarks/bench_dask_privatree.py --rows 2000000 --dir /tmp/dpmodels-scale [--rounds 2]
        [--no-malloc-trim] [--pyarrow-pandas-passes] [--passes] [--pyarrow-paths]

Data: ``benchmarks/scale_run.py``'s (10 numerical + 5 text categorical features, a binary label,
Parquet files of 500,000 rows, written once). Fit: ``PrivaTreeClassifier(epsilon=1, max_depth=6,
bounds=(−5, 5), categories=..., classes=[0, 1], random_state=0)`` — 8 count passes. Per round,
one fit of each backend, alternating:

- ``pyarrow``: a :class:`~dpmodels.data.ParquetSource` (batches of 2^18 rows) in a process of
  its own, started before the cluster: its CPU (user + system, ``getrusage``). (Until 2026-11-29
  the pyarrow fits ran in this process, whose CPU also holds the idle scheduler and nannies of the
  ``LocalCluster``, about 0.03 CPU-s per wall second: a bias in Dask's favour.)
- ``dask``: a ``LocalCluster`` of 2 worker processes × 1 thread (2 GB each) on
  :meth:`~dpmodels.data.DaskSource.from_parquet` (one partition per file): the workers' CPU
  (user + system, measured on each worker before and after) plus the driver's.

Both backends' source passes read Arrow record batches through the same pass functions: the Dask
tasks the pinned files (``sources_pinned.read_pinned``), the pyarrow fit its record batches
(``ParquetSource.map_batches``). ``--pyarrow-pandas-passes``: the pyarrow fit's source passes on
pandas frames instead (``ParquetSource.arrow_passes = False``: its path until 2026-11-29, the
same tree). ``--pyarrow-paths``: no Dask; the pyarrow fit on either path, alternating (the CPU
the Arrow passes save on one machine).

A warm-up round (one fit of each, not counted) comes first. Prints the CPU of each fit (user /
system), rows per CPU-second, the ratio dask ÷ pyarrow, the tree's digest (the same tree from
both) and the machine's load average. Before the rounds, the idle cluster's CPU is measured over
a few seconds: Dask's workers and its scheduler and nannies (in this process) spend CPU while
nothing runs, so Dask's CPU per fit grows with its wall time, which the machine's load stretches;
the summary also gives Dask's CPU net of that rate × the fit's wall time (for the diagnosis only:
the ratio is the gross one).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import resource
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))


def _cpu():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return np.array([r.ru_utime, r.ru_stime])


def _digest(est):
    return hashlib.sha256(json.dumps(est.tree_.to_dict(), sort_keys=True, default=str).encode()).hexdigest()[:12]


def _est():
    from dpmodels.tree import PrivaTreeClassifier
    from scale_run import CATS

    return PrivaTreeClassifier(
        epsilon=1.0, max_depth=6, bounds=(-5.0, 5.0), categories=CATS, classes=[0, 1], random_state=0
    )


def _pyarrow_fits(conn, d: str) -> None:
    """The pyarrow side, in a process of its own: one fit per request ("fit", or "fit-pandas": the
    source passes on pandas frames); replies (CPU, wall, digest)."""
    from dpmodels.data import ParquetSource
    from scale_run import CATS, NUM

    while (msg := conn.recv()) in ("fit", "fit-pandas"):
        ParquetSource.arrow_passes = msg == "fit"
        c0, t = _cpu(), time.perf_counter()
        m = _est().fit(ParquetSource(d, label="label", columns=NUM + list(CATS)))
        conn.send((_cpu() - c0, time.perf_counter() - t, _digest(m)))


def _pyarrow_paths(conn, rows: int, rounds: int) -> None:
    """``--pyarrow-paths``: the pyarrow fit with its source passes on Arrow record batches against
    the same fit on pandas frames (no cluster), alternating, after a warm-up of each."""
    res: dict = {"fit": [], "fit-pandas": []}
    digests = set()
    for r in range(-1, rounds):
        for msg in ("fit", "fit-pandas") if r % 2 == 0 else ("fit-pandas", "fit"):
            conn.send(msg)
            total, wall, digest = conn.recv()
            digests.add(digest)
            if r >= 0:
                res[msg].append(total.sum())
            print(
                f"round {r if r >= 0 else 'warm-up'} {msg:10s} wall {wall:6.1f} s  CPU {total.sum():6.2f} s", flush=True
            )
    conn.send("stop")
    a, p = np.array(res["fit"]), np.array(res["fit-pandas"])
    print(f"\n{rows:,} rows, {rounds} rounds, pyarrow only; trees: {sorted(digests)}")
    print(f"pyarrow CPU per fit (median): Arrow source passes {np.median(a):.2f} s, pandas frames {np.median(p):.2f} s")
    print(f"Arrow ÷ pandas: {np.median(a) / np.median(p):.2f}× (per round: {np.round(a / p, 2).tolist()})")


def _dask_passes(client, fit) -> None:
    """``--passes``: one more Dask fit, with the CPU of each count pass (the workers' and the
    driver's). The encoded cache is persisted lazily, so the encoding is computed in the first
    level pass."""
    from dpmodels.tree.privatree import streaming

    def cpus():
        return _cpu(), sum(np.array(v) for v in client.run(lambda: list(_cpu())).values())

    rows = []
    real = streaming.counts

    def counts(src, fn, shape):
        (d0, w0), t = cpus(), time.perf_counter()
        out = real(src, fn, shape)
        (d1, w1), wall = cpus(), time.perf_counter() - t
        rows.append((type(fn).__name__.strip("_"), wall, (d1 - d0).sum(), w1 - w0))
        return out

    streaming.counts = counts
    try:
        fit()
    finally:
        streaming.counts = real
    print("\n| pass | wall | driver CPU | workers' CPU (user + system) |")
    print("|---|---|---|---|")
    level = 0
    for name, wall, drv, wk in rows:
        if name == "LevelPass":
            name = f"level {level}" + (" (and the encoding)" if level == 0 else "")
            level += 1
        else:
            name = {"FirstPass": "first pass", "LeafPass": "leaf pass"}.get(name, name)
        print(f"| {name} | {wall:.2f} s | {drv:.2f} s | {wk.sum():.2f} s ({wk[0]:.2f} + {wk[1]:.2f}) |")


def main() -> None:
    import multiprocessing

    from scale_run import CATS, NUM, write

    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=2_000_000)
    ap.add_argument("--dir", default="/tmp/dpmodels-scale")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument(
        "--no-malloc-trim",
        action="store_true",
        help="spawn the workers without Dask's MALLOC_TRIM_THRESHOLD_=65536 (docs/benchmarks.md)",
    )
    ap.add_argument(
        "--pyarrow-paths",
        action="store_true",
        help="no Dask: the pyarrow fit with Arrow source passes against the pandas ones, alternating",
    )
    ap.add_argument("--passes", action="store_true", help="then one more Dask fit, with the CPU of each pass")
    ap.add_argument("--idle-seconds", type=float, default=5.0, help="how long the idle cluster is measured")
    ap.add_argument(
        "--pyarrow-pandas-passes",
        action="store_true",
        help="the pyarrow fit's source passes on pandas frames (its path until 2026-11-29)",
    )
    args = ap.parse_args()
    d = Path(args.dir) / f"rows{args.rows}"
    write(d, args.rows)
    load0 = os.getloadavg()[0]

    ctx = multiprocessing.get_context("spawn")
    conn, child_conn = ctx.Pipe()
    pyarrow_side = ctx.Process(target=_pyarrow_fits, args=(child_conn, str(d)), daemon=True)
    pyarrow_side.start()  # before the cluster: nothing of Dask runs in it
    if args.pyarrow_paths:
        _pyarrow_paths(conn, args.rows, args.rounds)
        pyarrow_side.join()
        return
    fit_msg = "fit-pandas" if args.pyarrow_pandas_passes else "fit"

    from distributed import Client, LocalCluster

    from dpmodels.data import DaskSource

    if args.no_malloc_trim:
        import dask

        # the nanny's MALLOC_TRIM_THRESHOLD_ turns off glibc's adaptive mmap threshold: every array
        # above 128 kB is a fresh mmap whose pages fault in again (system time)
        dask.config.set({"distributed.nanny.pre-spawn-environ.MALLOC_TRIM_THRESHOLD_": None})
    cols = NUM + list(CATS)
    res: dict = {"pyarrow": [], "dask": []}
    digests = set()
    with (
        LocalCluster(
            n_workers=args.workers, threads_per_worker=1, memory_limit="2GB", dashboard_address=None
        ) as cluster,
        Client(cluster) as client,
    ):
        client.run(lambda: __import__("dpmodels.tree"))  # imported before timing

        def cluster_cpu():
            return _cpu() + sum(np.array(v) for v in client.run(lambda: list(_cpu())).values())

        c0, t0 = cluster_cpu(), time.perf_counter()
        time.sleep(args.idle_seconds)  # what the cluster costs doing nothing (heartbeats, monitors)
        idle_rate = (cluster_cpu() - c0).sum() / (time.perf_counter() - t0)
        print(f"idle cluster: {idle_rate:.3f} CPU-s per wall second (workers and this process)", flush=True)
        dask_walls = []
        for r in range(-1, args.rounds):  # round -1 warms up (compiled kernels loaded, caches filled): not counted
            for kind in ("pyarrow", "dask") if r % 2 == 0 else ("dask", "pyarrow"):
                if kind == "pyarrow":
                    conn.send(fit_msg)
                    total, wall, digest = conn.recv()
                    driver = total
                else:
                    c0 = _cpu()
                    w0 = sum(np.array(v) for v in client.run(lambda: list(_cpu())).values())
                    t = time.perf_counter()
                    m = _est().fit(DaskSource.from_parquet(d, label="label", columns=cols))
                    wall = time.perf_counter() - t
                    driver = _cpu() - c0
                    workers = sum(np.array(v) for v in client.run(lambda: list(_cpu())).values()) - w0
                    total, digest = driver + workers, _digest(m)
                    if r >= 0:
                        dask_walls.append(wall)
                if r >= 0:
                    res[kind].append(total)
                digests.add(digest)
                print(
                    f"round {r if r >= 0 else 'warm-up'} {kind:8s} wall {wall:6.1f} s  CPU {total.sum():6.1f} s "
                    f"(user {total[0]:.1f}, system {total[1]:.1f}; driver {driver.sum():.1f})",
                    flush=True,
                )
        if args.passes:
            _dask_passes(client, lambda: _est().fit(DaskSource.from_parquet(d, label="label", columns=cols)))
    conn.send("stop")
    pyarrow_side.join()
    pa = np.array([t.sum() for t in res["pyarrow"]])
    da = np.array([t.sum() for t in res["dask"]])
    stamp = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    nanny = "workers without MALLOC_TRIM_THRESHOLD_" if args.no_malloc_trim else "Dask's default nanny"
    if args.pyarrow_pandas_passes:
        nanny += "; pyarrow's source passes on pandas frames (the old path)"
    print(f"\n{args.rows:,} rows, {args.rounds} rounds, {nanny}, {stamp}; trees: {sorted(digests)}")
    print(f"load average (1 min) at the start / end: {load0:.1f} / {os.getloadavg()[0]:.1f}")
    print("| backend | CPU per fit (median) | rows per CPU-second per pass (8 passes) |")
    print("|---|---|---|")
    for k, t in (("pyarrow", pa), ("dask", da)):
        print(f"| {k} | {np.median(t):.1f} s | {8 * args.rows / np.median(t) / 1e6:.2f} M |")
    print(f"dask ÷ pyarrow CPU: {np.median(da) / np.median(pa):.2f}× (per round: {np.round(da / pa, 2).tolist()})")
    idle = idle_rate * np.array(dask_walls)
    print(
        f"of Dask's CPU, the idle cluster's rate × the fit's wall time: median {np.median(idle):.2f} s "
        f"(per round: {np.round(idle, 2).tolist()}); dask net of it ÷ pyarrow: "
        f"{np.median(da - idle) / np.median(pa):.2f}×"
    )


if __name__ == "__main__":
    main()
