"""Conformance: every private estimator class and every composition says NOT PRIVATE at the top when
one part leaks, and PRIVATE when none does (issue 23, "One place decides the verdict").

The verdict is :func:`dpmodels.privacy.verdict.verdict` (the one function); the saved file, the
loaded model and the command line's last verdict line must agree with it. Each case plants exactly
one leaking component — an undeclared label set, a claimed mechanism, a data-sourced bound, a seeded
step — and has a clean twin that must be PRIVATE, so the test fails both ways.

**Adding a class or a composition.** A private estimator class (one exported from a public package
with an ``epsilon`` parameter) that is not in :data:`CLASSES_TABLE` fails
``test_every_private_estimator_class_is_listed``; add its clean and leaking factories there. A new
composition is not done until it has a case here: add a ``(name, build_clean, build_leaky)`` entry to
:data:`COMPOSITIONS` (an in-memory fit), :data:`PARTITIONED` (a partitioned source) or a test beside
the CLI ones. Schema reuse by a model file (CLI and library) is :data:`SCHEMA_REUSE`.
"""

from __future__ import annotations

import importlib
import inspect
import json
import shutil
import subprocess
import sys
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sklearn.base import BaseEstimator
from sklearn.pipeline import make_pipeline

from _extras import need
from dpmodels.data import Binarizer
from dpmodels.gam import DPAdditiveClassifier, DPAdditiveRegressor
from dpmodels.io import load_model, model_from_dict, model_to_dict, save_model
from dpmodels.model_selection import PrivateSearch, ProxySearch
from dpmodels.pipeline import make_private_pipeline, make_private_rule_list
from dpmodels.privacy import BudgetAccountant
from dpmodels.privacy.verdict import verdict
from dpmodels.rulelist import DPRuleListClassifier
from dpmodels.tree import PrivaTreeClassifier, PrivaTreeRegressor
from dpmodels.tree.baselines import BDPTClassifier, DPGDFClassifier

# the public packages whose exported estimators are checked (a missing optional package is skipped)
PACKAGES = ("dpmodels.rulelist", "dpmodels.tree", "dpmodels.tree.baselines", "dpmodels.data", "dpmodels.gam")

N = 80
CATS = {"c": ["a", "b", "c"]}
BOUNDS = {"x": (-3.0, 3.0)}
CLASSES = ["no", "yes"]


def _raw(n=N, seed=0):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({"x": rng.uniform(-3, 3, n), "c": rng.choice(CATS["c"], n)})
    y = np.where(X["x"] + (X["c"] == "a") > 0, "yes", "no")
    return X, y


def _binary(n=N, seed=0):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({f"b{j}": rng.integers(0, 2, n).astype(np.uint8) for j in range(3)})
    y = (X["b0"].to_numpy() ^ (rng.random(n) < 0.1)).astype(int)
    return X, y


def _regression(n=N, seed=0):
    X, _ = _raw(n, seed)
    return X, X["x"].to_numpy() * 2.0 + 1.0


DATA = {"raw": _raw, "binary": _binary, "regression": _regression, "categorical": lambda: (_raw()[0][["c"]], _raw()[1])}
DECLARED = dict(bounds=BOUNDS, categories=CATS, classes=CLASSES)


def _diffprivlib(name):
    def build(**kw):
        need("diffprivlib")
        cls = getattr(importlib.import_module("dpmodels.tree.baselines"), name)
        return cls(**kw)

    return build


# the planted leaks of a learner given every declaration (DECLARED): one declaration missing, a
# claimed mechanism, a seed
DECLARED_LEAKS = {
    "undeclared label set": {**DECLARED, "classes": None},
    "data-sourced bound": {**DECLARED, "bounds": None},
    "claimed mechanism": {**DECLARED, "variant": "published"},
    "seeded": {**DECLARED, "random_state": 0},
}
REGRESSION = {"bounds": BOUNDS, "categories": CATS, "label_bounds": (-5.0, 7.0)}
REGRESSION_LEAKS = {
    "data-sourced bound": {"bounds": BOUNDS, "categories": CATS},  # label bounds read from y
    "seeded": {**REGRESSION, "random_state": 0},
}


def _some(leaks, *names):
    return {name: leaks[name] for name in names}


