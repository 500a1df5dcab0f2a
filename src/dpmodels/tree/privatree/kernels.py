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

The classifier's level pass with B ≤ 16 (the default 10 bins) does not increment once per value,
which costs about a cycle per value, 11 % of the read bound of one-byte codes: the rows of each
(node, class) are gathered 16 at a time (a vector compress), then counted 32 codes at a time by
vector compares into one-byte counters held in registers (:func:`_lane_counter`, LLVM vector IR
emitted through numba intrinsics). At 10⁷ × 25 it runs at 21.5 % of the read bound, 1.8–2.0× the
increments (docs/benchmarks.md, "PrivaTree level pass, third round").

Counts are exact int64 (integer increments; the regressor's |v| ≤ 2^16, so Σv² < 2^63 below
2^31 records); the floating-point steps are the numpy passes' own operations in the same order
(no fast-math), so the cells and codes are the same integers. Every kernel is compiled once per
machine (``cache=True``) and imported only by the partitioned fit, never by an in-memory one.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from llvmlite import ir
from llvmlite.binding import llvm_version_info
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

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
_W = 16  # codes counted by vector compares (B ≤ 16): a lane table's codes per lane
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


@njit(cache=True, nogil=True, inline="always")
def _route_groups(flat, m, a, b, feat, nxt, B, depth, ids, base_of_node, lab, grp):
    """Route rows [a, b) as :func:`_route_block` does and write each row's group,
    ``grp[i − a] = base_of_node[node] + lab[i]``: (slot·K + class) for a row of a counted node,
    ≥ 2^31 for the others. One store per row in order: no list, so no chain through a count of
    listed rows (listing was a third of the pass)."""
    mu, Bu = U(m), U(B)
    root = U(0)
    if m >= _WIDE:  # read the block's lines in order first (see _route_block)
        x = np.uint8(0)
        for q in range(U(a) * mu, U(b) * mu, U(64)):
            x |= flat[q]
        root = U(x) * U(b < a)
    if ids.size and depth == 1:  # a fit's level pass: one look-up
        for i in range(a, b):
            node = U(ids[i]) + root
            node = nxt[node * Bu + U(flat[U(i) * mu + feat[node]])]
            ids[i] = node
            grp[i - a] = base_of_node[node] + np.uint32(lab[i])
    elif ids.size:
        for i in range(a, b):
            node = U(ids[i]) + root
            for _ in range(depth):
                node = nxt[node * Bu + U(flat[U(i) * mu + feat[node]])]
            ids[i] = node
            grp[i - a] = base_of_node[node] + np.uint32(lab[i])
    else:
        for i in range(a, b):
            row = U(i) * mu
            node = root
            for _ in range(depth):
                node = nxt[node * Bu + U(flat[row + feat[node]])]
            grp[i - a] = base_of_node[node] + np.uint32(lab[i])


