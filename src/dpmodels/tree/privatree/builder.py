"""The released structure of a PrivaTree, its leaves, and the released :class:`~dpmodels.tree.Tree`.

The tree is grown level by level by :func:`.fitting.grow` into a :class:`Structure`. Every record
ends in exactly one leaf; the classifier's leaves release their class counts (or labels and
counts) by parallel composition (step 5 of the estimator docstring).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ...privacy.mechanisms import noisy_counts_argmax, noisy_integer_sums
from ...privacy.selection import select_rows
from ..model import Tree

__all__ = ["Structure", "release_leaf_counts", "assemble"]


@dataclass
class Structure:
    """The released shape of the tree in breadth-first node ids (parents before children).

    ``leaf_ids[k]`` is the node id of leaf k; ``split_left[node]`` which bin codes of the split
    feature go left (a boolean row over the codes, what routes a record); ``levels_used`` the
    number of levels at which some node was split.
    """

    children_left: list = field(default_factory=lambda: [-1])
    children_right: list = field(default_factory=lambda: [-1])
    feature: list = field(default_factory=lambda: [-2])
    threshold: list = field(default_factory=lambda: [np.nan])
    left_categories: list = field(default_factory=lambda: [None])
    leaf_ids: list = field(default_factory=list)
    split_left: dict = field(default_factory=dict)
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
    # internal node values = the sum of their children's (Tree.fill_internal_values: the same
    # additions; node ids are breadth-first, so every child comes after its parent)
    rows = val.tolist()
    for i in range(n_nodes - 1, -1, -1):
        left = st.children_left[i]
        if left != -1:
            rows[i] = [a + b for a, b in zip(rows[left], rows[st.children_right[i]])]
    val = np.array(rows, dtype=float).reshape(val.shape)
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
    return tree
