"""The public grid's cell of a value on a cell edge, against an exact rational oracle.

A value's cell is ``min(floor((clip(x) − lo)·G/(hi − lo)), G − 1)``. Computed as ``(x − lo)·(G/(hi
− lo))`` it rounds twice: adult's hours-per-week = 50 on the bounds [1, 99] lies exactly on the
edge of cell 1024 (49·2048/98 = 1024) and went to cell 1023, which moved 4 of the 12,000 rows of
002-fig1 (PrivaTree as published; the grid counts feed the private quantiles). ``(x − lo)/((hi −
lo)/G)`` rounds once and is exact for integer data on integer bounds: every function that places
a value on the grid is checked here on the first and last integer of every cell.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from dpmodels.tree.privatree.grid import GRID, cell_width, grid_cells

# integer bounds (lo, hi): adult's hours-per-week, age, education-num, capital-loss, fnlwgt, capital-gain,
# small and odd spans, a negative lo, a span near the guarantee's end (G·span < 2^53)
BOUNDS = [(1, 99), (17, 90), (1, 16), (0, 5000), (0, 1_500_000), (0, 99_999), (0, 3), (-7, 6), (5, 2**40 + 5 - 3)]


def _exact_cell(x: int, lo: int, hi: int, G: int) -> int:
    """The oracle: the cell in rational arithmetic."""
    t = (Fraction(min(max(x, lo), hi)) - lo) * G / Fraction(hi - lo)
    return min(int(t // 1), G - 1)


def _edge_values(lo: int, hi: int, G: int) -> np.ndarray:
    """The first integer of every cell and the one before it (the last of the cell below), and
    values just outside the bounds."""
    span = hi - lo
    first = np.array([lo + -(-c * span // G) for c in range(G)], dtype=np.int64)  # ceil(c·span/G)
    return np.unique(np.concatenate([first, first - 1, [lo - 1, hi, hi + 1]]))


def _oracle_cells(x, lo, hi, G):
    return np.array([_exact_cell(int(v), lo, hi, G) for v in x], dtype=np.int64)


def test_a_value_on_a_cell_edge_opens_that_cell():
    """The case that moved 002-fig1: 50 on [1, 99] is the first value of cell 1024."""
    lo, hi = np.array([1.0]), np.array([99.0])
    cells, counts = grid_cells(np.array([[49.0], [50.0], [51.0]]), np.array([0]), lo, hi, GRID)
    assert cells[:, 0].tolist() == [1003, 1024, 1044]
    assert counts[0, 1023] == 0 and counts[0, 1024] == 1


@pytest.mark.parametrize("lo,hi", BOUNDS)
def test_grid_cells_equal_the_exact_cells_on_every_edge(lo, hi):
    x = _edge_values(lo, hi, GRID).astype(float)
    want = _oracle_cells(x, lo, hi, GRID)
    # the feature at every position of the block (the offsets of earlier code changed the rounding)
    Z = np.repeat(x[:, None], 3, axis=1)
    lo_, hi_ = np.full(3, float(lo)), np.full(3, float(hi))
    cells, counts = grid_cells(Z, np.arange(3), lo_, hi_, GRID)
    for f in range(3):
        assert np.array_equal(cells[:, f], want)
        assert np.array_equal(counts[f], np.bincount(want, minlength=GRID))


@pytest.mark.parametrize("clip_first", [False, True])
def test_compiled_cells_equal_the_exact_cells_on_every_edge(clip_first):
    """The partitioned first pass (:mod:`.kernels`) and the in-memory one (:mod:`.memory_kernels`)
    count the oracle's cells; ``clip_first``: a degenerate feature (lo = hi) beside, which makes
    every feature clip before the division."""
    from dpmodels.tree.privatree.kernels import grid_histograms
    from dpmodels.tree.privatree.memory_kernels import grid_counts

    cols = [_edge_values(lo, hi, GRID).astype(float) for lo, hi in BOUNDS]
    n = max(c.size for c in cols)
    Z = np.column_stack([np.resize(c, n) for c in cols] + [np.zeros(n)])
    lo = np.array([b[0] for b in BOUNDS] + [0], dtype=float)
    hi = np.array([b[1] for b in BOUNDS] + [0 if clip_first else 1], dtype=float)
    want = np.stack(
        [np.bincount(_oracle_cells(Z[:, f], int(lo[f]), int(hi[f]), GRID), minlength=GRID) for f in range(len(BOUNDS))]
    )
    width, clip = cell_width(lo, hi, GRID)
    assert clip == clip_first
    num_idx = np.arange(len(BOUNDS) + 1)
    for count in (grid_histograms, grid_counts):
        got = np.zeros((num_idx.size, GRID), dtype=np.int64)
        count(Z, num_idx, lo, hi, width, clip, GRID, got)
        assert np.array_equal(got[:-1], want), count.__name__
        assert got[-1, 0] == n or not clip_first


def test_the_grid_has_a_power_of_two_number_of_cells():
    """The cell width (hi − lo)/G is exact only for G a power of two."""
    with pytest.raises(ValueError, match="power-of-two"):
        cell_width(np.array([0.0]), np.array([1.0]), 1000)
