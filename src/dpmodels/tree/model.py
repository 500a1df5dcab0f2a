"""One decision-tree representation for every tree learner of :mod:`dpmodels.tree`.

:class:`Tree` stores a binary tree in flat arrays, like scikit-learn's ``tree_`` object, so that
prediction is vectorised over rows (the loop runs over the depth, never over the samples).

Node arrays (length ``n_nodes``, node 0 is the root):

``children_left``, ``children_right`` : int64
    Child node ids; ``-1`` for a leaf.
``feature`` : int64
    Index of the feature tested at the node (into ``feature_names``); ``-2`` for a leaf.
``threshold`` : float64
    Numerical nodes: a row goes **left iff** ``x <= threshold``. ``NaN`` for categorical nodes
    and leaves.
``left_categories`` : list of tuple[int] or None
    Categorical nodes: the *codes* (positions in ``categories[feature]``) that go left; a row goes
    **left iff** its category is in this set, otherwise right. ``None`` for numerical nodes and
    leaves.
``value`` : float64, shape (n_nodes, n_classes)
    Class counts of the node as released by the learner (for private learners: *noisy* counts);
    ``NaN`` where nothing was released. ``predict_proba`` uses the leaves' rows.
``label`` : int64
    Index into ``classes`` of the label of each leaf (``-1`` for internal nodes). A private learner
    may choose labels by a different mechanism than the argmax of ``value``; ``predict`` follows
    ``label``.

Model-level attributes: ``classes`` (label values), ``feature_names`` (list of str),
``categorical`` (bool per feature), ``categories`` (dict feature index -> list of the *public*
category values; their order defines the codes), ``counts_are_noisy`` (``value`` holds noisy
counts released by a DP mechanism: printed with ``≈``, negatives shown as 0 and marked — the raw
noisy values stay in ``value`` and in :meth:`Tree.to_dict`).

Input handling (:meth:`Tree.encode`, :mod:`dpmodels.validation`): numerical columns are read as
float; categorical columns are mapped to codes through the public category list. **Fallback for
unknown categories:** a value that is not in the public list — of any type, and missing values
(``None``, ``NaN``, ``pd.NA``) included — gets code ``-1``, which is in no ``left_categories`` set,
so it always follows the *right* branch ("not in L"): the printed rule ``x not in {...}`` is
exactly what happens to it. NaN or ±inf in a numerical feature is outside its domain and raises
``ValueError``. Numerical values outside the bounds a learner used need no clipping at prediction:
thresholds lie inside the bounds, so ``x <= t`` gives the same branch for ``x`` and its clipped
value.

Use by learners: build the arrays (``Tree(...)``), optionally fill internal ``value`` rows as sums
of their children (:meth:`Tree.fill_internal_values`, post-processing of released leaf counts) and
merge sibling leaves with equal labels (:meth:`Tree.prune`). Everything round-trips through
:meth:`Tree.to_dict` / :meth:`Tree.from_dict` (JSON-serialisable).
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .._format import NOISY_LEGEND, FittedReprMixin, count_parts, model_header, shrunk_proba, significant
from ..validation import UNKNOWN_CATEGORY, category_codes, numeric_column

__all__ = ["Tree", "TREE_LEAF", "TREE_UNDEFINED", "UNKNOWN_CATEGORY"]

TREE_LEAF = -1
TREE_UNDEFINED = -2


def _py(v):
    """Numpy scalar -> Python scalar (for JSON)."""
    if isinstance(v, np.generic):
        return v.item()
    return v


def _fmt_value(v, decimals):
    if isinstance(v, (float, np.floating)):
        if decimals is None:
            return repr(float(v))
        return f"{float(v):.{decimals}f}"
    return str(_py(v))


@dataclass
class Tree:
    children_left: np.ndarray
    children_right: np.ndarray
    feature: np.ndarray
    threshold: np.ndarray
    left_categories: list
    value: np.ndarray
    label: np.ndarray
    classes: np.ndarray
    feature_names: list
    categorical: np.ndarray
    categories: dict = field(default_factory=dict)
    counts_are_noisy: bool = False
    count_noise_scale: float | None = None  # b of the leaves' count release: predict_proba's shrinkage

    def __post_init__(self):
        self.children_left = np.asarray(self.children_left, dtype=np.int64)
        self.children_right = np.asarray(self.children_right, dtype=np.int64)
        self.feature = np.asarray(self.feature, dtype=np.int64)
        self.threshold = np.asarray(self.threshold, dtype=float)
        self.left_categories = [None if s is None else tuple(int(c) for c in s) for s in self.left_categories]
        self.value = np.asarray(self.value, dtype=float)
        self.label = np.asarray(self.label, dtype=np.int64)
        self.classes = np.asarray(self.classes)
        self.feature_names = [str(f) for f in self.feature_names]
        self.categorical = np.asarray(self.categorical, dtype=bool)
        self.categories = {int(k): list(v) for k, v in dict(self.categories).items()}
        self.counts_are_noisy = bool(self.counts_are_noisy)
        if self.count_noise_scale is not None:
            b = float(self.count_noise_scale)
            if not b >= 0:
                raise ValueError(f"count_noise_scale must be None or >= 0, got {self.count_noise_scale!r}")
            self.count_noise_scale = b
        self.validate()
        self._cat_lookup: tuple[np.ndarray, int] | None = None
        self._route: _Routing | None = None

    # ------------------------------------------------------------------ checks
    @property
    def n_nodes(self) -> int:
        return int(self.children_left.shape[0])

    @property
    def n_features(self) -> int:
        return len(self.feature_names)

    @property
    def n_classes(self) -> int:
        return int(self.classes.shape[0])

    @property
    def is_leaf(self) -> np.ndarray:
        return self.children_left == TREE_LEAF

    @property
    def n_leaves(self) -> int:
        return int(self.is_leaf.sum())

    @property
    def node_depth(self) -> np.ndarray:
        depth = np.zeros(self.n_nodes, dtype=np.int64)
        for i in range(self.n_nodes):  # parents precede children in every layout we build
            for c in (self.children_left[i], self.children_right[i]):
                if c != TREE_LEAF:
                    depth[c] = depth[i] + 1
        return depth

    @property
    def max_depth(self) -> int:
        return int(self.node_depth.max()) if self.n_nodes else 0

    def validate(self) -> None:
        """Raise ``ValueError`` on the first inconsistency: array shapes, the parent links, the
        node tests (feature, threshold, category codes), then the labels."""
        self._validate_shapes()
        leaf = self._validate_links()
        self._validate_tests(leaf)
        self._validate_labels(leaf)

    def _validate_shapes(self) -> None:
        n = self.n_nodes
        if n == 0:
            raise ValueError("a tree needs at least one node")
        for name in ("children_right", "feature", "threshold", "label"):
            if getattr(self, name).shape != (n,):
                raise ValueError(f"{name} must have shape ({n},)")
        if len(self.left_categories) != n:
            raise ValueError(f"left_categories must have {n} entries")
        if self.value.shape != (n, self.n_classes):
            raise ValueError(f"value must have shape ({n}, {self.n_classes})")
        if self.categorical.shape != (self.n_features,):
            raise ValueError("categorical must have one entry per feature")

    def _validate_links(self) -> np.ndarray:
        """Every node has two children or none and every node but the root one parent; the leaf mask."""
        n = self.n_nodes
        leaf = self.children_left == TREE_LEAF
        if np.any(leaf != (self.children_right == TREE_LEAF)):
            raise ValueError("a node must have two children or none")
        seen = np.zeros(n, dtype=np.int64)
        for arr in (self.children_left[~leaf], self.children_right[~leaf]):
            if np.any(arr <= 0) or np.any(arr >= n):
                raise ValueError("child ids must point to nodes 1..n_nodes-1")
            np.add.at(seen, arr, 1)
        if np.any(seen[1:] != 1) or seen[0] != 0:
            raise ValueError("every node except the root must have exactly one parent")
        return leaf

    def _validate_tests(self, leaf: np.ndarray) -> None:
        n = self.n_nodes
        internal = np.flatnonzero(~leaf)
        if np.any(self.feature[internal] < 0) or np.any(self.feature[internal] >= self.n_features):
            raise ValueError("internal nodes need a feature index in [0, n_features)")
        # node by node in id order (the first bad node raises); numerical nodes checked at once
        on_cat = self.categorical[self.feature[internal]]
        num = internal[~on_cat]
        bad = num[~np.isfinite(self.threshold[num])]
        first_bad = int(bad[0]) if bad.size else n
        for i in internal[on_cat].tolist():
            if i > first_bad:
                break
            feat = int(self.feature[i])
            if self.left_categories[i] is None:
                raise ValueError(f"categorical node {i} needs left_categories")
            k = len(self.categories.get(feat, ()))
            if any(c < 0 or c >= k for c in self.left_categories[i]):
                raise ValueError(f"node {i}: category codes out of range for feature {feat}")
        if bad.size:
            raise ValueError(f"numerical node {first_bad} needs a finite threshold")

    def _validate_labels(self, leaf: np.ndarray) -> None:
        """Leaf and node labels in range, then a category list for every categorical feature."""
        lab = self.label[leaf]
        if np.any(lab < 0) or np.any(lab >= self.n_classes):
            raise ValueError("every leaf needs a label in [0, n_classes)")
        if np.any(self.label < -1) or np.any(self.label >= self.n_classes):
            raise ValueError("node labels must be -1 (none) or in [0, n_classes)")
        for f in np.flatnonzero(self.categorical):
            if int(f) not in self.categories:
                raise ValueError(f"categorical feature {f} has no category list")

    # ------------------------------------------------------------------ input
    def encode(self, X) -> np.ndarray:
        """Raw input (DataFrame or array-like) -> float matrix: numbers, and category codes.

        Categorical values outside the public list get code -1 (routed right, see module doc).
        Missing values raise ``ValueError``.
        """
        return encode_matrix(X, self.feature_names, self.categorical, self.categories)

    def _lookup(self) -> tuple[np.ndarray, int]:
        """Sorted int64 keys ``node * width + code``, one per (categorical node, code sent left),
        with ``width`` = the longest category list + 1.

        Its size is the number of codes the nodes list (what the model file holds), never
        nodes x categories: a table of that product would let a small file with many nodes and a
        long category list allocate without bound (docs/privacy.md, "Model files are untrusted input").
        """
        if self._cat_lookup is None:
            width = max([len(v) for v in self.categories.values()] + [0]) + 1
            keys = [i * width + c for i, s in enumerate(self.left_categories) if s for c in s]
            self._cat_lookup = (np.unique(np.asarray(keys, dtype=np.int64)), width)
        return self._cat_lookup

    def _goes_left(self, nodes: np.ndarray, codes: np.ndarray) -> np.ndarray:
        """Does the category code ``codes[r]`` go left at categorical node ``nodes[r]`` (codes
        outside the node's list, -1 for unknown values included, go right)."""
        keys, width = self._lookup()
        if keys.size == 0:
            return np.zeros(nodes.shape, dtype=bool)
        valid = (codes >= 0) & (codes < width - 1)
        q = nodes * width + np.where(valid, codes, 0)
        pos = np.minimum(np.searchsorted(keys, q), keys.size - 1)
        return valid & (keys[pos] == q)

    # ------------------------------------------------------------------ prediction
    def _layout(self) -> _Routing:
        """The routing tables of :meth:`apply_encoded` (built once per tree)."""
        if self._route is None:
            self._route = _Routing.of(self)
        return self._route

    def apply_encoded(self, Z: np.ndarray) -> np.ndarray:
        """Leaf id of each row of an already encoded matrix (see :meth:`encode`).

        Rows are routed in blocks of ``_BLOCK`` rows, all rows of a block one level per step
        (leaves route to themselves), so that the work is ``depth`` gathers per row with no
        shrinking active sets and the block's temporaries stay in cache. A row goes left at a
        numerical node iff ``x <= threshold`` (NaN goes right) and at a categorical node iff its
        code is listed (see :meth:`_goes_left`), as in :meth:`apply_reference`.
        """
        Z = np.asarray(Z, dtype=float)
        if Z.ndim != 2:
            raise ValueError(f"Z must be 2-dimensional, got shape {Z.shape}")
        n = Z.shape[0]
        if n == 0:
            return np.zeros(0, dtype=np.int64)
        if self.n_features == 0 or self.children_left[0] == TREE_LEAF:
            return np.zeros(n, dtype=np.int64)
        if Z.flags.c_contiguous:
            flat, row_step, offset = Z.reshape(-1), Z.shape[1], self._layout().feature
        elif Z.flags.f_contiguous:
            flat, row_step, offset = Z.T.reshape(-1), 1, self._layout().feature * n
        else:
            Z = np.ascontiguousarray(Z)
            flat, row_step, offset = Z.reshape(-1), Z.shape[1], self._layout().feature
        return self._layout().route(flat, n, row_step, offset, self)

    def apply_reference(self, Z: np.ndarray) -> np.ndarray:
        """:meth:`apply_encoded` written plainly, one row and one node at a time (the oracle of
        the tests)."""
        Z = np.asarray(Z, dtype=float)
        out = np.zeros(Z.shape[0], dtype=np.int64)
        for r in range(Z.shape[0]):
            i = 0
            while self.children_left[i] != TREE_LEAF:
                x = Z[r, self.feature[i]]
                if self.categorical[self.feature[i]]:  # a code: an integer, truncated as int64 casts
                    left = math.isfinite(x) and int(x) in self.left_categories[i]
                else:
                    left = bool(x <= self.threshold[i])
                i = self.children_left[i] if left else self.children_right[i]
            out[r] = i
        return out

    def apply(self, X) -> np.ndarray:
        """Leaf id of each row (as scikit-learn's ``apply``)."""
        # no copy of a float64 input: routing only reads it
        return self.apply_encoded(encode_matrix(X, self.feature_names, self.categorical, self.categories, copy=False))

    def predict(self, X) -> np.ndarray:
        return self.classes[self.label[self.apply(X)]]

    def leaf_proba(self, *, shrink: bool = True) -> np.ndarray:
        """Class probabilities of every node from its (noisy) counts.

        Exact counts: the node's class shares (uniform for an empty node). Noisy counts:
        negatives clipped to 0 (post-processing) and, with ``shrink`` (default) and a known
        ``count_noise_scale`` b, the shares of every node shrunk toward the tree's overall noisy
        class share (the leaves' counts summed) with a pseudo-count of b
        (:func:`dpmodels._format.shrunk_proba`). A leaf holding one training record has counts
        such as (0, 1) + noise: its raw share rests on one noisy count and says nothing; the
        shrinkage pulls it to the prior and leaves large leaves as they are (measured: PrivaTree
        at ε = 0.1 on German credit, 20 splits: held-out log-loss 2.14 → 0.66, Brier 0.498 →
        0.457; ``docs/results.md``). A leaf that released no counts (``value`` NaN, e.g. DPGDF's
        label-only leaves) gets probability 1 for its label. ``shrink=False``: raw clipped shares.

        A leaf's label is the argmax of its *unclipped* noisy counts (report-noisy-max), so after
        clipping and shrinkage another class can come out on top (counts (−1, −3): label 0, clipped
        (0, 0), shares = the prior). Then the label's share and the top share are swapped, so
        ``argmax(predict_proba) == predict`` always (post-processing of released values).
        """
        b = self.count_noise_scale if (shrink and self.counts_are_noisy) else None
        p = shrunk_proba(self.value, b, prior_rows=self.is_leaf)  # the prior: the leaves' counts
        unreleased = np.isnan(p).any(axis=1)
        p[unreleased] = 1.0 / self.n_classes
        lab = unreleased & (self.label >= 0)
        if lab.any():
            p[lab] = 0.0
            p[np.flatnonzero(lab), self.label[lab]] = 1.0
        rows = np.flatnonzero(self.is_leaf & (self.label >= 0))
        if rows.size:
            top = np.argmax(p[rows], axis=1)
            own = self.label[rows]
            off = np.flatnonzero(p[rows, top] > p[rows, own])
            if off.size:
                r, t, o = rows[off], top[off], own[off]
                p[r, t], p[r, o] = p[r, o], p[r, t].copy()
            # a tie between the label and a class before it: argmax takes the first, so move the
            # smallest representable mass to the label (post-processing; sums stay 1 to 1e-15)
            top = np.argmax(p[rows], axis=1)
            tie = np.flatnonzero(top != own)
            if tie.size:
                r, t, o = rows[tie], top[tie], own[tie]
                step = np.maximum(np.spacing(p[r, o]), 1e-15)
                p[r, o] += step
                p[r, t] -= step
        return p

    def predict_proba(self, X) -> np.ndarray:
        return self.leaf_proba()[self.apply(X)]

    # ------------------------------------------------------------------ post-processing
    def fill_internal_values(self) -> "Tree":
        """Set every internal node's ``value`` to the sum of its children's (in place; returns self).

        For a private tree this is post-processing of the released leaf counts.
        """
        order = np.argsort(-self.node_depth, kind="stable")
        for i in order:
            if self.children_left[i] != TREE_LEAF:
                self.value[i] = self.value[self.children_left[i]] + self.value[self.children_right[i]]
        return self

    def prune(self) -> "Tree":
        """A new tree in which sibling leaves with the same label are merged (repeatedly).

        Predictions (``predict``) are unchanged; a merged leaf's value is the sum of the merged
        values. Post-processing: no data access. :meth:`prune_origin` also says which leaves of
        this tree each leaf of the new tree holds.
        """
        return self.prune_origin()[0]

    def prune_origin(self) -> "tuple[Tree, list]":
        """``(pruned tree, origin)``: :meth:`prune`'s tree and, for each of its nodes, the sorted
        ids of this tree's leaves it holds (what :meth:`apply` of this tree returns for its rows)."""
        cl, cr = self.children_left.copy(), self.children_right.copy()
        feat, thr = self.feature.copy(), self.threshold.copy()
        lc = list(self.left_categories)
        val, lab = self.value.copy(), self.label.copy()
        members = [[i] if cl[i] == TREE_LEAF else [] for i in range(self.n_nodes)]
        order = np.argsort(-self.node_depth, kind="stable")
        for i in order:
            l, r = cl[i], cr[i]
            if l == TREE_LEAF:
                continue
            if cl[l] == TREE_LEAF and cl[r] == TREE_LEAF and lab[l] == lab[r]:
                cl[i] = cr[i] = TREE_LEAF
                feat[i], thr[i], lc[i] = TREE_UNDEFINED, np.nan, None
                both_nan = np.isnan(val[l]) & np.isnan(val[r])  # nothing released: stays NaN
                val[i] = np.where(both_nan, np.nan, np.nan_to_num(val[l]) + np.nan_to_num(val[r]))
                lab[i] = lab[l]
                members[i] = sorted(members[l] + members[r])
        # renumber reachable nodes in pre-order
        reach: list[int] = []
        stack = [0]
        while stack:
            i = stack.pop()
            reach.append(i)
            if cl[i] != TREE_LEAF:
                stack.append(cr[i])
                stack.append(cl[i])
        new_id = {old: new for new, old in enumerate(reach)}
        keep = np.array(reach)

        def remap(a):
            return np.array([new_id[c] if c != TREE_LEAF else TREE_LEAF for c in a[keep]], dtype=np.int64)

        tree = Tree(
            remap(cl),
            remap(cr),
            feat[keep],
            thr[keep],
            [lc[i] for i in keep],
            val[keep],
            lab[keep],
            self.classes,
            self.feature_names,
            self.categorical,
            self.categories,
            self.counts_are_noisy,
            self.count_noise_scale,
        )
        return tree, [members[i] for i in keep]

    # ------------------------------------------------------------------ printing
    @property
    def n_total(self) -> float:
        """Sum of the leaves' released counts (negatives clipped): the (noisy) training-set size;
        NaN when the leaves released no counts."""
        v = self.value[self.is_leaf]
        if v.size == 0 or np.all(np.isnan(v)):
            return float("nan")
        return float(np.clip(np.nan_to_num(v, nan=0.0), 0.0, None).sum())

    def _integer_index(self, integer_features) -> set:
        """Indices of the numerical features declared integer-valued (names or indices)."""
        out = set()
        for f in integer_features or ():
            j = self.feature_names.index(str(f)) if not isinstance(f, (int, np.integer)) else int(f)
            if not self.categorical[j]:
                out.add(j)
        return out

    def _leaf_text(self, i, cls, proba, *, show_counts, show_ids, members=None, base_proba=None):
        """``class: 1  P=63%  [n≈419: 0 156, 1 263]  leaf 15`` (a picture's leaf box) and whether
        a count was clipped. ``P``: :meth:`leaf_proba` of the leaf's label (= ``predict_proba``).
        A noisy leaf whose clipped counts sum to 0 prints ``no records (noise)`` instead of its
        counts. ``members`` / ``base_proba``: a leaf of :meth:`prune`'s tree shows the ids of the
        fitted tree's leaves it holds and the range of their ``predict_proba``."""
        head, n, cell, tail, clipped = self._leaf_parts(i, cls, proba, show_counts, show_ids, members, base_proba)
        if n and cell.startswith("["):
            cell = f"[{n}: {cell[1:]}"
        return "  ".join(x for x in (head, cell, tail) if x), clipped

    def _leaf_parts(self, i, cls, proba, show_counts, show_ids, members=None, base_proba=None):
        """A leaf's text in columns: ``("class: 1  P=63%", "n≈419", "[0 156, 1 263]", "leaf 15",
        clipped)``; the samples column ``n`` is empty when no count is shown."""
        lab = int(self.label[i])
        head = f"class: {cls[lab]}"
        if not show_counts:
            return head, "", "", "", False
        if members is not None:  # prune's display: P of the fitted leaves it holds
            ps = sorted({round(100 * float(base_proba[m, lab])) for m in members})
            head += f"  P={ps[0]}%" if len(ps) == 1 else f"  P={ps[0]}–{ps[-1]}%"
        else:
            head += f"  P={100 * float(proba[i, lab]):.0f}%"
        v = self.value[i]
        n, clipped = "", False
        if np.all(np.isnan(v)):
            cell = "(counts not released)"
        elif self.counts_are_noisy and np.clip(np.nan_to_num(v), 0, None).sum() == 0:
            cell = "no records (noise)"
        else:
            n, per_class, clipped = count_parts(v, cls, noisy=self.counts_are_noisy)
            cell = f"[{per_class}]"
        tail = ""
        if show_ids:
            if members is None:
                tail = f"leaf {int(i)}"
            else:
                tail = ("leaf " if len(members) == 1 else "leaves ") + _id_ranges(members)
        return head, n, cell, tail, clipped

    @staticmethod
    def _path_state(state, f, codes, into: bool):
        """The category state of feature ``f`` after a test ``in codes`` (``into``) or ``not in
        codes``. A state is ``(codes, unlisted)``: with ``unlisted`` the codes are the *excluded*
        listed values (unlisted values pass), without it the *allowed* ones. No state ever holds
        all k listed codes, so a walk over a tree costs what its tests list, not k per node."""
        held, unlisted = state.get(f, (frozenset(), True))
        codes = frozenset(codes)
        if into:
            return (codes - held, False) if unlisted else (held & codes, False)
        return (held | codes, True) if unlisted else (held - codes, False)

    def _set_text(self, f, held, unlisted, *, compact, max_listed):
        """The category condition ``name in {…}`` / ``not in {…}`` of a path state (see
        :meth:`_path_state`: ``held`` are the excluded codes when ``unlisted`` values pass, the
        allowed ones otherwise). ``compact``: a list of more than 6 values prints ``in {all
        listed but …}`` / ``in {…, <unlisted>}`` when that is shorter; a set longer than
        ``max_listed`` prints as a count (``in {2,493 of 5,000 listed}``; the values are in
        :meth:`get_rules` and the JSON). The complement is built only when it is printed."""
        vals = self.categories[f]
        k = len(vals)
        held = set(held)
        n_other = k - len(held)

        def others():
            return set(range(k)) - held

        def fmt(cs, word="listed"):
            if max_listed is not None and len(cs) > max_listed:
                return f"{{{len(cs):,} of {k:,} {word}}}"
            return "{" + ", ".join(_fmt_value(vals[c], None) for c in sorted(cs)) + "}"

        if unlisted:  # held: the excluded codes
            if compact and k > 2 and n_other < len(held) and (max_listed is None or n_other <= max_listed):
                allowed = others()
                return f"in {fmt(allowed)[:-1]}, <unlisted>}}" if allowed else "in {<unlisted>}"
            return f"not in {fmt(held)}"
        # held: the allowed codes
        if compact and k > 2 and n_other < len(held) and (max_listed is None or n_other <= max_listed):
            return f"in {{all listed but {fmt(others())[1:-1]}}}"
        return f"in {fmt(held)}"

    def _walk_lines(
        self,
        leaf_line,
        *,
        significant_digits=None,
        decimals=None,
        integer_features=(),
        spacing=3,
        max_listed=None,
        compact=False,
    ):
        """The indented lines of :meth:`export_text`, with ``leaf_line(i)`` the text of leaf i
        (classifiers and regression trees print different leaves on the same walk): a string, or
        its columns ``(head, n, cell, tail)``, which are aligned over the leaves — the samples
        column ``n`` right-aligned, as a rule list prints it. Returns the lines, the
        integer-declared feature indices, and whether a threshold was rounded or floored for
        printing (the legend lines' conditions)."""
        names = self.feature_names
        integer = self._integer_index(integer_features)
        bar = "|" + " " * spacing
        lines: list[str | tuple] = []  # a leaf's columns stay a tuple until they are aligned
        rounded = False
        floored = False

        def thr(t, f):
            nonlocal rounded, floored
            if f in integer:
                k = math.floor(t)
                floored |= k != t
                return str(int(k))
            if significant_digits is not None:
                s = significant(t, significant_digits)
            else:
                s = _fmt_value(t, decimals)
            rounded |= float(s) != float(t)
            return s

        def rec(i, depth, state):
            indent = bar * depth + "|" + "-" * spacing + " "
            if self.children_left[i] == TREE_LEAF:
                body = leaf_line(i)
                lines.append(indent + body if isinstance(body, str) else (indent + body[0], *body[1:]))
                return
            f = int(self.feature[i])
            if self.categorical[f]:
                left_codes = self.left_categories[i]
                ls = {**state, f: self._path_state(state, f, left_codes, True)}
                rs = {**state, f: self._path_state(state, f, left_codes, False)}
                for child, st in ((self.children_left[i], ls), (self.children_right[i], rs)):
                    cond = self._set_text(f, *st[f], compact=compact, max_listed=max_listed)
                    lines.append(f"{indent}{names[f]} {cond}")
                    rec(child, depth + 1, st)
            else:
                t = thr(self.threshold[i], f)
                lines.append(f"{indent}{names[f]} <= {t}")
                rec(self.children_left[i], depth + 1, state)
                lines.append(f"{indent}{names[f]} >  {t}")
                rec(self.children_right[i], depth + 1, state)

        rec(0, 0, {})
        return _aligned_leaves(lines), integer, rounded, floored

    def _threshold_legend(self, integer, rounded, floored) -> list[str]:
        """The ``#`` legend lines for thresholds printed as ⌊t⌋ or rounded."""
        out = []
        if floored:
            out.append(
                "# integer-valued columns (declared): "
                + ", ".join(self.feature_names[j] for j in sorted(integer))
                + " — a threshold t prints as ⌊t⌋, the same test on integers; the released "
                "values are in get_rules() and the JSON"
            )
        if rounded:
            out.append("# thresholds rounded for reading; exact values in export_text() and the JSON")
        return out

    def export_text(
        self,
        *,
        decimals=None,
        show_counts: bool = True,
        class_names=None,
        spacing: int = 3,
        significant_digits: int | None = None,
        integer_features=(),
        show_ids: bool = True,
        max_listed: int | None = None,
        _compact: bool = False,
        _origin=None,
        _base_proba=None,
    ) -> str:
        """Readable rules, in the layout of scikit-learn's ``export_text``.

        Numerical nodes print ``name <= t`` / ``name > t``; categorical nodes print the category
        set a record on that branch holds, intersected along the path (after ``education not in
        {Prof-school}``, a child prints ``education in {Doctorate}``, not ``{Doctorate,
        Prof-school}``): ``name in {a, b}`` / ``name not in {a, b}`` (``not in``: every other
        value, values missing from the public list included). Thresholds:
        ``decimals=None`` and ``significant_digits=None`` (default) print them in full
        (round-trip repr: the printed rules are exactly the model); ``decimals=k`` rounds to k
        decimals, ``significant_digits=k`` to k significant digits. ``integer_features``
        (names or indices of numerical features declared integer-valued): a threshold t prints
        as ⌊t⌋, which sends every integer value where t does (``x <= 0.53`` is ``x <= 0`` on
        integers); the released t stays in the model, :meth:`get_rules` and the JSON.
        ``max_listed``: a category set longer than this prints as a count.

        Leaves print their label, ``P=…%`` (:meth:`leaf_proba` of the label: what
        ``predict_proba`` returns for the leaf's rows), the samples column ``n=104`` (``n≈``
        when the counts are noisy DP releases, ``counts_are_noisy``), right-aligned over the
        leaves, their counts labelled by class, ``[no 19, yes 85]``, and their id (``leaf 15``:
        what :meth:`apply` returns). A noisy
        count below 0 is shown as ``0*`` (clipping is post-processing; a legend line starting with
        ``#`` says so) — the raw noisy values stay in ``value`` and in the JSON (conventions:
        :mod:`dpmodels._format`). A noisy leaf whose clipped counts are all 0 prints ``no records
        (noise)``.
        """
        cls = list(class_names) if class_names is not None else [str(_py(c)) for c in self.classes]
        proba = self.leaf_proba()
        clipped = False

        def leaf_line(i):
            nonlocal clipped
            *parts, cl = self._leaf_parts(
                i,
                cls,
                proba,
                show_counts,
                show_ids,
                members=None if _origin is None else _origin[i],
                base_proba=_base_proba,
            )
            clipped |= cl
            return tuple(parts)

        lines, integer, rounded, floored = self._walk_lines(
            leaf_line,
            significant_digits=significant_digits,
            decimals=decimals,
            integer_features=integer_features,
            spacing=spacing,
            max_listed=max_listed,
            compact=_compact,
        )
        if show_counts:
            lines.append(
                "# P: predict_proba of the leaf's class"
                + (
                    " (noisy counts shrunk toward the tree's share)"
                    if self.counts_are_noisy and self.count_noise_scale
                    else ""
                )
                + ("; leaf k: the id apply() returns" if show_ids else "")
            )
        if clipped:
            lines.append("# ≈: noisy counts (DP release); " + NOISY_LEGEND)
        lines += self._threshold_legend(integer, rounded, floored)
        return "\n".join(lines) + "\n"

    def to_text(
        self,
        *,
        prune: bool = False,
        header=None,
        significant_digits: int = 4,
        integer_features=(),
        max_listed: int | None = 12,
        **kw,
    ) -> str:
        """The tree as people read it: a header (n, classes; estimators add the learner and its
        privacy status), then :meth:`export_text` of the tree with thresholds rounded to
        ``significant_digits``, long category lists written compactly and sets of more than
        ``max_listed`` values as counts. Every leaf shows its id and ``P`` = ``predict_proba``.

        ``prune=True`` prints :meth:`prune`'s tree (sibling leaves with the same label merged:
        same predictions, post-processing): a merged leaf shows the ids of the leaves it holds
        and the range of their ``predict_proba`` (``predict_proba`` keeps the fitted leaves: merged
        shares ranked records worse, measured in ``docs/results.md``). A tree that predicts one
        class for everyone says so."""
        if prune:
            shown, origin = self.prune_origin()
            kw.update(_origin=origin, _base_proba=self.leaf_proba())
        else:
            shown = self
        if header is None:
            header = model_header(
                "Decision tree", status=None, n_total=self.n_total, noisy=self.counts_are_noisy, classes=self.classes
            )
        lines = list(header)
        labels = set(shown.label[shown.is_leaf].tolist())
        if len(labels) == 1:
            lines.append(f"This model predicts {_py(self.classes[labels.pop()])} for every record.")
        body = shown.export_text(
            significant_digits=significant_digits,
            integer_features=integer_features,
            max_listed=max_listed,
            _compact=True,
            **kw,
        ).rstrip("\n")
        lines.append(body)
        merged = self.n_leaves - shown.n_leaves
        if merged:
            lines.append(
                f"# {merged} pair{'s' if merged > 1 else ''} of sibling leaves with the same "
                "label merged (to_text(prune=False) shows the tree as fitted)"
            )
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.export_text()

    def leaf_paths(self) -> dict:
        """``{leaf id: [(feature index, op, value), ...]}`` of the tests on the path to each leaf;
        ``op`` is ``"<="`` / ``">"`` (value: threshold) or ``"in"`` / ``"not in"`` (value: the
        tuple of category codes going left)."""
        out: dict = {}
        stack: list[tuple[int, list]] = [(0, [])]
        while stack:
            i, path = stack.pop()
            if self.children_left[i] == TREE_LEAF:
                out[int(i)] = path
                continue
            f = int(self.feature[i])
            if self.categorical[f]:
                lc = self.left_categories[i]
                stack.append((self.children_right[i], path + [(f, "not in", lc)]))
                stack.append((self.children_left[i], path + [(f, "in", lc)]))
            else:
                t = float(self.threshold[i])
                stack.append((self.children_right[i], path + [(f, ">", t)]))
                stack.append((self.children_left[i], path + [(f, "<=", t)]))
        return out

    def _path_text(self, path, digits, integer=(), max_listed=None) -> str:
        """The path's tests simplified per feature: ``30 < age <= 50``, ``sex in {Male}``,
        ``race not in {A, B}`` (intervals and category sets intersected); thresholds of integer
        features (indices ``integer``) as ⌊t⌋; sets longer than ``max_listed`` as counts."""
        parts = []
        for f in dict.fromkeys(p[0] for p in path):
            name = self.feature_names[f]
            tests = [(op, v) for g, op, v in path if g == f]
            if self.categorical[f]:
                st: dict = {}
                for op, codes in tests:
                    st[f] = self._path_state(st, f, codes, op == "in")
                cond = self._set_text(f, *st[f], compact=bool(digits), max_listed=max_listed)
                parts.append(f"{name} {cond}")
            else:
                lo = max([v for op, v in tests if op == ">"], default=None)
                hi = min([v for op, v in tests if op == "<="], default=None)
                if f in integer:
                    fmt = lambda t: str(math.floor(t))  # noqa: E731
                elif digits:
                    fmt = lambda t: significant(t, digits)  # noqa: E731
                else:
                    fmt = lambda t: repr(float(t))  # noqa: E731
                if lo is not None and hi is not None:
                    parts.append(f"{fmt(lo)} < {name} <= {fmt(hi)}")
                elif hi is not None:
                    parts.append(f"{name} <= {fmt(hi)}")
                else:
                    parts.append(f"{name} > {fmt(lo)}")
        return " and ".join(parts) if parts else "True"

    def get_rules(
        self,
        *,
        prune: bool = False,
        significant_digits: int | None = 4,
        integer_features=(),
        max_listed: int | None = 12,
    ):
        """One row per leaf (a path from the root) as a pandas DataFrame.

        Columns: ``leaf`` (node id, what :meth:`apply` returns), ``depth``, ``rule``
        (``IF … THEN …`` text, tests on one feature simplified to an interval or a category set,
        thresholds rounded to ``significant_digits``, None for exact), ``antecedent``,
        ``conditions`` (list of ``(feature, op, value)`` exactly as tested: thresholds in full,
        category *values*), ``prediction`` (the leaf's label), ``count_<class>`` for each class
        (raw released values, NaN when not released), ``noisy``, ``n`` (total of the counts
        clipped at 0) and ``share`` (the label's share = its ``predict_proba``).
        ``prune=True``: the leaves of :meth:`prune`'s tree. ``integer_features`` and
        ``max_listed`` shape the ``rule`` text only (as in :meth:`export_text`); ``conditions``
        always hold the released thresholds and the full category sets.
        """
        t = self.prune() if prune else self
        integer = t._integer_index(integer_features)
        proba = t.leaf_proba()
        depth = t.node_depth
        rows = []
        for leaf, path in sorted(t.leaf_paths().items()):
            pred = _py(t.classes[t.label[leaf]])
            ante = t._path_text(path, significant_digits, integer, max_listed)
            conds = []
            for f, op, v in path:
                if op in ("in", "not in"):
                    v = tuple(_py(t.categories[f][c]) for c in v)
                conds.append((t.feature_names[f], op, v))
            row = {
                "leaf": leaf,
                "depth": int(depth[leaf]),
                "rule": f"IF {ante} THEN {pred}",
                "antecedent": ante,
                "conditions": conds,
                "prediction": pred,
            }
            for k, c in enumerate(t.classes):
                row[f"count_{_py(c)}"] = float(t.value[leaf, k])
            row["noisy"] = bool(t.counts_are_noisy)
            v = t.value[leaf]
            row["n"] = float("nan") if np.all(np.isnan(v)) else float(np.clip(np.nan_to_num(v), 0, None).sum())
            cl = np.clip(np.nan_to_num(v), 0, None)
            row["share"] = float(cl[t.label[leaf]] / cl.sum()) if cl.sum() > 0 else float("nan")
            row["proba"] = float(proba[leaf, t.label[leaf]])
            rows.append(row)
        return pd.DataFrame(rows)

    # ------------------------------------------------------------------ serialisation
    def to_dict(self) -> dict:
        def nan_none(a):
            return [None if (isinstance(x, float) and np.isnan(x)) else x for x in a]

        return {
            "format": "dpmodels.tree/1",
            "children_left": self.children_left.tolist(),
            "children_right": self.children_right.tolist(),
            "feature": self.feature.tolist(),
            "threshold": nan_none(self.threshold.tolist()),
            "left_categories": [None if s is None else list(s) for s in self.left_categories],
            "value": [nan_none(row) for row in self.value.tolist()],
            "label": self.label.tolist(),
            "classes": [_py(c) for c in self.classes.tolist()],
            "feature_names": list(self.feature_names),
            "categorical": self.categorical.tolist(),
            "categories": {str(k): [_py(v) for v in vals] for k, vals in self.categories.items()},
            "counts_are_noisy": self.counts_are_noisy,
            "count_noise_scale": self.count_noise_scale,
        }

    @classmethod
    def from_dict(cls, d: dict) -> "Tree":
        def none_nan(a):
            return [np.nan if x is None else x for x in a]

        value = np.array([none_nan(r) for r in d["value"]], dtype=float)
        if value.size == 0:
            value = value.reshape(len(d["label"]), len(d["classes"]))
        return cls(
            children_left=d["children_left"],
            children_right=d["children_right"],
            feature=d["feature"],
            threshold=none_nan(d["threshold"]),
            left_categories=d["left_categories"],
            value=value,
            label=d["label"],
            classes=np.array(d["classes"]),
            feature_names=d["feature_names"],
            categorical=d["categorical"],
            categories={int(k): v for k, v in d["categories"].items()},
            counts_are_noisy=bool(d.get("counts_are_noisy", False)),
            count_noise_scale=d.get("count_noise_scale"),
        )

    def to_json(self, **kw) -> str:
        return json.dumps(self.to_dict(), **kw)

    @classmethod
    def from_json(cls, s: str) -> "Tree":
        return cls.from_dict(json.loads(s))


def _id_ranges(ids) -> str:
    """``[3, 4, 5, 9]`` -> ``3–5, 9``."""
    ids = sorted(int(i) for i in ids)
    out, start = [], None
    for k, i in enumerate(ids):
        if start is None:
            start = i
        if k + 1 == len(ids) or ids[k + 1] != i + 1:
            out.append(str(start) if start == i else f"{start}–{i}")
            start = None
    return ", ".join(out)


# ---------------------------------------------------------------------- routing
_BLOCK = 8192  # rows routed together: a block's index, value and node arrays stay in cache


def _aligned_leaves(lines: list) -> list[str]:
    """Lines with the leaves' columns ``(indented head, n, cell, tail)`` aligned over the tree:
    heads padded to one width, the samples column right-aligned, then the cells and the ids."""
    leaves = [ln for ln in lines if not isinstance(ln, str)]
    if not leaves:
        return lines
    w = [max(len(ln[k]) for ln in leaves) for k in range(3)]
    out = []
    for ln in lines:
        if isinstance(ln, str):
            out.append(ln)
            continue
        head, n, cell, tail = ln
        cols = [f"{head:<{w[0]}}"] + ([f"{n:>{w[1]}}"] if w[1] else []) + ([f"{cell:<{w[2]}}"] if w[2] else [])
        out.append("  ".join([*cols, tail]).rstrip())
    return out


@dataclass
class _Routing:
    """A tree's nodes renumbered breadth-first so that every internal node's children are
    consecutive (``left = right - 1``); ``go_left`` moves a row from ``i`` to ``right[i] - 1``.
    A leaf routes to itself: ``right`` is its own id and its threshold NaN (``x <= NaN`` is
    False for every x), so all rows of a block take ``depth`` steps whatever their leaf's depth.
    Categorical nodes also hold a NaN threshold; the rows reaching them are looked up in the
    tree's category keys (``Tree._goes_left``, by the original node id ``order``)."""

    feature: np.ndarray  # intp, per new id (0 for leaves)
    threshold: np.ndarray  # float64, NaN for leaves and categorical nodes
    right: np.ndarray  # intp, new id of the right child (self for leaves)
    order: np.ndarray  # int64, new id -> node id of the tree
    is_cat: np.ndarray | None  # bool per new id, None when the tree tests no categorical feature
    depth: int

    @classmethod
    def of(cls, tree: Tree) -> _Routing:
        order = [0]
        for i in order:  # grows while read: breadth-first
            if tree.children_left[i] != TREE_LEAF:
                order += [int(tree.children_left[i]), int(tree.children_right[i])]
        old = np.asarray(order, dtype=np.int64)
        new = np.empty(tree.n_nodes, dtype=np.intp)
        new[old] = np.arange(old.size)
        internal = tree.children_left[old] != TREE_LEAF
        feature = np.where(internal, tree.feature[old], 0).astype(np.intp)
        is_cat = internal & tree.categorical[feature]
        threshold = np.where(internal & ~is_cat, tree.threshold[old], np.nan)
        right = np.where(internal, new[np.maximum(tree.children_right[old], 0)], np.arange(old.size))
        return cls(
            feature=feature,
            threshold=threshold.astype(np.float64),
            right=right.astype(np.intp),
            order=old,
            is_cat=is_cat if is_cat.any() else None,
            depth=tree.max_depth,
        )

    def route(self, flat: np.ndarray, n: int, row_step: int, offset: np.ndarray, tree: Tree) -> np.ndarray:
        """Leaf ids (of ``tree``) of the ``n`` rows whose value of feature ``f`` is
        ``flat[row * row_step + offset[f-node]]``."""
        out = np.empty(n, dtype=np.intp)
        steps = np.arange(0, _BLOCK * row_step, row_step, dtype=np.intp)
        for start in range(0, n, _BLOCK):
            stop = min(n, start + _BLOCK)
            base = steps[: stop - start] + start * row_step
            if self.is_cat is None:  # level 0: every row at the root, one strided column read
                x = flat[base + offset[0]]
                node = self.right[0] - (x <= self.threshold[0])
                levels = self.depth - 1
            else:
                node, levels = np.zeros(stop - start, dtype=np.intp), self.depth
            for _ in range(levels):
                x = flat.take(base + offset.take(node))
                go_left = x <= self.threshold.take(node)  # NaN threshold (leaf, categorical): False
                if self.is_cat is not None:
                    cat = np.flatnonzero(self.is_cat.take(node))
                    if cat.size:
                        go_left[cat] = tree._goes_left(self.order[node[cat]], x[cat].astype(np.int64))
                node = self.right.take(node) - go_left
            out[start:stop] = node
        return self.order.take(out)


# ---------------------------------------------------------------------- encoding helpers
def _frame_or_array(X, n_features, feature_names):
    """X checked for its number of features: a DataFrame with the model's columns in order (by
    name when the names match), or a 2-d numpy array."""
    if isinstance(X, pd.DataFrame):
        cols = [str(c) for c in X.columns]
        if len(cols) != n_features:
            raise ValueError(f"X has {len(cols)} features, the model expects {n_features}")
        if set(cols) == set(feature_names) and cols != list(feature_names):
            X = X[[X.columns[cols.index(f)] for f in feature_names]]
        return X
    arr = np.asarray(X)
    if arr.ndim != 2:
        raise ValueError(f"X must be 2-dimensional, got shape {arr.shape}")
    if arr.shape[1] != n_features:
        raise ValueError(f"X has {arr.shape[1]} features, the model expects {n_features}")
    return arr


def _columns(X, n_features, feature_names):
    """Each column of X as a 1-d array or Series (pandas by name when the names match)."""
    X = _frame_or_array(X, n_features, feature_names)
    if isinstance(X, pd.DataFrame):
        return [X.iloc[:, j] for j in range(n_features)]
    return [X[:, j] for j in range(n_features)]


def _plain_numbers(X) -> np.ndarray | None:
    """X (checked by :func:`_frame_or_array`) as one float64 matrix when every column is a plain
    numpy number column (bool, int, float up to 64 bits) — the values :func:`numeric_column`
    gives column by column, without a copy when X is already float64; None otherwise."""
    if isinstance(X, pd.DataFrame):
        if not all(isinstance(dt, np.dtype) and dt.kind in "biuf" and dt.itemsize <= 8 for dt in X.dtypes):
            return None
        return X.to_numpy(dtype=np.float64, copy=False)
    if X.dtype.kind not in "biuf" or X.dtype.itemsize > 8:
        return None
    return X.astype(np.float64, copy=False)


def _all_finite(A: np.ndarray) -> bool:
    """No NaN or ±inf in ``A``: one sum (NaN and inf propagate; a finite sum proves it), and the
    exact elementwise check only when the sum is not finite (overflow of finite values)."""
    with np.errstate(all="ignore"):
        if math.isfinite(float(A.sum())):
            return True
    return bool(np.isfinite(A).all())


def encode_matrix(X, feature_names, categorical, categories, *, copy: bool = True) -> np.ndarray:
    """(n, m) float matrix: numerical features as numbers (NaN / ±inf / non-numbers are schema
    errors), categorical features as codes in their public list (-1 for every other value).

    Without categorical features and with plain numeric columns, the matrix is converted at once
    (schema errors still come from the column-by-column reading, first bad column first).
    ``copy=False`` (prediction) may return a read-only view of ``X`` itself."""
    n_features = len(feature_names)
    X = _frame_or_array(X, n_features, feature_names)
    if not np.any(categorical):
        A = _plain_numbers(X)
        if A is not None and _all_finite(A):
            if copy and (A is X or not (A.flags.owndata and A.flags.writeable)):  # X, a view of it, pandas read-only
                return A.copy()
            if not copy:
                A = A.view()
                A.flags.writeable = False
            return A
    cols = _columns(X, n_features, feature_names)
    n = len(cols[0]) if cols else 0
    Z = np.empty((n, n_features), dtype=float)
    for j, col in enumerate(cols):
        if categorical[j]:
            Z[:, j] = category_codes(col, categories[int(j)])
        else:
            Z[:, j] = numeric_column(col, feature_names[j])
    return Z


class TreeEstimatorMixin(FittedReprMixin):
    """Prediction, printing and ``get_rules`` for estimators holding a fitted ``tree_`` (mixin).

    The estimator implements ``apply(X)`` (validate and encode its raw input, then route it:
    leaf ids of ``tree_``); everything else follows from the released tree.
    """

    # provided by the estimator: its fitted tree and label set, its apply, and scikit-learn's get_params
    tree_: Tree
    classes_: np.ndarray
    apply: Callable[..., np.ndarray]
    get_params: Callable[..., dict]
    _display_params: tuple[str, ...] = ("max_depth",)

    def predict(self, X):
        leaf = self.apply(X)  # first: it raises NotFittedError on an unfitted estimator
        return self.classes_[self.tree_.label[leaf]]

    def predict_proba(self, X):
        """Class probabilities of each row's leaf (:meth:`Tree.leaf_proba`)."""
        leaf = self.apply(X)  # first: it raises NotFittedError on an unfitted estimator
        return self.tree_.leaf_proba()[leaf]

    def _integer_features(self) -> list:
        """Features declared integer-valued by integer ``bounds`` (printing only)."""
        from .._format import declared_integer_features

        known = set(self.tree_.feature_names)
        return [f for f in declared_integer_features(self.get_params(deep=False).get("bounds")) if f in known]

    def export_text(self, **kw) -> str:
        """The tree in scikit-learn's ``export_text`` layout, exact thresholds (:meth:`Tree.export_text`)."""
        from sklearn.utils.validation import check_is_fitted

        check_is_fitted(self, "tree_")
        return self.tree_.export_text(**kw)

    def to_text(self, *, prune: bool = False, significant_digits: int = 4, max_listed: int | None = 12) -> str:
        """The fitted tree with a header (learner, ε and the ledger's verdict, n≈, classes):
        :meth:`Tree.to_text`; features with integer ``bounds`` print integer thresholds."""
        from sklearn.utils.validation import check_is_fitted

        from .._format import estimator_header

        check_is_fitted(self, "tree_")
        header = estimator_header(self, self.tree_, self._display_params)
        return self.tree_.to_text(
            prune=prune,
            header=header,
            significant_digits=significant_digits,
            integer_features=self._integer_features(),
            max_listed=max_listed,
        )

    def get_rules(self, *, prune: bool = False, significant_digits: int | None = 4, max_listed: int | None = 12):
        """One row per leaf as a DataFrame (:meth:`Tree.get_rules`)."""
        from sklearn.utils.validation import check_is_fitted

        check_is_fitted(self, "tree_")
        return self.tree_.get_rules(
            prune=prune,
            significant_digits=significant_digits,
            integer_features=self._integer_features(),
            max_listed=max_listed,
        )

    def __str__(self) -> str:
        if not hasattr(self, "tree_"):
            return self.__repr__()
        return self.to_text()
