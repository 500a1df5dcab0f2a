"""The Rényi-DP tuner (Papernot & Steinke 2022) of dpmodels.privacy.private_selection, checked
against brute force: exact output laws of "best of K trials" on small ordered output sets, exact
Rényi divergences and exact privacy profiles (docs/privacy.md, "The Rényi-DP tuner")."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.special import logsumexp

from dpmodels.privacy import PrivacyLedger
from dpmodels.privacy.private_selection import (
    pure_dp_rdp,
    rdp_to_dp,
    sample_tnb,
    tnb_gamma,
    tnb_mean,
    tnb_pmf,
    tnb_runs_cap,
    tnb_selection,
    tnb_selection_epsilon,
    tnb_selection_guarantee,
    tnb_selection_rdp,
    tnb_tail,
    tnb_trial_epsilon,
)

ETAS = (-0.5, 0.0, 0.5, 1.0, 3.0)


# ----------------------------------------------------------------------------- brute-force oracles
def renyi(p, q, lam):
    """Exact D_λ(p ‖ q) of two discrete laws (q > 0 wherever p > 0)."""
    p, q = np.asarray(p, float), np.asarray(q, float)
    m = p > 0
    if math.isinf(lam):
        return float(np.max(np.log(p[m] / q[m])))
    return float(logsumexp(lam * np.log(p[m]) + (1.0 - lam) * np.log(q[m])) / (lam - 1.0))


def exact_delta(p, q, eps):
    """δ(ε) = sup_S P(S) − e^ε Q(S) = Σ max(0, p − e^ε q)."""
    return float(np.sum(np.maximum(0.0, np.asarray(p) - math.exp(eps) * np.asarray(q))))


def pgf(x, eta, gamma):
    """E[x^K] for K ~ TNB(η, γ), written independently of the module."""
    if eta == 0:
        return math.log(1 - (1 - gamma) * x) / math.log(gamma)
    return ((1 - (1 - gamma) * x) ** (-eta) - 1) / (gamma ** (-eta) - 1)


def best_of_k(Q, eta, gamma):
    """Law of the best (largest index) of K i.i.d. draws from Q, K ~ TNB(η, γ): f(F(y)) − f(F⁻(y))."""
    F = np.cumsum(Q)
    Fm = F - Q
    return np.array([pgf(min(a, 1.0), eta, gamma) - pgf(b, eta, gamma) for a, b in zip(F, Fm)])


def best_of_capped_k(Q, eta, gamma, cap):
    """Same for min(K, T), from the module's pmf (a cross-check of the pmf as well)."""
    ks = np.arange(1, cap + 1)
    pk = tnb_pmf(ks, eta, gamma)
    pk[-1] = 1.0 - pk[:-1].sum()
    F = np.cumsum(Q)
    Fm = F - Q
    return np.array([np.sum(pk * (a**ks - b**ks)) for a, b in zip(F, Fm)])


def dp_pair(eps, T):
    """A pair of laws within a factor e^ε of each other: a post-processing (columns of T) of
    randomized response; every ε-DP pair has this form (Kairouz, Oh & Viswanath 2015)."""
    p = math.exp(eps) / (1 + math.exp(eps))
    return p * T[:, 0] + (1 - p) * T[:, 1], (1 - p) * T[:, 0] + p * T[:, 1]


def random_kernels(rng, m, n):
    out = [np.eye(m)[:, [i, j]] for i in range(m) for j in range(m) if i != j]  # the extreme ones
    for _ in range(n):
        out.append(rng.dirichlet(np.full(m, 0.3), size=2).T)
    return out


# ----------------------------------------------------------------------------- the trial's RDP
def test_pure_dp_rdp_is_the_randomized_response_divergence():
    for eps in (0.01, 0.3, 1.0, 4.0):
        p, q = dp_pair(eps, np.eye(2))
        for lam in (1.001, 1.5, 2.0, 10.0, 300.0, math.inf):
            assert pure_dp_rdp(eps, lam) == pytest.approx(renyi(p, q, lam), rel=1e-9, abs=1e-13)
        kl = float(np.sum(p * np.log(p / q)))
        assert pure_dp_rdp(eps, 1.0) == pytest.approx(kl, rel=1e-12)


