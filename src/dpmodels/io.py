"""Save a fitted model with its guarantee, load it back as a light predictor.

:func:`save_model` writes one JSON file holding everything a reader needs to use the model and
to know what it promises:

``format``, ``format_version``, ``dpmodels_version``
    ``"dpmodels.model"``, an integer (this module reads versions up to :data:`FORMAT_VERSION`).
``estimator``
    ``class`` (the class path: one of :func:`estimator_classes`, a fixed table — a loader
    imports nothing a file names), ``name`` and ``params`` (JSON-safe). ``random_state`` is **never
    written**: a seeded release is not private against whoever knows the seed, so the file only
    says whether the noise was seeded (``privacy.noise_seeded``).
``privacy``
    ``private_learner``, ``epsilon``, ``delta`` (the budget), ``epsilon_spent``, ``delta_spent``,
    ``is_private`` and ``verdict`` (the ledger's, in words), ``noise_seeded``, and the full
    ``ledger`` (one row per data access, each with its guarantee: proven / claimed / none).
``schema``
    The public inputs: ``classes``, ``input_features`` (the columns a raw frame must hold),
    ``categories`` (categorical feature -> public list), ``bounds`` (numerical feature ->
    [lo, hi], when declared), ``n_public``, and ``preprocessing`` (e.g. the Binarizer's
    ``to_dict()``: its cut points are part of the released model); and the **source** of every
    declaration (``classes_source``, ``label_bounds_source``, ``n_public_source``,
    ``column_sources``: ``user``, ``dp`` or ``data``; docs/privacy.md, "Sources travel with
    values"), so that reusing the file as a schema never turns a value read from the data into a
    declaration. The command line adds ``label``, ``columns`` (each column's declaration with its
    source) and a DP draft's ``draft`` block (its ledger).
``model``
    :meth:`RuleList.to_dict` or :meth:`Tree.to_dict` (raw noisy counts, exact thresholds).
``extra``
    Learner-specific public facts (an optimality certificate, PrivaTree's budget shares).

:func:`load_model` treats the file as untrusted input (docs/privacy.md, "Model files are
untrusted input"): classes only from :func:`estimator_classes` / :func:`preprocessor_classes`,
every size within :data:`CAPS` before anything is built, version, keys and types checked; it
raises :class:`ModelFileError` (a ``ValueError``) with one line saying what is wrong, and no
other exception. It returns a
:class:`LoadedModel` with ``predict`` / ``predict_proba`` / ``apply`` on **raw** frames (through
the saved preprocessing), ``get_rules()``, ``privacy_ledger_`` and printing. Predictions are
identical to the estimator's (``tests/test_io.py`` checks every learner).
"""

from __future__ import annotations

import functools
import json
import math
import numbers
import os
import tempfile
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ._format import learner_title, model_header, privacy_status, py_scalar
from ._paths import check_output_path
from .privacy.ledger import PrivacyLedger
from .privacy.verdict import combined_ledger, verdict_from

# RuleList and Tree are imported where they are used: reading and validating a file's envelope
# needs no scikit-learn (the command line answers malformed files fast)

__all__ = [
    "FORMAT",
    "FORMAT_VERSION",
    "ModelFileError",
    "LoadedModel",
    "model_to_dict",
    "model_from_dict",
    "save_model",
    "load_model",
    "read_model_json",
    "estimator_classes",
    "preprocessor_classes",
    "CAPS",
    "check_output_path",
]

FORMAT = "dpmodels.model"
FORMAT_VERSION = 1
# model kinds a file may hold, each read by one class's from_dict (never a class named by the file):
# rule_list -> dpmodels.rulelist.model.RuleList, tree -> dpmodels.tree.model.Tree,
# regression_tree -> dpmodels.tree.regression_model.RegressionTree (PrivaTreeRegressor),
# additive -> dpmodels.gam.model.AdditiveModel (DPAdditiveClassifier / DPAdditiveRegressor)
MODEL_KINDS = ("rule_list", "tree", "regression_tree", "additive")


class ModelFileError(ValueError):
    """A model file that cannot be read: not JSON, not a dpmodels model, or malformed."""


# ---------------------------------------------------------------------------- allow-lists
# A model file is untrusted input (docs/privacy.md, "Model files are untrusted input"): the classes it may name are
# these, looked up in a table; nothing read from a file is ever imported.
def _class_path(cls) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


@functools.cache
def estimator_classes() -> dict:
    """``{class path as written in a file: class}`` of the estimators :func:`save_model` writes
    and :func:`load_model` accepts (the learners with a ``rule_list_`` or a dpmodels ``tree_``,
    :class:`~dpmodels.tree.PrivaTreeRegressor`, and the bare :class:`RuleList` / :class:`Tree` /
    :class:`~dpmodels.tree.RegressionTree`)."""
    from .gam.estimator import DPAdditiveClassifier, DPAdditiveRegressor
    from .rulelist.greedy import GreedyRuleListClassifier
    from .rulelist.model import RuleList
    from .rulelist.optimal import OptimalRuleListClassifier
    from .rulelist.private import DPRuleListClassifier
    from .tree.baselines.bdpt import BDPTClassifier
    from .tree.baselines.dpgdf import DPGDFClassifier
    from .tree.model import Tree
    from .tree.optimal import DL85Classifier
    from .tree.privatree.estimator import PrivaTreeClassifier
    from .tree.privatree.regressor import PrivaTreeRegressor
    from .tree.regression_model import RegressionTree

    classes = (
        GreedyRuleListClassifier,
        DPRuleListClassifier,
        OptimalRuleListClassifier,
        PrivaTreeClassifier,
        BDPTClassifier,
        DPGDFClassifier,
        DL85Classifier,
        PrivaTreeRegressor,
        DPAdditiveClassifier,
        DPAdditiveRegressor,
        RuleList,
        Tree,
        RegressionTree,
    )
    return {_class_path(c): c for c in classes}


@functools.cache
def preprocessor_classes() -> dict:
    """``{class path: class}`` of the pipeline steps a model file may hold (with ``from_dict``)."""
    from .data.binarize import Binarizer

    return {_class_path(Binarizer): Binarizer}


# ---------------------------------------------------------------------------- size caps
# Checked before anything is built from a file (docs/privacy.md, "Model files are untrusted input"): each is far
# above what a real model needs and keeps a crafted file from costing more than a fixed multiple
# of its own size in memory and time.
MAX_FILE_BYTES = 256 * 2**20  #: bytes of a model file
MAX_NESTING = 32  #: JSON nesting depth (a saved model needs about 8)
MAX_STRING_CHARS = 65_536  #: characters of any string (names, category values, ledger notes)
MAX_INT_DIGITS = 40  #: digits of an integer literal
MAX_NODES = 1_000_000  #: nodes of a tree
MAX_DEPTH = 256  #: depth of a tree (printing recurses once per level)
MAX_FEATURES = 100_000  #: features of a model, or input columns
MAX_CATEGORIES = 100_000  #: public categories of one categorical feature
MAX_CLASSES = 10_000  #: class labels
MAX_RULES = 100_000  #: rules of a rule list
MAX_LITERALS = 10_000  #: literals of one rule
MAX_LEDGER_ROWS = 100_000  #: rows of a privacy ledger
MAX_BINS = 1_000_000  #: bins (times scores per bin) of all the shape functions of an additive model

