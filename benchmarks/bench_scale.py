"""PrivaTree (and a Binarizer → DP rule list) on the same 200,000 rows × (10 numerical + 5 categorical): in memory, streamed from
Parquet with pyarrow, and through Dask's local scheduler (one model, three count backends).

Run with ``make bench``. The three fits give the same tree under the same seed (tests/data/test_sources.py);
the ratio is the cost of touching the data by count passes (depth + 2 passes over the files)
instead of once in memory. The large out-of-core run is ``benchmarks/scale_run.py``.
"""

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("pyarrow")

from dpmodels.data import ParquetSource  # noqa: E402
from dpmodels.tree import PrivaTreeClassifier  # noqa: E402

N = 200_000
CATS = {f"c{i}": [f"v{j}" for j in range(k)] for i, k in enumerate((3, 5, 8, 12, 20))}
NUM = [f"x{i}" for i in range(10)]


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    rng = np.random.default_rng(0)
    df = pd.DataFrame({c: rng.normal(size=N) for c in NUM})
    for c, vals in CATS.items():
        df[c] = np.asarray(vals, dtype=object)[rng.integers(0, len(vals), N)]
    df["label"] = ((df.x0 + (df.c0 == "v1") + rng.normal(size=N)) > 0).astype(np.int64)
    d = tmp_path_factory.mktemp("scale")
    for i, a in enumerate(range(0, N, 30_000)):  # 7 files, the last one shorter
        df.iloc[a : a + 30_000].to_parquet(d / f"part-{i:02d}.parquet", index=False)
    return df, d


def _est():
    return PrivaTreeClassifier(
        epsilon=1.0, max_depth=6, bounds=(-5.0, 5.0), categories=CATS, classes=[0, 1], random_state=0
    )


@pytest.mark.benchmark(group="privatree-backends")
def test_in_memory(benchmark, data):
    df, _ = data
    benchmark(lambda: _est().fit(df[NUM + list(CATS)], df["label"].to_numpy()))


@pytest.mark.benchmark(group="privatree-backends")
def test_pyarrow_streaming(benchmark, data):
    _, d = data
    benchmark(lambda: _est().fit(ParquetSource(d, label="label", batch_rows=1 << 16)))


@pytest.mark.benchmark(group="privatree-backends")
def test_dask_local_scheduler(benchmark, data):
    dd = pytest.importorskip("dask.dataframe")
    _, d = data
    ddf = dd.read_parquet(str(d))
    benchmark(lambda: _est().fit(ddf[NUM + list(CATS)], ddf["label"]))


# ------------------------------------------------ the DP rule list behind a Binarizer, same data
def _rule_list_pipeline():
    from dpmodels.data import Binarizer
    from dpmodels.pipeline import make_private_pipeline
    from dpmodels.privacy import BudgetAccountant
    from dpmodels.rulelist import DPRuleListClassifier

    acc = BudgetAccountant(1.0)
    return make_private_pipeline(
        Binarizer(epsilon=0.2, bounds=(-5.0, 5.0), categories=CATS, n_bins=3, accountant=acc, random_state=0),
        DPRuleListClassifier(epsilon=0.8, accountant=acc, random_state=0),
    )


@pytest.mark.benchmark(group="rulelist-backends")
def test_rulelist_in_memory(benchmark, data):
    df, _ = data
    benchmark(lambda: _rule_list_pipeline().fit(df[NUM + list(CATS)], df["label"].to_numpy()))


@pytest.mark.benchmark(group="rulelist-backends")
def test_rulelist_pyarrow_streaming(benchmark, data):
    _, d = data
    benchmark(lambda: _rule_list_pipeline().fit(ParquetSource(d, label="label", batch_rows=1 << 16)))
