"""Where the CPU of a PrivaTree fit at n = 10³ goes: the data of ``bench_privatree.py`` (24
standard-normal features, depth 4, ε = 1, declared bounds and classes), each step of the fit timed
by ``time.process_time`` around it (nested steps are inside their parent's time), mean per fit.

    python benchmarks/profile_small_fit.py [--fits 300] [--kernels auto|numba|numpy]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections import defaultdict
from pathlib import Path

# (module, attribute, label, depth): the steps of fitting.fit_tree, then what is inside them
STEPS = [
    ("dpmodels.tree.privatree.fitting", "MemoryData.__init__", "checks, ledger, labels, bounds (MemoryData)", 0),
    ("dpmodels.tree.privatree.fitting", "MemoryData.first_pass", "first pass: grid histograms", 0),
    ("dpmodels.tree.privatree.estimator", "ClassifierTask.plan", "n estimate and budget plan", 0),
    ("dpmodels.tree.privatree.fitting", "release_thresholds", "private quantiles (24 ledger rows + JointExp)", 0),
    ("dpmodels.tree.privatree.grid", "_sample_from_histograms", "JointExp sampler", 1),
    ("dpmodels.tree.privatree.fitting", "MemoryData.encode", "bin codes", 0),
    ("dpmodels.tree.privatree.fitting", "grow", "four levels", 0),
    ("dpmodels.tree.privatree.fitting", "MemoryData.node_counts", "root counts", 1),
    ("dpmodels.tree.privatree.estimator", "ClassifierTask.select", "split selection (scores, mechanism, ledger)", 1),
    ("dpmodels.tree.privatree.fitting", "MemoryData.split", "routing and children's counts", 1),
    ("dpmodels.tree.privatree.estimator", "ClassifierTask.finish", "leaves, tree, ledger check", 0),
]


def instrument(acc):
    import importlib

    for mod_name, attr, label, _ in STEPS:
        mod = importlib.import_module(mod_name)
        owner, name = (mod, attr) if "." not in attr else (getattr(mod, attr.split(".")[0]), attr.split(".")[1])
        fn = getattr(owner, name)

        def timed(*a, _fn=fn, _label=label, **k):
            t = time.process_time()
            try:
                return _fn(*a, **k)
            finally:
                acc[_label] += time.process_time() - t

        setattr(owner, name, timed)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--fits", type=int, default=300)
    ap.add_argument("--kernels", default="auto", choices=["auto", "numba", "numpy"])
    a = ap.parse_args()
    os.environ["DPMODELS_KERNELS"] = a.kernels
    sys.path.insert(0, str(Path(__file__).parent))
    from bench_privatree import cases

    fit = cases()["privatree_1e3"]
    acc: dict = defaultdict(float)
    instrument(acc)
    for _ in range(20):
        fit()
    acc.clear()
    t = time.process_time()
    for _ in range(a.fits):
        fit()
    total = (time.process_time() - t) / a.fits
    load = os.getloadavg()[0]
    print(f"{a.fits} fits, kernels={a.kernels}, {time.strftime('%H:%M UTC', time.gmtime())}, load {load:.1f}")
    print("| step | CPU per fit |")
    print("|---|---|")
    print(f"| whole fit (estimator.fit) | {1e3 * total:.2f} ms |")
    inside = 0.0
    for _, _, label, depth in STEPS:
        v = acc[label] / a.fits
        inside += v if depth == 0 else 0.0
        print(f"| {'— ' * depth}{label} | {1e3 * v:.2f} ms |")
    print(f"| the rest (parameter checks, fit driver, attributes) | {1e3 * (total - inside):.2f} ms |")


if __name__ == "__main__":
    main()
