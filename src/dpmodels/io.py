"""Save a fitted model with its guarantee, load it back as a light predictor.

:func:`save_model` writes one JSON file holding everything a reader needs to use the model and
to know what it promises:

``format``, ``format_version``, ``dpmodels_version``
    ``"dpmodels.model"``, an integer (this module reads versions up to :data:`FORMAT_VERSION`).
``estimator``
    ``class`` (import path), ``name`` and ``params`` (JSON-safe). ``random_state`` is **never
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
    ``to_dict()``: its cut points are part of the released model).
``model``
    :meth:`RuleList.to_dict` or :meth:`Tree.to_dict` (raw noisy counts, exact thresholds).
``extra``
    Learner-specific public facts (an optimality certificate, PrivaTree's budget shares).

:func:`load_model` validates the file (version, required keys, types) and raises
:class:`ModelFileError` (a ``ValueError``) with one line saying what is wrong. It returns a
:class:`LoadedModel` with ``predict`` / ``predict_proba`` / ``apply`` on **raw** frames (through
the saved preprocessing), ``get_rules()``, ``privacy_ledger_`` and printing. Predictions are
identical to the estimator's (``tests/test_io.py`` checks every learner).
"""

from __future__ import annotations

import importlib
import json
import math
import numbers
import os
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd

from ._format import learner_title, model_header, privacy_status, py_scalar
from ._paths import check_output_path
from .privacy.ledger import PrivacyLedger

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
    "check_output_path",
]

FORMAT = "dpmodels.model"
FORMAT_VERSION = 1
# model kinds a file may hold, each read by one class's from_dict (never a class named by the file):
# rule_list -> dpmodels.rulelist.model.RuleList, tree -> dpmodels.tree.model.Tree,
# regression_tree -> dpmodels.tree.regression_model.RegressionTree (PrivaTreeRegressor)
MODEL_KINDS = ("rule_list", "tree", "regression_tree")


class ModelFileError(ValueError):
    """A model file that cannot be read: not JSON, not a dpmodels model, or malformed."""


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
    for attr in ("rule_list_", "tree_"):
        if hasattr(est, attr):
            return getattr(est, attr)
    raise TypeError(
        f"cannot export {type(est).__name__}: expected a fitted rule-list or tree estimator of "
        "dpmodels (or a Pipeline ending with one)"
    )


def _combined_ledger(ledgers):
    """One ledger for the steps of a pipeline: the shared one when every step holds the same
    ledger object, else all rows under the summed budgets (sequential composition: every step
    read the same records)."""
    uniq = []
    for led in ledgers:
        if led is not None and all(led is not u for u in uniq):
            uniq.append(led)
    if not uniq:
        return None
    if len(uniq) == 1:
        return uniq[0]
    out = PrivacyLedger(sum(u.epsilon for u in uniq), sum(u.delta for u in uniq))
    out.rows = [r for u in uniq for r in u.rows]
    return out


def _bounds_dict(est, model):
    """Declared bounds as ``{feature: [lo, hi]}`` (public), or None when none were declared."""
    try:
        b = est.get_params(deep=False).get("bounds")
    except AttributeError:
        return None
    from .tree.model import Tree

    if b is None or not isinstance(model, Tree):
        return None
    from .validation import resolve_bounds

    num = [j for j in range(model.n_features) if not model.categorical[j]]
    try:
        lo, hi = resolve_bounds(b, model.feature_names, num)
    except ValueError:  # bounds that name only some features (DPGDF drops numerical ones)
        return json_safe(b) if isinstance(b, dict) else None
    return {model.feature_names[j]: [float(a), float(c)] for j, a, c in zip(num, lo, hi)}


