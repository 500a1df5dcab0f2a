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


class _DiffprivlibWrapper(ClassifierMixin, BaseEstimator):
    """Fit plumbing shared by the diffprivlib wrappers: lazy import, ledger, ordinal encoding."""

    def _begin_fit(self, X, y):
        dplm, DPLLeak = _import_diffprivlib()
        eps = check_epsilon(self.epsilon)
        ledger = PrivacyLedger(eps)
        names = _feature_names(X)
        if names is not None:
            self.feature_names_in_ = names
        self._enc = _OrdinalEncoder().fit(X)
        A = self._enc.transform(X)
        self.n_features_in_ = A.shape[1]
        return dplm, DPLLeak, eps, ledger, A, np.asarray(y).ravel()

    def _finish_fit(self, model, ledger):
        ledger.check()
        self.model_ = model
        self.classes_ = np.asarray(model.classes_)
        self.privacy_ledger_ = ledger
        return self


class DiffprivlibTreeClassifier(_DiffprivlibWrapper):
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
        dplm, DPLLeak, eps, ledger, A, y = self._begin_fit(X, y)
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
        return self._finish_fit(model, ledger)

    def predict(self, X):
        check_is_fitted(self, "model_")
        return self.model_.predict(self._enc.transform(X))

    def predict_proba(self, X):
        check_is_fitted(self, "model_")
        return self.model_.predict_proba(self._enc.transform(X))


class DPLogisticRegression(_DiffprivlibWrapper):
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
        dplm, DPLLeak, eps, ledger, A, y = self._begin_fit(X, y)
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
        return self._finish_fit(model, ledger)

    def predict(self, X):
        check_is_fitted(self, "model_")
        return self.model_.predict(self._prep(X))

    def predict_proba(self, X):
        check_is_fitted(self, "model_")
        return self.model_.predict_proba(self._prep(X))


# --------------------------------------------------------------------------- greedy private trees
def _count_scaled_impurity(counts: np.ndarray) -> np.ndarray:
    """n·Gini = n − Σ_k a_k² / n over the last axis (0 for empty children).

    Under add/remove of one record only one child changes, by less than 2 (binary case:
    PRIVACY-NOTES point 2; multiclass: the change is 1 − (2a_j + 1)/(n + 1) + Σa²/(n(n + 1)),
    which lies in [(n − a_j)²/(n(n + 1)), 2)). So −(sum over children) has sensitivity Δ = 2.
    """
    n = counts.sum(axis=-1)
    sq = (counts.astype(float) ** 2).sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(n > 0, n - sq / np.where(n > 0, n, 1), 0.0)


