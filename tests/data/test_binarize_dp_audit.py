"""Empirical DP audit of the private pipeline Binarizer (DP quantiles) → DPRuleListClassifier under
one accountant (docs/privacy.md, principle 12), with a planted-leak control: the same pipeline cutting at the
data's median.

Neighbours: D holds 20 records (x = 0, y = 0) and 20 records (x = 10, y = 1); D' adds one record
(x = 0, y = 0). The data's median moves from 5 to 0, so the leaky binarizer's column changes from
``x<=5`` to ``x<=0`` with certainty; the private pipeline's output (its columns and its first
rule) must stay within the total ε = 0.5 (quantiles) + 0.5 (rule list).
"""

import numpy as np
import pandas as pd
import pytest
from sklearn.pipeline import make_pipeline

from dpmodels.audit import audit_estimator
from dpmodels.data import Binarizer
from dpmodels.privacy import BudgetAccountant
from dpmodels.rulelist import DPRuleListClassifier


def neighbours():
    X = pd.DataFrame({"x": [0.0] * 20 + [10.0] * 20})
    y = pd.Series([0] * 20 + [1] * 20, name="y")
    Xp = pd.concat([X, pd.DataFrame({"x": [0.0]})], ignore_index=True)
    yp = pd.concat([y, pd.Series([0], name="y")], ignore_index=True)
    return X, y, Xp, yp


def make(private):
    def build(seed):
        acc = BudgetAccountant(1.0)
        rng = np.random.default_rng(seed)
        kw = dict(epsilon=0.5, bounds={"x": (0, 10)}) if private else {}
        return make_pipeline(
            Binarizer(n_bins=2, accountant=acc, random_state=rng, **kw),
            DPRuleListClassifier(epsilon=0.5, max_rules=2, min_support=0.0, accountant=acc, random_state=rng),
        )

    return build


def output(pipe):
    rules = pipe[-1].rule_list_.rules
    return (tuple(pipe[0].get_feature_names_out()), rules[0].antecedent if rules else "stop")


def run(private, n_runs, seed):
    import warnings

    from dpmodels.privacy import PrivacyLeakWarning

    X, y, Xp, yp = neighbours()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)
        return audit_estimator(make(private), X, y, Xp, yp, output, n_runs=n_runs, epsilon=1.0, random_state=seed)


@pytest.mark.slow
def test_private_pipeline_passes_the_audit():
    res = run(True, 1500, seed=5)
    print(res)
    assert res.passed, str(res)


@pytest.mark.slow
def test_data_quantiles_are_flagged():
    res = run(False, 300, seed=6)
    print(res)
    assert not res.passed, str(res)
