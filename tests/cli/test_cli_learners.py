"""The command line with the multi-class rule lists and PrivaTreeRegressor, end to end:
``fit`` on a CSV with the public inputs declared, ``show``, ``predict``. Every fit runs the installed
command in a subprocess (and the regressor's predictions); the follow-up commands on a saved file
(``predict``, ``show``, ``audit``, a usage error, a refit from its schema) call
:func:`dpmodels.cli.main` in this process, which is what the command runs."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import dpmodels
from dpmodels.cli import fit as cli_fit
from dpmodels.data import dataset_schema, load_dataset
from dpmodels.io import load_model
from dpmodels.rulelist.private import BINARY_ONLY

ENV = {**os.environ, "DPMODELS_PROGRESS": "0", "PYTHONPATH": str(Path(dpmodels.__file__).parents[1])}
NURSERY = ["not_recom", "priority", "recommend", "spec_prior", "very_recom"]


# The command line as a user runs it (unseeded: the files say PRIVATE), with the "OS entropy" its
# noise is drawn from fixed in these subprocesses only: the tests assert on noisy outcomes (e.g.
# the regressor's correlation with y), which must not depend on chance (tests/conftest.py).
BOOT = (
    "import secrets, sys; secrets.randbits = lambda k: 8191 % (1 << k); "
    "from dpmodels.cli import main; sys.exit(main(sys.argv[1:]))"
)


def run(*args, cwd=None):
    return subprocess.run(
        [sys.executable, "-c", BOOT, *map(str, args)],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=cwd,
        env=ENV,
    )


def run_here(capsys, *args):
    """``dpmodels ARGS`` in this process: ``(exit code, stdout, stderr)``."""
    from types import SimpleNamespace

    from dpmodels.cli import main

    capsys.readouterr()
    try:
        code = main([str(a) for a in args])
    except SystemExit as exc:  # argparse's own errors
        code = exc.code
    out = capsys.readouterr()
    return SimpleNamespace(returncode=code, stdout=out.out, stderr=out.err)


def test_the_cli_lists_the_binary_only_mechanisms_of_the_library():
    assert cli_fit.BINARY_MECHANISMS == BINARY_ONLY


@pytest.fixture(scope="module")
def nursery_csv(tmp_path_factory):
    """Nursery's 8 categorical columns and its 5 classes written as text (3,000 rows)."""
    X, y = load_dataset("nursery", binarized=False)
    rows = np.random.default_rng(0).permutation(len(X))[:3000]
    df = X.astype(str).iloc[rows].copy()
    df["label"] = [NURSERY[i] for i in y.to_numpy()[rows]]
    p = tmp_path_factory.mktemp("nursery") / "nursery.csv"
    df.to_csv(p, index=False)
    return p


def _nursery_categories():
    return ["--categories", *(f"{c}={','.join(v)}" for c, v in dataset_schema("nursery").categories.items())]


@pytest.mark.parametrize("model", ["dp-rulelist", "greedy-rulelist"])
def test_five_class_rule_list_fit_predict_proba(model, nursery_csv, tmp_path, capsys):
    out = tmp_path / "m.json"
    eps = ["--epsilon", "2"] if model == "dp-rulelist" else []
    r = run(
        "fit",
        "--data",
        nursery_csv,
        "--label",
        "label",
        "--model",
        model,
        *eps,
        "--classes",
        *NURSERY,
        *_nursery_categories(),
        "--out",
        out,
    )
    assert r.returncode == 0, r.stderr
    assert r.stderr == ""  # label set and categories declared: no leak, no warning
    assert "classes: " + ", ".join(NURSERY) in r.stdout
    doc = json.loads(out.read_text())
    assert doc["schema"]["classes"] == NURSERY
    assert doc["privacy"]["is_private"] is (model == "dp-rulelist")

    preds = tmp_path / "p.csv"
    r = run_here(capsys, "predict", out, nursery_csv, "--proba", "--out", preds)
    assert r.returncode == 0, r.stderr
    got = pd.read_csv(preds)
    assert list(got.columns) == ["prediction", *(f"proba_{c}" for c in NURSERY)] and len(got) == 3000
    P = got[[f"proba_{c}" for c in NURSERY]].to_numpy()
    np.testing.assert_allclose(P.sum(axis=1), 1.0)
    m = load_model(out)
    df = pd.read_csv(nursery_csv, dtype=str)
    np.testing.assert_allclose(P, m.predict_proba(df))
    assert (got["prediction"].to_numpy() == m.predict(df)).all()
    assert set(got["prediction"]) <= set(NURSERY)
    if model == "greedy-rulelist":  # the non-private list separates nursery's classes well
        assert np.mean(got["prediction"].to_numpy() == df["label"].to_numpy()) > 0.7


@pytest.fixture(scope="module")
def regression_csv(tmp_path_factory):
    rng = np.random.default_rng(1)
    n = 800
    x = rng.uniform(0, 10, n)
    c = rng.choice(["a", "b", "c"], n)
    y = 2 * x + np.where(c == "a", 5.0, 0.0) + rng.normal(0, 1, n)
    p = tmp_path_factory.mktemp("reg") / "reg.csv"
    pd.DataFrame({"x": x.round(4), "c": c, "y": y.round(4)}).to_csv(p, index=False)
    return p


