"""JointExp private quantiles (dpmodels.privacy.quantiles)."""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from dpmodels.privacy import BudgetExceededError, PrivacyLedger, jointexp_quantiles
from dpmodels.privacy import quantiles as quantiles_mod
from dpmodels.privacy.quantiles import _block_logcumsumexp, _sample_from_histogram, _transition

DECILES = np.arange(1, 10) / 10


@settings(max_examples=40, deadline=None)
@given(
    n=st.integers(0, 300),
    lo=st.floats(-1e6, 1e6),
    width=st.floats(1e-3, 1e6),
    eps=st.floats(1e-4, 50),
    m=st.integers(1, 12),
    seed=st.integers(0, 2**32 - 1),
)
def test_sorted_and_within_bounds(n, lo, width, eps, m, seed):
    rng = np.random.default_rng(seed)
    hi = lo + width
    x = rng.normal(lo + width / 2, width, n)  # many values outside the bounds: clipped
    q = np.arange(1, m + 1) / (m + 1)
    out = jointexp_quantiles(x, q, eps, (lo, hi), seed, grid_size=256)
    assert out.shape == (m,)
    assert np.all(np.diff(out) >= 0)
    assert np.all(out >= lo) and np.all(out <= hi)


def test_large_epsilon_approximates_true_quantiles():
    rng = np.random.default_rng(1)
    x = rng.normal(size=20000)
    out = jointexp_quantiles(x, DECILES, 100.0, (-5, 5), 3)
    assert np.max(np.abs(out - np.quantile(x, DECILES))) < 0.02


def test_tiny_epsilon_is_roughly_uniform_over_the_bounds():
    rng = np.random.default_rng(2)
    x = rng.normal(0.9, 0.01, 500)  # data concentrated near the top of the bounds
    draws = np.array([jointexp_quantiles(x, [0.5], 1e-6, (0, 1), rng)[0] for _ in range(600)])
    assert stats.kstest(draws, "uniform").pvalue > 1e-3


def test_determinism_under_a_seed():
    x = np.random.default_rng(0).exponential(size=1000)
    a = jointexp_quantiles(x, DECILES, 1.0, (0, 10), 42)
    b = jointexp_quantiles(x, DECILES, 1.0, (0, 10), 42)
    c = jointexp_quantiles(x, DECILES, 1.0, (0, 10), 43)
    assert np.array_equal(a, b)
    assert not np.array_equal(a, c)


def test_transition_matches_bruteforce():
    rng = np.random.default_rng(5)
    for _ in range(100):
        G = int(rng.integers(1, 40))
        h = rng.integers(0, 5, G) * (rng.random(G) < 0.6)
        s = np.concatenate(([0.0], np.cumsum(h[:-1], dtype=float)))
        a = rng.normal(0, 3, G)
        t, lam = rng.uniform(0.1, 10), rng.uniform(0.01, 50)
        M = a[None, :] - lam * np.abs(s[:, None] - t - s[None, :])
        M[np.triu_indices(G, 1)] = -np.inf
        ref = np.logaddexp.reduce(M, axis=1)
        np.testing.assert_allclose(_transition(a, s, t, lam), ref, atol=1e-8)


def _blocks_by_loop(x, starts, ends, block_of):
    """Reference: np.logaddexp.accumulate on every block separately (forward and reversed)."""
    pre, suf = np.empty_like(x), np.empty_like(x)
    for b0, b1 in zip(starts, ends):
        pre[b0:b1] = np.logaddexp.accumulate(x[b0:b1])
        suf[b0:b1] = np.logaddexp.accumulate(x[b0:b1][::-1])[::-1]
    return pre, suf


