"""Loaders for the datasets bundled with :mod:`dpmodels`.

Every loader returns ``(X, y)``. ``X`` is a :class:`pandas.DataFrame` with
named columns. ``y`` is a named :class:`pandas.Series` of ``int64`` labels.
The data is read from gzip files shipped inside the package (through
:mod:`importlib.resources`), so nothing is downloaded and the current
working directory does not matter. Parsed frames are cached; every call
returns fresh copies, so callers may mutate what they get.

Where each file comes from, its checksums, its licence and its quirks are
recorded in ``dpmodels/data/_bundled/NOTICE.md``.

Two flavours
------------
``binarized=True`` (the default)
    These are the published 0/1 versions used by the rule-list and
    optimal-tree literature (CORELS, DL8.5, CP4IM). Feature columns are
    ``uint8`` with values 0 and 1, ``X.attrs["categorical"]`` is empty, and
    the rows are exactly those of the published file. For Adult and COMPAS,
    ``X.attrs["dpmodels_groups"]`` declares which columns come from one
    feature (:func:`dpmodels.data.schema.binarized_feature_groups`). ``dropna`` is
    ignored: the CP4IM files had their incomplete rows removed upstream,
    and in binarized Adult a missing value appears as an all-zero one-hot
    group.

``binarized=False``
    The original files, parsed with proper types:

    * numeric attributes are numeric;
    * categorical attributes have pandas ``category`` dtype whose categories
      are the **documented** values of the attribute (the UCI ``.names`` /
      ProPublica documentation, :func:`dpmodels.data.dataset_schema`), sorted
      — never read from the records, so the dtype is a genuine declaration of
      the public category set. A value in the file outside its documented
      list would load as missing (an unknown category for every learner);
      none occurs in the bundled files;
    * missing values (``?`` or empty fields) become NaN.

    By default (``dropna=True``) rows with any missing feature are dropped,
    as in the PrivaTree experiments, and integer attributes are then
    ``int64``. With ``dropna=False`` the NaNs are kept, and integer columns
    that contain NaN are ``float64``.

Label conventions
-----------------
All labels are 0/1, except raw ``nursery``. ``y.attrs["positive_class"]``
says what 1 means. **The CP4IM binarized files use "1 = majority class".**
For mushroom, vote, breast-w and diabetes this is the opposite of the raw
loaders' convention:

=============  =====================  ==========================
dataset        binarized: y = 1       raw: y = 1
=============  =====================  ==========================
adult          income >50K            income >50K
compas         is_recid (see below)   two_year_recid
german         good credit            good credit
breast-w       benign                 malignant
diabetes       tested negative        tested positive
mushroom       edible                 poisonous
vote           democrat               republican
=============  =====================  ==========================

``X.attrs`` has ``"dataset"``, ``"binarized"``, ``"categorical"`` (the list
of categorical column names) and ``"source"`` (the bundled file names).
"""

from __future__ import annotations

import copy
import functools
import gzip
import io
from importlib import resources

import numpy as np
import pandas as pd

from dpmodels.data.rules import GROUPS_ATTR
from dpmodels.data.schema import _BREAST_W, _VOTE_ISSUES, binarized_feature_groups, dataset_schema

__all__ = [
    "load_dataset",
    "load_adult",
    "load_compas",
    "load_german",
    "list_datasets",
]

_PACKAGE = "dpmodels.data"
_BUNDLE_DIR = "_bundled"


# --------------------------------------------------------------------------- #
# File access
# --------------------------------------------------------------------------- #
def _read_bundled_bytes(filename: str) -> bytes:
    """Return the uncompressed contents of a bundled ``.gz`` file."""
    ref = resources.files(_PACKAGE).joinpath(_BUNDLE_DIR).joinpath(filename)
    with ref.open("rb") as fh:
        return gzip.decompress(fh.read())


