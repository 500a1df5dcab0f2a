"""Private quantiles: the JointExp mechanism (Gillenwater, Joseph & Kulesza 2021) on a public grid.

:func:`jointexp_quantiles` releases m quantiles of one feature *jointly*, as one draw of the
exponential mechanism over sorted m-tuples ``lo <= o_1 <= ... <= o_m <= hi``.

Mechanism
---------
* **Public inputs**: the bounds ``[lo, hi]``, the quantile levels ``0 < q_1 < ... < q_m < 1`` and a
  grid of ``G`` equal-width cells over ``[lo, hi]``. Values are clipped to the bounds and each
  record is rounded to its grid cell: a fixed per-record map, so neighbouring datasets stay
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

The dynamic program over (j, k) runs in log space. The transition kernel is a Laplace kernel in
the count coordinate; it is split at ``s(k') = s(k) - t_j`` into a left part (a prefix
log-sum-exp) and a right window of count-width ``t_j``, which is summed blockwise (blocks of
count-width ``t_j``) so no log-domain subtraction (cancellation) is ever needed. Sampling goes
backwards through the stored tables with the Gumbel-max trick. Cost per feature: one
``np.bincount`` over the n records plus O(m·G) vectorised work.

The caller decides ε (several features share a budget by sequential composition: a record is in
every feature's data, PRIVACY-NOTES 7) and records the ledger row; pass ``ledger=`` to let this
function record it before releasing anything.
"""

from __future__ import annotations

import numpy as np

from .ledger import PrivacyLedger, charge, check_epsilon
from .samplers import check_random_state

__all__ = ["jointexp_quantiles", "grid_histogram", "JOINTEXP_SENSITIVITY"]

JOINTEXP_SENSITIVITY = 2.0


def _check_bounds(bounds):
    try:
        lo, hi = (float(b) for b in bounds)
    except (TypeError, ValueError):
        raise ValueError(f"bounds must be a pair (lo, hi) of numbers, got {bounds!r}") from None
    if not (np.isfinite(lo) and np.isfinite(hi)) or lo > hi:
        raise ValueError(f"bounds must be finite with lo <= hi, got {bounds!r}")
    return lo, hi


def _check_levels(quantiles):
    q = np.atleast_1d(np.asarray(quantiles, dtype=float))
    if q.ndim != 1 or q.size == 0:
        raise ValueError("quantiles must be a non-empty 1-d sequence of levels in (0, 1)")
    if np.any(~np.isfinite(q)) or np.any(q <= 0) or np.any(q >= 1) or np.any(np.diff(q) <= 0):
        raise ValueError(f"quantile levels must be strictly increasing in (0, 1), got {q.tolist()}")
    return q


def grid_histogram(x, bounds, grid_size: int) -> np.ndarray:
    """Counts of the clipped values of ``x`` in ``grid_size`` equal cells of ``[lo, hi]``."""
    lo, hi = _check_bounds(bounds)
    x = np.asarray(x, dtype=float).ravel()
    if np.isnan(x).any():
        raise ValueError("x contains NaN")
    if hi == lo:
        h = np.zeros(grid_size, dtype=np.int64)
        h[0] = x.size
        return h
    scale = grid_size / (hi - lo)
    idx = (np.clip(x, lo, hi) - lo) * scale
    idx = idx.astype(np.int64)
    np.minimum(idx, grid_size - 1, out=idx)
    return np.bincount(idx, minlength=grid_size)


def _logcumsumexp(a: np.ndarray) -> np.ndarray:
    return np.logaddexp.accumulate(a) if a.size else a


def _transition(a_prev, s, t, lam):
    """log sum_{k' <= k} exp(a_prev[k'] - lam * |s[k] - t - s[k']|) for every k (vectorised).

    ``s`` is nondecreasing (counts below each cell), ``t > 0`` the target gap.
    """
    G = s.size
    r = s - t
    # left part: s[k'] <= r[k]  (then k' < k automatically)
    p = np.searchsorted(s, r, side="right") - 1  # last k' with s[k'] <= r[k]; -1 if none
    lp = _logcumsumexp(a_prev + lam * s)
    with np.errstate(invalid="ignore"):
        left = np.where(p >= 0, lp[np.maximum(p, 0)] - lam * r, -np.inf)
    # right window: r[k] < s[k'] <= s[k], k' <= k -- blocks of count-width t
    blk = np.floor(s / t).astype(np.int64)
    new_blk = np.empty(G, dtype=bool)
    new_blk[0] = True
    np.not_equal(blk[1:], blk[:-1], out=new_blk[1:])
    starts = np.flatnonzero(new_blk)
    ends = np.empty_like(starts)
    ends[:-1] = starts[1:]
    ends[-1] = G
    block_of = np.cumsum(new_blk) - 1
    x = a_prev - lam * (s - blk * t)  # offsets in (-lam*t, 0] within each block
    pre, suf = _block_logcumsumexp(x, starts, ends, block_of)
    # same block as k: every k' in the block up to k is in the window
    right = pre + lam * (r - blk * t)
    # previous block: k' from p[k]+1 to the end of that block
    bk = block_of
    prev_exists = (bk > 0)
    prev_blk_id = np.maximum(bk - 1, 0)
    prev_end = ends[prev_blk_id]  # exclusive
    first = p + 1
    has = prev_exists & (blk[starts[prev_blk_id]] == blk - 1) & (first < prev_end)
    if has.any():
        idx = np.where(has, first, 0)
        extra = suf[idx] + lam * (r - (blk - 1) * t)
        right = np.where(has, np.logaddexp(right, extra), right)
    return np.logaddexp(left, right)


