"""PrivaTree on partitioned input (Parquet streamed with pyarrow, Dask): the fit as a driver loop.

The learner is the one of :mod:`.estimator` (same parameters, same releases, same random draws in
the same order); only the way the data are touched differs. Every access is one count pass
(:func:`dpmodels.data.counts.counts`) whose partition function receives public inputs only —
the declared schema, the released thresholds, the released splits — and returns exact int64
counts of a public shape (docs/privacy.md, "Counting at scale"):

1. **first pass**: n and the public-grid histogram of every numerical feature, (1 + m_num·G,)
   — the inputs of the n estimate and of the JointExp quantiles (:mod:`.grid`). Every schema
   error (a label outside ``classes``, a non-number in a numerical column) surfaces here, before
   any release.
2. **encoding pass**: each record's bin codes (from the released thresholds and the declared
   categories) and label index are kept per partition in an encoded cache
   (:mod:`dpmodels.data.cache`: in memory, a private temporary folder, or persisted on Dask's
   workers), so the source is read twice in all.
3. **one pass per level** with a splittable node, over the cache: each record is routed through
   the released splits to its open node (the node id is a function of public splits and the
   record's codes); the pass returns the (node, feature, bin, class) counts of the splittable
   nodes — the ``H`` that :func:`.splitter.select_level` consumes in the in-memory fit.
4. **leaf pass** over the cache: the (leaf, class) counts.

So a tree of depth d costs at most d + 3 passes, two of them over the source. Noise is drawn on the driver only, from the
estimator's generator, by the same calls as the in-memory fit: with the same seed the tree, its
thresholds and the ledger equal those of the in-memory fit of the concatenated data (the
in-memory counts are the same integers, computed there by smaller-child subtraction).

Partitioned input must declare its whole schema — ``classes``, ``bounds`` for every numerical
feature, ``categories`` for every categorical one — since the read-from-the-data fallbacks
would need a pass of their own and a leak; such input is refused with a one-line error before
anything is read. ``variant="published*"`` (the data's own quantiles) is refused likewise.
"""

from __future__ import annotations

import numpy as np

from ...data.cache import encoded_cache
from ...data.counts import counts
from ...data.sources import as_source, declared_schema
from ...guards import check_tree_size
from ...privacy import samplers
from ...privacy.accountant import ledger_for_fit, published_ledger
from ...privacy.quantiles import JOINTEXP_SENSITIVITY, _sample_from_histograms
from ...validation import check_y, resolve_bounds, resolve_classes
from ..model import encode_matrix
from .budget import check_budget_shares, estimate_n, gini_weight, plan_budget, plan_budget_published
from .builder import Structure, assemble, release_leaf_counts
from .grid import GRID, CandidateGrid, bin_codes, grid_cells
from .histograms import class_histograms
from .splitter import (
    child_regions,
    published_splittable,
    record_published_stopping_rule,
    root_region,
    select_level,
)

__all__ = ["fit_source", "check_declared_schema"]


# ---------------------------------------------------------------------------- public schema
def check_declared_schema(est_name, schema, classes, bounds, categories):
    """Refuse partitioned input whose schema is not fully declared (one-line errors, no data read).

    ``schema`` is the source's empty frame (column dtypes only). Returns the resolved
    ``(names, categorical, categories)``.
    """
    if classes is None:
        raise ValueError(
            f"{est_name}: partitioned input needs the label set declared (classes=[...]); it is not read from the data"
        )
    return declared_schema(est_name, schema, categories, bounds)


class _Encoder:
    """One partition as the encoded matrix and label indices (public schema only)."""

    def __init__(self, names, categorical, categories, classes):
        self.names, self.categorical, self.categories, self.classes = names, categorical, categories, classes

    def __call__(self, X, y):
        import pandas as pd

        cat_names = {self.names[j] for j in np.flatnonzero(self.categorical)}
        text = [c for c, dt in zip(X.columns, X.dtypes) if str(c) in cat_names and isinstance(dt, pd.StringDtype)]
        if text:  # coded once per distinct string (declared values compare as values: same codes)
            X = X.astype({c: "category" for c in text})
        Z = encode_matrix(X, self.names, self.categorical, self.categories)  # schema errors raise here
        y = check_y(y)
        if y.shape[0] != Z.shape[0]:
            raise ValueError(f"a partition has {Z.shape[0]} feature rows but {y.shape[0]} labels")
        _, y_idx = resolve_classes(self.classes, y, None)  # a label outside classes raises
        return Z, y_idx


