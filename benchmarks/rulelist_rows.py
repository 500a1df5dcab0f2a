"""Rule lists at scale, in memory: CPU per row and peak memory of a fit on 10^6–10^7 rows.

The data: binarized Adult's 48,842 rows × 24 binary columns resampled with replacement (seed 0)
to ``--rows`` rows, as a C-contiguous uint8 array and as a DataFrame (column-major, what a
Binarizer gives). The fits: ``DPRuleListClassifier(epsilon=1)`` (permute-and-flip, width 2, five
rules) and ``GreedyRuleListClassifier(max_width=2)``. Interleaved CPU times (``_interleaved.py``;
``--base`` measures another checkout's ``src`` in the same rounds)::

    python benchmarks/rulelist_rows.py --rows 1000000 --rounds 7 [--base /path/to/other/src]

and, with ``--memory``, the peak of the memory a fit allocates (``tracemalloc``: numpy reports
its buffers to it), one fit per case in a fresh process, over the input's size::

    python benchmarks/rulelist_rows.py --rows 10000000 --memory [--base /path/to/other/src]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np

_ROWS_ENV = "DPMODELS_BENCH_ROWS"
CASES = ("dp_array", "dp_frame", "greedy_array")


def _data(n: int):
    import pandas as pd

    from dpmodels.data import load_dataset

    Xa, ya = load_dataset("adult")
    idx = np.random.default_rng(0).integers(0, len(ya), n)
    X = np.ascontiguousarray(Xa.to_numpy(dtype=np.uint8)[idx])
    y = ya.to_numpy()[idx]
    frame = pd.DataFrame(np.asfortranarray(X), columns=Xa.columns)
    return X, frame, y


def cases() -> dict:
    """name -> a zero-argument fit on ``DPMODELS_BENCH_ROWS`` rows."""
    from dpmodels.rulelist import DPRuleListClassifier, GreedyRuleListClassifier

    warnings.simplefilter("ignore")
    X, frame, y = _data(int(os.environ.get(_ROWS_ENV, 10**6)))
    return {
        "dp_array": lambda: DPRuleListClassifier(epsilon=1.0, random_state=0).fit(X, y),
        "dp_frame": lambda: DPRuleListClassifier(epsilon=1.0, random_state=0).fit(frame, y),
        "greedy_array": lambda: GreedyRuleListClassifier(max_width=2).fit(X, y),
    }


def _peak(name: str) -> None:
    """One fit of case ``name`` under tracemalloc: prints ``peak_bytes input_bytes``."""
    import tracemalloc

    c = cases()
    X, _, _ = _data(int(os.environ.get(_ROWS_ENV, 10**6)))
    c[name]()  # warm: lazy imports and caches are not the fit's memory
    tracemalloc.start()
    c[name]()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    print(peak, X.nbytes)


def _memory(rows: int, base: str | None) -> None:
    here = Path(__file__).resolve()
    srcs = {"this": here.parents[1] / "src"}
    if base:
        srcs["base"] = Path(base).resolve()
    print(f"{rows:,} rows × 24 binary columns; peak memory a fit allocates (tracemalloc) ÷ the uint8 input")
    print("| version | case | peak | input | peak ÷ input |")
    print("|---|---|---|---|---|")
    for w, src in srcs.items():
        for name in CASES:
            env = dict(os.environ, PYTHONPATH=str(src), OPENBLAS_NUM_THREADS="1", **{_ROWS_ENV: str(rows)})
            out = subprocess.run(
                [sys.executable, str(here), "--peak", name], env=env, capture_output=True, text=True, check=True
            )
            peak, size = (int(v) for v in out.stdout.split()[-2:])
            print(f"| {w} | {name} | {peak / 2**20:,.0f} MB | {size / 2**20:,.0f} MB | {peak / size:.2f}× |")


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=10**6)
    ap.add_argument("--memory", action="store_true", help="peak memory instead of CPU times")
    ap.add_argument("--peak", default=None, help=argparse.SUPPRESS)
    ap.add_argument("--base", default=None)
    a, _ = ap.parse_known_args()
    os.environ.setdefault(_ROWS_ENV, str(a.rows))
    if a.peak:
        _peak(a.peak)
    elif a.memory:
        _memory(a.rows, a.base)
    else:
        sys.path.insert(0, str(Path(__file__).parent))
        from _interleaved import main

        main(__file__, cases, {}, "interleaved rule-list fit timings", base_cases=CASES)
