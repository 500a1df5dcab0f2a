"""Fuzzing load_model: mutated real model files and random JSON raise only ModelFileError, never
anything else, and loading never allocates more than a fixed multiple of the file's size.

The memory bound (docs/privacy.md, "Model files"): ``peak <= MEMORY_FACTOR * bytes + SLACK``.
Parsing JSON builds Python objects: an empty list or object costs 56-64 bytes plus an 8-byte
slot in its parent for 2 bytes of text, so nested empty arrays (``[[[]]],``) cost 35 x their text
(measured), the worst shape; an array of integers costs 4 x (pointers) and its numpy copy 4 x
more. The loader's own checks hold one iterator per open container (bounded by the nesting cap)
and the model's arrays are at most a few times the text they come from. 40 x covers every shape
with room; SLACK covers fixed costs (numpy / pandas temporaries of the small parts). The
"inflate" mutation repeats an element up to 2,000 times, so that the factor, not the slack, is
what bounds the larger files.
"""

import json
import tempfile
import tracemalloc
import warnings
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dpmodels import io as dio
from dpmodels.data import Binarizer, dataset_schema, load_dataset
from dpmodels.io import LoadedModel, ModelFileError, load_model, save_model
from dpmodels.privacy import BudgetAccountant
from dpmodels.rulelist import DPRuleListClassifier, GreedyRuleListClassifier
from dpmodels.tree import PrivaTreeClassifier, PrivaTreeRegressor
from dpmodels.tree.baselines import BDPTClassifier, DPGDFClassifier

MEMORY_FACTOR = 40
SLACK = 512 * 2**10  # loading the unmutated bases peaks at 16-54 KB

dio.estimator_classes(), dio.preprocessor_classes()  # imported now: tracemalloc measures loading only


def _fit_bases():
    from sklearn.pipeline import make_pipeline

    Xb, yb = load_dataset("compas")
    Xr, yr = load_dataset("compas", binarized=False)
    Xb, yb, Xr, yr = Xb.iloc[:400], yb.iloc[:400], Xr.iloc[:400], yr.iloc[:400]
    s = dataset_schema("compas")
    acc = BudgetAccountant(1.0)
    Xn, yn = load_dataset("nursery", binarized=False)
    rows = np.random.default_rng(0).permutation(len(Xn))[:400]
    Xn, yn = Xn.iloc[rows], yn.iloc[rows]
    sn = dataset_schema("nursery")
    models = [
        (GreedyRuleListClassifier(max_rules=3), Xb, yb),
        (
            make_pipeline(
                Binarizer(epsilon=0.2, bounds=s.bounds, categories=s.categories, accountant=acc),
                DPRuleListClassifier(epsilon=0.8, max_rules=3, accountant=acc),
            ),
            Xr,
            yr,
        ),
        (PrivaTreeClassifier(epsilon=1.0, max_depth=3, **s.fit_params()), Xr, yr),
        (BDPTClassifier(epsilon=1.0, max_depth=2, **s.fit_params()), Xr, yr),
        (DPGDFClassifier(epsilon=1.0, max_depth=2, categories=s.categories, classes=[0, 1]), Xr, yr),
        # a rule list over nursery's 5 declared classes, and a regression tree (a 0/1 label as numbers)
        (
            make_pipeline(
                Binarizer(categories=sn.categories),
                DPRuleListClassifier(epsilon=1.0, max_rules=4, classes=list(sn.classes)),
            ),
            Xn,
            yn,
        ),
        (
            PrivaTreeRegressor(epsilon=1.0, max_depth=3, bounds=s.bounds, categories=s.categories, label_bounds=(0, 1)),
            Xr,
            yr.astype(float),
        ),
    ]
    out = []
    with tempfile.TemporaryDirectory() as d, warnings.catch_warnings():
        warnings.simplefilter("ignore")  # DPGDF drops the numerical columns, with a warning
        for k, (est, X, y) in enumerate(models):
            est.fit(X, y)
            doc = json.loads(save_model(est, Path(d) / f"m{k}.json").read_text())
            out.append((doc, X.iloc[:5]))
    return out


BASES = None


def _bases():
    global BASES
    if BASES is None:
        BASES = _fit_bases()
    return BASES


_DIR = tempfile.mkdtemp(prefix="dpmodels-fuzz-")

scalars = (
    st.none()
    | st.booleans()
    | st.integers(-(2**70), 2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12)
)
json_values = st.recursive(
    scalars, lambda c: st.lists(c, max_size=4) | st.dictionaries(st.text(max_size=8), c, max_size=4), max_leaves=12
)
huge = st.sampled_from(
    [
        10**30,
        -(10**30),
        2**63,
        2**64,
        -(2**63) - 1,
        10**39,
        10**41,
        1e308,
        -1e308,
        5e-324,
        0,
        -1,
        -2,
        4001,
        100_000,
        10**6 + 1,
    ]
)


def _containers(doc):
    """Every (container, key) pair of the document (dict keys, list indices)."""
    out, stack = [], [doc]
    while stack:
        c = stack.pop()
        keys = list(c) if isinstance(c, dict) else range(len(c))
        for k in keys:
            out.append((c, k))
            if isinstance(c[k], (dict, list)):
                stack.append(c[k])
    return out


