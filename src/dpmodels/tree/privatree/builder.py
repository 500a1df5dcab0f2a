"""Level-wise growth of a PrivaTree, its leaves, and the released :class:`~dpmodels.tree.Tree`.

The tree is grown level by level, vectorised over the open nodes of a level: their exact counts
(:mod:`.histograms`), the nodes that can still be split (some feature has ≥ 2 bins alive in the
node's region, :mod:`.splitter` — a fact about the released structure, not the data), one private
split per such node, routing of the records, then the children's counts by the smaller-child
subtraction. A node that cannot be split is a leaf. Every record ends in exactly one leaf; the
leaves release their class counts (or labels and counts) by parallel composition (step 5 of the
estimator docstring).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ...guards import progress
from ...privacy.mechanisms import noisy_counts_argmax, noisy_integer_sums
from ...privacy.selection import select_rows
from ..model import Tree
from .histograms import Histograms, children_histograms
from .splitter import (
    child_regions,
    published_splittable,
    record_published_stopping_rule,
    root_region,
    select_level,
)

__all__ = ["Structure", "grow", "release_leaves", "release_leaf_counts", "assemble"]


@dataclass
class Structure:
    """The released shape of the tree in breadth-first node ids (parents before children).

    ``leaf_ids[k]`` is the node id of leaf k; ``leaf_of[i]`` the leaf of record i (private, never
    released); ``levels_used`` the number of levels at which some node was split.
    """

    children_left: list = field(default_factory=lambda: [-1])
    children_right: list = field(default_factory=lambda: [-1])
    feature: list = field(default_factory=lambda: [-2])
    threshold: list = field(default_factory=lambda: [np.nan])
    left_categories: list = field(default_factory=lambda: [None])
    leaf_ids: list = field(default_factory=list)
    leaf_of: np.ndarray | None = None
    levels_used: int = 0

    def add_children(self, parent, f, threshold=np.nan, left=None):
        left_id = len(self.children_left)
        for _ in range(2):
            self.children_left.append(-1)
            self.children_right.append(-1)
            self.feature.append(-2)
            self.threshold.append(np.nan)
            self.left_categories.append(None)
        self.children_left[parent], self.children_right[parent] = left_id, left_id + 1
        self.feature[parent] = int(f)
        self.threshold[parent] = threshold
        self.left_categories[parent] = left
        return left_id, left_id + 1


def grow(est, grid, y_idx, K, categorical, depth, eps_level, ledger, rng) -> Structure:
    """Grow the tree to at most ``depth`` levels, splitting only inside each node's region."""
    codes, n_bins, B = grid.codes, grid.n_bins, grid.B
    n, m = codes.shape
    st = Structure()
    st.leaf_of = np.full(n, -1, dtype=np.intp)
    row_start = np.arange(n) * m  # flat offset of each row in the row-major codes
    alive = root_region(grid, categorical)[None]  # (open nodes, m, B)
    published = getattr(est, "variant", "rigorous") != "rigorous"
    if published:
        est._root_bins = alive[0]  # the published selection histograms these bins only (splitter.py)
        if depth > 0:
            record_published_stopping_rule(ledger)
    open_ids = [0]
    node = np.zeros(n, dtype=np.intp)  # open node (index into open_ids) of each record, or -1
    all_open = True  # every record still in an open node (the common case: no -1 in node)
    hist = Histograms(codes, y_idx, B, K) if depth > 0 else None
    H = hist.counts() if hist is not None else None
    for level in progress(range(depth + 1), desc="PrivaTree levels"):
        A = len(open_ids)
        # a node can be split iff some feature has >= 2 bins alive in its region (public)
        splittable = (alive.sum(axis=2) >= 2).any(axis=1) if level < depth else np.zeros(A, bool)
        if published and level < depth and H is not None:
            splittable &= published_splittable(H)
        leaf_index = np.full(A, -1, dtype=np.intp)
        for a in np.flatnonzero(~splittable):
            leaf_index[a] = len(st.leaf_ids)
            st.leaf_ids.append(open_ids[a])
        if not splittable.all():
            done = (node >= 0) & ~splittable[np.maximum(node, 0)]
            st.leaf_of[done] = leaf_index[node[done]]
            node[done] = -1
            all_open = all_open and not done.any()
        sidx = np.flatnonzero(splittable)
        if sidx.size == 0:
            break
        assert H is not None and hist is not None  # a node is splittable only when depth > 0
        Hs, alive_s = H[sidx], alive[sidx]
        f_sel, b_sel, order = select_level(est, Hs, alive_s, level, categorical, n_bins, K, eps_level, ledger, rng)
        st.levels_used += 1
        S = sidx.size
        rank = np.argsort(order, axis=2)  # position of each code in the node's order
        go_left = rank[np.arange(S), f_sel] <= b_sel[:, None]  # (S, B) over codes
        new_open = []
        for i, a in enumerate(sidx):
            f, b = int(f_sel[i]), int(b_sel[i])
            if categorical[f]:
                kids = st.add_children(open_ids[a], f, left=tuple(sorted(int(c) for c in order[i, f, : b + 1])))
            else:
                kids = st.add_children(open_ids[a], f, threshold=float(grid.thresholds[f][b]))
            new_open.extend(kids)
        # route the records of the split nodes: child 2i (left) or 2i + 1 (right) of split i
        split_of = np.full(A, -1, dtype=np.intp)
        split_of[sidx] = np.arange(S)
        if all_open:  # flat takes, no masks (routing is the per-level O(n) cost)
            s = node if S == A else np.take(split_of, node)
            row_code = np.take(codes, row_start + np.take(f_sel, s))  # codes[i, f_sel[s(i)]]
            node = 2 * s + ~np.take(go_left, s * B + row_code)
        else:
            rows = np.flatnonzero(node >= 0)
            s = split_of[node[rows]]
            row_code = np.take(codes, row_start[rows] + f_sel[s])
            left = np.take(go_left, s * B + row_code)
            node = np.full(n, -1, dtype=np.intp)
            node[rows] = 2 * s + (~left)
        lft, rgt = child_regions(alive_s, f_sel, go_left)
        alive = np.stack([lft, rgt], axis=1).reshape((2 * S,) + lft.shape[1:])
        open_ids = new_open
        if level + 1 < depth:
            H = children_histograms(Hs, f_sel, go_left, hist, node, some_done=not all_open)
    return st


