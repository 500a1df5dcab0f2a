"""JointExp private quantiles (dpmodels.privacy.quantiles)."""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from dpmodels.privacy import BudgetExceededError, PrivacyLedger, jointexp_quantiles
from dpmodels.privacy import quantiles as quantiles_mod
from dpmodels.privacy.quantiles import (
    _block_logcumsumexp,
    _sample_from_histogram,
    _sample_from_histograms,
    _transition,
)

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
        cut = (
            np.sort(rng.choice(np.arange(1, G), size=min(G - 1, int(rng.integers(0, 12))), replace=False))
            if G > 1
            else np.zeros(0, dtype=int)
        )
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
        h = np.bincount(
            rng.integers(0, G, n) if rng.random() < 0.5 else np.minimum((rng.beta(2, 5, n) * G).astype(int), G - 1),
            minlength=G,
        )
        m = int(rng.integers(1, 15))
        q = np.sort(rng.choice(np.arange(1, 100), m, replace=False)) / 100
        cases.append((h, q, float(10 ** rng.uniform(-3, 1.5)), int(rng.integers(2**31))))
    fast = [_sample_from_histogram(h, q, e, -1.0, 2.0, np.random.default_rng(s)) for h, q, e, s in cases]
    monkeypatch.setattr(quantiles_mod, "_block_logcumsumexp", _blocks_by_loop)
    for (h, q, e, s), out in zip(cases, fast):
        assert np.array_equal(out, _sample_from_histogram(h, q, e, -1.0, 2.0, np.random.default_rng(s)))


def _exact_law(h, q, eps):
    """Brute force: every nondecreasing cell tuple and its probability ∝ exp(ε u / 4)."""
    G, n = h.size, h.sum()
    s = np.concatenate(([0.0], np.cumsum(h[:-1])))
    gaps = np.diff(np.r_[0, q, 1]) * n
    tuples = list(itertools.combinations_with_replacement(range(G), q.size))
    u = np.array(
        [
            -sum(abs((s[k[j]] if j < len(k) else n) - (s[k[j - 1]] if j else 0) - gaps[j]) for j in range(len(k) + 1))
            for k in tuples
        ]
    )
    p = np.exp(eps * u / 4 - np.max(eps * u / 4))
    return tuples, p / p.sum()


def _cell_tuples(out, G):
    return [tuple(r) for r in np.minimum((out * G).astype(int), G - 1)]


def _chi2_pvalue(tuples, p, drawn):
    index = {k: i for i, k in enumerate(tuples)}
    obs = np.bincount([index[k] for k in drawn], minlength=len(tuples))
    keep = p * len(drawn) >= 5
    return stats.chisquare(obs[keep], p[keep] / p[keep].sum() * obs[keep].sum()).pvalue


H_LAW = np.array([3, 0, 0, 2, 0, 4, 1, 0])  # empty cells and runs of them
Q_LAW = np.array([0.25, 0.5, 0.8])


@pytest.mark.parametrize("eps", [0.05, 0.3, 3.0])  # runs (small ε·n), cells in linear space
@pytest.mark.parametrize("path", ["auto", "cells", "log"])
def test_sampling_law_equals_the_exponential_mechanism(monkeypatch, eps, path):
    """40,000 draws of one batch (every row the same histogram) against the exact law of the
    exponential mechanism over all 120 sorted cell triples, for every path of the sampler."""
    if path in ("cells", "log"):
        monkeypatch.setattr(quantiles_mod, "_runs_fit", lambda G, m: False)
    if path == "log":
        monkeypatch.setattr(quantiles_mod, "_LINEAR_LIMIT", -1.0)
        monkeypatch.setattr(quantiles_mod, "_DIRECT_LIMIT", -1.0)
    N, G = 40000, H_LAW.size
    tuples, p = _exact_law(H_LAW, Q_LAW, eps)
    out = _sample_from_histograms(np.tile(H_LAW, (N, 1)), Q_LAW, eps, np.zeros(N), np.ones(N), np.random.default_rng(7))
    assert _chi2_pvalue(tuples, p, _cell_tuples(out, G)) > 1e-4


