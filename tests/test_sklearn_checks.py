"""scikit-learn's estimator checks on the rule-list classifiers.

The checks feed continuous features, which a rule list over binary columns must reject; the test
subclasses threshold every feature at 0 (a fixed, data-independent binarization) so that every
other convention (fitted attributes, cloning, pickling, idempotence, input types, feature names,
sample-order invariance, ...) is exercised by scikit-learn's own suite.
"""

import numpy as np
from sklearn.utils.estimator_checks import parametrize_with_checks

from dpmodels.rulelist import DPRuleListClassifier, GreedyRuleListClassifier
from dpmodels.rulelist._base import _binary_matrix


def _threshold(X):
    return _binary_matrix(np.asarray(X, dtype=float) > 0)


class ThresholdedGreedy(GreedyRuleListClassifier):
    def _to_binary(self, X):
        return _threshold(X)


class ThresholdedDP(DPRuleListClassifier):
    def _to_binary(self, X):
        return _threshold(X)


@parametrize_with_checks(
    [ThresholdedGreedy(), ThresholdedDP(random_state=0, epsilon=50.0)]
)
def test_sklearn_compatible(estimator, check):
    check(estimator)
