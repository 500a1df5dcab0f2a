"""The command line keeps the promise on a user's CSV: held-out rows by a per-record rule, columns
by their declarations, schema files (docs/privacy.md, "The command line").

Deterministic neighbouring pairs D, D' = D + one adversarial row must give outputs that differ
only by noise: the same columns, the same ledger rows, the same saved structure — or the same
one-line schema error on both sides before anything is spent.
"""

from __future__ import annotations

import json
import re

import numpy as np
import pandas as pd
import pytest

from dpmodels.cli import main
from dpmodels.cli.fit import holdout_mask
from dpmodels.cli.schema import match_declared


def fit(capsys, *args):
    code = main(["fit", *map(str, args)])
    out = capsys.readouterr()
    return code, out.out, out.err


def structure(path):
    """What a saved model shows besides noise: its columns, steps, ledger rows and schema."""
    doc = json.loads(path.read_text())
    # a row's text may count released (noisy) structure (nodes of a level, rules chosen before a
    # noisy stop, which then moves the rest of ε to the leaves): digits and per-row ε are noise
    led = (doc["privacy"]["ledger"] or {"rows": []})["rows"]
    rows = sorted(
        {(re.sub(r"\d+(–\d+)?", "#", r["what"]), r["mechanism"], r["composition"], r["guarantee"]) for r in led}
    )
    rows.append(round(sum(r["epsilon"] for r in led if r["composition"] != "leak"), 9))
    pre = [
        (p.get("class"), sorted((p.get("state") or p).get("feature_names_in", []) or []))
        for p in doc["schema"]["preprocessing"]
    ]
    return {
        "input": doc["schema"]["input_features"],
        "pre": pre,
        "rows": rows,
        "columns": doc["schema"].get("columns"),
        "classes": doc["schema"]["classes"],
        "is_private": doc["privacy"]["is_private"],
        "estimator": doc["estimator"]["name"],
    }


def write(tmp_path, name, df):
    p = tmp_path / name
    df.to_csv(p, index=False)
    return p


@pytest.fixture
def binary_frame():
    rng = np.random.default_rng(0)
    n = 300
    a = rng.integers(0, 2, n)
    b = rng.integers(0, 2, n)
    y = (a | b).astype(int)
    return pd.DataFrame({"a": a, "b": b, "y": y})


# ---------------------------------------------------------------------------- held-out rows
def test_training_rows_of_D_plus_x_are_those_of_D_plus_at_most_x():
    """For every n up to 256 and for n around each power of two up to 3,000: adding one row (at the
    end or at the front) leaves every other row on its side of the split; duplicates go the same way.

    The rule hashes each row alone, so no n is special; the sizes past 256 are where a chunked or
    position-based rule would first show (every n up to 3,000 took 6,000 hashes for the same check).
    """
    rng = np.random.default_rng(1)
    big = pd.DataFrame({"a": rng.integers(0, 3, 3001).astype(str), "b": rng.normal(size=3001).round(2)})
    full = holdout_mask(big, 0.3, key=0)
    around_powers = {k + d for k in (2**p for p in range(9, 12)) for d in (-1, 0, 1)}
    for n in [*range(1, 257), *sorted(around_powers), 2999, 3000]:
        d = big.iloc[:n]
        m = holdout_mask(d, 0.3, key=0)
        assert np.array_equal(m, full[:n])  # appended row: the first n keep their side
        front = pd.concat([big.iloc[[n]], d])
        mf = holdout_mask(front, 0.3, key=0)
        assert np.array_equal(mf[1:], m)  # inserted anywhere: the same
    dup = pd.concat([big.iloc[:5], big.iloc[:5]])
    md = holdout_mask(dup, 0.3, key=0)
    assert np.array_equal(md[:5], md[5:])
    share = holdout_mask(big, 0.3, key=7).mean()
    assert 0.25 < share < 0.35  # the keyed hash holds out about the asked share
    assert not np.array_equal(holdout_mask(big, 0.3, key=7), full)  # the key matters


