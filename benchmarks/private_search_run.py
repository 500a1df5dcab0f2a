"""Private hyper-parameter selection against the fixed default, paired over random splits.

    PYTHONPATH=src python benchmarks/private_search_run.py --splits 100 --out /tmp/ps.csv [--part main|diag|diag2|trial]
    PYTHONPATH=src python benchmarks/private_search_run.py --out /tmp/ps.csv --with /tmp/diag.csv --summary

For each split (a seeded 70/30 split of the bundled raw Adult or COMPAS data), each total ε in
{0.1, 1} and each method, fits on the 70 % and appends one CSV row (split, data, epsilon, method,
accuracy, depth) to ``--out`` as soon as it is measured, so an interrupted run keeps its rows.
Methods (part ``main``): ``fixed`` (PrivaTree max_depth=4 at the whole ε), ``lt`` (PrivateSearch
over max_depth 2..6, Liu–Talwar), ``rdp`` (same, tuner="rdp", shape 0); the same seeds as
``dpmodels reproduce lib-search``. Why the search falls short: part ``diag``: ``d{k}@0.8`` (depth k
refitted at 0.8·ε, the search's refit budget), the search with ``refit_share=0.9`` (``rdp-r0.9``)
and ``holdout=0.15`` (``rdp-h0.15``); part ``diag2``: shape −½ (``rdp-eta-0.5``), no refit
(``rdp-r0``) and no refit over five copies of depth 4 (``rdp-r0-d4``); part ``trial``: one trial's
exact held-out accuracy per depth at each tuner's ε_t (``t{k}@lt``, ``t{k}@rdp``; not a test-set
score). Part ``proxy``: :class:`~dpmodels.model_selection.ProxySearch`, which spends nothing on
choosing: candidates ranked on public proxy datasets only (:func:`proxy_pool`, leave-the-target-out,
rule fixed before any result), ε matched as ε·n_public/n_j with n_public the training size of the
split (70 %, the same for every split); ``proxy`` (mean accuracy over the proxies, the default) and
``proxy-rank`` (mean rank) refit the chosen depth on the split's training part at the whole ε; and
``d{k}@1`` (depth k at the whole ε, for the best fixed depth). The ranking reads no private record,
so it is computed ``--rankings`` times per (data, ε) with seeds 0, 1, … and split s uses ranking
s mod ``--rankings``: ``ProxySearch.fit`` is exactly ``rank()`` then this one fit
(tests/test_model_selection.py). Splits already in ``--out`` are skipped. ``--summary`` (with ``--with`` more CSVs) prints
means ± s.e. and paired differences to ``fixed``. Not part of any test suite; the numbers are in
docs/results.md, "Private hyper-parameter selection".
"""

from __future__ import annotations

import argparse
import csv
import math
import time
from pathlib import Path

from sklearn.model_selection import train_test_split

from dpmodels.data import dataset_schema, load_dataset
from dpmodels.experiments.library.private_search import proxy_pool
from dpmodels.model_selection import PrivateSearch, ProxySearch
from dpmodels.tree import PrivaTreeClassifier

DEPTHS = [{"max_depth": d} for d in range(2, 7)]


# the proxy pool (its rule, fixed before any result, is in dpmodels.experiments.library.private_search)
def proxy_choices(name, X, s, rankings, n_train):
    """``{(ε, r): (depth by mean accuracy, depth by mean rank, ranking table)}`` for ``rankings``
    independent rankings (seeds 0, 1, …) per ε: public inputs only."""
    pool = proxy_pool(name)
    out = {}
    for eps in (0.1, 1.0):
        for r in range(rankings):
            t0 = time.process_time()
            ps = ProxySearch(
                PrivaTreeClassifier(**s.fit_params()), DEPTHS, pool, epsilon=eps, n_public=n_train, random_state=r
            ).rank()
            tab = ps.ranking_
            by_rank = int(tab["params"][int(tab["mean_rank"].to_numpy().argmin())]["max_depth"])
            out[eps, r] = (ps.best_params_["max_depth"], by_rank, tab)
            print(
                f"{name} ε={eps} ranking {r}: depth {out[eps, r][0]} (mean acc.), {by_rank} (mean rank), "
                f"{len(pool)} proxies, {time.process_time() - t0:.1f} CPU-s; mean acc. "
                + ", ".join(f"{v:.4f}" for v in tab["mean_accuracy"])
                + "; mean rank "
                + ", ".join(f"{v:.2f}" for v in tab["mean_rank"]),
                flush=True,
            )
    return out


