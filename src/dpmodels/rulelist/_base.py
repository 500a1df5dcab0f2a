"""Shared pieces of the rule-list learners: input validation, split statistics, the estimator API."""

from __future__ import annotations

import functools
import numbers

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_consistent_length, check_is_fitted, validate_data
from threadpoolctl import ThreadpoolController

from .._format import estimator_header
from ..data.rules import GROUPS_ATTR, RuleCandidates, check_feature_groups, moments
from ..validation import apply_unit_sample_weight, check_y, resolve_classes
from .model import RuleList

__all__ = ["count_scaled_gini", "count_scaled_gini_k", "SplitStats", "RuleListEstimator"]


def count_scaled_gini(pos, tot):
    """Σ-form of the Gini impurity of one child: 2·a·b/(a+b) with a = pos, b = tot − pos (0 if empty).

    Dividing the sum over both children of a split by ñ gives Eq. (1)+(2) of paper 000; at a fixed
    position every candidate splits the same ñ records, so ranking by this is ranking by Gini.
    Under add/remove of one record it changes by < 2 (docs/privacy.md, principle 2; see ``docs/privacy.md``).
    """
    pos = np.asarray(pos, dtype=float)
    tot = np.asarray(tot, dtype=float)
    neg = tot - pos
    return np.divide(2.0 * pos * neg, tot, out=np.zeros(np.broadcast(pos, tot).shape), where=tot > 0)


def count_scaled_gini_k(counts, tot):
    """K-class count-scaled Gini of one child: n − Σ_k a_k²/n with n = ``tot`` (0 if empty).

    ``counts``: the class counts a_k along the first axis (shape (K, ...)). For K = 2 it equals
    :func:`count_scaled_gini` (n − (a² + b²)/n = 2ab/n). Under add/remove of one record it changes
    by a value in [0, 2) (``docs/privacy.md``, "Rule lists over K classes").
    """
    a = np.asarray(counts, dtype=float)
    tot = np.asarray(tot, dtype=float)
    sq = (a * a).sum(axis=0)
    return np.divide(tot * tot - sq, tot, out=np.zeros(np.broadcast(sq, tot).shape), where=tot > 0)


