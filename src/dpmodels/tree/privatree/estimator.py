"""PrivaTree (paper 002, Sections IV-A..IV-D) with corrected accounting, vectorised per level.

Algorithm (every release is recorded in ``privacy_ledger_`` *before* it happens):

1. **n** and 2. **the budget split** (Eq. 7–10, corrected): :mod:`.budget`. Unlike the paper,
   numerical and categorical features are *not* composed in parallel (every record has both kinds
   of attributes), and the quantile budget is **split across the numerical features** (sequential
   composition, docs/privacy.md, principle 7).
3. **The candidate grid**: private quantiles of each numerical feature within the public
   ``bounds`` (values clipped); categorical features keep their public categories as bins, plus a
   bucket for values outside the public list (always routed right): :mod:`.grid`.
4. **Splits, level by level**: the nodes of a level partition the data, so one level costs ε_level
   by parallel composition and the levels compose sequentially; the counts of a level are exact
   integers (:mod:`.histograms`); the selection (permute-and-flip, exponential mechanism or the
   paper's noisy histograms) and the criteria are in :mod:`.splitter` and :mod:`.criteria`.
5. **Leaves** (parallel across the leaves, ε_leaf once): ``leaf_labels="noisy-counts"``: class
   counts + DLap(1/ε_leaf), label = argmax (post-processing); ``"permute-and-flip"``: labels by
   permute-and-flip on the class counts at ε_leaf/2 and the displayed counts by DLap at ε_leaf/2.
   Internal node counts are sums of leaf counts (post-processing). ``tree_.prune()`` merges
   sibling leaves with equal labels (same predictions).

Public inputs (:mod:`dpmodels.validation`): ``classes`` (the label set), ``bounds``,
``categories`` (a pandas ``category`` dtype counts as a declaration — ``astype("category")`` reads
the categories from *your* data: that is a leak you make; declare
``pd.CategoricalDtype(categories=[...])`` or pass ``categories=``). When one is missing it is read
from the data, recorded as a leak row in the ledger and a
:class:`~dpmodels.privacy.PrivacyLeakWarning` is emitted. Nothing raises or warns depending on the
private content except schema violations (a label outside ``classes``, NaN / ±inf in a numerical
feature); any value outside a categorical feature's public list — of any type, missing included —
is routed as unknown.
"""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import _check_feature_names, _check_n_features, check_is_fitted

from ..._params import Integral, Interval, StrOptions, proportion, validate_params
from ...data.sources import is_partitioned
from ...guards import check_tree_size
from ...privacy.accountant import check_accountant, published_ledger
from ...privacy.ledger import check_epsilon
from ...privacy.mechanisms import discrete_laplace_counts
from ...validation import (
    check_n_public,
    check_X_shape,
    check_y,
    resolve_bounds,
    resolve_categories,
    resolve_classes,
)
from ..model import TreeEstimatorMixin, encode_matrix
from .budget import (
    AUTO_MAX_DEPTH,
    check_budget_shares,
    default_depth,
    estimate_n,
    gini_weight,
    plan_budget,
    plan_budget_published,
)
from .builder import assemble, release_leaf_counts
from .fitting import fit_tree
from .labels import ClassLabels
from .splitter import select_level

__all__ = ["PrivaTreeClassifier"]

_MAX_DEPTH = 20
VARIANTS = ("rigorous", "published", "published*")

# the parameters PrivaTree's classifier and regressor share (dpmodels._params)
TREE_PARAMETER_CONSTRAINTS: dict = {
    "epsilon": "no_validation",  # check_epsilon (dpmodels.privacy)
    "max_depth": [Interval(Integral, 0, _MAX_DEPTH, closed="both")],
    "max_bins": [Interval(Integral, 2, 255, closed="both")],
    "bounds": "no_validation",  # declarations: dpmodels.validation
    "categories": [None, dict],
    "budget_shares": "no_validation",  # check_budget_shares
    "random_state": "no_validation",  # samplers.check_random_state
    "accountant": "no_validation",  # check_accountant
}


