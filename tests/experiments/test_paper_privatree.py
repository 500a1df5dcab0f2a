"""Smoke tests of paper 002's UCI grid (``002-uci``) and reference protocol (tiny: vote, 2 folds, one ε)."""

import math

import numpy as np
import pandas as pd
import pytest

from dpmodels.experiments.paper_002 import data as pp
from dpmodels.experiments.paper_002 import variants as pv
from dpmodels.experiments.registry import ROW_FIELDS, Cell, Size, Skip, get, requirement_met

COLUMNS = ["dataset", "learner", "epsilon", "repeat", "fold", "accuracy", "fit_seconds"]


@pytest.fixture(scope="module")
def grid():
    learners = ["tree (non-private)", "PrivaTree", "PrivaTree (histogram)", "BDPT", "DPGDF", "diffprivlib tree"]
    items = pv.fold_cells(["vote"], [0.1], learners, folds=2, repeats=1)
    cells = [c for c in items if isinstance(c, Cell)]
    # diffprivlib's cells need it (the side environment); elsewhere the runner reads that one's cells
    assert {c.kwargs["learner"] for c in cells if c.requires == "diffprivlib"} == {"diffprivlib tree"}
    runnable = [c for c in cells if requirement_met(c.requires)]
    return pd.DataFrame([r for c in runnable for r in c.run()]), [s.key for s in items if isinstance(s, Skip)]


def test_schema_and_values(grid):
    tidy, skipped = grid
    assert list(tidy.columns) == list(ROW_FIELDS) and set(tidy.metric) == {"accuracy"}
    df = pp.fold_frame(tidy)
    assert list(df.columns) == COLUMNS
    assert set(df["dataset"]) == {"vote"}
    ran = set(df["learner"])
    assert {"tree (non-private)", "PrivaTree", "PrivaTree (histogram)", "BDPT", "DPGDF"} <= ran
    assert ("diffprivlib tree" in ran) == requirement_met("diffprivlib") and not skipped
    # 2 folds per learner; the non-private tree has ε = inf, the private ones the requested ε
    assert (df.groupby("learner").size() == 2).all()
    assert set(df.loc[df["learner"] == "tree (non-private)", "epsilon"]) == {math.inf}
    assert set(df.loc[df["learner"] != "tree (non-private)", "epsilon"]) == {0.1}
    assert df["accuracy"].between(0, 1).all() and (df["fit_seconds"] >= 0).all()
    assert sorted(df["fold"].unique()) == [0, 1]


def test_markdown_table_renders(grid):
    tidy, _ = grid
    md = pp.markdown_table(tidy)
    lines = md.splitlines()
    assert lines[0].startswith("| dataset | ε | tree (non-private) | PrivaTree")
    assert len(lines) == 3  # header, rule, one (dataset, ε) row
    assert lines[2].startswith("| vote | 0.1 |") and "±" in lines[2]
    assert ".827" in lines[2]  # the paper's DiffPrivLib value for vote at ε = 0.1 (Table II)
    assert all(line.count("|") == lines[0].count("|") for line in lines)
    s = pp.summarise(tidy)
    assert {"mean", "se", "folds"} <= set(s.columns)


def test_registered_ids_and_their_skips():
    items = get("002-uci").cells(Size(quick=True, datasets=("breast-w",)))
    skips = [s for s in items if isinstance(s, Skip)]
    assert any("DPGDF" in s.key and "categorical" in s.reason for s in skips)  # breast-w is numerical
    ref = [c for c in get("002-reference").cells(Size(quick=True)) if isinstance(c, Cell)]
    assert {c.kwargs["dataset"] for c in ref} == set(pp.REFERENCE_EPSILON)
    assert all(c.kwargs["epsilons"] == (pp.REFERENCE_EPSILON[c.kwargs["dataset"]],) for c in ref)
    with pytest.raises(ValueError, match="002-reference runs on"):
        get("002-reference").cells(Size(quick=True, datasets=("vote",)))


def test_public_metadata_is_not_read_from_data():
    X, y, meta = pp.load_experiment_data("vote")
    assert len(X) == 232 and set(meta["categories"]) == set(X.columns)  # paper: rows with '?' dropped
    X, y, meta = pp.load_experiment_data("nursery")
    assert set(np.unique(y)) == {0, 1} and abs(1 - y.mean() - 0.667) < 0.001  # paper's Table IV
    for bounds in pp.PUBLIC_BOUNDS.values():
        for lo, hi in bounds.values():
            assert lo < hi
    X, y, meta = pp.load_experiment_data("breast cancer")
    assert len(meta["bounds"]) == 30


def test_unknown_learner():
    with pytest.raises(ValueError, match="unknown learners"):
        pv.fold_cells(["vote"], [0.1], ["nope"], folds=2)
