"""One PrivaTree fit over every count backend (issue 27 #1): the regressor, like the classifier, is
the same model bit for bit under the same seed whether its records are in memory, in Parquet files
streamed by pyarrow, or split into partitions; a partitioned fit refuses what it would have to
read from the data before anything is read or spent."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from dpmodels.data.sources import InMemorySource
from dpmodels.privacy import BudgetAccountant
from dpmodels.tree import PrivaTreeRegressor
from dpmodels.tree.privatree.labels import sum_statistics

N = 1501


def _data(n=N, seed=0):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({"x0": rng.normal(size=n), "x1": rng.uniform(-2, 2, size=n)})
    X["c"] = rng.choice(["a", "b", "c", "other"], size=n)  # "other" is outside the declared list
    y = 3 * X.x0 + (X.c == "a") * 2 + rng.normal(size=n)
    return X, y.to_numpy()


KW = dict(
    epsilon=2.0,
    bounds={"x0": (-3, 3), "x1": (-2, 2)},
    categories={"c": ["a", "b", "c"]},
    label_bounds=(-8.0, 8.0),
)


def _released(m):
    return (m.tree_.to_dict(), m.privacy_ledger_.to_dict(), m.budget_, m.max_depth_)


@pytest.mark.parametrize("params", [dict(max_depth=3), dict(max_depth="auto"), dict(max_depth=2, n_public=1500)])
@pytest.mark.parametrize("cuts", [(), (1, 700, 701)])
def test_regressor_on_partitions_equals_in_memory(params, cuts):
    X, y = _data()
    m1 = PrivaTreeRegressor(**KW, **params, random_state=3).fit(X, y)
    m2 = PrivaTreeRegressor(**KW, **params, random_state=3).fit(InMemorySource(X, y, cuts=cuts))
    assert _released(m1) == _released(m2)
    np.testing.assert_array_equal(m1.predict(X), m2.predict(X))
    assert m2.n_partitions_ == len(cuts) + 1


def test_regressor_on_parquet_equals_in_memory(tmp_path):
    pytest.importorskip("pyarrow")
    from dpmodels.data import ParquetSource

    X, y = _data(seed=1)
    d = tmp_path / "d"
    d.mkdir()
    df = X.assign(label=y)
    df.iloc[:600].to_parquet(d / "a.parquet", index=False)
    df.iloc[600:].to_parquet(d / "b.parquet", index=False)
    m1 = PrivaTreeRegressor(**KW, max_depth=3, random_state=8).fit(X, y)
    m2 = PrivaTreeRegressor(**KW, max_depth=3, random_state=8).fit(ParquetSource(d, label="label", batch_rows=256))
    assert _released(m1) == _released(m2)


@pytest.mark.parametrize(
    "drop, match",
    [("label_bounds", "label_bounds"), ("bounds", "bounds="), ("categories", "neither declared categorical")],
)
def test_regressor_partitioned_input_needs_the_whole_schema(drop, match):
    X, y = _data(n=50)
    kw = {k: v for k, v in KW.items() if k not in (drop, "epsilon")}
    acc = BudgetAccountant(1.0)
    with pytest.raises(ValueError, match=match):
        PrivaTreeRegressor(**kw, epsilon=0.5, accountant=acc).fit(InMemorySource(X, y))
    assert acc.epsilon_spent == 0


def test_regressor_label_errors_surface_before_any_release():
    X, y = _data(n=60)
    y = y.astype(object)
    y[59] = "many"
    acc = BudgetAccountant(1.0)
    with pytest.raises(ValueError, match="numeric"):
        PrivaTreeRegressor(**{**KW, "epsilon": 0.5}, max_depth=2, accountant=acc).fit(InMemorySource(X, y, cuts=(30,)))
    assert acc.epsilon_spent == 0


def test_sum_statistics_equal_a_record_by_record_count():
    rng = np.random.default_rng(2)
    n, m, B, S = 700, 3, 4, 3
    codes = rng.integers(0, B, size=(n, m)).astype(np.uint8)
    v = rng.integers(-(1 << 16), (1 << 16) + 1, size=n)
    slot = rng.integers(0, S, size=n)
    rows = np.flatnonzero(rng.random(n) < 0.7)
    got = sum_statistics(codes, v, B, slot=slot[rows], rows=rows, n_slots=S)
    want = np.zeros((S, m, B, 3), dtype=object)
    for i in rows:
        for j in range(m):
            cell = want[slot[i], j, codes[i, j]]
            cell += np.array([1, int(v[i]), int(v[i]) ** 2], dtype=object)
    assert got.dtype == np.int64
    assert (got.astype(object) == want).all()


# ---------------------------------------------------------------------------- compiled kernels
def _random_tree(rng, m, B, depth):
    """A released tree of the given depth (random splits) and its open nodes."""
    from dpmodels.tree.privatree.builder import Structure

    st, opens = Structure(), [0]
    for _ in range(depth):
        new = []
        for p in opens:
            kids = st.add_children(p, int(rng.integers(m)), threshold=0.0)
            st.split_left[p] = rng.random(B) < 0.5
            new += kids
        opens = new
    return st, np.asarray(opens)


def _route_by_hand(st, codes):
    node = np.zeros(len(codes), dtype=np.intp)
    for i in range(len(codes)):
        while st.children_left[node[i]] >= 0:
            f = st.feature[node[i]]
            node[i] = st.children_left[node[i]] if st.split_left[node[i]][codes[i, f]] else st.children_right[node[i]]
    return node


@pytest.mark.parametrize("B,K,depth,dtype", [(10, 2, 2, np.uint8), (255, 3, 3, np.uint8), (300, 2, 1, np.uint16)])
def test_compiled_level_and_leaf_passes_equal_the_numpy_counts(B, K, depth, dtype):
    from dpmodels.tree.privatree.histograms import class_histograms
    from dpmodels.tree.privatree.labels import ClassLabels, RegressionLabels
    from dpmodels.tree.privatree.streaming import _Router

    rng = np.random.default_rng(B + K)
    n, m = 900, 4
    codes = rng.integers(0, B, (n, m)).astype(dtype)
    st, opens = _random_tree(rng, m, B, depth)
    node = _route_by_hand(st, codes)
    tables = _Router(st, B).tables()
    # a level pass over some of the open nodes (the others are already leaves)
    slot_of_node = np.full(len(st.children_left), -1, dtype=np.intp)
    live = opens[rng.random(opens.size) < 0.7]
    slot_of_node[live] = np.arange(live.size)
    slot = slot_of_node[node]
    rows = np.flatnonzero(slot >= 0)
    y = rng.integers(0, K, n).astype(np.uint8)
    out = np.zeros((live.size, m, B, K), dtype=np.int64)
    ClassLabels(np.arange(K)).level_pass(codes, y, tables, slot_of_node, out)
    assert np.array_equal(out, class_histograms(codes, y.astype(np.intp), B, K, slot[rows], rows, live.size))
    u = rng.integers(-(1 << 16), (1 << 16) + 1, n).astype(np.int32)
    reg = RegressionLabels((-1.0, 1.0))
    out = np.zeros((live.size, m, B, 3), dtype=np.int64)
    reg.level_pass(codes, u, tables, slot_of_node, out)
    v = np.clip(u, -reg.w, reg.w)
    assert np.array_equal(out, sum_statistics(codes, v, B, slot[rows], rows, live.size))
    # the leaf pass
    leaf_of_node = np.full(len(st.children_left), -1, dtype=np.intp)
    leaf_of_node[opens] = np.arange(opens.size)
    leaf = leaf_of_node[node]
    out = np.zeros((opens.size, K), dtype=np.int64)
    ClassLabels(np.arange(K)).leaf_pass(codes, y, tables, leaf_of_node, out)
    assert np.array_equal(out, np.bincount(leaf * K + y, minlength=opens.size * K).reshape(-1, K))
    out = np.zeros((opens.size, 2), dtype=np.int64)
    reg.leaf_pass(codes, u, tables, leaf_of_node, out)
    assert np.array_equal(out[:, 0], np.bincount(leaf, minlength=opens.size))
    assert np.array_equal(out[:, 1], np.bincount(leaf, weights=u, minlength=opens.size).astype(np.int64))


@pytest.mark.parametrize("seed", range(4))
def test_compiled_encoding_equals_grid_cells_and_bin_codes(seed):
    """clip → cell → count and clip → cell → code in one loop give the numpy passes' integers,
    with infinite values, values on thresholds and cell edges, degenerate and too-narrow features."""
    from dpmodels.tree.privatree import grid as ptg
    from dpmodels.tree.privatree.kernels import grid_histograms, numeric_codes

    rng = np.random.default_rng(seed)
    n, m, G = 2000, 6, int(rng.choice([16, 2048]))
    X = rng.normal(0, 2, (n, m))
    X[rng.random((n, m)) < 0.01] = np.inf
    X[rng.random((n, m)) < 0.01] = -np.inf
    lo = np.array([-3.0, -1.0, 0.0, 5.0, -2.0, 1e6])
    hi = np.array([3.0, 1.0, 0.0 if seed % 2 else 1.0, 5.5, 2.0, 1e6 + 1e-6])
    num_idx = np.array([0, 1, 2, 4, 5]) if seed % 2 else np.arange(m)
    lo, hi = lo[num_idx], hi[num_idx]
    k = num_idx.size
    T = np.sort(rng.uniform(lo[:, None] - 0.1, hi[:, None] + 0.1, (k, 9)), axis=1)
    T[:, 0] = lo + 7 * (hi - lo) / G  # a threshold on a cell edge
    X[:5, num_idx[0]] = T[0, 0]
    X[5:10, num_idx[1]] = lo[1] + 3 * (hi[1] - lo[1]) / G  # values on a cell edge
    T = np.sort(np.clip(T, lo[:, None], hi[:, None]), axis=1)
    cells, counts = ptg.grid_cells(X, num_idx, lo, hi, G)
    want = np.zeros((n, m), dtype=np.uint8)
    ptg.bin_codes(X, num_idx, cells, T, lo, hi, G, want)
    width, clip_first = ptg.cell_width(lo, hi, G)
    hist = np.zeros((k, G), dtype=np.int64)
    grid_histograms(X, num_idx, lo, hi, width, clip_first, G, hist)
    assert np.array_equal(hist, counts)
    table, _, _ = ptg.code_table(T, lo, hi, G, np.uint8)
    got = np.zeros((n, m), dtype=np.uint8)
    numeric_codes(X, num_idx, lo, hi, width, clip_first, G, table, T, got)
    assert np.array_equal(got[:, num_idx], want[:, num_idx])


def test_compiled_histograms_of_many_columns_equal_grid_cells():
    """Above 32 features the kernel counts feature by feature over row blocks: same counts."""
    from dpmodels.tree.privatree import grid as ptg
    from dpmodels.tree.privatree.kernels import grid_histograms

    rng = np.random.default_rng(1)
    n, m, G = 3000, 70, ptg.GRID
    X = rng.normal(0, 2, (n, m))
    X[rng.random((n, m)) < 0.01] = np.inf
    lo, hi = np.full(m, -3.0), np.full(m, 3.0)
    hi[5] = lo[5]  # a degenerate feature: values clipped first
    num_idx = np.arange(m)
    _, counts = ptg.grid_cells(X, num_idx, lo, hi, G)
    width, clip_first = ptg.cell_width(lo, hi, G)
    got = np.zeros((m, G), dtype=np.int64)
    grid_histograms(X, num_idx, lo, hi, width, clip_first, G, got)
    assert np.array_equal(got, counts)


# ---------------------------------------------------------------------------- level pass: counts by subtraction
def _tree_with_small_nodes(rng, n, m, B, depth):
    """Codes and a released tree where one open node holds exactly one record (row 0, the only
    one with code B − 1 in feature 0, is sent left at the root) and one holds none (a split that
    sends every code right)."""
    from dpmodels.tree.privatree.builder import Structure

    codes = rng.integers(0, B - 1, (n, m))
    codes[0, 0] = B - 1
    st, opens = Structure(), [0]
    for _ in range(depth):
        new = []
        for p in opens:
            kids = st.add_children(p, 0 if p == 0 else int(rng.integers(m)), threshold=0.0)
            if p == 0:
                st.split_left[p] = np.arange(B) == B - 1  # row 0 alone goes left
            elif p == opens[-1]:
                st.split_left[p] = np.zeros(B, dtype=bool)  # an empty left child
            else:
                st.split_left[p] = rng.random(B) < 0.5
            new += kids
        opens = new
    return codes, st, np.asarray(opens)


def _route_up(st, node, levels):
    """Each record's ancestor ``levels`` levels up (the root at most)."""
    parent = {c: p for p, (a, b) in enumerate(zip(st.children_left, st.children_right)) if a >= 0 for c in (a, b)}
    out = node.copy()
    for _ in range(levels):
        out = np.array([parent.get(int(v), 0) for v in out], dtype=node.dtype)
    return out