class PrivaTreeClassifier(TreeEstimatorMixin, ClassifierMixin, BaseEstimator):
    """ε-differentially private decision tree (PrivaTree, corrected accounting).

    Parameters
    ----------
    epsilon : float, default 1.0
        Total privacy budget (pure ε-DP, δ = 0).
    max_depth : int or "auto", default "auto"
        Maximum depth of the tree. ``"auto"``: a public rule on ε, the n used by the budget split
        (``n_public`` or its DP estimate) and the declared schema,
        d = 1 + ⌊log₄(ε·n̂/(2√2·m))⌋ clipped to [max(1, ⌈log₂ K⌉), 5]
        (:func:`.budget.default_depth`, docs/privacy.md); 4 for the published variants (the
        paper's depth). The depth used is ``max_depth_``.
    max_bins : int, default 10
        Bins per numerical feature (``max_bins − 1`` private quantiles).
    bounds : None, (lower, upper) or dict
        Public bounds of the numerical features: scalars, arrays with one value per numerical
        feature (in column order), or ``{name: (lo, hi)}``. ``None``: read from the data (leak,
        recorded and warned). A column named here (or, for a pair, every column not declared
        categorical) is numerical whatever its dtype (docs/privacy.md, "Declarations, not
        dtypes"); a name that is not a column is an error.
    categories : None or dict
        Public category lists ``{name or column index: [values...]}``. Declaring a column here
        makes it categorical. A pandas ``category`` column counts as declared by its dtype's
        categories — **``X[c].astype("category")`` takes them from your data: that is a leak you
        make, not the library; declare ``pd.CategoricalDtype(categories=[...])`` or pass
        ``categories=``** (``dpmodels.data.dataset_schema`` has the documented lists of the
        bundled datasets). Other non-numeric pandas columns without a list are read from the
        data (leak, recorded and warned). Values outside a column's list — of any type, missing
        values included — are routed as unknown (always right).
    classes : None or list, default None
        The public label set, in order: ``classes_`` is exactly this list and the counts have one
        column per declared class, whether or not each occurs in y. A label outside it is an
        error, raised the same way whatever else y holds. ``None``: the sorted labels of y (a
        leak, recorded and warned — diffprivlib's convention). A one-class y is valid input.
    split_criterion : {"error-gini", "error", "gini"}, default "error-gini"
        Utility of the candidate-based selections (:mod:`.criteria`): ``"error-gini"``,
        −(misclassified count + λ·count-scaled Gini/2) (Δ = 1 + λ), λ = 2 or, where the public
        regime number s = ε·n̂/(3.5·m) is below 16, λ = 0 (:func:`.budget.gini_weight`; the λ
        used is ``gini_weight_``): the error separates splits that change the children's majority
        labels, the Gini term ranks the rest by purity (what ROC AUC needs on imbalanced labels);
        ``"error"``: −the number of training records the split's majority children misclassify
        (Δ = 1); ``"gini"``: −count-scaled Gini (Δ = 2). All monotone. Default chosen by
        measurement (docs/results.md, "PrivaTree's default").
    leaf_error : float, default 0.01
        E_max of Eq. (7): the extra labelling error tolerated when budget is plentiful.
    split_selection : {"permute-and-flip", "exponential", "histogram"}
        See :mod:`.splitter`. Default chosen by measurement (docs/results.md).
    leaf_labels : {"noisy-counts", "permute-and-flip"}
        How leaves are labelled (module docstring, step 5).
    n_public : None or int
        Declared public training-set size (or order of magnitude). ``None``: a DP estimate.
    budget_shares : None or (quantiles, levels, leaves)
        Public shares of the budget left after the n estimate, instead of Eq. (7)-(10): three
        numbers ≥ 0 summing to 1 (levels and leaves > 0); without numerical features the quantile
        share goes to the levels and leaves in proportion. Used to redraw paper 002's Fig. 2.
    random_state : None, int or Generator
        ``None`` (default) draws OS entropy. A seed makes fits reproducible and is NOT private.
    one_vs_rest : bool, default False
        Also offer every alive category of a categorical feature with > 2 categories alone on the
        left (public structure, no privacy cost; :mod:`.splitter`). Rigorous variant only. Off by
        default: measured mixed (docs/results.md, "The papers' own protocols") — it helps nursery
        at ε = 0.01 mainly together with ``category_order="public"``, and costs mushroom and adult
        a little.
    category_order : {"noisy-ratio", "public"}, default "noisy-ratio"
        Order of the categories whose prefixes are split candidates (binary labels): by a noisy
        class-1 ratio (Coppersmith et al., paying a share of each level's budget, :mod:`.splitter`)
        or the public order of the declared categories (no budget spent on sorting). Rigorous
        variant only.
    variant : {"rigorous", "published", "published*"}, default "rigorous"
        ``"published"``: paper 002's PrivaTree as published — histogram selection with one noisy
        histogram per feature at ε_node,num / ε_node,cat (Eq. 9–10), quantiles of every numerical
        feature at the full ε_quantiles; the ledger rows whose parallel composition across
        features is the paper's claim are ``claimed`` (``is_private`` is False).
        ``"published*"``: the paper's PrivaTree* — the same with the training data's own
        quantiles (a leak row) and ε_node,num = (ε − ε_leaf)/d. ``split_selection``,
        ``split_criterion`` and ``one_vs_rest`` are unused by these variants.
    accountant : None or :class:`dpmodels.privacy.BudgetAccountant`
        A budget shared with other fits: ``epsilon`` is then the share requested from it (refused
        before anything is spent when it exceeds what is left) and ``privacy_ledger_`` is the
        accountant's ledger (:mod:`dpmodels.privacy.accountant`).

    Attributes
    ----------
    tree_ : :class:`dpmodels.tree.Tree`
    classes_, n_features_in_, feature_names_in_ (pandas input with string column names),
    privacy_ledger_, budget_ (dict of the shares), n_estimate_ (the n used by the budget split),
    max_depth_ (the depth this fit grew to at most: ``max_depth`` or the ``"auto"`` rule's),
    gini_weight_ (λ of ``"error-gini"``, None for the other criteria).
    """

    _display_params = ("max_depth", "max_bins", "split_selection", "leaf_labels")

    def __init__(
        self,
        epsilon=1.0,
        max_depth="auto",
        max_bins=10,
        bounds=None,
        categories=None,
        leaf_error=0.01,
        split_selection="permute-and-flip",
        leaf_labels="noisy-counts",
        split_criterion="error-gini",
        n_public=None,
        random_state=None,
        classes=None,
        accountant=None,
        budget_shares=None,
        one_vs_rest=False,
        category_order="noisy-ratio",
        variant="rigorous",
    ):
        self.epsilon = epsilon
        self.max_depth = max_depth
        self.max_bins = max_bins
        self.bounds = bounds
        self.categories = categories
        self.leaf_error = leaf_error
        self.split_selection = split_selection
        self.leaf_labels = leaf_labels
        self.split_criterion = split_criterion
        self.n_public = n_public
        self.random_state = random_state
        self.classes = classes
        self.accountant = accountant
        self.budget_shares = budget_shares
        self.one_vs_rest = one_vs_rest
        self.category_order = category_order
        self.variant = variant

    # ================================================================== parameters
    _parameter_constraints: dict = {
        **TREE_PARAMETER_CONSTRAINTS,
        "max_depth": [Interval(Integral, 0, _MAX_DEPTH, closed="both"), StrOptions({"auto"})],
        "leaf_error": [proportion("right")],
        "split_selection": [StrOptions({"permute-and-flip", "exponential", "histogram"})],
        "leaf_labels": [StrOptions({"noisy-counts", "permute-and-flip"})],
        "split_criterion": [StrOptions({"gini", "error", "error-gini"})],
        "n_public": "no_validation",
        "classes": "no_validation",
        "one_vs_rest": ["boolean"],
        "category_order": [StrOptions({"noisy-ratio", "public"})],
        "variant": [StrOptions(set(VARIANTS))],
    }

    def _check_params(self):
        # the constrained parameters themselves (what get_params would list for them, without
        # its signature inspection): the same checks
        validate_params(self, {k: getattr(self, k) for k in type(self)._parameter_constraints})
        eps = check_epsilon(self.epsilon)
        if self.variant != "rigorous" and self.budget_shares is not None:
            raise ValueError("budget_shares applies to the rigorous variant only")
        check_n_public(self.n_public)
        check_accountant(self.accountant, type(self).__name__)
        check_budget_shares(self.budget_shares)
        # "auto": the deepest tree the rule can choose, for the checks made before any release
        depth = AUTO_MAX_DEPTH if self.max_depth == "auto" else int(self.max_depth)
        return eps, depth, int(self.max_bins), float(self.leaf_error)

    def _resolve_depth(self, epsilon, n_used, n_features, n_classes) -> int:
        """The depth of this fit: ``max_depth``, or the public rule of ``"auto"`` on ε, n̂ (declared
        or a DP release) and the schema (:func:`.budget.default_depth`); the published variants
        keep the paper's depth 4."""
        if self.max_depth != "auto":
            return int(self.max_depth)
        if self.variant != "rigorous":
            return 4
        return default_depth(epsilon, n_used, n_features, n_classes)

    # ================================================================== checks before spending
    def _budget_request(self):
        """``(accountant, ε, δ)`` this fit will request (:mod:`dpmodels.pipeline`)."""
        return self.accountant, self._check_params()[0], 0.0

    def _validate_before_spend(self, X, y):
        """The checks of :meth:`fit` that need no release (parameters, labels against
        ``classes``, declared categories and bounds, the tree-size guard), for
        :mod:`dpmodels.pipeline`. ``X`` may be an empty frame describing an earlier step's
        output, or None (unknown columns: parameters and labels only)."""
        _, depth, max_bins, _ = self._check_params()
        name = type(self).__name__
        y = check_y(y, name)
        classes, _ = resolve_classes(self.classes, y, None)
        if X is None:
            return None
        X, _, m = check_X_shape(X, name, min_samples=0)
        names, categorical, categories = resolve_categories(X, self.categories, None, bounds=self.bounds)
        if self.bounds is not None:
            resolve_bounds(self.bounds, names, np.flatnonzero(~categorical))
        n_cat_bins = max([len(v) + 1 for v in categories.values()], default=0)
        check_tree_size(
            "PrivaTree",
            max_depth=depth,
            n_features=m,
            n_bins=max(max_bins, n_cat_bins),
            n_classes=classes.size,
            n_public=self.n_public,
        )
        return None

    # ================================================================== fit
    def fit(self, X, y=None, sample_weight=None):
        """Fit on ``X`` (DataFrame or array, numerical and categorical columns) and labels ``y``.

        Bad parameters and schema violations raise before any budget is spent. ``sample_weight``:
        None or 0/1 per row (:func:`dpmodels.validation.apply_unit_sample_weight`).

        Partitioned input — a :class:`dpmodels.data.ParquetSource` (``y=None``: the source holds
        the labels) or a Dask DataFrame and its label Series — is fitted by count passes over
        its partitions (:mod:`.streaming`): the same model as in memory under the same seed
        (one driver, :mod:`.fitting`).
        """
        return fit_tree(self, ClassifierTask(self), X, y, sample_weight)

    # release hooks (tests subclass them to plant leaks)
    def _histogram_noise_scale(self, eps_level, n_features):
        """Discrete-Laplace scale of the per-feature histograms (L1 sensitivity n_features)."""
        return n_features / eps_level

    def _noisy_histograms(self, H, scale, rng):
        """The released split histograms (all features, classes, bins of a level)."""
        return discrete_laplace_counts(H, scale, rng)

    # ================================================================== prediction
    def _encode(self, X):
        check_is_fitted(self, "tree_")
        X, _, _ = check_X_shape(X, type(self).__name__, min_samples=0)
        _check_feature_names(self, X, reset=False)
        _check_n_features(self, X, reset=False)
        names, categorical, categories = self._schema
        return encode_matrix(X, names, categorical, categories, copy=False)

    def predict(self, X):
        """Labels of the rows of ``X``; a Dask DataFrame gets a Dask Series (partition by partition)."""
        if is_partitioned(X):
            from ...data.sources import map_partitions

            return map_partitions(self, X, "predict")
        return super().predict(X)

    def predict_proba(self, X):
        """Class probabilities; a Dask DataFrame gets a Dask DataFrame (one column per class)."""
        if is_partitioned(X):
            from ...data.sources import map_partitions

            return map_partitions(self, X, "predict_proba")
        return super().predict_proba(X)

    def apply(self, X):
        """Leaf id of each row (as scikit-learn's ``apply``); a Dask DataFrame gets a Dask Series."""
        if is_partitioned(X):
            from ...data.sources import map_partitions

            return map_partitions(self, X, "apply")
        Z = self._encode(X)  # checks that the model is fitted first
        return self.tree_.apply_encoded(Z)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.non_deterministic = True
        tags.input_tags.categorical = True
        tags.input_tags.string = True
        return tags


