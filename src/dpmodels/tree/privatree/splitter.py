"""Split selection of one PrivaTree level (paper 002, Sec. IV-C; step 4 of the estimator docstring).

**Candidates live inside each node's region.** A node's region is what the released structure
says about the records that reach it: for every numerical feature an interval of bins (the public
grid cut at the released thresholds, narrowed by the splits chosen above), for every categorical
feature the public categories not yet sent elsewhere. It is tracked as ``alive[node, feature,
bin]``. A candidate is a (feature, position) pair: position b sends the first b + 1 bins of the
node's order of that feature left (numerical: ``x <= t[b]``, the order is the bins' own order;
categorical: a prefix of the node's category order, the categories still alive first). It is
offered only when it splits the region: bin ``order[b]`` is alive (the last bin on the left, so
two positions never give the same partition) and some bin after it is alive. Thresholds outside
the node's interval and subsets that do not split its remaining categories are never offered, so
no noise is spent on empty branches. Everything this uses — the public grid, the released
thresholds and category orders, the splits chosen above — is already released (docs/privacy.md, principle 18):
restricting the candidates is post-processing and costs no privacy. A node with no candidate
becomes a leaf, decided from the released structure only. Values outside a categorical feature's
public list (the unknown bucket) always go right and never make a split "non-trivial".

Selections (the nodes of a level hold disjoint records: one selection per node at ε_level costs
ε_level once, parallel composition):

* ``"permute-and-flip"`` / ``"exponential"``: one selection over the node's candidates with a
  criterion of :mod:`.criteria` (monotone, scale Δ/ε). For binary labels, categorical features with
  > 2 categories alive in some node are first ordered by a noisy class-1 ratio (a histogram of
  those features, discrete Laplace, L1 sensitivity = their number, at a share of ε_level
  proportional to their number); the candidates are prefixes of that order (Coppersmith et al.).
  Multiclass: the public order.
* ``"histogram"``: the paper's private histograms, one per feature and class, with discrete Laplace
  noise of scale m/ε_level (L1 sensitivity m: a record is in every feature's histogram), then the
  candidate of least Gini on the (clipped) noisy counts (post-processing).

``category_order="public"``: the prefixes follow the declared order of the categories and no
budget is spent on sorting them (the whole ε_level goes to the selection).

**One-vs-rest candidates** (``one_vs_rest=True``, rigorous estimator only): for a
categorical feature with more than 2 categories alive in the node, every alive category alone on
the left (all others and the unknown bucket right) is a candidate too, beside the prefixes of the
order — except the order's first category, whose one-vs-rest split is already its first prefix.
Which candidates exist depends only on the node's region (public structure), and each one's
utility has the same form and Δ as a prefix split's (:func:`.criteria.one_vs_rest_scores`), so
the selection keeps its guarantee at no extra budget. When one wins, the node's order for that
feature is rewritten with the category first and b = 0, which is how the split is recorded.

``variant="published"`` / ``"published*"`` (paper 002 as published, :mod:`.estimator`): the
histogram selection with one discrete-Laplace histogram per feature at scale 1/ε_node,num
(numerical) or 1/ε_node,cat (categorical) — the paper's per-feature budget, whose parallel
composition across features is its claim (the ledger row is ``claimed``); prefixes only. The
split of least *weighted* Gini impurity wins, each feature's impurity normalised by its own noisy
node total (what the authors' code does; the count-scaled Gini would favour the features whose
clipped noise happened to add the least mass). Each feature's histogram has the feature's own
bins only (its distinct public thresholds, its categories): the padding slots up to the widest
feature, the bins left empty by repeated thresholds and the unknown-category bucket get no noise
and count 0 (they are public facts of the grid; the authors' histograms do not have them).
"""

from __future__ import annotations

import numpy as np

from ...privacy.mechanisms import noisy_integer_sums
from ...privacy.selection import select_rows
from .criteria import CRITERIA, error_gini, gini_impurity, misclassified, one_vs_rest_scores, prefix_counts

__all__ = ["root_region", "node_orders", "candidate_mask", "child_regions", "select_level"]


