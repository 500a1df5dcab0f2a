"""ROC curves of membership scores with exact handling of ties, TPR at a target FPR, ε bounds.

Interpretable models give coarse outputs (one probability per rule or leaf), so many records share
a score. The ROC is computed at the **unique** score thresholds ("member" iff score ≥ t): one vertex
per distinct score, from (0, 0) (t = +∞) to (1, 1). Between two consecutive vertices the curve is
the straight segment; every point of it is achieved by a *randomised* threshold that flags the
records strictly above the lower threshold and each record tied at it with a fixed probability
q ∈ [0, 1] (TPR and FPR are then linear in q). So

* the AUC is the trapezoid area, which equals the Mann–Whitney probability
  P[s_member > s_non-member] + ½ P[tie] (ties count one half, never a whole);
* TPR at a target FPR f is the linear interpolation between the two vertices around f — what a
  randomised threshold achieves at FPR exactly f. This is *not* the convex hull (which would
  also mix non-adjacent thresholds and can only be higher), and not the step function that reads
  TPR at the last vertex with FPR ≤ f (which can only be lower).

With n₀ non-members, FPR moves in steps of 1/n₀: a TPR "at 0.1 % FPR" from fewer than 1 000
non-members is an interpolation towards (0, 0) and says little. Results report n₀ beside it.
"""

from __future__ import annotations

import numpy as np

__all__ = ["roc_curve", "roc_auc", "tpr_at_fpr", "epsilon_from_roc"]


def _check(scores, labels):
    s = np.asarray(scores, dtype=float).ravel()
    m = np.asarray(labels).ravel()
    if s.shape != m.shape:
        raise ValueError(f"scores and labels differ in length: {s.shape[0]} vs {m.shape[0]}")
    if m.dtype != bool:
        if not np.isin(m, (0, 1)).all():
            raise ValueError("membership labels must be boolean or 0/1")
        m = m.astype(bool)
    if np.isnan(s).any():
        raise ValueError("scores contain NaN")
    n1, n0 = int(m.sum()), int((~m).sum())
    if n1 == 0 or n0 == 0:
        raise ValueError(f"need members and non-members; got {n1} members and {n0} non-members")
    return s, m, n1, n0


def roc_curve(scores, labels):
    """ROC at every distinct score: ``(fpr, tpr, thresholds, tp, fp)``.

    Vertex i flags the records with score ≥ ``thresholds[i]``; vertex 0 is (0, 0) with threshold
    +∞. ``tp``/``fp`` are the integer counts behind each vertex (for confidence intervals).
    Equal to scikit-learn's ``roc_curve(..., drop_intermediate=False)``.
    """
    s, m, n1, n0 = _check(scores, labels)
    order = np.argsort(-s, kind="stable")
    s_sorted = s[order]
    m_sorted = m[order]
    # last index of each run of equal scores
    last = np.flatnonzero(np.r_[s_sorted[1:] != s_sorted[:-1], True])
    tp = np.cumsum(m_sorted)[last]
    fp = (last + 1) - tp
    tp = np.r_[0, tp].astype(np.int64)
    fp = np.r_[0, fp].astype(np.int64)
    thr = np.r_[np.inf, s_sorted[last]]
    return fp / n0, tp / n1, thr, tp, fp


def roc_auc(fpr, tpr) -> float:
    """Trapezoid area under a ROC given at its vertices (ties count ½: see the module docstring)."""
    fpr = np.asarray(fpr, dtype=float)
    tpr = np.asarray(tpr, dtype=float)
    return float(np.sum(np.diff(fpr) * (tpr[1:] + tpr[:-1]) / 2.0))


def tpr_at_fpr(fpr, tpr, target) -> float | np.ndarray:
    """TPR of the randomised threshold whose FPR is exactly ``target`` (linear between vertices).

    At an FPR where the curve jumps vertically (several vertices share the FPR), the highest TPR is
    taken: a threshold with that FPR and that TPR exists.
    """
    fpr = np.asarray(fpr, dtype=float)
    tpr = np.asarray(tpr, dtype=float)
    t = np.atleast_1d(np.asarray(target, dtype=float))
    if ((t < 0) | (t > 1)).any():
        raise ValueError("target FPR must be in [0, 1]")
    i = np.searchsorted(fpr, t, side="right") - 1  # last vertex with fpr <= t (highest tpr there)
    i = np.clip(i, 0, len(fpr) - 1)
    j = np.minimum(i + 1, len(fpr) - 1)
    f0, f1, r0, r1 = fpr[i], fpr[j], tpr[i], tpr[j]
    with np.errstate(invalid="ignore", divide="ignore"):
        w = np.where(f1 > f0, (t - f0) / np.where(f1 > f0, f1 - f0, 1.0), 0.0)
    out = r0 + w * (r1 - r0)
    return float(out[0]) if np.ndim(target) == 0 else out


def epsilon_from_roc(fpr, tpr, target) -> float:
    """Heuristic point estimate ln(TPR/FPR) at FPR = ``target`` (δ = 0); 0 if TPR ≤ FPR.

    By the hypothesis-testing view of DP (Kairouz et al. 2015), an (ε, 0)-DP learner forces
    TPR ≤ e^ε · FPR for every test of one record's membership. This plug-in value has no
    confidence attached: sampling noise at low FPR makes it unreliable (see
    :meth:`MembershipInferenceResult.epsilon_lower_bound` for a Clopper–Pearson bound).
    """
    r = tpr_at_fpr(fpr, tpr, target)
    if target <= 0 or r <= target:
        return 0.0
    return float(np.log(r / target))
