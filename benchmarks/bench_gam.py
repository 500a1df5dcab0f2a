"""DP additive models (dpmodels.gam) on the lib-peers protocol: stratified 70/30 splits, declared
bounds and categories; ROC AUC (classification) or R² (regression), mean ± s.e. over splits.

    python benchmarks/bench_gam.py --datasets adult compas german --eps 1 --splits 3
    python benchmarks/bench_gam.py --datasets adult-hours --eps 1 --splits 3
    python benchmarks/bench_gam.py --datasets adult --eps 1 --splits 3 --set max_rounds=0 --set delta=1e-5

Each ``--set k=v`` is a parameter of the learner (repeat it for a grid: ``--set max_rounds=0,1,2``).
Fit CPU seconds are process time of the fit alone.
"""

from __future__ import annotations

import argparse
import itertools
import time
import warnings

import numpy as np
from sklearn.metrics import r2_score, roc_auc_score
from sklearn.model_selection import ShuffleSplit, StratifiedShuffleSplit

from dpmodels.data import dataset_schema, load_dataset
from dpmodels.gam import DPAdditiveClassifier, DPAdditiveRegressor

# Declared bounds of the OpenML benchmark datasets (their documentation's domains, rounded out;
# not read from the rows): electricity is normalised to [0, 1]; credit-default's amounts are NT$.
OPENML_BOUNDS = {
    "electricity": {
        c: (0.0, 1.0) for c in ("date", "period", "nswprice", "nswdemand", "vicprice", "vicdemand", "transfer")
    },
    "default-of-credit-card-clients": {
        "x1": (0, 1_000_000),
        "x5": (18, 100),
        **{f"x{k}": (-2, 9) for k in range(6, 12)},
        **{f"x{k}": (-1_000_000, 1_000_000) for k in range(12, 18)},
        **{f"x{k}": (0, 1_000_000) for k in range(18, 24)},
    },
    "compas-two-years": {"age": (18, 100), "juv_misd_count": (0, 20), "priors_count": (0, 40)},
}
ALIASES = {"credit": "default-of-credit-card-clients", "compas-2y": "compas-two-years"}


def load(name):
    """``(X, y, params, regression)`` with the documented public schema of the dataset."""
    name = ALIASES.get(name, name)
    if name in OPENML_BOUNDS:
        from dpmodels.data.openml import load_openml

        X, y = load_openml(name, "cat")
        cats = {c: list(X[c].cat.categories) for c in X.attrs["categorical"]}  # declared by the loader
        return X, y, dict(bounds=OPENML_BOUNDS[name], categories=cats, classes=[0, 1]), False
    if name == "adult-hours":
        X, y = load_dataset("adult", binarized=False)
        s = dataset_schema("adult")
        X = X.copy()
        X["income"] = y.to_numpy()
        yy = X.pop("hours_per_week").astype(float)
        cats = {k: list(v) for k, v in s.categories.items()}
        cats["income"] = [0, 1]
        bounds = {k: v for k, v in s.bounds.items() if k != "hours_per_week"}
        return X, yy, dict(bounds=bounds, categories=cats, label_bounds=s.bounds["hours_per_week"]), True
    X, y = load_dataset(name, binarized=False)
    s = dataset_schema(name)
    return (
        X,
        y,
        dict(bounds=dict(s.bounds), categories={k: list(v) for k, v in s.categories.items()}, classes=list(s.classes)),
        False,
    )


def parse_value(v):
    for f in (int, float):
        try:
            return f(v)
        except ValueError:
            pass
    return {"None": None, "True": True, "False": False}.get(v, v)


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--datasets", nargs="+", default=["adult"])
    ap.add_argument("--eps", nargs="+", type=float, default=[1.0])
    ap.add_argument("--splits", type=int, default=3)
    ap.add_argument("--set", action="append", default=[])
    ap.add_argument("--markdown", action="store_true", help="print Markdown table rows")
    args = ap.parse_args(argv)
    grid = {}
    for kv in args.set:
        k, v = kv.split("=", 1)
        grid[k] = [parse_value(x) for x in v.split(",")]
    keys = list(grid)
    for name in args.datasets:
        X, y, decl, regression = load(name)
        cv = (ShuffleSplit if regression else StratifiedShuffleSplit)(
            n_splits=args.splits, test_size=0.3, random_state=0
        )
        splits = list(cv.split(X, y))
        for eps in args.eps:
            for combo in itertools.product(*[grid[k] for k in keys]):
                params = dict(zip(keys, combo))
                scores, cpu = [], []
                for s, (tr, te) in enumerate(splits):
                    cls = DPAdditiveRegressor if regression else DPAdditiveClassifier
                    est = cls(epsilon=eps, random_state=1000 + s, **decl, **params)
                    t0 = time.process_time()
                    with warnings.catch_warnings():
                        warnings.simplefilter("error")
                        est.fit(X.iloc[tr], y.iloc[tr])
                    cpu.append(time.process_time() - t0)
                    if regression:
                        scores.append(r2_score(y.iloc[te], est.predict(X.iloc[te])))
                    else:
                        scores.append(roc_auc_score(y.iloc[te], est.predict_proba(X.iloc[te])[:, 1]))
                sc = np.asarray(scores)
                se = sc.std(ddof=1) / np.sqrt(sc.size) if sc.size > 1 else float("nan")
                metric = "R2" if regression else "AUC"
                if args.markdown:
                    print(
                        f"| {name} | {eps:g} | {params or 'defaults'} | {metric} {sc.mean():.3f} ± {se:.3f} | "
                        f"{np.mean(cpu):.3f} |",
                        flush=True,
                    )
                    continue
                print(
                    f"{name:12s} eps={eps:<5g} {params} {metric} {sc.mean():.4f} ± {se:.4f}  "
                    f"fit CPU {np.mean(cpu):.2f}s",
                    flush=True,
                )


if __name__ == "__main__":
    main()