CAPS = {
    "file bytes": MAX_FILE_BYTES,
    "nesting depth": MAX_NESTING,
    "string characters": MAX_STRING_CHARS,
    "integer digits": MAX_INT_DIGITS,
    "tree nodes": MAX_NODES,
    "tree depth": MAX_DEPTH,
    "features": MAX_FEATURES,
    "categories per feature": MAX_CATEGORIES,
    "classes": MAX_CLASSES,
    "rules": MAX_RULES,
    "literals per rule": MAX_LITERALS,
    "ledger rows": MAX_LEDGER_ROWS,
    "bins of an additive model": MAX_BINS,
}


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


# ---------------------------------------------------------------------------- export
def _final_estimator(obj):
    """``(preprocessing steps, final estimator)`` of an estimator or a scikit-learn Pipeline."""
    steps = getattr(obj, "steps", None)
    if steps is not None:
        est = steps[-1][1]
        pre = [s for _, s in steps[:-1] if s is not None and s != "passthrough"]
        return pre, est
    return [], obj


def _model_of(est):
    from .rulelist.model import RuleList
    from .tree.model import Tree

    if isinstance(est, LoadedModel):
        return est.model_
    if isinstance(est, (RuleList, Tree)):
        return est
    from .gam.model import AdditiveModel

    if isinstance(getattr(est, "model_", None), AdditiveModel):
        return est.model_
    for attr in ("rule_list_", "tree_"):
        if hasattr(est, attr):
            return getattr(est, attr)
    raise TypeError(
        f"cannot export {type(est).__name__}: expected a fitted rule-list or tree estimator of "
        "dpmodels (or a Pipeline ending with one)"
    )


def _combined_ledger(ledgers):
    """One ledger for the steps of a pipeline (:func:`dpmodels.privacy.verdict.combined_ledger`)."""
    return combined_ledger(ledgers)


def _bounds_dict(est, model):
    """Declared bounds as ``{feature: [lo, hi]}`` (public), or None when none were declared."""
    try:
        b = est.get_params(deep=False).get("bounds")
    except AttributeError:
        return None
    from .gam.model import AdditiveModel
    from .tree.model import Tree

    if b is not None and isinstance(model, AdditiveModel):
        return {model.feature_names[j]: [a, c] for j, (a, c) in model.bounds.items()}
    if b is None or not isinstance(model, Tree):
        return None
    from .validation import resolve_bounds

    num = [j for j in range(model.n_features) if not model.categorical[j]]
    try:
        lo, hi = resolve_bounds(b, model.feature_names, num)
    except ValueError:  # bounds that name only some features (DPGDF drops numerical ones)
        return json_safe(b) if isinstance(b, dict) else None
    return {model.feature_names[j]: [float(a), float(c)] for j, a, c in zip(num, lo, hi)}


def _seeded(step) -> bool:
    """Was this step given a seed (its ``random_state`` parameter is not None)?"""
    try:
        return step.get_params(deep=False).get("random_state") is not None
    except AttributeError:
        return getattr(step, "random_state", None) is not None


def _preprocessor_dict(step) -> dict:
    to_dict = getattr(step, "to_dict", None)
    cls = type(step)
    if to_dict is None or _class_path(cls) not in preprocessor_classes():
        raise TypeError(
            f"cannot export the pipeline step {cls.__name__}: only dpmodels preprocessors with "
            "to_dict() (e.g. dpmodels.data.Binarizer) can be saved with a model"
        )
    return {"class": f"{cls.__module__}.{cls.__qualname__}", "state": json_safe(to_dict())}


def model_to_dict(obj) -> dict:
    """The JSON document of a fitted estimator, a Pipeline (dpmodels preprocessors then a
    rule-list or tree estimator), a bare RuleList / Tree, or a :class:`LoadedModel`."""
    if isinstance(obj, LoadedModel):
        return obj.to_dict()
    from .rulelist.model import RuleList
    from .tree.model import Tree

    pre, est = _final_estimator(obj)
    model = _model_of(est)
    if _class_path(type(est)) not in estimator_classes():
        raise TypeError(
            f"cannot export {type(est).__name__}: a model file may name only the estimators of "
            "dpmodels.io.estimator_classes() (a loader imports nothing a file names)"
        )
    if getattr(est, "group_starts_", None):
        # BDPT as published grows its tree on groups of training values: the file's tree alone
        # would route raw numbers as group codes
        raise TypeError(
            f"cannot export {type(est).__name__}(variant='published'): its tree tests groups of training "
            "values, which a model file does not carry (an evaluation variant, not a DP model)"
        )
    bare = isinstance(est, (RuleList, Tree))
    params = {} if bare else {k: json_safe(v) for k, v in est.get_params(deep=False).items()}
    # whoever knows a seed removes the noise of the step drawn with it: a seeded step makes the
    # whole pipeline's release not private, not only a seeded final estimator
    seeded_steps = [f"{type(s).__name__} (pipeline step {k + 1})" for k, s in enumerate(pre) if _seeded(s)]
    seeded_est = params.get("random_state") is not None
    seeded = seeded_est or bool(seeded_steps)
    if "random_state" in params:
        params["random_state"] = None  # never exported: see the module docstring
    if "accountant" in params:  # a handle to a budget, not a parameter of the model: the
        params["accountant"] = None  # pipeline's budget and ledger are in "privacy"
    ledgers = [getattr(s, "privacy_ledger_", None) for s in pre] + [getattr(est, "privacy_ledger_", None)]
    ledger = _combined_ledger(ledgers)
    private_learner = getattr(est, "privacy_ledger_", None) is not None
    who: list[str] = ([type(est).__name__] if seeded_est else []) + seeded_steps
    # the one verdict (dpmodels.privacy.verdict): the file says what every other printout says
    v = verdict_from(ledger, private_learner=private_learner if (ledger is not None or not bare) else None, seeded=who)
    privacy: dict[str, Any] = {
        "private_learner": private_learner if not bare else None,
        "epsilon": None if ledger is None else ledger.epsilon,
        "delta": None if ledger is None else ledger.delta,
        "epsilon_spent": None if ledger is None else ledger.epsilon_spent,
        "delta_spent": None if ledger is None else ledger.delta_spent,
        "is_private": v.is_private,
        "verdict": [] if (ledger is None and bare) else list(v.reasons),
        "noise_seeded": bool(seeded) if ledger is not None else False,
        "ledger": None if ledger is None else ledger.to_dict(),
    }
    preprocessing = [_preprocessor_dict(s) for s in pre]
    if pre and hasattr(pre[0], "feature_names_in_"):
        input_features = [str(c) for c in pre[0].feature_names_in_]
    else:
        input_features = [str(f) for f in model.feature_names]
    from .gam.model import AdditiveModel
    from .tree.regression_model import RegressionTree

    additive_regressor = isinstance(model, AdditiveModel) and not model.is_classifier
    if isinstance(model, AdditiveModel):
        categories = {model.feature_names[j]: json_safe(list(v)) for j, v in model.categories.items()}
        kind = "additive"
    elif isinstance(model, Tree):
        categories = {model.feature_names[j]: json_safe(list(v)) for j, v in model.categories.items()}
        kind = "regression_tree" if isinstance(model, RegressionTree) else "tree"
    else:
        categories = {}
        kind = "rule_list"
    sources = _declaration_sources(est, model, ledger, bare, kind, categories, params)
    extra = {}
    if getattr(est, "certificate_", None) is not None:
        extra["certificate"] = json_safe(est.certificate_.to_dict())
    for attr in ("budget_", "n_estimate_", "optimal_", "train_errors_", "n_rounds_"):
        if hasattr(est, attr):
            extra[attr.rstrip("_")] = json_safe(getattr(est, attr))
    from . import __version__

    return {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "dpmodels_version": __version__,
        "kind": kind,
        "estimator": {
            "class": f"{type(est).__module__}.{type(est).__qualname__}",
            "name": type(est).__name__,
            "params": params,
            "display_params": list(getattr(est, "_display_params", ())),
        },
        "privacy": privacy,
        "schema": {
            # a regression tree has no label set (its label bounds are in the model and params)
            "classes": None
            if kind == "regression_tree" or additive_regressor
            else [py_scalar(c) for c in model.classes],
            "input_features": input_features,
            "categories": categories,
            "bounds": None if bare else _bounds_dict(est, model),
            # an additive regressor's declared label bounds (None: read from the data, a leak row)
            **({"label_bounds": params.get("label_bounds")} if additive_regressor else {}),
            "n_public": params.get("n_public"),
            "preprocessing": preprocessing,
            # a regression tree's declared label bounds (None: read from the data, a leak row)
            **({"label_bounds": params.get("label_bounds")} if kind == "regression_tree" else {}),
            # where each declaration came from (user / dp / data): --schema model.json keeps it
            **sources,
        },
        "model": model.to_dict(),
        "extra": extra,
    }