def test_default_fits_every_row_and_holdout_prints_a_dp_accuracy_without_a_row_count(capsys, tmp_path, binary_frame):
    p = write(tmp_path, "d.csv", binary_frame)
    code, out, err = fit(capsys, "--data", p, "--label", "y", "--binary", "a", "b", "--epsilon", "1")
    assert code == 0, err
    assert "held-out" not in out
    code, out, err = fit(capsys, "--data", p, "--label", "y", "--binary", "a", "b", "--holdout", "0.3")
    assert code == 0, err
    line = next(ln for ln in out.splitlines() if ln.startswith("held-out accuracy"))
    assert "DP, ε = 1 on the held-out rows" in line and " rows)" not in line.split(":")[-1]
    assert "row" not in line.split(":")[-1]  # the value only, never a count of private rows
    code, out, err = fit(capsys, "--data", p, "--label", "y", "--binary", "a", "b", "--eval-epsilon", "1")
    assert code == 2 and "--eval-epsilon applies to a held-out evaluation" in err


def test_a_one_row_file_fits(capsys, tmp_path):
    p = write(tmp_path, "one.csv", pd.DataFrame({"a": [1], "b": [0], "y": [1]}))
    code, out, err = fit(capsys, "--data", p, "--label", "y", "--binary", "a", "b")
    assert code == 0, err
    assert "proven DP" in out


# ---------------------------------------------------------------------------- declarations
def _with_x(df):
    return df.assign(x=np.linspace(0, 10, len(df)).round(3).astype(str))


def _with_flag(df):
    return df.assign(flag=np.where(df.a == 1, "True", "False"))


_STRAY = ["--binary", "a", "b", "--bounds", "x=0:10", "--model", "privatree", "--classes", "0", "1"]

# D (binary_frame through `extend`), the row added to make D', the options, and whether a
# Binarizer comes first: D and D' must give the same structure (columns, steps, ledger rows)
NEIGHBOURS = [
    pytest.param(
        lambda d: d, {"a": 2, "b": 0, "y": 1}, ["--bounds", "a=0:5", "b=0:1"], True, id="a value outside the bounds"
    ),
    pytest.param(
        _with_flag,
        {"a": 0, "b": 1, "y": 1, "flag": ""},
        ["--categories", "flag=True,False", "--binary", "a", "b"],
        True,
        id="a missing value in a declared true/false column",
    ),
    *(
        pytest.param(_with_x, {"a": 0, "b": 0, "y": 0, "x": stray}, _STRAY, False, id=f"a huge number {stray}")
        for stray in (str(10**30), "1e400", "-" + str(2**70))
    ),
]


@pytest.mark.parametrize("extend, row, options, binarized", NEIGHBOURS)
def test_one_added_row_changes_nothing_but_noise(capsys, tmp_path, binary_frame, extend, row, options, binarized):
    """A column with bounds is numerical and goes through the Binarizer whatever its values (huge
    values are clipped); a value outside a declared category list is unknown: one adversarial row
    changes nothing but noise."""
    d = extend(binary_frame)
    d2 = pd.concat([d, pd.DataFrame({k: [v] for k, v in row.items()})], ignore_index=True)
    out = {}
    for name, df in (("D", d), ("D2", d2)):
        p = write(tmp_path, f"{name}.csv", df)
        m = tmp_path / f"{name}.json"
        code, _, err = fit(capsys, "--data", p, "--label", "y", *options, "--out", m)
        assert code == 0, err
        out[name] = structure(m)
    assert out["D"] == out["D2"]
    assert bool(out["D"]["pre"]) is binarized and out["D"]["is_private"] is True


