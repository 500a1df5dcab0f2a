"""The in-memory count seam of the rule lists at scale: distinct (row, class) pairs from 4-byte
row keys, and a counter that keeps its state per distinct row.

A rule's support depends on a record only through its row of binary features, so a greedy
rule-list fit needs, from its n records, only the number of records of each class that share each
distinct row (:class:`DistinctPairs`). With p ≤ 32 columns a row is one integer below 2^32: the
columns are packed into it eight at a time (one multiply per 8 columns: the 0/1 bytes of a 64-bit
word gathered into its top byte), the class is appended (``key·K + y``), and one hash pass
(``pandas.factorize``, linear in n) groups the records into their distinct (row, class) pairs.
Wider rows go through the byte-packing and word-hashing route of
:func:`dpmodels.rulelist.distinct._distinct_rows`.

After that nothing reads the n records again: :class:`MemoryCounts` keeps which distinct rows are
still uncaptured and which rule captured the others, and a chosen rule's support is evaluated on
the distinct rows. Every count is the same exact integer as a per-record count (a sum of the
records' 0/1 memberships, grouped), so a fit releases exactly what it did per record.
"""

from __future__ import annotations

import sys
from collections.abc import Callable

import numpy as np

__all__ = ["DistinctPairs", "MemoryCounts", "row_keys"]

_MULT = np.uint64(0x0102040810204080)  # byte i (0/1) of a little-endian word -> bit 56 + i
_KEY_BLOCK = 1 << 15  # records packed at a time (their words and keys stay in the cache)
_HASH_HINT = 1 << 16  # initial size of the pairs' hash table


def row_keys(X: np.ndarray, y: np.ndarray | None = None, n_classes: int = 1) -> np.ndarray | None:
    """Each 0/1 row of ``X`` (n, p ≤ 32; uint8 or bool, C- or F-contiguous) as an integer whose
    bit j is column j, times ``n_classes`` plus its class ``y`` (int64 in 0..K−1) when ``y`` is
    given: (n,) uint64. None when the case does not apply (more than 32 columns, another layout or
    dtype, a big-endian machine): the caller then packs bytes instead.

    Row-major: eight 0/1 bytes of a row read as a little-endian 64-bit word ``Σ b_i 2^{8i}``, times
    ``Σ_i 2^{56 − 7i}``, hold ``Σ b_i 2^i`` in their top byte (the product's other terms land on
    distinct bits, above bit 63 or below bit 56, so nothing carries into it). Column-major: each
    column's bytes are read eight records a word and shifted by j mod 8 into place (every byte is
    0 or 1, so the shift stays inside its byte), OR-ed into the record's byte of columns 8⌊j/8⌋..;
    the bytes are then joined into the key."""
    X = np.asarray(X)
    n, p = X.shape
    if p > 32 or X.dtype not in (np.uint8, np.bool_) or sys.byteorder != "little":
        return None
    if X.flags.c_contiguous:
        block = _keys_row_major
    elif X.flags.f_contiguous:
        block = _keys_column_major
    else:
        return None
    out = np.empty(n, dtype=np.uint64)
    Xu = X.view(np.uint8)
    for a in range(0, n, _KEY_BLOCK):
        b = min(n, a + _KEY_BLOCK)
        k = out[a:b]
        block(Xu, a, b, k)
        if y is not None:
            k *= np.uint64(n_classes)
            k += y[a:b].view(np.uint64)  # nonnegative int64: the same bits
    return out


