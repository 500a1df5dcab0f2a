"""Differentially private additive models (explainable boosting under DP).

Model: ``score(x) = intercept + Σ_j f_j(bin_j(x_j))``, one shape function per feature on **public
bins** (:mod:`.model`). Fit (every release is recorded in ``privacy_ledger_`` before it happens;
the proofs are in docs/privacy.md, "Additive models"):

0. **Bins** (public): a numerical feature is cut at the declared ``cut_points``, or uniformly into
   ``max_bins`` bins within its declared ``bounds`` (a feature whose bounds are two integers with at
   most ``max_bins`` values gets one bin per integer), or — ``binning="quantile"`` — at
   ``max_bins − 1`` DP quantiles within its bounds (JointExp, a ``quantile_share`` of ε split over
   the numerical features, pure ε-DP). A categorical feature's bins are its declared values plus
   one bin ``unknown`` for every other value.
1. **One histogram pass** (``histogram_share`` of the budget): the exact integer counts of every
   (feature, bin, class) — for a regressor every (feature, bin), and the total of the labels
   clipped to ``label_bounds`` on a public grid — released at once. A record is in one bin of each
   of the m features: L1 sensitivity m (L2 √m) for the counts. From them (post-processing): the
   bin sizes (the Newton denominators below), the class prior (the intercept) and, with
   ``init="naive-bayes"``, the starting shape functions ``f_j(b) = log P̃(b | 1) − log P̃(b | 0)``
   (PRIVACY-NOTES 31: this alone ranks Adult at AUC ≈ .90 at ε = 1).
2. **Cyclic boosting rounds** (the rest of the budget, ``max_rounds`` rounds × m features): for
   feature j, every record's gradient of the loss at the current model — ``y − p`` (logistic /
   softmax: in [−1, 1] per class, L1 norm ≤ 2), or the residual ``y − F(x)`` clipped to
   ``± clip·(hi − lo)/2`` for a regressor — is rounded to a public integer grid, summed per bin of
   feature j (exact int64), and released with noise. One record changes **one bin of one feature's
   sums per release**, by at most the clip range: sensitivity Q (the grid units of the clip range;
   Q·min(2/c, K) + K/2 in L1 and Q·min(√2/c, √K) + √K/2 in L2 for K ≥ 3 classes and clip c,
   :func:`gradient_sensitivity`). The bin's term moves by the Newton step shrunk towards 0 where
   the sum is mostly noise, ``learning_rate · G̃_b·h_b / (h_b² + (s/τ)²)`` (h_b the curvature from
   the released counts, s the noise's standard deviation, τ a public prior scale of one step):
   post-processing of the releases; the rounds compose sequentially.

**Noise and accounting.** ``delta=0`` (default): pure ε-DP, discrete Laplace noise on integer
counts and sums, basic composition (the ledger sums the rows' ε). ``delta > 0``: discrete Gaussian
noise calibrated in zero-concentrated DP: every release at ρ_i = Δ₂²/(2σ_i²), composed by adding
the ρ_i, the total ρ chosen as the largest whose conversion (Canonne, Kamath & Steinke 2020,
Cor. 13; :mod:`dpmodels.privacy.zcdp`) is (ε, δ)-DP — one ledger row for the whole composition, its
note listing the parts. Everything else in the fit is public: no bounds, category lists, label set
or stopping rule is read from the data (a missing declaration is read with a
:class:`~dpmodels.privacy.PrivacyLeakWarning` and a leak row, :mod:`dpmodels.validation`), and the
number of rounds is fixed before the first round: declared, or a public rule on ε, δ, m and the
declared ``n_public`` (or a noisy n, a DP release) — never a stopping rule on a private loss.
"""

from __future__ import annotations

import math

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.utils.validation import _check_feature_names, _check_n_features, check_is_fitted

from .._format import FittedReprMixin
from .._params import Integral, Interval, Real, StrOptions, validate_params
from ..data.sources import is_partitioned
from ..privacy import samplers
from ..privacy.ledger import PrivacyLedger, check_delta, check_epsilon
from ..privacy.mechanisms import discrete_gaussian_sums, discrete_laplace_counts, noisy_count
from ..privacy.quantiles import jointexp_quantiles
from ..privacy.zcdp import gaussian_sigma_for_rho, zcdp_rho
from ..validation import (
    UNKNOWN_CATEGORY,
    category_codes,
    check_feature_keys,
    check_fit_input,
    check_label_bounds,
    check_n_public,
    check_X_shape,
    check_y,
    numeric_column,
    resolve_bounds,
    resolve_categories,
    resolve_classes,
    warn_if_delta_large,
)
from .model import AdditiveModel, scores_to_proba

__all__ = ["DPAdditiveClassifier", "DPAdditiveRegressor", "GRADIENT_GRID"]

#: grid units per clip range of a per-record gradient: integer sums, sensitivity GRADIENT_GRID
GRADIENT_GRID = 1024
_MAX_ROUNDS = 1000
_TAU_LOGIT = 0.5  # prior sd of one bin's step, in logits (_shrunk_newton)
_TAU_REG = 0.05  # the same for a regressor, as a share of the residual clip
_NB_PSEUDO = 3.0  # the naive-Bayes pseudo-count, in standard deviations of the counts' noise
_MAX_BINS = 1024

_COMMON_CONSTRAINTS: dict = {
    "epsilon": "no_validation",  # check_epsilon
    "delta": "no_validation",  # check_delta
    "max_rounds": [Interval(Integral, 0, _MAX_ROUNDS, closed="both"), None],
    "learning_rate": [Interval(Real, 0, 10, closed="right")],
    "max_bins": [Interval(Integral, 2, _MAX_BINS, closed="both")],
    "binning": [StrOptions({"uniform", "quantile"})],
    "cut_points": [None, dict],
    "bounds": "no_validation",  # dpmodels.validation
    "categories": [None, dict],
    "histogram_share": [Interval(Real, 0, 1, closed="right"), None],
    "quantile_share": [Interval(Real, 0, 1, closed="neither")],
    "clip": [Interval(Real, 0, 1, closed="right")],
    "n_public": "no_validation",  # check_n_public
    "random_state": "no_validation",  # samplers.check_random_state
}


