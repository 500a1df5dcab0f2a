"""Model files are untrusted input: a loader imports nothing a file names, caps every size before
allocating, and raises one ModelFileError for anything else (docs/privacy.md, "Model files")."""

import json
import subprocess
import sys
import textwrap
import tracemalloc
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from dpmodels import io as dio
from dpmodels.io import LoadedModel, ModelFileError, limits, load_model, model_from_dict

SRC = str(Path(dio.__file__).resolve().parents[2])
dio.estimator_classes(), dio.preprocessor_classes()  # imported now: tracemalloc measures loading only
PRIVATREE = "dpmodels.tree.privatree.estimator.PrivaTreeClassifier"


def _envelope(model: dict, *, kind="tree", cls=PRIVATREE, preprocessing=(), features=("c",)) -> dict:
    return {
        "format": "dpmodels.model",
        "format_version": 1,
        "kind": kind,
        "estimator": {"class": cls, "name": cls.rpartition(".")[2], "params": {}},
        "privacy": {"private_learner": None, "ledger": None, "is_private": False, "verdict": []},
        "schema": {"classes": [0, 1], "input_features": list(features), "preprocessing": list(preprocessing)},
        "model": model,
        "extra": {},
    }


def _tree_doc(children_left, children_right, codes, n_categories) -> dict:
    """A tree on one categorical feature ``c`` with ``n_categories`` public values; internal node
    i sends the codes ``codes[i]`` left."""
    n = len(children_left)
    internal = [a != -1 for a in children_left]
    return {
        "format": "dpmodels.tree/1",
        "children_left": children_left,
        "children_right": children_right,
        "feature": [0 if x else -2 for x in internal],
        "threshold": [None] * n,
        "left_categories": [list(codes[i]) if internal[i] else None for i in range(n)],
        "value": [[1.0, 0.0] if i % 2 else [0.0, 1.0] for i in range(n)],
        "label": [i % 2 for i in range(n)],
        "classes": [0, 1],
        "feature_names": ["c"],
        "categorical": [True],
        "categories": {"0": [f"v{k}" for k in range(n_categories)]},
        "counts_are_noisy": True,
        "count_noise_scale": 1.0,
    }


def _chain(n_internal: int, n_categories: int) -> dict:
    """The crafted file of the review: a chain (internal node k at 2k, its left leaf at 2k + 1,
    the next internal node at 2k + 2), one listed category per node."""
    n = 2 * n_internal + 1
    cl, cr = [-1] * n, [-1] * n
    for k in range(n_internal):
        cl[2 * k], cr[2 * k] = 2 * k + 1, 2 * k + 2
    return _tree_doc(cl, cr, {2 * k: [k % n_categories] for k in range(n_internal)}, n_categories)


def _complete(depth: int, n_categories: int) -> dict:
    """A complete tree of the given depth (2^(depth+1) - 1 nodes, heap layout), internal node i
    sending code i left."""
    n = 2 ** (depth + 1) - 1
    cl = [2 * i + 1 if 2 * i + 1 < n else -1 for i in range(n)]
    cr = [2 * i + 2 if 2 * i + 2 < n else -1 for i in range(n)]
    return _tree_doc(cl, cr, {i: [i % n_categories] for i in range(n)}, n_categories)


def _peak(fn):
    """(result or exception, peak bytes allocated by fn) under tracemalloc."""
    tracemalloc.start()
    tracemalloc.reset_peak()
    try:
        out = fn()
    except Exception as exc:  # noqa: BLE001 - returned for the caller to check
        out = exc
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return out, peak


# ---------------------------------------------------------------------------- imports
_LOAD_THEN_MARK = textwrap.dedent("""
    import sys
    from dpmodels.io import ModelFileError, load_model
    try:
        load_model(sys.argv[1])
        print("LOADED")
    except ModelFileError as exc:
        print("MODEL-FILE-ERROR", exc)
    print("STILL-RUNNING-AFTER-LOAD")
""")