def _declaration_sources(est, model, ledger, bare: bool, kind: str, categories: dict, params: dict) -> dict:
    """The source (``user``, ``dp``, ``data``) of every declaration a model file's schema holds
    (docs/privacy.md, "Sources travel with values"): the source marked on the estimator's parameter
    (:func:`dpmodels.validation.declared`); ``data`` when a leak row of the ledger names it; and,
    for a value the parameters do not hold, ``data`` when there is no ledger to say otherwise (a
    non-private learner reads what it is not given without a leak row), ``user`` when there is one
    (a pandas ``CategoricalDtype`` is a declaration)."""
    from .validation import leaked_declarations, source_of

    raw = {} if bare else est.get_params(deep=False)
    leaked = leaked_declarations(ledger.rows if ledger is not None else [])
    no_ledger = ledger is None

    def src(value, leak: bool, *, default_public: bool = False) -> str:
        if leak:
            return "data"
        if value is not None:
            return source_of(value)
        return "user" if (default_public or not no_ledger) else "data"

    out: dict = {}
    if kind != "regression_tree":
        binary_default = kind == "rule_list" and [py_scalar(c) for c in model.classes] == [0, 1]
        out["classes_source"] = src(raw.get("classes"), leaked["classes"], default_public=binary_default)
    else:
        out["label_bounds_source"] = src(raw.get("label_bounds"), leaked["label_bounds"])
    if raw.get("n_public") is not None:
        out["n_public_source"] = src(raw.get("n_public"), leaked["n_public"])
    if kind == "rule_list":
        return out

    def entry(decl, j, name):
        if isinstance(decl, dict):
            return decl.get(name, decl.get(j))
        return decl

    cols: dict = {}
    cat_decl, bounds_decl = raw.get("categories"), raw.get("bounds")
    for j, name in enumerate(model.feature_names):
        if name in categories:
            spec: dict = {"kind": "categorical", "categories": categories[name]}
            spec["source"] = src(entry(cat_decl, j, name), name in leaked["columns"])
        else:
            spec = {"kind": "numerical"}
            b = entry(bounds_decl, j, name)
            if b is not None:
                spec["source"] = src(b, name in leaked["columns"] or leaked["all_bounds"])
            else:  # no declared bounds: the kind only (numbers, by the learner's rule)
                spec["source"] = "data" if (no_ledger or name in leaked["columns"]) else "user"
        cols[name] = spec
    out["column_sources"] = {c: spec["source"] for c, spec in cols.items()}
    return out


def _merge_schema(schema: dict, extra: dict) -> None:
    """``schema_extra`` over a file's schema, keeping the worse source of each declaration (the
    caller's or what the estimator's parameters and ledger say)."""
    from .validation import worst_source

    for k, v in extra.items():
        if k.endswith("_source") and k in schema:
            schema[k] = worst_source(schema[k], v)
        elif k == "columns" and isinstance(v, dict):
            known = schema.get("column_sources") or {}
            schema[k] = {
                c: (
                    {**spec, "source": worst_source(spec.get("source", "user"), known.get(c, "user"))}
                    if isinstance(spec, dict)
                    else spec
                )
                for c, spec in v.items()
            }
        else:
            schema[k] = v


def save_model(obj, path, *, indent: int = 2, schema_extra: dict | None = None) -> Path:
    """Write :func:`model_to_dict` of ``obj`` to ``path`` as JSON (atomically: a temporary file in
    the same directory, then a rename, so a failure never leaves half a file). Returns the path.

    ``schema_extra``: more public facts for the file's ``schema`` (the command line adds the label
    column's name and each column's declared kind, so ``--schema model.json`` can reuse them)."""
    p = check_output_path(path)
    doc = model_to_dict(obj)
    if schema_extra:
        _merge_schema(doc["schema"], {k: json_safe(v) for k, v in schema_extra.items()})
    text = json.dumps(doc, indent=indent, allow_nan=False, ensure_ascii=False)
    fd, tmp = tempfile.mkstemp(prefix=f".{p.name}.", suffix=".tmp", dir=p.parent if str(p.parent) else ".")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text + "\n")
        os.replace(tmp, p)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    return p


