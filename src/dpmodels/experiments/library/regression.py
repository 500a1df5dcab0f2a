"""PrivaTreeRegressor against scikit-learn's DecisionTreeRegressor (non-private) and diffprivlib's
LinearRegression (ε-DP, when diffprivlib imports) on two regression tasks available offline.

Registered as ``lib-regression`` (``dpmodels reproduce lib-regression``): one cell per (task,
split), each a random 70/30 split (seed s) with held-out R² of every learner (metric ``r2``);
DP fits draw noise from seed 1000 + s (research, not a release). :func:`markdown_table` gives
mean ± std and the median over the splits, the table recorded in ``docs/results.md``
("Regression trees"); :func:`run` returns the same summary in memory.

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

import numpy as np
import pandas as pd

from ..registry import Cell, Experiment, register, row

__all__ = ["load_task", "run", "split_cell", "markdown_table", "TASKS"]

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
        from ...data.openml import load_openml

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


def split_cell(task: str, seed: int, eps_grid=(0.1, 1.0, 5.0), depth: int = 4) -> list:
    """Tidy rows (metric ``r2``) of every learner on one 70/30 split of ``task``."""
    from sklearn.model_selection import train_test_split
    from sklearn.tree import DecisionTreeRegressor

    from ...tree import PrivaTreeRegressor

    X, y, bounds, lb = load_task(task)
    s = int(seed)
    Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.3, random_state=s)
    out = [
        row(
            task,
            f"sklearn DecisionTreeRegressor depth {depth}",
            {"depth": depth},
            None,
            None,
            s,
            "r2",
            DecisionTreeRegressor(max_depth=depth, random_state=0).fit(Xtr, ytr).score(Xte, yte),
        ),
        row(
            task,
            "mean of the training labels",
            {},
            None,
            None,
            s,
            "r2",
            1.0 - float(((yte - ytr.mean()) ** 2).sum() / ((yte - yte.mean()) ** 2).sum()),
        ),
    ]
    for eps in eps_grid:
        r = PrivaTreeRegressor(epsilon=eps, max_depth=depth, bounds=bounds, label_bounds=lb, random_state=1000 + s).fit(
            Xtr, ytr
        )
        out.append(
            row(task, f"PrivaTreeRegressor depth {depth}", {"depth": depth}, eps, 0.0, s, "r2", r.score(Xte, yte))
        )
        dl = _diffprivlib_linear(eps, bounds, lb, s, Xtr, ytr, Xte, yte)
        if dl is not None:
            out.append(row(task, "diffprivlib LinearRegression", {}, eps, 0.0, s, "r2", dl))
    return out


def summary(df: pd.DataFrame) -> pd.DataFrame:
    """Mean, std and median of the held-out R² per (task, learner, ε)."""
    df = df.rename(columns={"dataset": "task", "value": "r2"})
    return df.groupby(["task", "learner", "epsilon"], dropna=False)["r2"].agg(["mean", "std", "median"]).reset_index()


def run(seeds: int = 10, eps_grid=(0.1, 1.0, 5.0), depth: int = 4, tasks=TASKS) -> pd.DataFrame:
    """:func:`summary` of every split of every task, computed in memory."""
    rows = [r for task in tasks for s in range(seeds) for r in split_cell(task, s, tuple(eps_grid), depth)]
    return summary(pd.DataFrame(rows))


def markdown_table(df: pd.DataFrame) -> str:
    g = summary(df)
    lines = ["| task | learner | ε | mean R² | std | median |", "|---|---|---|---|---|---|"]
    for _, r in g.iterrows():
        eps = "–" if pd.isna(r.epsilon) else f"{r.epsilon:g}"
        lines.append(f"| {r.task} | {r.learner} | {eps} | {r['mean']:.3f} | {r['std']:.3f} | {r['median']:.3f} |")
    return "\n".join(lines)


def _cells(size):
    runs = size.runs_or(2, 10)
    tasks = size.datasets_or(TASKS)
    epsilons = size.epsilons_or((0.1, 1.0, 5.0))
    return [Cell(f"{t}-s{s}", split_cell, dict(task=t, seed=s, eps_grid=epsilons)) for t in tasks for s in range(runs)]


register(
    Experiment(
        "lib-regression",
        paper="lib",
        kind="table",
        title="PrivaTreeRegressor against scikit-learn's tree and diffprivlib's LinearRegression (beyond the papers)",
        draws="held-out R² on diabetes and California (MedInc as the label), ε 0.1 / 1 / 5, depth 4, 10 random "
        "70/30 splits; diffprivlib's rows only where it imports",
        cells=_cells,
        table=markdown_table,
        full_cost="≈ 15 s",
        quick_cost="≈ 4 s",
    )
)