@pytest.mark.parametrize("stray", ["", "abc"], ids=["empty", "text"])
def test_a_stray_cell_in_a_numerical_column_is_one_error_before_anything_is_spent(
    capsys, tmp_path, binary_frame, stray
):
    """An empty or non-numeric cell in a column with bounds is a schema error naming the column, not
    the cell, before anything is spent."""
    d2 = pd.concat(
        [_with_x(binary_frame), pd.DataFrame({"a": [0], "b": [0], "y": [0], "x": [stray]})], ignore_index=True
    )
    p, m = write(tmp_path, "D2.csv", d2), tmp_path / "D2.json"
    code, _, err = fit(capsys, "--data", p, "--label", "y", *_STRAY, "--out", m)
    assert code == 2 and err.count("\n") == 1
    assert "column 'x' is declared numerical" in err and (not stray or stray not in err)
    assert not m.exists()


@pytest.mark.parametrize("model", ["privatree", "dp-rulelist"])
def test_declared_values_compare_as_values(capsys, tmp_path, binary_frame, model):
    """`--categories x2=0,1` on cells written 0.0/1.0 and `--classes 0 1` on labels 0.0/1.0 give the
    model fitted on 0/1 text (same noise seed), for a tree and a rule list alike."""
    ints = binary_frame.rename(columns={"a": "x2"})
    texts = []
    for name, df in (("ints", ints), ("floats", ints.astype(float))):
        p = write(tmp_path, f"{name}.csv", df)
        m = tmp_path / f"{name}.json"
        code, out, err = fit(
            capsys, "--data", p, "--label", "y", "--model", model, "--classes", "0", "1",
            "--categories", "x2=0,1", "b=0,1", "--random-state", "3", "--out", m,
        )  # fmt: skip
        assert code == 0, err
        texts.append(out.split("\n\n")[0])
        assert structure(m)["classes"] == ["0", "1"]
    assert texts[0] == texts[1]


def test_cells_match_declared_values_as_values():
    probe = pd.Series(["0", "0.0", "1", "1.00", " 1", "2", "x", ""])
    got = match_declared(probe, ["0", "1"], "test").tolist()
    assert got == ["0", "0", "1", "1", "1", "2", "x", ""]


def test_declared_values_that_are_the_same_number_are_refused(capsys, tmp_path, binary_frame):
    p = write(tmp_path, "d.csv", binary_frame)
    code, _, err = fit(capsys, "--data", p, "--label", "y", "--categories", "a=1,1.0", "--binary", "b")
    assert code == 2 and "are the same number" in err


@pytest.mark.parametrize(
    "declaration", [["--bounds", "zz=0:1"], ["--binary", "zz"], ["--cut-points", "zz=1"], ["--categories", "zz=a"]]
)
def test_every_declared_column_must_exist(capsys, tmp_path, binary_frame, declaration):
    p = write(tmp_path, "d.csv", binary_frame)
    code, _, err = fit(capsys, "--data", p, "--label", "y", *declaration)
    assert code == 2 and f"{declaration[0]}: 'zz' is not a column of the data" in err


def test_undeclared_column_kinds_are_leaks(capsys, tmp_path, binary_frame):
    p = write(tmp_path, "d.csv", binary_frame)
    m = tmp_path / "m.json"
    code, out, err = fit(capsys, "--data", p, "--label", "y", "--out", m)
    assert code == 0
    assert "privacy leak: kind of column 'a' (numerical)" in err
    doc = json.loads(m.read_text())
    assert doc["privacy"]["is_private"] is False
    assert any(r["what"].startswith("kind of column 'b'") for r in doc["privacy"]["ledger"]["rows"])