def root_region(grid, categorical) -> np.ndarray:
    """``alive[feature, bin]`` of the root: every bin whose part of the public domain is non-empty.

    Numerical feature with released thresholds t_0 ≤ … ≤ t_{k−1} within [lo, hi]: bin 0 is
    [lo, t_0], bin b is (t_{b−1}, t_b] ∩ [lo, hi], bin k is (t_{k−1}, hi]; a bin is dead when its
    interval is empty (equal thresholds, thresholds at hi, or lo = hi). Categorical feature: its C
    public categories (the unknown bucket C is not a category of the region).
    """
    n_bins = np.asarray(grid.n_bins)
    alive = np.zeros((n_bins.size, grid.B), dtype=bool)
    cat = np.asarray(categorical, dtype=bool)
    for j in np.flatnonzero(cat).tolist():
        alive[j, : int(n_bins[j]) - 1] = True
    num_all = np.flatnonzero(~cat)
    nb_all = n_bins[num_all]
    for nb in np.unique(nb_all).tolist():  # the numerical features with nb bins (one group in PrivaTree): at once
        num = num_all[nb_all == nb]
        t = np.array([grid.thresholds[j] for j in num.tolist()], dtype=float).reshape(num.size, nb - 1)
        hi = np.array([grid.bounds[j][1] for j in num.tolist()], dtype=float)
        # bin b > 0 is (t_{b-1}, min(t_b, hi)] (the last one (t_{nb-2}, hi]): alive when not empty
        upper = np.empty((num.size, nb))
        upper[:, :-1] = t
        upper[:, -1] = np.inf
        np.minimum(upper, hi[:, None], out=upper)
        alive[num, 1:nb] = t < upper[:, 1:]
        alive[num, 0] = True
    return alive


def node_orders(alive, categorical, n_bins, ratio=None, sort_feats=()):
    """Per node and feature, the bins in left-to-right order: numerical features their own order;
    categorical features their alive categories first — by the noisy class-1 ``ratio`` for
    ``sort_feats``, else in public order — then the others; the unknown bucket stays last."""
    A, m, B = alive.shape
    order = np.empty((A, m, B), dtype=np.intp)
    order[...] = np.arange(B)
    sort_feats = {int(j) for j in sort_feats}
    for j in np.flatnonzero(categorical):
        C = int(n_bins[j]) - 1
        if ratio is not None and int(j) in sort_feats:
            key = ratio[:, j, :C]
        else:
            key = np.broadcast_to(np.arange(C, dtype=float), (A, C))
        order[:, j, :C] = np.argsort(np.where(alive[:, j, :C], key, np.inf), axis=1, kind="stable")
    return order


def candidate_mask(alive, order) -> np.ndarray:
    """``valid[node, feature, b]``: bin ``order[b]`` is alive and some bin after it is alive
    (``order`` None: the bins' own order)."""
    ao = alive if order is None else np.take_along_axis(alive, order, axis=2)
    B = ao.shape[2]
    # some bin after b is alive <=> b is before the last alive one (rows with none: ao is False)
    last = (B - 1) - np.argmax(ao[..., ::-1], axis=2)
    return ao & (np.arange(B) < last[..., None])


def child_regions(alive, f_sel, go_left):
    """Regions of the children of split nodes (``go_left``: (nodes, B) over codes), in the order
    of the next level's open nodes: left child of node i at row 2i, right child at 2i + 1."""
    S = alive.shape[0]
    out = np.repeat(alive, 2, axis=0)
    idx = np.arange(0, 2 * S, 2)
    out[idx, f_sel] &= go_left
    out[idx + 1, f_sel] &= ~go_left
    return out


def _noisy_ratio(Hn):
    """Smoothed class-1 ratio of every (node, feature, bin) from clipped noisy binary counts."""
    return (Hn[..., 1] + 0.5) / (Hn.sum(axis=-1) + 1.0)


def one_vs_rest_mask(alive, order, categorical) -> np.ndarray:
    """``valid[node, feature, c]``: category c of a categorical feature with > 2 categories alive in
    the node is alive and is not the order's first (module docstring)."""
    A, m, B = alive.shape
    cat = np.zeros(m, dtype=bool)
    cat[np.flatnonzero(categorical)] = True
    valid = alive & cat[None, :, None] & (alive.sum(axis=2) > 2)[:, :, None]
    first = order[:, :, 0]
    valid[np.arange(A)[:, None], np.arange(m)[None, :], first] = False
    return valid


