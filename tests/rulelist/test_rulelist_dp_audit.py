"""Empirical DP audit of the default rule-list mechanism (docs/privacy.md, principle 12).

Neighbours: D has two binary features f0, f1 that both separate the labels perfectly; D' adds one
positive record with f0 = 1, f1 = 0, which makes the split on f0 impure (its count-scaled Gini
moves by 2·20/21 ≈ 1.9, close to the sensitivity bound) while the split on f1 stays pure. The
output event is the first rule's antecedent. A correct learner must pass; a planted leak — the
same learner with permute-and-flip noise 10× too small — must be flagged.
"""

import pandas as pd
import pytest

from dpmodels.audit import audit_estimator
from dpmodels.privacy import selection as selection_module
from dpmodels.rulelist import DPRuleListClassifier


def neighbours():
    rows = [(1, 1, 0)] * 20 + [(0, 0, 1)] * 20
    X = pd.DataFrame([r[:2] for r in rows], columns=["f0", "f1"])
    y = pd.Series([r[2] for r in rows], name="y")
    x_new = pd.DataFrame([[1, 0]], columns=["f0", "f1"])
    return X, y, x_new, pd.Series([1], name="y")


def first_rule(model):
    rules = model.rule_list_.rules
    return rules[0].antecedent if rules else "stop"


def run_audit(n_runs, seed):
    X, y, x_new, y_new = neighbours()
    Xp, yp = pd.concat([X, x_new], ignore_index=True), pd.concat([y, y_new], ignore_index=True)
    return audit_estimator(
        lambda s: DPRuleListClassifier(epsilon=1.0, max_rules=2, min_support=0.0, random_state=s),
        X,
        y,
        Xp,
        yp,
        first_rule,
        n_runs=n_runs,
        epsilon=1.0,
        random_state=seed,
    )


@pytest.fixture
def leaky_selection(monkeypatch):
    real = selection_module.permute_and_flip

    def leaky(u, epsilon, sensitivity, rng, **kw):
        return real(u, epsilon, sensitivity / 10.0, rng, **kw)  # noise 10× too small

    monkeypatch.setattr(selection_module, "permute_and_flip", leaky)


def test_default_mechanism_passes_audit():
    res = run_audit(800, seed=11)
    print(res)
    assert res.passed, str(res)


def test_planted_leak_is_flagged(leaky_selection):
    res = run_audit(800, seed=12)
    print(res)
    assert not res.passed, str(res)
    assert res.epsilon_lb > 1.0


@pytest.mark.slow
def test_default_mechanism_passes_thorough_audit():
    res = run_audit(20_000, seed=13)
    assert res.passed, str(res)
