"""PrivaTree's source passes over Arrow record batches: the pinned Parquet files of
``DaskSource.from_parquet``, read by ``dpmodels.data.sources_pinned.read_pinned``, and the
record batches of ``ParquetSource`` (``ParquetSource.map_batches``, through ``counts`` and
``encoded_cache``).

The oracle is the pandas path of the same pass on the same file (what every other partitioned
source runs): the same counts, the same codes and labels, the same schema errors — whichever
columns take the views and whichever send their batch through the pandas path. The fits on Dask
and on ParquetSource then equal the in-memory fit (``test_sources.py`` is the oracle of that;
here with the Arrow path forced and the batches cut small). Only pyarrow is needed, except for
the Dask fits.
"""

import os

import numpy as np
import pandas as pd
import pytest

from _extras import need

need("pyarrow")

from dpmodels.data.cache import encoded_cache  # noqa: E402
from dpmodels.data.counts import counts  # noqa: E402
from dpmodels.data.sources import ParquetSource, _schema_dtypes, declared_schema  # noqa: E402
from dpmodels.data.sources_pinned import read_pinned  # noqa: E402
from dpmodels.tree.privatree import streaming  # noqa: E402
from dpmodels.tree.privatree.grid import candidate_grid  # noqa: E402
from dpmodels.tree.privatree.labels import ClassLabels, RegressionLabels  # noqa: E402
from dpmodels.validation import resolve_bounds  # noqa: E402

BOUNDS = {"x0": (-3, 3), "x1": (-2, 40), "x2": (-2, 2)}
CATEGORIES = {"c": ["a", "b", "c"], "k": [0, 1, 2]}


def _frame(n, seed=0):
    """Every column kind the views cover: float64, int64 and float32 numbers, text categories
    (one value outside the list), integer categories (one outside), text labels."""
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(
        {
            "x0": rng.normal(size=n) * 2,  # values beyond the bounds too
            "x1": rng.integers(-5, 50, size=n),
            "x2": rng.normal(size=n).astype(np.float32),
            "c": rng.choice(["a", "b", "c", "other"], size=n),
            "k": rng.integers(0, 4, size=n),
        }
    )
    y = np.where(X.x0 + (X.c == "a") > 0, "yes", "no")
    return X, y


def _write(path, X, y, row_group_size=None):
    X.assign(label=y).to_parquet(path, index=False, row_group_size=row_group_size)
    st = os.stat(path)
    return str(path), (st.st_size, st.st_mtime_ns)


def _passes(X, labels, seed=0):
    """The first pass and the encoding pass of a partitioned fit on X's schema, with thresholds
    drawn at random (some of them equal to values of the data: the codes' exact comparisons)."""
    names, categorical, cats = declared_schema("test", _schema_dtypes(X.iloc[:0]), CATEGORIES, BOUNDS)
    num_idx = np.flatnonzero(~categorical)
    lo, hi = resolve_bounds(BOUNDS, names, num_idx, None, None)
    enc = streaming._Encoder(names, categorical, cats, labels)
    rng = np.random.default_rng(seed)
    T = np.sort(rng.uniform(lo[:, None] - 0.5, hi[:, None] + 0.5, size=(num_idx.size, 7)), axis=1)
    T[:, 3] = [float(X[names[j]].iloc[i]) for j, i in zip(num_idx, rng.integers(0, len(X), num_idx.size))]
    T.sort(axis=1)
    grid = candidate_grid(categorical, cats, num_idx, lo, hi, T, 8)
    first = streaming._FirstPass(enc, num_idx, lo, hi)
    prepare = streaming._Prepare(enc, grid, categorical, num_idx, lo, hi, T)
    return first, prepare, [*names, "label"]


@pytest.fixture
def small_batches(monkeypatch):
    monkeypatch.setattr("dpmodels.data.sources_pinned._ARROW_BATCH_ROWS", 64)


@pytest.fixture
def no_fallback(monkeypatch):
    """The views must cover every batch: the pandas path is not taken (nor ParquetSource's frames)."""

    def fail(self, *args):
        raise AssertionError("a batch took the pandas path")

    monkeypatch.setattr(streaming._Encoder, "pandas", fail)
    monkeypatch.setattr(ParquetSource, "partitions", fail)


SOURCES = ["dask", "parquet"]


