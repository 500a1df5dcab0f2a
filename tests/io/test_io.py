"""dpmodels.io: a saved model predicts as the estimator did, carries its guarantee, and a malformed
file gives one clear error."""

import copy
import json
import warnings

import numpy as np
import pytest

from _extras import need
from dpmodels.data import dataset_schema
from dpmodels.io import FORMAT_VERSION, LoadedModel, ModelFileError, load_model, model_from_dict, save_model
from dpmodels.rulelist import (
    DPRuleListClassifier,
    GreedyRuleListClassifier,
    OptimalRuleListClassifier,
    RuleList,
)
from dpmodels.tree import PrivaTreeClassifier, Tree
from dpmodels.tree.baselines import BDPTClassifier, DPGDFClassifier


@pytest.fixture(scope="module")
def data(compas, compas_raw):
    Xb, yb = compas
    Xr, yr = compas_raw
    return (Xb.iloc[:2000], yb.iloc[:2000]), (Xr.iloc[:2000], yr.iloc[:2000])


def _learners(data):
    (Xb, yb), (Xr, yr) = data
    s = dataset_schema("compas")
    yield "greedy", GreedyRuleListClassifier(max_rules=4), Xb, yb
    yield "dp", DPRuleListClassifier(epsilon=1.0, max_rules=4), Xb, yb
    yield "dp-text-labels", DPRuleListClassifier(epsilon=1.0, classes=["no", "yes"]), Xb, yb.map({0: "no", 1: "yes"})
    yield "sm-cauchy", DPRuleListClassifier(epsilon=1.0, mechanism="sm-cauchy", delta=1e-6, n_public=2000), Xb, yb
    yield "optimal", OptimalRuleListClassifier(max_rules=3, min_support=0.02), Xb, yb
    yield "privatree", PrivaTreeClassifier(epsilon=1.0, max_depth=3, **s.fit_params()), Xr, yr
    yield (
        "privatree-numpy",
        PrivaTreeClassifier(epsilon=1.0, max_depth=2, bounds=(0, 100), classes=[0, 1]),
        Xr.select_dtypes("number").to_numpy(float),
        yr.to_numpy(),
    )
    yield "bdpt", BDPTClassifier(epsilon=1.0, max_depth=3, **s.fit_params()), Xr, yr
    yield "dpgdf", DPGDFClassifier(epsilon=1.0, max_depth=3, categories=s.categories, classes=[0, 1]), Xr, yr


@pytest.mark.parametrize(
    "which", ["greedy", "dp", "dp-text-labels", "sm-cauchy", "optimal", "privatree", "privatree-numpy", "bdpt", "dpgdf"]
)
def test_round_trip_predictions_identical(which, data, tmp_path):
    name, est, X, y = next(t for t in _learners(data) if t[0] == which)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # DPGDF drops the numerical columns, with a warning
        est.fit(X, y)
    path = save_model(est, tmp_path / "m.json")
    m = load_model(path)
    assert isinstance(m, LoadedModel)
    assert np.array_equal(m.predict(X), est.predict(X))
    assert np.array_equal(m.apply(X), est.apply(X))
    assert np.array_equal(m.predict_proba(X), est.predict_proba(X))
    assert list(m.classes_) == list(est.classes_)
    assert m.get_rules().equals(est.get_rules())
    doc = json.loads(path.read_text())
    assert doc["format"] == "dpmodels.model" and doc["format_version"] == FORMAT_VERSION
    assert doc["estimator"]["name"] == type(est).__name__
    led = getattr(est, "privacy_ledger_", None)
    if led is None:
        assert m.privacy_ledger_ is None and doc["privacy"]["is_private"] is False
    else:
        assert m.privacy_ledger_.to_dict() == led.to_dict()
        assert doc["privacy"]["epsilon"] == led.epsilon and doc["privacy"]["delta"] == led.delta
        assert doc["privacy"]["is_private"] == led.is_private
        assert all("guarantee" in r for r in doc["privacy"]["ledger"]["rows"])
    assert str(m).splitlines()[1:] == str(est).splitlines()[1:]  # same header (but the title) and body
    # a re-save of the loaded model is the same document
    again = save_model(m, tmp_path / "again.json")
    assert json.loads(again.read_text()) == doc


def test_a_seeded_release_is_flagged_and_the_seed_is_never_written(data, tmp_path):
    (Xb, yb), _ = data
    est = DPRuleListClassifier(epsilon=1.0, random_state=12345).fit(Xb, yb)
    doc = json.loads(save_model(est, tmp_path / "m.json").read_text())
    assert doc["estimator"]["params"]["random_state"] is None
    assert "12345" not in json.dumps(doc)
    assert doc["privacy"]["noise_seeded"] is True and doc["privacy"]["is_private"] is False
    assert any("seed" in v for v in doc["privacy"]["verdict"])
    assert "noise seeded" in str(load_model(tmp_path / "m.json"))


