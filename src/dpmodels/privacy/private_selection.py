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

This module only runs the mechanism and records its row; the budget (ε_t, γ, δ) is decided by the
caller (:mod:`dpmodels.model_selection`).
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from .ledger import PrivacyLedger, check_delta, check_epsilon

__all__ = ["random_stopping_selection", "runs_cap", "truncation_delta"]


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
