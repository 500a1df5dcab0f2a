"""Paper 002's Tables II, VI, VII (test accuracy of DP trees at ε = 0.1, 0.01, 1) and V (runtimes), with
the agreement test against the paper's columns (protocol: :mod:`.protocol`)."""

from __future__ import annotations

import functools
import json
import math

import numpy as np

from .. import published as pub
from ..plots import summarise
from ..registry import Cell, Experiment, register, row
from ..seeds import derive_seed
from .authors_tables import (
    AUTHORS_PAPER_COLUMN,
    agreement,
    agreement_lines,
    authors_cells,
    authors_checkout_given,
)
from .authors_tables import TABLE_LEARNERS as AUTHORS_TABLE_LEARNERS
from .data import (  # _ordinal: integer codes of the public categories, numbers as float
    BOUNDS_FROM_DATA,
    _kfold,
    load_002,
)
from .protocol import (
    DEPTH,
    DIFFPRIVLIB,
    LEARNERS,
    PAPER_N_PUBLIC,
    PUBLISHED_RULE,
    TABLE_DATASETS,
    _bundled,
    _cell,
    _dataset_list,
    _fit_score,
    _source,
    make_learner,
)

__all__ = ["tree_accuracy_cell"]


def tree_accuracy_cell(
    dataset, group, repeat, fold, folds, epsilons, learners, data_dir=None, download=False, published_rule=None
):
    """Test accuracy of every learner and ε on one CV fold (rows: metric ``test_accuracy``).
    ``published_rule``: only in the hash (:data:`PUBLISHED_RULE`)."""
    X, y, meta = load_002(dataset, group, data_dir, download)
    tr, te = _kfold(y, folds, repeat)[fold]
    Xtr, Xte, ytr, yte = X.iloc[tr], X.iloc[te], y.iloc[tr], y.iloc[te]
    rows = []
    for lr in learners:
        for eps in [math.inf] if lr == "tree" else epsilons:
            # the paper's variants take the training-set size as public, as the paper assumes
            # (Sec. IV: ranges, categories, labels and "the dataset size are publicly known")
            extra = dict(n_public=len(tr)) if lr in PAPER_N_PUBLIC else {}
            est, tf = make_learner(lr, eps, X, meta, derive_seed(dataset, lr, eps, repeat, fold), **extra)
            if est is None:
                continue
            acc, secs, leaks = _fit_score(est, tf, Xtr, ytr, Xte, yte)
            params = dict(
                depth=DEPTH, group=group, fold=fold, folds=folds, bounds=meta["bounds_policy"], leak_rows=leaks
            )
            if extra:
                params["n_public"] = "training-set size (the paper's assumption)"
            rows.append(row(dataset, lr, params, eps, 0.0, repeat * folds + fold, "test_accuracy", acc, secs))
    return rows


def _learners(size):
    return tuple(lr for lr in LEARNERS if lr != "DiffPrivLib")


def _table_cells(size, eps):
    quick_sets = [("compas-two-years", "cat"), ("bank-marketing", "num"), ("breast-w", "uci"), ("vote", "uci")]
    default = quick_sets if size.quick and size.datasets is None else list(TABLE_DATASETS)
    ok, skips = _dataset_list(size, default)
    repeats = size.runs or 1
    folds = 5
    epsilons = tuple(size.epsilons) if size.epsilons else (eps,)

    def params(d, g, r, k, learners, **kw):
        return dict(
            dataset=d,
            group=g,
            repeat=r,
            fold=k,
            folds=folds,
            epsilons=epsilons,
            learners=learners,
            **kw,
            **_source(d, g, size),
        )

    splits = [(d, g, r, k) for d, g in ok for r in range(repeats) for k in range(folds)]
    # the main cells fit PrivaTree as published and PrivaTree*: they name the published rule
    cells = [
        Cell(
            f"{d}-{g}-r{r}-f{k}",
            tree_accuracy_cell,
            params(d, g, r, k, _learners(size), published_rule=PUBLISHED_RULE),
            cost=2.0,
        )
        for d, g, r, k in splits
    ]
    cells += [
        Cell(
            f"{d}-{g}-r{r}-f{k}-diffprivlib",
            tree_accuracy_cell,
            params(d, g, r, k, ("DiffPrivLib",)),
            requires=DIFFPRIVLIB,
        )
        for d, g, r, k in splits
    ]
    # the authors' own PrivaTree / PrivaTree* on the same splits, only when their checkout is
    # named ($DPMODELS_AUTHORS_PRIVATREE; it imports diffprivlib): .authors_tables
    checkout = authors_checkout_given()
    if checkout is not None:
        cells += authors_cells(splits, epsilons, folds, checkout, DIFFPRIVLIB, learners=AUTHORS_TABLE_LEARNERS)
    return cells + skips


