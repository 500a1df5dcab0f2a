"""Paper 002's DiffPrivLib series: cells of their own that only the side environment runs.

diffprivlib 0.6.6 imports only with scikit-learn < 1.8, so it lives in `.venv-diffprivlib`
(`make diffprivlib-env`). The tests that fit diffprivlib models skip cleanly where it does not
import; the ones about the cells, the runner and the paired comparison run everywhere.
"""

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from _extras import need
from dpmodels.experiments import grid, pages, registry, run
from dpmodels.experiments.paper_000.accuracy import noise_cell
from dpmodels.experiments.paper_002 import accuracy_curves, accuracy_tables, guarantees, protocol
from dpmodels.experiments.paper_002 import data as p2data
from dpmodels.experiments.paper_002.authors_tables import authors_accuracy_cell
from dpmodels.experiments.registry import Cell, Size, get

SRC = str(Path(protocol.__file__).resolve().parents[3])


def _needs_diffprivlib():
    need("diffprivlib")  # absent, or broken by a newer scikit-learn


# ----------------------------------------------------------------------------- everywhere
@pytest.mark.parametrize("eid", ["002-table2", "002-table6", "002-table7", "002-table3", "002-table8", "002-fig1"])
def test_diffprivlib_cells_do_not_depend_on_the_environment(eid, monkeypatch):
    """The grid, and so every cell's file name, is the same whether diffprivlib imports or not:
    the side environment's DiffPrivLib cells are found by the main environment's report."""
    uids = {}
    for have in (True, False):
        monkeypatch.setattr(protocol, "has_diffprivlib", lambda have=have: have)
        cells = [c for c in get(eid).cells(Size(quick=True)) if isinstance(c, Cell)]
        uids[have] = [(c.uid, c.requires) for c in cells]
    assert uids[True] == uids[False]
    needing = [c for c in cells if c.requires == "diffprivlib"]
    assert needing and len(needing) < len(cells)
    for c in needing:  # the DiffPrivLib / DP LR cells fit nothing else (the authors' code: its own cells)
        learners = c.kwargs.get("learners")
        assert learners == ("DiffPrivLib",) or c.fn is guarantees.dp_lr_cell or c.fn is authors_accuracy_cell
    for c in cells:
        if c.requires is None and "learners" in c.kwargs:
            assert "DiffPrivLib" not in c.kwargs["learners"]


def test_table2_cell_uid_is_unchanged_by_the_split():
    """The non-diffprivlib cells have one uid in both environments (the one tests/experiments/test_experiments_grid.py pins)."""
    cells = {c.key: c for c in get("002-table2").cells(Size(quick=True)) if isinstance(c, Cell)}
    assert cells["compas-two-years-cat-r0-f0"].uid == "compas-two-years-cat-r0-f0-e30b6948f8"
    assert cells["compas-two-years-cat-r0-f0-diffprivlib"].requires == "diffprivlib"


def _noise_cells(requires):
    return [
        Cell("plain", noise_cell, dict(mechanism="sm-Laplace", seed=1, ns=(1, 10), draws=50)),
        Cell("optional", noise_cell, dict(mechanism="sm-Cauchy", seed=1, ns=(1, 10), draws=50), requires=requires),
    ]


def test_runner_reads_but_never_runs_a_cell_whose_package_is_missing(tmp_path, monkeypatch):
    missing = "dpmodels_no_such_package_for_this_test"
    assert not registry.requirement_met(missing) and registry.requirement_met(None)
    cells = _noise_cells(missing)
    exp = registry.Experiment(
        "zzz-optional",
        paper="zzz",
        kind="table",
        title="optional",
        draws="test",
        cells=lambda size: cells,
        table=lambda df: " ".join(sorted(set(df["learner"]))),
    )
    monkeypatch.setitem(registry._REGISTRY, exp.id, exp)
    r = run.run_experiment(exp.id, Size(), tmp_path, progress=False)
    assert r.cells_run == 1 and grid.finished(cells, tmp_path / exp.id / "cells") == cells[:1]
    assert r.skipped == [f"1 cells (optional, ...): need {missing}, which does not import in this environment"]
    assert r.table == "sm-Laplace"
    # another environment (where the package imports) wrote the optional cell's file: it is read
    grid.run_cells(cells[1:], tmp_path / exp.id / "cells", progress=False)
    r = run.run_experiment(exp.id, Size(), tmp_path, progress=False)
    assert (r.cells_run, r.cells_cached, r.skipped) == (0, 2, [])
    assert r.table == "sm-Cauchy sm-Laplace"
    assert r.notes == [f"1 cells needing {missing} read from another environment's run"]


