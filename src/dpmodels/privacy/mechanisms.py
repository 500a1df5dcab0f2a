"""Additive-noise mechanisms used by the learners: noisy histograms, noisy thresholds (gates),
noisy vectors, and the smooth-sensitivity noisy-argmin of paper 000.

Each function takes the exact statistic, the share (ε, δ) granted by the caller, and a Generator;
with ``ledger=`` it records its row before drawing noise (so an over-budget call raises without
releasing anything). Budget decisions stay with the learner.
"""

from __future__ import annotations

import numpy as np

from . import samplers
from .ledger import PrivacyLedger, charge, check_epsilon

__all__ = [
    "noisy_histogram",
    "noisy_integer_sums",
    "noisy_count",
    "discrete_laplace_counts",
    "noisy_counts_argmax",
    "laplace_threshold",
    "laplace_vector",
    "gaussian_vector",
    "smooth_noisy_argmin",
    "histogram_threshold",
    "thresholded_histogram",
    "discrete_gaussian_sums",
]


def noisy_histogram(counts, epsilon, rng, *, ledger: PrivacyLedger | None = None, what="histogram", parts=None):
    """Integer counts + two-sided geometric noise of scale 1/ε (ε-DP for an L1-sensitivity-1 histogram).

    Under add/remove of one record exactly one cell of a histogram over a partition changes, by 1:
    every cell at ε is parallel composition over the cells. Returns int64 noisy counts (may be < 0).
    """
    eps = check_epsilon(epsilon)
    c = np.asarray(counts)
    if c.dtype.kind not in "iu":
        if not np.all(np.equal(np.mod(c, 1), 0)):
            raise ValueError("histogram counts must be integers")
        c = c.astype(np.int64)
    charge(ledger, what, "geometric (discrete Laplace)", eps, sensitivity=1.0, parts=parts or max(1, c.size))
    return c + samplers.discrete_laplace(1.0 / eps, c.shape, rng)


def noisy_integer_sums(
    sums, epsilon, sensitivity, rng, *, ledger: PrivacyLedger | None = None, what="sums", parts=None, note=""
):
    """Integer sums + two-sided geometric noise of scale Δ/ε (ε-DP for a vector of integer sums of
    L1 sensitivity Δ, a positive integer).

    For sums over disjoint parts of per-record integers in [−Δ, Δ] (e.g. labels clipped to public
    bounds and rounded to a public grid): one record moves one sum by at most Δ, so every part at
    ε is parallel composition. Integer arithmetic and integer noise (no floating-point Laplace,
    ``samplers``). Returns int64 noisy sums.
    """
    eps = check_epsilon(epsilon)
    if isinstance(sensitivity, bool) or int(sensitivity) != sensitivity or sensitivity < 1:
        raise ValueError(f"sensitivity must be a positive integer, got {sensitivity!r}")
    c = np.asarray(sums)
    if c.dtype.kind not in "iu":
        raise ValueError("sums must be integers")
    charge(
        ledger,
        what,
        "geometric (discrete Laplace)",
        eps,
        sensitivity=float(sensitivity),
        parts=parts or max(1, c.size),
        note=note,
    )
    return c.astype(np.int64) + samplers.discrete_laplace(float(sensitivity) / eps, c.shape, rng)


def noisy_count(count, epsilon, rng) -> int:
    """One count + two-sided geometric noise of scale 1/ε: ε-DP for a count (adding or removing
    one record moves it by at most 1; Ghosh et al. 2009). Used for the size of a training set
    when it is not declared (docs/privacy.md, principle 9). Returns an int (may be < 0)."""
    return int(count) + int(samplers.discrete_laplace(1.0 / epsilon, 1, rng)[0])


def discrete_laplace_counts(counts, scale, rng):
    """Integer counts + two-sided geometric noise of the given ``scale`` in every cell.

    ε-DP for a vector of counts of L1 sensitivity Δ₁ when the caller calibrates ``scale = Δ₁/ε``
    (e.g. a class histogram of every feature at once, where one record is in every feature's
    histogram: Δ₁ = the number of features). The calibration stays with the caller, which decides
    the budget; this function only draws. Returns int64."""
    c = np.asarray(counts)
    return c + samplers.discrete_laplace(scale, c.shape, rng)


