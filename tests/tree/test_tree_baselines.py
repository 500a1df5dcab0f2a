"""Baselines of paper 002: BDPT, DPGDF (private, ledgered), DPA, diffprivlib wrappers."""

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.base import clone

from _extras import need
from dpmodels.privacy.ledger import PrivacyLeakWarning
from dpmodels.tree.baselines import (
    BDPTClassifier,
    DiffprivlibTreeClassifier,
    DPAClassifier,
    DPGDFClassifier,
    DPLogisticRegression,
)
from dpmodels.tree.model import Tree


def mixed_data(n=400, seed=0, n_classes=2):
    rng = np.random.default_rng(seed)
    df = pd.DataFrame(
        {
            "age": rng.integers(18, 90, n).astype(float),
            "colour": pd.Categorical(rng.choice(["red", "green", "blue"], n), categories=["blue", "green", "red"]),
            "size": rng.normal(0, 1, n),
            "shape": pd.Categorical(rng.choice(["a", "b"], n), categories=["a", "b"]),
        }
    )
    score = (df["age"] > 50).astype(int) + (df["colour"] == "red").astype(int)
    y = np.minimum(score.to_numpy(), n_classes - 1)
    return df, y


PUBLIC = dict(bounds=([18.0, -5.0], [90.0, 5.0]), classes=[0, 1])


def test_bdpt_fits_mixed_data_and_spends_exactly_epsilon():
    X, y = mixed_data()
    m = BDPTClassifier(epsilon=2.0, max_depth=3, random_state=0, **PUBLIC)
    assert m.fit(X, y) is m
    assert list(m.feature_names_in_) == list(X.columns)
    assert list(m.classes_) == [0, 1]
    assert isinstance(m.tree_, Tree)
    led = m.privacy_ledger_
    assert led.is_private and not led.leaks
    assert led.epsilon_spent == pytest.approx(2.0)
    assert m.score(X, y) > 0.6
    P = m.predict_proba(X)
    assert P.shape == (len(X), 2) and np.allclose(P.sum(axis=1), 1)
    # leaves carry the released noisy counts (integers)
    leaf_vals = m.tree_.value[m.tree_.is_leaf]
    assert np.all(np.isfinite(leaf_vals)) and np.all(leaf_vals == np.round(leaf_vals))
    assert "colour" in m.export_text() or "age" in m.export_text()
    assert m.tree_.max_depth <= 3


def test_bdpt_leaks_are_recorded():
    X, y = mixed_data()
    with pytest.warns(PrivacyLeakWarning):
        m = BDPTClassifier(epsilon=1.0, random_state=0).fit(X, y)
    what = " ".join(r.what for r in m.privacy_ledger_.leaks)
    assert "bounds" in what and "label set" in what
    assert not m.privacy_ledger_.is_private
    with pytest.warns(PrivacyLeakWarning, match="distinct values"):
        m = BDPTClassifier(epsilon=1.0, numeric_binning="merge5", random_state=0, **PUBLIC).fit(X, y)
    assert len(m.privacy_ledger_.leaks) == 2  # one per numerical feature


def test_bdpt_clips_to_public_bounds_and_thresholds_inside():
    X, y = mixed_data()
    X = X.copy()
    X.loc[0, "age"] = 1e6  # outside the public bounds: clipped, no error
    m = BDPTClassifier(epsilon=5.0, max_depth=4, random_state=1, **PUBLIC).fit(X, y)
    num = ~np.isnan(m.tree_.threshold)
    f = m.tree_.feature[num]
    lo = np.where(f == 0, 18.0, -5.0)
    hi = np.where(f == 0, 90.0, 5.0)
    assert np.all((m.tree_.threshold[num] > lo) & (m.tree_.threshold[num] < hi))


