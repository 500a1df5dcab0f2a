"""End-to-end tests of the command line (the installed `dpmodels` entry point)."""

import json
import os
import re
import shutil
import subprocess
import sys

import pytest

from _extras import need
from dpmodels.cli import main
from dpmodels.rulelist import RuleList


def run_cli(*args, env=None):
    exe = shutil.which("dpmodels")
    cmd = [exe, *args] if exe else [sys.executable, "-m", "dpmodels.cli", *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=300, env=env)


def test_demo_end_to_end():
    r = run_cli("demo")
    assert r.returncode == 0, r.stderr
    out = r.stdout
    assert "Non-private greedy rule list" in out and "DP rule list" in out
    assert "Privacy ledger" in out and "total spent: ε=1 of 1" in out
    assert out.count("test accuracy:") >= 2
    assert "IF " in out and "ELSE" in out


def test_fit_json_alias_writes_the_model_file(tmp_path, capsys):
    """`fit --json` (the old option) still writes the model: now the full model file
    (dpmodels.io), with the ledger; fit/predict/show are tested in test_cli_fit.py."""
    path = tmp_path / "m.json"
    assert main(["fit", "--data", "german", "--epsilon", "2", "--json", str(path)]) == 0
    out = capsys.readouterr().out
    assert "held-out accuracy" not in out and "Privacy ledger" in out  # every row trains by default
    doc = json.loads(path.read_text())
    assert doc["format"] == "dpmodels.model" and doc["privacy"]["epsilon"] == 2.0
    assert RuleList.from_dict(doc["model"]).to_dict() == doc["model"]


def test_bad_input_gives_clean_error(capsys):
    assert main(["fit", "--data", "compas", "--model", "greedy-rulelist", "--epsilon", "1"]) == 2
    assert "--epsilon applies to private models" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["fit", "--data", "compas", "--model", "nope"])


def test_reproduce_end_to_end_in_a_subprocess(tmp_path):
    """One id, quick and tiny, through the installed CLI: tidy results, a PNG and the report;
    ``DPMODELS_PROGRESS=1``: a bar over the id's cells on stderr (tests/cli/test_progress.py: none
    unasked)."""
    need("matplotlib")
    args = ["reproduce", "000-fig2", "--quick", "--runs", "1", "--epsilons", "1", "100", "--out", str(tmp_path)]
    r = run_cli(*args, env={**os.environ, "DPMODELS_PROGRESS": "1"})
    assert r.returncode == 0, r.stderr
    assert re.search(r"000-fig2: 100%.*1/1.*cell", r.stderr)  # the grid's cells: public
    d = tmp_path / "000-fig2"
    assert (d / "000-fig2.png").stat().st_size > 1000
    assert any((d / f"results.{ext}").exists() for ext in ("parquet", "csv"))
    report = (tmp_path / "report.md").read_text()
    assert "000-fig2" in report and "![000-fig2](000-fig2/000-fig2.png)" in report
    html = (tmp_path / "report.html").read_text()
    assert "data:image/png;base64," in html
    # a rerun resumes: nothing is recomputed
    assert main([*args, "--no-progress"]) == 0
    meta = json.loads((d / "meta.json").read_text())
    assert meta["cells_run"] == 1 and "rendered" in meta  # the measurement of the computing run is kept
    # --finished-only on a grid never run: nothing computed, the missing cells named
    assert (
        main(
            [
                "reproduce",
                "000-fig2",
                "--quick",
                "--runs",
                "2",
                "--epsilons",
                "1",
                "100",
                "--finished-only",
                "--out",
                str(tmp_path),
                "--no-progress",
            ]
        )
        == 0
    )
    meta = json.loads((d / "meta.json").read_text())
    assert meta["cells_run"] == 0 and meta["cells_missing"] == 1 and meta["cells"] == 2


@pytest.mark.parametrize(
    "args, needle",
    [
        (["--runs", "0", "000-fig1"], "--runs"),
        (["--workers", "0", "000-fig1"], "--workers"),
        (["no-such-id"], "unknown experiment id"),
        (["000-fig1", "--epsilons", "-1"], "--epsilons"),
        (["000-fig1", "--data-dir", "/no/such/folder"], "--data-dir"),
        ([], "give experiment ids"),
    ],
)
def test_reproduce_bad_arguments_one_line(args, needle, capsys):
    rc = main(["reproduce", *args])
    err = capsys.readouterr().err
    assert rc == 2 and needle in err and err.count("\n") == 1 and "Traceback" not in err


def test_reproduce_argparse_errors_are_one_line():
    r = run_cli("reproduce", "--workers", "two")
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "Traceback" not in r.stderr


def test_reproduce_list_shows_every_registered_id(capsys):
    from dpmodels.experiments.registry import all_experiments

    assert main(["reproduce", "--list"]) == 0
    out = capsys.readouterr().out
    for e in all_experiments():
        assert e.id in out