def _paper_cells(p):
    if p is None:
        return "(not in the paper)"

    def f(v):
        if v is None:
            return "–"
        s = f"{v[0]:.3f}"
        return s[1:] if s.startswith("0") else s

    return " / ".join(f(p[c]) for c in pub.P002_COLUMNS)


def _accuracy_table(df, eps):
    d = df[df["metric"] == "test_accuracy"]
    if d.empty:
        return "(no results)"
    d = d.copy()
    d["group"] = d["parameters"].map(lambda s: json.loads(s)["group"])
    d["bounds"] = d["parameters"].map(lambda s: json.loads(s)["bounds"])
    s = summarise(d, ["dataset", "group", "learner", "epsilon"])
    learners = [lr for lr in (*LEARNERS, *AUTHORS_TABLE_LEARNERS) if lr in set(s["learner"])]
    epsilons = sorted(e for e in s["epsilon"].unique() if np.isfinite(e)) or [eps]
    head = ["dataset", "ε", *learners, "paper: " + " / ".join(pub.P002_COLUMNS)]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    leaky = set()
    for ds, grp in TABLE_DATASETS:
        sub = s[(s["dataset"] == ds) & (s["group"] == grp)]
        for e in epsilons:
            paper = pub.P002_ACCURACY.get(e, {}).get((ds, grp))
            label = f"{ds} ({grp})"
            if sub.empty:
                if paper is not None and not _bundled(ds, grp):
                    lines.append(
                        "| "
                        + " | ".join([label, f"{e:g}"] + ["not bundled"] * len(learners) + [_paper_cells(paper)])
                        + " |"
                    )
                continue
            if (d[(d["dataset"] == ds) & (d["group"] == grp)]["bounds"] == BOUNDS_FROM_DATA).any():
                leaky.add(label)
                label += " †"
            cells = [label, f"{e:g}"]
            for lr in learners:
                ee = math.inf if lr == "tree" else e
                hit = sub[(sub["learner"] == lr) & (sub["epsilon"] == ee)]
                cells.append(_cell(hit["mean"].iloc[0], hit["se"].iloc[0]) if len(hit) else "–")
            cells.append(_paper_cells(paper))
            lines.append("| " + " | ".join(cells) + " |")
    folds = int(d.groupby(["dataset", "group", "learner", "epsilon"]).size().max())
    lines.append("")
    lines.append(
        f"Test accuracy, mean ± s.e. over {folds} folds (5-fold stratified CV{' × repeats' if folds > 5 else ''}); "
        "last column: paper 002 (tree / BDPT / PrivaTree* / DPGDF / DiffPrivLib / PrivaTree). "
        "† numerical bounds read from the training data (a leak row in each private model's ledger, "
        "as the paper's protocol); other rows use documented public domains. 'not bundled': the dataset is not "
        "bundled and was not given with --data-dir. Our PrivaTree is the corrected, rigorously DP one; the "
        "paper's PrivaTree column is its histogram method with per-feature accounting (`docs/privacy.md`, PrivaTree, 'What changed from the paper')."
    )
    if any(lr in AUTHORS_TABLE_LEARNERS for lr in learners):
        lines.append(
            "'(authors' code)': the authors' public PrivaTreeClassifier run on the same folds with their script's "
            "arguments (ranges and category counts from the training fold; PrivaTree*: use_private_quantiles=False; "
            "DPGDF on the categorical columns; commit in the rows' `implementation`; `paper_002.authors_tables`). "
            "'BDPT (authors' code, written thresholds only)': the same fitted BDPT predicting through the slots of "
            "its test-time threshold arrays that its fit wrote (their code leaves one np.empty slot when a feature "
            "has a multiple of 5 distinct training values)."
        )
    lines += ["", *agreement_lines(_agreements(s, epsilons))]
    lines.append("")
    lines.append(
        "Agreement with the paper's column (`paper_002.authors_tables`, criterion fixed before the comparison): "
        "z = (ours − paper) / √(s.e.² + s.e.²) per row; a column reproduces when at most k(n) rows have |z| > 2 "
        "(k: what 10 % per row reaches by chance with probability ≥ 5 %), none has |z| > 4, and the mean "
        "difference is within 2 s.e. of 0."
    )
    return "\n".join(lines)


