"""Tests of the empirical DP auditor: statistics, soundness and power on known mechanisms.

The mechanisms are built from the project's samplers, and their true privacy loss on the chosen
neighbours is computed exactly, so each audit is checked two ways: ε_lb ≤ true loss (soundness,
holds with probability ≥ 1 − α; the seeds are fixed so the tests are deterministic) and
pass / flag against the claimed ε (power, with a margin computed by
``projected_epsilon_lower_bound``).
"""

from __future__ import annotations

import math

import joblib
import numpy as np
import pandas as pd
import pytest
from scipy import integrate, stats

from dpmodels.audit import (
    AuditResult,
    add_one,
    audit_estimator,
    audit_mechanism,
    clopper_pearson,
    epsilon_lower_bound,
    max_certifiable_epsilon,
    projected_epsilon_lower_bound,
)
from dpmodels.privacy.samplers import check_random_state, discrete_laplace
from dpmodels.privacy.selection import permute_and_flip, select_rows

EPS = 1.0


# ----------------------------------------------------------------------------------------------
# Mechanisms under audit
# ----------------------------------------------------------------------------------------------


def noisy_count(scale, weight=1):
    """Release weight·(number of ones) + discrete Laplace(scale); weight is the true sensitivity."""

    def run(data, rng, size=None):
        c = weight * int(np.sum(data))
        if size is None:
            return c + int(discrete_laplace(scale, 1, rng)[0])
        return c + discrete_laplace(scale, size, rng)

    return run


def pf_run(utilities, sensitivity, monotone=False, epsilon=EPS):
    """Permute-and-flip over a fixed utility vector (dataset = the utility vector)."""

    def run(u, rng):
        return permute_and_flip(u, epsilon, sensitivity, rng, monotone=monotone)

    return run


def pf_batch(sensitivity, monotone=False, epsilon=EPS):
    """Vectorised permute-and-flip: select_rows on the utility vector repeated ``size`` times."""

    def run(u, rng, size):
        return select_rows(np.tile(u, (size, 1)), epsilon, sensitivity, rng, monotone=monotone)

    return run


def pf_probabilities(u, scale):
    """Exact P[i] of argmax(u + Exp(scale)) (= permute-and-flip), by numerical integration."""
    u = np.asarray(u, dtype=float)
    out = []
    for i in range(u.size):
        others = np.delete(u, i)

        def dens(x, i=i, others=others):  # Exp(scale) pdf at x − u_i times cdfs at x − u_j
            return math.exp(-(x - u[i]) / scale) / scale * np.prod(-np.expm1(-np.maximum(x - others, 0.0) / scale))

        out.append(integrate.quad(dens, u[i], u[i] + 60 * scale, limit=200)[0])
    p = np.array(out)
    assert abs(p.sum() - 1) < 1e-6
    return p


def pure_loss(p, q):
    """Privacy loss max |ln p_i/q_i| of two discrete output laws (attained by a singleton)."""
    return float(np.max(np.abs(np.log(p) - np.log(q))))


def discrete_laplace_loss(shift, scale):
    """Two discrete-Laplace laws whose centres differ by ``shift``: the loss is shift/scale."""
    return shift / scale


# D has 10 ones, D' = D ∪ {1}: the count has sensitivity 1.
D_COUNT = np.array([1] * 10 + [0] * 5)
D_COUNT_PRIME, _ = add_one(D_COUNT, None, 1)


# ----------------------------------------------------------------------------------------------
# Statistics
# ----------------------------------------------------------------------------------------------


def test_clopper_pearson_known_values():
    assert clopper_pearson(0, 10) == pytest.approx((0.0, 0.308497), abs=1e-6)
    assert clopper_pearson(10, 10) == pytest.approx((0.691503, 1.0), abs=1e-6)
    assert clopper_pearson(5, 10) == pytest.approx((0.187086, 0.812914), abs=1e-6)
    # Against scipy's independent implementation.
    for k, n, a in [(3, 17, 0.05), (40, 100, 0.01), (1, 1000, 0.1), (999, 1000, 0.2)]:
        ci = stats.binomtest(k, n).proportion_ci(confidence_level=1 - a, method="exact")
        assert clopper_pearson(k, n, a) == pytest.approx((ci.low, ci.high), rel=1e-7, abs=1e-12)