class Trial:
    """What one trial of PrivateSearch sees: a fit on the records whose coin says "train" (prob.
    0.7), scored by its exact accuracy on the others (the search adds DP noise to that count)."""

    def __init__(self, est, seed, holdout=0.3):
        self.est, self.seed, self.holdout = est, seed, holdout
        self.max_depth = est.max_depth

    def fit(self, X, y):
        import numpy as np

        held = np.random.default_rng(self.seed).random(len(y)) < self.holdout
        self.est.fit(X[~held], y[~held])
        self.acc_ = float(self.est.score(X[held], y[held]))
        return self

    def score(self, X, y):  # the trial's held-out accuracy (the test split is not used)
        return self.acc_


def methods(part, s, eps, seed, choice=None):
    base = s.fit_params()
    if part == "proxy":
        by_acc, by_rank, _ = choice
        yield "fixed", PrivaTreeClassifier(max_depth=4, epsilon=eps, random_state=seed, **base)
        for d in (2, 3, 5, 6):
            yield f"d{d}@1", PrivaTreeClassifier(max_depth=d, epsilon=eps, random_state=seed + 20 + d, **base)
        yield "proxy", PrivaTreeClassifier(max_depth=by_acc, epsilon=eps, random_state=seed + 3, **base)
        yield "proxy-rank", PrivaTreeClassifier(max_depth=by_rank, epsilon=eps, random_state=seed + 5, **base)
    elif part == "main":
        yield "fixed", PrivaTreeClassifier(max_depth=4, epsilon=eps, random_state=seed, **base)
        yield "lt", PrivateSearch(PrivaTreeClassifier(**base), DEPTHS, epsilon=eps, random_state=seed + 1)
        yield "rdp", PrivateSearch(PrivaTreeClassifier(**base), DEPTHS, epsilon=eps, tuner="rdp", random_state=seed + 2)
    elif part == "trial":  # one trial's exact held-out accuracy, per depth, at the two tuners' ε_t
        for tag, eps_t in (("lt", 0.2 * eps / 3), ("rdp", 0.2 * eps / 2)):
            for d in range(2, 7):
                yield (
                    f"t{d}@{tag}",
                    Trial(PrivaTreeClassifier(max_depth=d, epsilon=eps_t, random_state=seed + d, **base), seed + d),
                )
    elif part == "diag2":  # the variants kept after a first pass (refit shares 0.5 / 0.95 did not help)
        rdp = dict(epsilon=eps, tuner="rdp")
        yield (
            "rdp-eta-0.5",
            PrivateSearch(PrivaTreeClassifier(**base), DEPTHS, shape=-0.5, random_state=seed + 6, **rdp),
        )
        yield "rdp-r0", PrivateSearch(PrivaTreeClassifier(**base), DEPTHS, refit_share=0, random_state=seed + 9, **rdp)
        yield (
            "rdp-r0-d4",
            PrivateSearch(
                PrivaTreeClassifier(**base), [{"max_depth": 4}] * 5, refit_share=0, random_state=seed + 10, **rdp
            ),
        )
    else:
        for d in range(2, 7):
            yield f"d{d}@0.8", PrivaTreeClassifier(max_depth=d, epsilon=0.8 * eps, random_state=seed + 10 + d, **base)
        kw = dict(epsilon=eps, tuner="rdp")
        yield (
            "rdp-r0.9",
            PrivateSearch(PrivaTreeClassifier(**base), DEPTHS, refit_share=0.9, random_state=seed + 3, **kw),
        )
        yield "rdp-h0.15", PrivateSearch(PrivaTreeClassifier(**base), DEPTHS, holdout=0.15, random_state=seed + 4, **kw)


