"""DP additive models (dpmodels.gam): scikit-learn conventions, privacy accounting, zCDP
conversion, printing, save/load identity and bad input before any spend."""

import math
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.utils.estimator_checks import parametrize_with_checks

from _extras import need
from dpmodels.gam import AdditiveModel, DPAdditiveClassifier, DPAdditiveRegressor
from dpmodels.gam.estimator import default_rounds
from dpmodels.privacy import PrivacyLeakWarning, samplers
from dpmodels.privacy.gaussian import gaussian_delta
from dpmodels.privacy.zcdp import zcdp_delta, zcdp_epsilon, zcdp_rho

WEIGHTS = "sample_weight other than all ones is refused (group privacy; tests/test_private_pipeline.py)"
_WEIGHT_FAILURES = {
    "check_classifiers_one_label_sample_weights": WEIGHTS,
    "check_sample_weights_list": WEIGHTS,
    "check_sample_weights_not_overwritten": WEIGHTS,
    "check_sample_weight_equivalence_on_dense_data": WEIGHTS,
}
_REG_FAILURES = {k: v for k, v in _WEIGHT_FAILURES.items() if "classifiers" not in k}


@parametrize_with_checks(
    [
        DPAdditiveClassifier(random_state=0, epsilon=50.0),
        DPAdditiveRegressor(random_state=0, epsilon=1000.0, max_rounds=10, clip=1.0),
    ],
    expected_failed_checks=lambda est: _REG_FAILURES if isinstance(est, DPAdditiveRegressor) else _WEIGHT_FAILURES,
)
def test_sklearn_compatible(estimator, check):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)  # the checks declare no public input
        check(estimator)


# ---------------------------------------------------------------------------- small data
def _data(n=400, seed=0):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(
        {
            "age": rng.integers(18, 80, n),
            "income": rng.normal(50, 20, n).clip(0, 200),
            "colour": rng.choice(["red", "green", "blue", "mauve"], n),  # "mauve" is undeclared
        }
    )
    logit = 0.08 * (X["age"] - 45) + (X["colour"] == "red") * 1.5 - 0.5
    y = (rng.random(n) < 1 / (1 + np.exp(-logit))).astype(int)
    return X, y


DECL = dict(
    bounds={"age": (18, 80), "income": (0.0, 200.0)},
    categories={"colour": ["red", "green", "blue"]},
)


def _fit(**kw):
    X, y = _data()
    params = dict(epsilon=2.0, classes=[0, 1], random_state=0, **DECL)
    params.update(kw)
    return DPAdditiveClassifier(**params).fit(X, y), X, y


@pytest.mark.parametrize("delta", [0.0, 1e-5])
@pytest.mark.parametrize("rounds", [0, 2, None])
def test_declared_fit_is_private_and_within_budget(delta, rounds):
    with warnings.catch_warnings():
        warnings.simplefilter("error", PrivacyLeakWarning)  # everything declared: no leak
        est, X, y = _fit(delta=delta, max_rounds=rounds)
    led = est.privacy_ledger_
    assert led.is_private and not led.leaks
    assert led.epsilon_spent <= 2.0 * (1 + 1e-9) and led.delta_spent <= delta * (1 + 1e-9) + 1e-300
    if rounds is not None:
        # the whole budget is used: nothing is left on the table
        assert led.epsilon_spent == pytest.approx(2.0)
    assert list(est.classes_) == [0, 1] and list(est.feature_names_in_) == ["age", "income", "colour"]
    P = est.predict_proba(X)
    assert P.shape == (len(X), 2) and np.allclose(P.sum(axis=1), 1)
    np.testing.assert_array_equal(est.predict(X), est.classes_[np.argmax(P, axis=1)])


def test_the_signal_is_learned():
    est, X, y = _fit(epsilon=8.0)
    from sklearn.metrics import roc_auc_score

    assert roc_auc_score(y, est.predict_proba(X)[:, 1]) > 0.75
    imp = dict(zip(est.feature_names_in_, est.term_importances_))
    assert imp["age"] > imp["income"]  # income carries no signal


