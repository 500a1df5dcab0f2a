"""Reproduce paper 002's accuracy study (Table II, ε = 0.1; appendix Tables VI, ε = 0.01 and VII, ε = 1).

Protocol (paper 002, Sec. VI): depth-4 trees, stratified 5-fold cross-validation, test accuracy,
mean ± standard error over the folds. With ``repeats > 1`` the CV is repeated with different
shuffles and the mean / standard error are over all ``repeats · folds`` test folds. Output: one
tidy row per (dataset, learner, ε, repeat, fold): ``dataset, learner, epsilon, repeat, fold,
accuracy, fit_seconds``. The non-private tree has ``epsilon = inf`` (it is fitted once per fold).

Data (bundled raw UCI files, :func:`dpmodels.data.load_dataset` with ``binarized=False``, rows with
missing values dropped as in the paper):

* ``nursery``: the paper's Table IV lists nursery with a majority share of 0.667 and its
  non-private depth-4 tree scores 1.000, i.e. the binary task "not_recom vs the rest" (not_recom is
  exactly health = not_recom). We binarize the 5-class label that way (y = 1 for not_recom);
  ``"nursery-5class"`` keeps the five classes (not in the paper).
* ``vote``: the paper drops every row with a ``?`` (232 rows, Table IV), although UCI documents
  ``?`` as "neither yea nor nay"; we do the same (the public category list keeps ``?``).
* ``compas``: ProPublica's file with the standard filter (6,172 rows, 9 features); the paper used
  OpenML's balanced ``compas-two-years`` (4,966 rows, 11 features).

Public inputs. Everything a DP learner is told about the data comes from the documented schemas
of :mod:`dpmodels.data.schema` (:func:`dpmodels.data.dataset_schema`): the numerical bounds
(:data:`PUBLIC_BOUNDS`, documented domains, never read from the data), the category lists (the
loaders' category dtypes are built from the UCI / ProPublica documentation, not from the file) and
the label set (declared with ``classes=`` to every learner). Values outside the bounds are clipped
by the learners. See that module for the bounds policy of each dataset (adult: age 17–90, CPS top
codes; compas: age 18–100, counts 0–20 / 0–40; breast-w: scores 1–10; Pima: physiological caps;
mushroom, nursery, vote: categorical only).

Learners (:data:`LEARNERS`): PrivaTree with each split selection, BDPT, DPGDF (categorical
features only, skipped where there is none, as in the paper), diffprivlib's random tree and
logistic regression (optional extra; skipped, with the reason, when diffprivlib does not import), and scikit-learn's non-private tree (integer-encoded
categories). The private learners get the public bounds and categories above, so none of them
reads anything from the data outside its mechanisms. Logistic regression gets a public design:
numerical features scaled to [0, 1] with the public bounds, categorical features one-hot encoded
over the public categories, so every row has L2 norm at most √(number of features), which is the
declared ``data_norm`` (the paper standardised with the data's own mean and variance, a leak).

:func:`reference_table` puts the reference protocol of the project issue (binarized adult and
COMPAS declared categorical, ε = 0.1; scikit-learn's breast cancer at ε = 1) beside the numbers
measured with the public PrivaTree code. The grids run as the ids ``002-uci`` and
``002-reference`` of :mod:`.variants` (``dpmodels reproduce 002-uci 002-reference``).
"""

from __future__ import annotations

import functools
import json
import math
import re
import time
import warnings

import numpy as np
import pandas as pd
from sklearn.model_selection import StratifiedKFold
from sklearn.tree import DecisionTreeClassifier

from ...data import dataset_schema, load_dataset
from ...data.schema import PUBLIC_BOUNDS as _SCHEMA_BOUNDS
from ..seeds import derive_seed

__all__ = [
    "DATASETS",
    "EPSILONS",
    "LEARNERS",
    "PUBLIC_BOUNDS",
    "PAPER_TABLES",
    "REFERENCE_POINTS",
    "load_experiment_data",
    "markdown_table",
    "summarise",
    "reference_table",
]

DATASETS = ("adult", "breast-w", "diabetes", "mushroom", "nursery", "vote", "compas")
EPSILONS = (0.01, 0.1, 1.0)
MAX_DEPTH = 4

