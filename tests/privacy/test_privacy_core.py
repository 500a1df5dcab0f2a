"""Privacy core: ledger accounting, samplers, selection mechanisms, smooth sensitivity, Gaussian."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from dpmodels.privacy import (
    BudgetExceededError,
    PrivacyLeakWarning,
    PrivacyLedger,
    check_random_state,
    discrete_laplace,
    exponential_mechanism,
    gini_smooth_sensitivity,
    gini_smooth_sensitivity_bruteforce,
    heavy_tailed,
    permute_and_flip,
    report_noisy_max,
)
from dpmodels.privacy.gaussian import analytic_gaussian_sigma, gaussian_delta


# ------------------------------------------------------------------ ledger
def test_ledger_sequential_and_parallel_rows():
    led = PrivacyLedger(1.0, 1e-6)
    led.spend("a", "laplace", 0.25, sensitivity=1)
    led.spend("leaves", "geometric", 0.5, composition="parallel", parts=8)
    assert led.epsilon_spent == pytest.approx(0.75)  # the parallel row costs ε once
    assert led.epsilon_remaining == pytest.approx(0.25)
    assert "parallel ×8" in led.summary()
    assert PrivacyLedger.from_dict(led.to_dict()).to_dict() == led.to_dict()


def test_ledger_refuses_before_release():
    led = PrivacyLedger(1.0)
    led.spend("a", "m", 0.6)
    with pytest.raises(BudgetExceededError):
        led.spend("b", "m", 0.5)
    assert len(led.rows) == 1  # nothing recorded for the refused request
    rng = np.random.default_rng(0)
    with pytest.raises(BudgetExceededError):
        permute_and_flip([1.0, 2.0], 0.5, 1.0, rng, ledger=led)


def test_ledger_delta_budget_and_leaks():
    led = PrivacyLedger(1.0, 1e-6)
    with pytest.raises(BudgetExceededError):
        led.spend("a", "gauss", 0.1, 2e-6)
    with pytest.warns(PrivacyLeakWarning):
        led.record_leak("bounds")
    assert not led.is_private and "non-private" in led.summary()


def test_ledger_is_private_only_when_every_row_is_proven():
    led = PrivacyLedger(1.0, 1e-6)
    led.spend("a", "laplace", 0.25, sensitivity=1)
    assert led.is_private and "PRIVATE: every release is a proven" in led.summary()
    led.spend("b", "smooth-sens. Laplace", 0.25, 1e-7, guarantee="claimed")
    assert not led.is_private
    assert [r.what for r in led.claimed] == ["b"]
    assert "NOT PROVEN PRIVATE" in led.summary() and "published claim" in led.summary()
    led2 = PrivacyLedger(1.0)
    led2.spend("gate", "Laplace threshold", 0.1, guarantee="none", note="confidence gate")
    assert not led2.is_private and led2.epsilon_spent == pytest.approx(0.1)
    assert "not DP releases: gate (confidence gate)" in led2.summary()
    with pytest.raises(ValueError, match="guarantee"):
        led2.spend("c", "m", 0.1, guarantee="maybe")
    with pytest.raises(ValueError, match="leak row"):
        type(led2.rows[0])("x", "m", 0.0, composition="leak", guarantee="proven")


def test_ledger_dict_round_trip_and_legacy_rows():
    led = PrivacyLedger(1.0, 1e-6)
    led.spend("sel", "smooth-sens. Cauchy", 0.2, guarantee="claimed")
    led.spend("gate", "Laplace threshold", 0.2, guarantee="none")
    led.spend("counts", "geometric", 0.2, composition="parallel", parts=3)
    with pytest.warns(PrivacyLeakWarning):
        led.record_leak("n")
    d = led.to_dict()
    back = PrivacyLedger.from_dict(d)
    assert back.to_dict() == d and back.rows == led.rows
    # dicts written before rows had a guarantee: inferred from what the library recorded then
    for r in d["rows"]:
        del r["guarantee"]
    d["rows"][1]["note"] = "paper's confidence gate C=0.99: NOT a DP guarantee"
    old = PrivacyLedger.from_dict(d)
    assert [r.guarantee for r in old.rows] == ["claimed", "none", "proven", "none"]
    assert not old.is_private


@pytest.mark.parametrize("eps", [-1, float("nan"), float("inf"), "a", -0.0 - 1e-300])
def test_ledger_rejects_bad_epsilon(eps):
    with pytest.raises((ValueError, TypeError)):
        PrivacyLedger(eps)


def test_zero_budget_ledger_refuses_every_release_but_records_leaks():
    """Budget 0: the ledger of a step that releases nothing (a Binarizer with public cut points)."""
    led = PrivacyLedger(0)
    assert led.is_private and "nothing was released" in led.summary()
    with pytest.raises(BudgetExceededError):
        led.spend("anything", "laplace", 1e-12)
    assert led.rows == []
    with pytest.warns(PrivacyLeakWarning):
        led.record_leak("quantiles of 'age'")
    assert not led.is_private


@pytest.mark.parametrize("delta", [-0.1, 1.0, 2.0])
def test_ledger_rejects_bad_delta(delta):
    with pytest.raises(ValueError):
        PrivacyLedger(1.0, delta)


@given(st.lists(st.floats(1e-4, 2.0), min_size=1, max_size=30), st.floats(0.01, 10))
@settings(max_examples=100, deadline=None)
def test_ledger_total_never_exceeds_budget(requests, budget):
    led = PrivacyLedger(budget)
    for r in requests:
        try:
            led.spend("q", "m", r)
        except BudgetExceededError:
            pass
    assert led.epsilon_spent <= budget * (1 + 1e-9)


# ---------------------------------------------------------------- samplers
def test_random_state_policy():
    a = check_random_state(5).random(3)
    b = check_random_state(5).random(3)
    assert np.array_equal(a, b)
    c, d = check_random_state(None).random(3), check_random_state(None).random(3)
    assert not np.array_equal(c, d)  # OS entropy
    with pytest.raises(TypeError):
        check_random_state("x")
    with pytest.raises(ValueError):
        check_random_state(-1)


def test_discrete_laplace_law():
    rng = np.random.default_rng(1)
    scale = 2.0
    z = discrete_laplace(scale, 200_000, rng)
    assert z.dtype == np.int64
    r = math.exp(-1 / scale)
    for k in (0, 1, -2, 5):
        p = (1 - r) / (1 + r) * r ** abs(k)
        assert np.mean(z == k) == pytest.approx(p, abs=4 * math.sqrt(p / 200_000) + 1e-4)


def test_heavy_tailed_gamma2_is_cauchy_and_gamma4_density():
    rng = np.random.default_rng(2)
    z = heavy_tailed(2.0, 50_000, rng)
    assert stats.kstest(z, "cauchy").pvalue > 1e-3
    z4 = heavy_tailed(4.0, 100_000, rng)
    # density ∝ 1/(1+z^4): normaliser ∫ = π/(2 sin(π/4))·2/... compare P(|Z|<1) numerically
    from scipy.integrate import quad

    tot = 2 * quad(lambda x: 1 / (1 + x**4), 0, np.inf)[0]
    p1 = 2 * quad(lambda x: 1 / (1 + x**4), 0, 1)[0] / tot
    assert np.mean(np.abs(z4) < 1) == pytest.approx(p1, abs=0.01)


def test_exponential_mechanism_probabilities():
    rng = np.random.default_rng(3)
    u = np.array([0.0, 1.0, 3.0])
    eps, d = 1.0, 1.0
    picks = np.array([exponential_mechanism(u, eps, d, rng) for _ in range(20_000)])
    expected = np.exp(eps * u / (2 * d))
    expected /= expected.sum()
    for i in range(3):
        assert np.mean(picks == i) == pytest.approx(expected[i], abs=0.015)


def test_permute_and_flip_matches_its_definition():
    """PF: visit candidates in random order, accept i w.p. exp(ε(u_i − u*)/(2Δ)). Compare the
    vectorised exponential-noise implementation with a direct simulation of the definition."""
    u = np.array([0.0, 0.5, 2.0, 1.0])
    eps, d, n = 1.0, 1.0, 20_000
    rng = np.random.default_rng(4)
    fast = np.bincount([permute_and_flip(u, eps, d, rng) for _ in range(n)], minlength=4) / n
    ref = np.zeros(4)
    for _ in range(n):
        for i in rng.permutation(4):
            if rng.random() <= math.exp(eps * (u[i] - u.max()) / (2 * d)):
                ref[i] += 1
                break
    ref /= n
    assert np.allclose(fast, ref, atol=0.02)


def test_selection_rejects_bad_input():
    rng = np.random.default_rng(0)
    for f in (permute_and_flip, exponential_mechanism, report_noisy_max):
        with pytest.raises(ValueError):
            f([], 1.0, 1.0, rng)
        with pytest.raises(ValueError):
            f([1.0, np.nan], 1.0, 1.0, rng)
        with pytest.raises(ValueError):
            f([1.0], 0.0, 1.0, rng)
        with pytest.raises(ValueError):
            f([1.0], 1.0, 0.0, rng)


# ------------------------------------------------------- smooth sensitivity
@given(st.integers(0, 3000), st.floats(1e-4, 2.0), st.integers(1, 400))
@settings(max_examples=300, deadline=None)
def test_smooth_sensitivity_closed_form_equals_bruteforce(n, beta, lam):
    """Theorem IV.1 (paper 000) against the definition max_k e^{-kβ} g(max(Λ, n−k))."""
    assert gini_smooth_sensitivity(n, beta, lam) == pytest.approx(
        gini_smooth_sensitivity_bruteforce(n, beta, lam), rel=1e-12, abs=1e-15
    )


def test_smooth_sensitivity_examples_and_errors():
    # large β: only k = 0 matters → g(n); small β: the bound decays slowly
    assert gini_smooth_sensitivity(100, 5.0, 1) == pytest.approx(2 * 100 / 101**2)
    assert gini_smooth_sensitivity(100, 1e-6, 10) == pytest.approx(math.exp(-90e-6) * 2 * 10 / 11**2, rel=1e-9)
    for bad in [(-1, 0.1, 1), (10, 0.0, 1), (10, 0.1, 0), (10.5, 0.1, 1)]:
        with pytest.raises(ValueError):
            gini_smooth_sensitivity(*bad)


# ------------------------------------------------------------- Gaussian
@pytest.mark.parametrize("eps,delta", [(0.1, 1e-5), (1.0, 1e-6), (5.0, 1e-8)])
def test_analytic_gaussian_is_tight_and_no_worse_than_classical(eps, delta):
    s = analytic_gaussian_sigma(eps, delta, 1.0)
    assert gaussian_delta(s, eps) <= delta * (1 + 1e-6)
    assert gaussian_delta(s * 0.99, eps) > delta
    if eps < 1:
        assert s <= math.sqrt(2 * math.log(1.25 / delta)) / eps
