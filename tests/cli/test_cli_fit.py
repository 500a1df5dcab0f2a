"""`dpmodels fit | predict | show` end to end: a user's CSV in, a model file with its guarantee
out; every bad input is one line on stderr and a non-zero exit, never a traceback.

Every fit runs the installed command in a subprocess, and so do a representative few of the bad
inputs; `predict` and `show` on the files those fits wrote, and the other bad inputs, call
:func:`dpmodels.cli.main` in this process, which is what the command runs (`fit`, `predict` and
`show` as a user types them, each in its own process: tests/cli/test_readme_cli.py)."""

import argparse
import json
import os
import shutil
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from dpmodels.cli import fit as cli_fit
from dpmodels.cli import predict as cli_predict
from dpmodels.cli import schema as cli_schema
from dpmodels.data import dataset_schema, list_datasets
from dpmodels.io import load_model
from dpmodels.rulelist import MECHANISMS

ENV = {**os.environ, "DPMODELS_PROGRESS": "0"}


def run(*args, module=True, cwd=None):
    if module:
        cmd = [sys.executable, "-m", "dpmodels", *map(str, args)]
    else:
        exe = shutil.which("dpmodels") or os.path.join(os.path.dirname(sys.executable), "dpmodels")
        cmd = [exe, *map(str, args)]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=300, cwd=cwd, env=ENV)


@pytest.fixture(scope="module")
def csv_path(tmp_path_factory, compas_raw):
    """Raw COMPAS with text labels, written as a user's CSV (600 rows: fast fits)."""
    X, y = compas_raw
    df = X.astype({c: object for c in X.select_dtypes("category").columns}).iloc[:600].copy()
    df.insert(0, "id", np.arange(600))
    df["recid"] = y.iloc[:600].map({0: "no", 1: "yes"}).to_numpy()
    p = tmp_path_factory.mktemp("cli") / "train.csv"
    df.to_csv(p, index=False)
    return p


def _declarations():
    s = dataset_schema("compas")
    cats = [f"{c}={','.join(v)}" for c, v in s.categories.items()]
    bounds = [f"{c}={lo}:{hi}" for c, (lo, hi) in s.bounds.items()]
    return ["--classes", "no", "yes", "--categories", *cats, "--bounds", *bounds]


@pytest.mark.parametrize("module", [True, False], ids=["python -m dpmodels", "dpmodels"])
def test_version_and_module_entry_points(module):
    import dpmodels

    r = run("--version", module=module)
    assert r.returncode == 0 and r.stdout.strip() == f"dpmodels {dpmodels.__version__}"


def test_every_option_documents_its_default_or_values():
    p = argparse.ArgumentParser()
    sub = p.add_subparsers()
    cli_fit.add_parser(sub)
    cli_predict.add_parsers(sub)
    cli_schema.add_parser(sub)
    for name, sub in p._subparsers._group_actions[0].choices.items():
        for a in sub._actions:
            if isinstance(a, argparse._HelpAction) or not a.option_strings:
                continue
            h = (a.help or "").lower()
            assert h, f"{name} {a.option_strings} has no help"
            if a.nargs != 0:  # options taking a value say their default (or that they need one)
                assert "default" in h or "required" in h or a.choices, f"{name} {a.option_strings}: {h}"
    assert cli_fit.MECHANISMS == MECHANISMS
    assert sorted(cli_fit.BUNDLED) == sorted(list_datasets())


# a private fit on a user's CSV with every public input declared: (options, what the fit prints,
# the Binarizer's share of ε in the ledger, `show`'s options and what it prints)
DECLARED_FITS = [
    pytest.param(
        ["--model", "privatree", "--epsilon", "1", "--max-depth", "3"],
        ["PrivaTreeClassifier(max_depth=3", "privacy: ε=1, δ=0 · proven DP"],
        0.0,
        (
            ["--rules"],
            ["Privacy ledger", "Public schema", "age: {kind: numerical, bounds: [18.0, 100.0]}", "IF ", "share"],
        ),
        id="privatree",
    ),
    pytest.param(
        ["--model", "dp-rulelist", "--epsilon", "1", "--binarizer-share", "0.2"],
        ["input: Binarizer of the columns sex, age", "Binarizer: 2 quantiles of 'age'"],
        0.2,
        ([], ["age: cut points", "(DP quantiles)"]),
        id="dp-rulelist through the Binarizer",
    ),
]


