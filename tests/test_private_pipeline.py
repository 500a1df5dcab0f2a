"""Private pipelines check every step before anything is spent; resampling, model selection and
the provenance of binarized frames are accounted honestly."""

import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.ensemble import BaggingClassifier
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import make_pipeline

from dpmodels.data import Binarizer
from dpmodels.guards import ResourceLimitError, limits
from dpmodels.pipeline import PrivatePipeline, make_private_pipeline, validate_before_spend
from dpmodels.privacy import BudgetAccountant, BudgetExceededError, PrivacyLeakWarning
from dpmodels.rulelist import DPRuleListClassifier, GreedyRuleListClassifier
from dpmodels.tree import PrivaTreeClassifier
from dpmodels.tree.baselines import BDPTClassifier, DPAClassifier, DPGDFClassifier

CATS = {"city": ["a", "b", "c"]}
BOUNDS = {"age": (18, 90)}


def data(n=300, seed=0):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(
        {"age": rng.integers(18, 90, n).astype(float), "city": rng.choice(["a", "b", "c"], n).astype(object)}
    )
    y = pd.Series(((X["age"] > 50) ^ (X["city"] == "a")).astype(int), name="y")
    return X, y


def private_pipe(acc, eq=0.2, el=0.8, bin_kw=(), **learner_kw):
    kw = dict(epsilon=eq, bounds=BOUNDS, categories=CATS, accountant=acc)
    kw.update(dict(bin_kw))
    lk = dict(epsilon=el, max_rules=3, classes=[0, 1], accountant=acc)
    lk.update(learner_kw)
    return make_private_pipeline(Binarizer(**kw), DPRuleListClassifier(**lk))


# ------------------------------------------------------------------ §4: two-phase fit
@pytest.mark.parametrize(
    "bad, match",
    [
        (dict(mechanism="permute-and-fip"), "'mechanism' parameter of DPRuleListClassifier"),
        (dict(max_rules=0), "max_rules"),
        (dict(classes=["no", "yes"]), "outside the declared classes"),
        (dict(max_width=3, _guard=True), "candidate"),
    ],
)
def test_a_learner_error_is_raised_before_the_binarizer_spends(bad, match):
    X, y = data()
    acc = BudgetAccountant(1.0)
    guard = bad.pop("_guard", False)
    pipe = private_pipe(acc, **bad)
    with limits(max_candidates=40 if guard else None), pytest.raises(ValueError, match=match):
        pipe.fit(X, y)
    assert acc.ledger.rows == [] and acc.epsilon_spent == 0.0
    # the plain sklearn Pipeline with the same steps spends the binarizer's share first
    plain = make_pipeline(*[s for _, s in pipe.steps])
    with limits(max_candidates=40 if guard else None), pytest.raises(ValueError, match=match):
        plain.fit(X, y)
    assert acc.epsilon_spent == pytest.approx(0.2)


def test_a_nan_label_is_refused_before_anything_is_spent():
    X, y = data()
    y = y.astype(float)
    y.iloc[7] = np.nan
    acc = BudgetAccountant(1.0)
    with pytest.raises(ValueError, match="outside the declared classes"):
        private_pipe(acc).fit(X, y)
    assert acc.ledger.rows == []


def test_the_guard_uses_the_most_columns_the_binarizer_can_produce():
    """The candidate count is a function of public inputs (n_bins, declared categories): the
    check refuses whatever the DP quantiles would release, before they are released."""
    X, y = data()
    acc = BudgetAccountant(1.0)
    pipe = private_pipe(acc, bin_kw=dict(n_bins=40), max_width=2)
    tpl = pipe[0]._validate_before_spend(X, y)
    assert tpl.shape == (0, 39 + 3)
    most = len(pipe[-1]._make_candidates(tpl, list(tpl.columns)))  # grouped: fewer than all pairs
    with limits(max_candidates=most - 1), pytest.raises(ResourceLimitError):
        pipe.fit(X, y)
    assert acc.ledger.rows == []
    with limits(max_candidates=most):
        pipe.fit(X, y)  # the largest possible candidate set fits
    assert acc.is_private and pipe[-1].n_candidates_ <= most


