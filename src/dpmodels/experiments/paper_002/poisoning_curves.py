"""Paper 002's Fig. 3: guaranteed accuracy vs poisoned samples, PrivaTree's Corollary 2 beside DPA's
certified accuracy (protocol: :mod:`.protocol`)."""

from __future__ import annotations

import json
import math
import time

import numpy as np
import pandas as pd

from .. import published as pub
from ..plots import PUBLISHED_STYLE, band_key, pyplot, save
from ..registry import Cell, Experiment, register, row
from ..seeds import derive_seed
from .data import (  # _ordinal: integer codes of the public categories, numbers as float
    _ordinal,
    load_002,
)
from .guarantees import GUARANTEE_EPSILONS
from .protocol import (
    DEPTH,
    PAPER_N_PUBLIC,
    PUBLISHED_RULE,
    _cell,
    _dataset_list,
    _fit_score,
    _source,
    make_learner,
    split_80_20,
)

__all__ = ["poison_guarantee_cell"]


FIG3_DATASETS = (("adult", "uci"), ("compas-two-years", "cat"))  # the paper's panels (a) and (b)
FIG3_FRACTIONS = tuple(np.round(np.linspace(0.0, 0.01, 11), 4))


def poison_guarantee_cell(
    dataset,
    group,
    rep,
    epsilons,
    fractions,
    dpa_estimators=1000,
    data_dir=None,
    download=False,
    variant="rigorous",
    published_rule=None,
):
    """One random 80/20 split: PrivaTree accuracy per ε, DPA certified accuracy per poisoned count, tree.

    ``variant="published"``: the paper's protocol instead — only ``"PrivaTree (published)"``'s clean
    accuracy per ε (its per-feature accounting, ``claimed`` ledger rows), on the same split; the
    tree and DPA are the rigorous cell's. ``published_rule``: only in the hash (:data:`PUBLISHED_RULE`)."""
    if variant not in ("rigorous", "published"):
        raise ValueError(f"variant must be 'rigorous' or 'published', got {variant!r}")

    from ...audit.poisoning import dpa_certified_accuracy, n_poisoned_from_fraction
    from ...tree.baselines import DPAClassifier

    X, y, meta = load_002(dataset, group, data_dir, download)
    tr, te = split_80_20(y, rep)
    Xtr, Xte, ytr, yte = X.iloc[tr], X.iloc[te], y.iloc[tr], y.iloc[te]
    xs = n_poisoned_from_fraction(np.asarray(fractions), len(tr))
    rows = [row(dataset, "-", {}, math.nan, 0.0, rep, "n_train", len(tr))]
    for lr in ("PrivaTree (published)",) if variant == "published" else ("tree", "PrivaTree"):
        for eps in [math.inf] if lr == "tree" else epsilons:
            extra = dict(n_public=len(tr)) if lr in PAPER_N_PUBLIC else {}
            est, tf = make_learner(lr, eps, X, meta, derive_seed(dataset, lr, eps, rep), **extra)
            acc, secs, leaks = _fit_score(est, tf, Xtr, ytr, Xte, yte)
            rows.append(row(dataset, lr, dict(leak_rows=leaks), eps, 0.0, rep, "test_accuracy", acc, secs))
    if variant == "published":
        return rows
    t = time.perf_counter()
    dpa = DPAClassifier(n_estimators=dpa_estimators, max_depth=DEPTH).fit(_ordinal(Xtr, meta), np.asarray(ytr))
    pred, cert = dpa.predict_certified(_ordinal(Xte, meta))
    secs = time.perf_counter() - t
    correct = pred == np.asarray(yte)
    for f, x, v in zip(fractions, xs, dpa_certified_accuracy(correct, cert, xs)):
        rows.append(
            row(
                dataset,
                f"DPA ({dpa_estimators} trees)",
                dict(fraction=float(f), x=int(x)),
                math.nan,
                0.0,
                rep,
                "certified_accuracy",
                v,
                secs,
            )
        )
    return rows


