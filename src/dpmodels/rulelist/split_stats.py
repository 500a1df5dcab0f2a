"""The in-memory counter's arithmetic: :class:`SplitStats` (per-candidate class counts of the
remaining records from moments over the distinct rows, updated by the rows whose weights changed),
the count-scaled Gini impurity it ranks by, and the one-thread BLAS the products run under."""

from __future__ import annotations

import functools

import numpy as np
from threadpoolctl import ThreadpoolController

from ._counts import DistinctPairs
from .candidates import RuleCandidates, moments
from .distinct import _distinct_rows

__all__ = ["SplitStats", "count_scaled_gini", "count_scaled_gini_k", "single_threaded_blas"]

_BLOCK_ROWS = 1 << 14  # rows turned into float64 at a time (bounded memory)
_FLOAT_CACHE_CELLS = 1 << 24  # distinct-row cells kept as float64 (128 MB) by SplitStats


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
        self._A: list[np.ndarray] = []  # width 3: [A, T], the moments of the last call's weights
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


@functools.cache
def _threadpool_controller() -> ThreadpoolController:
    return ThreadpoolController()  # scanning the loaded libraries costs ~6 ms: do it once


def single_threaded_blas():
    """The Gram products here are small (p × n × p): BLAS threads only contend (16× slower measured
    on a loaded 2-core machine), so fits run with one BLAS thread."""
    return _threadpool_controller().limit(limits=1, user_api="blas")