def release_leaves(leaf_labels, leaf_of, y_idx, n_leaves, K, eps_leaf, ledger, rng):
    """Class counts (and labels) of the ``n_leaves`` disjoint leaves at ε_leaf (parallel)."""
    Hl = np.bincount(leaf_of * K + y_idx, minlength=n_leaves * K).reshape(n_leaves, K)
    return release_leaf_counts(leaf_labels, Hl, eps_leaf, ledger, rng)


def release_leaf_counts(leaf_labels, Hl, eps_leaf, ledger, rng):
    """The release of the leaves' exact (leaf, class) counts ``Hl`` at ε_leaf (parallel across the
    disjoint leaves): ``(noisy counts, labels)``. Shared by the in-memory and the partitioned fits."""
    n_leaves = Hl.shape[0]
    comp = "parallel" if n_leaves > 1 else "sequential"
    if leaf_labels == "noisy-counts":
        ledger.spend(
            "leaf class counts (labels = argmax)",
            "discrete Laplace",
            eps_leaf,
            sensitivity=1.0,
            composition=comp,
            parts=n_leaves,
            note="label by report-noisy-max (post-processing)",
        )
        counts, labels = noisy_counts_argmax(Hl, eps_leaf, rng)  # random tie-break
    else:
        ledger.spend(
            "leaf labels",
            "permute-and-flip",
            eps_leaf / 2,
            sensitivity=1.0,
            composition=comp,
            parts=n_leaves,
            note="monotone utility (class counts)",
        )
        labels = select_rows(Hl, eps_leaf / 2, 1.0, rng, monotone=True, mechanism="permute-and-flip")
        ledger.spend(
            "leaf class counts (display, predict_proba)",
            "discrete Laplace",
            eps_leaf / 2,
            sensitivity=1.0,
            composition=comp,
            parts=n_leaves,
        )
        counts = noisy_integer_sums(Hl, eps_leaf / 2, 1, rng)  # scale 1/(ε_leaf/2) = 2/ε_leaf
    return counts, labels


def assemble(st: Structure, categorical, categories, names, classes, counts, labels) -> Tree:
    """The released tree (internal node values = sums of their leaves' noisy counts)."""
    n_nodes = len(st.children_left)
    val = np.full((n_nodes, classes.size), np.nan)
    lab = np.full(n_nodes, -1, dtype=np.int64)
    leaf_ids = np.asarray(st.leaf_ids, dtype=np.int64)
    val[leaf_ids] = counts
    lab[leaf_ids] = labels
    tree = Tree(
        np.asarray(st.children_left, dtype=np.int64),
        np.asarray(st.children_right, dtype=np.int64),
        np.asarray(st.feature, dtype=np.int64),
        np.asarray(st.threshold, dtype=float),
        st.left_categories,
        val,
        lab,
        classes,
        names,
        categorical,
        categories,
        counts_are_noisy=True,
    )
    tree.fill_internal_values()
    return tree
