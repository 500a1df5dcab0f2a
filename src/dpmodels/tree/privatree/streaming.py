"""PrivaTree on partitioned input (Parquet streamed with pyarrow, Dask): the count backend of the fit.

The learner is the driver of :mod:`.fitting` (same parameters, same releases, same random draws in
the same order, for the classifier and the regressor); only the way the data are touched differs. Every access is one count pass
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
   record's codes; in process it is kept between passes, 2 bytes per record, so a level pass
   routes each record one level: :class:`_NodeIds`); the pass counts the (node, feature, bin, class) cells of one child of each
   split (in process the smaller one, on Dask's workers the left one: :meth:`SourceData.node_counts`),
   the sibling being the parent minus it — the ``H`` of the splittable nodes that
   :func:`.splitter.select_level` consumes, as in the in-memory fit.
4. **leaf pass** over the cache: the (leaf, class) counts.

So a tree of depth d costs at most d + 3 passes, two of them over the source. Noise is drawn on the driver only, from the
estimator's generator, by the same calls as the in-memory fit: with the same seed the tree, its
thresholds and the ledger equal those of the in-memory fit of the concatenated data (the
in-memory counts are the same integers, computed there by smaller-child subtraction).

Partitioned input must declare its whole schema — ``classes`` (the regressor: ``label_bounds``),
``bounds`` for every numerical feature, ``categories`` for every categorical one — since the read-from-the-data fallbacks
would need a pass of their own and a leak; such input is refused with a one-line error before
anything is read. ``variant="published*"`` (the data's own quantiles) is refused likewise.
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np

from ...data.cache import encoded_cache
from ...data.counts import counts
from ...data.sources import as_source, declared_schema
from ...privacy.accountant import ledger_for_fit
from ...validation import resolve_bounds
from ..model import encode_matrix
from .builder import Structure
from .grid import GRID, categorical_codes, cell_width, code_table, empty_codes

__all__ = ["SourceData"]


class _Encoder:
    """One partition as the encoded matrix and its labels (public schema and label kernel only)."""

    def __init__(self, names, categorical, categories, labels):
        self.names, self.categorical, self.categories, self.labels = names, categorical, categories, labels

    def __call__(self, X, y):
        import pandas as pd

        cat_names = {self.names[j] for j in np.flatnonzero(self.categorical)}
        text = [c for c, dt in zip(X.columns, X.dtypes) if str(c) in cat_names and isinstance(dt, pd.StringDtype)]
        if text:  # coded once per distinct string (declared values compare as values: same codes)
            X = X.astype({c: "category" for c in text})
        Z = encode_matrix(X, self.names, self.categorical, self.categories)  # schema errors raise here
        lab = self.labels.encode(y)  # a label outside the declared set (or domain) raises
        if lab.shape[0] != Z.shape[0]:
            raise ValueError(f"a partition has {Z.shape[0]} feature rows but {lab.shape[0]} labels")
        return Z, lab

    def pandas(self, rb):
        """A record batch (the features, then the label) as the pass's ``(X, y)``."""
        from ...data.counts import split_partition

        *cols, label = rb.schema.names
        return split_partition(cols, label, rb.to_pandas())

    def arrow(self, rb):
        """``(numbers, lab)`` of a record batch: each numerical feature as a float64 array (in
        ``num_idx`` order) and the label indices; None when a column needs the pandas path (the
        section's comment)."""
        m = len(self.names)
        y = _arrow_labels(rb.column(m))
        if y is None or not all(_CategoryBins.covers(rb.column(int(j))) for j in np.flatnonzero(self.categorical)):
            return None
        numbers = []
        for j in np.flatnonzero(~self.categorical):
            x = _arrow_numbers(rb.column(int(j)))
            if x is None:
                return None
            numbers.append(x)
        return numbers, self.labels.encode(y)  # after the columns, as in __call__


