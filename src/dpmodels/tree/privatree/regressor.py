"""PrivaTreeRegressor: ε-DP regression trees with public label bounds (``docs/privacy.md``,
"PrivaTreeRegressor").

The PrivaTree pipeline with a bounded variance criterion and noisy leaf means:

1. **Labels** are clipped to the public ``label_bounds = (lo, hi)`` (a per-record map: neighbours
   stay neighbours). Without ``label_bounds`` they are read from y (a leak row in the ledger and a
   :class:`~dpmodels.privacy.PrivacyLeakWarning`, diffprivlib's convention).
2. **Depth and budget** (public). ``max_depth="auto"`` (default): d = 1 + ⌊log₄(ε·n̂/(28·m))⌋
   clipped to [1, 5] (:func:`regression_depth`), n̂ the declared ``n_public`` or, when it is not
   declared, the 95 % lower bound of a DP count at 5 % of ε (:func:`.budget.estimate_n`); an
   explicit depth needs no n. The rest of ε is shared by public constants (:data:`DEFAULT_SHARES`):
   10 % to the quantiles, 70 % to the d levels (equally), 20 % to the leaves (without numerical
   features the quantile share goes to levels and leaves in proportion);
   ``budget_shares=(quantiles, levels, leaves)`` overrides it (:func:`.budget.check_budget_shares`).
   Measured before choosing (docs/results.md, "PrivaTreeRegressor: where the budget goes"): with
   the split choices made without noise R² on Adult → hours_per_week rose from .087 to .172, with
   the leaves released without noise it stayed at .089 — the selection is what the budget buys.
3. **Candidate grid**: PrivaTree's private quantiles within the public ``bounds``
   (:func:`.grid.release_thresholds`, JointExp, ε_quantiles split over the numerical features).
4. **Splits, level by level** (:meth:`RegressionTask.select`): inside each node's region
   (:mod:`.splitter`: the same candidates as the classifier, categories in public order), one
   permute-and-flip (or exponential-mechanism) choice per node on u = −Σ_children SSE_c, the
   children's sums of squared deviations from their means, computed **exactly** on the labels'
   integer grid (step 5's units u_i ∈ [−2^16, 2^16], here clipped to the central half
   [−2^15, 2^15] of the declared range: a fixed per-record map; integer sums, the numerator
   n·Σu² − (Σu)² in exact integers, one rounding; :func:`exact_sse`). Adding a record with label v
   to a child of n records and mean μ raises its SSE by n/(n+1)·(v − μ)² ∈ [0, (2^16)²) grid
   units², i.e. ((hi − lo)/2)² in label units: monotone (:func:`sse_change`); parallel over the
   nodes of a level. The clipping costs the utility the tails of the labels and divides its Δ by
   4 (measured: R² on Adult → hours_per_week at ε = 1 .109 → .133, diabetes .04 → .19).
5. **Leaves** (parallel over the leaves): the count, ε_leaf/2, discrete Laplace (Δ = 1), and the sum
   of the labels centred at (lo + hi)/2 and rounded to a public grid of step (hi − lo)/2/2^16,
   ε_leaf/2, discrete Laplace (Δ = 2^16 grid steps = (hi − lo)/2), both from
   :mod:`dpmodels.privacy.mechanisms`. The prediction is the leaf's noisy mean shrunk toward its
   parent's, level by level from the centre of the bounds, with a pseudo-count set by the noise of
   the sums and counts, clipped (:func:`shrunk_leaf_means`, post-processing).

``score`` is R² (scikit-learn's ``RegressorMixin``).
"""

from __future__ import annotations

import math

import numpy as np
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.utils.validation import _check_feature_names, _check_n_features, check_is_fitted

from ..._format import FittedReprMixin
from ..._params import Integral, Interval, StrOptions, validate_params
from ...guards import check_tree_size
from ...privacy import mechanisms as mech
from ...privacy.accountant import check_accountant, published_ledger
from ...privacy.ledger import check_epsilon
from ...privacy.selection import select_rows
from ...validation import check_label_bounds, check_n_public, check_X_shape
from ..model import encode_matrix
from ..regression_model import REGRESSION_COLUMNS, RegressionTree, regression_header
from .budget import AUTO_MAX_DEPTH, BudgetPlan, check_budget_shares, estimate_n
from .estimator import _MAX_DEPTH, TREE_PARAMETER_CONSTRAINTS
from .fitting import fit_tree
from .labels import LABEL_GRID, RegressionLabels, _as_float_labels, label_units, sum_statistics
from .splitter import candidate_mask, node_orders