def _oracle(codes, node, lab, slot_of_node, S, B, width, sums):
    """np.add.at over every (record, feature): the brute-force statistics of the slotted nodes
    (``sums``: the regressor's count, Σv, Σv²; else class counts)."""
    n, m = codes.shape
    out = np.zeros((S, m, B, width), dtype=np.int64)
    s = slot_of_node[node]
    rows = np.flatnonzero(s >= 0)
    r, j = np.repeat(rows, m), np.tile(np.arange(m), rows.size)
    if sums:
        v = lab[r].astype(np.int64)
        for c, val in enumerate((np.ones_like(v), v, v * v)):
            np.add.at(out, (s[r], j, codes[r, j], c), val)
    else:
        np.add.at(out, (s[r], j, codes[r, j], lab[r]), 1)
    return out


@pytest.mark.parametrize(
    "seed,n,m,B,K,depth,dtype",
    [
        (0, 200, 5, 10, 2, 3, np.uint8),
        (1, 57, 3, 4, 3, 2, np.uint8),
        (2, 300, 7, 300, 2, 2, np.uint16),
        (3, 1, 2, 3, 2, 1, np.uint8),  # one record: a one-row node and an empty one
        (4, 300, 60, 10, 2, 3, np.uint8),  # 60 features: counted in groups of 30 (the L1 budget)
        (5, 40, 130, 16, 2, 2, np.uint8),  # wide rows: read in order before they are routed
        (6, 3000, 3, 10, 2, 2, np.uint8),  # a (node, class) group of > 255 rows: several byte-counter runs
        (7, 120, 40, 12, 3, 2, np.uint16),  # vector compares of two-byte codes, two lane chunks
        (8, 400, 6, 10, 3, 3, np.uint8),  # 24 (node, class) groups: gathered by a counting sort
    ],
)
def test_level_pass_by_subtraction_equals_a_brute_force_count(seed, n, m, B, K, depth, dtype):
    """The compiled level pass of every node, and of the smaller child of each split with its
    sibling as parent − child, equal np.add.at over the records (empty and one-row nodes too;
    the classifier's class counts and the regressor's count, Σv, Σv²)."""
    from dpmodels.tree.privatree.labels import ClassLabels, RegressionLabels
    from dpmodels.tree.privatree.streaming import _Router

    rng = np.random.default_rng(seed)
    codes, st, opens = _tree_with_small_nodes(rng, n, m, B, depth)
    codes = codes.astype(dtype)
    node = _route_by_hand(st, codes)
    sizes = np.bincount(node, minlength=len(st.children_left))[opens]
    assert 1 in sizes and 0 in sizes or n == 1  # the cases this test is for
    router = _Router(st, B)
    tables = router.tables()
    parents = [p for p in range(len(st.children_left)) if st.children_left[p] in set(opens.tolist())]
    y = rng.integers(0, K, n).astype(np.uint8)
    u = rng.integers(-(1 << 16), (1 << 16) + 1, n).astype(np.int32)
    reg = RegressionLabels((-1.0, 1.0))
    for labels, lab, v in ((ClassLabels(np.arange(K)), y, y), (reg, u, np.clip(u, -reg.w, reg.w))):
        width, sums = labels.width, labels is reg
        every = np.full(len(st.children_left), -1, dtype=np.intp)
        every[opens] = np.arange(opens.size)
        H = np.zeros((opens.size, m, B, width), dtype=np.int64)
        labels.level_pass(codes, lab, tables, every, H)
        want = _oracle(codes, node, v, every, opens.size, B, width, sums)
        assert np.array_equal(H, want)
        # the parents' statistics (one level up), then the smaller children only
        parent_of = {st.children_left[p]: p for p in parents} | {st.children_right[p]: p for p in parents}
        rec = H[..., 0] if sums else H.sum(-1)
        small = [
            min((st.children_left[p], st.children_right[p]), key=lambda c: rec[every[c], 0].sum()) for p in parents
        ]
        slot = np.full(len(st.children_left), -1, dtype=np.intp)
        slot[small] = np.arange(len(small))
        Hs = np.zeros((len(small), m, B, width), dtype=np.int64)
        labels.level_pass(np.asfortranarray(codes), lab, tables, slot, Hs)  # any memory order
        for i, c in enumerate(small):
            p = parent_of[c]
            sib = st.children_right[p] if c == st.children_left[p] else st.children_left[p]
            H_parent = want[every[st.children_left[p]]] + want[every[st.children_right[p]]]
            assert np.array_equal(Hs[i], want[every[c]])
            assert np.array_equal(H_parent - Hs[i], want[every[sib]])
        # from each record's node one level up (stored node ids), one look-up: the same counts,
        # and the ids then hold each record's node
        ids = np.zeros(n, dtype=np.uint16)
        labels.leaf_pass(
            codes, lab, router.tables(ids, depth - 1), every, np.zeros((opens.size, labels.leaf_width), dtype=np.int64)
        )
        assert np.array_equal(ids, _route_up(st, node, 1))
        H1 = np.zeros_like(H)
        labels.level_pass(codes, lab, router.tables(ids, 1), every, H1)
        assert np.array_equal(H1, want) and np.array_equal(ids, node)
        # an empty partition adds nothing
        before = H.copy()
        labels.level_pass(codes[:0], lab[:0], tables, every, H)
        labels.level_pass(codes[:0], lab[:0], router.tables(ids[:0], 1), every, H)
        assert np.array_equal(H, before)


