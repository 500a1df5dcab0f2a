"""Binarizer: raw columns → readable 0/1 columns for rule lists, privately.

Rule lists read binary columns. A practitioner's CSV has numbers and categories, and the usual
scikit-learn pipeline (``KBinsDiscretizer`` + ``OneHotEncoder``) fits its cut points and category
lists on the private data, silently. :class:`Binarizer` makes every such choice public or private,
explicitly:

**Numerical columns** are cut at thresholds ``c_1 < … < c_k``; the output columns are
``age<=37.5``-style literals. The thresholds come, per feature, from (in this order):

1. ``cut_points={name: [...]}``: public thresholds, used exactly as given. No privacy cost.
2. ``epsilon=``: the ``n_bins − 1`` quantiles at levels 1/n_bins, …, (n_bins−1)/n_bins, released by
   the JointExp mechanism within the public ``bounds`` (:func:`dpmodels.privacy.jointexp_quantiles`:
   exponential mechanism on a public grid, utility sensitivity 2, all quantiles of one feature in
   one ε-DP release). A record holds a value of *every* feature, so the per-feature releases
   compose **sequentially**: each of the k features with ``lo < hi`` gets ε/k (docs/privacy.md, principle 7),
   one ledger row each. The released values are then rounded for reading (``rounding=``), clamped
   to [lo, hi] and de-duplicated — post-processing of the DP output; so a feature with
   ``lo < hi`` gets 1 to ``n_bins − 1`` columns (a threshold at hi gives a column that holds for
   every record: harmless, and never an empty output). **The grids, and skewed columns.** Two
   grids shape a DP threshold: JointExp samples within ``grid_size`` equal-width public cells of
   [lo, hi] (default 4096: a cell is (hi − lo)/4096 wide), and ``rounding="range"`` (default)
   rounds to the power of ten at or below (hi − lo)/100. On a skewed column with wide bounds —
   prices in [0, 10⁶] whose quantiles are a few hundred — the range grid is 10⁴ and every
   threshold snaps to 0 (``vicprice<=0``). ``rounding="significant"`` keeps 2 significant digits
   of each released value instead (300 stays 300, 0.00037 stays 0.00037), ``rounding=None``
   keeps the released values as they are, and a larger ``grid_size`` makes the cells finer (the
   privacy guarantee does not depend on either: both are public choices). A feature named in
   ``integer_features`` (declared to hold integers) gets integer thresholds ⌊c⌋ — the same test
   on integers, read ``age<=37`` instead of ``age<=37.6``. Bounds
   missing altogether are read from the data (a leak row); a dict of bounds that lacks a feature
   needing them is an error.
3. Otherwise (no ``epsilon``, no cut points): **not private** — the data's quantiles
   (``numpy.quantile``, for non-private baselines such as GreedyRL), with a
   :class:`~dpmodels.privacy.PrivacyLeakWarning` and a leak row in ``privacy_ledger_``.

Values outside declared bounds are clipped (for thresholds inside [lo, hi] this changes no output
column). NaN and ±inf are outside a numerical feature's domain: a schema error
(:func:`dpmodels.validation.numeric_column`) — impute with a public rule first or declare the
feature categorical. ``encoding="thermometer"`` (default) gives one column ``x<=c_j`` per
threshold: a negated literal is ``x > c_j`` and a conjunction ``not x<=c_1 and x<=c_2`` is the
interval (c_1, c_2], so a width-2 rule reaches every interval between thresholds. ``"onehot"``
gives one column per bin (``x<=c_1``, ``c_1<x<=c_2``, …, ``x>c_k``; one column when there is a
single threshold). The default was chosen by measurement (``docs/results.md``).

**Which columns are which** is decided by declarations, never by pandas' dtypes
(:func:`dpmodels.validation.resolve_categories`; docs/privacy.md, "Declarations, not dtypes"): a
column named in ``cut_points=`` or ``bounds=`` (or covered by a pair of bounds) is numerical
whatever its dtype — text cells in decimal notation are read as numbers, values beyond the float
range are clipped, any other cell is a schema error naming the column, raised before anything
is spent; a key naming no column is an error.

**Categorical columns** are one-hot over the *declared* categories: ``categories={name: [...]}`` or
a pandas ``CategoricalDtype`` (a declaration); an undeclared non-numeric pandas column (object,
text or bool: an inferred dtype is not a declaration) is read from the data (a leak row). Declared
values compare as values: equal as given, or both numbers (of any type, or decimal text) that are
equal (0, 0.0, ``"0"`` match a declared ``0``). A value outside the declared list — of any type, missing values and values whose
comparisons raise included — is **unknown**: every column of its feature is 0 (``not race=A and
not race=B`` captures it). Nothing raises on a categorical value. With ``drop="if_binary"`` (default) a feature with exactly two categories gives one column,
for the second category (``sex=Male``): its negation already covers the first (and the unknowns),
and one column instead of two halves that feature's share of the candidate rules.

**Groups.** ``groups_`` maps every output column to its source feature and what it means
(``{"feature": "age", "kind": "interval", "value": [None, 37.5]}`` for ``age<=37.5``;
``{"feature": "sex", "kind": "category", "value": "Male"}``). The pandas output carries the same
dict in ``X.attrs["dpmodels_groups"]``, from which the rule-list learners drop conjunctions that
are empty or equal to one literal (:mod:`dpmodels.data.rules`); they also accept it explicitly as
``feature_groups=``. The groups describe the columns, never the records.

**Budget.** ``privacy_ledger_`` records every release (and leak). With ``accountant=`` (a
:class:`dpmodels.privacy.BudgetAccountant` shared with the learner), ``epsilon`` is the share
requested from it and ``privacy_ledger_`` is the accountant's ledger, so a pipeline reports one
budget and one verdict (:mod:`dpmodels.privacy.accountant`). Without ``epsilon`` the Binarizer
releases nothing private: its ledger has budget 0 (and leak rows if it read anything).

**Provenance.** The pandas output also carries what this fit released, in
``X.attrs["dpmodels_provenance"]``: the Binarizer's own ledger rows and which accountant (if any)
it spent from. A learner fitted on that frame merges them into its ledger
(:func:`dpmodels.privacy.accountant.ledger_for_fit`): without a shared accountant its totals
include the binarizer's ε and a data-quantile binarizer's leak row makes it "NOT PRIVATE"
(``docs/privacy.md``, "Pipelines"). A numpy copy of the output carries nothing: fit on the frame.

**Checked before anything is spent.** :meth:`_validate_before_spend` runs every check of
:meth:`fit` that needs no release and returns an empty frame with the *most* columns the fit can
produce (``n_bins − 1`` thresholds per feature with DP or data quantiles) and their groups, so a
:class:`dpmodels.pipeline.PrivatePipeline` can check the next step's guards (the candidate count
is a function of public inputs) before this step spends.

``to_dict()`` / ``from_dict()`` serialise the fitted schema (features, thresholds and where they
came from, categories, output columns, groups, ledger) as JSON-safe data.
"""