def _keys_row_major(X: np.ndarray, a: int, b: int, k: np.ndarray) -> None:
    """:func:`row_keys` of the rows a..b−1 of a C-contiguous (n, p) uint8 ``X``, into ``k``."""
    p = X.shape[1]
    nw = -(-p // 8)
    if p == 8 * nw:
        W = X[a:b].view(np.uint64)  # (L, nw): eight columns a word
    else:
        pad = np.zeros((b - a, 8 * nw), dtype=np.uint8)
        pad[:, :p] = X[a:b]
        W = pad.view(np.uint64)
    np.multiply(W[:, 0], _MULT, out=k)
    k >>= np.uint64(56)
    t = np.empty_like(k)
    for g in range(1, nw):
        np.multiply(W[:, g], _MULT, out=t)
        t >>= np.uint64(56)
        t <<= np.uint64(8 * g)
        k |= t


def _keys_column_major(X: np.ndarray, a: int, b: int, k: np.ndarray) -> None:
    """:func:`row_keys` of the rows a..b−1 of an F-contiguous (n, p) uint8 ``X``, into ``k``."""
    Xt = X.T  # (p, n), C-contiguous: row j is column j
    p, L = Xt.shape[0], b - a
    L8 = -(-L // 8) * 8
    nb = -(-p // 8)
    if L == L8 and a % 8 == 0:
        src = Xt[:, a:b].view(np.uint64)  # (p, L / 8): eight records a word
    else:
        buf = np.zeros((p, L8), dtype=np.uint8)
        buf[:, :L] = Xt[:, a:b]
        src = buf.view(np.uint64)
    acc = np.zeros((nb, L8 // 8), dtype=np.uint64)
    tmp = np.empty(L8 // 8, dtype=np.uint64)
    for j in range(p):
        np.left_shift(src[j], np.uint64(j & 7), out=tmp)
        acc[j >> 3] |= tmp
    by = acc.view(np.uint8)  # (nb, L8): byte g of every record's row
    k[...] = by[0, :L]
    t = np.empty_like(k)
    for g in range(1, nb):
        t[...] = by[g, :L]
        t <<= np.uint64(8 * g)
        k |= t


class DistinctPairs:
    """The distinct rows of a 0/1 matrix and how many records of each class share each one.

    ``rows`` (m, p) uint8: the distinct rows, in order of first appearance; ``packed`` (m, ⌈p/8⌉)
    uint8: their bytes as ``np.packbits(rows, axis=1, bitorder="little")``; ``present`` (m·K,)
    int64: the number of records of row i and class k at ``i·K + k``. ``record_rows()``: each
    record's row (n,) int64, computed on request (only per-record callers need it).
    """

    def __init__(self, rows: np.ndarray, packed: np.ndarray, present: np.ndarray, record_rows: Callable):
        self.rows, self.packed, self.present = rows, packed, present
        self._record_rows = record_rows

    def record_rows(self) -> np.ndarray:
        return self._record_rows()

    @classmethod
    def from_keys(cls, X: np.ndarray, yk: np.ndarray, n_classes: int) -> DistinctPairs | None:
        """By 4-byte row keys with the class appended (:func:`row_keys`); None when they do not apply."""
        import pandas as pd

        K = int(n_classes)
        p = X.shape[1]
        if yk.dtype != np.int64 or not yk.flags.c_contiguous:
            return None
        keys = row_keys(X, yk, K)
        if keys is None:
            return None
        # each record's (row, class) pair, numbered in order of first appearance; the hash table
        # starts small and grows with the pairs (sized for n, it would cost memory of n's order)
        codes, pair_keys = pd.factorize(keys, size_hint=min(keys.size, _HASH_HINT))
        del keys
        pair_keys = np.asarray(pair_keys, dtype=np.uint64)
        row_of_pair, row_keys_ = pd.factorize(pair_keys // np.uint64(K))  # rows in first appearance
        row_of_pair = row_of_pair.astype(np.int64)
        cls_of_pair = (pair_keys % np.uint64(K)).astype(np.int64)
        m = len(row_keys_)
        present = np.zeros(m * K, dtype=np.int64)
        present[row_of_pair * K + cls_of_pair] = np.bincount(codes, minlength=pair_keys.size)
        rk = np.asarray(row_keys_, dtype=np.uint64)
        rows = ((rk[:, None] >> np.arange(p, dtype=np.uint64)[None, :]) & np.uint64(1)).astype(np.uint8)
        packed = rk.astype("<u8").view(np.uint8).reshape(m, 8)[:, : -(-p // 8)].copy()
        return cls(rows, packed, present, lambda: row_of_pair.take(codes))

    @classmethod
    def from_inverse(cls, rows, packed, inverse: np.ndarray, yk: np.ndarray, n_classes: int) -> DistinctPairs:
        """From each record's distinct row (``inverse``), e.g. found by hashing packed words."""
        K = int(n_classes)
        present = np.bincount(inverse * K + yk, minlength=rows.shape[0] * K)
        return cls(rows, packed, present, lambda: inverse)


class MemoryCounts:
    """The counts of a rule-list fit from a 0/1 matrix in memory (the count seam of
    :mod:`dpmodels.rulelist.candidates`), kept per distinct row.

    ``stats``: a :class:`~dpmodels.rulelist.split_stats.SplitStats` (or a subclass) over ``Xb``;
    ``yb``: class indices 0..K−1. Which rows are still uncaptured is a mask over the distinct
    rows (every record of a row is captured by the same rules), each chosen rule's support is
    evaluated on the distinct rows, and every class count is a sum of the distinct rows' exact
    per-class record counts: the same integers as counting record by record.
    """

    def __init__(self, stats, cands, Xb: np.ndarray, yb: np.ndarray, n_classes: int):
        self.stats, self.cands = stats, cands
        self.n_classes = int(n_classes)
        self._n = int(np.shape(yb)[0])
        self._table = stats.row_class_counts()  # (m, K) int64
        m = self._table.shape[0]
        self.remaining_rows = np.ones(m, dtype=bool)
        self._part = np.full(m, -1, dtype=np.int64)
        self.n_chosen = 0

    @property
    def n(self) -> int:
        """The number of training records (private: a learner uses it in utilities only)."""
        return self._n

    @property
    def remaining(self) -> np.ndarray:
        """Which records no chosen rule captures, (n,) bool (built on request)."""
        return self.remaining_rows.take(self.stats.inverse)

    def counts(self):
        """``(N, P, captured, captured_pos)`` of the remaining records (:class:`SplitStats`)."""
        return self.stats.counts_of_rows(self.remaining_rows)

    def take(self, c: int) -> np.ndarray:
        """Choose candidate ``c``: its captured remaining records leave; returns their class counts (K,)."""
        captured = self.remaining_rows & self.cands.support(self.stats.distinct_rows, c)
        self._part[captured] = self.n_chosen
        self.n_chosen += 1
        self.remaining_rows &= ~captured
        return self._table[captured].sum(axis=0)

    def remaining_histogram(self) -> np.ndarray:
        """Class counts (K,) of the records no chosen rule captures."""
        return self._table[self.remaining_rows].sum(axis=0)

    def class_totals(self) -> np.ndarray:
        """Class counts (K,) of all records."""
        return self._table.sum(axis=0)

    def partition_histogram(self) -> np.ndarray:
        """(chosen + 1, K) class counts of the disjoint supports of the chosen rules, then the rest."""
        part = self._part.copy()
        part[self.remaining_rows] = self.n_chosen
        out = np.zeros((self.n_chosen + 1, self.n_classes), dtype=np.int64)
        np.add.at(out, part, self._table)
        return out
