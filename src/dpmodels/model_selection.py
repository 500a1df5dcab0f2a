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

**Which trials may run.** Both theorems need every trial to be pure ε_t-DP with every input
declared. Before any trial, :func:`dpmodels.privacy.verdict.check_private_trials` fits each
candidate once on a public probe (synthetic rows built from the declarations and X's column names)
and refuses the search — one ``ValueError``, nothing fitted on the data, nothing spent — when a
candidate would read an input from the data (``classes``, categories, bounds, ``label_bounds``, n),
uses a mechanism whose guarantee is only claimed, or spends δ (docs/privacy.md, "Which trials a
search may run").

The model's ledger is the search's (``privacy_ledger_``: the selection row, whose note or guarantee
states what the trials' own ledgers held, then the refit's rows appended), so a saved model states
the total; :func:`dpmodels.privacy.verdict.verdict` derives ``is_private`` from it (and the seed).

:class:`ProxySearch` spends **nothing** on choosing: it ranks every candidate on one or more
*public* proxy datasets, each fitted at the ε that gives it the private fit's signal-to-noise
(ε_j = ε·n_public/n_j, n_public the declared private size), then fits the chosen configuration once
on the private data at the whole ε. The choice is a function of public inputs only, so the model is
exactly as private as that one fit (docs/privacy.md, "Selection on public proxies"). Measured
against the searches above in docs/results.md, "Private hyper-parameter selection".

Helper :func:`accuracy_vs_epsilon` draws accuracy against ε on a *public* proxy dataset (bundled or
yours), which spends nothing on the private data.
"""

from __future__ import annotations

import dataclasses
import math
import numbers

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, ClassifierMixin, clone

from ._params import HasMethods, Integral, Interval, Real, StrOptions, validate_params
from .privacy import PrivacyLedger, check_random_state
from .privacy.ledger import LedgerRow, PrivacyLeakWarning, check_delta, check_epsilon
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
from .privacy.steps import ParamCheck, SpendCheck
from .privacy.verdict import check_private_trials, ledger_faults

__all__ = ["PrivateSearch", "ProxySearch", "accuracy_vs_epsilon"]


def _rows(X, mask):
    return X[mask] if isinstance(X, (pd.DataFrame, pd.Series)) else np.asarray(X)[mask]


def _check_candidates(estimator, cands: list) -> list:
    """The candidate dicts, checked against ``estimator``'s parameters (public inputs only)."""
    if not cands or not all(isinstance(c, dict) for c in cands):
        raise ValueError("candidates must be a non-empty list of parameter dicts")
    params = estimator.get_params(deep=False)
    for key in ("epsilon", "random_state"):
        if key not in params:
            raise ValueError(f"estimator must take `{key}` (a dpmodels DP estimator), got {type(estimator).__name__}")
    for c in cands:
        bad = [k for k in c if k not in params]
        if bad:
            raise ValueError(f"candidate {c!r}: {bad[0]!r} is not a parameter of {type(estimator).__name__}")
        if "epsilon" in c or "random_state" in c:
            raise ValueError("candidates may not set epsilon or random_state: the search decides them")
        clone(estimator).set_params(**c)
    return cands


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
        cands = _check_candidates(self.estimator, list(self.candidates))
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
            if isinstance(est, ParamCheck):  # dpmodels.privacy.steps
                est._check_params()
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
        # both tuners' theorems hold for trials that are each pure ε_t-DP with every input declared:
        # decided from the parameters (a fit on a public probe of X's columns) before any trial runs
        check_private_trials(self.estimator, cands, X, epsilon=eps_t, pure=True)
        faults: dict[str, None] = {}  # what the trials' own ledgers say, carried into the selection row
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
            led = getattr(est, "privacy_ledger_", None)
            for f in ["keeps no privacy ledger"] if led is None else ledger_faults(led, eps_t, pure=True):
                faults.setdefault(f)
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
        sel = ledger.rows[0]  # the selection row states what the trials were
        if faults:
            ledger.rows[0] = dataclasses.replace(
                sel,
                guarantee="none",
                note=f"{sel.note}; NOT a DP selection: a trial's ledger " + "; ".join(faults),
            )
        else:
            ledger.rows[0] = dataclasses.replace(
                sel,
                note=f"{sel.note}; every trial's own ledger: proven, δ = 0, within ε_t (checked on the "
                "parameters before the trials and on each trial's ledger)",
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


# parameters of the estimator that the proxy search decides (per proxy fit) or refuses
_DECIDED = ("epsilon", "random_state", "n_public", "accountant")
# declarations about one dataset: a proxy with its own params does not inherit the private data's
_DECLARATIONS = ("bounds", "categories", "classes", "label_bounds")


def _proxy_estimator(estimator, own):
    """``estimator`` with a proxy's declarations: the estimator's own (``own`` None: the proxy
    shares the private data's schema) or ``own``, the other declarations unset (None)."""
    if own is None:
        return clone(estimator)
    have = estimator.get_params(deep=False)
    unset = {k: None for k in _DECLARATIONS if k in have and k not in own}
    return clone(estimator).set_params(**unset, **own)


def _take(X, idx):
    """Rows ``idx`` (integer positions) of a DataFrame, Series or array."""
    return X.iloc[idx] if isinstance(X, (pd.DataFrame, pd.Series)) else np.asarray(X)[idx]


def _columns(X):
    """``(number of columns, names or None)`` of ``X``: its schema, never its rows."""
    cols = getattr(X, "columns", None)
    if cols is not None:
        return len(cols), [str(c) for c in cols]
    return int(np.shape(X)[1]), None


class ProxySearch(ClassifierMixin, BaseEstimator):
    """Choose a configuration on **public** proxy datasets, then fit it once on the private data.

    Spends nothing on choosing (docs/privacy.md, "Selection on public proxies"): every candidate
    is fitted and scored on each proxy dataset only, and the private data enter exactly one fit,
    of the chosen configuration at the whole ``epsilon``. That choice is a function of public
    inputs (the proxies, ``epsilon``, ``n_public``, the candidates, the seed), so the model is as
    private as that one fit, and its ledger is that fit's rows after one zero-cost row that states
    how the configuration was chosen.

    **The proxies must be public**: data you could publish, e.g. a bundled or open dataset of a
    similar task. A split, sample or copy of the private data is NOT a proxy — ranking on it is an
    unaccounted release of the private data, and nothing here can detect it.

    Matched signal-to-noise: the noise of a DP count is about 1/ε while the counts grow with n, so
    a learner like PrivaTree behaves mostly as a function of ε·n. A trial on proxy j whose training
    part has n_j records runs at ε_j = min(ε·n_public/n_j, max(ε, ``max_proxy_epsilon``)), so it
    sees the private fit's ratio of noise to counts (the cap only binds on very small proxies,
    where the noise is already negligible). Each candidate is scored by its plain accuracy on the
    held-out folds (the proxy is public), averaged per proxy, then aggregated over the proxies.

    Parameters
    ----------
    estimator : a dpmodels DP classifier taking ``epsilon`` and ``random_state``, with the private
        data's public inputs (``classes``, ``bounds``, ``categories``…) declared on it.
    candidates : list of parameter dicts (e.g. ``[{"max_depth": 2}, {"max_depth": 4}]``) or a dict
        of lists (scikit-learn's ``param_grid``, expanded by ``ParameterGrid``).
    proxies : non-empty list of public datasets ``(X_pub, y_pub)`` or ``(X_pub, y_pub, params)``.
        ``(X_pub, y_pub)`` shares the private data's schema: it must have the same columns as the
        private ``X`` and is fitted with the estimator's own declarations. ``params`` (a dict of the
        estimator's parameters, e.g. ``dataset_schema(name).fit_params()``) gives another dataset's
        own declarations, so a proxy may have other features: the estimator's ``bounds``,
        ``categories``, ``classes`` (and ``label_bounds``) are then replaced by ``params``, unset
        (read from the public proxy) where ``params`` leaves them out; its other parameters stay.
    epsilon : ε of the private fit, all of it (the selection costs nothing).
    n_public : the private training-set size as a public number (an order of magnitude is enough),
        used only to match ε on the proxies. ``None``: the estimator's ``n_public``; if that is
        ``None`` too, ``fit`` reads n from the data, warns (``PrivacyLeakWarning``) and records a
        leak row, so the model is not private (docs/privacy.md, "What is public for each learner").
    cv : int (stratified folds of each proxy, shuffled by the search's seed, ``n_repeats`` times)
        or a scikit-learn splitter (used as is).
    n_repeats : repetitions of the ``cv`` folds with fresh shuffles (int ``cv`` only).
    aggregate : ``"mean-accuracy"`` (default: the candidate with the highest accuracy averaged over
        the proxies, so proxies where the candidates differ weigh more than flat ones) or
        ``"mean-rank"`` (the best mean rank, every proxy weighing the same). Ties: the first
        candidate.
    max_proxy_epsilon : cap of ε_j (never below ``epsilon``); at the default 50 a count's noise is a
        small fraction of one record.
    random_state : None (OS entropy: the private fit's noise is private) or a seed (reproducible
        research, not private). Proxy fits of one fold share a seed across candidates (common
        random numbers: the candidates are compared under the same noise draws where they can).

    Attributes
    ----------
    best_params_, best_index_ : the chosen candidate (a function of public inputs).
    ranking_ : DataFrame, one row per candidate: ``params``, ``mean_accuracy``, ``mean_rank``.
    proxy_scores_ : DataFrame, one row per (proxy, fold, candidate): ``epsilon`` (ε_j),
        ``n_train`` (n_j), ``accuracy`` on the held-out fold.
    n_public_ : the private size used for matching; ``best_estimator_`` (the private fit);
    privacy_ledger_ (the selection row, then the fit's rows; also ``best_estimator_``'s);
    classes_, n_features_in_.
    """

    def __init__(
        self,
        estimator,
        candidates,
        proxies,
        *,
        epsilon=1.0,
        n_public=None,
        cv=5,
        n_repeats=1,
        aggregate="mean-accuracy",
        max_proxy_epsilon=50.0,
        random_state=None,
    ):
        self.estimator = estimator
        self.candidates = candidates
        self.proxies = proxies
        self.epsilon = epsilon
        self.n_public = n_public
        self.cv = cv
        self.n_repeats = n_repeats
        self.aggregate = aggregate
        self.max_proxy_epsilon = max_proxy_epsilon
        self.random_state = random_state

    _parameter_constraints: dict = {
        "estimator": [HasMethods(["fit", "predict", "get_params", "set_params"])],
        "candidates": [list, tuple, dict],
        "proxies": [list, tuple],
        "epsilon": "no_validation",  # check_epsilon (dpmodels.privacy)
        "n_public": "no_validation",  # validation.check_n_public
        "cv": [Interval(Integral, 2, None, closed="left"), HasMethods(["split"])],
        "n_repeats": [Interval(Integral, 1, None, closed="left")],
        "aggregate": [StrOptions({"mean-accuracy", "mean-rank"})],
        "max_proxy_epsilon": [Interval(Real, 0, None, closed="neither")],
        "random_state": "no_validation",  # samplers.check_random_state
    }

    # ------------------------------------------------------------------ checks (public inputs only)
    def _check_params(self, private_columns=None):
        from sklearn.base import is_classifier
        from sklearn.model_selection import ParameterGrid

        from .validation import check_n_public

        validate_params(self)
        eps = check_epsilon(self.epsilon)
        n_pub = check_n_public(self.n_public)
        if not is_classifier(self.estimator):
            raise ValueError(
                f"ProxySearch scores by accuracy: estimator must be a classifier, got {type(self.estimator).__name__}"
            )
        grid = self.candidates
        cands = _check_candidates(
            self.estimator, list(ParameterGrid(grid)) if isinstance(grid, dict) and grid else list(grid)
        )
        params = self.estimator.get_params(deep=False)
        if params.get("accountant") is not None:
            raise ValueError("ProxySearch fits without an accountant: give the search its ε instead")
        if n_pub is None and params.get("n_public") is not None:
            n_pub = check_n_public(params["n_public"])
        bad = [k for c in cands for k in c if k in _DECIDED]
        if bad:
            raise ValueError(f"candidates may not set {bad[0]!r}: the search decides it")
        return eps, n_pub, cands, self._check_proxies(cands, private_columns)

    def _check_proxies(self, cands, private_columns=None) -> list:
        """``[(X, y, own params or None)]``, every proxy checked as each candidate's fit would check
        it (labels in the declared classes, declarations against its columns, tree size), so that
        a bad proxy is one error before anything is fitted."""
        import warnings

        from .validation import check_X_shape, check_y

        items = self.proxies
        if len(items) == 0:
            raise ValueError("proxies must be a non-empty list of public datasets (X, y) or (X, y, params)")
        params = self.estimator.get_params(deep=False)
        tuned = {k for c in cands for k in c}
        out, shared = [], None
        for j, item in enumerate(items):
            own = _proxy_params(j, item, type(self.estimator).__name__, params, tuned)
            Xp, n_j, m_j = check_X_shape(item[0], f"proxy {j}")
            yp = check_y(item[1], f"proxy {j}")
            if yp.shape[0] != n_j:
                raise ValueError(f"proxy {j}: X has {n_j} rows but y has {yp.shape[0]}")
            est = _proxy_estimator(self.estimator, own)
            _check_proxy_labels(j, yp, est.get_params(deep=False).get("classes"), self.cv)
            if own is None:  # the private data's schema: the same columns for every such proxy
                shared = _check_proxy_columns(j, _columns(Xp), shared, private_columns)
            if isinstance(est, SpendCheck):
                for c in cands:
                    try:
                        with warnings.catch_warnings():
                            warnings.simplefilter("ignore", PrivacyLeakWarning)  # the proxy is public
                            clone(est).set_params(**c)._validate_before_spend(Xp, yp)
                    except (ValueError, TypeError) as e:
                        raise type(e)(f"proxy {j}: {e}") from None
            out.append((Xp, yp, own))
        return out

    # ------------------------------------------------------------------ ranking (public data only)
    def _rank(self, eps, n_priv, cands, proxies, rng) -> None:
        import warnings

        from sklearn.model_selection import RepeatedStratifiedKFold

        cap = max(float(self.max_proxy_epsilon), eps)
        rows = []
        for j, (Xp, yp, own) in enumerate(proxies):
            if isinstance(self.cv, numbers.Integral):
                seed = int(rng.integers(2**31 - 1))
                splitter = RepeatedStratifiedKFold(
                    n_splits=int(self.cv), n_repeats=int(self.n_repeats), random_state=seed
                )
            else:
                splitter = self.cv
            folds = list(splitter.split(Xp, yp))
            seeds = rng.integers(2**63 - 1, size=len(folds))
            base = _proxy_estimator(self.estimator, own)
            # a declared n stays declared on the proxy (as the proxy's own size), an estimated one estimated
            declares_n = base.get_params(deep=False).get("n_public") is not None
            for f, ((tr, te), s) in enumerate(zip(folds, seeds)):
                n_j = len(tr)
                eps_j = min(eps * float(n_priv) / n_j, cap)
                extra = {"n_public": n_j} if declares_n else {}
                Xtr, ytr, Xte = _take(Xp, tr), _take(yp, tr), _take(Xp, te)
                yte = np.asarray(_take(yp, te), dtype=object)
                for i, c in enumerate(cands):
                    est = clone(base).set_params(**c, **extra, epsilon=eps_j, random_state=int(s))
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore", PrivacyLeakWarning)  # what it reads is public
                        est.fit(Xtr, ytr)
                    acc = float(np.mean(np.asarray(est.predict(Xte), dtype=object) == yte))
                    rows.append(dict(proxy=j, fold=f, candidate=i, epsilon=eps_j, n_train=n_j, accuracy=acc))
        scores = pd.DataFrame(rows)
        per = scores.groupby(["proxy", "candidate"])["accuracy"].mean().unstack("candidate")
        mean_acc = per.mean(axis=0).to_numpy()
        mean_rank = per.rank(axis=1, ascending=False, method="average").mean(axis=0).to_numpy()
        best = int(np.argmax(mean_acc)) if self.aggregate == "mean-accuracy" else int(np.argmin(mean_rank))
        self.proxy_scores_ = scores
        self.ranking_ = pd.DataFrame({"params": cands, "mean_accuracy": mean_acc, "mean_rank": mean_rank})
        self.best_index_ = best
        self.best_params_ = dict(cands[best])

    def rank(self):
        """Rank the candidates on the proxies only, without any private data: sets ``best_params_``,
        ``best_index_``, ``ranking_``, ``proxy_scores_`` (what :meth:`fit` would choose under the
        same ``random_state``). Needs a declared ``n_public``."""
        eps, n_pub, cands, proxies = self._check_params()
        if n_pub is None:
            raise ValueError("rank() needs the private size as a public input: declare n_public")
        rng = check_random_state(self.random_state)
        rng.integers(2**63 - 1)  # the private fit's seed, drawn first in fit as well
        self._rank(eps, n_pub, cands, proxies, rng)
        self.n_public_ = n_pub
        return self

    # ------------------------------------------------------------------ the one private fit
    def fit(self, X, y, sample_weight=None):
        """Rank on the proxies, then fit the chosen configuration on ``(X, y)`` at the whole ε.
        Before the final fit the private data are read only for their column count and names
        (their schema), and for n when no ``n_public`` is declared (a leak, recorded)."""
        # the private data's schema (column count and names), not their rows
        eps, n_pub, cands, proxies = self._check_params(private_columns=_columns(X))
        pre = PrivacyLedger(eps, 0.0)
        if n_pub is None:
            from sklearn.utils.validation import _num_samples

            from .validation import resolve_n

            n_pub = resolve_n(None, _num_samples(y), pre, what="training-set size n (to match ε on the proxies)")
        rng = check_random_state(self.random_state)
        seed = None if self.random_state is None else int(rng.integers(2**63 - 1))
        if seed is None:
            rng.integers(2**63 - 1)  # keep the ranking's draws aligned with rank()
        self._rank(eps, n_pub, cands, proxies, rng)
        est = clone(self.estimator).set_params(**self.best_params_, epsilon=eps, random_state=seed)
        est.fit(X, y) if sample_weight is None else est.fit(X, y, sample_weight=sample_weight)
        ledger = getattr(est, "privacy_ledger_", None)
        if ledger is None:
            raise TypeError(f"{type(est).__name__} keeps no privacy_ledger_: not a dpmodels DP estimator")
        choice = LedgerRow(
            f"configuration {self.best_params_!r} chosen among {len(cands)} on {len(proxies)} public proxy dataset(s)",
            "public inputs only (no data access)",
            0.0,
            0.0,
            None,
            "sequential",
            1,
            f"ranked by {self.aggregate} on the proxies only, each fitted at ε_j = ε·n_public/n_j "
            f"(ε={eps:g}, n_public={float(n_pub):g}, ε_j ≤ {max(float(self.max_proxy_epsilon), eps):g}); the private "
            "data enter only the fit below (docs/privacy.md, 'Selection on public proxies')",
            "proven",
        )
        ledger.rows[:0] = [*pre.rows, choice]
        ledger.check()
        self.n_public_ = n_pub
        self.best_estimator_ = est
        self.privacy_ledger_ = ledger
        self.classes_ = est.classes_
        if hasattr(est, "n_features_in_"):
            self.n_features_in_ = est.n_features_in_
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


def _proxy_params(j: int, item, estimator_name: str, params, tuned) -> dict | None:
    """Proxy ``j``'s own parameters (None: it shares the private data's schema), after checking
    the item is ``(X, y)`` or ``(X, y, params)`` and that its params neither are unknown nor set
    what the search decides."""
    if not isinstance(item, (tuple, list)) or len(item) not in (2, 3):
        raise ValueError(f"proxy {j}: expected (X, y) or (X, y, params), got {type(item).__name__}")
    own = item[2] if len(item) == 3 else None
    if own is not None and not isinstance(own, dict):
        raise ValueError(f"proxy {j}: params must be a dict of {estimator_name}'s parameters")
    for k in own or {}:
        if k not in params:
            raise ValueError(f"proxy {j}: {k!r} is not a parameter of {estimator_name}")
        if k in _DECIDED or k in tuned:
            raise ValueError(f"proxy {j}: params may not set {k!r} (the search decides it)")
    return own


def _check_proxy_labels(j: int, yp, classes, cv) -> None:
    """Proxy ``j``'s labels lie in the declared ``classes`` and fill ``cv`` stratified folds."""
    from .validation import resolve_classes

    if classes is not None:
        try:
            resolve_classes(classes, yp, None)
        except ValueError:
            raise ValueError(f"proxy {j}: y holds a label outside the declared classes={list(classes)!r}") from None
    if isinstance(cv, numbers.Integral):
        _, counts = np.unique(np.asarray(yp, dtype=object).astype(str), return_counts=True)
        if counts.min() < cv:
            raise ValueError(f"proxy {j}: every label needs at least cv={cv} rows for stratified folds")


def _check_proxy_columns(j: int, cols, shared, private_columns):
    """A proxy without its own params has the private data's columns (``cols``: its count and
    names), as every earlier such proxy (``shared``: the first one's index and columns, returned)."""
    if shared is not None and (cols[0] != shared[1][0] or (cols[1] and shared[1][1] and cols[1] != shared[1][1])):
        raise ValueError(
            f"proxy {j} has {cols[0]} features, proxy {shared[0]} has {shared[1][0]} (or other names): "
            "a proxy without its own params must have the private data's columns"
        )
    if private_columns is not None and (
        cols[0] != private_columns[0] or (cols[1] and private_columns[1] and cols[1] != private_columns[1])
    ):
        raise ValueError(
            f"X has {private_columns[0]} features but proxy {j} (without its own params) has {cols[0]} "
            "(or other names): a proxy without its own params must have the private data's columns"
        )
    return shared or (j, cols)