def _arrow_pass(source, fn, columns, pin, tmp_path):
    """``fn``'s pass over one file as the Arrow path of ``source`` runs it: ``read_pinned`` (a Dask
    task), or ``counts`` / ``encoded_cache`` over a ``ParquetSource`` of batches of 64 rows (the
    cached batches concatenated)."""
    if source == "dask":
        return read_pinned(fn, columns, pin)
    src = ParquetSource(pin[0], label=columns[-1], columns=columns[:-1], batch_rows=64)
    if isinstance(fn, streaming._FirstPass):
        return counts(src, fn, (1 + fn.num_idx.size * streaming.GRID,))
    with encoded_cache(src, fn, folder=tmp_path) as cache:
        parts = list(cache.partitions())
    if not parts:  # an empty file has no record batch: nothing is cached (the pandas path neither)
        return None
    return tuple(np.concatenate(a) for a in zip(*parts))


def _pandas_pass(fn, path, columns):
    df = pd.read_parquet(path, columns=columns)
    return fn(df[columns[:-1]], df[columns[-1]].to_numpy())


@pytest.mark.parametrize("source", SOURCES)
@pytest.mark.parametrize("n,row_group_size", [(1, None), (300, None), (300, 100), (0, None)])
def test_arrow_passes_equal_the_pandas_path(tmp_path, small_batches, no_fallback, n, row_group_size, source):
    X, y = _frame(n, seed=n)
    pin = _write(tmp_path / "f.parquet", X, y, row_group_size)
    X_all, y_all = _frame(300)  # thresholds and a schema from data of every kind, also for n = 0
    first, prepare, cols = _passes(X_all, ClassLabels(np.array(["no", "yes"], dtype=object)))
    got = _arrow_pass(source, first, cols, pin, tmp_path)
    assert got.dtype == np.int64 and got[0] == n and got[1:].sum() == n * 3  # 3 numerical features
    assert np.array_equal(got, _pandas_pass(first, tmp_path / "f.parquet", cols))
    encoded = _arrow_pass(source, prepare, cols, pin, tmp_path)
    if encoded is None:
        assert source == "parquet" and n == 0
        return
    codes, lab = encoded
    want_codes, want_lab = _pandas_pass(prepare, tmp_path / "f.parquet", cols)
    assert codes.dtype == want_codes.dtype and np.array_equal(codes, want_codes)
    assert lab.dtype == want_lab.dtype and np.array_equal(lab, want_lab)


@pytest.mark.parametrize("source", SOURCES)
def test_arrow_regression_labels(tmp_path, small_batches, no_fallback, source):
    X, _ = _frame(200, seed=3)
    yr = np.random.default_rng(3).normal(size=200) * 4  # beyond the label bounds too
    pin = _write(tmp_path / "f.parquet", X, yr)
    _, prepare, cols = _passes(X, RegressionLabels((-5.0, 5.0)))
    codes, lab = _arrow_pass(source, prepare, cols, pin, tmp_path)
    want_codes, want_lab = _pandas_pass(prepare, tmp_path / "f.parquet", cols)
    assert np.array_equal(codes, want_codes) and lab.dtype == want_lab.dtype and np.array_equal(lab, want_lab)


@pytest.mark.parametrize(
    "kind", ["missing category", "missing integer category", "float16 number", "bool label", "numbers as text"]
)
@pytest.mark.parametrize("source", SOURCES)
def test_arrow_passes_cover_more_kinds(tmp_path, small_batches, kind, source):
    """Missing categories (unknown, as in memory), other number and label types, and numbers
    written as decimal text (which the views do not read: the pandas path does)."""
    X, y = _frame(250, seed=5)
    labels = ClassLabels(np.array(["no", "yes"], dtype=object))
    if kind == "missing category":
        X["c"] = X["c"].where(np.arange(250) % 7 != 0, None)
    elif kind == "missing integer category":
        X["k"] = X["k"].astype("Int64").where(np.arange(250) % 5 != 0, pd.NA)
    elif kind == "float16 number":
        X["x2"] = X["x2"].astype(np.float16)
    elif kind == "numbers as text":
        X["x1"] = X["x1"].astype(str)
    else:
        y = y == "yes"
        labels = ClassLabels(np.array([False, True]))
    pin = _write(tmp_path / "f.parquet", X, y)
    first, prepare, cols = _passes(_frame(300)[0], labels)
    for fn in (first, prepare):
        got = _arrow_pass(source, fn, cols, pin, tmp_path)
        want = _pandas_pass(fn, tmp_path / "f.parquet", cols)
        for a, b in zip(got if isinstance(got, tuple) else (got,), want if isinstance(want, tuple) else (want,)):
            assert np.array_equal(a, b)


