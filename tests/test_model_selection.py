"""Private hyper-parameter selection (dpmodels.model_selection): one proven (ε, δ) for the search."""

import math

import numpy as np
import pytest

from dpmodels.data import dataset_schema, load_dataset
from dpmodels.model_selection import PrivateSearch, accuracy_vs_epsilon
from dpmodels.privacy import PrivacyLedger
from dpmodels.privacy.private_selection import random_stopping_selection, runs_cap, truncation_delta
from dpmodels.rulelist import DPRuleListClassifier
from dpmodels.tree import PrivaTreeClassifier


@pytest.fixture(scope="module")
def compas():
    X, y = load_dataset("compas", binarized=False)
    return X.iloc[:1500], y.iloc[:1500], dataset_schema("compas")


def test_runs_cap_is_the_smallest_cap_within_delta():
    for eps_t in (0.01, 0.3, 1.0, 3.0):
        for gamma in (0.05, 0.2, 0.5, 0.99):
            for delta in (1e-9, 1e-6, 1e-3):
                t = runs_cap(eps_t, gamma, delta)
                assert truncation_delta(eps_t, gamma, t) <= delta * (1 + 1e-12)
                if t > 1:
                    assert truncation_delta(eps_t, gamma, t - 1) > delta
    assert runs_cap(1.0, 0.5, 0.0) is None and truncation_delta(1.0, 0.5, None) == 0.0
    assert truncation_delta(1.0, 0.5, 3) == pytest.approx((1 + math.e**3) * 0.125)


def test_random_stopping_returns_the_best_and_charges_three_trial_epsilons():
    rng = np.random.default_rng(0)
    led = PrivacyLedger(3.0, 1e-6)
    seen = []

    def trial(i):
        s = float(rng.random())
        seen.append(s)
        return s, i

    best, cand, runs = random_stopping_selection(trial, 1.0, 0.2, rng, max_runs=runs_cap(1.0, 0.2, 1e-6), ledger=led)
    assert best == max(seen) and seen[cand] == best and runs == len(seen)
    assert len(led.rows) == 1 and led.rows[0].epsilon == pytest.approx(3.0) and led.is_private
    # the number of runs is geometric(γ) capped at T: its mean over many searches is about 1/γ
    counts = [random_stopping_selection(lambda i: (0.0, i), 1.0, 0.25, rng)[2] for _ in range(4000)]
    assert abs(np.mean(counts) - 4.0) < 0.2


def test_search_ledger_is_one_proven_budget(compas):
    X, y, s = compas
    ps = PrivateSearch(
        PrivaTreeClassifier(**s.fit_params()), [{"max_depth": d} for d in (1, 2, 3)], epsilon=1.0, delta=1e-6
    ).fit(X, y)
    led = ps.privacy_ledger_
    assert led.is_private and led.epsilon_spent == pytest.approx(1.0) and led.delta_spent <= 1e-6
    assert led.rows[0].mechanism.startswith("random stopping") and led.rows[0].epsilon == pytest.approx(0.2)
    assert ps.best_params_["max_depth"] in (1, 2, 3) and 0.0 <= ps.best_score_ <= 1.0
    assert ps.best_estimator_.privacy_ledger_ is led and ps.best_estimator_.max_depth == ps.best_params_["max_depth"]
    assert not hasattr(ps, "trials_") and not hasattr(ps, "n_trials_")  # not covered by the theorem
    assert ps.score(X, y) > 0.5 and ps.predict_proba(X).shape == (len(X), 2)
    # no refit: the best trial's model, all of ε on the selection
    ps0 = PrivateSearch(
        PrivaTreeClassifier(**s.fit_params()), [{"max_depth": 2}], epsilon=0.9, refit_share=0, delta=0
    ).fit(X, y)
    assert len(ps0.privacy_ledger_.rows) == 1 and ps0.privacy_ledger_.rows[0].epsilon == pytest.approx(0.9)
    assert ps0.max_trials_ is None and ps0.trial_epsilon_ == pytest.approx(0.3)


def test_saved_model_states_the_search_total(compas, tmp_path):
    from dpmodels.io import load_model, save_model

    X, y, s = compas
    ps = PrivateSearch(DPRuleListClassifier(), [{"max_rules": k} for k in (2, 4)], epsilon=2.0)
    Xb, yb = load_dataset("compas", binarized=True)
    ps.fit(Xb.iloc[:1500], yb.iloc[:1500])
    doc = load_model(save_model(ps.best_estimator_, tmp_path / "m.json"))
    assert doc.privacy["is_private"] is True and doc.privacy["epsilon_spent"] == pytest.approx(2.0)


@pytest.mark.parametrize(
    "kw, msg",
    [
        (dict(candidates=[]), "non-empty list"),
        (dict(candidates=[{"depth": 2}]), "'depth' is not a parameter"),
        (dict(candidates=[{"epsilon": 2}]), "may not set epsilon"),
        (dict(candidates=[{"max_depth": 2}], gamma=0), "'gamma' parameter of PrivateSearch must be None or a float in"),
        (dict(candidates=[{"max_depth": 2}], holdout=1.0), "'holdout' parameter of PrivateSearch must be a float"),
        (dict(candidates=[{"max_depth": 2}], refit_share=1.0), "'refit_share' parameter of PrivateSearch must be"),
        (dict(candidates=[{"max_depth": 2}], tuner="rdp", gamma=1.0), "gamma must be in (0, 1) for tuner='rdp'"),
        (dict(candidates=[{"max_depth": 2}], epsilon=0), "epsilon"),
        (dict(candidates=[{"max_depth": -3}]), "max_depth"),
    ],
)
def test_bad_parameters_are_refused_before_anything_is_spent(compas, kw, msg):
    X, y, s = compas
    kw = {"epsilon": 1.0, **kw}
    with pytest.raises(ValueError, match=msg.replace("(", r"\(").replace(")", r"\)").replace("[", r"\[")):
        PrivateSearch(PrivaTreeClassifier(**s.fit_params()), **kw).fit(X, y)