@pytest.mark.parametrize("options, printed, binarizer_epsilon, show", DECLARED_FITS)
def test_a_declared_fit_on_a_csv_then_predict_and_show(csv_path, tmp_path, options, printed, binarizer_epsilon, show):
    out = tmp_path / "model.json"
    r = run("fit", "--data", csv_path, "--label", "recid", "--drop", "id", *options, *_declarations(), "--out", out)
    assert r.returncode == 0, r.stderr
    assert r.stderr == ""  # everything declared: no leak, no warning
    for text in [*printed, "PRIVATE: every release is a proven DP mechanism"]:
        assert text in r.stdout, text
    assert "held-out" not in r.stdout  # every row trains unless --holdout asks for an evaluation
    doc = json.loads(out.read_text())
    assert doc["privacy"]["is_private"] is True and doc["schema"]["classes"] == ["no", "yes"]
    assert doc["privacy"]["epsilon_spent"] == pytest.approx(1.0)
    rows = doc["privacy"]["ledger"]["rows"]
    assert sum(x["epsilon"] for x in rows if x["what"].startswith("Binarizer")) == pytest.approx(binarizer_epsilon)
    assert "id" not in doc["schema"]["input_features"] and "recid" not in doc["schema"]["input_features"]

    preds = tmp_path / "preds.csv"
    r = _run_in_process(["predict", out, csv_path, "--out", preds, "--proba", "--id", "id"])
    assert r.returncode == 0, r.stderr
    got = pd.read_csv(preds)
    assert list(got.columns) == ["id", "prediction", "proba_no", "proba_yes"] and len(got) == 600
    df = pd.read_csv(csv_path, dtype={c: str for c in dataset_schema("compas").categories})
    m = load_model(out)
    assert (got["prediction"].to_numpy() == m.predict(df)).all()
    assert np.allclose(got[["proba_no", "proba_yes"]].to_numpy(), m.predict_proba(df))

    args, shown = show
    r = _run_in_process(["show", out, *args])
    assert r.returncode == 0, r.stderr
    for text in shown:
        assert text in r.stdout, text


def test_undeclared_inputs_are_leaks_shown_as_one_line_each(csv_path, tmp_path):
    out = tmp_path / "m.json"
    r = run(
        "fit",
        "--data",
        csv_path,
        "--label",
        "recid",
        "--drop",
        "id",
        "--model",
        "bdpt",
        "--max-depth",
        "2",
        "--random-state",
        "0",
        "--out",
        out,
    )
    assert r.returncode == 0, r.stderr
    lines = r.stderr.splitlines()
    leaks = [ln for ln in lines if ln.startswith("dpmodels: privacy leak: ")]
    kinds = [ln for ln in leaks if "kind of column" in ln]
    assert len(kinds) == 9  # every feature column's kind (numerical or not) was read from the cells
    assert len(leaks) == 6 + 9  # + classes, 4 category lists, bounds
    assert any("(CLI: --classes" in ln for ln in leaks) and any("(CLI: --bounds" in ln for ln in leaks)
    assert any(ln.startswith("dpmodels: warning: --random-state seeds the noise") for ln in lines)
    assert all(ln.startswith("dpmodels: ") for ln in lines)
    doc = json.loads(out.read_text())
    assert doc["privacy"]["is_private"] is False and doc["privacy"]["noise_seeded"] is True
    assert sum(r["composition"] == "leak" for r in doc["privacy"]["ledger"]["rows"]) == 6 + 9
    r = _run_in_process(["show", out])
    assert "NOT PRIVATE" in r.stdout and "source: data" in r.stdout