#: share of ε spent on a noisy training-set size when the rounds follow the public rule and
#: ``n_public`` is not declared (the rule needs an order of magnitude of n)
N_SHARE = 0.02


def default_rounds(epsilon: float, delta: float, n: float, m: int, *, regression: bool = False) -> int:
    """The public rule for the number of boosting rounds, from ε, δ, the (declared or DP-estimated)
    training-set size n and the number of features m.

    A round spends ε/m-sized shares on gradient sums whose signal grows with n, and takes them from
    the histogram pass, which alone already ranks well (PRIVACY-NOTES 31). Measured on Adult,
    COMPAS, German, credit-default and electricity (benchmarks/bench_gam.py, docs/results.md):
    rounds pay once ε·n/m is about 1000 under pure ε, and earlier under zCDP, where ρ composes
    more cheaply. Rule, with r = ε·n/m: pure ε: 0 rounds below 1000, 1 below 5000, else 2;
    δ > 0: 0 below 300, 1 below 1000, 2 below 5000, else 3. A regressor has no naive-Bayes start
    (its histogram pass gives the intercept only), so it always boosts: pure ε: 1 round below 5000,
    else 2; δ > 0: 2 below 5000, else 3 (measured on Adult → hours_per_week).
    """
    r = epsilon * max(float(n), 0.0) / max(1, m)
    if regression:
        return (1 if delta == 0 else 2) + int(r >= 5000)
    steps = (1000, 5000) if delta == 0 else (300, 1000, 5000)
    return int(sum(r >= t for t in steps))


def default_histogram_share(rounds: int, delta: float) -> float:
    """Share of the budget (of ε, or of ρ under zCDP) spent on the histogram pass."""
    if rounds == 0:
        return 1.0
    return 0.5 if delta == 0 else 0.3


def gradient_sensitivity(K: int, clip: float) -> tuple[int, float]:
    """``(L1, L2)`` sensitivity, in grid units, of one feature's per-bin sums of the rounded
    per-record gradients (docs/privacy.md, "Additive models").

    Binary (one score): g = y − p clipped to [−c, c], scaled by Q/c and rounded: |rint(g·Q/c)| ≤ Q.
    K ≥ 3 classes: v = e_y − p has Σ_k |v_k| = 2(1 − p_y) ≤ 2 and ‖v‖₂² = (1 − p_y)² + Σ_{k≠y} p_k²
    ≤ 2(1 − p_y)² ≤ 2; clipping every coordinate to [−c, c] keeps these bounds and adds |v_k| ≤ c,
    so ‖clip(v)‖₁ ≤ min(2, K·c) and ‖clip(v)‖₂ ≤ min(√2, c·√K); scaling by Q/c and rounding each
    coordinate (|rint(a) − a| ≤ 1/2) gives L1 ≤ Q·min(2/c, K) + K/2 and L2 ≤ Q·min(√2/c, √K) + √K/2.
    A record is in one bin: these are the sensitivities of the whole release.
    """
    Q = GRADIENT_GRID
    if K == 2:
        return Q, float(Q)
    l1 = int(math.ceil(Q * min(2.0 / clip, K) + K / 2))
    l2 = Q * min(math.sqrt(2.0) / clip, math.sqrt(K)) + math.sqrt(K) / 2
    return l1, float(l2)


