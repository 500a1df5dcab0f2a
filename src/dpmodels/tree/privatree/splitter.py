"""Split selection of one PrivaTree level (paper 002, Sec. IV-C; step 4 of the estimator docstring).

The nodes of a level hold disjoint records, so one selection per node at ε_level costs ε_level once
(parallel composition). Candidates are (feature, position) pairs: position b sends the first
b + 1 bins of the node's order of that feature left (numerical: ``x <= t[b]``; categorical: a
prefix of the node's category order).

* ``"permute-and-flip"`` / ``"exponential"``: one selection over every candidate with a criterion of
  :mod:`.criteria` (monotone, scale Δ/ε). For binary labels, categorical features with > 2
  categories are first ordered by a noisy class-1 ratio (a histogram of those features, discrete
  Laplace, L1 sensitivity = their number, at a share of ε_level proportional to their number); the
  candidate partitions are prefixes of that order (Coppersmith et al.). Multiclass: the public order.
* ``"histogram"``: the paper's private histograms, one per feature and class, with discrete Laplace
  noise of scale m/ε_level (L1 sensitivity m: a record is in every feature's histogram), then the
  split of least Gini on the (clipped) noisy counts (post-processing).
"""

from __future__ import annotations

import numpy as np

from ...privacy import samplers
from ...privacy.selection import select_rows
from .criteria import CRITERIA, gini_impurity

__all__ = ["order_categories", "select_level"]


def order_categories(order, Hn, sort_feats, n_bins):
    """Order the public categories of each node by a (noisy) class-1 ratio, in place."""
    for j in sort_feats:
        C = int(n_bins[j]) - 1
        h = Hn[:, j, :C, :]  # (nodes, C, 2)
        ratio = (h[..., 1] + 0.5) / (h.sum(axis=-1) + 1.0)
        order[:, j, :C] = np.argsort(ratio, axis=1, kind="stable")


def select_level(est, H, level, cand_f, cand_b, sort_feats, n_bins, B, eps_level, ledger, rng):
    """Choose every node's split at one level; returns ``(f_sel, b_sel, order)``.

    ``H`` (nodes, m, B, K) are the exact counts of the level; ``est`` supplies the parameters and
    the two release hooks (``_histogram_noise_scale``, ``_noisy_histograms``).
    """
    n_nodes, m = H.shape[0], H.shape[1]
    order = np.broadcast_to(np.arange(B), (n_nodes, m, B)).copy()
    comp = "parallel" if n_nodes > 1 else "sequential"
    sel = est.split_selection
    if cand_f.size == 0:
        return np.zeros(n_nodes, dtype=np.int64), np.full(n_nodes, -1), order
    if sel == "histogram":
        scale = est._histogram_noise_scale(eps_level, m)
        ledger.spend(
            f"level {level}: class histograms of all {m} features", "discrete Laplace",
            eps_level, sensitivity=float(m), composition=comp, parts=n_nodes,
            note="noise scale m/ε_level: L1 sensitivity m across features",
        )
        Hn = np.clip(est._noisy_histograms(H, scale, rng), 0, None).astype(float)
        order_categories(order, Hn, sort_feats, n_bins)
        score = -gini_impurity(Hn, order)[:, cand_f, cand_b]
        pick = np.argmax(score, axis=1)
        return cand_f[pick], cand_b[pick], order
    eps_sel = eps_level
    if sort_feats.size:
        eps_sort = eps_level * sort_feats.size / (m + sort_feats.size)
        eps_sel = eps_level - eps_sort
        ledger.spend(
            f"level {level}: class histograms of {sort_feats.size} categorical features "
            "(category order)", "discrete Laplace", eps_sort, sensitivity=float(sort_feats.size),
            composition=comp, parts=n_nodes,
        )
        Hs = H[:, sort_feats] + samplers.discrete_laplace(sort_feats.size / eps_sort, H[:, sort_feats].shape, rng)
        Hfull = np.zeros_like(H, dtype=float)
        Hfull[:, sort_feats] = np.clip(Hs, 0, None)
        order_categories(order, Hfull, sort_feats, n_bins)
    fn, sens, what = CRITERIA[est.split_criterion]
    util = -fn(H.astype(float), order)[:, cand_f, cand_b]
    mech = "permute-and-flip" if sel == "permute-and-flip" else "exponential"
    ledger.spend(
        f"level {level}: split over {cand_f.size} (feature, bin) candidates", mech, eps_sel,
        sensitivity=sens, composition=comp, parts=n_nodes, note=f"utility: {what} (monotone)",
    )
    pick = select_rows(util, eps_sel, sens, rng, monotone=True, mechanism=mech)
    return cand_f[pick], cand_b[pick], order