def test_accuracy_vs_epsilon_on_a_public_proxy(compas):
    X, y, s = compas
    df = accuracy_vs_epsilon(PrivaTreeClassifier(max_depth=2, **s.fit_params()), X, y, [0.1, 1.0], runs=2)
    assert list(df.columns) == ["epsilon", "run", "accuracy"] and len(df) == 4


def test_rdp_tuner_ledger_is_one_proven_row_and_gives_each_trial_more(compas):
    X, y, s = compas
    cands = [{"max_depth": d} for d in (1, 2, 3)]
    ps = PrivateSearch(PrivaTreeClassifier(**s.fit_params()), cands, epsilon=1.0, delta=1e-6, tuner="rdp").fit(X, y)
    lt = PrivateSearch(PrivaTreeClassifier(**s.fit_params()), cands, epsilon=1.0, delta=1e-6).fit(X, y)
    led = ps.privacy_ledger_
    sel = led.rows[0]
    assert led.is_private and led.epsilon_spent <= 1.0 + 1e-12 and led.delta_spent <= 1e-6
    assert sel.mechanism.startswith("truncated negative binomial") and sel.epsilon == pytest.approx(0.2, rel=1e-5)
    assert [r.what.startswith("refit: ") for r in led.rows[1:]] == [True] * (len(led.rows) - 1)
    # pure ε_t-DP trials: (2 + η)·ε_t with η = 0 instead of Liu & Talwar's 3·ε_t
    assert ps.trial_epsilon_ == pytest.approx(0.1, rel=1e-5) and lt.trial_epsilon_ == pytest.approx(0.2 / 3)
    assert ps.max_trials_ >= 3 and ps.best_params_ in cands and 0.0 <= ps.best_score_ <= 1.0
    assert not hasattr(ps, "n_trials_")
    # η = 1 is the geometric law: the same charge as Liu & Talwar
    geo = PrivateSearch(PrivaTreeClassifier(**s.fit_params()), cands, epsilon=1.0, tuner="rdp", shape=1.0).fit(X, y)
    assert geo.trial_epsilon_ == pytest.approx(0.2 / 3, rel=1e-5)
    # δ = 0: no cap, the pure bound
    pure = PrivateSearch(PrivaTreeClassifier(**s.fit_params()), cands, epsilon=0.5, delta=0, tuner="rdp").fit(X, y)
    assert pure.max_trials_ is None and pure.privacy_ledger_.delta_spent == 0.0 and pure.privacy_ledger_.is_private


def test_rdp_tuner_is_an_sklearn_estimator(compas):
    from sklearn.base import clone

    X, y, s = compas
    ps = PrivateSearch(PrivaTreeClassifier(**s.fit_params()), [{"max_depth": 2}], tuner="rdp", shape=0.5)
    c = clone(ps)
    assert c.get_params()["tuner"] == "rdp" and c.get_params()["shape"] == 0.5
    c.set_params(shape=-0.5, random_state=3).fit(X, y)
    assert c.predict(X).shape == (len(X),) and set(c.classes_) == set(s.fit_params()["classes"])


@pytest.mark.parametrize(
    "kw, msg",
    [
        (dict(tuner="renyi"), "'tuner' parameter of PrivateSearch must be"),
        (dict(tuner="rdp", shape=-1.0), "'shape' parameter of PrivateSearch must be"),
        (dict(tuner="rdp", shape=float("inf")), "'shape' parameter of PrivateSearch must be"),
        (dict(tuner="rdp", gamma=1.0), "gamma must be in (0, 1)"),
        (dict(tuner="rdp", gamma=0.0), "'gamma' parameter of PrivateSearch must be"),
        (dict(tuner="rdp", shape="0"), "'shape' parameter of PrivateSearch must be"),
    ],
)
def test_rdp_tuner_refuses_bad_parameters_before_any_fit(compas, monkeypatch, kw, msg):
    X, y, s = compas

    def no_fit(*a, **k):
        raise AssertionError("a trial ran before the parameters were checked")

    monkeypatch.setattr(PrivaTreeClassifier, "fit", no_fit)
    with pytest.raises(ValueError, match=msg.replace("(", r"\(").replace(")", r"\)")):
        PrivateSearch(PrivaTreeClassifier(**s.fit_params()), [{"max_depth": 2}, {"max_depth": 3}], **kw).fit(X, y)


def test_lib_search_study_cell_and_table():
    import pandas as pd

    from dpmodels.experiments.library.private_search import markdown_table, study_cell

    rows = study_cell("compas", 1.0, splits=2)
    assert len(rows) == 2 * 3 * 2 and {r["learner"] for r in rows} == {"fixed", "search-lt", "search-rdp"}
    depths = [r["value"] for r in rows if r["metric"] == "depth"]
    assert set(depths) <= {2, 3, 4, 5, 6} and all(r["delta"] <= 1e-6 for r in rows)
    table = markdown_table(pd.DataFrame(rows))
    assert table.count("| compas | 1 |") == 3 and "± " in table
