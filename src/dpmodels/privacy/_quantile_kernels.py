"""Compiled steps of the JointExp run sampler (numba): the sums, products and searches of
:func:`.quantiles._draw_by_runs`, without its ~300 small numpy calls.

The sampler's law and its random stream are those of the numpy code, bit for bit:

* every transcendental function stays in numpy — :func:`exp_arguments` writes the arguments of
  every exponential of a call into one array, the caller takes ``np.exp`` of it once, and the
  kernels read the results (numpy's vectorised ``exp`` is not the C library's; elementwise, it
  does not depend on where an argument sits in the array); the same for the logarithms of the
  uniforms of :func:`multisets`. The four per-run exponentials of the rows that share row 0's
  lam, n and end gaps (on a fit's data: every row) are read from tables of numpy's ``exp`` at
  every count s = 0..n (:func:`tabulated_rows`): the same arguments, so the same values, in ~4n
  exponentials instead of 4 per run and row;
* every sum runs in numpy's order: prefix sums sequentially (as ``np.cumsum``), the sum over
  counts of the forward step sequentially over c (as the ``einsum`` it replaces), and no
  fast-math (no reassociation, no fused multiply-add), so every product and sum is the same
  IEEE operation on the same operands;
* the uniforms are drawn by the caller (:mod:`dpmodels.privacy.quantiles`): the same numbers in
  the same order; a kernel only reads them;
* counts and run positions are exact integers.

The rows (features) are independent draws: :func:`sample_rows` runs the forward program and the
backward draws of one row at a time, so one row's tables (~40 kB each) stay in a core's cache.

Compiled once per machine (``cache=True``) and imported only when the run sampler first needs them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from numba import njit

__all__ = ["table_steps", "count_runs", "run_tables", "exp_arguments", "exp_size", "sample_rows", "multisets"]


def _kernel(fn) -> Callable[..., Any]:
    return njit(cache=True, nogil=True)(fn)


@_kernel
def table_steps(t, m, rep):
    """:func:`.quantiles._table_steps` into ``rep`` (m,): ``rep[j]`` the first step j' >= 1 whose
    gaps ``t[:, j']`` have the same ceilings as ``t[:, j]`` in every row (the gaps are >= 0, so
    equal ceilings are equal bytes)."""
    F = t.shape[0]
    for j in range(m):
        rep[j] = j
    for j in range(2, m):
        for i in range(1, j):
            if rep[i] != i:
                continue
            same = True
            for f in range(F):
                if np.ceil(t[f, j]) != np.ceil(t[f, i]):
                    same = False
                    break
            if same:
                rep[j] = i
                break


@_kernel
def count_runs(H, n_runs):
    """``n_runs[f]``: the number of runs of row f of the grid histograms ``H`` (F, G) int64 (a run:
    a nonempty cell and the empty cells after it; a new one starts at cell 0 and after every
    nonempty cell). Returns the largest."""
    F, G = H.shape
    Rm = 1
    for f in range(F):
        c = 1
        for k in range(G - 1):
            if H[f, k] > 0:
                c += 1
        n_runs[f] = c
        Rm = max(Rm, c)
    return Rm


@_kernel
def run_tables(H, n, t, m, n_runs, kr, L, sr, Tc):
    """The runs (:func:`count_runs`) of every row of ``H``, written into the given arrays (Rm =
    ``L.shape[1]`` runs per row, padding after a row's last run): ``kr`` (F, Rm) the first cell of
    each run, ``L`` (F, Rm) its length in cells (0 on padding), ``sr`` (F, Rm) the records below
    it (padding: the records below the last cell), and ``Tc`` (F, m + 1) with ``Tc[:, j] = t_2 +
    ... + t_j`` (``t`` (F, m + 1): the gaps t_1..t_{m+1})."""
    F, G = H.shape
    Rm = L.shape[1]
    bk = np.empty(G + 1, dtype=np.int64)  # one row's run starts and records below them
    bs = np.empty(G + 1, dtype=np.int64)
    for f in range(F):
        nr = n_runs[f]
        s = np.int64(0)
        r = 0
        bk[0] = 0
        bs[0] = 0
        for k in range(1, G):  # without a branch on the data: entry r + 1 is kept only if cell k - 1 is nonempty
            h = H[f, k - 1]
            s += h
            bk[r + 1] = k
            bs[r + 1] = s
            r += 1 if h > 0 else 0
        for r in range(nr):
            kr[f, r] = bk[r]
            sr[f, r] = bs[r]
        for r in range(nr - 1):
            L[f, r] = kr[f, r + 1] - kr[f, r]
        L[f, nr - 1] = G - kr[f, nr - 1]
        pad = n[f] - H[f, G - 1]
        for r in range(nr, Rm):
            kr[f, r] = 0
            L[f, r] = 0.0
            sr[f, r] = pad
        Tc[f, 0] = 0.0
        Tc[f, 1] = 0.0
        acc = 0.0
        for j in range(2, m + 1):
            acc = t[f, j - 1] if j == 2 else acc + t[f, j - 1]
            Tc[f, j] = acc


@_kernel
def tabulated_rows(n, t, lam, m, direct):
    """Which rows can read their four per-run exponentials (``e^{±lam s_R}``, ``e^{-lam |s_R -
    t_1|}``, ``e^{-lam |n - s_R - t_{m+1}|}``) from tables indexed by the count ``s_R`` = 0..n made
    for row 0: those with row 0's lam, n, t_1 and t_{m+1} (then every argument is the one the
    table holds at s_R). ``direct[f]`` is set for the other rows; returns the number of the rows
    that read the tables."""
    F = n.size
    count = 0
    for f in range(F):
        same = lam[f] == lam[0] and n[f] == n[0] and t[f, 0] == t[0, 0] and t[f, m] == t[0, m]
        direct[f] = not same
        count += 1 if same else 0
    return count


@_kernel
def table_arguments(n0, lam0, t1, tl, T):
    """The arguments of the tables of :func:`tabulated_rows` (``T`` (4, n + 1), the caller takes
    ``np.exp`` of it): at every count s = 0..n, the four per-run arguments of
    :func:`exp_arguments` written with the same expressions (row 0's lam, n, t_1, t_{m+1})."""
    lf = lam0
    for k in range(T.shape[1]):
        s = float(k)
        T[0, k] = lf * s
        T[1, k] = -lf * s
        T[2, k] = -lf * abs(s - t1)
        T[3, k] = -lf * abs((n0 - s) - tl)


@_kernel
def exp_arguments(sr, n, t, lam, Tc, m, direct, out):
    """The arguments of every exponential of the run sampler, in one array (the caller takes
    ``np.exp`` of it, then :func:`forward` reads it): per row f and run R, ``lam s_R``,
    ``-lam s_R``, ``-lam |s_R - t_1|``, ``-lam |n - s_R - t_{m+1}|`` (4 (F, Rm) blocks; only for
    the rows with ``direct[f]``, the others read tables: :func:`tabulated_rows`), then ``-lam t``
    and ``lam t`` (2 (F, m + 1) blocks), then ``-lam (Tc[j_f] - Tc[max(j_f - c + 1, 1)])`` for
    j_f = 0..m, c = 1..m (one (F, m + 1, m) block), written into ``out`` (of :func:`exp_size`
    entries)."""
    F, Rm = sr.shape
    FR = F * Rm
    M = F * (m + 1)
    for f in range(F):
        lf = lam[f]
        if direct[f]:
            for r in range(Rm):
                s = sr[f, r]
                i = f * Rm + r
                out[i] = lf * s
                out[FR + i] = -lf * s
                out[2 * FR + i] = -lf * abs(s - t[f, 0])
                out[3 * FR + i] = -lf * abs((n[f] - s) - t[f, m])
        for j in range(m + 1):
            out[4 * FR + f * (m + 1) + j] = -lf * t[f, j]
            out[4 * FR + M + f * (m + 1) + j] = lf * t[f, j]
        base = 4 * FR + 2 * M + f * (m + 1) * m
        for jf in range(m + 1):
            for c in range(1, m + 1):
                jj = max(jf - c + 1, 1)
                out[base + jf * m + c - 1] = -lf * (Tc[f, jf] - Tc[f, jj])
    return out


def exp_size(F, Rm, m):
    """Entries of :func:`exp_arguments`' array."""
    return 4 * F * Rm + 2 * F * (m + 1) + F * (m + 1) * m


@njit(cache=True, nogil=True, inline="always")
def _first_over(w, u):
    """The inverse CDF of :func:`.quantiles._inverse_cdf` on one row: the first k with
    ``cumsum(w)[k] > u·sum(w)`` (the last positive weight if u·sum rounds up to the sum)."""
    K = w.size
    tot = 0.0
    for k in range(K):
        tot = w[k] if k == 0 else tot + w[k]
    thr = u * tot
    c = 0.0
    for k in range(K):
        c = w[k] if k == 0 else c + w[k]
        if not c <= thr:
            return k
    for k in range(K - 1, -1, -1):
        if w[k] > 0:
            return k
    return K - 1


@_kernel
def sample_rows(
    E, direct, T, L, sr, t, rep, n_runs, m, U, grp_run, grp_cnt, kr, grp_start, grp_len, binom, P1, w1, CP, CM, Wr
):
    """The forward dynamic program of :func:`.quantiles._draw_by_runs` over the runs and its
    backward draws, row by row: the run and count of the last outputs, then, for the outputs
    before them, the run R' < R (its CDF from the forward step's prefix sums, as
    :func:`.quantiles._runs_before`) and the count, until the row's m outputs are placed.

    ``E`` = ``np.exp`` of :func:`exp_arguments`; the rows without ``direct[f]`` read their four
    per-run exponentials from the tables ``T`` (4, n + 1) at their counts s_R instead
    (:func:`tabulated_rows`; numpy's ``exp`` of the same arguments: the same values); ``U`` (2m, F): the uniforms of the backward
    steps as the numpy sampler draws them, F at a time (step 2k: the run of group k, step 2k + 1:
    its count), every row reading its own column. Writes each row's groups (run, count) into
    ``grp_run``, ``grp_cnt`` (F, m) (zeros after its last group) and returns the largest number
    of groups of a row (the numpy sampler's number of backward steps, halved); ``grp_start``,
    ``grp_len`` (F, m) int64: the first cell (from ``kr``) and the length of each group's run. ``binom``, ``w1``
    (m + 1, Rm), ``P1`` (m, Rm) int64 (row j filled only where ``rep[j] == j``: the other steps
    read row ``rep[j]``), ``CP``, ``CM`` (m, Rm + 1) and ``Wr`` (m + 1, Rm): one row's tables
    (scratch)."""
    F, Rm = L.shape
    ep = np.empty(Rm)
    em = np.empty(Rm)
    acc = np.empty(Rm)
    am = np.empty(Rm)
    bp = np.empty(Rm)
    tab = np.empty((4, Rm))
    top = 0.0
    for f in range(F):
        top = max(top, sr[f, Rm - 1])
    cnt = np.empty(np.int64(top) + 2 if top + 2.0 <= 8.0 * Rm else 0, dtype=np.int64)
    g_max = 0
    for f in range(F):
        e_s, e_ms, e_w1, e_last, kappa, elt, etab = _row_exps(E, F, Rm, m, f)
        if not direct[f]:
            _tabled_exps(T, sr[f], tab)
            e_s, e_ms, e_w1, e_last = tab[0], tab[1], tab[2], tab[3]
        _row_tables(e_s, e_ms, e_w1, L[f], sr[f], t[f], rep, n_runs[f], m, ep, em, binom, P1, w1, cnt)
        _forward(kappa, elt, m, ep, em, binom, P1, rep, w1, CP, CM, Wr, acc, am, bp)
        for r in range(Rm):  # the run of the last output, ∝ B_m(R) exp(-lam |n - s_R - t_{m+1}|)
            acc[r] = e_last[r] * acc[r]
        g = _backward(acc, elt, etab, m, U[:, f], ep, em, binom, P1, rep, w1, CP, CM, grp_run[f], grp_cnt[f])
        g_max = max(g_max, g)
        for k in range(m):  # each group's first cell and length (the padding groups: run 0's)
            R = grp_run[f, k]
            grp_start[f, k] = kr[f, R]
            grp_len[f, k] = np.int64(L[f, R])
    return g_max


@njit(cache=True, nogil=True)
def _tabled_exps(T, srf, out):
    """One row's e^{lam s}, e^{-lam s}, e^{-lam |s - t_1|}, e^{-lam |n - s - t_{m+1}|} per run (into
    ``out`` (4, Rm)) from the tables ``T`` (4, n + 1) at the runs' counts s (integers)."""
    for r in range(srf.size):
        k = np.int64(srf[r])
        for b in range(4):
            out[b, r] = T[b, k]


@njit(cache=True, nogil=True, inline="always")
def _row_exps(E, F, Rm, m, f):
    """Row f's entries of E (:func:`exp_arguments`): e^{lam s}, e^{-lam s}, W_1 and the last
    output's factor (per run), e^{-lam t} and e^{lam t} (per gap), the count step's factors (per
    j_f and c, flat)."""
    FR = F * Rm
    M = F * (m + 1)
    o = 4 * FR + f * (m + 1)
    p = 4 * FR + 2 * M + f * (m + 1) * m
    return (
        E[f * Rm : (f + 1) * Rm],
        E[FR + f * Rm : FR + (f + 1) * Rm],
        E[2 * FR + f * Rm : 2 * FR + (f + 1) * Rm],
        E[3 * FR + f * Rm : 3 * FR + (f + 1) * Rm],
        E[o : o + m + 1],
        E[M + o : M + o + m + 1],
        E[p : p + (m + 1) * m],
    )


@njit(cache=True, nogil=True)
def forward_tables(E, L, sr, t, rep, n_runs, m):
    """Every row's forward tables as :func:`sample_rows` computes them (for tests: the numpy
    sampler's ``binom``, ``w1`` and prefix sums, entry by entry): ``binom``, ``w1`` (F, m + 1,
    Rm), ``CP``, ``CM`` (F, m, Rm + 1), ``B_m`` (F, Rm)."""
    F, Rm = L.shape
    binom = np.zeros((F, m + 1, Rm))
    P1 = np.zeros((F, m, Rm), dtype=np.int64)
    w1 = np.zeros((F, m + 1, Rm))
    CP = np.zeros((F, m, Rm + 1))
    CM = np.zeros((F, m, Rm + 1))
    Bm = np.zeros((F, Rm))
    Wr = np.empty((m + 1, Rm))
    ep = np.empty(Rm)
    em = np.empty(Rm)
    am = np.empty(Rm)
    bp = np.empty(Rm)
    cnt = np.empty(np.int64(sr.max()) + 2 if F else 0, dtype=np.int64)
    for f in range(F):
        e_s, e_ms, e_w1, _, kappa, elt, _ = _row_exps(E, F, Rm, m, f)
        _row_tables(e_s, e_ms, e_w1, L[f], sr[f], t[f], rep, n_runs[f], m, ep, em, binom[f], P1[f], w1[f], cnt)
        _forward(kappa, elt, m, ep, em, binom[f], P1[f], rep, w1[f], CP[f], CM[f], Wr, Bm[f], am, bp)
    return binom, w1, CP, CM, Bm


@njit(cache=True, nogil=True)
def _row_tables(e_s, e_ms, e_w1, Lf, srf, tf, rep, nr, m, ep, em, binom, P1, w1, cnt):
    """One row's e^{±lam s} (0 on padding runs: their weights stay 0), W_1(., 1), the binomials
    ``C(L + c - 1, c) = C(L + c - 2, c - 1) (L + c - 1) / c`` and, per step j, p + 1: the runs R'
    with ``s_R' <= floor(s_R - t_{j+1})`` (at the t of step rep[j], where the numpy sampler
    computes the table it reuses for every step with the same ceil(t); only row rep[j] is written),
    from a table of the runs below every count (``cnt``, scratch; when the row's counts fit in it)
    or by a merge."""
    Rm = Lf.size
    for r in range(Rm):
        live = 1.0 if Lf[r] > 0.0 else 0.0
        ep[r] = e_s[r] * live
        em[r] = e_ms[r] * live
        w1[1, r] = e_w1[r] * live
        binom[1, r] = Lf[r] + 0
    for c in range(2, m + 1):
        prev, bc = binom[c - 1], binom[c]
        for r in range(Rm):
            bc[r] = (prev[r] * (Lf[r] + (c - 1))) / c
    _runs_below(srf, tf, rep, nr, m, P1, cnt)


@njit(cache=True, nogil=True)
def _runs_below(srf, tf, rep, nr, m, P1, cnt):
    """``P1[j]`` (j = rep[j]): p + 1 for every run R, the number of runs R' with ``s_R' <=
    floor(s_R - t_{j+1})``, from ``cnt`` (scratch) counting the runs below every count when the
    row's counts fit in it, else by a merge along the row."""
    Rm = srf.size
    top = srf[Rm - 1]  # the largest s of the row (sorted; padding: the records below the last cell)
    table = top + 2.0 <= cnt.size
    if table:  # cnt[x]: the runs R' with s_R' <= x - 1 (s: integers in [0, top])
        for x in range(np.int64(top) + 2):
            cnt[x] = 0
        for q in range(nr):
            cnt[np.int64(srf[q]) + 1] += 1
        for x in range(1, np.int64(top) + 2):
            cnt[x] += cnt[x - 1]
    for j in range(1, m):
        if rep[j] != j:  # step j reads row rep[j]
            continue
        pj = P1[j]
        tj = tf[j]
        if table:  # v in [-1, top] is an integer: one look-up, no data-dependent branch
            for r in range(Rm):
                v = np.floor(srf[r] - tj)
                if v < -1.0:
                    v = -1.0
                pj[r] = cnt[np.int64(v) + 1]
            continue
        p = 0  # v never decreases along the row
        for r in range(Rm):
            v = np.floor(srf[r] - tj)
            if v < -1.0:
                v = -1.0
            while p < nr and srf[p] <= v:
                p += 1
            pj[r] = p


@njit(cache=True, nogil=True)
def _forward(kappa, elt, m, ep, em, binom, P1, rep, w1, CP, CM, Wr, acc, am, bp):
    """One row's forward steps: ``W_j(R, c) = W_{j-1}(R, c - 1) e^{-lam t_j}`` (in ``Wr[m + 1 - j +
    c - 1]`` for c >= 2, multiplied in place; W_j(., 1) is read from ``w1[j]``), ``B_j = sum_c
    W_j(., c) C(L + c - 1, c)`` (summed over c in order), then ``W_{j+1}(., 1)`` from the prefix
    sums ``CP``, ``CM`` of ``B_j e^{±lam s}``; leaves B_m in ``acc``.

    The operations of the numpy sampler on the same operands, in the same order: the prefix sums
    of step j, ``W_{j+1}(., 1)`` and the first term ``W_{j+1}(., 1) C(L, 1)`` of B_{j+1} in one pass
    over the runs (run R needs the sums up to ``p + 1 <= R + 1``: the runs R' at least t_{j+1} > 0
    below R are before it), then one pass per further term. The factors ``e^{-lam s} e^{lam t}`` and ``e^{lam s}
    / e^{lam t}`` (``am``, ``bp``) are computed again only when e^{lam t} changes (equal gaps: once)."""
    Rm = acc.size
    e_prev = -1.0  # e^{lam t} > 0: no factors yet
    b1 = binom[1]
    w11 = w1[1]
    for r in range(Rm):  # B_1's first term; B_j's for j > 1 are written with W_j(., 1) below
        acc[r] = w11[r] * b1[r]
    for j in range(1, m + 1):
        kap = kappa[j - 1]
        if j > 1:  # c = 2: W_j(., 2) = W_{j-1}(., 1) e^{-lam t_j}, into the slot of c = 2
            src, W2, b2 = w1[j - 1], Wr[m + 2 - j], binom[2]
            for r in range(Rm):
                w = src[r] * kap
                W2[r] = w
                acc[r] += w * b2[r]
        for c in range(3, j + 1):  # each W_j(., c) multiplied, then added (one pass per c)
            Wc, bc = Wr[m - j + c], binom[c]
            for r in range(Rm):
                w = Wc[r] * kap
                Wc[r] = w
                acc[r] += w * bc[r]
        if j == m:
            return
        e = elt[j]
        if e != e_prev:
            for r in range(Rm):
                am[r] = em[r] * e
                bp[r] = ep[r] / e
            e_prev = e
        cpj, cmj = CP[j], CM[j]
        pj, out = P1[rep[j]], w1[j + 1]
        cpj[0] = 0.0
        cmj[0] = 0.0
        late = False
        cp = -0.0  # -0.0 + x is x (+0.0 for x = +0.0): the first sum is its first term, no branch
        cm = -0.0
        below = 0.0  # cmj[r]
        for r in range(Rm):  # B_j's prefix sums, W_{j+1}(., 1) and the first term of B_{j+1}
            a = acc[r]
            cp = cp + a * ep[r]
            cm = cm + a * em[r]
            cpj[r + 1] = cp
            cmj[r + 1] = cm
            p1 = pj[r]
            if p1 <= r + 1:
                o = cpj[p1] * am[r] + (below - cmj[p1]) * bp[r]
                out[r] = o
                acc[r] = o * b1[r]
            else:  # not with t_{j+1} > 0; kept for safety: after the sums
                late = True
            below = cm
        if late:
            for r in range(Rm):
                p1 = pj[r]
                out[r] = cpj[p1] * am[r] + (cmj[r] - cmj[p1]) * bp[r]
                acc[r] = out[r] * b1[r]


@njit(cache=True, nogil=True)
def _backward(w_last, elt, etab, m, u, ep, em, binom, P1, rep, w1, CP, CM, grp_run, grp_cnt):
    """One row's backward draws from the weights ``w_last`` of the last output's run, with the
    row's uniforms ``u`` (2m,): the count of the outputs in the current run, then the run of the
    output before them, until the m outputs are placed. Returns the number of groups."""
    wc = np.empty(m)
    R = _first_over(w_last, u[0])
    jf = m
    g = 0
    while True:
        for ci in range(m):  # the count c of the outputs jf - c + 1 .. jf in run R
            jj = jf - ci
            x = w1[max(jj, 1), R] * binom[ci + 1, R]
            x *= etab[jf * m + ci]
            wc[ci] = x if jj >= 1 else 0.0
        c = _first_over(wc, u[2 * g + 1]) + 1
        grp_run[g] = R
        grp_cnt[g] = c
        g += 1
        jf -= c
        if jf <= 0:
            break
        # the run R' < R of the output jf, ∝ B_jf(R') exp(-lam |s_R - s_R' - t_{jf+1}|)
        R = _run_before(CP[jf], CM[jf], P1[rep[jf], R], em[R], ep[R], elt[jf], R, u[2 * g])
    for k in range(g, m):
        grp_run[k] = 0
        grp_cnt[k] = 0
    return g


@njit(cache=True, nogil=True, inline="always")
def _run_before(cpj, cmj, p1, em_r, ep_r, e, rc, u):
    """The run R' < rc with the weights of step j (prefix sums ``cpj``, ``cmj`` of B_j e^{±lam s})
    by the inverse CDF at u, as :func:`.quantiles._runs_before`: the cumulative weight of R' is
    ``cpj[R' + 1]·a`` up to p and ``left + (cmj[R' + 1] − cmj[p + 1])·b`` after it, never
    decreasing along the row (sums of nonnegative terms, scaled and shifted by the same positive
    numbers, rounding monotone; the two parts meet at ``left``); the first R' beyond ``u·total``
    (the last run if none), found by bisection: the run a scan from R' = 0 would stop at."""
    a = em_r * e
    b = ep_r / e
    left = cpj[p1] * a
    cm_p = cmj[p1]
    last = max(rc - 1, 0)
    tot = cpj[last + 1] * a if last < p1 else left + (cmj[last + 1] - cm_p) * b
    thr = u * tot
    lo = 0
    hi = rc
    while lo < hi:  # the first col with weight beyond thr: a binary search (the weights never decrease)
        col = (lo + hi) // 2
        v = cpj[col + 1] * a if col < p1 else left + (cmj[col + 1] - cm_p) * b
        if not v <= thr:
            hi = col
        else:
            lo = col + 1
    return lo if lo < rc else last


@_kernel
def multisets(u, logu, lg, start, c, Lc, cells):
    """:func:`.quantiles._multisets_in_runs`, every round in one call: ``u`` (rounds, F, ng) its
    uniforms, ``logu`` their logarithms (``np.log(u)``). Round by round, in every group with
    outputs left, the largest of a uniform multiset of c cells among Lc (the inverse CDF: closed
    form for c = 1, bisection on the log binomials of the table ``lg`` of ``gammaln(v + 1)``
    otherwise) goes to the row's next free cell of ``cells`` (F, m); ``c`` and ``Lc`` (F, ng) are
    updated in place."""
    F, ng = c.shape
    filled = np.zeros(F, dtype=np.int64)
    for k in range(u.shape[0]):
        uk, lk = u[k], logu[k]
        for f in range(F):
            for g in range(ng):
                cc = c[f, g]
                if cc <= 0:
                    continue
                Lg = Lc[f, g]
                lo_v = min(np.int64(uk[f, g] * Lg), max(Lg - 1, 0))
                if cc >= 2:
                    lgc = lg[cc]
                    target = lk[f, g] + ((lg[Lg + cc - 1] - lgc) - lg[Lg - 1])
                    a = np.int64(0)
                    b = Lg - 1
                    while a < b:  # smallest v with log C(v + c, c) >= target
                        mid = (a + b) // 2
                        if (lg[mid + cc] - lgc) - lg[mid] >= target:
                            b = mid
                        else:
                            a = mid + 1
                    lo_v = a
                cells[f, filled[f]] = start[f, g] + lo_v
                filled[f] += 1
                c[f, g] = cc - 1
                Lc[f, g] = lo_v + 1