def test_schema_is_the_declared_public_one(data, tmp_path):
    _, (Xr, yr) = data
    s = dataset_schema("compas")
    est = PrivaTreeClassifier(epsilon=1.0, max_depth=2, n_public=2000, **s.fit_params()).fit(Xr, yr)
    doc = json.loads(save_model(est, tmp_path / "m.json").read_text())
    sch = doc["schema"]
    assert sch["classes"] == [0, 1] and sch["input_features"] == list(Xr.columns)
    assert sch["categories"] == {k: list(v) for k, v in s.categories.items()}
    assert sch["bounds"] == {k: [float(a), float(b)] for k, (a, b) in s.bounds.items()}
    assert sch["n_public"] == 2000
    assert doc["extra"]["budget"]["levels_used"] >= 0


def test_loaded_model_reads_raw_frames_by_column_name(data, tmp_path):
    _, (Xr, yr) = data
    s = dataset_schema("compas")
    est = PrivaTreeClassifier(epsilon=1.0, max_depth=3, **s.fit_params()).fit(Xr, yr)
    m = load_model(save_model(est, tmp_path / "m.json"))
    shuffled = Xr[list(reversed(Xr.columns))].assign(extra=1)  # other order, an extra column
    assert np.array_equal(m.predict(shuffled), est.predict(Xr))
    with pytest.raises(ValueError, match="lacks 1 column"):
        m.predict(Xr.drop(columns=["age"]))


def test_bare_models_and_legacy_files_load(data, tmp_path):
    (Xb, yb), _ = data
    est = GreedyRuleListClassifier().fit(Xb, yb)
    p = tmp_path / "legacy.json"
    p.write_text(est.rule_list_.to_json())  # what `dpmodels fit --json` wrote before
    m = load_model(p)
    assert np.array_equal(m.predict(Xb), est.predict(Xb))
    assert "privacy unknown" in str(m)
    assert isinstance(load_model(save_model(est.rule_list_, tmp_path / "bare.json")).model_, RuleList)


# ---------------------------------------------------------------------------- malformed files
@pytest.fixture(scope="module")
def good_doc(data, tmp_path_factory):
    (Xb, yb), _ = data
    est = DPRuleListClassifier(epsilon=1.0).fit(Xb, yb)
    p = tmp_path_factory.mktemp("io") / "m.json"
    return json.loads(save_model(est, p).read_text())


def _mut(doc, path, value=KeyError):
    d = copy.deepcopy(doc)
    cur = d
    for k in path[:-1]:
        cur = cur[k]
    if value is KeyError:
        del cur[path[-1]]
    else:
        cur[path[-1]] = value
    return d


@pytest.mark.parametrize(
    "path, value, match",
    [
        (("format_version",), 99, "format version 99 is not readable"),
        (("format_version",), "1", "'format_version' must be int"),
        (("format_version",), True, "'format_version' must be int"),
        (("kind",), "forest", "unknown model kind"),
        (("kind",), KeyError, "lacks the key 'kind'"),
        (("estimator",), KeyError, "lacks the key 'estimator'"),
        (("estimator", "params"), [], "'params' must be dict"),
        (("model",), "x", "'model' must be dict"),
        (("model", "rules", 0, "prediction"), 2, "prediction must be a class index in \\[0, 2\\)"),
        (("model", "rules", 0, "counts"), [1], "counts must be 2 numbers \\(one per class\\)"),
        (("model", "rules", 0, "antecedent", 0, "feature"), "nope", "unknown feature"),
        (("model", "feature_names"), KeyError, "lacks the key 'feature_names'"),
        (("privacy", "ledger"), [], "privacy.ledger must be an object"),
        (("privacy", "ledger", "epsilon"), "abc", "malformed privacy ledger"),
        (("privacy", "ledger", "rows", 0, "guarantee"), "maybe", "malformed privacy ledger"),
        (("schema", "classes"), [1, 0], "disagree with the model"),
        (("schema", "preprocessing"), [{"class": "os.system", "state": {}}], "is not one of the preprocessors"),
        (("schema", "preprocessing"), [{"class": "dpmodels.nope.X", "state": {}}], "is not one of the preprocessors"),
        (("estimator", "class"), "dpmodels.cli.main", "is not one of the dpmodels estimators"),
        (("estimator", "class"), "dpmodels.tree.privatree.estimator.PrivaTreeClassifier", "does not fit a model"),
        (("format",), "other", "not a dpmodels model file"),
    ],
)
def test_malformed_documents_give_one_clear_error(good_doc, path, value, match):
    bad = _mut(good_doc, path, value)
    with pytest.raises(ModelFileError, match=match) as exc:
        model_from_dict(bad, source="m.json")
    assert "\n" not in str(exc.value)


@pytest.mark.parametrize(
    "text, match",
    [
        ("{not json", "not valid JSON \\(line 1, column 2"),
        ("[1, 2]", "not a dpmodels model"),
        ("", "not valid JSON"),
    ],
)
def test_malformed_json_files(tmp_path, text, match):
    p = tmp_path / "m.json"
    p.write_text(text)
    with pytest.raises(ModelFileError, match=match):
        load_model(p)
    with pytest.raises(ModelFileError, match="does not exist"):
        load_model(tmp_path / "none.json")
    with pytest.raises(ModelFileError, match="is a directory"):
        load_model(tmp_path)