def test_clopper_pearson_vectorised():
    low, high = clopper_pearson(np.array([0, 5, 10]), 10, 0.05)
    assert low.shape == (3,) and high.shape == (3,)
    assert low[0] == 0 and high[2] == 1
    assert np.all(low < high)


def test_clopper_pearson_exact_coverage():
    """Exact coverage (sum of binomial pmf), not simulated: ≥ 1 − α overall, ≥ 1 − α/2 per side."""
    n, alpha = 25, 0.1
    k = np.arange(n + 1)
    low, high = clopper_pearson(k, n, alpha)
    for p in np.linspace(0.001, 0.999, 211):
        pmf = stats.binom.pmf(k, n, p)
        assert pmf[(low <= p) & (p <= high)].sum() >= 1 - alpha - 1e-12
        assert pmf[low <= p].sum() >= 1 - alpha / 2 - 1e-12
        assert pmf[p <= high].sum() >= 1 - alpha / 2 - 1e-12


def test_clopper_pearson_rejects_bad_input():
    with pytest.raises(ValueError):
        clopper_pearson(11, 10)
    with pytest.raises(ValueError):
        clopper_pearson(1, 0)
    with pytest.raises(ValueError):
        clopper_pearson(1, 10, alpha=1.5)


def test_epsilon_lower_bound_zero_for_identical_counts():
    for k in [0, 1, 37, 500, 999, 1000]:
        assert epsilon_lower_bound(k, 1000, k, 1000) == 0.0
    assert epsilon_lower_bound(0, 10, 10, 10, alpha=0.5) > 0  # perfect separation, tiny n


def test_epsilon_lower_bound_symmetries():
    args = [(900, 1000, 100, 1000), (30, 200, 5, 300), (12, 50, 40, 60)]
    for k1, n1, k2, n2 in args:
        e = epsilon_lower_bound(k1, n1, k2, n2)
        assert e > 0
        assert epsilon_lower_bound(k2, n2, k1, n1) == pytest.approx(e)  # swap D, D'
        assert epsilon_lower_bound(n1 - k1, n1, n2 - k2, n2) == pytest.approx(e)  # complement


def test_epsilon_lower_bound_monotone():
    n = 1000
    # More separation -> larger bound.
    vals = [epsilon_lower_bound(k, n, 100, n) for k in range(100, n + 1, 50)]
    assert all(b >= a for a, b in zip(vals, vals[1:]))
    assert vals[0] == 0 and vals[-1] > 2
    # More runs at the same proportions -> larger bound, never above the ratio ln(0.6/0.2).
    vals = [epsilon_lower_bound(0.6 * m, m, 0.2 * m, m) for m in (100, 1000, 10_000, 100_000)]
    assert all(b > a for a, b in zip(vals, vals[1:]))
    assert vals[-1] < math.log(3)
    # Larger δ or higher confidence -> smaller bound.
    assert epsilon_lower_bound(600, n, 200, n, delta=0.1) < epsilon_lower_bound(600, n, 200, n)
    assert epsilon_lower_bound(600, n, 200, n, alpha=0.001) < epsilon_lower_bound(600, n, 200, n)
    # Vectorised evaluation agrees with scalar calls.
    ks = np.array([100, 500, 900])
    np.testing.assert_allclose(epsilon_lower_bound(ks, n, 100, n), [epsilon_lower_bound(k, n, 100, n) for k in ks])


def test_epsilon_lower_bound_is_a_valid_lower_bound_exactly():
    """For fixed true p, q with ratio e^ε, P[ε_lb > ε] ≤ α: computed exactly over all counts."""
    n, alpha = 60, 0.1
    q = 0.15
    p = q * math.e  # true loss exactly 1 on this event
    k = np.arange(n + 1)
    lb = epsilon_lower_bound(k[:, None], n, k[None, :], n, alpha=alpha)
    joint = np.outer(stats.binom.pmf(k, n, p), stats.binom.pmf(k, n, q))
    assert joint[lb > 1.0].sum() <= alpha


