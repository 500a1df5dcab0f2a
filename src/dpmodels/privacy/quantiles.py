"""Private quantiles: the JointExp mechanism (Gillenwater, Joseph & Kulesza 2021) on a public grid.

:func:`jointexp_quantiles` releases m quantiles of one feature *jointly*, as one draw of the
exponential mechanism over sorted m-tuples ``lo <= o_1 <= ... <= o_m <= hi``.

Mechanism
---------
* **Public inputs**: the bounds ``[lo, hi]``, the quantile levels ``0 < q_1 < ... < q_m < 1`` and a
  grid of ``G`` equal-width cells over ``[lo, hi]``. Values are clipped to the bounds and each
  record is rounded to its grid cell, ``min(G − 1, floor((x − lo)·G/(hi − lo)))`` in exact
  arithmetic (:func:`grid_cell_index`): a fixed per-record map, so neighbouring datasets stay
  neighbouring. (The grid replaces the data-defined intervals of the original paper; with those,
  sampling several quantiles inside the same interval makes the base measure data-dependent. With a
  public grid the base measure below is data-independent, and the cost drops from
  O(m·n) after an O(n log n) sort to an O(n) histogram plus O(m·G).)
* **Utility**: let ``h_c`` be the number of records in cell ``c`` and ``s(k) = sum_{c<k} h_c`` the
  number of records below an output lying in cell ``k``. With ``k_0`` "below everything"
  (``s = 0``), ``s(k_{m+1}) = n`` and target gaps ``t_j = (q_j - q_{j-1}) n`` (``q_0 = 0``,
  ``q_{m+1} = 1``)::

      u(o) = - sum_{j=1}^{m+1} | s(k_j) - s(k_{j-1}) - t_j |.

* **Sensitivity Δu = 2** under add/remove of one record: the record falls in exactly one gap
  between consecutive outputs, whose count moves by 1; the targets move by
  ``sum_j (q_j - q_{j-1}) = 1`` in total. By the triangle inequality ``|u(D) - u(D')| <= 2``.
  (n is private; it only enters through the targets, which this bound covers.)
* **Selection**: the cell sequence ``k_1 <= ... <= k_m`` is drawn with probability
  ``∝ exp(ε·u/(2Δu)) · prod_j w_{k_j}`` (``w`` = cell widths, a public base measure), i.e. the
  exponential mechanism at ε with Δu = 2: **ε-DP, the whole budget ε is used once for all m
  quantiles** of the feature. Each ``o_j`` is then drawn uniformly in its cell and the outputs are
  sorted (post-processing with data-independent randomness).

Sampling (``_sample_from_histograms``, all features of a fit in one batch, each row an
independent draw from its own law). A forward dynamic program over (j, k) gives the total weight
of the prefixes ``k_1 <= ... <= k_j = k``; the outputs are then drawn backwards, ``k_m`` first, each
given the next one, by the inverse CDF with one uniform per feature and step. The transition
kernel is a Laplace kernel in the count coordinate, split at ``s(k') = s(k) - t_j`` into a left
part (a prefix sum) and a right window of count-width ``t_j`` (summed blockwise, blocks of
count-width ``t_j``, so no cancellation). Three numerically equivalent forms, chosen from
``lam·(n + t)`` (a choice of arithmetic, not of law; see docs/privacy.md, "JointExp quantiles"):

* small ``lam·(n + t)`` (small data or a small budget): linear space over the *runs* of the grid
  (a nonempty cell and the empty cells after it share ``s``, so they are one state, weighted by
  the number ``C(L + c - 1, c)`` of nondecreasing placements of c outputs among its L cells; the
  cells inside a run are then a uniform multiset). Only ~n states per feature instead of G.
* moderate: linear space over cells, rescaled after every step;
* large: log space over cells.

Cost per feature: one ``np.bincount`` over the n records plus O(m·G) vectorised work (O(m·runs)
on small data).
"""

from __future__ import annotations

import functools
import math
import threading

import numpy as np
from scipy.special import gammaln

from .ledger import PrivacyLedger, charge, check_epsilon
from .samplers import check_random_state

__all__ = ["jointexp_quantiles", "grid_histogram", "grid_cell_index", "JOINTEXP_SENSITIVITY"]

JOINTEXP_SENSITIVITY = 2.0


def _check_bounds(bounds):
    try:
        lo, hi = (float(b) for b in bounds)
    except (TypeError, ValueError):
        raise ValueError(f"bounds must be a pair (lo, hi) of numbers, got {bounds!r}") from None
    if not (np.isfinite(lo) and np.isfinite(hi)) or lo > hi:
        raise ValueError(f"bounds must be finite with lo <= hi, got {bounds!r}")
    if not np.isfinite(hi - lo):
        raise ValueError(f"bounds: hi − lo must be a finite float (at most {_FMAX:.3g}), got {bounds!r}")
    return lo, hi


def _check_levels(quantiles):
    q = np.atleast_1d(np.asarray(quantiles, dtype=float))
    if q.ndim != 1 or q.size == 0:
        raise ValueError("quantiles must be a non-empty 1-d sequence of levels in (0, 1)")
    if np.any(~np.isfinite(q)) or np.any(q <= 0) or np.any(q >= 1) or np.any(np.diff(q) <= 0):
        raise ValueError(f"quantile levels must be strictly increasing in (0, 1), got {q.tolist()}")
    return q


# ------------------------------------------------------------------------------ the public grid
_FMAX = float(np.finfo(np.float64).max)
MAX_GRID = 1 << 24  # cells of a public grid: the multipliers of the exact edge test have <= 24 bits
_U = 2.0**-53  # unit round-off of float64
_LOW_BITS = np.uint64((1 << 29) - 1)  # a float's low 29 significand bits: its high part keeps <= 24


def grid_cell_index(x, bounds, grid_size: int) -> np.ndarray:
    """The public-grid cell of every value of ``x``: ``min(G − 1, floor((clip(x) − lo)·G/(hi − lo)))``
    in exact rational arithmetic on the float inputs (``G = grid_size``; cell 0 where ``hi = lo``).

    A value on a cell's edge opens that cell, whatever the bounds and G: 50 on ``[1, 99]`` with
    ``G = 1024`` is the first value of cell 512 and with ``G = 2048`` of cell 1024. ``(clip(x) −
    lo)·(G/(hi − lo))`` rounds twice and put it in the cell below. Computed as one float quotient
    ``t = (clip(x) − lo)/((hi − lo)/G)`` (four roundings: ``|t − T| <= 4.01·2⁻⁵³·G`` for the exact
    quotient T), whose floor is the cell except within ``8·2⁻⁵³·G`` of an integer k; there the sign of
    ``G·(x − lo) − k·(hi − lo)`` decides, computed exactly (:func:`_below_edges`). Cost: a few
    vectorised passes over x, plus the exact test on the values near an edge (on integer data, the
    values on an edge). ``bounds`` finite with ``hi − lo`` a finite float, ``1 <= G <= 2²⁴``; NaN is
    an error; ±inf clips to the bounds.
    """
    lo, hi = _check_bounds(bounds)
    G = _check_grid_size(grid_size)
    x = np.asarray(x, dtype=float).ravel()
    if np.isnan(x).any():
        raise ValueError("x contains NaN")
    if hi == lo or G == 1:
        return np.zeros(x.size, dtype=np.int64)
    # a tiny span: values and bounds times 2^600 (exact) so that the cell width (hi − lo)/G is normal
    scale = 600 if hi - lo < 2.0**-960 else 0
    lo_s, hi_s = math.ldexp(lo, scale), math.ldexp(hi, scale)
    with np.errstate(over="ignore", invalid="ignore"):  # beyond the bounds: ±inf, clamped below
        t = np.subtract(x, lo)
        if scale:
            t *= 2.0**scale
        t /= (hi_s - lo_s) / G
    tol = 8.0 * _U * G
    # the clipped value's quotient (clipping x or t agree), kept 2·tol inside (0, G): a quotient
    # there has cell 0 or G − 1 whatever its last bits, and is not near an edge (values at the
    # bounds, often many, skip the exact test)
    np.clip(t, 2.0 * tol, G - 2.0 * tol, out=t)
    cell = np.floor(t)
    t -= cell  # the fractional part
    near = t <= tol
    near |= t >= 1.0 - tol
    idx = np.flatnonzero(near)
    ki = (cell[idx] + (t[idx] > 0.5)).astype(np.int64)  # the nearest integer, in [1, G − 1]
    cells = cell.astype(np.int64)
    if idx.size:
        a = np.ldexp(np.clip(x[idx], lo, hi), scale)
        cells[idx] = ki - _below_edges(a, lo_s, hi_s, ki, G)
    return cells


