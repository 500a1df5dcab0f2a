"""Binarizer: readable names, public / DP / leaked cut points, categories with unknowns of any type,
scikit-learn conventions (set_output, feature names, clone, pickle, check_estimator), export."""

import copy
import json
import pickle
import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.utils.estimator_checks import parametrize_with_checks

from dpmodels.data import Binarizer, dataset_schema, load_dataset
from dpmodels.privacy import BudgetAccountant, PrivacyLeakWarning


def frame(n=200, seed=0):
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {
            "age": rng.integers(18, 90, n),
            "income": rng.exponential(30_000, n),
            "sex": pd.Categorical(rng.choice(["Female", "Male"], n), categories=["Female", "Male"]),
            "race": rng.choice(["A", "B", "C"], n).astype(object),
        }
    )


RACE = {"race": ["A", "B", "C"]}


# ------------------------------------------------------------------ public cut points, names
def test_public_cut_points_are_used_exactly_with_readable_names():
    X = frame()
    b = Binarizer(cut_points={"age": [45, 30], "income": [12_345.5]}, categories=RACE)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # nothing read from the data: no warning
        Z = b.fit_transform(X)
    assert list(Z.columns) == ["age<=30", "age<=45", "income<=12345.5", "sex=Male", "race=A", "race=B", "race=C"]
    assert Z.dtypes.unique().tolist() == [np.uint8]
    np.testing.assert_array_equal(Z["age<=30"], (X["age"] <= 30).astype(np.uint8))
    np.testing.assert_array_equal(Z["age<=45"], (X["age"] <= 45).astype(np.uint8))
    np.testing.assert_array_equal(Z["income<=12345.5"], (X["income"] <= 12345.5).astype(np.uint8))
    np.testing.assert_array_equal(Z["sex=Male"], (X["sex"] == "Male").astype(np.uint8))
    np.testing.assert_array_equal(Z["race=B"], (X["race"] == "B").astype(np.uint8))
    np.testing.assert_array_equal(b.cut_points_["age"], [30.0, 45.0])
    assert b.cut_point_source_ == {"age": "public", "income": "public"}
    led = b.privacy_ledger_
    assert led.rows == [] and led.epsilon == 0 and led.is_private
    assert b.groups_["age<=30"] == {"feature": "age", "kind": "interval", "value": [None, 30.0]}
    assert b.groups_["sex=Male"] == {"feature": "sex", "kind": "category", "value": "Male"}
    assert Z.attrs["dpmodels_groups"] == b.groups_
    assert list(b.get_feature_names_out()) == list(Z.columns)


def test_threshold_names_round_trip_exactly():
    cuts = [0.1, 1e-7, 123456789.25, -3.5, 2.0]
    b = Binarizer(cut_points={"x0": cuts}).fit(np.zeros((3, 1)))
    for name, c in zip(b.get_feature_names_out(), sorted(cuts)):
        assert float(name.split("<=")[1]) == c


def test_onehot_encoding_bins_partition_the_line():
    X = pd.DataFrame({"x": [-1.0, 0.0, 0.5, 1.0, 2.0, 3.0]})
    Z = Binarizer(cut_points={"x": [0, 1, 2]}, encoding="onehot").fit_transform(X)
    assert list(Z.columns) == ["x<=0", "0<x<=1", "1<x<=2", "x>2"]
    assert (Z.sum(axis=1) == 1).all()
    np.testing.assert_array_equal(Z.to_numpy().argmax(axis=1), [0, 0, 1, 1, 2, 3])
    one = Binarizer(cut_points={"x": [0]}, encoding="onehot").fit(X)
    assert list(one.get_feature_names_out()) == ["x<=0"]  # two bins: one column


def test_drop_if_binary_and_drop_none():
    X = frame()
    assert [
        c for c in Binarizer(cut_points={"age": [], "income": []}).fit(X).get_feature_names_out() if c.startswith("sex")
    ] == ["sex=Male"]
    b = Binarizer(cut_points={"age": [], "income": []}, drop=None, categories=RACE).fit(X)
    assert list(b.get_feature_names_out()) == ["sex=Female", "sex=Male", "race=A", "race=B", "race=C"]


# ------------------------------------------------------------------ unknown categories
def test_values_outside_the_declared_list_are_unknown_all_zero():
    odd = [None, np.nan, pd.NA, 7, 7.0, ("t",), ["unhashable"], "a", "C ", b"A"]
    X = pd.DataFrame({"race": pd.Series(["A", "B", "C"] + odd, dtype=object)})
    b = Binarizer(categories={"race": ["A", "B", "C"]}).fit(X.iloc[:3])
    Z = b.transform(X)
    np.testing.assert_array_equal(Z.iloc[:3].to_numpy(), np.eye(3, dtype=np.uint8))
    assert (Z.iloc[3:].to_numpy() == 0).all()
    # the same rows in the training data raise nothing either
    Z2 = Binarizer(categories={"race": ["A", "B", "C"]}).fit_transform(X)
    assert (Z2.iloc[3:].to_numpy() == 0).all()


