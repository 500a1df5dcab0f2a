"""The vectorised label checks of ``resolve_classes`` against the per-label loop they replace:
the same result, the same error (type and message) and the same warnings, whatever ``y`` holds."""

import decimal
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.utils.multiclass import check_classification_targets

from dpmodels.validation import _any_missing, _check_classification_targets, is_missing, resolve_classes

SCALARS = st.one_of(
    st.integers(-3, 3),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([0.5, 1.0, -0.0, "a", "b", "", "1", None, pd.NA, pd.NaT, np.nan, True, decimal.Decimal("NaN")]),
    st.sampled_from([np.float64("nan"), np.int64(2), np.datetime64("NaT"), decimal.Decimal("1.5"), b"x", (1, 2)]),
)
DTYPES = [None, object, np.float64, np.float32, np.int64, np.uint8, bool, str]


def _outcome(f):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            out = ("ok", f())
        except Exception as e:  # the error itself is what is compared
            out = (type(e), str(e))
    return out, [(w.category, str(w.message)) for w in caught]


def _array(values, dtype):
    if dtype is object:
        a = np.empty(len(values), dtype=object)
        a[:] = values
        return a
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return np.asarray(values, dtype=dtype)


def _old_unique(y):
    check_classification_targets(y)
    return pd.unique(y)


@settings(max_examples=150, deadline=None)
@given(values=st.lists(SCALARS, min_size=0, max_size=40), dtype=st.sampled_from(DTYPES))
def test_vectorised_label_checks_match_the_loop(values, dtype):
    try:
        y = _array(values, dtype)
    except Exception:
        return  # not an array of that dtype: never reaches the checks
    if y.ndim != 1:
        return
    assert _any_missing(y) == any(is_missing(v) for v in y.ravel())
    if not _any_missing(y):
        new, new_warn = _outcome(lambda: list(_check_classification_targets(y)))
        old, old_warn = _outcome(lambda: list(_old_unique(y)))
        assert new_warn == old_warn
        assert new == old


@pytest.mark.parametrize("n_labels, n", [(15, 21), (11, 21), (30, 40), (3, 10)])
def test_many_classes_warning_as_scikit_learn(n_labels, n):
    y = np.arange(n) % n_labels
    assert _outcome(lambda: list(_check_classification_targets(y)))[1] == _outcome(lambda: list(_old_unique(y)))[1]


def test_undeclared_classes_read_the_same_labels():
    y = np.array(["b", "a", "b", "c"], dtype=object)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        classes, idx = resolve_classes(None, y)
    assert list(classes) == ["a", "b", "c"] and idx.tolist() == [1, 0, 1, 2]
    with pytest.raises(ValueError, match="missing values"):
        resolve_classes(None, np.array(["a", None], dtype=object))
    with pytest.raises(ValueError, match="Unknown label type: continuous"):
        resolve_classes(None, np.array([0.5, 1.0, 2.0]))


@pytest.mark.parametrize(
    "pair",
    [(-6.0, 6.0), (1.0, 1.0), (float("nan"), 1.0), (0.0, float("inf")), (2.0, 1.0), (-1e308, 1e308)],
)
def test_a_pair_of_floats_as_bounds_is_the_general_case(pair):
    """resolve_bounds' shortcut for a tuple of two Python floats gives the arrays, or the error
    message, of the general path (the same pair as numpy scalars, which it does not take)."""
    from dpmodels.validation import resolve_bounds

    def outcome(b):
        try:
            return resolve_bounds(b, ["a", "b", "c"], np.arange(3))
        except ValueError as e:
            return str(e)

    fast, general = outcome(pair), outcome((np.float64(pair[0]), np.float64(pair[1])))
    if isinstance(general, str):
        assert fast == general
    else:
        assert all(f.dtype == g.dtype and np.array_equal(f, g) for f, g in zip(fast, general))


@pytest.mark.parametrize("classes", [[0, 1], [1, 0], [0, 0], [0, 2, 1], [-3, -2], [True, 0], [0, 1.0]])
def test_integer_label_sets_take_the_general_checks(classes):
    """check_declared_values' shortcut for plain ints and category_codes' integer path before the
    lookup: the same list or message, the same codes as the per-value lookup."""
    from dpmodels.validation import check_declared_values, declared_lookup

    y = np.array([0, 1, 2, -3, 1, 0, 7])
    try:
        vals = check_declared_values(classes, "classes", min_size=2)
    except ValueError as e:
        assert "duplicate values" in str(e) or "same number" in str(e)
        return
    assert vals == list(classes)
    from dpmodels.validation import category_codes

    lookup = declared_lookup(vals)
    assert category_codes(y, vals).tolist() == [lookup(v) for v in y.tolist()]
