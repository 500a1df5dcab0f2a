"""Dist_G and V of regression trees (dpmodels.audit.regression; docs/reconstruction.md, "Regression
trees"), against brute force on tiny domains: every possible record enumerated and routed through
the model for Capt_j, and V's total variation counted record by record."""

import itertools
import math
from collections import Counter

import numpy as np
import pandas as pd
import pytest

from dpmodels.audit import reconstruction_leak
from dpmodels.audit.regression import regression_vulnerability
from dpmodels.io import load_model, save_model
from dpmodels.tree import PrivaTreeRegressor
from dpmodels.tree.regression_model import RegressionTree

CATS = ["x", "y", "z"]
DECL = dict(bounds={"a": (0, 4), "k": (0, 3)}, categories={"c": CATS}, label_bounds=(0.0, 6.0))
DOMAINS = {"a": range(0, 5), "k": range(0, 4)}


def _data(n, seed):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({"a": rng.integers(0, 5, n), "k": rng.integers(0, 4, n), "c": rng.choice(CATS, n)})
    y = X["a"] + 0.5 * X["k"] + (X["c"] == "x") + rng.normal(0, 0.5, n)
    return X, np.clip(y.to_numpy(), 0.0, 6.0)


@pytest.fixture(scope="module", params=[0, 1, 2])
def fitted(request):
    X, y = _data(240, request.param)
    est = PrivaTreeRegressor(epsilon=3.0, max_depth=3, random_state=request.param, **DECL).fit(X, y)
    return est, X, y


def _every_record():
    rows = list(itertools.product(DOMAINS["a"], DOMAINS["k"], CATS))
    return pd.DataFrame(rows, columns=["a", "k", "c"])


def _brute_dist_g(est, support):
    """Σ_j C_j log2 Capt_j / (n Σ_k log2 |V_k|), Capt_j counted by routing every possible record."""
    capt = Counter(est.apply(_every_record()).tolist())
    log2_dom = math.log2(5) + math.log2(4) + math.log2(3)
    used = {j: c for j, c in support.items() if c > 0 and capt[j] > 0}  # no possible record: noise only
    n = sum(used.values())
    return sum(c * math.log2(capt[j]) for j, c in used.items()) / (n * log2_dom)


def test_dist_g_of_a_regression_tree_is_the_brute_force_capture_over_the_features(fitted):
    est, X, y = fitted
    t = est.tree_
    released = {int(j): max(float(t.value[j, 0]), 0.0) for j in np.flatnonzero(t.is_leaf)}  # the `n` column
    r = reconstruction_leak(est, X, y, domains=DOMAINS)  # y is ignored: labels are not attributes
    assert r.counts == "model" and r.counts_are_noisy
    assert r.dist_g == pytest.approx(_brute_dist_g(est, released), rel=1e-12)
    assert list(r.paths["path_id"]) == sorted(released) and "support_records" not in r.paths
    exact = reconstruction_leak(est, X, domains=DOMAINS, counts="data")  # the auditor's view
    routed = Counter(est.apply(X).tolist())
    assert exact.dist_g == pytest.approx(_brute_dist_g(est, routed), rel=1e-12)
    assert exact.per_record.mean() == pytest.approx(exact.dist_g)


def test_a_saved_regressor_gives_the_same_dist_g(fitted, tmp_path):
    est, X, _ = fitted
    m = load_model(save_model(est, tmp_path / "r.json"))
    assert reconstruction_leak(m, X, domains=DOMAINS).dist_g == pytest.approx(
        reconstruction_leak(est, X, domains=DOMAINS).dist_g, rel=1e-12
    )


def _brute_v(est, X_in, y_in, X_out, y_out, B):
    lo, hi = est.tree_.label_bounds
    width = (hi - lo) / B

    def keys(X, y):
        out = []
        for leaf, yi in zip(est.apply(X).tolist(), y):
            err = abs(yi - est.tree_.leaf_value[leaf])
            b = 0
            while b < B - 1 and err >= (b + 1) * width:  # the last bin is closed, and takes the rest
                b += 1
            out.append((leaf, b))
        return Counter(out)

    a, b = keys(X_in, y_in), keys(X_out, y_out)
    tv = 0.5 * sum(abs(a[k] / len(y_in) - b[k] / len(y_out)) for k in set(a) | set(b))
    return 0.5 + 0.5 * tv


