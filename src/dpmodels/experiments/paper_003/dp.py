"""``003-dp`` (beyond paper 003, its Appendix C's question): Dist_G of the library's DP rule lists
and PrivaTrees across ε, beside their non-private counterparts (:mod:`.reconstruction` describes the
protocol they share with the paper's grid)."""

from __future__ import annotations

import math

import numpy as np

from ..plots import pyplot, save, summarise
from ..registry import Cell, Experiment, register, row
from ..seeds import derive_seed
from .figures import TITLES
from .fits import OPTIMAL_RULE_LIST, PRIVATREE, RULE_LIST, SKLEARN_TREE, _Base, _Kind, _model_rows, _Split, _timed
from .frames import _datasets_in, _with_params
from .protocol import OPTIMAL_RL_TIME_LIMIT, SEEDS, _datasets, min_count

__all__ = ["dp_cell"]

DP_EPSILONS = (0.1, 0.3, 1.0, 3.0, 10.0)
DP_LENGTHS = (5, 10)
DP_WIDTHS = (1, 2)
DP_DEPTHS = (2, 4, 6)
DP_SUPPORT = 0.01


def _fit_rng(*parts):
    return np.random.default_rng([2024, derive_seed(*parts)])


def _release_rows(model, kind: _Kind, base: _Base, split: _Split, secs):
    """Rows of one fit of ``003-dp``: those of every grid fit but the paths (:func:`.fits._model_rows`)
    from the released counts, and ``dist_g_data`` from the true counts of the same structure (with
    the noisy release's ``noisy_n`` and ``infeasible_weight``)."""
    from ...audit import reconstruction_leak

    rows, leak = _model_rows(model, kind, base, split, secs, n_paths=False)
    if not leak.counts_are_noisy:
        return rows + [row(*base, "dist_g_data", leak.dist_g, secs)]
    data = reconstruction_leak(model, split.X_train, split.y_train, domains=kind.domains, counts="data")
    return rows + [
        row(*base, "dist_g_data", data.dist_g, secs),
        row(*base, "noisy_n", leak.n, secs),
        row(*base, "infeasible_weight", leak.infeasible_weight, secs),
    ]


def dp_cell(dataset, seed, epsilons, lengths=DP_LENGTHS, widths=DP_WIDTHS, depths=DP_DEPTHS, support=DP_SUPPORT):
    """DP rule lists and PrivaTrees of one split across ε, with their non-private counterparts.

    Metrics: ``dist_g`` (from the released counts: the adversary's view), ``dist_g_data`` (the same
    structure weighted by the true path counts: the auditor's view), ``size``, ``train_accuracy``,
    ``test_accuracy``, ``noisy_n`` (the weight the release puts on feasible paths) and
    ``infeasible_weight`` (noisy weight on paths no record can reach).
    """
    from sklearn.tree import DecisionTreeClassifier

    from ...rulelist import DPRuleListClassifier, GreedyRuleListClassifier, OptimalRuleListClassifier
    from ...tree import PrivaTreeClassifier

    split = _Split.load(dataset, seed)
    n = split.n
    m = min_count(support, n)
    categories = {c: [0, 1] for c in split.X_train.columns}
    rows = []

    def fit(est, kind, learner, params, eps=math.inf):
        model, secs, _ = _timed(est, split)
        rows.extend(_release_rows(model, kind, split.base(learner, params, eps), split, secs))

    for w in widths:
        for L in lengths:
            params = dict(model="rule list", width=int(w), depth=int(L), support=support)
            greedy = GreedyRuleListClassifier(max_rules=L + 1, min_support=(m + 0.5) / n, max_width=w)
            fit(greedy, RULE_LIST, f"GreedyRL w{w}", params)
            if w == 1:
                opt = OptimalRuleListClassifier(max_rules=L + 1, min_support=support, time_limit=OPTIMAL_RL_TIME_LIMIT)
                fit(opt, OPTIMAL_RULE_LIST, "OptimalRL w1", params)
            for eps in epsilons:
                rng = _fit_rng(dataset, seed, "DPRL", w, L, f"{eps:.6g}")
                dp = DPRuleListClassifier(
                    epsilon=float(eps), max_rules=L + 1, min_support=support, max_width=w, random_state=rng
                )
                fit(dp, RULE_LIST, f"DP rule list w{w}", params, eps)
    for D in depths:
        params = dict(model="tree", depth=int(D))
        fit(DecisionTreeClassifier(max_depth=D, random_state=1 + seed), SKLEARN_TREE, "sklearn_DT", params)
        for eps in epsilons:
            rng = _fit_rng(dataset, seed, "PrivaTree", D, f"{eps:.6g}")
            pt = PrivaTreeClassifier(
                epsilon=float(eps), max_depth=D, categories=categories, classes=[0, 1], random_state=rng
            )
            fit(pt, PRIVATREE, "PrivaTree", params, eps)
    return rows


