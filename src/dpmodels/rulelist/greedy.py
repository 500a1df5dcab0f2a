"""GreedyRL: the non-private greedy rule list of paper 000 (Section III-A, Eq. (1)+(2)).

At each position the learner picks, among the candidate rules that capture at least Λ = ⌊λ·n⌋ of
the remaining records, the one with the lowest Gini impurity of the split it makes (captured vs.
not captured, Eq. (1)+(2)); it stops after ``max_rules`` − 1 rules, when no rule meets the support,
or when the best rule does not lower the impurity of not splitting. Consequents are majorities.

``criterion="captured"`` is the greedy rule list of paper 003's authors (their public scripts; the
paper's Sec. V-A calls it "CART-like"): candidates are pre-mined on the training data — a rule is
kept when the share of training records it captures lies in [λ, 1 − λ]; at each position the rule
with the lowest Gini impurity *of the records it captures* (2p(1 − p), the uncaptured side
ignored — a purity criterion) among those capturing ≥ λ·n of the training records (n the training
size, i.e. ⌈λn⌉ records) is taken, ties to the first candidate; it never stops for lack of
improvement, only when no rule meets the support; a consequent is 1 when at least half of the
captured records are positive (the default too; with no record left, the overall majority).

The support filter reads the data: this learner is **not private** and is the papers' baseline.
"""

from __future__ import annotations

import math

import numpy as np

from ..guards import progress
from ._base import RuleListEstimator
from .candidates import MemoryCounts, SplitStats
from .model import Rule

__all__ = ["GreedyRuleListClassifier", "CRITERIA"]

CRITERIA = ("split", "captured")


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
    criterion : {"split", "captured"}, default="split"
        ``"split"``: paper 000's Gini of the split (Eq. (1)+(2)); ``"captured"``: paper 003's
        authors' learner — captured-only Gini, support pre-mining in [λ, 1 − λ], support ⌈λn⌉
        (module docstring); two classes only.
    candidates : {"conjunctions", "columns"}, default="conjunctions"
        The public candidate rules: every conjunction of ≤ ``max_width`` literals over the columns
        (:mod:`dpmodels.data.rules`), or ``"columns"``: each column *is* one candidate rule (a
        pre-mined rule set materialised as 0/1 columns, e.g. paper 000's, built by
        :mod:`dpmodels.data.paper_protocols`); ``max_width`` and ``feature_groups`` are then unused.
    """

    _partitioned_fit = True  # fits on Parquet / Dask sources (:mod:`._partitioned`)

    def __init__(
        self,
        max_rules=5,
        min_support=0.05,
        max_width=2,
        classes=None,
        feature_groups="auto",
        candidates="conjunctions",
        criterion="split",
    ):
        self.max_rules = max_rules
        self.min_support = min_support
        self.max_width = max_width
        self.classes = classes
        self.feature_groups = feature_groups
        self.candidates = candidates
        self.criterion = criterion

    def _fit(self, X, y):
        self._check_common_params()
        if self.criterion not in CRITERIA:
            raise ValueError(f"criterion must be one of {CRITERIA}, got {self.criterion!r}")
        Xb, yb, names = self._validate_fit_data(X, y)
        # non-private learner: its true n may size the estimate (it releases the data anyway)
        cands = self._guarded_candidates(X, names, len(Xb))
        K = len(self.classes_)  # the declared label set (or the schema {0, 1}): public
        if self.criterion == "captured" and K != 2:
            raise ValueError(f"criterion='captured' (paper 003's authors' list) is for two classes; got {K} classes")
        stats = SplitStats(cands, Xb, yb, n_classes=K)
        if self.criterion == "captured":
            return self._fit_captured(cands, stats, Xb, yb, names)
        return self._fit_split(cands, MemoryCounts(stats, cands, Xb, yb, K), names)

    def _fit_split(self, cands, counter, names):
        """Paper 000's GreedyRL (module docstring), reading the data through ``counter`` only
        (:mod:`.candidates`: in memory or partitioned input)."""
        n = counter.n
        lam = max(1, math.floor(self.min_support * n))
        available = np.ones(len(cands), dtype=bool)
        rules: list[Rule] = []
        for _ in progress(range(self.max_rules - 1), desc="GreedyRL rules"):
            N, P, cap, cap_pos = counter.counts()
            eligible = available & (cap >= lam)
            if N == 0 or not eligible.any():
                break
            score = np.where(eligible, SplitStats.split_impurity(N, P, cap, cap_pos), np.inf)
            best = int(np.argmin(score))
            if score[best] >= SplitStats.node_impurity(N, P) - 1e-9 * max(N, 1.0):
                break  # no rule improves on not splitting
            c = SplitStats.class_counts(N, P, cap, cap_pos, best)
            lits = [(names[f], pos) for f, pos in cands.literals(best)]
            # majority; ties go to the first class (for two classes: int(c1 > c0))
            rules.append(Rule(lits, int(np.argmax(c)), tuple(float(v) for v in c)))
            counter.take(best)
            available[best] = False
        c = counter.remaining_histogram().astype(float)
        if c.sum() == 0:  # every record captured: fall back on the overall majority
            default_pred = int(np.argmax(counter.class_totals()))
        else:
            default_pred = int(np.argmax(c))
        self.rule_list_ = self._build_rule_list(names, rules, Rule([], default_pred, tuple(float(v) for v in c)), False)
        self.n_candidates_ = len(cands)
        return self

    def _fit_captured(self, cands, stats, Xb, yb, names):
        """Paper 003's authors' greedy list (module docstring)."""
        n = Xb.shape[0]
        lam = float(self.min_support)
        remaining = np.ones(n, dtype=bool)
        N, P, cap, cap_pos = stats(remaining)
        share = cap / n if n else np.zeros_like(cap)
        available = (share >= lam) & (share <= 1.0 - lam)  # pre-mining on the training data
        n_mined = int(available.sum())
        rules: list[Rule] = []
        for _ in progress(range(self.max_rules - 1), desc="GreedyRL rules"):
            N, P, cap, cap_pos = stats(remaining)
            # the authors' test: captured / n >= λ (n the training size) and at least one record
            available &= (cap > 0) & (cap / max(n, 1) >= lam)
            if not available.any():
                break
            p = np.divide(cap_pos, cap, out=np.zeros_like(cap), where=cap > 0)
            score = np.where(available, 2.0 * p * (1.0 - p), np.inf)
            best = int(np.argmin(score))  # ties: the first candidate
            c1 = float(cap_pos[best])
            c0 = float(cap[best]) - c1
            lits = [(names[f], pos) for f, pos in cands.literals(best)]
            rules.append(Rule(lits, int(c1 >= c0), (c0, c1)))
            remaining &= ~cands.support(Xb, best)
            available[best] = False
        c1 = float(yb[remaining].sum())
        c0 = float(remaining.sum()) - c1
        if c0 + c1 == 0:  # nothing left: the overall majority (ties to 1)
            default_pred = int(yb.sum() * 2 >= n)
        else:
            default_pred = int(c1 >= c0)
        self.rule_list_ = self._build_rule_list(names, rules, Rule([], default_pred, (c0, c1)), False)
        self.n_candidates_ = n_mined
        return self
