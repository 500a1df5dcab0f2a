"""What a fit costs in a fresh process: the first fits in a freshly forked child against the
same fit once warm, and a fresh interpreter's import plus first fit.

    python benchmarks/cold_fit.py [--rounds 7]

Cases: PrivaTree (ε = 1, depth 4, public bounds and classes) on 10³ × 24 standard-normal rows as
a numpy array (the data of ``bench_privatree.py``), and the default DP rule list (ε = 1) on
binarized Adult as a DataFrame. For each round the parent (dpmodels imported, data built, no fit
yet; ``--warm-parent``: after one fit) forks a child that fits the case three times; printed are
the medians over the rounds of each fit's CPU time (``getrusage``: user + system) and minor page
faults. ``fresh``: a new interpreter (``python -c``) importing dpmodels and fitting once, its
import and first fit timed inside it.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import warnings

import numpy as np

FITS = 3


def cases() -> dict:
    from dpmodels.data import load_dataset
    from dpmodels.rulelist import DPRuleListClassifier
    from dpmodels.tree import PrivaTreeClassifier

    rng = np.random.default_rng(0)
    n = 1000
    X = rng.normal(size=(n, 24))
    y = (X[:, 0] + X[:, 1] * X[:, 2] - 0.5 * X[:, 3] + rng.normal(size=n) > 0).astype(np.int64)
    Xa, ya = load_dataset("adult")
    return {
        "privatree_1e3": lambda: PrivaTreeClassifier(
            epsilon=1.0, max_depth=4, bounds=(-6.0, 6.0), classes=[0, 1], random_state=0
        ).fit(X, y),
        "rulelist_adult": lambda: DPRuleListClassifier(epsilon=1.0, random_state=0).fit(Xa, ya),
    }


def _usage():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime, r.ru_stime, r.ru_minflt


def _child_fits(fit) -> list:
    """Fit ``FITS`` times: [(user ms, system ms, minor faults)] per fit."""
    out = []
    for _ in range(FITS):
        u0, s0, f0 = _usage()
        fit()
        u1, s1, f1 = _usage()
        out.append((1e3 * (u1 - u0), 1e3 * (s1 - s0), f1 - f0))
    return out


def _forked(fit) -> list:
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: fit, report, leave without running the parent's exit handlers
        code = 1
        try:
            os.close(r)
            os.write(w, json.dumps(_child_fits(fit)).encode())
            code = 0
        finally:
            os._exit(code)
    os.close(w)
    with os.fdopen(r) as f:
        res = json.loads(f.read())
    os.waitpid(pid, 0)
    return res


_FRESH = """
import resource, time, json, sys, warnings
warnings.simplefilter("ignore")
sys.path.insert(0, {bench!r})
def u():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime, r.ru_minflt
t0, f0 = u()
import dpmodels, cold_fit
fit = cold_fit.cases()[{name!r}]
t1, f1 = u()
fit()
t2, f2 = u()
print(json.dumps([1e3 * (t1 - t0), 1e3 * (t2 - t1), f2 - f1]))
"""


def _fresh(name: str) -> list:
    here = os.path.dirname(os.path.abspath(__file__))
    code = _FRESH.format(bench=here, name=name)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--warm-parent", action="store_true", help="the parent fits each case once before forking")
    a = ap.parse_args()
    warnings.simplefilter("ignore")
    cs = cases()
    if a.warm_parent:
        for f in cs.values():
            f()
    loads = [os.getloadavg()[0]]
    res: dict = {name: [] for name in cs}
    fresh: dict = {name: [] for name in cs}
    for _ in range(a.rounds):
        for name, f in cs.items():
            res[name].append(_forked(f))
            fresh[name].append(_fresh(name))
        loads.append(os.getloadavg()[0])
    parent = "warm parent (one fit before forking)" if a.warm_parent else "cold parent (no fit before forking)"
    print(f"{a.rounds} rounds, {parent}; 1-min load average {min(loads):.1f}–{max(loads):.1f}")
    print("| case | fit 1 in a forked child: CPU (user + sys), faults | fit 2 | fit 3 (warm) | extra of fit 1 |")
    print("|---|---|---|---|---|")
    for name, runs in res.items():
        arr = np.array(runs)  # (rounds, FITS, 3)
        cells = []
        for i in range(FITS):
            u, s, flt = np.median(arr[:, i, :], axis=0)
            cells.append(f"{u + s:.1f} ms ({u:.1f} + {s:.1f}), {flt:,.0f}")
        tot = arr[:, :, 0] + arr[:, :, 1]
        extra = np.median(tot[:, 0] - tot[:, -1])
        print(f"| {name} | " + " | ".join(cells) + f" | {extra:.1f} ms |")
    print()
    print("| case | fresh interpreter: import dpmodels + the case's data | first fit CPU | its faults |")
    print("|---|---|---|---|")
    for name, runs in fresh.items():
        imp, fit, flt = np.median(np.array(runs), axis=0)
        print(f"| {name} | {imp:.0f} ms | {fit:.1f} ms | {flt:,.0f} |")


if __name__ == "__main__":
    main()
