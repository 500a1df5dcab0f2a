"""How sure paper 003's comparisons are: seed-bootstrap uncertainty of paired shares, and the
"at a given accuracy" pairing of optimal and greedy models (Fig. 2b / 3b)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from .frames import _with_params

__all__ = ["paired_uncertainty", "same_accuracy_uncertainty", "same_accuracy_failures", "depth_breakdown"]

# Two learners' Dist_G closer than this are a tie: the same partition summed over its leaves in another
# order differs by float rounding (~1e-16), which must not count as one learner leaking more.
TIE_TOL = 1e-9


def paired_uncertainty(df, a, b, dataset, metric="dist_g", sign=-1, min_depth=2, n_boot=2000, seed=0):
    """How sure the share "``a`` below ``b``" (``sign=-1``; ``+1``: above) over a grid's settings is.

    ``df``: tidy rows. Per setting (depth ≥ ``min_depth``, λ) of ``dataset`` the seed-mean
    difference d = a − b of ``metric`` over the seeds (paired: one split per seed); a setting
    that misses a seed of either learner (a partial grid) is left out. Returns a dict: ``share`` (settings with sign(d) as stated), ``n`` settings, ``ci``
    (2.5 %, 97.5 %) of that share when the seeds are resampled with replacement ``n_boot`` times
    (one draw of seeds for every setting, so settings stay dependent as in the data; a mean
    difference within :data:`TIE_TOL` of 0 is a tie: not the stated sign, and left out of the sign
    test), ``diff``
    (mean d over settings) with its bootstrap ``diff_ci``, and ``p_sign``: the exact two-sided
    sign test of the settings' signs against ½ (settings share their seeds and nest in depth, so
    they are not independent: read it as a descriptive number, the bootstrap as the uncertainty).
    """
    from scipy.stats import binomtest

    nan2 = (float("nan"), float("nan"))
    empty = dict(share=float("nan"), k=0, n=0, ci=nan2, diff=float("nan"), diff_ci=nan2, p_sign=float("nan"), seeds=0)
    d = _with_params(df[(df["metric"] == metric) & (df["dataset"] == dataset) & df["learner"].isin([a, b])])
    if d.empty:
        return empty
    d = d[d["depth"] >= min_depth]
    wide = d.pivot_table(index=["depth", "support", "seed"], columns="learner", values="value").dropna()
    if wide.empty or a not in wide or b not in wide:
        return empty
    diff = (wide[a] - wide[b]).unstack("seed").dropna(how="any")  # settings × seeds, every seed run
    if diff.empty:
        return empty
    seeds = diff.columns.to_numpy()
    vals = diff.to_numpy()
    mean = vals.mean(axis=1)
    ok = sign * mean > TIE_TOL  # a tie (the same partition) is not the stated direction
    rng = np.random.default_rng(seed)
    shares, diffs = np.empty(n_boot), np.empty(n_boot)
    for i in range(n_boot):
        pick = rng.integers(0, len(seeds), len(seeds))
        m = vals[:, pick].mean(axis=1)
        shares[i] = np.mean(sign * m > TIE_TOL)
        diffs[i] = m.mean()
    nz = int(np.sum(np.abs(mean) > TIE_TOL))
    p = float(binomtest(int(ok.sum()), nz, 0.5).pvalue) if nz else float("nan")
    return dict(
        share=float(ok.mean()),
        k=int(ok.sum()),
        n=int(ok.size),
        ci=tuple(float(v) for v in np.quantile(shares, [0.025, 0.975])),
        diff=float(np.mean(mean)),
        diff_ci=tuple(float(v) for v in np.quantile(diffs, [0.025, 0.975])),
        p_sign=p,
        seeds=int(len(seeds)),
    )


ACCURACY_PAIRINGS = ("dominance", "curve")
FAILURE_BOOT = 2000  # seed resamples per failure test in the statement tables


def _optimal_at_accuracy(acc, dist, a, tol=1e-12):
    """Dist_G of one optimal line of Fig. 2b / 3b at training accuracy ``a``.

    The authors draw, per (learner, λ), the seed means over depths sorted by training accuracy and
    joined by straight segments (Sec. V-B, Fig. 2b / 3b). Returns ``(value, where)``: ``"on"`` when
    ``a`` lies in the line's accuracy range (linear interpolation on the segment that crosses it;
    where the line takes that accuracy at several points, the highest Dist_G among them),
    ``"below"`` when every point is more accurate (the least accurate point's Dist_G: a model of that
    support exists that is more accurate), ``"above"`` when no point is as accurate (NaN).
    """
    acc = np.asarray(acc, dtype=float)
    dist = np.asarray(dist, dtype=float)
    if acc.size == 0 or a > acc.max() + tol:
        return float("nan"), "above"
    if a < acc.min() - tol:
        return float(dist[acc <= acc.min() + tol].max()), "below"
    at = np.abs(acc - a) <= tol
    if at.any():
        return float(dist[at].max()), "on"
    lo, hi = acc < a, acc > a  # both non-empty here; the crossing segment joins their nearest points
    i = np.flatnonzero(lo)[np.argmax(acc[lo])]
    j = np.flatnonzero(hi)[np.argmin(acc[hi])]
    # among points tied at the nearest accuracies the sorted line joins (acc_i, max) to (acc_j, min)
    d_i = dist[np.abs(acc - acc[i]) <= tol].max()
    d_j = dist[np.abs(acc - acc[j]) <= tol].min()
    t = (a - acc[i]) / (acc[j] - acc[i])
    return float(d_i + t * (d_j - d_i)), "on"


def _accuracy_pairs(o, g, pairing="dominance", tol=1e-12):
    """Per greedy setting (rows of ``g``), whether an optimal model "at its accuracy" leaks no more.

    ``o`` / ``g``: seed means (frames or dicts of arrays) ``support``, ``train_accuracy``, ``dist_g`` of the optimal
    and greedy learner on one dataset. ``pairing="dominance"``: some optimal setting (any depth, any
    λ) is at least as accurate and has a Dist_G at least as high. ``pairing="curve"`` (the authors'
    figure, Sec. V-B Fig. 2b / 3b): the optimal line of the *same* λ, read at the greedy setting's
    accuracy (:func:`_optimal_at_accuracy`), is at least as high; a greedy setting more accurate
    than every optimal setting of its λ fails. Returns ``(ok, shortfall)``: booleans, and the
    greedy Dist_G minus the optimal one it was compared with (positive: the greedy model leaks less;
    NaN where nothing was as accurate).
    """
    if pairing not in ACCURACY_PAIRINGS:
        raise ValueError(f"pairing must be one of {ACCURACY_PAIRINGS}, got {pairing!r}")
    ok, short = [], []
    acc_all, dg_all = np.asarray(o["train_accuracy"], dtype=float), np.asarray(o["dist_g"], dtype=float)
    sup_all = np.asarray(o["support"], dtype=float)
    for a, d, lam in zip(g["train_accuracy"], g["dist_g"], g["support"]):
        if pairing == "dominance":
            accurate = acc_all >= a - tol
            ref = float(dg_all[accurate].max()) if accurate.any() else float("nan")
        else:
            same = np.isclose(sup_all, float(lam))
            ref, _ = _optimal_at_accuracy(acc_all[same], dg_all[same], float(a), tol)
        ok.append(bool(np.isfinite(ref) and ref >= d - tol))
        short.append(float(d - ref) if np.isfinite(ref) else float("nan"))
    return np.array(ok, dtype=bool), np.array(short, dtype=float)


def _accuracy_cube(df, optimal, greedy, dataset):
    """Per-seed arrays of the optimal and greedy learner on ``dataset`` for the "at a given accuracy"
    tests: ``(arrays, seeds, greedy_settings)`` with ``arrays[learner] = (support, accuracy, dist_g)``
    (settings × seeds) over the settings with every seed run, ``greedy_settings`` their (depth, λ);
    ``None`` when either learner has no complete setting."""
    d = df[df["metric"].isin(["dist_g", "train_accuracy"]) & (df["dataset"] == dataset)]
    d = _with_params(d[d["learner"].isin([optimal, greedy])])
    if d.empty:
        return None
    cube = d.pivot_table(index=["learner", "depth", "support"], columns=["metric", "seed"], values="value")
    if optimal not in cube.index.get_level_values(0) or greedy not in cube.index.get_level_values(0):
        return None
    cube = cube.dropna(how="any")  # a setting that misses a seed is left out
    seeds = sorted(set(cube["dist_g"].columns) & set(cube["train_accuracy"].columns))
    if not seeds or cube.empty:
        return None
    arrays = {}
    for lr in (optimal, greedy):
        if lr not in cube.index.get_level_values(0):
            return None
        c = cube.loc[lr]
        arrays[lr] = (
            c.index.get_level_values("support").to_numpy(float),
            c["train_accuracy"][seeds].to_numpy(float),
            c["dist_g"][seeds].to_numpy(float),
        )
    settings = list(cube.loc[greedy].index)
    return arrays, seeds, settings


def _cube_means(arrays, optimal, greedy, pick):
    """(optimal, greedy) seed means over the seeds ``pick`` (a resample, or every seed)."""

    def means(sup, acc, dg):
        return {"support": sup, "train_accuracy": acc[:, pick].mean(axis=1), "dist_g": dg[:, pick].mean(axis=1)}

    return means(*arrays[optimal]), means(*arrays[greedy])


def same_accuracy_uncertainty(df, optimal, greedy, dataset, pairing="dominance", n_boot=2000, seed=0):
    """How sure the share of Fig. 2b / 3b's "at a given accuracy, optimal leaks no more" is.

    ``df``: tidy rows. The share is over the greedy settings (depth, λ) of ``dataset`` with every
    seed run for both learners, tested by :func:`_accuracy_pairs` with ``pairing`` on the seed
    means. Its uncertainty: the seeds are resampled with replacement ``n_boot`` times (one draw for
    every setting of both learners, as in :func:`paired_uncertainty`) and the share recomputed.
    Returns a dict: ``share``, ``k``, ``n``, ``ci`` (2.5 %, 97.5 %), ``shortfall`` (the largest
    greedy-minus-optimal Dist_G over the failing settings; NaN if none fails) and ``seeds``.
    """
    nan2 = (float("nan"), float("nan"))
    empty = dict(share=float("nan"), k=0, n=0, ci=nan2, shortfall=float("nan"), seeds=0)
    got = _accuracy_cube(df, optimal, greedy, dataset)
    if got is None:
        return empty
    arrays, seeds, _ = got
    o, g = _cube_means(arrays, optimal, greedy, np.arange(len(seeds)))
    if not (len(o["support"]) and len(g["support"])):
        return empty
    ok, short = _accuracy_pairs(o, g, pairing)
    rng = np.random.default_rng(seed)
    shares = np.full(n_boot if len(seeds) > 1 else 1, ok.mean())  # one seed: nothing to resample
    for i in range(n_boot if len(seeds) > 1 else 0):
        pick = rng.integers(0, len(seeds), len(seeds))
        o_b, g_b = _cube_means(arrays, optimal, greedy, pick)
        shares[i] = _accuracy_pairs(o_b, g_b, pairing)[0].mean()
    failing = short[~ok & np.isfinite(short)]
    return dict(
        share=float(ok.mean()),
        k=int(ok.sum()),
        n=int(ok.size),
        ci=tuple(float(v) for v in np.quantile(shares, [0.025, 0.975])),
        shortfall=float(failing.max()) if failing.size else float("nan"),
        seeds=len(seeds),
    )


def same_accuracy_failures(df, optimal, greedy, dataset, pairing="curve", n_boot=2000, seed=0, level=0.95):
    """Is each failure of "at a given accuracy, optimal leaks no more" beyond the seed noise?

    A greedy setting fails (:func:`_accuracy_pairs` on the seed means) when its Dist_G is above the
    optimal model or line it is paired with, by its ``shortfall`` > 0. Both sides are seed means:
    the greedy setting's Dist_G and accuracy, and the optimal line (``"curve"``: interpolated at the
    greedy accuracy, so its noise includes the greedy accuracy's). The seeds are resampled with
    replacement ``n_boot`` times, one draw for both learners (a seed is one split shared by both),
    and the shortfall recomputed from the resampled means of both; where the resampled greedy
    accuracy is beyond every optimal model of the pairing the shortfall is +∞ (a failure). A
    failure is *significant* when the lower end of the ``level`` two-sided percentile interval of
    its shortfall is above 0: the optimal line is below the greedy point in (1 + level)/2 of the
    resamples. One test per failing setting, no correction for their number.

    Returns a frame, one row per failing setting: ``depth``, ``support``, ``shortfall`` (seed means),
    ``ci_lo``, ``ci_hi``, ``p_fail`` (share of resamples where it still fails) and ``significant``.
    """
    cols = ["depth", "support", "shortfall", "ci_lo", "ci_hi", "p_fail", "significant"]
    if not 0 < level < 1:
        raise ValueError(f"level must be in (0, 1), got {level!r}")
    got = _accuracy_cube(df, optimal, greedy, dataset)
    if got is None:
        return pd.DataFrame(columns=cols)
    arrays, seeds, settings = got
    o, g = _cube_means(arrays, optimal, greedy, np.arange(len(seeds)))
    ok, short = _accuracy_pairs(o, g, pairing)
    fail = np.flatnonzero(~ok)
    if fail.size == 0:
        return pd.DataFrame(columns=cols)
    rng = np.random.default_rng(seed)
    boots = np.empty((n_boot, fail.size))
    for b in range(n_boot):
        pick = rng.integers(0, len(seeds), len(seeds))
        o_b, g_b = _cube_means(arrays, optimal, greedy, pick)
        _, s_b = _accuracy_pairs(o_b, g_b, pairing)
        boots[b] = np.where(np.isfinite(s_b[fail]), s_b[fail], np.inf)
    lo, hi = np.quantile(boots, [(1 - level) / 2, (1 + level) / 2], axis=0)
    out = []
    for j, i in enumerate(fail):
        depth, lam = settings[i]
        out.append(
            dict(
                depth=int(depth),
                support=float(lam),
                shortfall=float(short[i]) if np.isfinite(short[i]) else math.inf,
                ci_lo=float(lo[j]),
                ci_hi=float(hi[j]),
                p_fail=float(np.mean(boots[:, j] > 1e-12)),
                significant=bool(lo[j] > 1e-12),
            )
        )
    return pd.DataFrame(out, columns=cols)


def depth_breakdown(df, a="sklearn_DT", b="DL8.5", dataset="adult", sign=-1, metric="dist_g", n_boot=2000):
    """:func:`paired_uncertainty` of ``a`` vs ``b`` per depth and over the depth ranges 2–d.

    Returns a frame with one row per depth (``depths`` "d") then per range ("2–d" for each d ≥ 3 such
    that every depth 2…d has results), with ``k``, ``n``, ``ci_lo``, ``ci_hi``, ``diff``, ``diff_lo``, ``diff_hi``, ``p_sign``.
    """
    d = _with_params(df[(df["dataset"] == dataset) & df["learner"].isin([a, b])])
    if d.empty:
        return pd.DataFrame()
    depths = sorted(int(x) for x in d["depth"].dropna().unique() if x >= 2)
    out = []

    def one(label, lo, hi):
        sub = df.loc[d.index[(d["depth"] >= lo) & (d["depth"] <= hi)]]
        u = paired_uncertainty(sub, a, b, dataset, metric=metric, sign=sign, min_depth=lo, n_boot=n_boot)
        if u["n"]:
            done.add(label)
            out.append(
                dict(
                    depths=label,
                    k=u["k"],
                    n=u["n"],
                    ci_lo=u["ci"][0],
                    ci_hi=u["ci"][1],
                    diff=u["diff"],
                    diff_lo=u["diff_ci"][0],
                    diff_hi=u["diff_ci"][1],
                    p_sign=u["p_sign"],
                )
            )

    done: set = set()
    for dep in depths:
        one(str(dep), dep, dep)
    for dep in depths[1:]:
        if all(str(x) in done for x in range(2, dep + 1)):  # a range only where every depth in it has results
            one(f"2–{dep}", 2, dep)
    return pd.DataFrame(out)
