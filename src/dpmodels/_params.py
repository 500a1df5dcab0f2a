"""Parameter validation shared by every estimator: scikit-learn's ``_parameter_constraints``.

Each estimator declares, next to its ``__init__``, a class attribute ``_parameter_constraints``
(parameter name → list of accepted constraints, in scikit-learn's vocabulary: ``Interval``,
``StrOptions``, ``"boolean"``, ``None``, a type …, or the string ``"no_validation"`` instead of a
list) and calls
:func:`validate_params` first thing in ``fit`` — before any budget is spent. The errors are
scikit-learn's one-line ``InvalidParameterError`` (a ``ValueError`` and a ``TypeError``):
``The 'max_depth' parameter of PrivaTreeClassifier must be an int in the range [0, 20]. Got 30
instead.`` Parameters whose check is a privacy declaration (ε, bounds, categories, classes,
``n_public``, the accountant) are ``"no_validation"`` here and checked by
:mod:`dpmodels.validation` and :mod:`dpmodels.privacy`, which own those rules; checks that relate
two parameters stay in the estimator, after :func:`validate_params`.

One difference from scikit-learn: ``Interval(Integral, …)`` there accepts ``True`` and ``False``
(``bool`` is a subclass of ``int``); a depth, a count or a length given as a bool is a mistake, so
:func:`validate_params` refuses it unless the parameter also lists ``"boolean"``.
"""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
from sklearn.utils._param_validation import (
    HasMethods,
    Interval,
    InvalidParameterError,
    StrOptions,
    validate_parameter_constraints,
)

__all__ = [
    "HasMethods",
    "Integral",
    "Interval",
    "InvalidParameterError",
    "Real",
    "StrOptions",
    "validate_params",
    "proportion",
]


def proportion(closed: str = "right") -> Interval:
    """A real number in (0, 1] (``closed="right"``), [0, 1] (``"both"``), (0, 1) (``"neither"``)…"""
    return Interval(Real, 0, 1, closed=closed)


def validate_params(est, params: dict | None = None) -> None:
    """Check ``est``'s parameters against ``type(est)._parameter_constraints`` (module docstring);
    ``params`` defaults to ``est.get_params(deep=False)``."""
    constraints = type(est)._parameter_constraints
    if params is None:
        params = est.get_params(deep=False)
    passed = _passed_key(type(est), constraints, params)
    if passed is not None and passed in _PASSED:
        return
    name = type(est).__name__
    validate_parameter_constraints(constraints, params, caller_name=name)
    for key, cons in constraints.items():
        v = params.get(key)
        if cons == "no_validation" or not isinstance(v, (bool, np.bool_)) or "boolean" in cons:
            continue
        for c in cons:
            if isinstance(c, Interval) and c.type is Integral:
                raise InvalidParameterError(
                    f"The {key!r} parameter of {name} must be {c}, not a bool. Got {v!r} instead."
                )
    if passed is not None:
        if len(_PASSED) >= 256:
            _PASSED.clear()
        _PASSED.add(passed)


# parameter values that passed, per estimator class: the checks read only each value's type and
# value, so plain immutable values (compared with their exact types: 1, 1.0 and True differ) that
# passed once pass again; set_params or a new estimator simply gives another key
_PASSED: set = set()
_PLAIN_TYPES = (int, float, str, bool, type(None))


def _passed_key(cls, constraints: dict, params: dict):
    items = []
    for k, cons in constraints.items():
        if cons == "no_validation":
            continue
        v = params.get(k)
        if type(v) not in _PLAIN_TYPES:
            return None
        items.append((k, type(v), v))
    return (cls, tuple(items))
