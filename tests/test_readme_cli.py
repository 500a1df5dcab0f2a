"""The README's "From a CSV to a private model" commands, run as written (in a temporary
directory, with this interpreter standing for `python` and for the `dpmodels` entry point)."""

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pandas as pd

README = Path(__file__).resolve().parents[1] / "README.md"


def readme_commands() -> list[list[str]]:
    text = README.read_text()
    section = text.split("## From a CSV to a private model", 1)[1].split("\n## ", 1)[0]
    block = re.search(r"```bash\n(.*?)```", section, flags=re.S).group(1)
    return [shlex.split(line) for line in block.splitlines() if line.strip()]


def test_readme_commands_run_as_written(tmp_path):
    cmds = readme_commands()
    assert [c[0] for c in cmds] == ["python", "dpmodels", "dpmodels", "dpmodels"]
    assert [c[1] for c in cmds[1:]] == ["fit", "predict", "show"]
    env = {**os.environ, "DPMODELS_PROGRESS": "0"}
    outputs = []
    for cmd in cmds:
        argv = [sys.executable] + (["-m", "dpmodels"] if cmd[0] == "dpmodels" else []) + cmd[1:]
        r = subprocess.run(argv, cwd=tmp_path, capture_output=True, text=True, timeout=300, env=env)
        assert r.returncode == 0, (cmd[:2], r.stderr)
        assert "privacy leak" not in r.stderr  # everything the model needs is declared
        outputs.append(r.stdout)
    fit_out, _, show_out = outputs[1:]
    assert "privacy: ε=1, δ=0 · proven DP" in fit_out
    assert "PRIVATE: every release is a proven DP mechanism" in show_out
    preds = pd.read_csv(tmp_path / "predictions.csv")
    assert list(preds.columns) == ["prediction", "proba_0", "proba_1"]
    assert len(preds) == len(pd.read_csv(tmp_path / "train.csv"))
