"""Thin wrappers around diffprivlib's random-split decision tree and logistic regression (optional
extra ``dpmodels[diffprivlib]``; imported lazily), behind the project's API and ledger.

What each wrapper declares to diffprivlib, so that nothing public is read from the data by it:

* the **label set**: ``classes=`` (or read from y with a leak row and a ``PrivacyLeakWarning``).
  Labels are encoded as indices 0..K−1 of that set before diffprivlib sees them: the tree gets
  ``classes=range(K)``; the logistic regression is fitted one-vs-rest over the *declared* classes
  by this module, calling diffprivlib's objective-perturbation path per class — diffprivlib's own
  ``LogisticRegression.fit`` takes its label set (and the ε split across classes) from
  ``np.unique(y)``, and raises on a one-class y;
* **categories** (``categories=`` or a ``category`` dtype; integer codes, paper 002 Sec. VI);
* **bounds** (tree) / **data_norm** (logistic regression).

diffprivlib's objective perturbation (Chaudhuri et al. 2011, Alg. 2) uses the exact training-set
size n in its regulariser and noise, and its proof assumes n public (replace-one neighbours): the
logistic regression's ledger records n as read from the data, so that model is never reported
private under this project's add/remove convention.
"""

from __future__ import annotations

import warnings

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_is_fitted

from ..._optional import require
from ...privacy.accountant import ledger_for_fit, published_ledger
from ...privacy.ledger import check_epsilon
from ...validation import apply_unit_sample_weight, check_X_shape, check_y, resolve_bounds, resolve_classes
from ._encoding import OrdinalEncoder, feature_names

__all__ = ["DiffprivlibTreeClassifier", "DPLogisticRegression", "clip_rows"]


def _import_diffprivlib():
    dplm = require("diffprivlib", "this estimator (a wrapper of diffprivlib)")
    from diffprivlib.utils import PrivacyLeakWarning as DPLLeak

    return dplm, DPLLeak


def _rng_for_diffprivlib(random_state):
    """diffprivlib takes an int / RandomState / None; None keeps its own default (OS entropy)."""
    if random_state is None or isinstance(random_state, (int, np.integer, np.random.RandomState)):
        return random_state
    if isinstance(random_state, np.random.Generator):
        return int(random_state.integers(0, 2**31 - 1))
    raise TypeError("random_state must be None, an int or a numpy RandomState/Generator")


def _row_norms(A) -> np.ndarray:
    """L2 norm of every row, computed on rows scaled by their largest entry so that no square
    overflows (a row of ±1e300 has a finite norm; ``np.linalg.norm`` would overflow and warn)."""
    A = np.asarray(A, dtype=np.float64)
    if A.shape[1] == 0:
        return np.zeros(A.shape[0])
    peak = np.abs(A).max(axis=1)
    safe = np.where(peak > 0, peak, 1.0)
    with np.errstate(over="ignore"):  # the norm of a row near the float limit may exceed it: inf
        return safe * np.sqrt(np.square(A / safe[:, None]).sum(axis=1))


def clip_rows(A, data_norm: float) -> np.ndarray:
    """Rows of ``A`` scaled down to L2 norm at most ``data_norm`` (public), without overflow.

    The scaling is done on rows first divided by their largest entry, so inputs within the float
    range (e.g. ±1e300) give finite results and no RuntimeWarning; rows already within the norm
    are unchanged."""
    A = np.asarray(A, dtype=np.float64)
    if A.size == 0:
        return A.copy()
    peak = np.abs(A).max(axis=1)
    safe = np.where(peak > 0, peak, 1.0)
    U = A / safe[:, None]  # entries in [-1, 1]
    unit_norm = np.sqrt(np.square(U).sum(axis=1))  # in [1, sqrt(m)] for non-zero rows
    with np.errstate(over="ignore"):
        norms = safe * unit_norm  # inf only beyond the float range: such rows are clipped below
    over = norms > data_norm
    factor = data_norm / np.where(unit_norm > 0, unit_norm, 1.0)
    return np.where(over[:, None], U * factor[:, None], A)


