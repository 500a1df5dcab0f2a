"""Out-of-core PrivaTree on this machine: Parquet streamed with pyarrow (or Dask), per-pass cost.

    PYTHONPATH=src python benchmarks/scale_run.py --rows 10000000 --dir /tmp/scale-data [--dask]

Writes (once) ``rows`` rows × (10 numerical + 5 categorical) features and a binary label as
Parquet files of 500,000 rows, then fits ``PrivaTreeClassifier(max_depth=6)`` on them and prints,
per count pass, the wall and CPU seconds and rows per CPU-second, and the peak RSS of the process
(the Dask run: of the whole process tree is not covered — see docs/benchmarks.md). Not part of
any test suite; the numbers are recorded in docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import resource
import time
from pathlib import Path

import numpy as np
import pandas as pd

CATS = {f"c{i}": [f"v{j}" for j in range(k)] for i, k in enumerate((3, 5, 8, 12, 20))}
NUM = [f"x{i}" for i in range(10)]
FILE_ROWS = 500_000


def _draw(rng, n: int):
    """One file's random draws, in the generator's order (one stream for all the files)."""
    num = {c: rng.normal(size=n) for c in NUM}
    codes = {c: rng.integers(0, len(vals), n) for c, vals in CATS.items()}
    return num, codes, rng.normal(scale=0.7, size=n)


def write(d: Path, rows: int, seed: int = 0) -> None:
    d.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    for i, a in enumerate(range(0, rows, FILE_ROWS)):
        f = d / f"part-{i:05d}.parquet"
        n = min(FILE_ROWS, rows - a)
        num, codes, noise = _draw(rng, n)  # drawn for a file already written too: a resumed
        if f.exists():  # run writes the same later files as a fresh one
            continue
        df = pd.DataFrame(num)
        for c, vals in CATS.items():
            df[c] = pd.Categorical.from_codes(codes[c], vals).astype(str)
        score = df.x0 + 0.5 * df.x1 - (df.c0 == "v1") + noise
        df["label"] = (score > 0).astype(np.int64)
        df.to_parquet(f, index=False)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=10_000_000)
    ap.add_argument("--dir", default="/tmp/dpmodels-scale")
    ap.add_argument("--depth", type=int, default=6)
    ap.add_argument("--batch-rows", type=int, default=1 << 18)
    ap.add_argument("--dask", action="store_true", help="a LocalCluster instead of pyarrow streaming")
    ap.add_argument("--in-memory", action="store_true", help="the in-memory fit of the concatenated files")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--memory-limit", default="1GB")
    args = ap.parse_args()
    d = Path(args.dir) / f"rows{args.rows}"
    t = time.perf_counter()
    import multiprocessing

    p = multiprocessing.get_context("spawn").Process(target=write, args=(d, args.rows))  # own RSS
    p.start()
    p.join()
    print(
        f"data: {d} ({sum(f.stat().st_size for f in d.glob('*.parquet')) / 1e6:.0f} MB on disk, "
        f"written in {time.perf_counter() - t:.0f} s if new)"
    )

    import dpmodels.tree.privatree.streaming as streaming
    from dpmodels.data import ParquetSource
    from dpmodels.tree import PrivaTreeClassifier

    passes = []
    inner = streaming.counts

    def timed(source, fn, shape):
        w, c = time.perf_counter(), time.process_time()
        out = inner(source, fn, shape)
        passes.append((type(fn).__name__, time.perf_counter() - w, time.process_time() - c))
        return out

    streaming.counts = timed
    inner_cache = getattr(streaming, "encoded_cache", None)

    def timed_cache(source, prepare, **kw):
        w, c = time.perf_counter(), time.process_time()
        out = inner_cache(source, prepare, **kw)
        passes.append(("encode+cache", time.perf_counter() - w, time.process_time() - c))
        return out

    if inner_cache is not None:
        streaming.encoded_cache = timed_cache
    est = PrivaTreeClassifier(
        epsilon=1.0, max_depth=args.depth, bounds=(-5.0, 5.0), categories=CATS, classes=[0, 1], random_state=0
    )
    if args.dask:
        import dask.dataframe as dd
        from distributed import Client, LocalCluster

        with (
            LocalCluster(
                n_workers=args.workers, threads_per_worker=1, memory_limit=args.memory_limit, dashboard_address=None
            ) as cluster,
            Client(cluster) as client,
        ):
            ddf = dd.read_parquet(str(d))

            def cpu():
                r = resource.getrusage(resource.RUSAGE_SELF)
                return r.ru_utime + r.ru_stime

            c0 = sum(client.run(cpu).values())
            t = time.perf_counter()
            est.fit(ddf[NUM + list(CATS)], ddf["label"])
            wall = time.perf_counter() - t
            wcpu = sum(client.run(cpu).values()) - c0
            print(
                f"worker CPU: {wcpu:.1f} s for {len(passes)} passes: "
                f"{args.rows * len(passes) / wcpu / 1e6:.2f} M rows/CPU-s per pass (all workers)"
            )
            mem = client.run(lambda: resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
            print("peak RSS per worker (MB):", {k: round(v / 1024) for k, v in mem.items()})
    elif args.in_memory:
        df = pd.concat([pd.read_parquet(f) for f in sorted(d.glob("*.parquet"))], ignore_index=True)
        t = time.perf_counter()
        c = time.process_time()
        est.fit(df[NUM + list(CATS)], df["label"].to_numpy())
        wall = time.perf_counter() - t
        passes.append(("in-memory fit", wall, time.process_time() - c))
    else:
        src = ParquetSource(d, label="label", batch_rows=args.batch_rows)
        t = time.perf_counter()
        est.fit(src)
        wall = time.perf_counter() - t
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"fit: {wall:.1f} s wall, {len(passes)} passes, peak RSS of this process {rss:.0f} MB")
    for name, w, c in passes:
        rate = args.rows / c if not args.dask and c > 0 else float("nan")
        print(f"  {name:12s} {w:7.1f} s wall {c:7.1f} s CPU (driver)  {rate / 1e6:6.2f} M rows/CPU-s")
    import hashlib
    import json

    digest = hashlib.sha256(json.dumps(est.tree_.to_dict(), sort_keys=True, default=str).encode()).hexdigest()[:12]
    print(est.tree_.n_leaves, "leaves;", "private:", est.privacy_ledger_.is_private, "; tree digest", digest)


if __name__ == "__main__":
    main()
