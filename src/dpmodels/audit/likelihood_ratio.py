"""Reference-model membership scores: LiRA (Carlini et al. 2022) and RMIA (Zarifzadeh et al. 2024).

Pure functions on model outputs, so each formula is testable by hand. Notation: for a record
(x, y) and a model θ, p_θ(x) = P_θ(y | x), the probability the model gives the record's true label.

LiRA — "Membership Inference Attacks From First Principles" (Carlini et al., S&P 2022)
--------------------------------------------------------------------------------------
Signal: the logit-scaled confidence φ = log(p / (1 − p)) (their Sec. IV-C, "logit scaling"), which
makes the distribution of the signal over training randomness close to Gaussian. Here p is
clipped to [c, 1 − c] (``clip``, default 10⁻⁶) because rule lists and trees output exact 0 and 1.
For each record, Gaussians are fitted to φ over the reference models trained **with** the record
(IN: μ_in, σ²_in) and **without** it (OUT: μ_out, σ²_out) (their Alg. 1), and the target's
observation φ_obs is scored by

* online (their Alg. 1, line 15):  Λ = log N(φ_obs; μ_in, σ²_in) − log N(φ_obs; μ_out, σ²_out);
* offline (their Sec. VI-B): the one-sided test against OUT only, Λ = 1 − P[Z > φ_obs],
  Z ~ N(μ_out, σ²_out). We return the equivalent (same ranking, no saturation at 1.0 in floating
  point) standardised score (φ_obs − μ_out) / σ_out.

**Fixed variance** (their Sec. VI-B: "with few shadow models, estimate a global variance"):
σ²_in and σ²_out are replaced by one pooled value each — the mean over records of the
per-record (unbiased) variances, i.e. the MLE of a common within-record variance (their code takes
the variance of all values together, which also counts the spread *between* records' means; we
do not). ``fix_variance="auto"`` uses it when some record has fewer than 32 fits on a side.
Means are sample means (a two-point output distribution, common here, has a useless median).
Variances are floored at ``min_var`` = 10⁻⁶.

RMIA — "Low-Cost High-Power Membership Inference Attacks" (Zarifzadeh et al., ICML 2024)
----------------------------------------------------------------------------------------
Pairwise likelihood ratio of x against population records z (their Eq. 3–4):

    LR_θ(x, z) = (p_θ(x) / Pr(x)) / (p_θ(z) / Pr(z)),   Score(x) = P_{z ∈ Z}[ LR_θ(x, z) ≥ γ ]

with Pr(·) the average of p over reference models. Online: Pr(x) = ½(mean_IN + mean_OUT) (the
references are half IN, half OUT; we weight the two sides equally whatever the counts). Offline,
only OUT models exist and the missing IN average is approximated linearly,
Pr(x)_IN ≈ a · Pr(x)_OUT + (1 − a), giving (their Sec. 3, offline):

    Pr(x) = ½ ((1 + a) · Pr(x)_OUT + (1 − a)),

applied alike to x and to z. a is tuned like in the paper: one reference model plays the target,
and the a of a grid with the best AUC on the pool is kept (:func:`tune_rmia_a`). γ = 1 by
default. Score ties (coarse outputs) are left as ties; the ROC handles them.
"""

from __future__ import annotations

import numpy as np

from ._roc import roc_auc, roc_curve

__all__ = ["logit_confidence", "lira_online", "lira_offline", "rmia_scores", "tune_rmia_a"]

MIN_VAR = 1e-6
AUTO_MIN_FITS = 32


def logit_confidence(p, clip=1e-6) -> np.ndarray:
    """φ(p) = log(p / (1 − p)) with p clipped to [clip, 1 − clip] (Carlini et al., Sec. IV-C)."""
    if not 0 < clip < 0.5:
        raise ValueError(f"clip must be in (0, 0.5), got {clip!r}")
    p = np.clip(np.asarray(p, dtype=float), clip, 1.0 - clip)
    return np.log(p) - np.log1p(-p)


def _side_stats(phi, mask):
    """Per-record mean, unbiased variance and count of φ over the references in ``mask`` (R, n)."""
    cnt = mask.sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        mu = np.where(cnt > 0, (phi * mask).sum(axis=0) / np.maximum(cnt, 1), np.nan)
        dev = np.where(mask, phi - mu, 0.0)
        var = np.where(cnt > 1, (dev**2).sum(axis=0) / np.maximum(cnt - 1, 1), np.nan)
    return mu, var, cnt


def _pooled(var, cnt):
    """Pooled within-record variance: Σ (cnt−1)·var / Σ (cnt−1) over records with cnt ≥ 2."""
    ok = cnt > 1
    if not ok.any():
        return MIN_VAR
    return float(np.sum((cnt[ok] - 1) * var[ok]) / np.sum(cnt[ok] - 1))


def _resolve_fixed(fix_variance, *counts):
    if fix_variance == "auto":
        return min(int(c.min()) for c in counts) < AUTO_MIN_FITS
    return bool(fix_variance)