def test_batched_rows_each_follow_their_own_law():
    """One batch mixing histograms, budgets, bounds and an empty feature: each row's draws follow
    that row's law (the batch couples nothing)."""
    h2 = np.array([0, 5, 0, 0, 1, 0, 0, 2])
    rows = [(H_LAW, 0.05, 0.0, 1.0), (h2, 2.0, -1.0, 3.0), (np.zeros(8, dtype=int), 0.5, 0.0, 1.0)]
    N = 15000
    H = np.concatenate([np.tile(h, (N, 1)) for h, *_ in rows])
    eps = np.repeat([e for _, e, _, _ in rows], N)
    lo = np.repeat([a for _, _, a, _ in rows], N)
    hi = np.repeat([b for _, _, _, b in rows], N)
    out = _sample_from_histograms(H, Q_LAW, eps, lo, hi, np.random.default_rng(3))
    for i, (h, e, a, b) in enumerate(rows):
        o = out[i * N : (i + 1) * N]
        assert np.all((o >= a) & (o <= b)) and np.all(np.diff(o, axis=1) >= 0)
        tuples, p = _exact_law(h, Q_LAW, e)
        assert _chi2_pvalue(tuples, p, _cell_tuples((o - a) / (b - a), 8)) > 1e-4


@pytest.mark.parametrize("mode", ["direct", "blocks", "log"])
def test_kernel_matches_bruteforce(mode):
    rng = np.random.default_rng(5)
    for _ in range(60):
        F, G = int(rng.integers(1, 4)), int(rng.integers(1, 40))
        h = rng.integers(0, 5, (F, G)) * (rng.random((F, G)) < 0.6)
        s = np.zeros((F, G))
        np.cumsum(h[:, :-1], axis=1, out=s[:, 1:])
        lam = rng.uniform(0.001, 0.05 if mode == "direct" else 3.0, (F, 1))
        t = rng.uniform(0.1, 10, (F, 1))
        a = rng.random((F, G)) + 0.01
        M = a[:, None, :] * np.exp(-lam[:, :, None] * np.abs(s[:, :, None] - t[:, :, None] - s[:, None, :]))
        M[:, np.triu_indices(G, 1)[0], np.triu_indices(G, 1)[1]] = 0.0
        ref = M.sum(axis=2)
        k = quantiles_mod._Kernel(s, lam, mode)
        got = k.step(np.log(a) if mode == "log" else a, t)
        got = np.exp(got) if mode == "log" else got
        np.testing.assert_allclose(got, ref, rtol=1e-11)
        np.testing.assert_array_equal(got, np.exp(k.step(np.log(a), t)) if mode == "log" else k.step(a, t))


@settings(max_examples=60, deadline=None)
@given(L=st.integers(1, 6), c=st.integers(1, 4), seed=st.integers(0, 2**32 - 1))
def test_multisets_in_a_run_are_uniform(L, c, seed):
    """Cells inside one run: a uniform nondecreasing c-tuple of the L cells (every one of the
    C(L + c - 1, c) multisets equally likely)."""
    N = 4000
    cells = quantiles_mod._multisets_in_runs(
        np.full((N, 1), 10), np.full((N, 1), L), np.full((N, 1), c), c, np.random.default_rng(seed)
    )
    cells = np.sort(cells, axis=1) - 10
    assert cells.min() >= 0 and cells.max() < L
    tuples = list(itertools.combinations_with_replacement(range(L), c))
    p = np.full(len(tuples), 1.0 / len(tuples))
    if len(tuples) > 1:  # else the one multiset, checked by the range above
        assert _chi2_pvalue(tuples, p, [tuple(r) for r in cells]) > 1e-5


@pytest.mark.parametrize("N", [2000, pytest.param(6000, marks=pytest.mark.slow)])
def test_runs_and_cells_paths_agree_on_a_real_histogram(monkeypatch, N):
    """Same histogram (2048 cells, ~500 nonempty), small ε·n: the run sampler and the cell
    sampler give the same marginal law of every quantile (two-sample KS on N draws each; the
    default suite's 2,000 resolve a gap of ~0.07 between the two CDFs, the slow suite's 6,000
    one of ~0.04; the cell sampler takes ~1.4 CPU-s per 1,000 draws)."""
    x = np.random.default_rng(0).normal(size=1000)
    h = np.histogram(np.clip(x, -6, 6), bins=2048, range=(-6, 6))[0]
    H = np.tile(h, (N, 1))
    a = _sample_from_histograms(H, DECILES, 0.004, np.full(N, -6.0), np.full(N, 6.0), np.random.default_rng(1))
    monkeypatch.setattr(quantiles_mod, "_runs_fit", lambda G, m: False)
    b = _sample_from_histograms(H, DECILES, 0.004, np.full(N, -6.0), np.full(N, 6.0), np.random.default_rng(2))
    for j in range(DECILES.size):
        assert stats.ks_2samp(a[:, j], b[:, j]).pvalue > 1e-4


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


