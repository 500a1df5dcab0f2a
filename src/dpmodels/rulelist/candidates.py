"""Rule candidates and their counts: what every rule-list learner reads from the data.

A *candidate rule* is a conjunction of 1 to ``max_width`` literals (a binary column ``x_f`` or its
negation) over distinct columns (:class:`RuleCandidates`). The set depends only on the schema —
column names, their declared groups (:mod:`dpmodels.data.rules`) and ``max_width`` — never on the
rows or the labels, so it is a public input to every private learner (docs/privacy.md,
principle 6).

The count seam. A greedy rule-list fit touches its data only through a *counter*: at each
position, the class counts of the records no chosen rule captures and, for every candidate, of
those it captures among them (``counts()``); the choice of a candidate (``take``); and at the end
the class counts of the partition the rules induce (``partition_histogram()``). Two backends give
the same integers:

- :class:`MemoryCounts` — a 0/1 matrix in memory, counted by :class:`SplitStats` (moments over the
  distinct rows, updated by the rows whose weights changed);
- :class:`SourceCounts` — partitioned input (:mod:`dpmodels.data.sources`): one count pass
  (:func:`dpmodels.data.counts.counts`) per position, whose partition function receives public
  inputs only (the declared columns and label set, the candidate set, the rules released so far)
  and returns the per-class moments — ``literal × literal × class`` — as exact int64 counts of a
  public shape (docs/privacy.md, "Rule lists at scale").

Since both backends produce the same exact integers, and everything after them is a function of
those integers, a fit is the same model with the same ledger on either.

Counting. A learner needs, at every position of a rule list, the number of remaining records (and
of remaining positives) each candidate captures. For ``max_width <= 2`` all those counts come from
one p × p Gram matrix: with weights w (1 for a remaining record), s = Xᵀw, N = Σw and A = Xᵀ diag(w) X,

    #(x_i ∧ x_j) = A_ij,           #(x_i ∧ ¬x_j) = s_i − A_ij,
    #(¬x_i ∧ x_j) = s_j − A_ij,    #(¬x_i ∧ ¬x_j) = N − s_i − s_j + A_ij,

and a single literal is the pair of a literal with itself. One BLAS product per weight vector
replaces an n × |R| boolean matrix. Wider conjunctions fall back to chunked products over an
explicit support matrix.

Exactness: the products run in float64 whatever the input dtype, so with integer weights every
count is an exact integer up to 2^53 (float32 stops being exact at 2^24 records, which would break
the sensitivity proofs of the private learners — docs/privacy.md, principle 16).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from itertools import combinations

import numpy as np
from threadpoolctl import ThreadpoolController

from ..data.rules import _keep_mask, literal_name
from ._counts import DistinctPairs, MemoryCounts

__all__ = [
    "RuleCandidates",
    "moments",
    "SplitStats",
    "MemoryCounts",
    "SourceCounts",
    "count_scaled_gini",
    "count_scaled_gini_k",
    "single_threaded_blas",
]


@dataclass(frozen=True)
class RuleCandidates:
    """All conjunctions of up to ``max_width`` literals over ``feature_names``.

    Attributes
    ----------
    features : int array (m, max_width)
        Column index of each literal of each candidate, padded by repeating the first literal.
    positive : bool array (m, max_width)
        Polarity of each literal (True: ``x_f``, False: ``not x_f``).
    width : int array (m,)
        Number of distinct literals of each candidate.
    """

    feature_names: tuple
    max_width: int
    features: np.ndarray
    positive: np.ndarray
    width: np.ndarray
    n_pruned: int = 0  # candidates dropped because of the declared groups

    # ------------------------------------------------------------------ build
    @classmethod
    def from_features(cls, feature_names, max_width: int = 2, groups=None) -> "RuleCandidates":
        """Every conjunction of ≤ ``max_width`` literals over distinct columns, minus — when
        ``groups`` (a list with one spec or None per column, :func:`check_feature_groups`) is
        given — the conjunctions that are empty or equal to one literal within a group."""
        names = tuple(str(f) for f in feature_names)
        p = len(names)
        if p == 0:
            raise ValueError("at least one binary feature is required")
        if int(max_width) != max_width or max_width < 1:
            raise ValueError(f"max_width must be a positive integer, got {max_width!r}")
        max_width = int(max_width)
        feats, pols, widths = [], [], []
        for w in range(1, min(max_width, p) + 1):
            if w <= 2:  # the same rows as combinations(range(p), w), in the same order
                cols = np.column_stack(np.triu_indices(p, 1) if w == 2 else [np.arange(p)]).astype(np.int64)
            else:
                cols = np.array(list(combinations(range(p), w)), dtype=np.int64).reshape(-1, w)
            # all 2^w polarity patterns (bit k set = literal k negated), one block per pattern
            patt = ((np.arange(2**w)[:, None] >> np.arange(w)[None, :]) & 1) == 0
            f = np.repeat(cols[:, None, :], len(patt), axis=1).reshape(-1, w)
            q = np.broadcast_to(patt[None, :, :], (len(cols), len(patt), w)).reshape(-1, w)
            pad = max_width - w  # pad by repeating the first literal
            feats.append(np.concatenate([f, np.repeat(f[:, :1], pad, axis=1)], axis=1))
            pols.append(np.concatenate([q, np.repeat(q[:, :1], pad, axis=1)], axis=1))
            widths.append(np.full(len(f), w, dtype=np.int64))
        F, P, W = np.concatenate(feats), np.concatenate(pols), np.concatenate(widths)
        n_pruned = 0
        if groups is not None:
            if len(groups) != p:
                raise ValueError(f"groups must have one entry per column ({p}), got {len(groups)}")
            keep = _keep_mask(F, P, groups)
            n_pruned = int((~keep).sum())
            F, P, W = F[keep], P[keep], W[keep]
            if F.shape[0] == 0:
                raise ValueError("the declared feature groups leave no candidate rule")
        return cls(names, max_width, F, P, W, n_pruned)

    @classmethod
    def from_columns(cls, feature_names) -> "RuleCandidates":
        """Each column is one candidate rule, as it is (no negation, no conjunction): for a
        pre-mined rule set whose rules were materialised as 0/1 columns
        (:mod:`dpmodels.data.paper_protocols`). Still a function of the schema only."""
        names = tuple(str(f) for f in feature_names)
        p = len(names)
        if p == 0:
            raise ValueError("at least one binary feature is required")
        F = np.arange(p, dtype=np.int64).reshape(-1, 1)
        return cls(names, 1, F, np.ones((p, 1), dtype=bool), np.ones(p, dtype=np.int64), 0)

    def __len__(self) -> int:
        return int(self.features.shape[0])

    @property
    def n_features(self) -> int:
        return len(self.feature_names)

    def literals(self, i: int) -> list[tuple[int, bool]]:
        """The (column, polarity) literals of candidate ``i``."""
        w = int(self.width[i])
        return [(int(self.features[i, k]), bool(self.positive[i, k])) for k in range(w)]

    def name(self, i: int) -> str:
        return " and ".join(literal_name(self.feature_names[f], pos) for f, pos in self.literals(i))

    @property
    def names(self) -> list[str]:
        return [self.name(i) for i in range(len(self))]

    # --------------------------------------------------------------- counting
    def counts(self, X: np.ndarray, weights: np.ndarray) -> np.ndarray:
        """Weighted number of rows each candidate captures: Σ_i w_i · [rule(x_i)].

        ``X`` is an (n, p) 0/1 array; ``weights`` has length n. Computed in float64 (exact).
        """
        X = np.asarray(X, dtype=np.float64)
        w = np.asarray(weights, dtype=np.float64)
        if self.max_width <= 2:
            s = X.T @ w
            A = X.T @ (X * w[:, None])
            total = w.sum(dtype=np.float64)
            return self._pair_counts(A, s, total)
        if self.max_width == 3:
            total, s, A, T = moments(X, w[:, None], self.pair_rows()[1])
            return self.counts_from_moments(total[0], s[:, 0], A[..., 0], T[..., 0])
        out = np.empty(len(self), dtype=np.float64)
        for lo in range(0, len(self), 2048):
            hi = min(len(self), lo + 2048)
            out[lo:hi] = w @ self._support(X, slice(lo, hi))
        return out

    def counts_many(self, X: np.ndarray, W: np.ndarray) -> np.ndarray:
        """Counts for several weight vectors at once: W is (n, k); returns (k, m). float64 (exact)."""
        X = np.asarray(X, dtype=np.float64)
        W = np.asarray(W, dtype=np.float64)
        if self.max_width <= 2:
            S = X.T @ W  # (p, k)
            totals = W.sum(axis=0, dtype=np.float64)
            out = np.empty((W.shape[1], len(self)))
            for j in range(W.shape[1]):
                A = X.T @ (X * W[:, j : j + 1])
                out[j] = self._pair_counts(A, S[:, j], totals[j])
            return out
        if self.max_width == 3:
            total, s, A, T = moments(X, W, self.pair_rows()[1])
            return np.stack(
                [self.counts_from_moments(total[j], s[:, j], A[..., j], T[..., j]) for j in range(W.shape[1])]
            )
        return np.stack([self.counts(X, W[:, j]) for j in range(W.shape[1])])

    def counts_from_gram(self, A, s, total) -> np.ndarray:
        """Counts of every candidate (``max_width <= 2``) from the weighted Gram matrix
        ``A = Xᵀ diag(w) X``, ``s = Xᵀ w`` and ``total = Σ w`` (module docstring)."""
        if self.max_width > 2:
            raise ValueError("counts_from_gram needs max_width <= 2")
        return self._pair_counts(A, s, total)

    @functools.cached_property
    def _pair_flat(self) -> np.ndarray:
        """``max_width == 2``: each candidate's position in the (4, p, p) table of
        :meth:`_pair_counts` — polarity pattern (+,+), (+,−), (−,+), (−,−), then its two columns
        (a width-1 candidate repeats its literal: the diagonal). Public: the candidates only."""
        p = self.n_features
        f1, f2 = self.features[:, 0], self.features[:, 1]
        code = 2 * (~self.positive[:, 0]) + (~self.positive[:, 1])
        return (code * p + f1) * p + f2

    def _pair_counts(self, A, s, total, idx=slice(None)):
        if self.max_width == 2 and A is not None and isinstance(idx, slice) and idx == slice(None):
            # every pattern's counts on the p × p grid (the four formulas of the module docstring),
            # then one gather: the same exact integers as the expression below
            p = len(s)
            T = np.empty((4, p, p))
            T[0] = A
            np.subtract(s[:, None], A, out=T[1])
            np.subtract(s[None, :], A, out=T[2])
            T[3] = total - s[:, None] - s[None, :] + A
            return T.ravel()[self._pair_flat]
        c = 1 if self.max_width >= 2 else 0  # the second literal (a width-1 candidate repeats the first)
        f1, f2 = self.features[idx, 0], self.features[idx, c]
        p1 = self.positive[idx, 0].astype(np.float64)
        p2 = self.positive[idx, c].astype(np.float64)
        si, sj = s[f1], s[f2]
        a = si if A is None else A[f1, f2]  # width 1: #(x_i ∧ x_i) = s_i, no Gram matrix needed
        return (
            p1 * p2 * a
            + p1 * (1 - p2) * (si - a)
            + (1 - p1) * p2 * (sj - a)
            + (1 - p1) * (1 - p2) * (total - si - sj + a)
        )

    def pair_rows(self):
        """The column pairs (i < j) that start a width-3 candidate: ``(index, pairs)`` with
        ``index[i, j]`` the row of pair (i, j) in ``pairs`` (an (n_pairs, 2) array), -1 if none.
        Depends on the candidate set only (public)."""
        p = self.n_features
        index = np.full((p, p), -1, dtype=np.int64)
        w3 = self.width == 3
        if not w3.any():
            return index, np.zeros((0, 2), dtype=np.int64)
        key = np.unique(self.features[w3, 0] * p + self.features[w3, 1])
        pairs = np.column_stack([key // p, key % p])
        index[pairs[:, 0], pairs[:, 1]] = np.arange(key.size)
        return index, pairs

    def counts_from_moments(self, total, s, A, T=None, pair_index=None) -> np.ndarray:
        """Counts of every candidate (``max_width <= 3``) from the moments of the weights w:
        ``total = Σ w``, ``s = Xᵀ w``, ``A = Xᵀ diag(w) X`` and ``T[r, k] = Σ w x_i x_j x_k`` for
        the pair (i, j) of row r of :meth:`pair_rows` (width 3 only).

        A literal is ``a + b·x`` (``x``: a = 0, b = 1; ``not x``: a = 1, b = −1), so a conjunction of
        three literals on columns i < j < k is the sum over the subsets S of its literals of
        ``Π_{∉S} a · Π_{∈S} b · #(∧_{S} x)``: eight moments with coefficients 0 or ±1. Every term is
        an exact integer in float64 below 2^53, so the count is exact.
        """
        if self.max_width > 3:
            raise ValueError("counts_from_moments needs max_width <= 3")
        if self.max_width <= 2:
            return self._pair_counts(A, s, total)
        out = np.empty(len(self))
        w3 = self.width == 3
        lo = np.flatnonzero(~w3)
        out[lo] = self._pair_counts(A, s, total, lo)
        hi = np.flatnonzero(w3)
        if hi.size:
            if pair_index is None:
                pair_index = self.pair_rows()[0]
            i, j, k = (self.features[hi, c] for c in range(3))
            pos = self.positive[hi].astype(np.float64)
            a, b = 1.0 - pos, 2.0 * pos - 1.0
            ai, aj, ak = a.T
            bi, bj, bk = b.T
            out[hi] = (
                ai * aj * ak * total
                + bi * aj * ak * s[i]
                + ai * bj * ak * s[j]
                + ai * aj * bk * s[k]
                + bi * bj * ak * A[i, j]
                + bi * aj * bk * A[i, k]
                + ai * bj * bk * A[j, k]
                + bi * bj * bk * T[pair_index[i, j], k]
            )
        return out

    def _support(self, X, idx) -> np.ndarray:
        feats = self.features[idx]
        pols = self.positive[idx]
        Xb = X.astype(bool, copy=False)
        out = np.ones((X.shape[0], feats.shape[0]), dtype=bool)
        for k in range(self.max_width):
            lit = Xb[:, feats[:, k]]
            out &= np.where(pols[:, k], lit, ~lit)
        return out.astype(np.float64)

    def support(self, X: np.ndarray, i: int) -> np.ndarray:
        """Boolean mask of the rows of X captured by candidate ``i`` (reads its columns only)."""
        X = np.asarray(X)
        mask = np.ones(X.shape[0], dtype=bool)
        for f, pos in self.literals(i):
            col = X[:, f] != 0
            mask &= col if pos else ~col
        return mask


def moments(X, W, pairs, rows=None):
    """``(total, s, A, T)`` of the weights ``W`` (n, k) over the 0/1 rows ``X`` (n, p) (or the
    subset ``rows``): ``total[j] = Σ W[:, j]``, ``s`` (p, k), ``A`` (p, p, k) and ``T`` (n_pairs, p,
    k) with ``T[r, c, j] = Σ W[:, j] x_a x_b x_c`` for ``(a, b) = pairs[r]``
    (:meth:`RuleCandidates.counts_from_moments`). float64 products of 0/1 values and integer
    weights: exact. The pair products are formed in blocks of rows (bounded memory)."""
    X = np.asarray(X, dtype=np.float64)
    W = np.asarray(W, dtype=np.float64)
    if rows is not None:
        X, W = X[rows], W[rows]
    n, p = X.shape
    k = W.shape[1]
    XW = (X[:, :, None] * W[:, None, :]).reshape(n, p * k)
    total = W.sum(axis=0)
    s = X.T @ W
    A = (X.T @ XW).reshape(p, p, k)
    T = np.zeros((len(pairs), p * k))
    if len(pairs):
        step = max(1, (1 << 22) // max(1, len(pairs)))  # rows per block of the (rows, pairs) products
        for a in range(0, n, step):
            Xa = X[a : a + step]
            T += (Xa[:, pairs[:, 0]] * Xa[:, pairs[:, 1]]).T @ XW[a : a + step]
    return total, s, A, T.reshape(len(pairs), p, k)


def count_scaled_gini(pos, tot):
    """Σ-form of the Gini impurity of one child: 2·a·b/(a+b) with a = pos, b = tot − pos (0 if empty).

    Dividing the sum over both children of a split by ñ gives Eq. (1)+(2) of paper 000; at a fixed
    position every candidate splits the same ñ records, so ranking by this is ranking by Gini.
    Under add/remove of one record it changes by < 2 (docs/privacy.md, principle 2; see ``docs/privacy.md``).
    """
    pos = np.asarray(pos, dtype=float)
    tot = np.asarray(tot, dtype=float)
    neg = tot - pos
    return np.divide(2.0 * pos * neg, tot, out=np.zeros(np.broadcast(pos, tot).shape), where=tot > 0)


def count_scaled_gini_k(counts, tot):
    """K-class count-scaled Gini of one child: n − Σ_k a_k²/n with n = ``tot`` (0 if empty).

    ``counts``: the class counts a_k along the first axis (shape (K, ...)). For K = 2 it equals
    :func:`count_scaled_gini` (n − (a² + b²)/n = 2ab/n). Under add/remove of one record it changes
    by a value in [0, 2) (``docs/privacy.md``, "Rule lists over K classes").
    """
    a = np.asarray(counts, dtype=float)
    tot = np.asarray(tot, dtype=float)
    sq = (a * a).sum(axis=0)
    return np.divide(tot * tot - sq, tot, out=np.zeros(np.broadcast(sq, tot).shape), where=tot > 0)


def _dense_and_rare_columns(Q8: np.ndarray):
    """``(dense, rare)``: the columns of the 0/1 rows ``Q8`` split for :meth:`SplitStats._product`
    (both ascending; ``rare`` empty: no split). With m rows the Gram matrix costs ≈ m·p²/2
    multiply-adds as one symmetric product; with the k rarest columns apart, ≈ m·(p − k)²/2 for
    the dense block plus r_k·k·p for the rare columns' rows, r_k the rows holding a rare column
    (bounded by the sum of their supports, exact for the columns of one one-hot feature). k
    minimises that estimate, the supports read from at most 4,096 evenly spaced rows. The split
    only changes which exact products are summed, never a count."""
    m, p = Q8.shape
    every = np.arange(p)
    if m == 0 or p < 2:
        return every, every[:0]
    step = max(1, m // 4096)
    sup = Q8[::step].sum(axis=0, dtype=np.int64) * step
    order = np.argsort(sup, kind="stable")  # rarest first
    k = np.arange(p + 1)
    rows = np.minimum(m, np.concatenate([[0], np.cumsum(sup[order])]))
    cost = m * (p - k) ** 2 / 2 + rows * k * p
    best = int(np.argmin(cost))
    if best == 0 or cost[best] > 0.8 * cost[0]:  # not worth a second product
        return every, every[:0]
    return np.sort(order[best:]), np.sort(order[:best])


class SplitStats:
    """Counts of the remaining records captured by every candidate (vectorised, no noise).

    Whether a rule captures a record depends only on the record's row of binary features, so the
    products run over the *distinct* rows, weighted by how many remaining records of each class
    share each row (~10× fewer rows on binarized Adult). The distinct rows are kept as uint8 and
    turned into float64 a block at a time; every product is float64 over 0/1 values and integer
    weights, so every count is an exact integer up to 2^53 records (float32 would stop being exact
    above 2^24 and break the sensitivity proofs, docs/privacy.md, principle 16).

    ``max_width <= 2``: one Gram matrix per class k, A_k = Xᵀ diag(w_k) X over the distinct rows
    that hold a remaining record of class k, as a symmetric rank-k product (BLAS ``syrk``, half
    the work of a general product) over the rows of weight 1 plus a weighted product over the
    others. The weight columns of the counts are then [every class, class 1, …, class K−1]:
    A = Σ_k A_k. Successive calls of a rule-list fit only remove records, so A_k is *downdated*
    by the distinct rows whose weights changed when they are fewer than half the rows still
    holding class k (exact integer weights, like the full product). Rare columns (e.g. the
    categories of a one-hot feature with many values) are set apart: their rows of A_k come from
    the few rows holding one of them, the rest from a product over the dense columns only
    (:func:`_dense_and_rare_columns`). Which rows are distinct, which are downdated and which
    columns are rare change only which exact products are summed, never a count: the running
    time, which is not part of a release (docs/privacy.md says the same of the JointExp quantile
    sampler's arithmetic routes).

    ``n_classes`` K: y holds class indices 0..K−1. K = 2: ``P`` and ``captured_pos`` count class 1
    (a scalar and a vector). K > 2: one weight column per class 1..K−1, so ``P`` has shape (K−1,)
    and ``captured_pos`` (K−1, candidates); class 0 is the rest.
    """

    def __init__(self, candidates: RuleCandidates, Xf: np.ndarray, y: np.ndarray, n_classes: int = 2):
        self.candidates = candidates
        K = self.n_classes = int(n_classes)
        self.yk = np.ascontiguousarray(y, dtype=np.int64)
        # the distinct rows (0/1 uint8), their packed bytes and their records of each class
        # (4-byte row keys when p <= 32, else packed words: :mod:`._counts`)
        d = DistinctPairs.from_keys(Xf, self.yk, K)
        if d is None:
            _, inverse, rows, packed = _distinct_rows(Xf, return_rows=True)
            d = DistinctPairs.from_inverse(rows, packed, inverse, self.yk, K)
        self._P8, self._B8, self._present = d.rows, d.packed, d.present
        self._distinct = d
        self._inverse: np.ndarray | None = None
        self._y: np.ndarray | None = None
        self._patterns: np.ndarray | None = None
        self._W: np.ndarray | None = None  # width 3: (m, J) float64 weights of the last call
        self._A: list | None = None
        self._pairs: tuple | None = None  # width 3: the column pairs of the third-order moments
        if candidates.max_width != 2:
            return
        # width 2: the distinct (row, class) pairs, ordered by class and, within a class, the rows
        # of weight 1 first — so that the first call's products run on contiguous slices
        present = self._present
        uniq = np.flatnonzero(present)  # the distinct pairs (row·K + class), ascending
        w0 = present[uniq]  # each pair's number of records
        # by class, then weight 1 before heavier (a stable radix sort of a small key)
        order = np.argsort(((uniq % K) * 2 + (w0 != 1)).astype(np.int16 if K < 16384 else np.int64), kind="stable")
        self._pair_flat = uniq[order]  # each pair's entry of a (row, class) table, in the new order
        self._pair_class = (uniq % K)[order]
        self._slices = np.searchsorted(self._pair_class, np.arange(K + 1))
        rows = (uniq // K)[order]
        Q8 = np.take(self._P8, rows, axis=0)  # the pairs' rows, 0/1 uint8
        # rare columns apart: the Gram matrix is the dense columns' block (syrk over every pair)
        # plus the rare columns' rows (a product over the few pairs holding a rare column)
        self._D, self._S = _dense_and_rare_columns(Q8)
        if self._S.size:  # a distinct row holds a rare column when its packed bytes meet theirs
            is_rare = np.zeros(Q8.shape[1], dtype=bool)
            is_rare[self._S] = True
            mask = np.packbits(is_rare, bitorder="little")
            used = np.flatnonzero(mask)  # the bytes holding a rare column
            self._has_rare = np.asarray((self._B8[:, used] & mask[used]).any(axis=1))[rows]
        else:
            self._has_rare = np.zeros(Q8.shape[0], dtype=bool)
        self._R = np.flatnonzero(self._has_rare)  # the pairs holding a rare column, ascending
        self._R_pos = np.cumsum(self._has_rare) - 1  # a pair's row in the rare block (where it has one)
        # float64 cells of the copies below (the dense block, the rare pairs twice): within the cap
        cached = Q8.shape[0] * self._D.size + self._R.size * (Q8.shape[1] + self._S.size) <= _FLOAT_CACHE_CELLS
        # float64 copies when they fit: the dense columns of every pair (C-contiguous), the rare
        # pairs with every column and with their rare columns; else uint8 rows, converted per block
        self._Qd = self._QR = self._QRs = self._Q8 = None
        if cached:
            self._Qd = (np.take(Q8, self._D, axis=1) if self._S.size else Q8).astype(np.float64)
            R8 = np.take(Q8, self._R, axis=0)
            self._QR = R8.astype(np.float64)
            self._QRs = np.take(R8, self._S, axis=1).astype(np.float64)
        else:
            self._Q8 = Q8
        self._w: np.ndarray | None = None  # pair weights of the last call and the Gram matrices
        self._Ak: list | None = None

    @property
    def inverse(self) -> np.ndarray:
        """Each record's distinct row, (n,) int64 (built on first use: per-record callers only)."""
        if self._inverse is None:
            self._inverse = self._distinct.record_rows()
        return self._inverse

    @property
    def y(self) -> np.ndarray:
        """The labels as float64 (K = 2) or one exact 0/1 indicator column per class 1..K−1."""
        if self._y is None:
            K = self.n_classes
            if K == 2:
                self._y = self.yk.astype(np.float64)
            else:
                self._y = (self.yk[:, None] == np.arange(1, K)[None, :]).astype(np.float64)
        return self._y

    @property
    def distinct_rows(self) -> np.ndarray:
        """The distinct rows, (m, p) uint8 0/1, in order of first appearance."""
        return self._P8

    def row_class_counts(self) -> np.ndarray:
        """(m, K) int64: the records of each class sharing each distinct row."""
        return self._present.reshape(-1, self.n_classes)

    @property
    def patterns(self) -> np.ndarray:
        """The distinct rows as float64 (built on first use)."""
        if self._patterns is None:
            self._patterns = self._P8.astype(np.float64)
        return self._patterns

    def _dense_rows(self, r):
        """The float64 dense columns of the pairs ``r`` (a slice or an index array)."""
        if self._Qd is not None:
            return self._Qd[r] if isinstance(r, slice) else np.take(self._Qd, r, axis=0)
        assert self._Q8 is not None
        rows = self._Q8[r]
        return (np.take(rows, self._D, axis=1) if self._S.size else rows).astype(np.float64)

    def _rare_rows(self, r):
        """``(all, rare)``: the float64 rows of the pairs ``r`` (each holding a rare column),
        every column and the rare columns only."""
        if self._QR is not None:
            assert self._QRs is not None
            i = self._R_pos[r]
            return np.take(self._QR, i, axis=0), np.take(self._QRs, i, axis=0)
        assert self._Q8 is not None
        Xr = self._Q8[r].astype(np.float64)
        return Xr, Xr[:, self._S]

    def _product(self, r, w):
        """Σ_{i ∈ r} w_i q_i q_iᵀ (float64, exact); ``w`` None: weights 1, symmetric rank-k
        products (``X.T @ X`` on one operand: BLAS ``syrk``, half the work). The dense columns'
        block is a product over every pair of ``r``; the rare columns' rows (rare × every
        column) a product over the pairs of ``r`` that hold a rare column — every other pair adds
        zeros there — mirrored into the rare columns (:func:`_dense_and_rare_columns`)."""
        p, D, S = self._P8.shape[1], self._D, self._S
        Add = np.zeros((D.size, D.size))
        Ar = np.zeros((S.size, p))
        if isinstance(r, slice) and (self._Qd is None or w is not None):
            r = np.arange(r.start, r.stop)
        if isinstance(r, slice):  # contiguous pairs of the float64 copies: views, no gather
            assert self._Qd is not None and self._QR is not None and self._QRs is not None
            if r.stop > r.start:
                Xd = self._Qd[r]
                Add += Xd.T @ Xd
                lo, hi = np.searchsorted(self._R, [r.start, r.stop])
                if hi > lo:
                    Ar += self._QRs[lo:hi].T @ self._QR[lo:hi]
        else:
            for a in range(0, r.size, _BLOCK_ROWS):
                b = r[a : a + _BLOCK_ROWS]
                Xd = self._dense_rows(b)
                Add += Xd.T @ Xd if w is None else Xd.T @ (Xd * w[b].astype(np.float64)[:, None])
                rb = b[self._has_rare[b]]
                if rb.size:
                    Xr, Xrs = self._rare_rows(rb)
                    Ar += Xrs.T @ (Xr if w is None else Xr * w[rb].astype(np.float64)[:, None])
        if not S.size:
            return Add
        A = np.empty((p, p))
        A[np.ix_(D, D)] = Add
        A[S, :] = Ar
        A[:, S] = Ar.T
        return A

    def _gram(self, k, w):
        """Class k's Gram matrix for the pair weights ``w``: ``syrk`` over the rows of weight 1
        (a contiguous slice on the first call), a weighted product over the heavier ones."""
        lo, hi = int(self._slices[k]), int(self._slices[k + 1])
        wk = w[lo:hi]
        ones = wk == 1
        n1 = int(ones.sum())
        if n1 and ones[:n1].all():  # the weight-1 rows are still the leading ones
            A = self._product(slice(lo, lo + n1), None)
            heavy = lo + n1 + np.flatnonzero(wk[n1:] > 1)
        else:
            A = self._product(lo + np.flatnonzero(ones), None)
            heavy = lo + np.flatnonzero(wk > 1)
        return A + self._product(heavy, w)

    def __call__(self, remaining: np.ndarray):
        """Return (N, P, captured, captured_pos) for the remaining mask, (n,) bool over the
        records (see the class docstring for the shapes with K > 2 classes)."""
        m, K = self._P8.shape[0], self.n_classes
        code = self.inverse * K + self.yk
        return self._counts(np.bincount(code[remaining], minlength=m * K))  # exact int64

    def counts_of_rows(self, remaining_rows: np.ndarray):
        """:meth:`__call__` for the records of the distinct rows ``remaining_rows`` ((m,) bool):
        every record of a row is captured by the same rules, so a counter that keeps its state
        per row (:class:`._counts.MemoryCounts`) never reads the records again."""
        return self._counts(self._present * np.repeat(remaining_rows, self.n_classes))

    def _counts(self, table: np.ndarray):
        """The counts from the remaining records of each (row, class) pair, ``table`` (m·K,) int64."""
        K = self.n_classes
        width = self.candidates.max_width
        if width == 2:
            w = table[self._pair_flat]  # each pair's remaining records
            tk = np.bincount(self._pair_class, weights=w, minlength=K).astype(np.int64)
            totals = np.array([tk.sum(), *tk[1:]], dtype=np.float64)
            Ak = self._update_grams(w)
            A = [sum(Ak), *Ak[1:]]
            # x_i² = x_i: the column sums are the Gram matrix's diagonal
            counts = [
                self.candidates.counts_from_gram(A[j], np.diagonal(A[j]).copy(), float(totals[j])) for j in range(K)
            ]
        else:
            Wk = table.reshape(-1, K)
            tk = Wk.sum(axis=0)
            totals = np.array([tk.sum(), *tk[1:]], dtype=np.float64)
            W = np.column_stack([Wk.sum(axis=1), Wk[:, 1:]]).astype(np.float64)
            if width == 1:  # single literals: column sums only
                S = self.patterns.T @ W
                counts = [self.candidates.counts_from_moments(float(totals[j]), S[:, j], None) for j in range(K)]
            elif width == 3:
                counts = self._width3(W, totals)
            else:
                counts = list(self.candidates.counts_many(self.patterns, W))
        if K == 2:
            return float(totals[0]), float(totals[1]), counts[0], counts[1]
        return float(totals[0]), np.asarray(totals[1:], dtype=float), counts[0], np.stack(counts[1:])

    def _update_grams(self, w):
        """The per-class Gram matrices for the pair weights ``w``: recomputed, or downdated by the
        pairs whose weights changed since the last call, whichever costs less. A pair that lost
        one record is subtracted by a symmetric product (half the work of a weighted one), as
        the rows of weight 1 are added by one; in units of a symmetric product per row, a
        downdate costs (lost one) + 2·(other changes), a recomputation (weight 1) + 2·(heavier)."""
        K = self.n_classes
        if self._Ak is None or self._w is None:
            self._Ak = [self._gram(k, w) for k in range(K)]
        else:
            d = w - self._w
            for k in range(K):
                lo, hi = int(self._slices[k]), int(self._slices[k + 1])
                changed = lo + np.flatnonzero(d[lo:hi])
                if not changed.size:
                    continue
                unit = d[changed] == -1
                wk = w[lo:hi]
                n1 = int(np.count_nonzero(wk == 1))
                if changed.size + int((~unit).sum()) < n1 + 2 * (int(np.count_nonzero(wk)) - n1):
                    self._Ak[k] -= self._product(changed[unit], None)
                    if not unit.all():
                        self._Ak[k] += self._product(changed[~unit], d)
                else:
                    self._Ak[k] = self._gram(k, w)
        self._w = w
        return self._Ak

    def _width3(self, W, totals):
        """Counts of conjunctions of up to three literals from the moments of the weights (up to
        third order, :func:`~dpmodels.data.rules.moments`), one array per column of ``W``, updated
        by the distinct rows whose weights changed since the last call (exact integer downdates,
        like the Gram matrices)."""
        cands = self.candidates
        if self._pairs is None:
            self._pairs = cands.pair_rows()
        index, pairs = self._pairs
        changed = None if self._W is None else np.flatnonzero((W != self._W).any(axis=1))
        if changed is None or 2 * changed.size > len(W):
            _, s, A, T = moments(self.patterns, W, pairs)
            self._A = [A, T]
        elif changed.size:
            _, _, dA, dT = moments(self.patterns, W - self._W, pairs, rows=changed)
            self._A[0] += dA
            self._A[1] += dT
        self._W = W
        A, T = self._A
        s = self.patterns.T @ W
        return [
            cands.counts_from_moments(float(totals[j]), s[:, j], A[..., j], T[..., j], index) for j in range(W.shape[1])
        ]

    @staticmethod
    def split_impurity(N, P, cap, cap_pos):
        """Count-scaled Gini of every candidate split (captured child + uncaptured child); K > 2
        classes when ``P`` is a vector (:func:`count_scaled_gini_k`)."""
        if np.ndim(P) == 0:
            return count_scaled_gini(cap_pos, cap) + count_scaled_gini(P - cap_pos, N - cap)
        P = np.asarray(P, dtype=float)[:, None]
        inside = np.vstack([cap - cap_pos.sum(axis=0), cap_pos])
        outside_pos = P - cap_pos
        outside = np.vstack([(N - cap) - outside_pos.sum(axis=0), outside_pos])
        return count_scaled_gini_k(inside, cap) + count_scaled_gini_k(outside, N - cap)

    @staticmethod
    def node_impurity(N, P) -> float:
        """Count-scaled Gini of the remaining records as one child (the "stop" candidate)."""
        if np.ndim(P) == 0:
            return float(count_scaled_gini(P, N))
        P = np.asarray(P, dtype=float)
        return float(count_scaled_gini_k(np.concatenate([[N - P.sum()], P]), N))

    @staticmethod
    def class_counts(N, P, cap=None, cap_pos=None, k=None) -> np.ndarray:
        """Class counts (K,) of the remaining records, or of the records candidate ``k`` captures."""
        if cap is None:
            tot, pos = N, P
        else:
            tot, pos = cap[k], (cap_pos[k] if np.ndim(P) == 0 else cap_pos[:, k])
        pos = np.atleast_1d(np.asarray(pos, dtype=float))
        return np.concatenate([[float(tot) - pos.sum()], pos])


_PACK_BLOCK = 1 << 18  # records packed at a time from a column-major matrix (bounded memory)


def _row_bytes(X: np.ndarray) -> np.ndarray:
    """Each 0/1 row packed into ⌈p/8⌉ bytes, (n, ⌈p/8⌉) uint8: column j is bit j mod 8 of byte
    ⌊j/8⌋ (``np.packbits(X, axis=1, bitorder="little")``; checked by the tests).

    A row-major matrix goes through ``np.packbits``. A column-major one (what a DataFrame's
    ``to_numpy`` gives) would be slow to read row by row, so its columns — each contiguous — are
    shifted into place and OR-ed together, eight records at a time: a block of columns is copied
    to rows padded to a multiple of 8 bytes and read as uint64, and since every byte is 0 or 1, a
    shift by j mod 8 < 8 moves each byte's bit inside its byte, whatever the byte order. The
    result is a (non-contiguous) view of shape (n, ⌈p/8⌉)."""
    X = np.asarray(X)
    if X.dtype != np.uint8 and X.dtype != bool:
        X = X != 0
    n, p = X.shape
    if not (X.flags.f_contiguous and not X.flags.c_contiguous and n):
        return np.packbits(X, axis=1, bitorder="little")
    Xt = X.T.view(np.uint8)  # (p, n), C-contiguous: row j is column j of X (0/1 bytes)
    nb = -(-p // 8)
    out = np.empty((nb, n), dtype=np.uint8)
    shifts = np.arange(8, dtype=np.uint64)
    for a in range(0, n, _PACK_BLOCK):
        L = min(n, a + _PACK_BLOCK) - a
        L8 = -(-L // 8) * 8
        buf = np.empty((p, L8), dtype=np.uint8)
        buf[:, :L] = Xt[:, a : a + L]
        buf[:, L:] = 0
        src = buf.view(np.uint64)  # (p, L8 / 8): eight records a word
        acc = np.zeros((nb, L8 // 8), dtype=np.uint64)
        tmp = np.empty(L8 // 8, dtype=np.uint64)
        for j in range(p):
            np.left_shift(src[j], shifts[j & 7], out=tmp)
            np.bitwise_or(acc[j >> 3], tmp, out=acc[j >> 3])
        out[:, a : a + L] = acc.view(np.uint8)[:, :L]
    return out.T


def _row_words(X, row_bytes: np.ndarray | None = None) -> np.ndarray:
    """Each 0/1 row packed into 64-bit words, (n, ⌈p/64⌉) uint64 (a row's key, nothing more): the
    bytes of :func:`_row_bytes` (or ``row_bytes``, already computed) padded with zeros to a
    multiple of eight."""
    b = _row_bytes(X) if row_bytes is None else row_bytes
    n, nbytes = b.shape
    words = max(1, -(-nbytes // 8))
    buf = np.zeros((n, words * 8), dtype=np.uint8)
    buf[:, :nbytes] = b
    return buf.view(np.uint64)


_MIX = np.uint64(0x9E3779B97F4A7C15)  # an odd 64-bit multiplier (2^64 / golden ratio)


def _first_of_groups(codes: np.ndarray) -> np.ndarray:
    """The first row of each group, for groups numbered in order of first appearance: a row is
    the first of its group exactly when its code exceeds every earlier code."""
    seen = np.maximum.accumulate(codes)
    return np.flatnonzero(np.concatenate([[True], codes[1:] > seen[:-1]]))


def _group_words(keys: np.ndarray):
    """``(first, codes)``: the rows of ``keys`` (n, w) uint64 grouped by equality, groups numbered
    in order of first appearance (``pandas.factorize``: hashing, linear in n).

    One word: factorised as it is. Several: the words are mixed into one 64-bit hash (multiply
    by an odd constant, xor the next word), factorised, and the grouping is *verified* — every
    row equal, word for word, to the first row of its group; a hash collision (two different
    rows in one group) fails the check and the words are grouped exactly instead, one at a time:
    the codes so far and the next word's codes combined into one integer (< n², exact in int64)
    and factorised again. Either way the groups are exactly the distinct rows."""
    import pandas as pd

    if keys.shape[1] > 1:
        h = keys[:, 0].copy()
        for j in range(1, keys.shape[1]):
            h *= _MIX
            h ^= keys[:, j]
        codes = pd.factorize(h)[0].astype(np.int64)
        first = _first_of_groups(codes)
        if np.array_equal(np.take(np.take(keys, first, axis=0), codes, axis=0), keys):
            return first, codes
    codes, _ = pd.factorize(keys[:, 0])
    for j in range(1, keys.shape[1]):
        c2, u2 = pd.factorize(keys[:, j])
        codes, _ = pd.factorize(codes.astype(np.int64) * len(u2) + c2)
    codes = codes.astype(np.int64)
    return _first_of_groups(codes), codes


def _distinct_rows(Xf: np.ndarray, *, return_rows: bool = False):
    """``(first, inverse)``: the index of one row per distinct 0/1 row, and each row's group;
    with ``return_rows``, also the distinct rows themselves ((len(first), p) uint8, 0/1,
    unpacked from their packed bytes: no gather of rows from a column-major matrix) and their
    packed bytes (:func:`_row_bytes`).

    Rows are packed into 64-bit words (:func:`_row_words`) and grouped by hashing
    (:func:`_group_words`, linear in n; a sort would be n log n).
    """

    Xf = np.asarray(Xf)
    p = Xf.shape[1]
    row_bytes = _row_bytes(Xf)
    keys = _row_words(Xf, row_bytes)
    n = keys.shape[0]
    if n == 0:
        first = np.zeros(0, dtype=np.int64)
        codes = np.zeros(0, dtype=np.int64)
    else:
        first, codes = _group_words(keys)
    if not return_rows:
        return first, codes
    packed = row_bytes[first]
    return first, codes, np.unpackbits(packed, axis=1, count=p, bitorder="little"), packed


@functools.cache
def _threadpool_controller() -> ThreadpoolController:
    return ThreadpoolController()  # scanning the loaded libraries costs ~6 ms: do it once


def single_threaded_blas():
    """The Gram products here are small (p × n × p): BLAS threads only contend (16× slower measured
    on a loaded 2-core machine), so fits run with one BLAS thread."""
    return _threadpool_controller().limit(limits=1, user_api="blas")


# ------------------------------------------------------------------------------- the count seam
def _moment_length(cands: RuleCandidates, n_pairs: int) -> int:
    """Length of one class's row of a moment pass: [N, s (p), A (p²) if width ≥ 2, T (pairs·p) if
    width 3] — or [N, one count per candidate] beyond width 3. Public: a function of the candidates."""
    p = cands.n_features
    w = cands.max_width
    if w == 1:
        return 1 + p
    if w == 2:
        return 1 + p + p * p
    if w == 3:
        return 1 + p + p * p + n_pairs * p
    return 1 + len(cands)


_BLOCK_ROWS = 1 << 14  # rows turned into float64 at a time (bounded memory)
_FLOAT_CACHE_CELLS = 1 << 24  # distinct-row cells kept as float64 (128 MB) by SplitStats


def partition_moments(cands: RuleCandidates, Z: np.ndarray, rows: np.ndarray, pairs: np.ndarray) -> np.ndarray:
    """One class's moment row (:func:`_moment_length`) over the records ``rows`` of the 0/1 matrix ``Z``.

    The products run in float64 over blocks of rows: every partial sum is an integer below 2^53, so
    the int64 result is exact (docs/privacy.md, principle 16).
    """
    p = cands.n_features
    w = cands.max_width
    out = np.zeros(_moment_length(cands, len(pairs)), dtype=np.float64)
    out[0] = rows.size
    for a in range(0, rows.size, _BLOCK_ROWS):
        Xf = Z[rows[a : a + _BLOCK_ROWS]].astype(np.float64)
        if w > 3:
            for lo in range(0, len(cands), 2048):
                hi = min(len(cands), lo + 2048)
                out[1 + lo : 1 + hi] += cands._support(Xf, slice(lo, hi)).sum(axis=0)
            continue
        out[1 : 1 + p] += Xf.sum(axis=0)
        if w >= 2:
            out[1 + p : 1 + p + p * p] += (Xf.T @ Xf).ravel()
        if w == 3 and len(pairs):
            out[1 + p + p * p :] += ((Xf[:, pairs[:, 0]] * Xf[:, pairs[:, 1]]).T @ Xf).ravel()
    return out.astype(np.int64)


class _RulePass:
    """Shared by the passes: a partition as its 0/1 matrix, class indices and the remaining mask
    under the released rules (public inputs only: columns, label set, candidates, chosen rules)."""

    def __init__(self, encode, cands: RuleCandidates, chosen, n_classes: int):
        self.encode, self.cands, self.chosen, self.n_classes = encode, cands, tuple(chosen), int(n_classes)

    def _rows(self, X, y):
        Z, yi = self.encode(X, y)
        part = np.full(Z.shape[0], len(self.chosen), dtype=np.int64)
        remaining = np.ones(Z.shape[0], dtype=bool)
        for i, c in enumerate(self.chosen):
            captured = remaining & self.cands.support(Z, c)
            part[captured] = i
            remaining &= ~captured
        return Z, yi, remaining, part


class _MomentPass(_RulePass):
    """(K, L) int64: per class, the moments of the remaining records (:func:`partition_moments`)."""

    def __init__(self, encode, cands, chosen, n_classes, pairs):
        super().__init__(encode, cands, chosen, n_classes)
        self.pairs = pairs

    def __call__(self, X, y):
        Z, yi, remaining, _ = self._rows(X, y)
        rows = [np.flatnonzero(remaining & (yi == k)) for k in range(self.n_classes)]
        return np.stack([partition_moments(self.cands, Z, r, self.pairs) for r in rows])


class _HistogramPass(_RulePass):
    """(chosen + 1, K) int64: class counts of each chosen rule's disjoint support, then the rest."""

    def __call__(self, X, y):
        _, yi, _, part = self._rows(X, y)
        K = self.n_classes
        return np.bincount(part * K + yi, minlength=K * (len(self.chosen) + 1)).reshape(-1, K).astype(np.int64)


class SourceCounts:
    """The counts of a rule-list fit from partitioned input, one count pass at a time.

    ``encode(X_part, y_part)`` → ``(Z, y_idx)``: the partition's 0/1 matrix (uint8) over the
    declared columns and its labels as indices into the declared label set (schema errors raise
    there). ``counts()`` runs one moment pass for the current rules (cached until the next
    ``take``), ``partition_histogram()`` one histogram pass; ``take`` and the class totals reuse
    the last moment pass. The results equal :class:`MemoryCounts`' on the concatenated data:
    the same exact integers, turned into the same float64 counts by the same formulas.
    """

    def __init__(self, source, cands: RuleCandidates, encode, n_classes: int):
        self.source, self.cands, self.encode = source, cands, encode
        self.n_classes = int(n_classes)
        self.chosen: list[int] = []
        self._index: np.ndarray | None = None
        self._pairs: np.ndarray = np.zeros((0, 2), np.int64)
        if cands.max_width == 3:
            self._index, self._pairs = cands.pair_rows()
        self._cache: tuple | None = None  # (counts tuple, remaining class counts) of the current rules
        self._totals: np.ndarray | None = None  # class counts of all records (the first moment pass)
        self.n_passes = 0

    def _pass(self, fn, shape):
        from ..data.counts import counts

        self.n_passes += 1
        return counts(self.source, fn, shape)

    def counts(self):
        if self._cache is None:
            K = self.n_classes
            L = _moment_length(self.cands, len(self._pairs))
            M = self._pass(_MomentPass(self.encode, self.cands, self.chosen, K, self._pairs), (K, L))
            self._cache = (self._from_moments(M), M[:, 0].copy())
            if not self.chosen:
                self._totals = M[:, 0].copy()
        return self._cache[0]

    def _from_moments(self, M):
        """(N, P, captured, captured_pos) as :class:`SplitStats` returns them, from per-class moments:
        the weight columns are [every class, class 1, …, class K−1]."""
        cands, K, p, w = self.cands, self.n_classes, self.cands.n_features, self.cands.max_width
        cols = [M.sum(axis=0), *(M[k] for k in range(1, K))]
        totals = np.array([c[0] for c in cols], dtype=np.float64)
        counts = []
        for c in cols:
            total, s = float(c[0]), c[1 : 1 + p].astype(np.float64)
            if w == 1:
                counts.append(cands.counts_from_moments(total, s, None))
            elif w == 2:
                counts.append(
                    cands.counts_from_gram(c[1 + p : 1 + p + p * p].reshape(p, p).astype(np.float64), s, total)
                )
            elif w == 3:
                A = c[1 + p : 1 + p + p * p].reshape(p, p).astype(np.float64)
                T = c[1 + p + p * p :].reshape(len(self._pairs), p).astype(np.float64)
                counts.append(cands.counts_from_moments(total, s, A, T, self._index))
            else:
                counts.append(c[1:].astype(np.float64))
        if K == 2:
            return float(totals[0]), float(totals[1]), counts[0], counts[1]
        return float(totals[0]), np.asarray(totals[1:], dtype=float), counts[0], np.stack(counts[1:])

    @property
    def n(self) -> int:
        return int(self.class_totals().sum())

    def class_totals(self) -> np.ndarray:
        if self._totals is None:
            if self.chosen:
                self._totals = self._pass(
                    _HistogramPass(self.encode, self.cands, (), self.n_classes), (1, self.n_classes)
                )[0]
            else:
                self.counts()
        assert self._totals is not None  # set by the passes above
        return self._totals

    def take(self, c: int) -> np.ndarray:
        N, P, cap, cap_pos = self.counts()
        hist = SplitStats.class_counts(N, P, cap, cap_pos, c).astype(np.int64)
        self.chosen.append(int(c))
        self._cache = None
        return hist

    def remaining_histogram(self) -> np.ndarray:
        if self._cache is not None:
            return self._cache[1].copy()
        return self.partition_histogram()[-1]

    def partition_histogram(self) -> np.ndarray:
        K = self.n_classes
        return self._pass(_HistogramPass(self.encode, self.cands, self.chosen, K), (len(self.chosen) + 1, K))


class BinaryEncoder:
    """A partition as ``(Z, y_idx)``: the declared columns as a validated 0/1 uint8 matrix and the
    labels as indices into the declared label set (``classes``; None: the schema {0, 1}).

    Public inputs only; a value other than 0/1 or a label outside the label set is a schema error
    raised by the partition that holds it (the same one-line errors as the in-memory fit).
    """

    def __init__(self, columns, classes, binary: bool, transform=None):
        self.columns, self.classes, self.binary = list(columns), classes, bool(binary)
        self.transform = transform  # a fitted step applied to the raw partition first (a Binarizer)

    def __call__(self, X, y):
        from .._binary import binary_matrix
        from ..validation import check_y, resolve_classes

        if self.transform is not None:
            X = self.transform(X)
        Z = binary_matrix(X[self.columns].to_numpy() if hasattr(X, "columns") else X, np.uint8)
        y = check_y(y)
        if y.shape[0] != Z.shape[0]:
            raise ValueError(f"a partition has {Z.shape[0]} feature rows but {y.shape[0]} labels")
        _, y_idx = resolve_classes(self.classes, y, None, binary=self.binary)
        return Z, np.asarray(y_idx, dtype=np.int64)
