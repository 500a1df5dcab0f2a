"""Streamed pipelines validate before they spend, and fits on files pin them (issue 23 #4, #6).

Neighbouring pairs: D, and D′ = D + one record whose label is outside the declared set. In
memory, on Parquet and on Dask, D′ is refused with the same error, nothing spent and no
threshold released; D fits."""

import numpy as np
import pandas as pd
import pytest

from _extras import need
from dpmodels.data import Binarizer, ParquetSource
from dpmodels.pipeline import make_private_pipeline
from dpmodels.privacy import BudgetAccountant
from dpmodels.rulelist import DPRuleListClassifier

BIN = dict(epsilon=0.2, bounds={"a": (-3, 3)}, categories={"c": ["u", "v"]}, random_state=0)


def _pair(n=120):
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"a": rng.normal(size=n), "c": rng.choice(["u", "v"], n).astype(object)})
    y = (X["a"] > 0).astype(int).to_numpy()
    X2 = pd.concat([X, pd.DataFrame({"a": [0.1], "c": ["u"]})], ignore_index=True)
    return (X, y), (X2, np.r_[y, 2])


def _pipe():
    acc = BudgetAccountant(1.0)
    pipe = make_private_pipeline(
        Binarizer(**BIN, accountant=acc), DPRuleListClassifier(epsilon=0.8, accountant=acc, random_state=0)
    )
    return acc, pipe


def _outcome(fit):
    """(error or None, ε spent, whether the binarizer's thresholds exist)."""
    acc, pipe = _pipe()
    try:
        fit(pipe)
        err = None
    except ValueError as e:
        err = str(e)
    return err, acc.epsilon_spent, hasattr(pipe[0], "cut_points_")


def _parquet(tmp_path, X, y, name, parts=2):
    d = tmp_path / name
    d.mkdir()
    df = X.assign(label=y)
    for i, idx in enumerate(np.array_split(np.arange(len(df)), parts)):
        df.iloc[idx].to_parquet(d / f"p{i}.parquet", index=False)
    return ParquetSource(d, label="label", batch_rows=50)


def test_parquet_pipeline_refuses_an_undeclared_label_before_any_release(tmp_path):
    (X, y), (X2, y2) = _pair()
    mem = _outcome(lambda p: p.fit(X2, y2))
    assert mem[0] is not None and mem[1:] == (0.0, False)
    assert _outcome(lambda p: p.fit(_parquet(tmp_path, X2, y2, "d2"))) == mem
    ok = _outcome(lambda p: p.fit(_parquet(tmp_path, X, y, "d1")))
    assert ok[0] is None and ok[1] > 0 and ok[2]


def test_dask_pipeline_refuses_an_undeclared_label_before_any_release():
    dd = need("dask")
    import dask

    (X, y), (X2, y2) = _pair()
    mem = _outcome(lambda p: p.fit(X2, y2))
    with dask.config.set(scheduler="synchronous"):
        for nparts in (1, 3):
            ddf = dd.from_pandas(X2.assign(label=y2), npartitions=nparts, sort=False)
            assert _outcome(lambda p, d=ddf: p.fit(d[["a", "c"]], d["label"])) == mem
        ddf = dd.from_pandas(X.assign(label=y), npartitions=3, sort=False)
        ok = _outcome(lambda p: p.fit(ddf[["a", "c"]], ddf["label"]))
    assert ok[0] is None and ok[1] > 0 and ok[2]


def test_an_error_after_a_release_says_what_was_spent(tmp_path, monkeypatch):
    """A failure the checks cannot foresee (here: the learner's fit raising once the binarizer
    released) keeps its message and adds what the pipeline spent."""
    import dpmodels.rulelist._partitioned as part

    (X, y), _ = _pair()

    def boom(*args, **kwargs):
        raise ValueError("worker lost")

    monkeypatch.setattr(part, "fit_source", boom)
    acc, pipe = _pipe()
    with pytest.raises(
        ValueError, match=r"^worker lost \[raised after a release: spent ε=0\.2, δ=0 from the pipeline.s accountant"
    ):
        pipe.fit(_parquet(tmp_path, X, y, "d"))
    assert acc.epsilon_spent == pytest.approx(0.2)


# ---------------------------------------------------------------------------- pinned Dask files
def _rewrite(path, X, y):
    """Rewrite ``path`` with other records (another size, a later modification time)."""
    import os

    st = os.stat(path)
    X.iloc[: len(X) // 2].assign(label=y[: len(X) // 2]).to_parquet(path, index=False)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))


def test_dask_source_from_parquet_pins_its_files(tmp_path):
    """Fits equal the in-memory fit; a file rewritten between passes is a clear error — from the
    driver's check and from the worker task that reads it (what a lost worker's recomputation
    runs)."""
    need("dask")
    import dask

    from dpmodels.data import DaskSource
    from dpmodels.data.counts import counts

    (X, y), _ = _pair()
    _parquet(tmp_path, X, y, "d", parts=3)
    with dask.config.set(scheduler="synchronous"):
        src = DaskSource.from_parquet(tmp_path / "d", label="label")
        assert src.n_partitions == 3
        p_mem = _pipe()[1].fit(X, y)
        p_dask = _pipe()[1].fit(src)
        assert p_mem[-1].rule_list_.to_dict() == p_dask[-1].rule_list_.to_dict()

        def rows(X, y):
            return np.array([len(X)], dtype=np.int64)

        assert counts(src, rows, (1,))[0] == len(X)
        _rewrite(tmp_path / "d" / "p1.parquet", X, y)
        with pytest.raises(ValueError, match=r"p1\.parquet' changed since the source was made"):
            counts(src, rows, (1,))
        src.pins = ()  # without the driver's check, the reading task still refuses
        with pytest.raises(ValueError, match=r"p1\.parquet' changed since the source was made"):
            src.frame.compute()


def test_a_file_rewritten_mid_fit_is_an_error_that_says_what_was_spent(tmp_path):
    need("dask")
    import dask

    from dpmodels.data import DaskSource
    from dpmodels.rulelist import _partitioned

    (X, y), _ = _pair()
    _parquet(tmp_path, X, y, "d", parts=2)
    real = _partitioned.fit_source

    def rewrite_then_fit(*args, **kwargs):  # between the binarizer's release and the rule list
        _rewrite(tmp_path / "d" / "p0.parquet", X, y)
        return real(*args, **kwargs)

    acc, pipe = _pipe()
    with dask.config.set(scheduler="synchronous"), pytest.MonkeyPatch.context() as mp:
        mp.setattr(_partitioned, "fit_source", rewrite_then_fit)
        with pytest.raises(ValueError, match=r"changed since the source was made.*spent ε=0\.2"):
            pipe.fit(DaskSource.from_parquet(tmp_path / "d", label="label"))
