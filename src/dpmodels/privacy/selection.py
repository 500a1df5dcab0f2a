"""Private selection: choose one candidate index with probability favouring high utility.

All three mechanisms take a utility array ``u`` (higher is better) whose entries each change by at
most ``sensitivity`` (Δ) between neighbouring datasets, and release **only the chosen index**.

* :func:`permute_and_flip` — McKenna & Sheldon (2020). Implemented through its equivalence with
  report-noisy-max under exponential noise of scale 2Δ/ε (Ding, Kifer et al., "The permute-and-flip
  mechanism is identical to report-noisy-max with exponential noise", 2021): one vectorised draw.
  ε-DP; never worse in expected utility than the exponential mechanism.
* :func:`exponential_mechanism` — McSherry & Talwar (2007), P[i] ∝ exp(ε·u_i / (2Δ)); sampled as
  argmax(u + Gumbel(2Δ/ε)) (the Gumbel-max trick). ε-DP.
* :func:`report_noisy_max` — argmax(u + Lap(2Δ/ε)) (Dwork & Roth 2014, Claim 3.9 for Δ-sensitive
  utilities; the scale Δ/ε suffices when the utilities are monotone counts). ε-DP.

With ``monotone=True`` (every utility moves in the same direction between neighbours, e.g. class
counts), all three use Δ/ε instead of 2Δ/ε.

If a ``ledger`` is given, the row is recorded *before* any noise is drawn, so a budget that would
be exceeded raises without releasing anything. The mechanism never decides the budget: ε comes
from the caller.
"""

from __future__ import annotations

import numpy as np

from . import samplers
from .ledger import charge, check_epsilon

__all__ = ["permute_and_flip", "exponential_mechanism", "report_noisy_max", "noisy_argmax"]


def _prepare(utilities, epsilon, sensitivity, monotone):
    u = np.asarray(utilities, dtype=float)
    if u.ndim != 1 or u.size == 0:
        raise ValueError("utilities must be a non-empty 1-d array")
    if not np.all(np.isfinite(u)):
        raise ValueError("utilities must be finite")
    eps = check_epsilon(epsilon)
    d = float(sensitivity)
    if not d > 0 or not np.isfinite(d):
        raise ValueError(f"sensitivity must be finite and > 0, got {sensitivity!r}")
    scale = (1.0 if monotone else 2.0) * d / eps
    return u, eps, d, scale


def noisy_argmax(u: np.ndarray, noise: np.ndarray) -> int:
    """argmax of u + noise (ties: the first index)."""
    return int(np.argmax(u + noise))


# mechanism name -> noise whose argmax(u + noise) samples it (scale 2Δ/ε, or Δ/ε when monotone)
_NOISE = {
    "permute-and-flip": samplers.exponential,
    "exponential": samplers.gumbel,
    "report-noisy-max": samplers.laplace,
}


def _select(
    name, utilities, epsilon, sensitivity, rng, monotone, ledger, what, parts, guarantee="proven", note=""
) -> int:
    u, eps, d, scale = _prepare(utilities, epsilon, sensitivity, monotone)
    charge(ledger, what or "selection", name, eps, sensitivity=d, parts=parts, guarantee=guarantee, note=note)
    return noisy_argmax(u, _NOISE[name](scale, u.size, rng))


def permute_and_flip(utilities, epsilon, sensitivity, rng, *, monotone=False, ledger=None, what=None, parts=1) -> int:
    """Permute-and-flip selection (ε-DP); returns the chosen index."""
    return _select("permute-and-flip", utilities, epsilon, sensitivity, rng, monotone, ledger, what, parts)


def exponential_mechanism(
    utilities, epsilon, sensitivity, rng, *, monotone=False, ledger=None, what=None, parts=1
) -> int:
    """Exponential mechanism (ε-DP) via the Gumbel-max trick; returns the chosen index."""
    return _select("exponential", utilities, epsilon, sensitivity, rng, monotone, ledger, what, parts)


def report_noisy_max(
    utilities,
    epsilon,
    sensitivity,
    rng,
    *,
    monotone=False,
    ledger=None,
    what=None,
    parts=1,
    guarantee="proven",
    note="",
) -> int:
    """Report-noisy-max with Laplace noise (ε-DP); returns the chosen index.

    ``guarantee="claimed"`` records a caller's *claimed* calibration (e.g. paper 000's scale Δ/ε
    for non-monotone utilities, passed as ``monotone=True``): the ledger row then keeps
    ``is_private`` False (``docs/privacy.md``, "The paper's calibration of the baselines")."""
    return _select(
        "report-noisy-max", utilities, epsilon, sensitivity, rng, monotone, ledger, what, parts, guarantee, note
    )


def select_rows(utilities_2d, epsilon, sensitivity, rng, *, monotone=False, mechanism="permute-and-flip"):
    """Row-wise private selection for many disjoint groups at once (e.g. all leaves' labels).

    ``utilities_2d`` has one row per disjoint group; each row gets an independent selection at ε.
    By parallel composition the whole call costs ε once; the caller records one parallel ledger row.
    Returns an int array of chosen column indices.
    """
    u = np.asarray(utilities_2d, dtype=float)
    if u.ndim != 2 or u.shape[1] == 0:
        raise ValueError("utilities_2d must be a 2-d array with at least one column")
    eps = check_epsilon(epsilon)
    d = float(sensitivity)
    scale = (1.0 if monotone else 2.0) * d / eps
    if mechanism not in _NOISE:
        raise ValueError(f"unknown selection mechanism {mechanism!r}; choose one of {list(_NOISE)}")
    noise = _NOISE[mechanism](scale, u.shape, rng)
    return np.argmax(u + noise, axis=1)