@pytest.mark.parametrize("where", ["preprocessing", "estimator"])
def test_a_file_naming_dpmodels_main_raises_and_the_process_goes_on(tmp_path, where):
    """Before the allow-list, the preprocessing class ``dpmodels.__main__.main`` made load_model
    import the command line, which ran on the host's argv and exited the host. Run in a
    subprocess so that a regression cannot kill pytest; the marker proves the host went on."""
    doc = _envelope(_complete(1, 4))
    if where == "preprocessing":
        doc["schema"]["preprocessing"] = [{"class": "dpmodels.__main__.main", "state": {}}]
    else:
        doc["estimator"]["class"] = "dpmodels.__main__.main"
    p = tmp_path / "evil.json"
    p.write_text(json.dumps(doc))
    r = subprocess.run(
        [sys.executable, "-c", _LOAD_THEN_MARK, str(p), "fit", "--help"],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        env={"PYTHONPATH": SRC, "PATH": "/usr/bin:/bin"},
    )
    assert r.returncode == 0, r.stderr
    assert "MODEL-FILE-ERROR" in r.stdout and "is not one of the" in r.stdout
    assert r.stdout.rstrip().endswith("STILL-RUNNING-AFTER-LOAD")
    assert "usage" not in r.stdout.lower()  # the command line never ran


def test_importing_dpmodels_main_runs_nothing():
    code = "import sys; sys.argv = ['x', '--version']; import dpmodels.__main__; print('AFTER-IMPORT')"
    r = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        env={"PYTHONPATH": SRC, "PATH": "/usr/bin:/bin"},
    )
    assert r.returncode == 0 and r.stdout.strip() == "AFTER-IMPORT", (r.stdout, r.stderr)


def test_the_allow_lists_name_the_classes_they_hold():
    for table in (dio.estimator_classes(), dio.preprocessor_classes()):
        for path, cls in table.items():
            assert path == f"{cls.__module__}.{cls.__qualname__}"
            assert path.startswith("dpmodels.") and "__main__" not in path
    assert set(dio.preprocessor_classes()) == {"dpmodels.data.binarize.Binarizer"}
    for module in Path(dio.__file__).parent.glob("*.py"):  # no import of what a file names
        assert "importlib" not in module.read_text(), module.name


def test_saving_a_class_outside_the_allow_list_is_refused(tmp_path, compas):
    from dpmodels.rulelist import GreedyRuleListClassifier

    class Mine(GreedyRuleListClassifier):
        pass

    X, y = compas
    est = Mine(max_rules=2).fit(X.iloc[:300], y.iloc[:300])
    with pytest.raises(TypeError, match="estimator_classes"):
        dio.save_model(est, tmp_path / "m.json")
    assert not (tmp_path / "m.json").exists()


# ---------------------------------------------------------------------------- memory
def test_the_crafted_chain_file_is_refused_cheaply(tmp_path):
    """The review's file: 0.9 MB, a 4,001-node chain on one categorical feature with 100,000
    categories. A one-row prediction allocated 387 MB (a nodes x categories table). It is now
    refused at load (depth over MAX_DEPTH), within a small multiple of its size."""
    p = tmp_path / "chain.json"
    p.write_text(json.dumps(_envelope(_chain(2000, 100_000))))
    size = p.stat().st_size
    assert 0.8e6 < size < 1.3e6
    out, peak = _peak(lambda: load_model(p))
    assert isinstance(out, ModelFileError) and "deeper than 256 levels" in str(out)
    assert peak < 30 * size, (peak, size)


def test_the_crafted_chain_predicts_cheaply_even_past_the_depth_cap(tmp_path, monkeypatch):
    """The review's exact scenario with the depth cap lifted: the 4,001-node chain over 100,000
    categories loads, and a one-row prediction (387 MB before) allocates under 10 x the file."""
    monkeypatch.setattr(limits, "MAX_DEPTH", 10_000)
    p = tmp_path / "chain.json"
    p.write_text(json.dumps(_envelope(_chain(2000, 100_000))))
    size = p.stat().st_size
    m = load_model(p)
    one = pd.DataFrame({"c": ["v1999"]})  # listed at the last internal node: walks the whole chain
    leaf, peak = _peak(lambda: m.apply(one))
    assert not isinstance(leaf, Exception), leaf
    assert leaf.tolist() == [3999] and peak < 10 * size, (leaf, peak, size)