def lira_online(phi_target, phi_ref, in_mask, fix_variance="auto", min_var=MIN_VAR) -> np.ndarray:
    """Online LiRA score per record (log-likelihood ratio IN vs OUT Gaussians).

    ``phi_target``: (n,) target's φ; ``phi_ref``: (R, n) references' φ; ``in_mask``: (R, n) True
    where the reference was trained on the record. Every record needs ≥ 1 IN and ≥ 1 OUT fit.
    """
    phi_ref = np.asarray(phi_ref, dtype=float)
    in_mask = np.asarray(in_mask, dtype=bool)
    mu_in, var_in, n_in = _side_stats(phi_ref, in_mask)
    mu_out, var_out, n_out = _side_stats(phi_ref, ~in_mask)
    if (n_in == 0).any() or (n_out == 0).any():
        raise ValueError("online LiRA needs at least one IN and one OUT reference for every record")
    if _resolve_fixed(fix_variance, n_in, n_out):
        var_in = np.full_like(mu_in, _pooled(var_in, n_in))
        var_out = np.full_like(mu_out, _pooled(var_out, n_out))
    var_in = np.maximum(np.nan_to_num(var_in, nan=min_var), min_var)
    var_out = np.maximum(np.nan_to_num(var_out, nan=min_var), min_var)
    x = np.asarray(phi_target, dtype=float)
    log_in = -0.5 * np.log(var_in) - (x - mu_in) ** 2 / (2 * var_in)
    log_out = -0.5 * np.log(var_out) - (x - mu_out) ** 2 / (2 * var_out)
    return log_in - log_out


def lira_offline(phi_target, phi_ref_out, out_mask=None, fix_variance="auto", min_var=MIN_VAR) -> np.ndarray:
    """Offline LiRA score per record: (φ_obs − μ_out) / σ_out (one-sided test, module docstring).

    ``phi_ref_out``: (R, n) φ of references not trained on the records (``out_mask`` selects the OUT
    entries when some references did train on some records; default: all are OUT).
    """
    phi_ref_out = np.asarray(phi_ref_out, dtype=float)
    mask = np.ones(phi_ref_out.shape, dtype=bool) if out_mask is None else np.asarray(out_mask, dtype=bool)
    mu, var, cnt = _side_stats(phi_ref_out, mask)
    if (cnt == 0).any():
        raise ValueError("offline LiRA needs at least one OUT reference for every record")
    if _resolve_fixed(fix_variance, cnt):
        var = np.full_like(mu, _pooled(var, cnt))
    var = np.maximum(np.nan_to_num(var, nan=min_var), min_var)
    return (np.asarray(phi_target, dtype=float) - mu) / np.sqrt(var)


def _pr(p_ref, in_mask, online, a):
    """Pr(·) of RMIA per record from reference probabilities (R, n) and their IN mask."""
    out = ~in_mask
    n_out = out.sum(axis=0)
    if (n_out == 0).any():
        raise ValueError("RMIA needs at least one OUT reference for every record")
    m_out = (p_ref * out).sum(axis=0) / n_out
    if online:
        n_in = in_mask.sum(axis=0)
        if (n_in == 0).any():
            raise ValueError("online RMIA needs at least one IN reference for every record")
        m_in = (p_ref * in_mask).sum(axis=0) / n_in
        return 0.5 * (m_in + m_out)
    return 0.5 * ((1.0 + a) * m_out + (1.0 - a))


def rmia_scores(p_x, p_ref_x, in_x, p_z, p_ref_z, in_z, *, a=0.0, gamma=1.0, online=False) -> np.ndarray:
    """RMIA score of each x: the fraction of population records z with LR(x, z) ≥ γ (Eq. 3–4).

    ``p_x`` (n,), ``p_ref_x`` (R, n), ``in_x`` (R, n): target's and references' p on the audited
    records and where the references trained on them (all False offline); ``p_z``, ``p_ref_z``,
    ``in_z`` the same for the population records z.
    """
    if not gamma > 0:
        raise ValueError(f"gamma must be > 0, got {gamma!r}")
    if not 0.0 <= a <= 1.0:
        raise ValueError(f"a must be in [0, 1], got {a!r}")
    tiny = 1e-300
    ratio_x = np.asarray(p_x, dtype=float) / np.maximum(
        _pr(np.asarray(p_ref_x, float), np.asarray(in_x, bool), online, a), tiny
    )
    ratio_z = np.asarray(p_z, dtype=float) / np.maximum(
        _pr(np.asarray(p_ref_z, float), np.asarray(in_z, bool), online, a), tiny
    )
    # LR(x, z) = ratio_x / ratio_z ≥ γ  ⇔  ratio_z ≤ ratio_x / γ   (ratio_z ≥ 0)
    # ratio_z == 0 (the target gives z's label probability 0): LR = +∞ ≥ γ for every x.
    rz = np.sort(ratio_z)
    counts = np.searchsorted(rz, ratio_x / gamma, side="right")
    return counts / len(rz)


_RMIA_A_GRID = np.linspace(0.0, 1.0, 11)  # the a values tune_rmia_a tries by default


def tune_rmia_a(p_pool, keep, grid=_RMIA_A_GRID, gamma=1.0, max_records=2000, rng=None):
    """Offline a of RMIA: reference 0 plays the target; the a with the best AUC on the pool wins.

    ``p_pool`` (R, N): references' p on the pool records; ``keep`` (R, N): inclusion. Records
    are scored by references 1… (OUT entries only), with the pool itself as the z sample.
    Returns (best a, {a: AUC}).
    """
    R, N = p_pool.shape
    if R < 2:
        return 0.0, {}
    idx = np.arange(N)
    if N > max_records:
        idx = (rng or np.random.default_rng(0)).choice(N, size=max_records, replace=False)
    p = p_pool[:, idx]
    k = keep[:, idx]
    usable = (~k[1:]).any(axis=0)
    p, k = p[:, usable], k[:, usable]
    labels = k[0]
    if labels.all() or not labels.any():
        return 0.0, {}
    aucs = {}
    for a in grid:
        # offline: only the OUT entries of references 1… enter Pr(·) (the IN ones are masked)
        s = rmia_scores(p[0], p[1:], k[1:], p[0], p[1:], k[1:], a=float(a), gamma=gamma, online=False)
        fpr, tpr, *_ = roc_curve(s, labels)
        aucs[float(a)] = roc_auc(fpr, tpr)
    best = max(aucs, key=lambda v: (aucs[v], -abs(v - 0.5)))
    return best, aucs
