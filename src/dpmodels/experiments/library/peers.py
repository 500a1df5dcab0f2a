"""dpmodels beside the libraries a practitioner would pick instead, at equal ε (issue 24 §4).

Registered as ``lib-peers`` (``dpmodels reproduce lib-peers``). Five classification datasets
(Adult, COMPAS, German: the bundled UCI / ProPublica files; credit-default and electricity: the
bundled OpenML "cat" files) and two regression tasks (Adult → ``hours_per_week``; scikit-learn's
diabetes) × ε ∈ {0.1, 0.5, 1, 4} × 10 splits. Split s of a dataset is one 70/30 split drawn with
``random_state=s`` (stratified on the label for classification), computed inside each cell from
(dataset, s) alone, so every learner sees the same rows. Metrics on the held-out 30 %: accuracy,
ROC AUC and Brier score (classification), R² (regression); ``fit_seconds`` is the fit's **CPU**
time (``time.process_time``, single-threaded: DP-EBM runs with ``n_jobs=1``, BLAS limited to one
thread by the runner).

Learners (one cell per dataset × learner × split, all ε inside; a cell is cached by the hash of its
arguments, so a rerun resumes and a new series adds cells without recomputing the others):

* ``PrivaTree (default)`` / ``PrivaTree gini``: :class:`~dpmodels.tree.PrivaTreeClassifier` with its
  defaults / ``split_criterion="gini"``; ``PrivaTreeRegressor`` for regression.
* ``DP rule list``: :func:`dpmodels.make_private_rule_list` with its defaults.
* ``DP additive``: ``dpmodels.gam.DPAdditiveClassifier`` / ``DPAdditiveRegressor`` with their
  defaults (pure ε-DP), and ``DP additive (δ = 1e-5)`` at DP-EBM's δ, when ``dpmodels.gam``
  imports (cells ``requires="dpmodels.gam"``).
* ``DP-EBM``: InterpretML's ``interpret.privacy.DPExplainableBoostingClassifier`` / ``Regressor``
  with its defaults (δ = 1e-5, GDP composition, 32 bins, 300 rounds), given the declared feature
  types (``feature_types``: nominal / continuous), numerical bounds (``privacy_bounds``) and, for
  regression, the declared label range; it takes category lists from the data (a declared list is
  accepted only as an ordinal type, and not for a pandas categorical column). Needs the optional extra
  ``dpmodels[peers]`` (interpret-core, pinned); its cells are skipped with that reason otherwise.
* ``diffprivlib LR`` (logistic regression by objective perturbation, on [0, 1]-scaled numbers and
  one-hot declared categories) and ``diffprivlib LinearRegression``: cells
  ``requires="diffprivlib"``, run by the side environment (``make diffprivlib-env``) and read here.
* ``sklearn tree depth 4``: a non-private reference (categories ordinal-coded by their declared
  lists).

Public inputs: every private learner of this library gets the documented label set, category lists
and numerical bounds (:func:`dpmodels.data.dataset_schema`; for the OpenML files and diabetes the
declarations in :data:`DECLARED`), never values read from the records.

The probe (cells ``probe-LEARNER``): how a released model can name a category held by a single record.
COMPAS with every ``race = "Native American"`` record but one removed (D) and its neighbour
without that record (D′); DP-EBM and the default PrivaTree are fitted on both at ε = 0.1 with
``fits`` noise seeds each; metric ``named`` is 1 when the released model names the category
(DP-EBM: among the categories of its ``race`` bins; PrivaTree: anywhere in its saved model).

:func:`markdown_table` gives the mean ± s.e. over the splits per (dataset, learner, ε): the id's
table, so ``dpmodels reproduce lib-peers --report docs`` writes ``docs/results/lib-peers.md`` from the
committed rows ``docs/results/data/lib-peers.csv.gz`` (≈ 5,000 rows) like every generated page, and
``make results-check`` detects an edited number (:mod:`dpmodels.experiments.pages`).
"""

from __future__ import annotations

import copy
import functools
import json
import math
import re
import time

import numpy as np
import pandas as pd

from ..._optional import require
from ..paper_002.data import _public_design  # declared bounds scaled to [0, 1], declared categories one-hot
from ..registry import Cell, Experiment, Skip, register, row
from ..seeds import derive_seed