from __future__ import annotations

import math
import numbers
import uuid

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils.validation import (
    _check_feature_names,
    _check_feature_names_in,
    _check_n_features,
    check_is_fitted,
)

from .._params import Integral, Interval, StrOptions, validate_params
from ..privacy.accountant import PROVENANCE_ATTR, check_accountant, ledger_for_fit, published_ledger
from ..privacy.ledger import PrivacyLedger, charge, check_epsilon
from ..privacy.quantiles import JOINTEXP_SENSITIVITY, _sample_from_histograms, grid_histogram
from ..privacy.samplers import check_random_state
from ..validation import (
    apply_unit_sample_weight,
    category_codes,
    check_declared_values,
    check_X_shape,
    numeric_column,
    resolve_bounds,
    resolve_categories,
)
from .rules import GROUPS_ATTR
from .sources import is_partitioned

__all__ = ["Binarizer", "ENCODINGS"]

ENCODINGS = ("thermometer", "onehot")
_FORMAT = "dpmodels.Binarizer"
_VERSION = 1
_MAX_BINS = 256


def _number_name(c: float) -> str:
    """Shortest exact text of a threshold: ``float(_number_name(c)) == c``."""
    c = float(c)
    if c == 0:
        return "0"
    return np.format_float_positional(c, trim="-")


ROUNDINGS = ("range", "significant", None)


def _readable(c: float, lo: float, hi: float, rounding="range") -> float:
    """A DP threshold rounded for reading, within [lo, hi]: ``"range"`` to the power of ten at or
    below (hi − lo)/100, ``"significant"`` to 2 significant digits of ``c``, None not at all."""
    if hi <= lo:
        return lo
    c = float(c)
    if rounding == "range":
        c = round(c, -math.floor(math.log10((hi - lo) / 100.0)))
    elif rounding == "significant" and c != 0:
        c = round(c, 1 - math.floor(math.log10(abs(c))))
    return float(min(max(c, lo), hi))


def _json_value(v, what: str):
    """A category value as JSON-safe data (numpy scalars become Python scalars)."""
    if isinstance(v, np.generic):
        v = v.item()
    if v is None or isinstance(v, (str, bool, int, float)):
        return v
    raise TypeError(f"{what}: the value {type(v).__name__} is not JSON-serialisable")


