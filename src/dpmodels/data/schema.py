"""Public schemas of the bundled raw datasets: label sets, category lists and numerical bounds
taken from the datasets' *documentation*, never from their records.

A differentially private learner is told the universe of records before it sees any (label set,
category lists, bounds): :mod:`dpmodels.validation`. For the bundled datasets that universe is
written here, from public documents:

* **adult** — UCI ``adult.names`` (the attribute values listed there; ``?`` marks a missing value
  and is not a category). Bounds: age 17–90 (the extraction rule "age > 16"; the census top-codes
  age at 90), fnlwgt 0–1.5·10⁶ (order of magnitude of CPS final weights), education_num 1–16
  (16 education levels), capital_gain 0–99,999 (CPS top code), capital_loss 0–5,000 (a round
  cap), hours_per_week 1–99 (CPS top code).
* **compas** — ProPublica's "How we analyzed the COMPAS recidivism algorithm" (2016) and the
  columns of its published file: sex {Female, Male}; ``age_cat`` the three bands of the COMPAS
  scoring ("Less than 25", "25 - 45", "Greater than 45"); race the six groups ProPublica reports
  (African-American, Asian, Caucasian, Hispanic, Native American, Other); ``c_charge_degree``
  F (felony) / M (misdemeanour) — ProPublica's filter removes ordinary traffic offences (O).
  Bounds (a-priori caps; larger values are clipped): age 18–100 (adult defendants), juvenile
  counts 0–20, priors_count 0–40.
* **german** — UCI ``german.doc``: the codes A11 … A202 of the 13 qualitative attributes, including
  the documented A47 ("vacation — does not exist?") and A95 (female single), which never occur
  in the file. Bounds: duration 4–72 months, credit_amount 0–20,000 DM, installment_rate 1–4,
  residence_since 1–4, age 18–100, existing_credits 1–4, num_dependents 1–2 (the documented
  scales; the amounts and durations are round caps).
* **breast-w** — UCI ``breast-cancer-wisconsin.names``: every attribute is a score 1–10.
* **diabetes** (Pima) — pregnancies 0–20, glucose 0–200 mg/dl, blood pressure 0–150 mm Hg, skin
  thickness 0–100 mm, insulin 0–900 µU/ml, BMI 0–70, pedigree 0–2.5, age 21–90 (the study
  population is 21 or older). Zeros stand for missing measurements and are kept.
* **mushroom** — UCI ``agaricus-lepiota.names`` (one-letter codes; ``?`` in stalk-root marks a
  missing value and is not a category).
* **nursery** — UCI ``nursery.names``; the label is the index of the class in
  ``class_names`` (alphabetical, as the loader encodes it).
* **vote** — UCI ``house-votes-84.names``: y, n and ``?`` ("voted neither yea nor nay", a value).

Category lists are sorted (the loaders' historical order, so codes do not depend on the file).
The raw loaders (:func:`dpmodels.data.load_dataset` with ``binarized=False``) build their
``category`` dtypes from these lists: a value in the file outside its documented list (none occur
in the bundled files; ``tests/data/test_datasets.py`` checks it) loads as a missing value, which every
learner routes as an unknown category. Use :meth:`DatasetSchema.fit_params` to pass the schema to
a learner explicitly.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd

__all__ = ["DatasetSchema", "dataset_schema", "PUBLIC_BOUNDS", "binarized_feature_groups"]


@dataclass(frozen=True)
class DatasetSchema:
    """The documented public schema of a raw dataset.

    ``classes``: the label set as the loader encodes it (``class_names`` says what each means);
    ``categories``: feature -> documented category list; ``bounds``: numerical feature ->
    (lower, upper); ``integer``: the numerical features documented as integer-valued (counts,
    ages in years, scores); ``source``: where the schema comes from.
    """

    name: str
    classes: tuple
    categories: dict = field(default_factory=dict)
    bounds: dict = field(default_factory=dict)
    class_names: tuple = ()
    source: str = ""
    integer: tuple = ()

    def dtypes(self) -> dict:
        """Feature -> :class:`pandas.CategoricalDtype` over the documented categories."""
        return {c: pd.CategoricalDtype(categories=list(v)) for c, v in self.categories.items()}

    def declare(self, X: pd.DataFrame) -> pd.DataFrame:
        """A copy of ``X`` whose categorical columns carry the documented category dtypes (values
        outside a documented list become missing, i.e. unknown to the learners)."""
        X = X.copy()
        for c, dt in self.dtypes().items():
            if c in X.columns:
                col = X[c].astype(object)
                X[c] = pd.Categorical(col.where(col.isin(list(dt.categories))), dtype=dt)
        return X

    def fit_params(self, *, bounds: bool = True) -> dict:
        """``dict(classes=..., categories=..., bounds=...)`` for a learner's constructor.

        Bounds of the ``integer`` features are Python ints, the others floats: integer bounds
        declare an integer-valued column, which printing uses (``priors_count <= 0``, not
        ``<= 0.5311``; :func:`dpmodels._format.declared_integer_features`)."""
        out: dict = dict(classes=list(self.classes), categories={c: list(v) for c, v in self.categories.items()})
        if bounds:
            out["bounds"] = {
                c: tuple((int(b) if c in self.integer else float(b)) for b in v) for c, v in self.bounds.items()
            } or None
        return out


_ADULT_CATEGORIES = {
    "workclass": ["Private", "Self-emp-not-inc", "Self-emp-inc", "Federal-gov", "Local-gov",
                  "State-gov", "Without-pay", "Never-worked"],
    "education": ["Bachelors", "Some-college", "11th", "HS-grad", "Prof-school", "Assoc-acdm",
                  "Assoc-voc", "9th", "7th-8th", "12th", "Masters", "1st-4th", "10th", "Doctorate",
                  "5th-6th", "Preschool"],
    "marital_status": ["Married-civ-spouse", "Divorced", "Never-married", "Separated", "Widowed",
                       "Married-spouse-absent", "Married-AF-spouse"],
    "occupation": ["Tech-support", "Craft-repair", "Other-service", "Sales", "Exec-managerial",
                   "Prof-specialty", "Handlers-cleaners", "Machine-op-inspct", "Adm-clerical",
                   "Farming-fishing", "Transport-moving", "Priv-house-serv", "Protective-serv",
                   "Armed-Forces"],
    "relationship": ["Wife", "Own-child", "Husband", "Not-in-family", "Other-relative", "Unmarried"],
    "race": ["White", "Asian-Pac-Islander", "Amer-Indian-Eskimo", "Other", "Black"],
    "sex": ["Female", "Male"],
    "native_country": ["United-States", "Cambodia", "England", "Puerto-Rico", "Canada", "Germany",
                       "Outlying-US(Guam-USVI-etc)", "India", "Japan", "Greece", "South", "China",
                       "Cuba", "Iran", "Honduras", "Philippines", "Italy", "Poland", "Jamaica",
                       "Vietnam", "Mexico", "Portugal", "Ireland", "France", "Dominican-Republic",
                       "Laos", "Ecuador", "Taiwan", "Haiti", "Columbia", "Hungary", "Guatemala",
                       "Nicaragua", "Scotland", "Thailand", "Yugoslavia", "El-Salvador",
                       "Trinadad&Tobago", "Peru", "Hong", "Holand-Netherlands"],
}  # fmt: skip

_COMPAS_CATEGORIES = {
    "sex": ["Female", "Male"],
    "age_cat": ["Less than 25", "25 - 45", "Greater than 45"],
    "race": ["African-American", "Asian", "Caucasian", "Hispanic", "Native American", "Other"],
    "c_charge_degree": ["F", "M"],
}


def _codes(prefix, numbers):
    return [f"A{prefix}{k}" for k in numbers]


_GERMAN_CATEGORIES = {
    "checking_status": _codes(1, range(1, 5)),
    "credit_history": _codes(3, range(0, 5)),
    "purpose": _codes(4, range(0, 11)),  # A40 … A410 (A47 documented, never used)
    "savings": _codes(6, range(1, 6)),
    "employment": _codes(7, range(1, 6)),
    "personal_status_sex": _codes(9, range(1, 6)),  # A95 documented, never used
    "other_debtors": _codes(10, range(1, 4)),
    "property": _codes(12, range(1, 5)),
    "other_installment_plans": _codes(14, range(1, 4)),
    "housing": _codes(15, range(1, 4)),
    "job": _codes(17, range(1, 5)),
    "own_telephone": _codes(19, range(1, 3)),
    "foreign_worker": _codes(20, range(1, 3)),
}

# agaricus-lepiota.names, attribute -> documented one-letter codes
_MUSHROOM_CATEGORIES = {
    "cap_shape": "bcxfks", "cap_surface": "fgys", "cap_color": "nbcgrpuewy", "bruises": "tf",
    "odor": "alcyfmnps", "gill_attachment": "adfn", "gill_spacing": "cwd", "gill_size": "bn",
    "gill_color": "knbhgropuewy", "stalk_shape": "et", "stalk_root": "bcuezr",
    "stalk_surface_above_ring": "fyks", "stalk_surface_below_ring": "fyks",
    "stalk_color_above_ring": "nbcgopewy", "stalk_color_below_ring": "nbcgopewy",
    "veil_type": "pu", "veil_color": "nowy", "ring_number": "not", "ring_type": "ceflnpsz",
    "spore_print_color": "knbhrouwy", "population": "acnsvy", "habitat": "glmpuwd",
}  # fmt: skip

_NURSERY_CATEGORIES = {
    "parents": ["usual", "pretentious", "great_pret"],
    "has_nurs": ["proper", "less_proper", "improper", "critical", "very_crit"],
    "form": ["complete", "completed", "incomplete", "foster"],
    "children": ["1", "2", "3", "more"],
    "housing": ["convenient", "less_conv", "critical"],
    "finance": ["convenient", "inconv"],
    "social": ["nonprob", "slightly_prob", "problematic"],
    "health": ["recommended", "priority", "not_recom"],
}
_NURSERY_CLASSES = ("not_recom", "priority", "recommend", "spec_prior", "very_recom")

_VOTE_ISSUES = [
    "handicapped_infants", "water_project_cost_sharing",
    "adoption_of_the_budget_resolution", "physician_fee_freeze",
    "el_salvador_aid", "religious_groups_in_schools",
    "anti_satellite_test_ban", "aid_to_nicaraguan_contras", "mx_missile",
    "immigration", "synfuels_corporation_cutback", "education_spending",
    "superfund_right_to_sue", "crime", "duty_free_exports",
    "export_administration_act_south_africa",
]  # fmt: skip

_BREAST_W = [
    "clump_thickness", "uniformity_cell_size", "uniformity_cell_shape",
    "marginal_adhesion", "single_epithelial_cell_size", "bare_nuclei",
    "bland_chromatin", "normal_nucleoli", "mitoses",
]  # fmt: skip

# dataset -> {numerical feature: (lower, upper)}: documented domains (module docstring), not data.
PUBLIC_BOUNDS: dict[str, dict] = {
    "adult": {
        "age": (17, 90),
        "fnlwgt": (0, 1_500_000),
        "education_num": (1, 16),
        "capital_gain": (0, 99_999),
        "capital_loss": (0, 5_000),
        "hours_per_week": (1, 99),
    },
    "compas": {
        "age": (18, 100),
        "juv_fel_count": (0, 20),
        "juv_misd_count": (0, 20),
        "juv_other_count": (0, 20),
        "priors_count": (0, 40),
    },
    "german": {
        "duration": (4, 72),
        "credit_amount": (0, 20_000),
        "installment_rate": (1, 4),
        "residence_since": (1, 4),
        "age": (18, 100),
        "existing_credits": (1, 4),
        "num_dependents": (1, 2),
    },
    "breast-w": {c: (1, 10) for c in _BREAST_W},
    "diabetes": {
        "pregnancies": (0, 20),
        "glucose": (0, 200),
        "blood_pressure": (0, 150),
        "skin_thickness": (0, 100),
        "insulin": (0, 900),
        "bmi": (0, 70),
        "diabetes_pedigree": (0, 2.5),
        "age": (21, 90),
    },
    "mushroom": {},
    "nursery": {},
    "vote": {},
}

# The documented numerical attributes are integers (counts, years, months, DM amounts, scores,
# census weights) except these measurements:
_REAL_VALUED = {"diabetes": ("bmi", "diabetes_pedigree")}

_SOURCES = {
    "adult": "UCI adult.names",
    "compas": "ProPublica, 'How we analyzed the COMPAS recidivism algorithm' (2016)",
    "german": "UCI german.doc (Statlog German credit)",
    "breast-w": "UCI breast-cancer-wisconsin.names",
    "diabetes": "UCI pima-indians-diabetes.names",
    "mushroom": "UCI agaricus-lepiota.names",
    "nursery": "UCI nursery.names",
    "vote": "UCI house-votes-84.names",
}

_CATEGORIES = {
    "adult": _ADULT_CATEGORIES,
    "compas": _COMPAS_CATEGORIES,
    "german": _GERMAN_CATEGORIES,
    "breast-w": {},
    "diabetes": {},
    "mushroom": {k: list(v) for k, v in _MUSHROOM_CATEGORIES.items()},
    "nursery": _NURSERY_CATEGORIES,
    "vote": {c: ["?", "n", "y"] for c in _VOTE_ISSUES},
}

_ALIASES = {
    "german-credit": "german",
    "breast-wisconsin": "breast-w",
    "breast-cancer-wisconsin": "breast-w",
    "pima": "diabetes",
    "house-votes-84": "vote",
}


def dataset_schema(name: str) -> DatasetSchema:
    """The documented public schema of a bundled raw dataset (see the module docstring).

    >>> s = dataset_schema("compas")
    >>> s.classes, s.categories["c_charge_degree"], s.bounds["priors_count"]
    ((0, 1), ('F', 'M'), (0, 40))
    """
    key = _ALIASES.get(str(name).strip().lower(), str(name).strip().lower())
    if key not in _CATEGORIES:
        raise ValueError(f"no documented schema for {name!r}; known: {sorted(_CATEGORIES)}")
    cats = {c: tuple(sorted(v)) for c, v in _CATEGORIES[key].items()}
    classes: tuple
    names: tuple
    if key == "nursery":
        classes, names = tuple(range(len(_NURSERY_CLASSES))), _NURSERY_CLASSES
    else:
        classes, names = (0, 1), ()
    integer = tuple(c for c in PUBLIC_BOUNDS[key] if c not in _REAL_VALUED.get(key, ()))
    return DatasetSchema(key, classes, cats, dict(PUBLIC_BOUNDS[key]), names, _SOURCES[key], integer)


# ------------------------------------------------------------------ binarized datasets
def _category(feature, values, prefix):
    return {f"{prefix}{v}": dict(feature=feature, kind="category", value=v) for v in values}


def _interval(feature, spec):
    return {col: dict(feature=feature, kind="interval", value=[lo, hi]) for col, (lo, hi) in spec.items()}


def _count_bands(prefix):  # "=0", "=1-3", ">3", ">5" of a count (integers >= 0)
    return {f"{prefix}=0": (None, 0), f"{prefix}=1-3": (0, 3), f"{prefix}>3": (3, None), f"{prefix}>5": (5, None)}


# Column name -> {"feature", "kind", "value"} for the published binarizations whose columns say
# what they encode (the rule learners' ``feature_groups="auto"`` reads them from X.attrs; see
# dpmodels.data.rules). Checked against the files by tests/data/test_datasets.py. The CP4IM files
# (German, …) have anonymous columns f0, f1, …: their groups are unknown and not declared.
_BINARIZED_GROUPS = {
    "adult": {
        # one-hot groups of the paper-003 binarization (a missing value: every column 0)
        **_category("gender", ["Female", "Male"], "gender_"),
        **_category("age", ["high", "low"], "age_"),
        **_category("hours_per_week", ["high", "low"], "hours_per_week_"),
        **_category("occupation", ["Blue-Collar", "Sales", "Professional", "White-Collar", "Service"],
                    "occupation_"),
        **_category("workclass", ["Self-Employed", "Private", "Government"], "workclass_"),
        **_category("education", ["Masters_Doctorate", "Some-college", "Assoc", "HS-grad",
                                  "School_Prof-School", "Bachelors"], "education_"),
        **_interval("capital_gain", {"capital_gain_0": (None, 0), "capital_gain_>0": (0, None)}),
        **_interval("capital_loss", {"capital_loss_0": (None, 0), "capital_loss_>0": (0, None)}),
    },
    "compas": {
        # integer ages: "18-20" is 17 < age <= 20; ">=30" is age > 29 (the loader renames the
        # published "Age<=40"/"Age<=45" headers to what the columns hold, ">=")
        **_interval("age", {"Age=18-20": (17, 20), "Age=18-22": (17, 22), "Age=18-25": (17, 25),
                            "Age=24-30": (23, 30), "Age=24-40": (23, 40), "Age>=30": (29, None),
                            "Age>=40": (39, None), "Age>=45": (44, None)}),
        **_category("race", ["African-American", "Caucasian", "Asian", "Hispanic",
                             "Native-American", "Other"], "Race="),
        **_interval("juvenile_felonies", {k: v for k, v in _count_bands("Juvenile-Felonies").items()
                                          if not k.endswith(">5")}),
        **_interval("juvenile_crimes", _count_bands("Juvenile-Crimes")),
        **_interval("prior_crimes", _count_bands("Prior-Crimes")),
    },
}  # fmt: skip


def binarized_feature_groups(name: str) -> dict:
    """Column -> group spec of a bundled *binarized* dataset (empty when its columns are anonymous).

    The loaders put it in ``X.attrs["dpmodels_groups"]``, so the rule-list learners stop proposing
    conjunctions that are empty or redundant (``race=A and not race=B``). A declaration about the
    columns, taken from their names (and checked against the files in the tests), not from records.
    """
    key = _ALIASES.get(str(name).strip().lower(), str(name).strip().lower())
    return {c: dict(g) for c, g in _BINARIZED_GROUPS.get(key, {}).items()}
