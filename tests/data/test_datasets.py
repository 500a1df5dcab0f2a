"""Tests for dpmodels.data: bundled files, shapes, label counts, dtypes, copies.

Expected figures come from the data pack's PROVENANCE.md (reproduced in
src/dpmodels/data/_bundled/NOTICE.md). Where possible, binarized files are
also cross-checked against the raw files.
"""

from __future__ import annotations

import gzip
import hashlib
import re
from importlib import resources

import numpy as np
import pandas as pd
import pytest

from dpmodels.data import (
    dataset_schema,
    list_datasets,
    load_adult,
    load_compas,
    load_dataset,
    load_german,
)
from dpmodels.data import datasets as ds

# sha256 of the *uncompressed* bytes, from PROVENANCE.md
SHA256 = {
    "adult.data.gz": "5b00264637dbfec36bdeaab5676b0b309ff9eb788d63554ca0a249491c86603d",
    "adult.test.gz": "a2a9044bc167a35b2361efbabec64e89d69ce82d9790d2980119aac5fd7e9c05",
    "compas-scores-two-years.csv.gz": "c451db85908b2f7fef1d83203bedf6b71ecda0d5af468d82ae62178f91d0cc7d",
    "german.data.gz": "b21f3d81db8071257d5ff1deaeba1fd4303b62712e6fcc9715c7a86202cb5871",
    "agaricus-lepiota.data.gz": "e65d082030501a3ebcbcd7c9f7c71aa9d28fdfff463bf4cf4716a3fe13ac360e",
    "nursery.data.gz": "8e0389c3dd37590248a921c2726d869ee96b817761a35eb8416afa24f31f931d",
    "house-votes-84.data.gz": "c87c14110a5ba91d4a1e313ec7392824458152bf071fa5f5452340488337936e",
    "breast-cancer-wisconsin.data.gz": "402c585309c399237740f635ef9919dc512cca12cbeb20de5e563a4593f22b64",
    "pima-indians-diabetes.data.gz": "06f5b7c2cd7bca686fda4f92eab5f61e7ff6426a9acefa2e3dda04fc54293cf5",
    "adult.csv.gz": "933f173cf3f67b9da098b155c13c93650d43a45e6b80a05621adf03bd6531b69",
    "compas.csv.gz": "df5eccc8e4468568b1e1d28859f9c2b33925e3cc1c8eaacb5e479609e088fbf4",
    "german-credit.txt.gz": "e828409b23b9e7d23fb45359742d4dbbc244976e06d47fe63a1bb8de41e2c313",
    "mushroom.txt.gz": "1c79653e52e83b0b34ad5d2e7cf390b23470db8e7949a8b70c37b3498d2f0516",
    "vote.txt.gz": "d39cc11ca6ff02091f0ee54aa96a35736a2faad069500bb7612803cab4962130",
    "tic-tac-toe.txt.gz": "a3a513c38721fd0e8800e8dc42eee2724d982540e762159812f8f83f70fe07b3",
    "breast-wisconsin.txt.gz": "c03164a2858f2a15b44281d4033ab5624b1126120341522e17667009989535f5",
    "diabetes.txt.gz": "e68ff88fb5970e0a3470fa595d45c5cf97c01416aa54a9d646388c872e01e5db",
    "australian-credit.txt.gz": "d1a4a329f1ae4baca5e569b143c755267aeea5204b1d07c20bd4f8dd3fd0d457",
    "heart-cleveland.txt.gz": "8a1fe76d8329f45e34e4576410f8914327db6ca354c9f287c3c869f62c2c11ff",
}

BUNDLE = resources.files("dpmodels.data").joinpath("_bundled")


# --------------------------------------------------------------------------- #
# Bundled files
# --------------------------------------------------------------------------- #
@pytest.mark.parametrize("filename", sorted(SHA256))
def test_bundled_file_sha256_of_uncompressed_bytes(filename):
    with BUNDLE.joinpath(filename).open("rb") as fh:
        raw = gzip.decompress(fh.read())
    assert hashlib.sha256(raw).hexdigest() == SHA256[filename]


