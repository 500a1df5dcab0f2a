"""Partitioned input: Parquet sources, the count backend, and PrivaTree fitted by count passes.

The oracle of every fit on partitioned input is the in-memory fit of the concatenated data with
the same seed: the tree, its thresholds, the leaf counts, the ledger and the budget must be equal
(docs/privacy.md, "Counting at scale").
"""

import os
import time

import numpy as np
import pandas as pd
import pytest

from _extras import need

need("pyarrow")

from dpmodels.data import ParquetSource  # noqa: E402
from dpmodels.data.counts import counts  # noqa: E402
from dpmodels.data.sources import InMemorySource, is_partitioned  # noqa: E402
from dpmodels.tree import PrivaTreeClassifier  # noqa: E402

N = 2003  # not divisible by any partition count used below


def _data(n=N, seed=0):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({f"x{i}": rng.normal(size=n) for i in range(3)})
    X["c"] = rng.choice(["a", "b", "c", "other"], size=n)  # "other" is outside the declared list
    X["k"] = rng.integers(0, 3, size=n)
    score = X.x0 + (X.c == "a") - 0.5 * X.k + rng.normal(size=n) * 0.5
    y = np.where(score > 0, "yes", "no")
    return X, y


KW = dict(
    epsilon=1.0,
    max_depth=3,
    bounds={"x0": (-3, 3), "x1": (-3, 3), "x2": (-2, 2)},
    categories={"c": ["a", "b", "c"], "k": [0, 1, 2]},
    classes=["no", "yes"],
)


def _write(tmp_path, X, y, cuts, name="d"):
    d = tmp_path / name
    d.mkdir()
    df = X.assign(label=y)
    edges = [0, *cuts, len(df)]
    for i, (a, b) in enumerate(zip(edges[:-1], edges[1:])):
        df.iloc[a:b].to_parquet(d / f"part-{i:03d}.parquet", index=False)
    return d


def _same_fit(m1, m2):
    assert m1.tree_.to_dict() == m2.tree_.to_dict()
    assert m1.privacy_ledger_.to_dict() == m2.privacy_ledger_.to_dict()
    assert m1.budget_ == m2.budget_
    assert m1.n_estimate_ == m2.n_estimate_
    assert list(m1.classes_) == list(m2.classes_)
    assert list(m1.feature_names_in_) == list(m2.feature_names_in_)


# ---------------------------------------------------------------------------- sources
def test_parquet_source_pins_sorted_files_and_checks_them(tmp_path):
    X, y = _data()
    d = _write(tmp_path, X, y, [500, 1700])
    src = ParquetSource(d, label="label", batch_rows=300)
    assert [os.path.basename(f) for f in src.files] == ["part-000.parquet", "part-001.parquet", "part-002.parquet"]
    assert src.n_partitions == 3 and src.columns == list(X.columns)
    fp = src.fingerprint()
    parts = list(src.partitions())
    assert max(len(p[0]) for p in parts) <= 300
    assert isinstance(parts[0][0]["c"].dtype, pd.CategoricalDtype)  # text read as dictionaries
    got = pd.concat([p[0].astype({"c": X["c"].dtype}) for p in parts], ignore_index=True)
    pd.testing.assert_frame_equal(got, X)
    assert np.array_equal(np.concatenate([p[1] for p in parts]), y)
    assert ParquetSource(d, label="label").fingerprint() == fp
    # a rewritten file is refused at the next pass
    time.sleep(0.01)
    X.iloc[:10].assign(label=y[:10]).to_parquet(d / "part-001.parquet", index=False)
    with pytest.raises(ValueError, match="changed since the source was made"):
        counts(src, lambda X, y: np.array([len(X)], dtype=np.int64), (1,))


