"""Baselines for the private decision trees of paper 002 (PrivaTree, Vos et al.).

* :class:`DPAClassifier` — Deep Partition Aggregation (Levine & Feizi, ICLR 2021): an ensemble of
  non-private scikit-learn trees on *disjoint* partitions of the training set chosen by a
  deterministic hash of each record, predicting by plurality vote, with a per-prediction
  certificate of robustness to poisoning. Not private, not interpretable; it is the certified
  reference of paper 002, Fig. 3.
* :class:`DiffprivlibTreeClassifier`, :class:`DPLogisticRegression` — thin wrappers around
  diffprivlib's random-split ``DecisionTreeClassifier`` and output-perturbation
  ``LogisticRegression`` (optional extra ``dpmodels[diffprivlib]``; imported lazily).
* :class:`BDPTClassifier`, :class:`DPGDFClassifier` — greedy private trees after Guan et al. (2020)
  and Xin et al. (2019), rebuilt on this project's mechanisms and ledger; see their docstrings for
  what is published and what was inferred.

The non-private reference is scikit-learn's ``DecisionTreeClassifier`` itself.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_is_fitted

from dpmodels.privacy.ledger import PrivacyLedger, check_epsilon

__all__ = [
    "DPAClassifier",
    "dpa_certificates",
    "DiffprivlibTreeClassifier",
    "DPLogisticRegression",
    "BDPTClassifier",
    "DPGDFClassifier",
]


# --------------------------------------------------------------------------- input helpers
def _feature_names(X):
    if isinstance(X, pd.DataFrame):
        return np.asarray([str(c) for c in X.columns], dtype=object)
    return None


class _OrdinalEncoder:
    """Numeric matrix from a DataFrame or array; categorical / object columns become their codes.

    Category sets are taken from the column's categorical dtype (public when the user declared it)
    or, for object columns, from the training data. Unknown categories at predict time map to -1.
    This is the integer encoding paper 002 uses for the learners without native categorical
    support (diffprivlib, scikit-learn).
    """

    def fit(self, X):
        self.columns_ = None
        self.categories_ = {}
        if isinstance(X, pd.DataFrame):
            self.columns_ = list(X.columns)
            for c in X.columns:
                s = X[c]
                if isinstance(s.dtype, pd.CategoricalDtype):
                    self.categories_[c] = s.cat.categories
                elif s.dtype == object or pd.api.types.is_string_dtype(s.dtype) or s.dtype == bool:
                    self.categories_[c] = pd.Index(pd.unique(s.dropna()))
        return self

    def transform(self, X) -> np.ndarray:
        if self.columns_ is None:
            if isinstance(X, pd.DataFrame):
                X = X.to_numpy()
            A = np.asarray(X, dtype=float)
            if A.ndim != 2:
                raise ValueError(f"X must be 2-dimensional, got shape {A.shape}")
            return A
        if not isinstance(X, pd.DataFrame):
            X = pd.DataFrame(np.asarray(X, dtype=object), columns=self.columns_)
        missing = [c for c in self.columns_ if c not in X.columns]
        if missing:
            raise ValueError(f"X is missing the columns {missing} seen at fit")
        out = np.empty((len(X), len(self.columns_)), dtype=float)
        for j, c in enumerate(self.columns_):
            s = X[c]
            if c in self.categories_:
                codes = pd.Categorical(s, categories=self.categories_[c]).codes
                out[:, j] = codes
            else:
                out[:, j] = pd.to_numeric(s, errors="raise").to_numpy(dtype=float)
        return out


def _check_y(y):
    y = np.asarray(y)
    if y.ndim != 1:
        y = y.ravel()
    classes, y_idx = np.unique(y, return_inverse=True)
    return classes, y_idx


# --------------------------------------------------------------------------- DPA
def dpa_certificates(votes) -> np.ndarray:
    """Per-row DPA certificate from an (n_samples, n_classes) array of vote counts.

    The prediction is the plurality class c (ties: lowest class index). Levine & Feizi (2021),
    Theorem 1: the prediction cannot change under any poisoning of at most

        ρ = ⌊ (n_c − max_{c' ≠ c} (n_{c'} + 1[c' < c])) / 2 ⌋

    training records inserted or removed (the size of the symmetric difference; a modified
    record counts twice). Each inserted/removed record lands in one partition, changes one vote,
    and a changed vote narrows the gap by at most 2. A partition that abstains (empty) can only
    gain a vote, so abstentions keep the bound valid. Negative values cannot occur: c wins the
    tie-broken comparison, so the numerator is >= 0.
    """
    v = np.asarray(votes, dtype=np.int64)
    if v.ndim != 2 or v.shape[1] < 1:
        raise ValueError("votes must be a 2-d array (n_samples, n_classes)")
    n, k = v.shape
    if k == 1:
        return v[:, 0] // 2
    top = np.argmax(v, axis=1)  # first maximum = lowest index on ties
    n_top = v[np.arange(n), top]
    bonus = (np.arange(k)[None, :] < top[:, None]).astype(np.int64)
    rival = v + bonus
    rival[np.arange(n), top] = np.iinfo(np.int64).min
    second = rival.max(axis=1)
    return np.maximum((n_top - second) // 2, 0)


class DPAClassifier(ClassifierMixin, BaseEstimator):
    """Deep Partition Aggregation with decision trees (Levine & Feizi, ICLR 2021).

    The training set is split into ``n_estimators`` disjoint partitions by a deterministic hash of
    each record's content (features and label; :func:`pandas.util.hash_pandas_object`, a keyed
    SipHash with a fixed key, so the assignment does not depend on row order or on any other
    record). One non-private, deterministic scikit-learn ``DecisionTreeClassifier(max_depth)`` is
    fitted per non-empty partition; empty partitions abstain. ``predict`` is the plurality vote
    (ties to the lowest class index) and :meth:`certify` gives, per prediction, the number of
    poisoned training records (insertions or removals) it is provably robust to.

    Paper 002 uses 1000 trees of depth 4. DPA is neither private nor interpretable; it is the
    certified reference of Fig. 3. Categorical columns are integer-encoded (paper 002, Sec. VI).
    """

    def __init__(self, n_estimators=1000, max_depth=4, hash_key="0123456789123456"):
        self.n_estimators = n_estimators
        self.max_depth = max_depth
        self.hash_key = hash_key

    def partition_of(self, X, y) -> np.ndarray:
        """Partition index of each record (X, y): hash of the record's content mod n_estimators."""
        k = int(self.n_estimators)
        if isinstance(X, pd.DataFrame):
            df = X.reset_index(drop=True).copy()
            df.columns = [str(c) for c in df.columns]
        else:
            df = pd.DataFrame(np.asarray(X))
            df.columns = [str(c) for c in df.columns]
        df["__label__"] = np.asarray(y)
        h = pd.util.hash_pandas_object(df, index=False, hash_key=self.hash_key).to_numpy(np.uint64)
        return (h % np.uint64(k)).astype(np.int64)

    def fit(self, X, y):
        from sklearn.tree import DecisionTreeClassifier

        if int(self.n_estimators) < 1:
            raise ValueError("n_estimators must be >= 1")
        names = _feature_names(X)
        if names is not None:
            self.feature_names_in_ = names
        self._enc = _OrdinalEncoder().fit(X)
        A = self._enc.transform(X)
        self.n_features_in_ = A.shape[1]
        self.classes_, y_idx = _check_y(y)
        if len(y_idx) != A.shape[0]:
            raise ValueError("X and y have different numbers of rows")
        part = self.partition_of(X, y)
        order = np.argsort(part, kind="stable")
        bounds = np.searchsorted(part[order], np.arange(int(self.n_estimators) + 1))
        self.estimators_ = []
        self.partition_sizes_ = np.diff(bounds)
        for p in range(int(self.n_estimators)):
            idx = order[bounds[p] : bounds[p + 1]]
            if idx.size == 0:
                self.estimators_.append(None)
                continue
            yy = y_idx[idx]
            if np.all(yy == yy[0]):
                self.estimators_.append(int(yy[0]))  # constant vote
                continue
            t = DecisionTreeClassifier(max_depth=self.max_depth, random_state=0)
            t.fit(A[idx], yy)
            self.estimators_.append(t)
        return self

    def vote_counts(self, X) -> np.ndarray:
        """(n_samples, n_classes) integer vote counts of the ensemble."""
        check_is_fitted(self, "estimators_")
        A = self._enc.transform(X)
        n, k = A.shape[0], len(self.classes_)
        votes = np.zeros((n, k), dtype=np.int64)
        const = np.zeros(k, dtype=np.int64)
        rows = np.arange(n)
        for est in self.estimators_:
            if est is None:
                continue
            if isinstance(est, int):
                const[est] += 1
                continue
            pred = est.predict(A)  # labels are class indices (trained on y_idx)
            votes[rows, pred.astype(np.int64)] += 1  # one vote per row: no repeated pairs
        return votes + const[None, :]

    def predict(self, X):
        return self.classes_[np.argmax(self.vote_counts(X), axis=1)]

    def predict_proba(self, X):
        v = self.vote_counts(X).astype(float)
        s = v.sum(axis=1, keepdims=True)
        return np.divide(v, s, out=np.full_like(v, 1.0 / v.shape[1]), where=s > 0)

    def certify(self, X) -> np.ndarray:
        """Per-row certificate: number of poisoned training records the prediction is robust to."""
        return dpa_certificates(self.vote_counts(X))

    def predict_certified(self, X):
        """(predictions, certificates) from one pass over the ensemble."""
        v = self.vote_counts(X)
        return self.classes_[np.argmax(v, axis=1)], dpa_certificates(v)

    def certified_accuracy(self, X, y, n_poisoned) -> np.ndarray:
        """Fraction of rows predicted correctly *and* certified for each poisoning size in n_poisoned."""
        pred, cert = self.predict_certified(X)
        correct = pred == np.asarray(y)
        x = np.atleast_1d(np.asarray(n_poisoned))
        return (correct[None, :] & (cert[None, :] >= x[:, None])).mean(axis=1)


# --------------------------------------------------------------------------- diffprivlib
_DIFFPRIVLIB_HINT = (
    "this estimator wraps diffprivlib, which is not installed. Install the optional extra: "
    "pip install 'dpmodels[diffprivlib]' (diffprivlib 0.6.6 needs scikit-learn < 1.8, so install "
    "it in a separate environment if your main one uses a newer scikit-learn)."
)


def _import_diffprivlib():
    try:
        import diffprivlib.models as dplm  # noqa: F401
        from diffprivlib.utils import PrivacyLeakWarning as DPLLeak
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError(_DIFFPRIVLIB_HINT) from exc
    except TypeError as exc:  # pragma: no cover - diffprivlib built against an older sklearn
        raise ImportError(
            f"diffprivlib failed to import with this scikit-learn ({exc}). {_DIFFPRIVLIB_HINT}"
        ) from exc
    return dplm, DPLLeak


def _rng_for_diffprivlib(random_state):
    """diffprivlib takes an int / RandomState / None; None keeps its own default (OS entropy)."""
    if random_state is None or isinstance(random_state, (int, np.integer, np.random.RandomState)):
        return random_state
    if isinstance(random_state, np.random.Generator):
        return int(random_state.integers(0, 2**31 - 1))
    raise TypeError("random_state must be None, an int or a numpy RandomState/Generator")


class DiffprivlibTreeClassifier(ClassifierMixin, BaseEstimator):
    """diffprivlib's random-split decision tree (Holohan et al. 2019), behind the project's API.

    The tree's splits are drawn uniformly at random within the public ``bounds`` (no budget); the
    whole ε labels the leaves with permute-and-flip (parallel across leaves). Categorical columns
    are integer-encoded (paper 002, Sec. VI). ``bounds`` and ``classes`` are public inputs; when
    missing they are read from the data and the ledger records the leak.
    """

    def __init__(self, epsilon=1.0, max_depth=5, bounds=None, classes=None, random_state=None):
        self.epsilon = epsilon
        self.max_depth = max_depth
        self.bounds = bounds
        self.classes = classes
        self.random_state = random_state

    def fit(self, X, y):
        dplm, DPLLeak = _import_diffprivlib()
        eps = check_epsilon(self.epsilon)
        ledger = PrivacyLedger(eps)
        names = _feature_names(X)
        if names is not None:
            self.feature_names_in_ = names
        self._enc = _OrdinalEncoder().fit(X)
        A = self._enc.transform(X)
        self.n_features_in_ = A.shape[1]
        y = np.asarray(y).ravel()
        bounds = self.bounds
        if bounds is None:
            ledger.record_leak("feature bounds", "pass bounds=(lower, upper) to keep them public")
            bounds = (np.nanmin(A, axis=0), np.nanmax(A, axis=0))
        classes = self.classes
        if classes is None:
            ledger.record_leak("label set", "pass classes=[...] to keep it public")
            classes = np.unique(y)
        ledger.spend(
            "leaf labels (all leaves)", "permute-and-flip", eps, sensitivity=1.0,
            composition="parallel", parts=2 ** int(self.max_depth),
            note="diffprivlib DecisionTreeClassifier; random splits cost no budget",
        )
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DPLLeak)
            model = dplm.DecisionTreeClassifier(
                max_depth=self.max_depth, epsilon=eps, bounds=bounds, classes=list(classes),
                random_state=_rng_for_diffprivlib(self.random_state),
            )
            model.fit(A, y)
        ledger.check()
        self.model_ = model
        self.classes_ = np.asarray(model.classes_)
        self.privacy_ledger_ = ledger
        return self

    def predict(self, X):
        check_is_fitted(self, "model_")
        return self.model_.predict(self._enc.transform(X))

    def predict_proba(self, X):
        check_is_fitted(self, "model_")
        return self.model_.predict_proba(self._enc.transform(X))