def test_pure_dp_rdp_dominates_every_dp_pair_and_is_below_bun_steinke():
    rng = np.random.default_rng(0)
    for eps in (0.05, 0.5, 2.0):
        for T in random_kernels(rng, 4, 40):
            p, q = dp_pair(eps, T)
            for lam in (1.5, 3.0, 20.0, math.inf):
                assert renyi(p, q, lam) <= pure_dp_rdp(eps, lam) + 1e-12
        for lam in (1.01, 2.0, 50.0, 1e4):
            assert pure_dp_rdp(eps, lam) <= min(eps, lam * eps * eps / 2) + 1e-15


@given(st.floats(1e-3, 5.0), st.floats(1.0, 1e4), st.floats(1.0, 1e4))
def test_pure_dp_rdp_is_monotone(eps, l1, l2):
    lo, hi = sorted((l1, l2))
    assert pure_dp_rdp(eps, lo) <= pure_dp_rdp(eps, hi) + 1e-12
    assert pure_dp_rdp(eps, lo) <= pure_dp_rdp(eps * 1.1, lo) + 1e-15


# ----------------------------------------------------------------------------- the conversion
@settings(max_examples=60, deadline=None)
@given(st.floats(0.05, 3.0), st.floats(1.05, 500.0), st.sampled_from([1e-2, 1e-4, 1e-6, 1e-9]))
def test_rdp_to_dp_holds_for_randomized_response_and_beats_mironov(eps, lam, delta):
    p, q = dp_pair(eps, np.eye(2))
    rho = renyi(p, q, lam)
    e = rdp_to_dp(rho, lam, delta)
    assert exact_delta(p, q, e) <= delta * (1 + 1e-9) and exact_delta(q, p, e) <= delta * (1 + 1e-9)
    assert e <= rho + math.log(1 / delta) / (lam - 1) + 1e-12


def test_rdp_to_dp_holds_for_discrete_laplace_pairs():
    ks = np.arange(-300, 301)
    for scale in (1.0, 2.0, 8.0):
        p = np.exp(-np.abs(ks) / scale)
        p /= p.sum()
        q = np.exp(-np.abs(ks - 1) / scale)
        q /= q.sum()
        for lam in (1.5, 4.0, 30.0):
            rho = max(renyi(p, q, lam), renyi(q, p, lam))
            for delta in (1e-3, 1e-6):
                e = rdp_to_dp(rho, lam, delta)
                assert exact_delta(p, q, e) <= delta and exact_delta(q, p, e) <= delta


# ----------------------------------------------------------------------------- the distribution
@pytest.mark.parametrize("eta", ETAS)
def test_tnb_pmf_mean_pgf_and_tail_agree_with_direct_sums(eta):
    for gamma in (0.02, 0.2, 0.7):
        ks = np.arange(1, 20001)
        pk = tnb_pmf(ks, eta, gamma)
        assert pk.sum() == pytest.approx(1.0, abs=1e-9)
        assert np.sum(ks * pk) == pytest.approx(tnb_mean(eta, gamma), rel=1e-8)
        for x in (0.0, 0.3, 0.9, 1.0):
            assert np.sum(pk * x**ks) == pytest.approx(pgf(x, eta, gamma), abs=1e-9)
        for t in (1, 3, 10, 50):
            exact = 1.0 - pk[:t].sum()
            assert exact - 1e-12 <= tnb_tail(t, eta, gamma) <= exact + 1e-9
    assert tnb_tail(0, eta, 0.3) == 1.0


