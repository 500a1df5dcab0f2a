"""One PrivaTree fit over the count seam: the driver of the classifier and the regressor, whatever
holds the records.

The learner (its releases, in order, and every random draw) is written once, here; what touches
the records is a *count backend* that answers a handful of questions with exact int64 arrays of
public shapes (docs/privacy.md, "Counting at scale"):

1. ``first_pass()``: n and the public-grid histogram of every numerical feature — the inputs of
   the n estimate and of the JointExp quantiles (:mod:`.grid`);
2. ``encode(grid, T)``: every record's bin codes under the released thresholds;
3. ``node_counts(st, open_ids, idx)``: the statistics (:mod:`.labels`) of the open nodes ``idx``
   of the current level, per (feature, bin); ``retire(...)`` / ``split(...)`` tell it which
   nodes became leaves and how the split ones divide their records;
4. ``leaf_counts(st)``: the statistics of the leaves.

Two backends: :class:`MemoryData` (arrays in memory: routing kept per record, a level's counts by
smaller-child subtraction) and :class:`~.streaming.SourceData` (pyarrow / Parquet and Dask: count
passes over an encoded cache). Both return the same integers, so with the same seed a model is the
same, bit for bit, whichever holds the data. The learners differ in their label kernel
(:mod:`.labels`) and in four steps of their own — the budget plan, the selection of a level's
splits, the leaf release and the assembly of the released tree — given by a *task* object
(:class:`.estimator.ClassifierTask`, :class:`.regressor.RegressionTask`).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from sklearn.utils.validation import _check_feature_names, _check_n_features

from ..._compiled import one_fit, use_compiled
from ...data.sources import is_partitioned
from ...guards import progress
from ...privacy import samplers
from ...privacy.accountant import ledger_for_fit
from ...validation import check_fit_input, resolve_bounds, resolve_categories
from ..model import encode_matrix
from .builder import Structure
from .grid import (
    GRID,
    candidate_grid,
    categorical_codes,
    cell_width,
    empty_codes,
    encode_codes,
    grid_cells,
    release_thresholds,
)
from .histograms import children_histograms
from .labels import ClassLabels
from .splitter import (
    child_regions,
    published_splittable,
    record_published_stopping_rule,
    root_region,
)

__all__ = ["fit_tree", "grow", "MemoryData", "encode_fit"]


def encode_fit(X, names, categorical, categories):
    """The (n, m) float matrix the learner reads: numbers, and category codes (-1 = unknown).

    A float ndarray without categorical columns is used as is (no copy); NaN / ±inf are schema
    errors, checked with two reductions (no n-by-m temporary).
    """
    if not categorical.any() and isinstance(X, np.ndarray) and X.dtype.kind == "f":
        if not (np.isfinite(X.min()) and np.isfinite(X.max())):
            encode_matrix(X, names, categorical, categories)  # raises the schema error
        return X
    return encode_matrix(X, names, categorical, categories)


def _reset_feature_names(est, X) -> None:
    """scikit-learn's ``_check_feature_names(est, X, reset=True)``; a plain ndarray has no names
    (its answer), so the attribute is only removed, without probing X for a dataframe library."""
    if type(X) is np.ndarray:
        if hasattr(est, "feature_names_in_"):
            delattr(est, "feature_names_in_")
        return
    _check_feature_names(est, X, reset=True)


class MemoryData:
    """The count backend of records in memory (module docstring).

    Reads the declarations the user left out from the data, each with its leak row (as every
    in-memory learner does, :mod:`dpmodels.validation`).
    """

    partitioned = False

    def __init__(self, est, task, X, y, sample_weight):
        name = type(est).__name__
        X, y, n, m = check_fit_input(X, y, sample_weight, name)
        y = task.check_labels(y)
        self.ledger = ledger_for_fit(est, task.eps, X=X)  # a share of the accountant's budget, if any
        self.labels, self.lab = task.labels_in_memory(y, self.ledger)
        names, categorical, categories = resolve_categories(X, est.categories, self.ledger, bounds=est.bounds)
        _reset_feature_names(est, X)
        _check_n_features(est, X, reset=True)
        self.Z = encode_fit(X, names, categorical, categories)
        self.num_idx = np.flatnonzero(~categorical)
        self.lo, self.hi = resolve_bounds(est.bounds, names, self.num_idx, self.Z, self.ledger)
        self.names, self.categorical, self.categories = names, categorical, categories
        self.n = n
        self._cells: Any = None
        self.codes: Any = None
        self._counter: Any = None
        self._H: Any = None
        self._stale = False

    # ------------------------------------------------------------------ passes
    def first_pass(self):
        if self.num_idx.size and _compiled_level_loop(self.n):  # the counts only: no cells kept
            from .memory_kernels import grid_counts as count_cells

            grid_counts = np.zeros((self.num_idx.size, GRID), dtype=np.int64)
            width, clip_first = cell_width(self.lo, self.hi, GRID)
            count_cells(self.Z, self.num_idx, self.lo, self.hi, width, clip_first, GRID, grid_counts)
        elif self.num_idx.size:
            self._cells, grid_counts = grid_cells(self.Z, self.num_idx, self.lo, self.hi, GRID)
        else:
            grid_counts = np.zeros((0, GRID), dtype=np.int64)
        return self.n, grid_counts

    def data_quantiles(self, i, levels):
        """The data's own quantiles of numerical feature i (PrivaTree*, a recorded leak)."""
        x = np.clip(self.Z[:, self.num_idx[i]].astype(float), self.lo[i], self.hi[i])
        return np.quantile(x, levels) if x.size else np.full(levels.size, self.lo[i])

    def encode(self, grid, T):
        if _compiled_level_loop(self.n):  # each value placed among its thresholds by bisection
            from .memory_kernels import numeric_codes

            self.codes = empty_codes(self.n, grid)
            if self.num_idx.size:
                numeric_codes(self.Z, self.num_idx, T, self.lo, self.hi, self.codes)
            categorical_codes(self.Z, self.categorical, grid.n_bins, self.codes)
        else:
            self.codes = encode_codes(self.Z, grid, self.categorical, self.num_idx, self.lo, self.hi, T, self._cells)
        self._cells = None
        self.B = grid.B
        n = self.codes.shape[0]
        self.leaf_of = np.full(n, -1, dtype=np.intp)
        self.node = np.zeros(n, dtype=np.intp)  # open node (index into the level's open nodes), or -1
        self.all_open = True  # every record still in an open node (the common case: no -1 in node)
        self.row_start = np.arange(n) * self.codes.shape[1]  # flat offset of each row in the codes

    # ------------------------------------------------------------------ levels
    def node_counts(self, st, open_ids, idx):
        if self._H is None:
            if self._stale:
                raise RuntimeError("the counts of this level were not kept (split(..., more=False))")
            self._counter = self._new_counter()
            self._H = self._counter.counts()  # the root
        return self._H[idx]

    def _new_counter(self):
        """Class counts on small data: the compiled counter (one loop over the records); else the
        label kernel's numpy counter (the same integers)."""
        if isinstance(self.labels, ClassLabels) and _compiled_level_loop(self.n):
            from .memory_kernels import ClassCounter

            return ClassCounter(self.codes, self.lab, self.B, self.labels.K)
        return self.labels.counter(self.codes, self.lab, self.B)

    def retire(self, leaf_index):
        """Records in open nodes with ``leaf_index >= 0`` reach that leaf."""
        if (leaf_index < 0).all():
            return
        node = self.node
        done = (node >= 0) & (leaf_index[np.maximum(node, 0)] >= 0)
        self.leaf_of[done] = leaf_index[node[done]]
        node[done] = -1
        self.all_open = self.all_open and not done.any()

    def split(self, st, open_ids, sidx, f_sel, go_left, more):
        """Route the records of the split nodes: child 2i (left) or 2i + 1 (right) of split i; with
        ``more``, the children's counts by smaller-child subtraction."""
        A, S, B = len(open_ids), sidx.size, self.B
        split_of = np.full(A, -1, dtype=np.intp)
        split_of[sidx] = np.arange(S)
        codes, node = self.codes, self.node
        if _compiled_level_loop(self.n):  # one loop over the records
            from .memory_kernels import route

            node = route(codes, node, split_of, f_sel, go_left)
        elif self.all_open:  # flat takes, no masks (routing is the per-level O(n) cost)
            s = node if S == A else np.take(split_of, node)
            row_code = np.take(codes, self.row_start + np.take(f_sel, s))  # codes[i, f_sel[s(i)]]
            node = 2 * s + ~np.take(go_left, s * B + row_code)
        else:
            rows = np.flatnonzero(node >= 0)
            s = split_of[node[rows]]
            row_code = np.take(codes, self.row_start[rows] + f_sel[s])
            left = np.take(go_left, s * B + row_code)
            node = np.full(node.size, -1, dtype=np.intp)
            node[rows] = 2 * s + (~left)
        self.node = node
        Hs = self._H[sidx] if self._H is not None else None
        self._H, self._stale = None, True
        if more and Hs is not None and getattr(self._counter, "compiled", False):
            from .memory_kernels import children_counts

            self._H = np.empty((2 * S,) + Hs.shape[1:], dtype=np.int64)
            children_counts(np.ascontiguousarray(Hs, dtype=np.int64), f_sel, go_left, codes, self.lab, node, self._H)
            self._stale = False
        elif more and Hs is not None:
            self._H = children_histograms(
                Hs,
                f_sel,
                go_left,
                self._counter,
                node,
                some_done=not self.all_open,
                count_channel=self.labels.count_channel,
            )
            self._stale = False

    def leaf_counts(self, st):
        return self.labels.leaf_counts(self.leaf_of, self.lab, len(st.leaf_ids))

    def close(self):
        self.Z = self.codes = self._H = self._counter = None