def _dp_cells(size):
    seeds = size.runs_or(1, SEEDS)
    eps = tuple(float(e) for e in (size.epsilons or size.pick((0.1, 1.0, 10.0), DP_EPSILONS)))
    lengths = size.pick((5,), DP_LENGTHS)
    depths = size.pick((2, 4), DP_DEPTHS)
    return [
        Cell(
            f"dp-{ds}-s{s}",
            dp_cell,
            dict(dataset=ds, seed=s, epsilons=eps, lengths=lengths, depths=depths),
            cost=2.0 if ds == "compas" else 1.0,
        )
        for ds in _datasets(size)
        for s in range(seeds)
    ]


DP_COLORS = {"w1": "C0", "w2": "C2", 2: "C0", 4: "C2", 6: "C3", 5: "C1", 10: "C4"}


def _eps_curve(ax, rows, color, label):
    """Seed mean ± s.e. of ``rows``' values against ε (nothing when there are none)."""
    if len(rows):
        s = summarise(rows, ["epsilon"]).sort_values("epsilon")
        ax.errorbar(
            s["epsilon"], s["mean"], yerr=s["se"], color=color, marker="o", ms=3.5, lw=1.3, capsize=2, label=label
        )


def _eps_axes(ax, title, legend):
    """Panel (a) or (b): Dist_G against a log ε axis; the legend beside the last column."""
    ax.set_xscale("log")
    ax.set_title(title)
    ax.set_xlabel("ε (log scale)")
    ax.set_ylabel("Dist_G (from the released counts)")
    ax.grid(True, alpha=0.3)
    if legend:
        ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.02, 1.0), frameon=False)


def _rule_list_panel(ax, x):
    """(a) DP rule lists per (width, length) against ε, their non-private lists as lines."""
    i = 0
    rl = x[x["model"] == "rule list"]
    for w in sorted(rl["width"].unique()):
        for L in sorted(rl[rl["width"] == w]["depth"].unique()):
            c = f"C{i}"
            i += 1
            dpd = x[(x["learner"] == f"DP rule list w{int(w)}") & (x["depth"] == L)]
            _eps_curve(ax, dpd, c, f"DP rule list, width {int(w)}, length {int(L)}")
            for lr, ls in ((f"GreedyRL w{int(w)}", "--"), ("OptimalRL w1", ":")):
                b = x[(x["learner"] == lr) & (x["depth"] == L) & (x["width"] == w)]
                if len(b):
                    ax.axhline(
                        b["value"].mean(),
                        color=c,
                        ls=ls,
                        lw=1.1,
                        label=f"{lr.split(' ')[0]} (non-private), width {int(w)}, length {int(L)}",
                    )


def _tree_panel(ax, x):
    """(b) PrivaTrees per depth against ε, scikit-learn's trees as lines."""
    t = x[x["model"] == "tree"]
    for k, D in enumerate(sorted(t["depth"].unique())):
        c = f"C{k}"
        _eps_curve(ax, t[(t["learner"] == "PrivaTree") & (t["depth"] == D)], c, f"PrivaTree, depth {int(D)}")
        b = t[(t["learner"] == "sklearn_DT") & (t["depth"] == D)]
        if len(b):
            ax.axhline(b["value"].mean(), color=c, ls="--", lw=1.1, label=f"sklearn_DT (non-private), depth {int(D)}")


def _tradeoff_panel(fig, ax, d):
    """(c) seed-mean Dist_G against training accuracy, coloured by log ε; non-private fits as crosses."""
    wide = (
        d.pivot_table(
            index=["learner", "epsilon", "depth", "width", "model", "seed"],
            columns="metric",
            values="value",
            dropna=False,
        )
        .reset_index()
        .dropna(subset=["dist_g", "train_accuracy"])
    )
    means = (
        wide.groupby(["learner", "epsilon", "depth", "width", "model"], dropna=False)[["dist_g", "train_accuracy"]]
        .mean()
        .reset_index()
    )
    priv = means[np.isfinite(means["epsilon"])]
    if len(priv):
        sc = ax.scatter(
            priv["train_accuracy"],
            priv["dist_g"],
            c=np.log10(priv["epsilon"]),
            cmap="coolwarm",
            marker="o",
            s=np.where(priv["model"] == "tree", 30, 18),
            edgecolors="0.3",
            linewidths=0.3,
        )
        cb = fig.colorbar(sc, ax=ax)
        cb.set_label("log10 ε")
    pub = means[~np.isfinite(means["epsilon"])]
    ax.scatter(pub["train_accuracy"], pub["dist_g"], color="black", marker="x", s=28, label="non-private")
    ax.set_xlabel("training accuracy")
    ax.set_ylabel("Dist_G")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=7, loc="best")