def test_undeclared_inputs_are_leaks():
    X, y = _data()
    with pytest.warns(PrivacyLeakWarning):
        est = DPAdditiveClassifier(epsilon=1.0, random_state=0).fit(X, y)
    led = est.privacy_ledger_
    assert not led.is_private
    whats = " ".join(r.what for r in led.leaks)
    assert "classes" in whats and "bounds" in whats and "colour" in whats


def test_unknown_category_goes_to_its_own_bin():
    est, X, y = _fit()
    m = est.model_
    j = m.feature_names.index("colour")
    assert m.bin_labels(j)[-1] == "unknown" and m.n_bins(j) == 4
    B = m.encode(pd.DataFrame({"age": [30, 30], "income": [1.0, 1.0], "colour": ["mauve", None]}))
    assert list(B[:, j]) == [3, 3]


@pytest.mark.parametrize(
    "kw, match",
    [
        (dict(epsilon=0), "epsilon"),
        (dict(delta=1.5), "delta"),
        (dict(max_bins=1), "max_bins"),
        (dict(learning_rate=-1), "learning_rate"),
        (dict(bounds={"nope": (0, 1)}), "unknown feature"),
        (dict(categories={"age": ["a"]}, bounds={"age": (0, 1), "income": (0, 1)}), "both categorical"),
        (dict(cut_points={"income": [3, 2]}), "increasing"),
        (dict(max_rounds=2, histogram_share=1.0), "histogram_share"),
        (dict(clip=2.0), "clip"),
    ],
)
def test_bad_input_is_one_line_before_any_spend(kw, match):
    X, y = _data()
    spent = []

    class Spy(DPAdditiveClassifier):
        def _release(self, *a, **k):
            spent.append(1)
            return super()._release(*a, **k)

    params = dict(epsilon=1.0, classes=[0, 1], random_state=0, **DECL)
    params.update(kw)
    with pytest.raises((ValueError, TypeError), match=match) as e:
        Spy(**params).fit(X, y)
    assert "\n" not in str(e.value) and not spent


def test_label_outside_declared_classes_is_refused_before_spending():
    X, y = _data()
    with pytest.raises(ValueError, match="outside the declared classes"):
        DPAdditiveClassifier(classes=[0, 2], **DECL).fit(X, y)


def test_multiclass():
    X, y = _data()
    y3 = np.where(X["colour"] == "green", 2, y)
    est = DPAdditiveClassifier(epsilon=4.0, classes=[0, 1, 2], random_state=0, max_rounds=1, **DECL).fit(X, y3)
    P = est.predict_proba(X)
    assert P.shape == (len(X), 3) and np.allclose(P.sum(axis=1), 1)
    np.testing.assert_array_equal(est.predict(X), np.array([0, 1, 2])[np.argmax(P, axis=1)])
    assert np.mean(est.predict(X) == y3) > 0.5
    assert est.privacy_ledger_.is_private


def test_regressor_declared_and_clipped():
    X, y = _data()
    yr = 10 + 0.5 * X["age"].to_numpy() + np.random.default_rng(1).normal(0, 3, len(X))
    est = DPAdditiveRegressor(epsilon=4.0, label_bounds=(0, 100), random_state=0, **DECL).fit(X, yr)
    assert est.privacy_ledger_.is_private
    pred = est.predict(X)
    assert pred.min() >= 0 and pred.max() <= 100
    assert est.score(X, yr) > 0.3
    with pytest.warns(PrivacyLeakWarning, match="label bounds"):
        DPAdditiveRegressor(epsilon=1.0, random_state=0, **DECL).fit(X, yr)


def test_same_seed_same_model_and_centred_terms():
    a, X, _ = _fit()
    b, _, _ = _fit()
    np.testing.assert_array_equal(a.decision_function(X), b.decision_function(X))
    for t, c in zip(a.model_.terms, a.model_.bin_counts):  # terms are centred (post-processing)
        w = np.clip(c, 0, None)
        assert abs(float((t[:, 0] * w).sum())) <= 1e-6 * max(1.0, float(w.sum()))