class _AdditiveBase(FittedReprMixin, BaseEstimator):
    """Shared fit machinery of the two estimators (module docstring)."""

    _display_params = ("max_rounds", "max_bins", "learning_rate")
    _loss: str = "logistic"

    # ================================================================== parameters
    def _check_common(self):
        validate_params(self, {k: getattr(self, k) for k in type(self)._parameter_constraints})
        eps = check_epsilon(self.epsilon)
        delta = check_delta(self.delta)
        check_n_public(self.n_public)
        if self.max_rounds is not None and int(self.max_rounds) > 0 and self.histogram_share == 1:
            raise ValueError("histogram_share must be < 1 when max_rounds > 0 (the rounds need budget)")
        return eps, delta

    def _rounds_and_share(self, eps, delta, n, m, ledger, rng):
        """``(rounds, histogram share, ε left)``: declared, or by the public rule
        (:func:`default_rounds`) on the declared ``n_public`` or a noisy n (``N_SHARE`` of ε,
        pure ε-DP, recorded before it is drawn)."""
        eps_left = eps
        if self.max_rounds is not None:
            rounds = int(self.max_rounds)
        else:
            if self.n_public is not None:
                n_used = float(self.n_public)
            else:
                eps_n = N_SHARE * eps
                ledger.spend(
                    "training-set size n (for the rounds rule)", "geometric (discrete Laplace)", eps_n, sensitivity=1.0
                )
                n_used = max(1.0, noisy_count(n, eps_n, rng) - math.log(10.0) / eps_n)  # 95 % lower bound
                eps_left = eps - eps_n
            self.n_estimate_ = n_used
            rounds = default_rounds(eps, delta, n_used, m, regression=self._loss == "squared")
        if self.histogram_share is None:
            share = default_histogram_share(rounds, delta)
        else:
            share = float(self.histogram_share) if rounds > 0 else 1.0
            if share >= 1.0:  # the whole budget declared for the histograms: no rounds (public)
                rounds = 0
        return rounds, share, eps_left

    # ================================================================== checks before spending
    def _budget_request(self):
        """``(accountant, ε, δ)`` this fit will request (:mod:`dpmodels.pipeline`): no accountant."""
        eps, delta = self._check_common()
        return None, eps, delta

    def _validate_before_spend(self, X, y):
        """The checks of :meth:`fit` that need no release (parameters, labels against the declared
        label set or bounds, declared categories, bounds and cut points), for
        :mod:`dpmodels.pipeline` and the command line. ``X`` None: parameters and labels only."""
        self._check_common()
        name = type(self).__name__
        y = check_y(y, name)
        if self._loss == "squared":
            check_label_bounds(getattr(self, "label_bounds", None))
            try:
                yv = np.asarray(y, dtype=np.float64)
            except (TypeError, ValueError):
                raise ValueError("y must be numeric for a regressor") from None
            if not np.all(np.isfinite(yv)):
                raise ValueError("Input y contains NaN or infinity")
        else:
            resolve_classes(getattr(self, "classes", None), y, None)
        if X is None:
            return None
        X, _, _ = check_X_shape(X, name, min_samples=0)
        names, categorical, _ = resolve_categories(
            X, self.categories, None, bounds=self.bounds, cut_points=self.cut_points
        )
        for key, vals in (self.cut_points or {}).items():
            _check_cuts(vals, str(key))
        if self.bounds is not None:
            resolve_bounds(self.bounds, names, np.flatnonzero(~categorical))
        return None

    # ================================================================== schema
    def _schema(self, X, ledger):
        """Names, kinds, categories, bounds and public cut points; raises before any release."""
        names, categorical, cats = resolve_categories(
            X, self.categories, ledger, bounds=self.bounds, cut_points=self.cut_points
        )
        check_feature_keys(self.cut_points, names, "cut_points")
        num_idx = np.flatnonzero(~categorical)
        cols = _columns(X, names)
        num = {int(j): numeric_column(cols[j], names[j]) for j in num_idx}
        declared_cuts = {}
        for key, vals in (self.cut_points or {}).items():
            j = names.index(str(key)) if str(key) in names else int(key)
            declared_cuts[j] = _check_cuts(vals, names[j])
        need = [j for j in num_idx if j not in declared_cuts or self.bounds is not None]
        Z = None
        if self.bounds is None and need:
            Z = np.zeros((len(cols[0]) if cols else 0, len(names)))
            for j in num_idx:
                Z[:, j] = num[int(j)]
        if need or self.bounds is not None:
            lo, hi = resolve_bounds(self.bounds, names, num_idx, Z, ledger)
        else:
            lo, hi = np.zeros(0), np.zeros(0)
        bounds = {}
        for i, j in enumerate(num_idx):
            j = int(j)
            if lo.size:
                bounds[j] = (float(lo[i]), float(hi[i]))
            else:  # only cut points declared: the bounds are their span (values are clipped to it)
                c = declared_cuts[j]
                bounds[j] = (float(c[0]), float(c[-1])) if c.size else (0.0, 0.0)
        return names, categorical, cats, num, declared_cuts, bounds

    def _public_cuts(self, j, lo, hi, declared_cuts, integer):
        if j in declared_cuts:
            c = declared_cuts[j]
            return c[(c > lo) & (c < hi)] if hi > lo else np.zeros(0)
        if hi <= lo:
            return np.zeros(0)
        B = int(self.max_bins)
        if integer and hi - lo + 1 <= B:  # one bin per declared integer value
            return np.arange(lo, hi) + 0.5
        c = lo + (hi - lo) * np.arange(1, B) / B
        if integer:  # between two integers: the same bins for integer values, readable cuts
            c = np.unique(np.floor(c) + 0.5)
        return c

    # ================================================================== fit
    def _fit(self, X, y, sample_weight, regression: bool):
        eps, delta = self._check_common()
        name = type(self).__name__
        X, y, n, m = check_fit_input(X, y, sample_weight, name)
        warn_if_delta_large(delta, self.n_public)
        ledger = PrivacyLedger(eps, delta)
        if regression:
            yv, lb = self._regression_labels(y, ledger)
            classes = None
        else:
            classes, y_idx = resolve_classes(self.classes, y, ledger)
        names, categorical, cats, num, declared_cuts, bounds = self._schema(X, ledger)
        _check_feature_names(self, X, reset=True)
        _check_n_features(self, X, reset=True)
        rng = samplers.check_random_state(self.random_state)
        integer = set(_integer_features(self.bounds, names))
        quantile_feats = [
            j
            for j in sorted(num)
            if self.binning == "quantile" and j not in declared_cuts and bounds[j][1] > bounds[j][0]
        ]
        eps_q = eps * float(self.quantile_share) if quantile_feats else 0.0
        # ---- bins (public, or DP quantiles: the first releases)
        cuts: dict = {}
        for j in sorted(num):
            lo, hi = bounds[j]
            if j in quantile_feats:
                q = np.arange(1, int(self.max_bins)) / int(self.max_bins)
                c = jointexp_quantiles(
                    num[j],
                    q,
                    eps_q / len(quantile_feats),
                    (lo, hi),
                    rng,
                    ledger=ledger,
                    what=f"{q.size} quantiles of {names[j]!r} (bins)",
                )
                c = np.unique(c[(c > lo) & (c < hi)])
            else:
                c = self._public_cuts(j, lo, hi, declared_cuts, names[j] in integer)
            cuts[j] = np.asarray(c, dtype=float)
        model = _new_model(names, categorical, cats, cuts, bounds, classes, lb if regression else None, integer)
        Bn = np.empty((n, m), dtype=np.int64)
        for j in range(m):
            if categorical[j]:
                codes = category_codes(_columns(X, names)[j], cats[j])
                Bn[:, j] = np.where(codes == UNKNOWN_CATEGORY, len(cats[j]), codes)
            else:
                Bn[:, j] = model.bin_numbers(j, num[j])
        lab = yv if regression else y_idx
        hist = _hist_core(model, Bn, lab)
        clip = float(self.clip)
        return self._boost(
            model, n, hist, lambda j: _grad_core(model, Bn, lab, j, clip), eps, delta, eps_q, ledger, rng
        )

    def _fit_source(self, X, y, sample_weight, regression: bool):
        """:meth:`fit` on partitioned input (a :class:`dpmodels.data.ParquetSource`, a Dask
        DataFrame): the same releases from the same exact integers, computed by count passes
        (:func:`dpmodels.data.counts.counts`) — one for the histograms (every schema error
        surfaces there, before any release), then one per (round, feature). The model equals the
        in-memory fit's under the same seed. Every public input must be declared: nothing is read
        from the data, not even with a leak row."""
        from ..data.counts import counts
        from ..data.sources import as_source, declared_schema

        eps, delta = self._check_common()
        name = type(self).__name__
        if sample_weight is not None:
            raise ValueError(f"{name}: sample_weight is not supported on partitioned input")
        if self.binning == "quantile":
            raise ValueError(f"{name}: binning='quantile' is not available on partitioned input; declare cut_points=")
        if regression and self.label_bounds is None:
            raise ValueError(f"{name}: partitioned input needs label_bounds=; they are not read from the data")
        if not regression and self.classes is None:
            raise ValueError(f"{name}: partitioned input needs classes=; the label set is not read from the data")
        source = as_source(X, y)
        schema = source.schema_frame()
        names, categorical, cats = declared_schema(name, schema, self.categories, self.bounds, self.cut_points)
        check_feature_keys(self.cut_points, names, "cut_points")
        declared_cuts = {}
        for key, vals in (self.cut_points or {}).items():
            j = names.index(str(key)) if str(key) in names else int(key)
            declared_cuts[j] = _check_cuts(vals, names[j])
        num_idx = [int(j) for j in np.flatnonzero(~categorical)]
        if self.bounds is None and any(j not in declared_cuts for j in num_idx):
            raise ValueError(
                f"{name}: partitioned input needs bounds= for its numerical features; they are not read from the data"
            )
        warn_if_delta_large(delta, self.n_public)
        ledger = PrivacyLedger(eps, delta)
        lb = check_label_bounds(self.label_bounds) if regression else None
        classes = None if regression else resolve_classes(self.classes, np.zeros(0, dtype=object), ledger)[0]
        _check_feature_names(self, schema, reset=True)
        _check_n_features(self, schema, reset=True)
        if self.bounds is not None:
            lo, hi = resolve_bounds(self.bounds, names, num_idx)
            bounds = {j: (float(a), float(b)) for j, a, b in zip(num_idx, lo, hi)}
        else:
            bounds = {
                j: (float(declared_cuts[j][0]), float(declared_cuts[j][-1])) if declared_cuts[j].size else (0.0, 0.0)
                for j in num_idx
            }
        integer = set(_integer_features(self.bounds, names))
        cuts = {
            j: np.asarray(self._public_cuts(j, *bounds[j], declared_cuts, names[j] in integer), dtype=float)
            for j in num_idx
        }
        model = _new_model(names, categorical, cats, cuts, bounds, classes, lb, integer)
        rng = samplers.check_random_state(self.random_state)
        size = _hist_core(
            model, np.zeros((0, len(names)), dtype=np.int64), np.zeros(0, dtype=np.int64 if not regression else float)
        ).size
        first = counts(source, _HistPass(model), (1 + size,))
        n = int(first[0])
        if n == 0:
            raise ValueError(
                "Found array with 0 sample(s) while a minimum of 1 is required (the empty dataset is outside the domain)."
            )
        clip = float(self.clip)
        S = model.intercept.size

        def grad_sums(j):
            return counts(source, _GradPass(model, j, clip), (model.n_bins(j), S))

        return self._boost(model, n, first[1:], grad_sums, eps, delta, 0.0, ledger, rng)

    def _boost(self, model, n, hist, grad_sums, eps, delta, eps_q, ledger, rng):
        """Steps 1-2 of the module docstring from exact integer statistics: ``hist`` (the
        histogram pass) and ``grad_sums(j)`` (feature j's per-bin gradient sums at the current
        model), computed by one call on the data in memory or by count passes over a source."""
        m = model.n_features
        regression = not model.is_classifier
        K = 1 if regression else len(model.classes)
        nbins = [model.n_bins(j) for j in range(m)]
        rounds, h_share, eps_left = self._rounds_and_share(eps, delta, n, m, ledger, rng)
        plan = _Plan(eps_left - eps_q, delta, rounds, h_share, m, K, regression)
        self.budget_ = plan.describe(eps_q)
        if regression:
            self._fit_regression(model, hist, grad_sums, nbins, plan, ledger, rng)
        else:
            self._fit_classification(model, hist, grad_sums, K, nbins, plan, ledger, rng)
        ledger.check()
        _center(model)
        self.model_ = model
        self.privacy_ledger_ = ledger
        self.n_rounds_ = rounds
        return self

    # ------------------------------------------------------------------ releases (hooks)
    def _release(self, exact, scale, plan, rng):
        """Noisy integer vector: discrete Laplace of ``scale`` (pure) or discrete Gaussian of σ
        ``scale`` (zCDP). The calibration is the plan's; tests subclass this to plant leaks."""
        if plan.gaussian:
            return discrete_gaussian_sums(exact, scale, rng)
        return discrete_laplace_counts(exact, scale, rng)

    def _round_scale(self, plan, sens_l1, sens_l2):
        """Noise scale of one feature's gradient sums in one round (tests plant leaks here)."""
        return plan.round_scale(sens_l1, sens_l2)

    def _spend_rounds_and_histograms(self, plan, ledger, what_hist, hist_sens, round_sens, nbins_total):
        """Record the histogram pass (and, under zCDP, the whole composition) before drawing."""
        m, R = plan.m, plan.rounds
        if plan.gaussian:
            ledger.spend(
                f"additive model: {what_hist} + {R} round(s) × {m} feature(s) of gradient sums per bin, "
                "composed in zCDP",
                "discrete Gaussian (zCDP)",
                plan.eps,
                plan.delta,
                sensitivity=None,
                note=plan.zcdp_note(hist_sens, round_sens),
            )
        else:
            ledger.spend(
                what_hist,
                "geometric (discrete Laplace)",
                plan.eps * plan.h_share,
                sensitivity=float(hist_sens[0]),
                note=f"one record in one bin of each of the {m} features: L1 sensitivity {hist_sens[0]:g}",
            )

    def _spend_round(self, plan, ledger, r, round_sens):
        if plan.gaussian:
            return  # recorded with the composition
        ledger.spend(
            f"boosting round {r + 1}: gradient sums per bin, {plan.m} feature(s) in turn",
            "geometric (discrete Laplace)",
            plan.eps_round * plan.m,
            sensitivity=float(round_sens[0]),
            note=f"{plan.m} sequential release(s) at ε={plan.eps_round:.4g} each; one record changes one bin "
            f"sum by at most {round_sens[0]:g} grid units",
        )

    # ------------------------------------------------------------------ classification
    def _fit_classification(self, model, hist, grad_sums, K, nbins, plan, ledger, rng):
        m = len(nbins)
        offs = np.concatenate([[0], np.cumsum(nbins)])
        total = int(offs[-1])
        H = hist.reshape(total, K)
        sens_l1, sens_l2 = gradient_sensitivity(K, float(self.clip))
        self._spend_rounds_and_histograms(
            plan,
            ledger,
            f"class counts per bin of {m} feature(s)",
            (float(m), math.sqrt(m)),
            (sens_l1, sens_l2),
            total,
        )
        Hn = self._release(H, plan.hist_scale(float(m), math.sqrt(m)), plan, rng).astype(float)
        Hc = np.clip(Hn, 0.0, None)
        a = _NB_PSEUDO * max(plan.hist_sd, 0.5)  # pseudo-count, in noise standard deviations (public)
        # class totals: every feature's histogram counts each record once; average them
        tot = np.clip(np.mean([Hc[offs[j] : offs[j + 1]].sum(axis=0) for j in range(m)], axis=0), 1.0, None)
        logprior = np.log(tot / tot.sum())
        model.intercept[:] = logprior[1] - logprior[0] if K == 2 else logprior
        for j in range(m):
            Hj = Hc[offs[j] : offs[j + 1]]
            model.bin_counts[j][:] = Hn[offs[j] : offs[j + 1]].sum(axis=1)
            if self.init == "naive-bayes":
                # log P̃(bin | class), pseudo-counts in proportion to the class prior: an empty
                # bin (or one whose counts are all noise) scores 0, not minus the prior log-odds
                ac = a * K * tot / tot.sum()
                logp = np.log((Hj + ac) / (tot + ac * nbins[j]))
                model.terms[j][:] = (logp[:, 1] - logp[:, 0])[:, None] if K == 2 else logp
        if plan.rounds == 0:
            return
        # Newton curvature per bin from the released counts (post-processing)
        curv = []
        for j in range(m):
            Hj = Hc[offs[j] : offs[j + 1]]
            nb = Hj.sum(axis=1, keepdims=True)
            pi = (Hj + a) / (nb + a * K)
            c = nb * pi * (1.0 - pi)
            curv.append(c if K > 2 else c[:, 1:2])
        scale = self._round_scale(plan, sens_l1, sens_l2)
        lam = plan.noise_sd(scale) / GRADIENT_GRID
        lr = float(self.learning_rate)
        clip = float(self.clip)
        for r in range(plan.rounds):
            self._spend_round(plan, ledger, r, (sens_l1, sens_l2))
            for j in range(m):
                noisy = self._release(grad_sums(j), scale, plan, rng) * (clip / GRADIENT_GRID)
                model.terms[j] += lr * _shrunk_newton(noisy, curv[j], lam, _TAU_LOGIT)

    # ------------------------------------------------------------------ regression
    def _fit_regression(self, model, hist, grad_sums, nbins, plan, ledger, rng):
        m = len(nbins)
        lo_y, hi_y = model.label_bounds
        mid, half = 0.5 * (lo_y + hi_y), 0.5 * (hi_y - lo_y)
        offs = np.concatenate([[0], np.cumsum(nbins)])
        cnt, ysum = hist[:-1], hist[-1:]
        G = GRADIENT_GRID
        self._spend_rounds_and_histograms(
            plan,
            ledger,
            f"record counts per bin of {m} feature(s) and the total of the labels",
            (float(m), math.sqrt(m), float(G)),
            (G, float(G)),
            int(offs[-1]),
        )
        noisy_cnt = self._release(cnt, plan.hist_scale(float(m), math.sqrt(m), part=0), plan, rng).astype(float)
        noisy_sum = self._release(ysum, plan.hist_scale(float(G), float(G), part=1), plan, rng).astype(float)
        n_tot = max(float(np.mean([np.clip(noisy_cnt[offs[j] : offs[j + 1]], 0, None).sum() for j in range(m)])), 1.0)
        model.intercept[:] = float(np.clip(mid + noisy_sum[0] * (half / G) / n_tot, lo_y, hi_y))
        for j in range(m):
            model.bin_counts[j][:] = noisy_cnt[offs[j] : offs[j + 1]]
        if plan.rounds == 0 or half == 0:
            return
        C = float(self.clip) * half  # residuals clipped to ±C
        scale = self._round_scale(plan, G, float(G))
        lam = plan.noise_sd(scale) / G
        lr = float(self.learning_rate)
        curv = [np.clip(model.bin_counts[j], 0.0, None) for j in range(m)]
        for r in range(plan.rounds):
            self._spend_round(plan, ledger, r, (G, float(G)))
            for j in range(m):
                noisy = self._release(grad_sums(j)[:, 0], scale, plan, rng) * (C / G)
                model.terms[j][:, 0] += lr * _shrunk_newton(noisy, curv[j], lam, _TAU_REG * C)

    # ================================================================== prediction and reading
    def _binned(self, X):
        check_is_fitted(self, "model_")
        X, _, _ = check_X_shape(X, type(self).__name__, min_samples=0)
        _check_feature_names(self, X, reset=False)
        _check_n_features(self, X, reset=False)
        return self.model_.encode(X)

    @property
    def term_importances_(self):
        """Mean absolute score of each term, weighted by the noisy bin counts (post-processing)."""
        check_is_fitted(self, "model_")
        return self.model_.term_importances()

    def header(self) -> list[str]:
        """The printed header: learner, privacy status, what the scores are."""
        from .._format import learner_title, privacy_status

        params = self.get_params(deep=False)
        lines = [learner_title(type(self).__name__, params, self._display_params)]
        seeded = params.get("random_state") is not None
        lines.append("privacy: " + privacy_status(self.privacy_ledger_, private_learner=True, seeded=seeded))
        if self.model_.is_classifier:
            lines.append("classes: " + ", ".join(str(c) for c in self.model_.classes))
        return lines

    def to_text(self, **kw) -> str:
        check_is_fitted(self, "model_")
        return self.model_.to_text(self.header(), **kw)

    def __str__(self) -> str:
        try:
            check_is_fitted(self, "model_")
        except Exception:
            return self.__repr__()
        return self.to_text()

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.non_deterministic = True
        tags.input_tags.categorical = True
        tags.input_tags.string = True
        return tags