def test_tree_documents_are_validated(data, tmp_path):
    _, (Xr, yr) = data
    s = dataset_schema("compas")
    est = PrivaTreeClassifier(epsilon=1.0, max_depth=2, **s.fit_params()).fit(Xr, yr)
    doc = json.loads(save_model(est, tmp_path / "m.json").read_text())
    for path, value in [
        (("model", "children_left", 0), 99),
        (("model", "label"), [0]),
        (("model", "value"), KeyError),
        (("model", "feature", 0), 50),
    ]:
        with pytest.raises(ModelFileError, match="malformed tree"):
            model_from_dict(_mut(doc, path, value))
    assert isinstance(model_from_dict(doc).model_, Tree)


def test_output_paths_are_checked_and_writes_are_atomic(data, tmp_path):
    (Xb, yb), _ = data
    est = GreedyRuleListClassifier().fit(Xb, yb)
    with pytest.raises(ValueError, match="is a directory"):
        save_model(est, tmp_path)
    with pytest.raises(ValueError, match="does not exist"):
        save_model(est, tmp_path / "no" / "m.json")
    with pytest.raises(TypeError, match="cannot export"):
        save_model(object(), tmp_path / "m.json")
    assert not (tmp_path / "m.json").exists()
    save_model(est, tmp_path / "m.json")
    assert [p.name for p in tmp_path.iterdir()] == ["m.json"]  # no temporary file left


def test_dl85_round_trip(tmp_path, compas):
    need("pydl85")
    from dpmodels.tree.optimal import DL85Classifier

    X, y = compas[0].iloc[:500, :12], compas[1].iloc[:500]
    est = DL85Classifier(max_depth=2).fit(X, y)
    m = load_model(save_model(est, tmp_path / "m.json"))
    assert np.array_equal(m.predict(X), est.predict(X))
    assert np.array_equal(m.predict_proba(X), est.predict_proba(X))
    assert json.loads((tmp_path / "m.json").read_text())["extra"]["optimal"] in (True, False)


def test_pipeline_with_a_binarizer_round_trip_on_raw_frames(tmp_path, compas_raw, compas_schema):
    from sklearn.pipeline import make_pipeline

    from dpmodels.data import Binarizer
    from dpmodels.privacy import BudgetAccountant

    X, y = compas_raw[0].iloc[:2000], compas_raw[1].iloc[:2000]
    s = compas_schema
    acc = BudgetAccountant(1.0)
    pipe = make_pipeline(
        Binarizer(epsilon=0.1, bounds=s.bounds, categories=s.categories, accountant=acc),
        DPRuleListClassifier(epsilon=0.9, accountant=acc),
    ).fit(X, y)
    m = load_model(save_model(pipe, tmp_path / "m.json"))
    assert np.array_equal(m.predict(X), pipe.predict(X))
    assert np.array_equal(m.predict_proba(X), pipe.predict_proba(X))
    doc = json.loads((tmp_path / "m.json").read_text())
    assert doc["schema"]["input_features"] == list(X.columns)
    assert doc["schema"]["preprocessing"][0]["class"] == "dpmodels.data.binarize.Binarizer"
    assert doc["privacy"]["epsilon"] == 1.0 and doc["privacy"]["is_private"] is True
    whats = [r["what"] for r in doc["privacy"]["ledger"]["rows"]]
    assert any(w.startswith("Binarizer:") for w in whats) and any(w.startswith("DPRuleList") for w in whats)
    assert doc["estimator"]["params"]["accountant"] is None
    assert "input: Binarizer of the columns" in str(m)
    # categorical values outside the declared lists are unknown, never an error
    Xo = X.copy()
    Xo["race"] = Xo["race"].astype(object).where(np.arange(len(Xo)) % 7 != 0, "Martian")
    assert np.array_equal(m.predict(Xo), pipe.predict(Xo))


def test_pipeline_without_accountant_sums_the_budgets(tmp_path, compas_raw, compas_schema):
    from sklearn.pipeline import make_pipeline

    from dpmodels.data import Binarizer

    X, y = compas_raw[0].iloc[:1000], compas_raw[1].iloc[:1000]
    s = compas_schema
    pipe = make_pipeline(
        Binarizer(epsilon=0.2, bounds=s.bounds, categories=s.categories), DPRuleListClassifier(epsilon=0.5)
    ).fit(X, y)
    doc = json.loads(save_model(pipe, tmp_path / "m.json").read_text())
    assert doc["privacy"]["epsilon"] == pytest.approx(0.7)  # sequential composition of the steps
    assert doc["privacy"]["epsilon_spent"] == pytest.approx(0.7)
    greedy = make_pipeline(
        Binarizer(cut_points={c: [1.0] for c in s.bounds}, categories=s.categories), GreedyRuleListClassifier()
    ).fit(X, y)
    doc = json.loads(save_model(greedy, tmp_path / "g.json").read_text())
    assert doc["privacy"]["is_private"] is False and doc["privacy"]["private_learner"] is False
    assert str(load_model(tmp_path / "g.json")).splitlines()[1] == "privacy: not private (no DP guarantee)"