def summary(paths: list[Path]) -> None:
    """Mean accuracy ± s.e. per method, and the paired difference to ``fixed`` (same split) ± its s.e.
    Several files (the parts of one run) are read together."""
    import pandas as pd

    df = pd.concat([pd.read_csv(p) for p in paths], ignore_index=True)
    for (name, eps), g in df.groupby(["data", "epsilon"]):
        wide = g.pivot(index="split", columns="method", values="accuracy")
        depth = g.pivot(index="split", columns="method", values="depth")
        print(f"{name} ε={eps}")
        for m in wide.columns:
            v = wide[m].dropna()
            line = f"  {m:10s} n={len(v):3d} acc {v.mean():.4f} ± {v.std(ddof=1) / len(v) ** 0.5:.4f}"
            if "fixed" in wide and m != "fixed":
                d = (wide[m] - wide["fixed"]).dropna()
                line += f"   − fixed: {d.mean():+.4f} ± {d.std(ddof=1) / len(d) ** 0.5:.4f} (n={len(d)})"
            if m in ("lt", "rdp") or m.startswith("rdp-") or m.startswith("proxy"):
                counts = depth[m].dropna().astype(int).value_counts().reindex(range(2, 7), fill_value=0)
                line += "   depths 2..6: " + ", ".join(str(c) for c in counts)
            print(line)
        fixed_depths = [m for m in wide.columns if m == "fixed" or (m.startswith("d") and m.endswith("@1"))]
        if len(fixed_depths) > 1:  # the best fixed depth (chosen after the fact: an oracle no user has)
            best = max(fixed_depths, key=lambda m: wide[m].mean())
            for m in [c for c in wide.columns if c.startswith("proxy")]:
                d = (wide[m] - wide[best]).dropna()
                print(f"  {m} − best fixed ({best}): {d.mean():+.4f} ± {d.std(ddof=1) / len(d) ** 0.5:.4f}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--splits", type=int, default=100)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--with", dest="more", type=Path, nargs="*", default=[], help="more CSVs for --summary")
    ap.add_argument("--part", choices=["main", "diag", "diag2", "trial", "proxy"], default="main")
    ap.add_argument("--rankings", type=int, default=5, help="independent proxy rankings per (data, ε)")
    ap.add_argument("--data", nargs="+", default=["adult", "compas"])
    ap.add_argument("--summary", action="store_true", help="print the summary of --out and exit")
    a = ap.parse_args()
    if a.summary:
        summary([a.out, *a.more])
        return
    done = set()
    if a.out.exists():
        with a.out.open() as f:
            done = {(r["split"], r["data"], r["epsilon"], r["method"]) for r in csv.DictReader(f)}
    new = not a.out.exists()
    data = {n: (*load_dataset(n, binarized=False), dataset_schema(n)) for n in a.data}
    choices = {}
    if a.part == "proxy":
        for name, (X, _, s) in data.items():
            n_train = len(X) - math.ceil(0.3 * len(X))  # train_test_split's training size: public
            for key, c in proxy_choices(name, X, s, a.rankings, n_train).items():
                choices[(name, *key)] = c
    with a.out.open("a", newline="") as f:
        w = csv.writer(f)
        if new:
            w.writerow(["split", "data", "epsilon", "method", "accuracy", "depth"])
        for split in range(a.splits):
            t0 = time.time()
            for name, (X, y, s) in data.items():
                Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.3, random_state=split)
                for eps in (0.1, 1.0):
                    choice = choices.get((name, eps, split % a.rankings))
                    for m, est in methods(a.part, s, eps, 10_000 * split + int(eps * 10), choice):
                        if (str(split), name, str(eps), m) in done:
                            continue
                        est.fit(Xtr, ytr)
                        depth = est.best_params_["max_depth"] if hasattr(est, "best_params_") else est.max_depth
                        w.writerow([split, name, eps, m, f"{est.score(Xte, yte):.6f}", depth])
                f.flush()
            print(f"split {split} done in {time.time() - t0:.1f} s", flush=True)


if __name__ == "__main__":
    main()
