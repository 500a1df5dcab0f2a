"""Vectorised noise samplers and the random-state policy.

Every sampler takes a :class:`numpy.random.Generator` and draws a whole array in one call (no
per-scalar Python loop). What is and is not hardened (see ``docs/privacy.md``, "Samplers"):

* **Released counts get integer noise** (:func:`discrete_laplace`, the two-sided geometric
  distribution). An integer output has no floating-point low-order bits, so the attack of
  Mironov (2012) on textbook double-precision Laplace does not apply to counts this library prints.
* **Continuous noise is never released.** Laplace, Gaussian and heavy-tailed noise only feed an
  ``argmax`` (report-noisy-max, smooth-sensitivity selections); the release is an index.
* **Randomness.** ``random_state=None`` (the default) seeds a PCG64DXSM generator with 256 bits from
  the operating system's entropy pool (:func:`secrets.randbits`). A seeded ``random_state`` makes a
  run reproducible and is meant for research and audits only: anyone who knows the seed can remove
  the noise. PCG64DXSM is a statistical, not a cryptographic, generator; we judged that the
  outputs a model reveals (a few indices and integer counts) leave no practical way to recover its
  state, and chose speed. OpenDP 0.16's vetted samplers cost 43–104 µs per element here against
  26 ns for numpy (``docs/benchmarks.md``), too slow for the per-node candidate arrays.
"""

from __future__ import annotations

import numbers
import secrets

import numpy as np

__all__ = [
    "check_random_state",
    "laplace",
    "discrete_laplace",
    "gaussian",
    "gumbel",
    "exponential",
    "heavy_tailed",
    "discrete_gaussian",
]


def check_random_state(random_state=None) -> np.random.Generator:
    """Return a Generator. ``None`` draws a fresh seed from OS entropy (private use).

    An ``int`` or a ``SeedSequence`` gives a reproducible stream (research only, not private with
    respect to anyone who knows the seed). A ``Generator`` is used as is. A legacy
    ``RandomState`` is accepted for scikit-learn compatibility and converted by drawing a seed
    from it.
    """
    if random_state is None:
        return np.random.Generator(np.random.PCG64DXSM(secrets.randbits(256)))
    if isinstance(random_state, np.random.Generator):
        return random_state
    if isinstance(random_state, np.random.SeedSequence):
        return np.random.Generator(np.random.PCG64DXSM(random_state))
    if isinstance(random_state, np.random.RandomState):
        return np.random.Generator(np.random.PCG64DXSM(int(random_state.randint(0, 2**31 - 1))))
    if isinstance(random_state, numbers.Integral) and not isinstance(random_state, bool):
        if random_state < 0:
            raise ValueError(f"random_state must be a non-negative integer, got {random_state}")
        return np.random.Generator(np.random.PCG64DXSM(int(random_state)))
    raise TypeError(
        "random_state must be None, a non-negative int, a numpy SeedSequence, Generator or "
        f"RandomState; got {type(random_state).__name__}"
    )


def _check_scale(scale, name="scale") -> float:
    s = float(scale)
    if not np.isfinite(s) or s < 0:
        raise ValueError(f"{name} must be finite and >= 0, got {scale!r}")
    return s


def laplace(scale: float, size, rng: np.random.Generator) -> np.ndarray:
    """Laplace(0, scale) noise, density exp(-|x|/scale) / (2·scale)."""
    s = _check_scale(scale)
    if s == 0:
        return np.zeros(size)
    return rng.laplace(0.0, s, size)


def discrete_laplace(scale: float, size, rng: np.random.Generator) -> np.ndarray:
    """Two-sided geometric noise on the integers: P[k] ∝ exp(-|k| / scale).

    Sampled as the difference of two i.i.d. geometric variables (numbers of failures before a
    success with p = 1 − exp(−1/scale)), whose difference has this law. The geometric draws are
    numpy's, which are computed from double-precision floats: the law is exact up to
    double-precision rounding, and the support is bounded (the far tail, of probability of the
    order of 2^-53, is cut off) — not exact in law. Adding it to an integer count of sensitivity Δ
    with scale = Δ/ε is ε-DP (Ghosh, Roughgarden & Sundararajan 2009) up to that truncation.
    Returns int64.
    """
    s = _check_scale(scale)
    if s == 0:
        return np.zeros(size, dtype=np.int64)
    p = -np.expm1(-1.0 / s)  # 1 - exp(-1/s), accurate for large s
    g1 = np.asarray(rng.geometric(p, size), dtype=np.int64)
    g2 = np.asarray(rng.geometric(p, size), dtype=np.int64)
    return g1 - g2


