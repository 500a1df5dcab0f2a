"""The candidate grid of PrivaTree (paper 002, Sec. IV-B; step 3 of the estimator's docstring).

Each numerical feature is cut at ``max_bins − 1`` private quantiles (JointExp on a public grid of
``GRID`` cells over the public bounds, :func:`dpmodels.privacy.jointexp_quantiles`) at
``ε_quantiles / m_num`` each — sequential composition across the numerical features (a record
is in every feature, docs/privacy.md, principle 7). Categorical features keep their public categories as bins,
plus one bucket for values outside the public list. The records' bins are a row-major ``codes``
matrix: ``codes[i, j]`` is the bin of record i for feature j (``x <= t[b]`` ⇔ ``code <= b``).

:func:`release_thresholds` is the one place where the quantile releases enter the ledger, whichever
backend counted the grid histograms (:mod:`.fitting`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...privacy.quantiles import JOINTEXP_SENSITIVITY, _sample_from_histograms
from .histograms import row_blocks

__all__ = ["GRID", "CandidateGrid", "grid_cells", "bin_codes", "encode_codes", "release_thresholds", "candidate_grid"]

GRID = 2048  # public grid of the private quantiles (cells over the public bounds)


def cell_width(lo, hi, G):
    """``(width, clip_first)``: the cell width ``(hi − lo)/G`` of each feature (1 where hi <= lo,
    where every clipped value is lo: cell 0), and whether values are clipped before the division
    (some hi <= lo).

    A value's cell is ``(x − lo)/width`` truncated: one correctly rounded division, since
    ``(hi − lo)/G`` is exact (G a power of two). It is the exact ``floor((x − lo)·G/(hi − lo))``
    for integer values on integer bounds with ``G·(hi − lo) < 2^53`` (the quotient is then an
    integer or at least ``1/(hi − lo)`` from one): a value on a cell's edge, as hours-per-week = 50
    on [1, 99], opens that cell. ``(x − lo)·(G/(hi − lo))`` rounds twice and put 50 in cell 1023
    (``G/98`` is inexact; issue 27's identity rerun of 002-fig1).
    """
    if G & (G - 1):
        raise ValueError(f"the public grid has a power-of-two number of cells, got {G}")
    span = hi - lo
    width = np.where(span > 0, span / G, 1.0)
    return width, bool(np.any(span <= 0))


def grid_cells(Z, num_idx, lo, hi, G):
    """Public-grid cell of every clipped numerical value, and the grid counts of every feature.

    Returns ``cells`` (n, m_num) uint16 with ``cells[i, f] = min(floor((clip(x) − lo)·G/(hi −
    lo)), G − 1)`` (cell 0 where hi = lo) and ``counts`` (m_num, G) int64, the histogram of each
    feature's cells (what JointExp needs). X is read once, in row blocks that stay in cache; the
    histograms are one ``bincount`` per at least 2·G rows, so that its k·G-long output costs
    O(n·k) in all (one per block of 2^17 values cost O(n·k²)).
    """
    n = Z.shape[0]
    k = num_idx.size
    if G > 65536:
        raise ValueError(f"the public grid has at most 65536 cells, got {G}")
    cells = np.empty((n, k), dtype=np.uint16)
    width, clip_first = cell_width(lo, hi, G)
    contiguous = k == Z.shape[1] and np.array_equal(num_idx, np.arange(Z.shape[1]))
    offsets = np.arange(k, dtype=np.intp) * G
    counts = np.zeros(k * G, dtype=np.int64)
    blocks = row_blocks(n, k)
    buf = np.empty((blocks[0][1] if blocks else 0, k))
    hist_rows = 2 * G  # rows per bincount: its k·G-long result costs at most half a step per counted cell
    start = 0  # first row not yet in counts
    for a, b in blocks:
        x = buf[: b - a]
        src = Z[a:b] if contiguous else Z[a:b][:, num_idx]
        if clip_first:  # hi <= lo: every value is lo (cell 0)
            np.clip(src, lo, hi, out=x)
            x -= lo
            x /= width
        else:  # same values: clipping x or clipping (x − lo)/width to [0, G − 1] agree
            with np.errstate(over="ignore"):  # a value near the float limit: ±inf, clamped below
                np.subtract(src, lo, out=x)
                x /= width
        np.maximum(x, 0.0, out=x)
        np.minimum(x, G - 1, out=x)  # floor(min(t, G−1)) = min(floor(t), G−1) for t >= 0
        np.copyto(cells[a:b], x, casting="unsafe")  # truncation, as astype
        if b - start >= hist_rows or b == n:
            counts += np.bincount(np.add(cells[start:b], offsets).ravel(), minlength=k * G)
            start = b
    return cells, counts.reshape(k, G)


_SPECIAL = 255  # code-table mark of a grid cell that needs the exact comparison (codes <= 254)


def cell_code_bounds(T, lo, hi, G):
    """The thresholds near every grid cell: ``first[f, c] = searchsorted(T[f], lo_f + (c − 0.5)·w_f,
    'left')`` (thresholds below the cell widened by half a cell) and ``last[f, c] =
    searchsorted(T[f], lo_f + (c + 1.5)·w_f, 'right')`` (thresholds up to its widened end), with
    ``w_f = (hi_f − lo_f)/G``; (0, 0) where ``hi <= lo`` (every value and threshold is lo) and
    (0, nt) where the cells are too narrow for float round-off (every value is compared with every
    threshold). int16 (k, G) tables: at most 254 thresholds.

    The cell edges increase along c, so instead of a search per cell, every threshold finds the
    number of edges at or below it (``e``, from its quotient by the width, corrected with the very
    same edge values until exact), and ``first[f, c]`` = the number of thresholds with ``e <= c``: a
    cumulative count (the same integers as the searches, for all features at once).
    """
    k, nt = T.shape
    width = (hi - lo) / G
    narrow = width <= 1e-9 * np.maximum(np.abs(lo), np.abs(hi))
    dead = hi <= lo
    w = np.where(narrow | dead, 1.0, width)[:, None]
    l0 = lo[:, None]

    def count(off, strict):
        # e_t = #{c in [0, G): edge(c) <= t} (#{c: edge(c) < t} if strict) for every threshold t,
        # edge(c) = lo + (c + off)·w computed as the searches compute it
        e = np.floor((T - l0) / w - off) + 1.0
        e = np.fmin(np.fmax(e, 0.0), float(G)).astype(np.int64)  # (fmax: NaN -> 0)
        cmp = np.less if strict else np.less_equal
        while True:  # the estimate is off by rounding only: a step or two
            up = (e < G) & cmp(l0 + (np.minimum(e, G - 1) + off) * w, T)
            down = (e > 0) & ~cmp(l0 + (np.maximum(e - 1, 0) + off) * w, T)
            if not (up.any() or down.any()):
                break
            e += up
            e -= down
        h = np.bincount((e + np.arange(k)[:, None] * (G + 1)).ravel(), minlength=k * (G + 1))
        return np.cumsum(h.reshape(k, G + 1)[:, :G], axis=1)

    # first: t < edge(c) at the left edge (off −0.5): c >= e_t, so first[c] = #{t: e_t <= c};
    # last: t <= edge(c) at the right edge (off 1.5): c >= d_t = #{c': edge(c') < t}
    with np.errstate(invalid="ignore", over="ignore"):
        first = count(-0.5, False).astype(np.int16)
        last = count(1.5, True).astype(np.int16)
    first[dead | narrow] = 0
    last[dead] = 0
    last[narrow & ~dead] = nt
    return first, last


def code_table(T, lo, hi, G, dtype):
    """``(table, first, last)``: the code of every (feature, cell) that has no threshold within
    half a cell of it, else ``_SPECIAL`` (``dtype``: the codes'), and the bounds of
    :func:`cell_code_bounds` (the thresholds to compare a value of that cell with)."""
    first, last = cell_code_bounds(T, lo, hi, G)
    return np.where(first == last, first, _SPECIAL).astype(dtype), first, last


def bin_codes(Z, num_idx, cells, T, lo, hi, G, codes):
    """``codes[:, num_idx[f]] = searchsorted(T[f], clip(x), 'left')`` for every numerical feature.

    Through the grid cells: a table gives the code of every cell that has no threshold within half
    a cell of it (then every value rounded to that cell has that code); only the values in the
    other cells are compared with the thresholds, and only with those near their cell.
    """
    n, k = cells.shape
    nt = T.shape[1]
    table, first, last = code_table(T, lo, hi, G, codes.dtype)
    table = table.ravel()
    span = int((last - first).max()) if k else 0
    first, T_flat = first.ravel(), T.ravel()
    contiguous = k == codes.shape[1] and np.array_equal(num_idx, np.arange(codes.shape[1]))
    offsets = np.arange(k, dtype=np.intp) * G
    for a, b in row_blocks(n, k):
        key = np.add(cells[a:b], offsets)  # (rows, k) index into the (k, G) tables
        cd = codes[a:b] if contiguous else np.empty(key.shape, dtype=codes.dtype)
        np.take(table, key, out=cd)
        sp = np.flatnonzero(cd == _SPECIAL)
        if sp.size:
            r, f = np.divmod(sp, k)
            kk = key.ravel()[sp]
            x = np.clip(Z[a + r, num_idx[f]].astype(float), lo[f], hi[f])
            lo_i, hi_i = first[kk], last.ravel()[kk]
            code = lo_i.copy()
            for d in range(span):  # thresholds first..last-1 of the cell, sorted
                i = lo_i + d
                ok = i < hi_i
                code += ok & (T_flat[f * nt + np.where(ok, i, 0)] < x)
            cd.ravel()[sp] = code
        if not contiguous:
            codes[a:b, num_idx] = cd


@dataclass
class CandidateGrid:
    """What the splits can use (public): ``n_bins`` per feature (categorical: C public categories +
    the unknown bucket), the released ``thresholds`` of each numerical feature (index -> sorted
    array of ``n_bins − 1`` values), its public ``bounds`` (index -> (lo, hi)) and ``B`` = max
    bins. The records' bins are :func:`encode_codes` of it."""

    n_bins: np.ndarray
    thresholds: dict
    bounds: dict
    B: int


def release_thresholds(
    grid_counts,
    names,
    num_idx,
    lo,
    hi,
    max_bins,
    eps_quantiles,
    ledger,
    rng,
    *,
    release_quantiles=True,
    quantiles="split",
    data_quantiles=None,
) -> np.ndarray:
    """The thresholds ``T`` (m_num, max_bins − 1) of the numerical features, from their public-grid
    histograms ``grid_counts`` (m_num, GRID): the only place the quantile rows enter the ledger.

    ``eps_quantiles`` is split equally across the numerical features with lo < hi (sequential
    composition); each such feature's ``max_bins − 1`` quantiles are one JointExp release
    (Δu = 2), recorded in ``ledger`` before it is drawn (one batched draw for all of them: each
    row has the law of its own release). A feature with lo = hi has one possible value: its cut
    points are that value, nothing is released. ``release_quantiles=False`` (a depth-0 tree:
    nothing is split) releases nothing and uses equal-width cut points.

    ``quantiles="parallel"`` (paper 002 as published): every feature's JointExp at the full
    ``eps_quantiles``, recorded as one row whose parallel composition across features is the
    paper's claim (``guarantee="claimed"``). ``"data"`` (the paper's PrivaTree*): the training
    data's own quantiles, a leak row; ``data_quantiles(i, levels)`` computes them for numerical
    feature i (in memory only).
    """
    if quantiles not in ("split", "parallel", "data"):
        raise ValueError(f"quantiles must be 'split', 'parallel' or 'data', got {quantiles!r}")
    levels_q = np.arange(1, max_bins) / max_bins
    live = np.flatnonzero(hi > lo) if num_idx.size else np.zeros(0, dtype=np.intp)
    n_live = int(live.size)
    eps_feat = eps_quantiles / n_live if n_live else 0.0
    if quantiles == "parallel":
        eps_feat = eps_quantiles
        if n_live and release_quantiles:
            ledger.spend(
                f"{max_bins - 1} quantiles of each of {n_live} numerical features",
                "jointexp (exponential)",
                eps_quantiles,
                sensitivity=JOINTEXP_SENSITIVITY,
                composition="parallel",
                parts=n_live,
                guarantee="claimed",
                note="the paper's budget: every feature at ε_quantiles; parallel composition across features "
                "is the paper's claim (a record is in every feature)",
            )
    elif quantiles == "data" and n_live and release_quantiles:
        ledger.record_leak(
            f"{max_bins - 1} quantiles of each numerical feature",
            note="PrivaTree* (paper 002): quantiles computed non-privately",
        )
    T = np.empty((num_idx.size, max_bins - 1))
    if release_quantiles and n_live and quantiles == "data":  # PrivaTree*: a recorded leak
        if data_quantiles is None:
            raise ValueError("the data's own quantiles need the data in memory")
        for i in live:
            T[i] = data_quantiles(int(i), levels_q)
    elif release_quantiles and n_live:
        if quantiles != "parallel":  # the paper's parallel row was recorded above
            for i in live:  # every row is recorded before anything is drawn
                ledger.spend(
                    f"{max_bins - 1} quantiles of {names[num_idx[i]]!r}",
                    "jointexp (exponential)",
                    eps_feat,
                    sensitivity=JOINTEXP_SENSITIVITY,
                    note=f"1 of {n_live} numerical features: sequential",
                )
        H_live = grid_counts if n_live == grid_counts.shape[0] else grid_counts[live]
        T[live] = _sample_from_histograms(H_live, levels_q, eps_feat, lo[live], hi[live], rng)
    elif n_live:
        T[live] = np.linspace(lo[live], hi[live], max_bins + 1, axis=1)[:, 1:-1]  # unused (depth 0)
    dead = np.flatnonzero(hi <= lo) if num_idx.size else live
    T[dead] = lo[dead][:, None]  # a single public value: nothing to release
    return T


def candidate_grid(categorical, categories, num_idx, lo, hi, T, max_bins) -> CandidateGrid:
    """The grid's public layout (no codes yet): categorical features get their C public
    categories + the bucket for values outside the list, numerical ones ``max_bins`` bins cut at
    their row of ``T``; ``B`` is the widest."""
    m = categorical.size
    n_bins = np.empty(m, dtype=np.int64)
    for j in np.flatnonzero(categorical):
        n_bins[j] = len(categories[int(j)]) + 1  # + the bucket for values outside the public set
    B = int(max(n_bins[categorical].max() if categorical.any() else 0, max_bins))
    n_bins[num_idx] = max_bins
    # one copy of T: every feature's thresholds are a row of it
    thresholds = dict(zip(num_idx.tolist(), T.copy()))
    bounds = dict(
        zip(num_idx.tolist(), zip(np.asarray(lo, dtype=float).tolist(), np.asarray(hi, dtype=float).tolist()))
    )
    return CandidateGrid(n_bins, thresholds, bounds, B)


def encode_codes(Z, grid: CandidateGrid, categorical, num_idx, lo, hi, T, cells=None) -> np.ndarray:
    """Every record's bin codes (n, m) (uint8, or uint16 when ``B`` > 256): ``x <= t[b]`` ⇔
    ``code <= b`` for a numerical feature, the category's index for a categorical one (the bucket
    ``C`` for values outside the list). ``cells``: the records' grid cells if already computed."""
    codes = empty_codes(Z.shape[0], grid)
    if num_idx.size:
        if cells is None:
            cells, _ = grid_cells(Z, num_idx, lo, hi, GRID)
        bin_codes(Z, num_idx, cells, T, lo, hi, GRID, codes)
    categorical_codes(Z, categorical, grid.n_bins, codes)
    return codes


def empty_codes(n, grid: CandidateGrid) -> np.ndarray:
    return np.empty((n, grid.n_bins.size), dtype=np.uint8 if grid.B <= 256 else np.uint16)


def categorical_codes(Z, categorical, n_bins, codes) -> None:
    """``codes[:, j]`` of the categorical features: the category's index, the bucket for -1."""
    for j in np.flatnonzero(categorical):
        c = Z[:, j].astype(np.int64)
        c[c < 0] = n_bins[j] - 1
        codes[:, j] = c
