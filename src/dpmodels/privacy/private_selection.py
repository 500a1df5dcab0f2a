"""Private selection from private candidates: the random-stopping mechanism of Liu & Talwar
(STOC 2019, "Private selection from private candidates", Theorem 3.4).

Setting: a randomised trial ``Q(D) -> (score, candidate)`` that is ε_t-DP (its score is itself a DP
release, e.g. a noisy held-out accuracy). The mechanism runs ``Q`` again and again; after each run
it stops with probability γ; it returns the candidate with the best score seen.

Guarantee used here (Liu & Talwar, Theorem 3.4): with a geometric number of runs (stop probability
γ after each run, no cap) the whole mechanism is **3·ε_t-DP**, whatever γ — the expected number of
runs 1/γ does not enter the bound. We cap the number of runs at T so that a fit ends: the capped
mechanism differs from the uncapped one only on the event "no stop in the first T runs", whose
probability η = (1 − γ)^T does not depend on the data. Hence for any output set S,
P[A_T(D) ∈ S] ≤ P[A(D) ∈ S] + η ≤ e^{3ε_t}(P[A_T(D') ∈ S] + η) + η, i.e. A_T is
(3·ε_t, (1 + e^{3ε_t})·η)-DP. :func:`runs_cap` picks the smallest T whose δ fits a budget; δ = 0
means no cap.

**Rényi-DP tuner** (Papernot & Steinke, ICLR 2022, "Hyperparameter tuning with Rényi differential
privacy"): the number of trials K is drawn *before* the first run from a truncated negative binomial
distribution TNB(η, γ) (η > −1, 0 < γ < 1; η = 1 is the geometric law above, η = 0 the logarithmic
one). :func:`tnb_selection_rdp` is their Theorem 2 with the exact RDP curve of a pure ε_t-DP trial
(:func:`pure_dp_rdp`); :func:`tnb_selection_epsilon` converts it to (ε, δ) (:func:`rdp_to_dp`) and
includes the order λ = ∞, where the bound is the pure ((2 + η)·ε_t at most) guarantee derived in
docs/privacy.md ("Private hyper-parameter selection", the Rényi-DP tuner). :func:`tnb_trial_epsilon`
solves the bound for ε_t given the caller's total (ε, δ) and cap.

This module only runs the mechanisms and computes their bounds; the budget (ε_t or the total, γ,
η, δ, the cap) is decided by the caller (:mod:`dpmodels.model_selection`).
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
from scipy.special import gammaln

from .ledger import PrivacyLedger, check_delta, check_epsilon

__all__ = [
    "pure_dp_rdp",
    "random_stopping_selection",
    "rdp_to_dp",
    "runs_cap",
    "sample_tnb",
    "tnb_gamma",
    "tnb_mean",
    "tnb_pmf",
    "tnb_runs_cap",
    "tnb_selection",
    "tnb_selection_epsilon",
    "tnb_selection_guarantee",
    "tnb_selection_rdp",
    "tnb_tail",
    "tnb_trial_epsilon",
    "truncation_delta",
]


def truncation_delta(trial_epsilon: float, gamma: float, max_runs: int | None) -> float:
    """δ of the capped mechanism: (1 + e^{3ε_t})·(1 − γ)^T (0 without a cap)."""
    if max_runs is None:
        return 0.0
    return (1.0 + math.exp(3.0 * trial_epsilon)) * (1.0 - gamma) ** int(max_runs)


def runs_cap(trial_epsilon: float, gamma: float, delta: float) -> int | None:
    """The smallest cap T with :func:`truncation_delta` ≤ δ; None (no cap) when δ = 0."""
    check_delta(delta)
    if delta == 0.0:
        return None
    if gamma >= 1.0:
        return 1
    t = math.log(delta / (1.0 + math.exp(3.0 * trial_epsilon))) / math.log1p(-gamma)
    return max(1, math.ceil(t))


def random_stopping_selection(
    trial: Callable[[int], tuple[float, object]],
    trial_epsilon: float,
    gamma: float,
    rng: np.random.Generator,
    *,
    max_runs: int | None = None,
    ledger: PrivacyLedger | None = None,
    what: str = "private selection",
):
    """Run ``trial(i)`` (an ε_t-DP release of ``(score, candidate)``) until a γ-coin stops it (or
    ``max_runs``); return ``(best_score, best_candidate, runs)``. Charges one row of
    (3·ε_t, :func:`truncation_delta`) to ``ledger`` *before* the first run."""
    eps_t = check_epsilon(trial_epsilon, "trial_epsilon")
    if not (0.0 < gamma <= 1.0):
        raise ValueError(f"gamma (the stop probability) must be in (0, 1], got {gamma!r}")
    if max_runs is not None and int(max_runs) < 1:
        raise ValueError("max_runs must be >= 1 or None")
    delta = truncation_delta(eps_t, gamma, max_runs)
    if ledger is not None:
        cap = "no cap" if max_runs is None else f"at most {int(max_runs)} runs"
        ledger.spend(
            what,
            "random stopping (Liu & Talwar 2019, Thm 3.4)",
            3.0 * eps_t,
            delta,
            note=f"stop probability {gamma:.4g} after each run ({cap}); each run ε_t = {eps_t:.6g}",
        )
    best_score, best, runs = -math.inf, None, 0
    while True:
        score, candidate = trial(runs)
        runs += 1
        if best is None or score > best_score:
            best_score, best = score, candidate
        if rng.random() < gamma or (max_runs is not None and runs >= int(max_runs)):
            return best_score, best, runs


# ---------------------------------------------------------------------------------------------
# Rényi-DP tuner (Papernot & Steinke 2022). Equation numbers (P1)–(P7) refer to docs/privacy.md,
# "Private hyper-parameter selection", section "The Rényi-DP tuner".
# ---------------------------------------------------------------------------------------------

#: orders λ̂ over which the constant of Theorem 2 is minimised (any λ̂ ≥ 1 gives a valid bound)
_HAT_ORDERS = np.concatenate([[1.0], 1.0 + np.geomspace(1e-3, 1e5, 800)])
#: orders λ at which the selection's RDP is converted to (ε, δ) (any λ > 1 gives a valid bound)
_ORDERS = 1.0 + np.geomspace(1e-2, 1e6, 800)


def _check_tnb(eta: float, gamma: float) -> tuple[float, float]:
    try:
        eta, gamma = float(eta), float(gamma)
    except (TypeError, ValueError):
        raise TypeError(f"eta and gamma must be real numbers, got {eta!r}, {gamma!r}") from None
    if not (math.isfinite(eta) and eta > -1.0):
        raise ValueError(f"eta (the shape of the truncated negative binomial) must be finite and > -1, got {eta!r}")
    if not (0.0 < gamma < 1.0):
        raise ValueError(f"gamma (of the truncated negative binomial) must be in (0, 1), got {gamma!r}")
    return eta, gamma


def pure_dp_rdp(epsilon: float, order: float) -> float:
    """The largest Rényi divergence of order λ between the outputs of an ε-DP mechanism on
    neighbours, Eq. (P1): the randomized-response pair (e^ε, 1)/(1 + e^ε) against (1, e^ε)/(1 + e^ε),

        D_λ = [λε + log(1 + e^{ε(1−2λ)}) − log(1 + e^ε)] / (λ − 1),

    ε at λ = ∞ and the KL divergence ε·tanh(ε/2) at λ = 1. Every pair of distributions within a
    factor e^ε of each other is a post-processing of this pair (Kairouz, Oh & Viswanath 2015), and
    Rényi divergences shrink under post-processing, so this is the exact RDP curve of pure ε-DP;
    it is ≤ min(ε, λε²/2) (Bun & Steinke 2016, Prop. 3.3)."""
    eps = float(epsilon)
    lam = float(order)
    if eps < 0 or not math.isfinite(eps):
        raise ValueError(f"epsilon must be finite and >= 0, got {epsilon!r}")
    if not lam >= 1.0:
        raise ValueError(f"the Rényi order must be >= 1, got {order!r}")
    if eps == 0.0:
        return 0.0
    if math.isinf(lam):
        return eps
    if lam == 1.0:
        return eps * math.tanh(eps / 2.0)
    return float(_pure_rdp_vec(eps, np.array([lam]))[0])


def rdp_to_dp(rdp: float, order: float, delta: float) -> float:
    """ε of the (ε, δ)-DP implied by (λ, ρ)-RDP, Eq. (P5) (Canonne, Kamath & Steinke 2020, Prop. 12):

        ε = ρ + [log(1/δ) + (λ − 1)·log(1 − 1/λ) − log λ] / (λ − 1),

    never more than Mironov's ρ + log(1/δ)/(λ − 1) (2017, Prop. 3); floored at 0."""
    lam = float(order)
    d = float(delta)
    if not lam > 1.0 or math.isinf(lam):
        raise ValueError(f"the order must be finite and > 1, got {order!r}")
    if not (0.0 < d < 1.0):
        raise ValueError(f"delta must be in (0, 1) for a conversion, got {delta!r}")
    return max(
        0.0, float(rdp) + (math.log(1.0 / d) + (lam - 1.0) * math.log1p(-1.0 / lam) - math.log(lam)) / (lam - 1.0)
    )


