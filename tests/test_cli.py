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
    assert "IF " in out and "ELSE" in out


def test_fit_json_alias_writes_the_model_file(tmp_path, capsys):
    """`fit --json` (the old option) still writes the model: now the full model file
    (dpmodels.io), with the ledger; fit/predict/show are tested in test_cli_models.py."""
    path = tmp_path / "m.json"
    assert main(["fit", "--data", "german", "--epsilon", "2", "--json", str(path)]) == 0
    out = capsys.readouterr().out
    assert "held-out accuracy" in out and "Privacy ledger" in out
    doc = json.loads(path.read_text())
    assert doc["format"] == "dpmodels.model" and doc["privacy"]["epsilon"] == 2.0
    assert RuleList.from_dict(doc["model"]).to_dict() == doc["model"]


def test_bad_input_gives_clean_error(capsys):
    assert main(["fit", "--data", "compas", "--model", "greedy-rulelist", "--epsilon", "1"]) == 2
    assert "--epsilon applies to private models" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["fit", "--data", "compas", "--model", "nope"])


def test_reproduce_rulelist_small(tmp_path):
    rc = main([
        "reproduce", "rulelist-accuracy", "--datasets", "compas", "--epsilons", "1",
        "--runs", "1", "--out", str(tmp_path),
    ])
    assert rc == 0
    assert (tmp_path / "rulelist_accuracy.csv").exists()
    assert "permute-and-flip" in (tmp_path / "rulelist_accuracy.md").read_text()
