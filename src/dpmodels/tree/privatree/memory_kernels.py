"""Compiled steps of the in-memory level loop (numba): the class counts of a level's nodes and
the routing of the records through a level's splits, each one loop over the records instead of
a chain of numpy passes (at n = 10³ those passes are mostly call overhead).

Counts are exact int64 increments and routing is integer indexing: the counts and node ids are
those of the numpy code (:func:`.histograms.class_histograms`, :meth:`.fitting.MemoryData.split`),
so the models are the same, bit for bit. Compiled once per machine (``cache=True``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from numba import njit

__all__ = ["ClassCounter", "route"]


def _kernel(fn) -> Callable[..., Any]:
    return njit(cache=True, nogil=True)(fn)


@_kernel
def _counts_all(codes, lab, out):
    """``out[0, j, codes[i, j], lab[i]] += 1`` for every record i and feature j."""
    n, m = codes.shape
    for i in range(n):
        y = lab[i]
        for j in range(m):
            out[0, j, codes[i, j], y] += 1


@_kernel
def _counts_rows(codes, lab, rows, slot, out):
    """``out[slot[k], j, codes[rows[k], j], lab[rows[k]]] += 1`` for every k and feature j."""
    m = codes.shape[1]
    for k in range(rows.size):
        i = rows[k]
        s = slot[k]
        y = lab[i]
        for j in range(m):
            out[s, j, codes[i, j], y] += 1


@_kernel
def route(codes, node, split_of, f_sel, go_left):
    """The records' nodes at the next level: record i in open node a (``node[i]``, -1 if it
    reached a leaf), split s = ``split_of[a]`` on feature ``f_sel[s]``, goes to child 2s (left:
    ``go_left[s, code]``) or 2s + 1; -1 stays -1."""
    n = node.size
    out = np.empty(n, dtype=np.intp)
    for i in range(n):
        a = node[i]
        if a < 0:
            out[i] = -1
            continue
        s = split_of[a]
        out[i] = 2 * s + (0 if go_left[s, codes[i, f_sel[s]]] else 1)
    return out


class ClassCounter:
    """The in-memory counter of class counts (the interface of :class:`.histograms.Histograms`):
    ``counts(rows, slot, n_slots)`` (n_slots, m, B, K) int64 over ``rows`` (all if None), row
    ``rows[k]`` into histogram ``slot[k]`` (0 if None); the children's counts of a level come from
    :func:`children_counts`."""

    compiled = True

    def __init__(self, codes, y_idx, B, K):
        self.codes, self.y_idx, self.B, self.K = codes, y_idx, B, K

    def counts(self, rows=None, slot=None, n_slots=1):
        m = self.codes.shape[1]
        out = np.zeros((n_slots, m, self.B, self.K), dtype=np.int64)
        if rows is None and slot is None:
            _counts_all(self.codes, self.y_idx, out)
            return out
        if rows is None:
            rows = np.arange(self.codes.shape[0])
        if slot is None:
            slot = np.zeros(rows.size, dtype=np.intp)
        _counts_rows(self.codes, self.y_idx, rows, slot, out)
        return out


@_kernel
def children_regions(alive, f_sel, go_left, out, splittable):
    """:func:`.splitter.child_regions` into ``out`` (2S, m, B): the left child of split node i at
    row 2i (its region with the bins of feature ``f_sel[i]`` that go right removed), the right
    child at 2i + 1; and ``splittable`` (2S,): whether some feature of the child has >= 2 bins
    alive (the next level's test in :func:`.fitting.grow`)."""
    S, m, B = alive.shape
    for i in range(S):
        f = f_sel[i]
        for side in range(2):
            c = 2 * i + side
            more = False
            for j in range(m):
                k = 0
                for b in range(B):
                    v = alive[i, j, b]
                    if j == f:
                        v = v and (go_left[i, b] if side == 0 else not go_left[i, b])
                    out[c, j, b] = v
                    k += 1 if v else 0
                more = more or k >= 2
            splittable[c] = more


@_kernel
def region_utilities(scores, alive, util, n_valid):
    """The utilities of a level's prefix candidates in the bins' own order: ``util`` (nodes, m·B)
    = ``-scores`` where bin b is alive and some bin after it is alive
    (:func:`.splitter.candidate_mask` with no order), ``-inf`` elsewhere, as ``np.where(valid,
    -score, -np.inf)``; ``n_valid`` (nodes,) the number of candidates of each node."""
    A, m, B = scores.shape
    for a in range(A):
        nv = 0
        for j in range(m):
            last = -1
            for b in range(B):
                if alive[a, j, b]:
                    last = b
            for b in range(B):
                if alive[a, j, b] and b < last:
                    util[a, j * B + b] = -scores[a, j, b]
                    nv += 1
                else:
                    util[a, j * B + b] = -np.inf
        n_valid[a] = nv


@_kernel
def error_gini_scores(H, lam, out):
    """:func:`.criteria.error_gini` of every prefix split of every (node, feature) of the integer
    counts ``H`` (nodes, m, B, K) in their own bin order: ``out`` (nodes, m, B) = misclassified +
    λ·(half Gini of the left child + half Gini of the right), the error an exact integer and each
    half Gini ``float(n² − Σ v²) / float(2n)`` of exact integers (node totals below 2^31), summed
    as the numpy code sums them."""
    A, m, B, K = H.shape
    left = np.empty(K, dtype=np.int64)
    tot = np.empty(K, dtype=np.int64)
    for a in range(A):
        for j in range(m):
            for k in range(K):
                left[k] = 0
                tot[k] = 0
            for b in range(B):
                for k in range(K):
                    tot[k] += H[a, j, b, k]
            for b in range(B):
                nl = np.int64(0)
                nr = np.int64(0)
                ml = np.int64(0)
                mr = np.int64(0)
                sl = np.int64(0)
                sr = np.int64(0)
                for k in range(K):
                    left[k] += H[a, j, b, k]
                    vl = left[k]
                    vr = tot[k] - vl
                    nl += vl
                    nr += vr
                    ml = max(ml, vl)
                    mr = max(mr, vr)
                    sl += vl * vl
                    sr += vr * vr
                err = (nl - ml) + (nr - mr)
                gl = float(nl * nl - sl) / float(2 * nl) if nl > 0 else 0.0
                gr = float(nr * nr - sr) / float(2 * nr) if nr > 0 else 0.0
                out[a, j, b] = float(err) + lam * (gl + gr)


@_kernel
def grid_counts(Z, num_idx, lo, hi, width, clip_first, G, out):
    """``out[f, cell] += 1`` for every record and numerical feature f (``out`` (k, G) int64), the
    cell computed with :func:`.grid.grid_cells`' operations: ``(clip(x) − lo)/width`` (clipped
    first when some feature has hi <= lo) or ``(x − lo)/width``, then clamped to [0, G − 1] and
    truncated."""
    n = Z.shape[0]
    k = num_idx.size
    for i in range(n):
        for f in range(k):
            x = Z[i, num_idx[f]]
            if clip_first:
                t = (min(max(x, lo[f]), hi[f]) - lo[f]) / width[f]
            else:
                t = (x - lo[f]) / width[f]
            t = max(t, 0.0)
            t = min(t, G - 1.0)
            out[f, np.int64(t)] += 1


@_kernel
def numeric_codes(Z, num_idx, T, lo, hi, codes):
    """``codes[i, num_idx[f]] = searchsorted(T[f], clip(x, lo_f, hi_f), 'left')``: the number of
    thresholds below the clipped value (``T[f]`` sorted: counted one by one up to 32 thresholds,
    by bisection beyond), what :func:`.grid.bin_codes` computes through the grid cells."""
    n = Z.shape[0]
    k = num_idx.size
    nt = T.shape[1]
    for f in range(k):
        j = num_idx[f]
        Tf = T[f]
        lf, hf = lo[f], hi[f]
        for i in range(n):
            xc = min(max(Z[i, j], lf), hf)
            if nt <= 32:
                c = 0
                for t in range(nt):
                    c += Tf[t] < xc
                codes[i, j] = c
                continue
            a = 0
            b = nt
            while a < b:
                mid = (a + b) >> 1
                if Tf[mid] < xc:
                    a = mid + 1
                else:
                    b = mid
            codes[i, j] = a


@_kernel
def children_counts(H, f_sel, go_left, codes, lab, node, out):
    """:func:`.histograms.children_histograms` of class counts in one pass: for every parent p
    (counts ``H[p]``, split on feature ``f_sel[p]``, left bins ``go_left[p]``), the records of its
    smaller child (the left one on ties) are counted — ``node`` holds the children 2p, 2p + 1 of the
    records, -1 for none — and the sibling is the parent minus them; ``out`` (2·parents, m, B, K)."""
    P, m, B, K = H.shape
    small_right = np.empty(P, dtype=np.bool_)
    for p in range(P):
        size = np.int64(0)
        n_left = np.int64(0)
        f = f_sel[p]
        for b in range(B):
            for k in range(K):
                size += H[p, 0, b, k]
                if go_left[p, b]:
                    n_left += H[p, f, b, k]
        small_right[p] = (size - n_left) < n_left
    out[:] = 0
    for i in range(node.size):
        c = node[i]
        if c < 0:
            continue
        p = c >> 1
        if (c & 1) != small_right[p]:
            continue
        y = lab[i]
        for j in range(m):
            out[c, j, codes[i, j], y] += 1
    for p in range(P):
        s = 2 * p + (1 if small_right[p] else 0)
        o = 2 * p + (0 if small_right[p] else 1)
        for j in range(m):
            for b in range(B):
                for k in range(K):
                    out[o, j, b, k] = H[p, j, b, k] - out[s, j, b, k]