def test_max_certifiable_epsilon_is_about_log_n():
    for n in (100, 1000, 10_000, 100_000):
        m = max_certifiable_epsilon(n)
        assert m == pytest.approx(math.log(n / math.log(4 / 0.05)), abs=0.05)
        assert m < math.log(n)
        assert epsilon_lower_bound(n, n, 0, n) == m
    assert max_certifiable_epsilon(1000, delta=1e-3) < max_certifiable_epsilon(1000)


# ----------------------------------------------------------------------------------------------
# Soundness and power on known mechanisms
# ----------------------------------------------------------------------------------------------


def test_correct_discrete_laplace_count_passes():
    true_loss = discrete_laplace_loss(1, 1 / EPS)
    res = audit_mechanism(noisy_count(1 / EPS), D_COUNT, D_COUNT_PRIME, lambda c: c, 3000, EPS, random_state=1)
    assert isinstance(res, AuditResult)
    assert res.passed and res.epsilon_lb <= true_loss
    assert res.n_selection == 600 and res.counts["D"][1] == 2400
    assert "PASSED" in str(res)


def test_correct_discrete_laplace_threshold_events_pass_and_are_nearly_tight():
    """Events 'noisy count ≥ c' (the tail events attain the ratio e^ε exactly)."""
    events = {f"count >= {c}": (lambda out, c=c: out >= c) for c in range(5, 17)}
    res = audit_mechanism(
        noisy_count(1 / EPS),
        D_COUNT,
        D_COUNT_PRIME,
        events,
        100_000,
        EPS,
        random_state=2,
        vectorized=True,
    )
    assert res.passed and res.epsilon_lb <= EPS
    # Power on a tight mechanism: the bound gets close to the truth (projection ≈ 0.97).
    assert res.epsilon_lb > 0.9


def test_leaky_noise_scale_is_flagged():
    """Noise calibrated to sensitivity 1/3 (scale 1/(3ε)) on a count of sensitivity 1: loss 3ε."""
    true_loss = discrete_laplace_loss(1, 1 / (3 * EPS))
    q = math.exp(-3 * EPS)  # best event {noisy ≥ 11}: P_D = q/(1+q) ≈ 0.047, P_D' = 1/(1+q)
    margin = projected_epsilon_lower_bound(q / (1 + q), 1 / (1 + q), 2000)
    assert margin > 2.5  # expected ε_lb, far above the claim ε = 1
    res = audit_mechanism(noisy_count(1 / (3 * EPS)), D_COUNT, D_COUNT_PRIME, lambda c: c, 2000, EPS, random_state=3)
    assert not res.passed and res.epsilon_lb > EPS
    assert res.epsilon_lb <= true_loss
    assert "FLAGGED" in str(res)


def test_leaky_sensitivity_is_flagged():
    """Each record contributes 3 to the released sum but the noise assumes sensitivity 1."""
    true_loss = discrete_laplace_loss(3, 1 / EPS)
    res = audit_mechanism(
        noisy_count(1 / EPS, weight=3),
        D_COUNT,
        D_COUNT_PRIME,
        lambda c: c,
        2000,
        EPS,
        random_state=4,
    )
    assert not res.passed and EPS < res.epsilon_lb <= true_loss


def test_subtle_leak_is_flagged_with_enough_runs():
    """Loss 1.5ε: needs ~10⁴ runs (projection at 20 000 runs: ≈ 1.45)."""
    q = math.exp(-1.5 * EPS)
    assert projected_epsilon_lower_bound(q / (1 + q), 1 / (1 + q), 20_000) > 1.4
    res = audit_mechanism(
        noisy_count(1 / (1.5 * EPS)),
        D_COUNT,
        D_COUNT_PRIME,
        lambda c: c,
        20_000,
        EPS,
        random_state=5,
        vectorized=True,
    )
    assert not res.passed and EPS < res.epsilon_lb <= 1.5 * EPS