class _FirstPass:
    """(1 + m_num·G,) int64: the row count, then the grid histogram of each numerical feature."""

    def __init__(self, enc, num_idx, lo, hi):
        self.enc, self.num_idx, self.lo, self.hi = enc, num_idx, lo, hi

    def __call__(self, X, y):
        Z, _ = self.enc(X, y)
        out = np.zeros(1 + self.num_idx.size * GRID, dtype=np.int64)
        out[0] = Z.shape[0]
        if self.num_idx.size and Z.shape[0]:
            _, gc = grid_cells(Z, self.num_idx, self.lo, self.hi, GRID)
            out[1:] = gc.ravel()
        return out


class _Codes:
    """Bin codes of a partition from the released grid (as :func:`.grid.build_grid` bins them)."""

    def __init__(self, num_idx, lo, hi, T, n_bins, categorical, B):
        self.num_idx, self.lo, self.hi, self.T = num_idx, lo, hi, T
        self.n_bins, self.categorical, self.B = n_bins, categorical, B

    def __call__(self, Z):
        n, m = Z.shape
        codes = np.empty((n, m), dtype=np.uint8 if self.B <= 256 else np.uint16)
        if self.num_idx.size:
            cells, _ = grid_cells(Z, self.num_idx, self.lo, self.hi, GRID)
            bin_codes(Z, self.num_idx, cells, self.T, self.lo, self.hi, GRID, codes)
        for j in np.flatnonzero(self.categorical):
            c = Z[:, j].astype(np.int64)
            c[c < 0] = self.n_bins[j] - 1
            codes[:, j] = c
        return codes


class _Router:
    """Node id of every record in the released (partial) tree: a function of public splits."""

    def __init__(self, st: Structure, split_left: dict, B: int):
        n_nodes = len(st.children_left)
        self.cl = np.asarray(st.children_left, dtype=np.intp)
        self.cr = np.asarray(st.children_right, dtype=np.intp)
        self.feat = np.maximum(np.asarray(st.feature, dtype=np.intp), 0)
        self.left = np.zeros((n_nodes, B), dtype=bool)
        for node, row in split_left.items():
            self.left[node] = row
        self.B = B

    def __call__(self, codes):
        n = codes.shape[0]
        node = np.zeros(n, dtype=np.intp)
        flat = codes.ravel()
        m = codes.shape[1]
        base = np.arange(n, dtype=np.intp) * m
        while True:
            kids = self.cl[node]
            internal = kids >= 0
            if not internal.any():
                return node
            code = np.take(flat, base + self.feat[node]).astype(np.intp)
            go_left = np.take(self.left.ravel(), node * self.B + code)
            node = np.where(internal, np.where(go_left, kids, self.cr[node]), node)


class _Prepare:
    """A partition as (bin codes, label indices): what every level and leaf pass reads, and what
    the encoded cache keeps (:mod:`dpmodels.data.cache`)."""

    def __init__(self, enc, codes, K):
        self.enc, self.codes = enc, codes
        self.y_dtype = np.uint8 if K <= 256 else np.int32

    def __call__(self, X, y):
        Z, y_idx = self.enc(X, y)
        return self.codes(Z), y_idx.astype(self.y_dtype)


class _LevelPass:
    """(S, m, B, K) int64: class counts per (splittable node, feature, bin), from a partition's
    bin codes and label indices."""

    def __init__(self, router, slot_of_node, S, B, K):
        self.router = router
        self.slot_of_node, self.S, self.B, self.K = slot_of_node, S, B, K

    def __call__(self, codes, y_idx):
        y_idx = y_idx.astype(np.intp)
        slot = self.slot_of_node[self.router(codes)]
        rows = np.flatnonzero(slot >= 0)
        return class_histograms(codes, y_idx, self.B, self.K, slot=slot[rows], rows=rows, n_slots=self.S)


class _LeafPass:
    """(L, K) int64: class counts per leaf."""

    def __init__(self, router, leaf_of_node, L, K):
        self.router = router
        self.leaf_of_node, self.L, self.K = leaf_of_node, L, K

    def __call__(self, codes, y_idx):
        leaf = self.leaf_of_node[self.router(codes)]
        return np.bincount(leaf * self.K + y_idx.astype(np.intp), minlength=self.L * self.K).reshape(self.L, self.K)


