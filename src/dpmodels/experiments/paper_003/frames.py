"""Paper 003's tidy rows as frames: parameters as columns, seed means per setting."""

from __future__ import annotations

import json

import pandas as pd

from ..plots import summarise
from .protocol import DATASETS

__all__ = ["setting_means"]


def _with_params(df: pd.DataFrame) -> pd.DataFrame:
    p = df["parameters"].map(json.loads)
    out = df.copy()
    for key in ("depth", "support", "width", "model"):
        vals = p.map(lambda d, k=key: d.get(k))
        if vals.notna().any():
            out[key] = vals
    return out


def setting_means(df: pd.DataFrame, metric: str) -> pd.DataFrame:
    """Mean ± s.e. over seeds of ``metric`` per (dataset, learner, depth, support)."""
    d = _with_params(df[df["metric"] == metric])
    if d.empty:
        return pd.DataFrame(columns=["dataset", "learner", "depth", "support", "mean", "n", "se"])
    return summarise(d, ["dataset", "learner", "depth", "support"])


def _wide(df: pd.DataFrame, metrics=("dist_g", "size", "train_accuracy", "test_accuracy", "optimal")) -> pd.DataFrame:
    """One row per (dataset, learner, depth, support): the seed-mean of each metric (+ n seeds)."""
    parts = []
    for m in metrics:
        s = setting_means(df, m)
        if len(s):
            parts.append(s.rename(columns={"mean": m, "se": f"{m}_se", "n": f"{m}_n"}))
    if not parts:
        return pd.DataFrame()
    out = parts[0]
    for p in parts[1:]:
        out = out.merge(p, on=["dataset", "learner", "depth", "support"], how="outer")
    return out


def _datasets_in(df):
    return [d for d in DATASETS if d in set(df["dataset"])]