def _read_csv(filename: str, **kwargs) -> pd.DataFrame:
    return pd.read_csv(io.BytesIO(_read_bundled_bytes(filename)), **kwargs)


# --------------------------------------------------------------------------- #
# Helpers
# --------------------------------------------------------------------------- #
def _to_categorical(df: pd.DataFrame, columns: list[str], dataset: str) -> pd.DataFrame:
    """Cast ``columns`` to ``category`` over the dataset's *documented* category lists.

    Values outside a documented list become missing (NaN, i.e. unknown to the learners) but do
    not make the row "incomplete": ``dropna`` uses ``df.attrs["missing"]``, the mask of the
    values that were missing in the file. How many values fell outside is kept in
    ``df.attrs["undocumented"]`` (column -> count; empty for every bundled file).
    """
    schema = dataset_schema(dataset)
    missing = df.isna()
    undocumented = {}
    for col in columns:
        cats = list(schema.categories[col])
        known = df[col].isin(cats)
        outside = int((~known & df[col].notna()).sum())
        cat = pd.Categorical(df[col].where(known), categories=cats)
        if outside:
            undocumented[col] = outside
        df[col] = cat
    df.attrs["missing"] = missing
    df.attrs["undocumented"] = undocumented
    return df


def _finish_raw(
    X: pd.DataFrame,
    y: pd.Series,
    *,
    categorical: list[str],
    integer: list[str],
    dropna: bool,
) -> tuple[pd.DataFrame, pd.Series]:
    """Drop incomplete rows (if asked), fix integer dtypes, reset the index."""
    missing = X.attrs.pop("missing", None)
    undocumented = X.attrs.pop("undocumented", {})
    if dropna:
        miss = X.isna() if missing is None else missing[X.columns]
        keep = ~miss.any(axis=1).to_numpy()
        X = X.loc[keep]
        y = y.loc[keep]
    for col in integer:
        if not X[col].isna().any():
            X[col] = X[col].astype(np.int64)
        else:
            X[col] = X[col].astype(np.float64)
    X = X.reset_index(drop=True)
    y = y.reset_index(drop=True).astype(np.int64)
    X.attrs["categorical"] = list(categorical)
    X.attrs["undocumented"] = dict(undocumented)
    return X, y


def _binary_label(values: pd.Series, positive, name: str) -> pd.Series:
    y = (values == positive).astype(np.int64)
    y.name = name
    return y


# --------------------------------------------------------------------------- #
# Raw loaders
# --------------------------------------------------------------------------- #
_ADULT_COLUMNS = [
    "age", "workclass", "fnlwgt", "education", "education_num",
    "marital_status", "occupation", "relationship", "race", "sex",
    "capital_gain", "capital_loss", "hours_per_week", "native_country",
    "income",
]  # fmt: skip
_ADULT_NUMERIC = [
    "age", "fnlwgt", "education_num", "capital_gain", "capital_loss",
    "hours_per_week",
]  # fmt: skip


def _raw_adult(dropna: bool):
    opts = dict(
        header=None,
        names=_ADULT_COLUMNS,
        sep=",",
        skipinitialspace=True,
        na_values=["?"],
        keep_default_na=False,
        skip_blank_lines=True,
    )
    train = _read_csv("adult.data.gz", **opts)
    test = _read_csv("adult.test.gz", skiprows=1, **opts)  # "|1x3 Cross validator"
    df = pd.concat([train, test], ignore_index=True)
    label = df.pop("income").str.strip().str.rstrip(".")
    if not set(label.unique()) <= {"<=50K", ">50K"}:  # pragma: no cover - data guard
        raise RuntimeError(f"unexpected Adult labels: {sorted(label.unique())}")
    y = _binary_label(label, ">50K", "income")
    y.attrs["positive_class"] = ">50K"
    categorical = [c for c in df.columns if c not in _ADULT_NUMERIC]
    for col in categorical:
        df[col] = df[col].str.strip()
    df = _to_categorical(df, categorical, "adult")
    X, y = _finish_raw(df, y, categorical=categorical, integer=_ADULT_NUMERIC, dropna=dropna)
    X.attrs["source"] = ["adult.data.gz", "adult.test.gz"]
    return X, y