def _fig3_cells(size):
    ok, skips = _dataset_list(size, FIG3_DATASETS)
    eps = tuple(size.epsilons) if size.epsilons else GUARANTEE_EPSILONS
    runs = size.runs or size.pick(3, 50)

    def params(d, g, r, **kw):
        return dict(dataset=d, group=g, rep=r, epsilons=eps, fractions=FIG3_FRACTIONS, **kw, **_source(d, g, size))

    splits = [(d, g, r) for d, g in ok for r in range(runs)]
    cells = [
        Cell(f"{d}-rep{r}", poison_guarantee_cell, params(d, g, r, dpa_estimators=size.pick(100, 1000)))
        for d, g, r in splits
    ]
    # PrivaTree under the paper's protocol in cells of their own (the rigorous cells keep their keys)
    cells += [
        Cell(
            f"{d}-rep{r}-published",
            poison_guarantee_cell,
            params(d, g, r, variant="published", published_rule=PUBLISHED_RULE),
        )
        for d, g, r in splits
    ]
    return cells + skips


def _fig3_curves(df):
    from ...audit.poisoning import accuracy_lower_bound, n_poisoned_from_fraction

    out = []
    for ds, g in df.groupby("dataset", sort=False):
        n = g[g["metric"] == "n_train"]["value"].mean()
        xs = n_poisoned_from_fraction(np.asarray(FIG3_FRACTIONS), n)
        # the paper's protocol ("PrivaTree (published)", not a proven ε-DP learner) gets Corollary 2
        # as the paper applies it, beside the rigorous PrivaTree
        acc = g[(g["metric"] == "test_accuracy") & g["learner"].isin(["PrivaTree", "PrivaTree (published)"])]
        for (lr, e), a in acc.groupby(["learner", "epsilon"], sort=False):
            m = a["value"].mean()
            for f, x, v in zip(FIG3_FRACTIONS, xs, np.atleast_1d(accuracy_lower_bound(m, xs, e))):
                out.append(
                    dict(
                        dataset=ds,
                        method=f"{lr} ε = {e:g}",
                        fraction=f,
                        x=int(x),
                        guarantee=float(v),
                        clean=m,
                        se=a["value"].std(ddof=1) / math.sqrt(len(a)) if len(a) > 1 else 0.0,
                        n=len(a),
                    )
                )
        dpa = g[g["metric"] == "certified_accuracy"].copy()
        if len(dpa):
            dpa["fraction"] = dpa["parameters"].map(lambda s: json.loads(s)["fraction"])
            for (lr, f), a in dpa.groupby(["learner", "fraction"]):
                out.append(
                    dict(
                        dataset=ds,
                        method=lr,
                        fraction=f,
                        x=int(json.loads(a["parameters"].iloc[0])["x"]),
                        guarantee=a["value"].mean(),
                        clean=math.nan,
                        se=a["value"].std(ddof=1) / math.sqrt(len(a)) if len(a) > 1 else 0.0,
                        n=len(a),
                    )
                )
    return pd.DataFrame(out)