def _preprocessor_dict(step) -> dict:
    to_dict = getattr(step, "to_dict", None)
    cls = type(step)
    if to_dict is None or not cls.__module__.startswith("dpmodels."):
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
    bare = isinstance(est, (RuleList, Tree))
    params = {} if bare else {k: json_safe(v) for k, v in est.get_params(deep=False).items()}
    seeded = params.get("random_state") is not None
    if "random_state" in params:
        params["random_state"] = None  # never exported: see the module docstring
    if "accountant" in params:  # a handle to a budget, not a parameter of the model: the
        params["accountant"] = None  # pipeline's budget and ledger are in "privacy"
    ledgers = [getattr(s, "privacy_ledger_", None) for s in pre] + [getattr(est, "privacy_ledger_", None)]
    ledger = _combined_ledger(ledgers)
    private_learner = getattr(est, "privacy_ledger_", None) is not None
    if ledger is None:
        verdict = ["NOT PRIVATE: a non-private learner (no privacy ledger)."] if not bare else []
        privacy = {"private_learner": False if not bare else None, "epsilon": None, "delta": None,
                   "epsilon_spent": None, "delta_spent": None, "is_private": False,
                   "verdict": verdict, "noise_seeded": False, "ledger": None}
    else:
        verdict = ledger.verdict()
        if not private_learner:  # e.g. a Binarizer's ledger before a non-private learner
            verdict = ["NOT PRIVATE: a non-private learner (the ledger covers the preprocessing "
                       "only)."] + verdict
        privacy = {"private_learner": private_learner, "epsilon": ledger.epsilon, "delta": ledger.delta,
                   "epsilon_spent": ledger.epsilon_spent, "delta_spent": ledger.delta_spent,
                   "is_private": bool(private_learner and ledger.is_private and not seeded),
                   "verdict": verdict, "noise_seeded": bool(seeded), "ledger": ledger.to_dict()}
        if seeded:
            privacy["verdict"] = privacy["verdict"] + [
                "NOT PRIVATE against whoever knows the seed: the noise was drawn from a seeded "
                "random_state (the seed is not written to this file)."
            ]
    preprocessing = [_preprocessor_dict(s) for s in pre]
    if pre and hasattr(pre[0], "feature_names_in_"):
        input_features = [str(c) for c in pre[0].feature_names_in_]
    else:
        input_features = [str(f) for f in model.feature_names]
    from .tree.regression_model import RegressionTree

    if isinstance(model, Tree):
        categories = {model.feature_names[j]: json_safe(list(v)) for j, v in model.categories.items()}
        kind = "regression_tree" if isinstance(model, RegressionTree) else "tree"
    else:
        categories = {}
        kind = "rule_list"
    extra = {}
    if getattr(est, "certificate_", None) is not None:
        extra["certificate"] = json_safe(est.certificate_.to_dict())
    for attr in ("budget_", "n_estimate_", "optimal_", "train_errors_"):
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
            "classes": None if kind == "regression_tree" else [py_scalar(c) for c in model.classes],
            "input_features": input_features,
            "categories": categories,
            "bounds": None if bare else _bounds_dict(est, model),
            "n_public": params.get("n_public"),
            "preprocessing": preprocessing,
        },
        "model": model.to_dict(),
        "extra": extra,
    }


def save_model(obj, path, *, indent: int = 2) -> Path:
    """Write :func:`model_to_dict` of ``obj`` to ``path`` as JSON (atomically: a temporary file in
    the same directory, then a rename, so a failure never leaves half a file). Returns the path."""
    p = check_output_path(path)
    text = json.dumps(model_to_dict(obj), indent=indent, allow_nan=False, ensure_ascii=False)
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


def _load_preprocessor(spec, k: int):
    where = f"schema.preprocessing[{k}]"
    cls_path = _need(spec, "class", str, where)
    state = _need(spec, "state", dict, where)
    mod, _, name = cls_path.rpartition(".")
    if not mod.startswith("dpmodels."):
        raise ModelFileError(f"{where}: class {cls_path!r} is not a dpmodels preprocessor")
    try:
        cls = getattr(importlib.import_module(mod), name)
    except (ImportError, AttributeError):
        raise ModelFileError(f"{where}: class {cls_path!r} does not exist in this dpmodels") from None
    if not hasattr(cls, "from_dict"):
        raise ModelFileError(f"{where}: {cls_path!r} cannot be loaded (no from_dict)")
    try:
        return cls.from_dict(state)
    except (KeyError, TypeError, ValueError, IndexError) as exc:
        raise ModelFileError(f"{where}: malformed {name} state ({exc})") from None


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
    return {"format": FORMAT, "format_version": FORMAT_VERSION, "kind": kind,
            "estimator": {"class": "", "name": "RuleList" if kind == "rule_list" else "Tree", "params": {}},
            "privacy": {"private_learner": None, "ledger": None, "is_private": False,
                        "verdict": ["privacy unknown: a bare model file (no ledger)"]},
            "schema": {"classes": None if kind == "regression_tree" else d.get("classes"), "preprocessing": []},
            "model": d, "extra": {}}


