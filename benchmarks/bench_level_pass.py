"""PrivaTree's out-of-core passes against the machine's read bound, and their cost per column.

One process, interleaved rounds (each round calls every case once, the order rotating; CPU time by
``time.process_time``; medians and per-round ratios), single-threaded BLAS. Data: n rows × m
float64 features (``N(0, 1)``, bounds (−3, 3)), 9 released thresholds per feature, binary labels,
cut into partitions of 2^18 rows as a :class:`~dpmodels.data.ParquetSource` batch would be; the
level pass is the one of depth 3 (8 open nodes, routed through 7 released splits; ``--depth``
another) over the encoded cache (uint8 codes + uint8 labels).

Cases (per partition, summed over the partitions):

- ``read X`` / ``read cache``: ``numpy.sum`` over the same bytes (X's float64; the codes viewed
  as int64) — the read bound, measured in the same rounds;
- ``first pass``: clip → grid cell → count (the JointExp histograms, G = 2048 cells per feature);
  ``numpy`` is :func:`dpmodels.tree.privatree.grid.grid_cells` (the in-memory path), ``before``
  the same with one ``bincount(minlength=k·G)`` per row block of 2^17 values (its O(n·k²) cost);
- ``encode``: clip → cell → bin code (``numpy``: ``grid_cells`` + ``bin_codes``);
- ``level``: route → (node, feature, bin, class) counts (``numpy``: the previous pass, a
  ``numpy`` router and :func:`~dpmodels.tree.privatree.histograms.class_histograms`;
  ``compiled before``: the first compiled kernel, kept here as it was; ``compiled``: today's
  kernel over all 8 open nodes; ``compiled, smaller child``: what the partitioned fit runs — the
  same kernel over the smaller child of each of the 4 splits, each sibling then taken as
  parent − child; ``…, stored node ids``: the same from each record's node one level up, as an
  in-process fit stores it between passes — one look-up per row instead of 3; ``level,
  increments (round two), …``: the second round's kernel, kept here as it was — the same
  routing, then one uint32 increment per value — against which the third round's vector count
  is measured in the same rounds);
- ``increment only``: one uint32 increment per value into a (feature, bin) table, no routing,
  no label — what one scatter-count costs per value on this machine (the physical limit of
  any pass that increments once per value); ``route only``: the kernel's routing and listing
  of the smaller children's rows without counting them (the per-row part of a level pass; from
  the root, and from the stored node ids);
- ``compiled``: the kernels of :mod:`dpmodels.tree.privatree.kernels` the partitioned fit uses.

Run::

    python benchmarks/bench_level_pass.py --rows 10000000 --columns 25 --rounds 5
    python benchmarks/bench_level_pass.py --rows 1000000 --columns 25 50 100 200 --rounds 5
    python benchmarks/bench_level_pass.py --rows 10000000 --columns 25 --rounds 7 --level-only [--balanced]
    python benchmarks/bench_level_pass.py --rows 1000000 --columns 25 --rounds 5 --level-only --depth 6

The first prints, per case, the median CPU time, ns per value, the fraction of the read bound
(read ÷ case over the bytes the pass reads: X for the first and encoding passes, the cache for
the level pass; for the level pass also against X, the float64 values the cache encodes) and
the compiled kernel's speed-up over numpy (the level pass: over the first compiled kernel);
with several ``--columns``, the log-log slope of each case's time against the number of
columns. ``--level-only`` measures the reads and the level-pass cases only; ``--balanced`` cuts
every feature at the deciles of N(0, 1) and splits each node on a feature of its own at its
median code, so that the smaller children hold about half of the rows (the worst case of
counting them only) instead of the random tree's share (printed).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path
from statistics import NormalDist

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from numba import njit  # noqa: E402

from dpmodels.tree.privatree import grid as ptg  # noqa: E402
from dpmodels.tree.privatree.builder import Structure  # noqa: E402
from dpmodels.tree.privatree.histograms import class_histograms, row_blocks  # noqa: E402
from dpmodels.tree.privatree.kernels import (  # noqa: E402
    _BLOCK,
    _FLUSH,
    _W,
    U,
    _route_block,
    grid_histograms,
    level_class_counts,
    numeric_codes,
)
from dpmodels.tree.privatree.streaming import _Router  # noqa: E402

PART = 1 << 18  # rows per partition (ParquetSource's default batch)
G, B, K, N_THRESHOLDS = ptg.GRID, 10, 2, 9


def _old_tables(st, B):
    """The routing tables of the level pass before branch-free routing: children, feature, and
    which codes go left."""
    cl = np.asarray(st.children_left, dtype=np.intp)
    cr = np.asarray(st.children_right, dtype=np.intp)
    feat = np.maximum(np.asarray(st.feature, dtype=np.intp), 0)
    left = np.zeros((cl.size, B), dtype=bool)
    for node, row in st.split_left.items():
        left[node] = row
    return cl, cr, feat, left


@njit(nogil=True, inline="always")
def _route_before(codes, i, cl, cr, feat, left):
    node = 0
    while cl[node] >= 0:
        if left[node, codes[i, feat[node]]]:
            node = cl[node]
        else:
            node = cr[node]
    return node


@njit(nogil=True)
def level_counts_before(codes, lab, cl, cr, feat, left, slot_of_node, out):
    """The first compiled level pass (2026-11-29, before this change), as it was: a branch per
    tree level and per row, signed indices, int64 cells."""
    n, m = codes.shape
    for i in range(n):
        s = slot_of_node[_route_before(codes, i, cl, cr, feat, left)]
        if s < 0:
            continue
        y = lab[i]
        for j in range(m):
            out[s, j, codes[i, j], y] += 1


_L1_CELLS = 8 * 1024  # the second round's L1 budget: uint32 cells counted at once


@njit(nogil=True)
def _increments_rows(flat, m, lab, c0, c1, feat, nxt, B, depth, ids, slot_of_node, K, group, acc):
    mu, Ku = U(m), U(K)
    mw = mu * U(_W)
    rows = np.empty(_BLOCK, dtype=np.uint64)
    cell = np.empty(_BLOCK, dtype=np.uint64)
    one = np.uint32(1)
    for a in range(c0, c1, _BLOCK):
        k = _route_block(flat, m, a, min(c1, a + _BLOCK), feat, nxt, B, depth, slot_of_node, rows, cell, ids)
        for r in range(k):
            i = rows[r]
            cell[r] = (cell[r] * Ku + U(lab[i])) * mw
            rows[r] = i * mu
        if group >= m:
            for r in range(k):
                row, o = rows[r], cell[r]
                for j in range(m):
                    acc[o + U(j) * U(_W) + U(flat[row + U(j)])] += one
        else:
            for f0 in range(0, m, group):
                f1 = min(m, f0 + group)
                for r in range(k):
                    row, o = rows[r], cell[r]
                    for j in range(f0, f1):
                        acc[o + U(j) * U(_W) + U(flat[row + U(j)])] += one


@njit(nogil=True)
def level_counts_increments(codes, lab, feat, nxt, B, depth, ids, slot_of_node, out):
    """The second round's level pass (B ≤ 16), as it was: the same routing and listing, then
    one uint32 increment per value (16 cells per feature, a compile-time stride, features in
    groups whose cells fit in L1)."""
    n, m = codes.shape
    S, K = out.shape[0], out.shape[3]
    flat = codes.reshape(n * m)
    acc = np.zeros(S * K * m * _W, dtype=np.uint32)
    group = max(1, _L1_CELLS // max(1, S * K * _W))
    group = -(-m // -(-m // group)) if m else 1
    for c0 in range(0, n, _FLUSH):
        _increments_rows(flat, m, lab, c0, min(n, c0 + _FLUSH), feat, nxt, B, depth, ids, slot_of_node, K, group, acc)
        t = 0
        for s in range(S):
            for y in range(K):
                for j in range(m):
                    for c in range(B):
                        out[s, j, c, y] += acc[t + c]
                        acc[t + c] = 0
                    t += _W


@njit(nogil=True)
def increment_only(codes, acc):
    """``acc[16·j + code] += 1`` for every value (uint32 cells, unsigned offsets, a compile-time
    stride: two instructions per value): no routing, no label — one scatter increment per
    value, the floor of any pass that counts every value (B ≤ 16)."""
    n, m = codes.shape
    flat = codes.reshape(n * m)
    mu = np.uint64(m)
    for i in range(n):
        row = np.uint64(i) * mu
        for j in range(m):
            acc[np.uint64(j) * np.uint64(16) + np.uint64(flat[row + np.uint64(j)])] += np.uint32(1)


@njit(nogil=True)
def route_only(codes, feat, nxt, B, depth, ids, slot_of_node):
    """The kernel's routing and listing of the counted rows (:func:`.kernels._route_block`), no
    counting: the per-row part of a level pass."""
    n, m = codes.shape
    flat = codes.reshape(n * m)
    rows = np.empty(_BLOCK, dtype=np.uint64)
    slots = np.empty(_BLOCK, dtype=np.uint64)
    listed = 0
    for a in range(0, n, _BLOCK):
        listed += _route_block(flat, m, a, min(n, a + _BLOCK), feat, nxt, B, depth, slot_of_node, rows, slots, ids)
    return listed


def _numpy_route(tables, codes):
    """The level pass's router before the kernels (one numpy sweep per step per tree level)."""
    n, m = codes.shape
    node = np.zeros(n, dtype=np.intp)
    flat = codes.ravel()
    base = np.arange(n, dtype=np.intp) * m
    cl, cr, feat, left = tables
    while True:
        kids = cl[node]
        internal = kids >= 0
        if not internal.any():
            return node
        code = np.take(flat, base + feat[node]).astype(np.intp)
        go_left = np.take(left.ravel(), node * B + code)
        node = np.where(internal, np.where(go_left, kids, cr[node]), node)


