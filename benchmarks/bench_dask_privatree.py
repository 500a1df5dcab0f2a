"""PrivaTree out of core: the CPU of a fit by Dask's workers against the pyarrow loop, same files.

    python benchmarks/bench_dask_privatree.py --rows 2000000 --dir /tmp/dpmodels-scale [--rounds 2] [--no-malloc-trim]

Data: ``benchmarks/scale_run.py``'s (10 numerical + 5 text categorical features, a binary label,
Parquet files of 500,000 rows, written once). Fit: ``PrivaTreeClassifier(epsilon=1, max_depth=6,
bounds=(−5, 5), categories=..., classes=[0, 1], random_state=0)`` — 8 count passes. Per round,
one fit of each backend, alternating:

- ``pyarrow``: a :class:`~dpmodels.data.ParquetSource` (batches of 2^18 rows) in this process:
  its CPU (user + system, ``getrusage``);
- ``dask``: a ``LocalCluster`` of 2 worker processes × 1 thread (2 GB each) on
  :meth:`~dpmodels.data.DaskSource.from_parquet` (one partition per file): the workers' CPU
  (user + system, measured on each worker before and after) plus the driver's.

Prints the CPU of each fit (user / system), rows per CPU-second, the ratio dask ÷ pyarrow, and the
tree's digest (the same tree from both).
"""

from __future__ import annotations

import argparse
import hashlib
import json
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


def main() -> None:
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
    args = ap.parse_args()
    d = Path(args.dir) / f"rows{args.rows}"
    write(d, args.rows)

    from distributed import Client, LocalCluster

    from dpmodels.data import DaskSource, ParquetSource
    from dpmodels.tree import PrivaTreeClassifier

    def est():
        return PrivaTreeClassifier(
            epsilon=1.0, max_depth=6, bounds=(-5.0, 5.0), categories=CATS, classes=[0, 1], random_state=0
        )

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
        client.run(lambda: __import__("dpmodels.tree"))  # imported before timing (round 0 still warms up)
        for r in range(args.rounds):
            for kind in ("pyarrow", "dask") if r % 2 == 0 else ("dask", "pyarrow"):
                c0 = _cpu()
                w0 = sum(np.array(v) for v in client.run(lambda: list(_cpu())).values())
                t = time.perf_counter()
                if kind == "pyarrow":
                    m = est().fit(ParquetSource(d, label="label", columns=cols))
                else:
                    m = est().fit(DaskSource.from_parquet(d, label="label", columns=cols))
                wall = time.perf_counter() - t
                driver = _cpu() - c0
                workers = sum(np.array(v) for v in client.run(lambda: list(_cpu())).values()) - w0
                total = driver + (workers if kind == "dask" else 0.0)
                res[kind].append(total)
                digests.add(_digest(m))
                print(
                    f"round {r} {kind:8s} wall {wall:6.1f} s  CPU {total.sum():6.1f} s "
                    f"(user {total[0]:.1f}, system {total[1]:.1f}; driver {driver.sum():.1f})",
                    flush=True,
                )
    pa = np.array([t.sum() for t in res["pyarrow"]])
    da = np.array([t.sum() for t in res["dask"]])
    stamp = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    print(f"\n{args.rows:,} rows, {args.rounds} rounds, {stamp}; trees: {sorted(digests)}")
    print("| backend | CPU per fit (median) | rows per CPU-second per pass (8 passes) |")
    print("|---|---|---|")
    for k, t in (("pyarrow", pa), ("dask", da)):
        print(f"| {k} | {np.median(t):.1f} s | {8 * args.rows / np.median(t) / 1e6:.2f} M |")
    print(f"dask ÷ pyarrow CPU: {np.median(da) / np.median(pa):.2f}× (per round: {np.round(da / pa, 2).tolist()})")


if __name__ == "__main__":
    main()
