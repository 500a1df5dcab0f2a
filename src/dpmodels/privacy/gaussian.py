"""Noise calibration for the Gaussian mechanism.

The classical bound σ = Δ₂·√(2 ln(1.25/δ))/ε (Dwork & Roth 2014, Thm A.1) is proved only for
ε < 1. We calibrate with the *analytic* Gaussian mechanism (Balle & Wang 2018, Thm 8): N(0, σ²)
noise on a query of L2 sensitivity Δ is (ε, δ)-DP iff

    Φ(Δ/(2σ) − εσ/Δ) − e^ε · Φ(−Δ/(2σ) − εσ/Δ) ≤ δ,

and the left side decreases in σ, so the smallest valid σ is found by bisection. Valid for every
ε > 0 and never larger than the classical σ.
"""

from __future__ import annotations

import math

from scipy.special import log_ndtr, ndtr

from .ledger import check_delta, check_epsilon

__all__ = ["analytic_gaussian_sigma", "gaussian_delta"]


def gaussian_delta(sigma: float, epsilon: float, sensitivity: float = 1.0) -> float:
    """The exact δ(ε) of the Gaussian mechanism with noise σ and L2 sensitivity Δ."""
    a = sensitivity / (2.0 * sigma)
    b = epsilon * sigma / sensitivity
    second = math.exp(epsilon + float(log_ndtr(-a - b)))
    return float(ndtr(a - b)) - second


def analytic_gaussian_sigma(epsilon: float, delta: float, sensitivity: float = 1.0) -> float:
    """Smallest σ (to 1e-10 relative) such that the Gaussian mechanism is (ε, δ)-DP."""
    eps = check_epsilon(epsilon)
    d = check_delta(delta)
    if d == 0:
        raise ValueError("the Gaussian mechanism needs delta > 0")
    if not sensitivity > 0:
        raise ValueError("sensitivity must be > 0")
    lo, hi = 1e-12 * sensitivity, sensitivity
    while gaussian_delta(hi, eps, sensitivity) > d:
        hi *= 2.0
    for _ in range(200):
        mid = math.sqrt(lo * hi)
        if gaussian_delta(mid, eps, sensitivity) > d:
            lo = mid
        else:
            hi = mid
        if hi / lo < 1 + 1e-10:
            break
    return hi