class _GreedyPrivateTree(ClassifierMixin, BaseEstimator):
    """Shared machinery of BDPT / DPGDF: input typing, public domains, the level-wise builder."""

    _accepts_numerical = True

    # ---------------------------------------------------------------- input
    def _prepare(self, X, y, ledger):
        if isinstance(X, pd.DataFrame):
            df = X.reset_index(drop=True)
        else:
            A = np.asarray(X)
            if A.ndim != 2:
                raise ValueError(f"X must be 2-dimensional, got shape {A.shape}")
            df = pd.DataFrame(A, columns=[f"x{j}" for j in range(A.shape[1])])
            if A.dtype.kind in "fiub":
                df = df.astype(float)
        names = [str(c) for c in df.columns]
        user_cats = {} if self.categories is None else dict(self.categories)
        user_cats = {names[k] if isinstance(k, (int, np.integer)) else str(k): v for k, v in user_cats.items()}
        unknown = set(user_cats) - set(names)
        if unknown:
            raise ValueError(f"categories given for unknown features {sorted(unknown)}")
        categorical, categories = [], {}
        for j, c in enumerate(names):
            s = df.iloc[:, j]
            if c in user_cats:
                vals = list(user_cats[c])
                if len(vals) == 0 or len(set(map(str, vals))) != len(vals):
                    raise ValueError(f"categories of {c!r} must be a non-empty list of distinct values")
                categorical.append(True)
                categories[j] = vals
            elif isinstance(s.dtype, pd.CategoricalDtype):
                categorical.append(True)  # the dtype declares the category set
                categories[j] = list(s.cat.categories)
            elif s.dtype == object or s.dtype == bool or pd.api.types.is_string_dtype(s.dtype):
                ledger.record_leak(f"category set of {c!r}", "declare it with categories= or a categorical dtype")
                categorical.append(True)
                categories[j] = sorted(pd.unique(s.dropna()).tolist(), key=str)
            else:
                categorical.append(False)
        categorical = np.array(categorical, dtype=bool)
        y = np.asarray(y).ravel()
        if len(y) != len(df):
            raise ValueError("X and y have different numbers of rows")
        if pd.isna(pd.Series(y)).any():
            raise ValueError("y contains missing values")
        if self.classes is None:
            ledger.record_leak("label set", "pass classes=[...] to keep it public")
            classes = np.unique(y)
        else:
            classes = np.asarray(self.classes)
            if len(np.unique(classes)) != len(classes) or len(classes) < 2:
                raise ValueError("classes must list at least two distinct labels")
            if not np.isin(y, classes).all():
                raise ValueError("y holds labels that are not in classes")
        order = np.argsort(classes)
        classes = classes[order]
        y_idx = np.searchsorted(classes, y)
        return df, names, categorical, categories, classes, y_idx

    def _numeric_bounds(self, df, num_idx, ledger):
        if not num_idx:
            return np.zeros(0), np.zeros(0)
        if self.bounds is None:
            ledger.record_leak("numerical feature bounds", "pass bounds=(lower, upper) to keep them public")
            A = df.iloc[:, num_idx].to_numpy(dtype=float)
            return np.nanmin(A, axis=0), np.nanmax(A, axis=0)
        try:
            lo, hi = self.bounds
        except (TypeError, ValueError):
            raise ValueError("bounds must be a pair (lower, upper)") from None
        lo = np.broadcast_to(np.asarray(lo, dtype=float), (len(num_idx),)).copy()
        hi = np.broadcast_to(np.asarray(hi, dtype=float), (len(num_idx),)).copy()
        if not (np.all(np.isfinite(lo)) and np.all(np.isfinite(hi)) and np.all(lo <= hi)):
            raise ValueError("bounds must be finite with lower <= upper for every numerical feature")
        return lo, hi

    # ---------------------------------------------------------------- candidates
    def _candidates(self, depth_path):
        """Override: list of (feature j, kind, payload); see _node_utilities."""
        raise NotImplementedError

    def _node_utilities(self, rows, yk):
        """Utility (−count-scaled Gini, Δ = 2) of every candidate split of the node's rows."""
        K = self._K
        total = np.bincount(yk, minlength=K)
        utils = []
        for j, kind, payload in self._cands:
            col = self._codes[rows, j]
            if kind == "cat":  # one value vs the rest; payload = number of public categories
                k = payload
                ok = col >= 0
                cnt = np.bincount(col[ok] * K + yk[ok], minlength=k * K).reshape(k, K)
                left = cnt
            else:  # thresholds on bins; payload = number of bins
                b = payload
                cnt = np.bincount(col * K + yk, minlength=b * K).reshape(b, K)
                left = np.cumsum(cnt, axis=0)[:-1]
            right = total[None, :] - left
            utils.append(-(_count_scaled_impurity(left) + _count_scaled_impurity(right)))
        return utils

    # ---------------------------------------------------------------- fit
    def fit(self, X, y):
        from dpmodels.privacy.samplers import check_random_state

        eps = check_epsilon(self.epsilon)
        D = int(self.max_depth)
        if D < 1:
            raise ValueError("max_depth must be >= 1")
        self._plan_budget(eps, D)
        return self._fit(X, y, PrivacyLedger(eps), check_random_state(self.random_state))

    def _plan_budget(self, eps, D):
        """Set the learner's budget shares from ε and the depth D (subclasses)."""
        raise NotImplementedError

    def _fit(self, X, y, ledger, rng):
        df, names, categorical, categories, classes, y_idx = self._prepare(X, y, ledger)
        self._yk = y_idx
        try:
            return self._build(X, df, names, categorical, categories, classes, ledger, rng)
        finally:
            for a in ("_yk", "_codes", "_cands", "_edges"):
                self.__dict__.pop(a, None)

    def _build(self, X, df, names, categorical, categories, classes, ledger, rng):
        depth = int(self.max_depth)  # validated in fit
        self._K = K = len(classes)
        n, m = len(df), len(names)
        num_idx = [j for j in range(m) if not categorical[j]]
        keep = self._keep_features(names, categorical)
        lo, hi = self._numeric_bounds(df, [j for j in num_idx if keep[j]], ledger)
        codes = np.zeros((n, m), dtype=np.int64)
        self._edges = {}
        cands = []
        ni = 0
        for j in range(m):
            if not keep[j]:
                continue
            s = df.iloc[:, j]
            if categorical[j]:
                from dpmodels.tree.model import category_codes

                codes[:, j] = category_codes(s, categories[j])
                cands.append((j, "cat", len(categories[j])))
            else:
                x = s.to_numpy(dtype=float)
                if np.isnan(x).any():
                    raise ValueError(f"missing value (NaN) in numerical feature {names[j]!r}")
                x = np.clip(x, lo[ni], hi[ni])  # values outside the public bounds are clipped
                edges = self._numeric_edges(x, lo[ni], hi[ni], names[j], ledger)
                ni += 1
                if edges.size == 0:
                    continue
                self._edges[j] = edges
                codes[:, j] = np.searchsorted(edges, x, side="left")  # x <= edges[t] ⇔ code <= t
                cands.append((j, "num", edges.size + 1))
        if not cands:
            raise ValueError("no usable feature: nothing to split on")
        self._codes, self._cands = codes, cands

        # level-wise growth; nodes are created parents-first (the Tree layout needs it)
        nodes = [dict(rows=np.arange(n), depth=0, used=frozenset())]
        level = [0]
        for d in range(depth + 1):
            if not level:
                break
            level = self._grow_level(nodes, level, d, depth, ledger, rng)
        self._finish_leaves(nodes, ledger, rng)

        cl = np.full(len(nodes), -1, dtype=np.int64)
        cr = np.full(len(nodes), -1, dtype=np.int64)
        feat = np.full(len(nodes), -2, dtype=np.int64)
        thr = np.full(len(nodes), np.nan)
        lc = [None] * len(nodes)
        val = np.full((len(nodes), K), np.nan)
        lab = np.full(len(nodes), -1, dtype=np.int64)
        for i, nd in enumerate(nodes):
            if "split" in nd:
                j, kind, p, left, right = nd["split"]
                cl[i], cr[i], feat[i] = left, right, j
                if kind == "cat":
                    lc[i] = (int(p),)
                else:
                    thr[i] = float(self._edges[j][p])
            else:
                lab[i] = nd["label"]
                if nd.get("value") is not None:
                    val[i] = nd["value"]
        from dpmodels.tree.model import Tree

        tree = Tree(cl, cr, feat, thr, lc, val, lab, classes, names, categorical,
                    {j: v for j, v in categories.items()})
        ledger.check()
        self.tree_ = tree
        self.classes_ = classes
        self.n_features_in_ = m
        if isinstance(X, pd.DataFrame):
            self.feature_names_in_ = np.asarray(names, dtype=object)
        self.privacy_ledger_ = ledger
        return self

    def _split_node(self, nodes, i, rng, eps_sel, yk_all):
        nd = nodes[i]
        rows = nd["rows"]
        utils = self._node_utilities(rows, yk_all[rows])
        flat, owner = [], []
        for c, (u, (j, kind, payload)) in enumerate(zip(utils, self._cands)):
            for p in range(u.shape[0]):
                if (j, kind, p) in nd["used"]:
                    continue
                flat.append(u[p])
                owner.append((j, kind, p))
        if not flat:
            return False
        pick = self._select(np.asarray(flat), eps_sel, rng)
        j, kind, p = owner[pick]
        col = self._codes[rows, j]
        go_left = (col == p) if kind == "cat" else (col <= p)
        used = nd["used"] | ({(j, kind, p)} if kind == "cat" else set())
        left = len(nodes)
        nodes.append(dict(rows=rows[go_left], depth=nd["depth"] + 1, used=used))
        nodes.append(dict(rows=rows[~go_left], depth=nd["depth"] + 1, used=used))
        nd["split"] = (j, kind, p, left, left + 1)
        return True

    def predict(self, X):
        check_is_fitted(self, "tree_")
        return self.tree_.predict(X)

    def predict_proba(self, X):
        check_is_fitted(self, "tree_")
        return self.tree_.predict_proba(X)

    def apply(self, X):
        check_is_fitted(self, "tree_")
        return self.tree_.apply(X)

    def export_text(self, **kw):
        check_is_fitted(self, "tree_")
        return self.tree_.export_text(**kw)


