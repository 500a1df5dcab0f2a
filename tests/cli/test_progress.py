"""Progress bars of the long commands (`fit` reading a CSV, `reproduce`): on stderr when it is a
terminal or when ``DPMODELS_PROGRESS=1`` asks, never in tests, pipes or CI logs; their text holds
public quantities only (bytes of the file, cells of the grid), never the number of rows read."""

import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import dpmodels

SRC = str(Path(dpmodels.__file__).parents[1])


def _env(flag):
    env = {k: v for k, v in os.environ.items() if k != "DPMODELS_PROGRESS"}
    env["PYTHONPATH"] = SRC
    if flag is not None:
        env["DPMODELS_PROGRESS"] = flag
    return env


def _dpmodels(args, cwd, flag):
    cmd = [sys.executable, "-m", "dpmodels", *args]
    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=300, env=_env(flag))


@pytest.fixture(scope="module")
def small_csv(tmp_path_factory):
    d = tmp_path_factory.mktemp("progress")
    rng = np.random.default_rng(0)
    n = 3001  # an odd count: it must not show up in the progress text
    X = pd.DataFrame({"a": rng.integers(0, 10, n), "b": rng.integers(0, 10, n)})
    X.assign(y=(X["a"] + rng.integers(0, 3, n) > 6).astype(int)).to_csv(d / "d.csv", index=False)
    return d


FIT = ["fit", "--data", "d.csv", "--label", "y", "--model", "privatree", "--epsilon", "1", "--classes", "0", "1",
       "--bounds", "*=0:10", "--integer", "a", "b", "--max-depth", "2", "--out", "m.json"]  # fmt: skip


@pytest.mark.parametrize("flag", ["1", None, "0"])
def test_fit_shows_bytes_read_only_when_asked_or_on_a_terminal(small_csv, flag):
    r = _dpmodels(FIT, small_csv, flag)
    assert r.returncode == 0, r.stderr
    size = (small_csv / "d.csv").stat().st_size
    if flag == "1":
        assert re.search(r"reading CSV: .*\[.*B/s\]", r.stderr) and f"/{size / 1000:.1f}k" in r.stderr  # bytes
        assert "3001" not in r.stderr and "3,001" not in r.stderr  # not the rows read
    else:  # stderr is a pipe here, as in tests and CI logs
        assert "reading CSV" not in r.stderr and "\r" not in r.stderr


@pytest.mark.parametrize("flag", ["1", None, "--no-progress"])
def test_grid_cells_show_progress_only_when_asked(tmp_path, flag, capsys, monkeypatch):
    """`reproduce`'s bar over an id's cells (the subprocess run: tests/cli/test_cli.py)."""
    from dpmodels.experiments import grid
    from dpmodels.experiments.paper_000.accuracy import noise_cell
    from dpmodels.experiments.registry import Cell

    monkeypatch.delenv("DPMODELS_PROGRESS", raising=False)
    if flag is not None:
        monkeypatch.setenv("DPMODELS_PROGRESS", "1" if flag == "--no-progress" else flag)
    cells = [Cell("noise", noise_cell, dict(mechanism="sm-Laplace", seed=1, ns=(1, 10), draws=20))]
    capsys.readouterr()
    grid.run_cells(cells, tmp_path / "cells", desc="some-id", progress=flag != "--no-progress")
    err = capsys.readouterr().err
    assert ("some-id" in err and "cell" in err) if flag == "1" else err == ""
