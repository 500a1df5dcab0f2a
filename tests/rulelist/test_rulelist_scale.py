"""Rule lists at scale: the memory guard's estimate, and fits on partitioned input (Parquet via
pyarrow, Dask) equal to the in-memory fit of the concatenated data."""

import numpy as np
import pandas as pd
import pytest

from _extras import need
from dpmodels.guards import ResourceLimitError, limits, rule_list_memory
from dpmodels.rulelist import DPRuleListClassifier


def _data(n=400, p=6, seed=0, K=2):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame((rng.random((n, p)) < 0.4).astype(np.uint8), columns=[f"c{i}" for i in range(p)])
    y = ((X.c0 & X.c2) | (rng.random(n) < 0.2)).astype(int).to_numpy() if K == 2 else rng.integers(0, K, n)
    return X, y


def test_memory_estimate_grows_with_the_declared_n_and_the_candidates():
    small = rule_list_memory(100, 2, 20_000)
    assert rule_list_memory(100, 2, 20_000, n_public=10**6) > small + 10**6 * 300
    assert rule_list_memory(100, 2, 40_000) > small
    assert rule_list_memory(100, 3, 20_000) > small


def test_rule_list_refused_on_memory_before_any_release():
    X, y = _data()
    est = DPRuleListClassifier(epsilon=1.0, n_public=10**9, random_state=0)
    with limits(max_memory="1G"), pytest.raises(ResourceLimitError, match="of memory with n_public=1,000,000,000"):
        est.fit(X, y)
    assert not hasattr(est, "privacy_ledger_")
    with limits(max_memory="1M"), pytest.raises(ResourceLimitError, match="per 1,000 records"):
        DPRuleListClassifier(epsilon=1.0, random_state=0).fit(_data(p=100)[0], y)
    with limits(max_memory=None):
        DPRuleListClassifier(epsilon=1.0, n_public=10**9, random_state=0).fit(X, y)