def _grid_counts_before(Z, lo, hi):
    """``grid_cells``' histograms as they were: one bincount(minlength=k·G) per small row block."""
    n, k = Z.shape
    width, _ = ptg.cell_width(lo, hi, G)
    offsets = np.arange(k, dtype=float) * G
    counts = np.zeros(k * G, dtype=np.int64)
    for a, b in row_blocks(n, k):
        x = (Z[a:b] - lo) / width
        np.maximum(x, 0.0, out=x)
        np.minimum(x, G - 1, out=x)
        x += offsets
        counts += np.bincount(x.astype(np.int64).ravel(), minlength=k * G)
    return counts


def setup(n, m, seed=0, level_only=False, balanced=False, depth=3):  # noqa: C901 - one closure per measured pass, each a few lines
    rng = np.random.default_rng(seed)
    X = np.empty((n, m))
    for a in range(0, m, 25):  # columns 25·k … 25·k + 24 from their own stream: the first 25 do not depend on m
        X[:, a : a + 25] = np.random.default_rng([seed, a]).normal(size=(n, min(25, m - a)))
    y = (X[:, 0] + X[:, 1] * X[:, 2] + rng.normal(size=n) > 0).astype(np.uint8)
    lo, hi = np.full(m, -3.0), np.full(m, 3.0)
    trng = np.random.default_rng(seed + 1)  # the thresholds: the same for every m ≥ 25 (so is the tree)
    T = np.sort(trng.normal(size=(m, N_THRESHOLDS)).clip(-3, 3), axis=1)
    if balanced:  # the deciles of N(0, 1): bins of equal mass, so a median code halves a node
        T[:] = [NormalDist().inv_cdf(q) for q in np.arange(1, B) / B]
    num_idx = np.arange(m)
    width, clip_first = ptg.cell_width(lo, hi, G)
    table, _, _ = ptg.code_table(T, lo, hi, G, np.uint8)
    parts = [(a, min(n, a + PART)) for a in range(0, n, PART)]
    codes = np.empty((n, m), dtype=np.uint8)
    for a, b in parts:
        numeric_codes(X[a:b], num_idx, lo, hi, width, clip_first, G, table, T, codes[a:b])
    st, opens, tree_rng = Structure(), [0], np.random.default_rng(seed + 2)
    for _ in range(depth):
        new = []
        for p in opens:
            f = int(tree_rng.integers(min(m, 25)))
            cut = tree_rng.integers(1, B - 1)
            if balanced:  # node p's own feature (independent of its ancestors'), cut at its median code
                f = p
                cut = np.abs(np.cumsum(np.bincount(codes[:, f], minlength=B)) / n - 0.5).argmin()
            new += st.add_children(p, f, threshold=0.0)
            st.split_left[p] = np.arange(B) <= cut
        opens = new
    router, old = _Router(st, B), _old_tables(st, B)
    slot_of_node = np.full(len(st.children_left), -1, dtype=np.intp)
    slot_of_node[np.asarray(opens)] = np.arange(len(opens))
    S = len(opens)
    # what the fit knows from the level above: the parents' counts, hence each split's smaller child
    direct = np.zeros((S, m, B, K), dtype=np.int64)
    level_class_counts(codes, y, *router.tables(), slot_of_node, direct)
    size = direct[:, 0].sum(axis=(1, 2))
    small = [opens[2 * p + int(size[2 * p + 1] < size[2 * p])] for p in range(S // 2)]
    H_parent = direct[0::2] + direct[1::2]
    small_slot = np.full(len(st.children_left), -1, dtype=np.intp)
    small_slot[np.asarray(small)] = np.arange(S // 2)
    print(f"(the smaller children hold {size[np.searchsorted(opens, small)].sum() / n:.1%} of the rows)")
    X_words = X.reshape(-1)
    c_words = codes.reshape(-1)[: codes.size // 8 * 8].view(np.int64)

    def first_numpy():
        for a, b in parts:
            ptg.grid_cells(X[a:b], num_idx, lo, hi, G)

    def first_before():
        for a, b in parts:
            _grid_counts_before(X[a:b], lo, hi)

    def first_compiled():
        for a, b in parts:
            grid_histograms(X[a:b], num_idx, lo, hi, width, clip_first, G, np.zeros((m, G), dtype=np.int64))

    def encode_numpy():
        for a, b in parts:
            cells, _ = ptg.grid_cells(X[a:b], num_idx, lo, hi, G)
            ptg.bin_codes(X[a:b], num_idx, cells, T, lo, hi, G, np.empty((b - a, m), dtype=np.uint8))

    def encode_compiled():
        for a, b in parts:
            out = np.empty((b - a, m), dtype=np.uint8)
            numeric_codes(X[a:b], num_idx, lo, hi, width, clip_first, G, table, T, out)

    def level_numpy():
        for a, b in parts:
            slot = slot_of_node[_numpy_route(old, codes[a:b])]
            rows = np.flatnonzero(slot >= 0)
            class_histograms(codes[a:b], y[a:b].astype(np.intp), B, K, slot[rows], rows, S)

    def level_before():
        total = np.zeros((S, m, B, K), dtype=np.int64)
        for a, b in parts:
            out = np.zeros((S, m, B, K), dtype=np.int64)
            level_counts_before(codes[a:b], y[a:b], *old, slot_of_node, out)
            total += out
        return total

    def level_compiled():
        total = np.zeros((S, m, B, K), dtype=np.int64)
        for a, b in parts:
            out = np.zeros((S, m, B, K), dtype=np.int64)
            level_class_counts(codes[a:b], y[a:b], *router.tables(), slot_of_node, out)
            total += out
        return total

    def children(kernel, tables_of):
        """Count the smaller child of each split per partition (``tables_of(i)``: its routing
        tables); each sibling is its parent's counts minus it."""
        Hs = np.zeros((S // 2, m, B, K), dtype=np.int64)
        for i, (a, b) in enumerate(parts):
            out = np.zeros((S // 2, m, B, K), dtype=np.int64)
            kernel(codes[a:b], y[a:b], *tables_of(i), small_slot, out)
            Hs += out
        H = np.empty((S, m, B, K), dtype=np.int64)
        for p, c in enumerate(small):
            i = opens.index(c)
            H[i], H[i ^ 1] = Hs[p], H_parent[p] - Hs[p]
        return H

    def level_smaller_child():
        return children(level_class_counts, lambda i: router.tables())

    # each record's node one level up (what the pass of the level above stored), one array per partition
    ids = [np.zeros(b - a, dtype=np.uint16) for a, b in parts]
    for (a, b), ids_p in zip(parts, ids):
        route_only(codes[a:b], *router.tables(ids_p, depth - 1), small_slot)

    def stored_ids(kernel):
        return lambda: children(kernel, lambda i: router.tables(ids[i], 1))

    level_stored_ids = stored_ids(level_class_counts)
    level_stored_ids_increments = stored_ids(level_counts_increments)

    def route_stored():
        for (a, b), ids_p in zip(parts, ids):
            route_only(codes[a:b], *router.tables(ids_p, 1), small_slot)

    def increment():
        for a, b in parts:
            increment_only(codes[a:b], np.zeros(m * 16, dtype=np.uint32))

    def route():
        for a, b in parts:
            route_only(codes[a:b], *router.tables(), small_slot)

    assert np.array_equal(level_before(), direct) and np.array_equal(level_smaller_child(), direct)
    assert np.array_equal(level_stored_ids(), direct) and np.array_equal(level_stored_ids(), direct)
    assert np.array_equal(level_stored_ids_increments(), direct)
    cases = {"read X": lambda: X_words.sum(), "read cache": lambda: c_words.sum()}
    if not level_only:
        cases |= {
            "first pass, numpy before": first_before,
            "first pass, numpy": first_numpy,
            "first pass, compiled": first_compiled,
            "encode, numpy": encode_numpy,
            "encode, compiled": encode_compiled,
            "level, numpy": level_numpy,
        }
    cases |= {
        "level, compiled before": level_before,
        "level, compiled": level_compiled,
        "level, compiled, smaller child": level_smaller_child,
        "level, compiled, smaller child, stored node ids": level_stored_ids,
        "level, increments (round two), smaller child, stored node ids": level_stored_ids_increments,
        "increment only": increment,
        "route only": route,
        "route only, stored node ids": route_stored,
    }
    return cases


READS = {"first": "read X", "encode": "read X", "level": "read cache", "increment": "read cache", "route": "read cache"}


def measure(n, m, rounds, level_only=False, balanced=False, depth=3):
    cases = setup(n, m, level_only=level_only, balanced=balanced, depth=depth)
    for f in cases.values():  # warm up (and compile)
        f()
    names = list(cases)
    res: dict = {k: [] for k in names}
    for r in range(rounds):
        for k in names[r % len(names) :] + names[: r % len(names)]:
            c = time.process_time()
            cases[k]()
            res[k].append(time.process_time() - c)
    return {k: np.array(v) for k, v in res.items()}


def report(n, m, res):
    values = n * m
    print(
        f"\n{n:,} rows × {m} columns ({time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, load {os.getloadavg()[0]:.1f})"
    )
    print("| case | median CPU | ns per value | of the read bound | of X's read bound | speed-up |")
    print("|---|---|---|---|---|---|")

    def share(per_round):
        return f"{100 * np.median(per_round):.1f} % ({100 * per_round.min():.1f}–{100 * per_round.max():.1f})"

    for k, t in res.items():
        kind = k.split(",")[0].split()[0]
        bound = share(res[READS[kind]] / t) if kind in READS else ""
        of_x = share(res["read X"] / t) if READS.get(kind) == "read cache" else ""
        base = None
        if kind == "level" and k != "level, compiled before" and "level, compiled before" in res:
            base = res["level, compiled before"] / t  # the level pass: against the first compiled kernel
        elif k.endswith("compiled") and k.replace("compiled", "numpy") in res:
            base = res[k.replace("compiled", "numpy")] / t
        speed = "" if base is None else f"{np.median(base):.2f}× ({base.min():.2f}–{base.max():.2f})"
        print(f"| {k} | {np.median(t):.3f} s | {1e9 * np.median(t) / values:.3f} | {bound} | {of_x} | {speed} |")
    new, old = (
        "level, compiled, smaller child, stored node ids",
        "level, increments (round two), smaller child, stored node ids",
    )
    if new in res and old in res:
        r = res[old] / res[new]
        print(
            f"\nvector count ÷ increments (round two), same rounds: {np.median(r):.2f}× ({r.min():.2f}–{r.max():.2f})"
        )


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--columns", type=int, nargs="+", default=[25])
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--level-only", action="store_true", help="the reads and the level-pass cases only")
    ap.add_argument(
        "--depth",
        type=int,
        default=3,
        help="the level pass's depth (2^depth open nodes; the balanced tree needs 2^depth ≤ columns + 1)",
    )
    ap.add_argument(
        "--balanced",
        action="store_true",
        help="equal-mass bins, every node split at a median code (the worst case of subtraction)",
    )
    a = ap.parse_args()
    by_m = {}
    for m in a.columns:
        by_m[m] = measure(a.rows, m, a.rounds, a.level_only, a.balanced, a.depth)
        report(a.rows, m, by_m[m])
    if len(a.columns) > 1:
        ms = np.array(a.columns, dtype=float)
        print(f"\nlog-log slope of the median CPU time against the number of columns ({a.columns}):")
        print("| case | slope | slope above 100 columns |")
        print("|---|---|---|")
        for k in by_m[a.columns[0]]:
            t = np.array([np.median(by_m[m][k]) for m in a.columns])
            slope = np.polyfit(np.log(ms), np.log(t), 1)[0]
            hi = ms >= 100
            top = np.polyfit(np.log(ms[hi]), np.log(t[hi]), 1)[0] if hi.sum() >= 2 else float("nan")
            print(f"| {k} | {slope:.2f} | {top:.2f} |")


if __name__ == "__main__":
    main()