# class name -> (data kind, clean params, {planted leak: params}); every factory fits with OS entropy
# unless the leak is the seed
CLASSES_TABLE: dict[str, tuple] = {
    "PrivaTreeClassifier": (PrivaTreeClassifier, "raw", DECLARED, DECLARED_LEAKS),
    "PrivaTreeRegressor": (PrivaTreeRegressor, "regression", REGRESSION, REGRESSION_LEAKS),
    "BDPTClassifier": (BDPTClassifier, "raw", DECLARED, DECLARED_LEAKS),
    "DPGDFClassifier": (
        DPGDFClassifier,
        "categorical",
        {"categories": CATS, "classes": CLASSES},
        {
            "undeclared label set": {"categories": CATS},
            "data-sourced bound": {"classes": CLASSES},  # the category list read from the data
            "claimed mechanism": {"categories": CATS, "classes": CLASSES, "variant": "published"},
            "seeded": {"categories": CATS, "classes": CLASSES, "random_state": 0},
        },
    ),
    "DPRuleListClassifier": (
        DPRuleListClassifier,
        "binary",
        {},  # the binary schema {0, 1} is public
        {
            # ε large enough that the support gate opens on 80 records and the claimed selection runs
            "claimed mechanism": {"mechanism": "sm-laplace", "delta": 1e-5, "n_public": N, "epsilon": 50.0},
            "data-sourced bound": {"mechanism": "sm-laplace", "delta": 1e-5},  # n read for Λ = ⌊λn⌋
            "seeded": {"random_state": 0},
        },
    ),
    "Binarizer": (
        Binarizer,
        "raw",
        {"bounds": BOUNDS, "categories": CATS, "epsilon": 0.5},
        {
            "data-sourced bound": {"categories": CATS, "epsilon": 0.5},  # quantiles of the data
            "seeded": {"bounds": BOUNDS, "categories": CATS, "epsilon": 0.5, "random_state": 0},
        },
    ),
    "DPAdditiveClassifier": (
        DPAdditiveClassifier,
        "raw",
        DECLARED,
        _some(DECLARED_LEAKS, "undeclared label set", "data-sourced bound", "seeded"),
    ),
    "DPAdditiveRegressor": (DPAdditiveRegressor, "regression", REGRESSION, REGRESSION_LEAKS),
    "DiffprivlibTreeClassifier": (
        _diffprivlib("DiffprivlibTreeClassifier"),
        "raw",
        DECLARED,
        _some(DECLARED_LEAKS, "data-sourced bound", "seeded"),
    ),
    "DPLogisticRegression": (
        _diffprivlib("DPLogisticRegression"),
        "raw",
        {"categories": CATS, "classes": CLASSES, "data_norm": 5.0},
        {
            "data-sourced bound": {"categories": CATS, "classes": CLASSES},  # data_norm read
            "seeded": {"categories": CATS, "classes": CLASSES, "data_norm": 5.0, "random_state": 0},
        },
    ),
}


def private_estimator_classes() -> set[str]:
    """Every exported estimator class of :data:`PACKAGES` that takes an ``epsilon``."""
    found = set()
    for pkg in PACKAGES:
        try:
            mod = importlib.import_module(pkg)
        except ImportError:
            continue
        for name in getattr(mod, "__all__", []):
            obj = getattr(mod, name, None)
            if inspect.isclass(obj) and issubclass(obj, BaseEstimator):
                if "epsilon" in inspect.signature(obj.__init__).parameters:
                    found.add(name)
    return found


def test_every_private_estimator_class_is_listed():
    assert private_estimator_classes() == set(CLASSES_TABLE), (
        "a private estimator class is missing from (or stale in) CLASSES_TABLE: add its clean and leaking params"
    )


