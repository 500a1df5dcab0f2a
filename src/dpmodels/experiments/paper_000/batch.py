"""Many DP rule-list fits on one training split, sharing everything that does not depend on noise.

Paper 000's Fig. 4 is 3 datasets × 6 mechanisms × 200 ε × 100 splits = 360,000 fits. Within one
training split, every fit of every ε and mechanism needs the same things before its first noise
draw: the validated 0/1 matrix, the candidate rules (public: they depend on the column names
only) and, at each position of the list, the counts ``(N, P, captured, captured_pos)`` of every
candidate on the records that the rules chosen so far leave. Those counts depend only on the
*remaining* set, i.e. on the rules chosen so far, not on ε or on the mechanism, so fits whose
prefixes agree share them. :class:`SharedSplit` builds the matrix, the candidates and one
:class:`~dpmodels.rulelist.split_stats.SplitStats` once per split, and :class:`MemoSplitStats` memoises
the counts by the remaining set (an LRU keyed by the packed bit mask, which is a function of the
prefix of chosen rules). At large ε the prefixes coincide and almost every count is a hit; at
small ε the choices are nearly uniform and most positions miss, but the per-fit set-up (input
validation, candidate enumeration, the distinct-row index) is still paid once per split.

Exactness. Nothing here changes what a fit computes: :meth:`SharedSplit.fit` runs the
estimator's own release code (``DPRuleListClassifier._release``: selection, consequents, the
released rule list) with the same random generator, on the same candidates (built by the
estimator's ``_make_candidates``, so declared feature groups prune them the same way) and the same
counts (a memo hit returns the very arrays a fresh ``SplitStats`` call computes; the arrays are
read-only so no caller can alter them). ``tests/rulelist/test_rulelist_batch.py`` checks, for every
mechanism, that the rule list and the ledger are identical to ``DPRuleListClassifier(...).fit``
under the same Generator state.
"""

from __future__ import annotations

import time
from collections import OrderedDict

import numpy as np

from ...privacy.ledger import PrivacyLedger
from ...privacy.samplers import check_random_state
from ...rulelist import DPRuleListClassifier
from ...rulelist._base import _binary_matrix
from ...rulelist.candidates import RuleCandidates
from ...rulelist.split_stats import SplitStats, single_threaded_blas

__all__ = ["MemoSplitStats", "SharedSplit"]


class MemoSplitStats(SplitStats):
    """:class:`SplitStats` whose results are memoised by the remaining set (LRU, ``maxsize`` entries).

    A memo entry holds two float64 vectors of the number of candidates (German, 25,088
    candidates: 0.4 MB), so ``maxsize`` bounds the memory (default 256 → ≤ 100 MB on German).
    """

    def __init__(self, candidates: RuleCandidates, Xf: np.ndarray, y: np.ndarray, maxsize: int = 256):
        super().__init__(candidates, Xf, y)
        self.maxsize = int(maxsize)
        self._memo: OrderedDict = OrderedDict()
        self.hits = 0
        self.misses = 0
        self._pair_table: _PairTable | None = _PairTable(candidates) if candidates.max_width <= 2 else None

    def _compute(self, remaining):
        """The counts of ``SplitStats.__call__``, computed per distinct literal pair (exact)."""
        if self._pair_table is None:
            return super().__call__(remaining)
        m = len(self.patterns)
        r = remaining.astype(np.float64)
        w = np.bincount(self.inverse, weights=r, minlength=m)
        wy = np.bincount(self.inverse, weights=r * self.y, minlength=m)
        keep = w > 0  # rows of distinct patterns no remaining record has add nothing
        Pk = self.patterns[keep]
        N, P = float(w.sum()), float(wy.sum())
        cap = self._pair_table.counts(Pk, w[keep].astype(Pk.dtype), N)
        cap_pos = self._pair_table.counts(Pk, wy[keep].astype(Pk.dtype), P)
        return N, P, cap, cap_pos

    def counts_of_rows(self, remaining_rows: np.ndarray):
        """Per distinct row (what :class:`~dpmodels.rulelist._counts.MemoryCounts` asks): the
        same memo, keyed by the records' mask."""
        return self(remaining_rows.take(self.inverse))

    def __call__(self, remaining: np.ndarray):
        key = np.packbits(remaining).tobytes()
        hit = self._memo.get(key)
        if hit is not None:
            self._memo.move_to_end(key)
            self.hits += 1
            return hit
        self.misses += 1
        N, P, cap, cap_pos = self._compute(remaining)
        cap.flags.writeable = False
        cap_pos.flags.writeable = False
        out = (N, P, cap, cap_pos)
        self._memo[key] = out
        if len(self._memo) > self.maxsize:
            self._memo.popitem(last=False)
        return out