# ---------------------------------------------------------------------------- Arrow record batches
# A pinned Parquet file read by a Dask task comes as pyarrow record batches
# (dpmodels.data.sources_pinned.read_pinned), as does a ParquetSource (map_batches): the passes
# read each column's buffer as a numpy view and run the kernels column by column, without a
# pandas frame or an (n, m) float matrix. A column the views do not cover (a null, NaN or ±inf,
# a type other than numbers / integer or text categories / number, bool or text labels) sends its
# batch through the pandas path, which gives the same codes or raises the same schema error: the
# choice changes the cost, never the result.
_ONE = np.zeros(1, dtype=np.intp)  # the kernels' num_idx for a one-column block


def _is_text(t) -> bool:
    import pyarrow as pa

    return pa.types.is_string(t) or pa.types.is_large_string(t)


def _is_text_dictionary(t) -> bool:
    import pyarrow as pa

    return pa.types.is_dictionary(t) and _is_text(t.value_type)


def _arrow_numbers(col):
    """A numerical column as float64, as :func:`dpmodels.validation.numeric_column` reads it (a
    view of the buffer when it is float64 already); None when it needs that function (a null, a
    value that is not finite, a type that is not a number)."""
    import pyarrow as pa

    t = col.type
    if col.null_count or not (pa.types.is_floating(t) or pa.types.is_integer(t) or pa.types.is_boolean(t)):
        return None
    x = col.to_numpy(zero_copy_only=False)
    if x.dtype != np.float64:
        x = x.astype(np.float64)
    if pa.types.is_floating(t) and x.size and not (np.isfinite(x.min()) and np.isfinite(x.max())):
        return None  # NaN / ±inf: the pandas path raises the schema error
    return x


def _arrow_labels(col):
    """The label column as the array the pandas path hands to ``labels.encode`` (numbers, bools,
    text); None for other types and for nulls."""
    import pyarrow as pa

    t = col.type
    if col.null_count:
        return None
    if pa.types.is_integer(t) or pa.types.is_floating(t) or pa.types.is_boolean(t) or _is_text(t):
        return col.to_numpy(zero_copy_only=False)
    if _is_text_dictionary(t):
        return np.asarray(col.dictionary.to_pylist(), dtype=object)[col.indices.to_numpy()]
    return None


class _CategoryBins:
    """The bin codes of one categorical feature in a record batch (the category's index in the
    public list, the last bin for every other value: :func:`.grid.categorical_codes` of the codes
    :func:`dpmodels.validation.category_codes` gives). A text dictionary is looked up once per
    distinct value (and once per dictionary: the batches of a row group share theirs)."""

    def __init__(self, values, bucket, dtype):
        self.values, self.bucket, self.dtype = values, bucket, dtype
        self._dictionary: Any = None
        self._table = np.zeros(0, dtype=dtype)

    @staticmethod
    def covers(col) -> bool:
        import pyarrow as pa

        return _is_text_dictionary(col.type) or (pa.types.is_integer(col.type) and not col.null_count)

    def _bins(self, codes):
        return np.where(codes < 0, self.bucket, codes).astype(self.dtype)

    def __call__(self, col):
        from ...validation import UNKNOWN_CATEGORY, category_codes, declared_lookup

        if not _is_text_dictionary(col.type):  # integers, no nulls (covers)
            return self._bins(category_codes(col.to_numpy(), self.values))
        d = col.dictionary
        if self._dictionary is None or not self._dictionary.equals(d):
            lookup = declared_lookup(self.values)
            codes = np.array([lookup(u) for u in d.to_pylist()] + [UNKNOWN_CATEGORY], dtype=np.int64)
            self._dictionary, self._table = d, self._bins(codes)
        idx = col.indices
        if col.null_count:
            import pyarrow.compute as pc

            idx = pc.fill_null(idx, len(d))  # a missing value: the table's last entry (unknown)
        return self._table[idx.to_numpy()]