def test_permute_and_flip_with_shifted_utilities_passes():
    """Every utility moves by exactly Δ (in both directions) between D and D'."""
    delta_u = 2.0
    u = np.array([3.0, 2.0, 0.0, 1.0])
    u_prime = u + delta_u * np.array([1, -1, 1, -1])
    true_loss = pure_loss(pf_probabilities(u, 2 * delta_u / EPS), pf_probabilities(u_prime, 2 * delta_u / EPS))
    assert true_loss <= EPS + 1e-9
    res = audit_mechanism(pf_run(u, delta_u), u, u_prime, lambda i: i, 2000, EPS, random_state=6)
    assert res.passed and res.epsilon_lb <= true_loss


def test_permute_and_flip_tight_pair_passes_and_monotone_misuse_is_flagged():
    """u = [0, 0] vs [Δ, −Δ]: P[1] = 1/2 vs e^{−ε}/2, loss exactly ε. Treating these
    non-monotone utilities as monotone halves the noise: loss 2ε (P[1|D'] = e^{−2ε}/2)."""
    u, u_prime = np.zeros(2), np.array([1.0, -1.0])
    p = pf_probabilities(u, 2 / EPS)
    p_prime = pf_probabilities(u_prime, 2 / EPS)
    assert pure_loss(p, p_prime) == pytest.approx(EPS, abs=1e-6)

    ok = audit_mechanism(pf_batch(1.0), u, u_prime, lambda i: i, 50_000, EPS, random_state=7, vectorized=True)
    assert ok.passed and 0.85 < ok.epsilon_lb <= EPS

    p_leak = pf_probabilities(u_prime, 1 / EPS)
    assert pure_loss(p, p_leak) == pytest.approx(2 * EPS, abs=1e-6)
    assert projected_epsilon_lower_bound(0.5, p_leak[1], 2000) > 1.6
    leak = audit_mechanism(pf_run(u, 1.0, monotone=True), u, u_prime, lambda i: i, 2000, EPS, random_state=8)
    assert not leak.passed and EPS < leak.epsilon_lb <= 2 * EPS


def test_permute_and_flip_small_leak_is_flagged():
    """Loss 1.2ε (P[1] = 1/2 vs e^{−1.2ε}/2). Projection at 20 000 runs ≈ 1.14; the spread of
    ε_lb across seeds is ≈ 0.017 (measured), so the flag is reliable; at 2 000 runs it is a coin
    flip (projection 1.01)."""
    u, u_prime = np.zeros(2), np.array([1.0, -1.0])
    p_leak = pf_probabilities(u_prime, 2 / (1.2 * EPS))
    assert pure_loss(pf_probabilities(u, 1.0), p_leak) == pytest.approx(1.2 * EPS, abs=1e-6)
    assert projected_epsilon_lower_bound(0.5, p_leak[1], 20_000) > 1.12
    res = audit_mechanism(
        pf_batch(1.0, epsilon=1.2 * EPS), u, u_prime, lambda i: i, 20_000, EPS, random_state=20, vectorized=True
    )
    assert not res.passed and EPS < res.epsilon_lb <= 1.2 * EPS


def test_data_independent_mechanism_certifies_nothing():
    """Many candidate events, identical laws: the selection split keeps the bound at 0."""

    def run(data, rng):
        return int(rng.integers(0, 50))

    res = audit_mechanism(run, None, None, lambda o: o, 3000, EPS, random_state=9)
    assert res.epsilon_lb == 0.0 and res.passed
    assert res.n_candidates > 50


def test_non_private_mechanism_reaches_the_power_limit():
    res = audit_mechanism(
        lambda d, rng: int(np.sum(d)), D_COUNT, D_COUNT_PRIME, lambda c: c, 1000, EPS, random_state=10
    )
    assert res.epsilon_lb == pytest.approx(max_certifiable_epsilon(800))
    assert not res.passed