def test_dpgdf_categorical_only():
    X, y = mixed_data()
    with pytest.warns(UserWarning, match="ignores the numerical"):
        m = DPGDFClassifier(epsilon=2.0, max_depth=2, classes=[0, 1], random_state=0).fit(X, y)
    used = {m.tree_.feature_names[f] for f in m.tree_.feature[~m.tree_.is_leaf]}
    assert used <= {"colour", "shape"}
    assert m.privacy_ledger_.is_private
    assert m.privacy_ledger_.epsilon_spent == pytest.approx(2.0)
    assert np.all(np.isnan(m.tree_.value[m.tree_.is_leaf]))  # only labels are released
    P = m.predict_proba(X)
    assert np.array_equal(m.classes_[P.argmax(axis=1)], m.predict(X))
    with pytest.raises(ValueError, match="categorical features only"):
        DPGDFClassifier(epsilon=1.0, numerical="error", classes=[0, 1]).fit(X, y)
    with pytest.raises(ValueError, match="at least one categorical"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            DPGDFClassifier(epsilon=1.0, classes=[0, 1]).fit(X[["age", "size"]], y)


def test_dpgdf_never_repeats_a_test_on_a_path():
    X, y = mixed_data()
    Xc = X[["colour", "shape"]]
    m = DPGDFClassifier(epsilon=1.0, max_depth=6, classes=[0, 1], random_state=3).fit(Xc, y)
    t = m.tree_
    # 3 + 2 one-vs-rest tests exist: no path can be longer than 5
    assert t.max_depth <= 5

    def walk(i, seen):
        if t.children_left[i] == -1:
            return
        key = (t.feature[i], t.left_categories[i])
        assert key not in seen
        walk(t.children_left[i], seen | {key})
        walk(t.children_right[i], seen | {key})

    walk(0, frozenset())


def test_multiclass():
    X, y = mixed_data(n_classes=3)
    for m in (
        BDPTClassifier(epsilon=5.0, bounds=PUBLIC["bounds"], classes=[0, 1, 2], random_state=0),
        DPGDFClassifier(epsilon=5.0, classes=[0, 1, 2], numerical="drop", random_state=0),
    ):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            m.fit(X, y)
        assert list(m.classes_) == [0, 1, 2]
        assert m.predict_proba(X).shape == (len(X), 3)
        assert set(np.unique(m.predict(X))) <= {0, 1, 2}


def test_numpy_input_and_clone():
    rng = np.random.default_rng(0)
    A = rng.normal(size=(200, 3))
    y = (A[:, 0] > 0).astype(int)
    m = BDPTClassifier(epsilon=3.0, bounds=(-4, 4), classes=[0, 1], random_state=0).fit(A, y)
    assert not hasattr(m, "feature_names_in_")
    assert m.score(A, y) > 0.6
    c = clone(m)
    assert c.get_params() == m.get_params() and not hasattr(c, "tree_")


@pytest.mark.parametrize("bad", [0, -1, float("nan"), float("inf")])
def test_bad_epsilon(bad):
    X, y = mixed_data(50)
    for m in (BDPTClassifier(epsilon=bad, **PUBLIC), DPGDFClassifier(epsilon=bad, classes=[0, 1])):
        with pytest.raises(ValueError):
            m.fit(X, y)


def test_bad_inputs():
    X, y = mixed_data(50)
    with pytest.raises(ValueError, match="max_depth"):
        BDPTClassifier(max_depth=0, **PUBLIC).fit(X, y)
    with pytest.raises(ValueError, match="bounds"):
        BDPTClassifier(bounds=(5, 1), classes=[0, 1]).fit(X, y)
    with pytest.raises(ValueError, match="outside the declared classes"):
        BDPTClassifier(bounds=PUBLIC["bounds"], classes=[0, 7]).fit(X, y + 1)
    Xn = X.copy()
    Xn.loc[0, "size"] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        BDPTClassifier(**PUBLIC).fit(Xn, y)


def test_unknown_category_follows_right_branch():
    X, y = mixed_data()
    m = BDPTClassifier(epsilon=3.0, random_state=0, **PUBLIC).fit(X, y)
    Xu = X.copy()
    Xu["colour"] = Xu["colour"].astype(str)
    Xu.loc[:10, "colour"] = "purple"
    pred = m.predict(Xu)  # no error: unknown category → code -1 → right branch
    assert pred.shape == (len(X),)


@settings(max_examples=25, deadline=None)
@given(
    eps=st.floats(0.01, 10),
    depth=st.integers(1, 5),
    bins=st.integers(2, 12),
    mss=st.integers(0, 50),
    seed=st.integers(0, 10**6),
    which=st.sampled_from(["bdpt", "dpgdf"]),
    leafmech=st.sampled_from(["exponential", "permute-and-flip"]),
)
def test_ledger_within_budget_for_any_hyperparameters(eps, depth, bins, mss, seed, which, leafmech):
    X, y = mixed_data(120, seed=seed % 7)
    if which == "bdpt":
        m = BDPTClassifier(
            epsilon=eps, max_depth=depth, max_bins=bins, min_samples_split=mss, random_state=seed, **PUBLIC
        )
    else:
        m = DPGDFClassifier(
            epsilon=eps,
            max_depth=depth,
            classes=[0, 1],
            leaf_mechanism=leafmech,
            split_mechanism=leafmech,
            random_state=seed,
        )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        m.fit(X, y)
    led = m.privacy_ledger_
    assert led.epsilon_spent <= eps * (1 + 1e-9)
    assert led.delta_spent == 0
    assert led.is_private
    led.check()
    # one selection row per grown level, never more levels than max_depth
    assert sum("split selection" in r.what for r in led.rows) <= depth
    assert m.tree_.max_depth <= depth


@pytest.mark.parametrize("Est", [BDPTClassifier, DPGDFClassifier])
def test_declared_label_set_one_class_and_undeclared_labels(Est):
    X, y = mixed_data()
    kw = dict(bounds=PUBLIC["bounds"]) if Est is BDPTClassifier else {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # DPGDF: numerical features ignored
        m = Est(epsilon=2.0, classes=[1, 0], random_state=0, **kw).fit(X, y)
        assert m.classes_.tolist() == [1, 0]  # exactly as declared, order included
        assert set(m.predict(X)) <= {0, 1}
        one = Est(epsilon=2.0, classes=[0, 1, 2], random_state=0, **kw).fit(X, np.zeros(len(y), int))
        assert one.classes_.tolist() == [0, 1, 2] and one.predict_proba(X).shape == (len(X), 3)
        assert one.privacy_ledger_.is_private
        with pytest.raises(ValueError, match="outside the declared classes"):
            Est(epsilon=2.0, classes=[0, 1], random_state=0, **kw).fit(X, np.r_[y[:-1], 2])


@pytest.mark.parametrize("Est", [BDPTClassifier, DPGDFClassifier])
def test_foreign_typed_and_missing_categories_are_unknown(Est):
    X, y = mixed_data()
    Xo = X.astype({"colour": object})
    Xo.loc[0, "colour"], Xo.loc[1, "colour"], Xo.loc[2, "colour"] = 7, None, 2.5
    cats = {"colour": ["blue", "green", "red"], "shape": ["a", "b"]}
    kw = dict(bounds=PUBLIC["bounds"]) if Est is BDPTClassifier else {}
    with warnings.catch_warnings():
        warnings.simplefilter("error", PrivacyLeakWarning)
        warnings.filterwarnings("ignore", "DPGDF ignores", UserWarning)
        m = Est(epsilon=2.0, classes=[0, 1], categories=cats, random_state=0, **kw).fit(Xo, y)
    assert m.privacy_ledger_.is_private
    assert m.predict(Xo.iloc[:3]).shape == (3,)
    assert m.tree_.encode(Xo.iloc[:3])[:, 1].tolist() == [-1, -1, -1]


def test_bdpt_without_candidates_is_a_single_leaf():
    X = np.full((30, 2), 4.0)
    y = np.arange(30) % 2
    m = BDPTClassifier(epsilon=1.0, bounds=(4.0, 4.0), classes=[0, 1], random_state=0).fit(X, y)
    assert m.tree_.n_nodes == 1 and m.privacy_ledger_.is_private


def test_dpa_declared_classes_and_one_class():
    X, y = mixed_data(80)
    m = DPAClassifier(n_estimators=20, max_depth=2, classes=[0, 1]).fit(X, np.ones(80, int))
    assert m.classes_.tolist() == [0, 1] and m.vote_counts(X).shape == (80, 2)
    assert set(m.predict(X)) == {1}


# ------------------------------------------------------------------------------------ DPA


def test_dpa_clone_and_constant_partitions():
    X, y = mixed_data(60)
    m = DPAClassifier(n_estimators=200, max_depth=2).fit(X, y)  # most partitions tiny or empty
    assert (m.partition_sizes_ == 0).sum() > 0
    v = m.vote_counts(X)
    assert np.all(v.sum(axis=1) == (m.partition_sizes_ > 0).sum())
    assert clone(m).get_params() == m.get_params()


# ---------------------------------------------------------------------------- diffprivlib


def test_diffprivlib_wrappers():
    need("diffprivlib")
    X, y = mixed_data(300)
    t = DiffprivlibTreeClassifier(
        epsilon=1.0, max_depth=3, bounds=([18, 0, -5, 0], [90, 2, 5, 1]), classes=[0, 1], random_state=0
    ).fit(X, y)
    assert t.privacy_ledger_.is_private
    assert t.predict(X).shape == (300,)
    assert t.predict_proba(X).shape == (300, 2)
    with pytest.warns(PrivacyLeakWarning):
        t2 = DiffprivlibTreeClassifier(epsilon=1.0, random_state=0).fit(X, y)
    assert len(t2.privacy_ledger_.leaks) == 2  # bounds, label set
    # declared label set, used as declared even when y holds one class
    t3 = DiffprivlibTreeClassifier(
        epsilon=1.0, max_depth=3, bounds=([18, 0, -5, 0], [90, 2, 5, 1]), classes=["no", "yes"], random_state=0
    ).fit(X, np.full(300, "yes"))
    assert t3.classes_.tolist() == ["no", "yes"] and set(t3.predict(X)) <= {"no", "yes"}
    lr = DPLogisticRegression(epsilon=1.0, data_norm=5.0, classes=[0, 1], random_state=0).fit(X, y)
    # diffprivlib's objective perturbation uses the exact n (its proof assumes n public): a leak
    assert [r.what for r in lr.privacy_ledger_.leaks] == ["training-set size n (diffprivlib's objective perturbation)"]
    assert set(np.unique(lr.predict(X))) <= {0, 1}
    one = DPLogisticRegression(epsilon=1.0, data_norm=5.0, classes=[0, 1], random_state=0).fit(
        X, np.zeros(300, int)
    )  # diffprivlib's own fit raises on one class
    assert one.predict_proba(X).shape == (300, 2)
    three = DPLogisticRegression(epsilon=1.0, data_norm=5.0, classes=[0, 1, 2], random_state=0).fit(X, y)
    assert three.predict_proba(X).shape == (300, 3) and three.coef_.shape[0] == 3
    with pytest.warns(PrivacyLeakWarning):
        lr2 = DPLogisticRegression(epsilon=1.0, standardize=True, random_state=0).fit(X, y)
    assert len(lr2.privacy_ledger_.leaks) == 4  # label set, standardisation, data_norm, n
    assert lr2.predict_proba(X).shape == (300, 2)


def test_diffprivlib_missing_gives_clear_error(monkeypatch):
    import builtins

    real_import = builtins.__import__

    def fake(name, *a, **k):
        if name.startswith("diffprivlib"):
            raise ImportError("No module named 'diffprivlib'")
        return real_import(name, *a, **k)

    monkeypatch.setattr(builtins, "__import__", fake)
    X, y = mixed_data(30)
    with pytest.raises(ImportError, match=r"dpmodels\[diffprivlib\]"):
        DiffprivlibTreeClassifier(epsilon=1.0).fit(X, y)
    with pytest.raises(ImportError, match=r"dpmodels\[diffprivlib\]"):
        DPLogisticRegression(epsilon=1.0).fit(X, y)
