"""The public grid's cell of a value, against an exact rational oracle, on every cell edge.

A value's cell is ``min(G − 1, floor((clip(x) − lo)·G/(hi − lo)))`` in exact arithmetic on the
float inputs (:func:`dpmodels.privacy.quantiles.grid_cell_index`): a value on an edge opens that
cell. ``grid_histogram`` (the DP Binarizer in memory and on partitions, the JointExp quantiles)
used to compute ``(clip(x) − lo)·(G/(hi − lo))``, which rounds twice: adult's hours-per-week = 50
on the bounds [1, 99] lies on the edge of cell G/2 (49·G/98) and went to the cell below for G =
1024, 2048 and 4096. Each case below checks the nearest float to every edge and one float either
side of it against :class:`fractions.Fraction` arithmetic.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dpmodels.privacy import quantiles as qm
from dpmodels.privacy.quantiles import grid_cell_index, grid_histogram, jointexp_quantiles

_FMAX = float(np.finfo(np.float64).max)


def _exact_cell(v: float, lo: float, hi: float, G: int) -> int:
    """The oracle: the cell in rational arithmetic on the float inputs."""
    if hi == lo:
        return 0
    t = (Fraction(min(max(v, lo), hi)) - Fraction(lo)) * G / (Fraction(hi) - Fraction(lo))
    return min(G - 1, math.floor(t))


def _oracle(x, lo, hi, G) -> np.ndarray:
    """:func:`_exact_cell` of every value, in integers: every float is an integer over a power of
    two, so over the largest denominator the cell is one integer division."""
    if hi == lo:
        return np.zeros(len(x), dtype=np.int64)
    xs = [min(max(float(v), lo), hi) for v in x]
    ratios = [v.as_integer_ratio() for v in (lo, hi, *xs)]
    den = max(d for _, d in ratios)
    (L, _), (H, _) = ((n * (den // d), d) for n, d in ratios[:2])
    return np.array([min(G - 1, (n * (den // d) - L) * G // (H - L)) for n, d in ratios[2:]], dtype=np.int64)


def _edges(lo: float, hi: float, G: int, cells=None) -> np.ndarray:
    """The float nearest to each exact edge ``lo + c·(hi − lo)/G`` (c = 0 … G, or ``cells``) and the
    floats just below and above it."""
    span = Fraction(hi) - Fraction(lo)
    cs = range(G + 1) if cells is None else cells
    e = np.array([float(Fraction(lo) + c * span / G) for c in cs])
    return np.unique(np.concatenate([e, np.nextafter(e, -np.inf), np.nextafter(e, np.inf)]))


def _old_cells(x, lo, hi, G):
    """The formula the library used before: two roundings."""
    return np.minimum(((np.clip(x, lo, hi) - lo) * (G / (hi - lo))).astype(np.int64), G - 1)


# (lo, hi, G): adult's hours-per-week at the Binarizer's, PrivaTree's and a small grid; age and
# capital-gain; negative, fractional and mixed-sign bounds; non-power-of-two grids; a span far below
# the bounds' magnitude; subnormal bounds (a width below the smallest normal float); bounds near the
# float limit (the exact test's rational path) and just inside it (its float path)
CASES = [
    (1.0, 99.0, 4096),
    (1.0, 99.0, 2048),
    (1.0, 99.0, 1024),
    (17.0, 90.0, 4096),
    (0.0, 99_999.0, 4096),
    (-7.0, 6.0, 1000),
    (-3.25, -0.1, 37),
    (0.1, 0.7, 4095),
    (-1.0, 1.0, 3),
    (1e15, 1e15 + 3.0, 4096),
    (5e-324, 1e-320, 7),
    (0.0, 1e-310, 16),
    (-8e307, 8e307, 256),
    (-1e300, 1e300, 1023),
]


def test_a_value_on_a_cell_edge_opens_that_cell():
    """The case of issue 27: 50 on [1, 99] is the first value of cell G/2; the old formula put it
    in the cell below."""
    for G in (1024, 2048, 4096):
        assert grid_cell_index([49.0, 50.0, 51.0], (1, 99), G).tolist() == [
            _exact_cell(v, 1.0, 99.0, G) for v in (49.0, 50.0, 51.0)
        ]
        assert grid_cell_index([50.0], (1, 99), G)[0] == G // 2
        assert _old_cells(np.array([50.0]), 1.0, 99.0, G)[0] == G // 2 - 1
        h = grid_histogram(np.full(3, 50.0), (1, 99), G)
        assert h[G // 2] == 3 and h.sum() == 3
    x = _edges(-7.0, 6.0, 1000)  # the integer oracle is the Fraction one
    assert _oracle(x, -7.0, 6.0, 1000).tolist() == [_exact_cell(float(v), -7.0, 6.0, 1000) for v in x]


@pytest.mark.parametrize("lo,hi,G", CASES)
def test_every_cell_edge_and_its_neighbours_against_exact_fractions(lo, hi, G):
    x = _edges(lo, hi, G)
    x = np.concatenate([x, [-np.inf, np.inf, -_FMAX, _FMAX, lo, hi, 0.0, -0.0]])
    want = _oracle(x, lo, hi, G)
    assert np.array_equal(grid_cell_index(x, (lo, hi), G), want)
    assert np.array_equal(grid_histogram(x, (lo, hi), G), np.bincount(want, minlength=G))


def test_the_largest_grid_on_sampled_edges():
    G = qm.MAX_GRID
    x = _edges(-1.0, 3.0, G, cells=np.random.default_rng(0).integers(0, G + 1, 3000).tolist())
    assert np.array_equal(grid_cell_index(x, (-1.0, 3.0), G), _oracle(x, -1.0, 3.0, G))


def test_the_old_formula_misplaced_edges_the_new_one_does_not():
    """The check can fail: on these grids the two-rounding formula disagrees with the oracle."""
    for lo, hi, G in [(1.0, 99.0, 1024), (-7.0, 6.0, 1000), (0.1, 0.7, 255)]:
        x = _edges(lo, hi, G)
        assert np.any(_old_cells(x, lo, hi, G) != _oracle(x, lo, hi, G))


def test_the_exact_edge_test_float_path_equals_rationals():
    """The error-free float expansion and the rational fallback give the same side of the edge on
    values within two floats of it, over random bounds of every magnitude and random grids."""
    rng = np.random.default_rng(1)
    for _ in range(60):
        lo = float(rng.normal() * 10.0 ** rng.integers(-300, 300))
        hi = lo + float(abs(rng.normal()) * 10.0 ** rng.integers(-300, 300)) * max(1.0, abs(lo))
        if not (np.isfinite(hi - lo) and hi > lo):
            continue
        G = int(rng.integers(2, 1 << 20))
        k = rng.integers(1, G, 50)
        span = Fraction(hi) - Fraction(lo)
        e = np.array([float(Fraction(lo) + int(c) * span / G) for c in k])
        a = np.clip(e + rng.integers(-2, 3, 50) * np.spacing(e), lo, hi)
        assert np.array_equal(qm._below_edges(a, lo, hi, k, G), qm._below_edges_rational(a, lo, hi, k, G))


_bounds = st.one_of(
    st.tuples(st.integers(-(10**6), 10**6), st.integers(1, 10**7)).map(lambda t: (float(t[0]), float(t[0] + t[1]))),
    st.tuples(
        st.floats(-1e6, 1e6, allow_nan=False, allow_subnormal=False), st.floats(1e-12, 1e6, allow_subnormal=False)
    ).map(lambda t: (t[0], t[0] + max(t[1], abs(t[0]) * 2.0**-40))),
    st.tuples(st.floats(-1e300, 1e300), st.floats(1e-300, 1e300)).map(
        lambda t: (t[0], t[0] + max(t[1], abs(t[0]) * 2.0**-40))
    ),
).filter(lambda b: np.isfinite(b[1]) and np.isfinite(b[1] - b[0]) and b[1] > b[0])


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    bounds=_bounds,
    G=st.one_of(st.sampled_from([1, 2, 3, 1000, 1024, 2048, 4096]), st.integers(1, 1 << 24)),
    picks=st.lists(st.tuples(st.floats(0, 1), st.integers(-2, 2)), min_size=1, max_size=20),
    free=st.lists(st.floats(allow_nan=False), max_size=5),
)
def test_property_cells_equal_the_oracle_near_random_edges(bounds, G, picks, free):
    """Values on, and up to two floats beside, random edges of random grids; and any float."""
    lo, hi = bounds
    span = Fraction(hi) - Fraction(lo)
    x = []
    for u, ulps in picks:
        v = float(Fraction(lo) + int(u * G) * span / G)
        for _ in range(abs(ulps)):
            v = float(np.nextafter(v, np.inf if ulps > 0 else -np.inf))
        x.append(v)
    x = np.array(x + free)
    assert np.array_equal(grid_cell_index(x, bounds, G), _oracle(x, lo, hi, G))


@settings(max_examples=40, deadline=None)
@given(
    lo=st.integers(-(10**6), 10**6),
    span=st.integers(1, 2**40),
    offs=st.lists(st.integers(-3, 3), min_size=1, max_size=10),
)
def test_privatree_grid_cells_agree_on_integer_data(lo, span, offs):
    """PrivaTree's own cell loop (``(x − lo)/width``, G = 2048) gives the exact cells on its stated
    domain: integer values on integer bounds with G·(hi − lo) < 2^53."""
    from dpmodels.tree.privatree.grid import GRID, grid_cells

    hi = lo + span
    first = [lo - (-c * span // GRID) for c in range(0, GRID, 97)]  # the first integer of some cells
    x = np.array([f + o for f in first for o in offs], dtype=float)
    cells, _ = grid_cells(x[:, None], np.array([0]), np.array([float(lo)]), np.array([float(hi)]), GRID)
    assert np.array_equal(cells[:, 0].astype(np.int64), grid_cell_index(x, (lo, hi), GRID))


def test_degenerate_bounds_and_bad_inputs():
    assert grid_cell_index([-1.0, 3.0, np.inf], (3, 3), 10).tolist() == [0, 0, 0]
    assert grid_cell_index([-1.0, 3.0, 9.0], (0, 5), 1).tolist() == [0, 0, 0]
    assert grid_cell_index([], (0, 1), 8).size == 0
    with pytest.raises(ValueError, match="hi − lo must be a finite float"):
        grid_histogram([0.0], (-1.7e308, 1.7e308), 8)
    with pytest.raises(ValueError, match="hi − lo must be a finite float"):
        jointexp_quantiles([0.0], [0.5], 1.0, (-1.7e308, 1.7e308), rng=0)
    for G in (0, qm.MAX_GRID + 1):
        with pytest.raises(ValueError, match="grid_size must be in"):
            grid_histogram([0.0], (0, 1), G)
    with pytest.raises(ValueError, match="NaN"):
        grid_cell_index([np.nan], (0, 1), 4)


def test_binarizer_in_memory_and_on_partitions_count_the_exact_cells(monkeypatch):
    """Hours-like integers with many values on an edge (50 on [1, 99], G = 1024 and the default
    4096): the histograms the DP Binarizer hands to JointExp, in memory and summed over partitions,
    are the oracle's, and the two fits release the same thresholds under one seed."""
    from dpmodels.data import Binarizer, binarize
    from dpmodels.data.sources import InMemorySource

    rng = np.random.default_rng(3)
    hours = np.concatenate([np.full(300, 50.0), rng.integers(1, 100, 500).astype(float), [0.0, 120.0]])
    X = pd.DataFrame({"hours": hours, "v": np.round(rng.normal(0, 3, hours.size), 1)})
    bounds = {"hours": (1.0, 99.0), "v": (-7.0, 6.0)}
    seen = []
    real = binarize._sample_from_histograms

    def spy(H, *args):
        seen.append(np.array(H))
        return real(H, *args)

    monkeypatch.setattr(binarize, "_sample_from_histograms", spy)
    for G in (1024, 4096):
        want = np.stack([np.bincount(_oracle(X[c], *bounds[c], G), minlength=G) for c in X.columns])
        fits = []
        for data in (X, InMemorySource(X, np.zeros(len(X)), cuts=(100, 333, 640))):
            b = Binarizer(epsilon=1.0, bounds=bounds, grid_size=G, random_state=7).fit(data)
            assert np.array_equal(seen.pop(), want)
            fits.append(b.cut_points_)
        assert all(np.array_equal(fits[0][c], fits[1][c]) for c in X.columns)
