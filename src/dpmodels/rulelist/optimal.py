"""Certifiably optimal rule lists over single literals (the optimal learner of paper 003).

Paper 003 (Section V-A) learns its optimal rule lists with CORELS (Angelino et al., KDD 2017 /
JMLR 2018) restricted to width-1 rules (a binary column or its negation), optimising training
accuracy only, under a maximum length and a minimum rule support. This module solves the same
problem with its own branch and bound (:mod:`dpmodels.rulelist._bnb`) and attaches the proof: the
fitted ``certificate_`` says how many subproblems were explored, the lower bound the search
proved, and the gap to the returned list (0 when it finished).

What is optimised (the CORELS objective, JMLR Eq. (2), with ℓ the training error rate)::

    R(d) = errors(d) / n + regularization · L(d),     L(d) = number of non-default rules,

subject to L(d) ≤ max_rules − 1 and the support constraints below. With ``regularization=0``
(the default; paper 003 optimises accuracy only, with "c smaller than 1/n") the most accurate
lists are found and, among them, the shortest — the optimum of CORELS for any
0 < c < 1/(n·(K − 1)); CORELS with c = 0 returns whichever most accurate list it meets first.

Support semantics (paper 003 used a modified pycorels; its README states both rules):

* **captured support** (``min_support`` = λ): every non-default rule captures at least
  Λ = ⌈λ·n⌉ training records *in its position*, i.e. records that no earlier rule captured.
  (The "fraction of the training data captured in the context of the rule list"; the test is
  done as pycorels does, ``captured / n ≥ λ`` in floating point.)
* **literal mining** (``min_literal_support``, default: = λ): pycorels mines candidate rules
  before searching and keeps a literal only if its support on the *whole* training set lies in
  [s, 1 − s]. The lower end is implied by the captured support when s ≤ λ; the upper end drops
  near-constant literals (e.g. "not Race=Asian" on COMPAS), which can change the optimum. The
  modified pycorels describes its support rule as an addition to the mining, so the mining is
  assumed kept. Set ``min_literal_support=0`` to search over every literal.

PyPI ``corels`` 1.1.29 (the unmodified pycorels) has only the mining step and no length limit;
``tests/rulelist/test_optimal_corels.py`` cross-checks this learner against it with
``min_support=0, min_literal_support=s, regularization=c``.

Not private: the search reads the data like any non-private learner (it is paper 003's
non-private baseline), so no privacy ledger is attached.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

import numpy as np

from .._params import Integral, Interval, Real, validate_params
from ..validation import check_y, resolve_classes
from ._base import RuleListEstimator
from ._bnb import RuleListSearch, support_threshold
from .model import Rule

__all__ = ["OptimalRuleListClassifier", "OptimalityCertificate"]


@dataclass(frozen=True)
class OptimalityCertificate:
    """What the search proved about the fitted rule list.

    ``objective`` and ``lower_bound`` are in the units of CORELS's objective: training error rate
    plus ``regularization`` per non-default rule. ``optimal`` is True when the search finished:
    then ``lower_bound == objective`` (gap 0) and no feasible list has a smaller objective (nor,
    with ``regularization=0``, as few errors with fewer rules). After a time-out the list is the
    best found and ``gap`` bounds how far from optimal it can be.
    """

    optimal: bool
    objective: float
    lower_bound: float
    gap: float
    errors: int
    errors_lower_bound: int | None  # None with regularization > 0
    n_rules: int
    n_samples: int
    min_captured: int
    n_literals: int
    nodes: int
    memo_entries: int
    seconds: float
    time_limit_reached: bool
    backend: str

    def to_dict(self) -> dict:
        return asdict(self)


class OptimalRuleListClassifier(RuleListEstimator):
    """Certifiably optimal rule list over single literals (CORELS's problem, paper 003's setting).

    Parameters
    ----------
    max_rules : int, default=5
        K, the maximum length of the rule list *including the default rule* (the library's
        convention, as in :class:`GreedyRuleListClassifier`): at most K − 1 if-then rules, then
        the default. Paper 003's "rule lists of length L" (CORELS ``max_length=L``, "10 rules +
        default" at L = 10) are ``max_rules=L + 1``.
    min_support : float in [0, 1), default=0.01
        λ: each if-then rule captures at least Λ = ⌈λ·n⌉ (and ≥ 1) training records in its
        position, i.e. among the records the earlier rules left.
    min_literal_support : float in [0, 0.5] or None, default=None
        Candidate literals are those whose support on the whole training set lies in
        [s, 1 − s] (pycorels's rule mining). None: s = ``min_support``, as in paper 003.
    regularization : float in [0, 1), default=0.0
        CORELS's c: the objective adds c per if-then rule to the training error rate. 0 optimises
        accuracy only, ties broken towards shorter lists.
    time_limit : float or None, default=None
        Seconds. When reached, the best list found is returned with an honest certificate
        (``optimal=False``, gap ≥ 0). None: search to optimality.
    classes : sequence of 2 labels or None, default=None
        The public label set (negative, positive). None: the schema {0, 1}, as for the other
        rule lists (never read from y; :func:`dpmodels.validation.resolve_classes`).

    Attributes
    ----------
    rule_list_ : RuleList
        The rules, their consequents (majority of what they capture) and exact training counts.
    certificate_ : OptimalityCertificate
        Nodes explored, proved lower bound, objective, gap, ``optimal`` flag, seconds.
    n_candidates_ : int
        Number of candidate literals searched (after mining).

    Notes
    -----
    Ties: a rule predicts the positive class only when it captures strictly more positives (the
    library's convention; CORELS predicts positive on ties — errors are the same either way).

    Search: with ``regularization · n ≥ 1`` (a rule costs at least one record, CORELS's setting)
    the branch and bound is best-first in the order of its lower bounds, as CORELS's; below that
    (accuracy only) it is depth-first with a memo of exact subproblem values. Both certify the
    same optimum; ``certificate_.backend`` names the one used.
    """

    _display_params = ("max_rules", "min_support", "regularization")

    _binary_only = True  # the bounds of the search are for two classes

    def __init__(
        self, max_rules=5, min_support=0.01, min_literal_support=None, regularization=0.0, time_limit=None, classes=None
    ):
        self.max_rules = max_rules
        self.min_support = min_support
        self.min_literal_support = min_literal_support
        self.regularization = regularization
        self.time_limit = time_limit
        self.classes = classes

    # ------------------------------------------------------------------ checks
    _parameter_constraints: dict = {
        "max_rules": [Interval(Integral, 1, None, closed="left")],
        "min_support": [Interval(Real, 0, 1, closed="left")],
        "min_literal_support": [None, Interval(Real, 0, 0.5, closed="both")],
        "regularization": [Interval(Real, 0, 1, closed="left")],
        "time_limit": [None, Interval(Real, 0, None, closed="neither")],
        "classes": "no_validation",  # declarations: dpmodels.validation
    }

    def _check_params(self):
        # its own constraints: this learner has no max_width (its candidates are single literals,
        # filtered by support in _fit)
        validate_params(self)

    def _validate_before_spend(self, X, y):
        """Parameters and the labels (two classes: the declared pair, else {0, 1}), as ``fit``
        checks them; the candidate guard of the greedy learners does not apply (one candidate per
        literal)."""
        self._check_params()
        resolve_classes(getattr(self, "classes", None), check_y(y, type(self).__name__), None, binary=True)
        return None

    # --------------------------------------------------------------------- fit
    def _fit(self, X, y):
        self._check_params()
        Xb, yb, names = self._validate_fit_data(X, y)
        n, p = Xb.shape
        X01 = Xb.astype(bool)
        lits = np.hstack([X01, ~X01])  # literal j < p: x_j ; literal p + j: not x_j
        s = self.min_support if self.min_literal_support is None else self.min_literal_support
        frac = lits.sum(axis=0) / n  # pycorels's test, in floating point
        keep = np.flatnonzero((frac >= s) & (frac <= 1.0 - s))
        lam = support_threshold(self.min_support, n)
        K = self.max_rules
        c = float(self.regularization)
        # The search runs in exact binary arithmetic: every objective value is an integer number of
        # errors plus a multiple of a dyadic penalty. With c = 0 the penalty 1/2^k < 1/(K − 1) only
        # breaks ties in errors towards shorter lists; with c > 0 it is c·n rounded to a multiple
        # of 2^-b (b ≈ 50 − log2 n), which can only reorder lists whose objectives differ by less
        # than K·2^-b misclassified records.
        if c > 0:
            b = 50 - max(0, math.ceil(math.log2(n + 1 + K * c * n)))
            step = 2.0**-b
            pen = max(step, round(c * n / step) * step)
        else:
            pen = 2.0 ** -max(1, math.ceil(math.log2(K)))
        if keep.size:
            search = RuleListSearch(lits[:, keep], yb, lam, pen)
            res = search.run(K - 1, time_limit=self.time_limit)
            chosen = [int(keep[j]) for j in res.literals]
        else:  # nothing to search: the default rule alone is optimal
            res = None
            chosen = []
        rules, default, errors = self._assemble(X01, yb, names, chosen, lam)
        L = len(rules)
        if res is None:
            value, lb = errors + pen * L, errors + pen * L
        else:
            value, lb = res.value, res.lower_bound
            if value != errors + pen * L:  # exact: dyadic arithmetic
                raise RuntimeError("internal error: search value and fitted list disagree")
        optimal = bool(lb >= value)
        if c > 0:
            objective = errors / n + c * L
            # lb bounds the rounded objective; widen it by the rounding (at most K·2^-b records)
            lower = objective if optimal else max(0.0, (min(lb, value) - K * step) / n)
            err_lb = None  # with a penalty the optimum trades errors for rules: no error bound
        else:
            err_lb = min(errors, int(math.floor(lb)))  # objective = errors + L·tie, L·tie < 1
            objective, lower = errors / n, err_lb / n
        self.certificate_ = OptimalityCertificate(
            optimal=optimal,
            objective=float(objective),
            lower_bound=float(lower),
            gap=float(max(0.0, objective - lower)),
            errors=int(errors),
            errors_lower_bound=err_lb,
            n_rules=L,
            n_samples=n,
            min_captured=lam,
            n_literals=int(keep.size),
            nodes=0 if res is None else res.nodes,
            memo_entries=0 if res is None else res.memo_entries,
            seconds=0.0 if res is None else res.seconds,
            time_limit_reached=bool(res is not None and res.timed_out),
            backend="none" if res is None else res.backend,
        )
        self.rule_list_ = self._build_rule_list(names, rules, default, False)
        self.n_candidates_ = int(keep.size)
        return self

    def _assemble(self, X01, yb, names, chosen, lam):
        """Rules (with exact counts and majority consequents) for the chosen literals, in order."""
        p = X01.shape[1]
        remaining = np.ones(len(yb), dtype=bool)
        rules: list[Rule] = []
        errors = 0
        for j in chosen:
            f, positive = (j, True) if j < p else (j - p, False)
            cap = remaining & (X01[:, f] if positive else ~X01[:, f])
            c1 = int(yb[cap].sum())
            c0 = int(cap.sum()) - c1
            if c0 + c1 < lam:
                raise RuntimeError("internal error: a rule violates the minimum support")
            errors += min(c0, c1)
            rules.append(Rule([(names[f], positive)], int(c1 > c0), (float(c0), float(c1))))
            remaining &= ~cap
        c1 = int(yb[remaining].sum())
        c0 = int(remaining.sum()) - c1
        errors += min(c0, c1)
        pred = int(c1 > c0) if c0 + c1 else int(2 * int(yb.sum()) > len(yb))
        return rules, Rule([], pred, (float(c0), float(c1))), errors