def _lane_counter(nb):
    """An intrinsic ``count(acc, o, flat, m, rows, start, stop, c0, j0)``: for the rows
    ``rows[start:stop]`` (uint32 row numbers), their codes ``j0 … j0 + 31`` compared at once with
    ``c0 … c0 + nb − 1``, one vector of 32 one-byte counters per code kept in registers over the
    rows, then added to the uint32 cells ``acc[o + 32·b + lane]``.

    A scatter increment per value costs a load, an add and a store, about one cycle per value
    (the floor of a pass that increments once per value); here a row costs one 32-code load and
    two vector operations per code value (docs/benchmarks.md, "third round"). At most 255 rows
    per call (no byte counter can wrap). Plain LLVM vector IR: the compiler lowers it to the
    machine's vectors (AVX2/AVX-512, SSE2, NEON).
    """

    @intrinsic
    def count(typingctx, acc, o, flat, m, rows, start, stop, c0, j0):
        u64, i64 = types.uint64, types.int64
        sig = types.void(acc, u64, flat, u64, rows, i64, i64, u64, u64)

        def codegen(context, builder, signature, args):
            acc_v, o_v, flat_v, m_v, rows_v, start_v, stop_v, c0_v, j0_v = args
            A = context.make_array(signature.args[0])(context, builder, acc_v)
            F = context.make_array(signature.args[2])(context, builder, flat_v)
            R = context.make_array(signature.args[4])(context, builder, rows_v)
            code_t = F.data.type.pointee  # the codes' integer type (uint8 or uint16)
            i32 = ir.IntType(32)
            codes_t = ir.VectorType(code_t, _LANES)
            bytes_t = ir.VectorType(ir.IntType(8), _LANES)
            cells_t = ir.VectorType(i32, _LANES)
            c0 = builder.trunc(c0_v, code_t)
            want = [_splat(builder, builder.add(c0, code_t(b)), codes_t) for b in range(nb)]  # c0 + b
            counters = [cgutils.alloca_once_value(builder, ir.Constant(bytes_t, None)) for _ in range(nb)]
            with cgutils.for_range_slice(builder, start_v, stop_v, start_v.type(1), inc=True) as (r, _):
                i = builder.zext(builder.load(builder.gep(R.data, [r])), o_v.type)
                first = builder.add(builder.mul(i, m_v), j0_v)
                ptr = builder.bitcast(builder.gep(F.data, [first]), codes_t.as_pointer())
                row = builder.load(ptr, align=code_t.width // 8)
                for b in range(nb):  # counter − (−1 where the code is c0 + b)
                    hit = builder.sext(builder.icmp_unsigned("==", row, want[b]), bytes_t)
                    builder.store(builder.sub(builder.load(counters[b]), hit), counters[b])
            for b in range(nb):  # acc[o + 32·b + lane] += counter
                cell = builder.gep(A.data, [builder.add(o_v, o_v.type(_LANES * b))])
                ptr = builder.bitcast(cell, cells_t.as_pointer())
                total = builder.add(builder.load(ptr, align=4), builder.zext(builder.load(counters[b]), cells_t))
                builder.store(total, ptr, align=4)
            return context.get_dummy_value()

        return sig, codegen

    return count


def _splat(builder, value, vector_t):
    """``value`` in every lane of ``vector_t``."""
    zeros = ir.Constant(vector_t, None)
    first = builder.insert_element(zeros, value, ir.IntType(32)(0))
    return builder.shuffle_vector(first, zeros, ir.Constant(ir.VectorType(ir.IntType(32), vector_t.count), None))


def _vector_compress():
    """An intrinsic ``compress(out, k, vals, add, grp, r, lo, width)``: ``out[k:] ←`` the values
    ``vals[r + l] + add`` (l < 16) whose group ``grp[r + l]`` lies in [lo, lo + width), in order;
    returns k plus how many. Sixteen rows per step: one vector compare and one compress (AVX-512's
    ``vpcompressd`` into a register; elsewhere the compiler's expansion), then a store of all 16
    lanes (``out`` needs 16 entries of room past the last value kept; a compress straight to
    memory is microcoded and slow on AMD Zen 4). It replaces listing rows one by one, a chain
    through the count of listed rows."""

    @intrinsic
    def compress(typingctx, out, k, vals, add, grp, r, lo, width):
        u32 = types.uint32
        sig = types.int64(out, types.int64, vals, u32, grp, types.int64, u32, u32)

        def codegen(context, builder, signature, args):
            out_v, k_v, vals_v, add_v, grp_v, r_v, lo_v, width_v = args
            O = context.make_array(signature.args[0])(context, builder, out_v)
            V = context.make_array(signature.args[2])(context, builder, vals_v)
            G = context.make_array(signature.args[4])(context, builder, grp_v)
            vec_t, mask_t = ir.VectorType(ir.IntType(32), 16), ir.VectorType(ir.IntType(1), 16)

            def load(arr):
                return builder.load(builder.bitcast(builder.gep(arr.data, [r_v]), vec_t.as_pointer()), align=4)

            shifted = builder.sub(load(G), _splat(builder, lo_v, vec_t))
            mask = builder.icmp_unsigned("<", shifted, _splat(builder, width_v, vec_t))
            values = builder.add(load(V), _splat(builder, add_v, vec_t))
            module = builder.module
            compress_fn = cgutils.get_or_insert_function(
                module, ir.FunctionType(vec_t, [vec_t, mask_t, vec_t]), "llvm.experimental.vector.compress.v16i32"
            )
            kept = builder.call(compress_fn, [values, mask, ir.Constant(vec_t, None)])
            builder.store(kept, builder.bitcast(builder.gep(O.data, [k_v]), vec_t.as_pointer()), align=4)
            popcount = cgutils.get_or_insert_function(
                module, ir.FunctionType(ir.IntType(16), [ir.IntType(16)]), "llvm.ctpop.i16"
            )
            n_kept = builder.call(popcount, [builder.bitcast(mask, ir.IntType(16))])
            return builder.add(k_v, builder.zext(n_kept, k_v.type))

        return sig, codegen

    return compress


_LANES = 32  # codes of a row compared at once (a 256-bit vector of one-byte codes)
_RUN = 255  # rows counted in one-byte counters before they are added to the uint32 cells
_NONE = np.uint32(1 << 31)  # a row's group when its node is not counted (≥ every group)
_SELECT_GROUPS = 16  # at most this many (slot, class) groups: one compress pass per group
_HAS_COMPRESS = llvm_version_info >= (19,)  # llvm.experimental.vector.compress (LLVM ≥ 19)
_count_8, _count_4, _count_2, _count_1 = (_lane_counter(nb) for nb in (8, 4, 2, 1))


def _scalar_compress():
    """The same as :func:`_vector_compress`'s intrinsic one row at a time (no branch), for an
    older LLVM (no ``llvm.experimental.vector.compress``); the groups are then gathered by the
    counting sort, not by a pass per group (``by_select`` is False)."""

    @njit(cache=True, nogil=True, inline="always")
    def compress(out, k, vals, add, grp, r, lo, width):
        for lane in range(r, r + 16):
            out[k] = vals[lane] + add
            k += grp[lane] - lo < width
        return k

    return compress


_compress_16 = _vector_compress() if _HAS_COMPRESS else _scalar_compress()


@njit(cache=True, nogil=True, inline="always")
def _count_group(acc, flat, mu, rows, s0, s1, g, chunks, B):
    """The rows ``rows[s0:s1]`` of group g into ``acc`` (:func:`_class_count_lanes`): 255 rows,
    32 codes and up to 8 code values per vector pass."""
    for s in range(s0, s1, _RUN):
        e = min(s1, s + _RUN)
        for t in range(chunks):
            o, j0 = (g * chunks + t) * _W * _LANES, U(t * _LANES)
            c = 0
            while B - c >= 8:
                _count_8(acc, o + c * _LANES, flat, mu, rows, s, e, U(c), j0)
                c += 8
            if B - c >= 4:
                _count_4(acc, o + c * _LANES, flat, mu, rows, s, e, U(c), j0)
                c += 4
            if B - c >= 2:
                _count_2(acc, o + c * _LANES, flat, mu, rows, s, e, U(c), j0)
                c += 2
            if B - c >= 1:
                _count_1(acc, o + c * _LANES, flat, mu, rows, s, e, U(c), j0)


@njit(cache=True, nogil=True)
def _class_count_lanes(flat, m, lab, c0, c1, feat, nxt, B, depth, ids, base_of_node, C, nv, block, acc):
    """Rows [c0, c1) into ``acc`` [(slot, class), lane chunk, code, lane] (uint32; a row's code j
    at chunk j // 32, lane j % 32), B ≤ 16 (:func:`level_class_counts`).

    A block of rows is routed, each row's group written (:func:`_route_groups`); the counted
    rows are listed with their groups 16 at a time (:func:`_vector_compress`), and each group's
    rows gathered in order — by a compress per group when there are at most 16 groups, else by
    a counting sort — then counted 32 codes at a time (:func:`_lane_counter`). A row whose last lane chunk would read past the codes (the
    last rows of a partition) is counted code by code into the same cells.
    """
    mu, Cu = U(m), np.uint32(C)
    chunks = -(-m // _LANES)
    grp = np.empty(block + 16, dtype=np.uint32)  # each row's group (16 lanes of room past the block)
    first = np.arange(block + 16).astype(np.uint32)  # row numbers from the block's first
    rows = np.empty(block + 16, dtype=np.uint32)  # the counted rows, in order
    listed = np.empty(block + 16, dtype=np.uint32)  # and their groups
    order = np.empty(block + 16, dtype=np.uint32)  # the rows of one group, or of every group in turn
    by_select = _HAS_COMPRESS and C <= _SELECT_GROUPS
    start = np.zeros(C + 1, dtype=np.int64)
    end = np.zeros(C, dtype=np.int64)
    one = np.uint32(1)
    for a in range(c0, c1, block):
        b = min(c1, a + block)
        _route_groups(flat, m, a, b, feat, nxt, B, depth, ids, base_of_node, lab, grp)
        for i in range(max(a, nv), b):  # the lanes would read past the codes: code by code
            tail = U(grp[i - a])
            if tail < U(C):
                for j in range(m):
                    chunk, lane = U(j // _LANES), U(j % _LANES)
                    acc[((tail * U(chunks) + chunk) * U(_W) + U(flat[U(i) * mu + U(j)])) * U(_LANES) + lane] += one
            grp[i - a] = _NONE
        grp[b - a : b - a + 16] = _NONE  # the last step's lanes past the block
        k = 0  # the counted rows and their groups, 16 rows a step
        for r in range(0, b - a, 16):
            _compress_16(rows, k, first, np.uint32(a), grp, r, np.uint32(0), Cu)
            k = _compress_16(listed, k, grp, np.uint32(0), grp, r, np.uint32(0), Cu)
        if by_select:  # each group's rows by a compress over the counted rows
            listed[k : k + 16] = _NONE
            for g in range(C):
                kg = 0
                for r in range(0, k, 16):
                    kg = _compress_16(order, kg, rows, np.uint32(0), listed, r, np.uint32(g), np.uint32(1))
                _count_group(acc, flat, mu, order, 0, kg, g, chunks, B)
            continue
        start[:] = 0  # else a counting sort of the counted rows by group
        for r in range(k):
            start[listed[r] + np.uint32(1)] += 1
        for g in range(C):
            start[g + 1] += start[g]
        end[:] = start[:C]
        for r in range(k):
            q = listed[r]
            order[end[q]] = rows[r]
            end[q] += 1
        for g in range(C):
            _count_group(acc, flat, mu, order, start[g], end[g], g, chunks, B)


@njit(cache=True, nogil=True)
def _class_count_rows(flat, m, lab, c0, c1, feat, nxt, B, depth, ids, slot_of_node, K, acc):
    """Rows [c0, c1) into ``acc`` [slot, class, feature, code] (uint32), one increment per value:
    the pass when B > 16 (:func:`level_class_counts`)."""
    mu, Bu, Ku = U(m), U(B), U(K)
    rows = np.empty(_BLOCK, dtype=np.uint64)
    cell = np.empty(_BLOCK, dtype=np.uint64)
    one = np.uint32(1)
    for a in range(c0, c1, _BLOCK):
        k = _route_block(flat, m, a, min(c1, a + _BLOCK), feat, nxt, B, depth, slot_of_node, rows, cell, ids)
        for r in range(k):
            i = rows[r]
            o = (cell[r] * Ku + U(lab[i])) * mu * Bu
            row = i * mu
            for j in range(m):
                acc[o + U(flat[row + U(j)])] += one
                o += Bu


@_kernel
def level_class_counts(codes, lab, feat, nxt, B, depth, ids, slot_of_node, out):
    """``out[slot, j, code, class] += 1`` for the records whose node has a slot (``codes`` (n, m)
    C-contiguous; ``out`` (S, m, B, K) int64; ``ids``: each record's stored node, routed ``depth``
    levels on and updated, or empty: from the root).

    Rows are routed a block at a time (:func:`_route_block`). When B ≤ 16 (PrivaTree's default
    is 10 bins), the listed rows are grouped by (slot, class) and counted 32 codes at a time with
    vector compares into one-byte counters (:func:`_class_count_lanes`); else each value is one
    increment of a uint32 table [slot, class, feature, code] with unsigned offsets. The uint32
    cells are added to ``out`` every 2^31 rows (no cell can wrap) and at the end.
    """
    n, m = codes.shape
    S, K = out.shape[0], out.shape[3]
    flat = codes.reshape(n * m)
    C = S * K
    if B <= _W and n < 1 << 32:  # (row numbers as uint32)
        chunks = -(-m // _LANES)
        span = chunks * _LANES  # codes a row's last lane chunk reaches from its first code
        nv = 0 if m == 0 or n * m < span else min(n, (n * m - span) // m + 1)  # rows whose lanes stay inside
        block = max(1024, min(1 << 14, (1 << 19) // max(m, 1)) // 16 * 16)  # its codes in L2
        base_of_node = np.full(slot_of_node.size, _NONE, dtype=np.uint32)  # (slot·K), or none
        for v in range(slot_of_node.size):
            if slot_of_node[v] >= 0:
                base_of_node[v] = np.uint32(slot_of_node[v] * K)
        acc = np.zeros(C * chunks * _W * _LANES, dtype=np.uint32)
        for c0 in range(0, n, _FLUSH):
            c1 = min(n, c0 + _FLUSH)
            _class_count_lanes(flat, m, lab, c0, c1, feat, nxt, B, depth, ids, base_of_node, C, nv, block, acc)
            for s in range(S):
                for y in range(K):
                    for j in range(m):
                        t = ((s * K + y) * chunks + j // _LANES) * _W * _LANES + j % _LANES
                        for c in range(B):
                            out[s, j, c, y] += acc[t + c * _LANES]
            acc[:] = 0
        return
    acc = np.zeros(C * m * B, dtype=np.uint32)
    for c0 in range(0, n, _FLUSH):
        _class_count_rows(flat, m, lab, c0, min(n, c0 + _FLUSH), feat, nxt, B, depth, ids, slot_of_node, K, acc)
        t = 0
        for s in range(S):
            for y in range(K):
                for j in range(m):
                    for c in range(B):
                        out[s, j, c, y] += acc[t + c]
                        acc[t + c] = 0
                    t += B


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
