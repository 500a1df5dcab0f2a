"""DL8.5 optimal trees as library Trees (skipped without the optional extra ``dpmodels[optimal]``)."""

import json
import math
import pickle

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.utils.estimator_checks import parametrize_with_checks

from _extras import need

pydl85 = need("pydl85")

from dpmodels.data import load_dataset  # noqa: E402
from dpmodels.rulelist._base import _binary_matrix  # noqa: E402
from dpmodels.tree import Tree  # noqa: E402
from dpmodels.tree.optimal import DL85Classifier  # noqa: E402
from test_sklearn_checks import EXPECTED_FAILURES  # noqa: E402  (undeclared labels {1, 2})


def best_tree_errors(X, y, depth, min_sup):
    """Fewest training errors of any binary tree of depth ≤ ``depth`` whose leaves all hold
    ≥ ``min_sup`` records — the single leaf is always a tree (exhaustive recursion; test oracle)."""
    Xb = X.astype(bool)

    def rec(rows, d, root=False):
        if rows.sum() < min_sup and not root:
            return math.inf
        pos = int(y[rows].sum())
        best = min(pos, int(rows.sum()) - pos)
        if d == 0:
            return best
        for f in range(X.shape[1]):
            left, right = rows & ~Xb[:, f], rows & Xb[:, f]
            if left.any() and right.any():
                best = min(best, rec(left, d - 1) + rec(right, d - 1))
        return best

    return rec(np.ones(len(y), dtype=bool), depth, root=True)


@settings(max_examples=100, deadline=None)
@given(st.integers(0, 2**31 - 1), st.integers(1, 3), st.integers(1, 8))
def test_optimal_against_exhaustive_search(seed, depth, min_sup):
    rng = np.random.default_rng(seed)
    n, p = int(rng.integers(1, 60)), int(rng.integers(1, 5))
    X = (rng.random((n, p)) < rng.uniform(0.2, 0.8, p)).astype(np.int64)
    y = (rng.random(n) < rng.uniform(0.1, 0.9)).astype(np.int64)
    m = DL85Classifier(max_depth=depth, min_sup=min_sup).fit(X, y)
    expected = best_tree_errors(X, y, depth, min_sup)
    assert m.optimal_
    assert m.train_errors_ == expected
    assert int((m.predict(X) != y).sum()) == expected
    leaves = m.tree_.is_leaf
    if m.tree_.n_nodes > 1:
        assert m.tree_.value[leaves].sum(axis=1).min() >= min_sup  # every leaf ≥ min_sup records
    assert m.tree_.max_depth <= depth


def test_fast_depth_two_is_never_claimed_optimal():
    rng = np.random.default_rng(0)
    n, p = int(rng.integers(8, 60)), int(rng.integers(1, 5))
    X = (rng.random((n, p)) < rng.uniform(0.2, 0.8, p)).astype(np.int64)
    y = (rng.random(n) < 0.5).astype(np.int64)
    exact = DL85Classifier(max_depth=3, min_sup=5).fit(X, y)
    fast = DL85Classifier(max_depth=3, min_sup=5, fast_depth_two=True).fit(X, y)
    assert exact.optimal_ and exact.train_errors_ == best_tree_errors(X, y, 3, 5)
    assert not fast.optimal_ and fast.train_errors_ >= exact.train_errors_


def test_no_admissible_root_split_gives_the_single_leaf():
    X = np.r_[np.ones(12), np.zeros(2)].astype(int)[:, None]  # a split would leave a 2-record leaf
    y = np.r_[np.ones(6), np.zeros(8)].astype(int)
    m = DL85Classifier(max_depth=3, min_sup=4).fit(X, y)
    assert m.tree_.n_nodes == 1 and m.optimal_ and m.train_errors_ == 6


def test_same_predictions_as_pydl85_and_exact_counts(compas):
    X, y = compas[0].iloc[:2000], compas[1].iloc[:2000]
    m = DL85Classifier(max_depth=3, min_sup=0.02).fit(X, y)
    raw = pydl85.DL85Classifier(max_depth=3, min_sup=math.ceil(0.02 * 2000), depth_two_special_algo=False)
    raw.fit(X.to_numpy(), y.to_numpy())
    assert (m.predict(X) == raw.predict(X.to_numpy())).all()
    assert m.train_errors_ == int(raw.error_)
    assert m.min_sup_ == 40
    tr = m.tree_
    assert isinstance(tr, Tree) and tr.max_depth <= 3
    leaf = m.apply(X)
    assert tr.is_leaf[leaf].all()
    counts = np.stack([np.bincount(leaf, weights=(y.to_numpy() == k), minlength=tr.n_nodes) for k in (0, 1)], 1)
    assert np.array_equal(tr.value[tr.is_leaf], counts[tr.is_leaf])  # exact training counts
    assert tr.value[0].sum() == len(y)
    assert np.allclose(m.predict_proba(X).sum(axis=1), 1)
    text = m.export_text()
    assert text.count("class:") == tr.n_leaves and X.columns[tr.feature[0]] in text
    # the Tree round-trips and pickles without PyDL8.5 objects inside
    again = Tree.from_json(tr.to_json())
    assert (again.predict(X) == tr.predict(X)).all()
    assert (pickle.loads(pickle.dumps(m)).predict(X) == m.predict(X)).all()
    assert json.loads(tr.to_json())["format"] == "dpmodels.tree/1"


def test_classes_and_one_class():
    rng = np.random.default_rng(1)
    X = pd.DataFrame(rng.integers(0, 2, (80, 3)), columns=["a", "b", "c"])
    y = np.where(X["a"] == 1, "hi", "lo")
    m = DL85Classifier(max_depth=2, classes=["lo", "hi"]).fit(X, y)
    assert list(m.classes_) == ["lo", "hi"] and (m.predict(X) == y).all()
    one = DL85Classifier(max_depth=2).fit(X, np.ones(80, dtype=int))
    assert one.tree_.n_nodes == 1 and (one.predict(X) == 1).all()
    with pytest.raises(ValueError, match="outside the declared classes"):
        DL85Classifier(classes=["lo", "mid"]).fit(X, y)


@pytest.mark.parametrize(
    "kw",
    [{"max_depth": 0}, {"min_sup": 0}, {"min_sup": 1.5}, {"min_sup": True}, {"time_limit": -1}, {"classes": ["a"]}],
)
def test_bad_parameters(kw):
    X = np.array([[0, 1], [1, 0], [1, 1], [0, 0]])
    with pytest.raises(ValueError):
        DL85Classifier(**kw).fit(X, [0, 1, 1, 0])


def test_non_binary_input_is_rejected():
    with pytest.raises(ValueError, match="binary"):
        DL85Classifier().fit(np.array([[0, 2], [1, 0]]), [0, 1])


class ThresholdedDL85(DL85Classifier):
    def _to_binary(self, X):
        return _binary_matrix(np.asarray(X, dtype=float) > 0)


@parametrize_with_checks([ThresholdedDL85(max_depth=2)], expected_failed_checks=lambda est: EXPECTED_FAILURES)
def test_sklearn_compatible(estimator, check):
    check(estimator)


@pytest.mark.slow
def test_time_limit_keeps_the_best_tree_and_does_not_claim_optimality():
    X, y = load_dataset("adult")
    idx = np.random.default_rng(0).choice(len(X), size=len(X) // 10, replace=False)
    X, y = X.iloc[idx], y.iloc[idx]
    m = DL85Classifier(max_depth=8, min_sup=1, time_limit=1).fit(X, y)
    assert not m.optimal_ and m.runtime_ < 30
    assert m.train_errors_ == int((m.predict(X) != y).sum())