class SplitStats:
    """Counts of the remaining records captured by every candidate (vectorised, no noise).

    Whether a rule captures a record depends only on the record's row of binary features, so the
    Gram products run over the *distinct* rows, weighted by how many remaining records (and
    remaining positives) share each row: ~10× fewer rows on binarized Adult. Everything is float64,
    so every count is an exact integer up to 2^53 records (float32 would stop being exact above
    2^24 and break the sensitivity proofs, docs/privacy.md, principle 16).

    Successive calls of a rule-list fit only remove records, so for ``max_width <= 2`` the two Gram
    matrices (weights w and w·y) are *updated* with the distinct rows whose weights changed instead
    of recomputed: a downdate by integer weights, exact in float64 like the full product (which is
    used instead when more than half the distinct rows changed).

    ``n_classes`` K: y holds class indices 0..K−1. K = 2: ``P`` and ``captured_pos`` count class 1
    (a scalar and a vector). K > 2: one weight column per class 1..K−1, so ``P`` has shape (K−1,)
    and ``captured_pos`` (K−1, candidates); class 0 is the rest.
    """

    def __init__(self, candidates: RuleCandidates, Xf: np.ndarray, y: np.ndarray, n_classes: int = 2):
        self.candidates = candidates
        first, self.inverse = _distinct_rows(Xf)
        self.patterns = Xf[first].astype(np.float64)
        self.n_classes = int(n_classes)
        if self.n_classes == 2:
            self.y = y.astype(np.float64)
        else:  # one indicator column per class 1..K-1 (exact 0/1 floats)
            self.y = (np.asarray(y)[:, None] == np.arange(1, self.n_classes)[None, :]).astype(np.float64)
        self._W: np.ndarray | None = None  # (m, J) weights of the last call and the Gram matrices they give
        self._A: list | None = None
        self._pairs: tuple | None = None  # width 3: the column pairs of the third-order moments

    def __call__(self, remaining: np.ndarray):
        """Return (N, P, captured, captured_pos) for the remaining mask (see the class docstring
        for the shapes with K > 2 classes)."""
        m = len(self.patterns)
        r = remaining.astype(np.float64)
        w = np.bincount(self.inverse, weights=r, minlength=m)
        if self.n_classes == 2:
            wy = [np.bincount(self.inverse, weights=r * self.y, minlength=m)]
        else:
            wy = [np.bincount(self.inverse, weights=r * self.y[:, k], minlength=m) for k in range(self.n_classes - 1)]
        W = np.column_stack([w, *wy])  # float64: exact integer weights
        J = W.shape[1]
        totals = W.sum(axis=0)
        if self.candidates.max_width == 3:
            counts = self._width3(W, totals)
        elif self.candidates.max_width == 1:  # single literals: column sums only
            S = self.patterns.T @ W
            counts = [self.candidates.counts_from_moments(float(totals[j]), S[:, j], None) for j in range(J)]
        elif self.candidates.max_width > 2:
            counts = self.candidates.counts_many(self.patterns, W)
        else:
            X = self.patterns
            changed = None if self._W is None else np.flatnonzero((W != self._W).any(axis=1))
            if changed is None or 2 * changed.size > m:
                self._A = [X.T @ (X * W[:, j : j + 1]) for j in range(J)]
            elif changed.size:
                assert self._W is not None and self._A is not None  # set by the previous call
                Xc, dW = X[changed], W[changed] - self._W[changed]
                for j in range(J):
                    self._A[j] += Xc.T @ (Xc * dW[:, j : j + 1])
            self._W = W
            S = X.T @ W
            A = self._A
            assert A is not None
            counts = [self.candidates.counts_from_gram(A[j], S[:, j], float(totals[j])) for j in range(J)]
        if self.n_classes == 2:
            return float(totals[0]), float(totals[1]), counts[0], counts[1]
        return float(totals[0]), np.asarray(totals[1:], dtype=float), counts[0], np.stack(counts[1:])

    def _width3(self, W, totals):
        """Counts of conjunctions of up to three literals from the moments of the weights (up to
        third order, :func:`~dpmodels.data.rules.moments`), one array per column of ``W``, updated
        by the distinct rows whose weights changed since the last call (exact integer downdates,
        like the Gram matrices)."""
        cands = self.candidates
        if self._pairs is None:
            self._pairs = cands.pair_rows()
        index, pairs = self._pairs
        changed = None if self._W is None else np.flatnonzero((W != self._W).any(axis=1))
        if changed is None or 2 * changed.size > len(W):
            _, s, A, T = moments(self.patterns, W, pairs)
            self._A = [A, T]
        elif changed.size:
            _, _, dA, dT = moments(self.patterns, W - self._W, pairs, rows=changed)
            self._A[0] += dA
            self._A[1] += dT
        self._W = W
        A, T = self._A
        s = self.patterns.T @ W
        return [
            cands.counts_from_moments(float(totals[j]), s[:, j], A[..., j], T[..., j], index) for j in range(W.shape[1])
        ]

    @staticmethod
    def split_impurity(N, P, cap, cap_pos):
        """Count-scaled Gini of every candidate split (captured child + uncaptured child); K > 2
        classes when ``P`` is a vector (:func:`count_scaled_gini_k`)."""
        if np.ndim(P) == 0:
            return count_scaled_gini(cap_pos, cap) + count_scaled_gini(P - cap_pos, N - cap)
        P = np.asarray(P, dtype=float)[:, None]
        inside = np.vstack([cap - cap_pos.sum(axis=0), cap_pos])
        outside_pos = P - cap_pos
        outside = np.vstack([(N - cap) - outside_pos.sum(axis=0), outside_pos])
        return count_scaled_gini_k(inside, cap) + count_scaled_gini_k(outside, N - cap)

    @staticmethod
    def node_impurity(N, P) -> float:
        """Count-scaled Gini of the remaining records as one child (the "stop" candidate)."""
        if np.ndim(P) == 0:
            return float(count_scaled_gini(P, N))
        P = np.asarray(P, dtype=float)
        return float(count_scaled_gini_k(np.concatenate([[N - P.sum()], P]), N))

    @staticmethod
    def class_counts(N, P, cap=None, cap_pos=None, k=None) -> np.ndarray:
        """Class counts (K,) of the remaining records, or of the records candidate ``k`` captures."""
        if cap is None:
            tot, pos = N, P
        else:
            tot, pos = cap[k], (cap_pos[k] if np.ndim(P) == 0 else cap_pos[:, k])
        pos = np.atleast_1d(np.asarray(pos, dtype=float))
        return np.concatenate([[float(tot) - pos.sum()], pos])