__all__ = [
    "CLASSIFICATION",
    "REGRESSION",
    "EPSILONS",
    "DECLARED",
    "load_task",
    "split",
    "fit_cell",
    "probe_cell",
    "summary",
    "markdown_table",
]

CLASSIFICATION = ("adult", "compas", "credit-default", "electricity", "german")
REGRESSION = ("adult-hours", "diabetes")
EPSILONS = (0.1, 0.5, 1.0, 4.0)
DEPTH = 4  # the non-private reference tree's depth

# Declared public inputs of the files without a schema in dpmodels.data.schema (a-priori domains,
# not the records' min / max; values outside are clipped by the learners):
# * default-of-credit-card-clients (Yeh & Lien 2009, UCI): x1 credit limit (NT$, a round cap of
#   1,000,000), x5 age (adult card holders, 18-100), x6-x11 repayment status (the documented
#   scale -2..9: -2 no consumption, -1 paid duly, 1-9 months of delay), x12-x17 bill statements
#   (NT$, round caps -500,000..1,000,000: a credit balance is negative), x18-x23 previous
#   payments (NT$, 0..1,000,000); x2 (sex) is declared {0, 1} by the loader.
# * electricity (Harries 1999, "Elec2"): every numerical attribute is normalised to [0, 1] by the
#   dataset's author; ``day`` is the weekday code 0-6 (declared by the loader).
# * diabetes (scikit-learn's copy of Efron et al. 2004): features mean-centred and scaled to unit
#   norm (|x| <= 0.25 for 442 rows), the label a progression score; declared as lib-regression does.
_CREDIT_BOUNDS = {
    "x1": (0, 1_000_000),
    "x5": (18, 100),
    **{f"x{k}": (-2, 9) for k in range(6, 12)},
    **{f"x{k}": (-500_000, 1_000_000) for k in range(12, 18)},
    **{f"x{k}": (0, 1_000_000) for k in range(18, 24)},
}
_ELECTRICITY_BOUNDS = {
    c: (0.0, 1.0) for c in ("date", "period", "nswprice", "nswdemand", "vicprice", "vicdemand", "transfer")
}
DECLARED: dict[str, dict] = {"credit-default": _CREDIT_BOUNDS, "electricity": _ELECTRICITY_BOUNDS}

LEARNERS_CLF = (
    "PrivaTree (default)",
    "PrivaTree gini",
    "DP rule list",
    "DP additive",
    "DP additive (δ = 1e-5)",
    "DP-EBM",
    "diffprivlib LR",
    "sklearn tree depth 4",
)
LEARNERS_REG = (
    "PrivaTreeRegressor",
    "DP additive",
    "DP additive (δ = 1e-5)",
    "DP-EBM",
    "diffprivlib LinearRegression",
    "sklearn tree depth 4",
)
# the module a learner's cells need beyond the core package (skipped with this reason when absent)
REQUIRES = {"DP additive": "dpmodels.gam", "DP-EBM": "interpret", "diffprivlib LR": "diffprivlib"}
REQUIRES["DP additive (δ = 1e-5)"] = "dpmodels.gam"
REQUIRES["diffprivlib LinearRegression"] = "diffprivlib"
# what the runner says when a requirement does not import, beside the package name
INSTALL_HINT = {
    "interpret": "pip install 'dpmodels[peers]' (interpret-core 0.7.8)",
    "diffprivlib": "make diffprivlib-env (scikit-learn < 1.8 side environment)",
    "dpmodels.gam": "dpmodels.gam is not in this build",
}
PROBE_CATEGORY = ("race", "Native American")


# --------------------------------------------------------------------------- data
def load_task(name: str):
    """``(X, y, spec)`` of a dataset; ``spec`` holds the declared ``classes`` (classification) or
    ``label_bounds`` (regression), ``categories`` and ``bounds`` — from documentation, never the rows."""
    X, y, spec = _load(name)
    spec = copy.deepcopy(spec)
    spec["feature_types"] = ["nominal" if c in spec["categories"] else "continuous" for c in X.columns]
    return X.copy(), y.copy(), spec