@pytest.mark.parametrize(
    "spoil,error",
    [
        (lambda X, y: X.assign(x0=X.x0.where(X.index != 40, np.nan)), "NaN in numerical feature 'x0'"),
        (lambda X, y: X.assign(x2=X.x2.where(X.index != 90, np.inf)), "infinity in numerical feature 'x2'"),
        (lambda X, y: X.assign(x1=X.x1.astype(str).where(X.index != 30, "n/a")), "feature 'x1' is numerical"),
    ],
)
@pytest.mark.parametrize("source", SOURCES)
def test_arrow_passes_raise_the_pandas_paths_schema_errors(tmp_path, small_batches, spoil, error, source):
    X, y = _frame(150, seed=6)
    first, prepare, cols = _passes(X, ClassLabels(np.array(["no", "yes"], dtype=object)))
    pin = _write(tmp_path / "f.parquet", spoil(X, y), y)
    for fn in (first, prepare):
        with pytest.raises(ValueError, match=error):
            _arrow_pass(source, fn, cols, pin, tmp_path)


@pytest.mark.parametrize("source", SOURCES)
def test_arrow_passes_raise_on_a_label_outside_the_classes(tmp_path, small_batches, source):
    X, y = _frame(150, seed=7)
    first, _, cols = _passes(X, ClassLabels(np.array(["no", "yes"], dtype=object)))
    y = y.astype(object)
    y[77] = "maybe"
    pin = _write(tmp_path / "f.parquet", X, y)
    with pytest.raises(ValueError) as arrow:
        _arrow_pass(source, first, cols, pin, tmp_path)
    with pytest.raises(ValueError) as pandas:
        _pandas_pass(first, tmp_path / "f.parquet", cols)
    assert str(arrow.value) == str(pandas.value)


def test_read_pinned_refuses_a_rewritten_file(tmp_path):
    X, y = _frame(100)
    path = tmp_path / "f.parquet"
    pin = _write(path, X, y)
    first, _, cols = _passes(X, ClassLabels(np.array(["no", "yes"], dtype=object)))
    X.iloc[:50].assign(label=y[:50]).to_parquet(path, index=False)
    os.utime(path, ns=(pin[1][1], pin[1][1] + 1_000_000_000))
    with pytest.raises(ValueError, match=r"f\.parquet' changed since the source was made"):
        read_pinned(first, cols, pin)


# ---------------------------------------------------------------------------- fits on Dask
def test_privatree_on_pinned_dask_files_equals_in_memory(tmp_path, small_batches, no_fallback):
    need("dask")
    import dask

    from dpmodels.data import DaskSource
    from dpmodels.tree import PrivaTreeClassifier, PrivaTreeRegressor

    X, y = _frame(700, seed=8)
    yr = X.x0.to_numpy() * 2 + np.random.default_rng(8).normal(size=700)
    kw = dict(epsilon=1.0, max_depth=3, bounds=BOUNDS, categories=CATEGORIES)
    d, dr = tmp_path / "c", tmp_path / "r"
    d.mkdir()
    dr.mkdir()
    for i, (a, b) in enumerate([(0, 250), (250, 251), (251, 700)]):
        _write(d / f"p{i}.parquet", X.iloc[a:b], y[a:b])
        _write(dr / f"p{i}.parquet", X.iloc[a:b], yr[a:b])
    with dask.config.set(scheduler="synchronous"):
        m1 = PrivaTreeClassifier(**kw, classes=["no", "yes"], random_state=4).fit(X, y)
        m2 = PrivaTreeClassifier(**kw, classes=["no", "yes"], random_state=4).fit(
            DaskSource.from_parquet(d, label="label")
        )
        r1 = PrivaTreeRegressor(**kw, label_bounds=(-5, 5), random_state=4).fit(X, yr)
        r2 = PrivaTreeRegressor(**kw, label_bounds=(-5, 5), random_state=4).fit(
            DaskSource.from_parquet(dr, label="label")
        )
    for a, b in ((m1, m2), (r1, r2)):
        assert a.tree_.to_dict() == b.tree_.to_dict()
        assert a.privacy_ledger_.to_dict() == b.privacy_ledger_.to_dict()