# ---------------------------------------------------------------------------- import
def _need(d: dict, key: str, types, where: str):
    """``d[key]``, checked to be of ``types`` (a bool is not an int here)."""
    if not isinstance(d, dict) or key not in d:
        raise ModelFileError(f"{where} lacks the key {key!r}")
    v = d[key]
    types = types if isinstance(types, tuple) else (types,)
    if not isinstance(v, types) or (isinstance(v, bool) and bool not in types):
        names = " or ".join(t.__name__ for t in types)
        raise ModelFileError(f"{where}: {key!r} must be {names}, got {type(v).__name__}")
    return v


def _load_preprocessor(spec, k: int, source: str = "model"):
    where = f"{source}: schema.preprocessing[{k}]"
    cls_path = _need(spec, "class", str, where)
    state = _need(spec, "state", dict, where)
    allowed = preprocessor_classes()
    cls = allowed.get(cls_path)
    if cls is None:
        raise ModelFileError(
            f"{where}: class {cls_path[:200]!r} is not one of the preprocessors a model file may "
            f"name ({', '.join(allowed)})"
        )
    try:
        return cls.from_dict(state)
    except (KeyError, TypeError, ValueError, IndexError) as exc:
        raise ModelFileError(f"{where}: malformed {cls.__name__} state ({_one_line(exc)})") from None


