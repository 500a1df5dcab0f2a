"""Ours vs the real CORELS on CORELS's own problem, six settings in one run (a script, not run by
pytest: ``python benchmarks/corels_compare.py [--rounds 3] [--slow-rounds 1] [--only NAME] [--skip-corels]``).
CPU times (``time.process_time``: CORELS runs in this process), the two searches interleaved round
by round (the order alternating); the ratio is the median and range of the per-round ratios.

The problem is PyPI ``corels`` 1.1.29's: regularised objective errors/n + c·L, no length limit,
width-1 literals mined at whole-data support [s, 1 − s] with s = 0.01, no per-position support.
Both searches certify optimality; the script checks that the objectives agree. Settings:

* ``compas``: binarized COMPAS (7,214 × 27), c = 0.01 and 0.005;
* ``adult10``: binarized Adult, 10 % subsample (seed 0; 4,884 × 24), c = 0.01 and 0.005;
* ``adult10-bin``: raw Adult without missing values, 10 % subsample (seed 0; 4,522 rows) through
  :class:`dpmodels.data.Binarizer` with the data's quantiles and the schema's categories
  (107 columns, 118 literals after mining), c = 0.02 and 0.03.

CORELS's node count is its ``num_evaluated`` (prefixes whose children it evaluated), read from its
``progress`` output; ours is ``certificate_.nodes`` (prefixes expanded).
"""

from __future__ import annotations

import argparse
import functools
import json
import math
import os
import re
import subprocess
import sys
import tempfile
import time
import warnings

import numpy as np

from dpmodels.data import Binarizer, dataset_schema, load_dataset
from dpmodels.privacy import PrivacyLeakWarning
from dpmodels.rulelist import OptimalRuleListClassifier

S_MINE = 0.01


def _subsample(X, y, frac=0.1, seed=0):
    idx = np.random.default_rng(seed).choice(len(X), size=int(round(frac * len(X))), replace=False)
    return X.iloc[idx].reset_index(drop=True), y.iloc[idx].reset_index(drop=True)


def datasets():
    X, y = load_dataset("compas")
    out = {"compas": (X.to_numpy(np.uint8), y.to_numpy(np.int64))}
    X, y = _subsample(*load_dataset("adult"))
    out["adult10"] = (X.to_numpy(np.uint8), y.to_numpy(np.int64))
    X, y = _subsample(*load_dataset("adult", binarized=False))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)
        Xb = Binarizer(categories=dataset_schema("adult").categories).fit_transform(X)
    out["adult10-bin"] = (np.asarray(Xb, dtype=np.uint8), y.to_numpy(np.int64))
    return out


SETTINGS = [
    ("compas", 0.01),
    ("compas", 0.005),
    ("adult10", 0.01),
    ("adult10", 0.005),
    ("adult10-bin", 0.03),
    ("adult10-bin", 0.02),
]
# the setting of bench_optimal.py's regularised rows (not one of the six; ``--only NAME@0.002``)
EXTRA = [("compas", 0.002), ("adult10", 0.002)]


def objective(X, y, lits, c):
    """errors/n + c·L of the list of (column, value) antecedents, majority consequents."""
    rem = np.ones(len(y), dtype=bool)
    errors = 0
    for j, v in lits:
        cap = rem & (X[:, j] == v)
        pos = int(y[cap].sum())
        errors += min(pos, int(cap.sum()) - pos)
        rem &= ~cap
    pos = int(y[rem].sum())
    errors += min(pos, int(rem.sum()) - pos)
    return errors / len(y) + c * len(lits)


def run_ours(X, y, c):
    t = time.process_time()
    m = OptimalRuleListClassifier(
        max_rules=int(0.5 / c) + 2, min_support=0.0, min_literal_support=S_MINE, regularization=c
    )
    m.fit(X, y)
    sec = time.process_time() - t
    cert = m.certificate_
    assert cert.optimal
    return sec, cert.objective, cert.nodes, cert.n_rules


def run_corels(X, y, c):
    import corels

    clf = corels.CorelsClassifier(c=c, n_iter=10**9, max_card=1, min_support=S_MINE, verbosity=["progress"])
    sys.stdout.flush()
    with tempfile.TemporaryFile(mode="w+b") as tmp:
        saved = os.dup(1)
        os.dup2(tmp.fileno(), 1)
        try:
            t = time.process_time()
            clf.fit(X, y)
            sec = time.process_time() - t
        finally:
            sys.stdout.flush()
            os.dup2(saved, 1)
            os.close(saved)
        tmp.seek(0)
        text = tmp.read().decode(errors="replace")
    found = re.search(r"final num_evaluated: (\d+)", text)
    nodes = int(found.group(1)) if found else -1
    lits = []
    for rule in clf.rl_.rules[:-1]:
        (code,) = rule["antecedents"]
        lits.append((abs(code) - 1, 1 if code > 0 else 0))
    return sec, objective(X, y, lits, c), nodes, len(lits)


