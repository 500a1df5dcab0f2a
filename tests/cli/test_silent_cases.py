"""Mistakes that used to pass silently (issue 26): each is now refused in one line or reported.

* duplicated column names (pandas renames the second ``worst area.1``): refused by the command
  line's CSV read and by every library fit;
* ``dpmodels audit`` with the same records as members and non-members: refused; a partial overlap
  is counted in the verdict;
* Dist_G domains follow the *declared* kind: a continuous column with whole-number bounds gets a
  grid, not the integers, and the report says which features got which domain.
"""

import json
import warnings

import numpy as np
import pandas as pd
import pytest

from dpmodels.cli import main


def _run(args, cwd, capsys, monkeypatch):
    monkeypatch.chdir(cwd)
    capsys.readouterr()
    try:
        code = main([str(a) for a in args])
    except SystemExit as exc:
        code = exc.code
    out = capsys.readouterr()
    return code, out.out, out.err


# ------------------------------------------------------------------ duplicated columns
def test_cli_refuses_a_csv_that_names_a_column_twice(tmp_path, capsys, monkeypatch):
    (tmp_path / "d.csv").write_text("worst area,x,worst area,y\n1,2,3,0\n4,5,6,1\n7,8,9,0\n")
    code, out, err = _run(
        ["fit", "--data", "d.csv", "--label", "y", "--model", "privatree", "--epsilon", "1", "--classes", "0", "1",
         "--bounds", "*=0:10", "--out", "m.json"],
        tmp_path, capsys, monkeypatch,
    )  # fmt: skip
    assert code == 2 and err.count("\n") == 1, err
    assert "has the column 'worst area' twice" in err and "worst area.1" not in err
    assert not (tmp_path / "m.json").exists()


@pytest.mark.parametrize("which", ["dp-rulelist", "greedy", "privatree", "regressor", "binarizer", "bdpt"])
def test_library_fits_refuse_a_frame_with_a_repeated_name(which):
    from dpmodels.data import Binarizer
    from dpmodels.rulelist import DPRuleListClassifier, GreedyRuleListClassifier
    from dpmodels.tree import PrivaTreeClassifier, PrivaTreeRegressor
    from dpmodels.tree.baselines import BDPTClassifier

    est = {
        "dp-rulelist": lambda: DPRuleListClassifier(epsilon=1.0, random_state=0),
        "greedy": lambda: GreedyRuleListClassifier(),
        "privatree": lambda: PrivaTreeClassifier(epsilon=1.0, bounds=(0, 1), classes=[0, 1], random_state=0),
        "regressor": lambda: PrivaTreeRegressor(epsilon=1.0, bounds=(0, 1), label_bounds=(0, 1), random_state=0),
        "binarizer": lambda: Binarizer(epsilon=1.0, bounds=(0, 1)),
        "bdpt": lambda: BDPTClassifier(epsilon=1.0, bounds=(0, 1), classes=[0, 1], random_state=0),
    }[which]()
    X = pd.DataFrame(np.random.default_rng(0).integers(0, 2, (20, 3)), columns=["a", "b", "a"])
    with pytest.raises(ValueError, match=r"X has the column 'a' twice; give each column its own name") as e:
        est.fit(X, np.arange(20) % 2)
    assert "\n" not in str(e.value)
    assert not hasattr(est, "privacy_ledger_")


# ------------------------------------------------------------------ audit: members = non-members
@pytest.fixture(scope="module")
def tree_file(tmp_path_factory):
    from dpmodels.io import save_model
    from dpmodels.tree import PrivaTreeClassifier

    d = tmp_path_factory.mktemp("silent")
    rng = np.random.default_rng(0)
    n = 240
    df = pd.DataFrame(
        {"u": rng.uniform(0, 1, n), "k": rng.integers(0, 20, n), "s": rng.choice(["p", "q"], n), "id": np.arange(n)}
    )
    df["y"] = ((df["u"] > 0.5) ^ (rng.random(n) < 0.2)).astype(int)
    df.iloc[:80].to_csv(d / "train.csv", index=False)
    df.iloc[80:160].to_csv(d / "test.csv", index=False)
    df.iloc[160:].to_csv(d / "pop.csv", index=False)
    # u continuous in [0, 1] (bounds that look like integers), k declared integer-valued
    est = PrivaTreeClassifier(
        epsilon=1.0, max_depth=3, bounds={"u": (0.0, 1.0), "k": (0, 20)}, categories={"s": ["p", "q"]},
        classes=[0, 1], random_state=0,
    ).fit(df.iloc[:80][["u", "k", "s"]], df.iloc[:80]["y"])  # fmt: skip
    save_model(est, d / "m.json")
    doc = json.loads((d / "m.json").read_text())
    doc["schema"]["label"] = "y"
    (d / "m.json").write_text(json.dumps(doc))
    return d