@functools.lru_cache(maxsize=2)  # a worker runs a dataset's cells one after another
def _load(name: str):
    from ...data import dataset_schema, load_dataset

    if name in ("adult", "compas", "german", "adult-hours"):
        base = "adult" if name == "adult-hours" else name
        schema = dataset_schema(base)
        X, y = load_dataset(base, binarized=False)
        params = schema.fit_params()
        cats, bounds = params["categories"], dict(params["bounds"] or {})
        if name == "adult-hours":
            y = X.pop("hours_per_week").astype(float)
            lb = tuple(float(v) for v in bounds.pop("hours_per_week"))
            return X, y, dict(label_bounds=lb, categories=cats, bounds=bounds)
        return X, y.astype(int), dict(classes=[0, 1], categories=cats, bounds=bounds)
    if name in DECLARED:
        from ...data.openml import load_openml

        X, y = load_openml({"credit-default": "default-of-credit-card-clients"}.get(name, name), "cat")
        cats = {c: list(X[c].cat.categories) for c in X.columns if isinstance(X[c].dtype, pd.CategoricalDtype)}
        bounds = {c: DECLARED[name][c] for c in X.columns if c not in cats}
        return (
            X,
            pd.Series(np.asarray(y), name="label").astype(int),
            dict(classes=[0, 1], categories=cats, bounds=bounds),
        )
    if name == "diabetes":
        from .regression import load_task as load_regression

        X, y, bounds, lb = load_regression("diabetes")
        return X, y, dict(label_bounds=tuple(lb), categories={}, bounds=dict(bounds))
    raise ValueError(f"unknown dataset {name!r}; choose one of {CLASSIFICATION + REGRESSION}")


def split(name: str, s: int, X, y):
    """Train / test row positions of split ``s``: 70/30, stratified on the label for classification."""
    from sklearn.model_selection import ShuffleSplit, StratifiedShuffleSplit

    if name in REGRESSION:
        return next(ShuffleSplit(n_splits=1, test_size=0.3, random_state=int(s)).split(X))
    return next(StratifiedShuffleSplit(n_splits=1, test_size=0.3, random_state=int(s)).split(X, y))


def _ordinal(X: pd.DataFrame, cats: dict) -> np.ndarray:
    """Categories as their index in the declared list (-1: outside it), numbers as they are."""
    cols = [
        pd.Categorical(X[c], categories=cats[c]).codes.astype(float) if c in cats else X[c].to_numpy(dtype=float)
        for c in X.columns
    ]
    return np.column_stack(cols)


# --------------------------------------------------------------------------- learners
def _estimator(learner: str, eps: float, spec: dict, seed: int, regression: bool):
    """``(estimator, transform)``: the learner at ε and the map from the DataFrame to its input."""
    cats, bounds = spec["categories"], spec["bounds"]
    declared = dict(categories=dict(cats) or None, bounds=dict(bounds) or None)
    if learner == "sklearn tree depth 4":
        from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

        cls = DecisionTreeRegressor if regression else DecisionTreeClassifier
        return cls(max_depth=DEPTH, random_state=0), lambda X: _ordinal(X, cats)
    if learner == "PrivaTree (default)":
        from ...tree import PrivaTreeClassifier

        return PrivaTreeClassifier(epsilon=eps, classes=spec["classes"], random_state=seed, **declared), None
    if learner == "PrivaTree gini":
        from ...tree import PrivaTreeClassifier

        est = PrivaTreeClassifier(
            epsilon=eps, split_criterion="gini", classes=spec["classes"], random_state=seed, **declared
        )
        return est, None
    if learner == "PrivaTreeRegressor":
        from ...tree import PrivaTreeRegressor

        est = PrivaTreeRegressor(epsilon=eps, label_bounds=spec["label_bounds"], random_state=seed, **declared)
        return est, None
    if learner == "DP rule list":
        from ...pipeline import make_private_rule_list

        return make_private_rule_list(epsilon=eps, classes=spec["classes"], random_state=seed, **declared), None
    if learner.startswith("DP additive"):  # pure ε by default; at DP-EBM's δ for the same-δ comparison
        import dpmodels.gam as gam

        common: dict = dict(epsilon=eps, delta=1e-5 if "δ" in learner else 0.0, random_state=seed, **declared)
        if regression:
            return gam.DPAdditiveRegressor(label_bounds=spec["label_bounds"], **common), None
        return gam.DPAdditiveClassifier(classes=spec["classes"], **common), None
    if learner == "DP-EBM":
        require("interpret", "the DP-EBM peer")
        from interpret.privacy import DPExplainableBoostingClassifier, DPExplainableBoostingRegressor

        kw: dict = dict(epsilon=eps, random_state=seed, n_jobs=1, feature_types=spec["feature_types"])
        if bounds:
            kw["privacy_bounds"] = {c: (float(lo), float(hi)) for c, (lo, hi) in bounds.items()}
        if regression:
            lo, hi = spec["label_bounds"]
            return DPExplainableBoostingRegressor(privacy_target_min=lo, privacy_target_max=hi, **kw), None
        return DPExplainableBoostingClassifier(**kw), None
    if learner == "diffprivlib LR":
        from ...tree.baselines import DPLogisticRegression

        est = DPLogisticRegression(
            epsilon=eps, data_norm=math.sqrt(len(spec["categories"]) + len(spec["bounds"])), standardize=False,
            classes=spec["classes"], random_state=seed,
        )  # fmt: skip
        return est, lambda X: _public_design(X, spec)
    if learner == "diffprivlib LinearRegression":
        from diffprivlib.models import LinearRegression

        num = list(bounds)
        lo, hi = np.array([bounds[c][0] for c in num], float), np.array([bounds[c][1] for c in num], float)
        est = LinearRegression(epsilon=eps, bounds_X=(lo, hi), bounds_y=spec["label_bounds"], random_state=seed)
        return est, lambda X: np.clip(X[num].to_numpy(dtype=float), lo, hi)
    raise ValueError(f"unknown learner {learner!r}")