def test_runs_backward_draw_is_the_inverse_cdf_of_the_direct_weights():
    """The backward step of the run sampler reads the forward step's prefix sums: the run R' <
    Rcur drawn at a uniform u is the one the inverse CDF of the direct weights B_j(R')
    exp(-lam |s_Rcur - s_R' - t|) gives (brute-force oracle; the same law, and the same draw
    except when u·total falls within rounding of a cumulative weight)."""
    rng = np.random.default_rng(11)
    for _ in range(200):
        F, R, m = int(rng.integers(1, 5)), int(rng.integers(2, 30)), 3
        sr = np.cumsum(rng.integers(1, 6, size=(F, R)), axis=1).astype(float) - 1.0
        lam = rng.uniform(0.001, 0.05, size=(F, 1))
        t = rng.uniform(0.5, 8.0, size=(F, 1))
        Bj = rng.random((F, R)) + 0.05
        ep, em = np.exp(lam * sr), np.exp(-lam * sr)
        CP = np.zeros((m, F, R + 1))
        CM = np.zeros((m, F, R + 1))
        CP[1, :, 1:] = np.cumsum(Bj * ep, axis=1)
        CM[1, :, 1:] = np.cumsum(Bj * em, axis=1)
        P1 = np.zeros((m, F, R), dtype=np.int64)
        P1[1] = [np.searchsorted(sr[f], np.floor(sr[f] - t[f]), side="right") for f in range(F)]
        ELT = np.ones((m, F))
        ELT[1] = np.exp(lam * t)[:, 0]
        Rcur = rng.integers(1, R, size=F)
        u = rng.random(F)
        slot = np.array([0, 1, 0])
        j = np.ones(F, dtype=np.int64)
        got = quantiles_mod._runs_before(CP, CM, P1, slot, ELT, em, ep, j, Rcur, np.arange(R), u)
        # the sampler's form: both prefix sums as the parts of one complex table
        both = quantiles_mod._runs_before(CP + 1j * CM, None, P1, slot, ELT, em, ep, j, Rcur, np.arange(R), u)
        assert np.array_equal(got, both)
        for f in range(F):
            w = Bj[f, : Rcur[f]] * np.exp(-lam[f] * np.abs(sr[f, Rcur[f]] - sr[f, : Rcur[f]] - t[f]))
            c = np.cumsum(w)
            assert 0 <= got[f] < Rcur[f]
            # got is the first run whose cumulative weight exceeds u·total, up to rounding
            assert c[got[f]] >= u[f] * c[-1] * (1 - 1e-12)
            assert got[f] == 0 or c[got[f] - 1] <= u[f] * c[-1] * (1 + 1e-12)


def test_multisets_from_the_log_factorial_table_equal_the_direct_gammaln(monkeypatch):
    """The table of log k! gives the very draws of the direct gammaln formula (same values at the
    same integer points), for long runs and many outputs in one run."""
    rng = np.random.default_rng(4)
    F, ng, m = 300, 3, 9
    start = rng.integers(0, 50, (F, ng))
    length = rng.integers(1, 3000, (F, ng))
    count = rng.multinomial(m, [0.5, 0.3, 0.2], size=F)
    got = quantiles_mod._multisets_in_runs(start, length, count, m, np.random.default_rng(9))
    monkeypatch.setattr(quantiles_mod, "_LGAMMA_MAX", 0)  # no table: gammaln at every step
    ref = quantiles_mod._multisets_in_runs(start, length, count, m, np.random.default_rng(9))
    assert np.array_equal(got, ref)


def test_run_sampler_reuses_its_arena_without_carrying_values():
    """The run sampler's scratch memory is kept between calls (per thread): calls of other sizes in
    between, or in other threads at the same time, change no draw, and a returned array is never
    overwritten by a later call."""
    from concurrent.futures import ThreadPoolExecutor

    rng = np.random.default_rng(2)
    H = np.stack([np.histogram(rng.normal(size=700), bins=512, range=(-6, 6))[0] for _ in range(6)])
    lo, hi = np.full(6, -6.0), np.full(6, 6.0)

    def draw(h, seed):
        return _sample_from_histograms(h, DECILES, 0.004, lo[: len(h)], hi[: len(h)], np.random.default_rng(seed))

    first = draw(H, 1)
    kept = first.copy()
    draw(H[::-1].copy(), 5)  # other histograms of the same shape
    draw(H[:2], 6)  # a smaller batch
    assert np.array_equal(first, kept)
    assert np.array_equal(draw(H, 1), first)
    with ThreadPoolExecutor(4) as pool:
        outs = list(pool.map(lambda s: draw(H, s), [1, 2, 1, 2, 1, 2]))
    assert all(np.array_equal(o, outs[i % 2]) for i, o in enumerate(outs))
    assert np.array_equal(outs[0], first)
