"""Paper 003's figures (Fig. 2–7) drawn from the grid's tidy rows."""

from __future__ import annotations

import pandas as pd

from ..plots import pyplot, save
from .frames import _datasets_in, _wide, _with_params
from .protocol import OPTIMAL, RULE_LISTS, TREES

TITLES = {"adult": "Adult Income (10 %)", "compas": "COMPAS"}
LABELS = {
    "DL8.5": "DL8.5 (optimal)",
    "sklearn_DT": "sklearn_DT (greedy)",
    "OptimalRL": "OptimalRL (optimal, = CORELS)",
    "GreedyRL": "GreedyRL (greedy)",
}
MARKERS = {"DL8.5": "o", "OptimalRL": "o", "sklearn_DT": "^", "GreedyRL": "^"}
LINESTYLES = {"DL8.5": "-", "OptimalRL": "-", "sklearn_DT": "--", "GreedyRL": "--"}


def _support_colors(supports):
    plt = pyplot()
    cmap = plt.get_cmap("viridis")
    sup = sorted(supports)
    return {s: cmap(0.9 * i / max(1, len(sup) - 1)) for i, s in enumerate(sup)}


def _scatter(ax, w, learners, x, colors, xlabel):
    """Seed-mean points per setting; colour = λ, marker = learner; hollow = not all certified."""
    for lr in learners:
        d = w[w["learner"] == lr]
        for lam, g in d.groupby("support"):
            g = g.sort_values("depth")
            c = colors.get(lam, "0.5")
            ax.plot(g[x], g["dist_g"], color=c, lw=0.6, alpha=0.5, ls=LINESTYLES[lr])
            cert = g["optimal"] if "optimal" in g else pd.Series(1.0, index=g.index)
            full = cert.fillna(1.0) >= 1.0
            ax.scatter(g.loc[full, x], g.loc[full, "dist_g"], color=c, marker=MARKERS[lr], s=22, zorder=3)
            if (~full).any():
                ax.scatter(
                    g.loc[~full, x],
                    g.loc[~full, "dist_g"],
                    facecolors="none",
                    edgecolors=c,
                    marker=MARKERS[lr],
                    s=30,
                    zorder=3,
                    linewidths=1.0,
                )
    ax.set_xlabel(xlabel)
    ax.set_ylabel("entropy reduction ratio (Dist_G)")
    ax.grid(True, alpha=0.3)


def _legend(fig, learners, colors, extra=(), ran=None):
    """The figure's legend: one entry per learner that has results (``ran``), then the colours."""
    from matplotlib.lines import Line2D

    if ran is not None:
        learners = [lr for lr in learners if lr in set(ran)]
    hs = [Line2D([], [], color="0.2", marker=MARKERS[lr], ls=LINESTYLES[lr], label=LABELS[lr]) for lr in learners]
    hs += [Line2D([], [], color=c, marker="s", ls="none", label=f"min support {s:g}") for s, c in colors.items()]
    hs += list(extra)
    fig.legend(
        handles=hs, loc="lower center", ncol=min(4, len(hs)), fontsize=8, bbox_to_anchor=(0.5, -0.02), frameon=False
    )


def _by_dataset(df, out_dir, learners, name, draw, legend_extra=None):
    """Fig. 2, 3, 5, 6: two rows of panels, (a) and (b), a column per dataset (left Adult, right
    COMPAS); ``draw(ax_a, ax_b, rows, colors)`` fills a column from the learners' wide rows, the
    colours being the supports'; the legend names the learners that ran and ``legend_extra(rows)``."""
    plt = pyplot()
    w = _wide(df[df["learner"].isin(learners)])
    panels = _datasets_in(w) if len(w) else []
    if not panels:
        return []
    colors = _support_colors(w["support"].unique())
    fig, axes = plt.subplots(2, len(panels), figsize=(5.2 * len(panels), 8.2), squeeze=False)
    for j, ds in enumerate(panels):
        draw(axes[0][j], axes[1][j], w[w["dataset"] == ds], colors)
        axes[0][j].set_title(f"(a) {TITLES[ds]}")
        axes[1][j].set_title(f"(b) {TITLES[ds]}")
    _legend(fig, learners, colors, legend_extra(w) if legend_extra else (), ran=w["learner"])
    fig.tight_layout(rect=(0, 0.05, 1, 1))
    return [save(fig, out_dir / f"{name}.png")]


