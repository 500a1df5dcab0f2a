"""Every estimator declares its parameters in scikit-learn's ``_parameter_constraints``
(dpmodels._params) and refuses a bad value with one line before anything is read or spent.

scikit-learn's own ``check_param_validation`` feeds each parameter a value of a wrong type and
values outside its constraints and expects ``InvalidParameterError`` naming the parameter, from
``fit`` — the check its own estimators pass.
"""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.utils._param_validation import InvalidParameterError
from sklearn.utils.estimator_checks import check_param_validation

from dpmodels.data import Binarizer
from dpmodels.model_selection import PrivateSearch, ProxySearch
from dpmodels.privacy import BudgetAccountant
from dpmodels.rulelist import DPRuleListClassifier, GreedyRuleListClassifier, OptimalRuleListClassifier
from dpmodels.tree import PrivaTreeClassifier, PrivaTreeRegressor
from dpmodels.tree.baselines import BDPTClassifier, DPAClassifier, DPGDFClassifier
from dpmodels.tree.optimal import DL85Classifier

ESTIMATORS = [
    PrivaTreeClassifier(epsilon=1.0, bounds=(-5.0, 5.0), classes=[0, 1, 2], random_state=0),
    PrivaTreeRegressor(epsilon=1.0, bounds=(-5.0, 5.0), label_bounds=(-10.0, 10.0), random_state=0),
    BDPTClassifier(epsilon=1.0, bounds=(-5.0, 5.0), classes=[0, 1, 2], random_state=0),
    DPAClassifier(n_estimators=5),
    Binarizer(epsilon=1.0, bounds=(-5.0, 5.0), random_state=0),
    GreedyRuleListClassifier(classes=[0, 1, 2]),
    DPRuleListClassifier(classes=[0, 1, 2], random_state=0),
    OptimalRuleListClassifier(),
    PrivateSearch(
        PrivaTreeClassifier(bounds=(-5.0, 5.0), classes=[0, 1, 2]), [{"max_depth": 1}, {"max_depth": 2}], random_state=0
    ),
    ProxySearch(
        PrivaTreeClassifier(bounds=(-5.0, 5.0), classes=[0, 1, 2]),
        [{"max_depth": 1}, {"max_depth": 2}],
        [(np.random.default_rng(0).uniform(size=(30, 5)), np.arange(30) % 3)],
        n_public=20,
        random_state=0,
    ),
]


@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize("est", ESTIMATORS, ids=lambda e: type(e).__name__)
def test_sklearn_param_validation(est):
    check_param_validation(type(est).__name__, est)


@pytest.mark.parametrize(
    "est,param,bad",
    [
        (PrivaTreeClassifier(), "max_depth", True),  # a bool is not a depth (scikit-learn's Interval lets it through)
        (PrivaTreeClassifier(), "max_bins", 1),
        (PrivaTreeClassifier(), "leaf_error", 0.0),
        (PrivaTreeClassifier(), "one_vs_rest", 1),
        (PrivaTreeRegressor(), "split_selection", "histogram"),
        (BDPTClassifier(), "numeric_binning", "merge6"),
        (BDPTClassifier(), "max_depth", 0),
        (DPGDFClassifier(), "leaf_mechanism", "laplace"),
        (DPAClassifier(), "n_estimators", 0),
        (Binarizer(epsilon=1.0, bounds=(-5.0, 5.0)), "rounding", "sig"),
        (Binarizer(epsilon=1.0, bounds=(-5.0, 5.0)), "n_bins", True),
        (GreedyRuleListClassifier(), "criterion", "gini"),
        (DPRuleListClassifier(), "gamma", 1.0),
        (DPRuleListClassifier(), "max_width", 0),
        (OptimalRuleListClassifier(), "time_limit", float("inf")),
        (DL85Classifier(), "min_sup", 1.5),
        (DL85Classifier(), "fast_depth_two", 1),
        (ProxySearch(PrivaTreeClassifier(), [{"max_depth": 1}], [(np.zeros((4, 2)), [0, 1, 0, 1])]), "n_repeats", 0),
        (ProxySearch(PrivaTreeClassifier(), [{"max_depth": 1}], [(np.zeros((4, 2)), [0, 1, 0, 1])]), "proxies", "x"),
    ],
)
def test_bad_parameter_is_one_line_before_any_spending(est, param, bad):
    acc = BudgetAccountant(10.0)
    if "accountant" in est.get_params():
        est.set_params(accountant=acc)
    est.set_params(**{param: bad})
    X = np.zeros((4, 2))
    with pytest.raises(InvalidParameterError, match=f"'{param}' parameter of {type(est).__name__}") as e:
        est.fit(X, np.array([0, 1, 0, 1]))
    assert "\n" not in str(e.value)
    assert acc.epsilon_spent == 0.0 and acc.epsilon_reserved == 0.0


def test_remembered_passing_values_never_excuse_a_bad_one():
    """validate_params remembers plain values that passed (per class, by exact type): after a
    pass, set_params to a bad value, a bool for an int (True == 1) or 1.0 for 1 still raises."""
    X = np.random.default_rng(0).normal(size=(40, 2))
    y = (X[:, 0] > 0).astype(int)
    est = PrivaTreeClassifier(epsilon=1.0, max_depth=1, bounds=(-5.0, 5.0), classes=[0, 1], random_state=0)
    est.fit(X, y)
    est.fit(X, y)  # the remembered pass
    for bad in (True, 1.0, 30, -1):
        with pytest.raises(InvalidParameterError, match="'max_depth' parameter of PrivaTreeClassifier"):
            est.set_params(max_depth=bad).fit(X, y)
    est.set_params(max_depth=1).fit(X, y)