def _delta(est) -> float:
    """The δ a fitted private learner reports: its ledger's, else its parameter (DP-EBM, diffprivlib: 0)."""
    ledger = getattr(est, "privacy_ledger_", None)
    if ledger is not None:
        return float(ledger.delta)
    return float(getattr(est, "delta", 0.0) or 0.0)


def fit_cell(dataset: str, learner: str, split_index: int, epsilons=EPSILONS) -> list[dict]:
    """Tidy rows of one learner on one split of one dataset, at every ε (one ε for a non-private one)."""
    from sklearn.metrics import r2_score, roc_auc_score

    X, y, spec = load_task(dataset)
    s = int(split_index)
    tr, te = split(dataset, s, X, y)
    Xtr, Xte, ytr, yte = X.iloc[tr], X.iloc[te], y.iloc[tr], y.iloc[te]
    regression = dataset in REGRESSION
    private = learner != "sklearn tree depth 4"
    rows = []
    for eps in epsilons if private else (None,):
        est, transform = _estimator(learner, float(eps or 0), spec, derive_seed(dataset, learner, s, eps), regression)
        A_tr, A_te = (Xtr, Xte) if transform is None else (transform(Xtr), transform(Xte))
        t0 = time.process_time()
        est.fit(A_tr, ytr.to_numpy() if transform is not None else ytr)
        cpu = time.process_time() - t0
        delta = _delta(est) if private else None
        params = {"split": s}
        y_true = yte.to_numpy()
        if regression:
            metrics = {"r2": float(r2_score(y_true, np.asarray(est.predict(A_te), dtype=float)))}
        else:
            p1 = np.asarray(est.predict_proba(A_te), dtype=float)[:, 1]
            pred = np.asarray(est.predict(A_te)).astype(int)
            metrics = {
                "accuracy": float(np.mean(pred == y_true)),
                "roc_auc": float(roc_auc_score(y_true, p1)),
                "brier": float(np.mean((p1 - y_true) ** 2)),
            }
        for metric, value in metrics.items():
            rows.append(row(dataset, learner, params, eps, delta, s, metric, value, cpu))
    return rows


# --------------------------------------------------------------------------- the probe
def _probe_data():
    """COMPAS with one record of the probed category (D) and without it (D′)."""
    from ...data import dataset_schema, load_dataset

    X, y = load_dataset("compas", binarized=False)
    col, value = PROBE_CATEGORY
    holders = np.flatnonzero((X[col] == value).to_numpy())
    keep = np.ones(len(X), bool)
    keep[holders[1:]] = False  # D: exactly one record holds the category
    D = (X[keep].reset_index(drop=True), y[keep].reset_index(drop=True))
    one = int(np.flatnonzero((D[0][col] == value).to_numpy())[0])
    Dn = (D[0].drop(index=one).reset_index(drop=True), D[1].drop(index=one).reset_index(drop=True))
    return D, Dn, dataset_schema("compas").fit_params()