def test_parquet_source_bad_input(tmp_path):
    X, y = _data(50)
    d = _write(tmp_path, X, y, [])
    with pytest.raises(ValueError, match="no column 'nope'"):
        ParquetSource(d, label="nope")
    with pytest.raises(ValueError, match="no such file"):
        ParquetSource(tmp_path / "missing", label="label")
    (tmp_path / "empty").mkdir()
    with pytest.raises(ValueError, match="no .parquet file"):
        ParquetSource(tmp_path / "empty", label="label")
    with pytest.raises(ValueError, match="also listed"):
        ParquetSource(d, label="label", columns=["x0", "label"])
    single = ParquetSource(d / "part-000.parquet", label="label", columns=["x1", "x0"])
    assert single.columns == ["x1", "x0"] and single.n_partitions == 1


def test_counts_sum_exactly_and_check_the_public_shape(tmp_path):
    X, y = _data()
    d = _write(tmp_path, X, y, [1, 2, 999])

    def fn(Xp, yp):
        return np.bincount(Xp["k"].to_numpy() * 2 + (yp == "yes"), minlength=6).astype(np.int64)

    want = fn(X, y)
    assert np.array_equal(counts(InMemorySource(X, y), fn, (6,)), want)
    for batch in (1000, 7, 2003):
        assert np.array_equal(counts(ParquetSource(d, label="label", batch_rows=batch), fn, (6,)), want)
    with pytest.raises(TypeError, match="int64 counts of shape"):
        counts(InMemorySource(X, y), lambda Xp, yp: np.zeros(6), (6,))
    with pytest.raises(TypeError, match="int64 counts of shape"):
        counts(InMemorySource(X, y), lambda Xp, yp: np.zeros(5, dtype=np.int64), (6,))


def test_in_memory_input_is_not_partitioned():
    X, y = _data(20)
    assert not is_partitioned(X, y) and not is_partitioned(X.to_numpy(), y)


# ---------------------------------------------------------------------------- PrivaTree: same model
@pytest.mark.parametrize("cuts,batch", [([], 100000), ([700, 701, 1500], 333), ([100 * i for i in range(1, 7)], 97)])
@pytest.mark.parametrize("seed", [0, 3])
def test_privatree_parquet_equals_in_memory(tmp_path, cuts, batch, seed):
    X, y = _data(seed=seed)
    d = _write(tmp_path, X, y, cuts)
    m1 = PrivaTreeClassifier(**KW, random_state=seed).fit(X, y)
    m2 = PrivaTreeClassifier(**KW, random_state=seed).fit(ParquetSource(d, label="label", batch_rows=batch))
    _same_fit(m1, m2)
    assert m1.tree_.n_leaves > 1  # the comparison covers splits, not a lone leaf
    assert m2.privacy_ledger_.is_private
    assert np.array_equal(m1.predict(X), m2.predict(X))


@pytest.mark.parametrize(
    "params",
    [
        dict(leaf_labels="permute-and-flip", split_selection="exponential", split_criterion="gini", max_depth=4),
        dict(split_selection="histogram", n_public=2000),
        dict(variant="published"),
        dict(one_vs_rest=True, category_order="public", max_bins=4),
        dict(max_depth=0),
    ],
)
def test_privatree_parquet_equals_in_memory_other_settings(tmp_path, params):
    X, y = _data(seed=1)
    d = _write(tmp_path, X, y, [333, 1000])
    kw = {**KW, **params}
    m1 = PrivaTreeClassifier(**kw, random_state=5).fit(X, y)
    m2 = PrivaTreeClassifier(**kw, random_state=5).fit(ParquetSource(d, label="label", batch_rows=256))
    _same_fit(m1, m2)


def test_privatree_parquet_only_numerical_or_only_categorical(tmp_path):
    X, y = _data(seed=2)
    for cols, kw in (
        (["x0", "x1", "x2"], dict(bounds=KW["bounds"])),
        (["c", "k"], dict(categories=KW["categories"])),
    ):
        d = _write(tmp_path, X[cols], y, [1001], name="_".join(cols))
        m1 = PrivaTreeClassifier(classes=["no", "yes"], random_state=4, **kw).fit(X[cols], y)
        m2 = PrivaTreeClassifier(classes=["no", "yes"], random_state=4, **kw).fit(ParquetSource(d, label="label"))
        _same_fit(m1, m2)


