"""Optimal decision trees: DL8.5 (Aglin, Nijssen & Schaus, AAAI 2020; PyDL8.5, IJCAI 2020) as a
:class:`~dpmodels.tree.Tree`, so that every audit of the library applies to it.

Paper 003 (Section V-A) learns its optimal trees with PyDL8.5 on binarized data, optimising
training accuracy under a maximum depth and a minimum leaf support. This estimator calls PyPI's
``pydl8.5`` (the optional extra ``dpmodels[optimal]``) and converts the tree it returns into the
library's flat-array :class:`~dpmodels.tree.Tree`: every internal node tests one binary column,
``x <= 0.5`` (value 0) going left; leaf ``value`` rows are the exact training class counts, and
leaf labels are DL8.5's.

Not private: DL8.5 reads the data like any non-private learner (it is paper 003's baseline).
"""

from __future__ import annotations

import math
import numbers

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_is_fitted, validate_data

from .._binary import binary_matrix, encode_labels
from .._optional import require
from .._params import Integral, Interval, Real, validate_params
from .model import TREE_LEAF, TREE_UNDEFINED, Tree, TreeEstimatorMixin

__all__ = ["DL85Classifier", "tree_from_dl85"]


def _import_dl85():
    return require("pydl85", "DL85Classifier").DL85Classifier


def tree_from_dl85(tree: dict, X01: np.ndarray, y01: np.ndarray, feature_names, classes) -> Tree:
    """Convert PyDL8.5's nested ``tree_`` dict into a :class:`Tree`.

    PyDL8.5 describes an internal node as ``{"feat": j, "left": …, "right": …}`` where ``left`` is
    the branch of records with ``x_j = 1``, and a leaf as ``{"value": class_index, "error": e}``.
    Here the x_j = 0 branch goes left (``x_j <= 0.5``). Nodes are numbered in pre-order; leaf
    ``value`` rows are the training class counts of the records routed there (exact), internal
    rows the sums of their children.
    """
    left: list[int] = []
    right: list[int] = []
    feat: list[int] = []
    label: list[int] = []

    def add(node) -> int:
        i = len(feat)
        left.append(TREE_LEAF)
        right.append(TREE_LEAF)
        if "feat" in node:
            feat.append(int(node["feat"]))
            label.append(-1)
            left[i] = add(node["right"])  # x_j = 0
            right[i] = add(node["left"])  # x_j = 1
        else:
            feat.append(TREE_UNDEFINED)
            label.append(int(node["value"]))
        return i

    add(tree)
    n_nodes = len(feat)
    feat_a = np.asarray(feat, dtype=np.int64)
    internal = feat_a >= 0
    tr = Tree(
        children_left=np.asarray(left, dtype=np.int64),
        children_right=np.asarray(right, dtype=np.int64),
        feature=feat_a,
        threshold=np.where(internal, 0.5, np.nan),
        left_categories=[None] * n_nodes,
        value=np.zeros((n_nodes, len(classes))),
        label=np.asarray(label, dtype=np.int64),
        classes=np.asarray(classes),
        feature_names=list(feature_names),
        categorical=np.zeros(len(feature_names), dtype=bool),
    )
    leaf = tr.apply_encoded(X01.astype(np.float64))
    for k in range(len(classes)):
        tr.value[:, k] = np.bincount(leaf, weights=(y01 == k).astype(np.float64), minlength=n_nodes)
    tr.value[internal] = 0.0
    return tr.fill_internal_values()