# ----------------------------------------------------------------------------------------------
# Estimators
# ----------------------------------------------------------------------------------------------


class NoisyMajority:
    """Toy private learner: the majority label by permute-and-flip on the class counts.

    Adding a record raises one count by 1 (monotone, Δ = 1), so scale Δ/ε is ε-DP. ``leak``
    multiplies the ε actually spent (a bug the audit should see).
    """

    def __init__(self, epsilon=EPS, random_state=None, leak=1.0):
        self.epsilon = epsilon
        self.random_state = random_state
        self.leak = leak

    def fit(self, X, y):
        counts = np.bincount(np.asarray(y), minlength=2)
        rng = check_random_state(self.random_state)
        self.label_ = permute_and_flip(counts, self.epsilon * self.leak, 1, rng, monotone=True)
        return self


def _majority_data():
    X = pd.DataFrame({"a": np.arange(10.0), "b": np.arange(10) % 3})
    y = pd.Series([0] * 5 + [1] * 5, name="label")
    X2, y2 = add_one(X, y, {"a": 10.0, "b": 1}, 1)
    return X, y, X2, y2


def test_audit_estimator_private_learner_passes():
    X, y, X2, y2 = _majority_data()
    res = audit_estimator(
        lambda seed: NoisyMajority(random_state=seed),
        X,
        y,
        X2,
        y2,
        lambda m: m.label_,
        1500,
        EPS,
        random_state=11,
    )
    assert res.passed and res.epsilon_lb <= EPS


def test_audit_estimator_leaky_learner_is_flagged():
    X, y, X2, y2 = _majority_data()
    res = audit_estimator(
        lambda seed: NoisyMajority(random_state=seed, leak=3.0),
        X,
        y,
        X2,
        y2,
        lambda m: m.label_,
        1500,
        EPS,
        random_state=12,
    )
    assert not res.passed and EPS < res.epsilon_lb <= 3 * EPS


def test_audit_estimator_flags_a_non_private_sklearn_tree():
    """A depth-1 tree whose root split flips when one record is added."""
    from sklearn.tree import DecisionTreeClassifier

    X = np.array([[0, 0], [0, 0], [1, 1], [1, 1]])  # f0 == f1: tie, root chosen at random
    y = np.array([0, 0, 1, 1])
    X2, y2 = add_one(X, y, [1, 0], 0)  # now f1 separates perfectly, f0 does not
    res = audit_estimator(
        lambda seed: DecisionTreeClassifier(max_depth=1, random_state=seed % 2**32),
        X,
        y,
        X2,
        y2,
        lambda t: int(t.tree_.feature[0]),
        120,
        EPS,
        random_state=13,
    )
    assert not res.passed and res.epsilon_lb > 1.5


class RaisesOnOneClass(NoisyMajority):
    """A planted content-dependent error: refuses a training set holding one class."""

    def fit(self, X, y):
        if len(np.unique(y)) < 2:
            raise ValueError("needs two classes")
        return super().fit(X, y)


def test_whether_fit_raises_is_an_audited_outcome():
    X = pd.DataFrame({"a": np.arange(10.0)})
    y = pd.Series(np.zeros(10, int))
    X2, y2 = add_one(X, y, {"a": 3.0}, 1)
    res = audit_estimator(
        lambda seed: RaisesOnOneClass(random_state=seed),
        X,
        y,
        X2,
        y2,
        lambda m: m.label_,
        200,
        EPS,
        random_state=15,
        fit_errors="outcome",
    )
    assert not res.passed and "raised" in res.event and res.epsilon_lb > 2.5
    ok = audit_estimator(
        lambda seed: NoisyMajority(random_state=seed),
        X,
        y,
        X2,
        y2,
        {"label 1": lambda m: m.label_ == 1},
        400,
        EPS,
        random_state=16,
        fit_errors="outcome",
    )
    assert ok.passed
    with pytest.raises(ValueError, match="needs two classes"):  # default: errors propagate
        audit_estimator(
            lambda seed: RaisesOnOneClass(random_state=seed), X, y, X2, y2, lambda m: m.label_, 20, EPS, random_state=15
        )
    with pytest.raises(ValueError, match="fit_errors"):
        audit_estimator(lambda s: NoisyMajority(), X, y, X2, y2, lambda m: 0, 20, EPS, fit_errors="x")


