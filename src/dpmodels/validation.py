"""What is public, decided in one place for every estimator (PRIVACY-NOTES Conventions, 14–16).

A differentially private learner is a randomised map from datasets to models. Its guarantee holds
over a **universe** of records that must be fixed before the data is seen: the feature domains
(numerical bounds, category lists), the label set, and the hyper-parameters. Everything in that
universe is *public*; the records are private. This module turns an estimator's parameters
(``classes=``, ``categories=``, ``bounds=``, ``n_public=``) into the public schema, the way
diffprivlib's ``validation.py`` does, with one rule for every estimator:

* A public input that is **declared** is used exactly as declared (order included).
* A public input that is **missing** and must be read from the data is read, and the estimator's
  ledger gets a leak row and a :class:`~dpmodels.privacy.PrivacyLeakWarning`
  (:meth:`~dpmodels.privacy.PrivacyLedger.record_leak`). Non-private learners (no ledger) read it
  silently.
* Nothing raises or warns depending on the *content* of the data, except a **schema violation**: a
  record outside the universe (a label outside the declared set, NaN or ±inf in a numerical
  feature, a non-number in a feature declared numerical). A dataset holding such a record is not
  in the mechanism's domain, so refusing it does not distinguish two datasets of the domain; the
  error is raised before any budget is spent, the same way whatever else the data holds, and its
  message quotes public inputs only (never the offending value).

Schema rules (``docs/privacy.md``, "What is public"):

* **Labels.** ``classes=[c_0, ..., c_{K-1}]`` declares the label set: ``classes_`` is exactly that
  list and labels are encoded as indices into it; a label outside it is a schema error. Binary
  learners (rule lists) without ``classes`` use the schema {0, 1} (never the labels present).
  Other learners without ``classes`` read the sorted distinct labels of ``y`` (a leak).
  A training set holding a single class is valid input.
* **Categories.** A categorical feature's domain is *every value*: values in the declared list get
  its codes 0..C-1, every other value gets code ``UNKNOWN_CATEGORY`` (-1) and is routed as
  unknown. "Other" includes values of a foreign type (an int in a column of strings), unhashable
  objects and **missing values** (anything :func:`pandas.isna` calls missing: None, NaN, pd.NA,
  NaT). Category lists come, in this order of precedence, from ``categories=``, a pandas
  ``category`` dtype, the bool dtype ([False, True]), or — for other non-numeric pandas columns —
  the data (a leak). **A pandas ``category`` dtype counts as a declaration**: it is
  indistinguishable from ``pd.CategoricalDtype(categories=[...])``. ``X[c].astype("category")``
  takes its categories from *your data*: that is a leak you make, not the library; declare
  ``pd.CategoricalDtype(categories=[...])`` or pass ``categories=``. For numpy input, a feature is
  categorical only when declared in ``categories=``.
* **Numbers.** A numerical feature's domain is the finite reals; values outside the public bounds
  are clipped by the learners. NaN and ±inf are outside the domain (schema error); impute them
  with a public rule first, or declare the feature categorical (then missing values are unknown).
* **n.** The training-set size is private unless declared (``n_public=``). Warnings compare
  privacy parameters with ``n_public`` only. The empty dataset is outside the domain (n ≥ 1).
"""

from __future__ import annotations

import math
import numbers
import warnings

import numpy as np
import pandas as pd

__all__ = [
    "UNKNOWN_CATEGORY",
    "value_key",
    "is_missing",
    "check_declared_values",
    "category_codes",
    "resolve_classes",
    "check_y",
    "resolve_categories",
    "numeric_column",
    "resolve_bounds",
    "check_n_public",
    "resolve_n",
    "warn_if_delta_large",
    "check_X_shape",
]

UNKNOWN_CATEGORY = -1


# --------------------------------------------------------------------------- values
def value_key(v):
    """Hashable, type-tolerant key of a declared value: numpy scalars become Python scalars and
    real numbers (not bools) become floats, so 1, 1.0 and np.int64(1) are one value; strings stay
    strings ("1" is not 1). Python's own rule makes True equal to 1."""
    if isinstance(v, np.generic):
        v = v.item()
    if isinstance(v, numbers.Real) and not isinstance(v, bool):
        return float(v)
    return v