def test_bundled_dataset_rule_list_fit_predict(tmp_path):
    out = tmp_path / "rl.json"
    # the noise is seeded so that the printed list (one IF, then ELSE IFs) does not depend on the draw
    r = run(
        "fit",
        "--data",
        "compas",
        "--model",
        "dp-rulelist",
        "--epsilon",
        "2",
        "--no-split",
        "--random-state",
        "1",
        "--out",
        out,
    )
    assert r.returncode == 0, r.stderr
    assert "held-out" not in r.stdout and sum(ln.startswith("IF ") for ln in r.stdout.splitlines()) == 1
    r = _run_in_process(["predict", out, "compas"])
    assert r.returncode == 0 and len(r.stdout.splitlines()) == 7214 + 1


BAD_INPUTS = [
    (["fit", "--data", "nope.csv", "--label", "y"], "data file 'nope.csv' does not exist"),
    (["fit", "--label", "y"], "the following arguments are required: --data"),
    (["fit", "--data", "{csv}"], "--label is required with a CSV file"),
    (["fit", "--data", "{csv}", "--label", "zz"], "--label 'zz' is not a column"),
    (
        ["fit", "--data", "{csv}", "--label", "recid", "--epsilon", "0"],
        "argument --epsilon: must be a finite number > 0",
    ),
    (["fit", "--data", "{csv}", "--label", "recid", "--epsilon", "nan"], "must be a finite number > 0"),
    (["fit", "--data", "{csv}", "--label", "recid", "--model", "forest"], "invalid choice: 'forest'"),
    (
        ["fit", "--data", "{csv}", "--label", "recid", "--model", "greedy-rulelist", "--epsilon", "1"],
        "--epsilon applies to private models, not to greedy-rulelist",
    ),
    (
        ["fit", "--data", "{csv}", "--label", "recid", "--model", "privatree", "--max-rules", "3"],
        "--max-rules applies to rule lists",
    ),
    (
        ["fit", "--data", "{csv}", "--label", "recid", "--model", "privatree", "--delta", "0.1"],
        "--delta applies to dp-rulelist",
    ),
    (
        ["fit", "--data", "{csv}", "--label", "recid", "--model", "privatree", "--max-depth", "25"],
        "--max-depth must be <= 20",
    ),
    (
        ["fit", "--data", "{csv}", "--label", "recid", "--model", "privatree", "--bounds", "age=9"],
        "LO and HI must be numbers",
    ),
    (
        ["fit", "--data", "{csv}", "--label", "recid", "--model", "privatree", "--bounds", "age=9:1"],
        "need finite LO <= HI",
    ),
    (
        ["fit", "--data", "{csv}", "--label", "recid", "--model", "privatree", "--bounds", "age=1:90"],
        "bounds are declared for some numerical columns but not",
    ),
    (
        ["fit", "--data", "{csv}", "--label", "recid", "--model", "privatree", "--categories", "zzz=a,b"],
        "--categories: 'zzz' is not a column of the data",
    ),
    (
        ["fit", "--data", "{csv}", "--label", "recid", "--model", "privatree", "--categories", "sex=a,a"],
        "duplicate values",
    ),
    (
        ["fit", "--data", "{csv}", "--label", "recid", "--model", "privatree", "--classes", "a", "b"],
        "y holds a label outside the declared classes",
    ),
    (
        ["fit", "--data", "{csv}", "--label", "recid", "--model", "optimal-rulelist", "--classes", "a", "b", "c"],
        "optimal-rulelist is binary (its bounds are two-class): exactly 2 labels",
    ),
    (
        ["fit", "--data", "{csv}", "--label", "recid", "--mechanism", "noisy-counts", "--classes", "a", "b", "c"],
        "mechanism 'noisy-counts' is for two classes only",
    ),
    (["fit", "--data", "{csv}", "--label", "recid", "--classes", "a"], "the label set needs at least 2 labels"),
    (
        ["fit", "--data", "{csv}", "--label", "recid", "--model", "privatree-regressor", "--classes", "a", "b"],
        "--classes applies to classifiers",
    ),
    (
        ["fit", "--data", "{csv}", "--label", "recid", "--model", "privatree", "--label-bounds", "0:1"],
        "--label-bounds applies to privatree-regressor",
    ),
    (
        ["fit", "--data", "{csv}", "--label", "age", "--model", "privatree-regressor", "--label-bounds", "1:0"],
        "need finite LO <= HI",
    ),
    (
        ["fit", "--data", "{csv}", "--label", "age", "--model", "privatree-regressor", "--holdout", "0.3"],
        "--holdout applies to classifiers",
    ),
    (
        ["fit", "--data", "{csv}", "--label", "recid", "--model", "privatree-regressor"],
        "the label column 'recid' holds an empty or non-numeric cell",
    ),
    (["fit", "--data", "{csv}", "--label", "recid", "--test-size", "1.5"], "must be a number in (0, 1)"),
    (["fit", "--data", "{csv}", "--label", "recid", "--test-size", "0.2", "--no-split"], "exclude each other"),
    (["fit", "--data", "{csv}", "--label", "recid", "--model", "privatree", "--out", "{dir}"], "is a directory"),
    (
        ["fit", "--data", "{csv}", "--label", "recid", "--model", "privatree", "--out", "{dir}/no/m.json"],
        "does not exist",
    ),
    (["fit", "--data", "compas", "--model", "dp-rulelist", "--max-width", "5"], "candidate rules (limit 500,000)"),
    (["fit", "--data", "compas", "--model", "dp-rulelist", "--mechanism", "sm-laplace"], "needs δ > 0"),
    (
        ["fit", "--data", "compas", "--model", "privatree", "--max-depth", "20", "--max-seconds", "1"],
        "above the limit of 1 s",
    ),
    (
        ["fit", "--data", "{csv}", "--label", "recid", "--model", "greedy-rulelist"],
        "y holds a label other than 0 and 1",
    ),
    (
        ["fit", "--data", "{csv}", "--label", "recid", "--model", "dp-rulelist", "--bounds", "age=18:100"],
        "declare bounds (or cut points) for every numerical column",
    ),
    (
        ["fit", "--data", "{csv}", "--label", "recid", "--model", "dp-rulelist", "--n-bins", "1"],
        "--n-bins must be in [2, 256]",
    ),
    (["fit", "--data", "{dir}", "--label", "y"], "is a directory, not a CSV file"),
    (["fit", "--data", "{bad_csv}", "--label", "y"], "cannot read"),
    (["predict", "{dir}/none.json", "{csv}"], "model file '{dir}/none.json' does not exist"),
    (["predict", "{csv}", "{csv}"], "is not valid JSON (line 1, column 1"),
    (["predict", "{model}", "{csv}", "--out", "{dir}"], "is a directory"),
    (["predict", "{model}", "{narrow_csv}"], "lacks 8 column(s) the model needs"),
    (["predict", "{model}", "{csv}", "--id", "nope"], "--id 'nope' is not a column"),
    (["show", "{dir}"], "is a directory, not a model file"),
    (["show", "{bad_model}"], "format version 7 is not readable"),
    (["frobnicate"], "invalid choice: 'frobnicate'"),
]