__all__ = [
    "PrivaTreeRegressor",
    "sse",
    "sse_change",
    "exact_sse",
    "shrunk_leaf_means",
    "regression_depth",
    "DEFAULT_SHARES",
]

DEFAULT_SHARES = (0.1, 0.7, 0.2)  # (quantiles, levels, leaves) of ε − ε_n (step 2)


def regression_depth(epsilon, n_used, n_features) -> int:
    """``max_depth="auto"`` of the regressor: d = 1 + ⌊log₄(ε·n̂/(28·m))⌋ clipped to [1, 5] — the
    classifier's rule (:func:`.budget.default_depth`) one and a half levels shallower: the SSE
    utility's sensitivity ((hi − lo)/2)² is the worst case of a squared deviation, several times
    the squared deviation of a typical label (Adult → hours_per_week: 49² against a variance near
    150), so a level needs about 8 times the signal. Measured (docs/results.md): Adult →
    hours_per_week gets depth 2 at ε = 0.1 and 5 at ε = 4, diabetes (309 rows) 1 at ε ≤ 1 and 2 at
    ε = 4. Public: ε, n̂ (declared or DP) and m."""
    s = float(epsilon) * max(float(n_used), 1.0) / (28.0 * max(int(n_features), 1))
    d = 1 + math.floor(math.log(s, 4)) if s >= 1.0 else 1
    return int(min(max(d, 1), AUTO_MAX_DEPTH))