def test_bundle_has_notice_and_no_unexpected_gz():
    names = {p.name for p in BUNDLE.iterdir()}
    assert "NOTICE.md" in names
    assert {n for n in names if n.endswith(".gz")} == set(SHA256)
    notice = BUNDLE.joinpath("NOTICE.md").read_text(encoding="utf-8")
    for digest in SHA256.values():
        assert digest in notice


# --------------------------------------------------------------------------- #
# Registry / API
# --------------------------------------------------------------------------- #
def test_list_datasets():
    assert list_datasets(False) == sorted(
        ["adult", "compas", "german", "breast-w", "diabetes", "mushroom", "nursery", "vote"]
    )
    assert list_datasets(True) == sorted(
        [
            "adult", "compas", "german", "breast-w", "diabetes", "mushroom",
            "vote", "tic-tac-toe", "australian-credit", "heart-cleveland",
        ]
    )  # fmt: skip
    assert list_datasets() == sorted(set(list_datasets(True)) | set(list_datasets(False)))


def test_unknown_name_raises_with_valid_names():
    with pytest.raises(ValueError, match="adult") as exc:
        load_dataset("no-such-dataset")
    for name in list_datasets(True):
        assert name in str(exc.value)
    with pytest.raises(ValueError, match="nursery"):
        load_dataset("nursery", binarized=True)
    with pytest.raises(ValueError, match="tic-tac-toe"):
        load_dataset("tic-tac-toe", binarized=False)


def test_aliases_and_convenience_loaders():
    Xa, ya = load_dataset("german-credit")
    Xb, yb = load_german()
    pd.testing.assert_frame_equal(Xa, Xb)
    pd.testing.assert_series_equal(ya, yb)
    X, y = load_adult(binarized=False)
    assert X.shape == (45_222, 14)
    X, y = load_compas()
    assert y.name == "is_recid"


def test_returns_copies():
    X, y = load_dataset("adult")
    X.iloc[:, 0] = 7
    y.iloc[:] = 5
    X.attrs["categorical"].append("junk")
    X2, y2 = load_dataset("adult")
    assert set(np.unique(X2.to_numpy())) <= {0, 1}
    assert set(y2.unique()) == {0, 1}
    assert X2.attrs["categorical"] == []

    Xr, yr = load_dataset("mushroom", binarized=False)
    Xr.loc[0, "odor"] = np.nan
    del Xr["habitat"]
    Xr2, _ = load_dataset("mushroom", binarized=False)
    assert "habitat" in Xr2.columns
    assert Xr2.notna().all().all()


# --------------------------------------------------------------------------- #
# Binarized datasets
# --------------------------------------------------------------------------- #
BINARIZED = {
    # name: (rows, features, label-1 count, y name)
    "adult": (48_842, 24, 11_687, "income"),
    "compas": (7_214, 27, 3_471, "is_recid"),
    "german": (1_000, 112, 700, "good"),
    "mushroom": (8_124, 119, 4_208, "edible"),
    "vote": (435, 48, 267, "democrat"),
    "tic-tac-toe": (958, 27, 626, "x_wins"),
    "breast-w": (683, 120, 444, "benign"),
    "diabetes": (768, 112, 500, "tested_negative"),
    "australian-credit": (653, 125, 357, "class_minus"),
    "heart-cleveland": (296, 95, 160, "no_disease"),
}


@pytest.mark.parametrize("name", sorted(BINARIZED))
def test_binarized_shape_labels_dtypes(name):
    rows, feats, pos, yname = BINARIZED[name]
    X, y = load_dataset(name, binarized=True)
    assert X.shape == (rows, feats)
    assert len(y) == rows
    assert y.dtype == np.int64 and y.name == yname
    assert set(y.unique()) == {0, 1}
    assert int(y.sum()) == pos
    assert (X.dtypes == np.uint8).all()
    assert set(np.unique(X.to_numpy())) <= {0, 1}
    assert X.columns.is_unique and all(isinstance(c, str) for c in X.columns)
    assert X.attrs["categorical"] == []
    assert X.attrs["binarized"] is True
    assert y.attrs["positive_class"]


