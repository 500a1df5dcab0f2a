"""Rule-list fit time on binarized Adult (48,842 × 24), K = 5 (4 rules + default).

Run with ``make bench``. Compares GreedyRL and the default DP mechanism (all 1,152 conjunctions of
≤ 2 literals; width 3: every conjunction of ≤ 3 literals the feature groups keep) with imodels'
GreedyRuleListClassifier (depth-1 CART splits, i.e. single literals) on the same data, and our
learners restricted to single literals for a like-for-like row.

As a script, an interleaved A/B in one run — this checkout, imodels and optionally another
checkout's code, each version in its own process, every learner once per round in a rotating
order, CPU and wall medians::

    python benchmarks/bench_rulelist.py --rounds 15 --base /path/to/other/checkout/src
"""

import pytest

from dpmodels.data import load_dataset
from dpmodels.rulelist import DPRuleListClassifier, GreedyRuleListClassifier

# one table of learners for the pytest benchmarks and the A/B script (the ``narrow_`` twins of the
# script fit the same learners on binarized Adult)
_LEARNERS = {
    "greedy_w2": lambda: GreedyRuleListClassifier(max_rules=5, max_width=2),
    "dp_w2": lambda: DPRuleListClassifier(epsilon=1.0, max_rules=5, max_width=2),
    "greedy_w1": lambda: GreedyRuleListClassifier(max_rules=5, max_width=1),
    "greedy_w3": lambda: GreedyRuleListClassifier(max_rules=5, max_width=3),
    "dp_w3": lambda: DPRuleListClassifier(epsilon=1.0, max_rules=5, max_width=3),
}


def _imodels_fit(imodels, X, y):
    Xv, yv = X.to_numpy(), y.to_numpy()
    return lambda: imodels.GreedyRuleListClassifier(max_depth=4).fit(Xv, yv)


def _adult_wide():
    """Raw Adult through the Binarizer over the documented categories (the data's terciles: a
    baseline's input, so the PrivacyLeakWarning is silenced): 45,222 × 107 binary columns."""
    import warnings

    from dpmodels.data import Binarizer, dataset_schema
    from dpmodels.privacy import PrivacyLeakWarning

    X, y = load_dataset("adult", binarized=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)
        return Binarizer(categories=dataset_schema("adult").categories).fit_transform(X), y


@pytest.fixture(scope="module")
def adult():
    return load_dataset("adult")


@pytest.mark.benchmark(group="rulelist-adult")
@pytest.mark.parametrize("name", ["greedy_w2", "dp_w2", "greedy_w1", "greedy_w3", "dp_w3", "imodels"])
def test_adult(benchmark, adult, name):
    fit = _imodels_fit(pytest.importorskip("imodels"), *adult) if name == "imodels" else None
    benchmark(fit or (lambda: _LEARNERS[name]().fit(*adult)))


# ------------------------------------------------------------ wide data: raw Adult through the Binarizer
@pytest.fixture(scope="module")
def adult_wide():
    return _adult_wide()


@pytest.mark.benchmark(group="rulelist-adult-wide")
@pytest.mark.parametrize("name", ["greedy_w2", "dp_w2", "greedy_w1", "imodels"])
def test_adult_wide(benchmark, adult_wide, name):
    fit = _imodels_fit(pytest.importorskip("imodels"), *adult_wide) if name == "imodels" else None
    benchmark(fit or (lambda: _LEARNERS[name]().fit(*adult_wide)))


# ------------------------------------------------- interleaved A/B across code versions (a script)
_AB_FITS = {
    **{k: ("wide", _LEARNERS[k]) for k in ("greedy_w2", "dp_w2", "greedy_w1")},
    **{f"narrow_{k}": ("narrow", _LEARNERS[k]) for k in ("greedy_w2", "dp_w2", "greedy_w3", "dp_w3")},
}


