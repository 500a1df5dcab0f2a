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
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

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
        self.validate()
        self._cat_lookup = None

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
        internal = np.flatnonzero(~leaf)
        if np.any(self.feature[internal] < 0) or np.any(self.feature[internal] >= self.n_features):
            raise ValueError("internal nodes need a feature index in [0, n_features)")
        for i in internal:
            f = self.feature[i]
            if self.categorical[f]:
                if self.left_categories[i] is None:
                    raise ValueError(f"categorical node {i} needs left_categories")
                k = len(self.categories.get(int(f), ()))
                if any(c < 0 or c >= k for c in self.left_categories[i]):
                    raise ValueError(f"node {i}: category codes out of range for feature {f}")
            elif not np.isfinite(self.threshold[i]):
                raise ValueError(f"numerical node {i} needs a finite threshold")
        lab = self.label[leaf]
        if np.any(lab < 0) or np.any(lab >= self.n_classes):
            raise ValueError("every leaf needs a label in [0, n_classes)")
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

    def _lookup(self) -> np.ndarray:
        """Boolean (n_nodes, max_categories + 1) table: does code c go left at node i."""
        if self._cat_lookup is None:
            kmax = max([len(v) for v in self.categories.values()] + [0])
            tab = np.zeros((self.n_nodes, kmax + 1), dtype=bool)  # last column: unknown (-1)
            for i, s in enumerate(self.left_categories):
                if s:
                    tab[i, list(s)] = True
            self._cat_lookup = tab
        return self._cat_lookup

    # ------------------------------------------------------------------ prediction
    def apply_encoded(self, Z: np.ndarray) -> np.ndarray:
        """Leaf id of each row of an already encoded matrix (see :meth:`encode`)."""
        Z = np.asarray(Z, dtype=float)
        n = Z.shape[0]
        node = np.zeros(n, dtype=np.int64)
        active = np.arange(n)
        lookup = self._lookup() if self.categorical.any() else None
        is_cat_feat = self.categorical
        while active.size:
            nd = node[active]
            internal = self.children_left[nd] != TREE_LEAF
            active, nd = active[internal], nd[internal]
            if not active.size:
                break
            f = self.feature[nd]
            x = Z[active, f]
            go_left = x <= self.threshold[nd]  # NaN threshold (categorical) -> False
            if lookup is not None:
                cat = is_cat_feat[f]
                if cat.any():
                    codes = x[cat].astype(np.int64)
                    codes[(codes < 0) | (codes >= lookup.shape[1] - 1)] = lookup.shape[1] - 1
                    go_left[cat] = lookup[nd[cat], codes]
            node[active] = np.where(go_left, self.children_left[nd], self.children_right[nd])
        return node

    def apply(self, X) -> np.ndarray:
        """Leaf id of each row (as scikit-learn's ``apply``)."""
        return self.apply_encoded(self.encode(X))

    def predict(self, X) -> np.ndarray:
        return self.classes[self.label[self.apply(X)]]

    def leaf_proba(self) -> np.ndarray:
        """Class probabilities of every node from its (noisy) counts: negatives clipped to 0,
        normalised; uniform when nothing is left (or nothing was released)."""
        v = np.nan_to_num(self.value, nan=0.0)
        v = np.clip(v, 0.0, None)
        tot = v.sum(axis=1, keepdims=True)
        k = self.n_classes
        with np.errstate(invalid="ignore", divide="ignore"):
            p = np.where(tot > 0, v / np.where(tot > 0, tot, 1.0), 1.0 / k)
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
        values. Post-processing: no data access.
        """
        cl, cr = self.children_left.copy(), self.children_right.copy()
        feat, thr = self.feature.copy(), self.threshold.copy()
        lc = list(self.left_categories)
        val, lab = self.value.copy(), self.label.copy()
        order = np.argsort(-self.node_depth, kind="stable")
        for i in order:
            l, r = cl[i], cr[i]
            if l == TREE_LEAF:
                continue
            if cl[l] == TREE_LEAF and cl[r] == TREE_LEAF and lab[l] == lab[r]:
                cl[i] = cr[i] = TREE_LEAF
                feat[i], thr[i], lc[i] = TREE_UNDEFINED, np.nan, None
                val[i] = np.nan_to_num(val[l]) + np.nan_to_num(val[r])
                lab[i] = lab[l]
        # renumber reachable nodes in pre-order
        keep, stack = [], [0]
        while stack:
            i = stack.pop()
            keep.append(i)
            if cl[i] != TREE_LEAF:
                stack.append(cr[i])
                stack.append(cl[i])
        new_id = {old: new for new, old in enumerate(keep)}
        keep = np.array(keep)

        def remap(a):
            return np.array([new_id[c] if c != TREE_LEAF else TREE_LEAF for c in a[keep]], dtype=np.int64)

        return Tree(
            remap(cl), remap(cr), feat[keep], thr[keep], [lc[i] for i in keep], val[keep], lab[keep],
            self.classes, self.feature_names, self.categorical, self.categories, self.counts_are_noisy,
        )

    # ------------------------------------------------------------------ printing
    def export_text(self, *, decimals=None, show_counts: bool = True, class_names=None, spacing: int = 3) -> str:
        """Readable rules, in the layout of scikit-learn's ``export_text``.

        Numerical nodes print ``name <= t`` / ``name >  t``; categorical nodes print
        ``name in {a, b}`` / ``name not in {a, b}`` (the right branch also takes categories that are
        not in the public list). ``decimals=None`` prints thresholds in full (round-trip repr).

        Leaves print their label and their counts labelled by class: ``[n=104: no=19, yes=85]``,
        or with ``≈`` when the counts are noisy DP releases (``counts_are_noisy``). A noisy count
        below 0 is shown as ``0*`` (clipping is post-processing; a legend line starting with
        ``#`` says so) — the raw noisy values stay in ``value`` and in the JSON.
        """
        names = self.feature_names
        cls = list(class_names) if class_names is not None else [str(_py(c)) for c in self.classes]
        bar = "|" + " " * spacing
        lines = []
        eq = "≈" if self.counts_are_noisy else "="
        clipped = False

        def counts(v):
            nonlocal clipped
            shown = []
            for c, x in zip(cls, v):
                x = _round_count(x)
                mark = ""
                if self.counts_are_noisy and x < 0:
                    x, mark, clipped = 0, "*", True
                shown.append((c, x, mark))
            total = _round_count(sum(x for _, x, _ in shown))
            return f"[n{eq}{total}: " + ", ".join(f"{c}{eq}{x}{mk}" for c, x, mk in shown) + "]"

        def cats(f, codes):
            vals = self.categories[int(f)]
            return "{" + ", ".join(_fmt_value(vals[c], None) for c in codes) + "}"

        def rec(i, depth):
            indent = bar * depth + "|" + "-" * spacing + " "
            if self.children_left[i] == TREE_LEAF:
                s = f"{indent}class: {cls[self.label[i]]}"
                if show_counts:
                    v = self.value[i]
                    if np.all(np.isnan(v)):
                        s += "  (counts not released)"
                    else:
                        s += "  " + counts(v)
                lines.append(s)
                return
            f = self.feature[i]
            if self.categorical[f]:
                cs = cats(f, self.left_categories[i])
                lines.append(f"{indent}{names[f]} in {cs}")
                rec(self.children_left[i], depth + 1)
                lines.append(f"{indent}{names[f]} not in {cs}")
                rec(self.children_right[i], depth + 1)
            else:
                t = _fmt_value(self.threshold[i], decimals)
                lines.append(f"{indent}{names[f]} <= {t}")
                rec(self.children_left[i], depth + 1)
                lines.append(f"{indent}{names[f]} >  {t}")
                rec(self.children_right[i], depth + 1)

        rec(0, 0)
        if clipped:
            lines.append("# ≈: noisy counts (DP release); *: a noisy count below 0, shown as 0 "
                         "(post-processing; raw values in tree_.value)")
        return "\n".join(lines) + "\n"

    def __str__(self) -> str:
        return self.export_text()

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
        )

    def to_json(self, **kw) -> str:
        return json.dumps(self.to_dict(), **kw)

    @classmethod
    def from_json(cls, s: str) -> "Tree":
        return cls.from_dict(json.loads(s))


def _round_count(x):
    if np.isnan(x):
        return x
    return int(x) if float(x).is_integer() else float(x)


# ---------------------------------------------------------------------- encoding helpers
def _columns(X, n_features, feature_names):
    """Yield each column of X as a 1-d array or Series (pandas by name when the names match)."""
    if isinstance(X, pd.DataFrame):
        cols = [str(c) for c in X.columns]
        if len(cols) != n_features:
            raise ValueError(f"X has {len(cols)} features, the model expects {n_features}")
        if set(cols) == set(feature_names) and cols != list(feature_names):
            X = X[[X.columns[cols.index(f)] for f in feature_names]]
        return [X.iloc[:, j] for j in range(n_features)]
    arr = np.asarray(X)
    if arr.ndim != 2:
        raise ValueError(f"X must be 2-dimensional, got shape {arr.shape}")
    if arr.shape[1] != n_features:
        raise ValueError(f"X has {arr.shape[1]} features, the model expects {n_features}")
    return [arr[:, j] for j in range(n_features)]


def encode_matrix(X, feature_names, categorical, categories) -> np.ndarray:
    """(n, m) float matrix: numerical features as numbers (NaN / ±inf / non-numbers are schema
    errors), categorical features as codes in their public list (-1 for every other value)."""
    n_features = len(feature_names)
    cols = _columns(X, n_features, feature_names)
    n = len(cols[0]) if cols else 0
    Z = np.empty((n, n_features), dtype=float)
    for j, col in enumerate(cols):
        if categorical[j]:
            Z[:, j] = category_codes(col, categories[int(j)])
        else:
            Z[:, j] = numeric_column(col, feature_names[j])
    return Z
