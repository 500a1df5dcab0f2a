"""Smooth sensitivity of the Gini impurity (paper 000, Theorem IV.1).

The local sensitivity of the normalised Gini impurity of Eq. (1)+(2) on ñ remaining records is
g(ñ) with g(x) = 1 − (x/(x+1))² − (1/(x+1))² = 2x/(x+1)² (decreasing for x ≥ 1). With a minimum
support Λ (a count, Λ ≥ 1), the sensitivity at distance k is g(max(Λ, ñ − k)) and

    S*_β(ñ) = max_{k ∈ ℕ} ξ(k),   ξ(k) = e^{−kβ} · g(max(Λ, ñ − k)).

Theorem IV.1: the maximum is attained at one of k = 0, ⌊t⌋, ⌈t⌉, ñ − Λ, where
t = ñ − (1 − β − √((1 − β)² − 4β)) / (2β) when the square root is real (else t is dropped).
:func:`gini_smooth_sensitivity` evaluates that closed form; :func:`gini_smooth_sensitivity_bruteforce`
evaluates the definition over every k and is the test oracle.

Caveat (docs/privacy.md, principle 3): the bound uses max(Λ, ñ − k), i.e. it is a valid smooth upper bound only
on datasets with at least Λ remaining records; the learner must *gate* on that.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["gini_local_sensitivity", "gini_smooth_sensitivity", "gini_smooth_sensitivity_bruteforce"]


def gini_local_sensitivity(x):
    """g(x) = 1 − (x/(x+1))² − (1/(x+1))² = 2x / (x+1)²."""
    x = np.asarray(x, dtype=float)
    return 2.0 * x / (x + 1.0) ** 2


def _check(n, beta, min_support):
    if int(n) != n or n < 0:
        raise ValueError(f"n must be a non-negative integer, got {n!r}")
    if not (beta > 0 and math.isfinite(beta)):
        raise ValueError(f"beta must be finite and > 0, got {beta!r}")
    if int(min_support) != min_support or min_support < 1:
        raise ValueError(f"min_support must be an integer count >= 1, got {min_support!r}")
    return int(n), float(beta), int(min_support)


def _xi(k: int, n: int, beta: float, lam: int) -> float:
    return math.exp(-k * beta) * float(gini_local_sensitivity(max(lam, n - k)))


def gini_smooth_sensitivity(n: int, beta: float, min_support: int) -> float:
    """Closed form of Theorem IV.1 (paper 000).

    Parameters
    ----------
    n : int
        ‖D‖₁, the number of records that remain to be classified.
    beta : float
        Smoothness parameter β > 0.
    min_support : int
        Λ, the minimum support as a count (≥ 1).
    """
    n, beta, lam = _check(n, beta, min_support)
    if n <= lam:
        return _xi(0, n, beta, lam)
    kmax = n - lam  # beyond it ξ only decays
    cands = {0, kmax}
    disc = (1.0 - beta) ** 2 - 4.0 * beta
    if disc >= 0:
        t = n - (1.0 - beta - math.sqrt(disc)) / (2.0 * beta)
        for k in (math.floor(t), math.ceil(t)):
            if 0 <= k <= kmax:
                cands.add(int(k))
    return max(_xi(k, n, beta, lam) for k in cands)


def gini_smooth_sensitivity_bruteforce(n: int, beta: float, min_support: int) -> float:
    """The definition max_k e^{−kβ} g(max(Λ, n − k)) evaluated at every k in 0..n (test oracle)."""
    n, beta, lam = _check(n, beta, min_support)
    k = np.arange(0, n + 1, dtype=float)
    vals = np.exp(-k * beta) * gini_local_sensitivity(np.maximum(lam, n - k))
    return float(vals.max())
