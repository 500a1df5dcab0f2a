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
