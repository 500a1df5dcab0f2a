"""The model file's envelope: its format name and version, the model kinds, the one error a
reader raises, the allow-lists of classes a file may name, and JSON-safe parameter values."""

from __future__ import annotations

import functools
import math
import numbers

import numpy as np

from .._format import py_scalar
from ..catalog import KINDS, class_path
from ..catalog import classes as catalog_classes

FORMAT = "dpmodels.model"
FORMAT_VERSION = 1
# model kinds a file may hold, each read by one class's from_dict (never a class named by the file):
# dpmodels.catalog.KINDS
MODEL_KINDS = tuple(KINDS)


class ModelFileError(ValueError):
    """A model file that cannot be read: not JSON, not a dpmodels model, or malformed."""


# ---------------------------------------------------------------------------- allow-lists
# A model file is untrusted input (docs/privacy.md, "Model files are untrusted input"): the classes it may name are
# these, looked up in a table; nothing read from a file is ever imported.
@functools.cache
def estimator_classes() -> dict:
    """``{class path as written in a file: class}`` of the estimators :func:`save_model` writes
    and :func:`load_model` accepts: the learners of :data:`dpmodels.catalog.LEARNERS` and the bare
    released models (:class:`RuleList`, :class:`Tree`, :class:`~dpmodels.tree.RegressionTree`)."""
    return catalog_classes()


@functools.cache
def preprocessor_classes() -> dict:
    """``{class path: class}`` of the pipeline steps a model file may hold (with ``from_dict``)."""
    from ..data.binarize import Binarizer

    return {class_path(Binarizer): Binarizer}


# ---------------------------------------------------------------------------- JSON-safe values
def json_safe(v):
    """A JSON-serialisable copy of a parameter value: numpy -> Python, tuples -> lists, dict keys
    -> str, non-finite floats -> their string, anything else -> its ``repr``."""
    v = py_scalar(v)
    if v is None or isinstance(v, (bool, str)):
        return v
    if isinstance(v, numbers.Integral):
        return int(v)
    if isinstance(v, numbers.Real):
        f = float(v)
        return f if math.isfinite(f) else str(f)
    if isinstance(v, np.ndarray):
        return [json_safe(x) for x in v.tolist()]
    if isinstance(v, (list, tuple)):
        return [json_safe(x) for x in v]
    if isinstance(v, dict):
        return {str(py_scalar(k)): json_safe(x) for k, x in v.items()}
    return repr(v)


def _one_line(exc, limit: int = 300) -> str:
    """An exception's text on one line, cut to ``limit`` characters (a file's content may be
    quoted in it)."""
    text = " ".join(str(exc.args[0] if isinstance(exc, KeyError) and exc.args else exc).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