@pytest.mark.parametrize("m", [3, 33])
def test_level_pass_counts_a_code_repeated_past_a_byte_counter(m):
    """The vector count keeps one-byte counters per (node, class, feature, code) for at most 255
    rows at a time: a node of 1,000 records with the same code in most features (and a second
    class, and the last rows counted code by code) gives np.add.at's counts."""
    from dpmodels.tree.privatree.builder import Structure
    from dpmodels.tree.privatree.labels import ClassLabels
    from dpmodels.tree.privatree.streaming import _Router

    n, B = 1000, 10
    codes = np.zeros((n, m), dtype=np.uint8)
    codes[::7, 1] = 4
    codes[-3:, 0] = 9
    y = (np.arange(n) % 5 == 0).astype(np.uint8)
    st = Structure()
    opens = np.asarray(st.add_children(0, 2, threshold=0.0))
    st.split_left[0] = np.arange(B) == 0  # every record goes left
    slot = np.full(len(st.children_left), -1, dtype=np.intp)
    slot[opens] = np.arange(2)
    H = np.zeros((2, m, B, 2), dtype=np.int64)
    ClassLabels(np.arange(2)).level_pass(codes, y, _Router(st, B).tables(), slot, H)
    assert np.array_equal(H, _oracle(codes, _route_by_hand(st, codes), y, slot, 2, B, 2, False))
    assert H[0, 2, 0, 0] == 800 and H[1].sum() == 0


