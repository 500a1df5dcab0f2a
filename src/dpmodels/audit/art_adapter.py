"""Adapter to ART's black-box membership inference (the tool paper 000 used; optional extra).

``pip install dpmodels[attacks]`` installs the Adversarial Robustness Toolbox (ART) and
``packaging``, which ART 1.20.1 imports without declaring it. ART's attack is
``MembershipInferenceBlackBox(..., input_type="prediction", attack_model_type="rf")`` (the default
"nn" model needs torch); the target is wrapped by
``art.estimators.classification.scikitlearn.ScikitlearnClassifier(model=...)`` (ART's factory
function rejects classes that are not scikit-learn's own).

:func:`art_membership_inference` runs that attack with the *same* split as our
``membership_inference(..., attack="black-box")`` under the same ``random_state``, and passes the
target's probability vectors (aligned to ``classes_``) to ART, so the two differ only in the
attack model's implementation details (ART standard-scales the features; both use a 100-tree
random forest on output vector + one-hot label).
"""

from __future__ import annotations

import time

import numpy as np

from .._optional import require
from ..privacy.samplers import check_random_state
from . import _references as refs
from .membership import MembershipInferenceResult, evaluate_scores, split_known_membership

__all__ = ["art_membership_inference"]


def _import_art():
    mi = require("art", "art_membership_inference")
    from art.estimators.classification.scikitlearn import ScikitlearnClassifier

    return mi.MembershipInferenceBlackBox, ScikitlearnClassifier


def art_membership_inference(
    model, X_in, y_in, X_out, y_out, *, attack_train_fraction=0.5, random_state=None
) -> MembershipInferenceResult:
    """ART's ``MembershipInferenceBlackBox`` (random forest, prediction input) as a result object.

    The attack model trains on ``attack_train_fraction`` of the members and of the non-members
    (paper 000's pipeline) and scores the rest.
    """
    MIBB, SKC = _import_art()
    model = refs.as_model(model)  # a saved model file's path: the loaded predictor
    classes = np.asarray(model.classes_)
    rng = check_random_state(random_state)
    n_in, n_out = refs.n_rows(X_in), refs.n_rows(X_out)
    train = split_known_membership(n_in, n_out, float(attack_train_fraction), rng)
    seed = int(rng.integers(2**31 - 1))  # drawn in the same order as attack="black-box"
    X_aud = refs.concat([X_in, X_out])
    y_aud = np.concatenate([np.asarray(y_in).ravel(), np.asarray(y_out).ravel()])
    member = np.r_[np.ones(n_in, bool), np.zeros(n_out, bool)]
    t0 = time.perf_counter()
    proba = refs.aligned_proba(model, X_aud, classes).astype(np.float32)
    yi = refs.label_index(y_aud, classes)
    if (yi < 0).any():
        raise ValueError("labels outside the target's classes_")
    est = SKC(model=model, clip_values=None)
    attack = MIBB(est, input_type="prediction", attack_model_type="rf")
    attack.attack_model.set_params(random_state=seed)
    tr_in, tr_out = train & member, train & ~member
    attack.fit(x=None, y=yi[tr_in], test_x=None, test_y=yi[tr_out], pred=proba[tr_in], test_pred=proba[tr_out])
    ev = ~train
    scores = np.asarray(attack.infer(None, yi[ev], pred=proba[ev], probabilities=True), dtype=float).ravel()
    params = {"attack": "art-black-box", "attack_train_fraction": float(attack_train_fraction)}
    return evaluate_scores(scores, member[ev], "art-black-box", np.flatnonzero(ev), params, time.perf_counter() - t0)