def _uncertified_key(w):
    """The legend entry of hollow markers, when some optimal fit was stopped by its time limit."""
    from matplotlib.lines import Line2D

    if not (w.get("optimal", pd.Series(dtype=float)).fillna(1) < 1).any():
        return ()
    return [Line2D([], [], color="0.2", marker="o", mfc="none", ls="none", label="not certified (time limit)")]


def _fig_dist_vs(df, out_dir, learners, name, family):
    """Fig. 2 / 3: Dist_G vs size (a) and vs training accuracy (b)."""
    size_label = "number of internal nodes" if family == "trees" else "number of rules"

    def draw(ax_a, ax_b, wd, colors):
        _scatter(ax_a, wd, learners, "size", colors, size_label)
        _scatter(ax_b, wd, learners, "train_accuracy", colors, "training accuracy")

    return _by_dataset(df, out_dir, learners, name, draw, _uncertified_key)


def _certified_seeds(df):
    """{(dataset, learner, depth, support, seed): certified} of the optimal learners' fits."""
    o = _with_params(df[(df["metric"] == "optimal") & df["learner"].isin(OPTIMAL)])
    return {
        (r.dataset, r.learner, int(r.depth), float(r.support), int(r.seed)): bool(r.value >= 1) for r in o.itertuples()
    }


def _fig4(df, out_dir, name="003-fig4"):
    """Fig. 4: per-record ratio CDFs at the largest setting, trees (a) and rule lists (b).

    Only the families with per-record rows get a row of panels. An optimal fit that the time limit
    stopped (``optimal`` = 0) is drawn dotted, and the legend says how many seeds were certified:
    the paper's curves are certified optima (Sec. V-A: DL8.5 had 1 h per fit)."""
    plt = pyplot()
    q = _with_params(df[df["metric"].str.startswith("per_record_q")])
    if q.empty:
        return []
    q = q.assign(p=q["metric"].str.slice(len("per_record_q")).astype(int) / 100.0)
    panels = _datasets_in(q)
    cert = _certified_seeds(df)
    families = [
        (fam, learners)
        for fam, learners in (("(a) trees", TREES), ("(b) rule lists", RULE_LISTS))
        if q["learner"].isin(learners).any()
    ]
    fig, axes = plt.subplots(
        len(families), len(panels), figsize=(5.0 * len(panels), 3.8 * len(families)), squeeze=False
    )
    colors = {"DL8.5": "C0", "sklearn_DT": "C3", "OptimalRL": "C0", "GreedyRL": "C3"}
    for i, (fam, learners) in enumerate(families):
        for j, ds in enumerate(panels):
            ax = axes[i][j]
            for lr in learners:
                d = q[(q["dataset"] == ds) & (q["learner"] == lr)]
                if d.empty:
                    continue
                depth, lam = int(d["depth"].iloc[0]), float(d["support"].iloc[0])
                ok = [cert.get((ds, lr, depth, lam, int(sd)), True) for sd in sorted(d["seed"].unique())]
                for sd, g in d.groupby("seed"):
                    g = g.sort_values("p")
                    dotted = not cert.get((ds, lr, depth, lam, int(sd)), True)
                    ax.step(
                        g["value"],
                        g["p"],
                        where="post",
                        color=colors[lr],
                        lw=0.5,
                        alpha=0.35,
                        ls=":" if dotted else "-",
                    )
                m = d.groupby("p")["value"].mean().sort_index()
                note = "" if lr not in OPTIMAL or all(ok) else f" ({sum(ok)}/{len(ok)} seeds certified)"
                ax.step(
                    m.to_numpy(),
                    m.index.to_numpy(),
                    where="post",
                    color=colors[lr],
                    lw=1.8,
                    ls=LINESTYLES[lr] if all(ok) else ":",
                    label=f"{LABELS[lr]}, {'depth' if fam.endswith('trees') else 'length'} {depth}, λ = {lam:g}{note}",
                )
            ax.set_title(f"{fam} — {TITLES[ds]}")
            ax.set_xlabel("per-record entropy reduction ratio")
            ax.set_ylabel("proportion of training records ≤ ratio")
            ax.grid(True, alpha=0.3)
            ax.legend(fontsize=7, loc="upper left")
    fig.tight_layout()
    return [save(fig, out_dir / f"{name}.png")]