_PAD_LIMIT = 64  # padded table of _block_logcumsumexp at most this many times the input (else a loop)


def _block_logcumsumexp(x, starts, ends, block_of):
    """Prefix and suffix log-cum-sum-exp of ``x`` restarted at every block ``[starts[b], ends[b])``.

    Bit-identical to running ``np.logaddexp.accumulate`` on each block separately: the blocks are
    laid out as the rows of a table, right-aligned behind ``-inf`` padding (``logaddexp(-inf, v)
    == v`` exactly, and an all ``-inf`` run is cheap), so one ``accumulate`` along the rows does
    every block in the same order of operations.
    """
    G = x.size
    lens = ends - starts
    nb, L = lens.size, int(lens.max())
    if nb == 1:
        return _logcumsumexp(x), _logcumsumexp(x[::-1])[::-1]
    if nb * L > _PAD_LIMIT * G:  # very uneven blocks: a loop is cheaper than the padding
        pre = np.empty(G)
        suf = np.empty(G)
        for b0, b1 in zip(starts.tolist(), ends.tolist()):
            pre[b0:b1] = _logcumsumexp(x[b0:b1])
            suf[b0:b1] = _logcumsumexp(x[b0:b1][::-1])[::-1]
        return pre, suf
    k = np.arange(G)
    row = block_of * L
    fwd = row + (L - ends[block_of]) + k  # block b right-aligned: its last element in column L-1
    bwd = row + (L - 1 + starts[block_of]) - k  # reversed block, right-aligned
    tab = np.full(nb * L, -np.inf)
    tab[fwd] = x
    pre = np.logaddexp.accumulate(tab.reshape(nb, L), axis=1).ravel()[fwd]
    tab.fill(-np.inf)
    tab[bwd] = x
    suf = np.logaddexp.accumulate(tab.reshape(nb, L), axis=1).ravel()[bwd]
    return pre, suf


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
    G = int(grid_size)
    if G < 1:
        raise ValueError("grid_size must be >= 1")
    rng = check_random_state(rng)
    h = grid_histogram(x, (lo, hi), G)
    charge(ledger, what or f"{q.size} quantiles", "jointexp (exponential)", eps,
           sensitivity=JOINTEXP_SENSITIVITY)
    if hi == lo:
        return np.full(q.size, lo)
    return _sample_from_histogram(h, q, eps, lo, hi, rng)


def _sample_from_histogram(h, q, eps, lo, hi, rng):
    G = h.size
    m = q.size
    n = float(h.sum())
    lam = eps / (2.0 * JOINTEXP_SENSITIVITY)
    s = np.concatenate(([0.0], np.cumsum(h[:-1], dtype=float)))  # records below cell k
    gaps = np.diff(np.concatenate(([0.0], q, [1.0]))) * n
    width = (hi - lo) / G
    lw = np.log(width)  # equal cells: a constant, kept for clarity of the base measure
    tables = np.empty((m, G))
    tables[0] = lw - lam * np.abs(s - gaps[0])
    for j in range(1, m):
        t = gaps[j]
        if t <= 0:  # n == 0: every gap is 0, the utility is constant
            prev = _logcumsumexp(tables[j - 1])
        else:
            prev = _transition(tables[j - 1], s, t, lam)
        tables[j] = lw + prev
    # backward sampling with the Gumbel-max trick
    cells = np.empty(m, dtype=np.int64)
    last = tables[m - 1] - lam * np.abs(n - s - gaps[m])
    cells[m - 1] = int(np.argmax(last + rng.gumbel(size=G)))
    for j in range(m - 2, -1, -1):
        k = cells[j + 1]
        w = tables[j][: k + 1] - lam * np.abs(s[k] - s[: k + 1] - gaps[j + 1])
        cells[j] = int(np.argmax(w + rng.gumbel(size=k + 1)))
    out = lo + (cells + rng.random(m)) * width
    return np.sort(np.clip(out, lo, hi))