def grid_histogram(x, bounds, grid_size: int) -> np.ndarray:
    """Counts of the clipped values of ``x`` in ``grid_size`` equal cells of ``[lo, hi]``: the
    histogram of :func:`grid_cell_index` (exact cells; a value on an edge opens its cell)."""
    G = _check_grid_size(grid_size)
    return np.bincount(grid_cell_index(x, bounds, G), minlength=G)


def _check_grid_size(grid_size) -> int:
    G = int(grid_size)
    if not 1 <= G <= MAX_GRID:
        raise ValueError(f"grid_size must be in [1, {MAX_GRID}], got {grid_size!r}")
    return G


def _two_sum(a, b):
    """``(s, e)`` with ``s = fl(a + b)`` and ``s + e = a + b`` exactly (Knuth; no overflow)."""
    s = a + b
    z = s - a
    return s, (a - (s - z)) + (b - z)


def _split(v):
    """``(h, v − h)``: ``h`` is v with its low 29 significand bits cleared (<= 24 bits left), the
    rest <= 29 bits: each times an integer below 2²⁴ is an exact float product (any finite v)."""
    v = np.asarray(v, dtype=np.float64)
    h = (v.view(np.uint64) & ~_LOW_BITS).view(np.float64)
    return h, v - h


def _below_edges(a, lo, hi, k, G):
    """``a < lo + k·(hi − lo)/G`` in exact arithmetic (a in [lo, hi], integers 1 <= k < G <= 2²⁴), as
    the sign of ``D = G·(a − lo) − k·(hi − lo)``. ``a − lo`` and ``hi − lo`` are each an exact sum of
    two floats (:func:`_two_sum`), every product an exact sum of two (:func:`_split`): D is the sum
    of eight exact floats, whose sign is that of the top nonzero component of their nonoverlapping
    expansion (Shewchuk's Grow-Expansion, built by error-free additions). No term overflows while
    ``8·G·(hi − lo)`` is finite; beyond (bounds within a factor 8G of the float limit), exact
    rationals on the distinct values near an edge."""
    if not np.isfinite(8.0 * G * (hi - lo)):
        return _below_edges_rational(a, lo, hi, k, G)
    d1, d2 = _two_sum(a, -lo)
    w1, w2 = _two_sum(np.float64(hi), np.float64(-lo))
    kf = k.astype(np.float64)
    terms = [G * p for v in (d1, d2) for p in _split(v)] + [-kf * p for v in (w1, w2) for p in _split(v)]
    expansion: list[np.ndarray] = []
    for b in terms:
        if not b.any():  # a zero term (integer data: most of them) leaves the expansion as it is
            continue
        q = b
        grown = []
        for e in expansion:
            q, h = _two_sum(q, e)
            grown.append(h)
        grown.append(q)
        expansion = grown
    sign = np.zeros(a.shape)
    for e in expansion:  # increasing magnitude: the last nonzero component decides
        sign = np.where(e != 0, np.sign(e), sign)
    return (sign < 0).astype(np.int64)


def _below_edges_rational(a, lo, hi, k, G):
    """:func:`_below_edges` in rationals, once per distinct (value, edge) pair."""
    from fractions import Fraction

    pairs, inv = np.unique(np.column_stack([a, k.astype(np.float64)]), axis=0, return_inverse=True)
    flo, span = Fraction(lo), Fraction(hi) - Fraction(lo)
    below = np.array([G * (Fraction(v) - flo) < int(c) * span for v, c in pairs], dtype=np.int64)
    return below[inv.ravel()]


def _logcumsumexp(a: np.ndarray) -> np.ndarray:
    return np.logaddexp.accumulate(a) if a.size else a


def _transition(a_prev, s, t, lam):
    """log sum_{k' <= k} exp(a_prev[k'] - lam * |s[k] - t - s[k']|) for every k (vectorised).

    ``s`` is nondecreasing (counts below each cell), ``t > 0`` the target gap. One row of
    :class:`_Kernel` in log space.
    """
    a_prev, s = np.asarray(a_prev, dtype=float), np.asarray(s, dtype=float)
    k = _Kernel(s[None], np.array([[lam]], dtype=float), "log")
    return k.step(a_prev[None], np.array([[t]], dtype=float))[0]


class _Kernel:
    """One step of the dynamic program for F features at once (the rows of ``s``)::

        out[f, k] = sum_{k' <= k} a[f, k'] exp(-lam_f |s[f, k] - t_f - s[f, k']|)

    ``s`` nondecreasing integers along each row (counts below each cell), ``lam`` (F, 1) >= 0,
    the gap ``t`` (F, 1) > 0. ``mode``:

    * ``"log"``: ``a`` and ``out`` are logarithms (any ``lam·n``).
    * ``"blocks"``: linear space, no subtraction anywhere (needs ``lam·n`` far below the
      overflow of ``exp``, :data:`_LINEAR_LIMIT`).
    * ``"direct"``: linear space with the window as a difference of two prefix sums; its relative
      error is at most ``2 G u exp(2 lam (n + t))`` (``u`` = 2^-53): used only when
      ``lam (n + t_max) <= _DIRECT_LIMIT``, where the bound is below 1e-11.

    The kernel is split at ``s(k') = s(k) - t``: a left part ``s(k') <= s(k) - t`` (a prefix sum
    of ``a·exp(lam·s)``) and a right window of count-width ``t``, summed (log, blocks) blockwise,
    blocks of count-width ``t`` restarted at every row, so no log-domain subtraction
    (cancellation) is needed; within a block every factor lies in ``[exp(-lam·t), exp(lam·t)]``.
    What depends only on ``t`` (the split points, the blocks) is computed once per distinct gap.
    """

    def __init__(self, s, lam, mode):
        self.s, self.lam, self.mode = s, lam, mode
        F, G = s.shape
        self.F, self.G = F, G
        top = float(s[:, -1].max()) + 1.0 if s.size else 1.0
        self.off = (np.arange(F) * (top + 2.0))[:, None]  # row offsets: exact integers
        self.key = (s + self.off).ravel()
        self.row0 = (np.arange(F) * G)[:, None]
        if mode != "log":
            self.ep = np.exp(lam * s)
            self.em = np.exp(-lam * s)
        self._cache = {}

    def _split(self, t):
        """p[f, k]: last k' with s[f, k'] <= s[f, k] - t (-1 if none), and the block structure."""
        # s is integer-valued, so p depends on t only through ceil(t); the blocks need t itself
        ck = np.ceil(t).tobytes() if self.mode == "direct" else t.tobytes()
        if ck in self._cache:
            return self._cache[ck]
        F, G, s = self.F, self.G, self.s
        # s is integer-valued: s[k'] <= s[k] - t  <=>  s[k'] <= floor(s[k] - t); one sorted search
        # over all rows (row offsets keep the rows apart, every number an exact integer)
        v = np.maximum(np.floor(s - t), -1.0) + self.off
        p = np.searchsorted(self.key, v.ravel(), side="right").reshape(F, G) - self.row0 - 1
        pos = p >= 0
        pi = (self.row0 + np.maximum(p, 0)).ravel()
        out = {"p": p, "pos": pos, "pi": pi}
        if self.mode != "direct":
            blk = np.floor(s / t)
            b = blk.ravel()
            new_blk = np.empty(F * G, dtype=bool)
            new_blk[0] = True
            np.not_equal(b[1:], b[:-1], out=new_blk[1:])
            new_blk[::G] = True
            starts = np.flatnonzero(new_blk)
            ends = np.empty_like(starts)
            ends[:-1] = starts[1:]
            ends[-1] = F * G
            block_of = np.cumsum(new_blk) - 1
            # previous block of the same row: k' from p[k]+1 to the end of that block
            prev_blk_id = np.maximum(block_of - 1, 0)
            prev_start = starts[prev_blk_id]
            first = (self.row0 + p + 1).ravel()
            has = (
                (block_of > 0)
                & (prev_start >= np.repeat(self.row0.ravel(), G))
                & (b[prev_start] == b - 1)
                & (first < ends[prev_blk_id])
            )
            out.update(
                blk=blk,
                plan=_ScanPlan(starts, ends),
                has=has.reshape(F, G),
                idx=np.where(has, first, 0).reshape(F, G),
                any_has=bool(has.any()),
            )
        self._cache[ck] = out
        return out

    def step(self, a, t):
        F, G, s, lam = self.F, self.G, self.s, self.lam
        sp = self._split(t)
        r = s - t
        pos, pi = sp["pos"], sp["pi"]
        if self.mode == "log":
            lp = np.logaddexp.accumulate(a + lam * s, axis=1).ravel()
            with np.errstate(invalid="ignore"):
                left = np.where(pos, lp[pi].reshape(F, G) - lam * r, -np.inf)
            blk = sp["blk"]
            x = a - lam * (s - blk * t)  # offsets in (-lam*t, 0] within each block
            pre, suf = sp["plan"].scan(x.ravel(), np.logaddexp, -np.inf)
            right = pre.reshape(F, G) + lam * (r - blk * t)  # same block as k: all k' <= k
            if sp["any_has"]:
                extra = suf[sp["idx"]] + lam * (r - (blk - 1) * t)
                right = np.where(sp["has"], np.logaddexp(right, extra), right)
            return np.logaddexp(left, right)
        elt = np.exp(lam * t)
        cp = np.cumsum(a * self.ep, axis=1).ravel()
        left = np.where(pos, cp[pi].reshape(F, G), 0.0) * self.em * elt  # exp(-lam r)
        if self.mode == "direct":
            cm = np.cumsum(a * self.em, axis=1)
            below = np.where(pos, cm.ravel()[pi].reshape(F, G), 0.0)
            return left + (cm - below) * self.ep / elt  # window (r, s]: exp(lam r) (cm - below)
        blk = sp["blk"]
        x = a * np.exp(-lam * (s - blk * t))
        pre, suf = sp["plan"].scan(x.ravel(), np.add, 0.0)
        right = pre.reshape(F, G) * np.exp(lam * (r - blk * t))
        if sp["any_has"]:
            right += np.where(sp["has"], suf[sp["idx"]] * np.exp(lam * (r - (blk - 1) * t)), 0.0)
        return left + right