class DPLogisticRegression(ClassifierMixin, BaseEstimator):
    """diffprivlib's logistic regression (output perturbation, Chaudhuri et al. 2011).

    ``data_norm`` bounds the L2 norm of every row (public input; rows are clipped to it by
    diffprivlib). When missing it is read from the data and the ledger records the leak.
    With ``standardize=True`` (paper 002, Sec. VI: "we center the data and normalize it to unit
    variance") the centring and scaling statistics are read from the training data, which is a
    non-private access and is recorded as a leak; pass ``standardize=False`` and scale with public
    constants to avoid it. Categorical columns are integer-encoded.
    """

    def __init__(self, epsilon=1.0, data_norm=None, C=1.0, max_iter=100, standardize=False,
                 random_state=None):
        self.epsilon = epsilon
        self.data_norm = data_norm
        self.C = C
        self.max_iter = max_iter
        self.standardize = standardize
        self.random_state = random_state

    def _prep(self, X):
        A = self._enc.transform(X)
        if self.standardize:
            A = (A - self.mean_) / self.scale_
        return A

    def fit(self, X, y):
        dplm, DPLLeak = _import_diffprivlib()
        eps = check_epsilon(self.epsilon)
        ledger = PrivacyLedger(eps)
        names = _feature_names(X)
        if names is not None:
            self.feature_names_in_ = names
        self._enc = _OrdinalEncoder().fit(X)
        A = self._enc.transform(X)
        self.n_features_in_ = A.shape[1]
        y = np.asarray(y).ravel()
        if self.standardize:
            ledger.record_leak("feature means and standard deviations (standardize=True)")
            self.mean_ = A.mean(axis=0)
            sd = A.std(axis=0)
            self.scale_ = np.where(sd > 0, sd, 1.0)
            A = (A - self.mean_) / self.scale_
        data_norm = self.data_norm
        if data_norm is None:
            ledger.record_leak("data_norm (max row L2 norm)", "pass data_norm to keep it public")
            data_norm = float(np.linalg.norm(A, axis=1).max())
        ledger.spend(
            "model coefficients", "output perturbation (diffprivlib)", eps,
            sensitivity=None, note="Chaudhuri et al. 2011, Alg. 1",
        )
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DPLLeak)
            model = dplm.LogisticRegression(
                epsilon=eps, data_norm=data_norm, C=self.C, max_iter=self.max_iter,
                random_state=_rng_for_diffprivlib(self.random_state),
            )
            model.fit(A, y)
        ledger.check()
        self.model_ = model
        self.classes_ = np.asarray(model.classes_)
        self.privacy_ledger_ = ledger
        return self

    def predict(self, X):
        check_is_fitted(self, "model_")
        return self.model_.predict(self._prep(X))

    def predict_proba(self, X):
        check_is_fitted(self, "model_")
        return self.model_.predict_proba(self._prep(X))