def test_the_steps_shares_must_fit_together_before_the_first_spends():
    X, y = data()
    acc = BudgetAccountant(1.0)
    with pytest.raises(BudgetExceededError, match="nothing was spent"):
        private_pipe(acc, eq=0.5, el=0.6).fit(X, y)
    assert acc.ledger.rows == []
    private_pipe(acc, eq=0.4, el=0.6).fit(X, y)
    assert acc.epsilon_spent == pytest.approx(1.0) and acc.is_private


def test_a_schema_error_of_the_binarizer_comes_before_anything_is_spent():
    X, y = data()
    X.loc[3, "age"] = np.nan
    acc = BudgetAccountant(1.0)
    with pytest.raises(ValueError):
        private_pipe(acc).fit(X, y)
    assert acc.ledger.rows == []


def test_a_valid_private_pipeline_fits_like_the_plain_one():
    X, y = data()
    acc = BudgetAccountant(1.0)
    pipe = private_pipe(acc)
    assert isinstance(pipe, PrivatePipeline)
    pipe.fit(X, y)
    assert pipe[-1].privacy_ledger_ is acc.ledger and acc.is_private
    assert acc.epsilon_spent == pytest.approx(1.0)
    assert pipe.predict(X).shape == (len(X),)


@pytest.mark.parametrize(
    "learner",
    [
        lambda acc: PrivaTreeClassifier(
            epsilon=0.8, max_depth=3, classes=[0, 1], n_public=300, bounds=(0, 1), accountant=acc
        ),
        lambda acc: BDPTClassifier(epsilon=0.8, max_depth=3, classes=[0, 1], bounds=(0, 1), accountant=acc),
    ],
)
def test_tree_learners_are_checked_too(learner):
    X, y = data()
    acc = BudgetAccountant(1.0)
    est = learner(acc).set_params(max_depth=0 if isinstance(learner(acc), BDPTClassifier) else 99)
    pipe = make_private_pipeline(Binarizer(epsilon=0.2, bounds=BOUNDS, categories=CATS, accountant=acc), est)
    with pytest.raises(ValueError, match="max_depth"):
        pipe.fit(X, y)
    assert acc.ledger.rows == []
    pipe = make_private_pipeline(Binarizer(epsilon=0.2, bounds=BOUNDS, categories=CATS, accountant=acc), learner(acc))
    with pytest.raises(ValueError, match="outside the declared classes"):
        pipe.fit(X, y.map({0: 0, 1: 2}))
    assert acc.ledger.rows == []
    pipe.fit(X, y)
    assert acc.epsilon_spent == pytest.approx(1.0)


def test_an_opaque_step_limits_the_checks_to_parameters_and_labels():
    from sklearn.preprocessing import FunctionTransformer

    X, y = data()
    acc = BudgetAccountant(1.0)
    pipe = make_private_pipeline(
        Binarizer(epsilon=0.2, bounds=BOUNDS, categories=CATS, accountant=acc),
        FunctionTransformer(),
        DPRuleListClassifier(epsilon=0.8, max_rules=0, accountant=acc),
    )
    with pytest.raises(ValueError, match="max_rules"):
        pipe.fit(X, y)
    assert acc.ledger.rows == []
    validate_before_spend(pipe.set_params(dprulelistclassifier__max_rules=3), X, y)


# ------------------------------------------------------------------ §5: resampling
def binary_data(n=200, seed=1):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 2, size=(n, 4))
    y = (X[:, 0] ^ (rng.random(n) < 0.1)).astype(int)
    return X, y