@pytest.fixture(scope="module")
def bad_runs(csv_path, tmp_path_factory, compas_raw, compas_schema):
    """Every bad-input case, after writing the files they refer to: a valid model, a model of a
    future format, a file that is not CSV, a CSV lacking columns. The cases of ``IN_A_SUBPROCESS``
    run the installed command, four at a time; the others call :func:`dpmodels.cli.main` in this
    process, which is what the command runs (``__main__``: ``sys.exit(main())``), with stdout and
    stderr captured: the same exit code and lines, without paying the interpreter's and pandas'
    start-up once per case (~1 CPU-s each)."""
    from concurrent.futures import ThreadPoolExecutor

    from dpmodels.io import save_model
    from dpmodels.tree import PrivaTreeClassifier

    d = tmp_path_factory.mktemp("bad")
    X, y = compas_raw
    model = d / "m.json"
    est = PrivaTreeClassifier(max_depth=1, **compas_schema.fit_params()).fit(X.iloc[:200], y.iloc[:200])
    doc = json.loads(save_model(est, model).read_text())
    (d / "bad_model.json").write_text(json.dumps({**doc, "format_version": 7}))
    (d / "bad.csv").write_bytes(b"\xff\xfe\x00a,b\n\x00\x01")
    pd.read_csv(csv_path)[["id", "age"]].to_csv(d / "narrow.csv", index=False)
    fill = {
        "{csv}": str(csv_path),
        "{dir}": str(d),
        "{model}": str(model),
        "{bad_model}": str(d / "bad_model.json"),
        "{bad_csv}": str(d / "bad.csv"),
        "{narrow_csv}": str(d / "narrow.csv"),
    }

    def sub(a):
        for k, v in fill.items():
            a = a.replace(k, v)
        return a

    cases = [[sub(a) for a in args] for args, _ in BAD_INPUTS]
    with ThreadPoolExecutor(4) as pool:
        runs = dict(
            zip(IN_A_SUBPROCESS, pool.map(lambda m: run(*cases[MESSAGES.index(m)]), IN_A_SUBPROCESS), strict=True)
        )
    for args, m in zip(cases, MESSAGES, strict=True):
        if m not in runs:
            runs[m] = _run_in_process(args)
    return [(runs[m], sub(m)) for m in MESSAGES]