class DPAdditiveClassifier(ClassifierMixin, _AdditiveBase):
    """Differentially private additive classifier (binary and K classes): explainable boosting
    on public bins (module docstring).

    Parameters
    ----------
    epsilon : float, default 1.0
        Privacy budget ε.
    delta : float, default 0.0
        0: pure ε-DP (discrete Laplace noise). > 0: (ε, δ)-DP by zCDP composition of discrete
        Gaussian releases (module docstring).
    max_rounds : int or None, default None
        Cyclic boosting rounds after the histogram pass (each visits every feature once). None:
        the public rule :func:`default_rounds` on ε, δ, the number of features and ``n_public``
        (or, undeclared, a noisy n at 2 % of ε).
    learning_rate : float, default 1.0
        Multiplies every Newton step.
    max_bins : int, default 32
        Bins of a numerical feature without declared cut points.
    binning : {"uniform", "quantile"}, default "uniform"
        Uniform bins within the declared bounds (no privacy cost), or DP quantiles within them
        (``quantile_share`` of ε, split over the numerical features).
    cut_points : None or dict
        Public cut points ``{feature: [c_1, ...]}`` (declares the feature numerical).
    bounds, categories : declarations (:mod:`dpmodels.validation`)
        Public bounds of the numerical features (pair or ``{name: (lo, hi)}``) and public category
        lists ``{name: [...]}``. Missing ones are read from the data (leak row and warning).
    classes : None or list
        The public label set, in order (``classes_``). None: read from y (a leak).
    histogram_share : float or None
        Share of ε (of ρ under zCDP) spent on the histogram pass. None: 0.5 under pure ε, 0.3
        under zCDP (1 without rounds). 1: no rounds (with ``max_rounds > 0`` it is an error).
    quantile_share : float, default 0.1
        Share of ε spent on the DP quantiles when ``binning="quantile"``.
    clip : float in (0, 1], default 1.0
        Per-record gradients are clipped to ± clip per class (smaller: less noise, more bias).
    init : {"naive-bayes", "prior"}, default "naive-bayes"
        Start the shape functions from the naive-Bayes log-ratios of the released histograms, or
        at zero (intercept only).
    n_public : None or number
        Declared public training-set size (an order of magnitude is enough): the rounds rule uses
        it instead of a noisy n, and δ ≥ 1/n_public is warned about.
    random_state : None, int or Generator
        None (default) draws OS entropy. A seed makes fits reproducible and is NOT private.

    Attributes
    ----------
    model_ : :class:`~dpmodels.gam.AdditiveModel`
    classes_, n_features_in_, feature_names_in_ (pandas input), privacy_ledger_, budget_ (dict),
    n_rounds_, term_importances_.
    """

    _parameter_constraints: dict = {
        **_COMMON_CONSTRAINTS,
        "classes": "no_validation",
        "init": [StrOptions({"naive-bayes", "prior"})],
    }

    def __init__(
        self,
        epsilon=1.0,
        delta=0.0,
        max_rounds=None,
        learning_rate=1.0,
        max_bins=32,
        binning="uniform",
        cut_points=None,
        bounds=None,
        categories=None,
        classes=None,
        histogram_share=None,
        quantile_share=0.1,
        clip=1.0,
        init="naive-bayes",
        n_public=None,
        random_state=None,
    ):
        self.epsilon = epsilon
        self.delta = delta
        self.max_rounds = max_rounds
        self.learning_rate = learning_rate
        self.max_bins = max_bins
        self.binning = binning
        self.cut_points = cut_points
        self.bounds = bounds
        self.categories = categories
        self.classes = classes
        self.histogram_share = histogram_share
        self.quantile_share = quantile_share
        self.clip = clip
        self.init = init
        self.n_public = n_public
        self.random_state = random_state

    def fit(self, X, y=None, sample_weight=None):
        """Fit on ``X`` (numerical and categorical columns) and labels ``y``. Bad parameters and
        schema violations raise before any budget is spent. Partitioned input (a
        :class:`dpmodels.data.ParquetSource` with ``y=None``, or a Dask DataFrame and its labels)
        is fitted by count passes: the same model as in memory under the same seed."""
        if is_partitioned(X, y):
            self._fit_source(X, y, sample_weight, regression=False)
        else:
            self._fit(X, y, sample_weight, regression=False)
        self.classes_ = self.model_.classes
        return self

    def decision_function(self, X):
        """The additive score of each row ((n,) for a binary classifier or a regressor, (n, K))."""
        B = self._binned(X)  # first: NotFittedError on an unfitted estimator
        F = self.model_.decision_function_binned(B)
        return F[:, 0] if F.shape[1] == 1 else F

    def predict_proba(self, X):
        """Class probabilities: logistic (binary) or softmax (K classes) of the scores."""
        B = self._binned(X)  # first: NotFittedError on an unfitted estimator
        return self.model_.predict_proba_binned(B)

    def predict(self, X):
        """The class of largest probability (argmax of :meth:`predict_proba`)."""
        P = self.predict_proba(X)  # first: NotFittedError on an unfitted estimator
        return self.classes_[np.argmax(P, axis=1)]