_COMPAS_FEATURES = [
    "sex", "age", "age_cat", "race", "juv_fel_count", "juv_misd_count",
    "juv_other_count", "priors_count", "c_charge_degree",
]  # fmt: skip
_COMPAS_CATEGORICAL = ["sex", "age_cat", "race", "c_charge_degree"]


def _raw_compas(dropna: bool):
    df = _read_csv(
        "compas-scores-two-years.csv.gz",
        sep=",",
        na_values=[""],
        keep_default_na=False,
    )
    # ProPublica's standard filter (6,172 rows kept). Rows whose
    # days_b_screening_arrest is empty fail the first condition.
    days = pd.to_numeric(df["days_b_screening_arrest"], errors="coerce")
    keep = (days.abs() <= 30) & (df["is_recid"] != -1) & (df["c_charge_degree"] != "O") & (df["score_text"] != "N/A")
    df = df.loc[keep.to_numpy()].reset_index(drop=True)
    # ``priors_count`` occurs twice in the file with identical values; pandas
    # names the second copy ``priors_count.1``. We use the first one.
    X = df[_COMPAS_FEATURES].copy()
    X = _to_categorical(X, _COMPAS_CATEGORICAL, "compas")
    y = df["two_year_recid"].astype(np.int64).rename("two_year_recid")
    y.attrs["positive_class"] = "re-arrested within two years (two_year_recid = 1)"
    integer = [c for c in _COMPAS_FEATURES if c not in _COMPAS_CATEGORICAL]
    X, y = _finish_raw(X, y, categorical=_COMPAS_CATEGORICAL, integer=integer, dropna=dropna)
    X.attrs["source"] = ["compas-scores-two-years.csv.gz"]
    return X, y


_GERMAN_COLUMNS = [
    "checking_status", "duration", "credit_history", "purpose",
    "credit_amount", "savings", "employment", "installment_rate",
    "personal_status_sex", "other_debtors", "residence_since", "property",
    "age", "other_installment_plans", "housing", "existing_credits", "job",
    "num_dependents", "own_telephone", "foreign_worker",
]  # fmt: skip
_GERMAN_NUMERIC = [
    "duration", "credit_amount", "installment_rate", "residence_since", "age",
    "existing_credits", "num_dependents",
]  # fmt: skip


def _raw_german(dropna: bool):
    df = _read_csv(
        "german.data.gz",
        header=None,
        sep=" ",
        names=[*_GERMAN_COLUMNS, "class"],
        keep_default_na=False,
        na_values=["?", ""],
    )
    y = _binary_label(df.pop("class"), 1, "good")
    y.attrs["positive_class"] = "good credit risk (class 1)"
    categorical = [c for c in _GERMAN_COLUMNS if c not in _GERMAN_NUMERIC]
    df = _to_categorical(df, categorical, "german")
    X, y = _finish_raw(df, y, categorical=categorical, integer=_GERMAN_NUMERIC, dropna=dropna)
    X.attrs["source"] = ["german.data.gz"]
    return X, y


def _raw_breast_w(dropna: bool):
    df = _read_csv(
        "breast-cancer-wisconsin.data.gz",
        header=None,
        sep=",",
        names=["sample_code", *_BREAST_W, "class"],
        keep_default_na=False,
        na_values=["?", ""],
    )
    df = df.drop(columns="sample_code")  # not a key: 645 values for 699 rows
    y = _binary_label(df.pop("class"), 4, "malignant")
    y.attrs["positive_class"] = "malignant (class 4)"
    X, y = _finish_raw(df, y, categorical=[], integer=_BREAST_W, dropna=dropna)
    X.attrs["source"] = ["breast-cancer-wisconsin.data.gz"]
    return X, y


