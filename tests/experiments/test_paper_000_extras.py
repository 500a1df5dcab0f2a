"""Paper 000 under the authors' procedure: Table III's importances (oracle: scikit-learn's
``permutation_importance`` on the estimator's own predictions), and the two ids of
``paper_000.extras`` (§V-D's K sweep, App. C's label-only attack) at quick sizes."""

import numpy as np
import pandas as pd
import pytest
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.inspection import permutation_importance

from dpmodels.data.paper_protocols import mine_rules_authors, rules_from_columns
from dpmodels.experiments.paper_000 import attacks, extras
from dpmodels.experiments.registry import Size, get
from dpmodels.rulelist import DPRuleListClassifier, GreedyRuleListClassifier


def _toy(seed=0, n=300):
    rng = np.random.default_rng(seed)
    B = pd.DataFrame(rng.random((n, 5)) < [0.5, 0.3, 0.6, 0.2, 0.5], columns=list("abcde")).astype(np.uint8)
    y = ((B.a & ~B.b.astype(bool)) | (B.c & B.d) | (rng.random(n) < 0.1)).astype(int).to_numpy()
    R = mine_rules_authors(B, min_support=0.05, max_card=2)
    return B, R, y


class _OnAttributes(ClassifierMixin, BaseEstimator):
    """A fitted rule list over rule columns, applied to attribute columns through
    ``rules_from_columns`` and the estimator's own ``predict`` (independent of the code tested)."""

    def __init__(self, est=None, literals=None):
        self.est = est
        self.literals = literals

    def fit(self, X, y):
        self.classes_ = np.array([0, 1])
        return self

    def predict(self, X):
        return self.est.predict(rules_from_columns(X, self.literals))


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_authors_importance_equals_sklearn_permutation_importance(seed):
    B, R, y = _toy(seed)
    lit = R.attrs["literals"]
    for est in (
        GreedyRuleListClassifier(max_rules=5, min_support=0.05, max_width=1, candidates="columns").fit(R, y),
        DPRuleListClassifier(
            epsilon=5.0, max_rules=4, min_support=0.05, max_width=1, candidates="columns", classes=[0, 1],
            random_state=seed,
        ).fit(R, y),
    ):  # fmt: skip
        ours = attacks.authors_importance(est.rule_list_, lit, B, y, n_repeats=4, random_state=42)
        ref = permutation_importance(
            _OnAttributes(est, lit).fit(B, y), B, y, n_repeats=4, random_state=42, scoring="accuracy"
        ).importances_mean
        np.testing.assert_allclose(ours, ref, atol=1e-12)


def test_authors_top_k_breaks_ties_toward_later_columns():
    imp = np.array([0.0, 0.3, 0.0, 0.1, 0.0, 0.0])
    assert attacks.authors_top_k(imp, 4).tolist() == [1, 3, 5, 4]


def test_table3_paper_cell_and_id():
    rows = attacks.table3_cell("adult", 0, (10.0,), ("sm-laplace (confidence)",), protocol="paper")
    df = pd.DataFrame(rows)
    assert set(df.metric) == {*attacks.IK_PAPER_VARIANTS, "n important features"}
    ik = df[df.metric.isin(attacks.IK_PAPER_VARIANTS)].value
    assert ((ik >= 0) & (ik <= 1)).all()
    assert all('"importance": "authors"' in p and '"n_repeats": 10' in p for p in df.parameters)
    cells = get("000-table3-paper").cells(Size(quick=True, runs=1))
    assert cells and all(c.kwargs["learners"] == attacks.T3_PAPER_LEARNERS for c in cells)
    assert "I_k (authors' ties)" in attacks.table3_paper_markdown(df)


def test_label_only_scores_oracle():
    """A list predicting one class everywhere keeps every label under any flip: the score is 1 on
    the rows of that class and 0 on the others."""
    B, R, y = _toy(3)
    est = GreedyRuleListClassifier(max_rules=1, candidates="columns", max_width=1).fit(R, y)  # default rule only
    s = extras.label_only_scores(est.rule_list_, R.attrs["literals"], B, y, n_flips=3, rng=0)
    pred = est.predict(R)
    np.testing.assert_array_equal(s, (pred == y).astype(float))


def test_label_only_quick_cell():
    rows = extras.label_only_cell("compas", 0, (1.0,), ("GreedyRL", "permute-and-flip"), n_flips=2)
    df = pd.DataFrame(rows)
    assert set(df.learner) == {"GreedyRL", "permute-and-flip"}
    auc = df[df.metric == "auc"].value
    assert ((auc >= 0) & (auc <= 1)).all()
    assert "Label-only" in extras.label_only_markdown(df)


def test_k_sweep_quick_cell():
    rows = extras.k_sweep_cell("compas", 0, (3, 7), (10.0,), ("sm-Laplace", "gl-Laplace"))
    df = pd.DataFrame(rows)
    df["K"] = df.parameters.map(extras._k_of)
    assert set(df.K) == {3, 7}
    nr = df[df.metric == "n_rules"]
    assert (nr.value <= nr.K - 1).all()  # K counts the default rule
    md = extras.k_sweep_markdown(pd.DataFrame(rows))
    assert "best K = 5" in md and "K = 7 reached" in md


@pytest.mark.parametrize("eid", ["000-k-sweep", "000-label-only"])
def test_new_ids_are_registered_with_a_cost(eid):
    exp = get(eid)
    assert exp.paper == "000" and exp.full_cost and exp.quick_cost
    assert exp.cells(Size(quick=True, runs=1))


def test_k_sweep_smooth_vs_global_counts_both_readings():
    """One (dataset, ε, K) setting, hand-made: sm-Laplace .70 and sm-Cauchy .50 (pooled .60)
    against gl-Laplace .65. The pooled reading loses, the better-smooth reading wins."""
    base = dict(dataset="toy", parameters='{"max_rules": 3}', epsilon=1.0, delta=0.0)
    rows = []
    for learner, acc in (("sm-Laplace", 0.70), ("sm-Cauchy", 0.50), ("gl-Laplace", 0.65)):
        for seed in (0, 1):
            for metric, value in (("test_accuracy", acc), ("n_rules", 2.0)):
                rows.append(base | dict(learner=learner, seed=seed, metric=metric, value=value))
    md = extras.k_sweep_markdown(pd.DataFrame(rows))
    assert "pooled mean is ≥ the best global one's in 0 of 1" in md
    assert "the better smooth mechanism's mean in 1." in md