@pytest.mark.parametrize("where", ["in process", "dask"])
def test_partitioned_fit_counts_one_child_per_split_and_is_the_pinned_model(monkeypatch, where):
    """A partitioned fit asks each level pass for one child per split — in process the one with
    fewer records, on Dask's workers (public inputs only) the left one — and derives its sibling;
    the model is the one pinned before this change (tests/tree/test_privatree_identity.py)."""
    from test_privatree_identity import MIXED, PINNED, _digest, _mixed

    from dpmodels.tree import PrivaTreeClassifier
    from dpmodels.tree.privatree.streaming import SourceData

    if where == "dask":
        from _extras import need

        dd = need("dask")
    calls = []
    count = SourceData._count

    def spy(self, st, nodes):
        out = count(self, st, nodes)
        siblings = []
        for v in nodes:
            p = st.children_left.index(v) if v in st.children_left else st.children_right.index(v) if v else -1
            sib = -1 if p < 0 else st.children_right[p] if st.children_left[p] == v else st.children_left[p]
            siblings.append((sib, v == st.children_left[p], count(self, st, [sib])[0] if sib >= 0 else None))
        calls.append((list(nodes), out, siblings))
        return out

    monkeypatch.setattr(SourceData, "_count", spy)
    for k, name, params in ((2, "default", {}), (3, "pf-exp-gini", dict(
        leaf_labels="permute-and-flip", split_selection="exponential", split_criterion="gini", max_depth=4
    )), (2, "published", dict(variant="published"))):  # fmt: skip
        calls.clear()
        X, y, labels = _mixed(1500, 0, k)
        m = PrivaTreeClassifier(**{**MIXED, **params}, classes=labels, random_state=0)
        if where == "dask":
            ddf = dd.from_pandas(X.assign(label=y), npartitions=3)
            m.fit(ddf[list(X.columns)], ddf["label"])
        else:
            m.fit(InMemorySource(X, y, cuts=(1, 700, 701)))
        got = {
            "tree": m.tree_.to_dict(),
            "ledger": m.privacy_ledger_.to_dict(),
            "budget": m.budget_,
            "n": m.n_estimate_,
        }
        assert _digest(got) == PINNED[f"privatree-mixed-k{k}-{name}-s0"]
        assert len(calls) >= 2 and calls[0][0] == [0]  # the root, then children of splits
        for nodes, H, siblings in calls[1:]:
            for h, (sib, is_left, direct) in zip(H, siblings):
                assert sib not in nodes  # derived as parent − child, not counted
                if where == "dask":
                    assert is_left  # a public choice
                else:
                    assert h[0].sum() <= direct[0].sum()  # the smaller child (records of feature 0)