def tnb_mean(eta: float, gamma: float) -> float:
    """E[K] for K ~ TNB(η, γ), Eq. (P2): η(1 − γ)/(γ(1 − γ^η)); (1 − γ)/(γ·log(1/γ)) at η = 0."""
    eta, gamma = _check_tnb(eta, gamma)
    if eta == 0.0:
        return (1.0 - gamma) / (gamma * math.log(1.0 / gamma))
    return eta * (1.0 - gamma) / (gamma * -math.expm1(eta * math.log(gamma)))


def tnb_gamma(eta: float, mean: float) -> float:
    """The γ with E[K] = ``mean`` for TNB(η, γ) (bisection on the decreasing map γ ↦ E[K]); the
    bound is then computed for that γ, so the result need not be exact."""
    m = float(mean)
    if not (math.isfinite(m) and m > 1.0):
        raise ValueError(f"the mean number of trials must be finite and > 1, got {mean!r}")
    lo, hi = 1e-300, 1.0 - 1e-15
    for _ in range(200):
        mid = math.sqrt(lo * hi) if hi / lo > 4 else (lo + hi) / 2.0
        if tnb_mean(eta, mid) > m:
            lo = mid
        else:
            hi = mid
    return hi


def tnb_pmf(k, eta: float, gamma: float) -> np.ndarray:
    """P[K = k] for K ~ TNB(η, γ) on k = 1, 2, ..., Eq. (P2):

    (1 − γ)^k / (γ^{−η} − 1) · ∏_{l=0}^{k−1} (l + η)/(l + 1),   (1 − γ)^k / (k·log(1/γ)) at η = 0."""
    eta, gamma = _check_tnb(eta, gamma)
    k = np.asarray(k, dtype=float)
    if np.any(k < 1) or np.any(k != np.floor(k)):
        raise ValueError("k must be integers >= 1")
    if eta == 0.0:
        return np.exp(k * math.log1p(-gamma) - np.log(k)) / math.log(1.0 / gamma)
    # η/(γ^{−η} − 1) > 0 for every η ≠ 0 > −1; ∏_{l=1}^{k−1}(l + η) = Γ(k + η)/Γ(1 + η)
    coef = eta / math.expm1(-eta * math.log(gamma))
    return coef * np.exp(k * math.log1p(-gamma) + gammaln(k + eta) - math.lgamma(1.0 + eta) - gammaln(k + 1.0))


