"""The audits accept what users publish (a saved model file, or its LoadedModel), a loaded model
scores like a scikit-learn classifier, and a seeded pipeline step makes the saved release not
private."""

import json
import warnings

import numpy as np
import pytest
from sklearn.pipeline import Pipeline, make_pipeline

from _extras import need
from dpmodels.audit import ATTACKS, membership_inference, reconstruction_leak, vulnerability
from dpmodels.data import Binarizer, dataset_schema
from dpmodels.io import LoadedModel, ModelFileError, load_model, save_model
from dpmodels.rulelist import DPRuleListClassifier
from dpmodels.tree import PrivaTreeClassifier


@pytest.fixture(scope="module")
def data(compas_raw):
    X, y = compas_raw
    return X.iloc[:1200].reset_index(drop=True), y.iloc[:1200].reset_index(drop=True)


@pytest.fixture(scope="module")
def saved(data, tmp_path_factory):
    """A PrivaTree (categorical + numerical features) and a Binarizer -> DP rule list pipeline,
    each fitted on the first 600 rows and saved."""
    X, y = data
    s = dataset_schema("compas")
    d = tmp_path_factory.mktemp("audits")
    tree = PrivaTreeClassifier(epsilon=1.0, max_depth=3, **s.fit_params()).fit(X[:600], y[:600])
    pipe = make_pipeline(
        Binarizer(epsilon=0.2, bounds=s.bounds, categories=s.categories), DPRuleListClassifier(epsilon=0.8, max_rules=3)
    ).fit(X[:600], y[:600])
    return {"tree": (tree, save_model(tree, d / "tree.json")), "pipe": (pipe, save_model(pipe, d / "pipe.json"))}


def test_loaded_model_score_is_accuracy(saved, data):
    X, y = data
    for est, path in saved.values():
        m = load_model(path)
        assert m.score(X, y) == pytest.approx(est.score(X, y))
        assert m.score(X, y) == pytest.approx(float(np.mean(m.predict(X) == y.to_numpy())))
        with pytest.raises(ValueError, match="rows but y has"):
            m.score(X, y[:10])


def test_unfitted_estimator_is_the_recorded_learner(saved, data):
    X, y = data
    tree, path = saved["tree"]
    est = load_model(path).unfitted_estimator()
    assert type(est) is PrivaTreeClassifier and not hasattr(est, "tree_")
    mine, theirs = est.get_params(deep=False), tree.get_params(deep=False)
    assert mine.keys() == theirs.keys()
    for k in mine:
        assert json.dumps(mine[k], default=list) == json.dumps(theirs[k], default=list), k
    pipe, path = saved["pipe"]
    rebuilt = load_model(path).unfitted_estimator()
    assert isinstance(rebuilt, Pipeline)
    assert [type(s) for _, s in rebuilt.steps] == [Binarizer, DPRuleListClassifier]
    assert rebuilt.steps[-1][1].get_params()["epsilon"] == 0.8
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the saved cut points are public: refitting leaks nothing
        rebuilt.fit(X[600:], y[600:])
    # the saved Binarizer's public schema, refitted: the same columns, nothing spent on it
    assert list(rebuilt[0].get_feature_names_out()) == list(pipe[0].get_feature_names_out())
    assert rebuilt[0].privacy_ledger_.epsilon_spent == 0


def test_unfitted_estimator_refuses_bare_files_and_unknown_parameters(saved, tmp_path):
    tree, path = saved["tree"]
    bare = load_model(save_model(tree.tree_, tmp_path / "bare.json"))
    with pytest.raises(ModelFileError, match="records no learner"):
        bare.unfitted_estimator()
    doc = json.loads(path.read_text())
    doc["estimator"]["params"]["__init__"] = 1
    p = tmp_path / "odd.json"
    p.write_text(json.dumps(doc))
    with pytest.raises(ModelFileError, match="not parameters of PrivaTreeClassifier"):
        load_model(p).unfitted_estimator()


def _tree_domains(X):
    s = dataset_schema("compas")
    return {f: np.arange(int(lo), int(hi) + 1) for f, (lo, hi) in s.bounds.items()}


def test_reconstruction_leak_takes_a_file(saved, data):
    X, y = data
    tree, path = saved["tree"]
    dom = _tree_domains(X)
    want = reconstruction_leak(tree, X[:600], y[:600], domains=dom)
    for target in (path, str(path), load_model(path)):
        got = reconstruction_leak(target, X[:600], y[:600], domains=dom)
        assert got.dist_g == pytest.approx(want.dist_g) and got.counts == want.counts
        assert got.counts_are_noisy and got.paths.equals(want.paths)
    # a rule list after a Binarizer: raw frames are routed through the file's preprocessing
    pipe, path = saved["pipe"]
    want = reconstruction_leak(pipe[-1], pipe[0].transform(X[:600]), y[:600])
    got = reconstruction_leak(path, X[:600], y[:600])
    assert got.dist_g == pytest.approx(want.dist_g) and got.paths.equals(want.paths)
    assert reconstruction_leak(path).dist_g == pytest.approx(reconstruction_leak(pipe[-1]).dist_g)