# ----------------------------------------------------------------------------------------------
# API behaviour
# ----------------------------------------------------------------------------------------------


def test_reproducible_and_independent_of_n_jobs():
    args = (noisy_count(1 / EPS), D_COUNT, D_COUNT_PRIME, lambda c: c, 400, EPS)
    a = audit_mechanism(*args, random_state=14)
    b = audit_mechanism(*args, random_state=14)
    with joblib.parallel_config(backend="threading"):  # processes: see the slow test below
        c = audit_mechanism(*args, random_state=14, n_jobs=2)
    assert a.counts == b.counts == c.counts and a.event == b.event == c.event
    assert audit_mechanism(*args, random_state=np.random.SeedSequence(14)).counts == a.counts
    audit_mechanism(*args)  # OS entropy
    audit_mechanism(*args, random_state=np.random.default_rng(0))


def test_single_event_uses_all_runs_and_bonferroni_mode():
    ev = {"count >= 11": lambda c: c >= 11}
    res = audit_mechanism(noisy_count(1 / EPS), D_COUNT, D_COUNT_PRIME, ev, 500, EPS, random_state=15)
    assert res.n_selection == 0 and res.counts["D"][1] == 500 and res.event == "count >= 11"

    events = {f">= {c}": (lambda out, c=c: out >= c) for c in (9, 10, 11, 12)}
    res = audit_mechanism(
        noisy_count(1 / (3 * EPS)), D_COUNT, D_COUNT_PRIME, events, 1000, EPS, selection_fraction=0.0, random_state=16
    )
    assert res.n_selection == 0 and res.n_candidates == 4 and "Bonferroni" in res.event
    assert not res.passed
    k1, n1 = res.counts["D"]
    k2, n2 = res.counts["D_prime"]
    assert res.epsilon_lb == pytest.approx(epsilon_lower_bound(k1, n1, k2, n2, alpha=0.05 / 4))


def test_input_validation():
    run = noisy_count(1.0)
    with pytest.raises(ValueError):
        audit_mechanism(run, D_COUNT, D_COUNT_PRIME, lambda c: c, 100, EPS, selection_fraction=0)
    with pytest.raises(ValueError):
        audit_mechanism(run, D_COUNT, D_COUNT_PRIME, lambda c: c, 1, EPS)
    with pytest.raises(TypeError):
        audit_mechanism(run, D_COUNT, D_COUNT_PRIME, 3, 100, EPS)
    with pytest.raises(ValueError):
        audit_mechanism(run, D_COUNT, D_COUNT_PRIME, {}, 100, EPS)
    with pytest.raises(ValueError, match="outputs"):
        audit_mechanism(
            lambda d, rng, size: [0], D_COUNT, D_COUNT_PRIME, lambda c: c, 100, EPS, vectorized=True, random_state=0
        )


def test_add_one_numpy():
    X = np.arange(6).reshape(3, 2)
    y = np.array([0, 1, 0])
    X2, y2 = add_one(X, y, [7, 8], 1)
    assert X2.shape == (4, 2) and np.array_equal(X2[-1], [7, 8]) and y2.tolist() == [0, 1, 0, 1]
    assert X.shape == (3, 2) and y.size == 3  # inputs untouched
    x1, none = add_one(np.array([1, 2]), None, 3)
    assert x1.tolist() == [1, 2, 3] and none is None
    with pytest.raises(ValueError):
        add_one(X, y, [1, 2, 3], 0)
    s2, _ = add_one(np.array(["a", "b"]), None, "long-value")
    assert s2[-1] == "long-value"