def sse(count, total, total_sq):
    """Σ (y − mean)² of a child from its count, Σy and Σy² (0 when empty)."""
    count = np.asarray(count, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        out = np.asarray(total_sq, dtype=float) - np.where(
            count > 0, np.asarray(total, float) ** 2 / np.where(count > 0, count, 1.0), 0.0
        )
    return np.maximum(out, 0.0)  # rounding can leave −1e-12


def sse_change(values, v) -> float:
    """SSE(values ∪ {v}) − SSE(values) = n/(n+1)·(v − mean)² (the bound of step 4's proof)."""
    values = np.asarray(values, dtype=float)
    n = values.size
    return 0.0 if n == 0 else n / (n + 1.0) * (v - values.mean()) ** 2


def shrunk_leaf_means(tree, label_bounds, eps_leaf) -> np.ndarray:
    """Every node's mean label from the released (noisy) counts and sums, each shrunk toward its
    parent's estimate — post-processing of step 5's releases, no data access.

    With c = (lo + hi)/2, h = (hi − lo)/2, a node's centred noisy sum S̃ = sum − c·ñ carries
    discrete-Laplace noise of variance σ² ≈ 2·(2h/ε_leaf)² per leaf below it (L leaves: L·σ²), and
    its count ñ noise of scale b = 2/ε_leaf. The estimate (S̃ + k·m)/(ñ⁺ + k), m the parent's
    estimate (c at the root), with pseudo-count k = L·σ²/(max(ñ⁺, 1)·τ²) + b·√L is the minimiser
    of the squared error when the node's true mean lies about τ = h/4 from its parent's (the
    sum-noise term: k = σ²/(n·τ²) minimises (σ² + k²τ²)/(n + k)²), clipped to [lo, hi]. A leaf
    with many records keeps its own mean; one whose noisy sum says little leans on its parent, and
    a tree whose releases are all noise predicts near the centre of the declared bounds. Measured
    (docs/results.md, "PrivaTreeRegressor"): diabetes at ε = 0.1, R² −1.17 → −0.18 (the centre
    alone: −0.08); unchanged where the leaves are large."""
    lo, hi = label_bounds
    mid, h = 0.5 * lo + 0.5 * hi, 0.5 * hi - 0.5 * lo
    cnt = np.asarray(tree.value[:, 0], dtype=float)
    S = np.asarray(tree.value[:, 1], dtype=float) - mid * cnt
    n_nodes = tree.n_nodes
    left, right = tree.children_left, tree.children_right
    depth = tree.node_depth
    leaves_below = tree.is_leaf.astype(float)
    for i in np.argsort(-depth, kind="stable"):  # children before parents
        if left[i] >= 0:
            leaves_below[i] = leaves_below[left[i]] + leaves_below[right[i]]
    parent = np.full(n_nodes, -1, dtype=np.int64)
    internal = np.flatnonzero(left >= 0)
    parent[left[internal]] = internal
    parent[right[internal]] = internal
    sigma2 = 2.0 * (2.0 * h / eps_leaf) ** 2
    b = 2.0 / eps_leaf
    tau2 = (0.25 * h) ** 2
    est = np.zeros(n_nodes)
    for i in np.argsort(depth, kind="stable"):  # parents before children
        prior = est[parent[i]] if parent[i] >= 0 else 0.0
        n = max(float(cnt[i]), 0.0)
        k = leaves_below[i] * sigma2 / (max(n, 1.0) * tau2) + b * np.sqrt(leaves_below[i])
        est[i] = min(max((S[i] + k * prior) / (n + k), -h), h)
    return mid + est


def _check_label_bounds(label_bounds):
    """:func:`dpmodels.validation.check_label_bounds`, and bounds far enough apart for an exact grid."""
    checked = check_label_bounds(label_bounds)
    if checked is None:
        return None
    lo, hi = checked
    if lo < hi and not (0.5 * hi - 0.5 * lo) / LABEL_GRID >= np.finfo(float).tiny:
        # the grid step (hi − lo)/2^17 would be subnormal: the labels' grid could not be exact
        raise ValueError(f"label_bounds {label_bounds!r} are too close together for an exact label grid")
    return lo, hi


def _level_stats(codes, node, u, A, B):
    """(count, Σu, Σu²) of every (open node, feature, bin) over the integer labels ``u`` (|u| ≤
    2^16) of the rows with ``node >= 0``: exact int64 arrays of shape (A, m, B)
    (:func:`.labels.sum_statistics`)."""
    rows = np.flatnonzero(node >= 0)
    H = sum_statistics(codes[rows], np.asarray(u)[rows], B, slot=node[rows], n_slots=A)
    return H[..., 0], H[..., 1], H[..., 2]


def exact_sse(count, total, total_sq, count2=None, total2=None, total_sq2=None):
    """SSE = Σu² − (Σu)²/n of integer labels, exactly: the integer numerator n·Σu² − (Σu)² in
    Python integers (no overflow, no cancellation), divided once — a correctly rounded float of the
    exact rational (0 where n = 0). With a second child's statistics: the sum of both children's
    SSE as one exact rational, rounded once."""
    stats = [(count, total, total_sq)] + ([] if count2 is None else [(count2, total2, total_sq2)])
    parts = []
    for c, t, q in stats:
        c, t, q = (np.asarray(v, dtype=np.int64).ravel().tolist() for v in (c, t, q))
        parts.append([(ci * qi - ti * ti, ci) for ci, ti, qi in zip(c, t, q)])
    out = np.empty(len(parts[0]), dtype=float)
    for i, terms in enumerate(zip(*parts)):
        num, den = 0, 1
        for nu, n in terms:
            if n > 0:  # num/den + nu/n
                num, den = num * n + nu * den, den * n
        out[i] = num / den  # int / int: correctly rounded
    return out.reshape(np.shape(count))


def _split_sse(C, S1, S2, order):
    """Σ_children SSE of every (node, feature, prefix) candidate, exact (:func:`exact_sse`)."""

    def take(a):  # left-child sums: prefixes of the node's bin order (exact int64)
        return np.cumsum(np.take_along_axis(a, order, axis=2), axis=2)

    Lc, L1, L2 = take(C), take(S1), take(S2)
    Rc = C.sum(axis=2, keepdims=True) - Lc
    R1 = S1.sum(axis=2, keepdims=True) - L1
    R2 = S2.sum(axis=2, keepdims=True) - L2
    return exact_sse(Lc, L1, L2, Rc, R1, R2)


class PrivaTreeRegressor(FittedReprMixin, RegressorMixin, BaseEstimator):
    """ε-differentially private regression tree (module docstring; ``docs/privacy.md``).

    Parameters
    ----------
    epsilon : float, default 1.0
        Total budget (pure ε-DP, δ = 0).
    max_depth : int or "auto", default "auto"
        ``"auto"``: :func:`regression_depth` (a public rule on ε, n̂ and the number of features).
    max_bins : int, default 10
        Bins per numerical feature (``max_bins − 1`` private quantiles).
    bounds : None, (lower, upper) or dict
        Public bounds of the numerical features (as :class:`PrivaTreeClassifier`). ``None``: read
        from the data (leak, recorded and warned).
    label_bounds : None or (lo, hi)
        Public bounds of the label; labels are clipped to them. ``None``: the min / max of y
        (leak, recorded and warned).
    categories : None or dict
        Public category lists (as :class:`PrivaTreeClassifier`).
    split_selection : {"permute-and-flip", "exponential"}
    budget_shares : None or (quantiles, levels, leaves)
        Public shares of ε (after the n estimate, if any); ``None``: :data:`DEFAULT_SHARES`.
    n_public : None or int
        Declared public training-set size, used by ``max_depth="auto"`` only; ``None``: a DP
        estimate (5 % of ε) when the depth is ``"auto"``, nothing otherwise.
    random_state : None, int or Generator
        ``None`` draws OS entropy; a seed is for research and NOT private.
    accountant : None or :class:`dpmodels.privacy.BudgetAccountant`

    Attributes
    ----------
    tree_ : :class:`dpmodels.tree.RegressionTree`; ``privacy_ledger_``, ``budget_``,
    ``n_features_in_``, ``feature_names_in_``.
    """

    _display_params = ("max_depth", "max_bins", "split_selection")

    def __init__(
        self,
        epsilon=1.0,
        max_depth="auto",
        max_bins=10,
        bounds=None,
        label_bounds=None,
        categories=None,
        split_selection="permute-and-flip",
        budget_shares=None,
        random_state=None,
        accountant=None,
        n_public=None,
    ):
        self.n_public = n_public
        self.epsilon = epsilon
        self.max_depth = max_depth
        self.max_bins = max_bins
        self.bounds = bounds
        self.label_bounds = label_bounds
        self.categories = categories
        self.split_selection = split_selection
        self.budget_shares = budget_shares
        self.random_state = random_state
        self.accountant = accountant

    _parameter_constraints: dict = {
        **TREE_PARAMETER_CONSTRAINTS,
        "max_depth": [Interval(Integral, 0, _MAX_DEPTH, closed="both"), StrOptions({"auto"})],
        "n_public": "no_validation",  # check_n_public
        "label_bounds": "no_validation",  # _check_label_bounds
        "split_selection": [StrOptions({"permute-and-flip", "exponential"})],
    }

    def _check_params(self):
        validate_params(self)
        eps = check_epsilon(self.epsilon)
        check_accountant(self.accountant, type(self).__name__)
        check_n_public(self.n_public)
        shares = check_budget_shares(self.budget_shares)
        # "auto": the deepest tree the rule can choose, for the checks made before any release
        depth = AUTO_MAX_DEPTH if self.max_depth == "auto" else int(self.max_depth)
        return eps, depth, int(self.max_bins), _check_label_bounds(self.label_bounds), shares

    def _plan(self, eps, eps_n, depth, has_num, shares) -> BudgetPlan:
        """Step 2 of the module docstring (public shares only), over ε − ε_n."""
        rest = eps - eps_n
        if depth == 0:
            return BudgetPlan(eps_n, rest, 0.0, 0.0, 0)
        sq, sl, sf = DEFAULT_SHARES if shares is None else shares
        if not has_num:
            sq, sl, sf = 0.0, sl / (sl + sf), sf / (sl + sf)
        return BudgetPlan(eps_n, sf * rest, sq * rest, sl * rest / depth, depth)

    def fit(self, X, y=None, sample_weight=None):
        """Fit on ``X`` (numerical and categorical columns) and numeric labels ``y``; bad input
        raises before any budget is spent. ``sample_weight``: None or all ones
        (:func:`dpmodels.validation.apply_unit_sample_weight`).

        Partitioned input — a :class:`dpmodels.data.ParquetSource` (``y=None``) or a Dask
        DataFrame and its label Series — is fitted by count passes (:mod:`.streaming`): the same
        model as in memory under the same seed. It declares ``label_bounds``, ``bounds`` and
        ``categories``."""
        return fit_tree(self, RegressionTask(self), X, y, sample_weight)

    @staticmethod
    def _assemble(
        st, categorical, categories, names, counts, sums, label_bounds, noise_scale, eps_leaf=None
    ) -> RegressionTree:
        n_nodes = len(st.children_left)
        leaf_ids = np.asarray(st.leaf_ids, dtype=np.int64)
        val = np.full((n_nodes, 2), np.nan)
        val[leaf_ids, 0] = counts
        val[leaf_ids, 1] = sums
        lab = np.full(n_nodes, -1, dtype=np.int64)
        lab[leaf_ids] = 0
        lv = np.full(n_nodes, np.nan)
        lv[leaf_ids] = RegressionTree.estimate(counts, sums, label_bounds, noise_scale)
        tree = RegressionTree(
            st.children_left,
            st.children_right,
            st.feature,
            st.threshold,
            st.left_categories,
            val,
            lab,
            np.array(REGRESSION_COLUMNS),
            names,
            categorical,
            categories,
            counts_are_noisy=True,
            count_noise_scale=noise_scale,
            leaf_value=lv,
            label_bounds=label_bounds,
        )
        tree.fill_internal_values()
        if eps_leaf is not None and eps_leaf > 0 and label_bounds[1] > label_bounds[0]:
            tree.leaf_value[leaf_ids] = shrunk_leaf_means(tree, label_bounds, eps_leaf)[leaf_ids]
        return tree

    # ------------------------------------------------------------------ predict
    def _encode(self, X):
        check_is_fitted(self, "tree_")
        X, _, _ = check_X_shape(X, type(self).__name__, min_samples=0)
        _check_feature_names(self, X, reset=False)
        _check_n_features(self, X, reset=False)
        names, categorical, categories = self._schema
        return encode_matrix(X, names, categorical, categories)

    def apply(self, X):
        """Leaf id of each row (as scikit-learn's ``apply``)."""
        Z = self._encode(X)  # checks that the model is fitted first
        return self.tree_.apply_encoded(Z)

    def predict(self, X):
        leaf = self.apply(X)  # first: NotFittedError on an unfitted estimator
        return self.tree_.leaf_value[leaf]

    def to_text(self, *, significant_digits: int = 4) -> str:
        from ..._format import learner_title, privacy_status

        check_is_fitted(self, "tree_")
        params = self.get_params(deep=False)
        header = regression_header(
            learner_title(type(self).__name__, params, self._display_params),
            status=privacy_status(
                self.privacy_ledger_, private_learner=True, seeded=params.get("random_state") is not None
            ),
            n_total=self.tree_.n_total,
            noisy=True,
            label_bounds=self.tree_.label_bounds,
        )
        return self.tree_.to_text(
            header=header, significant_digits=significant_digits, integer_features=self._integer_features()
        )

    def _integer_features(self) -> list:
        """Features declared integer-valued by integer ``bounds`` (printing only), as for classifiers."""
        from ..._format import declared_integer_features

        known = set(self.tree_.feature_names)
        return [f for f in declared_integer_features(self.get_params(deep=False).get("bounds")) if f in known]

    def export_text(self, **kw) -> str:
        check_is_fitted(self, "tree_")
        return self.tree_.export_text(**kw)

    def get_rules(self, **kw):
        check_is_fitted(self, "tree_")
        return self.tree_.get_rules(**{"integer_features": self._integer_features(), **kw})

    def __str__(self) -> str:
        return self.to_text() if hasattr(self, "tree_") else self.__repr__()

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.non_deterministic = True
        tags.input_tags.categorical = True
        tags.input_tags.string = True
        return tags


class RegressionTask:
    """The regressor's own steps of the fit (:mod:`.fitting`): its label bounds, budget plan, SSE
    selection and leaf release (module docstring); the parameters checked once, first."""

    progress_label = "PrivaTree regressor levels"

    def __init__(self, est: PrivaTreeRegressor):
        self.est = est
        self.eps, self.depth, self.max_bins, self.label_bounds, self.shares = est._check_params()
        self.name = type(est).__name__
        self.mechanism = "permute-and-flip" if est.split_selection == "permute-and-flip" else "exponential"

    # ------------------------------------------------------------------ labels
    def check_labels(self, y):
        return _as_float_labels(y, self.name)

    def labels_in_memory(self, y, ledger):
        """The label bounds (declared, or y's min and max with a leak row) and y on the grid."""
        lb = self.label_bounds
        if lb is None:
            ledger.record_leak("label bounds", "Declare label_bounds=(lo, hi) to keep the fit private.")
            lb = (float(y.min()), float(y.max())) if y.size else (0.0, 1.0)
        self.label_bounds = lb
        return RegressionLabels(lb), label_units(np.clip(y, *lb), lb)

    def refuse_partitioned(self):
        pass

    def check_declared_labels(self):
        if self.label_bounds is None:
            raise ValueError(
                f"{self.name}: partitioned input needs label_bounds=(lo, hi) declared; they are not read from the data"
            )

    def labels_declared(self, ledger):
        return RegressionLabels(self.label_bounds)

    # ------------------------------------------------------------------ steps
    def check_size(self, m, categories, lo, hi, labels):
        n_cat_bins = max([len(v) + 1 for v in categories.values()], default=0)
        check_tree_size(
            "PrivaTreeRegressor",
            max_depth=self.depth,
            n_features=m,
            n_bins=max(self.max_bins, n_cat_bins),
            n_classes=3,
            n_public=None,
        )
        if self.shares is not None and self.shares[0] <= 0 and bool(np.any(hi > lo)) and self.depth > 0:
            # public: the declared shares, bounds and depth (an "auto" depth is >= 1); before any release
            raise ValueError("budget_shares: the quantile share must be > 0 when there are numerical features")

    def plan(self, n, m, lo, hi, labels, ledger, rng):
        """Step 2: the depth (the "auto" rule needs n: declared, or a DP estimate) and the shares."""
        est, eps, depth = self.est, self.eps, self.depth
        eps_n = 0.0
        if est.max_depth == "auto":
            n_used, eps_n = estimate_n(n, eps, est.n_public, ledger, rng)
            est.n_estimate_ = n_used
            depth = regression_depth(eps, n_used, m)
        est.max_depth_ = depth
        has_num = bool(np.any(hi > lo)) and depth > 0
        return est._plan(eps, eps_n, depth, has_num, self.shares), depth, "split", has_num

    def grow_depth(self, depth):
        lo, hi = self.label_bounds
        return depth if hi > lo else 0  # lo = hi: every label is the same public value, nothing to learn

    def select(self, H, alive, level, categorical, n_bins, eps_level, ledger, rng):
        """One permute-and-flip (or exponential) choice per node on −Σ children SSE (step 4)."""
        S, m, B = alive.shape
        order = node_orders(alive, categorical, n_bins)
        valid = candidate_mask(alive, order)
        util = np.where(valid, -_split_sse(H[..., 0], H[..., 1], H[..., 2], order), -np.inf).reshape(S, m * B)
        n_valid = valid.reshape(S, -1).sum(axis=1)
        span = f"{n_valid.min()}" if n_valid.min() == n_valid.max() else f"{n_valid.min()}–{n_valid.max()}"
        # the utility reads the labels clipped to the central half of the bounds, [−G/2, G/2]:
        # Δ = G² grid units² = ((hi − lo)/2)² in label units (a quarter of the unclipped bound)
        sensitivity = float(LABEL_GRID**2)
        ledger.spend(
            f"level {level}: split of {S} node(s) among {span} candidates inside each node's region",
            self.mechanism,
            eps_level,
            sensitivity=sensitivity,
            composition="parallel" if S > 1 else "sequential",
            parts=S,
            note="utility: −Σ children SSE of the clipped labels on the integer grid, exact (monotone)",
        )
        pick = select_rows(util, eps_level, sensitivity, rng, monotone=True, mechanism=self.mechanism)
        return pick // B, pick % B, order

    def finish(self, st, Hl, plan, labels, names, categorical, categories, ledger, rng):
        """Step 5: noisy counts and noisy sums of the disjoint leaves (ε_leaf/2 each), then the tree."""
        est, lb, eps_leaf = self.est, self.label_bounds, plan.leaf
        lo, hi = lb
        L = Hl.shape[0]
        counts = mech.noisy_histogram(Hl[:, 0], eps_leaf / 2, rng, ledger=ledger, what="leaf record counts", parts=L)
        half = 0.5 * hi - 0.5 * lo
        mid = 0.5 * lo + 0.5 * hi
        if half > 0:
            noisy = mech.noisy_integer_sums(
                Hl[:, 1],
                eps_leaf / 2,
                LABEL_GRID,
                rng,
                ledger=ledger,
                what="leaf label sums (centred, on a public grid)",
                parts=L,
                note=f"labels clipped to [{lo:g}, {hi:g}], grid step {half / LABEL_GRID:.3g}",
            )
            sums = mid * counts + noisy * (half / LABEL_GRID)  # post-processing: back to label units
        else:
            sums = mid * counts.astype(float)
        ledger.check()
        est.budget_ = plan.as_dict()
        # the counts' noise scale 2/ε_leaf: the pseudo-count of the leaf estimates (post-processing)
        est.tree_ = est._assemble(st, categorical, categories, names, counts, sums, lb, 2.0 / eps_leaf, eps_leaf)
        est.privacy_ledger_ = published_ledger(ledger)