class BDPTClassifier(_GreedyPrivateTree):
    """Greedy private tree after Guan, Sun, Shi, Wu & Du (2020), "BDPT" in paper 002.

    Sources, and what each part of this implementation rests on:

    * **Published (Guan et al. 2020, abstract; paper 002, Table I and Sec. III–IV):** a greedy tree
      whose splits are chosen by the exponential mechanism on the Gini index; leaves labelled from
      Laplace-noised class counts; a budget allocation in which *deeper nodes receive more budget*;
      numerical features discretised by merging every 5 consecutive feature values, which paper
      002 notes leaks the data ("only heuristically protects numerical feature values").
      Guan et al. build a forest with selective aggregation; paper 002 (and we) use one tree.
    * **Inferred from the PrivaTree authors' reimplementation** (github.com/tudelft-cda-lab/
      PrivaTree, ``privatree/bdpt.py``; facts only, no code): half of ε for split selection,
      ε/(2·max_depth) per level; the other half over depths i = 0..max_depth with weights
      ∝ 2^{i/3}; categorical splits "one value vs the rest"; min_samples_split = 2.
    * **Changed to be differentially private (PRIVACY-NOTES points 2, 8):** the published split
      selection uses the *smooth* sensitivity of Gini; the reimplementation evaluates it at a
      noisy node size (local sensitivity at a noisy count), which is not a valid DP bound. We use
      the exponential mechanism on the count-scaled Gini with its global sensitivity Δ = 2,
      which is ε-DP and, in count units, needs no more noise than the smooth bound ever gives.
      Stopping early on a pure node or a small node is a data-dependent decision; here every
      node at depth i releases its class counts with discrete Laplace noise at the depth-i share
      (histogram of L1 sensitivity 1), and the node becomes a leaf when it is at max_depth or its
      noisy size is below ``min_samples_split``; the leaf label is the argmax of those noisy
      counts (the published Laplace labelling) and the counts are the leaf's ``value``.
    * **Numerical features:** ``numeric_binning="equal_width"`` (default) cuts the public
      ``bounds`` into ``max_bins`` equal-width bins, data-independent. ``"merge5"`` is the
      published discretisation (groups of ``merge_size`` consecutive distinct training values):
      it reads the data outside any mechanism, so the ledger records a leak and the model is not
      DP. Splits on numerical features are thresholds ``x <= t`` at group/bin edges (the
      reimplementation's "one group vs the rest" is not one node of the shared tree model).

    Accounting: nodes of one depth hold disjoint records (parallel composition); depths compose
    sequentially. Ledger: for i = 0..max_depth a "class counts, depth i" row (ε/2·w_i) and for
    i < max_depth a "split selection, depth i" row (ε/(2·max_depth)); the total is ε.
    """

    def __init__(self, epsilon=1.0, max_depth=4, bounds=None, categories=None, classes=None,
                 numeric_binning="equal_width", max_bins=10, merge_size=5, min_samples_split=2,
                 random_state=None):
        self.epsilon = epsilon
        self.max_depth = max_depth
        self.bounds = bounds
        self.categories = categories
        self.classes = classes
        self.numeric_binning = numeric_binning
        self.max_bins = max_bins
        self.merge_size = merge_size
        self.min_samples_split = min_samples_split
        self.random_state = random_state

    def _keep_features(self, names, categorical):
        return np.ones(len(names), dtype=bool)

    def _numeric_edges(self, x, lo, hi, name, ledger):
        if self.numeric_binning == "equal_width":
            b = int(self.max_bins)
            if b < 2:
                raise ValueError("max_bins must be >= 2")
            if hi <= lo:
                return np.zeros(0)
            return np.linspace(lo, hi, b + 1)[1:-1]
        if self.numeric_binning == "merge5":
            ledger.record_leak(
                f"groups of {int(self.merge_size)} distinct values of {name!r} (BDPT discretisation)",
                "the published BDPT binning reads the training values; use numeric_binning='equal_width'",
            )
            u = np.unique(x)
            ms = int(self.merge_size)
            # edge after each group: x <= last value of group g goes left
            return u[ms - 1 : -1 : ms] if u.size > ms else np.zeros(0)
        raise ValueError("numeric_binning must be 'equal_width' or 'merge5'")

    def _select(self, u, eps, rng):
        from dpmodels.privacy.selection import exponential_mechanism

        return exponential_mechanism(u, eps, 2.0, rng)

    def _plan_budget(self, eps, D):
        r = 2.0 ** (1.0 / 3.0)
        w = r ** np.arange(D + 1)
        w = w / w.sum()
        self._eps_sel = eps / (2 * D)
        self._eps_cnt = eps / 2 * w

    def _grow_level(self, nodes, level, d, D, ledger, rng):
        from dpmodels.privacy.samplers import discrete_laplace

        K = self._K
        yk_all = self._yk
        e_cnt = float(self._eps_cnt[d])
        ledger.spend(f"class counts, depth {d}", "discrete Laplace", e_cnt, sensitivity=1.0,
                     composition="parallel" if len(level) > 1 else "sequential", parts=len(level))
        true = np.stack([np.bincount(yk_all[nodes[i]["rows"]], minlength=K) for i in level])
        noisy = true + discrete_laplace(1.0 / e_cnt, true.shape, rng)
        to_split = []
        for i, c in zip(level, noisy):
            if d == D or c.sum() < int(self.min_samples_split):
                nodes[i]["label"] = int(np.argmax(c))
                nodes[i]["value"] = c.astype(float)
            else:
                to_split.append(i)
                nodes[i]["noisy"] = c
        nxt = []
        if to_split:
            ledger.spend(f"split selection, depth {d}", "exponential", self._eps_sel, sensitivity=2.0,
                         composition="parallel" if len(to_split) > 1 else "sequential",
                         parts=len(to_split), note="count-scaled Gini")
            for i in to_split:
                if self._split_node(nodes, i, rng, self._eps_sel, yk_all):
                    nxt += [len(nodes) - 2, len(nodes) - 1]
                else:
                    c = nodes[i].pop("noisy")
                    nodes[i]["label"], nodes[i]["value"] = int(np.argmax(c)), c.astype(float)
        for i in to_split:
            nodes[i].pop("noisy", None)
        return nxt

    def _finish_leaves(self, nodes, ledger, rng):
        pass


