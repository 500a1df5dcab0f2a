"""Rule-list fit time on binarized Adult (48,842 × 24), K = 5 (4 rules + default).

Run with ``make bench``. Compares GreedyRL and the default DP mechanism (all 1,152 conjunctions of
≤ 2 literals; width 3: every conjunction of ≤ 3 literals the feature groups keep) with imodels'
GreedyRuleListClassifier (depth-1 CART splits, i.e. single literals) on the same data, and our
learners restricted to single literals for a like-for-like row.
"""

import pytest

from dpmodels.data import load_dataset
from dpmodels.rulelist import DPRuleListClassifier, GreedyRuleListClassifier


@pytest.fixture(scope="module")
def adult():
    X, y = load_dataset("adult")
    return X, y


@pytest.mark.benchmark(group="rulelist-adult")
def test_greedy_width2(benchmark, adult):
    X, y = adult
    benchmark(lambda: GreedyRuleListClassifier(max_rules=5, max_width=2).fit(X, y))


@pytest.mark.benchmark(group="rulelist-adult")
def test_dp_permute_and_flip_width2(benchmark, adult):
    X, y = adult
    benchmark(lambda: DPRuleListClassifier(epsilon=1.0, max_rules=5, max_width=2).fit(X, y))


@pytest.mark.benchmark(group="rulelist-adult")
def test_greedy_width1(benchmark, adult):
    X, y = adult
    benchmark(lambda: GreedyRuleListClassifier(max_rules=5, max_width=1).fit(X, y))


@pytest.mark.benchmark(group="rulelist-adult")
def test_imodels_greedy(benchmark, adult):
    imodels = pytest.importorskip("imodels")
    X, y = adult
    Xv, yv = X.to_numpy(), y.to_numpy()
    benchmark(lambda: imodels.GreedyRuleListClassifier(max_depth=4).fit(Xv, yv))


@pytest.mark.benchmark(group="rulelist-adult")
def test_greedy_width3(benchmark, adult):
    X, y = adult
    benchmark(lambda: GreedyRuleListClassifier(max_rules=5, max_width=3).fit(X, y))


@pytest.mark.benchmark(group="rulelist-adult")
def test_dp_permute_and_flip_width3(benchmark, adult):
    X, y = adult
    benchmark(lambda: DPRuleListClassifier(epsilon=1.0, max_rules=5, max_width=3).fit(X, y))


# ------------------------------------------------------------ wide data: raw Adult through the Binarizer
@pytest.fixture(scope="module")
def adult_wide():
    import warnings

    from dpmodels.data import Binarizer, dataset_schema
    from dpmodels.privacy import PrivacyLeakWarning

    X, y = load_dataset("adult", binarized=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)  # the data's terciles: a baseline's input
        Xb = Binarizer(categories=dataset_schema("adult").categories).fit_transform(X)
    return Xb, y


@pytest.mark.benchmark(group="rulelist-adult-wide")
def test_wide_greedy_width2(benchmark, adult_wide):
    X, y = adult_wide
    benchmark(lambda: GreedyRuleListClassifier(max_rules=5, max_width=2).fit(X, y))


@pytest.mark.benchmark(group="rulelist-adult-wide")
def test_wide_dp_permute_and_flip_width2(benchmark, adult_wide):
    X, y = adult_wide
    benchmark(lambda: DPRuleListClassifier(epsilon=1.0, max_rules=5, max_width=2).fit(X, y))


@pytest.mark.benchmark(group="rulelist-adult-wide")
def test_wide_greedy_width1(benchmark, adult_wide):
    X, y = adult_wide
    benchmark(lambda: GreedyRuleListClassifier(max_rules=5, max_width=1).fit(X, y))


@pytest.mark.benchmark(group="rulelist-adult-wide")
def test_wide_imodels_greedy(benchmark, adult_wide):
    imodels = pytest.importorskip("imodels")
    X, y = adult_wide
    Xv, yv = X.to_numpy(), y.to_numpy()
    benchmark(lambda: imodels.GreedyRuleListClassifier(max_depth=4).fit(Xv, yv))