class _PairTable:
    """Counts of every candidate of width ≤ 2 from one Gram matrix, grouped by literal pair.

    A candidate is a pair of literals (f1, q1) ∧ (f2, q2) (width 1: the literal twice). For the
    distinct column pairs (f1, f2) the four polarity counts are, with A = Xᵀ diag(w) X, s = diag(A),
    t = Σw: (+,+) A, (+,−) s₁ − A, (−,+) s₂ − A, (−,−) t − s₁ − s₂ + A — the formulas of
    :meth:`RuleCandidates._pair_counts`, evaluated on the ~4× fewer distinct pairs and then
    gathered. Every value is an integer below 2^24 (float32 Gram) / 2^53 (float64), so the result is
    the same float64 array whatever the order of the arithmetic.
    """

    def __init__(self, cands: RuleCandidates):
        f1 = cands.features[:, 0]
        f2 = cands.features[:, -1]
        q1 = cands.positive[:, 0]
        q2 = cands.positive[:, -1]
        pairs, self.index = np.unique(np.stack([f1, f2], axis=1), axis=0, return_inverse=True)
        self.index = self.index.ravel()
        self.f1, self.f2 = pairs[:, 0], pairs[:, 1]
        # column of the (pairs, 4) table: 0 (+,+), 1 (+,−), 2 (−,+), 3 (−,−)
        self.code = np.where(q1, 0, 2) + np.where(q2, 0, 1)

    def counts(self, X, w, total):
        A = (X.T @ (X * w[:, None])).astype(np.float64)
        s = np.diagonal(A)
        a = A[self.f1, self.f2]
        s1, s2 = s[self.f1], s[self.f2]
        table = np.empty((a.size, 4))
        table[:, 0] = a
        table[:, 1] = s1 - a
        table[:, 2] = s2 - a
        table[:, 3] = (total - s1) - (s2 - a)
        return table[self.index, self.code]


class SharedSplit:
    """The noise-independent part of DP rule-list fits on one training set ``(X, y)``.

    ``X``: 0/1 features (DataFrame or array; column names become the rule literals), ``y``: labels
    in {0, 1}. Fits go through :meth:`fit` (one :class:`DPRuleListClassifier` parameter set and a
    Generator) and return the fitted :class:`~dpmodels.rulelist.model.RuleList` and its ledger.
    """

    def __init__(
        self, X, y, max_width: int = 2, memo_size: int = 256, feature_groups="auto", candidates="conjunctions"
    ):
        names = [str(c) for c in X.columns] if hasattr(X, "columns") else [f"x{i}" for i in range(np.shape(X)[1])]
        self.Xb = _binary_matrix(np.asarray(X))
        y = np.asarray(y)
        if not set(np.unique(y).tolist()) <= {0, 1}:
            raise ValueError("SharedSplit needs labels in {0, 1}")
        self.yb = (y == 1).astype(np.int64)
        self.names = names
        self.max_width = int(max_width)
        self.feature_groups = feature_groups
        self.candidates_mode = candidates
        maker = DPRuleListClassifier(max_width=self.max_width, feature_groups=feature_groups, candidates=candidates)
        maker._validate_params()  # the one place these parameters are checked, as in a fit
        self.candidates = maker._make_candidates(X, names)  # the estimator's own (public) candidates
        self.stats = MemoSplitStats(self.candidates, self.Xb, self.yb, maxsize=memo_size)

    @property
    def n(self) -> int:
        return int(self.Xb.shape[0])

    def fit(self, random_state=None, single_thread=True, **params):
        """Fit ``DPRuleListClassifier(**params)`` on the shared split; return ``(rule_list, ledger)``.

        Identical to ``DPRuleListClassifier(**params, random_state=random_state).fit(X, y)``'s
        ``rule_list_`` and ``privacy_ledger_`` (same Generator draws, same counts).
        ``single_thread``: limit BLAS to one thread during the fit, as the estimator does (costs
        ~0.2 ms; pass False inside a block that already runs under ``single_threaded_blas()``).
        """
        if not single_thread:
            return self._fit(random_state, params)
        if params.get("max_width", 2) != self.max_width:
            raise ValueError(f"max_width={params.get('max_width')} differs from the split's {self.max_width}")
        if params.get("feature_groups", "auto") != self.feature_groups:
            raise ValueError("feature_groups differs from the split's: build a SharedSplit with it")
        if params.get("candidates", "conjunctions") != self.candidates_mode:
            raise ValueError("candidates differs from the split's: build a SharedSplit with it")
        if params.get("accountant") is not None:
            raise ValueError("SharedSplit fits spend their own budget: accountant= is not supported")
        with single_threaded_blas():  # as the estimator's fit: small products, BLAS threads only contend
            return self._fit(random_state, params)

    def _fit(self, random_state, params):
        classes = params.get("classes")
        if classes is not None and [c for c in classes] != [0, 1]:
            raise ValueError("SharedSplit fits the label set [0, 1]; encode the labels as 0/1")
        est = DPRuleListClassifier(random_state=random_state, **params)
        if self.n == 0:
            raise ValueError("empty training set")
        eps, delta = est.privacy_params()
        ledger = PrivacyLedger(eps, delta)
        rng = check_random_state(est.random_state)
        est.classes_ = np.array([0, 1])
        rule_list = est._release(self.candidates, self.stats, self.Xb, self.yb, self.names, ledger, rng)
        return rule_list, ledger

    def fit_timed(self, random_state=None, single_thread=True, **params):
        """:meth:`fit` and its wall time in seconds."""
        t = time.perf_counter()
        rl, ledger = self.fit(random_state=random_state, single_thread=single_thread, **params)
        return rl, ledger, time.perf_counter() - t


def binary_matrix(X) -> np.ndarray:
    """The 0/1 float32 matrix the rule lists use (validated)."""
    return _binary_matrix(np.asarray(X))