def test_privatree_shares_an_accountant_on_parquet(tmp_path):
    from dpmodels.privacy import BudgetAccountant

    X, y = _data()
    d = _write(tmp_path, X, y, [1000])
    acc = BudgetAccountant(2.0)
    m = PrivaTreeClassifier(**{**KW, "epsilon": 0.5}, accountant=acc, random_state=0).fit(
        ParquetSource(d, label="label")
    )
    assert acc.epsilon_spent == pytest.approx(0.5)
    assert m.privacy_ledger_.is_private


# ---------------------------------------------------------------------------- schema: declared, checked first
@pytest.mark.parametrize(
    "drop,match",
    [("classes", "label set declared"), ("bounds", "needs bounds="), ("categories", "neither declared categorical")],
)
def test_partitioned_input_needs_the_whole_schema(tmp_path, drop, match):
    X, y = _data(100)
    d = _write(tmp_path, X, y, [])
    kw = {k: v for k, v in KW.items() if k != drop}
    with pytest.raises(ValueError, match=match):
        PrivaTreeClassifier(**kw).fit(ParquetSource(d, label="label"))


def test_schema_errors_surface_in_the_first_pass_before_any_release(tmp_path):
    from dpmodels.privacy import BudgetAccountant

    X, y = _data(300)
    y = y.astype(object)
    y[-1] = "maybe"  # a label outside the declared classes, in the last batch
    d = _write(tmp_path, X, y, [150])
    acc = BudgetAccountant(1.0)
    with pytest.raises(ValueError, match="outside the declared classes"):
        PrivaTreeClassifier(**KW, accountant=acc).fit(ParquetSource(d, label="label", batch_rows=64))
    assert acc.epsilon_spent == 0
    X2 = X.copy()
    X2.loc[299, "x1"] = np.nan
    d2 = _write(tmp_path, X2, _data(300)[1], [150], name="nan")
    with pytest.raises(ValueError):
        PrivaTreeClassifier(**KW, accountant=acc).fit(ParquetSource(d2, label="label"))
    assert acc.epsilon_spent == 0


def test_partitioned_input_refuses_what_it_cannot_do(tmp_path):
    X, y = _data(100)
    d = _write(tmp_path, X, y, [])
    src = ParquetSource(d, label="label")
    with pytest.raises(ValueError, match="published\\*"):
        PrivaTreeClassifier(**KW, variant="published*").fit(src)
    with pytest.raises(ValueError, match="sample_weight"):
        PrivaTreeClassifier(**KW).fit(src, sample_weight=np.ones(100))
    with pytest.raises(ValueError, match="pass y=None"):
        PrivaTreeClassifier(**KW).fit(src, y)


# ---------------------------------------------------------------------------- Dask
@pytest.fixture
def dd():
    return need("dask")


@pytest.mark.parametrize("nparts", [1, 3, 7])
def test_privatree_dask_local_scheduler_equals_in_memory(dd, nparts):
    X, y = _data(seed=1)
    df = X.assign(label=y)
    ddf = dd.from_pandas(df, npartitions=nparts)
    feats = list(X.columns)
    m1 = PrivaTreeClassifier(**KW, random_state=11).fit(X, y)
    m2 = PrivaTreeClassifier(**KW, random_state=11).fit(ddf[feats], ddf["label"])
    _same_fit(m1, m2)
    pred = m2.predict(ddf[feats])
    assert type(pred).__module__.split(".")[0] in ("dask", "dask_expr")
    assert np.array_equal(pred.compute().to_numpy(), m1.predict(X))
    proba = m2.predict_proba(ddf[feats]).compute()
    assert np.allclose(proba.to_numpy(), m1.predict_proba(X))