# records up to which the compiled counts, routing and encoding run (measured faster than numpy's
# packed counts at 10⁴, 6·10⁴ and 2·10⁵ records × 24 features: whole fit 1.16×, 1.22×, 1.12×)
_COMPILED_MAX_N = 1 << 18


def _compiled_level_loop(n) -> bool:
    """The compiled counts and routing on small data (the numpy passes are mostly call overhead
    there), when the fit runs compiled kernels (:mod:`dpmodels._compiled`); the same integers."""
    return n <= _COMPILED_MAX_N and use_compiled()


def grow(est, task, data, grid, categorical, depth, eps_level, ledger, rng) -> Structure:
    """Grow the tree to at most ``depth`` levels, splitting only inside each node's region.

    The nodes of a level are handled together: which can still be split (some feature has ≥ 2
    bins alive in its region — a fact about the released structure; paper 002 as published also
    stops at a pure node or one with < 2 records, a recorded leak), their statistics from the
    backend, one private split each (``task.select``), then the records are routed to the
    children by the backend.
    """
    n_bins = grid.n_bins
    st = Structure()
    alive = root_region(grid, categorical)[None]  # (open nodes, m, B)
    published = getattr(est, "variant", "rigorous") != "rigorous"
    if published:
        est._root_bins = alive[0]  # the published selection histograms these bins only (splitter.py)
        if depth > 0:
            record_published_stopping_rule(ledger)
    is_cat = np.asarray(categorical, dtype=bool).tolist()
    any_cat = any(is_cat)
    thresholds = grid.thresholds
    open_ids = [0]
    compiled = use_compiled()  # the children's regions and tests in one compiled loop
    next_splittable = None
    for level in progress(range(depth + 1), desc=task.progress_label):
        A = len(open_ids)
        if level >= depth:
            splittable = np.zeros(A, bool)
        elif next_splittable is not None:
            splittable = next_splittable
        else:
            splittable = (alive.sum(axis=2) >= 2).any(axis=1)
        H = None
        if published and splittable.any():  # the candidates' counts first: the stopping rule reads them
            cidx = np.flatnonzero(splittable)
            Hc = data.node_counts(st, open_ids, cidx)
            keep = published_splittable(Hc)
            splittable[cidx[~keep]] = False
            H = Hc[keep]
        leaf_index = np.full(A, -1, dtype=np.intp)
        for a in np.flatnonzero(~splittable):
            leaf_index[a] = len(st.leaf_ids)
            st.leaf_ids.append(open_ids[a])
        data.retire(leaf_index)
        sidx = np.flatnonzero(splittable)
        if sidx.size == 0:
            break
        S = sidx.size
        if H is None:
            H = data.node_counts(st, open_ids, sidx)
        alive_s = alive[sidx]
        f_sel, b_sel, order = task.select(H, alive_s, level, categorical, n_bins, eps_level, ledger, rng)
        st.levels_used += 1
        if any_cat:
            rank = np.argsort(order, axis=2)  # position of each code in the node's order
            go_left = rank[np.arange(S), f_sel] <= b_sel[:, None]  # (S, B) over codes
        else:  # numerical features only: every order is the identity, a code is its own rank
            go_left = np.arange(alive_s.shape[2]) <= b_sel[:, None]
        new_open = []
        for i, (s, f, b) in enumerate(zip(sidx.tolist(), f_sel.tolist(), b_sel.tolist())):
            node = open_ids[s]
            if is_cat[f]:
                kids = st.add_children(node, f, left=tuple(sorted(int(c) for c in order[i, f, : b + 1])))
            else:
                kids = st.add_children(node, f, threshold=float(thresholds[f][b]))
            st.split_left[node] = go_left[i]
            new_open.extend(kids)
        data.split(st, open_ids, sidx, f_sel, go_left, more=level + 1 < depth)
        if compiled:
            from .memory_kernels import children_regions

            alive = np.empty((2 * S,) + alive_s.shape[1:], dtype=bool)
            next_splittable = np.empty(2 * S, dtype=bool)
            children_regions(
                np.ascontiguousarray(alive_s), f_sel, np.ascontiguousarray(go_left), alive, next_splittable
            )
        else:
            alive = child_regions(alive_s, f_sel, go_left)
        open_ids = new_open
    return st