# dataset -> {numerical feature: (lower, upper)}: the documented domains of
# :mod:`dpmodels.data.schema` (not read from the data).
PUBLIC_BOUNDS = {name: dict(_SCHEMA_BOUNDS[name]) for name in DATASETS}
PUBLIC_BOUNDS["nursery-5class"] = {}

# learner label -> short key used by the factory
LEARNERS = {
    "tree (non-private)": "sklearn",
    "PrivaTree": "privatree-pf",  # the default: permute-and-flip, misclassification count
    "PrivaTree (Gini)": "privatree-pf-gini",
    "PrivaTree (exponential)": "privatree-exp",
    "PrivaTree (histogram)": "privatree-hist",
    "PrivaTree (one-vs-rest)": "privatree-pf-ovr",  # + one-vs-rest candidates of categorical features
    "PrivaTree (one-vs-rest, public order)": "privatree-pf-ovr-public",  # + no budget on sorting categories
    "PrivaTree (published)": "privatree-published",  # paper 002 as published: ledger rows 'claimed'
    "PrivaTree*": "privatree-published*",  # the paper's non-DP variant (data quantiles)
    "BDPT": "bdpt",
    "DPGDF": "dpgdf",
    "diffprivlib tree": "dpl-tree",
    "DP LR (diffprivlib)": "dpl-lr",
}
_DIFFPRIVLIB = ("diffprivlib tree", "DP LR (diffprivlib)")
_PAPER_COLUMNS = ("tree", "BDPT", "DPGDF", "DiffPrivLib", "PrivaTree*", "PrivaTree")


def _paper_rows(text):
    out = {}
    for line in text.strip().splitlines():
        name, *cells = line.split()
        out[name] = dict(zip(_PAPER_COLUMNS, [None if c == "-" else c for c in cells]))
    return out


# Paper 002, Tables VI (ε = 0.01), II (ε = 0.1), VII (ε = 1): mean ± s.e. over 5 folds, UCI datasets
# and compas-two-years. Column order as in the paper: decision tree, BDPT, DPGDF, DiffPrivLib,
# PrivaTree* (leaking numerical splits), PrivaTree.
PAPER_TABLES = {
    0.01: _paper_rows("""
adult    .840±.001 .747±.004 .742±.004 .753±.002 .777±.007 .771±.010
breast-w .950±.007 .502±.061 - .690±.108 .824±.038 .331±.143
diabetes .723±.012 .660±.010 - .581±.051 .514±.055 .513±.086
mushroom .977±.005 .640±.009 .654±.056 .752±.051 .778±.040 .784±.064
nursery  1.000±.000 .623±.033 .564±.036 .688±.030 .949±.031 1.000±.000
vote     .944±.014 .560±.083 .464±.105 .531±.060 .535±.028 .608±.158
compas   .664±.005 .503±.005 .495±.023 .537±.014 .528±.018 .520±.022
"""),
    0.1: _paper_rows("""
adult    .840±.001 .752±.000 .753±.002 .757±.003 .815±.001 .820±.003
breast-w .950±.007 .614±.025 - .842±.037 .909±.025 .886±.019
diabetes .723±.012 .624±.017 - .667±.010 .659±.011 .673±.019
mushroom .977±.005 .880±.013 .761±.042 .749±.048 .973±.011 .985±.002
nursery  1.000±.000 1.000±.000 .707±.027 .767±.061 1.000±.000 1.000±.000
vote     .944±.014 .608±.062 .561±.081 .827±.036 .771±.081 .737±.061
compas   .664±.005 .562±.013 .571±.004 .569±.005 .639±.007 .595±.013
"""),
    1.0: _paper_rows("""
adult    .840±.001 .809±.001 .752±.000 .758±.005 .822±.003 .823±.001
breast-w .950±.007 .559±.020 - .917±.026 .930±.012 .946±.008
diabetes .723±.012 .645±.006 - .683±.024 .741±.012 .706±.028
mushroom .977±.005 .950±.008 .728±.048 .749±.044 .998±.001 .999±.001
nursery  1.000±.000 1.000±.000 .690±.016 .715±.035 1.000±.000 1.000±.000
vote     .944±.014 .901±.021 .802±.049 .836±.021 .957±.012 .944±.022
compas   .664±.005 .589±.015 .582±.007 .569±.007 .674±.006 .656±.006
"""),
}