@pytest.mark.parametrize("bins", [1, 4, 10])
def test_v_on_the_loss_is_the_brute_force_total_variation(fitted, bins):
    est, X, y = fitted
    Xo, yo = _data(180, 99)
    r = regression_vulnerability(est, X, y, Xo, yo, loss_bins=bins)
    assert r.V == pytest.approx(_brute_v(est, X, y, Xo, yo, bins), abs=1e-12)
    assert r.paths["n_members"].sum() == len(y) and r.paths["n_nonmembers"].sum() == len(yo)
    if bins == 1:  # one loss bin: V compares the leaves alone
        leaves = Counter(est.apply(X).tolist()), Counter(est.apply(Xo).tolist())
        tv = 0.5 * sum(abs(leaves[0][k] / len(y) - leaves[1][k] / len(yo)) for k in set(leaves[0]) | set(leaves[1]))
        assert r.V == pytest.approx(0.5 + 0.5 * tv, abs=1e-12)


def test_v_is_one_half_on_identical_sets_and_its_permutation_null_is_seeded(fitted):
    est, X, y = fitted
    assert regression_vulnerability(est, X, y, X, y).V == 0.5
    Xo, yo = _data(180, 99)
    a = regression_vulnerability(est, X, y, Xo, yo, n_permutations=30, random_state=4)
    b = regression_vulnerability(est, X, y, Xo, yo, n_permutations=30, random_state=4)
    assert np.array_equal(a.null, b.null) and 0 < a.p_value <= 1 and len(a.null) == 30


def test_v_flags_a_tree_that_memorised_its_labels():
    """A non-private tree with one member per leaf, each leaf's value that member's label: every
    member has loss 0, the non-members of the same cells do not."""
    X = pd.DataFrame({"a": [0.0, 1.0, 2.0, 3.0]})
    y = np.array([0.0, 4.0, 1.0, 5.0])
    tree = RegressionTree(
        children_left=[1, 3, 5, -1, -1, -1, -1],
        children_right=[2, 4, 6, -1, -1, -1, -1],
        feature=[0, 0, 0, -2, -2, -2, -2],
        threshold=[1.5, 0.5, 2.5, np.nan, np.nan, np.nan, np.nan],
        left_categories=[None] * 7,
        value=np.array([[4, 10], [2, 4], [2, 6], [1, 0], [1, 4], [1, 1], [1, 5]], dtype=float),
        label=[-1, -1, -1, 0, 0, 0, 0],
        classes=np.array(["n", "sum"]),
        feature_names=["a"],
        categorical=[False],
        leaf_value=np.array([0, 0, 0, 0.0, 4.0, 1.0, 5.0]),
        label_bounds=(0.0, 6.0),
    )
    yo = np.array([3.0, 1.0, 4.0, 2.0])  # the same cells, other labels
    assert regression_vulnerability(tree, X, y, X, yo, loss_bins=6).V == 1.0
    r = reconstruction_leak(tree, X, domains={"a": [0, 1, 2, 3]})  # one record per value: pinned
    assert r.dist_g == 0.0 and r.counts == "data"


def test_bad_loss_bins_and_a_classifier_are_refused(fitted):
    from dpmodels.tree import PrivaTreeClassifier

    est, X, y = fitted
    for bad in (0, 2.5, True):
        with pytest.raises(ValueError, match="loss_bins must be an integer >= 1"):
            regression_vulnerability(est, X, y, X, y, loss_bins=bad)
    clf = PrivaTreeClassifier(epsilon=1.0, max_depth=1, classes=[0, 1], random_state=0, **{
        k: v for k, v in DECL.items() if k != "label_bounds"
    }).fit(X, (y > 3).astype(int))  # fmt: skip
    with pytest.raises(TypeError, match="needs a regression model with declared label bounds"):
        regression_vulnerability(clf, X, y, X, y)


def test_v_of_an_additive_regressor_reads_the_loss_bin_alone():
    """A regressor without leaves (an additive model) has one cell: V = ½ + ½ TV of the members'
    and non-members' loss bins, against a direct count."""
    from dpmodels.gam import DPAdditiveRegressor

    rng = np.random.default_rng(0)
    X = rng.uniform(0, 1, (120, 2))
    y = 2 * X[:, 0] + rng.normal(0, 0.1, 120)
    m = DPAdditiveRegressor(epsilon=1.0, bounds=(0, 1), label_bounds=(-1, 3), random_state=0).fit(X[:60], y[:60])
    r = regression_vulnerability(m, X[:60], y[:60], X[60:], y[60:], loss_bins=4)
    edges = np.linspace(0, 4, 5)

    def shares(Xs, ys):
        b = np.clip(np.searchsorted(edges, np.abs(ys - m.predict(Xs)), side="right") - 1, 0, 3)
        return np.bincount(b, minlength=4) / len(ys)

    want = 0.5 + 0.25 * np.abs(shares(X[:60], y[:60]) - shares(X[60:], y[60:])).sum()
    assert r.V == pytest.approx(want)
    assert set(r.paths["description"]) == {"all records"}
