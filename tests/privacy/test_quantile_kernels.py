"""The compiled run sampler (:mod:`dpmodels.privacy._quantile_kernels`) releases what the numpy
run sampler releases, bit for bit, and leaves the generator where it leaves it.

Both paths run on the same histograms and seeds; the outputs and the generator's next number are
compared exactly, over many shapes (rows, grid sizes, counts, skewed and flat data, empty rows,
one-cell grids), quantile levels (equal-spaced: gaps with the same ceiling; random), budgets (one
or one per row) and seeds.
"""

from __future__ import annotations

import numpy as np
import pytest

import dpmodels.privacy.quantiles as Q


def _both(monkeypatch, H, q, eps, lo, hi, seed):
    """(numpy output, its generator's next number), (compiled output, its next number)."""
    out = []
    for compiled in (False, True):
        monkeypatch.setattr(Q, "_use_compiled", lambda compiled=compiled: compiled)
        rng = np.random.default_rng(seed)
        out.append((Q._sample_from_histograms(H, q, eps, lo, hi, rng), rng.random()))
    return out


def _histograms(rng, F, G, n):
    rows = []
    for _ in range(F):
        kind = rng.integers(4)
        if kind == 0:
            cells = rng.integers(0, G, n)
        elif kind == 1:
            cells = np.minimum((rng.beta(2, 5, n) * G).astype(int), G - 1)
        elif kind == 2:  # a spike: long empty stretches and a few full cells
            cells = np.minimum((np.abs(rng.normal(0.5, 0.02, n)) * G).astype(int), G - 1)
        else:
            cells = np.zeros(0, dtype=int)  # an empty row
        rows.append(np.bincount(cells, minlength=G))
    return np.array(rows, dtype=np.int64)


def _cases(count, seed):
    rng = np.random.default_rng(seed)
    for _ in range(count):
        F = int(rng.integers(1, 7))
        G = int(rng.choice([1, 2, 7, 64, 512]))
        n = int(rng.choice([0, 1, 3, 10, 57, 200, 1000]))
        m = int(rng.integers(1, 14))
        if rng.random() < 0.5:
            q = np.arange(1, m + 1) / (m + 1)  # equal gaps: several steps share a table
        else:
            q = np.sort(rng.choice(np.arange(1, 100), m, replace=False)) / 100
        eps = float(10 ** rng.uniform(-3, 0.5)) if rng.random() < 0.5 else 10 ** rng.uniform(-3, 0.5, F)
        lo = rng.uniform(-5, 0, F)
        yield _histograms(rng, F, G, n), q, eps, lo, lo + rng.uniform(0.1, 10, F), int(rng.integers(2**31))


@pytest.mark.parametrize("block", range(4))
def test_compiled_run_sampler_is_bit_identical(monkeypatch, block):
    ran = []
    monkeypatch.setattr(Q, "_draw_by_runs_compiled", _counting(Q._draw_by_runs_compiled, ran))
    for H, q, eps, lo, hi, seed in _cases(40, block):
        (a, na), (b, nb) = _both(monkeypatch, H, q, eps, lo, hi, seed)
        assert np.array_equal(a, b) and na == nb
    assert len(ran) >= 10  # a good part of the cases takes the run sampler (small lam·n)


def _counting(fn, calls):
    def wrapped(*args):
        calls.append(1)
        return fn(*args)

    return wrapped


@pytest.mark.parametrize("n, F, seed", [(300, 24, 0), (1000, 24, 1), (1000, 5, 2), (3000, 8, 3)])
def test_compiled_run_sampler_on_a_fits_histograms(monkeypatch, n, F, seed):
    """The PrivaTree fit's case: standard-normal features on a 2048-cell grid over [-6, 6], nine
    deciles, ε = 1/(4F) per feature (the fit's quantile share)."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, F))
    H = np.stack([np.bincount(np.minimum(((x + 6) / 12 * 2048).astype(int), 2047), minlength=2048) for x in X.T])
    q = np.arange(1, 10) / 10
    (a, na), (b, nb) = _both(monkeypatch, H, q, 0.25 / F, np.full(F, -6.0), np.full(F, 6.0), seed)
    assert np.array_equal(a, b) and na == nb


def test_compiled_multisets_beyond_the_log_factorial_table(monkeypatch):
    """Past the table of log k! the compiled path hands the multiset rounds back to numpy, on the
    same stream of uniforms (here forced with a tiny table: ties of many outputs in long runs)."""
    monkeypatch.setattr(Q, "_LGAMMA_MAX", 8)
    H = np.zeros((3, 256), dtype=np.int64)
    H[:, [3, 200]] = 1  # two records: long runs, every output in one of them
    for seed in range(5):
        (a, na), (b, nb) = _both(monkeypatch, H, np.arange(1, 8) / 8, 0.05, np.zeros(3), np.ones(3), seed)
        assert np.array_equal(a, b) and na == nb


def test_stream_replays_the_generator():
    """Numbers drawn ahead, then served in pieces of any shape: the numbers of the generator alone."""
    rng = np.random.default_rng(4)
    ref = np.random.default_rng(4).random(100)
    s = Q._Stream(rng.random(30), rng)
    got = np.concatenate([s.random((2, 5)).ravel(), s.random((4,)), s.random((3, 7, 2)).ravel(), s.random((44,))])
    assert np.array_equal(got, ref)


class _RecordingArena(Q._Arena):
    """The numpy run sampler's arena, keeping a copy of every table it handed out (in order)."""

    made: list = []

    def __call__(self, shape, dtype=np.float64):
        a = super().__call__(shape, dtype)
        _RecordingArena.made.append(a)
        return a

    def close(self):
        _RecordingArena.made = [a.copy() for a in _RecordingArena.made]
        super().close()


