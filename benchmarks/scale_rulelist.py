"""Out-of-core DP rule list on this machine: a Binarizer (DP quantiles) then the default DP rule
list, one accountant, on Parquet streamed with pyarrow (or Dask), with the per-pass cost.

    PYTHONPATH=src python benchmarks/scale_rulelist.py --rows 10000000 --dir /tmp/dpmodels-scale [--dask]

The data are ``scale_run.py``'s (written once if absent): ``rows`` rows × (10 numerical +
5 categorical) features and a binary label in Parquet files of 500,000 rows. The fit is one
Binarizer pass (grid histograms), at most K − 1 moment passes and one histogram pass; printed:
each pass's wall and CPU seconds and rows per CPU-second, and the peak RSS of the process. Not
part of any test suite; the numbers are recorded in docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import resource
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from scale_run import CATS, NUM, write  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=10_000_000)
    ap.add_argument("--dir", default="/tmp/dpmodels-scale")
    ap.add_argument("--batch-rows", type=int, default=1 << 18)
    ap.add_argument("--max-width", type=int, default=2)
    ap.add_argument("--dask", action="store_true", help="a LocalCluster instead of pyarrow streaming")
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
        f"data: {d} ({sum(f.stat().st_size for f in d.glob('*.parquet')) / 1e6:.0f} MB on disk, {time.perf_counter() - t:.0f} s)"
    )

    import dpmodels.data.binarize_stream as bstream
    import dpmodels.data.counts as dcounts
    from dpmodels.data import Binarizer, DaskSource, ParquetSource
    from dpmodels.pipeline import make_private_pipeline
    from dpmodels.privacy import BudgetAccountant
    from dpmodels.rulelist import DPRuleListClassifier

    passes = []
    inner = dcounts.counts

    def timed(source, fn, shape):
        w, c = time.perf_counter(), time.process_time()
        out = inner(source, fn, shape)
        passes.append(
            (
                f"{type(fn).__module__.rsplit('.', 1)[-1]}.{type(fn).__name__}",
                time.perf_counter() - w,
                time.process_time() - c,
            )
        )
        return out

    dcounts.counts = bstream.counts = timed
    acc = BudgetAccountant(1.0)
    pipe = make_private_pipeline(
        Binarizer(epsilon=0.2, bounds=(-5.0, 5.0), categories=CATS, n_bins=3, accountant=acc, random_state=0),
        DPRuleListClassifier(epsilon=0.8, max_width=args.max_width, accountant=acc, random_state=0),
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
            src = DaskSource(dd.read_parquet(str(d)), label="label", columns=NUM + list(CATS))
            t = time.perf_counter()
            pipe.fit(src)
            wall = time.perf_counter() - t
            mem = client.run(lambda: resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
            print("peak RSS per worker (MB):", {k: round(v / 1024) for k, v in mem.items()})
    else:
        src = ParquetSource(d, label="label", columns=NUM + list(CATS), batch_rows=args.batch_rows)
        t = time.perf_counter()
        pipe.fit(src)
        wall = time.perf_counter() - t
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    est = pipe[-1]
    print(f"fit: {wall:.1f} s wall, {len(passes)} passes, peak RSS of this process {rss:.0f} MB")
    print(f"{len(est.feature_names_in_)} binary columns, {est.n_candidates_:,} candidates")
    for name, w, c in passes:
        rate = args.rows / c if not args.dask and c > 0 else float("nan")
        print(f"  {name:32s} {w:7.1f} s wall {c:7.1f} s CPU (driver)  {rate / 1e6:6.2f} M rows/CPU-s")
    print(est.to_text())


if __name__ == "__main__":
    main()
