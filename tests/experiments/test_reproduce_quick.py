"""`dpmodels reproduce all --quick`: every registered id at its reduced size, end to end (slow)."""

import os
import subprocess
import sys
import time

import pytest

from _extras import need
from dpmodels.experiments.registry import all_experiments


@pytest.mark.slow
def test_reproduce_all_quick_under_15_minutes(tmp_path):
    need("matplotlib")
    t = time.perf_counter()
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "dpmodels.cli",
            "reproduce",
            "all",
            "--quick",
            "--workers",
            "2",
            "--out",
            str(tmp_path),
            "--no-progress",
        ],
        capture_output=True,
        text=True,
        timeout=1800,
    )
    secs = time.perf_counter() - t
    assert r.returncode == 0, r.stderr[-2000:]
    report = (tmp_path / "report.md").read_text()
    for exp in all_experiments():
        if exp.unavailable:
            continue
        assert f"## {exp.id}" in report, exp.id
        if exp.kind == "figure":
            assert list((tmp_path / exp.id).glob("*.png")), exp.id
    assert (tmp_path / "report.html").stat().st_size > 10_000
    load = os.getloadavg()[0]
    assert secs < 15 * 60, f"{secs:.0f} s at load {load:.1f}"
