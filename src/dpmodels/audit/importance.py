"""Preservation of feature importance: top-k permutation-importance overlap (paper 000, Sec. V-F).

Paper 000 (Table III, after Dai et al.) compares a reference model (GreedyRL) with a DP model by
the features each ranks highest under permutation importance (Breiman; scikit-learn's
``permutation_importance``: the drop of the score when one column is shuffled):

    I_k = | top(k, RL_ref) ∩ top(k, RL_DP) | / k                      (paper 000, Sec. V-F, 2))

**Ties.** A rule list with K = 5 rules of width ≤ 2 reads at most 8 columns; every column it never
reads has importance exactly 0 (shuffling it changes no prediction), and so can columns whose
rule is shadowed on the evaluation data. The paper does not say how such ties are ranked. Ranking
them by column order (what ``argsort`` gives) fills both top-k sets with the *same arbitrary*
zero-importance columns and inflates I_k by coincidence. So the default ``ties="positive"``:

* top(k, M) holds only features with mean importance > 0 — at most k of them, the k largest
  (an exact tie among positive values at the k-th place is broken by column order);
* I_k = |A ∩ B| / max(|A|, |B|) when both sets have fewer than k features, which is the paper's
  |A ∩ B| / k whenever either model has ≥ k important features. Two models reading the same
  four features score 1 (the paper's formula would give 4/7); if neither has an important
  feature, I_k = 1 (they agree that nothing matters); if only one has, I_k = 0.

``ties="rank"`` is the literal reading: rank all features by mean importance, break every tie by
column order, divide by k.

Both models are scored on the same permutations (common random numbers: the same seed), so a
model compared with itself gets I_k = 1 under either rule.
"""

from __future__ import annotations

import numbers
import secrets
from dataclasses import dataclass

import numpy as np
import pandas as pd
from sklearn.inspection import permutation_importance

__all__ = ["ImportanceOverlap", "feature_importance_overlap", "top_k_features"]

TIES = ("positive", "rank")


@dataclass
class ImportanceOverlap:
    """I_k, the two top-k sets and the importances behind them."""

    I_k: float
    k: int
    top_reference: list
    top_model: list
    importances: pd.DataFrame
    ties: str = "positive"

    def __float__(self) -> float:
        return float(self.I_k)


def top_k_features(importances, k, ties="positive") -> np.ndarray:
    """Column indices of the top-k features by mean importance (stable: ties by column order)."""
    imp = np.asarray(importances, dtype=float)
    order = np.argsort(-imp, kind="stable")
    if ties == "positive":
        order = order[imp[order] > 0]
    return order[:k]


def overlap(top_a, top_b, k, ties="positive") -> float:
    """I_k of two top-k index sets under the tie rule (module docstring)."""
    a, b = set(np.asarray(top_a).tolist()), set(np.asarray(top_b).tolist())
    if ties == "rank":
        return len(a & b) / k
    denom = max(len(a), len(b))
    if denom == 0:
        return 1.0
    return len(a & b) / denom


def feature_importance_overlap(
    reference,
    model,
    X,
    y,
    k=7,
    *,
    n_repeats=5,
    scoring=None,
    ties="positive",
    random_state=None,
    n_jobs=None,
) -> ImportanceOverlap:
    """Top-k permutation-importance overlap I_k of ``model`` with ``reference`` (paper 000, Table III).

    Parameters
    ----------
    reference, model : fitted estimators scored on the same ``X, y`` (the paper: held-out data).
    k : int, the size of the top sets (paper: 7).
    n_repeats, scoring, n_jobs : passed to :func:`sklearn.inspection.permutation_importance`.
    ties : {"positive", "rank"}, see the module docstring.
    random_state : int or None. One seed for both models (``None``: a fresh one, shared).
    """
    if isinstance(k, bool) or not isinstance(k, numbers.Integral) or k < 1:
        raise ValueError(f"k must be a positive integer, got {k!r}")
    if ties not in TIES:
        raise ValueError(f"ties must be one of {TIES}, got {ties!r}")
    n_features = np.shape(X)[1]
    if k > n_features:
        raise ValueError(f"k = {k} exceeds the number of features ({n_features})")
    if random_state is None:
        random_state = secrets.randbits(31)
    elif isinstance(random_state, bool) or not isinstance(random_state, numbers.Integral):
        raise TypeError("random_state must be an int or None (one seed shared by both models)")
    res = {}
    for name, est in (("reference", reference), ("model", model)):
        r = permutation_importance(
            est, X, y, n_repeats=n_repeats, scoring=scoring, random_state=int(random_state), n_jobs=n_jobs
        )
        res[name] = (r.importances_mean, r.importances_std)
    names = [str(c) for c in X.columns] if isinstance(X, pd.DataFrame) else [f"x{i}" for i in range(n_features)]
    ta = top_k_features(res["reference"][0], k, ties)
    tb = top_k_features(res["model"][0], k, ties)
    table = pd.DataFrame(
        {
            "feature": names,
            "reference_mean": res["reference"][0],
            "reference_std": res["reference"][1],
            "model_mean": res["model"][0],
            "model_std": res["model"][1],
        }
    )
    return ImportanceOverlap(
        I_k=overlap(ta, tb, k, ties),
        k=int(k),
        top_reference=[names[i] for i in ta],
        top_model=[names[i] for i in tb],
        importances=table,
        ties=ties,
    )
