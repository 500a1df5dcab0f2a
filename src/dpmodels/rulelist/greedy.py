"""GreedyRL: the non-private greedy rule list of paper 000 (Section III-A, Eq. (1)+(2)).

At each position the learner picks, among the candidate rules that capture at least Λ = ⌊λ·n⌋ of
the remaining records, the one with the lowest Gini impurity of the split it makes (captured vs.
not captured, Eq. (1)+(2)); it stops after ``max_rules`` − 1 rules, when no rule meets the support,
or when the best rule does not lower the impurity of not splitting. Consequents are majorities.

The support filter reads the data: this learner is **not private** and is the papers' baseline.
"""

from __future__ import annotations

import math

import numpy as np

from ..guards import progress
from ._base import RuleListEstimator, SplitStats
from .model import Rule

__all__ = ["GreedyRuleListClassifier"]


class GreedyRuleListClassifier(RuleListEstimator):
    """Non-private greedy rule list (GreedyRL).

    Parameters
    ----------
    max_rules : int, default=5
        K, the maximum length of the rule list *including the default rule* (paper 000's K):
        at most K − 1 if-then rules followed by the default (else) rule.
    min_support : float in [0, 1), default=0.05
        λ: a rule must capture at least Λ = max(1, ⌊λ·n⌋) of the remaining records.
    max_width : int, default=2
        Maximum number of literals per rule (conjunctions of columns or their negations).
    classes : None or list of K ≥ 2 labels, default=None
        The label set, in order (``classes_`` is exactly it; for two labels ``[negative,
        positive]``). K > 2: multi-class lists (consequents are the majority of K class counts,
        rules are chosen on the K-class Gini). ``None``: the schema {0, 1}. The label set is
        never read from the data: a label outside it is an error, whatever else y holds; a
        training set holding one class is valid.
    feature_groups : "auto", None or dict, default="auto"
        Which columns come from one raw feature (one-hot categories, thresholds of a number), so
        that conjunctions that are empty or equal to one literal are not candidates
        (:mod:`dpmodels.data.rules`). ``"auto"``: the declaration in ``X.attrs["dpmodels_groups"]``
        (written by :class:`dpmodels.data.Binarizer` and the bundled binarized Adult / COMPAS),
        none for other input; a dict ``{column: {"feature", "kind", "value"}}`` declares them;
        ``None``: every conjunction.
    """

    def __init__(self, max_rules=5, min_support=0.05, max_width=2, classes=None, feature_groups="auto"):
        self.max_rules = max_rules
        self.min_support = min_support
        self.max_width = max_width
        self.classes = classes
        self.feature_groups = feature_groups

    def _fit(self, X, y):
        self._check_common_params()
        Xb, yb, names = self._validate_fit_data(X, y)
        # non-private learner: its true n may size the estimate (it releases the data anyway)
        cands = self._guarded_candidates(X, names, len(Xb))
        K = len(self.classes_)
        stats = SplitStats(cands, Xb, yb, n_classes=K)
        n = Xb.shape[0]
        lam = max(1, math.floor(self.min_support * n))
        remaining = np.ones(n, dtype=bool)
        available = np.ones(len(cands), dtype=bool)
        rules: list[Rule] = []
        for _ in progress(range(self.max_rules - 1), desc="GreedyRL rules"):
            N, P, cap, cap_pos = stats(remaining)
            eligible = available & (cap >= lam)
            if N == 0 or not eligible.any():
                break
            score = np.where(eligible, stats.split_impurity(N, P, cap, cap_pos), np.inf)
            best = int(np.argmin(score))
            if score[best] >= stats.node_impurity(N, P) - 1e-9 * max(N, 1.0):
                break  # no rule improves on not splitting
            c = stats.class_counts(N, P, cap, cap_pos, best)
            lits = [(names[f], pos) for f, pos in cands.literals(best)]
            # majority; ties go to the first class (for two classes: int(c1 > c0))
            rules.append(Rule(lits, int(np.argmax(c)), tuple(float(v) for v in c)))
            remaining &= ~cands.support(Xb, best)
            available[best] = False
        c = np.bincount(yb[remaining], minlength=K).astype(float)
        if c.sum() == 0:  # every record captured: fall back on the overall majority
            default_pred = int(np.argmax(np.bincount(yb, minlength=K)))
        else:
            default_pred = int(np.argmax(c))
        self.rule_list_ = self._build_rule_list(names, rules, Rule([], default_pred, tuple(float(v) for v in c)), False)
        self.n_candidates_ = len(cands)
        return self