# The project issue's reference points, measured with the public PrivaTree code (same protocol as
# run_reference): the published version (accounting leaks across features), its later corrected
# version, diffprivlib's tree and the non-private depth-4 tree.
REFERENCE_POINTS = {
    "adult (binarized)": {"published": 0.783, "corrected": 0.778, "diffprivlib": 0.771, "tree": 0.785},
    "compas (binarized)": {"published": 0.642, "corrected": 0.587, "diffprivlib": 0.597, "tree": 0.668},
    "breast cancer": {"published": 0.902, "corrected": 0.786, "diffprivlib": 0.710, "tree": 0.928},
}
REFERENCE_EPSILON = {"adult (binarized)": 0.1, "compas (binarized)": 0.1, "breast cancer": 1.0}


# --------------------------------------------------------------------------- data
@functools.lru_cache(maxsize=None)
def _load(name):
    if name == "breast cancer":
        from sklearn.datasets import load_breast_cancer

        d = load_breast_cancer(as_frame=True)
        X, y = d.data, d.target.astype(np.int64)
        bounds = _breast_cancer_bounds(d.DESCR, list(X.columns))
        return X, y, dict(bounds=bounds, categories={}, classes=[0, 1])
    if name in ("adult (binarized)", "compas (binarized)"):
        X, y = load_dataset(name.split()[0], binarized=True)
        # "binarized data declared categorical": every 0/1 column is a category in {0, 1}
        return X, y, dict(bounds={}, categories={c: [0, 1] for c in X.columns}, classes=[0, 1])
    base = "nursery" if name == "nursery-5class" else name
    X, y = load_dataset(base, binarized=False)
    if base == "vote":
        keep = (X.astype(str) != "?").all(axis=1).to_numpy()
        X, y = X.loc[keep].reset_index(drop=True), y.loc[keep].reset_index(drop=True)
    if name == "nursery":
        classes = list(y.attrs["classes"])
        y = (y == classes.index("not_recom")).astype(np.int64).rename("not_recom")
    cats = {c: list(X[c].cat.categories) for c in X.columns if isinstance(X[c].dtype, pd.CategoricalDtype)}
    num = [c for c in X.columns if c not in cats]
    known = PUBLIC_BOUNDS[name]
    missing = [c for c in num if c not in known]
    if missing:  # pragma: no cover - guards the constants above
        raise KeyError(f"{name}: no public bounds for {missing}")
    bounds = {c: tuple(float(v) for v in known[c]) for c in num}
    classes = [0, 1] if name != "nursery-5class" else list(dataset_schema("nursery").classes)
    return X, y, dict(bounds=bounds, categories=cats, classes=classes)


def _breast_cancer_bounds(descr, columns):
    """Public bounds of scikit-learn's breast cancer: the min / max of its documentation table.

    The "Summary Statistics" table of ``load_breast_cancer().DESCR`` is the published domain of the
    dataset (it coincides with the range of the 569 rows, so it is the same information the
    reference measurements used).
    """
    suffix = {"mean": "mean {}", "standard error": "{} error", "worst": "worst {}"}
    out = {}
    for m in re.finditer(r"^([a-z ]+) \((mean|standard error|worst)\):\s+([-\d.]+)\s+([-\d.]+)", descr, re.M):
        out[suffix[m.group(2)].format(m.group(1).strip())] = (float(m.group(3)), float(m.group(4)))
    missing = [c for c in columns if c not in out]
    if missing:  # pragma: no cover - depends on scikit-learn's DESCR text
        raise RuntimeError(f"breast cancer DESCR: no range for {missing}")
    return {c: out[c] for c in columns}


def load_experiment_data(name):
    """``(X, y, meta)`` with the public ``meta = {bounds, categories, classes}`` of the experiment.

    ``name``: one of :data:`DATASETS`, ``"nursery-5class"``, or the reference-protocol datasets
    ``"adult (binarized)"``, ``"compas (binarized)"``, ``"breast cancer"``. Copies are returned.
    """
    X, y, meta = _load(name)
    return X.copy(), y.copy(), meta


