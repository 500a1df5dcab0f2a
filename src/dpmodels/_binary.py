"""Binary (0/1) feature matrices and declared label sets: the input checks shared by the learners
that read binary columns — the rule lists and the optimal tree (DL8.5) — kept here so that neither
family imports the other."""

from __future__ import annotations

import numpy as np

from .validation import resolve_classes

__all__ = ["binary_matrix", "encode_labels"]


def binary_matrix(X, dtype=np.float64) -> np.ndarray:
    """Check that every value is 0 or 1 (booleans accepted) and return the matrix as ``dtype``.

    A value other than 0/1 is a schema error (the features' domain is {0, 1}); the message names
    the column, never the value.
    """
    X = np.asarray(X)
    if X.dtype == bool:
        return X.astype(dtype, copy=False)
    if X.dtype.kind in "iu" and X.size:  # integers: the extremes decide (one pass, no copy)
        if X.max() <= 1 and (X.dtype.kind == "u" or X.min() >= 0):
            return X.astype(dtype, copy=False)
        bad = (X.max(axis=0) > 1) | ((X.min(axis=0) < 0) if X.dtype.kind == "i" else False)  # which column
        if bad.any():
            raise ValueError(
                f"rule lists need binary (0/1) features; column {int(np.argmax(bad))} holds another value — binarize first"
            )
        return X.astype(dtype, copy=False)
    if X.dtype.kind not in "iuf":
        try:
            X = X.astype(np.float64)
        except (TypeError, ValueError):
            raise ValueError("rule lists need binary (0/1) features; got non-numeric values — binarize first") from None
    if X.dtype.kind == "f" and np.isnan(X).any():
        raise ValueError("X contains NaN: binary features must be 0 or 1")
    bad = ((X != 0) & (X != 1)).any(axis=0)
    if bad.any():
        raise ValueError(
            f"rule lists need binary (0/1) features; column {int(np.argmax(bad))} holds another value — binarize first"
        )
    return X.astype(dtype, copy=False)


def encode_labels(est, y) -> np.ndarray:
    """Set ``est.classes_`` to the public label set and return y as indices into it.

    The label set is ``est.classes`` (K ≥ 2 labels) or, without it or for a binary-only learner
    (``est._binary_only``), the schema {0, 1} (for two classes, 1 = classes[1]). Never inferred
    from which labels occur (:func:`dpmodels.validation.resolve_classes`): a label outside the
    label set is a schema error; a one-class training set is valid.
    """
    declared = getattr(est, "classes", None)  # an estimator without the parameter: the schema {0, 1}
    binary = declared is None or getattr(est, "_binary_only", False)
    est.classes_, y_idx = resolve_classes(declared, y, None, binary=binary)
    return y_idx