def _named_dpebm(model, col: str, value: str) -> bool:
    j = list(model.feature_names_in_).index(col)
    return any(value in level for level in model.bins_[j] if isinstance(level, dict))


def _named_ours(model, value: str) -> bool:
    from ...io import model_to_dict

    return value in json.dumps(model_to_dict(model), default=str)


def probe_cell(fits: int = 100, epsilon: float = 0.1, learners=("DP-EBM", "PrivaTree (default)")) -> list[dict]:
    """Metric ``named`` (0/1) per fit: does the released model name the one-record category?"""
    import warnings

    D, Dn, declared = _probe_data()
    col, value = PROBE_CATEGORY
    rows = []
    for learner in learners:
        if learner == "DP-EBM":
            require("interpret", "the DP-EBM peer")
            from interpret.privacy import DPExplainableBoostingClassifier
        for which, (X, y) in (("with", D), ("without", Dn)):
            for k in range(int(fits)):
                seed = derive_seed("probe", learner, k)
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    if learner == "DP-EBM":
                        bounds = {c: (float(lo), float(hi)) for c, (lo, hi) in declared["bounds"].items()}
                        types = ["nominal" if c in declared["categories"] else "continuous" for c in X.columns]
                        m = DPExplainableBoostingClassifier(
                            epsilon=epsilon, random_state=seed, n_jobs=1, privacy_bounds=bounds, feature_types=types
                        ).fit(X, y)
                        named, delta = _named_dpebm(m, col, value), float(m.delta)
                    else:
                        from ...tree import PrivaTreeClassifier

                        m = PrivaTreeClassifier(epsilon=epsilon, random_state=seed, **declared).fit(X, y)
                        named, delta = _named_ours(m, value), 0.0
                params = {"probe": f"{col}={value}", "neighbour": which, "fit": k}
                rows.append(row("compas", learner, params, epsilon, delta, k, "named", float(named)))
    return rows


# --------------------------------------------------------------------------- grid
def _cells(size) -> list:
    runs = size.runs_or(2, 10)
    datasets = size.datasets_or(CLASSIFICATION + REGRESSION)
    epsilons = size.epsilons_or((1.0,), EPSILONS)
    out: list = []
    for ds in datasets:
        if ds not in CLASSIFICATION + REGRESSION:
            out.append(Skip(ds, f"not a dataset of lib-peers ({', '.join(CLASSIFICATION + REGRESSION)})"))
            continue
        learners = LEARNERS_REG if ds in REGRESSION else LEARNERS_CLF
        for learner in learners:
            eps = () if learner == "sklearn tree depth 4" else epsilons
            for s in range(runs):
                out.append(
                    Cell(
                        f"{ds}-{learner}-s{s}",
                        fit_cell,
                        dict(dataset=ds, learner=learner, split_index=s, epsilons=eps),
                        cost=5.0 if learner == "DP-EBM" else 1.0,
                        requires=REQUIRES.get(learner),
                    )
                )
    if size.datasets is None or "compas" in size.datasets:
        for learner in ("PrivaTree (default)", "DP-EBM"):
            kw = dict(fits=size.pick(10, 100), epsilon=0.1, learners=(learner,))
            out.append(Cell(f"probe-{learner}", probe_cell, kw, cost=5.0, requires=REQUIRES.get(learner)))
    return out


# --------------------------------------------------------------------------- tables
_METRICS = ("accuracy", "roc_auc", "brier", "r2")
# column order of the tables: ours, the peers, the non-private reference
_ORDER = {
    name: k
    for k, name in enumerate(
        (
            "PrivaTree (default)",
            "PrivaTree gini",
            "DP rule list",
            "PrivaTreeRegressor",
            "DP additive",
            "DP additive (δ = 1e-5)",
            "DP-EBM",
            "diffprivlib LR",
            "diffprivlib LinearRegression",
            "sklearn tree depth 4",
        )
    )
}