# --------------------------------------------------------------------------- learners
def _ordinal(X, meta):
    """Integer codes of the public categories (−1 outside), numbers as float (paper's encoding)."""
    out = np.empty(X.shape, dtype=float)
    for j, c in enumerate(X.columns):
        if c in meta["categories"]:
            out[:, j] = pd.Categorical(X[c], categories=meta["categories"][c]).codes
        else:
            out[:, j] = X[c].to_numpy(dtype=float)
    return out


def _public_design(X, meta):
    """[0, 1]-scaled numbers (public bounds) and one-hot public categories; row norm ≤ √m."""
    blocks = []
    for c in X.columns:
        if c in meta["categories"]:
            codes = pd.Categorical(X[c], categories=meta["categories"][c]).codes
            oh = np.zeros((len(X), len(meta["categories"][c])))
            ok = codes >= 0
            oh[np.flatnonzero(ok), codes[ok]] = 1.0
            blocks.append(oh)
        else:
            lo, hi = meta["bounds"][c]
            x = np.clip(X[c].to_numpy(dtype=float), lo, hi)
            blocks.append(((x - lo) / (hi - lo if hi > lo else 1.0))[:, None])
    return np.hstack(blocks)


def _bounds_pair(X, meta):
    """(lower, upper) arrays over the numerical columns in column order (BDPT's convention)."""
    num = [c for c in X.columns if c not in meta["categories"]]
    return (np.array([meta["bounds"][c][0] for c in num]), np.array([meta["bounds"][c][1] for c in num]))


def _make(learner, eps, X, meta, seed):
    """(estimator, transform) for one learner; ``transform`` maps the DataFrame to its input."""
    from ...tree.baselines import (
        BDPTClassifier,
        DiffprivlibTreeClassifier,
        DPGDFClassifier,
        DPLogisticRegression,
    )
    from ...tree.privatree import PrivaTreeClassifier

    key = LEARNERS[learner]
    cats, bounds, classes = meta["categories"], meta["bounds"], meta["classes"]
    if key == "sklearn":
        return DecisionTreeClassifier(max_depth=MAX_DEPTH, random_state=seed), functools.partial(_ordinal, meta=meta)
    if key.startswith("privatree"):
        sel = {"privatree-pf": "permute-and-flip", "privatree-exp": "exponential",
               "privatree-hist": "histogram", "privatree-pf-gini": "permute-and-flip",
               "privatree-pf-ovr": "permute-and-flip", "privatree-pf-ovr-public": "permute-and-flip",
               "privatree-published": "histogram",
               "privatree-published*": "histogram"}[key]  # fmt: skip
        crit = "gini" if key.endswith("-gini") else "error"
        variant = {"privatree-published": "published", "privatree-published*": "published*"}.get(key, "rigorous")
        extra = dict(
            variant=variant,
            one_vs_rest=key.startswith("privatree-pf-ovr"),
            category_order="public" if key.endswith("-public") else "noisy-ratio",
        )
        if len(bounds) + len(cats) < X.shape[1]:  # pragma: no cover - guards the metadata
            raise ValueError("numerical features without public bounds")
        est = PrivaTreeClassifier(
            epsilon=eps,
            max_depth=MAX_DEPTH,
            bounds=dict(bounds) if bounds else None,
            categories=dict(cats) or None,
            split_selection=sel,
            split_criterion=crit,
            random_state=seed,
            classes=classes,
            **extra,
        )
        return est, None
    if key == "bdpt":
        lo, hi = _bounds_pair(X, meta)
        b = (lo, hi) if lo.size else None
        return BDPTClassifier(
            epsilon=eps, max_depth=MAX_DEPTH, bounds=b, categories=dict(cats), classes=classes, random_state=seed
        ), None
    if key == "dpgdf":
        return DPGDFClassifier(
            epsilon=eps, max_depth=MAX_DEPTH, categories=dict(cats), classes=classes, random_state=seed
        ), None
    if key == "dpl-tree":
        lo = np.array([0.0 if c in cats else bounds[c][0] for c in X.columns])
        hi = np.array([len(cats[c]) - 1.0 if c in cats else bounds[c][1] for c in X.columns])
        return DiffprivlibTreeClassifier(
            epsilon=eps, max_depth=MAX_DEPTH, bounds=(lo, hi), classes=classes, random_state=seed
        ), functools.partial(_ordinal, meta=meta)
    if key == "dpl-lr":
        return DPLogisticRegression(
            epsilon=eps, data_norm=math.sqrt(X.shape[1]), standardize=False, classes=classes, random_state=seed
        ), functools.partial(_public_design, meta=meta)
    raise KeyError(learner)  # pragma: no cover