def _standardize(A):
    """``(means, standard deviations (1 where zero), standardized A)`` without overflow: every
    step works on columns divided by their largest absolute value."""
    A = np.asarray(A, dtype=np.float64)
    peak = np.abs(A).max(axis=0) if A.shape[0] else np.ones(A.shape[1])
    safe = np.where(peak > 0, peak, 1.0)
    U = A / safe
    mu, sd = U.mean(axis=0), U.std(axis=0)
    sd1 = np.where(sd > 0, sd, 1.0 / safe)  # a constant column: scale 1
    return mu * safe, sd1 * safe, (U - mu) / sd1


class _DiffprivlibWrapper(ClassifierMixin, BaseEstimator):
    """Fit plumbing shared by the diffprivlib wrappers: lazy import, ledger, public inputs."""

    def _begin_fit(self, X, y, sample_weight=None):
        dplm, DPLLeak = _import_diffprivlib()
        eps = check_epsilon(self.epsilon)
        name = type(self).__name__
        X, y = apply_unit_sample_weight(X, y, sample_weight, name)
        X, n, _ = check_X_shape(X, name)
        y = check_y(y, name)
        if len(y) != n:
            raise ValueError("X and y have different numbers of rows")
        # a fresh ledger of budget ε, plus the releases X carries (a Binarizer's: docs/privacy.md,
        # "Pipelines"); these wrappers take no accountant
        ledger = ledger_for_fit(self, eps, X=X)
        classes, y_idx = resolve_classes(self.classes, y, ledger)
        names = feature_names(X)
        if names is not None:
            self.feature_names_in_ = names
        # a pair of bounds declares the undeclared columns numerical; a dict is not passed on
        # (the tree's dict covers encoded columns by position, categorical ones too)
        b = getattr(self, "bounds", None)
        self._enc = OrdinalEncoder(self.categories, None if isinstance(b, dict) else b).fit(X, ledger)
        A = self._enc.transform(X)
        self.n_features_in_ = A.shape[1]
        self.classes_ = classes
        return dplm, DPLLeak, eps, ledger, A, y_idx

    def _finish_fit(self, model, ledger):
        ledger.check()
        if model is not None:
            self.model_ = model
        self.privacy_ledger_ = published_ledger(ledger)
        return self


class DiffprivlibTreeClassifier(_DiffprivlibWrapper):
    """diffprivlib's random-split decision tree (Holohan et al. 2019), behind the project's API.

    The tree's splits are drawn uniformly at random within the public ``bounds`` (no budget); the
    whole ε labels the leaves with permute-and-flip (parallel across leaves). Categorical columns
    are integer-encoded over their public lists (paper 002, Sec. VI). ``bounds`` (over all encoded
    columns, categorical codes included), ``classes`` and ``categories`` are public inputs; when
    missing they are read from the data and the ledger records the leak.
    """

    def __init__(self, epsilon=1.0, max_depth=5, bounds=None, classes=None, random_state=None, categories=None):
        self.epsilon = epsilon
        self.max_depth = max_depth
        self.bounds = bounds
        self.classes = classes
        self.random_state = random_state
        self.categories = categories

    def fit(self, X, y, sample_weight=None):
        """Fit; ``sample_weight``: None or 0/1 per row
        (:func:`dpmodels.validation.apply_unit_sample_weight`)."""
        dplm, DPLLeak, eps, ledger, A, y_idx = self._begin_fit(X, y, sample_weight)
        names = [f"x{j}" for j in range(A.shape[1])]
        lo, hi = resolve_bounds(self.bounds, names, range(A.shape[1]), A, ledger)
        ledger.spend(
            "leaf labels (all leaves)",
            "permute-and-flip",
            eps,
            sensitivity=1.0,
            composition="parallel",
            parts=2 ** int(self.max_depth),
            note="diffprivlib DecisionTreeClassifier; random splits cost no budget",
        )
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DPLLeak)
            model = dplm.DecisionTreeClassifier(
                max_depth=self.max_depth,
                epsilon=eps,
                bounds=(lo, hi),
                classes=list(range(self.classes_.size)),
                random_state=_rng_for_diffprivlib(self.random_state),
            )
            model.fit(A, y_idx)
        return self._finish_fit(model, ledger)

    def predict(self, X):
        check_is_fitted(self, "model_")
        return self.classes_[self.model_.predict(self._enc.transform(X)).astype(np.int64)]

    def predict_proba(self, X):
        check_is_fitted(self, "model_")
        return self.model_.predict_proba(self._enc.transform(X))


