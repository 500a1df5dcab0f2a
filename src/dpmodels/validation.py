"""What is public, decided in one place for every estimator (docs/privacy.md, "What is public").

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
* **Kinds come from declarations, never from dtypes** (docs/privacy.md, "Declarations, not
  dtypes"). A feature is categorical when declared in ``categories=`` or by a pandas ``category``
  dtype; numerical when named in ``bounds=`` / ``cut_points=`` (or covered by a pair of bounds),
  whatever pandas inferred for it. Only undeclared features fall back on the dtype: numbers are
  numerical; any other pandas column — object, text, and **bool** (an inferred dtype is not a
  declaration) — is categorical with categories read from the data (a leak). A declaration key
  that names no feature is an error, for every parameter alike.
* **Categories.** A categorical feature's domain is *every value*: values in the declared list get
  its codes 0..C-1, every other value gets code ``UNKNOWN_CATEGORY`` (-1) and is routed as
  unknown. "Other" includes values of a foreign type (an int in a column of strings), unhashable
  objects, objects whose ``__eq__`` / ``__hash__`` raise, and **missing values** (anything
  :func:`pandas.isna` calls missing: None, NaN, pd.NA, NaT). **Declared values compare as
  values**: a cell equals a declared value when they are equal as given, or when both denote
  numbers (numbers of any type, decimal text) and the numbers are equal (0, 0.0, "0" and "0.0"
  are one value); two declared values that are the same number are refused. The same rule holds
  for labels.
  **A pandas ``category`` dtype counts as a declaration**: it is
  indistinguishable from ``pd.CategoricalDtype(categories=[...])``. ``X[c].astype("category")``
  takes its categories from *your data*: that is a leak you make, not the library; declare
  ``pd.CategoricalDtype(categories=[...])`` or pass ``categories=``. For numpy input, a feature is
  categorical only when declared in ``categories=``.
* **Numbers.** A numerical feature's domain is the finite reals: a cell holds a number of any type
  or decimal text; values outside the public bounds are clipped by the learners (values beyond
  the float range included). NaN, ±inf, missing values and anything else are outside the domain
  (schema error naming the feature); impute them with a public rule first, or declare the
  feature categorical (then missing values are unknown).
* **n.** The training-set size is private unless declared (``n_public=``). Warnings compare
  privacy parameters with ``n_public`` only. The empty dataset is outside the domain (n ≥ 1).
"""

from __future__ import annotations

import contextlib
import contextvars
import decimal
import fractions
import math
import numbers
import re
import warnings

import numpy as np
import pandas as pd

__all__ = [
    "UNKNOWN_CATEGORY",
    "value_key",
    "number_key",
    "is_missing",
    "declared_lookup",
    "check_declared_values",
    "category_codes",
    "resolve_classes",
    "check_y",
    "resolve_categories",
    "check_feature_keys",
    "numeric_column",
    "resolve_bounds",
    "check_n_public",
    "resolve_n",
    "warn_if_delta_large",
    "check_X_shape",
    "SOURCES",
    "declared",
    "source_of",
    "worst_source",
    "sourced_declarations",
    "record_declaration_sources",
    "leaked_declarations",
]

UNKNOWN_CATEGORY = -1


# --------------------------------------------------------------------------- values
_REALS = {
    int,
    float,
    bool,
    np.float64,
    np.float32,
    np.float16,
    np.int64,
    np.int32,
    np.int16,
    np.int8,
    np.uint64,
    np.uint32,
    np.uint16,
    np.uint8,
    np.bool_,
}
# decimal notation: what "numeric text" means (docs/privacy.md, "Declarations, not dtypes")
_DECIMAL = re.compile(r"\s*[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?\s*\Z")
_FMAX = float(np.finfo(np.float64).max)
# types whose equality and hashing are Python's own (pandas may merge equal values of these)
_PLAIN = (str, int, float, bool, decimal.Decimal, fractions.Fraction, type(None), np.generic, type(pd.NA), type(pd.NaT))


def value_key(v):
    """Hashable key of a value compared *as given*: numpy scalars become Python scalars, so that
    Python's equality decides (1 == 1.0 == np.int64(1); True == 1; the text "1" is not 1)."""
    if isinstance(v, np.generic):
        v = v.item()
    return v


def number_key(v):
    """The number a value denotes, as a hashable key, or None (never raises).

    Real numbers (bools as 0/1, numpy scalars, ``Decimal``, ``Fraction``, Python ints of any size)
    keep their exact value, so equal numbers get equal keys (Python hashes equal numbers alike);
    text in decimal notation (``"1"``, ``" 0.50 "``, ``"-1e3"``) is read as a float, or exactly
    when it is too large for one. NaN, other text and other objects denote no number.
    """
    try:
        if isinstance(v, np.generic):
            v = v.item()
        if isinstance(v, bool):
            return int(v)
        if isinstance(v, str):
            if not _DECIMAL.match(v):
                return None
            x = float(v)
            return x if math.isfinite(x) else decimal.Decimal(v.strip())
        if isinstance(v, decimal.Decimal):
            return None if v.is_nan() else v
        if isinstance(v, numbers.Real):
            if isinstance(v, float) and math.isnan(v):
                return None
            hash(v)
            return v
    except Exception:  # a value's own methods may raise anything: it denotes no number
        return None
    return None


