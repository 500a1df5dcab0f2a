"""`dpmodels fit --model dp-rulelist` on raw columns is `dpmodels.pipeline.make_private_rule_list`:
one builder of the Binarizer → rule list pipeline, whose two parts of ε add up to the total exactly.

The command line runs in a subprocess, as a user runs it; the library function runs here on the
same rows, parsed as the command line parses them, under the same seed.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

import dpmodels
from dpmodels.io import load_model, model_to_dict
from dpmodels.pipeline import make_private_rule_list, split_epsilon

ENV = {**os.environ, "DPMODELS_PROGRESS": "0", "PYTHONPATH": str(Path(dpmodels.__file__).parents[1])}
SEED = 11


def _frame(n=400, seed=0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    x = rng.uniform(0, 10, n).round(2)
    k = rng.integers(0, 30, n)
    c = rng.choice(["a", "b", "c"], n)
    y = ((x > 4) ^ (c == "c") | (k < 3)).astype(int)
    return pd.DataFrame({"x": x, "k": k, "c": c, "y": y})


def _cli(*args):
    return subprocess.run(
        [sys.executable, "-m", "dpmodels", "fit", *map(str, args)], capture_output=True, text=True, timeout=300, env=ENV
    )


@pytest.fixture(scope="module")
def csv(tmp_path_factory):
    p = tmp_path_factory.mktemp("rl") / "train.csv"
    _frame().to_csv(p, index=False)
    return p


def _rows(df):
    """The rows as the command line parses them: declared numbers as floats, categories and labels
    as their declared text."""
    X = df[["x", "k", "c"]].astype({"x": float, "k": float, "c": object})
    return X, df["y"].astype(str)


def test_the_cli_fits_make_private_rule_list(csv, tmp_path):
    """Same rows, same declarations, same seed: the command line's model file is the library
    pipeline's, rule for rule, cut point for cut point, ledger row for ledger row."""
    out = tmp_path / "cli.json"
    r = _cli(
        "--data", csv, "--label", "y", "--model", "dp-rulelist", "--epsilon", "1",
        "--bounds", "x=0:10", "k=0:29", "--integer", "k", "--categories", "c=a,b,c", "--classes", "0", "1",
        "--max-rules", "4", "--binarizer-share", "0.3", "--random-state", SEED, "--out", out, "--quiet",
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    pipe = make_private_rule_list(
        epsilon=1.0,
        classes=["0", "1"],
        bounds={"x": (0.0, 10.0), "k": (0.0, 29.0)},
        categories={"c": ["a", "b", "c"]},
        binarizer_share=0.3,
        integer_features=["k"],
        max_rules=4,
        random_state=SEED,
    )
    X, y = _rows(pd.read_csv(csv))
    pipe.fit(X, y)
    cli, lib = json.loads(out.read_text()), model_to_dict(pipe)
    assert cli["model"] == lib["model"]  # the rule list
    assert cli["schema"]["preprocessing"] == lib["schema"]["preprocessing"]  # the Binarizer's released cut points
    assert cli["privacy"]["ledger"]["rows"] == lib["privacy"]["ledger"]["rows"]
    assert cli["privacy"]["epsilon"] == 1.0 and cli["privacy"]["epsilon_spent"] == pytest.approx(1.0)
    assert np.array_equal(load_model(out).predict(X), pipe.predict(X))


def test_without_declared_bounds_the_rule_list_gets_all_of_epsilon(csv, tmp_path):
    """No bounds: the Binarizer releases nothing private (the data's quantiles, a leak row per
    column) and spends nothing; the rule list gets the whole ε, as the library's pipeline does."""
    out = tmp_path / "m.json"
    r = _cli(
        "--data", csv, "--label", "y", "--model", "dp-rulelist", "--epsilon", "1",
        "--categories", "c=a,b,c", "--classes", "0", "1", "--out", out, "--quiet",
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    assert "privacy leak: quantiles of feature 'x'" in r.stderr
    rows = json.loads(out.read_text())["privacy"]["ledger"]["rows"]
    spent = [row for row in rows if row["composition"] != "leak"]
    assert spent and not any(row["what"].startswith("Binarizer") for row in spent)
    assert pytest.approx(1.0) == sum(row["epsilon"] for row in spent)
    pipe = make_private_rule_list(epsilon=1.0, classes=["0", "1"], categories={"c": ["a", "b", "c"]})
    assert pipe[0].epsilon is None and pipe[-1].epsilon == 1.0


@given(
    total=st.floats(min_value=1e-6, max_value=1e6, allow_nan=False, allow_infinity=False),
    share=st.floats(min_value=1e-6, max_value=1 - 1e-6),
)
def test_the_split_adds_up_to_the_total_exactly(total, share):
    """The Binarizer's part and the rule list's part add up to ε as real numbers, never above it
    (the naive share·ε and ε − share·ε are one unit in the last place above ε = 1 at share 0.1)."""
    part, rest = split_epsilon(total, share)
    assert Fraction(part) + Fraction(rest) == Fraction(total)
    assert part > 0 and rest > 0 and abs(part - share * total) <= 2 * np.spacing(total)
    assert rest == total - share * total  # the rule list's part is the one make_private_rule_list always gave it
    pipe = make_private_rule_list(epsilon=total, classes=[0, 1], bounds={"x": (0.0, 1.0)}, binarizer_share=share)
    assert Fraction(pipe[0].epsilon) + Fraction(pipe[-1].epsilon) == Fraction(total)


def test_the_naive_split_was_above_the_total():
    """Why split_epsilon exists: ε = 1, share 0.1 (the default) split naively sums above 1."""
    assert Fraction(0.1 * 1.0) + Fraction(1.0 - 0.1 * 1.0) > 1
    assert Fraction(0.1 * 1.0) + Fraction((1 - 0.1) * 1.0) > 1  # the command line's old split
    assert sum(map(Fraction, split_epsilon(1.0, 0.1))) == 1
    with pytest.raises(ValueError, match="rounds to 0"):
        split_epsilon(1.0, 1e-17)