def _pick_with_one_vs_rest(util_prefix, util_ovr, order, B, select):
    """Select over the prefix candidates and the one-vs-rest candidates together; return
    (f_sel, b_sel, order) with the winning one-vs-rest category moved to the front of its order."""
    pick = select(np.concatenate([util_prefix, util_ovr], axis=1))
    mB = util_prefix.shape[1]
    f_sel, b_sel = (pick % mB) // B, pick % B
    ovr = pick >= mB
    if ovr.any():
        order = order.copy()
        for a in np.flatnonzero(ovr):
            f, c = int(f_sel[a]), int(b_sel[a])
            row = order[a, f]
            order[a, f] = np.concatenate([[c], row[row != c]])
            b_sel[a] = 0
    return f_sel, b_sel, order


def select_level(est, H, alive, level, categorical, n_bins, K, eps_level, ledger, rng):
    """Choose the split of every node of a level (all of them have a candidate).

    ``H`` (nodes, m, B, K) are the exact counts, ``alive`` (nodes, m, B) the regions. Returns
    ``(f_sel, b_sel, order)``. ``est`` supplies the parameters and the two release hooks
    (``_histogram_noise_scale``, ``_noisy_histograms``).
    """
    A, m, B = alive.shape
    comp = "parallel" if A > 1 else "sequential"
    sel = est.split_selection
    variant = getattr(est, "variant", "rigorous")
    if variant != "rigorous":
        return _select_level_published(est, H, alive, level, categorical, n_bins, K, ledger, rng, comp)
    ovr_on = bool(getattr(est, "one_vs_rest", False))
    if sel != "histogram" and not ovr_on and est.split_criterion == "error-gini" and not np.any(categorical):
        fast = _numeric_error_gini_utilities(est, H, alive)
        if fast is not None:  # numerical features only, compiled kernels: the same utilities
            util, n_valid, lam = fast
            what = f"−(misclassified + {lam:g}·count-scaled Gini/2)"
            pick = _select_candidates(util, n_valid, level, eps_level, 1.0 + lam, what, sel, comp, ledger, rng)
            return pick // B, pick % B, None
    cat_idx = np.flatnonzero(categorical)
    n_alive = alive[:, cat_idx].sum(axis=2) if cat_idx.size and K == 2 else None  # (nodes, categorical)
    sort_feats = np.array(
        [j for i, j in enumerate(cat_idx) if n_alive is not None and (n_alive[:, i] > 2).any()], dtype=np.int64
    )
    if getattr(est, "category_order", "noisy-ratio") == "public":  # no budget on sorting categories
        sort_feats = np.zeros(0, dtype=np.int64)
    if sel == "histogram":
        scale = est._histogram_noise_scale(eps_level, m)
        ledger.spend(
            f"level {level}: class histograms of all {m} features",
            "discrete Laplace",
            eps_level,
            sensitivity=float(m),
            composition=comp,
            parts=A,
            note="noise scale m/ε_level: L1 sensitivity m across features",
        )
        Hn = np.clip(est._noisy_histograms(H, scale, rng), 0, None).astype(float)
        ratio = _noisy_ratio(Hn) if K == 2 else None
        order = node_orders(alive, categorical, n_bins, ratio, sort_feats)
        valid = candidate_mask(alive, order)
        score = np.where(valid, -gini_impurity(Hn, order), -np.inf).reshape(A, m * B)
        if ovr_on:  # post-processing of the same noisy histograms
            vo = one_vs_rest_mask(alive, order, categorical)
            so = np.where(vo, -one_vs_rest_scores("gini", Hn), -np.inf).reshape(A, m * B)
            return _pick_with_one_vs_rest(score, so, order, B, lambda u: np.argmax(u, axis=1))
        pick = np.argmax(score, axis=1)
        return pick // B, pick % B, order
    eps_sel, ratio = eps_level, None
    if sort_feats.size:
        eps_sort = eps_level * sort_feats.size / (m + sort_feats.size)
        eps_sel = eps_level - eps_sort
        ledger.spend(
            f"level {level}: class histograms of {sort_feats.size} categorical features (category order)",
            "discrete Laplace",
            eps_sort,
            sensitivity=float(sort_feats.size),
            composition=comp,
            parts=A,
        )
        Hs = noisy_integer_sums(H[:, sort_feats], eps_sort, int(sort_feats.size), rng)  # scale Δ/ε_sort
        ratio = np.zeros((A, m, B))
        ratio[:, sort_feats] = _noisy_ratio(np.clip(Hs, 0, None).astype(float))
    order = node_orders(alive, categorical, n_bins, ratio, sort_feats)
    own = order if np.any(categorical) else None  # numerical features only: every order is the identity
    valid = candidate_mask(alive, own)
    fn, sens, what = CRITERIA[est.split_criterion]
    lam = getattr(est, "gini_weight_", None)
    if fn is error_gini and lam is not None:  # the public λ of this fit (budget.gini_weight)
        sens, what = 1.0 + lam, f"−(misclassified + {lam:g}·count-scaled Gini/2)"
    if fn is misclassified:  # integer counts in, integers out: exact in int64, then as floats
        score = misclassified(H, own).astype(float)
    elif fn is error_gini:  # integer counts in: exact integer error and Gini numerators
        score = error_gini(H, own, lam)
    else:
        score = fn(H.astype(float), own)
    util = np.where(valid, -score, -np.inf).reshape(A, m * B)
    mech = "permute-and-flip" if sel == "permute-and-flip" else "exponential"
    n_valid = valid.reshape(A, -1).sum(axis=1)
    if ovr_on:
        vo = one_vs_rest_mask(alive, order, categorical)
        Ho = H if est.split_criterion == "error-gini" else H.astype(float)
        util_o = np.where(vo, -one_vs_rest_scores(est.split_criterion, Ho, lam), -np.inf).reshape(A, m * B)
        n_valid = n_valid + vo.reshape(A, -1).sum(axis=1)
    if ovr_on:
        _record_selection(n_valid, level, eps_sel, sens, what, mech, comp, ledger)
        return _pick_with_one_vs_rest(
            util, util_o, order, B, lambda u: select_rows(u, eps_sel, sens, rng, monotone=True, mechanism=mech)
        )
    pick = _select_candidates(util, n_valid, level, eps_sel, sens, what, sel, comp, ledger, rng)
    return pick // B, pick % B, order