class _FirstPass:
    """(1 + m_num·G,) int64: the row count, then the grid histogram of each numerical feature
    (clip → cell → count in one compiled loop, :func:`.kernels.grid_histograms`)."""

    def __init__(self, enc, num_idx, lo, hi):
        self.enc, self.num_idx, self.lo, self.hi = enc, num_idx, lo, hi
        self.width, self.clip_first = cell_width(lo, hi, GRID)

    def __call__(self, X, y):
        from .kernels import grid_histograms

        Z, _ = self.enc(X, y)
        out = np.zeros(1 + self.num_idx.size * GRID, dtype=np.int64)
        out[0] = Z.shape[0]
        if self.num_idx.size and Z.shape[0]:
            hist = out[1:].reshape(self.num_idx.size, GRID)
            grid_histograms(Z, self.num_idx, self.lo, self.hi, self.width, self.clip_first, GRID, hist)
        return out

    def from_arrow(self, batches, n_rows):
        """The same counts from a file's record batches
        (:func:`dpmodels.data.sources_pinned.read_pinned`), column by column on views of Arrow's
        buffers."""
        from .kernels import grid_histograms

        k = self.num_idx.size
        out = np.zeros(1 + k * GRID, dtype=np.int64)
        hist = out[1:].reshape(k, GRID)
        for rb in batches:
            cols = self.enc.arrow(rb)
            if cols is None:
                out += self(*self.enc.pandas(rb))
                continue
            out[0] += rb.num_rows
            if not rb.num_rows:
                continue
            for f, x in enumerate(cols[0]):
                s = slice(f, f + 1)
                grid_histograms(x[:, None], _ONE, self.lo[s], self.hi[s], self.width[s], self.clip_first, GRID, hist[s])
        return out


class _Prepare:
    """A partition as (bin codes, labels): what every level and leaf pass reads, and what the
    encoded cache keeps (:mod:`dpmodels.data.cache`). Numerical features: clip → cell → code in
    one compiled loop (:func:`.kernels.numeric_codes`, the codes of :func:`.grid.encode_codes`)."""

    def __init__(self, enc, grid, categorical, num_idx, lo, hi, T):
        self.enc, self.grid, self.categorical = enc, grid, categorical
        self.num_idx, self.lo, self.hi, self.T = num_idx, lo, hi, np.ascontiguousarray(T)
        self.width, self.clip_first = cell_width(lo, hi, GRID)
        dtype = empty_codes(0, grid).dtype
        self.table, _, _ = code_table(self.T, lo, hi, GRID, dtype)

    def __call__(self, X, y):
        from .kernels import numeric_codes

        Z, lab = self.enc(X, y)
        codes = empty_codes(Z.shape[0], self.grid)
        if self.num_idx.size:
            numeric_codes(
                Z, self.num_idx, self.lo, self.hi, self.width, self.clip_first, GRID,
                self.table, self.T, codes,
            )  # fmt: skip
        categorical_codes(Z, self.categorical, self.grid.n_bins, codes)
        return codes, lab

    def from_arrow(self, batches, n_rows):
        """The same arrays from a file's record batches
        (:func:`dpmodels.data.sources_pinned.read_pinned`): the codes written column by column from
        views of Arrow's buffers, into one array of the file's rows (what the cache keeps)."""
        from .kernels import numeric_codes

        codes = empty_codes(n_rows, self.grid)
        cat_idx = np.flatnonzero(self.categorical)
        bins = [_CategoryBins(self.enc.categories[int(j)], self.grid.n_bins[j] - 1, codes.dtype) for j in cat_idx]
        lab = None
        a = 0
        for rb in batches:
            b = a + rb.num_rows
            cols = self.enc.arrow(rb)
            if cols is None:
                codes[a:b], part_lab = self(*self.enc.pandas(rb))
            else:
                numbers, part_lab = cols
                for f, x in enumerate(numbers):
                    s, j = slice(f, f + 1), int(self.num_idx[f])
                    numeric_codes(
                        x[:, None], _ONE, self.lo[s], self.hi[s], self.width[s], self.clip_first, GRID,
                        self.table[s], self.T[s], codes[a:b, j : j + 1],
                    )  # fmt: skip
                for c, to_bins in zip(cat_idx, bins):
                    codes[a:b, c] = to_bins(rb.column(int(c)))
            if lab is None:
                lab = np.empty(n_rows, dtype=part_lab.dtype)
            lab[a:b] = part_lab
            a = b
        return codes, lab


_NO_IDS = np.empty(0, dtype=np.uint16)  # no stored node ids: the kernels route from the root


