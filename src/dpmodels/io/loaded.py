"""The predictor a model file loads as: predictions on raw frames through the saved
preprocessing, the ledger, the public schema, printing, and the recorded learner."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from .._format import learner_title, model_header, privacy_status, py_scalar
from ..catalog import is_bare
from .format import ModelFileError, _one_line, estimator_classes
from .write import save_model


def _verdict_of(obj):
    from ..privacy.verdict import verdict

    return verdict(obj)


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
        if cls is None or is_bare(self.estimator_class):
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
        from .._format import declared_integer_features

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
            from ..tree.regression_model import regression_header

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