# ---------------------------------------------------------------------------- schema files
def test_schema_draft_then_reviewed_schema(capsys, tmp_path, binary_frame):
    df = binary_frame.assign(
        age=np.arange(len(binary_frame)) % 60 + 18,
        colour=np.where(binary_frame.b == 1, "red", "blue"),
        person=[f"p{i}" for i in range(len(binary_frame))],
    )
    p = write(tmp_path, "d.csv", df)
    draft = tmp_path / "draft.yaml"
    assert main(["schema", "draft", str(p), "--label", "y", "--out", str(draft)]) == 0
    text = draft.read_text()
    assert "source: data" in text and "person: {kind: drop, source: data}" in text
    assert "a: {kind: binary, source: data}" in text
    assert "age: {kind: numerical, bounds: [18, 77], integer: true, source: data}" in text
    m = tmp_path / "m.json"
    code, out, err = fit(capsys, "--data", p, "--schema", draft, "--model", "privatree", "--out", m)
    assert code == 0, err
    doc = json.loads(m.read_text())
    leaks = [r["what"] for r in doc["privacy"]["ledger"]["rows"] if r["composition"] == "leak"]
    assert "label set" in leaks and any("column 'age'" in w for w in leaks) and not doc["privacy"]["is_private"]
    # the user reviews the draft: public values, no `source: data` left
    reviewed = tmp_path / "schema.yaml"
    reviewed.write_text(
        "\n".join(ln.replace(", source: data", "") for ln in text.splitlines() if not ln.startswith("classes_source"))
        + "\n"
    )
    code, out, err = fit(capsys, "--data", p, "--schema", reviewed, "--model", "privatree", "--out", m)
    assert code == 0 and err == "", err
    assert json.loads(m.read_text())["privacy"]["is_private"] is True
    # a saved model's schema is reused as is
    m2 = tmp_path / "m2.json"
    code, out, err = fit(capsys, "--data", p, "--schema", m, "--model", "privatree", "--out", m2)
    assert code == 0 and err == "", err
    assert structure(m2) == structure(m)
    # `show` prints the schema in the format --schema reads
    assert main(["show", str(m)]) == 0
    shown = capsys.readouterr().out
    assert "colour: {kind: categorical, categories: [blue, red]}" in shown


def test_schema_draft_regression_label(capsys, tmp_path, binary_frame):
    rng = np.random.default_rng(0)
    df = binary_frame.assign(target=np.round(rng.normal(50, 10, len(binary_frame)), 2)).drop(columns="y")
    p = write(tmp_path, "r.csv", df)
    # explicit: the label's range becomes label_bounds (a leak while `label_bounds_source: data` stays)
    assert main(["schema", "draft", str(p), "--label", "target", "--regression"]) == 0
    text = capsys.readouterr().out
    lo, hi = df.target.min(), df.target.max()
    assert f"label_bounds: [{float(lo)}, {float(hi)}]" in text and "classes" not in text
    draft = tmp_path / "draft.yaml"
    draft.write_text(text)
    m = tmp_path / "m.json"
    code, out, err = fit(capsys, "--data", p, "--schema", draft, "--model", "privatree-regressor", "--out", m)
    assert code == 0, err
    leaks = [r["what"] for r in json.loads(m.read_text())["privacy"]["ledger"]["rows"] if r["composition"] == "leak"]
    assert "label bounds" in leaks
    # by default a numeric label with more values than --max-categories is drafted as a range too,
    # and a label with few values stays a class list
    assert main(["schema", "draft", str(p), "--label", "target", "--max-categories", "5"]) == 0
    assert "label_bounds:" in capsys.readouterr().out
    assert main(["schema", "draft", str(p), "--label", "a"]) == 0
    assert "classes: ['0', '1']" in capsys.readouterr().out
    # a text label cannot be a regression label; --regression needs --label
    assert main(["schema", "draft", str(p), "--label", "a", "--regression"]) == 0
    bad = write(tmp_path, "t.csv", df.assign(target=["x"] * len(df)))
    assert main(["schema", "draft", str(bad), "--label", "target", "--regression"]) == 2
    assert "is not a number: 'x'" in capsys.readouterr().err
    assert main(["schema", "draft", str(p), "--regression"]) == 2
    assert "--regression needs --label" in capsys.readouterr().err