def test_privatree_regressor_fit_show_predict(regression_csv, tmp_path, capsys, monkeypatch):
    out = tmp_path / "r.json"
    decl = ["--bounds", "x=0:10", "--categories", "c=a,b,c"]
    r = run(
        "fit",
        "--data",
        regression_csv,
        "--label",
        "y",
        "--model",
        "privatree-regressor",
        "--epsilon",
        "4",
        "--max-depth",
        "3",
        *decl,
        "--label-bounds=-5:30",
        "--out",
        out,
    )
    assert r.returncode == 0, r.stderr
    assert r.stderr == ""  # everything declared: no leak
    assert "PrivaTreeRegressor(max_depth=3" in r.stdout and "labels clipped to [-5, 30]" in r.stdout
    assert "value: " in r.stdout and "PRIVATE: every release is a proven DP mechanism" in r.stdout
    doc = json.loads(out.read_text())
    assert doc["kind"] == "regression_tree" and doc["privacy"]["is_private"] is True
    assert doc["schema"]["classes"] is None and doc["schema"]["label_bounds"] == [-5.0, 30.0]

    monkeypatch.setenv("DPMODELS_PROGRESS", "0")
    r = run_here(capsys, "show", out)
    assert r.returncode == 0, r.stderr
    assert "labels clipped to [-5, 30]" in r.stdout and "label_bounds:" in r.stdout and "classes" not in r.stdout

    preds = tmp_path / "p.csv"
    r = run("predict", out, regression_csv, "--out", preds)
    assert r.returncode == 0, r.stderr
    got = pd.read_csv(preds)["prediction"].to_numpy()
    df = pd.read_csv(regression_csv, dtype={"c": str})
    np.testing.assert_allclose(got, load_model(out).predict(df))
    assert np.corrcoef(got, df["y"])[0, 1] > 0.8  # ε = 4 on 800 rows: the tree follows y

    r = run_here(capsys, "show", out, "--plot", tmp_path / "r.png")  # regression trees are drawn too
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "r.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"

    # the audit: membership inference on the squared error, Dist_G from the leaf counts, V on the loss
    df = pd.read_csv(regression_csv, dtype={"c": str})
    df.iloc[:400].to_csv(tmp_path / "tr.csv", index=False)
    df.iloc[400:].to_csv(tmp_path / "te.csv", index=False)
    monkeypatch.chdir(tmp_path)
    r = run_here(
        capsys, "audit", out, "--train", "tr.csv", "--test", "te.csv", "--label", "y",
        "--json", "a.json", "--html", "a.html",
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    assert "  threshold: AUC " in r.stdout and "Reconstruction: Dist_G 0." in r.stdout
    assert "Distributional overfitting: V 0." in r.stdout and "(leaf, loss bin) pairs" in r.stdout
    doc = json.loads((tmp_path / "a.json").read_text())
    assert doc["model"]["kind"] == "regression_tree" and doc["membership"]["threshold"]["auc"] is not None
    assert 0 < doc["numbers"]["dist_g"] <= 1 and 0.5 <= doc["numbers"]["V"] <= 1 and doc["skipped"] == {}
    page = (tmp_path / "a.html").read_text()
    assert "data:image/png;base64," in page and "Dist_G" in page and "not defined" not in page

    r = run_here(capsys, "predict", out, regression_csv, "--proba")
    assert r.returncode == 2 and "--proba applies to classifiers" in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1 and r.stdout == ""

    # the saved schema is reusable: the label bounds come back with it, nothing is read from the data
    r = run_here(
        capsys, "fit", "--data", regression_csv, "--schema", out, "--model", "privatree-regressor", "--max-depth", "2"
    )
    assert r.returncode == 0, r.stderr
    assert r.stderr == "" and "labels clipped to [-5, 30]" in r.stdout


def test_privatree_regressor_without_label_bounds_records_the_leak(regression_csv, tmp_path, capsys):
    out = tmp_path / "r.json"
    r = run(
        "fit",
        "--data",
        regression_csv,
        "--label",
        "y",
        "--model",
        "privatree-regressor",
        "--max-depth",
        "2",
        "--bounds",
        "x=0:10",
        "--categories",
        "c=a,b,c",
        "--out",
        out,
    )
    assert r.returncode == 0, r.stderr
    leaks = [ln for ln in r.stderr.splitlines() if "privacy leak" in ln]
    assert len(leaks) == 1 and "label bounds" in leaks[0]
    assert "NOT PRIVATE" in r.stdout
    doc = json.loads(out.read_text())
    assert doc["privacy"]["is_private"] is False and doc["schema"]["label_bounds"] is None
    r = run_here(capsys, "show", out)
    assert r.returncode == 0, r.stderr
    assert "label_bounds_source: data" in r.stdout


def test_optimal_rule_list_fits_on_the_command_line(tmp_path):
    """The pre-spend checks of dpmodels.pipeline run the optimal list's own (it has no max_width)."""
    r = run("fit", "--data", "compas", "--model", "optimal-rulelist", "--max-rules", "2", "--quiet")
    assert r.returncode == 0, r.stderr
    assert "IF " in r.stdout and "ELSE" in r.stdout