def test_tnb_special_cases_geometric_and_logarithmic():
    ks = np.arange(1, 30)
    np.testing.assert_allclose(tnb_pmf(ks, 1.0, 0.25), 0.25 * 0.75 ** (ks - 1), rtol=1e-12)
    np.testing.assert_allclose(tnb_pmf(ks, 0.0, 0.25), 0.75**ks / (ks * math.log(4)), rtol=1e-12)
    assert tnb_mean(1.0, 0.25) == pytest.approx(4.0)
    with pytest.raises(ValueError, match="eta"):
        tnb_pmf(ks, -1.0, 0.5)
    with pytest.raises(ValueError, match="gamma"):
        tnb_mean(0.0, 1.0)


@pytest.mark.parametrize("eta", ETAS)
def test_tnb_gamma_inverts_the_mean(eta):
    for mean in (1.5, 5.0, 40.0):
        assert tnb_mean(eta, tnb_gamma(eta, mean)) == pytest.approx(mean, rel=1e-9)


@pytest.mark.parametrize("eta", (-0.5, 0.0, 2.0))
def test_sample_tnb_follows_the_pmf(eta):
    rng = np.random.default_rng(1)
    gamma = tnb_gamma(eta, 4.0)
    draws = np.array([sample_tnb(eta, gamma, rng) for _ in range(8000)])
    for k in (1, 2, 3, 5):
        p = float(tnb_pmf([k], eta, gamma)[0])
        assert abs(np.mean(draws == k) - p) < 5 * math.sqrt(p * (1 - p) / len(draws))
    capped = np.array([sample_tnb(eta, gamma, rng, max_runs=3) for _ in range(3000)])
    assert capped.max() == 3 and abs(np.mean(capped == 3) - tnb_tail(2, eta, gamma)) < 0.03


def test_runs_cap_is_the_smallest_within_delta():
    for eta in ETAS:
        gamma = tnb_gamma(eta, 5.0)
        for eps, delta in ((0.1, 1e-6), (1.0, 1e-3)):
            t = tnb_runs_cap(eta, gamma, eps, delta)
            assert (1 + math.exp(eps)) * tnb_tail(t, eta, gamma) <= delta
            assert t == 1 or (1 + math.exp(eps)) * tnb_tail(t - 1, eta, gamma) > delta
    assert tnb_runs_cap(0.0, 0.5, 1.0, 0.0) is None


# ----------------------------------------------------------------------------- the selection bound
@pytest.mark.parametrize("eta", ETAS)
def test_selection_rdp_bounds_the_exact_divergence_of_best_of_k(eta):
    rng = np.random.default_rng(2)
    for eps in (0.1, 1.0, 2.5):
        for mean in (2.0, 8.0):
            gamma = tnb_gamma(eta, mean)
            for T in random_kernels(rng, 4, 25):
                q, qp = dp_pair(eps, T)
                a, ap = best_of_k(q, eta, gamma), best_of_k(qp, eta, gamma)
                for lam in (1.5, 3.0, 10.0, 100.0, math.inf):
                    bound = tnb_selection_rdp(eps, eta, gamma, lam)
                    assert renyi(a, ap, lam) <= bound + 1e-9
                    assert renyi(ap, a, lam) <= bound + 1e-9
                # the pure bound of Eq. (P4)
                assert renyi(a, ap, math.inf) <= (2 + eta) * eps + 1e-9


def test_selection_bound_has_power_a_one_trial_claim_is_refuted():
    """Planted control: claiming that the selection costs one trial's ε (the leak of ignoring the
    selection) is refuted by the exact law of best-of-K for randomized response trials."""
    eps = 1.0
    for eta in (0.0, 1.0):
        gamma = tnb_gamma(eta, 20.0)
        q, qp = dp_pair(eps, np.eye(2))
        a, ap = best_of_k(q, eta, gamma), best_of_k(qp, eta, gamma)
        leak = max(renyi(a, ap, math.inf), renyi(ap, a, math.inf))
        assert leak > 1.3 * eps  # well above one trial ...
        assert leak <= tnb_selection_rdp(eps, eta, gamma, math.inf)  # ... within the theorem