def _quiet_fit(model, *data):
    """``model.fit(*data)`` with the leak warnings the planted cases raise silenced (the verdict is
    what is checked)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return model.fit(*data)


def _fit(est, kind):
    X, y = DATA[kind]()
    return _quiet_fit(est, X) if isinstance(est, Binarizer) else _quiet_fit(est, X, y)


def _assert_verdict(model, private):
    """The verdict says PRIVATE at the top exactly when ``private``; returns it."""
    v = verdict(model)
    assert v.is_private is private, v.reasons
    assert v.reasons[0].startswith("PRIVATE" if private else "NOT "), v.reasons
    return v


def _assert_refused(model, match, *data):
    """The fit refuses with a ValueError before anything is spent (no ledger)."""
    with pytest.raises(ValueError, match=match):
        model.fit(*data)
    assert not hasattr(model, "privacy_ledger_")


def _saved_verdict(model, tmp_path):
    """The file's is_private, and the loaded model's recomputed verdict."""
    try:
        doc = model_to_dict(model)
    except TypeError:  # not a class a model file may name (the Binarizer alone, diffprivlib wrappers)
        return None
    path = save_model(model, tmp_path / "m.json")
    return json.loads(path.read_text())["privacy"]["is_private"], verdict(load_model(path)).is_private, doc


CASES = [
    pytest.param(name, leak, id=f"{name}-{leak or 'clean'}")
    for name, (_, _, _, leaks) in CLASSES_TABLE.items()
    for leak in [None, *leaks]
]


@pytest.mark.parametrize("name, leak", CASES)
def test_private_estimator_verdict(name, leak, tmp_path):
    cls, kind, clean, leaks = CLASSES_TABLE[name]
    est = _fit(cls(**(clean if leak is None else leaks[leak])), kind)
    v = _assert_verdict(est, leak is None)
    saved = _saved_verdict(est, tmp_path)
    if saved is not None:
        in_file, loaded, _ = saved
        assert in_file is loaded is v.is_private


# ------------------------------------------------------------------------------------ compositions
def _binarizer(**kw):
    return Binarizer(**{"bounds": BOUNDS, "categories": CATS, "epsilon": 0.2, **kw})


def _pipe(binarizer_kw=None, learner_kw=None, private=False):
    make = make_private_pipeline if private else make_pipeline
    learner = DPRuleListClassifier(**{"epsilon": 0.8, "classes": CLASSES, **(learner_kw or {})})
    return make(_binarizer(**(binarizer_kw or {})), learner)


def _shared(binarizer_kw=None, learner_kw=None):
    kw = {"epsilon": 0.8, "classes": CLASSES, **(learner_kw or {})}
    acc = BudgetAccountant(0.2 + kw["epsilon"], 1e-5)
    return make_private_pipeline(
        _binarizer(accountant=acc, **(binarizer_kw or {})), DPRuleListClassifier(accountant=acc, **kw)
    )


CLAIMED = {"mechanism": "sm-laplace", "delta": 1e-5, "n_public": N, "epsilon": 50.0}
TREE = dict(DECLARED, n_public=N)
DEPTHS = [{"max_depth": 1}, {"max_depth": 2}]


def _proxy():
    X, y = _raw(60, seed=5)
    return [(X, y)]


# name -> (data kind, build clean, {planted leak: build}); "refused" in a leak's name: the
# composition must refuse it (a ValueError before anything is spent) rather than fit it
def _step_leaks(build):
    """The planted leaks of a pipeline of a Binarizer and a DP rule list built by ``build(binarizer_kw,
    learner_kw)``: one leaking step each."""
    return {
        "seeded step": lambda: build({"random_state": 0}, None),
        "data-sourced bound": lambda: build({"bounds": None}, None),
        "claimed mechanism": lambda: build(None, CLAIMED),
    }


def _private_pipe(binarizer_kw=None, learner_kw=None):
    return _pipe(binarizer_kw, learner_kw, private=True)


COMPOSITIONS: dict[str, tuple] = {
    "Pipeline": ("raw", lambda: _pipe(), _step_leaks(_pipe)),
    "make_private_pipeline": ("raw", lambda: _private_pipe(), _step_leaks(_private_pipe)),
    "shared accountant": ("raw", lambda: _shared(), _step_leaks(_shared)),
    "make_private_rule_list": (
        "raw",
        lambda: make_private_rule_list(epsilon=1.0, classes=CLASSES, bounds=BOUNDS, categories=CATS),
        {
            "seeded step": lambda: make_private_rule_list(
                epsilon=1.0, classes=CLASSES, bounds=BOUNDS, categories=CATS, random_state=0
            ),
            "data-sourced bound": lambda: make_private_rule_list(epsilon=1.0, classes=CLASSES, categories=CATS),
        },
    ),
    "PrivateSearch": (
        "raw",
        lambda: PrivateSearch(PrivaTreeClassifier(**TREE), DEPTHS, epsilon=1.0),
        {
            "undeclared label set (refused)": lambda: PrivateSearch(
                PrivaTreeClassifier(**{**TREE, "classes": None}), DEPTHS, epsilon=1.0
            ),
            "claimed mechanism (refused)": lambda: PrivateSearch(
                PrivaTreeClassifier(**TREE), [{"variant": "published"}, {"max_depth": 2}], epsilon=1.0
            ),
            "data-sourced bound (refused)": lambda: PrivateSearch(
                PrivaTreeClassifier(**{**TREE, "bounds": None}), DEPTHS, epsilon=1.0
            ),
            "seeded": lambda: PrivateSearch(PrivaTreeClassifier(**TREE), DEPTHS, epsilon=1.0, random_state=0),
        },
    ),
    "ProxySearch": (
        "raw",
        lambda: ProxySearch(PrivaTreeClassifier(**TREE), DEPTHS, _proxy(), epsilon=1.0, cv=2),
        {
            "undeclared label set": lambda: ProxySearch(
                PrivaTreeClassifier(**{**TREE, "classes": None}), DEPTHS, _proxy(), epsilon=1.0, n_public=N, cv=2
            ),
            "claimed mechanism": lambda: ProxySearch(
                PrivaTreeClassifier(**TREE), [{"variant": "published"}], _proxy(), epsilon=1.0, cv=2
            ),
            "seeded": lambda: ProxySearch(
                PrivaTreeClassifier(**TREE), DEPTHS, _proxy(), epsilon=1.0, cv=2, random_state=0
            ),
        },
    ),
}

COMPOSITION_CASES = [
    pytest.param(name, leak, id=f"{name}-{leak or 'clean'}")
    for name, (_, _, leaks) in COMPOSITIONS.items()
    for leak in [None, *leaks]
]


def _saved(model):
    """What a model file says of the fitted composition (the chosen model, for a search)."""
    inner = getattr(model, "best_estimator_", model)
    return model_from_dict(model_to_dict(inner))


@pytest.mark.parametrize("name, leak", COMPOSITION_CASES)
def test_composition_verdict(name, leak):
    kind, clean, leaks = COMPOSITIONS[name]
    model = (clean if leak is None else leaks[leak])()
    X, y = DATA[kind]()
    if leak is not None and "(refused)" in leak:
        _assert_refused(model, "cannot be trials of a private selection", X, y)
        return
    v = _assert_verdict(_quiet_fit(model, X, y), leak is None)
    loaded = _saved(model)
    if name.endswith("Search") and leak == "seeded":
        # the chosen model was fitted by the search with a seed it drew from its own: the file says seeded
        assert loaded.privacy["noise_seeded"] is True
    assert loaded.privacy["is_private"] is verdict(loaded).is_private is v.is_private


def test_a_model_file_cannot_claim_its_own_verdict(tmp_path):
    """Loading recomputes the verdict from the rows: a file that says is_private with a leak row is
    NOT PRIVATE once loaded, and so are its printed ledger and header."""
    est = _quiet_fit(PrivaTreeClassifier(**DECLARED_LEAKS["undeclared label set"]), *_raw())
    doc = model_to_dict(est)
    doc["privacy"]["is_private"] = True
    doc["privacy"]["verdict"] = ["PRIVATE: every release is a proven DP mechanism."]
    m = model_from_dict(doc)
    assert m.privacy["is_private"] is False and not verdict(m).is_private
    assert "NOT PRIVATE" in str(m) and "NOT PRIVATE" in m.privacy_ledger_.summary(verdict=verdict(m))


# ------------------------------------------------------------------------------- the command line
def _run(*args):
    exe = shutil.which("dpmodels")
    cmd = [exe, *args] if exe else [sys.executable, "-m", "dpmodels.cli", *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=300)


def _cli_declarations(classes=True):
    """The options declaring every public input (but the label set with ``classes=False``)."""
    return [*(["--classes", *CLASSES] if classes else []), "--categories", "c=" + ",".join(CATS["c"]), "--bounds",
            "x=-3:3"]  # fmt: skip


def _verdict_lines(stdout):
    return [ln.strip() for ln in stdout.splitlines() if ln.strip().startswith(("PRIVATE", "NOT PRIVATE", "NOT PROVEN"))]


@pytest.fixture(scope="module")
def csv_path(tmp_path_factory):
    X, y = _raw()
    p = tmp_path_factory.mktemp("conf") / "d.csv"
    X.assign(label=y).to_csv(p, index=False)
    return p


def _cli_main(*args, capsys):
    from dpmodels.cli import main

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        code = main(list(args))
    return code, capsys.readouterr()


LABEL = ("--label", "label")


def _fit_args(csv_path, out, *extra):
    """``dpmodels fit`` of a PrivaTree on the CSV into ``out``; ``extra``: the case's options."""
    return ["fit", "--data", str(csv_path), "--model", "privatree", *extra, "--out", str(out)]


