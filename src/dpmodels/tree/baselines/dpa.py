"""Deep Partition Aggregation (Levine & Feizi, ICLR 2021): the certified reference of paper 002.

An ensemble of non-private scikit-learn trees on *disjoint* partitions of the training set chosen
by a deterministic hash of each record, predicting by plurality vote, with a per-prediction
certificate of robustness to poisoning. Not private, not interpretable.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_is_fitted

from ..._params import Integral, Interval, validate_params
from ...validation import apply_unit_sample_weight, category_codes, check_y, resolve_classes
from ._encoding import OrdinalEncoder, feature_names

__all__ = ["DPAClassifier", "dpa_certificates"]


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


def _label_keys(y, classes):
    """What the partition hash reads of each label: its index in the declared label set (every
    other label: -1), or — label set undeclared — the label as text."""
    y = check_y(y, "DPAClassifier")
    if classes is not None:
        return category_codes(y, list(classes))
    return pd.Series(y, dtype=object).map(_text).to_numpy(dtype=object)


def _text(v) -> str:
    try:
        return f"{type(v).__name__}:{v}"
    except Exception:
        return type(v).__name__


class DPAClassifier(ClassifierMixin, BaseEstimator):
    """Deep Partition Aggregation with decision trees (Levine & Feizi, ICLR 2021).

    The training set is split into ``n_estimators`` disjoint partitions by a deterministic hash of
    each record's encoded content (numbers, category codes and the label;
    :func:`pandas.util.hash_pandas_object`, a keyed SipHash with a fixed key, so the assignment does
    not depend on row order, nor — with declared ``categories`` — on any other record). One non-private, deterministic scikit-learn ``DecisionTreeClassifier(max_depth)`` is
    fitted per non-empty partition; empty partitions abstain. ``predict`` is the plurality vote
    (ties to the lowest class index) and :meth:`certify` gives, per prediction, the number of
    poisoned training records (insertions or removals) it is provably robust to.

    Paper 002 uses 1000 trees of depth 4. DPA is neither private nor interpretable; it is the
    certified reference of Fig. 3. Categorical columns are integer-encoded (paper 002, Sec. VI) over
    their public lists (``categories=`` or a ``category`` dtype; other non-numeric columns are read
    from the data — DPA is not private, so nothing is recorded). ``bounds`` (a pair, or a dict by
    column name) declares numerical columns whatever their dtype (docs/privacy.md, "Declarations,
    not dtypes") and clips them; declare every column so that a record's partition depends on
    that record only. ``classes``: the label set, in order (``classes_`` is exactly it); ``None``
    reads it from y. A one-class y is valid input.
    """

    _parameter_constraints: dict = {
        "n_estimators": [Interval(Integral, 1, None, closed="left")],
        "max_depth": [None, Interval(Integral, 1, None, closed="left")],
        "hash_key": [str],
        "classes": "no_validation",  # declarations: dpmodels.validation
        "categories": [None, dict],
        "bounds": "no_validation",
    }

    def __init__(
        self, n_estimators=1000, max_depth=4, hash_key="0123456789123456", classes=None, categories=None, bounds=None
    ):
        self.n_estimators = n_estimators
        self.max_depth = max_depth
        self.hash_key = hash_key
        self.classes = classes
        self.categories = categories
        self.bounds = bounds

    def partition_of(self, X, y) -> np.ndarray:
        """Partition index of each record (X, y): hash of the record's content mod n_estimators.

        The content hashed is the record's *encoding* — numbers as float64, categorical values as
        their codes in the public category lists (every value outside them is the unknown code) —
        and its label, never the raw Python objects: an object whose ``__hash__`` or ``__str__``
        raises cannot make the partitioning raise (docs/privacy.md, "Declarations, not dtypes").
        Before ``fit`` the encoding is taken from ``X`` itself with the declared ``categories``.
        """
        k = int(self.n_estimators)
        enc = getattr(self, "_enc", None) or OrdinalEncoder(self.categories, self.bounds, clip=True).fit(X)
        A = np.asarray(enc.transform(X), dtype=np.float64) + 0.0  # + 0.0: -0.0 and 0.0 hash alike
        df = pd.DataFrame(A, columns=[str(j) for j in range(A.shape[1])])
        df["__label__"] = _label_keys(y, getattr(self, "classes_", None) if self.classes is not None else None)
        h = pd.util.hash_pandas_object(df, index=False, hash_key=self.hash_key).to_numpy(np.uint64)
        return (h % np.uint64(k)).astype(np.int64)

    def fit(self, X, y, sample_weight=None):
        """Fit; ``sample_weight``: None or 0/1 per row (a record drawn twice would sit in one
        partition twice, and the certificate counts records once)."""
        from sklearn.tree import DecisionTreeClassifier

        validate_params(self)
        X, y = apply_unit_sample_weight(X, y, sample_weight, type(self).__name__)
        names = feature_names(X)
        if names is not None:
            self.feature_names_in_ = names
        self._enc = OrdinalEncoder(self.categories, self.bounds, clip=True).fit(X)
        A = self._enc.transform(X)
        self.n_features_in_ = A.shape[1]
        y = check_y(y, type(self).__name__)
        if len(y) != A.shape[0]:
            raise ValueError("X and y have different numbers of rows")
        self.classes_, y_idx = resolve_classes(self.classes, y)  # non-private: no ledger
        part = self.partition_of(X, y)
        order = np.argsort(part, kind="stable")
        bounds = np.searchsorted(part[order], np.arange(int(self.n_estimators) + 1))
        self.estimators_: list[Any] = []  # one fitted tree per partition, None where it is empty
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
