"""Top-k permutation-importance overlap I_k (paper 000, Sec. V-F): tie rules, self-overlap, errors."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.base import BaseEstimator, ClassifierMixin

from dpmodels.audit import feature_importance_overlap
from dpmodels.audit.importance import overlap, top_k_features
from dpmodels.rulelist import DPRuleListClassifier, GreedyRuleListClassifier


class Reads(ClassifierMixin, BaseEstimator):
    """Predicts 1 iff every column in ``cols`` is 1: reads exactly those columns."""

    def __init__(self, cols=(0,)):
        self.cols = cols

    def fit(self, X, y):
        self.classes_ = np.array([0, 1])
        return self

    def predict(self, X):
        return np.asarray(X)[:, list(self.cols)].all(axis=1).astype(int)


def test_top_k_and_overlap_by_hand():
    imp = np.array([0.3, 0.0, 0.1, 0.1, -0.01, 0.0])
    assert top_k_features(imp, 3).tolist() == [0, 2, 3]  # tie 0.1/0.1 by column order
    assert top_k_features(imp, 5).tolist() == [0, 2, 3]  # zero and negative never "top"
    assert top_k_features(imp, 5, ties="rank").tolist() == [0, 2, 3, 1, 5]
    assert overlap([0, 2, 3], [2, 3], k=7) == pytest.approx(2 / 3)
    assert overlap([0, 2, 3], [2, 3], k=7, ties="rank") == pytest.approx(2 / 7)
    assert overlap([], [], k=7) == 1.0
    assert overlap([1], [], k=7) == 0.0


def test_models_reading_different_columns():
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.integers(0, 2, size=(400, 6)), columns=list("abcdef"))
    y = (X["a"] & X["b"]).to_numpy()
    A = Reads((0, 1)).fit(X, y)  # exact: permuting a or b lowers accuracy
    B = Reads((0, 2)).fit(X, y)  # reads a and c
    r = feature_importance_overlap(A, B, X, y, k=3, random_state=0)
    assert set(r.top_reference) == {"a", "b"}
    assert "a" in r.top_model and "b" not in r.top_model
    assert r.I_k == pytest.approx(len(set(r.top_reference) & set(r.top_model)) / 2)
    # the literal rank rule pads both sets with the same zero-importance columns
    rr = feature_importance_overlap(A, B, X, y, k=3, ties="rank", random_state=0)
    assert rr.I_k >= r.I_k * 2 / 3


def test_self_overlap_is_one_for_rule_lists(compas):
    X, y = compas[0].iloc[:800], compas[1].iloc[:800]
    g = GreedyRuleListClassifier(max_rules=5, min_support=0.05).fit(X, y)
    for ties in ("positive", "rank"):
        assert feature_importance_overlap(g, g, X, y, k=7, ties=ties, n_repeats=2, random_state=1).I_k == 1.0
    d = DPRuleListClassifier(epsilon=1.0, random_state=0).fit(X, y)
    r = feature_importance_overlap(g, d, X, y, k=7, n_repeats=1, random_state=1)
    assert 0.0 <= r.I_k <= 1.0 and len(r.importances) == X.shape[1]


def test_errors():
    X = np.zeros((10, 3))
    y = np.zeros(10, dtype=int)
    m = Reads((0,)).fit(X, y)
    with pytest.raises(ValueError, match="exceeds"):
        feature_importance_overlap(m, m, X, y, k=4)
    with pytest.raises(ValueError, match="positive integer"):
        feature_importance_overlap(m, m, X, y, k=0)
    with pytest.raises(ValueError, match="ties"):
        feature_importance_overlap(m, m, X, y, ties="first")
    with pytest.raises(TypeError, match="random_state"):
        feature_importance_overlap(m, m, X, y, k=2, random_state=np.random.default_rng(0))