def _record_selection(n_valid, level, eps_sel, sens, what, mech, comp, ledger):
    """The ledger row of a level's split selection (before anything is drawn)."""
    nv = n_valid.tolist()
    lo_v, hi_v = min(nv), max(nv)
    span = f"{lo_v}" if lo_v == hi_v else f"{lo_v}–{hi_v}"
    ledger.spend(
        f"level {level}: split of {len(nv)} node(s) among {span} candidates inside each node's region",
        mech,
        eps_sel,
        sensitivity=sens,
        composition=comp,
        parts=len(nv),
        note=f"utility: {what} (monotone)",
    )


def _select_candidates(util, n_valid, level, eps_sel, sens, what, sel, comp, ledger, rng):
    """Record the level's selection, then one private selection per node over ``util`` (nodes, m·B)."""
    mech = "permute-and-flip" if sel == "permute-and-flip" else "exponential"
    _record_selection(n_valid, level, eps_sel, sens, what, mech, comp, ledger)
    return select_rows(util, eps_sel, sens, rng, monotone=True, mechanism=mech)


def _numeric_error_gini_utilities(est, H, alive):
    """The error-Gini utilities of a level whose features are all numerical, by the compiled
    kernels (one loop each: the scores of :func:`.criteria.error_gini`, then the region's
    candidates as :func:`candidate_mask` with the bins' own order); None when the fit runs the
    numpy code or a node total reaches 2^31 (then the general path computes the same values)."""
    lam = getattr(est, "gini_weight_", None)
    H = np.asarray(H)
    if lam is None or H.ndim != 4 or not H.size or H.dtype.kind not in "iu":
        return None
    from ..._compiled import use_compiled

    if not use_compiled() or int(H[:, 0].sum(axis=(1, 2)).max()) >= 1 << 31:
        return None
    from .memory_kernels import error_gini_scores, region_utilities

    A, m, B = alive.shape
    scores = np.empty((A, m, B))
    error_gini_scores(np.ascontiguousarray(H, dtype=np.int64), float(lam), scores)
    util = np.empty((A, m * B))
    n_valid = np.empty(A, dtype=np.int64)
    region_utilities(scores, np.ascontiguousarray(alive, dtype=bool), util, n_valid)
    return util, n_valid, float(lam)