def _applicable(learner, meta, X):
    if LEARNERS[learner] == "dpgdf":
        return len(meta["categories"]) > 0  # categorical features only (paper: "-" otherwise)
    return True


def _one_fold(dataset, learner, epsilons, repeat, fold, folds):
    X, y, meta = _load(dataset)
    tr, te = list(StratifiedKFold(folds, shuffle=True, random_state=repeat).split(X, y))[fold]
    Xtr, Xte, ytr, yte = X.iloc[tr], X.iloc[te], y.iloc[tr], y.iloc[te]
    rows = []
    eps_list = [math.inf] if LEARNERS[learner] == "sklearn" else list(epsilons)
    for eps in eps_list:
        est, tf = _make(learner, eps, X, meta, derive_seed(dataset, learner, eps, repeat, fold))
        A, B = (Xtr, Xte) if tf is None else (tf(Xtr), tf(Xte))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # DPGDF's "numerical features ignored", diffprivlib's notes
            t = time.perf_counter()
            est.fit(A, ytr.to_numpy())
            secs = time.perf_counter() - t
            acc = float(np.mean(est.predict(B) == yte.to_numpy()))
        rows.append(
            dict(
                dataset=dataset,
                learner=learner,
                epsilon=float(eps),
                repeat=repeat,
                fold=fold,
                accuracy=acc,
                fit_seconds=secs,
            )
        )
    return rows


# --------------------------------------------------------------------------- tables
def fold_frame(df: pd.DataFrame) -> pd.DataFrame:
    """Tidy registry rows (metric ``accuracy``, ``parameters`` holding repeat and fold) -> one row
    per fit: ``dataset, learner, epsilon, repeat, fold, accuracy, fit_seconds``."""
    if "accuracy" in df and "metric" not in df:
        return df
    acc = df[df["metric"] == "accuracy"]
    params = [json.loads(p) for p in acc["parameters"]]
    return pd.DataFrame(
        dict(
            dataset=acc["dataset"].to_numpy(),
            learner=acc["learner"].to_numpy(),
            epsilon=acc["epsilon"].to_numpy(),
            repeat=[p["repeat"] for p in params],
            fold=[p["fold"] for p in params],
            accuracy=acc["value"].to_numpy(),
            fit_seconds=acc["fit_seconds"].to_numpy(),
        )
    )


def summarise(df: pd.DataFrame) -> pd.DataFrame:
    """Mean accuracy, its standard error over all folds, the number of folds and the mean fit time
    per (dataset, learner, ε)."""
    df = fold_frame(df)
    g = df.groupby(["dataset", "learner", "epsilon"], sort=False)
    out = g.agg(
        mean=("accuracy", "mean"),
        sd=("accuracy", "std"),
        folds=("accuracy", "size"),
        fit_seconds=("fit_seconds", "mean"),
    ).reset_index()
    out["se"] = out["sd"].fillna(0.0) / np.sqrt(out["folds"])
    return out.drop(columns="sd")


def _cell(mean, se):
    m = f"{mean:.3f}"
    s = f"{se:.3f}"
    return f"{m[1:] if m.startswith('0') else m} ± {s[1:] if s.startswith('0') else s}"