def is_missing(v) -> bool:
    """True for a scalar that :func:`pandas.isna` calls missing (None, NaN, pd.NA, NaT)."""
    try:
        return bool(pd.isna(v)) if np.ndim(v) == 0 else False
    except (TypeError, ValueError):
        return False


def check_declared_values(values, what: str, *, min_size: int = 1) -> list:
    """Validate a declared list (category list, label set): a non-string sequence of at least
    ``min_size`` distinct, hashable, non-missing values. Returns it as a list."""
    if values is None or isinstance(values, (str, bytes)) or not np.iterable(values):
        raise ValueError(f"{what} must be a list of values, got {values!r}")
    vals = list(values.tolist() if isinstance(values, np.ndarray) else values)
    if len(vals) < min_size:
        need = "non-empty" if min_size == 1 else f"at least {min_size} values"
        raise ValueError(f"{what} must be a {need} list, got {vals!r}")
    if any(is_missing(v) for v in vals):
        raise ValueError(f"{what} must not contain missing values (None/NaN): {vals!r}")
    try:
        keys = [value_key(v) for v in vals]
        if len(set(keys)) != len(keys):
            raise ValueError(f"{what} has duplicate values: {vals!r}")
    except TypeError:
        raise ValueError(f"{what} must hold hashable values: {vals!r}") from None
    return vals


def _as_array(values: list) -> np.ndarray:
    """Declared values as an array that keeps their types (object when numpy would coerce)."""
    arr = np.asarray(values)
    if arr.dtype.kind in "OUS" and not all(isinstance(v, str) for v in values):
        arr = np.empty(len(values), dtype=object)
        arr[:] = values
    return arr


def category_codes(col, values) -> np.ndarray:
    """Codes of ``col`` in the public list ``values`` (its position); ``UNKNOWN_CATEGORY`` for every
    other value — foreign types, unhashable objects and missing values included. Never raises on
    the content of ``col``."""
    index: dict = {}
    for c, v in enumerate(values):
        index.setdefault(value_key(v), c)

    def lookup(u) -> int:
        if is_missing(u):
            return UNKNOWN_CATEGORY
        try:
            return index.get(value_key(u), UNKNOWN_CATEGORY)
        except TypeError:  # unhashable
            return UNKNOWN_CATEGORY

    if isinstance(col, pd.Series) and isinstance(col.dtype, pd.CategoricalDtype):
        lut = np.array([lookup(u) for u in col.cat.categories] + [UNKNOWN_CATEGORY], dtype=np.int64)
        return lut[np.asarray(col.cat.codes, dtype=np.int64)]  # code -1 (NaN) -> last entry
    if isinstance(col, (pd.Series, pd.Index)):
        a = col.to_numpy()
    elif isinstance(col, np.ndarray):
        a = col
    else:  # a list: keep each value's type (numpy would turn [1, "a"] into strings)
        a = np.empty(len(col), dtype=object)
        a[:] = list(col)
    a = a.ravel()
    if a.size == 0:
        return np.zeros(0, dtype=np.int64)
    try:
        inv, uniq = pd.factorize(a, use_na_sentinel=True)  # hash-based: no ordering of mixed types
    except TypeError:  # unhashable values: one lookup per element
        return np.fromiter((lookup(u) for u in a), dtype=np.int64, count=a.size)
    lut = np.array([lookup(u) for u in uniq] + [UNKNOWN_CATEGORY], dtype=np.int64)
    return lut[inv]


# --------------------------------------------------------------------------- labels
def check_y(y, estimator_name: str = "estimator") -> np.ndarray:
    """``y`` as a 1-d array (a column vector is raveled with scikit-learn's DataConversionWarning)."""
    if y is None:
        raise ValueError(f"{estimator_name} requires y to be passed, but the target y is None")
    from sklearn.utils.validation import column_or_1d

    y = y.to_numpy() if isinstance(y, (pd.Series, pd.DataFrame)) else np.asarray(y)
    if np.iscomplexobj(y):
        raise ValueError("Complex data not supported")
    return column_or_1d(y, warn=True)