def test_geometric_law_reproduces_liu_talwar_and_logarithmic_halves_the_charge():
    for eps in (0.01, 0.3, 1.0):
        assert tnb_selection_epsilon(eps, 1.0, 0.2) == pytest.approx(3 * eps)  # Liu & Talwar's 3·ε_t
        assert tnb_selection_epsilon(eps, 0.0, tnb_gamma(0.0, 5.0)) == pytest.approx(2 * eps)
        assert tnb_selection_epsilon(eps, -0.5, tnb_gamma(-0.5, 5.0)) == pytest.approx(1.5 * eps)


@pytest.mark.parametrize("eta", (0.0, 1.0))
def test_capped_selection_meets_its_epsilon_delta_exactly(eta):
    rng = np.random.default_rng(3)
    gamma = tnb_gamma(eta, 3.0)
    for eps in (0.2, 1.0):
        for cap in (2, 4, 12):
            for delta in (0.0, 1e-3):
                e_sel, d_conv = tnb_selection_guarantee(eps, eta, gamma, delta)
                d_total = d_conv + (1 + math.exp(e_sel)) * tnb_tail(cap, eta, gamma)
                for T in random_kernels(rng, 3, 15):
                    q, qp = dp_pair(eps, T)
                    a, ap = best_of_capped_k(q, eta, gamma, cap), best_of_capped_k(qp, eta, gamma, cap)
                    assert exact_delta(a, ap, e_sel) <= d_total + 1e-12
                    assert exact_delta(ap, a, e_sel) <= d_total + 1e-12


def test_selection_epsilon_is_monotone_in_the_trial_epsilon_and_the_delta():
    g = tnb_gamma(0.0, 5.0)
    es = [tnb_selection_epsilon(e, 0.0, g, 1e-6) for e in np.geomspace(1e-3, 5, 40)]
    assert all(a <= b + 1e-15 for a, b in zip(es, es[1:]))
    ds = [tnb_selection_epsilon(3.0, 0.0, g, d) for d in (0.0, 1e-9, 1e-6, 1e-3, 1e-1)]
    assert all(a >= b - 1e-15 for a, b in zip(ds, ds[1:]))


def test_large_trial_epsilons_use_the_rdp_conversion():
    """With ε_t large and many trials likely, a finite order beats the pure bound for a loose δ."""
    g = tnb_gamma(1.0, 1.5)
    pure = tnb_selection_epsilon(4.0, 1.0, g, 0.0)
    conv, used = tnb_selection_guarantee(4.0, 1.0, g, 0.1)
    assert used == 0.1 and conv < pure


@settings(max_examples=30, deadline=None)
@given(
    st.floats(0.01, 5.0),
    st.sampled_from([0.0, 1e-8, 1e-6, 1e-3]),
    st.sampled_from(ETAS),
    st.floats(1.5, 30.0),
)
def test_trial_epsilon_fits_the_budget(total, delta, eta, mean):
    gamma = tnb_gamma(eta, mean)
    cap = tnb_runs_cap(eta, gamma, total, delta / 2) if delta > 0 else None
    eps_t = tnb_trial_epsilon(total, delta, eta, gamma, cap)
    rest = delta - (0.0 if cap is None else (1 + math.exp(total)) * tnb_tail(cap, eta, gamma))
    e_sel, d_conv = tnb_selection_guarantee(eps_t, eta, gamma, rest)
    assert (
        e_sel <= total and d_conv + (0.0 if cap is None else (1 + math.exp(e_sel)) * tnb_tail(cap, eta, gamma)) <= delta
    )
    assert eps_t >= total / (2 + eta) * (1 - 1e-5)  # at least the pure bound's share


def test_trial_epsilon_refuses_a_cap_over_delta():
    with pytest.raises(ValueError, match="alone costs"):
        tnb_trial_epsilon(1.0, 1e-9, 0.0, 0.5, 1)