def test_cli_fit_seeded_ends_not_private(csv_path, tmp_path):
    """The ``dpmodels`` command in a subprocess: --random-state warns, and the last verdict says so."""
    out = tmp_path / "m.json"
    r = _run(*_fit_args(csv_path, out, *LABEL, "--max-depth", "2", *_cli_declarations(), "--random-state", "0"))
    assert r.returncode == 0, r.stderr
    lines = _verdict_lines(r.stdout)
    assert lines and not any(ln.startswith("PRIVATE") for ln in lines), lines
    assert any("seed" in ln for ln in lines)
    doc = json.loads(out.read_text())
    assert doc["privacy"]["is_private"] is False and not verdict(load_model(out)).is_private


def test_cli_fit_declared_ends_private(csv_path, tmp_path, capsys):
    out = tmp_path / "m.json"
    code, cap = _cli_main(*_fit_args(csv_path, out, *LABEL, "--max-depth", "2", *_cli_declarations()), capsys=capsys)
    assert code == 0, cap.err
    lines = _verdict_lines(cap.out)
    assert lines and all(ln.startswith("PRIVATE") for ln in lines), lines
    assert json.loads(out.read_text())["privacy"]["is_private"] is True and verdict(load_model(out)).is_private


def test_cli_fit_undeclared_label_set_and_a_declared_schema_file(csv_path, tmp_path, capsys):
    out = tmp_path / "leak.json"
    code, cap = _cli_main(
        *_fit_args(csv_path, out, *LABEL, "--quiet", *_cli_declarations(classes=False)), capsys=capsys
    )
    assert code == 0 and json.loads(out.read_text())["privacy"]["is_private"] is False
    # a schema file of declarations (source: user) keeps the fit PRIVATE
    schema = tmp_path / "schema.json"
    cols = {
        "x": {"kind": "numerical", "bounds": list(BOUNDS["x"])},
        "c": {"kind": "categorical", "categories": CATS["c"]},
    }
    schema.write_text(json.dumps({"label": "label", "classes": CLASSES, "columns": cols}))
    out2 = tmp_path / "clean.json"
    code, cap = _cli_main(*_fit_args(csv_path, out2, "--schema", str(schema)), capsys=capsys)
    assert code == 0, cap.err
    assert json.loads(out2.read_text())["privacy"]["is_private"] is True
    assert all(ln.startswith("PRIVATE") for ln in _verdict_lines(cap.out))