def _feature_index(key, names, what):
    if isinstance(key, numbers.Integral) and not isinstance(key, bool) and 0 <= int(key) < len(names):
        return int(key)
    if str(key) in names:
        return names.index(str(key))
    raise ValueError(f"{what}: unknown feature {key!r}")


def _check_cuts(values, name):
    if isinstance(values, (str, bytes)) or not np.iterable(values):
        raise ValueError(f"cut_points[{name!r}] must be a list of numbers")
    try:
        c = np.asarray(list(values), dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"cut_points[{name!r}] must be a list of numbers") from None
    if c.ndim != 1 or not np.isfinite(c).all():
        raise ValueError(f"cut_points[{name!r}] must be a flat list of finite numbers")
    return np.unique(c)  # sorted, distinct


class Binarizer(TransformerMixin, BaseEstimator):
    """Raw numerical and categorical columns → 0/1 columns with readable names (module docstring).

    Parameters
    ----------
    cut_points : None or dict, default=None
        ``{feature name or column index: [thresholds]}``: public thresholds (no privacy cost),
        used exactly; an empty list gives the feature no column.
    n_bins : int, default=3
        Bins per numerical feature without public cut points: ``n_bins − 1`` quantiles (DP with
        ``epsilon``, else the data's, a leak).
    bounds : None, (lower, upper) or dict, default=None
        Public bounds of the numerical features (as :class:`~dpmodels.tree.PrivaTreeClassifier`):
        needed by the DP quantiles; values are clipped to them. ``None`` with ``epsilon``: read
        from the data (a leak row). A column named here or in ``cut_points`` is numerical
        whatever its dtype (module docstring).
    categories : None or dict, default=None
        ``{feature name or column index: [values]}``: declared category lists; declaring a column
        makes it categorical. A pandas ``CategoricalDtype`` counts as a declaration
        (``astype("category")`` reads your data: declare ``pd.CategoricalDtype(categories=[...])``).
    epsilon : None or float, default=None
        Budget of the DP quantiles, split evenly across the numerical features that need them.
        ``None``: no private release (public cut points, or the data's quantiles with a leak).
    grid_size : int, default=4096
        Equal-width public cells of [lo, hi] within which the DP quantiles are sampled (their
        resolution; see "The grids, and skewed columns" above).
    rounding : {"range", "significant", None}, default="range"
        How DP thresholds are rounded for reading (post-processing): to the power of ten at or
        below (hi − lo)/100, to 2 significant digits of each value (for skewed columns with wide
        bounds), or not at all.
    integer_features : None or list, default=None
        Names or indices of numerical features declared to hold integers: their DP (or data)
        thresholds are written ⌊c⌋, which selects the same integers (post-processing; declared
        ``cut_points`` are kept as given). The command line passes its ``--integer`` columns.
    encoding : {"thermometer", "onehot"}, default="thermometer"
        Columns of a numerical feature: ``x<=c`` per threshold, or one column per bin.
    drop : {"if_binary", None}, default="if_binary"
        ``"if_binary"``: a categorical feature with two declared categories gives one column (the
        second category). ``None``: one column per category always.
    accountant : None or :class:`dpmodels.privacy.BudgetAccountant`, default=None
        A budget shared with the learner: ``epsilon`` is the share requested from it.
    random_state : None, int or Generator, default=None
        Randomness of the DP quantiles. ``None`` draws OS entropy (private use); a seed makes fits
        reproducible and is not private.

    Attributes
    ----------
    cut_points_ : dict
        Numerical feature → thresholds used (float64 array, sorted).
    cut_point_source_ : dict
        Numerical feature → ``"public"``, ``"dp"`` or ``"data"`` (leak).
    categories_ : dict
        Categorical feature → list of its categories (declared, or read: a leak).
    bounds_ : dict
        Numerical feature → (lo, hi) used for clipping (declared, or read: a leak).
    groups_ : dict
        Output column → ``{"feature", "kind", "value"}`` (:mod:`dpmodels.data.rules`).
    privacy_ledger_ : PrivacyLedger
        The releases and leaks of this fit (the accountant's ledger with ``accountant=``).
    n_features_in_, feature_names_in_ (pandas input)

    Examples
    --------
    >>> import pandas as pd
    >>> X = pd.DataFrame({"age": [23, 45, 61], "sex": ["Male", "Female", "Male"]})
    >>> b = Binarizer(cut_points={"age": [30, 50]}, categories={"sex": ["Female", "Male"]})
    >>> b.fit_transform(X)
       age<=30  age<=50  sex=Male
    0        1        1         1
    1        0        1         0
    2        0        0         1
    """

    def __init__(
        self,
        cut_points=None,
        n_bins=3,
        bounds=None,
        categories=None,
        epsilon=None,
        encoding="thermometer",
        drop="if_binary",
        accountant=None,
        random_state=None,
        grid_size=4096,
        rounding="range",
        integer_features=None,
    ):
        self.cut_points = cut_points
        self.n_bins = n_bins
        self.bounds = bounds
        self.categories = categories
        self.epsilon = epsilon
        self.encoding = encoding
        self.drop = drop
        self.accountant = accountant
        self.random_state = random_state
        self.grid_size = grid_size
        self.rounding = rounding
        self.integer_features = integer_features

    # ================================================================== parameters
    _parameter_constraints: dict = {
        "cut_points": [None, dict],
        "n_bins": [Interval(Integral, 2, _MAX_BINS, closed="both")],
        "bounds": "no_validation",  # declarations: dpmodels.validation
        "categories": [None, dict],
        "epsilon": "no_validation",  # check_epsilon (dpmodels.privacy); None: no DP release
        "encoding": [StrOptions(set(ENCODINGS))],
        "drop": [StrOptions({"if_binary"}), None],
        "accountant": "no_validation",  # check_accountant
        "random_state": "no_validation",  # samplers.check_random_state
        "grid_size": [Interval(Integral, 1, 2**24, closed="both")],
        "rounding": [StrOptions({"range", "significant"}), None],
        "integer_features": "no_validation",  # needs the feature names: _integer_indices
    }

    def _check_params(self):
        validate_params(self)
        eps = None if self.epsilon is None else check_epsilon(self.epsilon)
        check_accountant(self.accountant, type(self).__name__)
        return eps

    def _integer_indices(self, names, categorical) -> set:
        """Indices of the ``integer_features`` (one-line errors: unknown or categorical names)."""
        if self.integer_features is None:
            return set()
        if isinstance(self.integer_features, (str, bytes)) or not np.iterable(self.integer_features):
            raise ValueError("integer_features must be None or a list of feature names or indices")
        names_s = [str(v) for v in names]
        out = set()
        for k in self.integer_features:
            j = _feature_index(k, names_s, "integer_features")
            if categorical[j]:
                raise ValueError(f"integer_features: {names_s[j]!r} is categorical (it has no thresholds)")
            out.add(j)
        return out

    # ================================================================== fit
    def _budget_request(self):
        """``(accountant, ε, δ)`` this fit will request (:mod:`dpmodels.pipeline`)."""
        eps = self._check_params()
        return self.accountant, eps or 0.0, 0.0

    def _validate_before_spend(self, X, y=None):
        """Every check of :meth:`fit` that needs no release (parameters, feature keys, bounds,
        schema errors such as NaN in a numerical feature), then an empty DataFrame with the most
        output columns this fit can produce and their groups (module docstring). ``X=None``:
        the parameters only. Reads categories of undeclared object columns silently (sizes only:
        :meth:`fit` records that leak)."""
        self._check_params()
        if X is None:
            return None
        name = type(self).__name__
        X, n, m = check_X_shape(X, name, min_samples=0)
        names, categorical, cats = resolve_categories(
            X, self.categories, None, bounds=self.bounds, cut_points=self.cut_points
        )
        cuts_in = self._declared_cuts(names, categorical)
        self._integer_indices(names, categorical)
        num_idx = [j for j in range(m) if not categorical[j]]
        for j in num_idx:
            numeric_column(_column(X, j), names[j])  # schema errors
        eps = None if self.epsilon is None else float(self.epsilon)
        source = {j: ("public" if j in cuts_in else "dp" if eps is not None else "data") for j in num_idx}
        bounds = self._resolve_bounds(names, num_idx, source, None, None) if self.bounds is not None else {}
        k = int(self.n_bins) - 1
        feats = []
        for j in range(m):
            if categorical[j]:
                feats.append(dict(name=names[j], kind="categorical", categories=list(cats[j])))
                continue
            if source[j] == "public":
                c = cuts_in[j]
            elif source[j] == "dp" and j in bounds and bounds[j][0] >= bounds[j][1]:
                c = np.zeros(0)  # lo == hi: nothing released
            else:  # placeholders: the most distinct thresholds the quantiles can give
                lo, hi = bounds.get(j, (0.0, float(k + 1)))
                c = lo + (hi - lo) * np.arange(1, k + 1) / (k + 1) if hi > lo else np.arange(1.0, k + 1)
            feats.append(dict(name=names[j], kind="numerical", cut_points=np.asarray(c, dtype=np.float64)))
        cols, groups = _output_columns(feats, self.encoding, self.drop)
        out = pd.DataFrame(np.zeros((0, len(cols)), dtype=np.uint8), columns=cols)
        out.attrs[GROUPS_ATTR] = groups
        return out

    def _declared_cuts(self, names, categorical) -> dict:
        cuts_in = {}
        for key, vals in (self.cut_points or {}).items():
            j = _feature_index(key, names, "cut_points")
            if categorical[j]:
                raise ValueError(f"cut_points[{key!r}]: feature {names[j]!r} is categorical")
            cuts_in[j] = _check_cuts(vals, names[j])
        return cuts_in

    def fit(self, X, y=None, sample_weight=None):
        """Decide the output columns: thresholds (public, DP or — a leak — the data's) and
        categories. Bad parameters and schema violations raise before any budget is spent.
        ``sample_weight``: None or 0/1 per row (0 leaves the record out); a weight above 1 is
        refused (:func:`dpmodels.validation.apply_unit_sample_weight`).

        Partitioned input (a :class:`dpmodels.data.ParquetSource` or a Dask DataFrame) is read
        in one count pass (:mod:`dpmodels.data.binarize_stream`): same fit under the same seed."""
        if is_partitioned(X, y):
            from .binarize_stream import fit_binarizer_source

            return fit_binarizer_source(self, X, y, sample_weight)
        eps = self._check_params()
        name = type(self).__name__
        X, y = apply_unit_sample_weight(X, y, sample_weight, name)
        X, n, m = check_X_shape(X, name)
        _check_feature_names(self, X, reset=True)
        _check_n_features(self, X, reset=True)
        ledger = ledger_for_fit(self, eps or 0.0)  # refused here if an accountant has too little
        names, categorical, cats = resolve_categories(
            X, self.categories, ledger, bounds=self.bounds, cut_points=self.cut_points
        )
        cuts_in = self._declared_cuts(names, categorical)
        num_idx = [j for j in range(m) if not categorical[j]]
        cols = {j: numeric_column(_column(X, j), names[j]) for j in num_idx}  # schema errors first
        source = {j: ("public" if j in cuts_in else "dp" if eps is not None else "data") for j in num_idx}
        bounds = self._resolve_bounds(names, num_idx, source, cols, ledger)
        G = int(self.grid_size)
        return self._fit_releases(
            eps,
            names,
            categorical,
            cats,
            cuts_in,
            num_idx,
            source,
            bounds,
            ledger,
            cols,
            lambda dp: np.stack([grid_histogram(cols[j], bounds[j], G) for j in dp]),
        )

    def _fit_releases(self, eps, names, categorical, cats, cuts_in, num_idx, source, bounds, ledger, cols, histograms):
        """The releases of :meth:`fit` once the schema is resolved: thresholds and ledger rows.
        ``histograms(dp)`` gives the grid histograms of the DP features (in memory, or summed
        over partitions by :mod:`dpmodels.data.binarize_stream`); ``cols`` the numerical columns
        (read only for the data quantiles, which partitioned input refuses)."""
        name = type(self).__name__
        m = len(names)
        integer = self._integer_indices(names, categorical)  # before any release
        # thresholds: public, then data quantiles (leaks), then the DP releases
        levels = np.arange(1, int(self.n_bins)) / int(self.n_bins)
        cuts = {}
        for j in num_idx:
            if source[j] == "public":
                cuts[j] = cuts_in[j]
            elif source[j] == "data":
                ledger.record_leak(
                    f"quantiles of feature {names[j]!r} (cut points)",
                    "Declare cut_points= or pass epsilon= and bounds= for DP quantiles to keep the fit private.",
                )
                x = cols[j] if j not in bounds else np.clip(cols[j], *bounds[j])
                cuts[j] = np.unique(np.quantile(x, levels))
        dp = [j for j in num_idx if source[j] == "dp" and bounds[j][0] < bounds[j][1]]
        rng = check_random_state(self.random_state)
        for j in num_idx:
            if source[j] == "dp" and j not in dp:  # lo == hi: one public value, nothing to release
                cuts[j] = np.zeros(0)
        if dp:
            # one JointExp release per feature (sequential composition), every row recorded before
            # anything is drawn, all features drawn in one batch (each row has its own law)
            H = histograms(dp)
            for j in dp:
                charge(
                    ledger,
                    f"{levels.size} quantiles of {names[j]!r}",
                    "jointexp (exponential)",
                    eps / len(dp),
                    sensitivity=JOINTEXP_SENSITIVITY,
                )
            Q = _sample_from_histograms(
                H, levels, eps / len(dp), [bounds[j][0] for j in dp], [bounds[j][1] for j in dp], rng
            )
            for j, q in zip(dp, Q):
                lo, hi = bounds[j]
                cuts[j] = np.unique([_readable(v, lo, hi, self.rounding) for v in q])  # post-processing
        # a feature declared integer-valued (a pair of integer bounds) gets integer thresholds:
        # x <= c and x <= ⌊c⌋ select the same integers, and the column reads `age<=37`, not
        # `age<=37.6` (post-processing of released or declared-leak values; user cut points stay)
        for j in num_idx:
            if source[j] != "public" and j in integer and cuts[j].size:
                lo, hi = bounds.get(j, (-np.inf, np.inf))
                cuts[j] = np.unique(np.clip(np.floor(cuts[j]), lo, hi))
        ledger.check()

        self._features = []
        for j in range(m):
            if categorical[j]:
                self._features.append(dict(name=names[j], kind="categorical", categories=list(cats[j])))
            else:
                self._features.append(
                    dict(
                        name=names[j],
                        kind="numerical",
                        cut_points=np.asarray(cuts[j], dtype=np.float64),
                        bounds=bounds.get(j),
                        source=source[j],
                    )
                )
        self._set_columns()
        # this fit's own releases, carried by the transformed frames (module docstring)
        own = PrivacyLedger(ledger.epsilon, ledger.delta)
        own.rows = list(ledger.rows)
        acc = check_accountant(self.accountant)
        release_id = uuid.uuid4().hex
        self._release = dict(
            owner=name, id=release_id, accountant=None if acc is None else acc.id, ledger=own.to_dict()
        )
        self.privacy_ledger_ = published_ledger(ledger)
        if acc is None:
            self.privacy_ledger_.release_id = release_id  # dpmodels.io counts it once
        return self

    def _resolve_bounds(self, names, num_idx, source, cols, ledger) -> dict:
        """Feature index → (lo, hi): declared bounds of every numerical feature that has them; for
        the features needing DP quantiles and no bounds at all, the data's min/max (a leak)."""
        b = self.bounds
        need = [j for j in num_idx if source[j] == "dp"]
        out = {}
        if b is None:
            if need:
                Z = np.column_stack([cols[j] for j in need])
                lo, hi = resolve_bounds(None, [names[j] for j in need], range(len(need)), Z, ledger)
                out = {j: (float(lo[i]), float(hi[i])) for i, j in enumerate(need)}
            return out
        if isinstance(b, dict):
            have = []
            for key in b:
                j = _feature_index(key, names, "bounds")
                if j not in num_idx:
                    raise ValueError(f"bounds[{key!r}]: feature {names[j]!r} is categorical")
                have.append(j)
            missing = [names[j] for j in need if j not in have]
            if missing:
                raise ValueError(
                    f"bounds: no (lo, hi) for numerical feature {missing[0]!r} (needed by the DP quantiles)"
                )
            idx = sorted(set(have))
        else:
            idx = num_idx
        lo, hi = resolve_bounds(b, names, idx)
        return {j: (float(lo[i]), float(hi[i])) for i, j in enumerate(idx)}

    # ================================================================== columns
    def _set_columns(self):
        """Output names and groups from ``self._features`` (the fitted public schema)."""
        names, groups = _output_columns(self._features, self.encoding, self.drop)
        self.groups_ = groups
        self._columns = names
        self.cut_points_ = {f["name"]: f["cut_points"].copy() for f in self._features if f["kind"] == "numerical"}
        self.cut_point_source_ = {f["name"]: f["source"] for f in self._features if f["kind"] == "numerical"}
        self.categories_ = {f["name"]: list(f["categories"]) for f in self._features if f["kind"] == "categorical"}
        self.bounds_ = {
            f["name"]: f["bounds"] for f in self._features if f["kind"] == "numerical" and f["bounds"] is not None
        }

    # ================================================================== transform
    def transform(self, X):
        """0/1 columns (uint8) as a DataFrame with readable names and ``attrs["dpmodels_groups"]``.

        A categorical value outside the declared list (any type, missing included) sets no column
        of its feature; NaN / ±inf in a numerical feature is a schema error. A Dask frame gives a
        Dask frame; a ParquetSource a generator of (binarized batch, labels)."""
        check_is_fitted(self, "groups_")
        if is_partitioned(X):
            from .binarize_stream import transform_source

            return transform_source(self, X)
        X, n, m = check_X_shape(X, type(self).__name__, min_samples=0)
        _check_feature_names(self, X, reset=False)
        _check_n_features(self, X, reset=False)
        blocks = []
        for j, f in enumerate(self._features):
            col = _column(X, j)
            if f["kind"] == "categorical":
                codes = category_codes(col, f["categories"])
                offset = len(f["categories"]) - len(f["kept"])  # 1 when the first category is dropped
                blocks.append(codes[:, None] == np.arange(offset, len(f["categories"]))[None, :])
                continue
            x = numeric_column(col, f["name"])
            if f["bounds"] is not None:
                x = np.clip(x, *f["bounds"])
            c = f["cut_points"]
            if self.encoding == "thermometer" or c.size <= 1:
                blocks.append(x[:, None] <= c[None, :])
            else:  # bin k: c[k-1] < x <= c[k]
                b = np.searchsorted(c, x, side="left")
                blocks.append(b[:, None] == np.arange(c.size + 1)[None, :])
        data = (np.concatenate(blocks, axis=1) if blocks else np.zeros((n, 0), dtype=bool)).astype(np.uint8)
        index = X.index if isinstance(X, pd.DataFrame) else None
        out = pd.DataFrame(data, columns=list(self._columns), index=index)
        out.attrs[GROUPS_ATTR] = {k: dict(v) for k, v in self.groups_.items()}
        release = getattr(self, "_release", None)  # absent on a Binarizer loaded with from_dict
        # earlier releases the input carries (a DP schema draft's) travel on with this one
        carried = [dict(r) for r in (X.attrs.get(PROVENANCE_ATTR) or [])] if isinstance(X, pd.DataFrame) else []
        if release is not None:
            carried = [r for r in carried if r.get("id") != release.get("id")] + [dict(release)]
        if carried:
            out.attrs[PROVENANCE_ATTR] = carried
        return out

    def get_feature_names_out(self, input_features=None):
        """The output column names (``age<=37.5``, ``sex=Male``, …) as an object array."""
        check_is_fitted(self, "groups_")
        _check_feature_names_in(self, input_features)
        return np.asarray(self._columns, dtype=object)

    # ================================================================== export
    def to_dict(self) -> dict:
        """The fitted public schema as JSON-safe data (see :meth:`from_dict`)."""
        check_is_fitted(self, "groups_")
        feats = []
        for f in self._features:
            if f["kind"] == "categorical":
                feats.append(
                    dict(
                        name=f["name"],
                        kind="categorical",
                        categories=[_json_value(v, f"categories of {f['name']!r}") for v in f["categories"]],
                    )
                )
            else:
                feats.append(
                    dict(
                        name=f["name"],
                        kind="numerical",
                        cut_points=[float(v) for v in f["cut_points"]],
                        bounds=None if f["bounds"] is None else [float(v) for v in f["bounds"]],
                        source=f["source"],
                    )
                )
        groups = {}
        for col, g in self.groups_.items():
            v = g["value"]
            v = _json_value(v, f"group of {col!r}") if g["kind"] == "category" else list(v)
            groups[col] = dict(feature=g["feature"], kind=g["kind"], value=v)
        return {
            "format": _FORMAT,
            "version": _VERSION,
            "params": dict(
                n_bins=int(self.n_bins),
                encoding=self.encoding,
                drop=self.drop,
                epsilon=None if self.epsilon is None else float(self.epsilon),
            ),
            "feature_names_in": (
                [str(c) for c in self.feature_names_in_] if hasattr(self, "feature_names_in_") else None
            ),
            "n_features_in": int(self.n_features_in_),
            "features": feats,
            "columns": list(self._columns),
            "groups": groups,
            "privacy_ledger": self.privacy_ledger_.to_dict(),
        }

    @classmethod
    def from_dict(cls, d: dict) -> "Binarizer":
        """A fitted Binarizer from :meth:`to_dict`'s output, without data.

        Its parameters are the fitted schema made public (``cut_points``, ``categories``,
        ``bounds``; ``epsilon=None``), so refitting it costs no budget and gives the same columns.
        Malformed input raises ValueError.
        """
        if not isinstance(d, dict) or d.get("format") != _FORMAT:
            raise ValueError(f"not a serialised Binarizer (expected format {_FORMAT!r})")
        if d.get("version") != _VERSION:
            raise ValueError(f"unsupported Binarizer format version {d.get('version')!r}")
        try:
            p, feats = d["params"], d["features"]
            cut_points, categories, bounds = {}, {}, {}
            for f in feats:
                if f["kind"] == "categorical":
                    categories[f["name"]] = check_declared_values(f["categories"], f"categories of {f['name']!r}")
                elif f["kind"] == "numerical":
                    cut_points[f["name"]] = list(f["cut_points"])
                    if f.get("bounds") is not None:
                        bounds[f["name"]] = tuple(f["bounds"])
                else:
                    raise ValueError(f"unknown feature kind {f['kind']!r}")
            self = cls(
                cut_points=cut_points,
                n_bins=p["n_bins"],
                bounds=bounds or None,
                categories=categories,
                encoding=p["encoding"],
                drop=p["drop"],
            )
            self._check_params()
            self._features = []
            for f in feats:
                if f["kind"] == "categorical":
                    self._features.append(
                        dict(name=str(f["name"]), kind="categorical", categories=categories[f["name"]])
                    )
                else:
                    b = f.get("bounds")
                    self._features.append(
                        dict(
                            name=str(f["name"]),
                            kind="numerical",
                            cut_points=_check_cuts(f["cut_points"], f["name"]),
                            bounds=None if b is None else (float(b[0]), float(b[1])),
                            source=str(f.get("source", "public")),
                        )
                    )
            self._set_columns()
            if list(d["columns"]) != self._columns:
                raise ValueError("the serialised columns do not match the features")
            self.n_features_in_ = int(d["n_features_in"])
            if len(feats) != self.n_features_in_:
                raise ValueError("n_features_in does not match the features")
            if d.get("feature_names_in") is not None:
                self.feature_names_in_ = np.asarray(d["feature_names_in"], dtype=object)
            led = d.get("privacy_ledger")
            self.privacy_ledger_ = PrivacyLedger.from_dict(led) if led is not None else PrivacyLedger(0.0)
            self._release = _loaded_release(self.privacy_ledger_, d)
        except (KeyError, TypeError, IndexError) as exc:
            raise ValueError(f"malformed serialised Binarizer: {exc!r}") from None
        return self

    # ================================================================== sklearn
    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.categorical = True
        tags.input_tags.string = True
        tags.transformer_tags.preserves_dtype = []
        tags.non_deterministic = self.epsilon is not None and self.random_state is None
        return tags


