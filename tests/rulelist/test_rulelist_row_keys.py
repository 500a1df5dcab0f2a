"""The rule lists' in-memory count seam at scale (``dpmodels.rulelist._counts``): 4-byte row keys,
the distinct (row, class) pairs they give, and the per-distinct-row counter — against brute force
and against the general (packed words) route."""

import numpy as np
import pytest

from dpmodels.rulelist._counts import DistinctPairs, MemoryCounts, row_keys
from dpmodels.rulelist.candidates import RuleCandidates
from dpmodels.rulelist.distinct import _distinct_rows
from dpmodels.rulelist.split_stats import SplitStats


def _layout(X, order, dtype):
    X = X.astype(dtype)
    return np.asfortranarray(X) if order == "F" else np.ascontiguousarray(X)


@pytest.mark.parametrize("p", [1, 7, 8, 13, 24, 32])
@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("dtype", [np.uint8, bool])
def test_row_keys_are_the_rows_bits_with_the_class_appended(p, order, dtype):
    rng = np.random.default_rng(p)
    n = (1 << 15) + 13  # two blocks, the second one not a multiple of 8 records
    X = _layout(rng.integers(0, 2, (n, p)), order, dtype)
    want = (X.astype(np.uint64) << np.arange(p, dtype=np.uint64)).sum(axis=1, dtype=np.uint64)
    assert np.array_equal(row_keys(X), want)
    y = rng.integers(0, 3, n)
    assert np.array_equal(row_keys(X, y, 3), want * np.uint64(3) + y.astype(np.uint64))


def test_row_keys_decline_what_they_cannot_pack():
    rng = np.random.default_rng(0)
    assert row_keys(rng.integers(0, 2, (10, 33)).astype(np.uint8)) is None  # > 32 columns
    assert row_keys(rng.integers(0, 2, (10, 8)).astype(np.int64)) is None  # not uint8 / bool
    assert row_keys(rng.integers(0, 2, (10, 16)).astype(np.uint8)[:, ::2]) is None  # strided


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("K", [2, 3])
def test_distinct_pairs_by_keys_equal_the_packed_words_route(seed, order, K):
    rng = np.random.default_rng(seed)
    n, p = 3000, 11
    X = _layout(rng.random((n, p)) < rng.random(p) * 0.3, order, np.uint8)  # few distinct rows
    y = rng.integers(0, K, n)
    got = DistinctPairs.from_keys(X, y, K)
    _, inverse, rows, packed = _distinct_rows(X, return_rows=True)
    want = DistinctPairs.from_inverse(rows, packed, inverse, y, K)
    assert got is not None
    for a in ("rows", "packed", "present"):
        assert np.array_equal(getattr(got, a), getattr(want, a)), a
    assert np.array_equal(got.record_rows(), inverse)
    # brute force: every record's row is its distinct row; the table counts the records
    assert np.array_equal(got.rows[got.record_rows()], X)
    assert got.present.sum() == n
    table = got.present.reshape(-1, K)
    for i in rng.choice(len(table), 5):
        members = (X == got.rows[i]).all(axis=1)
        assert np.array_equal(table[i], np.bincount(y[members], minlength=K))


@pytest.mark.parametrize("width", [1, 2, 3])
def test_counts_per_distinct_row_equal_the_counts_per_record(width):
    rng = np.random.default_rng(width)
    n, p, K = 2000, 9, 3
    X = (rng.random((n, p)) < 0.3).astype(np.uint8)
    y = rng.integers(0, K, n)
    cands = RuleCandidates.from_features([f"x{j}" for j in range(p)], max_width=width)
    stats = SplitStats(cands, X, y, n_classes=K)
    mem = MemoryCounts(stats, cands, X, y, K)
    for c in rng.choice(len(cands), 3, replace=False):
        by_rows = mem.counts()
        by_records = SplitStats(cands, X, y, n_classes=K)(mem.remaining)
        for a, b in zip(by_rows, by_records):
            assert np.array_equal(np.asarray(a), np.asarray(b))
        captured = mem.remaining & cands.support(X, int(c))
        assert np.array_equal(mem.take(int(c)), np.bincount(y[captured], minlength=K))
    part = mem.partition_histogram()
    assert part.dtype == np.int64 and part.sum() == n
    assert np.array_equal(part[-1], np.bincount(y[mem.remaining], minlength=K))


_LABEL_SETS = [[0, 1], [1, 0], [3, 4, 5], [5, 3, 4], [-1, 0, 1]]


@pytest.mark.parametrize(
    "declared, dtype",
    [(d, t) for d in _LABEL_SETS for t in (np.int64, np.int8, np.uint16) if min(d) >= 0 or t != np.uint16],
)
def test_label_codes_fast_path_equals_the_sorted_search(declared, dtype):
    """Declared consecutive integers in order are coded as value − lowest; the codes (and the
    unknown-label code of any other value) equal the value-by-value lookup's."""
    from dpmodels.validation import UNKNOWN_CATEGORY, category_codes

    rng = np.random.default_rng(0)
    lookup = {v: i for i, v in enumerate(declared)}
    for values in (declared, declared + [max(declared) + 1], declared + [min(declared) + 7]):
        a = rng.choice(values, 200).astype(dtype)
        want = np.array([lookup.get(int(v), UNKNOWN_CATEGORY) for v in a], dtype=np.int64)
        got = category_codes(a, declared)
        assert got.dtype == np.int64 and np.array_equal(got, want)
