"""Out-of-core DP rule list on this machine: a Binarizer (DP quantiles) then the default DP rule
list, one accountant, on Parquet streamed with pyarrow (or Dask), with the per-pass cost.

    PYTHONPATH=src python benchmarks/scale_rulelist.py --rows 10000000 --dir /tmp/dpmodels-scale [--dask]

The data are ``scale_run.py``'s (written once if absent): ``rows`` rows × (10 numerical +
5 categorical) features and a binary label in Parquet files of 500,000 rows. The fit is one
Binarizer pass (grid histograms), at most K − 1 moment passes and one histogram pass; printed:
each pass's wall and CPU seconds and rows per CPU-second (with ``--dask``: the CPU of the
driver and, from ``getrusage`` on every worker before and after the pass, of all workers), the
peak RSS of the process (and of each worker), the load averages before and after, and a digest
of the fitted model (rule list, binary columns, ledger) — equal across backends. Not part of any
test suite; the numbers are recorded in docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from scale_run import CATS, NUM, write  # noqa: E402


def _cpu() -> float:
    """CPU seconds (user + system) of the calling process: run on every Dask worker."""
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def _usage() -> tuple:
    """(user CPU s, system CPU s, minor page faults, peak RSS in MB) of the calling process."""
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime, r.ru_stime, r.ru_minflt, r.ru_maxrss / 1024


def model_digest(est) -> str:
    """sha256 (first 12 hex digits) of what the fit released: the rule list, the binary columns
    and the privacy ledger (nothing in them names the backend)."""
    import hashlib
    import json

    d = {
        "rule_list": est.rule_list_.to_dict(),
        "columns": [str(c) for c in est.feature_names_in_],
        "ledger": est.privacy_ledger_.to_dict(),
    }
    return hashlib.sha256(json.dumps(d, sort_keys=True, default=str).encode()).hexdigest()[:12]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=10_000_000)
    ap.add_argument("--dir", default="/tmp/dpmodels-scale")
    ap.add_argument("--batch-rows", type=int, default=1 << 18)
    ap.add_argument("--max-width", type=int, default=2)
    ap.add_argument("--dask", action="store_true", help="a LocalCluster instead of pyarrow streaming")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--memory-limit", default="1GB")
    ap.add_argument(
        "--no-malloc-trim",
        action="store_true",
        help="spawn the Dask workers without Dask's MALLOC_TRIM_THRESHOLD_=65536 (see below)",
    )
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
    client = None  # the Dask client: its workers' CPU is read before and after each pass

    def workers_cpu() -> float:
        return sum(client.run(_cpu).values()) if client is not None else 0.0

    def timed(source, fn, shape):
        w, c, wc = time.perf_counter(), time.process_time(), workers_cpu()
        out = inner(source, fn, shape)
        passes.append(
            (
                f"{type(fn).__module__.rsplit('.', 1)[-1]}.{type(fn).__name__}",
                time.perf_counter() - w,
                time.process_time() - c,
                workers_cpu() - wc,
            )
        )
        return out

    dcounts.counts = bstream.counts = timed
    acc = BudgetAccountant(1.0)
    pipe = make_private_pipeline(
        Binarizer(epsilon=0.2, bounds=(-5.0, 5.0), categories=CATS, n_bins=3, accountant=acc, random_state=0),
        DPRuleListClassifier(epsilon=0.8, max_width=args.max_width, accountant=acc, random_state=0),
    )
    print("load average before:", " ".join(f"{v:.2f}" for v in os.getloadavg()))
    c0 = time.process_time()
    if args.dask:
        import dask
        import dask.dataframe as dd
        from distributed import Client, LocalCluster

        if args.no_malloc_trim:
            # Dask's nanny spawns workers with MALLOC_TRIM_THRESHOLD_=65536 (to hand freed memory
            # back to the OS); setting it also turns off glibc's adaptive mmap threshold, so every
            # array above 128 kB is a fresh mmap whose pages fault in again at each task:
            # measured in process, 10x the system CPU of a moment task (docs/benchmarks.md)
            dask.config.set({"distributed.nanny.pre-spawn-environ.MALLOC_TRIM_THRESHOLD_": None})
        with (
            LocalCluster(
                n_workers=args.workers, threads_per_worker=1, memory_limit=args.memory_limit, dashboard_address=None
            ) as cluster,
            Client(cluster) as client,
        ):
            src = DaskSource(dd.read_parquet(str(d)), label="label", columns=NUM + list(CATS))
            u0 = client.run(_usage)
            t = time.perf_counter()
            pipe.fit(src)
            wall = time.perf_counter() - t
            u1 = client.run(_usage)
            for k in u1:
                user, sys_, flt = (u1[k][i] - u0[k][i] for i in range(3))
                print(
                    f"worker {k}: {user:.1f} s user + {sys_:.1f} s system CPU over the fit, "
                    f"{flt:,} minor page faults, peak RSS {u1[k][3]:.0f} MB"
                )
            client = None
    else:
        src = ParquetSource(d, label="label", columns=NUM + list(CATS), batch_rows=args.batch_rows)
        t = time.perf_counter()
        pipe.fit(src)
        wall = time.perf_counter() - t
    cpu = time.process_time() - c0
    print("load average after:", " ".join(f"{v:.2f}" for v in os.getloadavg()))
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    est = pipe[-1]
    print(f"fit: {wall:.1f} s wall, {cpu:.1f} s CPU (this process), {len(passes)} passes, peak RSS {rss:.0f} MB")
    print(f"{len(est.feature_names_in_)} binary columns, {est.n_candidates_:,} candidates")
    for name, w, c, wc in passes:
        work = wc if args.dask else c  # the CPU that read and counted the rows
        rate = args.rows / work if work > 0 else float("nan")
        print(
            f"  {name:32s} {w:7.1f} s wall {c:7.1f} s CPU (driver) {wc:7.1f} s CPU (workers)"
            f"  {rate / 1e6:6.2f} M rows/CPU-s"
        )
    print(est.to_text())
    print("private:", est.privacy_ledger_.is_private, "; model digest", model_digest(est))


if __name__ == "__main__":
    main()
