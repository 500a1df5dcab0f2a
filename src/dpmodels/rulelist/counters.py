"""The count seam. A greedy rule-list fit touches its data only through a *counter*: at each
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
"""

from __future__ import annotations

import numpy as np

from .candidates import RuleCandidates
from .split_stats import _BLOCK_ROWS, SplitStats

__all__ = ["SourceCounts", "BinaryEncoder", "partition_moments"]


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