def _ab_worker():
    """One process, one code version: load the data once, then fit what stdin names, one fit a
    line, and answer with its CPU time (``time.process_time``) and wall time, in seconds."""
    import json
    import sys
    import time
    import warnings

    data = {"wide": _adult_wide(), "narrow": load_dataset("adult")}
    fits = {k: (lambda d=d, make=make: make().fit(*data[d])) for k, (d, make) in _AB_FITS.items()}
    try:
        import imodels

        for key, d in (("imodels", "wide"), ("narrow_imodels", "narrow")):
            fits[key] = _imodels_fit(imodels, *data[d])
    except ImportError:
        pass
    warnings.simplefilter("ignore")  # the DP fits' PrivacyLeakWarning (n read from the data)
    for f in fits.values():  # warm-up
        f()
    print("ready", flush=True)
    for line in sys.stdin:
        c, w = time.process_time(), time.perf_counter()
        fits[line.strip()]()
        print(json.dumps([time.process_time() - c, time.perf_counter() - w]), flush=True)


def _ab(rounds, names, base_src, base_names):
    """Interleaved A/B: each round runs every (version, learner) once, the order rotating from
    round to round; medians of CPU and wall per (version, learner), and imodels ÷ each."""
    import json
    import os
    import subprocess
    import sys
    import time
    from pathlib import Path

    import numpy as np

    here = Path(__file__).resolve()

    def start(src):
        env = dict(os.environ, PYTHONPATH=str(src), OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")
        p = subprocess.Popen(
            [sys.executable, str(here), "--worker"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env
        )
        assert p.stdout is not None and p.stdout.readline().strip() == "ready"
        return p

    workers = {"this": start(here.parents[1] / "src")}
    jobs = [("this", n) for n in names]
    if base_src:
        workers["base"] = start(Path(base_src).resolve())
        jobs += [("base", n) for n in base_names]
    res: dict = {j: [] for j in jobs}
    loads = []
    for r in range(rounds):
        for wk, n in jobs[r % len(jobs) :] + jobs[: r % len(jobs)]:
            p = workers[wk]
            assert p.stdin is not None and p.stdout is not None
            p.stdin.write(n + "\n")
            p.stdin.flush()
            res[(wk, n)].append(json.loads(p.stdout.readline()))
        loads.append(os.getloadavg()[0])
    for p in workers.values():
        assert p.stdin is not None
        p.stdin.close()
        p.wait()
    stamp = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    print(
        f"{rounds} rounds, {stamp}, 1-min load average min {min(loads):.1f} / median {np.median(loads):.1f} / max {max(loads):.1f}"
    )
    med = {j: 1000 * np.median(np.array(v), axis=0) for j, v in res.items()}
    for (wk, n), (c, w) in med.items():
        peer = ("this", "narrow_imodels" if n.startswith("narrow_") else "imodels")
        ratio = ""
        if peer in med and "imodels" not in n:
            per_round = np.array(res[peer])[:, 0] / np.array(res[(wk, n)])[:, 0]  # CPU, same round
            ratio = (
                f"  imodels ÷ {wk}: CPU {med[peer][0] / c:.2f}x, wall {med[peer][1] / w:.2f}x"
                f" (CPU per round {per_round.min():.2f}–{per_round.max():.2f}x)"
            )
        print(f"{wk:5s} {n:18s} CPU {c:7.1f} ms  wall {w:7.1f} ms{ratio}")


if __name__ == "__main__":
    import argparse

    ap = argparse.ArgumentParser(
        description="interleaved A/B of rule-list fits on Adult (raw via the Binarizer, and binarized)"
    )
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--rounds", type=int, default=15)
    ap.add_argument("--fits", default="greedy_w2,dp_w2,greedy_w1,imodels")
    ap.add_argument("--base", default=None, help="the src/ folder of another checkout, measured in the same rounds")
    ap.add_argument("--base-fits", default="greedy_w2,dp_w2")
    a = ap.parse_args()
    if a.worker:
        _ab_worker()
    else:
        _ab(a.rounds, a.fits.split(","), a.base, a.base_fits.split(","))
