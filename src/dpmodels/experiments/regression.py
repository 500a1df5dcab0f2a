"""PrivaTreeRegressor against scikit-learn's DecisionTreeRegressor (non-private) and diffprivlib's
LinearRegression (ε-DP, when diffprivlib imports) on two regression tasks available offline.

``python -m dpmodels.experiments.regression [--seeds 10]`` prints the table recorded in
``docs/results.md`` ("Regression trees"). Held-out R², mean ± std over stratification-free 70/30
splits; DP fits draw noise from seed 1000 + s (research, not a release).

Datasets (no OpenML *regression* file is bundled — ``data/_bundled/openml`` holds the
classification versions of the tabular benchmark, whose labels are binarised):

* ``diabetes``: scikit-learn's copy of Efron et al.'s diabetes data (442 × 10, standardised
  features, target a disease-progression score in [25, 346]); public bounds: features ±0.25, the
  label [0, 350].
* ``california-medinc``: the bundled OpenML/tabular-benchmark California file (20,634 rows) with
  the census block's median income ``MedInc`` (capped at 15 by the census) as the target and the
  other seven columns as features (``price_above_median``, the classification label, is dropped);
  public bounds from the census documentation and California's geography (below), label [0, 15].
"""

from __future__ import annotations

import argparse
import warnings

import numpy as np
import pandas as pd

__all__ = ["load_task", "run", "TASKS"]

TASKS = ("diabetes", "california-medinc")

_CALIFORNIA_BOUNDS = {
    "HouseAge": (0.0, 52.0),  # the census caps the median house age at 52
    "AveRooms": (0.0, 20.0),
    "AveBedrms": (0.0, 5.0),
    "Population": (0.0, 40000.0),
    "AveOccup": (0.0, 10.0),
    "Latitude": (32.0, 42.0),  # California's extent
    "Longitude": (-125.0, -114.0),
}


def load_task(name: str):
    """``(X, y, bounds, label_bounds)`` of a task of :data:`TASKS` (bounds public, declared here)."""
    if name == "diabetes":
        from sklearn.datasets import load_diabetes

        X, y = load_diabetes(return_X_y=True, as_frame=True)
        return X, y.astype(float), {c: (-0.25, 0.25) for c in X.columns}, (0.0, 350.0)
    if name == "california-medinc":
        from ..data.openml import load_openml

        X, _ = load_openml("california")
        y = X.pop("MedInc").astype(float)
        return X.astype(float), y, dict(_CALIFORNIA_BOUNDS), (0.0, 15.0)
    raise ValueError(f"unknown task {name!r}; choose one of {TASKS}")


def _diffprivlib_linear(eps, bounds, label_bounds, s, Xtr, ytr, Xte, yte):
    try:
        from diffprivlib.models import LinearRegression
    except (ImportError, AttributeError):  # not installed, or does not import with this scikit-learn
        return None
    lo = np.array([bounds[c][0] for c in Xtr.columns])
    hi = np.array([bounds[c][1] for c in Xtr.columns])
    m = LinearRegression(epsilon=eps, bounds_X=(lo, hi), bounds_y=label_bounds, random_state=1000 + s)
    m.fit(np.clip(Xtr.to_numpy(), lo, hi), np.clip(ytr.to_numpy(), *label_bounds))
    return m.score(np.clip(Xte.to_numpy(), lo, hi), yte.to_numpy())


def run(seeds: int = 10, eps_grid=(0.1, 1.0, 5.0), depth: int = 4, tasks=TASKS) -> pd.DataFrame:
    from sklearn.model_selection import train_test_split
    from sklearn.tree import DecisionTreeRegressor

    from ..tree import PrivaTreeRegressor

    rows = []
    for task in tasks:
        X, y, bounds, lb = load_task(task)
        for s in range(seeds):
            Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.3, random_state=s)
            rows.append((task, f"sklearn DecisionTreeRegressor depth {depth}", np.nan,
                         DecisionTreeRegressor(max_depth=depth, random_state=0).fit(Xtr, ytr).score(Xte, yte)))
            rows.append((task, "mean of the training labels", np.nan,
                         1.0 - float(((yte - ytr.mean()) ** 2).sum() / ((yte - yte.mean()) ** 2).sum())))
            for eps in eps_grid:
                r = PrivaTreeRegressor(epsilon=eps, max_depth=depth, bounds=bounds, label_bounds=lb,
                                       random_state=1000 + s).fit(Xtr, ytr)
                rows.append((task, f"PrivaTreeRegressor depth {depth}", eps, r.score(Xte, yte)))
                dl = _diffprivlib_linear(eps, bounds, lb, s, Xtr, ytr, Xte, yte)
                if dl is not None:
                    rows.append((task, "diffprivlib LinearRegression", eps, dl))
    df = pd.DataFrame(rows, columns=["task", "learner", "epsilon", "r2"])
    return df.groupby(["task", "learner", "epsilon"], dropna=False)["r2"].agg(["mean", "std", "median"]).reset_index()


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--depth", type=int, default=4)
    args = ap.parse_args(argv)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        print(run(args.seeds, depth=args.depth).round(3).to_string(index=False))


if __name__ == "__main__":
    main()