def test_vulnerability_takes_a_file(saved, data):
    X, y = data
    for name, (est, path) in saved.items():
        if name == "tree":
            want = vulnerability(est, X[:600], y[:600], X[600:], y[600:])
        else:  # a Pipeline has no apply: its rule list on the binarized frames
            enc = est[0].transform
            want = vulnerability(est[-1], enc(X[:600]), y[:600], enc(X[600:]), y[600:])
        for target in (path, load_model(path)):
            got = vulnerability(target, X[:600], y[:600], X[600:], y[600:])
            assert got.V == pytest.approx(want.V)
            assert got.n_members == 600 and got.n_nonmembers == 600
    got = vulnerability(saved["pipe"][1], X[:600], y[:600], X[600:], y[600:])
    assert got.paths["description"].str.startswith(("rule ", "default rule")).all()


@pytest.mark.parametrize("attack", ATTACKS)
def test_every_membership_attack_takes_a_file(saved, data, attack):
    """Against the saved tree, every attack gives what it gives against the estimator itself
    (same scores, same references: the learner rebuilt from the file is the estimator's class
    with its parameters)."""
    X, y = data
    tree, path = saved["tree"]
    kw = dict(X_pop=X[900:], y_pop=y[900:], n_reference=4, random_state=0)
    want = membership_inference(tree, X[:300], y[:300], X[600:900], y[600:900], attack, **kw)
    got = membership_inference(path, X[:300], y[:300], X[600:900], y[600:900], attack, **kw)
    assert np.array_equal(got.scores, want.scores) and got.auc == want.auc


def test_membership_attacks_on_a_saved_pipeline_rebuild_it(saved, data, monkeypatch):
    X, y = data
    pipe, path = saved["pipe"]
    m = load_model(path)
    built = []
    real = LoadedModel.unfitted_estimator

    def spy(self):
        est = real(self)
        built.append(est)
        return est

    monkeypatch.setattr(LoadedModel, "unfitted_estimator", spy)
    res = membership_inference(
        m,
        X[:300],
        y[:300],
        X[600:900],
        y[600:900],
        "lira-offline",
        X_pop=X[900:],
        y_pop=y[900:],
        n_reference=3,
        random_state=0,
    )
    assert len(built) == 1 and isinstance(built[0], Pipeline)
    assert res.scores.shape == (600,) and np.isfinite(res.scores).all()
    base = membership_inference(path, X[:300], y[:300], X[600:900], y[600:900], "threshold", random_state=0)
    want = membership_inference(pipe, X[:300], y[:300], X[600:900], y[600:900], "threshold", random_state=0)
    assert np.array_equal(base.scores, want.scores)


def test_art_attack_takes_a_file(saved, data):
    need("art")
    from dpmodels.audit.art_adapter import art_membership_inference

    X, y = data
    tree, path = saved["tree"]
    res = art_membership_inference(path, X[:300], y[:300], X[600:900], y[600:900], random_state=0)
    assert 0.0 <= res.auc <= 1.0


# ---------------------------------------------------------------------------- seeded steps
def test_a_seeded_pipeline_step_makes_the_file_not_private(data, tmp_path):
    X, y = data
    s = dataset_schema("compas")
    seeded = make_pipeline(
        Binarizer(epsilon=0.2, bounds=s.bounds, categories=s.categories, random_state=0),
        DPRuleListClassifier(epsilon=0.8, max_rules=3),
    ).fit(X[:600], y[:600])
    doc = json.loads(save_model(seeded, tmp_path / "m.json").read_text())
    priv = doc["privacy"]
    assert priv["is_private"] is False and priv["noise_seeded"] is True
    assert any("Binarizer (pipeline step 1)" in v and "seed" in v for v in priv["verdict"])
    assert not any("DPRuleListClassifier" in v and "seed" in v for v in priv["verdict"])
    assert "noise seeded" in str(load_model(tmp_path / "m.json"))
    assert "0" not in [str(v) for v in doc["estimator"]["params"].values()]
    # the control: the same pipeline unseeded is private
    clean = make_pipeline(
        Binarizer(epsilon=0.2, bounds=s.bounds, categories=s.categories), DPRuleListClassifier(epsilon=0.8, max_rules=3)
    ).fit(X[:600], y[:600])
    doc = json.loads(save_model(clean, tmp_path / "c.json").read_text())
    assert doc["privacy"]["is_private"] is True and doc["privacy"]["noise_seeded"] is False
    # both seeded: both named
    both = make_pipeline(
        Binarizer(epsilon=0.2, bounds=s.bounds, categories=s.categories, random_state=1),
        DPRuleListClassifier(epsilon=0.8, max_rules=3, random_state=2),
    ).fit(X[:600], y[:600])
    verdict = json.loads(save_model(both, tmp_path / "b.json").read_text())["privacy"]["verdict"]
    assert any("DPRuleListClassifier and Binarizer (pipeline step 1)" in v for v in verdict)
