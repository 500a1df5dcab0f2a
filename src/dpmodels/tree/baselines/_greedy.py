"""Shared machinery of the greedy private trees BDPT and DPGDF: public inputs, the level-wise
builder, the count-scaled Gini utility (Δ = 2)."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import _check_feature_names, _check_n_features, check_is_fitted

from ..._params import Integral, Interval, validate_params
from ...guards import check_tree_size, progress
from ...privacy.accountant import check_accountant, ledger_for_fit, published_ledger
from ...privacy.ledger import check_epsilon
from ...validation import (
    apply_unit_sample_weight,
    check_X_shape,
    check_y,
    resolve_bounds,
    resolve_categories,
    resolve_classes,
)
from ..model import Tree, TreeEstimatorMixin, encode_matrix

__all__ = ["GreedyPrivateTree"]


def _count_scaled_impurity(counts: np.ndarray) -> np.ndarray:
    """n·Gini = n − Σ_k a_k² / n over the last axis (0 for empty children).

    Under add/remove of one record only one child changes, by less than 2 (binary case:
    docs/privacy.md, principle 2; multiclass: the change is 1 − (2a_j + 1)/(n + 1) + Σa²/(n(n + 1)),
    which lies in [(n − a_j)²/(n(n + 1)), 2)). So −(sum over children) has sensitivity Δ = 2.
    """
    n = counts.sum(axis=-1)
    sq = (counts.astype(float) ** 2).sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(n > 0, n - sq / np.where(n > 0, n, 1), 0.0)


class GreedyPrivateTree(TreeEstimatorMixin, ClassifierMixin, BaseEstimator):
    """Shared machinery of BDPT / DPGDF: input typing, public domains, the level-wise builder."""

    _accepts_numerical = True
    # the parameters every greedy baseline shares; subclasses add theirs (dpmodels._params)
    _parameter_constraints: dict = {
        "epsilon": "no_validation",  # check_epsilon (dpmodels.privacy)
        "max_depth": [Interval(Integral, 1, None, closed="left")],
        "categories": [None, dict],
        "classes": "no_validation",  # declarations: dpmodels.validation
        "random_state": "no_validation",  # samplers.check_random_state
        "accountant": "no_validation",  # check_accountant
    }

    # ---------------------------------------------------------------- input
    def _prepare(self, X, y, ledger):
        """Public schema (dpmodels.validation) and the encoded matrix: ``(Z, names, categorical,
        categories, classes, y_idx)``; leaks recorded in ``ledger``."""
        name = type(self).__name__
        X, n, _ = check_X_shape(X, name)
        y = check_y(y, name)
        if len(y) != n:
            raise ValueError("X and y have different numbers of rows")
        classes, y_idx = resolve_classes(self.classes, y, ledger)
        names, categorical, categories = resolve_categories(X, self.categories, ledger, bounds=self.bounds)
        _check_feature_names(self, X, reset=True)
        _check_n_features(self, X, reset=True)
        self._keep = keep = self._keep_features(names, categorical)
        # features a learner drops (DPGDF's numerical ones) are never read: encoded as "unknown"
        dropped: dict[int, list] = {int(j): [] for j in np.flatnonzero(~keep)}
        Z = encode_matrix(X, names, categorical | ~keep, {**categories, **dropped})
        return Z, names, categorical, categories, classes, y_idx

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
    def fit(self, X, y, sample_weight=None):
        """Fit; ``sample_weight``: None or 0/1 per row
        (:func:`dpmodels.validation.apply_unit_sample_weight`)."""
        from dpmodels.privacy.samplers import check_random_state

        validate_params(self)
        eps = check_epsilon(self.epsilon)
        X, y = apply_unit_sample_weight(X, y, sample_weight, type(self).__name__)
        D = int(self.max_depth)
        check_accountant(getattr(self, "accountant", None), type(self).__name__)
        self._plan_budget(eps, D)
        # a share of the accountant's budget when one is given (refused here if it does not fit)
        return self._fit(X, y, ledger_for_fit(self, eps, X=X), check_random_state(self.random_state))

    def _budget_request(self):
        """``(accountant, ε, δ)`` this fit will request (:mod:`dpmodels.pipeline`)."""
        return getattr(self, "accountant", None), check_epsilon(self.epsilon), 0.0

    def _validate_before_spend(self, X, y):
        """The checks of :meth:`fit` that need no release (parameters, labels against
        ``classes``, the features this learner keeps, the tree-size guard), for
        :mod:`dpmodels.pipeline`. ``X`` may be an empty frame describing an earlier step's
        output, or None (unknown columns: parameters and labels only)."""
        validate_params(self)
        eps = check_epsilon(self.epsilon)
        D = int(self.max_depth)
        check_accountant(getattr(self, "accountant", None), type(self).__name__)
        self._plan_budget(eps, D)
        name = type(self).__name__
        classes, _ = resolve_classes(self.classes, check_y(y, name), None)
        if X is None:
            return None
        X, _, _ = check_X_shape(X, name, min_samples=0)
        names, categorical, categories = resolve_categories(X, self.categories, None, bounds=self.bounds)
        with warnings.catch_warnings():  # fit itself warns about dropped features, once
            warnings.simplefilter("ignore", UserWarning)
            self._keep_features(names, categorical)
        n_bins = max([len(v) for v in categories.values()] + [int(getattr(self, "max_bins", 0) or 0), 2])
        check_tree_size(
            name.replace("Classifier", ""), max_depth=D, n_features=len(names), n_bins=n_bins, n_classes=len(classes)
        )
        return None

    def _plan_budget(self, eps, D):
        """Set the learner's budget shares from ε and the depth D (subclasses)."""
        raise NotImplementedError

    def _fit(self, X, y, ledger, rng):
        Z, names, categorical, categories, classes, y_idx = self._prepare(X, y, ledger)
        # before any release: public sizes only (these learners take no n_public)
        n_bins = max([len(v) for v in categories.values()] + [int(getattr(self, "max_bins", 0) or 0), 2])
        check_tree_size(
            type(self).__name__.replace("Classifier", ""),
            max_depth=int(self.max_depth),
            n_features=len(names),
            n_bins=n_bins,
            n_classes=len(classes),
        )
        self._yk = y_idx
        try:
            return self._build(Z, names, categorical, categories, classes, ledger, rng)
        finally:
            for a in ("_yk", "_codes", "_cands", "_edges", "_keep"):
                self.__dict__.pop(a, None)

    def _build(self, Z, names, categorical, categories, classes, ledger, rng):
        depth = int(self.max_depth)  # validated in fit
        self._K = K = len(classes)
        n, m = Z.shape
        num_idx = [j for j in range(m) if not categorical[j]]
        keep = self._keep
        lo, hi = resolve_bounds(self.bounds, names, [j for j in num_idx if keep[j]], Z, ledger)
        codes = np.zeros((n, m), dtype=np.int64)
        self._edges = {}
        cands = []
        ni = 0
        for j in range(m):
            if not keep[j]:
                continue
            if categorical[j]:
                codes[:, j] = Z[:, j].astype(np.int64)  # public codes, -1 = unknown
                cands.append((j, "cat", len(categories[j])))
            else:
                x = np.clip(Z[:, j], lo[ni], hi[ni])  # values outside the public bounds are clipped
                edges = self._numeric_edges(x, lo[ni], hi[ni], names[j], ledger)
                ni += 1
                if edges.size == 0:
                    continue
                self._edges[j] = edges
                codes[:, j] = np.searchsorted(edges, x, side="left")  # x <= edges[t] ⇔ code <= t
                cands.append((j, "num", edges.size + 1))
        # no candidate (e.g. every numerical feature has lo = hi): the root stays a leaf; this
        # depends on public inputs only
        self._codes, self._cands = codes, cands

        # level-wise growth; nodes are created parents-first (the Tree layout needs it)
        nodes: list[dict[str, Any]] = [dict(rows=np.arange(n), depth=0, used=frozenset())]
        level = [0]
        for d in progress(range(depth + 1), desc=f"{type(self).__name__} levels"):
            if not level:
                break
            level = self._grow_level(nodes, level, d, depth, ledger, rng)
        self._finish_leaves(nodes, ledger, rng)

        cl = np.full(len(nodes), -1, dtype=np.int64)
        cr = np.full(len(nodes), -1, dtype=np.int64)
        feat = np.full(len(nodes), -2, dtype=np.int64)
        thr = np.full(len(nodes), np.nan)
        lc: list[tuple[int, ...] | None] = [None] * len(nodes)
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
        tree = Tree(
            cl,
            cr,
            feat,
            thr,
            lc,
            val,
            lab,
            classes,
            names,
            categorical,
            {j: v for j, v in categories.items()},
            counts_are_noisy=True,
            count_noise_scale=self._count_noise_scale(),
        )
        ledger.check()
        self.tree_ = tree
        self.classes_ = classes
        self.privacy_ledger_ = published_ledger(ledger)
        return self

    def _count_noise_scale(self):
        """Noise scale of the released leaf counts (None: no counts released); subclasses."""
        return None

    def _split_node(self, nodes, i, rng, eps_sel, yk_all):
        nd = nodes[i]
        rows = nd["rows"]
        utils = self._node_utilities(rows, yk_all[rows])
        flat, owner = [], []
        for u, (j, kind, _payload) in zip(utils, self._cands):
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

    def _check_predict_input(self, X):
        check_is_fitted(self, "tree_")
        X, _, _ = check_X_shape(X, type(self).__name__, min_samples=0)
        _check_feature_names(self, X, reset=False)
        _check_n_features(self, X, reset=False)
        return X

    def apply(self, X):
        X = self._check_predict_input(X)
        return self.tree_.apply(X)
