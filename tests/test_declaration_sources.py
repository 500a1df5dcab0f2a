"""Sources travel with values (docs/privacy.md, "Sources travel with values"; issue 23, finding 2).

A value read from the private records stays "from the data" when it is written into a schema file
or a model file and read back: reusing a file never turns it into a declaration. Each hop is a
deterministic neighbouring pair D, D' = D + one record: the refit through the file must say NOT
PRIVATE, with a leak row naming the value, on both sides.
"""

from __future__ import annotations

import copy
import json
import pickle

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone

from dpmodels.cli import main
from dpmodels.io import load_model, model_to_dict, save_model
from dpmodels.privacy import PrivacyLeakWarning
from dpmodels.tree import PrivaTreeClassifier


def fit(capsys, *args):
    code = main(["fit", *map(str, args)])
    out = capsys.readouterr()
    return code, out.out, out.err


def leaks_of(path) -> list[str]:
    doc = json.loads(path.read_text())
    return [r["what"] for r in (doc["privacy"]["ledger"] or {"rows": []})["rows"] if r["composition"] == "leak"]


def pair(tmp_path, extra: dict, *, n=60, label="y"):
    """D (binary columns a, b, a label) and D' = D + ``extra``, written as CSV files."""
    rng = np.random.default_rng(0)
    D = pd.DataFrame({"a": rng.integers(0, 2, n), "b": rng.integers(0, 2, n), label: rng.integers(0, 2, n)})
    D2 = pd.concat([D, pd.DataFrame([extra])], ignore_index=True)
    paths = []
    for name, df in (("D.csv", D), ("D2.csv", D2)):
        p = tmp_path / name
        df.to_csv(p, index=False)
        paths.append(p)
    return paths


@pytest.mark.filterwarnings("ignore::dpmodels.privacy.PrivacyLeakWarning")
def test_classes_read_by_a_cli_fit_stay_data_through_its_model_file(capsys, tmp_path):
    """Hop 1: `fit` without --classes reads the label set (NOT PRIVATE); refitting with its model
    file as the schema used to say PRIVATE while carrying a label seen only in D'."""
    verdicts = []
    for p in pair(tmp_path, {"a": 1, "b": 1, "y": 2}):
        m, m2 = tmp_path / f"m{len(verdicts)}.json", tmp_path / f"r{len(verdicts)}.json"
        code, _, err = fit(
            capsys, "--data", p, "--label", "y", "--model", "privatree", "--binary", "a", "--binary", "b", "--out", m
        )
        assert code == 0, err
        code, out, err = fit(capsys, "--data", p, "--schema", m, "--model", "privatree", "--out", m2)
        assert code == 0, err
        doc = json.loads(m2.read_text())
        assert "label set" in leaks_of(m2) and "NOT PRIVATE" in out
        verdicts.append(doc["privacy"]["is_private"])
        assert doc["schema"]["classes_source"] == "data"
    assert verdicts == [False, False]


@pytest.mark.filterwarnings("ignore::dpmodels.privacy.PrivacyLeakWarning")
def test_label_bounds_of_a_draft_stay_data_through_a_model_file(capsys, tmp_path):
    """Hop 2: a draft's label_bounds (the exact min and max of y) kept in a regressor's model file."""
    rng = np.random.default_rng(1)
    for k, p in enumerate(pair(tmp_path, {"a": 0, "b": 1, "t": 1e6}, label="t")):
        df = pd.read_csv(p)
        df["t"] = df["t"].where(df.index < 60, 1e6) + np.where(df.index < 60, rng.normal(0, 1, len(df)), 0)
        df.to_csv(p, index=False)
        draft, m, m2 = tmp_path / f"d{k}.yaml", tmp_path / f"m{k}.json", tmp_path / f"r{k}.json"
        assert main(["schema", "draft", str(p), "--label", "t", "--regression", "--out", str(draft)]) == 0
        code, _, err = fit(capsys, "--data", p, "--schema", draft, "--model", "privatree-regressor", "--out", m)
        assert code == 0, err
        code, out, err = fit(capsys, "--data", p, "--schema", m, "--model", "privatree-regressor", "--out", m2)
        assert code == 0, err
        assert "label bounds" in leaks_of(m2)
        assert json.loads(m2.read_text())["privacy"]["is_private"] is False
        assert json.loads(m.read_text())["schema"]["label_bounds_source"] == "data"