def test_a_run_that_completes_another_environments_grid_reports_both_runs_cpu(tmp_path, monkeypatch):
    """The main environment runs the plain cells, the side one only the optional cell: the grid's
    metadata (what a page reports) carries the CPU time of both runs, not the last one's alone."""
    missing = "dpmodels_no_such_package_for_this_test"
    cells = _noise_cells(missing)
    exp = registry.Experiment(
        "zzz-two-envs", paper="zzz", kind="table", title="two", draws="test", cells=lambda size: cells
    )
    monkeypatch.setitem(registry._REGISTRY, exp.id, exp)
    monkeypatch.setattr(run, "_code_commit", lambda: "aaa")
    run.run_experiment(exp.id, Size(), tmp_path, progress=False)
    first = json.loads((tmp_path / exp.id / "meta.json").read_text())
    monkeypatch.setattr(run, "requirement_met", lambda package: True)  # the side environment
    monkeypatch.setattr(run, "_code_commit", lambda: "bbb")
    r = run.run_experiment(exp.id, Size(), tmp_path, progress=False)
    meta = json.loads((tmp_path / exp.id / "meta.json").read_text())
    assert (r.cells_run, r.cells_cached, meta["runs"], meta["commit"]) == (1, 1, 2, "aaa + bbb")
    assert meta["cpu_seconds"] == round(first["cpu_seconds"] + r.cpu_seconds, 1)
    # a later run that reuses everything keeps that measurement
    run.run_experiment(exp.id, Size(), tmp_path, progress=False, finished_only=True)
    assert json.loads((tmp_path / exp.id / "meta.json").read_text())["cpu_seconds"] == meta["cpu_seconds"]


def test_cells_finished_elsewhere_keep_the_computing_run_and_are_named(tmp_path, monkeypatch):
    """The optional cell's file is put beside the plain one (finished by another environment's run
    in another folder): a later run that computes nothing keeps the computing run's CPU time and
    says how many cells it does not cover, instead of reporting 0 CPU-s for the grid."""
    import shutil

    missing = "dpmodels_no_such_package_for_this_test"
    cells = _noise_cells(missing)
    exp = registry.Experiment(
        "zzz-copied", paper="zzz", kind="table", title="copied", draws="test", cells=lambda size: cells
    )
    monkeypatch.setitem(registry._REGISTRY, exp.id, exp)
    monkeypatch.setattr(run, "_code_commit", lambda: "aaa")
    elsewhere, here = tmp_path / "side", tmp_path / "main"
    monkeypatch.setattr(run, "requirement_met", lambda package: True)  # the side environment, its own folder
    run.run_experiment(exp.id, Size(), elsewhere, progress=False)
    monkeypatch.setattr(run, "requirement_met", lambda package: package is None)  # the main environment
    run.run_experiment(exp.id, Size(), here, progress=False)
    first = json.loads((here / exp.id / "meta.json").read_text())
    assert first["cells"] == 1
    first["cpu_seconds"] = 12.5  # this cell takes milliseconds: give the computing run a visible measurement
    (here / exp.id / "meta.json").write_text(json.dumps(first))
    for f in (elsewhere / exp.id / "cells").iterdir():
        if not (here / exp.id / "cells" / f.name).exists():
            shutil.copyfile(f, here / exp.id / "cells" / f.name)
    monkeypatch.setattr(run, "requirement_met", lambda package: True)
    r = run.run_experiment(exp.id, Size(), here, progress=False)
    meta = json.loads((here / exp.id / "meta.json").read_text())
    assert r.cells_run == 0 and meta["cells"] == 2 and meta["cells_elsewhere"] == 1
    assert (meta["cpu_seconds"], meta["commit"]) == (12.5, "aaa")


def _paired_frame(diffs_by_eps, base=0.6):
    rows = []
    for eps, diffs in diffs_by_eps.items():
        for seed, d in enumerate(diffs):
            rows.append(
                dict(dataset="vote", learner="DP LR", epsilon=eps, seed=seed, metric="test_accuracy", value=base)
            )
            rows.append(
                dict(
                    dataset="vote", learner="PrivaTree", epsilon=eps, seed=seed, metric="test_accuracy", value=base + d
                )
            )
    return pd.DataFrame(rows)


def test_paired_comparison_against_a_hand_computed_oracle():
    d01 = [0.10, 0.12, 0.08, 0.11, 0.09]  # mean .10, s.d. .0158, s.e. .00707: a win
    d001 = [0.05, -0.05, 0.02, -0.02, 0.0]  # mean 0, s.d. .0381, s.e. .0170: a tie
    text = guarantees.paired_privatree_vs_lr(_paired_frame({0.1: d01, 0.01: d001}), [("vote", "uci")])
    se = float(np.std(d01, ddof=1) / math.sqrt(5))
    assert f"| vote (uci) | 0.1 | 5 | +0.100 ± {se:.3f} | win | +0.20 |" in text  # paper .75 − .55
    assert "| vote (uci) | 0.01 | 5 | +0.000 ± 0.017 | tie | +0.36 |" in text
    assert "ε = 0.1: PrivaTree ahead on 1, tied on 0, behind on 0 of 1 datasets" in text
    losing = guarantees.paired_privatree_vs_lr(_paired_frame({0.1: [-x for x in d01]}), [("vote", "uci")])
    assert "| loss |" in losing and "behind on 1 of 1" in losing
    # no DP LR rows (the main environment without the side run): no section at all
    assert (
        guarantees.paired_privatree_vs_lr(_paired_frame({0.1: d01}).query("learner == 'PrivaTree'"), [("vote", "uci")])
        == ""
    )


