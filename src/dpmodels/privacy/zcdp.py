"""Zero-concentrated differential privacy (zCDP): the accountant of the Gaussian paths.

Definitions and facts used (Bun & Steinke 2016, "Concentrated Differential Privacy: Simplifications,
Extensions, and Lower Bounds"; Canonne, Kamath & Steinke 2020, "The Discrete Gaussian for
Differential Privacy", CKS below):

* A mechanism is ρ-zCDP when the Rényi divergence of order α between its output laws on any two
  neighbouring datasets is at most ρ·α, for every α > 1.
* Adding (continuous or discrete) Gaussian noise of variance σ² to a query of L2 sensitivity Δ is
  Δ²/(2σ²)-zCDP (Bun & Steinke Prop. 1.6; CKS Thm. 4 for the discrete Gaussian on integer queries).
* ε-DP implies (ε²/2)-zCDP (Bun & Steinke Prop. 1.4).
* Composition (adaptive, sequential) adds the ρ's (Bun & Steinke Lemma 2.3).
* **Conversion to (ε, δ)-DP** (CKS Cor. 13): ρ-zCDP implies (ε, δ)-DP with

      δ(ε) = inf_{α > 1}  exp((α − 1)(α·ρ − ε)) / (α − 1) · (1 − 1/α)^α,

  never larger than Bun & Steinke's exp(−(ε − ρ)²/(4ρ)) (ε = ρ + 2·√(ρ·ln(1/δ))), and never
  smaller than the exact δ(ε) of the one Gaussian mechanism that is exactly ρ-zCDP
  (``tests/gam/test_gam.py`` checks both on a grid).

:func:`zcdp_delta` evaluates the infimum (a one-dimensional convex problem in log space, solved by
bounded scalar minimisation), :func:`zcdp_epsilon` inverts it in ε and :func:`zcdp_rho` gives the
largest ρ whose conversion fits a budget (ε, δ): the planner's entry point.
"""

from __future__ import annotations

import math

from .ledger import check_delta, check_epsilon

__all__ = ["zcdp_delta", "zcdp_epsilon", "zcdp_rho", "pure_to_zcdp", "gaussian_sigma_for_rho"]


def _log_delta(alpha: float, rho: float, eps: float) -> float:
    # log of exp((α − 1)(αρ − ε)) / (α − 1) · (1 − 1/α)^α
    return (alpha - 1.0) * (alpha * rho - eps) - math.log(alpha - 1.0) + alpha * math.log1p(-1.0 / alpha)


def zcdp_delta(rho: float, epsilon: float) -> float:
    """The δ at which a ρ-zCDP mechanism is (ε, δ)-DP (CKS Cor. 13; module docstring)."""
    rho = float(rho)
    eps = float(epsilon)
    if not (rho >= 0 and math.isfinite(rho)):
        raise ValueError(f"rho must be finite and >= 0, got {rho!r}")
    if rho == 0:
        return 0.0
    from scipy.optimize import minimize_scalar

    # the exponent is minimised near α* = (ε + ρ)/(2ρ); search a bracket around it in log(α − 1)
    center = math.log(max((eps + rho) / (2.0 * rho) - 1.0, 1e-12))
    res = minimize_scalar(
        lambda t: _log_delta(1.0 + math.exp(t), rho, eps),
        bounds=(min(center, 0.0) - 30.0, max(center, 0.0) + 30.0),
        method="bounded",
        options={"xatol": 1e-10},
    )
    # the bounded search returns a point, whose value is an upper bound on the infimum: valid
    return float(min(1.0, math.exp(min(0.0, res.fun))))


def zcdp_epsilon(rho: float, delta: float) -> float:
    """The smallest ε (to 1e-9 relative) with ``zcdp_delta(rho, ε) <= delta``."""
    d = check_delta(delta)
    if d == 0:
        raise ValueError("converting zCDP to (ε, δ)-DP needs delta > 0")
    rho = float(rho)
    if rho == 0:
        return 0.0
    lo, hi = rho, rho + 2.0 * math.sqrt(rho * math.log(1.0 / d)) + 1e-12  # Bun & Steinke's ε is valid
    while zcdp_delta(rho, hi) > d:  # (never loops in exact arithmetic; guards round-off)
        hi *= 1.5
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if zcdp_delta(rho, mid) > d:
            lo = mid
        else:
            hi = mid
        if hi - lo <= 1e-9 * hi:
            break
    return hi


def zcdp_rho(epsilon: float, delta: float) -> float:
    """The largest ρ (to 1e-9 relative, rounded down) such that ρ-zCDP implies (ε, δ)-DP."""
    eps = check_epsilon(epsilon)
    d = check_delta(delta)
    if d == 0:
        raise ValueError("zCDP budgets need delta > 0 (pure ε-DP has no zCDP equivalent with δ = 0)")
    lo, hi = 0.0, eps
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if zcdp_delta(mid, eps) <= d:
            lo = mid
        else:
            hi = mid
        if hi - lo <= 1e-9 * hi:
            break
    return lo


def pure_to_zcdp(epsilon: float) -> float:
    """ε-DP implies (ε²/2)-zCDP."""
    eps = check_epsilon(epsilon)
    return 0.5 * eps * eps


def gaussian_sigma_for_rho(rho: float, l2_sensitivity: float) -> float:
    """σ of the (discrete) Gaussian noise that makes a query of L2 sensitivity Δ ρ-zCDP: Δ/√(2ρ)."""
    rho = float(rho)
    if not (rho > 0 and math.isfinite(rho)):
        raise ValueError(f"rho must be finite and > 0, got {rho!r}")
    return float(l2_sensitivity) / math.sqrt(2.0 * rho)