def test_categories_read_by_a_library_fit_stay_data_through_save_model(capsys, tmp_path):
    """Hop 3: a library fit reads the categories of an undeclared text column; save_model used to
    write them as plain declarations (`job: [a, b, secret-job]`) that `--schema` reused as public."""
    rng = np.random.default_rng(2)
    n = 60
    D = pd.DataFrame({"job": rng.choice(["a", "b"], n), "x": rng.integers(0, 2, n), "y": rng.integers(0, 2, n)})
    D2 = pd.concat([D, pd.DataFrame([{"job": "secret-job", "x": 1, "y": 1}])], ignore_index=True)
    for k, df in enumerate((D, D2)):
        est = PrivaTreeClassifier(epsilon=1.0, classes=[0, 1], bounds={"x": (0, 1)}, max_depth=2)
        with pytest.warns(PrivacyLeakWarning, match="categories of feature 'job'"):
            est.fit(df[["job", "x"]], df["y"])
        m = save_model(est, tmp_path / f"lib{k}.json")
        p = tmp_path / f"D{k}.csv"
        df.to_csv(p, index=False)
        m2 = tmp_path / f"r{k}.json"
        code, out, err = fit(capsys, "--data", p, "--label", "y", "--schema", m, "--model", "privatree", "--out", m2)
        assert code == 0, err
        assert any("column 'job'" in w for w in leaks_of(m2)), leaks_of(m2)
        assert json.loads(m2.read_text())["privacy"]["is_private"] is False
        sch = json.loads(m.read_text())["schema"]
        assert sch["column_sources"] == {"job": "data", "x": "user"} and sch["classes_source"] == "user"
    assert "secret-job" in json.loads(m2.read_text())["schema"]["columns"]["job"]["categories"]


@pytest.mark.filterwarnings("ignore::dpmodels.privacy.PrivacyLeakWarning")
def test_an_old_model_file_without_sources_is_read_conservatively(capsys, tmp_path):
    """A file written before sources were recorded: a value a leak row names is data; a file
    without a ledger (a non-private learner) declares nothing."""
    rng = np.random.default_rng(3)
    df = pd.DataFrame({"a": rng.integers(0, 2, 40), "y": rng.integers(0, 2, 40)})
    p = tmp_path / "d.csv"
    df.to_csv(p, index=False)
    m = tmp_path / "m.json"
    assert fit(capsys, "--data", p, "--label", "y", "--binary", "a", "--model", "privatree", "--out", m)[0] == 0
    doc = json.loads(m.read_text())
    for k in [k for k in doc["schema"] if k.endswith("_source") or k == "column_sources"]:
        del doc["schema"][k]
    for spec in doc["schema"]["columns"].values():
        spec.pop("source", None)
    old = tmp_path / "old.json"
    old.write_text(json.dumps(doc))
    from dpmodels.cli.schema import read_schema_file

    dec = read_schema_file(old)
    assert dec.classes_source == "data" and dec.columns["a"].source == "user"
    doc["privacy"]["ledger"] = None
    old.write_text(json.dumps(doc))
    dec = read_schema_file(old)
    assert dec.classes_source == "data" and dec.columns["a"].source == "data"


def test_declared_values_keep_their_source_through_clone_copy_and_pickle():
    from dpmodels.validation import declared, source_of

    est = PrivaTreeClassifier(classes=declared([0, 1], "data"), categories={"c": declared(["u", "v"], "dp", "r1")})
    for e in (clone(est), copy.deepcopy(est), pickle.loads(pickle.dumps(est))):
        assert source_of(e.classes) == "data" and source_of(e.categories["c"]) == "dp"
        assert e.categories["c"].release == "r1" and list(e.classes) == [0, 1]


@pytest.mark.parametrize("source", ["data", "dp"])
def test_a_library_fit_records_a_leak_for_each_data_sourced_declaration(source):
    """The estimator knows which declared values came from the data: validation records each (a
    dp value without its draft's ledger merged is a leak too)."""
    from dpmodels.validation import declared, leaked_declarations

    X = pd.DataFrame({"c": ["u", "v"] * 10, "x": np.arange(20) % 3})
    y = np.arange(20) % 2
    est = PrivaTreeClassifier(
        epsilon=1.0,
        classes=declared([0, 1], source, "r1"),
        categories={"c": ["u", "v"]},
        bounds={"x": declared((0, 2), source, "r1")},
        max_depth=1,
    )
    with pytest.warns(PrivacyLeakWarning):
        est.fit(X, y)
    led = est.privacy_ledger_
    found = leaked_declarations(led.rows)
    assert found["classes"] and "x" in found["columns"] and "c" not in found["columns"]
    assert not led.is_private
    sch = model_to_dict(est)["schema"]
    assert sch["classes_source"] == "data" and sch["column_sources"]["x"] == "data"


def test_declared_user_values_stay_private_and_round_trip(tmp_path):
    X = pd.DataFrame({"c": ["u", "v"] * 10, "x": np.arange(20) % 3})
    est = PrivaTreeClassifier(
        epsilon=1.0, classes=[0, 1], categories={"c": ["u", "v"]}, bounds={"x": (0, 2)}, max_depth=1
    )
    est.fit(X, np.arange(20) % 2)
    assert est.privacy_ledger_.is_private
    m = save_model(est, tmp_path / "m.json")
    sch = load_model(m).schema
    assert sch["classes_source"] == "user" and sch["column_sources"] == {"c": "user", "x": "user"}