# ----------------------------------------------------------------------------- the runner
def test_tnb_selection_charges_first_and_returns_the_best():
    rng = np.random.default_rng(4)
    led = PrivacyLedger(1.0, 1e-6)
    seen = []

    def trial(i):
        s = float(rng.random())
        seen.append(s)
        return s, i

    g = tnb_gamma(0.0, 5.0)
    cap = tnb_runs_cap(0.0, g, 1.0, 5e-7)
    best, cand, runs = tnb_selection(trial, 0.5, 0.0, g, rng, delta=5e-7, max_runs=cap, ledger=led)
    assert best == max(seen) and seen[cand] == best and runs == len(seen) <= cap
    row = led.rows[0]
    assert len(led.rows) == 1 and led.is_private and row.epsilon == pytest.approx(1.0) and row.delta <= 1e-6
    assert row.mechanism.startswith("truncated negative binomial")

    led2 = PrivacyLedger(0.5, 0.0)
    with pytest.raises(Exception, match="budget|exceed"):
        tnb_selection(lambda i: pytest.fail("ran a trial before charging"), 0.5, 0.0, g, rng, ledger=led2)


# ----------------------------------------------------------------------------- empirical audits (slow)
def _rr_selection(trial_eps, gamma, cap):
    """The module's runner on a one-bit dataset, each trial a randomized response on the bit at
    ``trial_eps``; the output is the best score (0 or 1)."""
    p_hi = math.exp(trial_eps) / (1 + math.exp(trial_eps))

    def run(bit, rng):
        p1 = p_hi if bit else 1 - p_hi

        def trial(i):
            s = float(rng.random() < p1)
            return s, s

        return tnb_selection(trial, trial_eps, 0.0, gamma, rng, max_runs=cap)[0]

    return run


@pytest.mark.slow
def test_rdp_selection_passes_the_audit_and_the_planted_leaks_are_flagged():
    from dpmodels.audit import audit_mechanism

    eps_t = 1.0
    gamma = tnb_gamma(0.0, 5.0)
    cap = tnb_runs_cap(0.0, gamma, 2.0, 1e-6)
    claim, cap_delta = tnb_selection_epsilon(eps_t, 0.0, gamma), (1 + math.exp(2.0)) * tnb_tail(cap, 0.0, gamma)
    assert claim == pytest.approx(2.0)
    ok = audit_mechanism(_rr_selection(eps_t, gamma, cap), 0, 1, lambda s: s, 20_000, claim, cap_delta, random_state=5)
    assert ok.passed and ok.epsilon_lb > 1.1, str(ok)  # the selection does leak more than one trial ...
    # planted control 1: charging the selection as one trial (ignoring the choice) is refuted
    one = audit_mechanism(_rr_selection(eps_t, gamma, cap), 0, 1, lambda s: s, 20_000, eps_t, cap_delta, random_state=6)
    assert not one.passed, str(one)
    # planted control 2: trials that are 3·ε_t-DP (a wrong sensitivity) under the ε_t claim
    leaky = audit_mechanism(
        _rr_selection(3 * eps_t, gamma, cap), 0, 1, lambda s: s, 20_000, claim, cap_delta, random_state=7
    )
    assert not leaky.passed and leaky.epsilon_lb > 3.0, str(leaky)


@pytest.mark.slow
def test_private_search_with_the_rdp_tuner_passes_the_audit(compas_raw, compas_schema):
    from dpmodels.audit import add_one, audit_estimator
    from dpmodels.model_selection import PrivateSearch
    from dpmodels.tree import PrivaTreeClassifier

    X, y = compas_raw
    X, y = X.iloc[:150].reset_index(drop=True), y.iloc[:150].reset_index(drop=True)
    s = compas_schema
    X2, y2 = add_one(X, y, X.iloc[0], 1 - int(y.iloc[0]))

    def make(seed):
        return PrivateSearch(
            PrivaTreeClassifier(**s.fit_params()),
            [{"max_depth": d} for d in (1, 2, 3)],
            epsilon=1.0,
            delta=1e-6,
            tuner="rdp",
            random_state=seed % 2**32,
        )

    def key(m):
        return (m.best_params_["max_depth"], m.best_estimator_.predict(X.iloc[:20]).tobytes())

    res = audit_estimator(make, X, y, X2, y2, key, 300, 1.0, 1e-6, random_state=8, fit_errors="outcome")
    assert res.passed, str(res)
