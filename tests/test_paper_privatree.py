"""Smoke test of the paper-002 accuracy runner (tiny: vote, 2 folds, one ε)."""

import math
import warnings

import numpy as np
import pandas as pd
import pytest

from dpmodels.experiments.paper_002 import data as pp

COLUMNS = ["dataset", "learner", "epsilon", "repeat", "fold", "accuracy", "fit_seconds"]


@pytest.fixture(scope="module")
def grid(tmp_path_factory):
    out = tmp_path_factory.mktemp("pp") / "grid.csv"
    learners = ["tree (non-private)", "PrivaTree", "PrivaTree (histogram)", "BDPT", "DPGDF",
                "diffprivlib tree"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # diffprivlib may be missing here
        df = pp.run_privatree_accuracy(["vote"], [0.1], learners, folds=2, repeats=1, n_jobs=1, out=out)
    return df, out


def test_schema_and_values(grid):
    df, out = grid
    assert list(df.columns) == COLUMNS
    assert set(df["dataset"]) == {"vote"}
    ran = set(df["learner"])
    assert {"tree (non-private)", "PrivaTree", "PrivaTree (histogram)", "BDPT", "DPGDF"} <= ran
    assert ("diffprivlib tree" in ran) != ("diffprivlib tree" in df.attrs["skipped"])
    # 2 folds per learner; the non-private tree has ε = inf, the private ones the requested ε
    assert (df.groupby("learner").size() == 2).all()
    assert set(df.loc[df["learner"] == "tree (non-private)", "epsilon"]) == {math.inf}
    assert set(df.loc[df["learner"] != "tree (non-private)", "epsilon"]) == {0.1}
    assert df["accuracy"].between(0, 1).all() and (df["fit_seconds"] >= 0).all()
    assert sorted(df["fold"].unique()) == [0, 1]
    back = pd.read_csv(out)
    assert list(back.columns) == COLUMNS and len(back) == len(df)


def test_markdown_table_renders(grid):
    df, _ = grid
    md = pp.markdown_table(df)
    lines = md.splitlines()
    assert lines[0].startswith("| dataset | ε | tree (non-private) | PrivaTree")
    assert len(lines) == 3  # header, rule, one (dataset, ε) row
    assert lines[2].startswith("| vote | 0.1 |") and "±" in lines[2]
    assert ".827" in lines[2]  # the paper's DiffPrivLib value for vote at ε = 0.1 (Table II)
    assert all(line.count("|") == lines[0].count("|") for line in lines)
    s = pp.summarise(df)
    assert {"mean", "se", "folds"} <= set(s.columns)


def test_public_metadata_is_not_read_from_data():
    X, y, meta = pp.load_experiment_data("vote")
    assert len(X) == 232 and set(meta["categories"]) == set(X.columns)  # paper: rows with '?' dropped
    X, y, meta = pp.load_experiment_data("nursery")
    assert set(np.unique(y)) == {0, 1} and abs(1 - y.mean() - 0.667) < 0.001  # paper's Table IV
    for name, bounds in pp.PUBLIC_BOUNDS.items():
        for lo, hi in bounds.values():
            assert lo < hi
    X, y, meta = pp.load_experiment_data("breast cancer")
    assert len(meta["bounds"]) == 30


def test_unknown_learner():
    with pytest.raises(ValueError, match="unknown learners"):
        pp.run_privatree_accuracy(["vote"], [0.1], ["nope"], folds=2)