def _one_line(exc, limit: int = 300) -> str:
    """An exception's text on one line, cut to ``limit`` characters (a file's content may be
    quoted in it)."""
    text = " ".join(str(exc.args[0] if isinstance(exc, KeyError) and exc.args else exc).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _is_num(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _check_values(d, source: str) -> None:  # noqa: C901 - table branch splits io.py by job (issue 27 #3)
    """Caps on the parsed JSON as a whole (iteratively: no recursion on file content): nesting
    depth, string lengths, integer sizes, finite floats. The walk holds one iterator per open
    container: its memory is bounded by the nesting cap, whatever the file's size."""
    max_int = 10**MAX_INT_DIGITS

    def scalar(v) -> bool:
        """Check a non-container value; False for a list or an object."""
        t = type(v)  # the JSON types first, by identity (the ABC checks below cost 10 x more)
        if t is int:
            if not -max_int < v < max_int:
                raise ModelFileError(f"{source}: an integer of more than {MAX_INT_DIGITS} digits")
            return True
        if t is float:
            if not math.isfinite(v):
                raise ModelFileError(f"{source}: a non-finite number ({v}); model files hold finite numbers")
            return True
        if t is list or t is dict:
            return False
        if isinstance(v, str):
            if len(v) > MAX_STRING_CHARS:
                raise ModelFileError(f"{source}: a string longer than {MAX_STRING_CHARS:,} characters")
        elif isinstance(v, (bool, np.bool_)) or v is None:
            pass
        elif isinstance(v, numbers.Integral):
            if not -max_int < int(v) < max_int:
                raise ModelFileError(f"{source}: an integer of more than {MAX_INT_DIGITS} digits")
        elif isinstance(v, numbers.Real):
            if not math.isfinite(float(v)):
                raise ModelFileError(f"{source}: a non-finite number ({v}); model files hold finite numbers")
        elif isinstance(v, (list, tuple, dict)):
            return False
        else:
            raise ModelFileError(f"{source}: a value of type {type(v).__name__} (not JSON)")
        return True

    leaf_types = {int, float, str, bool, type(None)}

    def items(c):
        """An iterator over what remains to walk in container ``c``: nothing when it holds only
        plain JSON scalars (then checked here, at C speed: most of a file), else its values."""
        vals = c
        if isinstance(c, dict):
            if set(map(type, c)) == {str}:
                if c and max(map(len, c)) > MAX_STRING_CHARS:
                    raise ModelFileError(f"{source}: a key longer than {MAX_STRING_CHARS:,} characters")
            else:
                for k in c:
                    scalar(k)
            vals = c.values()
        if len(vals) <= 4:  # a small container: the per-value checks cost less than the bulk ones
            return iter(vals)
        types = set(map(type, vals))
        if not types <= leaf_types:
            return iter(vals)
        if int in types:
            ints = [v for v in vals if type(v) is int]
            if not (-max_int < min(ints) and max(ints) < max_int):
                raise ModelFileError(f"{source}: an integer of more than {MAX_INT_DIGITS} digits")
        if float in types and not all(map(math.isfinite, (v for v in vals if type(v) is float))):
            raise ModelFileError(f"{source}: a non-finite number; model files hold finite numbers")
        if str in types and max(len(v) for v in vals if type(v) is str) > MAX_STRING_CHARS:
            raise ModelFileError(f"{source}: a string longer than {MAX_STRING_CHARS:,} characters")
        return iter(())

    if scalar(d):
        return
    stack = [items(d)]  # depth-first, one iterator per open container: memory O(nesting)
    while stack:
        for v in stack[-1]:
            if not scalar(v):
                if len(stack) >= MAX_NESTING:
                    raise ModelFileError(f"{source}: nested more than {MAX_NESTING} levels deep")
                stack.append(items(v))
                break
        else:
            stack.pop()


def _check_labels(values: list, what: str, where: str) -> None:
    """Class labels and category values: JSON scalars (text, numbers, booleans), all distinct
    as values (1, 1.0 and true are one value to the lookups: listed twice, it would have two
    codes)."""
    if not all(isinstance(v, (str, int, float)) for v in values):  # bool is an int
        raise ModelFileError(f"{where}: {what} must be texts or numbers")
    if len(set(values)) != len(values):
        raise ModelFileError(f"{where}: {what} list a value twice")


def _cap(n: int, cap: int, what: str, source: str) -> None:
    if n > cap:
        raise ModelFileError(f"{source}: {n:,} {what} (a model file may hold at most {cap:,})")


def _list(d: dict, key: str, where: str, cap: int, what: str, *, optional: bool = False) -> Any:
    if optional and d.get(key) is None:
        return None
    v = _need(d, key, list, where)
    _cap(len(v), cap, what, where)
    return v


def _check_tree_doc(m: dict, source: str) -> None:  # noqa: C901 - table branch splits io.py by job (issue 27 #3)
    """Sizes and shape of a serialised tree, before anything is allocated from it: at most
    :data:`MAX_NODES` nodes forming one tree from the root (every node reached exactly once) of
    depth at most :data:`MAX_DEPTH`; category lists and label lists within their caps."""
    where = f"{source}: malformed tree"
    cl = _list(m, "children_left", where, MAX_NODES, "tree nodes")
    cr = _list(m, "children_right", where, MAX_NODES, "tree nodes")
    n = len(cl)
    for key in ("feature", "threshold", "left_categories", "value", "label"):
        if len(_list(m, key, where, MAX_NODES, "tree nodes")) != n:
            raise ModelFileError(f"{where}: {key!r} has not one entry per node ({n})")
    if n == 0 or len(cr) != n:
        raise ModelFileError(f"{where}: children_left and children_right need one entry per node (>= 1)")
    if not set(map(type, cl)) <= {int} or not set(map(type, cr)) <= {int}:
        raise ModelFileError(f"{where}: child ids must be integers")
    _check_labels(_list(m, "classes", where, MAX_CLASSES, "classes"), "the classes", where)
    names = _list(m, "feature_names", where, MAX_FEATURES, "features")
    if len(_list(m, "categorical", where, MAX_FEATURES, "features")) != len(names):
        raise ModelFileError(f"{where}: 'categorical' has not one entry per feature")
    cats = _need(m, "categories", dict, where)
    _cap(len(cats), MAX_FEATURES, "categorical features", where)
    for k, vals in cats.items():
        if not isinstance(vals, list):
            raise ModelFileError(f"{where}: the categories of feature {k[:50]!r} must be a list")
        _cap(len(vals), MAX_CATEGORIES, f"categories of feature {k[:50]!r}", where)
        _check_labels(vals, f"the categories of feature {k[:50]!r}", where)
    for i, s in enumerate(m["left_categories"]):
        if s is not None and not (isinstance(s, list) and set(map(type, s)) <= {int}):
            raise ModelFileError(f"{where}: left_categories[{i}] must be null or a list of integer codes")
        if s is not None:
            _cap(len(s), MAX_CATEGORIES, f"category codes at node {i}", where)
    # one tree from the root, breadth first: each node reached once, depth capped
    seen = bytearray(n)
    seen[0] = 1
    level, depth, reached = [0], 0, 1
    while level:
        nxt = []
        for i in level:
            a, b = cl[i], cr[i]
            if (a == -1) != (b == -1):
                raise ModelFileError(f"{where}: node {i} must have two children or none")
            if a == -1:
                continue
            for c in (a, b):
                if not 0 < c < n or seen[c]:
                    raise ModelFileError(f"{where}: node {i} has the child {c}, which is not a new node in 1..{n - 1}")
                seen[c] = 1
                nxt.append(c)
        if nxt:
            depth += 1
            if depth > MAX_DEPTH:
                raise ModelFileError(f"{where}: a tree deeper than {MAX_DEPTH} levels")
        reached += len(nxt)
        level = nxt
    if reached != n:
        raise ModelFileError(f"{where}: {n - reached} node(s) are not reachable from the root")


def _check_regression_tree_doc(m: dict, source: str) -> None:
    """A serialised regression tree: the checks of :func:`_check_tree_doc` (same node arrays, same
    caps) plus one ``leaf_value`` per node and two label bounds."""
    _check_tree_doc(m, source)
    where = f"{source}: malformed regression tree"
    n = len(m["children_left"])
    lv = _need(m, "leaf_value", list, where)
    _cap(len(lv), MAX_NODES, "tree nodes", where)
    if len(lv) != n:
        raise ModelFileError(f"{where}: 'leaf_value' has not one entry per node ({n})")
    if not all(v is None or (_is_num(v) and not isinstance(v, bool)) for v in lv):
        raise ModelFileError(f"{where}: leaf values must be numbers or null")
    lb = _need(m, "label_bounds", list, where)
    if len(lb) != 2 or not all(_is_num(v) and not isinstance(v, bool) for v in lb):
        raise ModelFileError(f"{where}: label_bounds must be two numbers")


def _check_additive_doc(m: dict, source: str) -> None:
    """Sizes of a serialised additive model: features, categories, classes, bins (all within the
    caps), checked before :meth:`AdditiveModel.from_dict` builds anything."""
    where = f"{source}: malformed additive model"
    names = _list(m, "feature_names", where, MAX_FEATURES, "features")
    terms = _list(m, "terms", where, MAX_FEATURES, "features")
    counts = _list(m, "bin_counts", where, MAX_FEATURES, "features")
    if len(terms) != len(names) or len(counts) != len(names):
        raise ModelFileError(f"{where}: one term and one bin-count list per feature")
    cats = _need(m, "categories", dict, where)
    for v in cats.values():
        if not isinstance(v, list):
            raise ModelFileError(f"{where}: a category list must be a list")
        _cap(len(v), MAX_CATEGORIES, "categories per feature", where)
    cuts = _need(m, "cut_points", dict, where)
    total = 0
    for v in cuts.values():
        if not isinstance(v, list) or not all(_is_num(c) and not isinstance(c, bool) for c in v):
            raise ModelFileError(f"{where}: cut points must be lists of numbers")
        total += len(v) + 1
    total += sum(len(v) + 1 for v in cats.values())
    _cap(total, MAX_BINS, "bins", where)
    classes = m.get("classes")
    if classes is not None:
        _check_labels(_list(m, "classes", where, MAX_CLASSES, "classes"), "the classes", where)
    width = 1 if classes is None or len(classes) == 2 else len(classes)
    _cap(total * width, MAX_BINS, "scores", where)
    for t in terms:
        if not isinstance(t, list) or not all(
            isinstance(r, list) and all(_is_num(v) and not isinstance(v, bool) for v in r) for r in t
        ):
            raise ModelFileError(f"{where}: a term must be a list of rows of numbers")
    for c in counts:
        if not isinstance(c, list) or not all(_is_num(v) and not isinstance(v, bool) for v in c):
            raise ModelFileError(f"{where}: bin counts must be lists of numbers")


def _check_rule_list_doc(m: dict, source: str) -> None:
    """Sizes of a serialised rule list: rules, literals per rule, features."""
    where = f"{source}: malformed rule list"
    _list(m, "feature_names", where, MAX_FEATURES, "features")
    _check_labels(_list(m, "classes", where, MAX_CLASSES, "classes"), "the classes", where)
    rules = _list(m, "rules", where, MAX_RULES, "rules")
    for k, r in enumerate(rules):
        if isinstance(r, dict) and isinstance(r.get("antecedent"), list):
            _cap(len(r["antecedent"]), MAX_LITERALS, f"literals in rule {k + 1}", where)


_LEDGER_ROW_TYPES = {
    "what": (str,),
    "mechanism": (str,),
    "epsilon": (int, float),
    "delta": (int, float),
    "sensitivity": (int, float, type(None)),
    "composition": (str,),
    "parts": (int,),
    "note": (str,),
    "guarantee": (str,),
}


def _load_ledger(led, source: str):
    if not isinstance(led, dict):
        raise ModelFileError(f"{source}: privacy.ledger must be an object")
    where = f"{source}: malformed privacy ledger"
    for key in ("epsilon", "delta"):
        if key in led and not _is_num(led[key]):
            raise ModelFileError(f"{where} ({key!r} must be a number)")
    rows = led.get("rows", [])
    if not isinstance(rows, list):
        raise ModelFileError(f"{where} ('rows' must be a list)")
    _cap(len(rows), MAX_LEDGER_ROWS, "ledger rows", source)
    for k, r in enumerate(rows):
        if not isinstance(r, dict):
            raise ModelFileError(f"{where} (row {k} is not an object)")
        for key, v in r.items():
            types = _LEDGER_ROW_TYPES.get(key)
            if types is None:
                raise ModelFileError(f"{where} (row {k} has the unknown key {key[:50]!r})")
            if not isinstance(v, types) or isinstance(v, bool):
                raise ModelFileError(f"{where} (row {k}: {key!r} has the wrong type)")
    try:
        ledger = PrivacyLedger.from_dict(led)
        ledger.verdict()  # everything printing needs, computed once here
    except (KeyError, TypeError, ValueError, ArithmeticError) as exc:
        raise ModelFileError(f"{where} ({_one_line(exc)})") from None
    return ledger


def _legacy(d: dict) -> dict | None:
    """A bare ``RuleList.to_dict()`` / ``Tree.to_dict()`` (files written before this format)."""
    if d.get("type") == "rule_list":
        kind = "rule_list"
    elif str(d.get("format", "")).startswith("dpmodels.tree/"):
        kind = "tree"
    elif str(d.get("format", "")).startswith("dpmodels.regression_tree/"):
        kind = "regression_tree"
    else:
        return None
    return {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "kind": kind,
        "estimator": {
            "class": "",
            "params": {},
            "name": {"rule_list": "RuleList", "tree": "Tree"}.get(kind, "RegressionTree"),
        },
        "privacy": {
            "private_learner": None,
            "ledger": None,
            "is_private": False,
            "verdict": ["privacy unknown: a bare model file (no ledger)"],
        },
        "schema": {"classes": None if kind == "regression_tree" else d.get("classes"), "preprocessing": []},
        "model": d,
        "extra": {},
    }


def _estimator_kind(cls) -> str:
    """The model kind an allow-listed class fits: "rule_list", "tree" or "regression_tree"."""
    from .gam.estimator import DPAdditiveClassifier, DPAdditiveRegressor
    from .rulelist._base import RuleListEstimator
    from .rulelist.model import RuleList
    from .tree.privatree.regressor import PrivaTreeRegressor
    from .tree.regression_model import RegressionTree

    if cls is RuleList or issubclass(cls, RuleListEstimator):
        return "rule_list"
    if cls is RegressionTree or issubclass(cls, PrivaTreeRegressor):
        return "regression_tree"
    if issubclass(cls, (DPAdditiveClassifier, DPAdditiveRegressor)):
        return "additive"
    return "tree"


def model_from_dict(d, *, source: str = "model", _values_checked: bool = False) -> "LoadedModel":
    """Validate a model document and return a :class:`LoadedModel`.

    The document is untrusted input (docs/privacy.md, "Model files are untrusted input"): every class it names must
    be in :func:`estimator_classes` / :func:`preprocessor_classes`, every size within the caps of
    this module (:data:`CAPS`), checked before anything is built from it. Any problem raises
    :class:`ModelFileError` with one line, and nothing else is raised.
    """
    try:
        return _model_from_dict(d, source, _values_checked)
    except ModelFileError:
        raise
    except RecursionError:
        raise ModelFileError(f"{source}: nested too deeply") from None
    except Exception as exc:  # noqa: BLE001 - a check this module lacks: still the one model-file error
        raise ModelFileError(f"{source}: malformed model file ({type(exc).__name__}: {_one_line(exc)})") from None


def _model_from_dict(d, source: str, values_checked: bool) -> "LoadedModel":  # noqa: C901 - table branch splits io.py by job (issue 27 #3)
    if not isinstance(d, dict):
        raise ModelFileError(f"{source}: not a dpmodels model (the JSON is a {type(d).__name__}, not an object)")
    if not values_checked:  # read_model_json has walked it
        _check_values(d, source)
    if d.get("format") != FORMAT:
        legacy = _legacy(d)
        if legacy is None:
            fmt = d.get("format")
            fmt = fmt[:100] if isinstance(fmt, str) else fmt if fmt is None else type(fmt).__name__
            raise ModelFileError(f"{source}: not a dpmodels model file (format {fmt!r})")
        d = legacy
    version = _need(d, "format_version", int, source)
    if version < 1 or version > FORMAT_VERSION:
        raise ModelFileError(
            f"{source}: format version {version} is not readable by this dpmodels (reads 1 to "
            f"{FORMAT_VERSION}); upgrade dpmodels"
        )
    kind = _need(d, "kind", str, source)
    if kind not in MODEL_KINDS:
        raise ModelFileError(f"{source}: unknown model kind {kind[:100]!r} ({', '.join(MODEL_KINDS)})")
    est = _need(d, "estimator", dict, source)
    cls_path = _need(est, "class", str, f"{source}: estimator")
    if cls_path:  # "" only in a bare legacy file: no learner recorded
        cls = estimator_classes().get(cls_path)
        if cls is None:
            raise ModelFileError(
                f"{source}: estimator class {cls_path[:200]!r} is not one of the dpmodels estimators a "
                "model file may name (see dpmodels.io.estimator_classes())"
            )
        if _estimator_kind(cls) != kind:
            raise ModelFileError(f"{source}: estimator {cls.__name__} does not fit a model of kind {kind!r}")
    for key in ("name",):
        if est.get(key) is not None and not isinstance(est[key], str):
            raise ModelFileError(f"{source}: estimator.{key} must be a string")
    dp = est.get("display_params")
    if dp is not None and not (isinstance(dp, list) and all(isinstance(k, str) for k in dp)):
        raise ModelFileError(f"{source}: estimator.display_params must be a list of strings")
    params = _need(est, "params", dict, f"{source}: estimator")
    privacy = _need(d, "privacy", dict, source)
    for key in ("private_learner", "noise_seeded", "is_private"):
        if privacy.get(key) is not None and not isinstance(privacy[key], bool):
            raise ModelFileError(f"{source}: privacy.{key} must be true, false or null")
    schema = _need(d, "schema", dict, source)
    if d.get("extra") is not None and not isinstance(d["extra"], dict):
        raise ModelFileError(f"{source}: 'extra' must be an object")
    feats = schema.get("input_features")
    if feats is not None:
        if not isinstance(feats, list) or not all(isinstance(f, str) for f in feats):
            raise ModelFileError(f"{source}: schema.input_features must be a list of strings")
        _cap(len(feats), MAX_FEATURES, "input features", source)
    mdict = _need(d, "model", dict, source)
    if kind == "tree":
        _check_tree_doc(mdict, source)
    elif kind == "regression_tree":
        _check_regression_tree_doc(mdict, source)
    elif kind == "additive":
        _check_additive_doc(mdict, source)
    else:
        _check_rule_list_doc(mdict, source)
    from .rulelist.model import RuleList
    from .tree.model import Tree
    from .tree.regression_model import RegressionTree

    try:
        from .gam.model import AdditiveModel

        readers: dict[str, Any] = {
            "rule_list": RuleList,
            "tree": Tree,
            "regression_tree": RegressionTree,
            "additive": AdditiveModel,
        }
        model = readers[kind].from_dict(mdict)
    except (KeyError, TypeError, ValueError, IndexError, OverflowError) as exc:
        raise ModelFileError(f"{source}: malformed {kind.replace('_', ' ')} ({_one_line(exc)})") from None
    led = privacy.get("ledger")
    ledger = None if led is None else _load_ledger(led, source)
    pre_specs = schema.get("preprocessing") or []
    if not isinstance(pre_specs, list):
        raise ModelFileError(f"{source}: schema.preprocessing must be a list")
    pre = [_load_preprocessor(s, k, source) for k, s in enumerate(pre_specs)]
    classes = schema.get("classes")
    if classes is not None and (
        getattr(model, "classes", None) is None or [py_scalar(c) for c in model.classes] != list(classes)
    ):
        raise ModelFileError(f"{source}: schema.classes disagree with the model's")
    return LoadedModel(d, model, ledger, pre, params)


def load_model(path) -> "LoadedModel":
    """Read a file written by :func:`save_model` (or a bare RuleList / Tree JSON); one clear
    :class:`ModelFileError` for anything that is not a valid model file (docs/privacy.md,
    "Model files are untrusted input")."""
    return model_from_dict(read_model_json(path), source=str(path), _values_checked=True)


def read_model_json(path):
    """The parsed JSON of a model file, read as untrusted input: at most :data:`MAX_FILE_BYTES`
    (checked before reading), no ``NaN`` / ``Infinity``, nesting and values within the caps of
    this module; anything else is a :class:`ModelFileError`. Not yet validated as a model (see
    :func:`model_from_dict`): for code that peeks at a file's schema before loading it."""
    p = Path(path)
    if p.is_dir():
        raise ModelFileError(f"{str(p)!r} is a directory, not a model file")
    try:
        size = p.stat().st_size
        if size > MAX_FILE_BYTES:
            raise ModelFileError(f"{str(p)!r}: {size:,} bytes (a model file may hold at most {MAX_FILE_BYTES:,})")
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ModelFileError(f"model file {str(p)!r} does not exist") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ModelFileError(f"cannot read model file {str(p)!r}: {_one_line(exc)}") from None
    d = _parse_json(text, str(p))
    _check_values(d, str(p))
    return d


def _reject_constant(name):
    raise ModelFileError(f"{name} is not a JSON number (save_model never writes it)")


def _parse_json(text: str, source: str):
    try:
        return json.loads(text, parse_constant=_reject_constant)
    except json.JSONDecodeError as exc:
        raise ModelFileError(
            f"{source!r} is not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})"
        ) from None
    except ModelFileError as exc:
        raise ModelFileError(f"{source!r}: {exc}") from None
    except RecursionError:
        raise ModelFileError(f"{source!r}: JSON nested too deeply") from None
    except ValueError as exc:  # e.g. an integer literal beyond Python's digit limit
        raise ModelFileError(f"{source!r}: unreadable JSON value ({_one_line(exc)})") from None


def _verdict_of(obj):
    from .privacy.verdict import verdict

    return verdict(obj)


# ---------------------------------------------------------------------------- the predictor
class LoadedModel:
    """A saved model as a predictor on raw data, with its ledger and its public schema.

    Attributes: ``model_`` (:class:`RuleList` or :class:`Tree`), ``kind``, ``classes_``,
    ``feature_names_in_`` (the columns a raw frame must hold), ``privacy_ledger_`` (None for a
    non-private learner), ``preprocessing_`` (e.g. the Binarizer), ``estimator_class``,
    ``params``, ``schema``, ``extra``.
    """

    _dpmodels_loaded_model = True  # how dpmodels.privacy.verdict recognises a file's model

    def __init__(self, doc: dict, model, ledger, preprocessing, params):
        self._doc = doc
        self.model_ = model
        self.kind = doc["kind"]
        self.privacy_ledger_ = ledger
        self.preprocessing_ = list(preprocessing)
        self.params = dict(params)
        self.estimator_class = doc["estimator"]["class"]
        self.estimator_name = doc["estimator"].get("name") or self.estimator_class.rpartition(".")[2]
        self.schema = doc.get("schema", {})
        self.extra = doc.get("extra", {})
        self.privacy = doc.get("privacy", {})
        # the verdict is recomputed from the file's ledger rows and seed flag, never read from its
        # is_private / verdict fields (dpmodels.privacy.verdict: one function decides)
        v = _verdict_of(self)
        self.privacy = {**self.privacy, "is_private": v.is_private, "verdict": list(v.reasons)}
        # None for a regression tree (no label set); typed Any so classifier code indexes it freely
        self.classes_: Any = (
            None
            if self.kind == "regression_tree" or getattr(model, "classes", None) is None
            else np.asarray(model.classes)
        )
        if self.preprocessing_ and hasattr(self.preprocessing_[0], "feature_names_in_"):
            self.feature_names_in_ = [str(c) for c in self.preprocessing_[0].feature_names_in_]
        else:
            self.feature_names_in_ = list(self.schema.get("input_features") or model.feature_names)

    # ------------------------------------------------------------------ input
    def _frame(self, X):
        """The raw input restricted to the model's columns (by name; extra columns ignored)."""
        names = self.feature_names_in_
        if isinstance(X, pd.DataFrame):
            cols = {str(c): c for c in X.columns}
            missing = [f for f in names if f not in cols]
            if missing:
                raise ValueError(f"the data lacks {len(missing)} column(s) the model needs, e.g. {missing[:3]}")
            return X[[cols[f] for f in names]].set_axis(names, axis=1)
        A = np.asarray(X)
        if A.ndim != 2 or A.shape[1] != len(names):
            raise ValueError(f"X must be 2-d with {len(names)} columns ({names[:3]}...), got shape {A.shape}")
        return pd.DataFrame(A, columns=names)

    def _encoded(self, X):
        Z = self._frame(X)
        for step in self.preprocessing_:
            Z = step.transform(Z)
        return Z

    # ------------------------------------------------------------------ predict
    def apply(self, X) -> np.ndarray:
        """Rule index (rule lists; ``len(rules)`` = default) or leaf id (trees) of each row; for an
        additive model, the (n, m) bin of every feature."""
        if self.kind == "additive":
            return self.model_.encode(self._encoded(X))
        return self.model_.apply(self._encoded(X))

    def predict(self, X) -> np.ndarray:
        if self.kind == "additive":
            return self.model_.predict(self._encoded(X))
        idx = self.apply(X)
        if self.kind == "regression_tree":
            return self.model_.leaf_value[idx]
        if self.kind == "tree":
            return self.classes_[self.model_.label[idx]]
        preds = np.array([r.prediction for r in self.model_._all_rules()], dtype=np.int64)
        return self.classes_[preds[idx]]

    def predict_proba(self, X) -> np.ndarray:
        """Class probabilities from the (noisy) counts of the rule / leaf (see
        :meth:`RuleList.proba_table` and :meth:`Tree.leaf_proba` for what a small noisy count
        means)."""
        if self.kind == "regression_tree" or self.classes_ is None:
            raise AttributeError("a regression model has no predict_proba")
        if self.kind == "additive":
            return self.model_.predict_proba(self._encoded(X))
        idx = self.apply(X)
        table = self.model_.leaf_proba() if self.kind == "tree" else self.model_.proba_table()
        return table[idx]

    def score(self, X, y) -> float:
        """Accuracy of :meth:`predict` on ``(X, y)`` (as scikit-learn classifiers' ``score``); R²
        for a regression tree (as scikit-learn regressors')."""
        y = np.asarray(y).ravel()
        pred = self.predict(X)
        if y.shape[0] != pred.shape[0]:
            raise ValueError(f"X has {pred.shape[0]} rows but y has {y.shape[0]}")
        if y.shape[0] == 0:
            raise ValueError("score needs at least one row")
        if self.kind == "regression_tree" or self.classes_ is None:
            from sklearn.metrics import r2_score

            return float(r2_score(np.asarray(y, dtype=float), pred))
        from sklearn.metrics import accuracy_score

        return float(accuracy_score(y, pred))

    # ------------------------------------------------------------------ the learner
    def unfitted_estimator(self):
        """A new, unfitted estimator of the recorded learner: the file's estimator class (looked
        up in :func:`estimator_classes`, never imported from the file) with its recorded
        parameters, after the saved preprocessing (a Pipeline whose steps are unfitted clones of
        the loaded ones: their public schema, e.g. the Binarizer's cut points, is fixed, so
        refitting them reads nothing from the data).

        Audits use it for reference (shadow) models: the attacker knows the algorithm and its
        hyper-parameters. ``random_state`` is None (it is never saved); ``accountant`` is None.
        Raises :class:`ModelFileError` for a file that records no learner (a bare model) or
        parameters the class does not take.
        """
        cls = estimator_classes().get(self.estimator_class)
        from .rulelist.model import RuleList
        from .tree.model import Tree
        from .tree.regression_model import RegressionTree

        if cls is None or cls in (RuleList, Tree, RegressionTree):
            raise ModelFileError(
                f"this model file records no learner (a bare {type(self.model_).__name__}): pass the "
                "learner to rebuild explicitly"
            )
        names = set(cls._get_param_names())
        unknown = sorted(set(self.params) - names)
        if unknown:
            raise ModelFileError(
                f"the file's parameters {unknown[:5]} are not parameters of {cls.__name__} in this dpmodels"
            )
        try:
            est = cls(**self.params)
        except (TypeError, ValueError) as exc:
            raise ModelFileError(
                f"cannot rebuild {cls.__name__} from the file's parameters ({_one_line(exc)})"
            ) from None
        if not self.preprocessing_:
            return est
        from sklearn.base import clone
        from sklearn.pipeline import make_pipeline

        return make_pipeline(*[clone(s) for s in self.preprocessing_], est)

    # ------------------------------------------------------------------ read
    def _print_kw(self) -> dict:
        """Printing options from the saved parameters: a tree's integer-declared features."""
        if self.kind not in ("tree", "regression_tree"):
            return {}
        from ._format import declared_integer_features

        known = set(self.model_.feature_names)
        return {"integer_features": [f for f in declared_integer_features(self.params.get("bounds")) if f in known]}

    def get_rules(self, **kw) -> pd.DataFrame:
        if self.kind == "additive":  # one row per (feature, bin): the shape functions
            return self.model_.shape_table()
        return self.model_.get_rules(**{**self._print_kw(), **kw})

    def header(self) -> list[str]:
        params = self.params
        if self.kind == "additive":
            keys = self._doc["estimator"].get("display_params") or []
            pl = self.privacy.get("private_learner")
            lines = [learner_title(self.estimator_name, params, keys)]
            lines.append(
                "privacy: "
                + privacy_status(
                    self.privacy_ledger_, private_learner=bool(pl), seeded=bool(self.privacy.get("noise_seeded"))
                )
            )
            if self.classes_ is not None:
                lines.append("classes: " + ", ".join(str(py_scalar(c)) for c in self.classes_))
            return lines
        keys = self._doc["estimator"].get("display_params") or []
        title = learner_title(self.estimator_name, params, keys) if self.estimator_class else "model"
        pl = self.privacy.get("private_learner")
        status = privacy_status(
            self.privacy_ledger_, private_learner=bool(pl), seeded=bool(self.privacy.get("noise_seeded"))
        )
        if pl is None and self.privacy_ledger_ is None:
            status = "privacy unknown (a bare model file: no ledger)"
        elif pl is False:  # a preprocessing ledger (e.g. a Binarizer's) does not make it private
            status = "not private (no DP guarantee)"
        notes = []
        if self.preprocessing_:
            notes.append(
                "input: "
                + ", ".join(type(s).__name__ for s in self.preprocessing_)
                + f" of the columns {', '.join(self.feature_names_in_)}"
            )
        if self.kind == "regression_tree":
            from .tree.regression_model import regression_header

            return regression_header(
                title,
                status=status,
                n_total=self.model_.n_total,
                noisy=self.model_.counts_are_noisy,
                label_bounds=self.model_.label_bounds,
                notes=notes,
            )
        return model_header(
            title,
            status=status,
            n_total=self.model_.n_total,
            noisy=self.model_.counts_are_noisy,
            classes=list(self.model_.classes),
            notes=notes,
        )

    def to_text(self, **kw) -> str:
        if self.kind == "additive":
            return self.model_.to_text(self.header(), **kw)
        return self.model_.to_text(header=self.header(), **{**self._print_kw(), **kw})

    def __str__(self) -> str:
        return self.to_text()

    def __repr__(self) -> str:
        if self.kind == "regression_tree" or self.classes_ is None:
            return f"<LoadedModel {self.estimator_name} ({self.kind}), label_bounds={list(self.model_.label_bounds)}>"
        return f"<LoadedModel {self.estimator_name} ({self.kind}), classes={list(self.model_.classes)}>"

    def to_dict(self) -> dict:
        return json.loads(json.dumps(self._doc))

    def save(self, path) -> Path:
        return save_model(self, path)