def test_binarized_adult_columns_and_totals():
    X, y = load_dataset("adult")
    assert "income" not in X.columns
    assert X["gender_Male"].sum() == 32_650
    assert X["age_high"].sum() == 25_148
    assert X["hours_per_week_high"].sum() == 37_155
    assert X["workclass_Private"].sum() == 33_906
    ones_per_group = X[["gender_Female", "gender_Male"]].sum(axis=1)
    assert (ones_per_group == 1).all()
    workclass = [c for c in X.columns if c.startswith("workclass_")]
    assert (X[workclass].sum(axis=1) == 0).sum() == 2_830


def test_binarized_compas_names_are_fixed_and_match_raw():
    X, y = load_dataset("compas")
    assert "Age>=40" in X.columns and "Age>=45" in X.columns
    assert "Age<=40" not in X.columns and "Age<=45" not in X.columns
    assert "Recidivate-Within-Two-Years" not in X.columns
    raw = ds._read_csv("compas-scores-two-years.csv.gz", keep_default_na=False, na_values=[""])
    age = raw["age"].to_numpy()
    np.testing.assert_array_equal(X["Age>=40"].to_numpy(), age >= 40)
    np.testing.assert_array_equal(X["Age>=45"].to_numpy(), age >= 45)
    np.testing.assert_array_equal(X["Age=18-25"].to_numpy(), age <= 25)
    # the published label is is_recid, not two_year_recid
    np.testing.assert_array_equal(y.to_numpy(), raw["is_recid"].to_numpy())
    assert int((y.to_numpy() != raw["two_year_recid"].to_numpy()).sum()) == 220


def test_binarized_vote_names_match_raw():
    Xb, yb = load_dataset("vote")
    Xr, yr = load_dataset("vote", binarized=False)
    for issue in Xr.columns:
        for v in ("n", "y", "?"):
            np.testing.assert_array_equal(Xb[f"{issue}={v}"].to_numpy(), (Xr[issue] == v).to_numpy())
    # CP4IM: 1 = majority class (democrat); raw loader: 1 = republican
    np.testing.assert_array_equal(yb.to_numpy(), 1 - yr.to_numpy())


def test_binarized_tic_tac_toe_names_are_consistent():
    X, y = load_dataset("tic-tac-toe")
    board = X.to_numpy().reshape(-1, 9, 3)  # squares x (blank, o, x)
    assert (board.sum(axis=2) == 1).all()
    assert list(X.columns[:3]) == ["top_left=b", "top_left=o", "top_left=x"]
    xs, os_ = board[:, :, 2], board[:, :, 1]
    assert set(np.unique(xs.sum(axis=1) - os_.sum(axis=1))) <= {0, 1}  # x moves first
    lines = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)]
    x_wins = np.zeros(len(X), dtype=bool)
    for line in lines:
        x_wins |= xs[:, list(line)].all(axis=1)
    np.testing.assert_array_equal(x_wins, y.to_numpy() == 1)


@pytest.mark.parametrize(
    "name,flipped",
    [("german", False), ("mushroom", True), ("breast-w", True), ("diabetes", True)],
)
def test_binarized_cp4im_labels_align_with_raw(name, flipped):
    """Same rows and order as the raw file (complete rows for breast-w)."""
    _, yb = load_dataset(name, binarized=True)
    dropna = name == "breast-w"
    _, yr = load_dataset(name, binarized=False, dropna=dropna)
    expected = 1 - yr.to_numpy() if flipped else yr.to_numpy()
    np.testing.assert_array_equal(yb.to_numpy(), expected)