def tnb_tail(t: int, eta: float, gamma: float) -> float:
    """An upper bound on P[K > t] for K ~ TNB(η, γ): the exact sum of the next terms, until the
    rest is below 10⁻¹⁸, plus a geometric bound on the rest (the ratio P[K = k+1]/P[K = k] =
    (1 − γ)(k + η)/(k + 1) decreases in k when η ≥ 1 and is < 1 − γ when η < 1)."""
    eta, gamma = _check_tnb(eta, gamma)
    t = int(t)
    if t < 0:
        raise ValueError("t must be >= 0")
    if t == 0:
        return 1.0
    parts: list[float] = []
    start = t + 1
    while True:
        ks = np.arange(start, start + 4096, dtype=float)
        p = tnb_pmf(ks, eta, gamma)
        parts.extend(p.tolist())
        last = ks[-1]
        ratio = (1.0 - gamma) * max(1.0, (last + eta) / (last + 1.0))
        rest = p[-1] * ratio / (1.0 - ratio) if ratio < 1.0 else math.inf
        if rest < 1e-18 or len(parts) > 10**7:
            return min(1.0, math.fsum(parts) + rest)
        start += 4096


def tnb_runs_cap(eta: float, gamma: float, epsilon: float, delta: float) -> int | None:
    """The smallest cap T with (1 + e^ε)·P[K > T] ≤ δ (:func:`tnb_tail`); None (no cap) when δ = 0.
    ``epsilon`` is (an upper bound on) the ε of the uncapped selection, Eq. (P6)."""
    check_delta(delta)
    eps = check_epsilon(epsilon)
    if delta == 0.0:
        return None
    target = delta / (1.0 + math.exp(eps))
    lo, hi = 1, 1
    while tnb_tail(hi, eta, gamma) > target:
        lo, hi = hi, hi * 2
        if hi > 10**9:
            raise ValueError("no cap below 10^9 trials fits this delta: raise delta or gamma")
    while lo < hi:
        mid = (lo + hi) // 2
        if tnb_tail(mid, eta, gamma) <= target:
            hi = mid
        else:
            lo = mid + 1
    return hi