def resolve_classes(classes, y, ledger=None, *, binary: bool = False):
    """The public label set and ``y`` encoded as indices into it: ``(classes_, y_idx)``.

    ``classes``: the declared label set, in order (``classes_`` is exactly it). Binary learners
    (``binary=True``) need exactly two entries (the positive class is ``classes[1]``) and, when
    ``classes`` is None, use the schema {0, 1}. Otherwise a missing ``classes`` is read from ``y``
    (sorted distinct labels; a leak row in ``ledger`` when one is given). A label outside the
    label set is a schema error raised identically whatever the rest of ``y`` holds; one class in
    ``y`` is valid. ``y`` must already be 1-d (:func:`check_y`).
    """
    y = np.asarray(y)
    if classes is not None:
        vals = check_declared_values(classes, "classes", min_size=2)
        if binary and len(vals) != 2:
            raise ValueError(
                f"classes must list exactly 2 labels (negative, positive) for a binary learner, got {vals!r}"
            )
        y_idx = category_codes(y, vals)
        if np.any(y_idx < 0):
            raise ValueError(
                f"y holds a label outside the declared classes={vals!r}: every label must be one of "
                "them (the label set is public; a dataset with another label is outside the domain)"
            )
        return _as_array(vals), y_idx
    if binary:
        y_idx = category_codes(y, [0, 1])
        if np.any(y_idx < 0):
            _explain_non_binary(y)  # scikit-learn's messages for continuous / multiclass targets
            raise ValueError(
                "y holds a label other than 0 and 1: the default label set of rule lists is {0, 1}; "
                "declare yours with classes=[...] (K >= 2 labels, in order)"
            )
        return np.array([0, 1]), y_idx
    # read from the data (diffprivlib's convention): a leak
    if ledger is not None:
        ledger.record_leak(
            "label set (classes)",
            "Declare it with classes=[...] to keep the fit private.",
        )
    if any(is_missing(v) for v in pd.unique(y.ravel())):
        raise ValueError("y contains missing values (NaN/None): they are not labels")
    from sklearn.utils.multiclass import check_classification_targets

    check_classification_targets(y)
    uniq = list(pd.unique(y))
    try:
        uniq = sorted(uniq)
    except TypeError:
        uniq = sorted(uniq, key=lambda v: (type(v).__name__, str(v)))
    return _as_array(uniq) if uniq else np.asarray(uniq), category_codes(y, uniq)


def _explain_non_binary(y):
    """Raise scikit-learn's message when y is not a classification target or has > 2 labels.

    Called only once y is known to violate the {0, 1} schema, so it changes the message of an
    error that is raised anyway, never whether one is raised.
    """
    from sklearn.utils.multiclass import type_of_target

    try:
        kind = type_of_target(y, input_name="y")
    except ValueError:
        return
    if kind not in ("binary", "multiclass"):
        raise ValueError(f"Unknown label type: {kind}. Rule lists need class labels.")
    if kind == "multiclass":
        raise ValueError(
            "Only binary classification is supported. The type of the target is multiclass: without "
            "classes= the label set of rule lists is {0, 1}; declare yours with classes=[...] (K >= 2 labels)"
        )


# --------------------------------------------------------------------------- features
def check_X_shape(X, estimator_name: str = "estimator", *, min_samples: int = 1):
    """Reject sparse, complex and non-2-d input with scikit-learn's messages.

    Returns ``(X, n, m)`` with ``X`` a DataFrame (kept as is) or a numpy array.
    ``min_samples=1`` (fit): the empty dataset is outside the domain; 0 for prediction.
    """
    import scipy.sparse as sp

    if sp.issparse(X):
        raise TypeError(
            f"{estimator_name} does not support sparse input: a sparse matrix was passed, but dense "
            "data is required. Use X.toarray() to convert to a dense numpy array."
        )
    if not isinstance(X, pd.DataFrame):
        X = np.asarray(X)
        if np.iscomplexobj(X):
            raise ValueError("Complex data not supported")
    shape = X.shape
    if len(shape) != 2:
        if len(shape) == 1:
            raise ValueError(
                "Expected 2D array, got 1D array instead. Reshape your data either using "
                "array.reshape(-1, 1) if your data has a single feature or array.reshape(1, -1) if "
                "it contains a single sample."
            )
        raise ValueError(f"X must be 2-dimensional, got shape {shape}")
    n, m = shape
    if m == 0:
        raise ValueError(f"0 feature(s) (shape=({n}, 0)) while a minimum of 1 is required.")
    if n < min_samples:
        raise ValueError(
            f"Found array with 0 sample(s) (shape=(0, {m})) while a minimum of 1 is required "
            "(the empty dataset is outside the domain)."
        )
    return X, n, m