class DPAdditiveRegressor(RegressorMixin, _AdditiveBase):
    """Differentially private additive regressor on public bins (module docstring).

    Parameters are those of :class:`DPAdditiveClassifier` without ``classes`` and ``init``, and:

    label_bounds : (lo, hi)
        Public bounds of the label: labels are clipped to them, residuals to
        ``± clip·(hi − lo)/2``, predictions to them. None: read from y (a leak row and warning).
    clip : float in (0, 1], default 0.25
        Residuals are clipped to ± clip·(hi − lo)/2 (measured on Adult → hours_per_week: 0.25
        beats 0.1 and 0.5 at ε = 1).
    """

    _loss = "squared"
    _parameter_constraints: dict = {**_COMMON_CONSTRAINTS, "label_bounds": "no_validation"}

    def __init__(
        self,
        epsilon=1.0,
        delta=0.0,
        max_rounds=None,
        learning_rate=1.0,
        max_bins=32,
        binning="uniform",
        cut_points=None,
        bounds=None,
        categories=None,
        label_bounds=None,
        histogram_share=None,
        quantile_share=0.1,
        clip=0.25,
        n_public=None,
        random_state=None,
    ):
        self.epsilon = epsilon
        self.delta = delta
        self.max_rounds = max_rounds
        self.learning_rate = learning_rate
        self.max_bins = max_bins
        self.binning = binning
        self.cut_points = cut_points
        self.bounds = bounds
        self.categories = categories
        self.label_bounds = label_bounds
        self.histogram_share = histogram_share
        self.quantile_share = quantile_share
        self.clip = clip
        self.n_public = n_public
        self.random_state = random_state

    def _check_common(self):
        out = super()._check_common()
        check_label_bounds(self.label_bounds)
        return out

    def _regression_labels(self, y, ledger):
        try:
            yv = np.asarray(y, dtype=np.float64)
        except (TypeError, ValueError):
            raise ValueError("y must be numeric for a regressor") from None
        if not np.all(np.isfinite(yv)):
            raise ValueError("Input y contains NaN or infinity")
        lb = check_label_bounds(self.label_bounds)
        if lb is None:
            ledger.record_leak("label bounds", "Declare label_bounds=(lo, hi) to keep the fit private.")
            lb = (float(yv.min()), float(yv.max())) if yv.size else (0.0, 1.0)
        return np.clip(yv, lb[0], lb[1]), lb

    def fit(self, X, y=None, sample_weight=None):
        """Fit on ``X`` and numeric labels ``y`` (clipped to ``label_bounds``); partitioned input
        as :meth:`DPAdditiveClassifier.fit`."""
        if is_partitioned(X, y):
            return self._fit_source(X, y, sample_weight, regression=True)
        return self._fit(X, y, sample_weight, regression=True)

    def predict(self, X):
        """The additive score of each row, clipped to the label bounds."""
        B = self._binned(X)  # first: NotFittedError on an unfitted estimator
        lo, hi = self.model_.label_bounds
        return np.clip(self.model_.decision_function_binned(B)[:, 0], lo, hi)


