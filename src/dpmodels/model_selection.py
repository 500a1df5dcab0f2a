"""Choosing ε, depth, length... on private data without spending privacy twice.

Tuning on private data is a release: fold scores and ``best_params_`` of a grid search are exact
functions of the data, and shuffled folds are not neighbour-preserving (docs/privacy.md,
"Pipelines"). :class:`PrivateSearch` makes the whole search one proven (ε, δ) release:

* **one trial** draws a configuration uniformly from ``candidates`` (public randomness), assigns
  each record to a training or a held-out part by its own coin (a per-record rule, so neighbours
  stay neighbours in each part), fits a clone of the DP estimator on the training part at ε_t, and
  scores it on the held-out part by a DP accuracy (noisy counts of right and wrong predictions at
  ε_t). The parts are disjoint and the score sees the training part only through the released
  model, so one trial is ε_t-DP by parallel composition;
* **the search** (``tuner="liu-talwar"``, the default) repeats trials and stops after each with
  probability ``gamma``, returning the best-scoring configuration: Liu & Talwar's random
  stopping, 3·ε_t-DP (:mod:`dpmodels.privacy.private_selection`), with ε_t = ε_s/3 for a
  selection budget ε_s. A cap on the number of trials adds δ = (1 + e^{ε_s})(1 − γ)^T, chosen to
  fit ``delta``; ``delta=0`` means no cap. With ``tuner="rdp"`` the number of trials is drawn
  first from a truncated negative binomial law TNB(``shape``, γ) (Papernot & Steinke 2022) and
  :func:`~dpmodels.privacy.private_selection.tnb_trial_epsilon` solves their bound for the
  largest ε_t that fits (ε_s, δ): ε_t = ε_s/(2 + η) for pure-DP trials (η = ``shape``; 0, the
  logarithmic law, by default: ε_s/2 per trial instead of ε_s/3), half of δ for the cap.
  Only the best configuration and its noisy score are released: the other trials' scores and
  the number of trials are not covered by the theorems and are not kept.
* **the model**: with ``refit_share`` r > 0 (default 0.8), ε_s = (1 − r)·ε and the chosen
  configuration is refitted on every record at r·ε (sequential composition: ε in total);
  with r = 0 the best trial's model (trained on its training part) is returned and ε_s = ε.

The model's ledger is the search's (``privacy_ledger_``: the selection row, then the refit's
rows), so a saved model states the total.

Helper :func:`accuracy_vs_epsilon` draws accuracy against ε on a *public* proxy dataset (bundled or
yours), which spends nothing on the private data.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, ClassifierMixin, clone

from ._params import HasMethods, Interval, Real, StrOptions, validate_params
from .privacy import PrivacyLedger, check_random_state
from .privacy.ledger import check_delta, check_epsilon
from .privacy.mechanisms import noisy_histogram
from .privacy.private_selection import (
    random_stopping_selection,
    runs_cap,
    tnb_gamma,
    tnb_runs_cap,
    tnb_selection,
    tnb_tail,
    tnb_trial_epsilon,
)

__all__ = ["PrivateSearch", "accuracy_vs_epsilon"]


def _rows(X, mask):
    return X[mask] if isinstance(X, (pd.DataFrame, pd.Series)) else np.asarray(X)[mask]


class PrivateSearch(ClassifierMixin, BaseEstimator):
    """Private hyper-parameter selection with one proven (ε, δ) for the whole search.

    Parameters
    ----------
    estimator : a dpmodels DP estimator taking ``epsilon`` and ``random_state`` (its public inputs,
        e.g. ``classes``, ``bounds``, ``categories``, must be declared on it).
    candidates : list of dicts of parameters to try (e.g. ``[{"max_depth": 2}, {"max_depth": 4}]``).
    epsilon : the whole search's ε; the selection gets ε_s = (1 − refit_share)·ε: ε_s/3 per trial with
        Liu & Talwar (Theorem 3.4), ε_s/(2 + shape) with ``tuner="rdp"`` (docs/privacy.md, (P4), (P7)).
    delta : δ budget for capping the number of trials (0: no cap); with ``tuner="rdp"`` half of it
        for the cap, the rest for the RDP-to-(ε, δ) conversion when that beats the pure bound.
    gamma : stop probability after each trial (Liu–Talwar) or the γ of TNB(shape, γ) (``"rdp"``);
        default: as many trials as candidates on average (1/len(candidates) for Liu–Talwar).
    tuner : ``"liu-talwar"`` (random stopping, 3·ε_t) or ``"rdp"`` (Papernot & Steinke's truncated
        negative binomial, (2 + shape)·ε_t for pure-DP trials).
    shape : η > −1 of the truncated negative binomial (``tuner="rdp"`` only; 1 is the geometric law).
    holdout : probability that a record is held out for scoring in a trial.
    refit_share : share of ε for refitting the chosen configuration on every record (0: keep the
        best trial's model).
    random_state : None (OS entropy: private) or a seed (reproducible research, not private).
    """

    def __init__(
        self,
        estimator,
        candidates,
        *,
        epsilon=1.0,
        delta=1e-6,
        gamma=None,
        holdout=0.3,
        refit_share=0.8,
        tuner="liu-talwar",
        shape=0.0,
        random_state=None,
    ):
        self.estimator = estimator
        self.candidates = candidates
        self.epsilon = epsilon
        self.delta = delta
        self.gamma = gamma
        self.holdout = holdout
        self.refit_share = refit_share
        self.tuner = tuner
        self.shape = shape
        self.random_state = random_state

    _parameter_constraints: dict = {
        "estimator": [HasMethods(["fit", "get_params", "set_params"])],
        "candidates": [list, tuple],
        "epsilon": "no_validation",  # check_epsilon (dpmodels.privacy)
        "delta": "no_validation",  # check_delta
        "gamma": [None, Interval(Real, 0, 1, closed="right")],
        "holdout": [Interval(Real, 0, 1, closed="neither")],
        "refit_share": [Interval(Real, 0, 1, closed="left")],
        "tuner": [StrOptions({"liu-talwar", "rdp"})],
        "shape": [Interval(Real, -1, None, closed="neither")],
        "random_state": "no_validation",  # samplers.check_random_state
    }

    def _check_params(self):
        validate_params(self)
        eps = check_epsilon(self.epsilon)
        delta = check_delta(self.delta)
        cands = list(self.candidates)
        if not cands or not all(isinstance(c, dict) for c in cands):
            raise ValueError("candidates must be a non-empty list of parameter dicts")
        params = self.estimator.get_params(deep=False)
        for key in ("epsilon", "random_state"):
            if key not in params:
                raise ValueError(
                    f"estimator must take `{key}` (a dpmodels DP estimator), got {type(self.estimator).__name__}"
                )
        for c in cands:
            bad = [k for k in c if k not in params]
            if bad:
                raise ValueError(f"candidate {c!r}: {bad[0]!r} is not a parameter of {type(self.estimator).__name__}")
            if "epsilon" in c or "random_state" in c:
                raise ValueError("candidates may not set epsilon or random_state: the search decides them")
            clone(self.estimator).set_params(**c)
        if self.tuner == "rdp":
            if self.gamma is None:
                gamma = tnb_gamma(self.shape, len(cands)) if len(cands) > 1 else 0.5
            elif self.gamma >= 1.0:
                raise ValueError(f"gamma must be in (0, 1) for tuner='rdp', got {self.gamma!r}")
            else:
                gamma = self.gamma
        else:
            gamma = 1.0 / len(cands) if self.gamma is None else self.gamma
        return eps, delta, cands, float(gamma)

    def fit(self, X, y, sample_weight=None):
        eps, delta, cands, gamma = self._check_params()
        if sample_weight is not None and not np.all(np.asarray(sample_weight) == 1):
            raise ValueError("PrivateSearch takes no sample weights: a record counted twice costs twice the ε")
        # every candidate's own checks (they read no data) before anything is spent
        for c in cands:
            est = clone(self.estimator).set_params(**c)
            for hook in ("_resolve_params", "_check_params", "_check_common_params"):
                if hasattr(est, hook):
                    getattr(est, hook)()
                    break
        eps_refit = float(self.refit_share) * eps
        eps_sel = eps - eps_refit
        if self.tuner == "rdp":
            # the estimator splits δ: half for the cap on trials, the rest for the bound's conversion
            eta = float(self.shape)
            cap = tnb_runs_cap(eta, gamma, eps_sel, delta / 2.0)
            eps_t = tnb_trial_epsilon(eps_sel, delta, eta, gamma, cap)
        else:
            eps_t = eps_sel / 3.0
            cap = runs_cap(eps_t, gamma, delta)
        rng = check_random_state(self.random_state)
        ledger = PrivacyLedger(eps, delta)
        y = pd.Series(y) if not isinstance(y, pd.Series) else y

        def trial(i):
            params = cands[int(rng.integers(len(cands)))]
            held = rng.random(len(y)) < self.holdout  # one coin per record: a per-record rule
            # OS entropy unless the search itself is seeded (reproducible research, not private)
            seed = None if self.random_state is None else int(rng.integers(2**63 - 1))
            est = clone(self.estimator).set_params(**params, epsilon=eps_t, random_state=seed)
            est.fit(_rows(X, ~held), _rows(y, ~held))
            Xte, yte = _rows(X, held), np.asarray(_rows(y, held), dtype=object)
            right = int(np.sum(np.asarray(est.predict(Xte), dtype=object) == yte)) if len(yte) else 0
            noisy = noisy_histogram(np.array([right, len(yte) - right]), eps_t, rng)
            r, w = (max(float(v), 0.0) for v in noisy)
            score = r / (r + w) if r + w > 0 else 0.0
            return score, (params, est)

        what = f"private selection among {len(cands)} configuration(s) of {type(self.estimator).__name__}"
        if self.tuner == "rdp":  # the run count is not released
            score, (params, est), _runs = tnb_selection(
                trial,
                eps_t,
                float(self.shape),
                gamma,
                rng,
                delta=delta - (0.0 if cap is None else (1.0 + math.exp(eps_sel)) * tnb_tail(cap, self.shape, gamma)),
                max_runs=cap,
                ledger=ledger,
                what=what,
            )
        else:
            score, (params, est), _runs = random_stopping_selection(
                trial, eps_t, gamma, rng, max_runs=cap, ledger=ledger, what=what
            )
        if eps_refit > 0:
            seed = None if self.random_state is None else int(rng.integers(2**63 - 1))
            est = clone(self.estimator).set_params(**params, epsilon=eps_refit, random_state=seed).fit(X, y)
            for row in est.privacy_ledger_.rows:  # the refit's releases, under the search's budget
                if row.composition == "leak":
                    ledger.record_leak(f"refit: {row.what}", row.note, warn=False)
                    continue
                ledger.spend(
                    f"refit: {row.what}",
                    row.mechanism,
                    row.epsilon,
                    row.delta,
                    sensitivity=row.sensitivity,
                    composition=row.composition,
                    parts=row.parts,
                    note=row.note,
                    guarantee=row.guarantee,
                )
        ledger.check()
        self.best_params_ = dict(params)
        self.best_score_ = float(score)  # a DP release (the chosen trial's noisy held-out accuracy)
        self.trial_epsilon_ = eps_t
        self.max_trials_ = cap
        self.best_estimator_ = est
        self.privacy_ledger_ = ledger
        est.privacy_ledger_ = ledger  # the model's guarantee is the search's (module docstring)
        self.classes_ = est.classes_
        return self

    def predict(self, X):
        return self.best_estimator_.predict(X)

    def predict_proba(self, X):
        return self.best_estimator_.predict_proba(X)


def accuracy_vs_epsilon(estimator, X, y, epsilons, *, runs=5, test_size=0.3, random_state=0, ax=None):
    """Accuracy against ε on a **public** proxy dataset (spends nothing on private data): for each ε,
    ``runs`` fits of a clone on a seeded split; returns a DataFrame (epsilon, run, accuracy) and, if
    matplotlib is available and ``ax`` is given (or ``ax=True``), draws mean ± sd."""
    from sklearn.model_selection import train_test_split

    rows = []
    for e in epsilons:
        check_epsilon(e)
        for r in range(int(runs)):
            Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=test_size, random_state=random_state + r)
            est = clone(estimator).set_params(epsilon=float(e), random_state=random_state + 1000 * r + 7)
            rows.append({"epsilon": float(e), "run": r, "accuracy": float(est.fit(Xtr, ytr).score(Xte, yte))})
    df = pd.DataFrame(rows)
    if ax is not None:
        import matplotlib.pyplot as plt

        if ax is True:
            _, ax = plt.subplots(figsize=(5, 3.5))
        g = df.groupby("epsilon")["accuracy"]
        m, s = g.mean(), g.std().fillna(0.0)
        ax.plot(m.index, m.values, marker="o", label=f"mean of {int(runs)} runs")
        ax.fill_between(m.index, m - s, m + s, alpha=0.2, label="± 1 sd")
        ax.set_xscale("log")
        ax.set_xlabel("ε")
        ax.set_ylabel("test accuracy (public proxy)")
        ax.legend()
    return df