@st.composite
def mutated_files(draw):
    """The text of a real saved model after 1-4 mutations: a value replaced (random JSON, a huge
    number, another type), a key or element deleted or duplicated, or a value wrapped in deep
    nesting (done in the text, past what json.dumps can write)."""
    k = draw(st.integers(0, len(_bases()) - 1))
    doc = json.loads(json.dumps(_bases()[k][0]))
    deep = {}
    for _ in range(draw(st.integers(1, 4))):
        slots = _containers(doc)
        if not slots:
            break
        c, key = slots[draw(st.integers(0, len(slots) - 1))]
        op = draw(st.sampled_from(["json", "huge", "type", "delete", "duplicate", "deep", "copy", "inflate"]))
        v = c[key]
        if op == "json":
            c[key] = draw(json_values)
        elif op == "huge":
            c[key] = draw(huge)
        elif op == "type":
            c[key] = draw(st.sampled_from([str(v), [v], {"x": v}, None, True, 1, 1.5, "", [], {}]))
        elif op == "delete":
            del c[key]
        elif op == "copy" and isinstance(c, list):  # duplicate an element (longer arrays)
            c.insert(key, json.loads(json.dumps(v)))
        elif op == "inflate" and isinstance(c, list):  # many copies: a large file
            c[key : key + 1] = [v] * draw(st.sampled_from([100, 2000]))
        elif op == "duplicate" and isinstance(c, dict):  # the same key twice in the text
            c[f"__dup{len(deep)}__"] = draw(json_values)
            deep[f'"__dup{len(deep)}__"'] = json.dumps(key)
        else:
            n = draw(st.sampled_from([3, 40, 3000]))
            tag = f"__deep{len(deep)}__"
            c[key] = tag
            deep[json.dumps(tag)] = "[" * n + json.dumps(v) + "]" * n
    text = json.dumps(doc)
    for tag, rep in deep.items():
        text = text.replace(tag, rep)
    return k, text


def _check_file(text: str, k: int | None = None) -> None:
    p = Path(_DIR) / "m.json"
    data = text.encode("utf-8", "surrogatepass") if isinstance(text, str) else text
    p.write_bytes(data)
    size = len(data)
    tracemalloc.start()
    try:
        try:
            m = load_model(p)
        except ModelFileError as exc:
            assert "\n" not in str(exc)
            m = None
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak <= MEMORY_FACTOR * size + SLACK, (peak, size)
    if m is not None:
        assert isinstance(m, LoadedModel)
        m.to_text()  # a model that loads also prints
        if k is not None:
            X = _bases()[k][1]
            try:
                p = m.predict(X) if m.kind == "regression_tree" else m.predict_proba(X)
            except ValueError:  # the data does not fit the mutated schema: a clear input error
                return
            assert p.shape == ((len(X),) if m.kind == "regression_tree" else (len(X), len(m.classes_)))


FUZZ = settings(
    max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
)


@FUZZ
@given(mutated_files())
def test_mutated_model_files_raise_only_the_model_file_error(kt):
    k, text = kt
    _check_file(text, k)


@FUZZ
@given(
    json_values
    | st.dictionaries(
        st.sampled_from(
            ["format", "format_version", "kind", "estimator", "privacy", "schema", "model", "extra", "type"]
        ),
        json_values,
    )
)
def test_random_json_raises_only_the_model_file_error(value):
    _check_file(json.dumps(value))


@FUZZ
@given(st.binary(max_size=200))
def test_random_bytes_raise_only_the_model_file_error(data):
    _check_file(data)


def test_the_unmutated_bases_load_and_predict():
    kinds = []
    for k, (doc, X) in enumerate(_bases()):
        _check_file(json.dumps(doc), k)
        m = load_model(Path(_DIR) / "m.json")
        kinds.append((m.kind, None if m.classes_ is None else len(m.classes_)))
        assert np.isfinite(m.predict(X) if m.kind == "regression_tree" else m.predict_proba(X)).all()
    assert ("rule_list", 5) in kinds and ("regression_tree", None) in kinds


@pytest.mark.slow
@settings(max_examples=5000, deadline=None, suppress_health_check=list(HealthCheck))
@given(mutated_files())
def test_mutated_model_files_long_run(kt):
    k, text = kt
    _check_file(text, k)


@pytest.mark.parametrize("bad", [2, -2])
def test_an_internal_node_label_outside_the_classes_is_a_model_file_error(bad):
    """Found by the long fuzz run: a label out of range on an internal node loaded and then
    crashed the printer (leaf_proba indexed it); every label must be -1 or a class index."""
    doc, _ = next((d, X) for d, X in _bases() if d["kind"] == "tree")
    doc = json.loads(json.dumps(doc))
    labels = doc["model"]["label"]
    internal = [i for i, c in enumerate(doc["model"]["children_left"]) if c != -1]
    labels[internal[0]] = bad
    p = Path(_DIR) / "bad_label.json"
    p.write_text(json.dumps(doc))
    with pytest.raises(ModelFileError, match="node labels must be -1"):
        load_model(p)