def test_categorical_routing_memory_does_not_multiply_nodes_by_categories(tmp_path):
    """Within the caps: a complete tree of depth 11 (4,095 nodes, 2,047 categorical tests) over
    100,000 categories. The old lookup table was 4,095 x 100,001 bytes (410 MB); routing one row
    now allocates a few bytes per category (encoding the row against the public list: the
    file's size, not nodes x categories), the same as for a 63-node tree over the same list, and
    every row goes where a brute-force walk sends it."""
    depth, k = 11, 100_000
    p = tmp_path / "wide.json"
    p.write_text(json.dumps(_envelope(_complete(depth, k))))
    size = p.stat().st_size
    m, peak_load = _peak(lambda: load_model(p))
    assert isinstance(m, LoadedModel), m
    assert peak_load < 30 * size + 8 * 2**20, (peak_load, size)
    one = pd.DataFrame({"c": ["v3"]})
    pred, peak = _peak(lambda: m.predict(one))
    assert not isinstance(pred, Exception), pred
    assert peak < 10 * size, (peak, size)  # was > 400 MB, 350 x the file
    small = _save(tmp_path, _envelope(_complete(5, k)))
    m_small = load_model(small)
    _, peak_small = _peak(lambda: m_small.predict(one))
    assert peak < peak_small + 2**20, (peak, peak_small)  # 65 x the nodes: no more memory
    # brute force: walk each row (listed codes go left, all others right)
    rng = np.random.default_rng(0)
    vals = [f"v{c}" for c in rng.integers(0, 3000, size=200)] + ["unknown", None]
    X = pd.DataFrame({"c": vals})
    t = m.model_
    expect = []
    for v in vals:
        code = int(v[1:]) if isinstance(v, str) and v.startswith("v") else -1
        i = 0
        while t.children_left[i] != -1:
            i = t.children_left[i] if code in t.left_categories[i] else t.children_right[i]
        expect.append(i)
    assert np.array_equal(m.apply(X), expect)


# ---------------------------------------------------------------------------- caps
def _save(tmp_path, doc) -> Path:
    p = tmp_path / "m.json"
    p.write_text(json.dumps(doc))
    return p


@pytest.mark.parametrize(
    "cap, value, make, match",
    [
        ("MAX_NODES", 6, lambda: _envelope(_complete(2, 8)), "7 tree nodes"),
        ("MAX_DEPTH", 1, lambda: _envelope(_complete(2, 8)), "deeper than 1 levels"),
        ("MAX_CATEGORIES", 7, lambda: _envelope(_complete(1, 8)), "8 categories of feature '0'"),
        ("MAX_STRING_CHARS", 3, lambda: _envelope(_complete(1, 4)), "longer than 3 characters"),
        ("MAX_NESTING", 3, lambda: _envelope(_complete(1, 4)), "nested more than 3 levels"),
        ("MAX_CLASSES", 1, lambda: _envelope(_complete(1, 4)), "2 classes"),
        ("MAX_FEATURES", 0, lambda: _envelope(_complete(1, 4)), "1 (input )?features"),
    ],
)
def test_each_cap_gives_one_clear_error(tmp_path, monkeypatch, cap, value, make, match):
    p = _save(tmp_path, make())
    assert isinstance(load_model(p), LoadedModel)  # within the default caps
    monkeypatch.setattr(limits, cap, value)
    with pytest.raises(ModelFileError, match=match) as exc:
        load_model(p)
    assert "\n" not in str(exc.value)


def test_rule_list_caps(tmp_path, monkeypatch):
    lit = {"feature": "a", "positive": True}
    rule = {"antecedent": [lit, lit, lit], "prediction": 1, "counts": [1.0, 2.0]}
    model = {
        "type": "rule_list",
        "feature_names": ["a"],
        "classes": [0, 1],
        "rules": [rule] * 5,
        "default": {"antecedent": [], "prediction": 0, "counts": [3.0, 1.0]},
    }
    p = _save(
        tmp_path,
        _envelope(model, kind="rule_list", cls="dpmodels.rulelist.greedy.GreedyRuleListClassifier", features=("a",)),
    )
    assert load_model(p).predict(pd.DataFrame({"a": [1, 0]})).tolist() == [1, 0]
    monkeypatch.setattr(limits, "MAX_RULES", 4)
    with pytest.raises(ModelFileError, match="5 rules"):
        load_model(p)
    monkeypatch.setattr(limits, "MAX_RULES", 10)
    monkeypatch.setattr(limits, "MAX_LITERALS", 2)
    with pytest.raises(ModelFileError, match="3 literals in rule 1"):
        load_model(p)


