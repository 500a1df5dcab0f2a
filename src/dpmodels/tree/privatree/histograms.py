"""Exact (node, feature, bin, class) counts of one tree level (PrivaTree, step 4).

The counts are exact integers (int64): ``np.bincount`` over the rows of the smaller child of each
node (the codes of several features packed per element when bins and classes are few), the
sibling obtained as parent − child. ``tests/tree/test_privatree.py`` checks every path against a
record-by-record count.
"""

from __future__ import annotations

import numpy as np

__all__ = ["row_blocks", "class_histograms", "Histograms", "children_histograms"]

_CHUNK = 1 << 17  # values per row block of the binning / histogram passes (temporaries stay in cache)


def row_blocks(n, width):
    """Row ranges of about ``_CHUNK`` values each (``width`` values per row): bounded temporaries."""
    step = max(1, _CHUNK // max(1, width))
    return [(a, min(n, a + step)) for a in range(0, n, step)]


def class_histograms(codes, y_idx, B, K, slot=None, rows=None, n_slots=1):
    """counts[slot, j, bin, class] over ``rows`` (all rows if None); ``slot`` (aligned with
    ``rows``, or with all rows) says which histogram each row goes to (0 if None).

    One ``np.bincount`` per block of rows over the flat index ((slot·m + j)·B + bin)·K + class.
    """
    n, m = codes.shape
    stride = m * B * K
    out = np.zeros(n_slots * stride, dtype=np.int64)
    N = n if rows is None else rows.size
    fo = np.arange(m, dtype=np.intp) * (B * K)
    blocks = row_blocks(N, m)
    buf = np.empty((blocks[0][1] if blocks else 0) * m, dtype=np.intp)
    for a, b in blocks:
        if rows is None:
            c, yr = codes[a:b], y_idx[a:b]
        else:
            rr = rows[a:b]
            c, yr = codes[rr], y_idx[rr]
        sl = None if slot is None else slot[a:b]
        idx = buf[: (b - a) * m].reshape(b - a, m)
        np.multiply(c, K, out=idx, dtype=np.intp)
        idx += fo
        per_row = yr if sl is None else yr + sl * stride
        idx += per_row[:, None]
        out += np.bincount(idx.ravel(), minlength=out.size)
    return out.reshape(n_slots, m, B, K)


class Histograms:
    """(slot, feature, bin, class) counts over a set of rows.

    When bins and classes are few, the codes of ``g`` features are packed into one uint16 per
    group of features (with the class and the group's offset), so one ``np.bincount`` element
    counts ``g`` features at once; the joint counts are then summed to the per-feature ones
    (exact integers: the same counts as :func:`_class_histograms`).
    """

    _MAX_JOINT = 1 << 15  # joint cells per slot (all groups): small enough to stay in cache
    _MAX_TOTAL = 1 << 17  # joint cells over all slots of one call, else the per-feature path

    def __init__(self, codes, y_idx, B, K):
        self.codes, self.y_idx, self.B, self.K = codes, y_idx, B, K
        n, m = codes.shape
        g = 1
        for cand in (2, 3, 4):
            # the joint table of a group no bigger than the rows it counts (small n: summing a
            # mostly empty table would cost more than the counting saves)
            if B**cand * K * -(-m // cand) <= self._MAX_JOINT and B**cand * K <= max(n, 1):
                g = cand
        self.g = g
        self.packed = None
        if g == 1:
            return
        n_groups = -(-m // g)
        self.n_groups = n_groups
        self.stride = n_groups * B**g * K
        packed = np.empty((n, n_groups), dtype=np.uint16)
        group_off = np.arange(n_groups, dtype=np.intp) * (B**g * K)
        for a, b in row_blocks(n, n_groups):
            v = codes[a:b, 0::g].astype(np.intp)
            for i in range(1, g):
                v *= B
                ci = codes[a:b, i::g]  # the last group may lack this position: code 0
                v[:, : ci.shape[1]] += ci
            v *= K
            v += y_idx[a:b, None]
            v += group_off
            packed[a:b] = v
        self.packed = packed

    def counts(self, rows=None, slot=None, n_slots=1):
        if self.packed is None or n_slots * self.stride > self._MAX_TOTAL:
            return class_histograms(self.codes, self.y_idx, self.B, self.K, slot, rows, n_slots)
        B, K, g, ng = self.B, self.K, self.g, self.n_groups
        m = self.codes.shape[1]
        size = n_slots * self.stride
        out = np.zeros(size, dtype=np.int64)
        N = self.packed.shape[0] if rows is None else rows.size
        blocks = row_blocks(N, 2 * ng)
        for a, b in blocks:
            p = self.packed[a:b] if rows is None else self.packed[rows[a:b]]
            if slot is None:
                idx = p.ravel()
            else:
                idx = np.add(p, (slot[a:b] * self.stride)[:, None], dtype=np.intp).ravel()
            out += np.bincount(idx, minlength=size)
        joint = out.reshape((n_slots, ng) + (B,) * g + (K,))
        H = np.empty((n_slots, ng * g, B, K), dtype=np.int64)
        axes = tuple(range(2, 2 + g))
        for i in range(g):
            H[:, i::g] = joint.sum(axis=tuple(ax for ax in axes if ax != 2 + i))
        return H[:, :m]


def children_histograms(H, f_sel, go_left, hist, node, some_done=True, count_channel=None):
    """Histograms of the next level from the parents' ``H``: only the smaller child of each parent
    is counted (over its rows); its sibling is the parent minus it (exact integer arithmetic).

    ``node`` holds the children ids 2p (left) and 2p + 1 (right) of the rows, or -1 for rows that
    are no longer in any of them (they reached a leaf above; ``some_done=False`` promises there is
    none, which saves a pass over the rows). ``count_channel``: the statistic of ``H``'s last axis
    that counts the records (None: they are class counts, the record count is their sum).
    """
    n_par = H.shape[0]
    par = np.arange(n_par)
    rec = H.sum(axis=-1) if count_channel is None else H[..., count_channel]  # (parents, m, B) records
    size = rec[:, 0].sum(axis=1)  # rows per parent (every feature's histogram sums to it)
    n_left = (rec[par, f_sel] * go_left).sum(axis=1)
    small_right = (size - n_left) < n_left  # ties: count the left child
    small = np.zeros(2 * n_par, dtype=bool)
    small[2 * par + small_right] = True
    rows = np.flatnonzero((node >= 0) & small[node]) if some_done else np.flatnonzero(small[node])
    Hs = hist.counts(rows=rows, slot=node[rows] >> 1, n_slots=n_par)
    out = np.empty((2 * n_par,) + H.shape[1:], dtype=H.dtype)
    out[2 * par + small_right] = Hs
    out[2 * par + ~small_right] = H - Hs
    return out