_DIABETES_COLUMNS = [
    "pregnancies", "glucose", "blood_pressure", "skin_thickness", "insulin",
    "bmi", "diabetes_pedigree", "age",
]  # fmt: skip


def _raw_diabetes(dropna: bool):
    df = _read_csv(
        "pima-indians-diabetes.data.gz",
        header=None,
        sep=",",
        names=[*_DIABETES_COLUMNS, "class"],
        keep_default_na=False,
        na_values=["?", ""],
    )
    y = _binary_label(df.pop("class"), 1, "diabetes")
    y.attrs["positive_class"] = "tested positive for diabetes (class 1)"
    integer = [c for c in _DIABETES_COLUMNS if c not in ("bmi", "diabetes_pedigree")]
    for col in ("bmi", "diabetes_pedigree"):
        df[col] = df[col].astype(np.float64)
    X, y = _finish_raw(df, y, categorical=[], integer=integer, dropna=dropna)
    X.attrs["source"] = ["pima-indians-diabetes.data.gz"]
    return X, y


_MUSHROOM_COLUMNS = [
    "cap_shape", "cap_surface", "cap_color", "bruises", "odor",
    "gill_attachment", "gill_spacing", "gill_size", "gill_color",
    "stalk_shape", "stalk_root", "stalk_surface_above_ring",
    "stalk_surface_below_ring", "stalk_color_above_ring",
    "stalk_color_below_ring", "veil_type", "veil_color", "ring_number",
    "ring_type", "spore_print_color", "population", "habitat",
]  # fmt: skip


def _raw_mushroom(dropna: bool):
    df = _read_csv(
        "agaricus-lepiota.data.gz",
        header=None,
        sep=",",
        names=["class", *_MUSHROOM_COLUMNS],
        dtype=str,
        keep_default_na=False,
        na_values=["?", ""],
    )
    y = _binary_label(df.pop("class"), "p", "poisonous")
    y.attrs["positive_class"] = "poisonous (p)"
    df = _to_categorical(df, _MUSHROOM_COLUMNS, "mushroom")
    X, y = _finish_raw(df, y, categorical=_MUSHROOM_COLUMNS, integer=[], dropna=dropna)
    X.attrs["source"] = ["agaricus-lepiota.data.gz"]
    return X, y


_NURSERY_COLUMNS = [
    "parents", "has_nurs", "form", "children", "housing", "finance",
    "social", "health",
]  # fmt: skip


def _raw_nursery(dropna: bool):
    df = _read_csv(
        "nursery.data.gz",
        header=None,
        sep=",",
        names=[*_NURSERY_COLUMNS, "class"],
        dtype=str,
        keep_default_na=False,
        na_values=["?", ""],
        skip_blank_lines=True,
    )
    label = df.pop("class")
    classes = sorted(label.unique().tolist())
    y = pd.Series(
        pd.Categorical(label, categories=classes).codes.astype(np.int64),
        name="class",
    )
    df = _to_categorical(df, _NURSERY_COLUMNS, "nursery")
    X, y = _finish_raw(df, y, categorical=_NURSERY_COLUMNS, integer=[], dropna=dropna)
    y.attrs["classes"] = classes
    y.attrs["positive_class"] = None  # multiclass: see attrs["classes"]
    X.attrs["source"] = ["nursery.data.gz"]
    return X, y


def _raw_vote(dropna: bool):
    # '?' means "voted neither yea nor nay" (UCI documentation): it is a
    # genuine category here, not a missing value.
    df = _read_csv(
        "house-votes-84.data.gz",
        header=None,
        sep=",",
        names=["party", *_VOTE_ISSUES],
        dtype=str,
        keep_default_na=False,
        na_values=[""],
    )
    y = _binary_label(df.pop("party"), "republican", "republican")
    y.attrs["positive_class"] = "republican"
    df = _to_categorical(df, _VOTE_ISSUES, "vote")
    X, y = _finish_raw(df, y, categorical=_VOTE_ISSUES, integer=[], dropna=dropna)
    X.attrs["source"] = ["house-votes-84.data.gz"]
    return X, y