def gaussian(sigma: float, size, rng: np.random.Generator) -> np.ndarray:
    """N(0, sigma²) noise."""
    s = _check_scale(sigma, "sigma")
    if s == 0:
        return np.zeros(size)
    return rng.normal(0.0, s, size)


def gumbel(scale: float, size, rng: np.random.Generator) -> np.ndarray:
    """Gumbel(0, scale) noise: argmax(u + Gumbel(2Δ/ε)) samples the exponential mechanism."""
    s = _check_scale(scale)
    if s == 0:
        return np.zeros(size)
    return rng.gumbel(0.0, s, size)


def exponential(scale: float, size, rng: np.random.Generator) -> np.ndarray:
    """Exponential(scale) noise: argmax(u + Exp(2Δ/ε)) is permute-and-flip (Ding et al. 2021)."""
    s = _check_scale(scale)
    if s == 0:
        return np.zeros(size)
    return rng.exponential(s, size)


def heavy_tailed(gamma: float, size, rng: np.random.Generator) -> np.ndarray:
    """Noise with density h(z) ∝ 1 / (1 + |z|^γ), γ > 1 (Nissim, Raskhodnikova & Smith 2007).

    With W = |Z|^γ, W has density ∝ w^{1/γ − 1} / (1 + w): a beta-prime(1/γ, 1 − 1/γ) variable,
    i.e. W = B / (1 − B) with B ~ Beta(1/γ, 1 − 1/γ). So |Z| = (B / (1 − B))^{1/γ} with a random
    sign — exact and vectorised. γ = 2 is the standard Cauchy distribution.
    """
    g = float(gamma)
    if not g > 1:
        raise ValueError(f"gamma must be > 1, got {gamma!r}")
    b = rng.beta(1.0 / g, 1.0 - 1.0 / g, size)
    with np.errstate(divide="ignore"):
        mag = (b / (1.0 - b)) ** (1.0 / g)
    sign = np.where(rng.random(size) < 0.5, -1.0, 1.0)
    return sign * mag


def discrete_gaussian(sigma: float, size, rng: np.random.Generator) -> np.ndarray:
    """Discrete Gaussian noise on the integers: P[k] ∝ exp(−k² / (2σ²)) (Canonne, Kamath & Steinke
    2020, Algorithm 3), vectorised.

    Rejection sampling from the discrete Laplace law of scale t = ⌊σ⌋ + 1: a draw Y is kept with
    probability exp(−(|Y| − σ²/t)² / (2σ²)); the kept draws have exactly the discrete Gaussian law
    (CKS Thm. 9), and at least about half the draws are kept, so a few vectorised passes fill any
    size. The acceptance test and the discrete Laplace draws use double-precision floats: exact in
    law up to that rounding, as :func:`discrete_laplace`. Adding it to an integer query of L2
    sensitivity Δ with σ = Δ/√(2ρ) is ρ-zCDP (CKS Thm. 4). Returns int64.
    """
    s = _check_scale(sigma, "sigma")
    shape = (size,) if isinstance(size, numbers.Integral) else tuple(size)
    total = int(np.prod(shape, dtype=np.int64))
    if s == 0 or total == 0:
        return np.zeros(shape, dtype=np.int64)
    t = float(np.floor(s) + 1.0)
    out = np.empty(total, dtype=np.int64)
    filled = 0
    while filled < total:
        need = total - filled
        k = max(64, int(need * 2.2))
        y = discrete_laplace(t, k, rng)
        z = (np.abs(y) - s * s / t) ** 2 / (2.0 * s * s)
        keep = y[rng.random(k) < np.exp(-z)][:need]
        out[filled : filled + keep.size] = keep
        filled += keep.size
    return out.reshape(shape)