def noisy_counts_argmax(counts, epsilon, rng):
    """Report-noisy-max over rows: ``(noisy, labels)`` with ``noisy = counts + DLap(1/ε)`` per cell
    and ``labels[i]`` the argmax of row i of ``noisy``.

    ε-DP for a (part, class) table of counts over disjoint parts (one record changes one cell by
    1: parallel composition over the parts); the labels are post-processing of the noisy counts.
    Ties are broken by independent uniform jitter in [0, 0.5) (it never reorders distinct integer
    counts), drawn after the noise and independent of the data."""
    c = np.asarray(counts)
    noisy = c + samplers.discrete_laplace(1.0 / epsilon, c.shape, rng)
    labels = np.argmax(noisy + 0.5 * rng.random(noisy.shape), axis=1)
    return noisy, labels


def laplace_threshold(
    value,
    threshold,
    epsilon,
    rng,
    *,
    sensitivity=1.0,
    ledger=None,
    what="threshold test",
    delta=0.0,
    note="",
    guarantee="proven",
):
    """Release only whether value + Lap(Δ/ε) ≥ threshold (ε-DP; δ records a PTR failure share).

    ``guarantee="none"`` marks a use whose *purpose* is not DP (the paper's confidence gate, which
    guards a smooth-sensitivity bound "with confidence C" only): the ledger is then not private.
    """
    eps = check_epsilon(epsilon)
    charge(ledger, what, "Laplace threshold", eps, delta, sensitivity=sensitivity, note=note, guarantee=guarantee)
    return bool(float(value) + samplers.laplace(sensitivity / eps, 1, rng)[0] >= threshold)


def laplace_vector(
    values, epsilon, l1_sensitivity, rng, *, ledger=None, what="noisy vector", note="", guarantee="proven"
):
    """values + Lap(Δ₁/ε) per coordinate (ε-DP for a vector of L1 sensitivity Δ₁). Not for release
    as floats: callers post-process (argmin), see ``samplers`` on floating-point leaks."""
    eps = check_epsilon(epsilon)
    v = np.asarray(values, dtype=float)
    charge(ledger, what, "Laplace", eps, sensitivity=l1_sensitivity, note=note, guarantee=guarantee)
    return v + samplers.laplace(l1_sensitivity / eps, v.shape, rng)


def gaussian_vector(
    values, epsilon, delta, l2_sensitivity, rng, *, ledger=None, what="noisy vector", note="", guarantee="proven"
):
    """values + N(0, σ²), σ from the analytic Gaussian mechanism for (ε, δ) and L2 sensitivity Δ₂.

    ``guarantee="claimed"``: the caller's Δ₂ is a published claim rather than the vector's proven
    L2 sensitivity (paper 000's gl-Gaussian calibrates to one score's Δ)."""
    from .gaussian import analytic_gaussian_sigma

    eps = check_epsilon(epsilon)
    v = np.asarray(values, dtype=float)
    sigma = analytic_gaussian_sigma(eps, delta, l2_sensitivity)
    charge(ledger, what, "Gaussian (analytic)", eps, delta, sensitivity=l2_sensitivity, note=note, guarantee=guarantee)
    return v + samplers.gaussian(sigma, v.shape, rng)


def smooth_noisy_argmin(
    scores,
    smooth_sensitivity,
    epsilon,
    rng,
    *,
    noise="laplace",
    gamma=4.0,
    delta=0.0,
    ledger=None,
    what="smooth-sensitivity selection",
    note="",
):
    """argmin over scores + smooth-sensitivity noise (paper 000, Alg. 1 line 11).

    ``noise="laplace"``: scale 2·S*/ε, Lap(1) noise (Nissim et al.'s (ε, δ) mechanism for one
    value, with β ≤ ε / (2 ln(2/δ))). ``noise="cauchy"``: scale 2(γ+1)·S*/ε with h(z) ∝ 1/(1+|z|^γ)
    (ε-DP for one value, β ≤ ε / (2(γ+1))). Taking the argmin of |R| such values and accounting it
    as one query is **the paper's claim**, not a theorem (docs/privacy.md, principle 4): the ledger row is
    recorded with ``guarantee="claimed"``, so a ledger holding it is never ``is_private``
    (``docs/privacy.md`` explains why the standard theorems do not cover it).
    """
    eps = check_epsilon(epsilon)
    s = np.asarray(scores, dtype=float)
    S = float(smooth_sensitivity)
    if noise == "laplace":
        charge(ledger, what, "smooth-sens. Laplace", eps, delta, sensitivity=S, note=note, guarantee="claimed")
        z = samplers.laplace(1.0, s.shape, rng) * (2.0 * S / eps)
    elif noise == "cauchy":
        charge(ledger, what, "smooth-sens. Cauchy", eps, delta, sensitivity=S, note=note, guarantee="claimed")
        z = samplers.heavy_tailed(gamma, s.shape, rng) * (2.0 * (gamma + 1.0) * S / eps)
    else:
        raise ValueError(f"noise must be 'laplace' or 'cauchy', got {noise!r}")
    return int(np.argmin(s + z))