def test_block_logcumsumexp_is_bit_identical_to_a_loop_over_blocks():
    rng = np.random.default_rng(11)
    for trial in range(300):
        G = int(rng.integers(1, 300))
        cut = np.sort(rng.choice(np.arange(1, G), size=min(G - 1, int(rng.integers(0, 12))), replace=False)) \
            if G > 1 else np.zeros(0, dtype=int)
        if trial % 7 == 0 and G > 2:  # one long block and many singletons: the loop fallback
            cut = np.arange(G // 2, G)
        starts = np.concatenate(([0], cut)).astype(np.int64)
        ends = np.concatenate((cut, [G])).astype(np.int64)
        block_of = np.repeat(np.arange(starts.size), ends - starts)
        x = rng.normal(0, 30, G)
        x[rng.random(G) < 0.1] = -np.inf
        pre, suf = _block_logcumsumexp(x, starts, ends, block_of)
        ref_pre, ref_suf = _blocks_by_loop(x, starts, ends, block_of)
        assert np.array_equal(pre, ref_pre) and np.array_equal(suf, ref_suf)


def test_quantiles_identical_to_the_per_block_reference(monkeypatch):
    """Same rng state, same histogram: the vectorised DP releases exactly what the loop did."""
    rng = np.random.default_rng(12)
    cases = []
    for _ in range(40):
        n = int(rng.choice([0, 3, 200, 10**5]))
        G = int(rng.choice([1, 16, 2048]))
        h = np.bincount(rng.integers(0, G, n) if rng.random() < 0.5 else
                        np.minimum((rng.beta(2, 5, n) * G).astype(int), G - 1), minlength=G)
        m = int(rng.integers(1, 15))
        q = np.sort(rng.choice(np.arange(1, 100), m, replace=False)) / 100
        cases.append((h, q, float(10 ** rng.uniform(-3, 1.5)), int(rng.integers(2**31))))
    fast = [_sample_from_histogram(h, q, e, -1.0, 2.0, np.random.default_rng(s)) for h, q, e, s in cases]
    monkeypatch.setattr(quantiles_mod, "_block_logcumsumexp", _blocks_by_loop)
    for (h, q, e, s), out in zip(cases, fast):
        assert np.array_equal(out, _sample_from_histogram(h, q, e, -1.0, 2.0, np.random.default_rng(s)))


def test_sampling_distribution_matches_the_exponential_mechanism():
    """Cell frequencies of (o_1, o_2) agree with exp(ε u / 4) · Π w over sorted cell pairs."""
    G, eps, q = 5, 2.0, np.array([1 / 3, 2 / 3])
    h = np.array([3, 0, 2, 4, 1])
    n = h.sum()
    s = np.concatenate(([0.0], np.cumsum(h[:-1])))
    gaps = np.diff(np.r_[0, q, 1]) * n
    pairs = [(i, j) for i, j in itertools.product(range(G), range(G)) if i <= j]
    u = np.array([-(abs(s[i] - gaps[0]) + abs(s[j] - s[i] - gaps[1]) + abs(n - s[j] - gaps[2])) for i, j in pairs])
    p = np.exp(eps * u / 4)
    p /= p.sum()
    rng = np.random.default_rng(9)
    N = 2500
    counts = dict.fromkeys(pairs, 0)
    for _ in range(N):
        o = _sample_from_histogram(h, q, eps, 0.0, 1.0, rng)
        cells = tuple(np.minimum((o * G).astype(int), G - 1))
        counts[cells] += 1
    obs = np.array([counts[pq] for pq in pairs])
    keep = p * N >= 5
    chi2 = stats.chisquare(obs[keep], p[keep] / p[keep].sum() * obs[keep].sum())
    assert chi2.pvalue > 1e-3


def test_ledger_row_and_budget_checked_before_release():
    led = PrivacyLedger(1.0)
    jointexp_quantiles([1, 2, 3], [0.5], 0.6, (0, 4), 0, ledger=led, what="median")
    assert led.rows[-1].sensitivity == 2.0 and led.rows[-1].epsilon == 0.6
    with pytest.raises(BudgetExceededError):
        jointexp_quantiles([1, 2, 3], [0.5], 0.6, (0, 4), 0, ledger=led)
    assert len(led.rows) == 1


@pytest.mark.parametrize(
    "kw",
    [
        dict(quantiles=[0.5, 0.5]),
        dict(quantiles=[0.0, 0.5]),
        dict(quantiles=[1.2]),
        dict(bounds=(1, 0)),
        dict(bounds=(0, np.inf)),
        dict(bounds=5),
        dict(epsilon=0),
        dict(epsilon=-1),
        dict(x=[1.0, np.nan]),
    ],
)
def test_bad_input(kw):
    args = dict(x=[1.0, 2.0], quantiles=[0.5], epsilon=1.0, bounds=(0, 3))
    args.update(kw)
    with pytest.raises((ValueError, TypeError)):
        jointexp_quantiles(args["x"], args["quantiles"], args["epsilon"], args["bounds"], 0)


def test_degenerate_bounds_and_empty_data():
    assert np.all(jointexp_quantiles([1, 2], [0.25, 0.75], 1.0, (2, 2), 0) == 2)
    out = jointexp_quantiles([], [0.5], 1.0, (0, 1), 0)
    assert 0 <= out[0] <= 1