class _ScanPlan:
    """Index tables of :func:`_block_scan` for fixed blocks (reused across the steps)."""

    def __init__(self, starts, ends):
        lens = ends - starts
        self.total = int(lens.sum())
        self.whole = lens.size == 1
        one = lens == 1
        self.single = starts[one]
        self.groups = []
        if self.whole:
            return
        cls = np.frexp(np.maximum(lens - 1, 1))[1]  # length class: 2^(c-1) < len <= 2^c
        for c in np.unique(cls[~one]):
            sel = np.flatnonzero((cls == c) & ~one)
            bl, st = lens[sel], starts[sel]
            L = int(bl.max())
            tot = int(bl.sum())
            k = np.arange(tot) - np.repeat(np.cumsum(bl) - bl, bl)  # position inside its block
            src = np.repeat(st, bl) + k
            row = np.repeat(np.arange(sel.size) * L, bl)
            fwd = row + (L - np.repeat(bl, bl)) + k  # block right-aligned: last element in column L-1
            bwd = row + (L - 1) - k  # reversed block, right-aligned
            self.groups.append((sel.size, L, src, fwd, bwd))

    def scan(self, x, ufunc, pad):
        if self.whole:
            if not x.size:
                return x.copy(), x.copy()
            return ufunc.accumulate(x), ufunc.accumulate(x[::-1])[::-1]
        pre = np.empty_like(x)
        suf = np.empty_like(x)
        pre[self.single] = suf[self.single] = x[self.single]
        for nb, L, src, fwd, bwd in self.groups:
            tab = np.full(nb * L, pad)
            tab[fwd] = x[src]
            pre[src] = ufunc.accumulate(tab.reshape(nb, L), axis=1).ravel()[fwd]
            tab.fill(pad)
            tab[bwd] = x[src]
            suf[src] = ufunc.accumulate(tab.reshape(nb, L), axis=1).ravel()[bwd]
        return pre, suf


def _block_logcumsumexp(x, starts, ends, block_of=None):
    """Prefix and suffix log-cum-sum-exp of ``x`` restarted at every block ``[starts[b], ends[b])``.

    Bit-identical to running ``np.logaddexp.accumulate`` on each block separately
    (:func:`_block_scan` with ``-inf`` padding; ``logaddexp(-inf, v) == v`` exactly).
    """
    return _block_scan(x, starts, ends, np.logaddexp, -np.inf)


def _block_scan(x, starts, ends, ufunc, pad):
    """Prefix and suffix ``ufunc.accumulate`` of ``x`` restarted at every block ``[starts, ends)``.

    Bit-identical to accumulating each block separately: blocks are laid out as the rows of a
    table, right-aligned behind ``pad`` (the identity of ``ufunc``: ``ufunc(pad, v) == v``
    exactly), so one ``accumulate`` along the rows does every block in the same order of
    operations. Blocks are grouped by length class (powers of two), so the padding is at most
    the size of the input whatever the mix of block lengths.
    """
    return _ScanPlan(np.asarray(starts), np.asarray(ends)).scan(np.asarray(x, dtype=float), ufunc, pad)


def jointexp_quantiles(
    x,
    quantiles,
    epsilon,
    bounds,
    rng=None,
    *,
    grid_size: int = 4096,
    ledger: PrivacyLedger | None = None,
    what: str | None = None,
) -> np.ndarray:
    """ε-DP estimates of the quantiles ``quantiles`` of ``x`` within public ``bounds``.

    Parameters
    ----------
    x : array-like of float
        The private values (one feature). Clipped to ``bounds``; NaN is an error.
    quantiles : sequence of float
        Strictly increasing levels in (0, 1), e.g. ``np.arange(1, 10) / 10`` for deciles.
    epsilon : float
        Budget of this release (all m quantiles jointly). Utility sensitivity 2, see module doc.
    bounds : (lo, hi)
        Public bounds of the feature.
    rng : numpy Generator, int or None
        ``None`` draws OS entropy (private use); a seed is reproducible, not private.
    grid_size : int
        Number of equal-width public cells over ``[lo, hi]`` (resolution of the output).
    ledger, what :
        If given, one sequential row is recorded *before* sampling.

    Returns
    -------
    ndarray of shape (m,), sorted, within ``[lo, hi]``.
    """
    q = _check_levels(quantiles)
    lo, hi = _check_bounds(bounds)
    eps = check_epsilon(epsilon)
    G = _check_grid_size(grid_size)
    rng = check_random_state(rng)
    h = grid_histogram(x, (lo, hi), G)
    charge(ledger, what or f"{q.size} quantiles", "jointexp (exponential)", eps, sensitivity=JOINTEXP_SENSITIVITY)
    if hi == lo:
        return np.full(q.size, lo)
    return _sample_from_histogram(h, q, eps, lo, hi, rng)


def _sample_from_histogram(h, q, eps, lo, hi, rng):
    """One feature: :func:`_sample_from_histograms` with a single row."""
    return _sample_from_histograms(np.asarray(h)[None], q, eps, [lo], [hi], rng)[0]


# lam·n up to which the dynamic program runs in linear space: every factor exp(±lam·s) stays far
# from overflow (e^300 ~ 1e130) and the tables are rescaled row by row after every step
_LINEAR_LIMIT = 300.0
_DIRECT_LIMIT = 1.5  # lam·(n + t) up to which the "direct" kernel's error bound is below 1e-11


