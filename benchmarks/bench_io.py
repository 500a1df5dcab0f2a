"""Saved models: what reading a model file and predicting through it cost, against the
estimator itself, same data, same run.

Run: ``pytest benchmarks/bench_io.py --benchmark-only`` (``make bench``). A PrivaTree of depth 8
(≤ 256 leaves) on raw Adult (documented schema) and a DP rule list behind a Binarizer on raw
Adult: ``load_model`` (read, validate, rebuild) against ``Tree.from_json`` / ``RuleList.from_json``
of the bare model, and ``predict`` of the loaded model on 10,000 raw rows against the fitted
estimator's (or pipeline's) ``predict``. Compare ratios from the same run (shared machine).
"""

import os

import pytest
from sklearn.pipeline import make_pipeline

from dpmodels.data import Binarizer, dataset_schema, load_dataset
from dpmodels.io import load_model, save_model
from dpmodels.privacy import BudgetAccountant
from dpmodels.rulelist import DPRuleListClassifier, RuleList
from dpmodels.tree import PrivaTreeClassifier, Tree

_CACHE = {}


def _fitted(kind, tmp_path_factory):
    if kind not in _CACHE:
        X, y = load_dataset("adult", binarized=False)
        s = dataset_schema("adult")
        if kind == "tree":
            est = PrivaTreeClassifier(epsilon=1.0, max_depth=8, random_state=0, **s.fit_params()).fit(X, y)
            bare = est.tree_
        else:
            acc = BudgetAccountant(1.0)
            est = make_pipeline(
                Binarizer(epsilon=0.2, bounds=s.bounds, categories=s.categories, accountant=acc, random_state=0),
                DPRuleListClassifier(epsilon=0.8, accountant=acc, random_state=0),
            ).fit(X, y)
            bare = est[-1].rule_list_
        path = save_model(est, tmp_path_factory.mktemp("io") / f"{kind}.json")
        _CACHE[kind] = (est, bare, path, X.iloc[:10_000])
    return _CACHE[kind]


def _load(benchmark):
    benchmark.extra_info["load1"] = os.getloadavg()[0]


@pytest.mark.parametrize("kind", ["tree", "rulelist"])
def test_load_model(benchmark, kind, tmp_path_factory):
    _load(benchmark)
    _, _, path, _ = _fitted(kind, tmp_path_factory)
    benchmark.extra_info["file_bytes"] = path.stat().st_size
    m = benchmark(load_model, path)
    assert m.kind == ("tree" if kind == "tree" else "rule_list")


@pytest.mark.parametrize("kind", ["tree", "rulelist"])
def test_bare_model_from_json(benchmark, kind, tmp_path_factory):
    _load(benchmark)
    _, bare, _, _ = _fitted(kind, tmp_path_factory)
    text = bare.to_json()
    cls = Tree if kind == "tree" else RuleList
    benchmark(cls.from_json, text)


@pytest.mark.parametrize("kind", ["tree", "rulelist"])
def test_predict_loaded(benchmark, kind, tmp_path_factory):
    _load(benchmark)
    est, _, path, X = _fitted(kind, tmp_path_factory)
    m = load_model(path)
    benchmark(m.predict, X)


@pytest.mark.parametrize("kind", ["tree", "rulelist"])
def test_predict_estimator(benchmark, kind, tmp_path_factory):
    _load(benchmark)
    est, _, _, X = _fitted(kind, tmp_path_factory)
    benchmark(est.predict, X)
