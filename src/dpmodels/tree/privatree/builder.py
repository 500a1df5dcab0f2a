"""Level-wise growth of a PrivaTree, its leaves, and the released :class:`~dpmodels.tree.Tree`.

The tree is grown level by level (vectorised over the nodes of a level): the exact counts of the
level (:mod:`.histograms`), one private split per node (:mod:`.splitter`), routing of the records,
then the children's counts by the smaller-child subtraction. The leaves release their class counts
(or labels and counts) by parallel composition (step 5 of the estimator docstring).
"""

from __future__ import annotations

import numpy as np

from ...privacy import samplers
from ...privacy.selection import select_rows
from ..model import Tree
from .histograms import Histograms, children_histograms
from .splitter import select_level

__all__ = ["grow", "release_leaves", "assemble"]


def grow(est, grid, y_idx, K, categorical, depth, eps_level, ledger, rng):
    """Grow the complete tree; returns ``(internal, node)``: per level the (feature, position,
    order) of every node, and the leaf index of every record."""
    codes, n_bins, B = grid.codes, grid.n_bins, grid.B
    n, m = codes.shape
    node = np.zeros(n, dtype=np.intp)
    row_start = np.arange(n) * m  # flat offset of each row in the row-major codes
    hist = Histograms(codes, y_idx, B, K) if depth > 0 else None
    sort_feats = np.array(
        [j for j in np.flatnonzero(categorical) if K == 2 and n_bins[j] - 1 > 2], dtype=np.int64
    )
    n_cand = np.where(categorical, n_bins - 2, n_bins - 1)  # categorical: prefixes 1..C-1
    valid = np.arange(B)[None, :] < n_cand[:, None]  # (m, B) candidate (feature, position)
    cand_f, cand_b = np.nonzero(valid)
    internal = []
    H = None
    for level in range(depth):
        n_nodes = 1 << level
        if level == 0:
            H = hist.counts()
        f_sel, b_sel, order = select_level(est, H, level, cand_f, cand_b, sort_feats, n_bins, B,
                                           eps_level, ledger, rng)
        rank = np.argsort(order, axis=2)  # position of each code in the node's order
        go_left = rank[np.arange(n_nodes), f_sel] <= b_sel[:, None]  # (n_nodes, B)
        internal.append((f_sel, b_sel, order[np.arange(n_nodes), f_sel]))
        row_code = np.take(codes, row_start + f_sel[node])  # codes[i, f_sel[node[i]]]
        left = np.take(go_left, node * B + row_code)  # go_left[node[i], row_code[i]]
        node = 2 * node + (~left)
        if level + 1 < depth:
            H = children_histograms(H, f_sel, go_left, hist, node)
    return internal, node


def release_leaves(leaf_labels, node, y_idx, n_leaves, K, eps_leaf, ledger, rng):
    """Leaf class counts (and labels) of the ``n_leaves`` disjoint leaves at ε_leaf (parallel)."""
    Hl = np.bincount(node * K + y_idx, minlength=n_leaves * K).reshape(n_leaves, K)
    comp = "parallel" if n_leaves > 1 else "sequential"
    if leaf_labels == "noisy-counts":
        ledger.spend(
            "leaf class counts (labels = argmax)", "discrete Laplace", eps_leaf, sensitivity=1.0,
            composition=comp, parts=n_leaves, note="label by report-noisy-max (post-processing)",
        )
        counts = Hl + samplers.discrete_laplace(1.0 / eps_leaf, Hl.shape, rng)
        labels = np.argmax(counts + 0.5 * rng.random(counts.shape), axis=1)  # random tie-break
    else:
        ledger.spend(
            "leaf labels", "permute-and-flip", eps_leaf / 2, sensitivity=1.0, composition=comp,
            parts=n_leaves, note="monotone utility (class counts)",
        )
        labels = select_rows(Hl, eps_leaf / 2, 1.0, rng, monotone=True, mechanism="permute-and-flip")
        ledger.spend(
            "leaf class counts (display, predict_proba)", "discrete Laplace", eps_leaf / 2,
            sensitivity=1.0, composition=comp, parts=n_leaves,
        )
        counts = Hl + samplers.discrete_laplace(2.0 / eps_leaf, Hl.shape, rng)
    return counts, labels


def assemble(depth, internal, thresholds, categorical, categories, names, classes, counts, labels):
    """The released complete tree in heap layout (internal node values = sums of leaf counts)."""
    n_int = (1 << depth) - 1
    n_nodes = (1 << (depth + 1)) - 1
    K = classes.size
    cl = np.full(n_nodes, -1, dtype=np.int64)
    cr = np.full(n_nodes, -1, dtype=np.int64)
    feat = np.full(n_nodes, -2, dtype=np.int64)
    thr = np.full(n_nodes, np.nan)
    lc = [None] * n_nodes
    val = np.full((n_nodes, K), np.nan)
    lab = np.full(n_nodes, -1, dtype=np.int64)
    for level, (f_sel, b_sel, ords) in enumerate(internal):
        for i in range(1 << level):
            nid = (1 << level) - 1 + i  # heap layout
            cl[nid], cr[nid] = 2 * nid + 1, 2 * nid + 2
            f = int(f_sel[i])
            feat[nid] = f
            b = int(b_sel[i])
            if categorical[f]:
                lc[nid] = tuple(sorted(int(c) for c in ords[i][: b + 1])) if b >= 0 else ()
            else:
                t = thresholds[f]
                thr[nid] = float(t[b]) if b >= 0 else -np.inf
    val[n_int:] = counts
    lab[n_int:] = labels
    if n_int and not np.all(np.isfinite(thr[:n_int][~categorical[feat[:n_int]]])):
        thr[np.isneginf(thr)] = np.finfo(float).min  # no candidate: everything goes right
    tree = Tree(cl, cr, feat, thr, lc, val, lab, classes, names, categorical, categories)
    tree.fill_internal_values()
    return tree