# --------------------------------------------------------------------------- #
# Binarized loaders
# --------------------------------------------------------------------------- #
# Header fixes for the published binarized COMPAS file (see NOTICE.md).
_COMPAS_RENAME = {"Age<=40": "Age>=40", "Age<=45": "Age>=45"}


def _bin_adult():
    df = _read_csv("adult.csv.gz", sep=",", dtype=np.uint8)
    y = df.pop("income").astype(np.int64).rename("income")
    y.attrs["positive_class"] = ">50K"
    return df, y, ["adult.csv.gz"]


def _bin_compas():
    df = _read_csv("compas.csv.gz", sep=",", dtype=np.uint8)
    df = df.rename(columns=_COMPAS_RENAME)
    y = df.pop("Recidivate-Within-Two-Years").astype(np.int64).rename("is_recid")
    y.attrs["positive_class"] = (
        "is_recid = 1 (the published column 'Recidivate-Within-Two-Years' equals the raw is_recid, not two_year_recid)"
    )
    return df, y, ["compas.csv.gz"]


_TTT_SQUARES = [
    "top_left", "top_middle", "top_right", "middle_left", "middle_middle",
    "middle_right", "bottom_left", "bottom_middle", "bottom_right",
]  # fmt: skip


def _german_columns():
    """Readable names of the 111 columns of CP4IM's German credit binarization, in file order.

    Each was matched, column by column, against UCI's ``german.data`` (the same rows in the same
    order; ``tests/data/test_datasets.py`` re-checks every name against it): one-hot columns of the
    qualitative attributes are ``attribute=meaning`` with the meanings of ``german.doc`` (A47
    "vacation" and A95 "female single" are documented, never occur, and their columns are all 0);
    duration, credit amount and age are threshold pairs ``x<=c`` / ``x>c``; the 1–4 (1–2) scales
    are one-hot ``x=k``. Category names use ``=`` only, so a negated literal prints ``≠``."""

    def pairs(name, cuts):
        return [c for t in cuts for c in (f"{name}<={t}", f"{name}>{t}")]

    def onehot(name, values):
        return [f"{name}={v}" for v in values]

    return [
        *onehot("checking", ["negative", "0-200DM", "200DM+", "none"]),  # A11-A14
        *pairs("duration", [9, 11, 12, 16, 21, 24, 36]),
        *onehot(
            "history",
            [
                "no credits or all paid",
                "all paid at this bank",
                "existing paid duly",
                "delays in the past",
                "critical account",
            ],
        ),  # A30-A34
        *onehot(
            "purpose",
            [
                "new car",
                "used car",
                "furniture",
                "radio or TV",
                "appliances",
                "repairs",
                "education",
                "vacation",
                "retraining",
                "business",
                "other",
            ],
        ),  # A40-A410
        *pairs("credit_amount", [1049, 1364, 1808, 2319, 3021, 3972, 6468]),
        *onehot("savings", ["0-100DM", "100-500DM", "500-1000DM", "1000DM+", "unknown or none"]),  # A61-A65
        *onehot("employed", ["no", "0-1y", "1-4y", "4-7y", "7y+"]),  # A71-A75
        *onehot("installment_rate", [1, 2, 3, 4]),
        *onehot(
            "status",
            [
                "male divorced or separated",
                "female divorced separated or married",
                "male single",
                "male married or widowed",
                "female single",
            ],
        ),  # A91-A95
        *onehot("other_debtors", ["none", "co-applicant", "guarantor"]),  # A101-A103
        *onehot("residence_since", [1, 2, 3, 4]),
        *onehot("property", ["real estate", "savings or insurance", "car or other", "unknown or none"]),
        *pairs("age", [23, 26, 29, 32, 36, 41, 49]),
        *onehot("other_plans", ["bank", "stores", "none"]),  # A141-A143
        *onehot("housing", ["rent", "own", "free"]),  # A151-A153
        *onehot("existing_credits", [1, 2, 3, 4]),
        *onehot(
            "job", ["unskilled non-resident", "unskilled resident", "skilled", "management or self-employed"]
        ),  # A171-A174
        *onehot("dependents", [1, 2]),
        *onehot("telephone", ["none", "yes"]),  # A191-A192
        *onehot("foreign_worker", ["yes", "no"]),  # A201-A202
    ]