def _in_fresh_process(who, name, X, y, c):
    """``run_ours`` / ``run_corels`` on the data set ``name``, in a new interpreter (data loaded
    before the timer starts; the fit is the process's first)."""
    code = (
        "import json, sys; sys.path.insert(0, {here!r}); import corels_compare as cc; "
        "X, y = cc.datasets()[{name!r}]; print(json.dumps(cc.run_{who}(X, y, {c!r})))"
    ).format(here=os.path.dirname(os.path.abspath(__file__)), name=name, who=who, c=c)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return tuple(json.loads(out.stdout.strip().splitlines()[-1]))


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--slow-rounds", type=int, default=1, help="rounds for adult10-bin at c = 0.02")
    ap.add_argument("--only", default=None)
    ap.add_argument("--skip-corels", action="store_true")
    ap.add_argument("--skip-ours", action="store_true")
    ap.add_argument(
        "--fresh",
        action="store_true",
        help="each fit in a fresh interpreter (its first fit: the process's lazy set-up included)",
    )
    a = ap.parse_args(argv)
    data = datasets()
    print(f"# start {time.strftime('%Y-%m-%d %H:%M:%S', time.gmtime())} UTC, load {os.getloadavg()}", flush=True)
    rows = []
    for name, c in SETTINGS + EXTRA:
        if (name, c) in EXTRA and a.only != f"{name}@{c}":
            continue
        if a.only and a.only != f"{name}@{c}" and a.only != name:
            continue
        X, y = data[name]
        if a.fresh:
            run_ours_, run_corels_ = (functools.partial(_in_fresh_process, who, name) for who in ("ours", "corels"))
        else:
            run_ours_, run_corels_ = run_ours, run_corels
        who_fn = [
            (w, f)
            for w, f, skip in (("ours", run_ours_, a.skip_ours), ("corels", run_corels_, a.skip_corels))
            if not skip
        ]
        rounds = a.slow_rounds if (name, c) == ("adult10-bin", 0.02) else a.rounds
        runs: dict = {w: [] for w, _ in who_fn}
        for r in range(rounds):  # interleaved: each round runs both, the order alternating
            for w, fn in who_fn[r % len(who_fn) :] + who_fn[: r % len(who_fn)]:
                runs[w].append(fn(X, y, c))
        res = {}
        for w, rr in runs.items():
            secs = [x[0] for x in rr]
            res[w] = (float(np.median(secs)), rr[0][1], rr[0][2], rr[0][3], secs)
            print(
                f"{name} c={c} {w}: median CPU {res[w][0]:.3f} s over {sorted(secs)}, objective {rr[0][1]:.6f}, "
                f"nodes {rr[0][2]}, rules {rr[0][3]}, load {os.getloadavg()[0]:.2f}",
                flush=True,
            )
        if len(res) == 2:
            agree = math.isclose(res["ours"][1], res["corels"][1], rel_tol=0, abs_tol=1e-9)
            per_round = np.array(res["corels"][4]) / np.array(res["ours"][4])
            ratio = (float(np.median(per_round)), float(per_round.min()), float(per_round.max()))
            rows.append((name, c, res, ratio, agree))
            print(
                f"  ratio corels/ours = {ratio[0]:.2f}x ({ratio[1]:.2f}-{ratio[2]:.2f}), same objective: {agree}",
                flush=True,
            )
    if rows:
        print(
            "\n| data | c | ours (CPU) | nodes | CORELS (CPU) | nodes (num_evaluated) | CORELS ÷ ours (per-round median, range) | same optimum |"
        )
        print("|---|---|---|---|---|---|---|---|")
        for name, c, res, ratio, agree in rows:
            o, k = res["ours"], res["corels"]
            spread = f"{ratio[0]:.2f}× ({ratio[1]:.2f}–{ratio[2]:.2f})"
            print(f"| {name} | {c} | {o[0]:.2f} s | {o[2]:,} | {k[0]:.2f} s | {k[2]:,} | {spread} | {agree} |")
    print(f"# end {time.strftime('%Y-%m-%d %H:%M:%S', time.gmtime())} UTC, load {os.getloadavg()}", flush=True)


if __name__ == "__main__":
    main()
