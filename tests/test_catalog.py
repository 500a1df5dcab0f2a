"""The learner table (dpmodels.catalog): every learner the command line offers goes through fit,
save, load, predict, show, its picture and an audit from its table entry alone, on tiny data.

The command line is run in this process (``dpmodels.cli.main``) so that the whole table takes a
few seconds; tests/test_cli*.py run it in subprocesses as a user does. The arguments of each fit
are built from the entry's traits (classifier or regressor, the options it takes): a new entry is
covered by this file without a line added here.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from dpmodels import catalog
from dpmodels.catalog import KINDS, LEARNERS, cli_learners
from dpmodels.cli import main
from dpmodels.cli.fit import MODELS
from dpmodels.io import estimator_classes, load_model

CLI = cli_learners()


def _frame(n: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 11, n)
    c = rng.choice(["x", "y", "z"], n)
    b = rng.random(n).round(3)
    y = ((a > 5) ^ (c == "z")).astype(int)
    return pd.DataFrame({"a": a, "b": b, "c": c, "y": y, "t": (a + 3 * b).round(3)})


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    d = tmp_path_factory.mktemp("catalog")
    _frame(160, 0).to_csv(d / "train.csv", index=False)
    _frame(80, 1).to_csv(d / "test.csv", index=False)
    return d


def _fit_args(entry, data, out) -> list[str]:
    """``dpmodels fit`` for ``entry``: every column declared, the label set or the label bounds."""
    label = (
        ["--label", "y", "--drop", "t", "--classes", "0", "1"]
        if entry.classifier
        else ["--label", "t", "--drop", "y", "--label-bounds=0:14"]
    )
    cuts = ["--cut-points", "a=2.5,5.5,8.5", "b=0.5"] if "cut_points" in entry.all_options else []
    bounds = [] if cuts else ["--bounds", "a=0:10", "b=0:1"]
    return [
        "fit",
        "--data",
        str(data / "train.csv"),
        "--model",
        entry.name,
        *label,
        *bounds,
        *cuts,
        "--categories",
        "c=x,y,z",
        "--integer",
        "a",
        "--out",
        str(out),
        "--quiet",
    ]


def test_the_table_is_the_command_line_and_the_allow_list():
    assert MODELS == tuple(e.name for e in CLI) and len(set(MODELS)) == len(MODELS)
    allowed = estimator_classes()
    for entry in LEARNERS:
        assert entry.estimator in allowed and catalog.class_path(entry.cls) == entry.estimator
        assert entry.kind in KINDS and set(entry.given_only) <= set(entry.params)
        params = set(entry.cls._get_param_names())
        assert set(entry.params) <= params, entry.name  # what the command line sets exists
        assert set(entry.defaults) | set(entry.ranges) <= entry.all_options, entry.name
        if entry.private:
            assert "epsilon" in params and "random_state" in params
    for kind in KINDS.values():
        assert catalog.class_path(kind.model_class) == kind.model
        assert kind.picture is None or callable(kind.picture_function)


@pytest.mark.parametrize("entry", CLI, ids=[e.name for e in CLI])
def test_every_learner_fits_saves_loads_predicts_shows_and_is_audited(entry, data, tmp_path, capsys):
    path = tmp_path / "model.json"
    assert main(_fit_args(entry, data, path)) == 0, capsys.readouterr().err
    model = load_model(path)
    assert (model.kind, model.estimator_class) == (entry.kind, entry.estimator)
    assert catalog.model_kind(model) == entry.kind
    assert model.privacy["is_private"] is entry.private  # declared inputs, unseeded noise
    # predictions of the command line are the loaded model's, row for row
    preds = tmp_path / "preds.csv"
    assert main(["predict", str(path), str(data / "test.csv"), "--out", str(preds)]) == 0
    test = pd.read_csv(data / "test.csv")
    got = pd.read_csv(preds).iloc[:, -1].to_numpy()
    want = model.predict(test.drop(columns=["y", "t"]).astype({"c": object}))
    assert got.shape == (len(test),) and np.allclose(got.astype(float), want.astype(float))
    if not entry.classifier:
        assert 0 <= got.min() and got.max() <= 14
    capsys.readouterr()
    assert main(["show", str(path)]) == 0
    assert model.estimator_name in capsys.readouterr().out
    # its picture: the kind's own drawing (an additive model's shape functions) or dpmodels.export's
    pytest.importorskip("matplotlib")
    fig = tmp_path / "model.png"
    assert main(["show", str(path), "--plot", str(fig)]) == 0
    assert fig.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    # an audit: membership (threshold attack), and Dist_G when records follow paths (KINDS)
    report = tmp_path / "audit.json"
    label = "y" if entry.classifier else "t"
    args = [
        "audit",
        str(path),
        "--train",
        str(data / "train.csv"),
        "--test",
        str(data / "test.csv"),
        "--label",
        label,
        "--permutations",
        "20",
        "--json",
        str(report),
    ]
    assert main(args) == 0, capsys.readouterr().err
    doc = json.loads(report.read_text())
    assert doc["model"]["kind"] == entry.kind
    if not entry.audit_paths:  # Dist_G measures paths: none in an additive model
        assert "dist_g" not in doc["numbers"]
    elif entry.classifier:  # (a regression tree's reconstruction audit is a separate work item)
        assert "dist_g" in doc["numbers"]
    assert 0.0 <= doc["numbers"]["auc.threshold"] <= 1.0


def test_the_private_step_protocol_and_the_public_delta():
    """The hooks a checked fit uses are the protocol's (dpmodels.privacy.steps); the command line
    learns a rule list's δ from its public privacy_params()."""
    from dpmodels.privacy.steps import BudgetRequest, ParamCheck, SpendCheck
    from dpmodels.rulelist import DPRuleListClassifier, GreedyRuleListClassifier

    for entry in CLI:
        est = entry.cls()
        assert isinstance(est, (ParamCheck, SpendCheck)), entry.name  # checked before it spends
        if isinstance(est, BudgetRequest):
            assert entry.private, entry.name
    assert not isinstance(GreedyRuleListClassifier(), BudgetRequest)
    assert DPRuleListClassifier(epsilon=2.0).privacy_params() == (2.0, 0.0)
    assert DPRuleListClassifier(mechanism="gl-gaussian", n_public=100).privacy_params() == (1.0, 1e-4)
    with pytest.raises(ValueError, match="needs δ > 0"):
        DPRuleListClassifier(mechanism="gl-gaussian").privacy_params()