MESSAGES = [m for _, m in BAD_INPUTS]
# the installed command on a representative few: a usage error, a data file and a column that are
# not there, a model file that is not there and one of a future format, an unknown command
IN_A_SUBPROCESS = [
    "the following arguments are required: --data",
    "data file 'nope.csv' does not exist",
    "--label 'zz' is not a column",
    "model file '{dir}/none.json' does not exist",
    "format version 7 is not readable",
    "invalid choice: 'frobnicate'",
]


def _run_in_process(args):
    """``dpmodels ARGS`` through :func:`dpmodels.cli.main`: its exit code, stdout and stderr."""
    import contextlib
    import io

    from dpmodels.cli import main

    args = [str(a) for a in args]
    out, err = io.StringIO(), io.StringIO()
    with pytest.MonkeyPatch.context() as mp, contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        mp.setenv("DPMODELS_PROGRESS", "0")
        try:
            code = main(args)
        except SystemExit as exc:  # argparse's usage errors exit
            code = exc.code
    return subprocess.CompletedProcess(args, code, out.getvalue(), err.getvalue())


@pytest.mark.parametrize("i", range(len(BAD_INPUTS)), ids=[m for _, m in BAD_INPUTS])
def test_bad_input_is_one_line_and_non_zero(i, bad_runs):
    r, message = bad_runs[i]
    assert r.returncode != 0
    err = r.stderr.strip().splitlines()
    errors = [ln for ln in err if ": error: " in ln]
    assert len(errors) == 1 and message in errors[0], r.stderr
    assert all(ln.startswith("dpmodels") for ln in err)  # one-line messages only
    assert "Traceback" not in r.stderr
    assert "Privacy ledger" not in r.stdout  # nothing was fitted, nothing released


def test_fit_checks_the_output_path_before_spending_anything(csv_path, tmp_path):
    """A bad --out used to fail with a traceback after the fit; now it is refused first."""
    r = run(
        "fit",
        "--data",
        csv_path,
        "--label",
        "recid",
        "--model",
        "privatree",
        *_declarations(),
        "--out",
        tmp_path / "missing" / "m.json",
    )
    assert r.returncode == 2 and r.stdout == ""