# ----------------------------------------------------------------------------- side environment
def test_diffprivlib_tree_cells_on_a_tiny_dataset():
    _needs_diffprivlib()
    rows = accuracy_tables.tree_accuracy_cell("vote", "uci", 0, 0, 5, (0.1, 1.0), ("DiffPrivLib",))
    assert [r["learner"] for r in rows] == ["DiffPrivLib", "DiffPrivLib"]
    for r in rows:
        assert 0.0 <= r["value"] <= 1.0
        assert json.loads(r["parameters"])["leak_rows"] == 0  # categorical only: public codes and label set
    again = accuracy_tables.tree_accuracy_cell("vote", "uci", 0, 0, 5, (0.1, 1.0), ("DiffPrivLib",))
    assert [r["value"] for r in again] == [r["value"] for r in rows]  # seeded
    curve = accuracy_curves.curve_cell("compas-two-years", "cat", 0, (0.01,), ("DiffPrivLib",), with_tree=False)
    assert [r["learner"] for r in curve] == ["DiffPrivLib"]


def test_dp_lr_cells_paper_protocol_and_public_design():
    _needs_diffprivlib()
    rows = guarantees.dp_lr_cell("breast-w", "uci", 0, 0, 5, (1.0,))
    by = {r["learner"]: (r, json.loads(r["parameters"])) for r in rows}
    assert set(by) == {"DP LR", "DP LR (public)"}  # breast-w's bounds are public: both series
    paper, public = by["DP LR"][1], by["DP LR (public)"][1]
    assert paper["protocol"] == guarantees.LR_PAPER and public["protocol"] == guarantees.LR_PUBLIC
    assert public["leak_rows"] == 1  # only n (diffprivlib's objective perturbation)
    assert paper["leak_rows"] == 3  # n, data_norm, the standardisation's statistics
    assert all(0.0 <= r["value"] <= 1.0 for r in rows)
    # a dataset whose bounds are unpublished: only the paper's protocol, and never the public design
    X, y, meta = p2data.load_002("breast-w", "uci")
    with pytest.raises(ValueError, match="public bounds"):
        guarantees.make_dp_lr(1.0, X, dict(meta, bounds=None), seed=3, protocol="public")
    lr, tf = guarantees.make_dp_lr(1.0, X, dict(meta, bounds=None), seed=3)
    assert lr.standardize and lr.data_norm is None
    lr.fit(tf(X), y.to_numpy())
    assert not lr.privacy_ledger_.is_private and len(lr.privacy_ledger_.leaks) == 3


def test_reproduce_002_table8_with_diffprivlib_end_to_end(tmp_path):
    """`dpmodels reproduce` in this (side) environment: the DP LR rows and the paired comparison."""
    _needs_diffprivlib()
    env = dict(os.environ, PYTHONPATH=SRC)
    cmd = [sys.executable, "-m", "dpmodels", "reproduce", "002-table8", "--quick", "--datasets", "vote"]
    cmd += ["--out", str(tmp_path), "--no-progress"]
    out = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=300)
    assert out.returncode == 0, out.stderr
    table = (tmp_path / "002-table8" / "table.md").read_text()
    for series in ("DP LR", "DP LR (public)"):
        lr_rows = [line for line in table.splitlines() if line.startswith("| vote (185") and f"| {series} |" in line]
        assert len(lr_rows) == 2
        assert f"PrivaTree vs {series}, paired by fold" in table
    assert "| needs diffprivlib |" not in table and "| vote (uci) | 0.1 | 5 |" in table
    assert "needs diffprivlib" not in out.stdout


def test_a_run_names_the_commit_it_started_at_and_cells_an_interrupted_run_finished(tmp_path, monkeypatch):
    """A run records the commit whose code it runs, taken before its cells (a merge while they run
    does not rename them), and a run that finds cells an earlier run left without a measurement
    (it was interrupted) says its CPU time does not cover them."""
    import itertools

    cells = _noise_cells(None)
    exp = registry.Experiment(
        "zzz-interrupted", paper="zzz", kind="table", title="i", draws="test", cells=lambda size: cells
    )
    monkeypatch.setitem(registry._REGISTRY, exp.id, exp)
    commits = itertools.chain(["start"], itertools.repeat("later"))
    monkeypatch.setattr(run, "_code_commit", lambda: next(commits))
    first = cells[0]
    grid.run_cells([first], tmp_path / exp.id / "cells", progress=False)  # the interrupted run's one cell
    r = run.run_experiment(exp.id, Size(), tmp_path, progress=False)
    meta = json.loads((tmp_path / exp.id / "meta.json").read_text())
    assert (r.cells_run, r.cells_cached) == (1, 1)
    assert (meta["commit"], meta["cells_earlier"]) == ("start", 1)
    text = pages.page_block(exp.id, pd.DataFrame(), dict(meta, figures=[]))
    assert "not counting 1 cells an earlier, interrupted run of the grid finished" in text
