"""Input encoding shared by the baselines that take a numeric matrix (DPA, the diffprivlib wrappers).

Categorical features become the integer codes of their **public** category lists (paper 002, Sec. VI
uses this encoding for the learners without native categorical support), every other value — of
any type, missing included — code -1; numerical features are floats (NaN / ±inf are schema
errors). What is public is decided by :func:`dpmodels.validation.resolve_categories`: lists from
``categories=`` or a pandas ``category`` dtype; other non-numeric columns are read from the data
(a leak row in ``ledger`` for the private learners).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ...validation import resolve_bounds, resolve_categories
from ..model import encode_matrix

__all__ = ["OrdinalEncoder", "feature_names"]


def feature_names(X):
    if isinstance(X, pd.DataFrame):
        return np.asarray([str(c) for c in X.columns], dtype=object)
    return None


class OrdinalEncoder:
    """Numeric matrix from a DataFrame or array: numbers as float, categories as public codes."""

    def __init__(self, categories=None, bounds=None, clip=False):
        self.categories = categories
        self.bounds = bounds
        self.clip = clip

    def fit(self, X, ledger=None):
        """Kinds and category lists by :func:`dpmodels.validation.resolve_categories`: ``bounds``
        (a pair, or a dict by column name) declares features numerical whatever their dtype. With
        ``clip``, :meth:`transform` clips the numerical features to the declared bounds."""
        self.names_, self.categorical_, self.categories_ = resolve_categories(
            X, self.categories, ledger, bounds=self.bounds
        )
        self._lo = self._hi = None
        if self.clip and self.bounds is not None:
            num = np.flatnonzero(~self.categorical_)
            if isinstance(self.bounds, dict):
                num = np.array([j for j in num if self.names_[j] in self.bounds or j in self.bounds], dtype=int)
            self._num = num
            self._lo, self._hi = resolve_bounds(self.bounds, self.names_, num)
        return self

    def transform(self, X) -> np.ndarray:
        if not isinstance(X, pd.DataFrame):
            X = np.asarray(X)
            if X.ndim != 2:
                raise ValueError(f"X must be 2-dimensional, got shape {X.shape}")
        A = encode_matrix(X, self.names_, self.categorical_, self.categories_)
        if self._lo is not None and self._num.size:
            A[:, self._num] = np.clip(A[:, self._num], self._lo, self._hi)
        return A