# --------------------------------------------------------------------------- #
# Raw datasets
# --------------------------------------------------------------------------- #
RAW = {
    # name: (rows dropna=False, rows dropna=True, n features,
    #        label-1 count dropna=False, label-1 count dropna=True)
    "adult": (48_842, 45_222, 14, 11_687, 11_208),
    "compas": (6_172, 6_172, 9, 2_809, 2_809),
    "german": (1_000, 1_000, 20, 700, 700),
    "breast-w": (699, 683, 9, 241, 239),
    "diabetes": (768, 768, 8, 268, 268),
    "mushroom": (8_124, 5_644, 22, 3_916, 2_156),
    "vote": (435, 435, 16, 168, 168),
}


def _check_raw_types(X: pd.DataFrame):
    cats = X.attrs["categorical"]
    assert cats == [c for c in X.columns if isinstance(X[c].dtype, pd.CategoricalDtype)]
    for col in X.columns:
        if col in cats:
            categories = list(X[col].cat.categories)
            assert categories == sorted(categories)
            assert all(isinstance(c, str) and c == c.strip() and c != "" for c in categories)
        else:
            assert pd.api.types.is_numeric_dtype(X[col]), col


@pytest.mark.parametrize("name", sorted(RAW))
def test_raw_shapes_labels_types(name):
    n_all, n_drop, n_feat, pos_all, pos_drop = RAW[name]
    X, y = load_dataset(name, binarized=False, dropna=False)
    assert X.shape == (n_all, n_feat)
    assert y.dtype == np.int64 and y.name and set(y.unique()) == {0, 1}
    assert int(y.sum()) == pos_all
    _check_raw_types(X)

    X, y = load_dataset(name, binarized=False)  # dropna=True by default
    assert X.shape == (n_drop, n_feat)
    assert int(y.sum()) == pos_drop
    assert not X.isna().any().any()
    assert (X.index == np.arange(n_drop)).all() and (y.index == X.index).all()
    _check_raw_types(X)
    for col in X.columns:
        if col not in X.attrs["categorical"]:
            assert X[col].dtype in (np.int64, np.float64)
    assert X.attrs["binarized"] is False and X.attrs["source"]


def test_raw_adult_details():
    X, y = load_dataset("adult", binarized=False, dropna=False)
    assert int(X.isna().any(axis=1).sum()) == 2_399 + 1_221
    assert int(X["workclass"].isna().sum()) == 1_836 + 963
    assert int(X["occupation"].isna().sum()) == 1_843 + 966
    assert int(X["native_country"].isna().sum()) == 583 + 274
    assert "?" not in X["workclass"].cat.categories
    assert X["age"].dtype == np.int64  # numeric columns have no NaN
    assert int(y.iloc[:32_561].sum()) == 7_841  # adult.data first
    assert int(y.iloc[32_561:].sum()) == 3_846  # then adult.test
    assert set(X["sex"].cat.categories) == {"Female", "Male"}
    assert "income" not in X.columns


def test_raw_compas_features_no_leakage(compas_raw):
    X, y = compas_raw
    assert list(X.columns) == [
        "sex", "age", "age_cat", "race", "juv_fel_count", "juv_misd_count",
        "juv_other_count", "priors_count", "c_charge_degree",
    ]  # fmt: skip
    assert sorted(X.attrs["categorical"]) == ["age_cat", "c_charge_degree", "race", "sex"]
    assert set(X["c_charge_degree"].cat.categories) == {"F", "M"}
    assert y.name == "two_year_recid"
    assert X["age"].min() >= 18


def test_raw_german_names():
    X, y = load_dataset("german", binarized=False)
    assert list(X.columns) == [
        "checking_status", "duration", "credit_history", "purpose",
        "credit_amount", "savings", "employment", "installment_rate",
        "personal_status_sex", "other_debtors", "residence_since", "property",
        "age", "other_installment_plans", "housing", "existing_credits", "job",
        "num_dependents", "own_telephone", "foreign_worker",
    ]  # fmt: skip
    assert len(X.attrs["categorical"]) == 13
    assert list(X["checking_status"].cat.categories) == ["A11", "A12", "A13", "A14"]
    # documented in german.doc, never used in the file: still in the public category set
    assert "A47" in X["purpose"].cat.categories and not (X["purpose"] == "A47").any()
    assert "A95" in X["personal_status_sex"].cat.categories
    assert X["credit_amount"].dtype == np.int64
    assert y.name == "good" and int(y.sum()) == 700


