"""The compiled in-memory path of a PrivaTree fit (the run sampler of the private quantiles, the
level loop's counts and routing) gives the pinned models of ``test_privatree_identity`` bit for bit,
and so does the numpy path; when each runs is :mod:`dpmodels._compiled`'s choice."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest
from test_privatree_identity import CASES, PINNED, _digest

from dpmodels import _compiled
from dpmodels.tree.privatree import fitting
from dpmodels.tree.privatree.memory_kernels import ClassCounter, route

# the cases of the small-data paths: numerical features at n <= 5000 (the run sampler), the
# default law, mixed features, categorical orders and one-vs-rest
SUBSET = [
    "privatree-numeric-n300-s0",
    "privatree-numeric-n1000-s1",
    "privatree-numeric-n5000-s2",
    "privatree-numeric-public-n",
    "privatree-default-numeric-n300-s0",
    "privatree-default-mixed-k3",
    "privatree-mixed-k2-default-s3",
    "privatree-mixed-k3-ovr-public-s0",
    "regressor-s1",
]


@pytest.mark.parametrize("mode", ["numba", "numpy"])
@pytest.mark.parametrize("name", SUBSET)
def test_pinned_models_on_either_path(monkeypatch, mode, name):
    monkeypatch.setenv(_compiled.ENV, mode)
    assert _digest(CASES[name]()) == PINNED[name]


def test_compiled_counts_and_routing_equal_numpy():
    """The compiled counter and router against the numpy ones, on random codes, labels, rows,
    slots and splits (records already in leaves: node -1)."""
    from dpmodels.tree.privatree.histograms import Histograms

    rng = np.random.default_rng(0)
    for _ in range(30):
        n, m, B, K = (
            int(rng.integers(1, 400)),
            int(rng.integers(1, 9)),
            int(rng.integers(2, 12)),
            int(rng.integers(2, 4)),
        )
        codes = rng.integers(0, B, (n, m)).astype(np.uint8)
        lab = rng.integers(0, K, n)
        ref, got = Histograms(codes, lab, B, K), ClassCounter(codes, lab, B, K)
        assert np.array_equal(got.counts(), ref.counts())
        rows = np.flatnonzero(rng.random(n) < 0.6)
        slot = rng.integers(0, 3, rows.size)
        assert np.array_equal(got.counts(rows, slot, 3), ref.counts(rows, slot, 3))
        A = int(rng.integers(1, 5))
        node = rng.integers(-1, A, n).astype(np.intp)
        sidx = np.flatnonzero(rng.random(A) < 0.7)
        if sidx.size == 0:
            continue
        node[~np.isin(node, sidx)] = -1  # records of unsplit nodes reached leaves
        split_of = np.full(A, -1, dtype=np.intp)
        split_of[sidx] = np.arange(sidx.size)
        f_sel = rng.integers(0, m, sidx.size)
        go_left = rng.random((sidx.size, B)) < 0.5
        want = np.full(n, -1, dtype=np.intp)
        live = node >= 0
        s = split_of[node[live]]
        want[live] = 2 * s + ~go_left[s, codes[live, f_sel[s]]]
        assert np.array_equal(route(codes, node, split_of, f_sel, go_left), want)


def test_policy(monkeypatch):
    """auto: a process's first SWITCH_AFTER fits on numpy, the later ones compiled; one choice per
    fit; the environment variable overrides; a bad value is one clear error."""
    monkeypatch.setattr(_compiled, "_fits", 0)
    monkeypatch.delenv(_compiled.ENV, raising=False)
    for _ in range(_compiled.SWITCH_AFTER):
        with _compiled.one_fit() as on:
            assert not on and not _compiled.use_compiled() and not _compiled.use_compiled()
    with _compiled.one_fit() as on:
        assert on and _compiled.use_compiled()
    monkeypatch.setattr(_compiled, "_fits", 0)
    for mode, want in (("numpy", False), ("numba", True), (" NUMBA ", True)):
        monkeypatch.setenv(_compiled.ENV, mode)
        assert _compiled.use_compiled() is want
    monkeypatch.setenv(_compiled.ENV, "fast")
    with pytest.raises(ValueError, match="DPMODELS_KERNELS must be one of"):
        _compiled.use_compiled()


def test_level_loop_threshold(monkeypatch):
    monkeypatch.setenv(_compiled.ENV, "numba")
    assert fitting._compiled_level_loop(1000)
    assert not fitting._compiled_level_loop(fitting._COMPILED_MAX_N + 1)


def test_compiled_error_gini_equals_numpy(monkeypatch):
    """The compiled split scores against the numpy criterion, bit for bit: random counts (sparse,
    up to 10⁶ per cell), nodes, features, bins, classes and Gini weights."""
    from dpmodels.tree.privatree.criteria import error_gini

    rng = np.random.default_rng(1)
    for _ in range(60):
        A, m, B, K = (int(rng.integers(1, x)) for x in (6, 9, 13, 5))
        H = rng.integers(0, int(rng.choice([2, 10, 1000, 10**6])), (A, m, B, K))
        H[rng.random(H.shape) < 0.3] = 0
        lam = float(rng.choice([0.5, 1.0, 0.37, 2.0 / 3]))
        got = {}
        for mode in ("numpy", "numba"):
            monkeypatch.setenv(_compiled.ENV, mode)
            got[mode] = error_gini(H, None, lam)
        assert np.array_equal(got["numpy"], got["numba"])


def test_compiled_children_regions_equal_numpy():
    """The compiled children's regions and their next-level test are :func:`child_regions` and
    ``(alive.sum(axis=2) >= 2).any(axis=1)`` on random regions, splits and sides."""
    from dpmodels.tree.privatree.memory_kernels import children_regions
    from dpmodels.tree.privatree.splitter import child_regions

    rng = np.random.default_rng(3)
    for _ in range(60):
        S, m, B = (int(rng.integers(1, x)) for x in (9, 9, 13))
        alive = rng.random((S, m, B)) < rng.choice([0.2, 0.6, 1.0])
        f_sel = rng.integers(0, m, S)
        go_left = rng.random((S, B)) < 0.5
        out, split = np.empty((2 * S, m, B), dtype=bool), np.empty(2 * S, dtype=bool)
        children_regions(alive, f_sel, go_left, out, split)
        expect = child_regions(alive, f_sel, go_left)
        assert np.array_equal(out, expect)
        assert np.array_equal(split, (expect.sum(axis=2) >= 2).any(axis=1))


def test_compiled_region_utilities_equal_numpy():
    """The compiled utilities of a numerical level (candidates inside each node's region) are
    ``np.where(candidate_mask(alive), -score, -inf)`` and its candidate counts, bit for bit: random
    scores (zeros among them: -0.0 stays -0.0) and regions (empty ones, a single alive bin)."""
    from dpmodels.tree.privatree.memory_kernels import region_utilities
    from dpmodels.tree.privatree.splitter import candidate_mask

    rng = np.random.default_rng(2)
    for _ in range(60):
        A, m, B = (int(rng.integers(1, x)) for x in (9, 9, 13))
        scores = np.where(rng.random((A, m, B)) < 0.2, 0.0, rng.uniform(0, 50, (A, m, B)))
        alive = rng.random((A, m, B)) < rng.choice([0.1, 0.5, 0.9])
        valid = candidate_mask(alive, None)
        util, n_valid = np.empty((A, m * B)), np.empty(A, dtype=np.int64)
        region_utilities(scores, alive, util, n_valid)
        expect = np.where(valid, -scores, -np.inf).reshape(A, m * B)
        assert util.tobytes() == expect.tobytes()
        assert np.array_equal(n_valid, valid.reshape(A, -1).sum(axis=1))


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_compiled_grid_counts_and_codes_equal_numpy(dtype):
    """The compiled first pass (grid histograms) and encoding (bin codes) against the numpy ones:
    values outside the bounds, on the thresholds and on cell edges, huge values, features with
    lo = hi, numerical columns among others."""
    from dpmodels.tree.privatree.grid import GRID, bin_codes, cell_width, grid_cells
    from dpmodels.tree.privatree.memory_kernels import grid_counts, numeric_codes

    rng = np.random.default_rng(2)
    for _ in range(12):
        n, k = int(rng.integers(1, 600)), int(rng.integers(1, 7))
        lo = rng.uniform(-3, 0, k)
        hi = lo + rng.uniform(0.5, 4, k)
        dead = rng.random(k) < 0.2
        hi[dead] = lo[dead]  # some lo = hi
        nt = int(rng.choice([1, 5, 9, 31, 33, 60]))  # counted one by one, or by bisection
        T = np.sort(rng.uniform(lo[:, None] - 0.1, hi[:, None] + 0.1, (k, nt)), axis=1)
        T = np.clip(T, lo[:, None], hi[:, None])
        m = k + 2
        num_idx = np.sort(rng.choice(m, k, replace=False))
        Z = rng.normal(0, 2, (n, m))
        pick = rng.random((n, m))
        big = np.finfo(dtype).max / 4  # finite in the dtype (a fit refuses ±inf)
        Z[pick < 0.1] = big
        Z[(pick >= 0.1) & (pick < 0.15)] = -big
        for f, j in enumerate(num_idx):  # values exactly on thresholds and cell edges
            on = rng.random(n) < 0.2
            Z[on, j] = rng.choice(T[f], on.sum())
            edge = rng.random(n) < 0.1
            Z[edge, j] = lo[f] + rng.integers(0, GRID, edge.sum()) * (hi[f] - lo[f]) / GRID
        Z = Z.astype(dtype)
        cells, want = grid_cells(Z, num_idx, lo, hi, GRID)
        got = np.zeros((k, GRID), dtype=np.int64)
        width, clip_first = cell_width(lo, hi, GRID)
        grid_counts(Z, num_idx, lo, hi, width, clip_first, GRID, got)
        assert np.array_equal(got, want)
        ref = np.zeros((n, m), dtype=np.uint8)
        bin_codes(Z, num_idx, cells, T, lo, hi, GRID, ref)
        codes = np.zeros((n, m), dtype=np.uint8)
        numeric_codes(Z, num_idx, T, lo, hi, codes)
        assert np.array_equal(codes[:, num_idx], ref[:, num_idx])


def test_compiled_children_counts_equal_numpy():
    """The children's counts of a level (smaller child counted, sibling by subtraction) against
    :func:`children_histograms`, with records already in leaves."""
    from dpmodels.tree.privatree.histograms import Histograms, children_histograms
    from dpmodels.tree.privatree.memory_kernels import children_counts

    rng = np.random.default_rng(3)
    for _ in range(30):
        n, m, B, K = (
            int(rng.integers(1, 500)),
            int(rng.integers(1, 7)),
            int(rng.integers(2, 11)),
            int(rng.integers(2, 4)),
        )
        codes = rng.integers(0, B, (n, m)).astype(np.uint8)
        lab = rng.integers(0, K, n)
        P = int(rng.integers(1, 5))
        parent = rng.integers(-1, P, n)
        H = Histograms(codes, lab, B, K).counts(rows=np.flatnonzero(parent >= 0), slot=parent[parent >= 0], n_slots=P)
        f_sel = rng.integers(0, m, P)
        go_left = rng.random((P, B)) < 0.5
        node = np.where(
            parent >= 0,
            2 * parent + ~go_left[np.maximum(parent, 0), codes[np.arange(n), f_sel[np.maximum(parent, 0)]]],
            -1,
        )
        want = children_histograms(H, f_sel, go_left, Histograms(codes, lab, B, K), node.astype(np.intp))
        got = np.empty_like(want)
        children_counts(H, f_sel, go_left, codes, lab, node.astype(np.intp), got)
        assert np.array_equal(got, want)


def test_a_first_fit_does_not_import_numba():
    """Cold start: a process's first in-memory fit runs numpy code only (dpmodels._compiled)."""
    code = (
        "import sys, numpy as np\n"
        "from dpmodels.tree import PrivaTreeClassifier\n"
        "X = np.random.default_rng(0).normal(size=(200, 4)); y = (X[:, 0] > 0).astype(int)\n"
        "PrivaTreeClassifier(epsilon=1.0, max_depth=3, bounds=(-6.0, 6.0), classes=[0, 1], random_state=0).fit(X, y)\n"
        "print('numba' in sys.modules)\n"
    )
    env = {k: v for k, v in os.environ.items() if k != _compiled.ENV}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env)
    assert out.stdout.strip() == "False"