# name -> (file, y name, meaning of label 1, feature-name factory or None)
_CP4IM = {
    "german": ("german-credit.txt.gz", "good", "good credit risk", _german_columns),
    "breast-w": ("breast-wisconsin.txt.gz", "benign", "benign", None),
    "diabetes": ("diabetes.txt.gz", "tested_negative", "tested negative", None),
    "mushroom": ("mushroom.txt.gz", "edible", "edible", None),
    "vote": (
        "vote.txt.gz",
        "democrat",
        "democrat",
        lambda: [f"{issue}={v}" for issue in _VOTE_ISSUES for v in ("n", "y", "?")],
    ),
    "tic-tac-toe": (
        "tic-tac-toe.txt.gz",
        "x_wins",
        "x wins (UCI class 'positive')",
        lambda: [f"{sq}={v}" for sq in _TTT_SQUARES for v in ("b", "o", "x")],
    ),
    "australian-credit": (
        "australian-credit.txt.gz",
        "class_minus",
        "class '-' of UCI Credit Approval (crx.data)",
        None,
    ),
    "heart-cleveland": (
        "heart-cleveland.txt.gz",
        "no_disease",
        "no heart disease (num = 0)",
        None,
    ),
}


def _bin_cp4im(name: str):
    filename, yname, meaning, namer = _CP4IM[name]
    arr = np.loadtxt(io.BytesIO(_read_bundled_bytes(filename)), dtype=np.uint8, delimiter=" ")
    n_features = arr.shape[1] - 1
    columns = namer() if namer is not None else [f"f{i}" for i in range(n_features)]
    if len(columns) != n_features:  # pragma: no cover - data guard
        raise RuntimeError(f"{filename}: expected {len(columns)} features")
    X = pd.DataFrame(arr[:, 1:], columns=columns)
    y = pd.Series(arr[:, 0].astype(np.int64), name=yname)
    y.attrs["positive_class"] = meaning + " (label 1 = majority class in CP4IM files)"
    return X, y, [filename]


# --------------------------------------------------------------------------- #
# Registry and public API
# --------------------------------------------------------------------------- #
_RAW = {
    "adult": _raw_adult,
    "compas": _raw_compas,
    "german": _raw_german,
    "breast-w": _raw_breast_w,
    "diabetes": _raw_diabetes,
    "mushroom": _raw_mushroom,
    "nursery": _raw_nursery,
    "vote": _raw_vote,
}

_BINARIZED: dict = {
    "adult": _bin_adult,
    "compas": _bin_compas,
    **{name: functools.partial(_bin_cp4im, name) for name in _CP4IM},
}

_ALIASES = {
    "german-credit": "german",
    "breast-wisconsin": "breast-w",
    "breast-cancer-wisconsin": "breast-w",
    "pima": "diabetes",
    "house-votes-84": "vote",
}


def list_datasets(binarized: bool | None = None) -> list[str]:
    """Names accepted by :func:`load_dataset`.

    ``binarized=True`` lists the binarized datasets, ``False`` the raw
    ones, and ``None`` (the default) every name that works in at least one
    flavour. Names are sorted.
    """
    if binarized is None:
        return sorted(set(_RAW) | set(_BINARIZED))
    return sorted(_BINARIZED if binarized else _RAW)