class _Router:
    """Node id of every record in the released (partial) tree: a function of public splits.

    As the compiled kernels route (:mod:`.kernels`): ``nxt[node·B + code]`` is the child a record
    with that code of ``feat[node]`` goes to (a leaf or open node maps to itself), so ``depth``
    look-ups from the root reach every record's node, without a branch on the data.
    """

    def __init__(self, st: Structure, B: int):
        n_nodes = len(st.children_left)
        cl = np.asarray(st.children_left, dtype=np.intp)
        cr = np.asarray(st.children_right, dtype=np.intp)
        self.feat = np.maximum(np.asarray(st.feature, dtype=np.intp), 0).astype(np.uint64)
        nxt = np.repeat(np.arange(n_nodes, dtype=np.uint64)[:, None], B, axis=1)
        depth = np.zeros(n_nodes, dtype=np.intp)
        for node in np.flatnonzero(cl >= 0):  # parents before children (ids grow with depth)
            nxt[node] = np.where(st.split_left.get(int(node), False), cl[node], cr[node])
            depth[cl[node]] = depth[cr[node]] = depth[node] + 1
        self.nxt = nxt.reshape(-1)
        self.depth = int(depth.max())
        self.B, self.cl, self.node_depth = B, cl, depth

    def tables(self, ids=None, steps=None):
        """What the compiled kernels route by (:mod:`.kernels`): from the root, or from each
        record's stored node ``ids`` ``steps`` levels on."""
        if ids is None:
            return self.feat, self.nxt, self.B, self.depth, _NO_IDS
        return self.feat, self.nxt, self.B, steps, ids


class _LevelPass:
    """(S, m, B, W) int64: the label statistics per (splittable node, feature, bin), from a
    partition's bin codes and labels (route → count in one compiled loop)."""

    def __init__(self, router, slot_of_node, S, B, m, labels):
        self.router, self.labels = router, labels
        self.slot_of_node, self.S, self.B, self.m = slot_of_node, S, B, m

    def __call__(self, codes, lab, tables=None):
        out = np.zeros((self.S, self.m, self.B, self.labels.width), dtype=np.int64)
        self.labels.level_pass(codes, lab, tables or self.router.tables(), self.slot_of_node, out)
        return out


class _LeafPass:
    """The label statistics of every leaf."""

    def __init__(self, router, leaf_of_node, L, labels):
        self.router, self.labels = router, labels
        self.leaf_of_node, self.L = leaf_of_node, L

    def __call__(self, codes, lab, tables=None):
        out = np.zeros((self.L, self.labels.leaf_width), dtype=np.int64)
        self.labels.leaf_pass(codes, lab, tables or self.router.tables(), self.leaf_of_node, out)
        return out


class _NodeIds:
    """Each record's node in the released tree as the last pass left it, kept between the passes
    of an in-process cache (2 bytes per record, uint16, one array per partition), so a pass
    routes each record from its stored node through the levels split since — one look-up per
    record in a level pass instead of one per tree level. The node ids are a function of the
    released splits and the record's codes, like the codes themselves; they never leave this
    process. Dask workers' passes route from the root (the cache there is read-only).
    """

    MAX_NODES = 1 << 16  # uint16 ids; a larger tree routes from the root

    def __init__(self):
        self.ids: list | None = None  # per partition, in the cache's order
        self.router: _Router | None = None  # the tree they were routed through

    def _steps(self, router):
        """Levels to route from the stored ids through ``router``'s tree, or None when that tree
        does not extend theirs (every node split then is split alike now)."""
        old = self.router
        if self.ids is None or old is None or old.cl.size > router.cl.size or old.B != router.B:
            return None
        n = old.cl.size
        was_split = old.cl >= 0
        rows = router.nxt[: n * old.B].reshape(n, old.B)[was_split]
        same = (
            np.array_equal(router.cl[:n][was_split], old.cl[was_split])
            and np.array_equal(router.feat[:n][was_split], old.feat[was_split])
            and np.array_equal(rows, old.nxt.reshape(n, old.B)[was_split])
        )
        if not same:
            return None
        split_since = np.flatnonzero(~was_split & (router.cl[:n] >= 0))
        return router.depth - int(router.node_depth[split_since].min()) if split_since.size else 0

    def pass_over(self, cache, router, fn, shape):
        """``counts(cache, fn, shape)``, each partition routed from its stored node ids (updated)."""
        if router.cl.size > self.MAX_NODES:
            self.ids = None
            return counts(cache, fn, shape)
        steps = self._steps(router)
        fresh = steps is None
        if fresh:
            steps = router.depth  # from the root (ids 0)
        ids: list = [] if fresh else list(self.ids or ())
        self.ids = None  # until the pass completes (a failed pass leaves no half-routed ids)
        part = itertools.count()  # counts() calls fn once per cached partition, in the cache's order

        def routed(codes, lab):
            k = next(part)
            if fresh:
                ids.append(np.zeros(codes.shape[0], dtype=np.uint16))
            return fn(codes, lab, router.tables(ids[k], steps))

        total = counts(cache, routed, shape)
        self.ids, self.router = ids, router
        return total