@pytest.mark.parametrize(
    "text, match",
    [
        ('{"format": NaN}', "NaN is not a JSON number"),
        ('{"format": -Infinity}', "-Infinity is not a JSON number"),
        ('{"format": 1e999}', "non-finite number"),
        ('{"format": ' + "9" * 60 + "}", "more than 40 digits"),
        ('{"format": ' + "9" * 5000 + "}", "unreadable JSON value"),
        ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
        ('{"a": ' + "[" * 40 + "]" * 40 + "}", "nested more than 32 levels"),
        ("\ufeff{}", "not valid JSON"),
    ],
)
def test_hostile_json_gives_the_model_file_error(tmp_path, text, match):
    p = tmp_path / "m.json"
    p.write_text(text, encoding="utf-8")
    with pytest.raises(ModelFileError, match=match):
        load_model(p)


def test_a_file_over_the_byte_cap_is_not_read(tmp_path, monkeypatch):
    p = _save(tmp_path, _envelope(_complete(1, 4)))
    monkeypatch.setattr(limits, "MAX_FILE_BYTES", 100)
    with pytest.raises(ModelFileError, match="a model file may hold at most 100"):
        load_model(p)


def test_nodes_must_form_one_tree_from_the_root():
    t = _complete(2, 8)  # heap layout: 0 -> (1, 2), 1 -> (3, 4), 2 -> (5, 6)
    cycle = json.loads(json.dumps(t))
    # 2 becomes a leaf; 5 and 6 become each other's child (one parent each, unreachable)
    cycle["children_left"][2] = cycle["children_right"][2] = -1
    cycle["children_left"][5], cycle["children_right"][5] = 6, 3
    with pytest.raises(ModelFileError, match="malformed tree"):
        model_from_dict(_envelope(cycle))
    shared = json.loads(json.dumps(t))
    shared["children_right"][2] = 4  # node 4 would have two parents
    with pytest.raises(ModelFileError, match="not a new node"):
        model_from_dict(_envelope(shared))


@pytest.mark.parametrize(
    "where, value, match",
    [
        (("categories", "0"), [[]], "must be texts or numbers"),  # found by the slow fuzz: failed at predict
        (("categories", "0"), ["a", "b", "a"], "list a value twice"),
        (("classes",), [[0], [1]], "must be texts or numbers"),
        (("classes",), [1, 1], "list a value twice"),
    ],
)
def test_labels_and_categories_are_distinct_scalars(where, value, match):
    t = _complete(1, 3)
    cur = t
    for k in where[:-1]:
        cur = cur[k]
    cur[where[-1]] = value
    with pytest.raises(ModelFileError, match=match):
        model_from_dict(_envelope(t))
    assert isinstance(model_from_dict(_envelope(_complete(1, 3))), LoadedModel)
    t = _complete(1, 3)
    t["categories"]["0"] = [True, "1", 1.5]  # distinct values of several types
    t["left_categories"][0] = [0, 1]
    m = model_from_dict(_envelope(t))
    assert m.model_.categories[0] == [True, "1", 1.5]
    t["categories"]["0"] = [True, 1.0, 1.5]  # true == 1.0 as values: one code each is ambiguous
    with pytest.raises(ModelFileError, match="list a value twice"):
        model_from_dict(_envelope(t))


def test_read_model_json_is_the_capped_parse(tmp_path):
    """For code that peeks at a file before loading it (the command line's column check)."""
    p = tmp_path / "deep.json"
    p.write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(ModelFileError, match="nested too deeply"):
        dio.read_model_json(p)
    p.write_text('{"schema": {"input_features": ["a"]}}')
    assert dio.read_model_json(p) == {"schema": {"input_features": ["a"]}}


def test_printing_rules_does_not_walk_every_category_per_leaf():
    """get_rules of a 511-node tree over 100,000 categories took 50 s (each leaf built the
    complement of its path's category set); it now costs what the listed codes cost."""
    import time

    m = model_from_dict(_envelope(_complete(8, 100_000)))
    t0 = time.process_time()
    rules = m.get_rules()
    text = m.to_text()
    assert time.process_time() - t0 < 10.0
    assert len(rules) == 256 and rules["rule"].str.startswith("IF c ").all() and text
    assert rules["rule"].iloc[-1].startswith("IF c not in {v0, v2, v6, ")  # the rightmost path