def is_missing(v) -> bool:
    """True for a scalar that :func:`pandas.isna` calls missing (None, NaN, pd.NA, NaT); never
    raises (a value pandas cannot judge is not missing)."""
    try:
        return bool(pd.isna(v)) if np.ndim(v) == 0 else False
    except Exception:
        return False


def _plain(a: np.ndarray) -> bool:
    """Whether every value of ``a`` has one of the ``_PLAIN`` types (pandas' hashing of them
    merges exactly the values Python calls equal, which all lookups below treat alike)."""
    if a.dtype != object:
        return True
    return all(issubclass(t, _PLAIN) for t in set(map(type, a)))


def check_declared_values(values, what: str, *, min_size: int = 1) -> list:
    """Validate a declared list (category list, label set): a non-string sequence of at least
    ``min_size`` distinct, hashable, non-missing values. Returns it as a list."""
    if values is None or isinstance(values, (str, bytes)) or not np.iterable(values):
        raise ValueError(f"{what} must be a list of values, got {values!r}")
    vals = list(values.tolist() if isinstance(values, np.ndarray) else values)
    if len(vals) < min_size:
        need = "non-empty" if min_size == 1 else f"at least {min_size} values"
        raise ValueError(f"{what} must be a {need} list, got {vals!r}")
    if all(type(v) is int for v in vals):  # plain ints (a label set 0..K-1): the checks below reduce
        if len(set(vals)) != len(vals):  # to distinctness (none is missing; equal numbers are equal)
            raise ValueError(f"{what} has duplicate values: {vals!r}")
        return vals
    if any(is_missing(v) for v in vals):
        raise ValueError(f"{what} must not contain missing values (None/NaN): {vals!r}")
    try:
        keys = [value_key(v) for v in vals]
        distinct = len(set(keys)) == len(keys)
    except Exception:  # unhashable, or a value whose __hash__ / __eq__ raises
        raise ValueError(f"{what} must hold hashable values: {vals!r}") from None
    if not distinct:
        raise ValueError(f"{what} has duplicate values: {vals!r}")
    seen: dict = {}
    for v in vals:  # values compare as numbers too (declared_lookup): one number, one value
        k = number_key(v)
        if k is not None and k in seen:
            raise ValueError(f"{what}: {seen[k]!r} and {v!r} are the same number; declare it once")
        if k is not None:
            seen[k] = v
    return vals


def _as_array(values: list) -> np.ndarray:
    """Declared values as an array that keeps their types (object when numpy would coerce)."""
    arr = np.asarray(values)
    if arr.dtype.kind in "OUS" and not all(isinstance(v, str) for v in values):
        arr = np.empty(len(values), dtype=object)
        arr[:] = values
    return arr


def declared_lookup(values):
    """The code of a value in the public list ``values``: a function that never raises.

    **Declared values compare as values** (docs/privacy.md, "Declarations, not dtypes"): a value
    equals a declared value when the two are equal as given (Python's equality: ``1 == 1.0 ==
    np.int64(1)``, ``True == 1``), or else when both denote numbers (:func:`number_key`: numbers
    of any type, decimal text) and the numbers are equal — so 0, 0.0, ``"0"`` and ``"0.0"`` all
    match a declared ``0`` or ``"0"``. Each value is looked up on its own; a value equal to no
    declared value — of any type, missing, or one whose ``__eq__`` / ``__hash__`` raises — gets
    ``UNKNOWN_CATEGORY``. (:func:`check_declared_values` refuses two declared values that are the
    same number; were a list to hold them anyway, the first one wins.)
    """
    given: dict = {}
    numeric: dict = {}
    for c, v in enumerate(values):
        try:
            given.setdefault(value_key(v), c)
        except Exception:  # a declared value that cannot be hashed matches nothing as given
            pass
        k = number_key(v)
        if k is not None:
            numeric.setdefault(k, c)

    def lookup(u) -> int:
        try:
            if is_missing(u):
                return UNKNOWN_CATEGORY
            try:
                c = given.get(value_key(u))
            except Exception:  # unhashable, or __hash__ / __eq__ raising: not equal as given
                c = None
            if c is None and numeric:
                k = number_key(u)
                c = None if k is None else numeric.get(k)
            return UNKNOWN_CATEGORY if c is None else int(c)
        except Exception:
            return UNKNOWN_CATEGORY

    return lookup