def test_raw_breast_w_and_diabetes():
    X, y = load_dataset("breast-w", binarized=False, dropna=False)
    assert "sample_code" not in X.columns
    assert int(X["bare_nuclei"].isna().sum()) == 16
    assert X["bare_nuclei"].dtype == np.float64
    X, _ = load_dataset("breast-w", binarized=False)
    assert (X.dtypes == np.int64).all()
    assert X.min().min() == 1 and X.max().max() == 10

    X, y = load_dataset("diabetes", binarized=False)
    assert int((X["glucose"] == 0).sum()) == 5  # zeros kept as values
    assert int((X["insulin"] == 0).sum()) == 374
    assert X["bmi"].dtype == np.float64


def test_raw_mushroom_stalk_root():
    X, y = load_dataset("mushroom", binarized=False, dropna=False)
    assert int(X["stalk_root"].isna().sum()) == 2_480
    assert X.columns[X.isna().any()].tolist() == ["stalk_root"]
    assert list(X["veil_type"].cat.categories) == ["p", "u"]  # "u" documented, never observed
    assert (X["veil_type"] == "p").all()
    assert "?" not in X["stalk_root"].cat.categories  # "?" is UCI's missing-value mark
    assert y.name == "poisonous"
    X, _ = load_dataset("mushroom", binarized=False)
    assert len(X) == 8_124 - 2_480


def test_raw_vote_question_mark_is_a_category():
    X, y = load_dataset("vote", binarized=False, dropna=True)
    assert len(X) == 435
    assert not X.isna().any().any()
    assert all(list(X[c].cat.categories) == ["?", "n", "y"] for c in X.columns)
    assert int((X == "?").to_numpy().sum()) == 392
    assert y.name == "republican"


def test_raw_nursery_multiclass():
    X, y = load_dataset("nursery", binarized=False)
    assert X.shape == (12_960, 8)
    assert X.attrs["categorical"] == list(X.columns)
    assert y.dtype == np.int64
    classes = y.attrs["classes"]
    assert classes == ["not_recom", "priority", "recommend", "spec_prior", "very_recom"]
    counts = dict(zip(classes, np.bincount(y.to_numpy(), minlength=5).tolist()))
    assert counts == {
        "not_recom": 4_320,
        "priority": 4_266,
        "recommend": 2,
        "spec_prior": 4_044,
        "very_recom": 328,
    }
    assert not X.duplicated().any()  # each combination appears exactly once


# ---------------------------------------------------------------------------- public schemas
@pytest.mark.parametrize("name", ["adult", "compas", "german", "mushroom", "nursery", "vote", "breast-w", "diabetes"])
def test_raw_category_dtypes_are_the_documented_schema(name):
    """The category dtypes are the documented lists (dpmodels.data.schema), not the file's values:
    every observed value is documented (nothing becomes unknown), and the label set matches."""
    schema = dataset_schema(name)
    X, y = load_dataset(name, binarized=False, dropna=False)
    assert X.attrs["undocumented"] == {}
    assert sorted(schema.categories) == sorted(X.attrs["categorical"])
    for c, cats in schema.categories.items():
        assert list(X[c].cat.categories) == list(cats)
        assert list(cats) == sorted(cats)
    num = [c for c in X.columns if c not in schema.categories]
    assert sorted(schema.bounds) == sorted(num)
    assert set(np.unique(y)) <= set(schema.classes)
    params = schema.fit_params()
    assert params["classes"] == list(schema.classes)