LEARNERS = [
    lambda: DPRuleListClassifier(epsilon=1.0, max_rules=3),
    lambda: GreedyRuleListClassifier(max_rules=3),
    lambda: PrivaTreeClassifier(epsilon=1.0, max_depth=2, bounds=(0, 1), classes=[0, 1], n_public=200),
    lambda: BDPTClassifier(epsilon=1.0, max_depth=2, bounds=(0, 1), classes=[0, 1]),
    lambda: DPAClassifier(n_estimators=5, classes=[0, 1]),
]


@pytest.mark.parametrize("make", LEARNERS)
def test_bootstrap_bagging_is_refused(make):
    X, y = binary_data()
    bag = BaggingClassifier(make(), n_estimators=3, bootstrap=True, random_state=0)
    with pytest.raises(ValueError, match="sample_weight other than all ones is refused"):
        bag.fit(X, y)


@pytest.mark.parametrize("make", LEARNERS)
def test_a_seeded_subsample_is_refused_and_unit_weights_change_nothing(make):
    """BaggingClassifier(max_samples<1) passes weights of 0 for the records left out, drawn by a
    seeded fixed-size sample of range(n): adding one record changes which others are drawn."""
    X, y = binary_data()
    with pytest.raises(ValueError, match="weight of zero"):
        BaggingClassifier(make(), n_estimators=2, bootstrap=False, max_samples=0.5, random_state=0).fit(X, y)
    seeded = {"random_state": 0} if "random_state" in make().get_params() else {}
    a = make().set_params(**seeded).fit(X, y, sample_weight=np.ones(len(y)))
    b = make().set_params(**seeded).fit(X, y)
    assert np.array_equal(a.predict(X), b.predict(X))


def test_dpgdf_and_binarizer_take_sample_weight():
    X, y = data()
    w = np.ones(len(y))
    w[0] = 2
    with pytest.raises(ValueError, match="group privacy"):
        DPGDFClassifier(epsilon=1.0, categories=CATS, classes=[0, 1]).fit(X, y, sample_weight=w)
    with pytest.raises(ValueError, match="group privacy"):
        Binarizer(epsilon=1.0, bounds=BOUNDS, categories=CATS).fit(X, y, sample_weight=w)
    acc = BudgetAccountant(1.0)
    with pytest.raises(ValueError, match="group privacy"):
        private_pipe(acc).fit(X, y, binarizer__sample_weight=w)
    assert acc.ledger.rows == []


def test_bagging_without_replacement_fits_and_is_charged_per_fit():
    X, y = binary_data()
    acc = BudgetAccountant(3.0)
    bag = BaggingClassifier(
        DPRuleListClassifier(epsilon=1.0, max_rules=3, accountant=acc), n_estimators=3, bootstrap=False, random_state=0
    )
    bag.fit(X, y)
    # every member fitted on every record once: three fits, three shares of the total
    assert acc.epsilon_spent == pytest.approx(3.0)
    assert acc.fits_granted == {"DPRuleListClassifier": 3}
    assert all(est.privacy_ledger_ is acc.ledger for est in bag.estimators_)
    assert [r.what for r in acc.ledger.leaks] == ["DPRuleListClassifier: 3 fits under this accountant"]
    with pytest.raises(BudgetExceededError):
        BaggingClassifier(DPRuleListClassifier(epsilon=1.0, accountant=acc), n_estimators=1, bootstrap=False).fit(X, y)


# ------------------------------------------------------------------ §5: model selection
def test_grid_search_under_one_accountant_is_not_private():
    X, y = binary_data()
    acc = BudgetAccountant(20.0)
    est = DPRuleListClassifier(epsilon=1.0, accountant=acc)
    gs = GridSearchCV(est, {"max_rules": [2, 3]}, cv=2).fit(X, y)
    # clone keeps the handle: every fit (2 candidates × 2 folds + the refit) spent from acc
    assert gs.best_estimator_.accountant is acc
    assert acc.fits_granted == {"DPRuleListClassifier": 5}
    assert acc.epsilon_spent == pytest.approx(5.0)
    led = gs.best_estimator_.privacy_ledger_
    assert led is acc.ledger and not led.is_private
    assert "DPRuleListClassifier: 5 fits under this accountant" in led.summary()
    assert "choosing among them is not a DP release" in led.summary()