def category_codes(col, values) -> np.ndarray:
    """Codes of ``col`` in the public list ``values`` (its position, compared as
    :func:`declared_lookup` says); ``UNKNOWN_CATEGORY`` for every other value — foreign types,
    unhashable objects, values whose comparisons raise, missing values. Each row's code depends
    on that row's value only, and nothing raises on the content of ``col``."""
    if isinstance(col, np.ndarray) and col.size:  # integers against declared integers: no lookup
        codes = _integer_codes(col.ravel(), values)
        if codes is not None:
            return codes
    lookup = declared_lookup(values)
    if isinstance(col, pd.Series) and isinstance(col.dtype, pd.CategoricalDtype):
        lut = np.array([lookup(u) for u in col.cat.categories] + [UNKNOWN_CATEGORY], dtype=np.int64)
        return lut[np.asarray(col.cat.codes, dtype=np.int64)]  # code -1 (NaN) -> last entry
    if isinstance(col, pd.Series) and isinstance(col.dtype, pd.StringDtype):
        # a text column (Dask reads Parquet text as pyarrow strings): every value is a str or
        # missing, factorized by pandas without turning each into a Python object first
        inv, uniq = pd.factorize(col, use_na_sentinel=True)
        lut = np.array([lookup(str(u)) for u in uniq] + [UNKNOWN_CATEGORY], dtype=np.int64)
        return lut[np.asarray(inv, dtype=np.int64)]  # code -1 (missing) -> last entry
    a = _flat(col)
    if a.size == 0:
        return np.zeros(0, dtype=np.int64)
    codes = _integer_codes(a, values)
    if codes is not None:
        return codes
    if _plain(a):
        try:  # hash-based: no ordering of mixed types; no floating-point warning on any content
            with np.errstate(all="ignore"):
                inv, uniq = pd.factorize(a, use_na_sentinel=True)
        except Exception:
            pass
        else:
            lut = np.array([lookup(u) for u in uniq] + [UNKNOWN_CATEGORY], dtype=np.int64)
            return lut[inv]
    return np.fromiter((lookup(u) for u in a), dtype=np.int64, count=a.size)


def _integer_codes(a: np.ndarray, values) -> np.ndarray | None:
    """:func:`category_codes` of an integer array against declared integers (not bools): equal
    numbers, so a sorted search gives every code (None when the case does not apply)."""
    if a.dtype.kind not in "iu" or (a.dtype.kind == "u" and a.dtype.itemsize >= 8) or len(values) == 0:
        return None
    if not all(isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_)) for v in values):
        return None
    ints = [int(x) for x in values]
    if a.size and ints == list(range(ints[0], ints[0] + len(ints))):  # labels lo, lo + 1, …, in order
        lo, hi = a.min(), a.max()  # every value declared: the code is value − lo (no search)
        if int(lo) >= ints[0] and int(hi) <= ints[-1]:  # (so ints[0] is in a's integer range)
            return np.subtract(a, ints[0], dtype=np.int64)
    try:
        v = np.array(ints, dtype=np.int64)
    except OverflowError:
        return None
    order = np.argsort(v, kind="stable")
    sv = v[order]
    pos = np.minimum(np.searchsorted(sv, a), v.size - 1)
    return np.where(sv[pos] == a, order[pos], UNKNOWN_CATEGORY).astype(np.int64)


def _flat(col) -> np.ndarray:
    """A column as a flat numpy array that keeps each value's type."""
    if isinstance(col, (pd.Series, pd.Index)):
        a = col.to_numpy()
    elif isinstance(col, np.ndarray):
        a = col
    else:  # a list: keep each value's type (numpy would turn [1, "a"] into strings)
        a = np.empty(len(col), dtype=object)
        a[:] = list(col)
    return a.ravel()


# --------------------------------------------------------------------------- labels
def check_y(y, estimator_name: str = "estimator") -> np.ndarray:
    """``y`` as a 1-d array (a column vector is raveled with scikit-learn's DataConversionWarning)."""
    if y is None:
        raise ValueError(f"{estimator_name} requires y to be passed, but the target y is None")
    from sklearn.utils.validation import column_or_1d

    y = y.to_numpy() if isinstance(y, (pd.Series, pd.DataFrame)) else np.asarray(y)
    if y.ndim == 1 and y.dtype.kind in "biuf" and y.flags.c_contiguous:
        return y  # what column_or_1d returns for it (same array), without its generic checks
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
    if _any_missing(y):
        raise ValueError("y contains missing values (NaN/None): they are not labels")
    uniq = list(_check_classification_targets(y))
    try:
        uniq = sorted(uniq)
    except TypeError:
        uniq = sorted(uniq, key=lambda v: (type(v).__name__, str(v)))
    return _as_array(uniq) if uniq else np.asarray(uniq), category_codes(y, uniq)


def _any_missing(a: np.ndarray) -> bool:
    """``any(is_missing(v) for v in a.ravel())``, vectorised where it is the same check: numbers,
    text and dates by dtype, plain objects by pandas' elementwise ``isna`` (the check
    :func:`is_missing` makes on each); other objects one by one."""
    kind = a.dtype.kind
    if kind in "biuUS":
        return False
    if kind == "f":
        return bool(np.isnan(a).any())
    if kind in "mM":
        return bool(np.isnat(a).any())
    if kind == "O" and _plain(a):
        return bool(pd.isna(a).any())
    return any(is_missing(v) for v in a.ravel())


