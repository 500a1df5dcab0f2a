"""Compiled per-block kernels of PrivaTree's passes over partitioned input (numba).

Each kernel reads its block once and does in one loop what the numpy passes did in 7–10 sweeps
over temporaries (docs/benchmarks.md, "PrivaTree level pass"):

- :func:`grid_histograms` — clip → grid cell → count: the first pass's histograms of the JointExp
  quantiles (the same cells as :func:`.grid.grid_cells`);
- :func:`numeric_codes` — clip → grid cell → bin code: the encoding pass (the same codes as
  :func:`.grid.bin_codes`: a table gives the code of a cell far from every threshold, the other
  values are placed among the thresholds by bisection);
- :func:`level_class_counts` / :func:`level_sum_counts` — route → count: a level pass over the
  cached codes, each record routed through the released splits to its open node, then its
  (feature, bin) cells counted (the classifier's class counts; the regressor's count, Σv, Σv² of
  its grid labels clipped to ±w);
- :func:`leaf_class_counts` / :func:`leaf_sum_counts` — route → count: the leaf pass.

Counts are exact int64 (integer increments; the regressor's |v| ≤ 2^16, so Σv² < 2^63 below
2^31 records); the floating-point steps are the numpy passes' own operations in the same order
(no fast-math), so the cells and codes are the same integers. Every kernel is compiled once per
machine (``cache=True``) and imported only by the partitioned fit, never by an in-memory one.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from numba import njit

__all__ = [
    "grid_histograms",
    "numeric_codes",
    "level_class_counts",
    "level_sum_counts",
    "leaf_class_counts",
    "leaf_sum_counts",
]

SPECIAL = 255  # code-table mark of a cell that needs the exact comparison (.grid._SPECIAL)


def _kernel(fn) -> Callable[..., Any]:
    """Compiled once per machine (cached next to this module), without the GIL."""
    return njit(cache=True, nogil=True)(fn)


@njit(cache=True, nogil=True, inline="always")
def _cell(x, lo, hi, scale, clip_first, G):
    """min(floor(max((x − lo)·scale, 0)), G − 1), as :func:`.grid.grid_cells` computes it."""
    if clip_first:  # (inf − lo)·0 would be NaN: clip first
        t = (min(max(x, lo), hi) - lo) * scale
    else:
        t = (x - lo) * scale
    if t < 0.0:
        t = 0.0
    if t > G - 1:
        t = G - 1.0
    return int(t)


@_kernel
def grid_histograms(Z, num_idx, lo, hi, scale, clip_first, G, out):
    """``out[f, cell] += 1`` for every record and numerical feature f (``out`` (k, G) int64).

    Row by row while the k histograms stay in a core's cache (k·G·8 ≤ 512 KB); beyond, feature by
    feature over blocks of rows that do (one histogram hot at a time: the cost per value stays
    flat in k instead of growing with the table's cache misses).
    """
    n = Z.shape[0]
    k = num_idx.size
    if k * G <= 1 << 16:
        for i in range(n):
            for f in range(k):
                out[f, _cell(Z[i, num_idx[f]], lo[f], hi[f], scale[f], clip_first, G)] += 1
        return
    R = max(16, (1 << 16) // k)  # rows per block: 512 KB of float64
    for a in range(0, n, R):
        b = min(n, a + R)
        for f in range(k):
            j = num_idx[f]
            for i in range(a, b):
                out[f, _cell(Z[i, j], lo[f], hi[f], scale[f], clip_first, G)] += 1


@_kernel
def numeric_codes(Z, num_idx, lo, hi, scale, clip_first, G, table, T, codes):
    """``codes[i, num_idx[f]] = searchsorted(T[f], clip(x), 'left')``: ``table[f, c]`` (of
    :func:`.grid.code_table`) is the code of every value of cell c, or ``SPECIAL`` when a threshold
    lies near the cell — then a bisection over T[f]. One byte per (feature, cell): the tables of
    200 features stay within a core's cache."""
    n = Z.shape[0]
    k = num_idx.size
    nt = T.shape[1]
    for i in range(n):
        for f in range(k):
            j = num_idx[f]
            x = Z[i, j]
            c = _cell(x, lo[f], hi[f], scale[f], clip_first, G)
            code = table[f, c]
            if code == SPECIAL:  # a threshold near the cell: the thresholds below the clipped value
                xc = min(max(x, lo[f]), hi[f])
                a, b = np.intp(0), np.intp(nt)  # searchsorted(T[f], xc, "left") by bisection
                while a < b:
                    mid = (a + b) >> 1
                    if T[f, mid] < xc:
                        a = mid + 1
                    else:
                        b = mid
                code = a
            codes[i, j] = code


@njit(cache=True, nogil=True, inline="always")
def _route(codes, i, cl, cr, feat, left):
    """The node record i reaches in the released (partial) tree."""
    node = 0
    while cl[node] >= 0:
        if left[node, codes[i, feat[node]]]:
            node = cl[node]
        else:
            node = cr[node]
    return node


@_kernel
def level_class_counts(codes, lab, cl, cr, feat, left, slot_of_node, out):
    """``out[slot, j, code, class] += 1`` for the records whose node has a slot (``out`` (S, m,
    B, K) int64)."""
    n, m = codes.shape
    for i in range(n):
        s = slot_of_node[_route(codes, i, cl, cr, feat, left)]
        if s < 0:
            continue
        y = lab[i]
        for j in range(m):
            out[s, j, codes[i, j], y] += 1


@_kernel
def level_sum_counts(codes, lab, w, cl, cr, feat, left, slot_of_node, out):
    """``out[slot, j, code] += (1, v, v²)`` with v = clip(label, −w, w) (``out`` (S, m, B, 3)
    int64)."""
    n, m = codes.shape
    for i in range(n):
        s = slot_of_node[_route(codes, i, cl, cr, feat, left)]
        if s < 0:
            continue
        v = np.int64(min(max(np.int64(lab[i]), -w), w))
        v2 = v * v
        for j in range(m):
            c = codes[i, j]
            out[s, j, c, 0] += 1
            out[s, j, c, 1] += v
            out[s, j, c, 2] += v2


@_kernel
def leaf_class_counts(codes, lab, cl, cr, feat, left, leaf_of_node, out):
    """``out[leaf, class] += 1`` (``out`` (L, K) int64)."""
    for i in range(codes.shape[0]):
        out[leaf_of_node[_route(codes, i, cl, cr, feat, left)], lab[i]] += 1


@_kernel
def leaf_sum_counts(codes, lab, cl, cr, feat, left, leaf_of_node, out):
    """``out[leaf] += (1, label)`` (``out`` (L, 2) int64)."""
    for i in range(codes.shape[0]):
        leaf = leaf_of_node[_route(codes, i, cl, cr, feat, left)]
        out[leaf, 0] += 1
        out[leaf, 1] += np.int64(lab[i])