@pytest.mark.parametrize("arrow_passes", [True, False])
def test_privatree_on_parquet_record_batches_equals_in_memory(tmp_path, monkeypatch, arrow_passes):
    """ParquetSource's source passes on its record batches (or, switched off, on their pandas
    frames): the fit of the in-memory data, over files and batches cut unevenly."""
    from dpmodels.tree import PrivaTreeClassifier, PrivaTreeRegressor

    if arrow_passes:  # the views cover every batch: no frame is made
        monkeypatch.setattr(streaming._Encoder, "pandas", lambda self, rb: pytest.fail("a pandas batch"))
        monkeypatch.setattr(ParquetSource, "partitions", lambda self: pytest.fail("a pandas frame"))
    monkeypatch.setattr(ParquetSource, "arrow_passes", arrow_passes)
    X, y = _frame(700, seed=10)
    yr = X.x0.to_numpy() * 2 + np.random.default_rng(10).normal(size=700)
    kw = dict(epsilon=1.0, max_depth=3, bounds=BOUNDS, categories=CATEGORIES, random_state=6)
    for name, labels in (("c", y), ("r", yr)):
        (tmp_path / name).mkdir()
        for i, (a, b) in enumerate([(0, 250), (250, 251), (251, 700)]):
            _write(tmp_path / name / f"p{i}.parquet", X.iloc[a:b], labels[a:b])
    m1 = PrivaTreeClassifier(**kw, classes=["no", "yes"]).fit(X, y)
    m2 = PrivaTreeClassifier(**kw, classes=["no", "yes"]).fit(ParquetSource(tmp_path / "c", "label", batch_rows=97))
    r1 = PrivaTreeRegressor(**kw, label_bounds=(-5, 5)).fit(X, yr)
    r2 = PrivaTreeRegressor(**kw, label_bounds=(-5, 5)).fit(ParquetSource(tmp_path / "r", "label", batch_rows=97))
    for a, b in ((m1, m2), (r1, r2)):
        assert a.tree_.to_dict() == b.tree_.to_dict()
        assert a.privacy_ledger_.to_dict() == b.privacy_ledger_.to_dict()


def test_privatree_on_a_distributed_cluster_passes_once_per_worker(tmp_path, monkeypatch):
    """On ``distributed``, a pass over the persisted cache is one task per worker over the
    partitions it holds (dpmodels.data.counts._per_worker_sum): the same fit as in memory."""
    need("dask")
    distributed = need("distributed")
    from dpmodels.data import DaskSource
    from dpmodels.data import counts as counts_module
    from dpmodels.tree import PrivaTreeClassifier

    calls = []
    real = counts_module._per_worker_sum

    def spy(client, fn, shape, parts):
        calls.append(len(parts))
        return real(client, fn, shape, parts)

    monkeypatch.setattr(counts_module, "_per_worker_sum", spy)
    X, y = _frame(600, seed=9)
    d = tmp_path / "d"
    d.mkdir()
    for i, (a, b) in enumerate([(0, 200), (200, 390), (390, 600)]):
        _write(d / f"p{i}.parquet", X.iloc[a:b], y[a:b])
    kw = dict(epsilon=1.0, max_depth=3, bounds=BOUNDS, categories=CATEGORIES, classes=["no", "yes"], random_state=5)
    m1 = PrivaTreeClassifier(**kw).fit(X, y)
    with (
        distributed.LocalCluster(n_workers=2, processes=False, threads_per_worker=1, dashboard_address=None) as cluster,
        distributed.Client(cluster),
    ):
        m2 = PrivaTreeClassifier(**kw).fit(DaskSource.from_parquet(d, label="label"))
    assert m1.tree_.to_dict() == m2.tree_.to_dict()
    assert m1.privacy_ledger_.to_dict() == m2.privacy_ledger_.to_dict()
    assert calls and set(calls) == {3}  # every level and leaf pass, over the 3 cached partitions
