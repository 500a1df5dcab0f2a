"""Paper 003's Markdown tables: the statements beside our measurements, seed means at chosen
settings, the fits that were not certified."""

from __future__ import annotations

import pandas as pd

from .frames import _datasets_in, _wide, _with_params
from .protocol import DATASETS, OPTIMAL, RULE_LISTS, TREES
from .statements import CERTIFIED_KEYS, _check, check_statements
from .uncertainty import FAILURE_BOOT, depth_breakdown, same_accuracy_failures


def _cells(*texts) -> str:
    """One Markdown table row; a '|' inside a text (e.g. "median |ρ|") is escaped, not a column."""
    return "| " + " | ".join(str(t).replace("|", "\\|") for t in texts) + " |"


def _statement_row(where, statement, test, measured, verdict) -> str:
    return _cells(where, statement, test, measured, f"**{verdict}**")


def _statements_md(df, ids) -> str:
    t = check_statements(df, ids)
    lines = ["| where | the paper states | our test | measured here | verdict |", "|---|---|---|---|---|"]
    fails = ""
    for r in t.itertuples():
        lines.append(_statement_row(r.where, r.statement, r.test, r.measured, r.verdict))
        if r.key == "same_accuracy" and r.verdict != "not measured":  # the same statement read as the authors drew it
            measured, verdict = _check("same_accuracy", df, _wide(df), "curve", failure_test=True)
            test = (
                "as above, with the authors' figure's pairing (`accuracy_pairing=\"curve\"`); each failure "
                "tested against the seed noise (`failure_test=True`)"
            )
            lines.append(_statement_row(r.where, r.statement, test, measured, verdict))
            fails = _failures_md(df)
    if fails:  # after the statements' table, which it would otherwise cut in two
        lines += ["", fails]
    return "\n".join(lines)


def _failures_md(df) -> str:
    """The failing greedy settings of "at a given accuracy" (the authors' lines), one row each."""
    out = []
    for fam, (opt, gr) in (("trees", TREES), ("rule lists", RULE_LISTS)):
        for ds in DATASETS:
            f = same_accuracy_failures(df, opt, gr, ds, "curve", n_boot=FAILURE_BOOT)
            for r in f.itertuples():
                out.append(
                    f"| {fam} | {ds} | {r.depth} | {r.support:g} | {r.shortfall:+.4f} | {r.ci_lo:+.4f} to "
                    f"{r.ci_hi:+.4f} | {r.p_fail:.3f} | {'yes' if r.significant else 'no'} |"
                )
    if not out:
        return ""
    head = [
        'Failures of "at a given accuracy" with the authors\' lines: greedy Dist_G minus the optimal line at its '
        "accuracy (seed means), its 95 % seed-bootstrap interval (both learners' seeds resampled together), the "
        "share of resamples in which it still fails, and whether the interval excludes 0.",
        "",
        "| family | dataset | depth / length | λ | shortfall | 95 % CI | still fails | beyond seed noise |",
        "|---|---|---|---|---|---|---|---|",
    ]
    return "\n".join(head + out)