def _check_classification_targets(y: np.ndarray):
    """scikit-learn's ``check_classification_targets(y)`` (same errors, same warning), then the
    distinct labels of ``y`` in order of first appearance (``pd.unique``).

    The target type depends on ``y``'s dtype, its first value and its set of distinct values
    only, so when those are plain (numbers, or text) it is computed on the distinct values, a
    few, instead of on every label; anything else is checked on ``y`` itself."""
    from sklearn.utils.multiclass import check_classification_targets, type_of_target

    if y.ndim == 1 and y.size and (y.dtype.kind in "biufU" or (y.dtype == object and _all_str(y))):
        uniq = pd.unique(y)
        u = np.asarray(uniq)
        if u.dtype != y.dtype:  # text: pandas returns objects
            u = u.astype(y.dtype)
        kind = type_of_target(u, input_name="y")
        if kind not in (
            "binary",
            "multiclass",
            "multiclass-multioutput",
            "multilabel-indicator",
            "multilabel-sequences",
        ):
            with warnings.catch_warnings():  # its warnings were given by type_of_target above
                warnings.simplefilter("ignore")
                check_classification_targets(u)  # raises scikit-learn's error for this type
        if "multiclass" in kind:
            n = y.shape[0]
            if n > 20 and np.unique(u).shape[0] > round(0.5 * n):
                warnings.warn(
                    "The number of unique classes is greater than 50% of the number "
                    "of samples. `y` could represent a regression problem, not a "
                    "classification problem.",
                    UserWarning,
                    stacklevel=2,  # scikit-learn's: the caller of the check
                )
        return uniq
    check_classification_targets(y)
    return pd.unique(y)


def _all_str(a: np.ndarray) -> bool:
    return set(map(type, a)) == {str}


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
_EMPTY_FITS = contextvars.ContextVar("dpmodels_empty_fits", default=False)


@contextlib.contextmanager
def empty_fits_allowed():
    """Within it, a fit accepts the empty dataset (``min_samples`` 0): for compositions that fit
    a learner on a part of the data chosen by a public per-record rule, which can be empty while
    the whole is not — ``dpmodels fit --holdout``. The mechanisms are defined on zero counts, and
    the composition must be defined on every dataset to be DP (docs/privacy.md, "The command
    line"). Outside it the empty dataset stays outside the domain (scikit-learn's convention)."""
    token = _EMPTY_FITS.set(True)
    try:
        yield
    finally:
        _EMPTY_FITS.reset(token)


def min_fit_samples() -> int:
    """1, or 0 within :func:`empty_fits_allowed`."""
    return 0 if _EMPTY_FITS.get() else 1


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
    if n < min(min_samples, min_fit_samples()):
        raise ValueError(
            f"Found array with 0 sample(s) (shape=(0, {m})) while a minimum of 1 is required "
            "(the empty dataset is outside the domain)."
        )
    return X, n, m


def _feature_key(key, names, m, what: str = "categories"):
    if isinstance(key, numbers.Integral) and not isinstance(key, bool) and 0 <= int(key) < m:
        return int(key)
    if str(key) in names:
        return names.index(str(key))
    shown = ", ".join(repr(n) for n in names[:6]) + (", ..." if m > 6 else "")
    raise ValueError(f"{what}: unknown feature {key!r} (the features are {shown})")


def check_feature_keys(d, names, what: str) -> list:
    """Column indices of the keys of the declaration ``d`` (a dict keyed by feature name or
    column index); a key naming no feature (a typo) is an error, for every declaration alike."""
    return [_feature_key(k, list(names), len(names), what) for k in (d or {})]


def _sorted_values(vals):
    try:
        return sorted(vals)
    except Exception:
        return sorted(vals, key=lambda v: (type(v).__name__, _safe_str(v)))


def _safe_str(v) -> str:
    try:
        return str(v)
    except Exception:
        return ""


def _numerical_declarations(bounds, cut_points, names, m):
    """``(indices, what)``: the features declared numerical by ``bounds=`` / ``cut_points=`` and,
    per index, the parameter that declared it. A pair of bounds (not a dict) covers every feature
    not declared categorical: returned as ``None`` indices with ``what="bounds"``."""
    declared: dict = {}
    if isinstance(cut_points, dict):
        for j in check_feature_keys(cut_points, names, "cut_points"):
            declared[j] = "cut_points"
    if isinstance(bounds, dict):
        for j in check_feature_keys(bounds, names, "bounds"):
            declared.setdefault(j, "bounds")
    elif bounds is not None:
        if not isinstance(bounds, (tuple, list)) or len(bounds) != 2:  # before any cell is read
            raise ValueError("bounds must be None, a pair (lower, upper) or a dict {name: (lo, hi)}")
        return None, declared
    return declared, declared