def _feature_key(key, names, m):
    if isinstance(key, numbers.Integral) and not isinstance(key, bool) and 0 <= key < m:
        return int(key)
    if str(key) in names:
        return names.index(str(key))
    raise ValueError(f"categories: unknown feature {key!r}")


def _sorted_values(vals):
    try:
        return sorted(vals)
    except TypeError:
        return sorted(vals, key=lambda v: (type(v).__name__, str(v)))


def resolve_categories(X, categories, ledger=None, *, read_object_columns: bool = True):
    """Feature names, categorical flags and the public category list of each categorical feature.

    Returns ``(names, categorical, cats)``: ``names`` the feature names (``str`` of the DataFrame
    columns, else ``x0, x1, ...``), ``categorical`` a bool array, ``cats`` a dict feature index ->
    list of public values. Precedence (module docstring): ``categories=`` (dict name or column
    index -> list), a pandas ``category`` dtype (a declaration), the bool dtype, then — for other
    non-numeric pandas columns when ``read_object_columns`` — the sorted distinct non-missing values
    of the column (a leak recorded in ``ledger``). Numpy input: categorical only when declared.
    """
    if categories is not None and not isinstance(categories, dict):
        raise ValueError("categories must be None or a dict {feature name or index: list of values}")
    if isinstance(X, pd.DataFrame):
        names = [str(c) for c in X.columns]
    else:
        names = [f"x{j}" for j in range(np.shape(X)[1])]
    m = len(names)
    declared = {}
    for key, vals in (categories or {}).items():
        j = _feature_key(key, names, m)
        declared[j] = check_declared_values(vals, f"categories[{key!r}]")
    categorical = np.zeros(m, dtype=bool)
    cats: dict = {}
    for j in range(m):
        if j in declared:
            categorical[j], cats[j] = True, declared[j]
            continue
        if not isinstance(X, pd.DataFrame):
            continue
        dt = X.dtypes.iloc[j]
        if isinstance(dt, pd.CategoricalDtype):
            categorical[j], cats[j] = True, list(dt.categories)
        elif pd.api.types.is_bool_dtype(dt):
            categorical[j], cats[j] = True, [False, True]
        elif not pd.api.types.is_numeric_dtype(dt) and read_object_columns:
            col = X.iloc[:, j]
            vals = [v for v in pd.unique(col.to_numpy(dtype=object)) if not is_missing(v)]
            try:
                vals = list(dict.fromkeys(vals))
            except TypeError:
                vals = [v for v in vals if _hashable(v)]
            categorical[j], cats[j] = True, _sorted_values(vals)
            if ledger is not None:
                ledger.record_leak(
                    f"categories of feature {names[j]!r}",
                    "Declare them with categories={name: [...]} or a pd.CategoricalDtype to keep "
                    "the fit private.",
                )
    return names, categorical, cats


def _hashable(v) -> bool:
    try:
        hash(v)
    except TypeError:
        return False
    return True


