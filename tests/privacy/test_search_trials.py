"""Issue 23, finding 1: a private search runs only trials that are proven pure ε_t-DP with every input
declared, decided from the parameters before any trial runs; the trials' ledgers reach the search's.

Neighbouring pairs are deterministic: D (200 rows labelled {0, 1}) and D′ = D + one record with a
new label. A refused search is refused identically on both, with nothing fitted on either."""

import numpy as np
import pandas as pd
import pytest
from sklearn.base import BaseEstimator, ClassifierMixin

from dpmodels.model_selection import PrivateSearch, ProxySearch
from dpmodels.privacy import PrivacyLeakWarning, PrivacyLedger
from dpmodels.privacy.verdict import PROBE_EPSILON, check_private_trials, is_private, verdict
from dpmodels.rulelist import DPRuleListClassifier
from dpmodels.tree import PrivaTreeClassifier

CATS = {"a": [0, 1], "b": [0, 1]}
DEPTHS = [{"max_depth": 1}, {"max_depth": 2}]


def pair():
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"a": rng.integers(0, 2, 200), "b": rng.integers(0, 2, 200)})
    y = pd.Series((X["a"] ^ (rng.random(200) < 0.1)).astype(int))
    X2 = pd.concat([X, pd.DataFrame({"a": [1], "b": [1]})], ignore_index=True)
    y2 = pd.concat([y, pd.Series([2])], ignore_index=True)
    return (X, y), (X2, y2)


@pytest.fixture
def fits(monkeypatch):
    """The sizes of every fit of the rule list / PrivaTree classes (the probe has 32 rows)."""
    sizes = []
    for cls in (PrivaTreeClassifier, DPRuleListClassifier):
        orig = cls.fit

        def spy(self, X, y=None, *a, _orig=orig, **k):
            sizes.append(len(X))
            return _orig(self, X, y, *a, **k)

        monkeypatch.setattr(cls, "fit", spy)
    return sizes


LEAKING = [
    # the pair: no classes, so every trial reads its label set from the data
    pytest.param(PrivaTreeClassifier(categories=CATS, n_public=200), DEPTHS, "label set", id="undeclared-classes"),
    # one declared candidate beside a leaking one: at refit_share 0.8 the declared one used to win
    # and the search said PRIVATE although the leaking trials ran
    pytest.param(
        PrivaTreeClassifier(categories=CATS, n_public=200),
        [{"max_depth": 1, "classes": [0, 1, 2]}, {"max_depth": 2}],
        "label set",
        id="one-leaking-candidate",
    ),
    # a data-sourced bound: no categories or bounds for the numerical features
    pytest.param(PrivaTreeClassifier(classes=[0, 1, 2], n_public=200), DEPTHS, "bounds", id="undeclared-bounds"),
    # a claimed mechanism (and a δ): smooth-sensitivity selection
    pytest.param(
        DPRuleListClassifier(n_public=200, delta=1e-5),  # the binary schema {0, 1}
        [{"mechanism": "sm-laplace"}],
        "only claimed",
        id="claimed-mechanism",
    ),
    # δ where the tuners need pure trials
    pytest.param(
        DPRuleListClassifier(classes=[0, 1, 2]),
        [{"mechanism": "gl-gaussian", "delta": 1e-3}],
        "spends δ",
        id="approximate-dp-trial",
    ),
]


@pytest.mark.parametrize("refit_share", [0.0, 0.8])
@pytest.mark.parametrize("estimator, candidates, why", LEAKING)
def test_a_leaking_trial_is_refused_identically_on_neighbours_before_any_fit(
    fits, estimator, candidates, why, refit_share
):
    messages = []
    for X, y in pair():
        search = PrivateSearch(estimator, candidates, epsilon=1.0, refit_share=refit_share)
        with pytest.raises(ValueError, match=why) as err:
            search.fit(X, y)
        messages.append(str(err.value))
        assert not hasattr(search, "privacy_ledger_") and not hasattr(search, "best_estimator_")
    assert messages[0] == messages[1] and "Nothing was fitted on the data and nothing spent" in messages[0]
    assert all(n == 32 for n in fits), "a fit on the private data ran before the refusal"


def test_a_declared_search_runs_and_its_ledger_states_the_trials_and_appends_the_refit():
    (X, y), (X2, y2) = pair()
    est = PrivaTreeClassifier(categories=CATS, classes=[0, 1, 2], n_public=200)
    for data in ((X, y), (X2, y2)):
        s = PrivateSearch(est, DEPTHS, epsilon=1.0, refit_share=0.5).fit(*data)
        rows = s.privacy_ledger_.rows
        assert rows[0].guarantee == "proven" and "every trial's own ledger: proven, δ = 0" in rows[0].note
        assert len(rows) > 1 and all(r.what.startswith("refit: ") for r in rows[1:])
        assert list(s.classes_) == [0, 1, 2]  # the declared label set on both sides
        v = verdict(s)
        assert v.is_private and is_private(s.best_estimator_) and v.reasons[0].startswith("PRIVATE")
    seeded = PrivateSearch(est, DEPTHS, epsilon=1.0, random_state=0).fit(X, y)
    assert seeded.privacy_ledger_.is_private and not is_private(seeded)  # whoever knows the seed


