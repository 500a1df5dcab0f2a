"""PrivaTree's default law (issue 24): the "error-gini" criterion's sensitivity by brute force and
in exact rationals, the public depth / weight rules, predict = argmax predict_proba, small data,
and the empirical DP audit of the default split selection with a planted control (slow)."""

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpmodels.audit.dp_audit import epsilon_lower_bound
from dpmodels.tree import PrivaTreeClassifier, PrivaTreeRegressor
from dpmodels.tree.privatree import splitter as splitter_module
from dpmodels.tree.privatree.budget import default_depth, gini_weight, signal
from dpmodels.tree.privatree.criteria import error_gini, half_gini_exact, misclassified
from dpmodels.tree.privatree.regressor import regression_depth


def _exact_error_gini(H, lam):
    """The criterion of every prefix split of a (1, m, B, K) table, in exact rationals."""
    _, m, B, K = H.shape
    out = np.empty((m, B), dtype=object)
    for j in range(m):
        for b in range(B):
            total = Fraction(0)
            for part in (H[0, j, : b + 1].sum(axis=0), H[0, j, b + 1 :].sum(axis=0)):
                n = int(part.sum())
                if n:
                    err = n - int(part.max())
                    half_gini = Fraction(n * n - int((part.astype(object) ** 2).sum()), 2 * n)
                    total += err + Fraction(lam) * half_gini
            out[j, b] = total
    return out


@settings(max_examples=200, deadline=None)
@given(
    m=st.integers(1, 3),
    B=st.integers(2, 5),
    K=st.integers(2, 3),
    lam=st.sampled_from([0.0, 1.0, 2.0]),
    data=st.data(),
)
def test_error_gini_is_exact_and_moves_within_its_sensitivity(m, B, K, lam, data):
    """Adding one record (one bin per feature, one class) raises every candidate's score by a value
    in [0, 1 + λ]: monotone with Δ = 1 + λ; the float score is the exact rational, rounded."""
    cells = data.draw(st.lists(st.integers(0, 40), min_size=m * B * K, max_size=m * B * K))
    H = np.array(cells, dtype=np.int64).reshape(1, m, B, K)
    bins = data.draw(st.lists(st.integers(0, B - 1), min_size=m, max_size=m))
    k = data.draw(st.integers(0, K - 1))
    H2 = H.copy()
    H2[0, np.arange(m), bins, k] += 1
    exact, exact2 = _exact_error_gini(H, lam), _exact_error_gini(H2, lam)
    got, got2 = error_gini(H, None, lam)[0], error_gini(H2, None, lam)[0]
    for j in range(m):
        for b in range(B):
            assert got[j, b] == float(exact[j, b]) or abs(got[j, b] - float(exact[j, b])) <= 1e-12 * max(
                1.0, float(exact[j, b])
            )
            d = exact2[j, b] - exact[j, b]
            assert 0 <= d <= 1 + Fraction(lam)
            assert got2[j, b] - got[j, b] >= -1e-9  # the computed scores move the same way


def test_half_gini_is_exact_beyond_int64_squares():
    """n ≥ 2^31: n² overflows int64; the numerator is then computed in Python integers."""
    v = np.array([[3_000_000_000, 1_000_000_001]], dtype=np.int64)
    n = int(v.sum())
    want = Fraction(n * n - sum(int(x) ** 2 for x in v[0]), 2 * n)
    assert half_gini_exact(v)[0] == float(want)
    assert misclassified(v[None, None], None).shape == (1, 1, 1)


def test_the_auto_rules_read_public_numbers_only():
    """d = 1 + ⌊log₄ s⌋, s = ε·n̂/(3.5·m), clipped to [max(1, ⌈log₂ K⌉), 5]; λ = 0 below s = 16."""
    assert signal(1.0, 3500, 10) == pytest.approx(100.0)
    assert [default_depth(e, 4300, 9, 2) for e in (0.1, 0.5, 1.0, 4.0)] == [2, 4, 4, 5]
    assert [default_depth(e, 30000, 14, 2) for e in (0.1, 0.5, 1.0, 4.0)] == [3, 5, 5, 5]
    assert [default_depth(e, 700, 20, 2) for e in (0.1, 0.5, 1.0, 4.0)] == [1, 2, 2, 3]
    assert default_depth(1.0, 124, 13, 3) == 2  # wine: room for three classes, no deeper
    assert default_depth(1.0, 1, 1, 2) == 1 and default_depth(1e9, 1e9, 1, 2) == 5
    assert default_depth(1.0, 10, 5, 40) == 6  # ⌈log₂ 40⌉ leaves room for every class
    assert [gini_weight(e, 4300, 9) for e in (0.1, 0.5)] == [0.0, 2.0]
    grid = [(e, n) for e in (0.01, 0.1, 1.0, 10.0) for n in (10, 1000, 10**5)]
    for m in (1, 7, 40):
        ds = [default_depth(e, n, m, 2) for e, n in grid]
        assert all(1 <= d <= 5 for d in ds)
        for (e, n), d in zip(grid, ds):  # more signal never gives a shallower tree
            assert default_depth(2 * e, n, m, 2) >= d and default_depth(e, 2 * n, m, 2) >= d
    assert [regression_depth(e, 309, 10) for e in (0.1, 1.0, 4.0)] == [1, 1, 2]
    assert [regression_depth(e, 31000, 13) for e in (0.1, 1.0, 4.0)] == [2, 4, 5]


def _data(n, seed, K=2):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4))
    y = np.clip(np.floor(X[:, 0] + 0.5 * X[:, 1] * X[:, 2] + rng.normal(size=n) * 0.5 + K / 2), 0, K - 1).astype(int)
    return X, y