def _fig3_plot(df, out_dir):
    plt = pyplot()
    c = _fig3_curves(df)
    panels = list(dict.fromkeys(c["dataset"]))
    fig, axes = plt.subplots(1, len(panels), figsize=(5.6 * len(panels), 3.9), squeeze=False)
    for ax, ds in zip(axes[0], panels):
        sub = c[c["dataset"] == ds]
        methods = list(dict.fromkeys(sub["method"]))
        # a PrivaTree (published) curve takes its rigorous twin's colour, dashed
        base = [m for m in methods if "(published)" not in m]
        for m, g in sub.groupby("method", sort=False):
            g = g.sort_values("fraction")
            twin = m.replace("PrivaTree (published)", "PrivaTree")
            color = f"C{base.index(twin) if twin in base else len(base) + methods.index(m)}"
            ls = "--" if "(published)" in m else "-"
            ax.plot(100 * g["fraction"], g["guarantee"], marker=".", color=color, ls=ls, label=m)
            ax.fill_between(
                100 * g["fraction"],
                g["guarantee"] - g["se"] * np.where(g["clean"].notna(), g["guarantee"] / g["clean"], 1),
                g["guarantee"] + g["se"] * np.where(g["clean"].notna(), g["guarantee"] / g["clean"], 1),
                color=color,
                alpha=0.2,
                lw=0,
            )
        band_key(ax, sub["n"], "splits")
        tree = df[(df["dataset"] == ds) & (df["learner"] == "tree") & (df["metric"] == "test_accuracy")]["value"]
        if len(tree):
            ax.axhline(tree.mean(), color="0.3", ls="--", lw=1, label="tree, clean accuracy (no guarantee)")
        for i, e in enumerate(GUARANTEE_EPSILONS):
            p = pub.P002_GUARANTEE.get((ds, "cat", "PrivaTree", e)) or pub.P002_GUARANTEE.get(
                (ds, "uci", "PrivaTree", e)
            )
            if p:
                pts = [(0.0, p["accuracy"])] + [
                    (float(k[:-1]), p[k]) for k in ("0.1%", "0.5%", "1%") if p[k] is not None
                ]
                style = dict(PUBLISHED_STYLE, color=f"C{i}", edgecolors="black")
                ax.scatter(
                    [a for a, _ in pts],
                    [b for _, b in pts],
                    label=f"published PrivaTree ε = {e:g} (Table VIII)",
                    **style,
                )
        ax.set_title(ds)
        ax.set_xlabel("poisoned samples (% of the training set)")
        ax.set_ylabel("guaranteed accuracy")
        ax.set_ylim(0, 1)
        ax.legend(fontsize=7)
    return [save(fig, out_dir / "002-fig3.png")]


def _fig3_table(df):
    c = _fig3_curves(df)
    lines = [
        "| dataset | method | clean accuracy | " + " | ".join(f"{100 * f:.1f} %" for f in FIG3_FRACTIONS) + " |",
        "|---|---|---|" + "---|" * len(FIG3_FRACTIONS),
    ]
    for (ds, m), g in c.groupby(["dataset", "method"], sort=False):
        g = g.sort_values("fraction")
        clean = _cell(g["clean"].iloc[0], g["se"].iloc[0]) if g["clean"].notna().any() else "–"
        lines.append(f"| {ds} | {m} | {clean} | " + " | ".join(f"{v:.3f}" for v in g["guarantee"]) + " |")
    lines.append("")
    lines.append(
        "Guaranteed accuracy (PrivaTree: Corollary 2 from the mean clean accuracy ± s.e. over random 80/20 "
        "splits; DPA: certified accuracy, not private, not interpretable) at 0–1 % poisoned training records. "
        "'PrivaTree (published)': the paper's protocol (its per-feature accounting, claimed ledger rows, not a "
        "proven ε-DP learner), with Corollary 2 applied as the paper applies it."
    )
    return "\n".join(lines)


register(
    Experiment(
        "002-fig3",
        paper="002",
        kind="figure",
        title="Guaranteed accuracy vs poisoned samples (adult, compas-two-years)",
        draws="Corollary 2 guarantee of PrivaTree (ε 0.01, 0.1; rigorous and as published) and DPA's certified "
        "accuracy (1000 trees) vs 0–1 % poisoned, 50 random splits, adult and compas-two-years; Table VIII's points "
        "overlaid",
        cells=_fig3_cells,
        plot=_fig3_plot,
        table=_fig3_table,
        full_cost="88 CPU-s measured (200 cells, 100 of them the paper's protocol; 17 min wall with 1 worker at load 18)",
        quick_cost="≈ 5 s",
    )
)