def _distinct_rows(Xf: np.ndarray):
    """``(first, inverse)``: the index of one row per distinct 0/1 row, and each row's group.

    Rows are packed to bits and read as 64-bit words; one word: ``np.unique``; more: a lexsort of
    the words (integer sorts, several times faster than ``np.unique(axis=0)`` on byte rows).
    """
    packed = np.packbits(Xf.astype(bool), axis=1)
    n, nbytes = packed.shape
    words = -(-nbytes // 8)
    buf = np.zeros((n, words * 8), dtype=np.uint8)
    buf[:, :nbytes] = packed
    keys = buf.view(np.uint64)  # (n, words)
    if words == 1:
        _, first, inverse = np.unique(keys[:, 0], return_index=True, return_inverse=True)
        return first, inverse.ravel()
    order = np.lexsort(keys.T[::-1])
    sk = keys[order]
    new = np.ones(n, dtype=bool)
    new[1:] = (sk[1:] != sk[:-1]).any(axis=1)
    inverse = np.empty(n, dtype=np.int64)
    inverse[order] = np.cumsum(new) - 1
    return order[new], inverse


@functools.cache
def _threadpool_controller() -> ThreadpoolController:
    return ThreadpoolController()  # scanning the loaded libraries costs ~6 ms: do it once


def single_threaded_blas():
    """The Gram products here are small (p × n × p): BLAS threads only contend (16× slower measured
    on a loaded 2-core machine), so fits run with one BLAS thread."""
    return _threadpool_controller().limit(limits=1, user_api="blas")


def _check_positive_int(value, name):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 1:
        raise ValueError(f"{name} must be a positive integer, got {value!r}")
    return int(value)


def _check_fraction(value, name):
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not (0.0 <= value < 1.0):
        raise ValueError(f"{name} must be a number in [0, 1), got {value!r}")
    return float(value)


class RuleListEstimator(ClassifierMixin, BaseEstimator):
    """scikit-learn plumbing shared by the greedy and the private rule-list classifiers."""

    # learners whose search is over two classes only (the optimal branch-and-bound) set this
    _binary_only = False

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        # K > 2 classes need them declared (classes=[...]); without, the schema is {0, 1}
        tags.classifier_tags.multi_class = not self._binary_only and getattr(self, "classes", None) is not None
        return tags

    # ------------------------------------------------------------ validation
    def _check_common_params(self):
        _check_positive_int(self.max_rules, "max_rules")
        _check_fraction(self.min_support, "min_support")
        _check_positive_int(self.max_width, "max_width")

    def _validate_fit_data(self, X, y):
        X = validate_data(self, X, dtype=None, ensure_all_finite=True)
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
        """
        mode = getattr(self, "candidates", "conjunctions")
        if mode == "columns":  # a pre-mined rule set, one column per rule
            return RuleCandidates.from_columns(names)
        if mode != "conjunctions":
            raise ValueError(f"candidates must be 'conjunctions' or 'columns', got {mode!r}")
        fg = getattr(self, "feature_groups", None)  # a subclass without the parameter: no groups
        if isinstance(fg, str):
            if fg != "auto":
                raise ValueError(f"feature_groups must be 'auto', None or a dict, got {fg!r}")
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
        indices into it (for two classes: 0/1, 1 = classes[1]).

        Never inferred from which labels occur (:func:`dpmodels.validation.resolve_classes`): a
        label outside the label set is a schema error; a one-class training set is valid.
        """
        # getattr: a subclass without a ``classes`` parameter gets the schema {0, 1}
        declared = getattr(self, "classes", None)
        binary = declared is None or self._binary_only
        self.classes_, y_idx = resolve_classes(declared, y, None, binary=binary)
        return y_idx

    def _validate_predict_data(self, X):
        check_is_fitted(self, "rule_list_")
        X = validate_data(self, X, dtype=None, ensure_all_finite=True, reset=False)
        return self._to_binary(X)

    def _to_binary(self, X) -> np.ndarray:
        """Validated 0/1 float64 matrix (a hook: tests subclass it to run scikit-learn's checks)."""
        return _binary_matrix(X)

    # ------------------------------------------------- checks before spending
    def _validate_params(self):
        """The learner's parameter checks (no data read); DP learners add theirs."""
        self._check_common_params()

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
    def fit(self, X, y, sample_weight=None):
        """Fit the rule list (learners implement ``_fit``); BLAS runs single-threaded meanwhile.

        ``sample_weight``: None, or 0/1 per row (0 leaves the record out); a weight above 1 is
        refused before anything is spent (:func:`dpmodels.validation.apply_unit_sample_weight`).
        """
        X, y = apply_unit_sample_weight(X, y, sample_weight, type(self).__name__)
        with single_threaded_blas():
            return self._fit(X, y)

    def predict(self, X):
        Xb = self._validate_predict_data(X)
        return self.classes_[self.rule_list_.predict_encoded(Xb)]

    def predict_proba(self, X):
        Xb = self._validate_predict_data(X)
        return self.rule_list_.predict_proba_encoded(Xb)

    def apply(self, X):
        """Index of the rule capturing each row (``len(rule_list_.rules)`` is the default rule)."""
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


def _binary_matrix(X) -> np.ndarray:
    """Check that every value is 0 or 1 (booleans accepted) and return a float64 matrix.

    A value other than 0/1 is a schema error (the features' domain is {0, 1}); the message names
    the column, never the value.
    """
    X = np.asarray(X)
    if X.dtype == bool:
        return X.astype(np.float64)
    if X.dtype.kind not in "iuf":
        try:
            X = X.astype(np.float64)
        except (TypeError, ValueError):
            raise ValueError("rule lists need binary (0/1) features; got non-numeric values — binarize first") from None
    if X.dtype.kind == "f" and np.isnan(X).any():
        raise ValueError("X contains NaN: binary features must be 0 or 1")
    bad = ((X != 0) & (X != 1)).any(axis=0)
    if bad.any():
        raise ValueError(
            f"rule lists need binary (0/1) features; column {int(np.argmax(bad))} holds another value — binarize first"
        )
    return X.astype(np.float64)