@pytest.mark.parametrize("same", [("--test", "train.csv"), ("--population", "train.csv"), ("--population", "test.csv")])
def test_audit_refuses_the_same_file_as_members_and_non_members(tree_file, same, capsys, monkeypatch):
    files = {"--train": "train.csv", "--test": "test.csv", "--population": "pop.csv"}
    files[same[0]] = same[1]
    args = ["audit", "m.json", *[x for kv in files.items() for x in kv], "--permutations", "0", "--n-reference", "2"]
    code, out, err = _run(args, tree_file, capsys, monkeypatch)
    assert code == 2 and err.count("\n") == 1 and "name the same file" in err, err
    assert out == ""


def test_audit_refuses_a_copy_of_the_training_records(tree_file):
    """A copy under another name (or the rows shuffled): refused by the rows, not the path."""
    from dpmodels.audit import audit_model
    from dpmodels.io import load_model

    m = load_model(tree_file / "m.json")
    tr = pd.read_csv(tree_file / "train.csv")
    X, y = tr[["u", "k", "s"]], tr["y"].to_numpy()
    with pytest.raises(ValueError, match="every held-out record is also a training record") as e:
        audit_model(m, X, y, X.iloc[::-1], y[::-1], n_permutations=0, random_state=0)
    assert "\n" not in str(e.value)
    with pytest.raises(ValueError, match="every held-out record is also a training record"):
        audit_model(m, X, y, X.iloc[:30], y[:30], n_permutations=0, random_state=0)  # a subset


def test_a_partial_overlap_is_counted_in_the_verdict(tree_file):
    from dpmodels.audit import audit_model
    from dpmodels.io import load_model

    m = load_model(tree_file / "m.json")
    tr, te = pd.read_csv(tree_file / "train.csv"), pd.read_csv(tree_file / "test.csv")
    te = pd.concat([te.iloc[:70], tr.iloc[:10]])  # 10 of 80 held-out rows are training rows
    cols = ["u", "k", "s"]
    a = audit_model(m, tr[cols], tr["y"].to_numpy(), te[cols], te["y"].to_numpy(), n_permutations=0, random_state=0)
    assert a.to_dict()["data"]["identical_records"] == {"held-out in training": 10}
    assert "10 of the 80 held-out records equal a training record in every audited column" in a.verdict()
    clean = audit_model(
        m, tr[cols], tr["y"].to_numpy(), te[cols].iloc[:70], te["y"].to_numpy()[:70], n_permutations=0, random_state=0
    )
    assert "equal a training record" not in clean.verdict()


# ------------------------------------------------------------------ audit: declared kinds for Dist_G
def test_dist_g_domains_follow_the_declared_kind_not_the_look_of_the_bounds(tree_file):
    from dpmodels.audit import DEFAULT_GRID, default_domains
    from dpmodels.io import load_model

    m = load_model(tree_file / "m.json")
    dom, note = default_domains(m)
    assert dom["k"].tolist() == list(range(21))  # declared integer: (0, 20) as ints
    assert len(dom["u"]) >= DEFAULT_GRID and dom["u"].min() == 0.0 and dom["u"].max() == 1.0  # not {0, 1}
    assert "declared integer-valued, every integer within the declared bounds: k" in note
    assert f"continuous, {DEFAULT_GRID} evenly spaced values" in note and "the default grid" in note
    dom7, note7 = default_domains(m, grid=7)
    assert "the grid given" in note7 and 7 <= len(dom7["u"]) <= 7 + 8  # + one value per missed tree interval
    # every interval between the tree's thresholds on u holds a domain value: every leaf reachable
    t = m.model_
    j = t.feature_names.index("u")
    cuts = np.unique(np.asarray(t.threshold)[np.asarray(t.feature) == j])
    edges = np.concatenate([[0.0], cuts[(cuts > 0) & (cuts < 1)], [1.0]])
    cells = np.searchsorted(edges[1:-1], dom7["u"], side="left")
    assert set(cells.tolist()) == set(range(len(edges) - 1))