class ClassifierTask:
    """The classifier's own steps of the fit (:mod:`.fitting`): its label set, budget plan, level
    selection and leaf release; the parameters checked once, before anything else."""

    progress_label = "PrivaTree levels"

    def __init__(self, est: PrivaTreeClassifier):
        self.est = est
        self.eps, self.depth, self.max_bins, self.leaf_error = est._check_params()
        self.name = type(est).__name__

    # ------------------------------------------------------------------ labels
    def check_labels(self, y):
        return y

    def labels_in_memory(self, y, ledger):
        """The label set (declared, or read from y with a leak row) and y's class indices."""
        classes, y_idx = resolve_classes(self.est.classes, y, ledger)
        return ClassLabels(classes), y_idx

    def refuse_partitioned(self):
        if self.est.variant == "published*":
            raise ValueError(
                f"{self.name}: variant='published*' reads the data's own quantiles; it is not available on "
                "partitioned input"
            )

    def check_declared_labels(self):
        if self.est.classes is None:
            raise ValueError(
                f"{self.name}: partitioned input needs the label set declared (classes=[...]); it is not read "
                "from the data"
            )

    def labels_declared(self, ledger):
        classes, _ = resolve_classes(self.est.classes, np.zeros(0, dtype=object), ledger)
        return ClassLabels(classes)

    # ------------------------------------------------------------------ steps
    def check_size(self, m, categories, lo, hi, labels):
        """The tree-size guard, before any release: public sizes (and the declared n) only."""
        n_cat_bins = max([len(v) + 1 for v in categories.values()], default=0)
        check_tree_size(
            "PrivaTree",
            max_depth=self.depth,
            n_features=m,
            n_bins=max(self.max_bins, n_cat_bins),
            n_classes=labels.K,
            n_public=self.est.n_public,
        )

    def plan(self, n, m, lo, hi, labels, ledger, rng):
        """Steps 1-2: n (declared or a DP estimate), the depth and the budget split (budget.py)."""
        est, eps, K = self.est, self.eps, labels.K
        n_used, eps_n = estimate_n(n, eps, est.n_public, ledger, rng)
        est.n_estimate_ = n_used
        depth = est.max_depth_ = est._resolve_depth(eps, n_used, m, K)
        rigorous = est.variant == "rigorous"
        est.gini_weight_ = gini_weight(eps, n_used, m) if est.split_criterion == "error-gini" and rigorous else None
        # quantiles are released for numerical features with lo < hi (lo = hi: one public value)
        has_num = bool(np.any(hi > lo)) and depth > 0
        if rigorous:
            shares = check_budget_shares(est.budget_shares)
            plan = plan_budget(eps, eps_n, depth, n_used, K, self.leaf_error, has_num, shares=shares)
            return plan, depth, "split", has_num
        # paper 002 as published (Eq. 9-10), PrivaTree* with the data's quantiles
        star = est.variant == "published*"
        plan, (eps_num, eps_cat) = plan_budget_published(
            eps, eps_n, depth, n_used, K, self.leaf_error, has_num, star=star
        )
        est._level_budget = (eps_num, eps_cat, plan.level)
        return plan, depth, "data" if star else "parallel", has_num

    def grow_depth(self, depth):
        return depth

    def select(self, H, alive, level, categorical, n_bins, eps_level, ledger, rng):
        K = H.shape[-1]
        return select_level(self.est, H, alive, level, categorical, n_bins, K, eps_level, ledger, rng)

    def finish(self, st, Hl, plan, labels, names, categorical, categories, ledger, rng):
        """Step 5: the leaves' release, then the released tree and the fitted attributes."""
        est = self.est
        counts, leaf_label = release_leaf_counts(est.leaf_labels, Hl, plan.leaf, ledger, rng)
        ledger.check()
        est.budget_ = plan.as_dict()
        classes = labels.classes
        est.tree_ = assemble(st, categorical, categories, names, classes, counts, leaf_label)
        # noise scale of the released leaf counts (discrete Laplace, sensitivity 1): the
        # pseudo-count of predict_proba's shrinkage (Tree.leaf_proba)
        share = 1.0 if est.leaf_labels == "noisy-counts" else 0.5
        est.tree_.count_noise_scale = 1.0 / (share * plan.leaf)
        est.classes_ = classes
        est.privacy_ledger_ = published_ledger(ledger)
