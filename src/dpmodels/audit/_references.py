"""Reference (shadow) models for membership inference: who trains them, on what, with what noise.

The attacker knows the learning algorithm and its hyper-parameters (the standard threat model of
Shokri et al. 2017 and Carlini et al. 2022): ``learner`` is an *unfitted* estimator (cloned for
every fit with :func:`sklearn.base.clone`), or a callable ``learner(seed) -> unfitted estimator``;
by default the target itself is cloned (same class, same parameters, no fitted state).

**Fresh randomness.** A DP learner's output is random; reference models must be independent draws
of it. Every reference fit therefore gets its own ``random_state`` (when the estimator has that
parameter), drawn from the attack's ``random_state``; a seed fixed on ``learner`` would otherwise
give every reference the same noise (and the same as the target, if the target was seeded).

**Inclusion design.** The references are trained on subsets of a *pool*. Each pool record is put in
exactly ``round(q · R)`` of the R references, q = size / |pool| (the column-balanced design of
Carlini et al.'s experiments: every record has the same number of IN and OUT fits, and each
reference trains on ≈ ``size`` records).
"""

from __future__ import annotations

import os
import warnings

import numpy as np
import pandas as pd
from joblib import Parallel, delayed
from sklearn.base import clone

from ..privacy import PrivacyLeakWarning

__all__ = [
    "as_model",
    "learner_factory",
    "take",
    "concat",
    "inclusion_matrix",
    "aligned_proba",
    "true_class_proba",
    "label_index",
    "fit_references",
]


def as_model(model):
    """The audited model: a saved model file's path is loaded (:func:`dpmodels.io.load_model`,
    a :class:`~dpmodels.io.LoadedModel`); anything else is returned as it is."""
    if isinstance(model, (str, os.PathLike)):
        from ..io import load_model

        return load_model(model)
    return model


def learner_factory(learner, model):
    """``seed -> unfitted estimator`` from an estimator, a callable, or None (clone the target;
    for a :class:`~dpmodels.io.LoadedModel`, the learner its file records:
    :meth:`~dpmodels.io.LoadedModel.unfitted_estimator`)."""
    from ..io import LoadedModel

    if learner is None and isinstance(model, LoadedModel):
        learner = model.unfitted_estimator()
    if learner is None:
        if not hasattr(model, "get_params"):
            raise TypeError(
                f"cannot clone the target {type(model).__name__} (no get_params): pass learner= an "
                "unfitted estimator or a callable seed -> estimator"
            )
        learner = model
    if hasattr(learner, "fit") and hasattr(learner, "get_params"):
        proto = learner

        def make(seed):
            est = clone(proto)
            # every random_state, the steps' of a Pipeline included: each reference is a fresh draw
            params = est.get_params(deep=True)
            seeds = {k: int(seed) for k in params if k == "random_state" or k.endswith("__random_state")}
            # a reference model is the attacker's, not a release of the target's data: it spends
            # nothing from the target's accountant (clone would keep the same accountant object)
            seeds.update({k: None for k in params if k == "accountant" or k.endswith("__accountant")})
            if seeds:
                est.set_params(**seeds)
            return est

        return make
    if callable(learner):
        return learner
    raise TypeError(f"learner must be an unfitted estimator or a callable seed -> estimator, got {learner!r}")


def take(X, idx):
    """Rows ``idx`` of a DataFrame, Series or array."""
    if isinstance(X, (pd.DataFrame, pd.Series)):
        return X.iloc[idx]
    return np.asarray(X)[idx]


def concat(parts):
    """Row-wise concatenation preserving DataFrames (index reset) or arrays."""
    parts = [p for p in parts if p is not None]
    frames = [p for p in parts if isinstance(p, pd.DataFrame)]
    if frames:  # arrays join a DataFrame under its column names
        cols = frames[0].columns
        parts = [p if isinstance(p, pd.DataFrame) else pd.DataFrame(np.asarray(p), columns=cols) for p in parts]
        return pd.concat(parts, ignore_index=True)
    return np.concatenate([np.asarray(p) for p in parts])


def n_rows(X) -> int:
    return int(np.shape(X)[0])


def inclusion_matrix(n_pool, n_models, size, rng) -> np.ndarray:
    """Boolean (n_models, n_pool): column-balanced random inclusion (module docstring)."""
    if n_models == 1:
        keep = np.zeros((1, n_pool), dtype=bool)
        keep[0, rng.choice(n_pool, size=size, replace=False)] = True
        return keep
    k = int(round(n_models * size / n_pool))
    k = min(max(k, 1), n_models - 1)
    order = np.argsort(rng.random((n_models, n_pool)), axis=0)
    return order < k


def aligned_proba(model, X, classes) -> np.ndarray:
    """``predict_proba`` with columns in the order of ``classes`` (0 for classes the model lacks)."""
    p = np.asarray(model.predict_proba(X), dtype=float)
    mc = list(np.asarray(getattr(model, "classes_", classes)).tolist())
    cl = list(np.asarray(classes).tolist())
    if mc == cl:
        return p
    out = np.zeros((p.shape[0], len(cl)))
    for j, c in enumerate(mc):
        if c in cl:
            out[:, cl.index(c)] = p[:, j]
    return out


def label_index(y, classes) -> np.ndarray:
    """Column of each label in ``classes`` (−1 for labels outside it)."""
    return pd.Index(list(np.asarray(classes).tolist())).get_indexer(list(np.asarray(y).ravel().tolist()))


def true_class_proba(proba, y, classes) -> np.ndarray:
    """P(true label) from aligned probabilities (..., n, n_classes) -> (..., n); 0 for unknown labels."""
    idx = label_index(y, classes)
    cols = np.broadcast_to(np.maximum(idx, 0), proba.shape[:-1])
    p = np.take_along_axis(proba, cols[..., None], axis=-1)[..., 0]
    return np.where(idx >= 0, p, 0.0)


def _fit_one(make, seed, X_pool, y_pool, rows, X_eval, classes):
    est = make(seed)
    with warnings.catch_warnings():
        # the attacker's own fits: a leak warning about the reference data is not the target's
        warnings.simplefilter("ignore", PrivacyLeakWarning)
        est.fit(take(X_pool, rows), np.asarray(y_pool)[rows])
    return aligned_proba(est, X_eval, classes)


def fit_references(make, X_pool, y_pool, keep, X_eval, classes, rng, n_jobs=None) -> np.ndarray:
    """Fit one reference per row of ``keep``; return their aligned probabilities on ``X_eval``.

    Shape (n_models, n_eval, n_classes). Fits run in parallel with joblib (``n_jobs``).
    """
    from ..guards import progress

    seeds = rng.integers(0, 2**31 - 1, size=keep.shape[0])
    jobs = progress(zip(seeds, keep), total=keep.shape[0], desc="audit: reference models")  # public: counts only
    out = Parallel(n_jobs=n_jobs)(
        delayed(_fit_one)(make, int(s), X_pool, y_pool, np.flatnonzero(k), X_eval, classes) for s, k in jobs
    )
    return np.stack(out)
