"""PrivaTree fit vs scikit-learn's DecisionTreeClassifier(max_depth=4), same data, same run.

Run: ``pytest benchmarks/bench_privatree.py --benchmark-only`` (``make bench``). Synthetic data:
24 numerical features, n = 10^3, 10^4, 10^5, 10^6; PrivaTree includes its private quantiles
(JointExp, all 24 features), ε = 1, public bounds. Peak memory is measured separately with
tracemalloc and stored in the benchmark's ``extra_info`` next to the size of the input array, with
the 1-minute load average before each case (shared machines: compare ratios from the same run).
At the end of the module the medians and the ratio scikit-learn / PrivaTree per n are printed.

The small-fit ratio of docs/benchmarks.md comes from the script, an interleaved run (each round
fits every case once, the order rotating; CPU times by ``time.process_time``; ratios per round)::

    python benchmarks/bench_privatree.py --rounds 41 [--base /path/to/other/checkout/src] [--kernels numba]
"""

import os
import sys
import tracemalloc
from pathlib import Path

import numpy as np
import pytest
from sklearn.tree import DecisionTreeClassifier

from dpmodels.tree import PrivaTreeClassifier

SIZES = [10**3, 10**4, 10**5, 10**6]
N_FEATURES = 24
_DATA = {}
_MEDIANS = {}  # (learner, n) -> median seconds of this run


@pytest.fixture(scope="module", autouse=True)
def ratio_table(request):
    """After the module: medians and the speed ratio per n (on pytest's terminal)."""
    yield
    lines = [
        "",
        "PrivaTree vs scikit-learn (depth 4, 24 numerical features), medians of this run:",
        "n | scikit-learn | PrivaTree | ratio (sklearn / PrivaTree)",
    ]
    for n in SIZES:
        a, b = _MEDIANS.get(("sklearn", n)), _MEDIANS.get(("privatree", n))
        if a and b:
            lines.append(f"{n:>8} | {a * 1e3:9.1f} ms | {b * 1e3:9.1f} ms | {a / b:6.2f}x")
    capture = request.config.pluginmanager.getplugin("capturemanager")
    with capture.global_and_fixture_disabled():
        sys.stdout.write("\n".join(lines) + "\n")


def synthetic(n):
    if n not in _DATA:
        rng = np.random.default_rng(0)
        X = rng.normal(size=(n, N_FEATURES))
        y = (X[:, 0] + X[:, 1] * X[:, 2] - 0.5 * X[:, 3] + rng.normal(size=n) > 0).astype(np.int64)
        _DATA.clear()
        _DATA[n] = (X, y)
    return _DATA[n]


def privatree():
    return PrivaTreeClassifier(epsilon=1.0, max_depth=4, bounds=(-6.0, 6.0), classes=[0, 1], random_state=0)


def sklearn_tree():
    return DecisionTreeClassifier(max_depth=4, random_state=0)


def peak_memory(make, X, y):
    tracemalloc.start()
    make().fit(X, y)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("learner", ["privatree", "sklearn"])
def test_fit(benchmark, learner, n):
    X, y = synthetic(n)
    make = privatree if learner == "privatree" else sklearn_tree
    benchmark.group = f"fit depth 4, n={n}, 24 numerical features"
    benchmark.extra_info["input_bytes"] = int(X.nbytes)
    benchmark.extra_info["load_avg_1min_before"] = os.getloadavg()[0]  # the machine may be shared
    rounds = 1 if (learner == "sklearn" and n >= 10**6) else 3 if n >= 10**5 else 15
    est = benchmark.pedantic(
        lambda: make().fit(X, y), rounds=rounds, iterations=1, warmup_rounds=1 if n <= 10**4 else 0
    )
    _MEDIANS[(learner, n)] = benchmark.stats.stats.median
    if learner == "privatree":
        peak = peak_memory(make, X, y)
        benchmark.extra_info["peak_bytes"] = int(peak)
        benchmark.extra_info["peak_over_input"] = peak / X.nbytes
        assert est.privacy_ledger_.is_private


def cases() -> dict:
    """name -> a zero-argument fit at n = 10^3 and 10^4 (PrivaTree and scikit-learn, same data)."""
    import warnings

    warnings.simplefilter("ignore")
    out = {}
    for n, tag in ((10**3, "1e3"), (10**4, "1e4")):
        rng = np.random.default_rng(0)
        X = rng.normal(size=(n, N_FEATURES))
        y = (X[:, 0] + X[:, 1] * X[:, 2] - 0.5 * X[:, 3] + rng.normal(size=n) > 0).astype(np.int64)
        out[f"privatree_{tag}"] = lambda X=X, y=y: privatree().fit(X, y)
        out[f"sklearn_{tag}"] = lambda X=X, y=y: sklearn_tree().fit(X, y)
    return out


PEER = {"privatree_1e3": "sklearn_1e3", "privatree_1e4": "sklearn_1e4"}

if __name__ == "__main__":
    import argparse

    # which PrivaTree code the workers run (dpmodels._compiled; the same models either way): numba =
    # the compiled kernels (by default a process's fits after its first 64), numpy = those first 64
    # fits; default: the library's own rule. The workers inherit the environment.
    ap = argparse.ArgumentParser(add_help=False)
    ap.add_argument("--kernels", choices=["auto", "numba", "numpy"], default=None)
    k, _ = ap.parse_known_args()
    if k.kernels:
        os.environ["DPMODELS_KERNELS"] = k.kernels
    sys.path.insert(0, str(Path(__file__).parent))
    from _interleaved import main

    main(__file__, cases, PEER, "interleaved PrivaTree fit timings vs scikit-learn", peer_label="scikit-learn")