def test_rounds_rule_is_public_and_monotone():
    assert default_rounds(1.0, 0.0, 100, 10) == 0
    assert default_rounds(1.0, 0.0, 30_000, 14) == 1
    assert default_rounds(4.0, 0.0, 30_000, 14) == 2
    assert default_rounds(1.0, 1e-5, 30_000, 14) == 2
    assert default_rounds(0.1, 0.0, 100, 10, regression=True) == 1
    ns = [10, 100, 1e3, 1e4, 1e5, 1e6]
    assert all(default_rounds(1, 0, a, 5) <= default_rounds(1, 0, b, 5) for a, b in zip(ns, ns[1:]))


def test_noisy_n_is_recorded_only_without_n_public():
    est, _, _ = _fit()
    assert any("training-set size" in r.what for r in est.privacy_ledger_.rows)
    est, _, _ = _fit(n_public=400)
    assert not any("training-set size" in r.what for r in est.privacy_ledger_.rows)
    assert est.n_estimate_ == 400


def test_zcdp_composition_is_one_row_with_its_parts():
    est, _, _ = _fit(delta=1e-6, max_rounds=3, n_public=400)
    rows = est.privacy_ledger_.rows
    assert len(rows) == 1 and rows[0].mechanism == "discrete Gaussian (zCDP)"
    assert rows[0].epsilon == pytest.approx(2.0) and rows[0].delta == pytest.approx(1e-6)
    assert "ρ=" in rows[0].note and "3×3 gradient releases" in rows[0].note
    assert zcdp_epsilon(est.budget_["rho"], 1e-6) <= 2.0 * (1 + 1e-6)


def test_quantile_bins_spend_their_share():
    est, _, _ = _fit(binning="quantile", n_public=400, max_rounds=1)
    q = [r for r in est.privacy_ledger_.rows if "quantiles" in r.what]
    assert len(q) == 2 and sum(r.epsilon for r in q) == pytest.approx(0.2)
    assert est.privacy_ledger_.epsilon_spent == pytest.approx(2.0)


@settings(max_examples=25, deadline=None)
@given(
    eps=st.floats(0.05, 20),
    rounds=st.integers(0, 4),
    share=st.floats(0.05, 0.95),
    delta=st.sampled_from([0.0, 1e-8, 1e-3]),
    K=st.sampled_from([2, 3]),
)
def test_ledger_never_exceeds_the_budget_and_predict_is_argmax(eps, rounds, share, delta, K):
    X, y = _data(n=120, seed=3)
    y = y if K == 2 else np.where(X["colour"] == "blue", 2, y)
    est = DPAdditiveClassifier(
        epsilon=eps,
        delta=delta,
        max_rounds=rounds,
        histogram_share=share,
        classes=list(range(K)),
        random_state=1,
        **DECL,
    ).fit(X, y)
    led = est.privacy_ledger_
    assert led.epsilon_spent <= eps * (1 + 1e-9) and led.delta_spent <= delta * (1 + 1e-9) + 1e-300
    assert led.is_private
    P = est.predict_proba(X)
    np.testing.assert_array_equal(est.predict(X), est.classes_[np.argmax(P, axis=1)])


# ---------------------------------------------------------------------------- zCDP and noise
@pytest.mark.parametrize("rho", [0.001, 0.03, 0.5, 2.0])
@pytest.mark.parametrize("eps", [0.1, 1.0, 3.0])
def test_zcdp_conversion_between_the_exact_gaussian_and_bun_steinke(rho, eps):
    d = zcdp_delta(rho, eps)
    exact = gaussian_delta(1 / math.sqrt(2 * rho), eps, 1.0)  # the Gaussian that is exactly ρ-zCDP
    bs = math.exp(-((eps - rho) ** 2) / (4 * rho)) if eps > rho else 1.0
    assert exact <= d + 1e-12 and d <= bs + 1e-12


def test_zcdp_rho_inverts_the_conversion():
    for eps, delta in [(0.5, 1e-5), (1.0, 1e-5), (4.0, 1e-8)]:
        rho = zcdp_rho(eps, delta)
        assert zcdp_delta(rho, eps) <= delta * (1 + 1e-6)
        assert zcdp_delta(rho * 1.01, eps) > delta
        # tighter than Bun & Steinke's ε = ρ + 2√(ρ ln 1/δ)
        assert rho + 2 * math.sqrt(rho * math.log(1 / delta)) > eps