def summary(df: pd.DataFrame) -> pd.DataFrame:
    """Mean, standard error and count over the splits per (dataset, learner, ε, metric), plus the
    mean fit CPU seconds (the probe's rows: the share of fits that name the category)."""
    d = df.copy()
    d["epsilon"] = d["epsilon"].fillna(np.inf)
    g = d.groupby(["dataset", "learner", "epsilon", "metric"], sort=False)
    out = g["value"].agg(mean="mean", std="std", n="count").reset_index()
    out["se"] = out["std"].fillna(0.0) / np.sqrt(out["n"])
    out["fit_cpu_s"] = g["fit_seconds"].mean().to_numpy()
    probe = d[d.metric == "named"]
    if len(probe):
        params = probe["parameters"].map(json.loads)
        probe = probe.assign(neighbour=[p["neighbour"] for p in params])
        pg = probe.groupby(["dataset", "learner", "epsilon", "neighbour"], sort=False)["value"]
        pr = pg.agg(mean="mean", n="count").reset_index()
        pr["metric"] = "named_" + pr.pop("neighbour")
        pr["std"], pr["se"], pr["fit_cpu_s"] = np.nan, np.nan, np.nan
        out = pd.concat([out[out.metric != "named"], pr[out.columns]], ignore_index=True)
    out = out.drop(columns="std")
    out["order"] = out["learner"].map(lambda x: _ORDER.get(x, 99))
    out = out.sort_values(["dataset", "metric", "epsilon", "order"], kind="stable").drop(columns="order")
    return out.reset_index(drop=True)


def _fmt(v: float, se: float | None = None, digits: int = 3) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "–"
    if abs(v) >= 100:  # diffprivlib's LinearRegression on diabetes: R² of order -10⁶
        return f"{v:.1e}"
    s = re.sub(r"^(-?)0\.", r"\1.", f"{v:.{digits}f}")  # .804, -.690: the leading zero dropped
    if se is not None and not math.isnan(se) and se > 0.0045:
        s += f" ± {se:.3f}".replace("0.", ".", 1)
    return s


def _eps_label(e: float) -> str:
    return "–" if math.isinf(e) else f"{e:g}"


def _tables(s: pd.DataFrame) -> str:
    """Per metric: rows (dataset, ε), columns the learners present; mean (± s.e. when > .0045)."""
    lines: list[str] = []
    clf = s[s.dataset.isin(CLASSIFICATION)]
    reg = s[s.dataset.isin(REGRESSION)]
    for title, part, metrics in (
        ("Classification", clf, (("accuracy", "accuracy"), ("roc_auc", "ROC AUC"), ("brier", "Brier score"))),
        ("Regression", reg, (("r2", "R²"),)),
    ):
        if part.empty:
            continue
        learners = sorted(part.learner.unique(), key=lambda x: _ORDER.get(x, 99))
        for metric, label in metrics:
            m = part[part.metric == metric]
            if m.empty:
                continue
            lines += [f"#### {title}: {label} (mean over splits; ± s.e. where above .0045)", ""]
            lines.append("| dataset | ε | " + " | ".join(learners) + " |")
            lines.append("|---|---|" + "---|" * len(learners))
            ref = {(r.dataset, r.learner): r for r in m[np.isinf(m.epsilon)].itertuples()}
            for ds in [d for d in CLASSIFICATION + REGRESSION if d in set(m.dataset)]:
                for eps in sorted(e for e in m[m.dataset == ds].epsilon.unique() if not math.isinf(e)):
                    cells = []
                    for lr in learners:
                        hit = m[(m.dataset == ds) & (m.learner == lr) & (m.epsilon == eps)]
                        if hit.empty and (ds, lr) in ref:  # the non-private reference: same at every ε
                            r = ref[(ds, lr)]
                            cells.append(_fmt(r.mean, r.se))
                        elif hit.empty:
                            cells.append("–")
                        else:
                            cells.append(_fmt(float(hit["mean"].iloc[0]), float(hit["se"].iloc[0])))
                    lines.append(f"| {ds} | {eps:g} | " + " | ".join(cells) + " |")
            lines.append("")
    cpu = s[s.metric.isin(_METRICS)].groupby(["dataset", "learner"], sort=False)["fit_cpu_s"].mean().reset_index()
    if len(cpu):
        learners = sorted(cpu.learner.unique(), key=lambda x: _ORDER.get(x, 99))
        lines += ["#### Fit CPU seconds (mean over ε and splits; one thread)", ""]
        lines.append("| dataset | " + " | ".join(learners) + " |")
        lines.append("|---|" + "---|" * len(learners))
        for ds in [d for d in CLASSIFICATION + REGRESSION if d in set(cpu.dataset)]:
            vals = {r.learner: r.fit_cpu_s for r in cpu[cpu.dataset == ds].itertuples()}
            lines.append(f"| {ds} | " + " | ".join(_fmt(vals.get(lr, math.nan), digits=2) for lr in learners) + " |")
        lines.append("")
    probe = s[s.metric.str.startswith("named_")]
    if len(probe):
        col, value = PROBE_CATEGORY
        lines += [
            f"#### Probe: does the released model name `{col} = {value}`, held by one training record?",
            "",
            "| learner | ε | fits | named, with the record (D) | named, without it (D′) |",
            "|---|---|---|---|---|",
        ]
        for lr in sorted(probe.learner.unique(), key=lambda x: _ORDER.get(x, 99)):
            p = probe[probe.learner == lr]
            w = p[p.metric == "named_with"].iloc[0]
            wo = p[p.metric == "named_without"].iloc[0]
            lines.append(
                f"| {lr} | {_eps_label(w.epsilon)} | {int(w.n)} | {int(round(w['mean'] * w.n))} of {int(w.n)} | "
                f"{int(round(wo['mean'] * wo.n))} of {int(wo.n)} |"
            )
        lines.append("")
    return "\n".join(lines).rstrip()