def _loaded_release(ledger: PrivacyLedger, d: dict) -> dict:
    """The provenance a Binarizer rebuilt by ``from_dict`` gives its output: the releases its cut
    points came from. A saved ledger shared with other steps (an accountant's) names each row's
    estimator (``"Binarizer: …"``): only the Binarizer's rows are kept; an unshared one is all
    the Binarizer's. The id is a hash of the document, so every load of one file is one release
    (charged once per accountant)."""
    import hashlib
    import json
    import re
    from dataclasses import replace

    prefixed = [r for r in ledger.rows if re.match(r"^[A-Za-z_]\w*: ", r.what)]
    if prefixed:
        rows = [replace(r, what=r.what[len("Binarizer: ") :]) for r in ledger.rows if r.what.startswith("Binarizer: ")]
    else:
        rows = list(ledger.rows)
    own = PrivacyLedger(0.0)
    own.rows = rows
    own.epsilon = 0.0 if own.epsilon_spent == 0 else own.epsilon_spent  # its budget: what it spent
    own.delta = min(own.delta_spent, 1.0 - 1e-12)
    digest = hashlib.sha256(json.dumps(d, sort_keys=True, default=str).encode()).hexdigest()
    return dict(owner="Binarizer", id=f"loaded-{digest[:32]}", accountant=None, ledger=own.to_dict())


