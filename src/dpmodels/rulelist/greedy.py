"""GreedyRL: the non-private greedy rule list of paper 000 (Section III-A, Eq. (1)+(2)).

At each position the learner picks, among the candidate rules that capture at least Λ = ⌊λ·n⌋ of
the remaining records, the one with the lowest Gini impurity of the split it makes (captured vs.
not captured, Eq. (1)+(2)); it stops after ``max_rules`` − 1 rules, when no rule meets the support,
or when the best rule does not lower the impurity of not splitting. Consequents are majorities.

``criterion="authors"`` is the greedy rule list paper 003's authors ran for their figures (the
``GreedyRLClassifier`` of their public scripts as of their final experiments; the paper's Sec. V-A
calls it "CART-like" and "selects the rule yielding the best Gini impurity improvement"):

* literals are pre-mined on the training data: kept when their share of the training records
  lies in [λ, 1 − λ];
* at each position a literal is eligible when it captures ≥ λ·n of the training records in its
  position (``captured / n ≥ λ`` with n the training size, i.e. ⌈λn⌉ records) and leaves at least
  one remaining record uncaptured;
* the rule taken minimises the split's weighted Gini S = (c/N)·g(captured) + ((N − c)/N)·g(rest)
  (N remaining records, c captured, g(p) = 2p(1 − p)); ties on S go to the lower weighted captured
  Gini W = (c/N)·g(captured) (the purer side of the split), then to the first candidate;
* **stopping rule**: the list stops when no eligible rule beats not splitting, i.e. when no rule
  has (S, W) lexicographically below (G, G), G the Gini of the remaining records — a rule must lower
  the Gini (S < G) or, at S = G, have W < G (a split whose two sides keep the parent's class rate,
  taken only while G > 0) — and when no rule meets the support, or after ``max_rules`` − 1 rules;
* a consequent is 1 when at least half of the captured records are positive (the default too;
  with no record left, the overall majority).

``criterion="captured"`` is the first draft of that learner in the authors' repository (replaced
the next day, before any rule-list experiment was run): the rule with the lowest Gini *of the
records it captures* (g of the captured side only) is taken, ties to the first candidate, and the
list stops only when no rule meets the support or after ``max_rules`` − 1 rules. Kept to show what
that reading gives (``docs/results.md``, paper 003).

Both compare impurities exactly: a float shortlist within 1e-9 of the minimum is re-ranked on the
exact rationals of the integer counts, so equal impurities (e.g. 3/15 and 28/35 positive, both
Gini 8/25) are ties, not decided by rounding (the authors' scripts compare floats; where two
impurities are equal as fractions their rounding may order them either way).

The support filter reads the data: this learner is **not private** and is the papers' baseline.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from .._params import StrOptions
from ..guards import progress
from ._base import RuleListEstimator
from ._counts import MemoryCounts
from .model import Rule
from .split_stats import SplitStats

__all__ = ["GreedyRuleListClassifier", "CRITERIA"]

CRITERIA = ("split", "captured", "authors")


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
    criterion : {"split", "captured", "authors"}, default="split"
        ``"split"``: paper 000's Gini of the split (Eq. (1)+(2)); ``"authors"``: paper 003's
        authors' learner as they ran it (split Gini, ties to the purer side, support pre-mining in
        [λ, 1 − λ], support ⌈λn⌉, stops when no rule lowers the Gini); ``"captured"``: their first
        draft (captured-only Gini, stops only for support) (module docstring); the last two are
        for two classes.
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

    _parameter_constraints: dict = {
        **RuleListEstimator._parameter_constraints,
        "criterion": [StrOptions(set(CRITERIA))],
    }

    def _fit(self, X, y):
        self._check_common_params()
        Xb, yb, names = self._validate_fit_data(X, y)
        # non-private learner: its true n may size the estimate (it releases the data anyway)
        cands = self._guarded_candidates(X, names, len(Xb))
        K = len(self.classes_)  # the declared label set (or the schema {0, 1}): public
        if self.criterion in ("captured", "authors") and K != 2:
            raise ValueError(
                f"criterion={self.criterion!r} (paper 003's authors' list) is for two classes; got {K} classes"
            )
        stats = SplitStats(cands, Xb, yb, n_classes=K)
        if self.criterion in ("captured", "authors"):
            return self._fit_authors(cands, stats, Xb, yb, names, self.criterion)
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

    def _fit_authors(self, cands, stats, Xb, yb, names, criterion):
        """Paper 003's authors' greedy list, ``criterion`` "authors" or their draft "captured"
        (module docstring)."""
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
            best = _authors_choice(N, P, cap, cap_pos, available, criterion)
            if best is None:
                break
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


def _gini_q(pos: int, tot: int) -> Fraction:
    """Exact Gini impurity 2p(1 − p) of ``pos`` positives among ``tot`` records (0 if empty)."""
    return Fraction(2 * pos * (tot - pos), tot * tot) if tot else Fraction(0)


def _authors_choice(N, P, cap, cap_pos, eligible, criterion):
    """Index of the rule paper 003's authors' learner takes at this position, or None to stop.

    ``"captured"``: the eligible rule of lowest captured Gini, ties to the first. ``"authors"``: the
    eligible rule (capturing fewer than all N remaining records) of lowest (S, W) — split Gini, then
    weighted captured Gini — ties to the first, taken only if (S, W) < (G, G) lexicographically
    (module docstring). Floats shortlist, exact fractions of the counts decide.
    """
    N, P = int(round(float(N))), int(round(float(P)))
    cap = np.asarray(cap, dtype=float)
    pos = np.asarray(cap_pos, dtype=float)
    ok = np.asarray(eligible, dtype=bool) & (cap > 0)
    if criterion == "authors":
        ok &= cap < N  # the rest would be empty: the authors' Gini of it is undefined (NaN), never taken
    if not ok.any():
        return None
    with np.errstate(divide="ignore", invalid="ignore"):
        g_cap = np.where(ok, 2.0 * pos * (cap - pos) / (cap * cap), np.inf)
        if criterion == "captured":
            score = g_cap
        else:
            rest, rest_pos = N - cap, P - pos
            g_rest = np.where(ok, 2.0 * rest_pos * (rest - rest_pos) / (rest * rest), np.inf)
            score = np.where(ok, (cap * g_cap + rest * g_rest) / N, np.inf)
    short = np.flatnonzero(score <= score.min() + 1e-9)  # candidate order kept: ties go to the first

    def key(i):
        c, k = int(round(cap[i])), int(round(pos[i]))
        if criterion == "captured":
            return (_gini_q(k, c),)
        w = Fraction(c, N) * _gini_q(k, c)
        return (w + Fraction(N - c, N) * _gini_q(P - k, N - c), w)

    best = min(short, key=key)  # min keeps the first of equal keys
    if criterion == "authors":
        g = _gini_q(P, N)
        if not key(best) < (g, g):  # no rule beats not splitting: the list stops
            return None
    return int(best)