def fit_tree(est, task, X, y, sample_weight):
    """Fit ``est`` (a PrivaTree classifier or regressor, its parameters checked in ``task``) on
    in-memory or partitioned input (module docstring). Every check that needs no release runs
    before the first one."""
    with one_fit():  # one choice of kernels for the whole fit (the same model either way)
        return _fit_tree(est, task, X, y, sample_weight)


def _fit_tree(est, task, X, y, sample_weight):
    if is_partitioned(X, y):
        from .streaming import SourceData

        data: Any = SourceData(est, task, X, y, sample_weight)
    else:
        data = MemoryData(est, task, X, y, sample_weight)
    ledger, names, categorical, categories = data.ledger, data.names, data.categorical, data.categories
    num_idx, lo, hi = data.num_idx, data.lo, data.hi
    m = len(names)
    rng = samplers.check_random_state(est.random_state)
    task.check_size(m, categories, lo, hi, data.labels)  # before any release: public sizes (and the declared n) only
    try:
        n, grid_counts = data.first_pass()  # partitioned: every schema error surfaces here
        # 1-2. n, the depth and the budget split (budget.py)
        plan, depth, q_mode, has_num = task.plan(n, m, lo, hi, data.labels, ledger, rng)
        # 3. the candidate grid: the private quantiles (grid.py), then every record's bins
        T = release_thresholds(
            grid_counts,
            names,
            num_idx,
            lo,
            hi,
            task.max_bins,
            plan.quantiles,
            ledger,
            rng,
            release_quantiles=has_num,
            quantiles=q_mode,
            data_quantiles=getattr(data, "data_quantiles", None),
        )
        grid = candidate_grid(categorical, categories, num_idx, lo, hi, T, task.max_bins)
        data.encode(grid, T)
        # 4. levels, splitting only inside each node's region
        st = grow(est, task, data, grid, categorical, task.grow_depth(depth), plan.level, ledger, rng)
        # 5. leaves; levels that never happened (no node had a candidate: a fact about the released
        # structure) leave their share to the leaves
        plan.leaf += (depth - st.levels_used) * plan.level
        plan.levels_used = st.levels_used
        Hl = data.leaf_counts(st)
    finally:
        data.close()
    task.finish(st, Hl, plan, data.labels, names, categorical, categories, ledger, rng)
    est._schema = (names, categorical, categories)
    if data.partitioned:
        est.n_partitions_ = data.n_partitions
    return est
