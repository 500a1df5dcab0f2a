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
  its grid labels clipped to ±w). The partitioned fit asks for one child of each split
  (:meth:`.streaming.SourceData.node_counts` subtracts it from the parent);
- :func:`leaf_class_counts` / :func:`leaf_sum_counts` — route → count: the leaf pass.

Routing has no branch on the data (a table ``nxt[node·B + code]`` looked up ``depth`` times, the
rows of counted nodes listed without a branch; in process, from each record's node stored by the
pass before — :class:`.streaming._NodeIds` — so once per row in a level pass), and the index
arithmetic is unsigned (numba then adds no wrap-around code for negative indices): at 10⁷ × 25
a level pass over all 8 nodes of depth 3 costs less than half of what the first compiled kernel
did, one over the smaller children from the stored nodes a fifth (docs/benchmarks.md, "PrivaTree
level pass: one child per split").

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
def _cell(x, lo, hi, width, clip_first, G):
    """min(floor(max((x − lo)/width, 0)), G − 1), as :func:`.grid.grid_cells` computes it."""
    if clip_first:  # some hi <= lo: clip first
        t = (min(max(x, lo), hi) - lo) / width
    else:
        t = (x - lo) / width
    if t < 0.0:
        t = 0.0
    if t > G - 1:
        t = G - 1.0
    return int(t)


@_kernel
def grid_histograms(Z, num_idx, lo, hi, width, clip_first, G, out):
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
                out[f, _cell(Z[i, num_idx[f]], lo[f], hi[f], width[f], clip_first, G)] += 1
        return
    R = max(16, (1 << 16) // k)  # rows per block: 512 KB of float64
    for a in range(0, n, R):
        b = min(n, a + R)
        for f in range(k):
            j = num_idx[f]
            for i in range(a, b):
                out[f, _cell(Z[i, j], lo[f], hi[f], width[f], clip_first, G)] += 1


@_kernel
def numeric_codes(Z, num_idx, lo, hi, width, clip_first, G, table, T, codes):
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
            c = _cell(x, lo[f], hi[f], width[f], clip_first, G)
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


U = np.uint64  # routing and counting index arithmetic is unsigned: numba then emits no wrap-around
# code for negative indices (with signed indices that code tripled the instructions per increment)
_BLOCK = 1024  # rows routed (and the counted ones listed) before they are counted
_FLUSH = 1 << 31  # rows counted into uint32 cells before they are added to the int64 output
_W = 16  # cells per feature in a level pass's table when B ≤ 16 (a compile-time stride)
_L1_CELLS = 8 * 1024  # uint32 cells (32 KB: a core's L1 cache) of the table counted at once
_WIDE = 128  # columns from which a block's rows are read in order before they are routed


@njit(cache=True, nogil=True, inline="always")
def _route_block(flat, m, a, b, feat, nxt, B, depth, slot_of_node, rows, slots, ids):
    """Route rows [a, b) of the (n, m) codes ``flat`` (C order) through the released splits and
    list the rows whose node has a slot ≥ 0 in ``rows`` / ``slots``; returns how many.

    No branch on the data: ``depth`` look-ups ``node = nxt[node·B + code of feat[node]]`` (a leaf
    or open node maps to itself), then every row is written and only a listed one advances ``k``
    (a branch per row would be mispredicted whenever about half the rows are counted).
    With stored node ids (``ids`` non-empty: each row's node after the previous pass, updated in
    place), a row starts from its stored node and ``depth`` is the number of levels left (one in
    a fit's level pass); with ``ids`` empty, from the root.
    """
    mu, Bu = U(m), U(B)
    root = U(0)
    if m >= _WIDE:  # read the block's lines in order first: routing alone reads one line of a wide
        # row, a stride the hardware prefetcher misses (3× slower at 200 columns; at 100 it pays
        # nothing). ``root`` stays 0 (a < b) but depends on the reads, which so stay in the code.
        x = np.uint8(0)
        for q in range(U(a) * mu, U(b) * mu, U(64)):
            x |= flat[q]
        root = U(x) * U(b < a)
    k = 0
    if ids.size and depth == 1:  # a fit's level pass: one look-up without the loop over a run-time
        # depth (that loop cost as much as the look-up: routing 0.125 → 0.088 ns per value at 25 columns)
        for i in range(a, b):
            node = U(ids[i]) + root
            node = nxt[node * Bu + U(flat[U(i) * mu + feat[node]])]
            ids[i] = node
            s = slot_of_node[node]
            rows[k] = U(i)
            slots[k] = U(max(s, 0))
            k += s >= 0
        return k
    if ids.size:
        for i in range(a, b):
            node = U(ids[i]) + root
            for _ in range(depth):
                node = nxt[node * Bu + U(flat[U(i) * mu + feat[node]])]
            ids[i] = node
            s = slot_of_node[node]
            rows[k] = U(i)
            slots[k] = U(max(s, 0))
            k += s >= 0
        return k
    for i in range(a, b):
        row = U(i) * mu
        node = root
        for _ in range(depth):
            node = nxt[node * Bu + U(flat[row + feat[node]])]
        s = slot_of_node[node]
        rows[k] = U(i)
        slots[k] = U(max(s, 0))
        k += s >= 0
    return k


@njit(cache=True, nogil=True)
def _class_count_rows(flat, m, lab, c0, c1, feat, nxt, B, depth, ids, slot_of_node, K, W, group, acc):
    """Rows [c0, c1) into ``acc`` (:func:`level_class_counts`). A function of its own: with the
    flush into ``out`` in the same loop nest the compiler made this loop 15 % slower."""
    mu, Bu, Ku = U(m), U(B), U(K)
    mw = mu * U(W)
    rows = np.empty(_BLOCK, dtype=np.uint64)
    cell = np.empty(_BLOCK, dtype=np.uint64)
    one = np.uint32(1)
    for a in range(c0, c1, _BLOCK):
        k = _route_block(flat, m, a, min(c1, a + _BLOCK), feat, nxt, B, depth, slot_of_node, rows, cell, ids)
        for r in range(k):  # the row's offsets: its codes, its (slot, class) table
            i = rows[r]
            cell[r] = (cell[r] * Ku + U(lab[i])) * mw
            rows[r] = i * mu
        if B <= _W and group >= m:  # (a loop from 0: the compiler unrolls it, offsets constant)
            for r in range(k):
                row, o = rows[r], cell[r]
                for j in range(m):
                    acc[o + U(j) * U(_W) + U(flat[row + U(j)])] += one
        elif B <= _W:
            for f0 in range(0, m, group):  # the features whose cells stay in L1 together
                f1 = min(m, f0 + group)
                for r in range(k):
                    row, o = rows[r], cell[r]
                    for j in range(f0, f1):
                        acc[o + U(j) * U(_W) + U(flat[row + U(j)])] += one
        else:
            for r in range(k):
                row, o = rows[r], cell[r]
                for j in range(m):
                    acc[o + U(flat[row + U(j)])] += one
                    o += Bu


@_kernel
def level_class_counts(codes, lab, feat, nxt, B, depth, ids, slot_of_node, out):
    """``out[slot, j, code, class] += 1`` for the records whose node has a slot (``codes`` (n, m)
    C-contiguous; ``out`` (S, m, B, K) int64; ``ids``: each record's stored node, routed ``depth``
    levels on and updated, or empty: from the root).

    Rows are routed a block at a time (:func:`_route_block`); then each listed row's offset
    (slot, class) is computed once, and its m codes counted with one increment each into a
    uint32 table [slot, class, feature, bin] with unsigned offsets. When B ≤ 16 a feature's bins
    take a constant 16 cells (the compiler folds the feature's offset into the address: two
    instructions per value), and the listed rows are counted a group of features at a time,
    the group's cells within 32 KB (a core's L1 cache; 8 slots × 2 classes × 32 features);
    else B cells, stepped at run time. The table is added to ``out`` every 2^31 rows (no cell
    can wrap) and at the end.
    """
    n, m = codes.shape
    S, K = out.shape[0], out.shape[3]
    flat = codes.reshape(n * m)
    W = _W if B <= _W else B  # cells per feature in the table
    acc = np.zeros(S * K * m * W, dtype=np.uint32)
    group = max(1, _L1_CELLS // max(1, S * K * W))  # features counted together: their cells fit in L1
    group = -(-m // -(-m // group)) if m else 1  # as even as the groups can be
    for c0 in range(0, n, _FLUSH):
        _class_count_rows(
            flat, m, lab, c0, min(n, c0 + _FLUSH), feat, nxt, B, depth, ids, slot_of_node, K, W, group, acc
        )
        t = 0
        for s in range(S):
            for y in range(K):
                for j in range(m):
                    for c in range(B):
                        out[s, j, c, y] += acc[t + c]
                        acc[t + c] = 0
                    t += W


@_kernel
def level_sum_counts(codes, lab, w, feat, nxt, B, depth, ids, slot_of_node, out):
    """``out[slot, j, code] += (1, v, v²)`` with v = clip(label, −w, w) (``out`` (S, m, B, 3)
    int64; rows routed and listed as in :func:`level_class_counts`)."""
    n, m = codes.shape
    S = out.shape[0]
    flat = codes.reshape(n * m)
    mu, Bu = U(m), U(B)
    acc = np.zeros(S * m * B * 3, dtype=np.int64)
    rows = np.empty(_BLOCK, dtype=np.uint64)
    slots = np.empty(_BLOCK, dtype=np.uint64)
    for a in range(0, n, _BLOCK):
        k = _route_block(flat, m, a, min(n, a + _BLOCK), feat, nxt, B, depth, slot_of_node, rows, slots, ids)
        for r in range(k):
            i = rows[r]
            v = np.int64(min(max(np.int64(lab[i]), -w), w))
            v2 = v * v
            row = i * mu
            o = slots[r] * mu * Bu
            for j in range(m):
                t = U(3) * (o + U(flat[row + U(j)]))
                acc[t] += 1
                acc[t + U(1)] += v
                acc[t + U(2)] += v2
                o += Bu
    out += acc.reshape(S, m, B, 3)


@_kernel
def leaf_class_counts(codes, lab, feat, nxt, B, depth, ids, leaf_of_node, out):
    """``out[leaf, class] += 1`` (``out`` (L, K) int64; every record reaches a leaf)."""
    n, m = codes.shape
    flat = codes.reshape(n * m)
    rows = np.empty(_BLOCK, dtype=np.uint64)
    leaves = np.empty(_BLOCK, dtype=np.uint64)
    for a in range(0, n, _BLOCK):
        k = _route_block(flat, m, a, min(n, a + _BLOCK), feat, nxt, B, depth, leaf_of_node, rows, leaves, ids)
        for r in range(k):
            out[leaves[r], lab[rows[r]]] += 1


@_kernel
def leaf_sum_counts(codes, lab, feat, nxt, B, depth, ids, leaf_of_node, out):
    """``out[leaf] += (1, label)`` (``out`` (L, 2) int64)."""
    n, m = codes.shape
    flat = codes.reshape(n * m)
    rows = np.empty(_BLOCK, dtype=np.uint64)
    leaves = np.empty(_BLOCK, dtype=np.uint64)
    for a in range(0, n, _BLOCK):
        k = _route_block(flat, m, a, min(n, a + _BLOCK), feat, nxt, B, depth, leaf_of_node, rows, leaves, ids)
        for r in range(k):
            out[leaves[r], 0] += 1
            out[leaves[r], 1] += np.int64(lab[rows[r]])
