"""The public regions PrivaTree splits inside: the root's alive bins and the children's regions,
against brute-force oracles (a point of the public domain in each bin; one node at a time)."""

import numpy as np
import pytest

from dpmodels.tree.privatree.grid import CandidateGrid
from dpmodels.tree.privatree.splitter import child_regions, root_region


def random_grid(rng):
    """Numerical features with thresholds inside [lo, hi] (ties, thresholds at lo or hi, lo = hi)
    and categorical ones, with bin counts that differ between features."""
    m = int(rng.integers(1, 7))
    categorical = rng.random(m) < 0.3
    n_bins = np.array([rng.integers(2, 6) if c else rng.choice([2, 3, 5, 9]) for c in categorical], dtype=np.int64)
    thresholds, bounds = {}, {}
    for j in np.flatnonzero(~categorical).tolist():
        lo = float(rng.integers(-2, 2))
        hi = lo + float(rng.choice([0.0, 0.5, 3.0]))
        points = np.linspace(lo, hi, 4)  # few values: ties are common
        thresholds[j] = np.sort(rng.choice(points, n_bins[j] - 1))
        bounds[j] = (lo, hi)
    return CandidateGrid(n_bins, thresholds, bounds, int(n_bins.max())), categorical


def oracle_alive(grid, categorical):
    m = grid.n_bins.size
    alive = np.zeros((m, grid.B), dtype=bool)
    for j in range(m):
        nb = int(grid.n_bins[j])
        if categorical[j]:
            alive[j, : nb - 1] = True  # the C public categories, not the unknown bucket
            continue
        lo, hi = grid.bounds[j]
        t = [-np.inf, *grid.thresholds[j].tolist(), hi]
        alive[j, 0] = True  # [lo, t_0]: holds lo
        for b in range(1, nb):  # (t_{b-1}, t_b] ∩ [lo, hi]: its largest point min(t_b, hi), if above t_{b-1}
            x = min(t[b + 1], hi)
            alive[j, b] = lo <= x and x > t[b]
    return alive


@pytest.mark.parametrize("seed", range(4))
def test_root_region_matches_the_bins_with_a_point(seed):
    rng = np.random.default_rng(seed)
    for _ in range(200):
        grid, categorical = random_grid(rng)
        np.testing.assert_array_equal(root_region(grid, categorical), oracle_alive(grid, categorical))


def test_child_regions_interleave_left_and_right_children():
    rng = np.random.default_rng(7)
    S, m, B = 5, 4, 6
    alive = rng.random((S, m, B)) < 0.7
    f_sel = rng.integers(0, m, S)
    go_left = rng.random((S, B)) < 0.5
    out = child_regions(alive, f_sel, go_left)
    assert out.shape == (2 * S, m, B)
    for i in range(S):
        left, right = alive[i].copy(), alive[i].copy()
        left[f_sel[i]] &= go_left[i]
        right[f_sel[i]] &= ~go_left[i]
        np.testing.assert_array_equal(out[2 * i], left)
        np.testing.assert_array_equal(out[2 * i + 1], right)
    assert not np.shares_memory(out, alive)
