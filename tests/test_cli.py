"""End-to-end tests of the command line (the installed `dpmodels` entry point)."""

import json
import shutil
import subprocess
import sys

import pytest

from dpmodels.cli import main
from dpmodels.rulelist import RuleList


def run_cli(*args):
    exe = shutil.which("dpmodels")
    cmd = [exe, *args] if exe else [sys.executable, "-m", "dpmodels.cli", *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=300)


def test_demo_end_to_end():
    r = run_cli("demo")
    assert r.returncode == 0, r.stderr
    out = r.stdout
    assert "Non-private greedy rule list" in out and "DP rule list" in out
    assert "Privacy ledger" in out and "total spent: ε=1 of 1" in out
    assert out.count("test accuracy:") >= 2
    assert "if " in out and "else" in out


def test_fit_writes_json(tmp_path, capsys):
    path = tmp_path / "m.json"
    assert main(["fit", "--data", "german", "--epsilon", "2", "--json", str(path)]) == 0
    out = capsys.readouterr().out
    assert "test accuracy" in out and "Privacy ledger" in out
    rl = RuleList.from_json(path.read_text())
    assert rl.to_dict() == json.loads(path.read_text())


def test_bad_input_gives_clean_error(capsys):
    assert main(["fit", "--epsilon", "0"]) == 2
    assert "epsilon" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["fit", "--model", "nope"])


def test_reproduce_end_to_end_in_a_subprocess(tmp_path):
    """One id, quick and tiny, through the installed CLI: tidy results, a PNG and the report."""
    pytest.importorskip("matplotlib")
    r = run_cli("reproduce", "000-fig2", "--quick", "--runs", "1", "--epsilons", "1", "100",
                "--out", str(tmp_path), "--no-progress")
    assert r.returncode == 0, r.stderr
    d = tmp_path / "000-fig2"
    assert (d / "000-fig2.png").stat().st_size > 1000
    assert any((d / f"results.{ext}").exists() for ext in ("parquet", "csv"))
    report = (tmp_path / "report.md").read_text()
    assert "000-fig2" in report and "![000-fig2](000-fig2/000-fig2.png)" in report
    html = (tmp_path / "report.html").read_text()
    assert "data:image/png;base64," in html
    # a rerun resumes: nothing is recomputed
    r2 = run_cli("reproduce", "000-fig2", "--quick", "--runs", "1", "--epsilons", "1", "100",
                 "--out", str(tmp_path), "--no-progress")
    assert r2.returncode == 0 and "0 cells run, 1 reused" in r2.stdout


@pytest.mark.parametrize("args, needle", [
    (["--runs", "0", "000-fig1"], "--runs"),
    (["--workers", "0", "000-fig1"], "--workers"),
    (["no-such-id"], "unknown experiment id"),
    (["000-fig1", "--epsilons", "-1"], "--epsilons"),
    (["000-fig1", "--data-dir", "/no/such/folder"], "--data-dir"),
    ([], "give experiment ids"),
])
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