def test_the_audit_computes_dist_g_on_a_continuous_unit_interval(tree_file):
    """electricity's case: a continuous column in [0, 1] got the domain {0, 1} and "Dist_G not
    computed"; with the declared kind it is computed, and the verdict names the domains."""
    from dpmodels.audit import audit_model
    from dpmodels.io import load_model

    m = load_model(tree_file / "m.json")
    tr, te = pd.read_csv(tree_file / "train.csv"), pd.read_csv(tree_file / "test.csv")
    cols = ["u", "k", "s"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a = audit_model(m, tr[cols], tr["y"].to_numpy(), te[cols], te["y"].to_numpy(), n_permutations=0, random_state=0)
    assert a.reconstruction is not None and 0.0 < a.reconstruction.dist_g <= 1.0
    assert "continuous" in a.to_dict()["reconstruction"]["domains"]


# ------------------------------------------------------------------ schema check: the owner's pre-flight
SCHEMA = """\
label: y
classes: ['yes', 'no']
columns:
  site: {kind: categorical, categories: [Cafe, Hôpital]}
  age: {kind: numerical, bounds: [18, 100], integer: true}
  score: {kind: numerical, bounds: [0, 1]}
  member: {kind: binary}
"""


def test_schema_check_lists_every_cell_that_does_not_fit(tmp_path, capsys, monkeypatch):
    (tmp_path / "s.yaml").write_text(SCHEMA, encoding="utf-8")
    (tmp_path / "d.csv").write_text(
        "site,age,score,member,y\n"
        "Café,30,0.5,1,yes\n"
        "Hôpital,200,x,0,no\n"
        "Cafe,20.5,2,maybe,perhaps\n"
        "Café,40,0.1,true,yes\n",
        encoding="utf-8",
    )
    code, out, err = _run(["schema", "check", "d.csv", "--schema", "s.yaml"], tmp_path, capsys, monkeypatch)
    assert code == 1 and err == "", err
    assert "it is NOT a release" in out
    lines = out.splitlines()
    site = next(ln for ln in lines if ln.startswith("  site:"))
    assert "2 cell(s) outside the declared categories" in site and "'Café' (2 rows)" in site
    assert "'Café' looks like 'Cafe'" in site and "unknown category" in site
    age = [ln for ln in lines if ln.startswith("  age:")]
    assert any("1 above 100 (largest 200)" in ln for ln in age)
    assert any("non-integer cell(s) in a column declared integer: '20.5'" in ln for ln in age)
    score = [ln for ln in lines if ln.startswith("  score:")]
    assert any("not numbers: 'x'" in ln for ln in score) and any("1 above 1 (largest 2)" in ln for ln in score)
    assert any(ln.startswith("  member:") and "'maybe'" in ln for ln in lines)
    assert any(ln.startswith("  y:") and "'perhaps' (1 row)" in ln and "refuses" in ln for ln in lines)
    assert lines[-1] == "7 problem(s): fix the data or the schema before fitting"


def test_schema_check_passes_clean_data_and_names_duplicate_columns(tmp_path, capsys, monkeypatch):
    (tmp_path / "s.yaml").write_text(SCHEMA, encoding="utf-8")
    (tmp_path / "ok.csv").write_text("site,age,score,member,y,note\nCafe,30,0.5,1,yes,a\nHôpital,18,0,0,no,b\n")
    code, out, _ = _run(["schema", "check", "ok.csv", "--schema", "s.yaml"], tmp_path, capsys, monkeypatch)
    assert code == 0 and "every cell fits the schema's declarations" in out
    assert "not declared (a fit with this schema does not use them): note" in out
    (tmp_path / "dup.csv").write_text("site,age,score,member,y,age\nCafe,30,0.5,1,yes,3\n")
    code, out, _ = _run(["schema", "check", "dup.csv", "--schema", "s.yaml"], tmp_path, capsys, monkeypatch)
    assert code == 1 and "the header names column 'age' more than once" in out and "age.1" not in out
    code, out, err = _run(["schema", "check", "nope.csv", "--schema", "s.yaml"], tmp_path, capsys, monkeypatch)
    assert code == 2 and err.count("\n") == 1 and out == ""


# ------------------------------------------------------------------ progress of long audits
@pytest.mark.parametrize("flag", ["1", None])
def test_audit_progress_shows_only_when_asked_or_on_a_terminal(tree_file, flag, capsys, monkeypatch):
    """DPMODELS_PROGRESS=1: tqdm bars on stderr for the reference fits and the V permutations
    (counts of public steps only); unset and stderr not a terminal (tests, CI logs): nothing."""
    from dpmodels.audit import audit_model
    from dpmodels.io import load_model

    if flag is None:
        monkeypatch.delenv("DPMODELS_PROGRESS", raising=False)
    else:
        monkeypatch.setenv("DPMODELS_PROGRESS", flag)
    m = load_model(tree_file / "m.json")
    tr, te, pop = (pd.read_csv(tree_file / f) for f in ("train.csv", "test.csv", "pop.csv"))
    cols = ["u", "k", "s"]
    capsys.readouterr()
    audit_model(
        m, tr[cols], tr["y"].to_numpy(), te[cols], te["y"].to_numpy(), X_pop=pop[cols], y_pop=pop["y"].to_numpy(),
        n_permutations=5, n_reference=2, random_state=0,
    )  # fmt: skip
    err = capsys.readouterr().err
    if flag == "1":
        assert "audit: reference models" in err and "audit: V permutations" in err
    else:
        assert "audit:" not in err