class DL85Classifier(TreeEstimatorMixin, ClassifierMixin, BaseEstimator):
    """Optimal binary decision tree of bounded depth on binary (0/1) features, by DL8.5.

    Parameters
    ----------
    max_depth : int, default=3
        Maximum depth (a depth-1 tree is one split).
    min_sup : int ≥ 1 or float in (0, 1), default=1
        Minimum number of training records per leaf; a float is a fraction of n, rounded up
        (⌈min_sup·n⌉, scikit-learn's ``min_samples_leaf`` convention; paper 003's relative
        minimum leaf supports 0.01–0.05).
    time_limit : float or None, default=None
        Seconds given to the search (rounded up to whole seconds, PyDL8.5's unit). When it runs
        out the best tree found is kept and ``optimal_`` is False.
    classes : sequence of 2 labels or None, default=None
        The public label set (negative, positive). None: the schema {0, 1}, as for the rule
        lists (never read from y).
    fast_depth_two : bool, default=False
        Use PyDL8.5's specialised depth-2 solver (``depth_two_special_algo``, PyDL8.5's own
        default). Measured here with PyDL8.5 0.1.8 against exhaustive search: it returned a
        suboptimal tree on 36 of 392 random small instances (2 of 400 with ``min_sup=1``), and
        952 instead of 949 errors on Adult 10 % at depth 4, min_sup 49; it is ~5× faster at depth
        5. False (exact) by default; with True, ``optimal_`` is never claimed.

    Attributes
    ----------
    tree_ : Tree
        The tree (binary numerical splits at 0.5), exact training counts in ``value``.
    optimal_ : bool
        True when PyDL8.5 finished its exact search (the tree is optimal); False after a time-out
        or with ``fast_depth_two``.
    train_errors_ : int
        Misclassified training records.
    lattice_size_, runtime_ : int, float
        PyDL8.5's search statistics (itemsets explored, seconds).
    """

    def __init__(self, max_depth=3, min_sup=1, time_limit=None, classes=None, fast_depth_two=False):
        self.max_depth = max_depth
        self.min_sup = min_sup
        self.time_limit = time_limit
        self.classes = classes
        self.fast_depth_two = fast_depth_two

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        return tags

    # ------------------------------------------------------------------ checks
    _parameter_constraints: dict = {
        "max_depth": [Interval(Integral, 1, None, closed="left")],
        "min_sup": [Interval(Integral, 1, None, closed="left"), Interval(Real, 0, 1, closed="neither")],
        "time_limit": [None, Interval(Real, 0, None, closed="neither")],
        "classes": "no_validation",  # declarations: dpmodels.validation
        "fast_depth_two": ["boolean"],
    }

    def _support(self, n: int) -> int:
        """The minimum leaf support in records: ``min_sup`` itself, or ⌈min_sup·n⌉ for a fraction."""
        s = self.min_sup
        if isinstance(s, numbers.Integral):
            return int(s)
        return max(1, math.ceil(float(s) * n))

    # Label handling shared with the rule lists (same `classes=`: declared, else the schema {0, 1});
    # DL8.5's trees here are binary-class
    _binary_only = True
    _encode_labels = encode_labels

    def _to_binary(self, X) -> np.ndarray:
        """Validated 0/1 matrix (a hook: tests subclass it to run scikit-learn's checks)."""
        return binary_matrix(X)

    # --------------------------------------------------------------------- fit
    def fit(self, X, y):
        validate_params(self)
        _DL85 = _import_dl85()  # fails the same way whatever the data
        X, y = validate_data(self, X, y, dtype=None, ensure_all_finite=True, y_numeric=False)
        Xb = self._to_binary(X)
        sup = self._support(Xb.shape[0])
        yb = self._encode_labels(y)
        names = (
            [str(c) for c in self.feature_names_in_]
            if hasattr(self, "feature_names_in_")
            else [f"x{i}" for i in range(Xb.shape[1])]
        )
        tl = 0 if self.time_limit is None else max(1, math.ceil(self.time_limit))
        X01 = Xb.astype(np.int32)
        ones = X01.sum(axis=0)
        splittable = bool(np.any(np.minimum(ones, len(yb) - ones) >= sup))
        if len(np.unique(yb)) < 2 or not splittable:
            # PyDL8.5 needs both classes, and 0.1.8 aborts (C++ vector::reserve) when no column
            # leaves min_sup records on both sides of the root; the single leaf is then optimal.
            pos = int(yb.sum())
            raw = {"value": int(2 * pos > len(yb)), "error": min(pos, len(yb) - pos)}
            self.optimal_, self.lattice_size_, self.runtime_ = True, 0, 0.0
        else:
            dl = _DL85(
                max_depth=int(self.max_depth),
                min_sup=sup,
                time_limit=tl,
                quiet=True,
                depth_two_special_algo=bool(self.fast_depth_two),
            )
            try:
                dl.fit(X01, yb)
            except RuntimeError as exc:
                raise RuntimeError(f"PyDL8.5 failed: {exc}") from exc
            raw = dl.tree_
            if not raw:
                raise RuntimeError("PyDL8.5 returned no tree (no tree meets min_sup within the limits)")
            self.optimal_ = not bool(dl.timeout_) and not self.fast_depth_two
            self.lattice_size_ = int(dl.lattice_size_)
            self.runtime_ = float(dl.runtime_)
        self.tree_ = tree_from_dl85(raw, X01, yb, names, self.classes_)
        self.train_errors_ = int((self.tree_.label[self.tree_.apply_encoded(X01)] != yb).sum())
        self.min_sup_ = sup
        return self

    # ------------------------------------------------------------------- predict
    def _validate_predict(self, X):
        check_is_fitted(self, "tree_")
        X = validate_data(self, X, dtype=None, ensure_all_finite=True, reset=False)
        return self._to_binary(X).astype(np.float64)

    def apply(self, X):
        """Leaf node id of each row in ``tree_``."""
        Z = self._validate_predict(X)
        return self.tree_.apply_encoded(Z)