@pytest.mark.parametrize("seed", range(6))
def test_compiled_forward_tables_equal_numpy_entry_by_entry(monkeypatch, seed):
    """Stronger than equal draws (which a last-bit difference rarely moves): the compiled forward
    program's binomials, W_j(., 1) and prefix sums of B_j e^{±lam s} are the numpy sampler's,
    every entry, bit for bit."""
    from dpmodels.privacy import _quantile_kernels as K

    rng = np.random.default_rng(100 + seed)
    F, G, n = int(rng.integers(1, 6)), int(rng.choice([16, 256, 2048])), int(rng.choice([10, 200, 1000]))
    H = _histograms(rng, F, G, n)
    m = int(rng.integers(2, 14))
    q = np.arange(1, m + 1) / (m + 1) if seed % 2 else np.sort(rng.choice(np.arange(1, 100), m, replace=False)) / 100
    eps = 0.5 / max(n, 1)
    monkeypatch.setattr(Q, "_use_compiled", lambda: False)
    monkeypatch.setattr(Q, "_Arena", _RecordingArena)
    _RecordingArena.made = []
    Q._sample_from_histograms(H, q, eps, np.zeros(F), np.ones(F), np.random.default_rng(seed))
    made = _RecordingArena.made
    Rm = made[1].shape[1]  # the first cells of the runs, then L and s_R (F, Rm)
    three = [a for a in made if a.shape == (m + 1, F, Rm) and a.dtype == float]  # binom, w1, Wr
    binom, w1 = three[0], three[1]
    CPM = next(a for a in made if a.dtype == np.complex128)
    # the compiled tables from the same histograms
    n_f = H.sum(axis=1).astype(float)
    lam = np.where(n_f > 0, eps / 4.0, 0.0)
    t = np.ascontiguousarray(np.diff(np.concatenate((np.zeros(1), q, np.ones(1))))[None, :] * n_f[:, None])
    n_runs = np.empty(F, dtype=np.int64)
    assert K.count_runs(H, n_runs) == Rm
    kr, L, sr, Tc = np.empty((F, Rm), np.int64), np.empty((F, Rm)), np.empty((F, Rm)), np.empty((F, m + 1))
    K.run_tables(H, n_f, t, m, n_runs, kr, L, sr, Tc)
    assert np.array_equal(L, made[1]) and np.array_equal(sr, made[2])
    E = np.empty(K.exp_size(F, Rm, m))
    K.exp_arguments(sr, n_f, t, lam, Tc, m, np.ones(F, dtype=bool), E)
    np.exp(E, out=E)
    b2, w2, CP, CM, _ = K.forward_tables(E, L, sr, t, Q._table_steps(t, m), n_runs, m)
    assert np.array_equal(b2.transpose(1, 0, 2)[1:], binom[1:])
    assert np.array_equal(w2.transpose(1, 0, 2)[1:], w1[1:])
    assert np.array_equal(CP.transpose(1, 0, 2)[1:], CPM[1:].real)
    assert np.array_equal(CM.transpose(1, 0, 2)[1:], CPM[1:].imag)


@pytest.mark.parametrize("seed", range(4))
def test_tabulated_run_exponentials_equal_direct_ones(seed):
    """The per-run exponentials read from the tables of e^{±lam s} (rows with row 0's lam, n and
    end gaps) are the ones taken directly, bit for bit — gaps that are not integers included (the
    last decile's gap, 1 - 0.9, is not a tenth of n) — and the other rows take theirs directly."""
    from dpmodels.privacy import _quantile_kernels as K

    rng = np.random.default_rng(200 + seed)
    F, G, n = 12, 2048, int(rng.choice([300, 1000, 1234]))
    H = _histograms(rng, F, G, n)
    H[0] = np.bincount(rng.integers(0, G, n), minlength=G)  # row 0 not empty
    m = 9
    q = np.arange(1, m + 1) / (m + 1) if seed % 2 else np.sort(rng.choice(np.arange(1, 100), m, replace=False)) / 100
    n_f = H.sum(axis=1).astype(float)
    lam = np.where(n_f > 0, 0.01 / n, 0.0)
    lam[3] *= 2.0  # one row with its own budget: direct
    t = np.ascontiguousarray(np.diff(np.concatenate((np.zeros(1), q, np.ones(1))))[None, :] * n_f[:, None])
    n_runs = np.empty(F, dtype=np.int64)
    Rm = K.count_runs(H, n_runs)
    kr, L, sr, Tc = np.empty((F, Rm), np.int64), np.empty((F, Rm)), np.empty((F, Rm)), np.empty((F, m + 1))
    K.run_tables(H, n_f, t, m, n_runs, kr, L, sr, Tc)
    E = np.empty(K.exp_size(F, Rm, m))
    K.exp_arguments(sr, n_f, t, lam, Tc, m, np.ones(F, dtype=bool), E)
    np.exp(E, out=E)
    T, direct = Q._run_exp_tables(K, sr, n_f, t, lam, m)
    expect = ~((lam == lam[0]) & (n_f == n_f[0]))
    assert np.array_equal(direct, expect) and direct[3] and not direct.all()
    for f in np.flatnonzero(~direct):
        got = T[:, sr[f].astype(np.int64)]
        for b in range(4):
            assert np.array_equal(got[b], E[b * F * Rm + f * Rm : b * F * Rm + (f + 1) * Rm])
