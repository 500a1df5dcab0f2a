"""Export: the JSON document of a fitted estimator (or pipeline, bare model, loaded model) and
its atomic write."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

from .._format import py_scalar
from .._paths import check_output_path
from ..catalog import class_path, is_bare, kind_of
from ..privacy.verdict import combined_ledger, verdict_from
from .format import FORMAT, FORMAT_VERSION, estimator_classes, json_safe, preprocessor_classes
from .schema import _bounds_dict, _declaration_sources, _merge_schema


def _is_loaded(obj) -> bool:
    """A :class:`~dpmodels.io.loaded.LoadedModel` (it marks itself, as for the privacy layer: the
    loaded model saves itself through this module, which therefore does not import it)."""
    return getattr(type(obj), "_dpmodels_loaded_model", False) is True


def _final_estimator(obj):
    """``(preprocessing steps, final estimator)`` of an estimator or a scikit-learn Pipeline."""
    steps = getattr(obj, "steps", None)
    if steps is not None:
        est = steps[-1][1]
        pre = [s for _, s in steps[:-1] if s is not None and s != "passthrough"]
        return pre, est
    return [], obj


def _model_of(est):
    from ..rulelist.model import RuleList
    from ..tree.model import Tree

    if _is_loaded(est):
        return est.model_
    if isinstance(est, (RuleList, Tree)):
        return est
    from ..gam.model import AdditiveModel

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


def _seeded(step) -> bool:
    """Was this step given a seed (its ``random_state`` parameter is not None)?"""
    try:
        return step.get_params(deep=False).get("random_state") is not None
    except AttributeError:
        return getattr(step, "random_state", None) is not None


def _preprocessor_dict(step) -> dict:
    to_dict = getattr(step, "to_dict", None)
    cls = type(step)
    if to_dict is None or class_path(cls) not in preprocessor_classes():
        raise TypeError(
            f"cannot export the pipeline step {cls.__name__}: only dpmodels preprocessors with "
            "to_dict() (e.g. dpmodels.data.Binarizer) can be saved with a model"
        )
    return {"class": f"{cls.__module__}.{cls.__qualname__}", "state": json_safe(to_dict())}


def model_to_dict(obj) -> dict:
    """The JSON document of a fitted estimator, a Pipeline (dpmodels preprocessors then a
    rule-list or tree estimator), a bare RuleList / Tree, or a :class:`LoadedModel`."""
    if _is_loaded(obj):
        return obj.to_dict()
    pre, est = _final_estimator(obj)
    model = _model_of(est)
    if class_path(type(est)) not in estimator_classes():
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
    kind = kind_of(class_path(type(est)))
    assert kind is not None  # every class of the allow-list has its kind in the table
    bare = is_bare(class_path(type(est)))
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
    additive_regressor = kind == "additive" and not model.is_classifier
    if kind == "rule_list":
        categories = {}
    else:
        categories = {model.feature_names[j]: json_safe(list(v)) for j, v in model.categories.items()}
    sources = _declaration_sources(est, model, ledger, bare, kind, categories, params)
    extra = {}
    if getattr(est, "certificate_", None) is not None:
        extra["certificate"] = json_safe(est.certificate_.to_dict())
    for attr in ("budget_", "n_estimate_", "optimal_", "train_errors_", "n_rounds_"):
        if hasattr(est, attr):
            extra[attr.rstrip("_")] = json_safe(getattr(est, attr))
    from .. import __version__

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