def test_privatree_dask_local_cluster_equals_in_memory(dd):
    distributed = need("distributed")
    X, y = _data(seed=2)
    df = X.assign(label=y)
    ddf = dd.from_pandas(df, npartitions=4)
    m1 = PrivaTreeClassifier(**KW, random_state=3).fit(X, y)
    with (
        distributed.LocalCluster(n_workers=2, processes=False, threads_per_worker=1, dashboard_address=None) as cluster,
        distributed.Client(cluster),
    ):
        m2 = PrivaTreeClassifier(**KW, random_state=3).fit(ddf[list(X.columns)], ddf["label"])
    _same_fit(m1, m2)


def test_dask_category_dtype_is_not_a_declaration(dd):
    X, y = _data(200)
    X["c"] = X["c"].astype("category")  # categories read from the data by pandas
    ddf = dd.from_pandas(X.assign(label=y), npartitions=2)
    kw = {**KW, "categories": {"k": [0, 1, 2]}}
    with pytest.raises(ValueError, match="'c' is neither declared"):
        PrivaTreeClassifier(**kw).fit(ddf[list(X.columns)], ddf["label"])


# ---------------------------------------------------------------------------- Binarizer
BKW = dict(
    epsilon=1.0,
    n_bins=4,
    bounds={"x0": (-3, 3), "x1": (-3, 3)},
    cut_points={"x2": [-1.0, 0.5]},
    categories={"c": ["a", "b", "c"], "k": [0, 1, 2]},
)


def _same_binarizer(b1, b2, X):
    assert {k: list(v) for k, v in b1.cut_points_.items()} == {k: list(v) for k, v in b2.cut_points_.items()}
    assert b1.groups_ == b2.groups_ and b1.categories_ == b2.categories_ and b1.bounds_ == b2.bounds_
    assert b1.privacy_ledger_.to_dict() == b2.privacy_ledger_.to_dict()
    pd.testing.assert_frame_equal(b1.transform(X), b2.transform(X))


@pytest.mark.parametrize("cuts,batch", [([], 5000), ([1, 2, 1000], 301)])
def test_binarizer_parquet_equals_in_memory(tmp_path, cuts, batch):
    from dpmodels.data import Binarizer

    X, y = _data(seed=4)
    d = _write(tmp_path, X, y, cuts)
    b1 = Binarizer(**BKW, random_state=9).fit(X)
    src = ParquetSource(d, label="label", batch_rows=batch)
    b2 = Binarizer(**BKW, random_state=9).fit(src)
    _same_binarizer(b1, b2, X)
    assert b2.privacy_ledger_.is_private and len(b2.privacy_ledger_.rows) == 2
    streamed = list(b2.transform(src))  # one binarized batch at a time
    got = pd.concat([t for t, _ in streamed], ignore_index=True)
    pd.testing.assert_frame_equal(got, b1.transform(X).reset_index(drop=True), check_like=False)
    assert np.array_equal(np.concatenate([yy for _, yy in streamed]), y)


def test_binarizer_dask_equals_in_memory(dd):
    from dpmodels.data import Binarizer

    X, y = _data(seed=5)
    ddf = dd.from_pandas(X, npartitions=3)
    b1 = Binarizer(**BKW, random_state=2).fit(X)
    b2 = Binarizer(**BKW, random_state=2).fit(ddf)
    _same_binarizer(b1, b2, X)
    out = b2.transform(ddf)
    pd.testing.assert_frame_equal(out.compute(), b1.transform(X))


