"""Paper 002's Table IV (App. A-B): the properties of its 29 datasets, computed from the data we load.

``002-table4`` (``dpmodels reproduce 002-table4``): for each dataset, the rows left after dropping
rows with missing values, the number of features, how many of them are categorical and the
majority-class share, computed from exactly the ``(X, y)`` the other 002 ids train on
(:func:`.data.load_002`), beside the paper's Table IV (:data:`..published.P002_TABLE4`). A
dataset that is not bundled (and not given with ``--data-dir`` / ``--download``) is a skipped row
with the paper's numbers only. These are properties of the benchmark, not of a model: nothing here
is a privacy release.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd

from .. import published as pub
from ..registry import Cell, Experiment, register, row
from .data import load_002
from .protocol import _dataset_list, _source

__all__ = ["properties_cell", "PROPERTIES"]

PROPERTIES = ("samples", "features", "categorical", "majority")
TABLE4_DATASETS = tuple(pub.P002_TABLE4)


def properties_cell(dataset, group, data_dir=None, download=False) -> list[dict]:
    """Samples, features, categorical features and majority-class share of one dataset: tidy rows."""
    X, y, meta = load_002(dataset, group, data_dir, download)
    counts = np.unique(np.asarray(y), return_counts=True)[1]
    values = dict(
        samples=len(X), features=X.shape[1], categorical=len(meta["categories"]), majority=counts.max() / counts.sum()
    )
    return [row(dataset, "-", {"group": group}, float("nan"), 0.0, 0, k, v) for k, v in values.items()]


def _cells(size):
    ok, skips = _dataset_list(size, TABLE4_DATASETS)
    return [Cell(f"{d}-{g}", properties_cell, dict(dataset=d, group=g, **_source(d, g, size))) for d, g in ok] + skips


def _fmt(key, v):
    if v is None or (isinstance(v, float) and np.isnan(v)):
        return "–"
    return f"{v:.3f}" if key == "majority" else f"{int(round(v)):,}"


def _table(df: pd.DataFrame) -> str:
    groups = [json.loads(p)["group"] for p in df["parameters"]] if len(df) else []
    ours: dict = {}
    for (ds, metric, value), g in zip(df[["dataset", "metric", "value"]].itertuples(index=False), groups):
        ours.setdefault((ds, g), {})[metric] = value
    head = ["dataset", "group", *(f"{k}: ours / paper" for k in PROPERTIES)]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    same, differ, missing = 0, [], []
    for key, paper in pub.P002_TABLE4.items():
        mine = ours.get(key)
        cells = []
        for k in PROPERTIES:
            theirs = _fmt(k, paper[k])
            if mine is None:
                cells.append(f"not bundled / {theirs}")
                continue
            m = _fmt(k, mine[k])
            cells.append(f"{m} / {theirs}" if m == theirs else f"**{m}** / {theirs}")
        if mine is None:
            missing.append(key[0])
        elif all(_fmt(k, mine[k]) == _fmt(k, paper[k]) for k in PROPERTIES):
            same += 1
        else:
            differ.append(f"{key[0]} ({key[1]})")
        lines.append(f"| {key[0]} | {key[1]} | " + " | ".join(cells) + " |")
    lines.append("")
    lines.append(
        f"Rows computed here: {len(pub.P002_TABLE4) - len(missing)} of {len(pub.P002_TABLE4)}; identical to the "
        f"paper in every column: {same}; different (bold): {', '.join(differ) or 'none'}; not bundled: "
        f"{', '.join(missing) or 'none'}. Majority share to 3 decimals; samples after dropping rows with "
        "missing values (the paper's rule)."
    )
    return "\n".join(lines)


register(
    Experiment(
        "002-table4",
        paper="002",
        kind="table",
        title="Properties of the datasets (Table IV)",
        draws="samples, features, categorical features and majority-class share of the 29 datasets, computed from the "
        "data the 002 ids train on, beside the paper's Table IV",
        cells=_cells,
        table=_table,
        published=pub.P002_TABLE4,
        full_cost="≈ 10 s (loads each bundled file once)",
        quick_cost="≈ 10 s (same grid)",
    )
)
