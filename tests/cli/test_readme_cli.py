"""The README's "From a CSV to a private model" commands, run as written (in a temporary
directory, with this interpreter standing for `python` and for the `dpmodels` entry point)."""

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pandas as pd

README = Path(__file__).resolve().parents[2] / "README.md"


def _section() -> str:
    return README.read_text().split("## From a CSV to a private model", 1)[1].split("\n## ", 1)[0]


def readme_commands() -> list[list[str]]:
    block = re.search(r"```bash\n(.*?)```", _section(), flags=re.S).group(1)
    return [shlex.split(line) for line in block.splitlines() if line.strip()]


def _numeric_tests(text: str) -> list[tuple[str, str]]:
    """(column, printed threshold) of every ``|--- col <= t`` / ``|--- col >  t`` line."""
    return re.findall(r"\|--- (\S+) (?:<=|> ) (\S+)$", text, flags=re.M)


def test_readme_output_agrees_with_the_integer_rule():
    """The README's printed example and what it says: columns given to ``--integer`` print
    integer thresholds (the README's excerpt was pasted from a run of its commands)."""
    fit = readme_commands()[1]
    integer = fit[fit.index("--integer") + 1 : fit.index("--out")]
    excerpt = re.search(r"```text\n(.*?)```", _section(), flags=re.S).group(1)
    tests = _numeric_tests(excerpt)
    assert tests and all(c in integer for c, _ in tests)  # COMPAS's numerical columns are all counts
    assert all(re.fullmatch(r"\d+", t) for _, t in tests), tests


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
    tests = _numeric_tests(fit_out)
    assert tests and all(re.fullmatch(r"-?\d+", t) for _, t in tests), tests  # --integer columns: integers
    assert "PRIVATE: every release is a proven DP mechanism" in show_out
    preds = pd.read_csv(tmp_path / "predictions.csv")
    assert list(preds.columns) == ["prediction", "proba_0", "proba_1"]
    assert len(preds) == len(pd.read_csv(tmp_path / "train.csv"))