class DPLogisticRegression(_DiffprivlibWrapper):
    """Logistic regression by diffprivlib's objective perturbation (Chaudhuri et al. 2011, Alg. 2).

    One-vs-rest over the **declared** label set (``classes=``; a single fit for two classes), each
    fit at ε / (number of fits) through diffprivlib's ``_logistic_regression_path``; a one-class
    y is valid input. ``data_norm`` bounds the L2 norm of every row (public input; rows are clipped
    to it). When missing it is read from the data and the ledger records the leak. With
    ``standardize=True`` (paper 002, Sec. VI) the centring and scaling statistics are read from
    the training data — a leak; pass ``standardize=False`` and scale with public constants. The
    exact n enters diffprivlib's mechanism (module docstring): always recorded as a leak.
    """

    def __init__(
        self,
        epsilon=1.0,
        data_norm=None,
        C=1.0,
        max_iter=100,
        standardize=False,
        random_state=None,
        classes=None,
        categories=None,
    ):
        self.epsilon = epsilon
        self.data_norm = data_norm
        self.C = C
        self.max_iter = max_iter
        self.standardize = standardize
        self.random_state = random_state
        self.classes = classes
        self.categories = categories

    def _prep(self, X):
        A = self._enc.transform(X)
        if self.standardize:
            A = (A - self.mean_) / self.scale_
        return A

    def fit(self, X, y, sample_weight=None):
        """Fit; ``sample_weight``: None or 0/1 per row
        (:func:`dpmodels.validation.apply_unit_sample_weight`)."""
        dplm, DPLLeak, eps, ledger, A, y_idx = self._begin_fit(X, y, sample_weight)
        from diffprivlib.models.logistic_regression import _logistic_regression_path

        if self.standardize:
            ledger.record_leak("feature means and standard deviations (standardize=True)")
            self.mean_, self.scale_, A = _standardize(A)
        data_norm = self.data_norm
        if data_norm is None:
            ledger.record_leak("data_norm (max row L2 norm)", "pass data_norm to keep it public")
            data_norm = float(_row_norms(A).max())
        data_norm = float(data_norm)
        ledger.record_leak(
            "training-set size n (diffprivlib's objective perturbation)",
            "Chaudhuri et al.'s proof assumes n public (replace-one neighbours).",
        )
        A = clip_rows(A, data_norm)  # rows clipped to the public norm before diffprivlib sees them
        K = self.classes_.size
        targets = [1] if K == 2 else list(range(K)) if K > 2 else []
        seed = _rng_for_diffprivlib(self.random_state)
        # None: a RandomState seeded from OS entropy (not numpy's global state)
        rs = seed if isinstance(seed, np.random.RandomState) else np.random.RandomState(seed)
        coefs = []
        if targets:
            ledger.spend(
                "model coefficients",
                "objective perturbation (diffprivlib)",
                eps,
                sensitivity=None,
                note=f"Chaudhuri et al. 2011, Alg. 2; {len(targets)} one-vs-rest fit(s) at ε/{len(targets)}",
            )
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", DPLLeak)
                for c in targets:
                    w, _, _ = _logistic_regression_path(
                        A,
                        y_idx,
                        epsilon=eps / len(targets),
                        data_norm=data_norm,
                        pos_class=c,
                        Cs=[self.C],
                        fit_intercept=True,
                        max_iter=self.max_iter,
                        tol=1e-4,
                        random_state=rs,
                        check_input=False,
                    )
                    coefs.append(np.asarray(w).reshape(-1))
        W = np.asarray(coefs).reshape(len(targets), A.shape[1] + 1)
        self.coef_, self.intercept_ = W[:, :-1], W[:, -1]
        return self._finish_fit(None, ledger)

    def decision_function(self, X):
        check_is_fitted(self, "coef_")
        return self._prep(X) @ self.coef_.T + self.intercept_

    def predict_proba(self, X):
        z = self.decision_function(X)
        K = self.classes_.size
        if K == 1:
            return np.ones((z.shape[0], 1))
        from scipy.special import expit

        p = expit(z)
        if K == 2:
            return np.column_stack([1.0 - p[:, 0], p[:, 0]])
        return p / p.sum(axis=1, keepdims=True)  # one-vs-rest, normalised (scikit-learn's rule)

    def predict(self, X):
        return self.classes_[np.argmax(self.predict_proba(X), axis=1)]