# ---------------------------------------------------------------------------- releases
def _release_thresholds(
    grid_counts, names, num_idx, lo, hi, max_bins, eps_quantiles, ledger, rng, release_quantiles, quantiles
):
    """The thresholds ``T`` (m_num, max_bins − 1) from the grid histograms, with the ledger rows
    and the draw of :func:`.grid.build_grid` (its ``"split"`` and ``"parallel"`` modes)."""
    levels_q = np.arange(1, max_bins) / max_bins
    n_live = int(np.sum(hi > lo)) if num_idx.size else 0
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
    T = np.empty((num_idx.size, max_bins - 1))
    live = np.flatnonzero(hi > lo) if num_idx.size else np.zeros(0, dtype=np.intp)
    if release_quantiles and live.size:
        if quantiles != "parallel":
            for i in live:
                ledger.spend(
                    f"{max_bins - 1} quantiles of {names[num_idx[i]]!r}",
                    "jointexp (exponential)",
                    eps_feat,
                    sensitivity=JOINTEXP_SENSITIVITY,
                    note=f"1 of {n_live} numerical features: sequential",
                )
        T[live] = _sample_from_histograms(grid_counts[live], levels_q, eps_feat, lo[live], hi[live], rng)
    elif live.size:
        T[live] = np.linspace(lo[live], hi[live], max_bins + 1, axis=1)[:, 1:-1]
    dead = np.flatnonzero(hi <= lo) if num_idx.size else live
    T[dead] = lo[dead][:, None]
    return T