def test_add_one_pandas():
    X = pd.DataFrame({"a": [1.0, 2.0], "b": ["x", "y"]})
    y = pd.Series([0, 1], name="t")
    X2, y2 = add_one(X, y, {"b": "z", "a": 3.0}, 1)
    assert list(X2.index) == [0, 1, 2] and X2.loc[2, "a"] == 3.0 and X2.loc[2, "b"] == "z"
    assert X2["a"].dtype == X["a"].dtype and list(X2.columns) == ["a", "b"]
    assert list(y2) == [0, 1, 1] and y2.name == "t" and y2.dtype == y.dtype
    assert list(y2.index) == list(X2.index) and len(X) == 2

    Xi = pd.DataFrame({"a": [1, 2]}, index=["r1", "r2"])
    yi = pd.Series([0, 1], index=["r1", "r2"])
    X3, y3 = add_one(Xi, yi, pd.Series({"a": 5}, name="new"), 0)
    assert list(X3.index) == ["r1", "r2", "new"] and list(y3.index) == list(X3.index)
    X4, _ = add_one(X, None, [4.0, "w"])
    assert X4.iloc[-1].tolist() == [4.0, "w"]
    with pytest.raises(ValueError):
        add_one(X, y, {"a": 1.0}, 0)


# ----------------------------------------------------------------------------------------------
# Long statistical tests
# ----------------------------------------------------------------------------------------------


@pytest.mark.slow
def test_false_positive_rate_on_tight_mechanisms():
    """200 audits of mechanisms whose loss is exactly ε: flags must be rare (≤ α expected)."""
    u, u_prime = np.zeros(2), np.array([1.0, -1.0])
    flags = 0
    lbs = []
    for s in range(100):
        r1 = audit_mechanism(
            pf_batch(1.0), u, u_prime, lambda i: i, 20_000, EPS, random_state=1000 + s, vectorized=True
        )
        r2 = audit_mechanism(
            noisy_count(1 / EPS),
            D_COUNT,
            D_COUNT_PRIME,
            lambda c: c,
            20_000,
            EPS,
            random_state=2000 + s,
            vectorized=True,
        )
        flags += (not r1.passed) + (not r2.passed)
        lbs += [r1.epsilon_lb, r2.epsilon_lb]
    assert flags <= stats.binom.ppf(0.999, 200, 0.05)
    assert np.median(lbs) > 0.85  # and the audit is close to tight


@pytest.mark.slow
def test_small_leak_flagged_with_many_runs():
    """Loss 1.1ε against a claim ε: projection ≈ 1.082 at 2·10⁵ runs per dataset, with a standard
    deviation of ε_lb ≈ √((1−p)/(n p) + (1−q)/(n q)) ≈ 0.006: a 13-σ margin."""
    u, u_prime = np.zeros(2), np.array([1.0, -1.0])
    p_leak = pf_probabilities(u_prime, 2 / (1.1 * EPS))
    assert projected_epsilon_lower_bound(0.5, p_leak[1], 200_000) > 1.08
    res = audit_mechanism(
        pf_batch(1.0, epsilon=1.1 * EPS), u, u_prime, lambda i: i, 200_000, EPS, random_state=17, vectorized=True
    )
    assert not res.passed and EPS < res.epsilon_lb <= 1.1 * EPS


@pytest.mark.slow
def test_process_parallelism_matches_serial():
    """joblib's default (loky, processes) backend: lambdas are shipped with cloudpickle."""
    args = (noisy_count(1 / EPS), D_COUNT, D_COUNT_PRIME, lambda c: c, 400, EPS)
    a = audit_mechanism(*args, random_state=18)
    b = audit_mechanism(*args, random_state=18, n_jobs=2)
    assert a.counts == b.counts and a.event == b.event
    X, y, X2, y2 = _majority_data()
    kw = dict(random_state=19, selection_fraction=0.25)
    make = lambda seed: NoisyMajority(random_state=seed)  # noqa: E731
    r1 = audit_estimator(make, X, y, X2, y2, lambda m: m.label_, 300, EPS, **kw)
    r2 = audit_estimator(make, X, y, X2, y2, lambda m: m.label_, 300, EPS, n_jobs=2, **kw)
    assert r1.counts == r2.counts