def histogram_threshold(epsilon, delta) -> int:
    """The smallest integer τ >= 2 such that a key held by one record clears ``1 + Z >= τ`` with
    probability at most δ, for Z two-sided geometric noise of scale 1/ε.

    With α = e^{-ε}, P[Z >= k] = α^k / (1 + α) for k >= 1, so τ − 1 = ⌈ln(1 / (δ(1 + α))) / ε⌉.
    A public function of (ε, δ) only."""
    eps = check_epsilon(epsilon)
    d = float(delta)
    if not (0.0 < d < 1.0):
        raise ValueError(f"a thresholded histogram needs 0 < delta < 1, got {delta!r}")
    alpha = float(np.exp(-eps))
    k = int(np.ceil(np.log(1.0 / (d * (1.0 + alpha))) / eps))
    tau = 1 + max(k, 1)
    # guard the rounding of the logarithm: the bound must hold as computed in doubles too
    while alpha ** (tau - 1) / (1.0 + alpha) > d:
        tau += 1
    return tau


def thresholded_histogram(counts: dict, epsilon, delta, rng, *, ledger: PrivacyLedger | None = None, what="keys"):
    """The keys of a histogram over a **data-defined** key set whose noisy count clears a
    threshold: (ε, δ)-DP (the stability-based histogram; docs/privacy.md, "DP schema draft").

    ``counts``: ``{key: exact integer count >= 1}`` of the keys present in the data (a category
    list, a label set). Each count gets two-sided geometric noise of scale 1/ε; a key is released
    when its noisy count is at least :func:`histogram_threshold` (ε, δ). Under add/remove of one
    record either one present key's count moves by 1 (ε-DP: the geometric mechanism on a histogram
    of L1 sensitivity 1, thresholding is post-processing) or a key held by that record only
    appears, which happens with probability at most δ. Without δ > 0 no such release is DP: a
    threshold alone never hides a key held by one record. Returns the released keys in the order
    of ``counts`` (the noisy counts are not released)."""
    eps = check_epsilon(epsilon)
    tau = histogram_threshold(eps, delta)
    keys = list(counts)
    c = np.array([int(counts[k]) for k in keys], dtype=np.int64)
    if np.any(c < 1):
        raise ValueError("a thresholded histogram's counts are those of keys present in the data (>= 1)")
    charge(
        ledger,
        what,
        "thresholded geometric histogram",
        eps,
        float(delta),
        sensitivity=1.0,
        note=f"released: the keys whose count + DLap(1/ε) >= {tau}; a key of one record with probability <= δ",
    )
    noisy = c + samplers.discrete_laplace(1.0 / eps, c.shape, rng)
    return [k for k, v in zip(keys, noisy) if v >= tau]


def discrete_gaussian_sums(sums, sigma, rng):
    """Integer sums (or counts) + discrete Gaussian noise N_Z(0, σ²) in every cell
    (:func:`samplers.discrete_gaussian`).

    ρ-zCDP for a vector of integer sums of L2 sensitivity Δ₂ when the caller calibrates
    ``sigma = Δ₂/√(2ρ)`` (:func:`dpmodels.privacy.zcdp.gaussian_sigma_for_rho`; Canonne, Kamath &
    Steinke 2020, Thm. 4). As :func:`discrete_laplace_counts`, the calibration and the ledger row
    stay with the caller (zCDP composes in ρ, not in ε: the learner records the converted (ε, δ)
    of the whole composition); this function only draws. Returns int64."""
    c = np.asarray(sums)
    if c.dtype.kind not in "iu":
        raise ValueError("sums must be integers")
    return c.astype(np.int64) + samplers.discrete_gaussian(sigma, c.shape, rng)