# ---------------------------------------------------------------------------- the backend
class SourceData:
    """The count backend of partitioned input (module docstring); what it reads from the data
    before the first release is nothing: every declaration is checked on the source's schema."""

    partitioned = True

    def __init__(self, est, task, X, y, sample_weight):
        from sklearn.utils.validation import _check_feature_names, _check_n_features

        name = type(est).__name__
        if sample_weight is not None:
            raise ValueError(f"{name}: sample_weight is not supported on partitioned input")
        task.refuse_partitioned()
        self.source = as_source(X, y)
        schema = self.source.schema_frame()
        if est.bounds is None and (~_declared_categorical(schema, est.categories)).any():
            raise ValueError(
                f"{name}: partitioned input needs bounds= for its numerical features; they are not read from the data"
            )
        task.check_declared_labels()
        names, categorical, categories = declared_schema(name, schema, est.categories, est.bounds)
        self.ledger = ledger_for_fit(est, task.eps)
        self.labels = task.labels_declared(self.ledger)
        _check_feature_names(est, schema, reset=True)
        _check_n_features(est, schema, reset=True)
        self.num_idx = np.flatnonzero(~categorical)
        self.lo, self.hi = resolve_bounds(est.bounds, names, self.num_idx, None, None)
        self.names, self.categorical, self.categories = names, categorical, categories
        self.n_partitions = self.source.n_partitions
        self.enc = _Encoder(names, categorical, categories, self.labels)
        self.cache: Any = None
        self._last: dict = {}  # node id -> statistics, of the nodes counted at the current level
        self._families: list = []  # (left, right, parent's statistics, count the right one) per split
        self._node_ids = _NodeIds()

    def first_pass(self):
        """n and the grid histograms (every schema error surfaces here, before any release)."""
        k = self.num_idx.size
        first = counts(self.source, _FirstPass(self.enc, self.num_idx, self.lo, self.hi), (1 + k * GRID,))
        if first[0] == 0:
            raise ValueError(
                "Found array with 0 sample(s) while a minimum of 1 is required (the empty dataset is outside the domain)."
            )
        return int(first[0]), first[1:].reshape(k, GRID)

    def encode(self, grid, T):
        """One pass encodes every record with the released grid; the level and leaf passes read the
        cached codes (dpmodels.data.cache) instead of re-reading and re-encoding the source."""
        self.B, self.m = grid.B, len(self.names)
        prepare = _Prepare(self.enc, grid, self.categorical, self.num_idx, self.lo, self.hi, T)
        self.cache = encoded_cache(self.source, prepare)

    def node_counts(self, st, open_ids, idx):
        """The statistics of the open nodes ``open_ids[idx]``: one level pass over the cache that
        counts one child of each split made at the last level; its sibling is the parent's
        statistics minus it (exact int64: the same integers as a direct count, so every released
        value is unchanged).

        Which child: where the passes run in this process (in-memory and Parquet sources), the
        one with fewer records, known from the parent's exact counts — as the in-memory backend
        does. Those counts never leave this driver and the choice decides only which rows the
        pass counts (the work order), never a released value, an error or a stopping rule; the
        fit's running time is not part of the release (docs/privacy.md). Dask workers get public
        inputs only (docs/privacy.md, "Counting at scale"): a private choice sent to them would
        tell them one bit per split about the other partitions, so they count the left child, a
        choice fixed by the released structure.
        """
        want = [int(v) for v in np.asarray(open_ids)[idx]]
        counted, derived = [], {}  # derived: node -> (parent's statistics, counted sibling)
        wanted = set(want)
        for left, right, H_parent, count_right in self._families:
            if left not in wanted and right not in wanted:
                continue  # both children became leaves: nothing to count
            one, other = (right, left) if count_right else (left, right)
            counted.append(one)
            derived[other] = (H_parent, one)
        siblings = set(counted)
        counted += [v for v in want if v not in derived and v not in siblings]
        Hc = self._count(st, counted)
        row = {v: r for r, v in enumerate(counted)}
        H = np.empty((len(want),) + Hc.shape[1:], dtype=np.int64)
        for r, v in enumerate(want):
            if v in row:
                H[r] = Hc[row[v]]
            else:
                H_parent, one = derived[v]
                H[r] = H_parent - Hc[row[one]]
        self._last = dict(zip(want, H))
        return H

    def _count(self, st, nodes):
        """One level pass: the statistics of ``nodes`` (node ids), (len(nodes), m, B, W) int64."""
        S = len(nodes)
        slot_of_node = np.full(len(st.children_left), -1, dtype=np.intp)
        slot_of_node[np.asarray(nodes, dtype=np.intp)] = np.arange(S)
        shape = (S, self.m, self.B, self.labels.width)
        router = _Router(st, self.B)
        level = _LevelPass(router, slot_of_node, S, self.B, self.m, self.labels)
        return self._pass(router, level, shape)

    def _pass(self, router, fn, shape):
        """A count pass over the cache: in process, each record routed from its stored node
        (:class:`_NodeIds`); on Dask's workers, from the root."""
        if getattr(self.cache, "kind", None) == "cache":
            return self._node_ids.pass_over(self.cache, router, fn, shape)
        return counts(self.cache, fn, shape)

    def retire(self, leaf_index):
        """Nothing to do: every pass routes the records through the released splits."""

    def split(self, st, open_ids, sidx, f_sel, go_left, more):
        """The released splits are in ``st``; with ``more`` (another level follows), keep each
        split node's statistics and which of its children the next pass counts (:meth:`node_counts`;
        in process, the one with fewer records: the record count per bin of the split feature,
        summed over the bins going left, against the parent's) for its subtraction."""
        self._families = []
        if not more:
            self._last = {}
            return
        channel = self.labels.count_channel
        in_process = getattr(self.cache, "kind", None) == "cache"  # not shipped to Dask workers
        for i, a in enumerate(sidx):
            parent = int(open_ids[a])
            H_parent = self._last.get(parent)
            if H_parent is None:  # not counted at this level (cannot happen in grow): count both
                continue
            count_right = False  # the left child: the public choice
            if in_process:  # the smaller child (node_counts: a work order, never released)
                rec = H_parent.sum(axis=-1) if channel is None else H_parent[..., channel]  # (m, B) records
                n_left = int((rec[f_sel[i]] * go_left[i]).sum())
                count_right = int(rec[0].sum()) - n_left < n_left  # ties: count the left child
            left, right = int(st.children_left[parent]), int(st.children_right[parent])
            self._families.append((left, right, H_parent, count_right))
        self._last = {}

    def leaf_counts(self, st):
        L = len(st.leaf_ids)
        leaf_of_node = np.full(len(st.children_left), -1, dtype=np.intp)
        leaf_of_node[np.asarray(st.leaf_ids, dtype=np.intp)] = np.arange(L)
        shape = (L, self.labels.leaf_width)
        router = _Router(st, self.B)
        return self._pass(router, _LeafPass(router, leaf_of_node, L, self.labels), shape)

    def close(self):
        if self.cache is not None:
            self.cache.close()
            self.cache = None
        self._node_ids = _NodeIds()


def _declared_categorical(schema, categories):
    names = [str(c) for c in schema.columns]
    out = np.zeros(len(names), dtype=bool)
    for k in categories or {}:
        if str(k) in names:
            out[names.index(str(k))] = True
        elif isinstance(k, int) and 0 <= k < len(names):
            out[k] = True
    return out