@pytest.mark.parametrize(
    "text, message",
    [
        ("columns: {zz: {kind: binary}}\nlabel: y\n", "'zz' is not a column of the data"),
        ("columns: {a: {kind: numeric}}\nlabel: y\n", "kind must be one of"),
        ("columns: {a: {kind: categorical}}\nlabel: y\n", "needs its categories"),
        ("columns: {a: {kind: numerical, bounds: [3, 1]}}\nlabel: y\n", "LO <= HI"),
        ("colums: {}\n", "unknown key 'colums'"),
        ("label: [unclosed\n", "neither JSON nor YAML"),
    ],
    ids=["unknown column", "unknown kind", "no categories", "LO > HI", "unknown key", "not YAML"],
)
def test_schema_errors_are_one_line(capsys, tmp_path, binary_frame, text, message):
    p = write(tmp_path, "d.csv", binary_frame)
    s = tmp_path / "s.yaml"
    s.write_text(text)
    code, _, err = fit(capsys, "--data", p, "--schema", s)
    assert code == 2 and message in err and err.count("\n") == 1, err


def test_wildcard_bounds_declare_every_other_column(capsys, tmp_path, binary_frame):
    df = binary_frame.assign(u=np.linspace(0, 1, len(binary_frame)), v=np.linspace(1, 0, len(binary_frame)))
    p = write(tmp_path, "d.csv", df)
    m = tmp_path / "m.json"
    code, out, err = fit(
        capsys,
        "--data",
        p,
        "--label",
        "y",
        "--binary",
        "a",
        "b",
        "--bounds",
        "*=0:1",
        "--model",
        "privatree",
        "--classes",
        "0",
        "1",
        "--out",
        m,
    )
    assert code == 0 and err == "", err
    cols = json.loads(m.read_text())["schema"]["columns"]
    # model files write every source, "user" included (docs/privacy.md, "Sources travel with values")
    assert cols["u"] == {"kind": "numerical", "bounds": [0, 1], "source": "user"}
    assert cols["a"] == {"kind": "binary", "source": "user"}


def test_an_identifier_column_is_named_when_a_guard_trips(capsys, tmp_path, binary_frame):
    df = binary_frame.assign(person=[f"p{i}" for i in range(len(binary_frame))])
    p = write(tmp_path, "d.csv", df)
    code, _, err = fit(
        capsys,
        "--data",
        p,
        "--label",
        "y",
        "--binary",
        "a",
        "b",
        "--model",
        "greedy-rulelist",
        "--max-candidates",
        "1000",
    )
    assert code == 2 and "--drop person" in err


# ---------------------------------------------------------------------------- end-to-end audit
def _old_permutation_split(rows, share, key):
    """The planted leak: the split the command line used before, a permutation of row positions
    under a public seed (appending one row reshuffles which rows train)."""
    from sklearn.model_selection import train_test_split

    mask = np.zeros(len(rows), dtype=bool)
    _, test = train_test_split(np.arange(len(rows)), test_size=share, random_state=key)
    mask[test] = True
    return mask


def _pair_against_the_permutation_split(n=687):
    """D (n rows) and D' = D + (0, 0, 0): rows that train only for D are (a=1, b=0, y=1), rows that
    train only for D' are (a=0, b=1, y=1), all others (0, 0, 0)."""
    tr = ~_old_permutation_split(np.zeros(n), 0.3, 0)
    tr2 = ~_old_permutation_split(np.zeros(n + 1), 0.3, 0)[:n]
    a = (tr & ~tr2).astype(int)
    b = (tr2 & ~tr).astype(int)
    d = pd.DataFrame({"a": a, "b": b, "y": a | b})
    return d, pd.concat([d, pd.DataFrame({"a": [0], "b": [0], "y": [0]})], ignore_index=True)


def _first_rule_uses_a(path, runs, monkeypatch, split):
    import contextlib
    import io

    import dpmodels.cli.fit as cli_fit

    monkeypatch.setattr(cli_fit, "holdout_mask", split)
    out = path.with_suffix(".json")
    hits = 0
    for _ in range(runs):
        with contextlib.redirect_stdout(io.StringIO()):
            assert (
                main(
                    [
                        "fit",
                        "--data",
                        str(path),
                        "--label",
                        "y",
                        "--binary",
                        "a",
                        "b",
                        "--epsilon",
                        "1",
                        "--holdout",
                        "0.3",
                        "--quiet",
                        "--out",
                        str(out),
                    ]
                )
                == 0
            )
        rules = json.loads(out.read_text())["model"]["rules"]
        hits += bool(rules) and any(lit["feature"] == "a" for lit in rules[0]["antecedent"])
    return hits