# Schema reuse (issue 23 #2): a model file whose declarations were read from the data, reused as the
# schema of another fit, must not launder them: by a CLI model file (label set read from the data) and
# by a library fit saved with save_model (categories read from the data). A fully declared file reused
# the same way stays PRIVATE, so the test fails both ways.
SCHEMA_REUSE = ["cli-model-file", "library-save-model", "declared-model-file"]


def _schema_source_file(via, csv_path, tmp_path, capsys):
    path = tmp_path / "source.json"
    if via == "library-save-model":
        from dpmodels.io import save_model
        from dpmodels.tree import PrivaTreeClassifier

        est = _quiet_fit(PrivaTreeClassifier(epsilon=1.0, max_depth=2, bounds=BOUNDS, classes=CLASSES), *_raw())
        save_model(est, path)  # its categories were read from the data
        return path
    decl = _cli_declarations(classes=via == "declared-model-file")
    code, _ = _cli_main(*_fit_args(csv_path, path, *LABEL, "--quiet", *decl), capsys=capsys)
    assert code == 0
    return path


@pytest.mark.parametrize("via", SCHEMA_REUSE)
def test_schema_reuse_keeps_data_sources(csv_path, tmp_path, capsys, via):
    source = _schema_source_file(via, csv_path, tmp_path, capsys)
    out = tmp_path / "reuse.json"
    code, cap = _cli_main(*_fit_args(csv_path, out, *LABEL, "--schema", str(source), "--quiet"), capsys=capsys)
    assert code == 0, cap.err
    assert json.loads(out.read_text())["privacy"]["is_private"] is (via == "declared-model-file")