# ---------------------------------------------------------------------------- the fit
def fit_source(est, X, y=None, sample_weight=None):  # noqa: C901 - tree branch makes it one fit driver (issue 27 #1)
    """:meth:`PrivaTreeClassifier.fit` on partitioned input (module docstring)."""
    from sklearn.utils.validation import _check_feature_names, _check_n_features

    eps, depth, max_bins, leaf_error = est._check_params()
    name = type(est).__name__
    if sample_weight is not None:
        raise ValueError(f"{name}: sample_weight is not supported on partitioned input")
    if est.variant == "published*":
        raise ValueError(
            f"{name}: variant='published*' reads the data's own quantiles; it is not available on partitioned input"
        )
    source = as_source(X, y)
    schema = source.schema_frame()
    if est.bounds is None and (~_declared_categorical(schema, est.categories)).any():
        raise ValueError(
            f"{name}: partitioned input needs bounds= for its numerical features; they are not read from the data"
        )
    names, categorical, categories = check_declared_schema(name, schema, est.classes, est.bounds, est.categories)
    m = len(names)
    ledger = ledger_for_fit(est, eps)
    classes, _ = resolve_classes(est.classes, np.zeros(0, dtype=object), ledger)
    _check_feature_names(est, schema, reset=True)
    _check_n_features(est, schema, reset=True)
    num_idx = np.flatnonzero(~categorical)
    lo, hi = resolve_bounds(est.bounds, names, num_idx, None, None)
    rng = samplers.check_random_state(est.random_state)
    K = classes.size
    n_cat_bins = max([len(v) + 1 for v in categories.values()], default=0)
    check_tree_size(
        "PrivaTree", max_depth=depth, n_features=m, n_bins=max(max_bins, n_cat_bins), n_classes=K, n_public=est.n_public
    )
    enc = _Encoder(names, categorical, categories, classes)

    # pass 1: n and the grid histograms (every schema error surfaces here, before any release)
    first = counts(source, _FirstPass(enc, num_idx, lo, hi), (1 + num_idx.size * GRID,))
    n = int(first[0])
    if n == 0:
        raise ValueError(
            "Found array with 0 sample(s) while a minimum of 1 is required (the empty dataset is outside the domain)."
        )
    grid_counts = first[1:].reshape(num_idx.size, GRID)

    n_used, eps_n = estimate_n(n, eps, est.n_public, ledger, rng)
    est.n_estimate_ = n_used
    depth = est.max_depth_ = est._resolve_depth(eps, n_used, m, K)
    est.gini_weight_ = (
        gini_weight(eps, n_used, m) if est.split_criterion == "error-gini" and est.variant == "rigorous" else None
    )
    has_num = bool(np.any(hi > lo)) and depth > 0
    if est.variant == "rigorous":
        plan = plan_budget(
            eps, eps_n, depth, n_used, K, leaf_error, has_num, shares=check_budget_shares(est.budget_shares)
        )
        q_mode = "split"
    else:
        plan, (eps_num, eps_cat) = plan_budget_published(eps, eps_n, depth, n_used, K, leaf_error, has_num, star=False)
        est._level_budget = (eps_num, eps_cat, plan.level)
        q_mode = "parallel"

    # the grid (no data: the thresholds come from the first pass's histograms)
    T = _release_thresholds(grid_counts, names, num_idx, lo, hi, max_bins, plan.quantiles, ledger, rng, has_num, q_mode)
    n_bins = np.empty(m, dtype=np.int64)
    for j in np.flatnonzero(categorical):
        n_bins[j] = len(categories[int(j)]) + 1
    B = int(max(n_bins[categorical].max() if categorical.any() else 0, max_bins))
    thresholds, bnds = {}, {}
    for i, j in enumerate(num_idx):
        thresholds[int(j)] = T[i].copy()
        bnds[int(j)] = (float(lo[i]), float(hi[i]))
        n_bins[j] = max_bins
    grid = CandidateGrid(None, n_bins, thresholds, bnds, B)
    coder = _Codes(num_idx, lo, hi, T, n_bins, categorical, B)
    # one pass encodes every record with the released grid; the level and leaf passes read the
    # cached codes (dpmodels.data.cache) instead of re-reading and re-encoding the source
    cache = encoded_cache(source, _Prepare(enc, coder, K))

    # levels: one count pass per level with a splittable node (as builder.grow, without the rows)
    st = Structure()
    split_left: dict = {}
    alive = root_region(grid, categorical)[None]
    # paper 002 as published: the same per-feature bins and stopping rule as builder.grow
    published = est.variant != "rigorous"
    if published:
        est._root_bins = alive[0]
        if depth > 0:
            record_published_stopping_rule(ledger)
    open_ids = [0]
    for level in range(depth + 1):
        A = len(open_ids)
        splittable = (alive.sum(axis=2) >= 2).any(axis=1) if level < depth else np.zeros(A, bool)
        Hs = None
        if published and splittable.any():  # the counts of the candidates first: the rule reads them
            cidx = np.flatnonzero(splittable)
            slot_of_node = np.full(len(st.children_left), -1, dtype=np.intp)
            slot_of_node[np.asarray(open_ids)[cidx]] = np.arange(cidx.size)
            Hc = counts(
                cache, _LevelPass(_Router(st, split_left, B), slot_of_node, cidx.size, B, K), (cidx.size, m, B, K)
            )
            keep = published_splittable(Hc)
            splittable[cidx[~keep]] = False
            Hs = Hc[keep]
        for a in np.flatnonzero(~splittable):
            st.leaf_ids.append(open_ids[a])
        sidx = np.flatnonzero(splittable)
        if sidx.size == 0:
            break
        S = sidx.size
        if Hs is None:
            slot_of_node = np.full(len(st.children_left), -1, dtype=np.intp)
            slot_of_node[np.asarray(open_ids)[sidx]] = np.arange(S)
            Hs = counts(cache, _LevelPass(_Router(st, split_left, B), slot_of_node, S, B, K), (S, m, B, K))
        alive_s = alive[sidx]
        f_sel, b_sel, order = select_level(est, Hs, alive_s, level, categorical, n_bins, K, plan.level, ledger, rng)
        st.levels_used += 1
        rank = np.argsort(order, axis=2)
        go_left = rank[np.arange(S), f_sel] <= b_sel[:, None]
        new_open = []
        for i, a in enumerate(sidx):
            f, b = int(f_sel[i]), int(b_sel[i])
            if categorical[f]:
                kids = st.add_children(open_ids[a], f, left=tuple(sorted(int(c) for c in order[i, f, : b + 1])))
            else:
                kids = st.add_children(open_ids[a], f, threshold=float(grid.thresholds[f][b]))
            split_left[open_ids[a]] = go_left[i]
            new_open.extend(kids)
        lft, rgt = child_regions(alive_s, f_sel, go_left)
        alive = np.stack([lft, rgt], axis=1).reshape((2 * S,) + lft.shape[1:])
        open_ids = new_open

    # leaves: one pass, then the same release as the in-memory fit
    plan.leaf += (depth - st.levels_used) * plan.level
    plan.levels_used = st.levels_used
    L = len(st.leaf_ids)
    leaf_of_node = np.full(len(st.children_left), -1, dtype=np.intp)
    leaf_of_node[np.asarray(st.leaf_ids, dtype=np.intp)] = np.arange(L)
    Hl = counts(cache, _LeafPass(_Router(st, split_left, B), leaf_of_node, L, K), (L, K))
    cache.close()
    noisy, labels = release_leaf_counts(est.leaf_labels, Hl, plan.leaf, ledger, rng)
    ledger.check()
    est.budget_ = plan.as_dict()
    est.tree_ = assemble(st, categorical, categories, names, classes, noisy, labels)
    share = 1.0 if est.leaf_labels == "noisy-counts" else 0.5
    est.tree_.count_noise_scale = 1.0 / (share * plan.leaf)
    est.classes_ = classes
    est.privacy_ledger_ = published_ledger(ledger)
    est._schema = (names, categorical, categories)
    est.n_partitions_ = source.n_partitions
    return est


def _declared_categorical(schema, categories):
    names = [str(c) for c in schema.columns]
    out = np.zeros(len(names), dtype=bool)
    for k in categories or {}:
        if str(k) in names:
            out[names.index(str(k))] = True
        elif isinstance(k, int) and 0 <= k < len(names):
            out[k] = True
    return out