class DPGDFClassifier(_GreedyPrivateTree):
    """Greedy private tree after Xin, Yang, Wang & Huang (ICASSP 2019), "DPGDF" in paper 002.

    Sources, and what each part of this implementation rests on:

    * **Published (paper 002, Table I and Sec. III, VI):** a greedy tree for *categorical features
      only*, splits chosen by the exponential mechanism, leaves labelled by the exponential
      mechanism with smooth sensitivity. Paper 002 runs it with the numerical features removed
      (``numerical="drop"``, our default; ``"error"`` refuses them).
    * **Inferred from the PrivaTree authors' reimplementation** (github.com/tudelft-cda-lab/
      PrivaTree, ``privatree/dpgdf.py``; facts only): ε split 50/50 between nodes and leaves,
      ε/(2·max_depth) per level of splits; splits "one value vs the rest", a (feature, value)
      test used higher on the path is not offered again; leaf utility 1 for the majority class.
    * **Changed to be differentially private:** the smooth-sensitivity leaf labelling, as the
      reimplementation reads it (exponential mechanism on the majority indicator with
      sensitivity e^{−gap·ε}), is *not* ε-DP: for a count gap g the probability of the minority
      label is ≈ exp(−ε·e^{gε}), and its ratio between neighbours (gap g vs g + 1) is
      exp(ε e^{gε}(e^ε − 1)), unbounded in g (at ε = 0.1, g = 50 the log-ratio is 1.56 > ε). We
      label leaves with the exponential mechanism on the class counts (global sensitivity 1,
      monotone), or permute-and-flip (``leaf_mechanism="permute-and-flip"``), one parallel row for
      all leaves. Splits use the exponential mechanism (``split_mechanism``) on the count-scaled
      Gini with Δ = 2 (PRIVACY-NOTES point 2). The reimplementation's data-dependent stopping
      (pure node, fewer than 11 rows) is dropped: the tree grows to ``max_depth`` unless no
      candidate test is left (a public condition). Leaves release a label only (``value`` is NaN
      in the tree); ``predict_proba`` is the one-hot label.

    Accounting: ``max_depth`` sequential "split selection" rows at ε/(2·max_depth) (parallel
    across the nodes of a level) and one "leaf labels" row at ε/2 (parallel across leaves).
    """

    _accepts_numerical = False

    def __init__(self, epsilon=1.0, max_depth=4, categories=None, classes=None, numerical="drop",
                 split_mechanism="exponential", leaf_mechanism="exponential", random_state=None):
        self.epsilon = epsilon
        self.max_depth = max_depth
        self.categories = categories
        self.classes = classes
        self.numerical = numerical
        self.split_mechanism = split_mechanism
        self.leaf_mechanism = leaf_mechanism
        self.random_state = random_state

    bounds = None  # numerical features are never used

    def _keep_features(self, names, categorical):
        if self.numerical not in ("drop", "error"):
            raise ValueError("numerical must be 'drop' or 'error'")
        if not categorical.all():
            num = [names[j] for j in np.flatnonzero(~categorical)]
            if self.numerical == "error":
                raise ValueError(f"DPGDF handles categorical features only; numerical: {num}")
            warnings.warn(f"DPGDF ignores the numerical features {num} (paper 002 protocol)",
                          UserWarning, stacklevel=4)
        if not categorical.any():
            raise ValueError("DPGDF needs at least one categorical feature")
        return categorical.copy()

    def _numeric_edges(self, x, lo, hi, name, ledger):  # pragma: no cover - never called
        return np.zeros(0)

    def _select(self, u, eps, rng):
        from dpmodels.privacy import selection

        mech = {"exponential": selection.exponential_mechanism,
                "permute-and-flip": selection.permute_and_flip}.get(self.split_mechanism)
        if mech is None:
            raise ValueError("split_mechanism must be 'exponential' or 'permute-and-flip'")
        return mech(u, eps, 2.0, rng)

    def _plan_budget(self, eps, D):
        if self.leaf_mechanism not in ("exponential", "permute-and-flip"):
            raise ValueError("leaf_mechanism must be 'exponential' or 'permute-and-flip'")
        self._eps_sel = eps / (2 * D)
        self._eps_leaf = eps / 2
        if self.split_mechanism not in ("exponential", "permute-and-flip"):
            raise ValueError("split_mechanism must be 'exponential' or 'permute-and-flip'")

    def _grow_level(self, nodes, level, d, D, ledger, rng):
        if d == D:
            return []
        ledger.spend(f"split selection, depth {d}", self.split_mechanism, self._eps_sel,
                     sensitivity=2.0, composition="parallel" if len(level) > 1 else "sequential",
                     parts=len(level), note="count-scaled Gini")
        nxt = []
        for i in level:
            if self._split_node(nodes, i, rng, self._eps_sel, self._yk):
                nxt += [len(nodes) - 2, len(nodes) - 1]
        return nxt

    def _finish_leaves(self, nodes, ledger, rng):
        from dpmodels.privacy.selection import select_rows

        leaves = [i for i, nd in enumerate(nodes) if "split" not in nd]
        K = self._K
        counts = np.stack([np.bincount(self._yk[nodes[i]["rows"]], minlength=K) for i in leaves])
        ledger.spend("leaf labels (all leaves)", self.leaf_mechanism, self._eps_leaf, sensitivity=1.0,
                     composition="parallel" if len(leaves) > 1 else "sequential", parts=len(leaves),
                     note="class counts, monotone")
        labels = select_rows(counts, self._eps_leaf, 1.0, rng, monotone=True,
                             mechanism=self.leaf_mechanism)
        for i, lab in zip(leaves, labels):
            nodes[i]["label"] = int(lab)
            nodes[i]["value"] = None

    def predict_proba(self, X):
        check_is_fitted(self, "tree_")
        leaf = self.tree_.apply(X)
        P = np.zeros((len(leaf), len(self.classes_)))
        P[np.arange(len(leaf)), self.tree_.label[leaf]] = 1.0
        return P