@functools.lru_cache(maxsize=None)
def _load_cached(name: str, binarized: bool, dropna: bool):
    if binarized:
        X, y, source = _BINARIZED[name]()
        X.attrs["categorical"] = []
        X.attrs["source"] = source
        groups = binarized_feature_groups(name)
        if groups:
            X.attrs[GROUPS_ATTR] = groups
    else:
        X, y = _RAW[name](dropna)
    X.attrs["dataset"] = name
    X.attrs["binarized"] = binarized
    return X, y


def _copy(X: pd.DataFrame, y: pd.Series) -> tuple[pd.DataFrame, pd.Series]:
    Xc, yc = X.copy(deep=True), y.copy(deep=True)
    Xc.attrs = copy.deepcopy(X.attrs)
    yc.attrs = copy.deepcopy(y.attrs)
    return Xc, yc


def load_dataset(name: str, binarized: bool = True, *, dropna: bool = True) -> tuple[pd.DataFrame, pd.Series]:
    """Load a bundled dataset as ``(X, y)``.

    Parameters
    ----------
    name
        One of :func:`list_datasets`. Also accepted: ``"german-credit"``,
        ``"breast-wisconsin"``, ``"breast-cancer-wisconsin"``, ``"pima"``
        and ``"house-votes-84"``.
    binarized
        ``True`` returns the published 0/1 version (``uint8`` features).
        ``False`` parses the original file with typed columns. See the module
        docstring.
    dropna
        Raw data only; ignored when ``binarized=True``. When ``True`` (the
        default, as in the PrivaTree experiments) rows with a missing feature
        are dropped. When ``False`` they are kept, with NaN.

    Returns
    -------
    X : pandas.DataFrame
        Features. ``X.attrs["categorical"]`` lists the columns with
        ``category`` dtype.
    y : pandas.Series
        ``int64`` labels, 0/1 for every dataset except raw ``nursery``
        (codes 0..4, names in ``y.attrs["classes"]``). What label 1 means is
        in ``y.attrs["positive_class"]``. The CP4IM binarized files and the
        raw files disagree on this for some datasets; see the module
        docstring.

    Dataset notes
    -------------
    adult
        binarized: 48,842 × 24. All rows of adult.data + adult.test, in a
        different order. A missing value appears as an all-zero one-hot
        group. ``y`` is ``income`` (>50K → 1).
        raw: adult.data + adult.test concatenated. Whitespace and the test
        labels' trailing period are stripped. 48,842 rows with
        ``dropna=False``, 45,222 with ``dropna=True``.
    compas
        binarized: 7,214 × 27, same rows as the raw file. Two published
        headers are wrong and are renamed here: ``Age<=40`` → ``Age>=40``
        and ``Age<=45`` → ``Age>=45`` (the columns hold age ≥ 40 and age
        ≥ 45). The published label ``Recidivate-Within-Two-Years`` equals
        the raw ``is_recid``, not ``two_year_recid``, so ``y`` is named
        ``is_recid`` (3,471 ones). The data itself is unchanged, so results
        stay comparable with the literature.
        raw: ProPublica's filter (|days_b_screening_arrest| ≤ 30,
        is_recid ≠ −1, c_charge_degree ≠ "O", score_text ≠ "N/A") leaves
        6,172 rows. ``y`` is ``two_year_recid`` (2,809 ones). The features
        are sex, age, age_cat, race, juv_fel_count, juv_misd_count,
        juv_other_count, priors_count and c_charge_degree. COMPAS scores,
        identifiers, names, dates and outcome columns are left out
        because they leak the label or are personal data.
    german
        y = 1 for good credit (700 of 1,000), in both flavours.
        raw: the 20 attributes get readable names (checking_status, …,
        foreign_worker). The 13 coded attributes (A11 …) are categorical and
        the 7 integer ones are ``int64``.
    breast-w
        raw: the sample-code column is dropped. The 9 attributes (1-10) are
        numeric. y = 1 for malignant. ``dropna=True`` drops the 16 rows with
        ``?`` in bare_nuclei (699 → 683).
        binarized: 683 rows, y = 1 for *benign* (CP4IM convention).
    diabetes
        raw: 768 rows. The zeros that stand for "missing" in glucose, blood
        pressure, skin thickness, insulin and BMI are kept as ordinary
        values, because the file has no missing-value marker. So
        ``dropna`` removes nothing. y = 1 for tested positive.
        binarized: y = 1 for *tested negative* (CP4IM convention).
    mushroom
        raw: all 22 attributes are categorical. y = 1 for poisonous.
        ``stalk_root`` has ``?`` in 2,480 rows, and ``dropna=True`` drops
        them (8,124 → 5,644). No imputation is offered.
        binarized: 8,124 rows, with no stalk-root columns. y = 1 for
        *edible*.
    nursery
        raw only. 12,960 rows, 8 categorical attributes. ``y`` holds the
        integer codes of the 5 classes in sorted order
        (``y.attrs["classes"]`` = not_recom, priority, recommend,
        spec_prior, very_recom).
    vote
        raw: the 16 votes are categorical with categories ``?``, ``n`` and
        ``y``. ``?`` means "voted neither yea nor nay" (UCI), so it is kept
        as a category, not treated as missing. y = 1 for republican.
        binarized: columns named ``<issue>=n|y|?``. y = 1 for *democrat*.
    tic-tac-toe, australian-credit, heart-cleveland
        binarized only (CP4IM). Tic-tac-toe columns are named
        ``<square>=b|o|x``. The other files get generic names ``f0, f1, …``
        (German, breast-w, diabetes and mushroom do too).
        "australian-credit" is really derived from UCI Credit Approval
        (crx.data).

    Raises
    ------
    ValueError
        If ``name`` is unknown, or not available in the requested flavour.
    """
    key = _ALIASES.get(str(name).strip().lower(), str(name).strip().lower())
    registry = _BINARIZED if binarized else _RAW
    if key not in registry:
        flavour = "binarized" if binarized else "raw"
        other = _RAW if binarized else _BINARIZED
        hint = f" ({key!r} exists only with binarized={not binarized})" if key in other else ""
        raise ValueError(
            f"unknown {flavour} dataset {name!r}{hint}; valid {flavour} names: "
            f"{', '.join(list_datasets(bool(binarized)))}"
        )
    dropna = True if binarized else bool(dropna)  # dropna is ignored when binarized
    X, y = _load_cached(key, bool(binarized), dropna)
    return _copy(X, y)


def load_adult(binarized: bool = True, *, dropna: bool = True) -> tuple[pd.DataFrame, pd.Series]:
    """UCI Adult, ``y`` = 1 for income >50K. See :func:`load_dataset`."""
    return load_dataset("adult", binarized, dropna=dropna)


def load_compas(binarized: bool = True, *, dropna: bool = True) -> tuple[pd.DataFrame, pd.Series]:
    """ProPublica COMPAS. See :func:`load_dataset`.

    Binarized: ``y`` is ``is_recid``. The published label column is
    misnamed "Recidivate-Within-Two-Years". ``Age<=40`` and ``Age<=45`` are
    exposed as ``Age>=40`` and ``Age>=45``, which is what they encode.
    Raw: ProPublica-filtered (6,172 rows), ``y`` = ``two_year_recid``.
    """
    return load_dataset("compas", binarized, dropna=dropna)


def load_german(binarized: bool = True, *, dropna: bool = True) -> tuple[pd.DataFrame, pd.Series]:
    """Statlog German credit, ``y`` = 1 for good credit (700 of 1,000)."""
    return load_dataset("german", binarized, dropna=dropna)
