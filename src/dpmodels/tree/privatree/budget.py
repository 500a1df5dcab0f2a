"""PrivaTree's budget plan (paper 002, Eq. 7–10, corrected; steps 1–2 of the estimator docstring).

1. **n** (docs/privacy.md, principle 9). The split of Eq. (7)–(10) needs the training-set size. A declared
   ``n_public`` (a public count or order of magnitude) is used as is; otherwise a share
   ``ε_n = 5 % · ε`` releases ``n + DLap(1/ε_n)`` (sensitivity 1) and its 95 % lower confidence
   bound is used (a lower n gives *more* budget to the leaves, the safe side of the heuristic).
2. **Split** with ε' = ε − ε_n: ``ε_leaf = min(ε'/2, ε'_leaf(n̂))`` (Eq. 7 with E_max =
   ``leaf_error``) and the rest ``ε_r = ε' − ε_leaf`` uniformly to the quantiles and the d levels:
   ``ε_quantiles = ε_level = ε_r / (1 + d)`` with numerical features, ``ε_level = ε_r / d``
   otherwise. Levels that never happen (no node of the level has a candidate split: decided from
   the released structure) leave their share to the leaves.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np

from ...privacy.mechanisms import noisy_count

__all__ = [
    "leaf_epsilon_for_error",
    "estimate_n",
    "plan_budget",
    "plan_budget_published",
    "check_budget_shares",
    "BudgetPlan",
    "N_SHARE",
    "AUTO_MAX_DEPTH",
    "default_depth",
    "gini_weight",
    "signal",
]

N_SHARE = 0.05  # share of ε spent on a DP estimate of n when n is not declared public


AUTO_MAX_DEPTH = 5  # the deepest tree max_depth="auto" grows


def signal(epsilon, n_used, n_features) -> float:
    """s = ε·n̂ / (3.5·m): the public regime number of the ``"auto"`` rules (ε, the n used by the
    budget split — ``n_public`` or the DP estimate of step 1 — and the declared number of
    features m; never the data)."""
    return float(epsilon) * max(float(n_used), 1.0) / (3.5 * max(int(n_features), 1))


def default_depth(epsilon, n_used, n_features, n_classes) -> int:
    """``max_depth="auto"``: d = 1 + ⌊log₄ s⌋ (s of :func:`signal`; d = 1 when s < 1), clipped to
    [max(1, ⌈log₂ K⌉), 5].

    ε·n̂ sets the regime (the noise of every release is of order 1/ε against counts of order n);
    a level halves the records per node and thins every level's budget, so each extra level needs
    about four times the signal per feature (the candidates grow with m). ``⌈log₂ K⌉`` leaves room
    for every class to have a leaf. Fitted on issue 24's benchmark (docs/results.md, "PrivaTree's
    default"): COMPAS (m = 9, n̂ ≈ 4,000) gets depth 2 at ε = 0.1, 4 at ε = 0.5 and 1, 5 at ε = 4;
    Adult (m = 14, n̂ ≈ 31,000) 3 or 4 at ε = 0.1 and 5 from ε = 0.5 on; German (m = 20, n̂ ≈ 700)
    1 at ε = 0.1, 2 at ε = 0.5 and 1, 3 at ε = 4. The constant 3.5 places COMPAS at ε = 0.1 (s ≈ 12)
    and ε = 0.5 (s ≈ 67) clear of the steps at s = 16 and 64, with the DP estimate's noise."""
    lo = max(1, math.ceil(math.log2(max(int(n_classes), 2))))
    s = signal(epsilon, n_used, n_features)
    d = 1 + math.floor(math.log(s, 4)) if s >= 1.0 else 1
    return int(min(max(d, lo), max(lo, AUTO_MAX_DEPTH)))


GINI_WEIGHT_LOW_SIGNAL = 0.0  # λ of split_criterion="error-gini" when s < 16 (the error criterion)
GINI_WEIGHT = 2.0  # λ otherwise
LOW_SIGNAL = 16.0


def gini_weight(epsilon, n_used, n_features) -> float:
    """λ of ``split_criterion="error-gini"`` (:func:`.criteria.error_gini`, Δ = 1 + λ): 0 when
    s < 16 — the regime where ``"auto"`` grows at most 2 levels and every unit of Δ costs the scarce
    selections more than the Gini term's ranking gains, so the criterion is the error count
    (measured: COMPAS at ε = 0.1, wine at ε = 1) — and 2 otherwise. Public (:func:`signal`)."""
    return GINI_WEIGHT_LOW_SIGNAL if signal(epsilon, n_used, n_features) < LOW_SIGNAL else GINI_WEIGHT


def leaf_epsilon_for_error(n, n_classes, depth, leaf_error) -> float:
    """ε'_leaf of Eq. (7): budget so that permute-and-flip's worst-case expected labelling error,
    summed over 2^depth leaves, is at most ``leaf_error · n``.

    ε'_leaf = 2^d · max_p 2·log(1/p)·(1 − (1 − (1−p)^K)/(K·p)) / (n · E_max). With a single class
    (a label set read from a one-class y) the formula is used with K = 2.
    """
    fmax = _pf_worst_error(max(int(n_classes), 2))
    return (2.0**depth) * fmax / (max(float(n), 1.0) * float(leaf_error))