def test_cli_memory_limit_applies_to_rule_lists(tmp_path, capsys):
    """Refused under 1G (in process: :func:`dpmodels.cli.main`, the limit is scoped to the call),
    fitted under 1T by the installed command."""
    import subprocess
    import sys

    from dpmodels.cli import main

    X, y = _data()
    X["label"] = y
    f = tmp_path / "d.csv"
    X.to_csv(f, index=False)
    cmd = [sys.executable, "-m", "dpmodels", "fit", "--data", str(f), "--label", "label", "--classes", "0", "1"]
    cmd += ["--binary", *[f"c{i}" for i in range(6)], "--model", "dp-rulelist", "--n-public", "1000000000"]
    from dpmodels.guards import max_memory

    limit = max_memory()
    capsys.readouterr()
    code = main([*cmd[3:], "--max-memory", "1G"])
    assert code != 0 and "of memory" in capsys.readouterr().err
    assert max_memory() == limit  # the command's limit ended with it
    out = subprocess.run([*cmd, "--max-memory", "1T", "--quiet"], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr


# ---------------------------------------------------------------------------- partitioned input
from dpmodels.data import Binarizer  # noqa: E402
from dpmodels.data.sources import InMemorySource  # noqa: E402
from dpmodels.privacy import BudgetAccountant  # noqa: E402
from dpmodels.rulelist import GreedyRuleListClassifier  # noqa: E402

N = 1003  # not divisible by the partition counts below


def _same(m1, m2):
    assert m1.rule_list_.to_dict() == m2.rule_list_.to_dict()
    assert list(m1.classes_) == list(m2.classes_)
    assert list(m1.feature_names_in_) == list(m2.feature_names_in_)
    assert m1.n_candidates_ == m2.n_candidates_
    if hasattr(m1, "privacy_ledger_"):
        assert m1.privacy_ledger_.to_dict() == m2.privacy_ledger_.to_dict()


def _write(tmp_path, X, y, cuts, name="d"):
    need("pyarrow")
    d = tmp_path / name
    d.mkdir()
    df = X.assign(label=y)
    edges = [0, *cuts, len(df)]
    for i, (a, b) in enumerate(zip(edges[:-1], edges[1:])):
        df.iloc[a:b].to_parquet(d / f"part-{i:03d}.parquet", index=False)
    return d


LEARNERS = [
    ("greedy", dict(max_width=2)),
    ("greedy", dict(max_width=1, max_rules=3)),
    ("greedy", dict(max_width=3, min_support=0.02)),
    ("dp", dict(mechanism="permute-and-flip")),
    ("dp", dict(mechanism="permute-and-flip", max_width=3, min_support=0.0)),
    ("dp", dict(mechanism="sm-laplace", n_public=N)),
    ("dp", dict(mechanism="sm-cauchy")),  # n read from the data: the leak row must match too
    ("dp", dict(mechanism="gl-gaussian", delta=1e-6, max_width=1)),
    ("dp", dict(mechanism="noisy-counts", calibration="paper")),
    ("dp", dict(mechanism="gl-exponential", classes=[0, 1, 2], max_width=4, max_rules=3)),
]


def _make(kind, params, seed):
    if kind == "greedy":
        return GreedyRuleListClassifier(**params)
    return DPRuleListClassifier(epsilon=2.0, random_state=seed, **{"delta": 1e-6, **params})


@pytest.mark.parametrize("kind, params", LEARNERS)
@pytest.mark.parametrize("cuts", [(), (1, 400, 401, 999)])
def test_rule_list_on_partitions_equals_in_memory(kind, params, cuts):
    K = len(params.get("classes", [0, 1]))
    X, y = _data(n=N, p=7, seed=len(cuts), K=K)
    for seed in (0, 1):
        m1 = _make(kind, params, seed).fit(X, y)
        m2 = _make(kind, params, seed).fit(InMemorySource(X, y, cuts=cuts))
        _same(m1, m2)
        assert m2.n_passes_ <= params.get("max_rules", 5)  # ≤ K − 1 moment passes + 1 histogram pass


@pytest.mark.parametrize("cuts, batch", [((), 10_000), ((300, 700), 128)])
def test_rule_list_on_parquet_equals_in_memory(tmp_path, cuts, batch):
    from dpmodels.data import ParquetSource

    X, y = _data(n=N, p=8, seed=3)
    d = _write(tmp_path, X, y, cuts)
    for kind, params in LEARNERS[:4]:
        m1 = _make(kind, params, 5).fit(X, y)
        m2 = _make(kind, params, 5).fit(ParquetSource(d, label="label", batch_rows=batch))
        _same(m1, m2)
        assert np.array_equal(m1.predict(X), m2.predict(X))


def test_rule_list_partitioned_schema_errors_before_any_release(tmp_path):
    X, y = _data(n=N)
    X.iloc[700, 2] = 3
    acc = BudgetAccountant(1.0)
    with pytest.raises(ValueError, match="column 2 holds another value"):
        DPRuleListClassifier(epsilon=1.0, accountant=acc, random_state=0).fit(InMemorySource(X, y, cuts=[500]))
    assert acc.epsilon_spent == 0 and len(acc.ledger.rows) == 0
    X, y = _data(n=N)
    with pytest.raises(ValueError, match="label other than 0 and 1"):
        DPRuleListClassifier(epsilon=1.0, random_state=0).fit(InMemorySource(X, y + 1))
    with pytest.raises(ValueError, match="not available on partitioned input"):
        GreedyRuleListClassifier(criterion="captured").fit(InMemorySource(X, y))
    with pytest.raises(ValueError, match="sample_weight"):
        GreedyRuleListClassifier().fit(InMemorySource(X, y), sample_weight=np.ones(N))


def _raw(n=N, seed=0):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({"a": rng.normal(size=n), "b": rng.uniform(0, 10, n)})
    X["c"] = rng.choice(["u", "v", "w", "z"], size=n)
    y = ((X.a > 0.3) & (X.c != "u") | (rng.random(n) < 0.1)).astype(int).to_numpy()
    return X, y


BIN = dict(epsilon=0.3, bounds={"a": (-3, 3), "b": (0, 10)}, categories={"c": ["u", "v", "w"]}, n_bins=3)


@pytest.mark.parametrize("cuts", [(), (17, 600)])
def test_binarizer_then_rule_list_on_parquet_one_accountant(tmp_path, cuts):
    from dpmodels.data import ParquetSource
    from dpmodels.pipeline import make_private_pipeline

    X, y = _raw()
    d = _write(tmp_path, X, y, cuts)

    def pipe():
        acc = BudgetAccountant(1.0)
        return make_private_pipeline(
            Binarizer(**BIN, accountant=acc, random_state=4),
            DPRuleListClassifier(epsilon=0.7, accountant=acc, random_state=4),
        )

    p1 = pipe().fit(X, y)
    p2 = pipe().fit(ParquetSource(d, label="label", batch_rows=256))
    _same(p1[-1], p2[-1])
    assert p2[-1].privacy_ledger_.is_private
    assert len(p2[-1].privacy_ledger_.rows) > 3  # the binarizer's quantiles and the rule list's rows
    assert np.array_equal(p1.predict(X), p2.predict(X))


# ---------------------------------------------------------------------------- Dask
@pytest.fixture
def dd():
    return need("dask")


@pytest.mark.parametrize("nparts", [1, 3, 7])
def test_rule_list_dask_equals_in_memory(dd, nparts):
    X, y = _data(n=N, p=7, seed=nparts)
    ddf = dd.from_pandas(X.assign(label=y), npartitions=nparts)
    feats = list(X.columns)
    for kind, params in LEARNERS[:4]:
        m1 = _make(kind, params, 2).fit(X, y)
        m2 = _make(kind, params, 2).fit(ddf[feats], ddf["label"])
        _same(m1, m2)


def test_rule_list_dask_local_cluster_binarized_equals_in_memory(dd):
    distributed = need("distributed")
    from dpmodels.data import DaskSource

    X, y = _raw(seed=5)
    ddf = dd.from_pandas(X.assign(label=y), npartitions=4)
    b1 = Binarizer(**BIN, random_state=1).fit(X)
    m1 = DPRuleListClassifier(epsilon=1.0, random_state=1).fit(b1.transform(X), y)
    with (
        distributed.LocalCluster(n_workers=2, processes=False, threads_per_worker=1, dashboard_address=None) as cluster,
        distributed.Client(cluster),
    ):
        src = DaskSource(ddf, label="label")
        b2 = Binarizer(**BIN, random_state=1).fit(src)
        m2 = DPRuleListClassifier(epsilon=1.0, random_state=1).fit(b2.transform(src))
    _same(m1, m2)


@pytest.mark.parametrize("model", ["dp-rulelist", pytest.param("greedy-rulelist", marks=pytest.mark.slow)])
def test_cli_fit_rule_list_parquet_equals_csv(tmp_path, model, capsys):
    """The Parquet folder's fit runs the installed command; the CSV fit it is compared with and
    the predict call the command's entry point, :func:`dpmodels.cli.main`, in this process."""
    import json
    import os
    import subprocess
    import sys

    env = dict(os.environ, PYTHONPATH=os.path.join(os.path.dirname(__file__), "..", "..", "src"))

    def cli(*args):
        return subprocess.run([sys.executable, "-m", "dpmodels", *args], capture_output=True, text=True, env=env)

    def cli_here(*args):
        from dpmodels.cli import main

        capsys.readouterr()
        code = main(list(args))
        out = capsys.readouterr()
        return subprocess.CompletedProcess(args, code, out.out, out.err)

    X, y = _raw(seed=8)
    d = _write(tmp_path, X, y, [100, 555])
    X.assign(label=y).to_csv(tmp_path / "all.csv", index=False)
    common = ["--label", "label", "--classes", "0", "1", "--categories", "c=u,v,w", "--quiet"]
    if model == "dp-rulelist":  # DP quantiles within the declared bounds
        extra = ["--model", model, "--bounds", "a=-3:3", "b=0:10", "--random-state", "2"]
    else:  # a baseline streams with public cut points (the data's quantiles are not read)
        extra = ["--model", model, "--cut-points", "a=0", "b=2,5"]
    r1 = cli("fit", "--data", str(d), *common, *extra, "--out", str(tmp_path / "p.json"))
    assert r1.returncode == 0, r1.stderr
    r2 = cli_here("fit", "--data", str(tmp_path / "all.csv"), *common, *extra, "--out", str(tmp_path / "c.json"))
    assert r2.returncode == 0, r2.stderr
    a, b = (json.loads((tmp_path / f).read_text()) for f in ("p.json", "c.json"))
    assert a["model"] == b["model"] and a.get("privacy") == b.get("privacy")
    r3 = cli_here("predict", str(tmp_path / "p.json"), str(tmp_path / "all.csv"))
    assert r3.returncode == 0, r3.stderr


def _pipeline(seed):
    from dpmodels.pipeline import make_private_pipeline

    acc = BudgetAccountant(1.0)
    return make_private_pipeline(
        Binarizer(**BIN, accountant=acc, random_state=seed),
        DPRuleListClassifier(epsilon=0.7, accountant=acc, random_state=seed),
    )


@pytest.mark.parametrize("nparts", [1, 2, 7])  # 1003 rows: 7 partitions do not divide them
@pytest.mark.parametrize("as_frame", [False, True])
def test_binarizer_then_rule_list_dask_one_accountant_equals_in_memory(dd, nparts, as_frame):
    """The pipeline of the out-of-core benchmark (docs/benchmarks.md) on Dask's synchronous
    scheduler, given a DaskSource or the frame and its label column: model, ledger rows and
    predictions equal the in-memory fit of the same rows. (Given the frame, the rule list reads
    the binarizer's groups from the transformed frame's meta: dropped, it enumerated another
    candidate set.)"""
    import dask

    from dpmodels.data import DaskSource

    X, y = _raw(seed=nparts)
    ddf = dd.from_pandas(X.assign(label=y), npartitions=nparts, sort=False)
    assert ddf.npartitions == nparts
    for seed in (0, 3):
        p1 = _pipeline(seed).fit(X, y)
        with dask.config.set(scheduler="synchronous"):
            src = (ddf[list(X.columns)], ddf["label"]) if as_frame else (DaskSource(ddf, label="label"), None)
            p2 = _pipeline(seed).fit(*src)
        _same(p1[-1], p2[-1])
        assert p2[-1].privacy_ledger_.is_private
        assert p2[-1].n_partitions_ == nparts
        assert len(p2[-1].privacy_ledger_.rows) > 3  # the binarizer's quantiles and the rule list's rows
        assert np.array_equal(p1.predict(X), p2.predict(X))


def test_binarizer_then_rule_list_dask_local_cluster_one_accountant(dd):
    """Same on a threaded ``LocalCluster`` (``processes=False``): the passes run as tasks on
    ``distributed``'s workers, partitions of unequal sizes."""
    distributed = need("distributed")
    X, y = _raw(seed=11)
    ddf = dd.from_pandas(X.assign(label=y), npartitions=3, sort=False)
    p1 = _pipeline(2).fit(X, y)
    with (
        distributed.LocalCluster(n_workers=2, processes=False, threads_per_worker=1, dashboard_address=None) as cluster,
        distributed.Client(cluster),
    ):
        p2 = _pipeline(2).fit(ddf[list(X.columns)], ddf["label"])
    _same(p1[-1], p2[-1])
    assert p2[-1].privacy_ledger_.is_private
    assert np.array_equal(p1.predict(X), p2.predict(X))


@pytest.mark.parametrize("kind, params", [LEARNERS[0], LEARNERS[-1]])
def test_rule_list_predicts_on_dask_partition_by_partition(dd, kind, params):
    """predict / predict_proba / apply on a Dask frame stay lazy (one task per partition, no
    gathering of the frame) and equal the in-memory answers row for row."""
    X, y = _data(n=N, p=7, seed=4)
    m = _make(kind, params, 2).fit(X, y)
    ddf = dd.from_pandas(X, npartitions=7, sort=False)
    for method in ("predict", "predict_proba", "apply"):
        lazy = getattr(m, method)(ddf)
        assert type(lazy).__module__.split(".")[0] in ("dask", "dask_expr"), method
        assert lazy.npartitions == 7
        assert np.array_equal(np.asarray(lazy.compute()), getattr(m, method)(X)), method
    assert list(m.predict_proba(ddf).columns) == [str(c) for c in m.classes_]


def test_pipeline_predicts_raw_dask_frame_lazily(dd):
    """The Binarizer's transform of a Dask frame is lazy and the rule list maps its partitions:
    the fitted pipeline predicts raw out-of-core data without collecting it."""
    X, y = _raw(seed=6)
    p = _pipeline(1).fit(X, y)
    ddf = dd.from_pandas(X, npartitions=5, sort=False)
    lazy = p.predict(ddf)
    assert type(lazy).__module__.split(".")[0] in ("dask", "dask_expr")
    assert np.array_equal(lazy.compute().to_numpy(), p.predict(X))


def test_privatree_apply_on_dask_partition_by_partition(dd):
    from dpmodels.tree import PrivaTreeClassifier

    X, y = _raw(seed=9)
    t = PrivaTreeClassifier(
        epsilon=1.0, max_depth=3, bounds=BIN["bounds"], categories=BIN["categories"], classes=[0, 1], random_state=0
    ).fit(X, y)
    lazy = t.apply(dd.from_pandas(X, npartitions=4, sort=False))
    assert lazy.npartitions == 4 and np.array_equal(lazy.compute().to_numpy(), t.apply(X))


def test_map_partitions_refuses_in_memory_input():
    from dpmodels.data.sources import map_partitions

    X, y = _data()
    m = _make("greedy", {}, 0).fit(X, y)
    with pytest.raises(TypeError, match="needs a dask DataFrame"):
        map_partitions(m, X, "predict")