def markdown_table(df: pd.DataFrame, paper: bool = True) -> str:
    """Markdown table: one row per (dataset, ε), one column per learner ("mean ± s.e." over all
    folds), and, with ``paper=True``, the paper's values for the same dataset and ε (Tables VI, II,
    VII) in the last column. The non-private tree (ε = inf) is repeated on every ε row."""
    s = summarise(df)
    learners = [lr for lr in LEARNERS if lr in set(s["learner"])]
    eps_vals = sorted(e for e in s["epsilon"].unique() if np.isfinite(e)) or [math.inf]
    datasets = list(dict.fromkeys(s["dataset"]))
    head = ["dataset", "ε", *learners]
    if paper:
        head.append("paper: " + " / ".join(_PAPER_COLUMNS))
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for ds in datasets:
        for eps in eps_vals:
            row = [ds, f"{eps:g}"]
            for lr in learners:
                e = math.inf if LEARNERS[lr] == "sklearn" else eps
                hit = s[(s["dataset"] == ds) & (s["learner"] == lr) & (s["epsilon"] == e)]
                row.append(_cell(hit["mean"].iloc[0], hit["se"].iloc[0]) if len(hit) else "–")
            if paper:
                p = PAPER_TABLES.get(eps, {}).get(ds)
                row.append(" / ".join((v or "–").split("±")[0] for v in p.values()) if p else "")
            lines.append("| " + " | ".join(row) + " |")
    return "\n".join(lines)


def reference_table(df: pd.DataFrame) -> str:
    """Our measurements on the reference protocol beside the issue's reference points."""
    s = summarise(df)
    learners = [lr for lr in LEARNERS if lr in set(s["learner"])]
    head = ["dataset", "published (leaky)", "corrected", "diffprivlib (ref.)", "tree (ref.)", *learners]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for ds, ref in REFERENCE_POINTS.items():
        if ds not in set(s["dataset"]):
            continue
        row = [f"{ds}, ε = {REFERENCE_EPSILON[ds]:g}"] + [
            f"{ref[k]:.3f}".lstrip("0") for k in ("published", "corrected", "diffprivlib", "tree")
        ]
        for lr in learners:
            hit = s[(s["dataset"] == ds) & (s["learner"] == lr)]
            row.append(_cell(hit["mean"].iloc[0], hit["se"].iloc[0]) if len(hit) else "–")
        lines.append("| " + " | ".join(row) + " |")
    n = s.groupby("dataset")["folds"].max()
    lines.append("")
    lines.append("Folds per cell: " + ", ".join(f"{k} {int(v)}" for k, v in n.items()) + ".")
    return "\n".join(lines)


# --------------------------------------------------------------------------- data and folds of the 002 cells
COMPAS_TWO_YEARS_BOUNDS = {"age": (18.0, 100.0), "juv_misd_count": (0.0, 20.0), "priors_count": (0.0, 40.0)}
BOUNDS_FROM_DATA = "bounds read from the training data (leak row in each ledger; the paper's protocol)"


@functools.lru_cache(maxsize=6)
def _load_002(name, group, data_dir, download):
    if group == "uci":
        X, y, meta = load_experiment_data(name)
        return X, y, dict(meta, bounds_policy="documented domains (paper_002.data.PUBLIC_BOUNDS)")
    if group == "vote435":  # Fig. 2: all 435 rows, '?' kept as the third category (UCI: neither yea nor nay)
        X, y = load_dataset("vote", binarized=False, dropna=False)
        cats = {c: list(X[c].cat.categories) for c in X.columns}
        return X, y, dict(bounds={}, categories=cats, classes=[0, 1], bounds_policy="categorical only")
    from ...data.openml import load_openml

    X, y = load_openml(name, group, data_dir=data_dir, download=download)
    cats = {c: list(X[c].cat.categories) for c in X.columns if isinstance(X[c].dtype, pd.CategoricalDtype)}
    num = [c for c in X.columns if c not in cats]
    if name == "compas-two-years":
        bounds, policy = {c: COMPAS_TWO_YEARS_BOUNDS[c] for c in num}, "documented domains (age 18-100, counts)"
    else:
        bounds, policy = None, BOUNDS_FROM_DATA
    if not num:
        bounds, policy = {}, "categorical only"
    leak = X.attrs.get("categories_from_data") or []
    if leak:
        policy += f"; categories of {', '.join(leak)} read from the data"
    return X, y, dict(bounds=bounds, categories=cats, classes=[0, 1], bounds_policy=policy)


def load_002(name, group, data_dir=None, download=False):
    """``(X, y, meta)``: data and public metadata (bounds or None, categories, classes, policy)."""
    X, y, meta = _load_002(name, group, data_dir, bool(download))
    return X.copy(), y.copy(), dict(meta)


def _kfold(y, folds, repeat):
    return list(StratifiedKFold(folds, shuffle=True, random_state=repeat).split(np.zeros(len(y)), y))
