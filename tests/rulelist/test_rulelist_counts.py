"""The count seam of the rule lists (dpmodels.rulelist.counters): the partitioned backend gives
the in-memory backend's counts, exactly, whatever the partitioning."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpmodels.data.sources import InMemorySource
from dpmodels.rulelist._counts import MemoryCounts
from dpmodels.rulelist.candidates import RuleCandidates
from dpmodels.rulelist.counters import BinaryEncoder, SourceCounts
from dpmodels.rulelist.split_stats import SplitStats


def _data(seed, n, p, K):
    rng = np.random.default_rng(seed)
    X = (rng.random((n, p)) < rng.uniform(0.2, 0.8, p)).astype(np.uint8)
    y = rng.integers(0, K, n)
    return pd.DataFrame(X, columns=[f"c{i}" for i in range(p)]), y


def _brute(cands, X, y, remaining, K):
    """Per candidate and class, the remaining records it captures, by brute force."""
    out = np.zeros((K, len(cands)))
    for c in range(len(cands)):
        sup = remaining & cands.support(X, c)
        out[:, c] = np.bincount(y[sup], minlength=K)
    return out


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    n=st.integers(1, 300),
    width=st.integers(1, 4),
    K=st.integers(2, 3),
    n_cuts=st.integers(0, 4),
)
def test_source_counts_equal_memory_counts_and_brute_force(seed, n, width, K, n_cuts):
    p = 5
    X, y = _data(seed, n, p, K)
    rng = np.random.default_rng(seed + 1)
    cands = RuleCandidates.from_features(list(X.columns), width)
    cuts = sorted(rng.integers(0, n + 1, n_cuts).tolist())  # cuts need not divide n; empty parts allowed
    Xb = X.to_numpy()
    mem = MemoryCounts(SplitStats(cands, Xb.astype(np.float64), y, n_classes=K), cands, Xb, y, K)
    src = SourceCounts(InMemorySource(X, y, cuts=cuts), cands, BinaryEncoder(X.columns, list(range(K)), K == 2), K)
    assert src.n == mem.n == n
    assert np.array_equal(src.class_totals(), mem.class_totals())
    for _ in range(3):
        a, b = mem.counts(), src.counts()
        for u, v in zip(a, b):
            assert np.array_equal(np.asarray(u), np.asarray(v))
        oracle = _brute(cands, Xb, y, mem.remaining, K)
        assert np.array_equal(a[2], oracle.sum(axis=0))
        assert np.array_equal(a[3], oracle[1] if K == 2 else oracle[1:])
        assert np.array_equal(mem.remaining_histogram(), src.remaining_histogram())
        c = int(rng.integers(len(cands)))
        assert np.array_equal(mem.take(c), src.take(c))
    assert np.array_equal(mem.partition_histogram(), src.partition_histogram())
    assert np.array_equal(mem.remaining_histogram(), src.remaining_histogram())


def test_a_moment_pass_returns_a_public_shape_whatever_the_partition():
    X, y = _data(0, 50, 4, 2)
    cands = RuleCandidates.from_features(list(X.columns), 2)
    src = SourceCounts(InMemorySource(X, y, cuts=[0, 0, 7, 50]), cands, BinaryEncoder(X.columns, None, True), 2)
    src.counts()
    src.take(0)
    src.partition_histogram()
    assert src.n_passes == 2  # one moment pass per position, one histogram pass


def test_schema_errors_are_raised_by_the_pass():
    X, y = _data(0, 20, 3, 2)
    X.iloc[5, 1] = 2
    cands = RuleCandidates.from_features(list(X.columns), 2)
    src = SourceCounts(InMemorySource(X, y), cands, BinaryEncoder(X.columns, None, True), 2)
    with pytest.raises(ValueError, match="column 1 holds another value"):
        src.counts()
    X, y = _data(0, 20, 3, 2)
    src = SourceCounts(InMemorySource(X, y + 1), cands, BinaryEncoder(X.columns, None, True), 2)
    with pytest.raises(ValueError, match="label other than 0 and 1"):
        src.counts()


def test_trees_do_not_import_rule_lists():
    import ast
    from pathlib import Path

    import dpmodels.tree

    root = Path(dpmodels.tree.__file__).parent
    for f in root.rglob("*.py"):
        for node in ast.walk(ast.parse(f.read_text())):
            if isinstance(node, ast.ImportFrom):
                assert "rulelist" not in (node.module or ""), f"{f.name} imports {node.module}"
            elif isinstance(node, ast.Import):
                assert not any("rulelist" in a.name for a in node.names), f.name


@pytest.mark.parametrize("p", [1, 7, 8, 9, 63, 64, 65, 107, 130])
def test_row_words_pack_every_column_and_group_equal_rows(p):
    from dpmodels.rulelist.distinct import _distinct_rows, _row_words

    rng = np.random.default_rng(p)
    X = (rng.random((400, p)) < 0.5).astype(np.uint8)
    X[200:] = X[rng.integers(0, 200, 200)]  # repeated rows
    packed = np.packbits(X, axis=1, bitorder="little")
    assert np.array_equal(_row_words(X).view(np.uint8)[:, : packed.shape[1]], packed)
    first, inverse = _distinct_rows(X)
    _, ref_inverse = np.unique(X, axis=0, return_inverse=True)
    # the same grouping (up to the numbering of the groups), and first[g] is in group g
    assert len(first) == len(np.unique(ref_inverse))
    assert np.array_equal(inverse[first], np.arange(len(first)))
    assert np.array_equal(X[first][inverse], X)


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    n=st.integers(0, 120),
    p=st.integers(1, 140),
    order=st.sampled_from(["C", "F", "strided"]),
    dtype=st.sampled_from([np.uint8, bool, np.float64, np.int64]),
)
def test_row_bytes_and_distinct_rows_whatever_the_memory_layout(seed, n, p, order, dtype):
    """The packed bytes equal np.packbits for row-major, column-major (a DataFrame's to_numpy)
    and strided input of any 0/1 dtype; the distinct rows returned are the rows themselves."""
    from dpmodels.rulelist.distinct import _distinct_rows, _row_bytes

    rng = np.random.default_rng(seed)
    X = (rng.random((n, p)) < rng.uniform(0.05, 0.95)).astype(np.uint8)
    if n > 4:
        X[n // 2 :] = X[rng.integers(0, n // 2, n - n // 2)]  # repeated rows
    Xo = X.astype(dtype)
    if order == "F":
        Xo = np.asfortranarray(Xo)
    elif order == "strided":
        Xo = np.asfortranarray(np.repeat(Xo, 2, axis=1))[:, ::2]
    assert np.array_equal(_row_bytes(Xo), np.packbits(X, axis=1, bitorder="little"))
    first, inverse, rows, packed = _distinct_rows(Xo, return_rows=True)
    assert rows.dtype == np.uint8 and rows.shape == (len(first), p)
    assert np.array_equal(packed, np.packbits(X[first], axis=1, bitorder="little"))
    assert np.array_equal(rows, X[first])
    assert np.array_equal(rows[inverse], X)
    assert len(first) == (len(np.unique(X, axis=0)) if n else 0)


def _rare_data(seed, n, p_dense, p_rare, K):
    """Dense columns, then a one-hot block of rare columns (most rows in none of them), and
    repeated rows, so that the Gram products split the rare columns off."""
    rng = np.random.default_rng(seed)
    dense = rng.random((n, p_dense)) < rng.uniform(0.2, 0.8, p_dense)
    which = rng.integers(0, 8 * p_rare, n)  # one rare column for ~1/8 of the rows
    rare = which[:, None] == np.arange(p_rare)[None, :]
    X = np.concatenate([dense, rare], axis=1).astype(np.uint8)
    X = X[:, rng.permutation(X.shape[1])]  # the rare columns anywhere
    X[n // 2 :] = X[rng.integers(0, n // 2, n - n // 2)]  # repeated rows: weights above 1
    return X, rng.integers(0, K, n)


@settings(max_examples=30, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    n=st.integers(60, 400),
    p_rare=st.integers(4, 30),
    K=st.integers(2, 3),
    cached=st.booleans(),
    block=st.sampled_from([7, 1 << 14]),
)
def test_gram_with_rare_columns_apart_equals_brute_force(seed, n, p_rare, K, cached, block):
    """The width-2 counts with the rare columns' rows computed apart (every call: the first
    products, downdates, recomputations; float64 copies or uint8 blocks) equal brute force."""
    import dpmodels.rulelist.split_stats as C

    X, y = _rare_data(seed, n, 6, p_rare, K)
    cands = RuleCandidates.from_features([f"c{i}" for i in range(X.shape[1])], 2)
    old = C._FLOAT_CACHE_CELLS, C._BLOCK_ROWS
    C._FLOAT_CACHE_CELLS, C._BLOCK_ROWS = (old[0] if cached else 0), block
    try:
        stats = SplitStats(cands, X, y, n_classes=K)
        assert stats._S.size > 0  # the split is exercised
        mem = MemoryCounts(stats, cands, X, y, K)
        rng = np.random.default_rng(seed + 1)
        for _ in range(4):
            N, P, cap, cap_pos = mem.counts()
            oracle = _brute(cands, X, y, mem.remaining, K)
            assert N == mem.remaining.sum()
            assert np.array_equal(cap, oracle.sum(axis=0))
            assert np.array_equal(cap_pos, oracle[1] if K == 2 else oracle[1:])
            mem.take(int(rng.integers(len(cands))))
    finally:
        C._FLOAT_CACHE_CELLS, C._BLOCK_ROWS = old


def test_rare_columns_are_split_off_only_when_it_pays():
    from dpmodels.rulelist.split_stats import _dense_and_rare_columns

    X, _ = _rare_data(0, 2000, 10, 40, 2)
    dense, rare = _dense_and_rare_columns(X)
    assert sorted([*dense, *rare]) == list(range(50))
    assert rare.size >= 30 and X[:, rare].sum(axis=0).max() <= X[:, dense].sum(axis=0).min()
    Xd = (np.random.default_rng(0).random((2000, 30)) < 0.5).astype(np.uint8)  # no rare column
    assert _dense_and_rare_columns(Xd)[1].size == 0
    assert _dense_and_rare_columns(Xd[:0])[1].size == 0


def test_row_groups_survive_a_hash_collision():
    """Two different rows whose mixed hash collides are still two groups (the check falls back
    to the exact grouping); equal rows stay one group."""
    from dpmodels.rulelist.distinct import _MIX, _group_words

    a0, a1 = np.uint64(12345), np.uint64(678)
    b0 = np.uint64(999)
    with np.errstate(over="ignore"):
        b1 = (a0 * _MIX) ^ a1 ^ (b0 * _MIX)  # b0·MIX ^ b1 == a0·MIX ^ a1 (mod 2^64)
        assert (b0 * _MIX) ^ b1 == (a0 * _MIX) ^ a1
    keys = np.array([[a0, a1], [b0, b1], [a0, a1], [b0, b1], [b0, a1]], dtype=np.uint64)
    first, codes = _group_words(keys)
    assert first.tolist() == [0, 1, 4] and codes.tolist() == [0, 1, 0, 1, 2]
    first, codes = _group_words(keys[[0, 2, 4]])  # no collision: the hashed path
    assert first.tolist() == [0, 2] and codes.tolist() == [0, 0, 1]


def test_column_major_packing_across_blocks(monkeypatch):
    """Blocks of records that are not multiples of 8 pack like one block (np.packbits)."""
    import dpmodels.rulelist.distinct as C

    rng = np.random.default_rng(5)
    X = np.asfortranarray((rng.random((203, 21)) < 0.4).astype(np.uint8))
    want = np.packbits(X, axis=1, bitorder="little")
    for block in (1, 7, 8, 13, 64, 1 << 18):
        monkeypatch.setattr(C, "_PACK_BLOCK", block)
        assert np.array_equal(C._row_bytes(X), want)