def _sample_from_histograms(H, q, eps, lo, hi, rng):
    """JointExp draws of the quantiles ``q`` for F features at once (row f of ``H``: the grid
    histogram of feature f over its public ``[lo[f], hi[f]]``, ``lo < hi``; ``eps`` a scalar or one
    value per row). Row f is an independent draw from exactly the law of the module docstring.

    Forward: ``A_1(k) = exp(-lam |s(k) - t_1|)``, ``A_j(k) = sum_{k' <= k} A_{j-1}(k')
    exp(-lam |s(k) - s(k') - t_j|)`` (:class:`_Kernel`), in linear space when
    ``lam·(n + t) <= _LINEAR_LIMIT`` (rows rescaled by their maximum: a constant factor per
    feature) and in log space otherwise; the equal cell widths are a constant factor and are left out.
    Backward: ``k_m`` with probability ``∝ A_m(k) exp(-lam |n - s(k) - t_{m+1}|)``, then ``k_j <=
    k_{j+1}`` with probability ``∝ A_j(k) exp(-lam |s(k_{j+1}) - s(k) - t_{j+1}|)``, each by the
    inverse CDF with one uniform per feature and step; the outputs are uniform in their cells,
    clipped and sorted per feature (post-processing).
    """
    H = np.asarray(H)
    F, G = H.shape
    m = q.size
    eps = np.broadcast_to(np.asarray(eps, dtype=float), (F,))
    lo = np.asarray(lo, dtype=float).reshape(F)
    hi = np.asarray(hi, dtype=float).reshape(F)
    n = H.sum(axis=1).astype(float)[:, None]
    lam = eps[:, None] / (2.0 * JOINTEXP_SENSITIVITY)
    lam = np.where(n > 0, lam, 0.0)  # n == 0: every gap is 0, the utility is constant
    gaps = np.diff(np.concatenate((np.zeros(1), q, np.ones(1))))[None, :] * n  # (F, m+1)
    top = float(np.max(lam * (n + gaps.max(axis=1, keepdims=True)))) if F else 0.0
    mode = "direct" if top <= _DIRECT_LIMIT else "blocks" if top <= _LINEAR_LIMIT else "log"
    if mode == "direct" and _runs_fit(G, m):
        return _sample_by_runs(H, n, lam, gaps, lo, hi, rng)
    s = np.zeros((F, G))
    # records below cell k (exact: integers < 2^53); summed in H's own dtype, then converted (a
    # cumsum into a float output casts element by element: many times slower for the same values)
    s[:, 1:] = np.cumsum(H[:, :-1], axis=1)
    log = mode == "log"
    kernel = _Kernel(s, lam, mode)
    tables = np.empty((m, F, G))
    first = -lam * np.abs(s - gaps[:, :1])
    tables[0] = first if log else np.exp(first)
    for j in range(1, m):
        t = gaps[:, j : j + 1]
        prev = kernel.step(tables[j - 1], np.where(t > 0, t, 1.0))
        if not log:
            prev /= prev.max(axis=1, keepdims=True)
        tables[j] = prev
    rows = np.arange(F)
    cells = np.empty((F, m), dtype=np.int64)
    tail = -lam * np.abs(n - s - gaps[:, m:])
    last = tables[m - 1] + tail if log else tables[m - 1] * np.exp(tail)
    cells[:, m - 1] = _inverse_cdf(last, rng.random(F), log)
    for j in range(m - 2, -1, -1):
        k = cells[:, j + 1]
        K = int(k.max()) + 1
        e = -lam * np.abs(s[rows, k][:, None] - s[:, :K] - gaps[:, j + 1 : j + 2])
        w = tables[j][:, :K] + e if log else tables[j][:, :K] * np.exp(e)
        w[np.arange(K)[None, :] > k[:, None]] = -np.inf if log else 0.0
        cells[:, j] = _inverse_cdf(w, rng.random(F), log)
    width = (hi - lo) / G
    out = lo[:, None] + (cells + rng.random((F, m))) * width[:, None]
    return np.sort(np.clip(out, lo[:, None], hi[:, None]), axis=1)


_LOCAL = threading.local()
_ARENA_MAX = 1 << 24  # bytes of scratch memory each thread keeps between calls (16 MB at most)