def test_values_outside_the_documented_list_load_as_unknown_not_dropped():
    from dpmodels.data.datasets import _finish_raw, _to_categorical

    df = pd.DataFrame(
        {
            "sex": ["Male", "Female", "Robot", None],
            "age": [20, 30, 40, 50],
            "race": ["Asian", "Other", "Other", "Other"],
            "age_cat": ["25 - 45"] * 4,
            "c_charge_degree": ["F", "M", "F", "F"],
        }
    )
    cats = ["sex", "race", "age_cat", "c_charge_degree"]
    X = _to_categorical(df, cats, "compas")
    X, y = _finish_raw(X, pd.Series([0, 1, 0, 1]), categorical=cats, integer=["age"], dropna=True)
    assert len(X) == 3  # only the row missing in the file is dropped
    assert X.attrs["undocumented"] == {"sex": 1}
    assert X["sex"].isna().tolist() == [False, False, True]


def test_dataset_schema_api():
    s = dataset_schema("Pima")
    assert s.name == "diabetes" and s.classes == (0, 1) and s.bounds["age"] == (21, 90)
    assert dataset_schema("nursery").class_names[0] == "not_recom"
    X, _ = load_dataset("compas", binarized=False)
    Xs = dataset_schema("compas").declare(X.astype({"sex": str}))
    assert list(Xs["sex"].cat.categories) == ["Female", "Male"]
    with pytest.raises(ValueError, match="no documented schema"):
        dataset_schema("tic-tac-toe")


def test_german_binarized_columns_have_readable_names_that_hold_on_the_raw_file():
    """Every readable column name of the bundled German binarization says exactly which raw
    records it holds for (the files have the same rows in the same order)."""
    Xb, _ = load_dataset("german")
    Xr, _ = load_dataset("german", binarized=False)
    assert not any(re.fullmatch(r"f\d+", c) for c in Xb.columns) and len(set(Xb.columns)) == Xb.shape[1]
    codes = {  # readable attribute -> (raw column, its UCI codes in german.doc order)
        "checking": ("checking_status", [f"A1{k}" for k in range(1, 5)]),
        "history": ("credit_history", [f"A3{k}" for k in range(0, 5)]),
        "purpose": ("purpose", [f"A4{k}" for k in range(0, 11)]),
        "savings": ("savings", [f"A6{k}" for k in range(1, 6)]),
        "employed": ("employment", [f"A7{k}" for k in range(1, 6)]),
        "status": ("personal_status_sex", [f"A9{k}" for k in range(1, 6)]),
        "other_debtors": ("other_debtors", [f"A10{k}" for k in range(1, 4)]),
        "property": ("property", [f"A12{k}" for k in range(1, 5)]),
        "other_plans": ("other_installment_plans", [f"A14{k}" for k in range(1, 4)]),
        "housing": ("housing", [f"A15{k}" for k in range(1, 4)]),
        "job": ("job", [f"A17{k}" for k in range(1, 5)]),
        "telephone": ("own_telephone", ["A191", "A192"]),
        "foreign_worker": ("foreign_worker", ["A201", "A202"]),
    }
    numeric = {"dependents": "num_dependents"}
    seen = {}
    for col in Xb.columns:
        got = Xb[col].to_numpy().astype(bool)
        m = re.fullmatch(r"(\w+)(<=|>)(\d+)", col)
        if m:
            x = Xr[m.group(1)].to_numpy(float)
            want = x <= float(m.group(3)) if m.group(2) == "<=" else x > float(m.group(3))
        else:
            attr, value = col.split("=", 1)
            if value.isdigit():
                want = Xr[numeric.get(attr, attr)].to_numpy(float) == float(value)
            else:
                raw, cs = codes[attr]
                k = seen.get(attr, 0)  # one-hot columns follow the documented code order
                seen[attr] = k + 1
                want = (Xr[raw].astype(object) == cs[k]).to_numpy()
        assert np.array_equal(got, want), col
    assert all(seen[a] == len(cs) for a, (_, cs) in codes.items())
