"""Import: a model document validated (envelope, allow-lists, caps) and built into a
:class:`~dpmodels.io.loaded.LoadedModel`."""

from __future__ import annotations

from .._format import py_scalar
from ..catalog import KINDS, kind_of
from .format import (
    FORMAT,
    FORMAT_VERSION,
    MODEL_KINDS,
    ModelFileError,
    _one_line,
    estimator_classes,
    preprocessor_classes,
)
from .limits import (
    MAX_FEATURES,
    _cap,
    _check_additive_doc,
    _check_regression_tree_doc,
    _check_rule_list_doc,
    _check_tree_doc,
    _check_values,
    _load_ledger,
    _need,
    read_model_json,
)
from .loaded import LoadedModel


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


# each kind's shape checks, run on a file's "model" before its class builds anything
_DOC_CHECKS = {
    "rule_list": _check_rule_list_doc,
    "tree": _check_tree_doc,
    "regression_tree": _check_regression_tree_doc,
    "additive": _check_additive_doc,
}


def _model_from_dict(d, source: str, values_checked: bool) -> LoadedModel:
    if not isinstance(d, dict):
        raise ModelFileError(f"{source}: not a dpmodels model (the JSON is a {type(d).__name__}, not an object)")
    if not values_checked:  # read_model_json has walked it
        _check_values(d, source)
    d = _envelope(d, source)
    kind = d["kind"]
    params = _check_estimator(d, kind, source)
    privacy, schema = _check_privacy_and_schema(d, source)
    mdict = _need(d, "model", dict, source)
    _DOC_CHECKS[kind](mdict, source)
    try:
        model = KINDS[kind].model_class.from_dict(mdict)
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


def _envelope(d: dict, source: str) -> dict:
    """The document in the current format (a bare legacy model wrapped), its version readable and
    its kind one of :data:`dpmodels.catalog.KINDS`."""
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
    return d


def _check_estimator(d: dict, kind: str, source: str) -> dict:
    """The file's ``estimator`` block: a class of the allow-list (:func:`estimator_classes`) that
    releases models of ``kind``, a name, display parameters; returns its parameters."""
    est = _need(d, "estimator", dict, source)
    cls_path = _need(est, "class", str, f"{source}: estimator")
    if cls_path:  # "" only in a bare legacy file: no learner recorded
        if cls_path not in estimator_classes():
            raise ModelFileError(
                f"{source}: estimator class {cls_path[:200]!r} is not one of the dpmodels estimators a "
                "model file may name (see dpmodels.io.estimator_classes())"
            )
        if kind_of(cls_path) != kind:
            name = estimator_classes()[cls_path].__name__
            raise ModelFileError(f"{source}: estimator {name} does not fit a model of kind {kind!r}")
    if est.get("name") is not None and not isinstance(est["name"], str):
        raise ModelFileError(f"{source}: estimator.name must be a string")
    dp = est.get("display_params")
    if dp is not None and not (isinstance(dp, list) and all(isinstance(k, str) for k in dp)):
        raise ModelFileError(f"{source}: estimator.display_params must be a list of strings")
    return _need(est, "params", dict, f"{source}: estimator")


def _check_privacy_and_schema(d: dict, source: str) -> tuple[dict, dict]:
    """The ``privacy`` and ``schema`` blocks' types (and ``extra``'s), the input features' cap."""
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
    return privacy, schema


def load_model(path) -> "LoadedModel":
    """Read a file written by :func:`save_model` (or a bare RuleList / Tree JSON); one clear
    :class:`ModelFileError` for anything that is not a valid model file (docs/privacy.md,
    "Model files are untrusted input")."""
    return model_from_dict(read_model_json(path), source=str(path), _values_checked=True)