def _lines_vs(ax, w, learners, x, y, colors, by="support", cmap_label="min support {:g}"):
    for lr in learners:
        d = w[w["learner"] == lr]
        for key, g in d.groupby(by):
            g = g.sort_values(x)
            ax.errorbar(
                g[x],
                g[y],
                yerr=g.get(f"{y}_se"),
                color=colors.get(key, "0.5"),
                ls=LINESTYLES[lr],
                marker=MARKERS[lr],
                ms=3.5,
                lw=1.1,
                capsize=1.5,
                elinewidth=0.7,
            )
    ax.grid(True, alpha=0.3)


def _fig_vs_depth(df, out_dir, learners, name, family):
    """Fig. 5 / 6: size (a) and Dist_G (b) vs the maximum depth/length constraint."""
    what = "maximum depth" if family == "trees" else "maximum length (rules)"

    def draw(ax_a, ax_b, wd, colors):
        _lines_vs(ax_a, wd, learners, "depth", "size", colors)
        _lines_vs(ax_b, wd, learners, "depth", "dist_g", colors)
        ax_a.set_ylabel("number of internal nodes" if family == "trees" else "number of rules")
        ax_b.set_ylabel("entropy reduction ratio (Dist_G)")
        for ax in (ax_a, ax_b):
            ax.set_xlabel(what)

    return _by_dataset(df, out_dir, learners, name, draw)


def _fig7(df, out_dir):
    """Fig. 7: Dist_G vs the minimum support, one line per depth/length; trees (a), rule lists (b)."""
    plt = pyplot()
    w = _wide(df)
    panels = _datasets_in(w) if len(w) else []
    if not panels:
        return []
    cmap = plt.get_cmap("plasma")
    depths = sorted(w["depth"].unique())
    colors = {d: cmap(0.85 * i / max(1, len(depths) - 1)) for i, d in enumerate(depths)}
    fig, axes = plt.subplots(2, len(panels), figsize=(5.2 * len(panels), 8.2), squeeze=False)
    for i, (fam, learners) in enumerate((("(a) trees", TREES), ("(b) rule lists", RULE_LISTS))):
        for j, ds in enumerate(panels):
            ax = axes[i][j]
            _lines_vs(ax, w[w["dataset"] == ds], learners, "support", "dist_g", colors, by="depth")
            ax.set_title(f"{fam} — {TITLES[ds]}")
            ax.set_xlabel("minimum support (relative)")
            ax.set_ylabel("entropy reduction ratio (Dist_G)")
    from matplotlib.lines import Line2D

    ran = set(w["learner"])
    families = (
        ("DL8.5", "optimal (DL8.5 / OptimalRL)", ("DL8.5", "OptimalRL")),
        ("sklearn_DT", "greedy (sklearn_DT / GreedyRL)", ("sklearn_DT", "GreedyRL")),
    )
    hs = [
        Line2D([], [], color="0.2", marker=MARKERS[lr], ls=LINESTYLES[lr], label=lab)
        for lr, lab, members in families
        if ran & set(members)
    ]
    hs += [Line2D([], [], color=c, lw=2, label=f"max depth/length {int(d)}") for d, c in colors.items()]
    fig.legend(handles=hs, loc="lower center", ncol=6, fontsize=8, bbox_to_anchor=(0.5, -0.02), frameon=False)
    fig.tight_layout(rect=(0, 0.06, 1, 1))
    return [save(fig, out_dir / "003-fig7.png")]
