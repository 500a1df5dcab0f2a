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

from ...validation import resolve_categories
from ..model import encode_matrix

__all__ = ["OrdinalEncoder", "feature_names"]


def feature_names(X):
    if isinstance(X, pd.DataFrame):
        return np.asarray([str(c) for c in X.columns], dtype=object)
    return None


class OrdinalEncoder:
    """Numeric matrix from a DataFrame or array: numbers as float, categories as public codes."""

    def __init__(self, categories=None, bounds=None):
        self.categories = categories
        self.bounds = bounds

    def fit(self, X, ledger=None):
        """Kinds and category lists by :func:`dpmodels.validation.resolve_categories`; a pair of
        ``bounds`` declares every feature not declared categorical numerical (a dict of bounds is
        not passed on: the diffprivlib tree's dict covers encoded columns, categorical ones too)."""
        pair = None if isinstance(self.bounds, dict) else self.bounds
        self.names_, self.categorical_, self.categories_ = resolve_categories(X, self.categories, ledger,
                                                                              bounds=pair)
        return self

    def transform(self, X) -> np.ndarray:
        if not isinstance(X, pd.DataFrame):
            X = np.asarray(X)
            if X.ndim != 2:
                raise ValueError(f"X must be 2-dimensional, got shape {X.shape}")
        return encode_matrix(X, self.names_, self.categorical_, self.categories_)