# the series compared with a column of the paper by the agreement test
AGREEMENT_SERIES = {
    "tree": "tree",
    "BDPT (published)": "BDPT",
    "DPGDF (published)": "DPGDF",
    "DiffPrivLib": "DiffPrivLib",
    "PrivaTree": "PrivaTree",
    "PrivaTree (published)": "PrivaTree",
    "PrivaTree*": "PrivaTree*",
    **AUTHORS_PAPER_COLUMN,
}


def _agreements(s, epsilons):
    """{"series (paper's column), ε": agreement dict} over the rows run here (:mod:`.authors_tables`)."""
    out = {}
    for e in epsilons:
        for lr, col in AGREEMENT_SERIES.items():
            ee = math.inf if lr == "tree" else e
            pairs = []
            for ds, grp in TABLE_DATASETS:
                p = pub.P002_ACCURACY.get(e, {}).get((ds, grp), {}).get(col)
                hit = s[(s["dataset"] == ds) & (s["group"] == grp) & (s["learner"] == lr) & (s["epsilon"] == ee)]
                if p is None or hit.empty:
                    continue
                pairs.append((ds if grp == "uci" else f"{ds} ({grp})", hit["mean"].iloc[0], hit["se"].iloc[0], *p))
            if pairs:
                out[f"{lr} ({col}), ε = {e:g}"] = agreement(pairs)
    return out


def _runtime_table(df):
    d = df[(df["metric"] == "test_accuracy")].copy()
    if d.empty:
        return "(no results)"
    d["group"] = d["parameters"].map(lambda s: json.loads(s)["group"])
    s = summarise(d, ["dataset", "group", "learner"], value="fit_seconds")
    learners = [lr for lr in LEARNERS if lr in set(s["learner"])]
    head = ["dataset", *[f"{lr} (s)" for lr in learners], "paper: " + " / ".join(pub.P002_COLUMNS)]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for ds, grp in TABLE_DATASETS:
        sub = s[(s["dataset"] == ds) & (s["group"] == grp)]
        paper = pub.P002_RUNTIME.get((ds, grp))
        pp = " / ".join(
            "–"
            if paper is None or paper[c] is None
            else ("<1" if paper[c][0] < 1 else (">" if paper[c][1] is None else "") + f"{paper[c][0]:g}")
            for c in pub.P002_COLUMNS
        )
        if sub.empty:
            if not _bundled(ds, grp):
                lines.append(f"| {ds} ({grp}) | " + " | ".join(["not bundled"] * len(learners)) + f" | {pp} |")
            continue
        cells = []
        for lr in learners:
            hit = sub[sub["learner"] == lr]
            cells.append(f"{hit['mean'].iloc[0]:.3f} ± {hit['se'].iloc[0]:.3f}" if len(hit) else "–")
        lines.append(f"| {ds} ({grp}) | " + " | ".join(cells) + f" | {pp} |")
    lines.append("")
    lines.append(
        "Mean fit time per fold in seconds ± s.e. at ε = 0.1, depth 4, measured here (one fit per worker "
        "process, single-threaded BLAS); the paper's Table V is for a whole 5-fold cross-validation on a "
        "4-core laptop, so compare orders of magnitude only."
    )
    return "\n".join(lines)


for _eid, _eps, _tab in (("002-table6", 0.01, "VI"), ("002-table2", 0.1, "II"), ("002-table7", 1.0, "VII")):
    register(
        Experiment(
            _eid,
            paper="002",
            kind="table",
            title=f"Test accuracy of DP trees at ε = {_eps:g} (Table {_tab})",
            draws=f"5-fold CV test accuracy, depth 4, ε = {_eps:g}, 21 of 29 datasets offline (8 need --data-dir); "
            "tree, PrivaTree (+ histogram, published, PrivaTree*), BDPT, DPGDF (+ published); "
            "DiffPrivLib where diffprivlib imports (make reproduce-diffprivlib)",
            cells=functools.partial(_table_cells, eps=_eps),
            table=functools.partial(_accuracy_table, eps=_eps),
            published=pub.P002_ACCURACY[_eps],
            full_cost="≈ 15 s on 2 idle cores (24 CPU-s); with the authors' code (DPMODELS_AUTHORS_PRIVATREE, side "
            "env, with DiffPrivLib) ≈ 3.5 min at load 10-15 (≈ 80 CPU-s)",
            quick_cost="≈ 5 s",
        )
    )
register(
    Experiment(
        "002-table5",
        paper="002",
        kind="table",
        title="Runtimes at ε = 0.1 (Table V)",
        draws="mean fit time per fold of every learner on Table II's grid (measured here)",
        source="002-table2",
        table=_runtime_table,
        published=pub.P002_RUNTIME,
        full_cost="the cost of 002-table2 (shares its cells)",
        quick_cost="shares 002-table2's cells",
    )
)