class _Arena:
    """Scratch arrays of one call of the run sampler, carved from a byte buffer that each thread
    keeps between calls (when it is at most :data:`_ARENA_MAX` bytes): tables that live to the end
    of the call from the front (``ws(shape, dtype)``), temporaries from the back
    (``ws.scratch(shape, dtype)``, released together by restoring ``ws.top``).

    On small data the sampler's arithmetic costs less than fresh memory: its tables and
    temporaries (a few MB), allocated afresh, are returned to the operating system when freed, and
    every call then pays a page fault per 4 kB on first touch; reusing the temporaries' memory
    keeps the memory the call touches (and evicts from the caches) small. Nothing is read before
    it is written (the callers fill every entry they read), so reusing the memory changes no value.
    An array that does not fit is allocated afresh, and the buffer is enlarged for the next call.
    """

    def __init__(self):
        buf = getattr(_LOCAL, "arena", None)
        self.buf = buf if buf is not None else np.empty(0, dtype=np.uint8)
        self.at, self.top, self.need = 0, self.buf.size, 0

    @staticmethod
    def _size(shape, dtype):
        dt = np.dtype(dtype)
        shape = (shape,) if isinstance(shape, (int, np.integer)) else tuple(shape)
        return dt, shape, math.prod(shape) * dt.itemsize

    def __call__(self, shape, dtype=np.float64):
        dt, shape, size = self._size(shape, dtype)
        a = -(-self.at // 64) * 64  # every array starts on a 64-byte boundary
        self.at = a + size
        self.need = max(self.need, self.at + self.buf.size - self.top)
        if self.at > self.top:
            return np.empty(shape, dtype=dt)
        return np.ndarray(shape, dtype=dt, buffer=self.buf, offset=a)  # a view of buf[a : a + size]

    def scratch(self, shape, dtype=np.float64):
        dt, shape, size = self._size(shape, dtype)
        t = (self.top - size) // 64 * 64
        self.top = t
        self.need = max(self.need, self.at + self.buf.size - t)
        if t < self.at:
            return np.empty(shape, dtype=dt)
        return np.ndarray(shape, dtype=dt, buffer=self.buf, offset=t)

    def close(self):
        """Keep a buffer large enough for this call's arrays (the next call of this size allocates none)."""
        if self.buf.size < self.need <= _ARENA_MAX:
            _LOCAL.arena = np.empty(min(self.need + self.need // 4, _ARENA_MAX), dtype=np.uint8)


@functools.lru_cache(maxsize=64)
def _runs_fit(G, m):
    """Whether the run tables of :func:`_sample_by_runs` stay within float range: every entry lies
    in ``[exp(-1.5 m), C(G + m - 1, m)]`` when ``lam (n + t) <= _DIRECT_LIMIT``."""
    log_c = gammaln(G + m) - gammaln(G) - gammaln(m + 1)
    return bool(log_c <= 600.0 and 1.5 * m <= 600.0)


def _sample_by_runs(H, n, lam, gaps, lo, hi, rng):
    """The law of :func:`_sample_from_histograms`, drawn through the *runs* of each feature.

    A run is a maximal stretch of consecutive cells with the same ``s`` (a nonempty cell followed by
    the empty cells after it): the utility depends on the cells only through ``s``, so the law of
    ``k_1 <= ... <= k_m`` factorises into the law of the run of each output, weighted by the number
    of nondecreasing cell tuples inside each run (``C(L + c - 1, c)`` for c outputs in a run of L
    cells), and, given the runs, a uniform nondecreasing tuple of cells inside each run. With
    ``W_j(R, c)`` the weight of the prefixes whose last ``c`` outputs (``j - c + 1 .. j``) are in
    run R and the one before in an earlier run::

        W_1(R, 1) = exp(-lam |s_R - t_1|),   W_j(R, c) = W_{j-c+1}(R, 1) prod_{i=j-c+2}^{j} exp(-lam t_i),
        B_j(R) = sum_c W_j(R, c) C(L_R + c - 1, c),
        W_{j+1}(R, 1) = sum_{R' < R} B_j(R') exp(-lam |s_R - s_R' - t_{j+1}|)

    (the last sum by the "direct" split of :class:`_Kernel`, over runs, strictly earlier ones).
    Backward: the run and count ``(R, c)`` of the last outputs ``∝ W_m(R, c) C(L_R + c - 1, c)
    exp(-lam |n - s_R - t_{m+1}|)``, then for the output ``j`` just before them, ``R' < R ∝ B_j(R')
    exp(-lam |s_R - s_R' - t_{j+1}|)`` and ``c' ∝ W_j(R', c') C(L_R' + c' - 1, c')``, and so on.
    Only the ~n nonempty cells cost anything: on small data most of the grid is empty.
    """
    if _use_compiled():
        return _draw_by_runs_compiled(H, n, lam, gaps, lo, hi, rng)
    ws = _Arena()
    try:
        return _draw_by_runs(H, n, lam, gaps, lo, hi, rng, ws)
    finally:
        ws.close()


def _use_compiled() -> bool:
    """The compiled run sampler or the numpy one (the same draws): :mod:`dpmodels._compiled`."""
    from .._compiled import use_compiled

    return use_compiled()


def _draw_by_runs_compiled(H, n, lam, gaps, lo, hi, rng):
    """:func:`_draw_by_runs` through the compiled kernels of :mod:`._quantile_kernels`: the same
    operations on the same numbers, the same uniforms in the same order, the exponentials and
    logarithms still taken by numpy — so the same outputs, bit for bit — in a handful of calls
    instead of ~300 small numpy ones."""
    from . import _quantile_kernels as K

    ws = _Arena()  # the tables (a few MB) in memory the thread keeps: no page faults on small data
    try:
        return _draw_runs_compiled(K, H, n, lam, gaps, lo, hi, rng, ws)
    finally:
        ws.close()


def _draw_runs_compiled(K, H, n, lam, gaps, lo, hi, rng, ws):
    """The body of :func:`_draw_by_runs_compiled` (``K``: the kernel module, ``ws``: an :class:`_Arena`).

    The uniforms: the numpy sampler draws F at a time at each of its 2g backward steps (g: the
    largest number of groups of a row), then F·g at each of its ``rounds`` multiset rounds (the
    largest count of a group), then F·m for the positions inside the cells — one stream, here
    drawn in two pieces: the first 2m·F numbers before the backward draws, the rest after them.
    Never more than the numpy sampler draws: every row places its m outputs in at most g groups,
    so rounds·g >= m and 2g·F + rounds·g·F + m·F >= 2m·F.
    """
    F, G = H.shape
    m = gaps.shape[1] - 1
    H = np.ascontiguousarray(H, dtype=np.int64)  # counts: exact integers
    t = np.ascontiguousarray(gaps, dtype=float)
    nf = np.ascontiguousarray(n[:, 0], dtype=float)
    lamf = np.ascontiguousarray(lam[:, 0], dtype=float)
    rep = np.empty(m, dtype=np.int64)
    K.table_steps(t, m, rep)  # _table_steps
    n_runs = np.empty(F, dtype=np.int64)
    Rm = K.count_runs(H, n_runs)
    kr, L, sr, Tc = ws((F, Rm), np.int64), ws((F, Rm)), ws((F, Rm)), ws((F, m + 1))
    K.run_tables(H, nf, t, m, n_runs, kr, L, sr, Tc)
    E = ws(K.exp_size(F, Rm, m))
    T, direct = _run_exp_tables(K, sr, nf, t, lamf, m)
    K.exp_arguments(sr, nf, t, lamf, Tc, m, direct, E)
    # numpy's exp, in place (the same values as into a new array): the blocks of the rows that
    # do not read the tables, then every row's steps
    FR = F * Rm
    if direct.all():
        np.exp(E, out=E)
    else:
        for f in np.flatnonzero(direct):
            for b in range(4):
                np.exp(E[b * FR + f * Rm : b * FR + (f + 1) * Rm], out=E[b * FR + f * Rm : b * FR + (f + 1) * Rm])
        np.exp(E[4 * FR :], out=E[4 * FR :])
    grp_run = np.empty((F, m), dtype=np.int64)
    grp_cnt = np.empty((F, m), dtype=np.int64)
    grp_start = np.empty((F, m), dtype=np.int64)
    grp_len = np.empty((F, m), dtype=np.int64)
    U = rng.random(2 * m * F)
    g = K.sample_rows(
        E,
        direct,
        T,
        L,
        sr,
        t,
        rep,
        n_runs,
        m,
        U.reshape(2 * m, F),
        grp_run,
        grp_cnt,
        kr,
        grp_start,
        grp_len,
        ws((m + 1, Rm)),
        ws((m, Rm), np.int64),
        ws((m + 1, Rm)),
        ws((m, Rm + 1)),
        ws((m, Rm + 1)),
        ws((m + 1, Rm)),
    )
    grp_cnt = np.ascontiguousarray(grp_cnt[:, :g])
    start, length = np.ascontiguousarray(grp_start[:, :g]), np.ascontiguousarray(grp_len[:, :g])
    rounds = int(grp_cnt.max())
    stream = _Stream(U[2 * g * F :], rng)  # drawn, not yet used: the next numbers of the stream
    lg = _lgamma_table(int(length.max()) + m + 1)
    if lg is None:  # beyond the table (grids of ~10^5 cells): the numpy rounds
        cells = _multisets_in_runs(start, length, grp_cnt, m, stream)
    else:
        u = stream.random((rounds, F, g))
        with np.errstate(divide="ignore"):
            logu = np.log(u)  # elementwise the same values as the logs of the entries read
        cells = np.empty((F, m), dtype=np.int64)
        K.multisets(u, logu, lg, start, grp_cnt, length, cells)
    final = stream.random((F, m))
    width = (hi - lo) / G
    out = lo[:, None] + (cells + final) * width[:, None]
    return np.sort(np.clip(out, lo[:, None], hi[:, None]), axis=1)


def _run_exp_tables(K, sr, nf, t, lamf, m):
    """The four per-run exponentials of the run sampler — ``e^{lam s}``, ``e^{-lam s}``, ``e^{-lam
    |s - t_1|}``, ``e^{-lam |n - s - t_{m+1}|}`` — at every count s = 0..n of row 0 (4, n + 1): numpy's
    ``exp`` of the arguments the kernels form (:func:`._quantile_kernels.table_arguments`: the
    expressions of ``exp_arguments``, the same IEEE operations), and which rows take theirs directly
    (``direct``): the rows whose lam, n, t_1, t_{m+1} differ from row 0's
    (:func:`._quantile_kernels.tabulated_rows`). On a fit's data every feature has the same n and
    gaps: ~4n exponentials instead of 4 per run and row. The tables are made only when smaller than
    the entries they replace."""
    F, Rm = sr.shape
    direct = np.empty(F, dtype=bool)
    count = K.tabulated_rows(nf, t, lamf, m, direct)
    n0 = int(nf[0]) if F else 0
    if count == 0 or n0 + 1 >= Rm * count:
        direct.fill(True)
        return np.ones((4, 1)), direct
    T = np.empty((4, n0 + 1))
    K.table_arguments(float(nf[0]), float(lamf[0]), float(t[0, 0]), float(t[0, m]), T)
    return np.exp(T, out=T), direct


def _iota(k):
    """``np.arange(k)`` (int64), from a range each thread keeps (read only)."""
    a = getattr(_LOCAL, "iota", None)
    if a is None or a.size < k:
        if k > _ARENA_MAX // 8:
            return np.arange(k, dtype=np.int64)
        a = _LOCAL.iota = np.arange(max(k, 1 << 12), dtype=np.int64)
    return a[:k]


def _draw_by_runs(H, n, lam, gaps, lo, hi, rng, ws):
    """The body of :func:`_sample_by_runs`; every table of the size of the runs comes from ``ws``
    (an :class:`_Arena`) and is written in place."""
    F, G = H.shape
    m = gaps.shape[1] - 1
    H = H if H.dtype == np.int64 else H.astype(np.int64)  # counts: exact integers
    # runs: a new one starts at cell 0 and after every nonempty cell
    mark0 = ws.top  # temporaries of the set-up (``ws.scratch``) are released before the forward steps
    new_run = ws.scratch((F, G), bool)
    new_run[:, 0] = True
    np.greater(H[:, :-1], 0, out=new_run[:, 1:])
    n_runs = new_run.sum(axis=1)
    Rm = int(n_runs.max())
    first = np.cumsum(n_runs) - n_runs  # flat index of each row's first run
    # row-major positions of the run starts (np.nonzero's order: row f's runs are the flat runs
    # first[f] .. first[f] + n_runs[f] - 1; through the flat indices, much faster than a 2-d nonzero)
    flat = np.flatnonzero(new_run)
    N = flat.size
    fr = np.floor_divide(flat, G, out=ws.scratch(N, np.int64))  # row of each run
    kr = np.multiply(fr, G, out=ws(N, np.int64))
    np.subtract(flat, kr, out=kr)  # first cell of each run
    at = np.multiply(fr, Rm, out=ws.scratch(N, np.int64))  # flat position of each run in the (F, Rm) tables
    at += _iota(N)
    at -= first.take(fr, out=ws.scratch(N, np.int64))
    ln = ws.scratch(N, np.int64)  # run lengths (cells)
    ln[:-1] = kr[1:]
    ln[first + n_runs - 1] = G
    ln -= kr
    L = ws((F, Rm))  # padding runs have no cell: weight 0 (C(c - 1, c) = 0)
    L.fill(0.0)
    L.ravel()[at] = ln
    # s_R, the records below run R's first cell: the count of the nonempty cell just before
    # each run (none before a row's first run) summed along the row (exact integers; no (F, G) table)
    prev = np.subtract(flat, 1, out=ws.scratch(N, np.int64))
    prev[0] = 0  # the first run of row 0 (its count is set to 0 just below)
    before = H.reshape(-1).take(prev, out=ws.scratch(N, np.int64))
    before[first] = 0
    cum = np.cumsum(before, out=ws.scratch(N, np.int64))
    s_run = cum[first].take(fr, out=ws.scratch(N, np.int64))
    np.subtract(cum, s_run, out=s_run)
    sr = ws((F, Rm))
    sr[...] = (n[:, 0] - H[:, -1])[:, None]  # padding: the records below the last cell, keeps every row sorted
    sr.ravel()[at] = s_run
    live = np.greater(L, 0.0, out=ws((F, Rm), bool))
    tmp = ws((F, Rm))
    # binom[c] = C(L + c - 1, c), c = 1..m (row 0, ones, is never read)
    binom = ws((m + 1, F, Rm))
    for c in range(1, m + 1):  # binom[c - 1] * (L + c - 1) / c, in place
        np.add(L, c - 1, out=tmp)
        if c == 1:  # 1·(L + 0)/1 = L exactly
            binom[1] = tmp
        else:
            np.multiply(binom[c - 1], tmp, out=binom[c])
            binom[c] /= c
    t = gaps  # (F, m + 1): t_1 .. t_{m+1} in columns 0 .. m
    Tc = np.zeros((F, m + 1))  # Tc[:, j] = t_2 + ... + t_j (j >= 1), for prod exp(-lam t_i)
    Tc[:, 2:] = np.cumsum(t[:, 1:m], axis=1)
    # e^{lam s}, e^{-lam s}; 0 on padding runs (x·1 = x, x·0 = 0 exactly): their W stays 0
    ep = np.multiply(lam, sr, out=ws((F, Rm)))
    np.exp(ep, out=ep)
    ep *= live
    em = np.multiply(-lam, sr, out=ws((F, Rm)))
    np.exp(em, out=em)
    em *= live
    top = float(sr.max()) + 1.0
    # per forward step j: p + 1 for every run R (the runs R' with s_R' <= s_R - t_{j+1}) and the
    # factors e^{-lam s_R}·e^{lam t} and e^{lam s_R}·e^{-lam t}, once per distinct gap (they repeat)
    slot = np.zeros(m, dtype=np.int64)  # step j's p + 1 table is P1[slot[j]]
    ELT = np.ones((m, F))  # e^{lam t_{j+1}} of step j
    p1_of: dict[bytes, int] = {}
    factors_of: dict[bytes, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}
    ck_of = [np.ceil(t[:, j : j + 1]).tobytes() for j in range(m)]  # p depends on t only through ceil(t)
    n_slots = len(set(ck_of[1:]))
    P1 = ws((max(n_slots, 1), F, Rm), np.int64)
    P1f = ws((max(n_slots, 1), F, Rm), np.int64)  # the same, as flat positions in CPM[j]
    # s is integer-valued, at most n: with a table of size F·(n + 2) (not larger than the grid),
    # the count of runs with s_R' <= v is one lookup, ``below[f, v + 1]``, instead of a binary search
    below = None
    width_t = int(top) + 2
    if F * width_t <= 4 * H.size:
        row_t = (np.arange(F) * width_t)[:, None]
        # s_R strictly increases along a row (every run but the first starts after a nonempty
        # cell): one mark per run never collides, and the cumulative sum of the marks counts runs
        mark = ws.scratch(F * width_t, np.int64)
        mark.fill(0)
        pos = np.multiply(fr, width_t, out=ws.scratch(N, np.int64))
        pos += s_run
        pos += 1
        mark[pos] = 1
        below = np.cumsum(mark, out=ws.scratch(F * width_t, np.int64))
        row_base = first[:, None]
    else:
        off = (np.arange(F) * (top + 2.0))[:, None]
        key = (sr + off).ravel()
        row0 = (np.arange(F) * Rm)[:, None]
    for j in range(1, m):
        tj = t[:, j : j + 1]  # t_{j+1}
        ck = ck_of[j]
        if ck not in p1_of:
            v = np.subtract(sr, tj, out=ws.scratch((F, Rm)))
            np.floor(v, out=v)
            np.maximum(v, -1.0, out=v)  # s_R' <= s_R - t <=> s_R' <= floor(s_R - t)
            p1 = P1[len(p1_of)]
            if below is not None:  # p + 1 = the number of runs R' with s_R' <= v
                v += 1.0
                v += row_t  # exact: integers far below 2^53
                iv = ws.scratch((F, Rm), np.int64)
                np.copyto(iv, v, casting="unsafe")
                below.take(iv, out=p1)
                p1 -= row_base
            else:
                p1[...] = np.searchsorted(key, (v + off).ravel(), side="right").reshape(F, Rm) - row0
            np.add(p1, (np.arange(F) * (Rm + 1))[:, None], out=P1f[len(p1_of)])
            p1_of[ck] = len(p1_of)
        slot[j] = p1_of[ck]
        tk = tj.tobytes()
        if tk not in factors_of:  # em·exp(lam t), ep / exp(lam t)
            elt = np.exp(lam * tj)
            factors_of[tk] = (elt, np.multiply(em, elt, out=ws((F, Rm))), np.divide(ep, elt, out=ws((F, Rm))))
        ELT[j] = factors_of[tk][0][:, 0]
    ws.top = mark0
    # w1[j] = W_j(., 1) for j = 1..m (row 0 is never read: no zero fill); B_j lives in ``acc``
    # for one step only (the backward draws read the prefix sums below), B_m at the end
    w1 = ws((m + 1, F, Rm))
    acc = ws((F, Rm))
    np.subtract(sr, t[:, :1], out=w1[1])
    np.abs(w1[1], out=w1[1])
    np.multiply(-lam, w1[1], out=w1[1])
    np.exp(w1[1], out=w1[1])
    w1[1] *= live
    # per step j (kept for the backward draws): the prefix sums of B_j·e^{lam s} (real part) and
    # B_j·e^{-lam s} (imaginary part) over the runs, with a leading 0: one complex cumulative sum
    # does both (each part is summed on its own, in the same order: the same values as two real
    # sums, in half the time)
    CPM = ws((m, F, Rm + 1), np.complex128)
    CPM[1:, :, 0] = 0.0  # (row 0 is never used)
    # W_j(., c) for the current j lives in Wr[m + 1 - j + c - 1]: c = 1..j is the slice
    # Wr[m + 1 - j : m + 1] in increasing c, so going from j - 1 to j multiplies the slice in place
    # by exp(-lam t_j) and puts W_j(., 1) in front (no shift of the table)
    Wr = ws((m + 1, F, Rm))  # row 0 is never read; row m + 1 - j is written at step j
    kappa = np.exp(-lam * t)  # kappa[:, j] = exp(-lam t_{j+1})
    kap = ws.scratch((F, Rm))
    z = ws.scratch((F, Rm), np.complex128)
    got = ws.scratch((F, Rm), np.complex128)
    for j in range(1, m + 1):
        if j > 1:  # W_j(R, c) = W_{j-1}(R, c - 1) exp(-lam t_j); the factor spelled out per run
            kap[...] = kappa[:, j - 1 : j]  # (no broadcast buffering)
            Wr[m + 2 - j : m + 1] *= kap
        Wr[m + 1 - j] = w1[j]
        np.einsum("cfr,cfr->fr", Wr[m + 1 - j : m + 1], binom[1 : j + 1], out=acc)  # B_j
        if j == m:
            break
        p1 = P1f[slot[j]].reshape(-1)
        _, em_elt, ep_elt = factors_of[t[:, j : j + 1].tobytes()]
        cpm = CPM[j]
        np.multiply(acc, ep, out=z.real)
        np.multiply(acc, em, out=z.imag)
        np.cumsum(z, axis=1, out=cpm[:, 1:])
        out = w1[j + 1]
        cpm.take(p1, out=got.reshape(-1))
        np.multiply(got.real, em_elt, out=out)  # left
        np.subtract(cpm.imag[:, :Rm], got.imag, out=tmp)
        tmp *= ep_elt  # window: p < R' < R
        out += tmp
    ws.top = mark0
    rows = np.arange(F)
    cs = np.arange(1, m + 1)
    # backward over (run, count) groups
    grp_run = np.zeros((F, m), dtype=np.int64)
    grp_cnt = np.zeros((F, m), dtype=np.int64)
    jf = np.full(F, m)
    Rcur = np.zeros(F, dtype=np.int64)
    weight_R = np.subtract(n, sr, out=ws.scratch((F, Rm)))
    weight_R -= t[:, m:]
    np.abs(weight_R, out=weight_R)
    np.multiply(-lam, weight_R, out=weight_R)
    np.exp(weight_R, out=weight_R)
    weight_R *= acc  # acc = B_m
    R = _inverse_cdf(weight_R, rng.random(F), False, ws.scratch)  # the run of the last output
    ws.top = mark0
    g = 0
    active = jf > 0
    ar = _iota(Rm)
    # flat views and offsets: the entries read below are gathered with ``take`` (the same values
    # as indexing the tables by (c, f, R), without the cost of multi-dimensional fancy indexing)
    FR = F * Rm
    w1f, binf = w1.reshape(-1), binom.reshape(-1)
    bin_off = cs[None, :] * FR
    # for every number j_f of outputs still to place (0..m) and count c: the index j_f - c + 1 of
    # the first of them (valid if >= 1), and the factor exp(-lam (Tc[j_f] - Tc[j_f - c + 1])) of
    # every row (tables: the same values as computing them in every step)
    jtab = np.arange(m + 1)[:, None] - cs[None, :] + 1  # (m + 1, m)
    oktab = jtab >= 1
    jtab = np.maximum(jtab, 1)
    etab = np.exp(-lam[:, :, None] * (Tc[:, :, None] - Tc[:, jtab])).reshape(-1)  # (F, m + 1, m)
    e_row = (rows * ((m + 1) * m))[:, None] + np.arange(m)[None, :]
    while True:
        every = bool(active.all())  # then np.where(active, ., 1.0) is the identity: skipped
        # count c <= j_f of the outputs j_f - c + 1 .. j_f in run R
        idx, ok = jtab[jf], oktab[jf]  # (F, m)
        at_R = (rows * Rm + R)[:, None]
        wc = w1f.take(idx * FR + at_R) * binf.take(bin_off + at_R)  # W_j(R, 1)_{j = j_f - c + 1}, C(L + c - 1, c)
        wc *= etab.take(e_row + (jf * m)[:, None])
        wc = np.where(ok, wc, 0.0)
        c = _inverse_cdf(wc if every else np.where(active[:, None], wc, 1.0), rng.random(F), False) + 1
        grp_run[:, g] = np.where(active, R, 0)
        grp_cnt[:, g] = np.where(active, c, 0)
        g += 1
        jf = np.where(active, jf - c, 0)
        Rcur = np.where(active, R, Rcur)
        active = jf > 0
        if not active.any():
            break
        # the run R' < Rcur of the output j just before, ∝ B_j(R') exp(-lam |s_Rcur - s_R' - t_{j+1}|):
        # its CDF over R' is the forward step's split at R = Rcur — prefix sums of B_j e^{lam s}
        # up to p (the runs at least t_{j+1} below), then of B_j e^{-lam s} in the window p < R' —
        # so the inverse CDF needs no new exponential and no new sum (one uniform per feature, as
        # a direct inverse CDF of the weights: the same law)
        R = _runs_before(CPM, None, P1, slot, ELT, em, ep, np.maximum(jf, 1), Rcur, ar, rng.random(F))
    grp_run, grp_cnt = grp_run[:, :g], grp_cnt[:, :g]
    cells = _multisets_in_runs(
        kr.take(first[:, None] + grp_run), L[rows[:, None], grp_run].astype(np.int64), grp_cnt, m, rng
    )
    width = (hi - lo) / G
    out = lo[:, None] + (cells + rng.random((F, m))) * width[:, None]
    return np.sort(np.clip(out, lo[:, None], hi[:, None]), axis=1)


def _table_steps(t, m):
    """``rep[j]``: the step whose gaps ``t[:, rep[j]]`` give step j's table of p + 1 — the first
    step with the same ``ceil(t[:, j])`` (:func:`_draw_by_runs` computes the table once per such
    key and reuses it; ``floor(s - t)`` can differ in the last place between two gaps with the
    same ceiling, so the compiled path must reuse the same step's gaps)."""
    rep = np.arange(m, dtype=np.int64)
    first_of: dict[bytes, int] = {}
    for j in range(1, m):
        rep[j] = first_of.setdefault(np.ceil(t[:, j : j + 1]).tobytes(), j)
    return rep


class _Stream:
    """``random(shape)`` from uniforms already drawn from ``rng``, then from ``rng``: the numbers
    ``rng.random`` alone would have given, in the same order."""

    def __init__(self, drawn, rng):
        self.drawn, self.rng = drawn, rng

    def random(self, shape):
        k = math.prod(shape)
        u, self.drawn = self.drawn[:k], self.drawn[k:]
        if u.size < k:
            u = np.concatenate((u, self.rng.random(k - u.size)))
        return u.reshape(shape)


def _fresh(shape, dtype=np.float64):
    """Allocator of :func:`_inverse_cdf` outside the run sampler (new arrays)."""
    return np.empty(shape, dtype=dtype)


_BLOCK = 32  # runs per block of the backward run draw's two-level search


def _runs_before(CP, CM, P1, slot, ELT, em, ep, j, Rcur, ar, u):
    """For every row f, the run R' < Rcur[f] with probability ``∝ B_j(R') exp(-lam |s_Rcur - s_R' -
    t_{j+1}|)`` (j = ``j[f]``), by the inverse CDF at the uniform ``u[f]``: the first R' whose
    cumulative weight exceeds ``u·total`` (never a zero-weight run), from the tables that the
    forward step j kept (:func:`_sample_by_runs`): ``CP`` and ``CM`` (m, F, R + 1), or ``CP``
    complex with both (``CP.real``, ``CP.imag``) and ``CM`` None; ``ar`` = ``arange(R)``.

    The cumulative weight of R' is ``CP[p + 1]·a`` up to p and ``left + (CM[R' + 1] − CM[p])·b``
    after it. It never decreases along a row (sums of nonnegative terms, scaled and shifted by the
    same numbers; the two parts meet at ``left`` exactly), so the runs whose cumulative weight is
    at most u·total are a prefix of the row: its length is found from the last run of every block of
    :data:`_BLOCK` runs, then inside the first block that goes beyond — the same entries, computed
    by the same operations, as a comparison of the whole row, at a fraction of the cost.
    """
    F = j.size
    rows = np.arange(F)
    K = max(int(Rcur.max()), 1)
    R = P1.shape[2]
    Rc = np.minimum(Rcur, R - 1)
    at = rows * R + Rc  # (f, Rc) in the (F, R) tables; flat gathers, the same entries as indexing
    p1 = np.ravel(P1).take(slot[j] * (F * R) + at)  # p + 1 at R = Rcur
    elt = np.ravel(ELT).take(j * F + rows)
    a = (np.ravel(em).take(at) * elt)[:, None]  # e^{-lam s_Rcur} e^{lam t}, as the forward step's factor
    b = (np.ravel(ep).take(at) / elt)[:, None]
    W = CP.shape[2]
    base = ((j * F + rows) * W)[:, None]  # flat start of the row (j[f], f) of the tables
    flat_p, flat_m = CP.reshape(-1), None if CM is None else CM.reshape(-1)

    def sums(i):  # the prefix sums at the flat positions i
        if flat_m is None:  # CP holds both: B_j e^{lam s} sums in the real part, B_j e^{-lam s} in the imaginary
            g = flat_p.take(i)
            return g.real, g.imag
        return flat_p.take(i), flat_m.take(i)

    last = np.maximum(Rcur - 1, 0)
    nblk = -(-K // _BLOCK)
    # first pass, one gather: the sums at p, and the cumulative weights of the last run (the
    # total) and of the last run of every block
    cols = np.empty((F, nblk + 1), dtype=np.int64)
    cols[:, 0] = np.minimum(last, K - 1)
    cols[:, 1:] = np.minimum(ar[:nblk] * _BLOCK + (_BLOCK - 1), K - 1)
    at = np.empty((F, nblk + 2), dtype=np.int64)
    at[:, 0] = p1
    np.add(cols, 1, out=at[:, 1:])
    at += base
    cp, cm = sums(at)
    left = cp[:, :1] * a  # the weight of the runs up to p
    cm_p = cm[:, :1]

    def cdf(cols, cp, cm):  # cumulative weight of the runs ``cols`` (F, k) of every row
        return np.where(cols < p1[:, None], cp * a, left + (cm - cm_p) * b)

    v = cdf(cols, cp[:, 1:], cm[:, 1:])
    thr = u[:, None] * v[:, :1]  # u·total
    full = np.count_nonzero(v[:, 1:] <= thr, axis=1)  # blocks wholly below
    cols = np.minimum(np.minimum(full, nblk - 1)[:, None] * _BLOCK + ar[None, :_BLOCK], K - 1)
    # columns past K - 1 repeat column K - 1, which lies beyond u·total whenever its block is searched
    count = np.where(
        full >= nblk, K, full * _BLOCK + np.count_nonzero(cdf(cols, *sums(base + cols + 1)) <= thr, axis=1)
    )
    idx = np.minimum(count, Rcur)
    return np.where(idx >= Rcur, last, idx)  # u·total rounded up to the total: the last run


def _multisets_in_runs(start, length, count, m, rng):
    """For every group (row f, column g): ``count`` cells drawn as a *uniform* nondecreasing tuple
    (multiset) of the ``length`` cells from ``start``; the m cells of each row, unsorted.

    Top-down: the largest of a uniform multiset of size c from L cells is v with probability
    ``C(v + c - 1, c - 1) / C(L + c - 1, c)`` (``P(max <= v) = C(v + c, c) / C(L + c - 1, c)``,
    hockey stick), and the rest is a uniform multiset of size c - 1 from the v + 1 cells up to it;
    each step inverts that CDF by bisection on the log binomials."""
    F, ng = count.shape
    cells = np.empty((F, m), dtype=np.int64)
    filled = np.zeros(F, dtype=np.int64)
    c = count.copy()
    Lc = length.copy()  # cells still available: [start, start + Lc)
    while True:
        act = c > 0
        if not act.any():
            break
        u = rng.random((F, ng))
        # c = 1: P(v) = 1 / L, the inverse CDF in closed form
        lo_v = np.minimum((u * Lc).astype(np.int64), np.maximum(Lc - 1, 0))
        many = act & (c >= 2)
        if many.any():
            cm, Lm = c[many], Lc[many]
            lg = _lgamma_table(int(Lm.max() + cm.max()) + 1)
            if lg is None:
                cc = cm.astype(float)
                target = np.log(u[many]) + _log_binom(Lm + cc - 1, cc)
            else:  # log C(a, b) from the table: the same gammaln values at the same (integer) points
                lgc = lg.take(cm)
                target = np.log(u[many]) + ((lg.take(Lm + cm - 1) - lgc) - lg.take(Lm - 1))
            a = np.zeros(cm.size, dtype=np.int64)
            b = Lm - 1
            while True:  # smallest v in [a, b] with log C(v + c, c) >= target (P(max <= v) >= u)
                open_ = a < b
                if not open_.any():
                    break
                mid = (a + b) // 2
                if lg is None:
                    ge = _log_binom(mid + cc, cc) >= target
                else:
                    ge = (lg.take(mid + cm) - lgc) - lg.take(mid) >= target
                b = np.where(open_ & ge, mid, b)
                a = np.where(open_ & ~ge, mid + 1, a)
            lo_v[many] = a
        r, gg = np.nonzero(act)  # row-major: keeps the order of the draws reproducible
        cells[r, filled[r] + np.arange(r.size) - np.searchsorted(r, r)] = start[r, gg] + lo_v[r, gg]
        filled += np.bincount(r, minlength=F)
        c = np.where(act, c - 1, 0)
        Lc = np.where(act, lo_v + 1, Lc)
    return cells


def _log_binom(a, b):
    return gammaln(a + 1) - gammaln(b + 1) - gammaln(a - b + 1)


_LGAMMA_MAX = 1 << 17  # entries of the per-thread table of log k! (1 MB)


def _lgamma_table(k):
    """``gammaln(v + 1)`` for v = 0 .. k - 1 (at least), from a table each thread keeps; None if k
    is above :data:`_LGAMMA_MAX`. ``_log_binom(a, b)`` at integers a >= b >= 0 is then
    ``(t[a] - t[b]) - t[a - b]``: the same three gammaln values (its arguments ``a + 1``, ``b + 1``,
    ``a - b + 1`` are exact integers) subtracted in the same order."""
    if k > _LGAMMA_MAX:
        return None
    t = getattr(_LOCAL, "lgamma", None)
    if t is None or t.size < k:
        t = _LOCAL.lgamma = gammaln(np.arange(max(k, 1 << 12), dtype=float) + 1.0)
    return t


def _inverse_cdf(w, u, log, ws=_fresh):
    """Index drawn with probability ``∝ w[f]`` (``∝ exp(w[f])`` if ``log``) in every row f, from the
    uniforms ``u``: the first k with ``cumsum(w)[k] > u·sum(w)`` (never a zero-weight cell).
    ``ws`` allocates the (F, K) temporaries."""
    if log:
        w = np.exp(w - w.max(axis=1, keepdims=True))
    c = np.cumsum(w, axis=1, out=ws(w.shape))
    idx = np.count_nonzero(np.less_equal(c, (u * c[:, -1])[:, None], out=ws(w.shape, bool)), axis=1)
    over = idx >= w.shape[1]  # u·sum rounded up to the sum: the last cell with weight
    if over.any():
        last = w.shape[1] - 1 - np.argmax(w[:, ::-1] > 0, axis=1)
        idx = np.where(over, last, idx)
    return idx
