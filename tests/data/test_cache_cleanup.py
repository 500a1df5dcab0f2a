"""The bin-code cache of a streamed fit (the private records, encoded) never outlives the fit
(issue 23 #6): SIGTERM removes it, and folders left by processes killed harder are removed by the
next fit in the same directory."""

import os
import signal
import subprocess
import sys
import textwrap

import numpy as np
import pandas as pd
import pytest

from _extras import need

need("pyarrow")

SRC = os.path.join(os.path.dirname(__file__), "..", "..", "src")

CHILD = textwrap.dedent(
    """
    import sys, time
    import dpmodels.tree.privatree.streaming as S
    from dpmodels.data import ParquetSource
    from dpmodels.tree import PrivaTreeClassifier

    real = S.counts

    def counts(source, fn, shape):
        if getattr(source, "kind", None) == "cache":  # the cache exists: wait to be terminated
            print("cached", flush=True)
            time.sleep(120)
        return real(source, fn, shape)

    S.counts = counts
    src = ParquetSource(sys.argv[1], label="y")
    PrivaTreeClassifier(epsilon=1.0, classes=[0, 1], bounds={"a": (0, 1)}, max_depth=2).fit(src)
    """
)


def _parquet(path, n=200):
    rng = np.random.default_rng(0)
    df = pd.DataFrame({"a": rng.random(n)})
    df["y"] = (df["a"] > 0.5).astype(int)
    df.to_parquet(path, index=False)


def _caches(d):
    return sorted(p for p in os.listdir(d) if p.startswith("dpmodels-cache-"))


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_sigterm_during_a_streamed_fit_removes_the_cache(tmp_path):
    _parquet(tmp_path / "d.parquet")
    tmpdir = tmp_path / "tmp"
    tmpdir.mkdir()
    env = dict(os.environ, PYTHONPATH=SRC, TMPDIR=str(tmpdir))
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(tmp_path / "d.parquet")],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        text=True,
    )
    try:
        assert child.stdout.readline().strip() == "cached", child.stderr.read()
        assert len(_caches(tmpdir)) == 1  # the encoded records are on disk while the fit runs
        child.send_signal(signal.SIGTERM)
        child.wait(timeout=60)
    finally:
        if child.poll() is None:
            child.kill()
    assert child.returncode == -signal.SIGTERM  # the default action still ends the process
    assert _caches(tmpdir) == []


def test_a_fit_removes_the_caches_of_dead_processes_only(tmp_path):
    from dpmodels.data import ParquetSource
    from dpmodels.data.cache import _host, encoded_cache

    _parquet(tmp_path / "d.parquet", n=20)
    pid = 2**22 + 1  # above Linux's largest possible pid (PID_MAX_LIMIT): never a running process
    host = _host()
    stale = tmp_path / f"dpmodels-cache-{pid}-{host}-abc123"
    mine = tmp_path / f"dpmodels-cache-{os.getpid()}-{host}-def456"  # this (running) process
    other_host = tmp_path / f"dpmodels-cache-{pid}-elsewhere{host}-ghi789"
    unrelated = tmp_path / "dpmodels-cache-notapid"
    for d in (stale, mine, other_host, unrelated):
        d.mkdir()
        (d / "00000000-0.npy").write_bytes(b"codes")
    with encoded_cache(ParquetSource(tmp_path / "d.parquet", label="y"), lambda X, y: (X.to_numpy(),), folder=tmp_path):
        assert not stale.exists()
        assert mine.exists() and other_host.exists() and unrelated.exists()
    assert len(_caches(tmp_path)) == 3  # the new cache is gone after close
