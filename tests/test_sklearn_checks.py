"""scikit-learn's estimator checks on the rule-list classifiers, PrivaTree and BDPT.

PrivaTree and BDPT run the whole suite as is (their label set and bounds are read from the
check's data with a recorded leak, diffprivlib's convention, since the checks declare nothing).
DPGDF is left out: it takes categorical features only, and the checks feed numerical ones.

The checks feed continuous features, which a rule list over binary columns must reject; the test
subclasses threshold every feature at 0 (a fixed, data-independent binarization) so that every
other convention (fitted attributes, cloning, pickling, idempotence, input types, feature names,
sample-order invariance, ...) is exercised by scikit-learn's own suite.

Four checks fit labels such as {1, 2} or {"one", "two"} without declaring them. Rule lists never
infer the label set from the data (docs/privacy.md, principle 14): without ``classes=`` the schema is {0, 1}
and any other label is a schema error, so those checks are expected to fail, and
``test_declared_labels_cover_the_expected_failures`` runs what they exercise with the labels
declared.
"""

import warnings

import numpy as np
import pytest
from sklearn.utils.estimator_checks import parametrize_with_checks

from dpmodels.privacy import PrivacyLeakWarning
from dpmodels.rulelist import DPRuleListClassifier, GreedyRuleListClassifier
from dpmodels.rulelist._base import _binary_matrix
from dpmodels.tree import PrivaTreeClassifier
from dpmodels.tree.baselines import BDPTClassifier


def _threshold(X):
    return _binary_matrix(np.asarray(X, dtype=float) > 0)


class ThresholdedGreedy(GreedyRuleListClassifier):
    def _to_binary(self, X):
        return _threshold(X)


class ThresholdedDP(DPRuleListClassifier):
    def _to_binary(self, X):
        return _threshold(X)


_UNDECLARED = "fits labels other than 0/1 without classes=: the label set is public, never inferred"
_WEIGHTS = ("fits sample_weight above 1: a record entering a fit k times costs k·ε (group privacy), "
            "so DP learners refuse it (tests/test_private_pipeline.py covers unit weights)")
_ZERO_WEIGHTS = ("fits sample_weight with zeros (a subsample): refused, a seeded subsample is not "
                 "neighbour-preserving (tests/test_private_pipeline.py)")
WEIGHT_FAILURES = {
    "check_classifiers_one_label_sample_weights": _ZERO_WEIGHTS,
    "check_sample_weights_list": _WEIGHTS,
    "check_sample_weights_not_overwritten": _WEIGHTS,
    "check_sample_weight_equivalence_on_dense_data": _WEIGHTS,
}
EXPECTED_FAILURES = {
    "check_estimators_dtypes": _UNDECLARED,
    "check_classifier_data_not_an_array": _UNDECLARED,
    "check_classifiers_classes": _UNDECLARED,
    "check_fit2d_1feature": _UNDECLARED,
    "check_sample_weights_pandas_series": _UNDECLARED,
    "check_sample_weights_not_an_array": _UNDECLARED,
    "check_sample_weights_shape": _UNDECLARED,
    **WEIGHT_FAILURES,
}


@parametrize_with_checks(
    [ThresholdedGreedy(), ThresholdedDP(random_state=0, epsilon=50.0)],
    expected_failed_checks=lambda est: EXPECTED_FAILURES,
)
def test_sklearn_compatible(estimator, check):
    check(estimator)


@parametrize_with_checks([PrivaTreeClassifier(random_state=0), BDPTClassifier(random_state=0)],
                         expected_failed_checks=lambda est: WEIGHT_FAILURES)
def test_private_trees_sklearn_compatible(estimator, check):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)  # the checks declare no public input
        check(estimator)


@pytest.mark.parametrize("Est", [ThresholdedGreedy, ThresholdedDP])
@pytest.mark.parametrize(
    "labels", [np.array([1, 2]), np.array(["one", "two"]), np.array(["one", "two"], dtype=object),
               np.array([1.0, 2.0])],
)
def test_declared_labels_cover_the_expected_failures(Est, labels):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3))
    y = labels[(X[:, 0] > 0).astype(int)]
    for dtype in (np.float32, np.float64, np.int32, np.int64):
        est = Est(classes=list(labels)).fit(X.astype(dtype), y)
        assert list(est.classes_) == list(labels)
        pred = est.predict(X.astype(dtype))
        assert set(pred.tolist()) <= set(labels.tolist())
        assert est.predict_proba(X).shape == (60, 2)
    Est(classes=list(labels)).fit(X[:, :1], y)  # one feature
    Est(classes=list(labels)).fit(X.tolist(), list(y))  # not an array
    with pytest.raises(ValueError, match="declare yours with classes"):
        Est().fit(X, y)  # undeclared labels other than 0/1