def test_discrete_gaussian_moments():
    rng = np.random.default_rng(0)
    x = samplers.discrete_gaussian(4.0, 100_000, rng)
    assert x.dtype == np.int64 and abs(x.mean()) < 0.05 and abs(x.var() - 16.0) < 0.4
    assert samplers.discrete_gaussian(2.0, (3, 4), rng).shape == (3, 4)


# ---------------------------------------------------------------------------- printing and JSON
def test_print_shows_the_header_and_every_term():
    est, _, _ = _fit()
    text = str(est)
    assert text.splitlines()[0].startswith("DPAdditiveClassifier(")
    assert "privacy: ε=2" in text and "log-odds of 1" in text and "intercept:" in text
    for f in ("age", "income", "colour"):
        assert f"\n{f} (" in text
    assert "unknown" in text and "→" in text
    table = est.model_.shape_table()
    assert set(table["feature"]) == {"age", "income", "colour"}


def test_model_dict_round_trip_is_identical():
    est, X, _ = _fit(delta=1e-5, max_rounds=2)
    d = est.model_.to_dict()
    m2 = AdditiveModel.from_dict(d)
    np.testing.assert_array_equal(m2.predict_proba(X), est.predict_proba(X))
    assert m2.to_dict() == d


def test_save_load_identical_predictions(tmp_path):
    from dpmodels.io import load_model, save_model

    for est, X, _y in [_fit(max_rounds=1), _fit(classes=[0, 1, 2], max_rounds=1)]:
        p = save_model(est, tmp_path / "gam.json")
        loaded = load_model(p)
        np.testing.assert_array_equal(loaded.predict(X), est.predict(X))
        np.testing.assert_array_equal(loaded.predict_proba(X), est.predict_proba(X))
        assert loaded.privacy["is_private"] is False and loaded.privacy["noise_seeded"]  # seeded
        assert loaded.privacy_ledger_.is_private  # every release is proven DP
        assert "intercept:" in str(loaded)
    X, y = _data()
    yr = 0.5 * X["age"].to_numpy()
    reg = DPAdditiveRegressor(epsilon=2.0, label_bounds=(0, 50), random_state=0, **DECL).fit(X, yr)
    loaded = load_model(save_model(reg, tmp_path / "reg.json"))
    np.testing.assert_array_equal(loaded.predict(X), reg.predict(X))


def test_tampered_additive_files_raise_one_model_file_error(tmp_path, monkeypatch):
    import json

    import dpmodels.io.limits
    from dpmodels.io import ModelFileError, load_model, save_model

    monkeypatch.setattr(dpmodels.io.limits, "MAX_BINS", 200)  # the cap, small enough for a fast test

    est, X, _ = _fit(max_rounds=1)
    doc = json.loads(save_model(est, tmp_path / "m.json").read_text())

    def bad(mutate, match):
        d = json.loads(json.dumps(doc))
        mutate(d)
        p = tmp_path / "bad.json"
        p.write_text(json.dumps(d))
        with pytest.raises(ModelFileError, match=match) as e:
            load_model(p)
        assert "\n" not in str(e.value)

    bad(lambda d: d["model"]["terms"].pop(), "one term")
    bad(lambda d: d["model"]["cut_points"].update(age=list(range(300))), "bins")
    bad(lambda d: d["model"]["terms"][0].__setitem__(0, ["x"]), "numbers")
    bad(lambda d: d["model"]["cut_points"].update(age=[3, 2]), "increasing")
    bad(lambda d: d["estimator"].update({"class": "dpmodels.gam.estimator.Nope"}), "not one of")
    bad(lambda d: d.update(kind="tree"), "does not fit")