@pytest.mark.slow
def test_end_to_end_audit_of_dpmodels_fit_with_a_planted_permutation_split(tmp_path, monkeypatch):
    """1,000 runs per side of the real entry point (`main`) on the pair built against the old split:
    the per-row split passes at its stated ε = 1; the old permutation split (the planted leak) is
    flagged (measured before the fix: 718/1000 vs 0/1000, ε_lb 5.05)."""
    from dpmodels.audit.dp_audit import epsilon_lower_bound

    d, d2 = _pair_against_the_permutation_split()
    p, p2 = write(tmp_path, "D.csv", d), write(tmp_path, "D2.csv", d2)
    runs = 1000
    k = _first_rule_uses_a(p, runs, monkeypatch, holdout_mask)
    k2 = _first_rule_uses_a(p2, runs, monkeypatch, holdout_mask)
    assert epsilon_lower_bound(k, runs, k2, runs) <= 1.0, (k, k2)
    k = _first_rule_uses_a(p, runs, monkeypatch, _old_permutation_split)
    k2 = _first_rule_uses_a(p2, runs, monkeypatch, _old_permutation_split)
    assert epsilon_lower_bound(k, runs, k2, runs) > 1.0, (k, k2)


def test_integer_columns_print_integer_thresholds_and_show_draws_the_model(capsys, tmp_path, binary_frame):
    df = binary_frame.assign(count=(np.arange(len(binary_frame)) * 7) % 23)
    p = write(tmp_path, "d.csv", df)
    m = tmp_path / "m.json"
    code, out, err = fit(
        capsys,
        "--data",
        p,
        "--label",
        "y",
        "--binary",
        "a",
        "b",
        "--bounds",
        "count=0:22.5",
        "--integer",
        "count",
        "--model",
        "privatree",
        "--classes",
        "0",
        "1",
        "--out",
        m,
    )
    assert code == 0, err
    cols = json.loads(m.read_text())["schema"]["columns"]
    assert cols["count"] == {"kind": "numerical", "bounds": [0, 22], "integer": True, "source": "user"}
    assert not re.search(r"count [<>]=? ?\d+\.\d", out)  # thresholds of an integer column print as integers
    code, _, err = fit(capsys, "--data", p, "--label", "y", "--integer", "a", "--binary", "a")
    assert code == 2 and "--integer" in err
    fig = tmp_path / "m.png"
    assert main(["show", str(m), "--plot", str(fig)]) == 0
    assert fig.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert main(["show", str(m), "--plot", str(tmp_path / "m.jpg")]) == 2
    assert "--plot" in capsys.readouterr().err


@pytest.mark.parametrize("model", ["greedy-rulelist", "privatree"])
def test_show_prints_as_fitted_and_compact_on_request(capsys, tmp_path, binary_frame, model):
    """`show` prints the model as fitted; `--compact` merges what predicts alike (post-processing)."""
    from dpmodels.io import load_model

    p = write(tmp_path, "d.csv", binary_frame)
    m = tmp_path / f"{model}.json"
    code, _, err = fit(
        capsys, "--data", p, "--label", "y", "--classes", "0", "1", "--binary", "a", "b", "--model", model, "--out", m
    )
    assert code == 0, err
    loaded = load_model(m)
    view = {"merge": False} if loaded.kind == "rule_list" else {"prune": False}
    compact = {k: True for k in view}
    assert main(["show", str(m)]) == 0
    out = capsys.readouterr().out
    assert out.startswith(loaded.to_text(**view))
    assert main(["show", str(m), "--raw"]) == 0 and capsys.readouterr().out == out
    assert main(["show", str(m), "--compact"]) == 0
    assert capsys.readouterr().out.startswith(loaded.to_text(**compact))
    assert main(["show", str(m), "--compact", "--raw"]) == 2
    assert "two different views" in capsys.readouterr().err