def resolve_categories(X, categories, ledger=None, *, read_object_columns: bool = True, bounds=None, cut_points=None):
    """Feature names, categorical flags and the public category list of each categorical feature.

    Returns ``(names, categorical, cats)``: ``names`` the feature names (``str`` of the DataFrame
    columns, else ``x0, x1, ...``), ``categorical`` a bool array, ``cats`` a dict feature index ->
    list of public values. **Declarations decide, never dtypes** (docs/privacy.md, "Declarations,
    not dtypes"), in this order:

    1. ``categories=`` (dict name or column index -> list): categorical, that list;
    2. a pandas ``category`` dtype (a declaration): categorical, its categories;
    3. a feature named in ``bounds=`` or ``cut_points=`` (dicts), or every remaining feature when
       ``bounds`` is a pair (lower, upper): **numerical whatever its dtype** (its cells are parsed
       by :func:`numeric_column`);
    4. otherwise, undeclared: a numeric (non-bool) dtype or a numpy column is numerical; any other
       pandas column (object, text, **bool**: an inferred dtype is not a declaration) is
       categorical with the sorted distinct non-missing values of the column when
       ``read_object_columns`` — a leak recorded in ``ledger``.

    A key of ``categories``, ``bounds`` or ``cut_points`` that names no feature is an error, and so
    is a feature declared both categorical and numerical.
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
    num_declared, num_what = _numerical_declarations(bounds, cut_points, names, m)
    categorical = np.zeros(m, dtype=bool)
    cats: dict = {}
    for j in range(m):
        dt = X.dtypes.iloc[j] if isinstance(X, pd.DataFrame) else None
        if j in declared or isinstance(dt, pd.CategoricalDtype):
            if j in num_what:
                how = "categories=" if j in declared else "its pandas category dtype"
                raise ValueError(
                    f"feature {names[j]!r} is declared both categorical (by {how}) and "
                    f"numerical (by {num_what[j]}=); declare it once"
                )
            categorical[j] = True
            cats[j] = declared[j] if j in declared else list(getattr(dt, "categories", []))
            continue
        if num_declared is None or j in num_declared or dt is None:
            continue  # numerical: declared, or a numpy column
        if pd.api.types.is_numeric_dtype(dt) and not pd.api.types.is_bool_dtype(dt):
            continue  # undeclared, numeric dtype: numerical
        if read_object_columns:
            categorical[j], cats[j] = True, _distinct_values(X.iloc[:, j])
            if ledger is not None:
                ledger.record_leak(
                    f"categories of feature {names[j]!r}",
                    "Declare them with categories={name: [...]} or a pd.CategoricalDtype (or declare "
                    "the feature numerical with bounds=) to keep the fit private.",
                )
    return names, categorical, cats


def _distinct_values(col) -> list:
    """The sorted distinct non-missing values of a column (read from the data: a leak); values
    that cannot be hashed or compared are left out (they are unknown). Never raises."""
    a = col.to_numpy(dtype=object)
    if _plain(a):
        try:
            with np.errstate(all="ignore"):
                a = pd.unique(a)
        except Exception:
            pass
    index: dict = {}
    for v in a:
        if is_missing(v):
            continue
        try:
            index.setdefault(value_key(v), v)
        except Exception:
            continue
    return _sorted_values(list(index.values()))


def numeric_column(col, name: str) -> np.ndarray:
    """A numerical feature as float64 (docs/privacy.md, "Declarations, not dtypes").

    Whatever the column's dtype, each cell must hold a finite real number: a number of any type
    (bools as 0/1) or text in decimal notation (``"3"``, ``" -2.5e3 "``). Finite values beyond the
    float range (an int above 2^1024, ``"1e400"``) become ±(largest float), so clipping to the
    public bounds gives the right value. A cell holding anything else — text that is not a
    decimal number, a missing value, NaN, ±inf, another object — is a schema error naming the
    feature, never the value. Each cell is read on its own: no cell changes how another is read.
    """
    a = _flat(col)
    if a.dtype.kind in "biuf":
        if a.dtype.kind == "f" and a.dtype.itemsize > 8:  # long double: clip to the float64 range
            a = np.where(np.isfinite(a), np.clip(a, -_FMAX, _FMAX), a)
        x = a.astype(np.float64)
        foreign = None
    else:
        x, foreign = _parse_numbers(a)
    if foreign is not None:
        if foreign is str:
            raise ValueError(
                f"feature {name!r} is numerical (declared in bounds=/cut_points=, or not declared "
                "categorical) but holds text that is not a decimal number; fix the data, or declare "
                "the feature categorical"
            )
        raise TypeError(
            f"feature {name!r} is numerical (declared in bounds=/cut_points=, or not declared "
            "categorical) but holds a value that is not a number (float() argument must be a "
            f"string or a real number, not {foreign.__name__!r}); declare it categorical or convert it"
        )
    if not np.isfinite(x).all():
        kind = "NaN" if np.isnan(x).any() else "infinity"
        raise ValueError(
            f"Input X contains {kind} in numerical feature {name!r}: NaN and ±inf are outside the "
            "domain of a numerical feature; impute them with a public rule (or declare the feature "
            "categorical, where missing values are routed as unknown)"
        )
    return x


def _number(v):
    """``(float, None)`` for a cell denoting a real number (±_FMAX beyond the float range; NaN
    for a missing value, ±inf for an infinity), else ``(nan, type)`` (``str`` for text)."""
    try:
        if isinstance(v, (np.datetime64, np.timedelta64)):
            return math.nan, type(v)
        if isinstance(v, np.generic):
            v = v.item()
        if isinstance(v, str):
            if not _DECIMAL.match(v):
                return math.nan, str
            x = float(v)
            return (math.copysign(_FMAX, x) if math.isinf(x) else x), None
        if is_missing(v):
            return math.nan, None
        if isinstance(v, decimal.Decimal):
            if v.is_nan():
                return math.nan, None
            x = float(v)
            return (math.copysign(_FMAX, x) if math.isinf(x) and v.is_finite() else x), None
        if isinstance(v, numbers.Real):  # bool, int, float, Fraction, ...
            try:
                return float(v), None
            except OverflowError:  # a finite number beyond the float range
                return (-_FMAX if v < 0 else _FMAX), None  # numbers.Real orders by < only
    except Exception:
        pass
    return math.nan, type(v) if not isinstance(v, str) else str


def _parse_numbers(a: np.ndarray):
    """:func:`_number` of every cell: ``(float64 array, None or the type of a foreign value)``.
    Equal plain values are parsed once (pandas' factorize); each cell's number depends on that
    cell only."""
    if a.dtype == object and set(map(type, a)) <= _REALS:
        try:  # Python / numpy ints, floats and bools: numpy's conversion is float(v), vectorised
            with np.errstate(all="ignore"):
                return a.astype(np.float64), None
        except OverflowError:  # an int beyond the float range: read cell by cell below
            pass
    if _plain(a):
        try:
            with np.errstate(all="ignore"):  # no floating-point warning on any content
                inv, uniq = pd.factorize(a, use_na_sentinel=True)
        except Exception:
            pass
        else:
            parsed = [_number(u) for u in uniq] + [(math.nan, None)]
            x = np.array([p[0] for p in parsed], dtype=np.float64)[inv]
            return x, _first_foreign(p[1] for p in parsed)
    parsed = [_number(u) for u in a]
    return np.array([p[0] for p in parsed], dtype=np.float64), _first_foreign(p[1] for p in parsed)


def _first_foreign(types):
    """The type reported by :func:`numeric_column`: a non-text object before text."""
    found = None
    for t in types:
        if t is not None and t is not str:
            return t
        found = found or t
    return found


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
    k = len(num_idx)
    b = bounds
    if k and _valid_float_pair(b):  # the common declaration, checked on two Python floats
        return np.full(k, b[0]), np.full(k, b[1])
    num_idx = [int(j) for j in num_idx]
    if isinstance(bounds, dict):
        check_feature_keys(bounds, names, "bounds")
    if k == 0:
        return np.zeros(0), np.zeros(0)
    if b is None:
        if ledger is not None:
            ledger.record_leak(
                "bounds of the numerical features",
                "Declare bounds=(lower, upper) or {name: (lo, hi)} to keep the fit private.",
            )
        A = np.asarray(Z, dtype=float)[:, num_idx]
        lo = A.min(axis=0) if A.shape[0] else np.zeros(k)
        hi = A.max(axis=0) if A.shape[0] else np.ones(k)
        # kept within ±max/4 so that hi − lo is a finite float (as declared bounds must be)
        return np.clip(lo, -_FMAX / 4, _FMAX / 4).astype(float), np.clip(hi, -_FMAX / 4, _FMAX / 4).astype(float)
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
    _check_bound_arrays(lo, hi)
    return lo, hi


def _valid_float_pair(b) -> bool:
    """Whether ``b`` is a tuple of two floats that :func:`_check_bound_arrays` accepts (a pair it
    refuses goes the general way, to the same error)."""
    if type(b) is not tuple or len(b) != 2 or type(b[0]) is not float or type(b[1]) is not float:
        return False
    lo, hi = b
    return math.isfinite(lo) and math.isfinite(hi) and lo <= hi and math.isfinite(hi - lo)


def _check_bound_arrays(lo: np.ndarray, hi: np.ndarray) -> None:
    if not (np.all(np.isfinite(lo)) and np.all(np.isfinite(hi))):
        raise ValueError("bounds must be finite")
    if np.any(lo > hi):
        raise ValueError("bounds: lower must be <= upper for every numerical feature")
    with np.errstate(over="ignore"):
        wide = ~np.isfinite(hi - lo)
    if np.any(wide):
        raise ValueError(
            "bounds: upper − lower must be a finite float for every numerical feature "
            f"(at most {_FMAX:.3g}); narrow the bounds"
        )


# --------------------------------------------------------------------------- n
def check_label_bounds(label_bounds):
    """``None`` or the declared regression label range as ``(lo, hi)`` floats, finite with lo <= hi;
    anything else is one ``ValueError`` naming the value (checked before any budget is spent)."""
    if label_bounds is None:
        return None
    try:
        lo, hi = (float(v) for v in label_bounds)
    except (TypeError, ValueError):
        raise ValueError(f"label_bounds must be None or a pair (lo, hi), got {label_bounds!r}") from None
    if not (math.isfinite(lo) and math.isfinite(hi) and lo <= hi):
        raise ValueError(f"label_bounds must be finite with lo <= hi, got {label_bounds!r}")
    return lo, hi


def check_n_public(n_public, *, integer: bool = False):
    """``None`` or a finite number >= 1 (an integer when ``integer``)."""
    if n_public is None:
        return None
    n = n_public
    ok = isinstance(n, numbers.Real) and not isinstance(n, bool) and math.isfinite(n) and float(n) >= 1
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


# --------------------------------------------------------------------------- sources
# Where a declared value came from (docs/privacy.md, "Sources travel with values"): ``user`` (public
# knowledge: a declaration), ``data`` (read from the private records: a leak wherever it is used),
# ``dp`` (a differentially private release, e.g. ``dpmodels schema draft --epsilon``: a declaration
# whose cost is the draft's ledger, which must travel with it).
SOURCES = ("user", "dp", "data")  # in order of rank: the worst source of two values is the later


def worst_source(*sources) -> str:
    """The source of a value built from values of these sources (``data`` > ``dp`` > ``user``)."""
    ranks = [SOURCES.index(s) if s in SOURCES else len(SOURCES) - 1 for s in sources]
    return SOURCES[max(ranks, default=0)]


class _SourcedList(list):
    """A declared list (classes, categories, a pair of bounds) that remembers its source."""

    def __init__(self, values=(), source: str = "user", release: str | None = None):
        super().__init__(values)
        self.source, self.release = source, release

    def __reduce__(self):  # copy, deepcopy (scikit-learn's clone) and pickle keep the source
        return (type(self), (list(self), self.source, self.release))


class _SourcedTuple(tuple):
    source: str
    release: str | None

    def __new__(cls, values=(), source: str = "user", release: str | None = None):
        obj = super().__new__(cls, values)
        obj.source, obj.release = source, release
        return obj

    def __reduce__(self):
        return (type(self), (tuple(self), self.source, self.release))


class _SourcedInt(int):
    source: str
    release: str | None

    def __new__(cls, value=0, source: str = "user", release: str | None = None):
        obj = super().__new__(cls, value)
        obj.source, obj.release = source, release
        return obj

    def __reduce__(self):
        return (type(self), (int(self), self.source, self.release))


class _SourcedFloat(float):
    source: str
    release: str | None

    def __new__(cls, value=0.0, source: str = "user", release: str | None = None):
        obj = super().__new__(cls, value)
        obj.source, obj.release = source, release
        return obj

    def __reduce__(self):
        return (type(self), (float(self), self.source, self.release))


def declared(value, source: str = "user", release: str | None = None):
    """``value`` marked with its source, for an estimator parameter (``classes=``, ``categories=``,
    ``bounds=``, ``cut_points=``, ``label_bounds=``, ``n_public=``).

    The marked value behaves as the value (a list, a tuple, a number; a dict's values are marked
    one by one) and keeps its source through ``get_params``, ``clone``, copies and pickles. Every
    private estimator reads the sources when its fit starts (:func:`record_declaration_sources`):
    a ``data`` value is a leak row naming it, a ``dp`` value is a declaration whose cost is the
    release ``release`` (its ledger must be merged into the fit's: a :class:`PrivateSchema`'s
    ``attach`` or a shared accountant). A model file written by :func:`dpmodels.io.save_model`
    records each source.
    """
    if source not in SOURCES:
        raise ValueError(f"source must be one of {SOURCES}, got {source!r}")
    if value is None:
        return None
    if isinstance(value, dict):
        return {k: declared(v, source, release) for k, v in value.items()}
    if isinstance(value, (bool, np.bool_)):
        raise ValueError(f"a declared value cannot be a bool: {value!r}")
    if isinstance(value, (numbers.Integral,)):
        return _SourcedInt(int(value), source, release)
    if isinstance(value, numbers.Real):
        return _SourcedFloat(float(value), source, release)
    if isinstance(value, tuple):
        return _SourcedTuple(value, source, release)
    if isinstance(value, (list, np.ndarray, pd.Index, pd.Series)):
        return _SourcedList(list(value.tolist() if hasattr(value, "tolist") else value), source, release)
    raise TypeError(f"cannot mark a {type(value).__name__} with a source")


def source_of(value) -> str:
    """The source of a declared value: what :func:`declared` marked, else ``user``."""
    s = (
        getattr(value, "source", "user")
        if isinstance(value, (_SourcedList, _SourcedTuple, _SourcedInt, _SourcedFloat))
        else "user"
    )
    return s if s in SOURCES else "data"


# the names under which a declaration appears in ledger rows (and model files): one per declaration
_SCALAR_DECLARATIONS = (
    ("classes", "label set (classes)"),
    ("label_bounds", "label bounds"),
    ("n_public", "training-set size n"),
)
_PER_FEATURE_DECLARATIONS = (("categories", "categories"), ("bounds", "bounds"), ("cut_points", "cut points"))


def sourced_declarations(params: dict) -> list[tuple[str, str, str | None]]:
    """``(name, source, release)`` of every declared value in an estimator's ``params`` whose
    source is not ``user``; ``name`` is how ledger rows and model files name it (``"label set
    (classes)"``, ``"categories of feature 'job'"``, ``"bounds of the numerical features"``)."""
    out = []
    for key, name in _SCALAR_DECLARATIONS:
        v = params.get(key)
        if v is not None and source_of(v) != "user":
            out.append((name, source_of(v), getattr(v, "release", None)))
    for key, what in _PER_FEATURE_DECLARATIONS:
        v = params.get(key)
        if isinstance(v, dict):
            for f, x in v.items():
                if x is not None and source_of(x) != "user":
                    out.append((f"{what} of feature {str(f)!r}", source_of(x), getattr(x, "release", None)))
        elif v is not None and source_of(v) != "user":
            out.append((f"{what} of the numerical features", source_of(v), getattr(v, "release", None)))
    return out


def record_declaration_sources(ledger, params: dict, releases=()) -> None:
    """Record in ``ledger`` what the sources of the declared ``params`` cost, before anything is
    read (called by :func:`dpmodels.privacy.accountant.ledger_for_fit`, the helper every private
    estimator's fit starts with): a ``data`` value is a leak row naming it; a ``dp`` value whose
    release is not among ``releases`` (the releases merged into this fit: provenance carried by
    ``X``, or an accountant's) is a leak row too (a DP value whose cost is not in the ledger
    proves nothing)."""
    if ledger is None:
        return
    known = set(releases)
    for name, source, release in sourced_declarations(params):
        if source == "data":
            ledger.record_leak(
                name,
                "A declared value marked source: data (read from the private records, e.g. by a draft "
                "or a non-private fit): replace it with public knowledge to keep the fit private.",
            )
        elif release is None or release not in known:
            ledger.record_leak(
                f"{name} (a DP-drafted value whose draft ledger was not merged)",
                "Pass the draft's ledger with it (PrivateSchema.attach(X) or the draft's accountant).",
            )


_NAMED = r"(?:feature|column) ('(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\")"
_COLUMN_LEAK = re.compile(r"(categories|bounds|cut points|quantiles|kind)[^']*? of " + _NAMED)


def leaked_declarations(rows) -> dict:
    """What ledger rows say was read from the data: ``{"classes": bool, "label_bounds": bool,
    "n_public": bool, "all_bounds": bool, "columns": set of feature names}`` (each leak row's text
    parsed; a conservative reading: any leak row naming a column marks that column's declaration
    as read from the data). Used for model files, old ones included, whose declarations carry no
    source."""
    import ast

    columns: set[str] = set()
    out: dict = {"classes": False, "label_bounds": False, "n_public": False, "all_bounds": False, "columns": columns}
    for r in rows:
        if getattr(r, "composition", None) != "leak":
            continue
        what = str(r.what)
        if "label set" in what:
            out["classes"] = True
        if "label bounds" in what:
            out["label_bounds"] = True
        if "training-set size n" in what:
            out["n_public"] = True
        if "bounds of the numerical features" in what:
            out["all_bounds"] = True
        for m in _COLUMN_LEAK.finditer(what):
            try:
                columns.add(str(ast.literal_eval(m.group(2))))
            except (ValueError, SyntaxError):
                continue
    return out


# --------------------------------------------------------------------------- sample weights
def check_unique_columns(X, estimator_name: str = "estimator") -> None:
    """Refuse a frame that names a column twice, in one line (the names are the schema: public).
    Two columns of one name would be two features a reader of the model cannot tell apart (and
    pandas' ``read_csv`` renames the second ``name.1``: the command line checks the header it
    reads, ``dpmodels.cli._common.read_csv_text``)."""
    cols = getattr(X, "columns", None)
    if cols is None or not hasattr(cols, "duplicated"):
        return
    dup = cols[cols.duplicated()]
    if len(dup):
        raise ValueError(f"{estimator_name}: X has the column {str(dup[0])!r} twice; give each column its own name")


def check_fit_input(X, y, sample_weight, estimator_name: str = "estimator"):
    """A DP learner's ``fit`` input, checked in one order for every learner: ``sample_weight``
    (:func:`apply_unit_sample_weight`), the shape of ``X`` (:func:`check_X_shape`), ``y``
    (:func:`check_y`) and their lengths. Returns ``(X, y, n, m)``."""
    X, y = apply_unit_sample_weight(X, y, sample_weight, estimator_name)
    X, n, m = check_X_shape(X, estimator_name)
    y = check_y(y, estimator_name)
    if y.shape[0] != n:
        raise ValueError(f"X has {n} rows but y has {y.shape[0]}")
    return X, y, n, m


def apply_unit_sample_weight(X, y, sample_weight, estimator_name: str = "estimator"):
    """Check a DP learner's ``fit(..., sample_weight)``: ``None`` or all ones; returns ``(X, y)``.

    A DP learner's guarantee is for datasets in which each record appears once, and for the
    neighbouring relation add/remove one record. Any other weight vector is refused before
    anything is spent, with a message that quotes no value (``docs/privacy.md``, "Resampling and
    model selection"):

    * a weight k > 1 means the record enters the fit k times (bootstrap bagging, weighted
      resampling): by group privacy that costs k·ε, not the ε the ledger would charge;
    * weights of zero select a subsample, and the meta-estimators that pass them
      (``BaggingClassifier(max_samples<1)``) draw a fixed-size sample from a seeded permutation of
      ``range(n)``: adding one record changes which others are drawn, so the fit is not ε-DP with
      respect to the whole data. Choose rows yourself with a per-record rule (a keyed hash of the
      row, a coin per row) and fit on them.
    """
    check_unique_columns(X, estimator_name)  # every fit's first check: here, once for all
    if sample_weight is None:
        return X, y
    from sklearn.utils.validation import _num_samples

    n = _num_samples(X)
    try:
        w = np.asarray(sample_weight, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"{estimator_name}: sample_weight must be numbers, one per row") from None
    if w.ndim != 1 or w.shape[0] != n:
        raise ValueError(f"{estimator_name}: sample_weight must have one weight per row of X ({n})")
    if y is not None and _num_samples(y) != n:
        raise ValueError(f"{estimator_name}: X and y have different numbers of rows")
    if not np.all(w == 1.0):
        raise ValueError(
            f"{estimator_name}: sample_weight other than all ones is refused: a weight k > 1 (a "
            "record drawn k times, e.g. by bootstrap) costs k·ε by group privacy, and a weight of "
            "zero (a seeded subsample) is not neighbour-preserving; use BaggingClassifier("
            "bootstrap=False, max_samples=1.0) or select rows with a per-record rule"
        )
    return X, y