def test_categorical_dtype_is_a_declaration_and_object_columns_leak():
    X = frame()
    with warnings.catch_warnings():
        warnings.simplefilter("error", PrivacyLeakWarning)
        b = Binarizer(cut_points={"age": [30], "income": [1e4]}, categories=RACE).fit(X)
    assert b.categories_["sex"] == ["Female", "Male"]
    with pytest.warns(PrivacyLeakWarning, match="categories of feature 'race'"):
        b = Binarizer(cut_points={"age": [30], "income": [1e4]}).fit(X)
    assert b.categories_["race"] == ["A", "B", "C"]
    assert not b.privacy_ledger_.is_private


def test_numpy_input_is_numerical_unless_declared():
    X = np.array([[1.0, 0.0], [2.0, 1.0], [3.0, 2.0]])
    b = Binarizer(cut_points={0: [1.5]}, categories={1: [0.0, 1.0, 2.0]}).fit(X)
    assert list(b.get_feature_names_out()) == ["x0<=1.5", "x1=0.0", "x1=1.0", "x1=2.0"]
    np.testing.assert_array_equal(b.transform(X).to_numpy(), [[1, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]])


# ------------------------------------------------------------------ DP quantiles
def test_dp_quantiles_split_epsilon_across_numerical_features():
    X = frame(2000)
    X["const"] = 5.0
    bounds = {"age": (17, 90), "income": (0, 200_000), "const": (5, 5)}
    b = Binarizer(epsilon=0.6, bounds=bounds, categories=RACE, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error", PrivacyLeakWarning)
        b.fit(X)
    led = b.privacy_ledger_
    assert [r.what for r in led.rows] == ["2 quantiles of 'age'", "2 quantiles of 'income'"]
    assert all(
        r.epsilon == pytest.approx(0.3)
        and r.sensitivity == 2.0
        and r.guarantee == "proven"
        and r.composition == "sequential"
        for r in led.rows
    )
    assert led.epsilon == 0.6 and led.epsilon_spent == pytest.approx(0.6) and led.is_private
    assert b.cut_point_source_["age"] == "dp" and b.cut_points_["const"].size == 0  # lo == hi
    c = b.cut_points_["age"]
    assert np.all((c >= 17) & (c <= 90)) and np.all(np.diff(c) > 0)
    assert np.all(np.round(c, 1) == c)  # readable: resolution 0.1 for a range of 73
    # near the true terciles at this budget and n
    assert np.all(np.abs(c - np.quantile(X["age"], [1 / 3, 2 / 3])) < 8)
    # reproducible with a seed, random without one
    np.testing.assert_array_equal(clone(b).fit(X).cut_points_["age"], c)


def test_dp_thresholds_stay_within_the_bounds_and_every_feature_keeps_a_column():
    X = pd.DataFrame({"x": np.full(500, 10.0), "z": np.full(500, -3.0)})  # values at the bounds
    for seed in range(5):
        b = Binarizer(epsilon=5.0, bounds=(0, 10), random_state=seed).fit(X)
        for f in ("x", "z"):
            c = b.cut_points_[f]
            assert 1 <= c.size <= 2 and np.all((c >= 0) & (c <= 10))
        Z = b.transform(X)
        assert (Z.filter(like="z<=").to_numpy() == 1).all()  # clipped to 0 <= every threshold


def test_dp_quantiles_without_bounds_record_a_leak():
    with pytest.warns(PrivacyLeakWarning, match="bounds"):
        b = Binarizer(epsilon=1.0, categories=RACE, random_state=0).fit(frame())
    assert not b.privacy_ledger_.is_private
    assert b.privacy_ledger_.epsilon_spent == pytest.approx(1.0)


def test_data_quantiles_warn_and_leave_a_leak_row_per_feature():
    X = frame()
    with pytest.warns(PrivacyLeakWarning, match="quantiles of feature 'age'"):
        b = Binarizer(n_bins=4, categories=RACE).fit(X)
    leaks = b.privacy_ledger_.leaks
    assert [r.what for r in leaks] == [
        "quantiles of feature 'age' (cut points)",
        "quantiles of feature 'income' (cut points)",
    ]
    assert not b.privacy_ledger_.is_private and "NOT PRIVATE" in b.privacy_ledger_.summary()
    np.testing.assert_array_equal(b.cut_points_["age"], np.unique(np.quantile(X["age"], [0.25, 0.5, 0.75])))
    assert b.cut_point_source_["age"] == "data"


# ------------------------------------------------------------------ errors before any budget
@pytest.mark.parametrize(
    "params, match",
    [
        (dict(n_bins=1), "n_bins"),
        (dict(n_bins=2.5), "n_bins"),
        (dict(encoding="ordinal"), "encoding"),
        (dict(drop="first"), "drop"),
        (dict(cut_points={"race": [1]}, categories=RACE), "categorical"),
        (dict(cut_points={"age": ["x"]}), "numbers"),
        (dict(cut_points={"age": [np.inf]}), "finite"),
        (dict(cut_points={"nope": [1]}), "unknown feature"),
        (
            dict(epsilon=1.0, bounds={"age": (17, 90)}, categories=RACE),
            "no \\(lo, hi\\) for numerical feature 'income'",
        ),
        (dict(epsilon=-1.0), "epsilon"),
        (dict(accountant="acc"), "accountant"),
    ],
)
def test_bad_parameters_fail_before_anything_is_spent(params, match):
    acc = BudgetAccountant(1.0)
    with pytest.raises((ValueError, TypeError), match=match):
        Binarizer(**params).set_params(**({} if "accountant" in params else {"accountant": acc})).fit(frame())
    assert acc.ledger.epsilon_spent == 0


def test_nan_in_a_numerical_feature_is_a_schema_error_naming_the_feature():
    X = frame()
    X.loc[3, "age"] = np.nan
    with pytest.raises(ValueError, match="NaN.*'age'"):
        Binarizer(cut_points={"age": [30], "income": [1]}, categories=RACE).fit(X)
    b = Binarizer(cut_points={"age": [30], "income": [1]}, categories=RACE).fit(frame())
    with pytest.raises(ValueError, match="'age'"):
        b.transform(X)


def test_colliding_output_names_are_refused():
    X = pd.DataFrame({"c": ["1", "1"]})
    with pytest.raises(ValueError, match="named 'c=True'"):
        Binarizer(categories={"c": [True, "True", "2"]}).fit(X)
    with pytest.raises(ValueError, match="the same number"):  # 1 and "1" are one value
        Binarizer(categories={"c": [1, "1", "2"]}).fit(X)


def test_transform_checks_columns():
    b = Binarizer(cut_points={"age": [30], "income": [1]}, categories=RACE).fit(frame())
    with pytest.raises(ValueError):
        b.transform(frame().drop(columns="race"))


# ------------------------------------------------------------------ scikit-learn
def test_set_output_and_clone_and_pickle():
    X = frame()
    b = Binarizer(cut_points={"age": [30], "income": [1e4]}, categories=RACE)
    Z = b.fit_transform(X)
    pd.testing.assert_frame_equal(b.set_output(transform="pandas").transform(X), Z)
    assert b.transform(X).attrs["dpmodels_groups"] == b.groups_
    pd.testing.assert_frame_equal(b.set_output(transform="default").transform(X), Z)
    pd.testing.assert_frame_equal(clone(b).fit(X).transform(X), Z)
    pd.testing.assert_frame_equal(pickle.loads(pickle.dumps(b)).transform(X), Z)
    pd.testing.assert_frame_equal(copy.deepcopy(b).transform(X), Z)
    # index is kept
    Xi = X.set_index(pd.Index(np.arange(len(X)) * 3))
    assert (b.transform(Xi).index == Xi.index).all()


@parametrize_with_checks(
    [
        Binarizer(epsilon=1.0, bounds=(-5.0, 5.0), random_state=0),
        Binarizer(cut_points={0: [0.0, 1.0]}, encoding="onehot", bounds=(-5.0, 5.0), epsilon=1.0, random_state=0),
    ],
    expected_failed_checks=lambda est: {
        c: "fits sample_weight above 1, which costs k·ε (group privacy): refused; unit weights are "
        "covered by tests/test_private_pipeline.py"
        for c in (
            "check_sample_weights_list",
            "check_sample_weights_not_overwritten",
            "check_sample_weight_equivalence_on_dense_data",
        )
    },
)
def test_sklearn_compatible(estimator, check):
    check(estimator)


# ------------------------------------------------------------------ export
def test_to_dict_is_json_safe_and_round_trips():
    X = frame(500)
    b = Binarizer(epsilon=1.0, bounds={"age": (17, 90), "income": (0, 2e5)}, categories=RACE, random_state=3).fit(X)
    d = json.loads(json.dumps(b.to_dict()))
    r = Binarizer.from_dict(d)
    pd.testing.assert_frame_equal(r.transform(X), b.transform(X))
    assert r.groups_ == b.groups_ and r.privacy_ledger_.to_dict() == b.privacy_ledger_.to_dict()
    assert d["features"][0]["source"] == "dp"
    # its parameters are the released schema: refitting costs nothing and gives the same columns
    with warnings.catch_warnings():
        warnings.simplefilter("error", PrivacyLeakWarning)
        refit = clone(r).fit(X)
    assert refit.privacy_ledger_.rows == []
    pd.testing.assert_frame_equal(refit.transform(X), b.transform(X))


@pytest.mark.parametrize(
    "mutate",
    [
        lambda d: d.update(format="other"),
        lambda d: d.update(version=99),
        lambda d: d.pop("features"),
        lambda d: d["columns"].append("zzz"),
        lambda d: d["features"][0].update(kind="weird"),
        lambda d: d["features"][0].update(cut_points=["a"]),
    ],
)
def test_from_dict_rejects_malformed_input(mutate):
    d = Binarizer(cut_points={"age": [30], "income": [1]}, categories=RACE).fit(frame()).to_dict()
    mutate(d)
    with pytest.raises(ValueError):
        Binarizer.from_dict(d)


# ------------------------------------------------------------------ bundled raw data
def test_raw_adult_with_the_documented_schema():
    X, y = load_dataset("adult", binarized=False)
    s = dataset_schema("adult")
    b = Binarizer(epsilon=0.3, random_state=0, **{k: v for k, v in s.fit_params().items() if k != "classes"})
    with warnings.catch_warnings():
        warnings.simplefilter("error", PrivacyLeakWarning)
        Z = b.fit_transform(X.iloc[:5000])
    assert b.privacy_ledger_.is_private and len(b.privacy_ledger_.rows) == 6
    assert "sex=Male" in Z.columns and "marital_status=Married-civ-spouse" in Z.columns
    assert any(c.startswith("capital_gain<=") for c in Z.columns)


def test_paper_protocol_on_raw_data_runs_one_split():
    import pandas as pd

    from dpmodels.experiments.paper_000.protocol import markdown_table, pipeline_cells

    (cell,) = pipeline_cells(
        datasets=("compas",), epsilons=(1.0,), runs=1, learners=("permute-and-flip", "sm-laplace (ptr)"), data="raw"
    )
    df = pd.DataFrame(cell.run())
    acc = df[df.metric == "accuracy"]
    assert set(df.metric) == {"accuracy", "n_rules"} and len(acc) == 3
    assert acc["value"].between(0.4, 0.8).all()
    assert all('"data": "raw"' in p for p in df.parameters)
    assert "compas (raw)" in markdown_table(df)
    with pytest.raises(ValueError, match="data"):
        pipeline_cells(runs=1, data="csv")


def test_integer_declared_features_get_integer_thresholds():
    """``integer_features`` declares integer columns: their thresholds are ⌊c⌋, which selects the
    same integers as c, so the transform on integer data is unchanged and the names read as
    integers; integer-valued bounds alone declare nothing (a real column may have bounds (-3, 3))."""
    rng = np.random.default_rng(3)
    X = rng.integers(1, 17, size=(2000, 2)).astype(float)
    kw = dict(epsilon=1.0, n_bins=5, random_state=7, bounds={0: (1, 16), 1: (1, 16)})
    b_int = Binarizer(integer_features=[0], **kw).fit(X)
    b_real = Binarizer(**kw).fit(X)
    names, real_names = list(b_int.get_feature_names_out()), list(b_real.get_feature_names_out())
    assert all(n.split("<=")[1].isdigit() for n in names if n.startswith("x0"))
    assert not all(n.split("<=")[1].isdigit() for n in real_names if n.startswith("x0"))  # the control
    assert [n for n in names if n.startswith("x1")] == [n for n in real_names if n.startswith("x1")]
    # same draws, same tests on integers: every x0 column of the integer fit equals a real-fit column
    Ti, Tr = np.asarray(b_int.transform(X)), np.asarray(b_real.transform(X))
    real_x0 = {tuple(Tr[:, k]) for k, n in enumerate(real_names) if n.startswith("x0")}
    int_x0 = {tuple(Ti[:, k]) for k, n in enumerate(names) if n.startswith("x0")}
    assert int_x0 <= real_x0 and len(int_x0) >= 1
    # declared cut points are kept as given
    b_cut = Binarizer(integer_features=[0], cut_points={0: [4.5]}, **kw).fit(X)
    assert "x0<=4.5" in list(b_cut.get_feature_names_out())
    # bad declarations are one-line errors before anything is spent
    for bad, msg in (([5], "unknown feature"), ("x0", "must be None or a list")):
        with pytest.raises(ValueError, match=msg):
            Binarizer(integer_features=bad, **kw).fit(X)
    Xc = pd.DataFrame({"a": X[:, 0], "c": np.where(X[:, 1] > 8, "u", "v")})
    with pytest.raises(ValueError, match="'c' is categorical"):
        Binarizer(integer_features=["c"], epsilon=1.0, bounds={"a": (1, 16)}, categories={"c": ["u", "v"]}).fit(Xc)