def test_in_process_passes_route_from_the_stored_node_ids():
    """Between the passes over an in-process cache each record's node id is kept (one uint16 per
    record): a level pass routes it one level, the leaf pass not at all, a tree that does not
    extend the stored one from the root — and every pass's counts equal np.add.at's."""
    from dpmodels.data.cache import EncodedCache
    from dpmodels.tree.privatree.builder import Structure
    from dpmodels.tree.privatree.labels import ClassLabels
    from dpmodels.tree.privatree.streaming import _LeafPass, _LevelPass, _NodeIds, _Router

    rng = np.random.default_rng(7)
    n, m, B, K = 500, 4, 6, 2
    codes = rng.integers(0, B, (n, m)).astype(np.uint8)
    y = rng.integers(0, K, n).astype(np.uint8)
    cuts = [0, 1, 1, 230, n]  # a one-row and an empty partition
    cache = EncodedCache("cache", [(codes[a:b], y[a:b]) for a, b in zip(cuts, cuts[1:])])
    labels, stored = ClassLabels(np.arange(K)), _NodeIds()
    steps = []

    def level_pass(st, nodes):
        router = _Router(st, B)
        slot = np.full(len(st.children_left), -1, dtype=np.intp)
        slot[nodes] = np.arange(len(nodes))
        level = _LevelPass(router, slot, len(nodes), B, m, labels)

        def fn(c, lab, tables):
            steps.append(tables[3])
            return level(c, lab, tables)

        got = stored.pass_over(cache, router, fn, (len(nodes), m, B, K))
        assert np.array_equal(got, _oracle(codes, _route_by_hand(st, codes), y, slot, len(nodes), B, K, False))

    def grow(st, opens):
        new = []
        for p in opens:
            new += st.add_children(p, int(rng.integers(m)), threshold=0.0)
            st.split_left[p] = rng.random(B) < 0.5
        return new

    st, opens = Structure(), [0]
    level_pass(st, opens)
    for _ in range(3):
        opens = grow(st, opens)
        level_pass(st, opens[::2])
    assert steps == [0] * 4 + [1] * 12  # from the root (a tree of one node), then one level per pass
    steps.clear()
    level_pass(st, opens[1::2])  # the same tree again: no look-up
    leaf = np.full(len(st.children_left), -1, dtype=np.intp)
    leaf[opens] = np.arange(len(opens))
    router = _Router(st, B)
    got = stored.pass_over(cache, router, _LeafPass(router, leaf, len(opens), labels), (len(opens), K))
    want = np.bincount(leaf[_route_by_hand(st, codes)] * K + y, minlength=len(opens) * K).reshape(-1, K)
    assert np.array_equal(got, want) and steps == [0] * 4
    steps.clear()
    other, opens = Structure(), [0]  # another tree (not an extension of the stored one): from the root
    for _ in range(2):
        opens = grow(other, opens)
    level_pass(other, opens)
    assert steps == [2] * 4
