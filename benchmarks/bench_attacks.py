"""Membership-inference cost on a memorising depth-20 tree (1 000 members, 1 000 non-members, 2 000
population records, 5 Gaussian features, random labels).

Run with ``make bench``. Peer: ART's ``MembershipInferenceBlackBox`` (random forest, the paper's
tool; needs the ``[attacks]`` extra) against our ``attack="black-box"`` on the same split, and the
reference-model attacks (64 references; LiRA online and offline share nothing here: each call
fits its own set) beside them.
"""

import warnings

import numpy as np
import pytest
from sklearn.tree import DecisionTreeClassifier

from dpmodels.audit import membership_inference


@pytest.fixture(scope="module")
def target():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(4000, 5))
    y = rng.integers(0, 2, 4000)
    tree = DecisionTreeClassifier(max_depth=20, random_state=0).fit(X[:1000], y[:1000])
    return tree, X, y


def _run(target, attack, **kw):
    tree, X, y = target
    return membership_inference(
        tree,
        X[:1000],
        y[:1000],
        X[1000:2000],
        y[1000:2000],
        attack=attack,
        X_pop=X[2000:],
        y_pop=y[2000:],
        random_state=0,
        **kw,
    )


@pytest.mark.benchmark(group="mia-memorising-tree")
@pytest.mark.parametrize("attack", ["threshold", "black-box", "shadow", "lira", "lira-offline", "rmia"])
def test_ours(benchmark, target, attack):
    benchmark(lambda: _run(target, attack))


@pytest.mark.benchmark(group="mia-memorising-tree")
def test_art_black_box(benchmark, target):
    pytest.importorskip("packaging")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pytest.importorskip("art")
    from dpmodels.audit.art_adapter import art_membership_inference

    tree, X, y = target
    benchmark(lambda: art_membership_inference(tree, X[:1000], y[:1000], X[1000:2000], y[1000:2000], random_state=0))