@functools.lru_cache(maxsize=64)
def _pf_worst_error(K: int) -> float:
    """max_p 2·log(1/p)·(1 − (1 − (1−p)^K)/(K·p)), evaluated on a dense grid of p in (0, 1)."""
    p = np.concatenate([np.logspace(-14, -1e-9, 20000), np.linspace(0.01, 1 - 1e-12, 20000)])
    with np.errstate(over="ignore", invalid="ignore"):
        f = 2.0 * np.log(1.0 / p) * (1.0 - (1.0 - (1.0 - p) ** K) / (K * p))
    return float(np.nanmax(f))


def estimate_n(n, epsilon, n_public, ledger, rng):
    """``(n_used, ε_n)``: the declared ``n_public`` (ε_n = 0), else the 95 % lower bound of
    ``n + DLap(1/ε_n)`` with ε_n = ``N_SHARE`` · ε, recorded in ``ledger`` before it is drawn."""
    if n_public is not None:
        return float(n_public), 0.0
    eps_n = N_SHARE * epsilon
    ledger.spend("training-set size n", "discrete Laplace", eps_n, sensitivity=1.0)
    n_noisy = noisy_count(n, eps_n, rng)
    return max(1.0, n_noisy - math.log(10.0) / eps_n), eps_n


@dataclass
class BudgetPlan:
    """Shares of ε: ``n`` (the n estimate), ``leaf``, ``quantiles``, ``level`` (each level)."""

    n: float
    leaf: float
    quantiles: float
    level: float
    depth: int
    levels_used: int | None = None

    def as_dict(self) -> dict:
        used = self.depth if self.levels_used is None else self.levels_used
        out = {"n": self.n} if self.n else {}
        out.update(
            leaf=self.leaf, quantiles=self.quantiles, level=self.level, levels=self.level * used, levels_used=used
        )
        return out


def check_budget_shares(shares):
    """``None`` or three public numbers (quantiles, levels, leaves) ≥ 0 summing to 1, levels and
    leaves > 0 (ValueError otherwise)."""
    if shares is None:
        return None
    try:
        q, lv, lf = (float(v) for v in shares)
    except (TypeError, ValueError):
        raise ValueError(
            f"budget_shares must be None or three numbers (quantiles, levels, leaves), got {shares!r}"
        ) from None
    if not all(math.isfinite(v) and v >= 0 for v in (q, lv, lf)) or abs(q + lv + lf - 1.0) > 1e-9 or lv <= 0 or lf <= 0:
        raise ValueError(f"budget_shares must be >= 0, sum to 1, with levels and leaves > 0; got {shares!r}")
    return q, lv, lf


def plan_budget(epsilon, eps_n, depth, n_used, n_classes, leaf_error, has_numerical, shares=None) -> BudgetPlan:
    """Eq. (7)–(10), corrected (module docstring); or the public ``shares`` (quantiles, levels,
    leaves) of ε − ε_n, the quantile share going to levels and leaves in proportion when there is
    no numerical feature (paper 002's Fig. 2 varies these shares)."""
    eps_rest = epsilon - eps_n
    if depth == 0:
        return BudgetPlan(eps_n, eps_rest, 0.0, 0.0, 0)
    if shares is not None:
        sq, sl, sf = shares
        if not has_numerical:
            sq, sl, sf = 0.0, sl / (sl + sf), sf / (sl + sf)
        return BudgetPlan(eps_n, sf * eps_rest, sq * eps_rest, sl * eps_rest / depth, depth)
    eps_leaf = min(eps_rest / 2.0, leaf_epsilon_for_error(n_used, n_classes, depth, leaf_error))
    eps_r = eps_rest - eps_leaf
    if has_numerical:
        eps_q = eps_level = eps_r / (1.0 + depth)
    else:
        eps_q, eps_level = 0.0, eps_r / depth
    return BudgetPlan(eps_n, eps_leaf, eps_q, eps_level, depth)


def plan_budget_published(epsilon, eps_n, depth, n_used, n_classes, leaf_error, has_numerical, star=False):
    """Paper 002's Eq. (7)–(10) as published: ε_leaf as :func:`plan_budget`, then with
    ε_r = ε − ε_n − ε_leaf: ε_quantiles = ε_node,num = ε_r/(1 + d) and ε_node,cat = ε_r/d
    (PrivaTree*, ``star=True``: no private quantiles, ε_node,num = ε_r/d). Returns the plan and
    ``(ε_node,num, ε_node,cat)``; ``plan.level`` is what one level is charged — ε_node,num when
    there are numerical features, else ε_node,cat: the paper composes numerical and categorical
    features in parallel, which is its claim, not a theorem (docs/privacy.md)."""
    eps_rest = epsilon - eps_n
    if depth == 0:
        return BudgetPlan(eps_n, eps_rest, 0.0, 0.0, 0), (0.0, 0.0)
    eps_leaf = min(eps_rest / 2.0, leaf_epsilon_for_error(n_used, n_classes, depth, leaf_error))
    eps_r = eps_rest - eps_leaf
    eps_cat = eps_r / depth
    if has_numerical and not star:
        eps_q = eps_num = eps_r / (1.0 + depth)
    else:
        eps_q, eps_num = 0.0, eps_r / depth
    charged = eps_num if has_numerical else eps_cat
    return BudgetPlan(eps_n, eps_leaf, eps_q, charged, depth), (eps_num, eps_cat)