def test_one_fit_under_an_accountant_stays_private():
    X, y = binary_data()
    acc = BudgetAccountant(1.0)
    est = DPRuleListClassifier(epsilon=1.0, accountant=acc).fit(X, y)
    assert est.privacy_ledger_.is_private and acc.fits_granted == {"DPRuleListClassifier": 1}


# ------------------------------------------------------------------ §6: provenance of binarized frames
def test_a_data_quantile_binarizer_makes_the_learner_not_private():
    X, y = data()
    with pytest.warns(PrivacyLeakWarning):
        Z = Binarizer(categories=CATS).fit_transform(X)  # the data's quantiles: a leak
    clf = DPRuleListClassifier(epsilon=1.0, max_rules=3).fit(Z, y)
    led = clf.privacy_ledger_
    assert not led.is_private
    assert "Binarizer: quantiles of feature 'age' (cut points)" in [r.what for r in led.leaks]
    # the same columns without the provenance (a numpy copy) carry nothing: documented
    bare = DPRuleListClassifier(epsilon=1.0, max_rules=3).fit(Z.to_numpy(), y)
    assert bare.privacy_ledger_.is_private


def test_a_dp_binarizer_without_accountant_counts_in_the_learner_total():
    X, y = data()
    Z = Binarizer(epsilon=0.3, bounds=BOUNDS, categories=CATS).fit_transform(X)
    for clf in (
        DPRuleListClassifier(epsilon=0.7, max_rules=3),
        PrivaTreeClassifier(epsilon=0.7, max_depth=2, classes=[0, 1], bounds=(0, 1), n_public=300),
    ):
        clf.fit(Z, y)
        led = clf.privacy_ledger_
        assert led.epsilon == pytest.approx(1.0) and led.epsilon_spent == pytest.approx(1.0)
        assert led.rows[0].what == "Binarizer: 2 quantiles of 'age'" and led.is_private


def test_provenance_is_charged_once_to_another_accountant():
    X, y = data()
    Z = Binarizer(epsilon=0.3, bounds=BOUNDS, categories=CATS).fit_transform(X)
    acc = BudgetAccountant(2.0)
    DPRuleListClassifier(epsilon=0.7, max_rules=3, accountant=acc).fit(Z, y)
    DPRuleListClassifier(epsilon=0.7, max_rules=3, accountant=acc).fit(Z, y)
    assert acc.epsilon_spent == pytest.approx(0.3 + 0.7 + 0.7)
    with pytest.raises(BudgetExceededError):  # a fresh accountant too small for both releases
        DPRuleListClassifier(epsilon=0.8, accountant=BudgetAccountant(1.0)).fit(Z, y)


def test_the_same_accountant_is_not_charged_twice():
    X, y = data()
    acc = BudgetAccountant(1.0)
    Z = Binarizer(epsilon=0.3, bounds=BOUNDS, categories=CATS, accountant=acc).fit_transform(X)
    DPRuleListClassifier(epsilon=0.7, max_rules=3, accountant=acc).fit(Z, y)
    assert acc.epsilon_spent == pytest.approx(1.0) and acc.is_private


def test_provenance_survives_the_row_slicing_of_cross_validation():
    X, y = data()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)
        Z = Binarizer(categories=CATS).fit_transform(X)
    gs = GridSearchCV(DPRuleListClassifier(epsilon=1.0), {"max_rules": [2, 3]}, cv=2).fit(Z, y)
    assert not gs.best_estimator_.privacy_ledger_.is_private