# ====================================================================== the budget plan
class _Plan:
    """Noise scales of the histogram pass and of each (round, feature) release.

    Pure ε: the histogram pass gets ε·h, each of the R·m gradient releases ε·(1 − h)/(R·m);
    discrete Laplace scale = L1 sensitivity / ε. zCDP: the total ρ is the largest whose
    conversion is (ε, δ)-DP; the histogram pass gets ρ·h, each gradient release ρ·(1 − h)/(R·m);
    discrete Gaussian σ = L2 sensitivity / √(2ρ). A regressor's histogram pass has two parts
    (counts, label total), each half of the pass's share.
    """

    def __init__(self, eps, delta, rounds, h_share, m, K, regression):
        self.eps, self.delta, self.rounds, self.h_share, self.m = eps, delta, rounds, h_share, m
        self.gaussian = delta > 0
        self.parts = 2 if regression else 1
        if self.gaussian:
            self.rho = zcdp_rho(eps, delta)
            self.rho_hist = self.rho * h_share
            self.rho_round = self.rho * (1 - h_share) / max(1, rounds * m)
        else:
            self.eps_hist = eps * h_share
            self.eps_round = eps * (1 - h_share) / max(1, rounds * m)
        self.hist_sd = 0.0

    def hist_scale(self, l1, l2, part=0):
        if self.gaussian:
            s = gaussian_sigma_for_rho(self.rho_hist / self.parts, l2)
        else:
            s = l1 / (self.eps_hist / self.parts)
        if part == 0:
            self.hist_sd = self.noise_sd(s)
        return s

    def round_scale(self, l1, l2):
        if self.gaussian:
            return gaussian_sigma_for_rho(self.rho_round, l2)
        return l1 / self.eps_round

    def noise_sd(self, scale):
        return scale if self.gaussian else math.sqrt(2.0) * scale

    def zcdp_note(self, hist_sens, round_sens) -> str:
        return (
            f"ρ={self.rho:.4g} in total (CKS 2020 Cor. 13 conversion to ε={self.eps:.4g}, δ={self.delta:.3g}); "
            f"histogram pass ρ={self.rho_hist:.4g} (L2 sensitivity {hist_sens[1]:.3g}); "
            f"{self.rounds}×{self.m} gradient releases at ρ={self.rho_round:.4g} each "
            f"(L2 sensitivity {round_sens[1]:.4g} grid units)"
        )

    def describe(self, eps_q) -> dict:
        d = {"epsilon_quantiles": eps_q, "rounds": self.rounds, "histogram_share": self.h_share}
        if self.gaussian:
            d.update(rho=self.rho, rho_histograms=self.rho_hist, rho_per_release=self.rho_round)
        else:
            d.update(epsilon_histograms=self.eps_hist, epsilon_per_release=self.eps_round)
        return d


