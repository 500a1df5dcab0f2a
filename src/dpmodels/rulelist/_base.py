"""Shared pieces of the rule-list learners: input validation, split statistics, the estimator API."""

from __future__ import annotations

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_consistent_length, check_is_fitted, validate_data

from .._binary import binary_matrix, encode_labels
from .._format import FittedReprMixin, estimator_header
from .._params import Integral, Interval, Real, StrOptions, validate_params
from ..data.rules import GROUPS_ATTR, check_feature_groups
from ..data.sources import _is_dask, map_partitions
from ..validation import apply_unit_sample_weight, check_y, min_fit_samples, resolve_classes
from .candidates import RuleCandidates
from .model import RuleList
from .split_stats import single_threaded_blas

__all__ = ["RuleListEstimator"]


class RuleListEstimator(FittedReprMixin, ClassifierMixin, BaseEstimator):
    """scikit-learn plumbing shared by the greedy and the private rule-list classifiers."""

    # learners whose search is over two classes only (the optimal branch-and-bound) set this
    _binary_only = False

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        # K > 2 classes need them declared (classes=[...]); without, the schema is {0, 1}
        tags.classifier_tags.multi_class = not self._binary_only and getattr(self, "classes", None) is not None
        return tags

    # ------------------------------------------------------------ validation
    # the parameters the greedy and private lists share; subclasses add theirs (dpmodels._params)
    _parameter_constraints: dict = {
        "max_rules": [Interval(Integral, 1, None, closed="left")],
        "min_support": [Interval(Real, 0, 1, closed="left")],
        "max_width": [Interval(Integral, 1, None, closed="left")],
        "classes": "no_validation",  # declarations: dpmodels.validation
        "feature_groups": [StrOptions({"auto"}), None, dict],
        "candidates": [StrOptions({"conjunctions", "columns"})],
    }

    def _check_common_params(self):
        validate_params(self)

    def _validate_fit_data(self, X, y):
        if _binary_frame(X):
            # already 0/1-typed columns of one dtype (a Binarizer's output): scikit-learn records
            # the feature names and count without its per-column conversion checks; the values
            # are still checked by _to_binary
            X = validate_data(self, X, skip_check_array=True).to_numpy()
        else:
            X = validate_data(self, X, dtype=None, ensure_all_finite=True, ensure_min_samples=min_fit_samples())
        y = check_y(y, type(self).__name__)
        check_consistent_length(X, y)
        Xb = self._to_binary(X)
        yb = self._encode_labels(y)
        names = (
            [str(c) for c in self.feature_names_in_]
            if hasattr(self, "feature_names_in_")
            else [f"x{i}" for i in range(Xb.shape[1])]
        )
        return Xb, yb, names

    def _make_candidates(self, X, names) -> RuleCandidates:
        """The public candidate set: conjunctions over ``names``, minus those the declared feature
        groups make empty or redundant (:mod:`dpmodels.data.rules`).

        ``feature_groups="auto"`` reads the declaration a :class:`~dpmodels.data.Binarizer` (or a
        bundled binarized loader) wrote in ``X.attrs["dpmodels_groups"]``; a dict declares the
        groups explicitly; ``None`` uses every conjunction. The declaration describes the columns,
        not the records: the candidate set stays a function of the schema.

        The parameters were validated (``_parameter_constraints``) by the caller: every fit
        path, and whoever builds candidates without fitting, validates first.
        """
        if getattr(self, "candidates", "conjunctions") == "columns":  # a pre-mined rule set
            return RuleCandidates.from_columns(names)
        fg = getattr(self, "feature_groups", None)  # a subclass without the parameter: no groups
        if fg == "auto":
            attrs = getattr(X, "attrs", None)
            declared = attrs.get(GROUPS_ATTR) if isinstance(attrs, dict) else None
            groups = check_feature_groups(declared, names, strict=False)
        else:
            groups = check_feature_groups(fg, names, strict=True)
        return RuleCandidates.from_features(names, self.max_width, groups)

    def _guarded_candidates(self, X, names, n_for_estimate) -> RuleCandidates:
        """:meth:`_make_candidates`, refused before any release when the set is too large
        (:mod:`dpmodels.guards`; ``n_for_estimate``: a public n, or — non-private learners — the
        true one). The closed-form count without the groups' exclusions bounds the set: beyond
        ``BUILD_FACTOR`` × the limit it is refused unbuilt; otherwise the set is built and its
        exact size decides. Both counts depend on the schema only."""
        from ..guards import BUILD_FACTOR, check_rule_candidates, max_candidates, n_rule_candidates

        kw = dict(max_rules=self.max_rules, n_public=n_for_estimate, learner=type(self).__name__)
        if getattr(self, "candidates", "conjunctions") == "columns":
            cands = self._make_candidates(X, names)
            check_rule_candidates(len(names), 1, n_candidates=len(cands), **kw)
            return cands
        bound = n_rule_candidates(len(names), self.max_width)
        limit = max_candidates()
        if limit is not None and bound > BUILD_FACTOR * limit:
            check_rule_candidates(len(names), self.max_width, n_candidates=bound, upper_bound=True, **kw)
        cands = self._make_candidates(X, names)
        check_rule_candidates(len(names), self.max_width, n_candidates=len(cands), **kw)
        return cands

    def _encode_labels(self, y) -> np.ndarray:
        """The public label set (``classes=``: K ≥ 2 labels, else the schema {0, 1}) and y as
        indices into it (:func:`dpmodels._binary.encode_labels`)."""
        return encode_labels(self, y)

    def _validate_predict_data(self, X):
        check_is_fitted(self, "rule_list_")
        X = validate_data(self, X, dtype=None, ensure_all_finite=True, reset=False)
        return self._to_binary(X)

    def _to_binary(self, X) -> np.ndarray:
        """Validated 0/1 uint8 matrix (a hook: tests subclass it to run scikit-learn's checks).
        Counts are computed from it in float64 or int64 (exact), never in its own dtype."""
        return binary_matrix(X, np.uint8)

    # ------------------------------------------------- checks before spending
    def _check_params(self):  # dpmodels.privacy.steps.ParamCheck
        """The learner's parameter checks (no data read); DP learners add theirs."""
        self._check_common_params()

    def _validate_params(self):  # scikit-learn's hook, and the pre-spend checks': the same checks
        self._check_params()

    def _guard_n(self, y):
        """The n the candidate guard may use: non-private learners their true n (overridden)."""
        return len(y)

    def _validate_before_spend(self, X, y):
        """Every check of a fit that needs no release, for :mod:`dpmodels.pipeline`: parameters,
        the labels against ``classes`` (the schema {0, 1} without it) and — when ``X``'s columns
        are known (``X=None``: they are not) — the candidate-set guard over its columns and
        declared groups. ``X`` may be an empty frame describing the columns an earlier step will
        produce (:meth:`dpmodels.data.Binarizer._validate_before_spend`). Returns None."""
        self._validate_params()
        name = type(self).__name__
        y = check_y(y, name)
        declared = getattr(self, "classes", None)  # K >= 2 declared labels, as fit reads them
        resolve_classes(declared, y, None, binary=declared is None or self._binary_only)
        if X is None:
            return None
        if isinstance(X, pd.DataFrame):
            cols = list(X.columns)
            names = (
                [str(c) for c in cols] if all(isinstance(c, str) for c in cols) else [f"x{i}" for i in range(len(cols))]
            )
        else:
            names = [f"x{i}" for i in range(np.shape(X)[1])]
        self._guarded_candidates(X, names, self._guard_n(y))
        return None

    # ------------------------------------------------------------------- API
    def fit(self, X, y=None, sample_weight=None):
        """Fit the rule list (learners implement ``_fit``); BLAS runs single-threaded meanwhile.

        ``X``: a 0/1 matrix or frame, or — GreedyRL and the DP rule list — partitioned input: a
        :class:`~dpmodels.data.ParquetSource`, a :class:`~dpmodels.data.DaskSource` (or a Dask
        frame with ``y`` a Dask series of it), or either binarized by a fitted
        :class:`~dpmodels.data.Binarizer` (``binarizer.transform(source)``), fitted by count
        passes (:mod:`dpmodels.rulelist._partitioned`; ``n_partitions_`` and ``n_passes_`` record
        how many partitions were read and how many passes it took).

        ``sample_weight``: None, or 0/1 per row (0 leaves the record out); a weight above 1 is
        refused before anything is spent (:func:`dpmodels.validation.apply_unit_sample_weight`).
        """
        from ..data.sources import is_partitioned

        if is_partitioned(X, y):  # Parquet / Dask / a binarized source: count passes
            if not getattr(self, "_partitioned_fit", False):
                raise ValueError(f"{type(self).__name__} does not fit on partitioned input")
            from ._partitioned import fit_source

            return fit_source(self, X, y, sample_weight)
        X, y = apply_unit_sample_weight(X, y, sample_weight, type(self).__name__)
        with single_threaded_blas():
            return self._fit(X, y)

    def predict(self, X):
        """Labels of the rows of ``X``; a Dask DataFrame gets a Dask Series (partition by partition)."""
        if _is_dask(X):
            return map_partitions(self, X, "predict")
        Xb = self._validate_predict_data(X)
        return self.classes_[self.rule_list_.predict_encoded(Xb)]

    def predict_proba(self, X):
        """Class probabilities; a Dask DataFrame gets a Dask DataFrame (one column per class)."""
        if _is_dask(X):
            return map_partitions(self, X, "predict_proba")
        Xb = self._validate_predict_data(X)
        return self.rule_list_.predict_proba_encoded(Xb)

    def apply(self, X):
        """Index of the rule capturing each row (``len(rule_list_.rules)`` is the default rule);
        a Dask DataFrame gets a Dask Series."""
        if _is_dask(X):
            return map_partitions(self, X, "apply")
        return self.rule_list_.apply(self._validate_predict_data(X))

    _display_params: tuple[str, ...] = ("max_rules", "max_width", "min_support")

    def to_text(self, *, merge: bool = False) -> str:
        """The fitted list with a header (learner, ε, δ and the ledger's verdict, n, classes);
        ``merge=True`` shows the trailing rules that predict the default's class merged into it
        (:meth:`RuleList.to_text`)."""
        check_is_fitted(self, "rule_list_")
        header = estimator_header(self, self.rule_list_, self._display_params)
        return self.rule_list_.to_text(merge=merge, header=header)

    def get_rules(self, *, merge: bool = False):
        """One row per rule as a DataFrame (:meth:`RuleList.get_rules`)."""
        check_is_fitted(self, "rule_list_")
        return self.rule_list_.get_rules(merge=merge)

    def __str__(self):
        if not hasattr(self, "rule_list_"):
            return self.__repr__()
        return self.to_text()

    def _build_rule_list(self, names, rules, default, noisy) -> RuleList:
        return RuleList(list(names), rules, default, list(self.classes_.tolist()), noisy)


def _binary_frame(X) -> bool:
    """A non-empty DataFrame whose columns are all uint8 or all bool (numpy dtypes): its
    ``to_numpy()`` is the matrix scikit-learn's ``check_array`` would return."""
    if not isinstance(X, pd.DataFrame) or X.shape[0] < 1 or X.shape[1] < 1:
        return False
    dtypes = set(X.dtypes)
    return dtypes == {np.dtype(np.uint8)} or dtypes == {np.dtype(bool)}


def _binary_matrix(X) -> np.ndarray:
    """The validated 0/1 matrix as float64 (:func:`dpmodels._binary.binary_matrix`)."""
    return binary_matrix(X, np.float64)