class _LeaksOnBigData(ClassifierMixin, BaseEstimator):
    """A DP-looking estimator whose fit records a leak only on more rows than the probe has: the
    search must still carry its trials' ledgers (defence in depth behind the parameter check)."""

    def __init__(self, epsilon=1.0, random_state=None, depth=1):
        self.epsilon, self.random_state, self.depth = epsilon, random_state, depth

    def fit(self, X, y):
        self.classes_ = np.array([0, 1, 2])
        self.privacy_ledger_ = PrivacyLedger(self.epsilon)
        self.privacy_ledger_.spend("majority", "permute-and-flip", self.epsilon, sensitivity=1.0)
        if len(X) > 32:
            self.privacy_ledger_.record_leak("label set (classes)", warn=False)
        return self

    def predict(self, X):
        return np.zeros(len(X), dtype=int)


def test_the_trials_ledgers_reach_the_selection_row():
    (X, y), _ = pair()
    s = PrivateSearch(_LeaksOnBigData(), [{"depth": 1}, {"depth": 2}], epsilon=1.0, refit_share=0.0).fit(X, y)
    sel = s.privacy_ledger_.rows[0]
    assert sel.guarantee == "none" and "label set" in sel.note
    assert not s.privacy_ledger_.is_private and not is_private(s)
    assert any("NOT PRIVATE" in r for r in verdict(s).reasons)


def test_check_private_trials_reads_no_record():
    """The probe is built from the declarations and the column names: two frames with the same
    columns and different contents give the same decision (here: the same refusal text)."""
    (X, _), _ = pair()
    other = X.assign(a=1 - X["a"]).iloc[:5]
    est = PrivaTreeClassifier(categories=CATS, n_public=200)
    msgs = []
    for frame in (X, other):
        with pytest.raises(ValueError) as e:
            check_private_trials(est, DEPTHS, frame, epsilon=0.1)
        msgs.append(str(e.value))
    assert msgs[0] == msgs[1] and PROBE_EPSILON >= 100
    check_private_trials(est.set_params(classes=[0, 1, 2]), DEPTHS, other, epsilon=0.1)


def test_proxy_search_carries_its_fit_and_leaks():
    (X, y), _ = pair()
    rng = np.random.default_rng(1)
    Xp = pd.DataFrame({"a": rng.integers(0, 2, 60), "b": rng.integers(0, 2, 60)})
    yp = np.arange(60) % 3
    clean = PrivaTreeClassifier(categories=CATS, classes=[0, 1, 2], n_public=200)
    ok = ProxySearch(clean, DEPTHS, [(Xp, yp)], epsilon=1.0, n_public=200, cv=2).fit(X, y)
    assert is_private(ok) and ok.privacy_ledger_ is ok.best_estimator_.privacy_ledger_
    no_n = clean.set_params(n_public=None)
    leaky = ProxySearch(no_n, DEPTHS, [(Xp, yp)], epsilon=1.0, cv=2)  # n read from the data
    with pytest.warns(PrivacyLeakWarning):
        leaky.fit(X, y)
    assert not is_private(leaky) and any("training-set size" in r for r in verdict(leaky).reasons)


# ------------------------------------------------------------------------------ end-to-end audit
def _search_audit(estimator, n_runs, seed):
    from dpmodels.audit import audit_estimator

    (X, y), (X2, y2) = pair()

    def make(s):
        return PrivateSearch(estimator, DEPTHS, epsilon=1.0, refit_share=0.0, random_state=s % 2**32)

    def key(m):  # the released label set and the chosen configuration
        return (len(m.classes_), m.best_params_["max_depth"])

    return audit_estimator(make, X, y, X2, y2, key, n_runs, 1.0, 0.0, random_state=seed, fit_errors="outcome")


@pytest.mark.slow
def test_private_search_audit_refuses_the_leaking_trial_and_passes_the_clean_one(monkeypatch):
    """The issue's pair at ε = 1: the leaking search (no classes) is refused on both sides (ε_lb 0);
    the declared one passes; the control — the same leaking search with the trial check switched
    off, i.e. today's main — is flagged (the label set of D′ appears in most fits)."""
    leaking = PrivaTreeClassifier(categories=CATS, n_public=200)
    refused = _search_audit(leaking, 200, 1)
    assert refused.passed and refused.epsilon_lb == 0.0, str(refused)
    clean = _search_audit(PrivaTreeClassifier(categories=CATS, classes=[0, 1, 2], n_public=200), 200, 2)
    assert clean.passed, str(clean)
    import dpmodels.model_selection as ms

    monkeypatch.setattr(ms, "check_private_trials", lambda *a, **k: None)
    control = _search_audit(leaking, 200, 3)
    assert not control.passed and control.epsilon_lb > 2.0, str(control)