# ------------------------------------------------------------------------ partitioned input
def _parquet(tmp_path):
    need("pyarrow")
    from dpmodels.data import ParquetSource

    d = tmp_path / "parts"
    d.mkdir()
    X, y = _raw()
    df = X.assign(label=y)
    df.iloc[:40].to_parquet(d / "p0.parquet", index=False)
    df.iloc[40:].to_parquet(d / "p1.parquet", index=False)
    return (ParquetSource(d, label="label"),)


def _dask(tmp_path):
    dd = need("dask")
    X, y = _raw()
    ddf = dd.from_pandas(X.assign(label=y), npartitions=2)
    return ddf[list(X.columns)], ddf["label"]


PARTITIONED = {"parquet": _parquet, "dask": _dask}


# partitioned input reads no public input from the data: a fit that would is refused
@pytest.mark.parametrize(
    "source, leak",
    [
        pytest.param(source, leak, id=f"{source}-{leak}")
        for source, leaks in (
            ("parquet", [None, "undeclared label set (refused)", "data-sourced bound (refused)", "seeded"]),
            ("dask", [None, "undeclared label set (refused)"]),
        )
        for leak in leaks
    ],
)
def test_partitioned_fit_verdict(tmp_path, source, leak):
    data = PARTITIONED[source](tmp_path)
    est = PrivaTreeClassifier(max_depth=2, **(DECLARED if leak is None else DECLARED_LEAKS[leak.split(" (")[0]]))
    if leak is not None and "(refused)" in leak:
        _assert_refused(est, "not read from the data", *data)
        return
    _assert_verdict(_quiet_fit(est, *data), leak is None)
    assert model_from_dict(model_to_dict(est)).privacy["is_private"] is (leak is None)


@pytest.mark.parametrize("stateful", [False, True])
def test_a_step_without_a_ledger(stateful):
    """A fitted intermediate step that keeps no ledger learned something from the data that no
    ledger accounts for (a scaler's mean and variance); a stateless one did not."""
    from sklearn.preprocessing import FunctionTransformer, StandardScaler

    X, y = _raw()
    step = StandardScaler() if stateful else FunctionTransformer()
    model = make_pipeline(step, PrivaTreeClassifier(bounds=(-3.0, 3.0), classes=CLASSES)).fit(X[["x"]], y)
    v = verdict(model)
    assert v.is_private is not stateful, v.reasons
    assert not stateful or "StandardScaler (pipeline step 1)" in " ".join(v.reasons)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    seeded_binarizer=st.booleans(),
    binarizer_bounds=st.booleans(),
    learner_seeded=st.booleans(),
    learner_claimed=st.booleans(),
    shared=st.booleans(),
)
def test_a_pipeline_is_private_iff_every_part_is(
    seeded_binarizer, binarizer_bounds, learner_seeded, learner_claimed, shared
):
    """The composition rule as a property: over every combination of clean and leaking parts, the
    pipeline's verdict is PRIVATE exactly when no part leaks, and the saved file agrees."""
    bkw = {"random_state": 0 if seeded_binarizer else None, "bounds": BOUNDS if binarizer_bounds else None}
    lkw = {**(CLAIMED if learner_claimed else {}), "random_state": 0 if learner_seeded else None}
    model = _quiet_fit(_shared(bkw, lkw) if shared else _pipe(bkw, lkw), *_raw())
    clean = not (seeded_binarizer or not binarizer_bounds or learner_seeded or learner_claimed)
    assert verdict(model).is_private is clean, verdict(model).reasons
    assert model_from_dict(model_to_dict(model)).privacy["is_private"] is clean


def test_an_unfitted_estimator_has_no_verdict():
    from sklearn.exceptions import NotFittedError

    with pytest.raises(NotFittedError):
        verdict(PrivaTreeClassifier(**DECLARED))


def test_a_scikit_learn_search_over_a_dp_learner_is_not_private():
    """GridSearchCV's choice is an exact function of fold scores on private rows: no ledger covers it."""
    from sklearn.model_selection import GridSearchCV

    X, y = _raw()
    gs = GridSearchCV(PrivaTreeClassifier(**DECLARED), {"max_depth": [1, 2]}, cv=2).fit(X, y)
    v = verdict(gs)
    assert not v.is_private and "GridSearchCV (its choice among fits on the private data)" in " ".join(v.reasons)