def model_from_dict(d, *, source: str = "model") -> "LoadedModel":
    """Validate a model document and return a :class:`LoadedModel` (errors: :class:`ModelFileError`)."""
    if not isinstance(d, dict):
        raise ModelFileError(f"{source}: not a dpmodels model (the JSON is a {type(d).__name__}, not an object)")
    if d.get("format") != FORMAT:
        legacy = _legacy(d)
        if legacy is None:
            raise ModelFileError(f"{source}: not a dpmodels model file (format {d.get('format')!r})")
        d = legacy
    version = _need(d, "format_version", int, source)
    if version < 1 or version > FORMAT_VERSION:
        raise ModelFileError(
            f"{source}: format version {version} is not readable by this dpmodels (reads 1 to "
            f"{FORMAT_VERSION}); upgrade dpmodels"
        )
    kind = _need(d, "kind", str, source)
    if kind not in MODEL_KINDS:
        raise ModelFileError(f"{source}: unknown model kind {kind!r} ({', '.join(MODEL_KINDS)})")
    est = _need(d, "estimator", dict, source)
    _need(est, "class", str, f"{source}: estimator")
    params = _need(est, "params", dict, f"{source}: estimator")
    privacy = _need(d, "privacy", dict, source)
    schema = _need(d, "schema", dict, source)
    mdict = _need(d, "model", dict, source)
    from .rulelist.model import RuleList
    from .tree.model import Tree
    from .tree.regression_model import RegressionTree

    try:
        model = {"rule_list": RuleList, "tree": Tree, "regression_tree": RegressionTree}[kind].from_dict(mdict)
    except (KeyError, TypeError, ValueError, IndexError) as exc:
        what = exc.args[0] if isinstance(exc, KeyError) and exc.args else exc
        raise ModelFileError(f"{source}: malformed {kind.replace('_', ' ')} ({what!s})") from None
    led = privacy.get("ledger")
    ledger = None
    if led is not None:
        if not isinstance(led, dict):
            raise ModelFileError(f"{source}: privacy.ledger must be an object")
        try:
            ledger = PrivacyLedger.from_dict(led)
        except (KeyError, TypeError, ValueError) as exc:
            raise ModelFileError(f"{source}: malformed privacy ledger ({exc})") from None
    pre_specs = schema.get("preprocessing") or []
    if not isinstance(pre_specs, list):
        raise ModelFileError(f"{source}: schema.preprocessing must be a list")
    pre = [_load_preprocessor(s, k) for k, s in enumerate(pre_specs)]
    classes = schema.get("classes")
    if classes is not None and [py_scalar(c) for c in model.classes] != list(classes):
        raise ModelFileError(f"{source}: schema.classes {classes!r} disagree with the model's")
    return LoadedModel(d, model, ledger, pre, params)


def load_model(path) -> "LoadedModel":
    """Read a file written by :func:`save_model` (or a bare RuleList / Tree JSON); one clear
    :class:`ModelFileError` for anything that is not a valid model file."""
    p = Path(path)
    if p.is_dir():
        raise ModelFileError(f"{str(p)!r} is a directory, not a model file")
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ModelFileError(f"model file {str(p)!r} does not exist") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ModelFileError(f"cannot read model file {str(p)!r}: {exc}") from None
    try:
        d = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ModelFileError(
            f"{str(p)!r} is not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})"
        ) from None
    return model_from_dict(d, source=str(p))


# ---------------------------------------------------------------------------- the predictor
class LoadedModel:
    """A saved model as a predictor on raw data, with its ledger and its public schema.

    Attributes: ``model_`` (:class:`RuleList` or :class:`Tree`), ``kind``, ``classes_``,
    ``feature_names_in_`` (the columns a raw frame must hold), ``privacy_ledger_`` (None for a
    non-private learner), ``preprocessing_`` (e.g. the Binarizer), ``estimator_class``,
    ``params``, ``schema``, ``extra``.
    """

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
        self.classes_ = None if self.kind == "regression_tree" else np.asarray(model.classes)
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
        """Rule index (rule lists; ``len(rules)`` = default) or leaf id (trees) of each row."""
        return self.model_.apply(self._encoded(X))

    def predict(self, X) -> np.ndarray:
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
        if self.kind == "regression_tree":
            raise AttributeError("a regression model has no predict_proba")
        idx = self.apply(X)
        table = self.model_.leaf_proba() if self.kind == "tree" else self.model_.proba_table()
        return table[idx]

    # ------------------------------------------------------------------ read
    def get_rules(self, **kw) -> pd.DataFrame:
        return self.model_.get_rules(**kw)

    def header(self) -> list[str]:
        params = self.params
        keys = self._doc["estimator"].get("display_params") or []
        title = learner_title(self.estimator_name, params, keys) if self.estimator_class else "model"
        pl = self.privacy.get("private_learner")
        status = privacy_status(self.privacy_ledger_, private_learner=bool(pl),
                                seeded=bool(self.privacy.get("noise_seeded")))
        if pl is None and self.privacy_ledger_ is None:
            status = "privacy unknown (a bare model file: no ledger)"
        elif pl is False:  # a preprocessing ledger (e.g. a Binarizer's) does not make it private
            status = "not private (no DP guarantee)"
        notes = []
        if self.preprocessing_:
            notes.append("input: " + ", ".join(type(s).__name__ for s in self.preprocessing_)
                         + f" of the columns {', '.join(self.feature_names_in_)}")
        if self.kind == "regression_tree":
            from .tree.regression_model import regression_header

            return regression_header(title, status=status, n_total=self.model_.n_total, noisy=self.model_.counts_are_noisy,
                                     label_bounds=self.model_.label_bounds, notes=notes)
        return model_header(title, status=status, n_total=self.model_.n_total,
                            noisy=self.model_.counts_are_noisy, classes=list(self.model_.classes),
                            notes=notes)

    def to_text(self, **kw) -> str:
        return self.model_.to_text(header=self.header(), **kw)

    def __str__(self) -> str:
        return self.to_text()

    def __repr__(self) -> str:
        return f"<LoadedModel {self.estimator_name} ({self.kind}), classes={list(self.model_.classes)}>"

    def to_dict(self) -> dict:
        return json.loads(json.dumps(self._doc))

    def save(self, path) -> Path:
        return save_model(self, path)