@settings(max_examples=200, deadline=None)
@given(
    K=st.integers(3, 7),
    clip=st.floats(0.05, 1.0),
    logits=st.lists(st.floats(-30, 30), min_size=7, max_size=7),
    y=st.integers(0, 6),
)
def test_gradient_sensitivity_bounds_every_rounded_record(K, clip, logits, y):
    """One record's rounded gradient vector (what it adds to its bin's sums) is within the L1 and
    L2 sensitivities the noise is calibrated to, for any model output p and label."""
    from dpmodels.gam.estimator import GRADIENT_GRID, gradient_sensitivity
    from dpmodels.gam.model import scores_to_proba

    p = scores_to_proba(np.array([logits[:K]]))[0]
    v = -p
    v[y % K] += 1.0
    g = np.rint(np.clip(v, -clip, clip) * (GRADIENT_GRID / clip))
    l1, l2 = gradient_sensitivity(K, clip)
    assert np.abs(g).sum() <= l1 and np.sqrt((g**2).sum()) <= l2 + 1e-9


def test_histogram_share_one_means_no_rounds_under_the_rule():
    est, _, _ = _fit(histogram_share=1.0, epsilon=50.0)  # the rule alone would boost here
    assert est.n_rounds_ == 0 and est.privacy_ledger_.epsilon_spent == pytest.approx(50.0)


# ---------------------------------------------------------------------------- out of core
@pytest.mark.parametrize("kind", ["classifier", "multiclass", "regressor"])
@pytest.mark.parametrize("delta", [0.0, 1e-6])
def test_partitioned_fit_is_the_in_memory_fit(kind, delta):
    """A source cut into uneven partitions gives the same model, ledger and budget as the frame in
    memory under the same seed: every pass sums exact integers."""
    from dpmodels.data.sources import InMemorySource

    X, y = _data(n=300, seed=5)
    if kind == "regressor":
        y = 0.5 * X["age"].to_numpy() + (X["colour"] == "red") * 5.0
        Est, extra = DPAdditiveRegressor, dict(label_bounds=(0, 60))
    else:
        if kind == "multiclass":
            y = np.where(X["colour"] == "blue", 2, y)
        Est, extra = DPAdditiveClassifier, dict(classes=[0, 1, 2] if kind == "multiclass" else [0, 1])
    params = dict(epsilon=3.0, delta=delta, random_state=7, max_rounds=2, **DECL, **extra)
    a = Est(**params).fit(X, y)
    b = Est(**params).fit(InMemorySource(X, y, cuts=(17, 150, 151)))
    for ta, tb in zip(a.model_.terms, b.model_.terms):
        np.testing.assert_array_equal(ta, tb)
    np.testing.assert_array_equal(a.model_.intercept, b.model_.intercept)
    assert a.privacy_ledger_.to_dict() == b.privacy_ledger_.to_dict() and a.budget_ == b.budget_


def test_partitioned_fit_needs_every_declaration_and_checks_before_release():
    from dpmodels.data.sources import InMemorySource

    X, y = _data(n=50)
    src = InMemorySource(X, y, cuts=(20,))
    with pytest.raises(ValueError, match="needs classes="):
        DPAdditiveClassifier(**DECL).fit(src)
    with pytest.raises(ValueError, match="needs bounds="):
        DPAdditiveClassifier(classes=[0, 1], categories=DECL["categories"]).fit(src)
    with pytest.raises(ValueError, match="quantile"):
        DPAdditiveClassifier(classes=[0, 1], binning="quantile", **DECL).fit(src)
    spent = []

    class Spy(DPAdditiveClassifier):
        def _release(self, *a, **k):
            spent.append(1)
            return super()._release(*a, **k)

    bad = InMemorySource(X, np.where(np.arange(50) == 40, 7, y), cuts=(20,))  # a label in the 2nd partition
    with pytest.raises(ValueError, match="outside the declared classes"):
        Spy(classes=[0, 1], n_public=50, **DECL).fit(bad)
    assert not spent


def test_parquet_source_gives_the_in_memory_model(tmp_path):
    need("pyarrow")
    from dpmodels.data import ParquetSource

    X, y = _data(n=300, seed=6)
    X.assign(y=y).to_parquet(tmp_path / "d.parquet", index=False)
    params = dict(epsilon=2.0, classes=[0, 1], random_state=3, max_rounds=1, **DECL)
    a = DPAdditiveClassifier(**params).fit(X, y)
    b = DPAdditiveClassifier(**params).fit(ParquetSource(tmp_path / "d.parquet", label="y", batch_rows=64))
    np.testing.assert_array_equal(a.predict_proba(X), b.predict_proba(X))
