"""Distinct rows of a 0/1 matrix: rows packed into bytes and 64-bit words, grouped by hashing
(linear in n), with an exact fallback when two different rows' hashes collide."""

from __future__ import annotations

import numpy as np

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