def _dp_plot(df, out_dir):
    plt = pyplot()
    d = _with_params(df[df["metric"].isin(["dist_g", "train_accuracy"])])
    panels = _datasets_in(d)
    if not panels:
        return []
    fig, axes = plt.subplots(3, len(panels), figsize=(5.0 * len(panels) + 3.2, 11.5), squeeze=False)
    d["width"] = d["width"].fillna(0) if "width" in d else 0
    dg = d[d["metric"] == "dist_g"]
    for j, ds in enumerate(panels):
        x = dg[dg["dataset"] == ds]
        last = j == len(panels) - 1
        _rule_list_panel(axes[0][j], x)
        _eps_axes(axes[0][j], f"(a) rule lists — {TITLES[ds]}", last)
        _tree_panel(axes[1][j], x)
        _eps_axes(axes[1][j], f"(b) trees — {TITLES[ds]}", last)
        _tradeoff_panel(fig, axes[2][j], d[d["dataset"] == ds])
        axes[2][j].set_title(f"(c) Dist_G vs training accuracy — {TITLES[ds]}")
    fig.tight_layout()
    return [save(fig, out_dir / "003-dp.png")]


def _config_key(s: str):
    return [int(t) if t.isdigit() else t for t in s.replace(",", "").split()]


# each DP learner's row of the tables, with its non-private peers
_DP_ORDER = (
    ("DP rule list w1", ("GreedyRL w1", "OptimalRL w1")),
    ("DP rule list w2", ("GreedyRL w2",)),
    ("PrivaTree", ("sklearn_DT",)),
)


def _dp_rows(d, eps, cell, peer) -> list[str]:
    """One Markdown table: a row per (dataset, DP learner, setting), ``cell(ds, learner, setting, ε)``
    at each ε, then each peer's ``peer(ds, peer, setting)``; "–" (a peer: left out) where the
    rows are missing."""

    def text(fn, *key):
        try:
            return fn(*key)
        except KeyError:
            return None

    head = ["dataset", "learner", "setting"] + [f"ε = {e:g}" for e in eps] + ["non-private"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for ds in _datasets_in(d):
        for lr, peers in _DP_ORDER:
            for cfg in sorted(set(d[(d["dataset"] == ds) & (d["learner"] == lr)]["config"]), key=_config_key):
                cells = [text(cell, ds, lr, cfg, e) or "–" for e in eps]
                base = [f"{p.split(' ')[0]} {v}" for p in peers if (v := text(peer, ds, p, cfg)) is not None]
                lines.append(f"| {ds} | {lr} | {cfg} | " + " | ".join(cells) + f" | {'; '.join(base) or '–'} |")
    return lines


def _dp_table(df) -> str:
    d = _with_params(df)
    d["config"] = np.where(
        d["model"] == "tree",
        "depth " + d["depth"].astype(int).astype(str),
        "width " + d["width"].fillna(0).astype(int).astype(str) + ", length " + d["depth"].astype(int).astype(str),
    )
    eps = sorted(e for e in d["epsilon"].unique() if np.isfinite(e))
    mean = d.groupby(["dataset", "learner", "config", "epsilon", "metric"])["value"].mean()

    def dist_g(ds, lr, cfg, e):
        return f"{mean.loc[(ds, lr, cfg, e, 'dist_g')]:.3f} ({mean.loc[(ds, lr, cfg, e, 'dist_g_data')]:.3f})"

    def size_accuracy(ds, lr, cfg, e=math.inf):
        return f"{mean.loc[(ds, lr, cfg, e, 'size')]:.1f} / {mean.loc[(ds, lr, cfg, e, 'train_accuracy')]:.3f}"

    lines = _dp_rows(d, eps, dist_g, lambda ds, p, cfg: f"{mean.loc[(ds, p, cfg, math.inf, 'dist_g')]:.3f}")
    lines += [
        "",
        "Dist_G, seed means: from the released (noisy) counts, in brackets from the true counts of the same "
        "structure (the auditor's view). 'non-private': the same setting without DP.",
        "",
    ]
    lines += _dp_rows(d, eps, size_accuracy, size_accuracy)
    lines += ["", "Size (rules / internal nodes) / training accuracy, seed means."]
    return "\n".join(lines)


register(
    Experiment(
        "003-dp",
        paper="003",
        kind="figure",
        title="Beyond the paper: Dist_G of DP rule lists and PrivaTrees across ε",
        draws="Dist_G (from the released counts) vs ε ∈ {0.1, 0.3, 1, 3, 10}: DP rule lists (default mechanism, widths "
        "1–2, lengths 5/10, λ 0.01) and PrivaTrees (depth 2/4/6, binary columns declared) beside GreedyRL, "
        "OptimalRL and sklearn_DT; Dist_G vs training accuracy",
        cells=_dp_cells,
        plot=_dp_plot,
        table=_dp_table,
        full_cost="≈ 2 min (2 workers)",
        quick_cost="≈ 15 s",
        notes="Paper 003 leaves DP to its Appendix C. Dist_G of a DP model is computed from what it released (noisy "
        "counts clipped at 0; paths no record can reach left out); the bracketed value routes the true training "
        "records through the same structure. See docs/reconstruction.md.",
    )
)