def test_the_default_fit_records_its_public_depth_and_weight():
    X, y = _data(2000, 0)
    for n_public, eps in ((None, 1.0), (2000, 0.1), (2000, 4.0)):
        est = PrivaTreeClassifier(epsilon=eps, bounds=(-5.0, 5.0), classes=[0, 1], n_public=n_public, random_state=0)
        est.fit(X, y)
        assert est.max_depth_ == default_depth(eps, est.n_estimate_, 4, 2)
        assert est.tree_.max_depth <= est.max_depth_
        lam = gini_weight(eps, est.n_estimate_, 4)
        assert est.gini_weight_ == lam
        splits = [r for r in est.privacy_ledger_.rows if r.what.startswith("level")]
        assert splits and all(r.sensitivity == 1.0 + lam for r in splits)
        assert est.privacy_ledger_.is_private
        assert est.privacy_ledger_.epsilon_spent == pytest.approx(eps)
    # an explicit depth and criterion are used as given; the published variants keep depth 4
    est = PrivaTreeClassifier(max_depth=2, split_criterion="gini", bounds=(-5.0, 5.0), classes=[0, 1], random_state=0)
    assert est.fit(X, y).max_depth_ == 2 and est.gini_weight_ is None
    pub = PrivaTreeClassifier(variant="published", bounds=(-5.0, 5.0), classes=[0, 1], n_public=2000, random_state=0)
    assert pub.fit(X, y).max_depth_ == 4 and pub.gini_weight_ is None


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1), K=st.integers(2, 3), eps=st.sampled_from([0.05, 0.5, 5.0]), n=st.integers(1, 300)
)
def test_predict_is_the_argmax_of_predict_proba_for_the_default(seed, K, eps, n):
    X, y = _data(n, seed % 1000, K)
    est = PrivaTreeClassifier(epsilon=eps, bounds=(-5.0, 5.0), classes=list(range(K)), random_state=seed).fit(X, y)
    P = est.predict_proba(X)
    np.testing.assert_allclose(P.sum(axis=1), 1.0)
    assert np.array_equal(est.classes_[np.argmax(P, axis=1)], est.predict(X))


def test_small_data_gets_a_shallow_tree_with_few_empty_leaves():
    """Wine (124 training rows, 13 features, 3 classes) and diabetes (309 rows): the auto depth is
    2 and 1, not 4 — no forest of empty leaves (scikit-learn's copies are public data)."""
    from sklearn.datasets import load_diabetes, load_wine

    X, y = load_wine(return_X_y=True)
    X, y = X[:124], y[:124]
    lo, hi = X.min(axis=0).tolist(), X.max(axis=0).tolist()  # the public file's range, declared
    bounds = {j: (lo[j], hi[j]) for j in range(13)}
    est = PrivaTreeClassifier(bounds=bounds, classes=[0, 1, 2], n_public=124, random_state=0).fit(X, y)
    assert est.max_depth_ == 2 and est.tree_.n_leaves <= 4
    Xd, yd = load_diabetes(return_X_y=True)
    r = PrivaTreeRegressor(bounds=(-0.25, 0.25), label_bounds=(0, 350), n_public=309, random_state=0)
    r.fit(Xd[:309], yd[:309])
    assert r.max_depth_ == 1 and r.tree_.n_leaves == 2
    assert np.all((r.tree_.leaf_value >= 0) | np.isnan(r.tree_.leaf_value))


# ----------------------------------------------------------------- empirical DP audit (slow)
def _audit_neighbours(k=6):
    """f0 and f1 both split D perfectly (k × (0, 0, y=0), k × (1, 1, y=1)); D' adds (1, 0, y=1):
    f1's split now misclassifies one record and its half Gini rises by k/(k+1) — a score change of
    1 + λ·k/(k+1), close to Δ = 1 + λ — while f0's stays 0."""
    X = np.r_[np.zeros((k, 2), int), np.ones((k, 2), int)]
    y = np.r_[np.zeros(k, int), np.ones(k, int)]
    return (X, y), (np.r_[X, [[1, 0]]], np.r_[y, 1])


def _root_on_f1_counts(n_runs):
    D, D2 = _audit_neighbours()
    hits = []
    for data in (D, D2):
        h = 0
        for s in range(n_runs):
            t = (
                PrivaTreeClassifier(
                    epsilon=1.0,
                    max_depth=1,
                    categories={0: [0, 1], 1: [0, 1]},
                    classes=[0, 1],
                    n_public=10**6,  # s large: λ = 2, Δ = 3
                    leaf_error=1.0,
                    random_state=s,
                )
                .fit(*data)
                .tree_
            )
            h += int(t.feature[0] == 1)
        hits.append(h)
    return hits


@pytest.mark.slow
def test_dp_audit_default_criterion():
    n_runs = 3000
    hits = _root_on_f1_counts(n_runs)
    assert epsilon_lower_bound(hits[0], n_runs, hits[1], n_runs) <= 1.0


@pytest.mark.slow
def test_dp_audit_default_criterion_planted_leak_is_flagged(monkeypatch):
    real = splitter_module.select_rows

    def leaky(u, epsilon, sensitivity, rng, **kw):
        return real(u, epsilon, sensitivity / 10.0, rng, **kw)  # noise 10× too small

    monkeypatch.setattr(splitter_module, "select_rows", leaky)
    n_runs = 3000
    hits = _root_on_f1_counts(n_runs)
    assert epsilon_lower_bound(hits[0], n_runs, hits[1], n_runs) > 1.0