def _pure_rdp_vec(eps: float, lams: np.ndarray) -> np.ndarray:
    """:func:`pure_dp_rdp` for finite orders λ > 1, vectorised (Eq. P1, written without cancellation
    near λ = 1)."""
    lams = np.asarray(lams, dtype=float)
    a = lams - 1.0
    p1, p2 = 1.0 / (1.0 + math.exp(-eps)), 1.0 / (1.0 + math.exp(eps))  # the pair's likelihoods
    with np.errstate(over="ignore", invalid="ignore"):
        # near λ = 1: log Σ p·(p/q)^{λ−1} = log1p(p1·expm1(aε) + p2·expm1(−aε)), no cancellation
        near = np.log1p(p1 * np.expm1(np.minimum(a * eps, 1.0)) + p2 * np.expm1(-np.minimum(a * eps, 1.0))) / a
        far = (lams * eps + np.log1p(np.exp(eps * (1.0 - 2.0 * lams))) - (eps + math.log1p(math.exp(-eps)))) / a
    return np.clip(np.where(a * eps < 1.0, near, far), 0.0, eps)


def _tnb_constant(eps: float, eta: float, gamma: float) -> float:
    """(1 + η)·min_{λ̂} [(1 − 1/λ̂)·ε_t(λ̂) + log(1/γ)/λ̂] of Eq. (P3), over λ̂ = 1, a grid and ∞."""
    h = _HAT_ORDERS[1:]
    vals = (1.0 - 1.0 / h) * _pure_rdp_vec(eps, h) + math.log(1.0 / gamma) / h
    return (1.0 + eta) * min(eps, math.log(1.0 / gamma), float(vals.min()))


def tnb_selection_rdp(trial_epsilon: float, eta: float, gamma: float, order: float) -> float:
    """Rényi DP of order λ of "run K ~ TNB(η, γ) independent ε_t-DP trials, release the best", Eq.
    (P3) (Papernot & Steinke 2022, Theorem 2) with the exact curve ε_t(·) of Eq. (P1):

        ε'(λ) = ε_t(λ) + (1 + η)·min_{λ̂ ≥ 1} [(1 − 1/λ̂)·ε_t(λ̂) + log(1/γ)/λ̂] + log(E[K])/(λ − 1),

    the minimum taken over λ̂ = 1, a grid and λ̂ = ∞ (every λ̂ gives a valid bound). At λ = ∞ it is
    the pure-DP bound ε_t + (1 + η)·min(...) ≤ (2 + η)·ε_t, Eq. (P4)."""
    eps = check_epsilon(trial_epsilon, "trial_epsilon")
    eta, gamma = _check_tnb(eta, gamma)
    lam = float(order)
    if not lam > 1.0:
        raise ValueError(f"the order must be > 1, got {order!r}")
    const = _tnb_constant(eps, eta, gamma)
    if math.isinf(lam):
        return eps + const
    return pure_dp_rdp(eps, lam) + const + math.log(tnb_mean(eta, gamma)) / (lam - 1.0)


def tnb_selection_guarantee(trial_epsilon: float, eta: float, gamma: float, delta: float = 0.0) -> tuple[float, float]:
    """(ε, δ_used) of the uncapped TNB(η, γ) selection of ε_t-DP trials: the smaller of the pure
    bound (λ = ∞, δ_used = 0) and the minimum over orders λ of Eq. (P5) applied to Eq. (P3) at
    δ_used = ``delta``."""
    eps = check_epsilon(trial_epsilon, "trial_epsilon")
    eta, gamma = _check_tnb(eta, gamma)
    d = check_delta(delta)
    const = _tnb_constant(eps, eta, gamma)
    pure = eps + const
    if d == 0.0:
        return pure, 0.0
    lams = _ORDERS
    rdp = _pure_rdp_vec(eps, lams) + const + math.log(tnb_mean(eta, gamma)) / (lams - 1.0)
    conv = rdp + (math.log(1.0 / d) + (lams - 1.0) * np.log1p(-1.0 / lams) - np.log(lams)) / (lams - 1.0)
    best = float(np.max([0.0, conv.min()]))
    return (pure, 0.0) if pure <= best else (best, d)


