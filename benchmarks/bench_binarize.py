"""Binarizer on raw Adult (45,222 × 14: 6 numerical, 8 categorical with 99 documented categories).

Run with ``make bench``. Rows: our Binarizer with DP quantiles (JointExp, 6 releases) and with
the data's quantiles, against the usual scikit-learn peer — a ColumnTransformer of
KBinsDiscretizer(strategy="quantile", 3 bins, one-hot) and OneHotEncoder over the same declared
categories — and the whole private pipeline (Binarizer → default DP rule list, ε = 1).
"""

import warnings

import pytest
from sklearn.compose import ColumnTransformer
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import KBinsDiscretizer, OneHotEncoder

from dpmodels.data import Binarizer, dataset_schema, load_dataset
from dpmodels.privacy import BudgetAccountant, PrivacyLeakWarning
from dpmodels.rulelist import DPRuleListClassifier


@pytest.fixture(scope="module")
def adult():
    X, y = load_dataset("adult", binarized=False)
    return X, y, dataset_schema("adult")


@pytest.mark.benchmark(group="binarize-adult")
def test_binarizer_dp_quantiles(benchmark, adult):
    X, _, s = adult
    benchmark(lambda: Binarizer(epsilon=0.2, bounds=s.bounds, categories=s.categories).fit_transform(X))


@pytest.mark.benchmark(group="binarize-adult")
def test_binarizer_data_quantiles(benchmark, adult):
    X, _, s = adult

    def run():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", PrivacyLeakWarning)
            return Binarizer(categories=s.categories).fit_transform(X)

    benchmark(run)


@pytest.mark.benchmark(group="binarize-adult")
def test_sklearn_kbins_onehot(benchmark, adult):
    X, _, s = adult
    num = list(s.bounds)
    cat = list(s.categories)
    ct = ColumnTransformer(
        [
            (
                "num",
                KBinsDiscretizer(
                    n_bins=3, encode="onehot-dense", strategy="quantile", quantile_method="averaged_inverted_cdf"
                ),
                num,
            ),
            (
                "cat",
                OneHotEncoder(
                    categories=[list(s.categories[c]) for c in cat], handle_unknown="ignore", sparse_output=False
                ),
                cat,
            ),
        ]
    )
    benchmark(lambda: ct.fit_transform(X))


@pytest.mark.benchmark(group="binarize-adult")
def test_private_pipeline(benchmark, adult):
    X, y, s = adult

    def run():
        acc = BudgetAccountant(1.0)
        return make_pipeline(
            Binarizer(epsilon=0.2, bounds=s.bounds, categories=s.categories, accountant=acc),
            DPRuleListClassifier(epsilon=0.8, accountant=acc),
        ).fit(X, y)

    benchmark(run)