@pytest.mark.parametrize("kind", [list, pd.Series, np.asarray])
def test_unit_weights_of_any_array_type_are_accepted(kind):
    X, y = binary_data()
    w = kind([1] * len(y))
    for est in (
        DPRuleListClassifier(epsilon=1.0, classes=[0, 1]),
        PrivaTreeClassifier(epsilon=1.0, bounds=(0, 1), classes=[0, 1], n_public=200),
    ):
        est.fit(X, y, sample_weight=w)
    with pytest.raises(ValueError, match="one weight per row"):
        DPRuleListClassifier().fit(X, y, sample_weight=kind([1] * (len(y) - 1)))
    with pytest.raises(ValueError, match="weight of zero"):
        DPRuleListClassifier().fit(X, y, sample_weight=kind([0] * len(y)))


def test_a_loaded_binarizer_carries_its_releases():
    X, y = data()
    with pytest.warns(PrivacyLeakWarning):
        leaky = Binarizer(categories=CATS).fit(X)
    acc = BudgetAccountant(1.0)
    dp = Binarizer(epsilon=0.3, bounds=BOUNDS, categories=CATS, accountant=acc).fit(X)
    DPRuleListClassifier(epsilon=0.7, max_rules=3, accountant=acc).fit(dp.transform(X), y)
    for b, private, eps in ((leaky, False, 0.7), (dp, True, 1.0)):
        loaded = Binarizer.from_dict(b.to_dict())
        led = DPRuleListClassifier(epsilon=0.7, max_rules=3).fit(loaded.transform(X), y).privacy_ledger_
        assert led.is_private is private and led.epsilon_spent == pytest.approx(eps)
        # only the binarizer's row of the shared ledger is carried (ε 0.3), not the old learner's
        assert sum(r.what.startswith("Binarizer: ") for r in led.rows) == 1


def test_make_private_rule_list_is_one_estimator_with_one_budget(tmp_path):
    from dpmodels.io import load_model, save_model
    from dpmodels.pipeline import make_private_rule_list

    X, y = data()
    pipe = make_private_rule_list(
        epsilon=1.0, classes=[0, 1], bounds=BOUNDS, categories=CATS, binarizer_share=0.25, max_rules=3
    )
    acc = pipe[-1].accountant
    assert pipe[0].accountant is acc and acc.epsilon == 1.0
    pipe.fit(X, y)
    led = pipe[-1].privacy_ledger_
    assert led is acc.ledger and led.is_private and led.epsilon_spent == pytest.approx(1.0)
    assert led.rows[0].what == "Binarizer: 2 quantiles of 'age'" and led.rows[0].epsilon == pytest.approx(0.25)
    loaded = load_model(save_model(pipe, tmp_path / "m.json"))
    assert np.array_equal(loaded.predict(X), pipe.predict(X))
    with pytest.raises(ValueError, match="'mechanism' parameter of DPRuleListClassifier"):
        make_private_rule_list(epsilon=1.0, classes=[0, 1], mechanism="pf")
    bad = make_private_rule_list(epsilon=1.0, classes=[0, 1], bounds=BOUNDS, categories=CATS, max_width=3)
    with limits(max_candidates=40), pytest.raises(ResourceLimitError):
        bad.fit(X, y)
    assert bad[-1].accountant.ledger.rows == []


def test_dpgdf_in_a_private_pipeline_checks_its_features_first():
    X, y = data()
    acc = BudgetAccountant(1.0)
    pipe = make_private_pipeline(
        Binarizer(epsilon=0.2, bounds=BOUNDS, categories=CATS, accountant=acc),
        DPGDFClassifier(epsilon=0.8, classes=[0, 1], numerical="error", accountant=acc),
    )
    with pytest.raises(ValueError, match="categorical features only"):
        pipe.fit(X, y)  # the binarizer's 0/1 columns are numerical to DPGDF: refused, nothing spent
    assert acc.ledger.rows == []
    ok = make_private_pipeline(DPGDFClassifier(epsilon=1.0, categories=CATS, classes=[0, 1], accountant=acc))
    with pytest.warns(UserWarning, match="ignores the numerical features"):
        ok.fit(X, y)
    assert acc.epsilon_spent == pytest.approx(1.0)