# ====================================================================== helpers
def _new_model(names, categorical, cats, cuts, bounds, classes, label_bounds, integer) -> AdditiveModel:
    """An additive model with every score and count 0 on the public bins (filled by the fit)."""
    m = len(names)
    K = 1 if classes is None else len(classes)
    S = 1 if K <= 2 else K
    nbins = [len(cats[j]) + 1 if categorical[j] else cuts[j].size + 1 for j in range(m)]
    return AdditiveModel(
        names,
        categorical,
        cats,
        cuts,
        bounds,
        [np.zeros((b, S)) for b in nbins],
        np.zeros(S),
        [np.zeros(b) for b in nbins],
        classes=classes,
        label_bounds=label_bounds,
        integer_features=sorted(integer),
    )


def _hist_core(model: AdditiveModel, B: np.ndarray, lab: np.ndarray) -> np.ndarray:
    """The exact statistics of the histogram pass on rows given as bins ``B`` (int64, flat):
    a classifier's (feature, bin, class) counts; a regressor's (feature, bin) counts and the total
    of its labels (clipped, centred and rounded to the public grid). Sums over any partition of
    the rows add up to the same integers."""
    m = model.n_features
    nbins = [model.n_bins(j) for j in range(m)]
    if model.classes is not None:
        K = len(model.classes)
        return np.concatenate([np.bincount(B[:, j] * K + lab, minlength=nbins[j] * K) for j in range(m)]).astype(
            np.int64
        )
    assert model.label_bounds is not None
    lo, hi = model.label_bounds
    mid, half = 0.5 * (lo + hi), 0.5 * (hi - lo)
    units = np.rint((lab - mid) / half * GRADIENT_GRID).astype(np.int64) if half > 0 else np.zeros(lab.size, np.int64)
    cnt = [np.bincount(B[:, j], minlength=nbins[j]) for j in range(m)]
    return np.concatenate([*cnt, [int(units.sum())]]).astype(np.int64)