def test_binarizer_partitioned_needs_declarations(tmp_path):
    from dpmodels.data import Binarizer

    X, y = _data(100)
    d = _write(tmp_path, X, y, [])
    src = ParquetSource(d, label="label")
    with pytest.raises(ValueError, match="needs cut_points= or epsilon="):
        Binarizer(bounds=BKW["bounds"], categories=BKW["categories"]).fit(src)
    with pytest.raises(ValueError, match="needs bounds="):
        Binarizer(epsilon=1.0, categories=BKW["categories"]).fit(src)
    with pytest.raises(ValueError, match="'c' is neither declared"):
        Binarizer(epsilon=1.0, bounds={"x0": (-3, 3)}).fit(ParquetSource(d, label="label", columns=["x0", "c"]))


# ---------------------------------------------------------------------------- CLI
def _cli(*args):
    import subprocess
    import sys

    env = dict(os.environ, PYTHONPATH=os.path.join(os.path.dirname(__file__), "..", "..", "src"))
    return subprocess.run([sys.executable, "-m", "dpmodels", *args], capture_output=True, text=True, env=env)


def _cli_here(capsys, *args):
    """``dpmodels ARGS`` through :func:`dpmodels.cli.main` in this process (what the command runs)."""
    import subprocess

    from dpmodels.cli import main

    capsys.readouterr()
    try:
        code = main(list(args))
    except SystemExit as exc:  # argparse's own errors
        code = exc.code
    out = capsys.readouterr()
    return subprocess.CompletedProcess(args, code, out.out, out.err)


def test_cli_fit_parquet_folder_equals_csv(tmp_path, capsys):
    """The Parquet folder's fit runs the installed command; the CSV fit it is compared with and
    the commands after it call the command's entry point in this process."""
    import json

    X, y = _data(seed=6)
    d = _write(tmp_path, X, y, [640, 1280])
    X.assign(label=y).to_csv(tmp_path / "all.csv", index=False)
    common = [
        "--label",
        "label",
        "--model",
        "privatree",
        "--classes",
        "no",
        "yes",
        "--bounds",
        "x0=-3:3",
        "x1=-3:3",
        "x2=-2:2",
        "--categories",
        "c=a,b,c",
        "k=0,1,2",
        "--max-depth",
        "3",
        "--random-state",
        "4",
        "--quiet",
    ]
    r1 = _cli("fit", "--data", str(d), *common, "--out", str(tmp_path / "p.json"))
    assert r1.returncode == 0, r1.stderr
    r2 = _cli_here(capsys, "fit", "--data", str(tmp_path / "all.csv"), *common, "--out", str(tmp_path / "c.json"))
    assert r2.returncode == 0, r2.stderr
    a, b = (json.loads((tmp_path / f).read_text()) for f in ("p.json", "c.json"))
    assert a["model"] == b["model"] and a["privacy"] == b["privacy"]
    r3 = _cli_here(capsys, "predict", str(tmp_path / "p.json"), str(tmp_path / "all.csv"))
    assert r3.returncode == 0, r3.stderr
    # a column left undeclared is a one-line usage error before anything is read
    r4 = _cli_here(capsys, "fit", "--data", str(d), *[c for c in common if c != "x2=-2:2"])
    assert r4.returncode == 2 and "'x2' is not fully declared" in r4.stderr
    r5 = _cli_here(capsys, "fit", "--data", str(d / "part-000.parquet"), *common[:-6], "--model", "optimal-rulelist")
    assert r5.returncode == 2 and "not optimal-rulelist" in r5.stderr


def test_privatree_dask_read_parquet_projections_stay_aligned(dd, tmp_path):
    # projected separately, Dask may cut ddf[features] and ddf["label"] into different
    # partitions; the source joins them into one frame so each task sees matching rows
    X, y = _data(seed=8)
    d = _write(tmp_path, X, y, [300, 301, 1500])
    ddf = dd.read_parquet(str(d))
    m1 = PrivaTreeClassifier(**KW, random_state=6).fit(X, y)
    m2 = PrivaTreeClassifier(**KW, random_state=6).fit(ddf[list(X.columns)], ddf["label"])
    _same_fit(m1, m2)
    from dpmodels.data import DaskSource

    m3 = PrivaTreeClassifier(**KW, random_state=6).fit(DaskSource(ddf, label="label"))
    _same_fit(m1, m3)