def _select_level_published(est, H, alive, level, categorical, n_bins, K, ledger, rng, comp):
    """Paper 002's Algorithm 1 as published: per-feature noisy histograms (module docstring)."""
    A, m, B = alive.shape
    plan = est._level_budget  # (ε_node,num, ε_node,cat, ε charged per level)
    eps_num, eps_cat, eps_charged = plan
    cat = np.zeros(m, dtype=bool)
    cat[np.flatnonzero(categorical)] = True
    ledger.spend(
        f"level {level}: class histograms of each of the {m} features",
        "discrete Laplace",
        eps_charged,
        sensitivity=1.0,
        composition=comp,
        parts=A,
        guarantee="claimed",
        note=(
            "the paper's per-feature budget: noise 1/ε_node per feature histogram; parallel composition "
            "across features (and numerical vs categorical) is the paper's claim"
        ),
    )
    Hn = H.astype(np.int64).copy()
    if (~cat).any():
        Hn[:, ~cat] = noisy_integer_sums(Hn[:, ~cat], eps_num, 1, rng)
    if cat.any():
        Hn[:, cat] = noisy_integer_sums(Hn[:, cat], eps_cat, 1, rng)
    Hn = np.clip(Hn, 0, None).astype(float)
    # the feature's own bins only: the paper's histogram of a feature has one count per bin of its
    # binning (distinct thresholds, its categories), not the padding up to B, the bins left empty
    # by repeated thresholds, or the bucket for values outside the public list (all public)
    root = getattr(est, "_root_bins", None)
    if root is not None:
        Hn[:, ~root] = 0.0
    n_alive = alive.sum(axis=2)
    sort_feats = np.array(
        [j for j in np.flatnonzero(categorical) if K == 2 and (n_alive[:, j] > 2).any()], dtype=np.int64
    )
    ratio = _noisy_ratio(Hn) if K == 2 else None
    order = node_orders(alive, categorical, n_bins, ratio, sort_feats)
    valid = candidate_mask(alive, order)
    score = np.where(valid, -_weighted_gini(Hn, order), -np.inf).reshape(A, m * B)
    pick = np.argmax(score, axis=1)
    return pick // B, pick % B, order


def _weighted_gini(Hn, order):
    """The weighted Gini impurity Σ_c (n_c/n)·(1 − Σ_k (n_ck/n_c)²) of every split, each feature's
    n being its own noisy node total (the paper's "Gini impurity of the split", as the authors' code
    computes it on each feature's noisy histogram): the count-scaled Gini divided by that total, so
    the features' different noise totals do not decide the comparison (0 where the total is 0)."""
    L, R = prefix_counts(Hn, order)
    total = L.sum(axis=-1) + R.sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(total > 0, gini_impurity(Hn, order) / np.where(total > 0, total, 1.0), 0.0)


def record_published_stopping_rule(ledger) -> None:
    """Paper 002 as published (Algorithm 1, line 7) stops at a pure node or one with fewer than 2
    records: the rule reads the labels whether or not it fires, so one leak row per fit."""
    ledger.record_leak(
        "stopping rule (pure node or < 2 records)",
        note="paper 002 as published (Algorithm 1, line 7): a node whose records all have one label, or "
        "that has fewer than 2 records, becomes a leaf",
        warn=False,
    )


def published_splittable(H) -> np.ndarray:
    """Which nodes the published stopping rule lets split, from their exact counts ``H`` (nodes, m,
    B, K): at least two labels present and at least 2 records (feature 0's bins hold every record)."""
    cls = H[:, 0].sum(axis=1)  # (nodes, K)
    return ((cls > 0).sum(axis=1) >= 2) & (cls.sum(axis=1) >= 2)