def _summary_md(df, learners, family) -> str:
    """Seed means at the largest setting and at depth/length 3 and 5 (smallest λ)."""
    w = _wide(df[df["learner"].isin(learners)])
    if w.empty:
        return "(no results)"
    lam = w["support"].min()
    depths = [d for d in (1, 3, 5, int(w["depth"].max())) if d in set(w["depth"])]
    depths = sorted(set(depths))
    what = "depth" if family == "trees" else "length"
    lines = [
        f"| dataset | learner | {what} | Dist_G | size | train acc. | test acc. | certified |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for ds in _datasets_in(w):
        for lr in learners:
            for d in depths:
                s = w[(w["dataset"] == ds) & (w["learner"] == lr) & (w["depth"] == d) & (w["support"] == lam)]
                if s.empty:
                    continue
                r = s.iloc[0]
                cert = (
                    "–" if lr not in OPTIMAL or "optimal" not in r or pd.isna(r["optimal"]) else f"{r['optimal']:.0%}"
                )
                lines.append(
                    f"| {ds} | {lr} | {d} | {r['dist_g']:.4f} ± {r['dist_g_se']:.4f} | {r['size']:.1f} | "
                    f"{r['train_accuracy']:.4f} | {r['test_accuracy']:.4f} | {cert} |"
                )
    seeds = int(df["seed"].nunique())
    lines.append("")
    lines.append(
        f"Seed means (± s.e., {seeds} seed(s)) at min support λ = {lam:g}. Size: internal nodes (trees) or "
        "if-then rules (rule lists); 'certified': share of seeds whose optimal fit finished."
    )
    return "\n".join(lines)


def _uncertified_md(df) -> str:
    o = _with_params(df[(df["metric"] == "optimal") & (df["value"] < 1)])
    nt = _with_params(df[df["metric"] == "no_tree"])
    oom = _with_params(df[df["metric"] == "out_of_memory"])
    if o.empty and nt.empty and oom.empty:
        return "Every optimal fit of this grid was certified optimal."
    parts = []
    for lr, g in o.groupby("learner"):
        keys = sorted({(int(r.depth), float(r.support)) for r in g.itertuples()})
        parts.append(
            f"{lr}: {len(g)} fits stopped by the time limit (best model found kept; settings "
            + ", ".join(f"d{d}/λ{s:g}" for d, s in keys)
            + ")"
        )
    if len(nt):
        parts.append(f"DL8.5: {len(nt)} fits returned no tree within the limit (no rows for them)")
    if len(oom):
        keys = sorted({(int(r.depth), float(r.support)) for r in oom.itertuples()})
        parts.append(
            f"DL8.5: {len(oom)} fits ran out of the memory cap ({oom['value'].iloc[0]:g} GB of address "
            "space; no model, no rows for them; settings " + ", ".join(f"d{d}/λ{s:g}" for d, s in keys) + ")"
        )
    return "Not certified: " + "; ".join(parts) + "."


def _table(ids, learners=None, family=None):
    """The table of a grid id; with ``learners`` (one family's (optimal, greedy) pair) its statements
    are checked on that family's rows only: Fig. 2's page tests the trees, Fig. 3's the rule lists,
    where a statement of both figures (e.g. "at a given accuracy") would otherwise mix the two."""

    def table(df):
        own = df if learners is None else df[df["learner"].isin(learners)]
        out = [_statements_md(own, ids), ""]
        if learners is not None:
            out += [_summary_md(df, learners, family), ""]
        out.append(_uncertified_md(df))
        return "\n".join(out)

    return table


def _certified_md(df) -> str:
    t = check_statements(df, ids=("003-fig5", "003-fig4"))
    t = t[t["key"].isin(CERTIFIED_KEYS)]
    lines = ["| where | the paper states | our test | measured here | verdict |", "|---|---|---|---|---|"]
    lines += [_statement_row(r.where, r.statement, r.test, r.measured, r.verdict) for r in t.itertuples()]
    dist = depth_breakdown(df, metric="dist_g", sign=-1)
    size = depth_breakdown(df, metric="size", sign=1)
    if len(dist):
        lines += [
            "",
            "| depths | sklearn_DT leaks more (settings) | seed-bootstrap CI of the share | mean Dist_G sklearn_DT − DL8.5 "
            "(CI) | sign test p | sklearn_DT has more nodes |",
            "|---|---|---|---|---|---|",
        ]
        sz = size.set_index("depths") if len(size) else pd.DataFrame()
        for r in dist.itertuples():
            nodes = f"{sz.loc[r.depths, 'k']}/{sz.loc[r.depths, 'n']}" if r.depths in sz.index else "–"
            lines.append(
                f"| {r.depths} | {r.k}/{r.n} | {r.ci_lo:.2f}–{r.ci_hi:.2f} | {r.diff:+.4f} ({r.diff_lo:+.4f} to "
                f"{r.diff_hi:+.4f}) | {r.p_sign:.2g} | {nodes} |"
            )
    c = _with_params(df[(df["learner"] == "DL8.5") & df["metric"].isin(["cpu_seconds", "optimal"])])
    if len(c):
        lines += ["", "| depth | DL8.5 fits | certified | CPU-s (sum) | CPU-s (largest fit) |", "|---|---|---|---|---|"]
        for dep, g in c.groupby("depth"):
            cpu, opt = g[g["metric"] == "cpu_seconds"]["value"], g[g["metric"] == "optimal"]["value"]
            lines.append(f"| {int(dep)} | {len(cpu)} | {int((opt >= 1).sum())} | {cpu.sum():,.0f} | {cpu.max():,.1f} |")
    lines += ["", _uncertified_md(df)]
    return "\n".join(lines)
