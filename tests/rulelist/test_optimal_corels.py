"""Cross-check against the real CORELS (PyPI ``corels`` 1.1.29, built by ``make corels``).

PyPI's pycorels has no length limit and no per-position support: its ``min_support`` only mines
literals whose whole-data support lies in [s, 1 − s], and its objective is the regularised
training error R = errors/n + c·L. The same problem here is ``min_support=0,
min_literal_support=s, regularization=c`` with a length budget that cannot bind
(c·L ≤ R(empty list) ≤ 1/2 ⇒ L ≤ 1/(2c)). Both searches certify optimality, so the objectives
must be equal (the lists may differ when several are optimal).
"""

import math

import numpy as np
import pytest

from _extras import need

corels = need("corels")

from dpmodels.data import load_dataset  # noqa: E402
from dpmodels.rulelist import OptimalRuleListClassifier  # noqa: E402


def corels_objective(X, y, c, s):
    """CORELS's objective for the antecedents it returns, with majority consequents.

    Scored from the antecedents rather than from ``predict``: when the optimal list is empty,
    pycorels 1.1.29 can print (and predict) the minority class as the default.
    """
    clf = corels.CorelsClassifier(c=c, n_iter=10**7, max_card=1, min_support=s, verbosity=[])
    clf.fit(X.astype(np.uint8), y.astype(int))
    rem = np.ones(len(y), dtype=bool)
    errors = 0
    rules = clf.rl_.rules[:-1]  # the last entry is the default rule
    for rule in rules:
        (code,) = rule["antecedents"]  # +j: feature j − 1 is 1; −j: feature j − 1 is 0
        cap = rem & (X[:, abs(code) - 1] == (1 if code > 0 else 0))
        pos = int(y[cap].sum())
        errors += min(pos, int(cap.sum()) - pos)
        rem &= ~cap
    pos = int(y[rem].sum())
    errors += min(pos, int(rem.sum()) - pos)
    return errors / len(y) + c * len(rules), len(rules)


def ours(X, y, c, s):
    m = OptimalRuleListClassifier(
        max_rules=int(0.5 / c) + 2, min_support=0.0, min_literal_support=s, regularization=c
    ).fit(X, y)
    assert m.certificate_.optimal
    return m.certificate_.objective, m.certificate_.n_rules


@pytest.mark.parametrize("seed", range(12))
def test_same_optimum_as_corels_on_random_instances(seed):
    rng = np.random.default_rng(seed)
    n, p = int(rng.integers(40, 300)), int(rng.integers(3, 9))
    X = (rng.random((n, p)) < rng.uniform(0.05, 0.95, p)).astype(np.int64)
    y = (np.where(X[:, 0] == 1, X[:, 1], 1 - X[:, 2]) ^ (rng.random(n) < 0.2)).astype(np.int64)
    if y.min() == y.max():  # pycorels refuses one-class labels
        y[0] = 1 - y[0]
    c = float(rng.choice([0.01, 0.02, 0.05]))
    s = float(rng.choice([0.0, 0.01, 0.05, 0.1]))
    a, _ = ours(X, y, c, s)
    b, _ = corels_objective(X, y, c, s)
    assert math.isclose(a, b, rel_tol=0, abs_tol=1e-9), (a, b)


@pytest.mark.parametrize("c", [0.01, pytest.param(0.005, marks=pytest.mark.slow)])
def test_same_optimum_as_corels_on_compas(c, compas):
    X, y = compas[0].to_numpy(), compas[1].to_numpy()
    a, la = ours(X, y, c, 0.01)
    b, lb = corels_objective(X, y, c, 0.01)
    assert math.isclose(a, b, rel_tol=0, abs_tol=1e-9), (a, b, la, lb)


@pytest.mark.parametrize("seed", range(10))
def test_best_first_same_optimum_as_corels(seed):
    """Instances where c·n ≥ 1 record, so the fit runs the best-first search (CORELS's own
    order): wider and longer than the instances above, labels from a noisy rule list."""
    rng = np.random.default_rng(100 + seed)
    n, p = int(rng.integers(200, 900)), int(rng.integers(4, 11))
    X = (rng.random((n, p)) < rng.uniform(0.05, 0.95, p)).astype(np.int64)
    y = np.where(X[:, 0] == 1, X[:, 1], np.where(X[:, 2] == 1, 1 - X[:, 3], X[:, 1 % p]))
    y = (y ^ (rng.random(n) < 0.15)).astype(np.int64)
    c = float(rng.choice([0.005, 0.01, 0.02]))
    m = OptimalRuleListClassifier(
        max_rules=int(0.5 / c) + 2, min_support=0.0, min_literal_support=0.01, regularization=c
    ).fit(X, y)
    assert m.certificate_.optimal and m.certificate_.backend.endswith("best-first")
    b, _ = corels_objective(X, y, c, 0.01)
    assert math.isclose(m.certificate_.objective, b, rel_tol=0, abs_tol=1e-9), (m.certificate_.objective, b)


def _adult10(binarizer):
    import warnings

    from dpmodels.data import Binarizer, dataset_schema
    from dpmodels.privacy import PrivacyLeakWarning

    X, y = load_dataset("adult", binarized=not binarizer)
    idx = np.random.default_rng(0).choice(len(X), size=int(round(0.1 * len(X))), replace=False)
    X, y = X.iloc[idx].reset_index(drop=True), y.iloc[idx].reset_index(drop=True)
    if binarizer:  # the data's quantiles (declared leak) and the schema's categories
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", PrivacyLeakWarning)
            X = Binarizer(categories=dataset_schema("adult").categories).fit_transform(X)
    return np.asarray(X, dtype=np.int64), y.to_numpy(np.int64)


@pytest.mark.parametrize(
    "binarizer, c",
    [
        (False, 0.01),
        pytest.param(False, 0.005, marks=pytest.mark.slow),
        pytest.param(True, 0.03, marks=pytest.mark.slow),
    ],
)
def test_same_optimum_as_corels_on_adult10(binarizer, c):
    X, y = _adult10(binarizer)
    a, la = ours(X, y, c, 0.01)
    b, lb = corels_objective(X, y, c, 0.01)
    assert math.isclose(a, b, rel_tol=0, abs_tol=1e-9), (a, b, la, lb)