def _grad_core(model: AdditiveModel, B: np.ndarray, lab: np.ndarray, j: int, clip: float) -> np.ndarray:
    """Feature j's exact per-bin sums of the rounded per-record gradients at the current model,
    (bins of j, S) int64 (docs/privacy.md, "Additive models", row 4). Each row's score is computed
    from its own bins and the released model only, so the sums over any partition of the rows add
    up to the same integers (the out-of-core fit equals the in-memory one)."""
    F = model.decision_function_binned(B)
    nb = model.n_bins(j)
    if model.classes is not None:
        K = len(model.classes)
        P = scores_to_proba(F)
        if K == 2:
            G = (lab == 1).astype(float)[:, None] - P[:, 1:2]
        else:
            G = -P
            G[np.arange(lab.size), lab] += 1.0
        Gq = np.rint(np.clip(G, -clip, clip) * (GRADIENT_GRID / clip))
    else:
        assert model.label_bounds is not None
        lo, hi = model.label_bounds
        C = clip * 0.5 * (hi - lo)
        if C <= 0:
            return np.zeros((nb, 1), dtype=np.int64)
        Gq = np.rint(np.clip(lab[:, None] - F, -C, C) * (GRADIENT_GRID / C))
    sums = np.stack([np.bincount(B[:, j], weights=Gq[:, s], minlength=nb) for s in range(Gq.shape[1])], 1)
    return np.rint(sums).astype(np.int64)  # exact: integers summed in float64 (< 2^53)


class _HistPass:
    """Count pass 1 on one partition: its row count, then :func:`_hist_core` (labels checked
    against the declared label set or clipped to the label bounds; values encoded on the public
    bins — a schema error raises here, before any release)."""

    def __init__(self, model: AdditiveModel):
        self.model = model

    def __call__(self, X, y):
        B, lab = _encode_partition(self.model, X, y)
        return np.concatenate([[B.shape[0]], _hist_core(self.model, B, lab)]).astype(np.int64)


class _GradPass:
    """A (round, feature) pass on one partition: :func:`_grad_core` at the released model."""

    def __init__(self, model: AdditiveModel, j: int, clip: float):
        self.model, self.j, self.clip = model, j, clip

    def __call__(self, X, y):
        B, lab = _encode_partition(self.model, X, y)
        return _grad_core(self.model, B, lab, self.j, self.clip)


def _encode_partition(model: AdditiveModel, X, y):
    B = model.encode(X)
    y = np.asarray(y).ravel()
    if model.classes is not None:
        lab = category_codes(y, list(model.classes))
        if np.any(lab < 0):
            raise ValueError(
                f"y holds a label outside the declared classes={list(model.classes)!r}: every label must be one of them"
            )
        return B, lab
    try:
        yv = y.astype(np.float64)
    except (TypeError, ValueError):
        raise ValueError("y must be numeric for a regressor") from None
    if not np.all(np.isfinite(yv)):
        raise ValueError("Input y contains NaN or infinity")
    assert model.label_bounds is not None
    return B, np.clip(yv, *model.label_bounds)


def _shrunk_newton(noisy_sum, curv, noise_sd, tau):
    """The step of a bin from its noisy gradient sum G̃ = G + noise: the Newton step G/h shrunk
    as a posterior mean under a public prior step ~ N(0, τ²) and the known noise sd s,
    ``G̃·h / (h² + s²/τ²)``: the Newton step where h ≫ s/τ, close to 0 where the bin's sum is
    mostly noise. Post-processing (h from the released counts; s, τ public)."""
    h = np.clip(curv, 0.0, None)
    return noisy_sum * h / (h * h + (noise_sd / tau) ** 2)


def _center(model: AdditiveModel) -> None:
    """Move each term's count-weighted mean into the intercept (post-processing: the scores of
    every row are unchanged)."""
    for j in range(model.n_features):
        w = np.clip(model.bin_counts[j], 0.0, None)
        if w.sum() <= 0:
            continue
        mean = (model.terms[j] * w[:, None]).sum(axis=0) / w.sum()
        model.terms[j] -= mean
        model.intercept += mean


def _check_cuts(values, name):
    try:
        c = np.asarray(values, dtype=float).ravel()
    except (TypeError, ValueError):
        raise ValueError(f"cut_points[{name!r}] must be numbers") from None
    if not np.all(np.isfinite(c)) or np.any(np.diff(c) <= 0):
        raise ValueError(f"cut_points[{name!r}] must be finite and strictly increasing")
    if c.size + 1 > _MAX_BINS:
        raise ValueError(f"cut_points[{name!r}]: at most {_MAX_BINS - 1} cut points")
    return c


def _integer_features(bounds, names) -> list:
    from .._format import declared_integer_features

    return [f for f in declared_integer_features(bounds) if f in names]


def _columns(X, names):
    import pandas as pd

    if isinstance(X, pd.DataFrame):
        return [X.iloc[:, j] for j in range(X.shape[1])]
    return [X[:, j] for j in range(X.shape[1])]
