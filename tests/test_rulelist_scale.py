"""Rule lists at scale: the memory guard's estimate, and fits on partitioned input (Parquet via
pyarrow, Dask) equal to the in-memory fit of the concatenated data."""

import numpy as np
import pandas as pd
import pytest

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


def test_cli_memory_limit_applies_to_rule_lists(tmp_path):
    import subprocess
    import sys

    X, y = _data()
    X["label"] = y
    f = tmp_path / "d.csv"
    X.to_csv(f, index=False)
    cmd = [sys.executable, "-m", "dpmodels", "fit", "--data", str(f), "--label", "label", "--classes", "0", "1"]
    cmd += ["--binary", *[f"c{i}" for i in range(6)], "--model", "dp-rulelist", "--n-public", "1000000000"]
    out = subprocess.run([*cmd, "--max-memory", "1G"], capture_output=True, text=True)
    assert out.returncode != 0 and "of memory" in out.stderr
    out = subprocess.run([*cmd, "--max-memory", "1T", "--quiet"], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