def _output_columns(features, encoding, drop):
    """Output column names and groups of a public schema (a list of feature dicts); sets each
    feature's ``columns`` (and ``kept`` categories). Two columns with one name is an error."""
    names, groups = [], {}
    for f in features:
        feat = f["name"]
        if f["kind"] == "categorical":
            cats = f["categories"]
            kept = cats[1:] if (drop == "if_binary" and len(cats) == 2) else cats
            f["columns"] = [f"{feat}={v}" for v in kept]
            f["kept"] = kept
            specs = [dict(feature=feat, kind="category", value=v) for v in kept]
        else:
            c = f["cut_points"]
            t = [_number_name(v) for v in c]
            if encoding == "thermometer" or c.size <= 1:
                f["columns"] = [f"{feat}<={s}" for s in t]
                specs = [dict(feature=feat, kind="interval", value=[None, float(v)]) for v in c]
            else:
                f["columns"] = (
                    [f"{feat}<={t[0]}"] + [f"{t[k - 1]}<{feat}<={t[k]}" for k in range(1, c.size)] + [f"{feat}>{t[-1]}"]
                )
                ends = [None, *map(float, c), None]
                specs = [dict(feature=feat, kind="interval", value=[ends[k], ends[k + 1]]) for k in range(c.size + 1)]
        for col, spec in zip(f["columns"], specs):
            if col in groups:
                raise ValueError(f"two output columns would be named {col!r}; rename a feature or a category")
            groups[col] = spec
            names.append(col)
    return names, groups


def _column(X, j):
    return X.iloc[:, j] if isinstance(X, pd.DataFrame) else X[:, j]