def tnb_selection_epsilon(trial_epsilon: float, eta: float, gamma: float, delta: float = 0.0) -> float:
    """ε of :func:`tnb_selection_guarantee` (the uncapped selection is (ε, δ)-DP)."""
    return tnb_selection_guarantee(trial_epsilon, eta, gamma, delta)[0]


def tnb_trial_epsilon(epsilon: float, delta: float, eta: float, gamma: float, max_runs: int | None) -> float:
    """The largest ε_t (to a relative 10⁻⁶, rounded down) such that the TNB(η, γ) selection capped
    at ``max_runs`` trials is (ε, δ)-DP, Eq. (P6): δ_cap = (1 + e^ε)·P[K > T] is taken out of δ and
    the rest is the conversion's δ. Raises if the cap alone does not fit δ."""
    eps = check_epsilon(epsilon)
    d = check_delta(delta)
    cap_delta = 0.0 if max_runs is None else (1.0 + math.exp(eps)) * tnb_tail(int(max_runs), eta, gamma)
    if cap_delta > d:
        raise ValueError(f"the cap of {max_runs} trials alone costs δ = {cap_delta:.3g} > {d:.3g}")
    rest = d - cap_delta
    lo, hi = 0.0, eps  # searched in (0, ε]: a trial never gets more than the whole selection's ε
    if tnb_selection_epsilon(hi, eta, gamma, rest) <= eps:
        return hi
    while hi - lo > 1e-6 * hi:
        mid = (lo + hi) / 2.0
        if tnb_selection_epsilon(mid, eta, gamma, rest) <= eps:
            lo = mid
        else:
            hi = mid
    if lo == 0.0:
        raise ValueError(f"no trial epsilon fits (ε, δ) = ({eps:g}, {d:g})")
    return lo


def sample_tnb(eta: float, gamma: float, rng: np.random.Generator, max_runs: int | None = None) -> int:
    """min(K, T) for K ~ TNB(η, γ), by inversion of the CDF (one uniform draw; public randomness,
    independent of the data)."""
    eta, gamma = _check_tnb(eta, gamma)
    u = float(rng.random())
    k = 1
    p = float(tnb_pmf([1], eta, gamma)[0])
    cdf = p
    while u >= cdf and (max_runs is None or k < int(max_runs)) and p > 0.0:
        p *= (1.0 - gamma) * (k + eta) / (k + 1.0)
        k += 1
        cdf += p
    return k


def tnb_selection(
    trial: Callable[[int], tuple[float, object]],
    trial_epsilon: float,
    eta: float,
    gamma: float,
    rng: np.random.Generator,
    *,
    delta: float = 0.0,
    max_runs: int | None = None,
    ledger: PrivacyLedger | None = None,
    what: str = "private selection",
):
    """Draw K ~ TNB(η, γ) (capped at ``max_runs``), run ``trial(i)`` (an ε_t-DP release of
    ``(score, candidate)``) K times, return ``(best_score, best_candidate, runs)``; ties keep the
    earlier trial (for i.i.d. trials the same law as a uniform tie-break). Charges one row *before*
    the first run: ε = :func:`tnb_selection_epsilon` at the conversion δ ``delta``, and
    δ = ``delta`` + (1 + e^ε)·P[K > T] (Eq. P6)."""
    eps_t = check_epsilon(trial_epsilon, "trial_epsilon")
    eta, gamma = _check_tnb(eta, gamma)
    d = check_delta(delta)
    if max_runs is not None and int(max_runs) < 1:
        raise ValueError("max_runs must be >= 1 or None")
    if ledger is not None:
        eps_sel, delta_conv = tnb_selection_guarantee(eps_t, eta, gamma, d)
        cap_delta = 0.0 if max_runs is None else (1.0 + math.exp(eps_sel)) * tnb_tail(int(max_runs), eta, gamma)
        cap = "no cap" if max_runs is None else f"at most {int(max_runs)} trials"
        ledger.spend(
            what,
            "truncated negative binomial tuning (Papernot & Steinke 2022, Thm 2)",
            eps_sel,
            delta_conv + cap_delta,
            note=(
                f"K ~ TNB(eta={eta:.4g}, gamma={gamma:.4g}), mean {tnb_mean(eta, gamma):.4g} trials ({cap}); "
                f"each trial ε_t = {eps_t:.6g}"
            ),
        )
    runs = sample_tnb(eta, gamma, rng, max_runs)
    best_score, best = -math.inf, None
    for i in range(runs):
        score, candidate = trial(i)
        if best is None or score > best_score:
            best_score, best = score, candidate
    return best_score, best, runs