def markdown_table(df: pd.DataFrame) -> str:
    """The id's tables from its tidy rows (see :func:`summary`), and the series they lack."""
    absent = _absent_series(df)
    return _tables(summary(df)) + (f"\n\n{absent}" if absent else "")


# --------------------------------------------------------------------------- generated page
# The page follows the layout of the project's generated result pages (``docs/results/ID.md``): a
# generated block between BEGIN and END (what the id draws, the run, the id's table) from the
# committed tidy rows ``docs/results/data/ID.csv.gz`` and the run's ``ID.json``; the hand-written
# analysis of causes below END is kept when the page is regenerated.
def _absent_series(df: pd.DataFrame) -> str:
    """One line naming the learners of the grid missing from ``df`` and what they need."""
    present, datasets = set(df.learner), set(df.dataset)
    grid = (LEARNERS_CLF if datasets & set(CLASSIFICATION) else ()) + (
        LEARNERS_REG if datasets & set(REGRESSION) else ()
    )
    missing = [lr for lr in _ORDER if lr in grid and lr not in present and lr in REQUIRES]
    if not missing:
        return ""
    return (
        "Series not in these rows (their package did not import where the grid ran): "
        + "; ".join(f"{lr} (`{REQUIRES[lr]}`)" for lr in missing)
        + "."
    )


register(
    Experiment(
        "lib-peers",
        paper="lib",
        kind="table",
        title="dpmodels beside InterpretML's DP-EBM and diffprivlib at equal ε (beyond the papers)",
        draws="accuracy, ROC AUC, Brier score, R² and fit CPU time of PrivaTree (default, gini), the DP rule list, "
        "PrivaTreeRegressor, dpmodels.gam (when built), DP-EBM (extra [peers]), diffprivlib (side environment) and "
        "a depth-4 sklearn tree on 5 classification and 2 regression datasets, ε 0.1 / 0.5 / 1 / 4, 10 paired 70/30 "
        "splits; probe: a one-record category named by the released model",
        cells=_cells,
        table=markdown_table,
        full_cost="≈ 4 CPU-min (cells' CPU: 196 s in the main venv with DP-EBM, 27 s for diffprivlib's side env)",
        quick_cost="≈ 15 CPU-s",
        notes="Peers whose package does not import are skipped with the reason (DP-EBM: "
        + INSTALL_HINT["interpret"]
        + "; diffprivlib: "
        + INSTALL_HINT["diffprivlib"]
        + "). The generated page: docs/results/lib-peers.md.",
    )
)