# ---------------------------------------------------------------------------- any partitioning
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_HX, _HY = _data(600, seed=9)


@settings(max_examples=15, deadline=None)
@given(
    cuts=st.lists(st.integers(0, 600), max_size=6),
    seed=st.integers(0, 2**31 - 1),
    depth=st.integers(0, 4),
    selection=st.sampled_from(["permute-and-flip", "exponential", "histogram"]),
)
def test_privatree_does_not_depend_on_the_partitioning(cuts, seed, depth, selection):
    from dpmodels.data.sources import InMemorySource

    kw = {**KW, "max_depth": depth, "split_selection": selection}
    m1 = PrivaTreeClassifier(**kw, random_state=seed).fit(_HX, _HY)
    m2 = PrivaTreeClassifier(**kw, random_state=seed).fit(InMemorySource(_HX, _HY, cuts=cuts))
    _same_fit(m1, m2)


# ---------------------------------------------------------------------------- encoded cache
def test_parquet_fit_reads_the_source_twice_and_removes_its_cache(tmp_path, monkeypatch):
    """The encoded cache: the files are read by the first pass and the encoding pass only (not
    once per level), the cache lives in a private folder while the fit runs, and is gone after."""
    import tempfile

    from dpmodels.data import cache as cache_mod

    X, y = _data(seed=5)
    d = _write(tmp_path, X, y, [600, 1300])
    src = ParquetSource(d, label="label", batch_rows=250)
    reads, folders = [], []
    orig_batches = ParquetSource.record_batches  # what either path of a pass reads (map_batches)
    monkeypatch.setattr(ParquetSource, "record_batches", lambda self: (reads.append(1), orig_batches(self))[1])
    orig_mkdtemp = tempfile.mkdtemp

    def spy_mkdtemp(*a, **k):
        f = orig_mkdtemp(*a, **k)
        folders.append((f, os.stat(f).st_mode & 0o777))
        return f

    monkeypatch.setattr(cache_mod.tempfile, "mkdtemp", spy_mkdtemp)
    m = PrivaTreeClassifier(**{**KW, "max_depth": 4}, random_state=1).fit(src)
    assert m.tree_.max_depth >= 2  # several level passes ran
    assert len(reads) == 2
    assert len(folders) == 1 and folders[0][1] == 0o700 and not os.path.exists(folders[0][0])
    _same_fit(m, PrivaTreeClassifier(**{**KW, "max_depth": 4}, random_state=1).fit(X, y))


def test_encoded_cache_round_trips_each_partition(tmp_path):
    from dpmodels.data.cache import encoded_cache

    X, y = _data(n=1001, seed=2)
    d = _write(tmp_path, X, y, [10, 500])

    def prep(Xp, yp):
        return Xp[["x0", "k"]].to_numpy(), (np.asarray(yp) == "yes").astype(np.uint8)

    src = ParquetSource(d, label="label", batch_rows=200)
    direct = [prep(Xp, yp) for Xp, yp in src.partitions()]
    cache = encoded_cache(src, prep, folder=tmp_path)
    got = list(cache.partitions())
    assert len(got) == len(direct) == cache.n_partitions
    for (a1, b1), (a2, b2) in zip(direct, got):
        assert np.array_equal(a1, a2) and np.array_equal(b1, b2) and b2.dtype == np.uint8
    # counts over the cache equal counts over the source
    tot = counts(cache, lambda A, b: np.bincount(b, minlength=2).astype(np.int64), (2,))
    assert tot.tolist() == np.bincount((y == "yes").astype(int), minlength=2).tolist()
    folder = cache._folder
    cache.close()
    assert not os.path.exists(folder)
    with pytest.raises(ValueError, match="closed"):
        list(cache.partitions())