def numeric_column(col, name: str) -> np.ndarray:
    """A numerical feature as float64; a non-number, NaN or ±inf is a schema error."""
    try:
        a = np.asarray(col.to_numpy() if isinstance(col, pd.Series) else col, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        # TypeError (an object numpy cannot convert): its message names the type, not the value
        why = f" ({exc})" if isinstance(exc, TypeError) else ""
        raise type(exc)(
            f"feature {name!r} is numerical (not declared in categories=) but holds a value that is "
            f"not a number{why}; declare it categorical or convert it"
        ) from None
    if not np.isfinite(a).all():
        kind = "NaN" if np.isnan(a).any() else "infinity"
        raise ValueError(
            f"Input X contains {kind} in numerical feature {name!r}: NaN and ±inf are outside the "
            "domain of a numerical feature; impute them with a public rule (or declare the feature "
            "categorical, where missing values are routed as unknown)"
        )
    return a


# --------------------------------------------------------------------------- bounds
def _as_float(v, what):
    try:
        return float(v)
    except (TypeError, ValueError):
        raise ValueError(f"{what} must be numbers, got {v!r}") from None


def resolve_bounds(bounds, names, num_idx, Z=None, ledger=None):
    """``(lo, hi)`` float arrays of the public bounds of the numerical features ``num_idx``.

    ``bounds``: ``(lower, upper)`` with scalars or one value per numerical feature (in column
    order), or a dict ``{name or column index: (lo, hi)}``. ``None``: the min / max of the columns
    ``Z[:, num_idx]`` (a leak recorded in ``ledger``).
    """
    num_idx = [int(j) for j in num_idx]
    k = len(num_idx)
    if k == 0:
        return np.zeros(0), np.zeros(0)
    b = bounds
    if b is None:
        if ledger is not None:
            ledger.record_leak(
                "bounds of the numerical features",
                "Declare bounds=(lower, upper) or {name: (lo, hi)} to keep the fit private.",
            )
        A = np.asarray(Z, dtype=float)[:, num_idx]
        lo = A.min(axis=0) if A.shape[0] else np.zeros(k)
        hi = A.max(axis=0) if A.shape[0] else np.ones(k)
        return lo.astype(float), hi.astype(float)
    if isinstance(b, dict):
        lo, hi = np.empty(k), np.empty(k)
        for i, j in enumerate(num_idx):
            key = names[j] if names[j] in b else (j if j in b else None)
            if key is None:
                raise ValueError(f"bounds: no (lo, hi) for numerical feature {names[j]!r}")
            pair = b[key]
            if not isinstance(pair, (tuple, list, np.ndarray)) or len(pair) != 2:
                raise ValueError(f"bounds[{names[j]!r}] must be a pair (lo, hi)")
            lo[i], hi[i] = _as_float(pair[0], "bounds"), _as_float(pair[1], "bounds")
    else:
        if not isinstance(b, (tuple, list)) or len(b) != 2:
            raise ValueError("bounds must be None, a pair (lower, upper) or a dict {name: (lo, hi)}")
        try:
            lo = np.broadcast_to(np.asarray(b[0], dtype=float), (k,)).copy()
            hi = np.broadcast_to(np.asarray(b[1], dtype=float), (k,)).copy()
        except (TypeError, ValueError):
            raise ValueError(
                f"bounds: lower and upper must be scalars or have one value per numerical feature ({k})"
            ) from None
    if not (np.all(np.isfinite(lo)) and np.all(np.isfinite(hi))):
        raise ValueError("bounds must be finite")
    if np.any(lo > hi):
        raise ValueError("bounds: lower must be <= upper for every numerical feature")
    return lo, hi


# --------------------------------------------------------------------------- n
def check_n_public(n_public, *, integer: bool = False):
    """``None`` or a finite number >= 1 (an integer when ``integer``)."""
    if n_public is None:
        return None
    n = n_public
    ok = isinstance(n, numbers.Real) and not isinstance(n, bool) and math.isfinite(n) and n >= 1
    if ok and integer:
        ok = float(n).is_integer()
    if not ok:
        kind = "a positive integer" if integer else "None or a number >= 1"
        raise ValueError(f"n_public must be {kind}, got {n_public!r}")
    return int(n) if integer else float(n)


def resolve_n(n_public, n, ledger=None, *, what: str = "training-set size n"):
    """``n_public`` when declared; otherwise the private ``n``, recorded as a leak in ``ledger``."""
    if n_public is not None:
        return n_public
    if ledger is not None:
        ledger.record_leak(what, "Declare n_public to make it a public input.")
    return n


def warn_if_delta_large(delta: float, n_public) -> None:
    """Warn when δ ≥ 1/n_public (a δ of that order allows releasing whole records). Compares with
    the *declared* n only: a warning that read the private n would itself be a release."""
    if delta > 0 and n_public is not None and delta >= 1.0 / float(n_public):
        warnings.warn(
            f"delta={delta:g} >= 1/n_public: a δ of order 1/n allows releasing whole records",
            UserWarning,
            stacklevel=3,
        )
