"""Paper 003's worked examples (Tables I–VII, Fig. 1, Rule List 1), computed with this library.

``003-toy`` (``dpmodels reproduce 003-toy``) recomputes every number and every reconstructed set
the paper prints for its toy examples, and puts them beside the paper's:

* **Table I → Fig. 1 → Table II.** scikit-learn's ``DecisionTreeClassifier`` is fitted on Table I
  (as the paper did). At the root two splits tie (a1 ≤ 11.5 and a3 ≤ 1.5 both leave a Gini of
  1/3), and scikit-learn breaks the tie by its random feature order: ``random_state=3`` draws the
  paper's Fig. 1 (a3 first), ``random_state=0`` the other tree; both are shown. Table II (each
  record's possible values per attribute) is read off the fitted tree by routing the whole domain
  V_1 × V_2 × V_3 through it; Dist (Definition 2) and Dist_G (Definition 4) come from
  :func:`dpmodels.audit.reconstruction_leak`. The paper prints V_1 = {0, 11, …, 15}, but its own
  computation (|V_1| = 6, x3's a1 in {10, 11}) uses V_1 = {10, …, 15}, which is used here.
* **Table III → Rule List 1 → Table IV.** Rule List 1 (the paper's, trained with CORELS) is built
  as a :class:`~dpmodels.rulelist.model.RuleList`; its per-rule counts are recomputed from
  Table III, Table IV (each record's possible rows) by routing the 8 rows of {0, 1}³ through it,
  and Dist_G by :func:`~dpmodels.audit.reconstruction_leak` (the paper prints no Dist_G for it).
* **Tables V–VII.** The reconstructions V^rec1 (a1 known) and V^rec2 (a2 known) of the record
  (1, 1) are one-split trees over V_1 = {0, 1}, V_2 = {1, 2, 3}; Dist and Dist_G of each.

Everything is exact arithmetic on tiny inputs (milliseconds); no randomness beyond the two
scikit-learn seeds named above.
"""

from __future__ import annotations

import itertools
import json
import math
from typing import Any

import numpy as np
import pandas as pd

from ..registry import Cell, Experiment, register, row

__all__ = ["toy_cell", "TABLE_I", "TABLE_III", "FIG1_DOMAINS"]

TABLE_I = np.array([[12, 0, 3], [14, 1, 2], [11, 1, 2], [14, 0, 1]])
TABLE_I_LABELS = np.array([0, 0, 1, 1])
FIG1_DOMAINS = {"a1": tuple(range(10, 16)), "a2": (0, 1), "a3": (1, 2, 3)}
TABLE_III = np.array([[1, 1, 1], [1, 1, 0], [0, 1, 1], [1, 0, 1], [1, 0, 0]])
TABLE_III_LABELS = np.array([1, 1, 0, 0, 1])

# The paper's printed values (Section II-B, III-A, III-C).
PAPER: dict[str, Any] = {
    "table2": {  # record -> (a1 set, a2 set, a3 set)
        "x1": ("{12,13,14,15}", "{0,1}", "{2,3}"),
        "x2": ("{12,13,14,15}", "{0,1}", "{2,3}"),
        "x3": ("{10,11}", "{0,1}", "{2,3}"),
        "x4": ("{10,11,12,13,14,15}", "{0,1}", "{1}"),
    },
    "dist_fig1": 0.736,
    "cell_x3_a1": 0.387,
    "rule_list_1_counts": ((0, 2), (2, 0), (0, 1)),
    "table4": {  # record -> possible (a1, a2, a3) rows
        "x1": "{(1,1,0),(1,1,1)}",
        "x2": "{(1,1,0),(1,1,1)}",
        "x3": "{(0,0,1),(0,1,1),(1,0,1)}",
        "x4": "{(0,0,1),(0,1,1),(1,0,1)}",
        "x5": "{(0,0,0),(0,1,0),(1,0,0)}",
    },
    "dist_rec": {"rec1": 0.5, "rec2": 0.5},
    "dist_g_rec": {"rec1": 0.613, "rec2": 0.387},
}


def _set(values) -> str:
    return "{" + ",".join(str(v) for v in values) + "}"


def _rows_set(rows) -> str:
    return "{" + ",".join("(" + ",".join(str(int(v)) for v in r) + ")" for r in rows) + "}"


def _rule_list_1():
    from ...rulelist.model import Rule, RuleList

    return RuleList(
        ["a1", "a2", "a3"],
        [Rule([("a1", True), ("a2", True)], 1, (0, 2)), Rule([("a3", True)], 0, (2, 0))],
        Rule([], 1, (0, 1)),
        classes=[0, 1],
    )


def _one_split_tree(feature, threshold, names):
    """A depth-1 tree (the record goes right): the reconstruction "we know this attribute"."""
    from ...tree import Tree

    nan = np.nan
    return Tree(
        np.array([1, -1, -1]),
        np.array([2, -1, -1]),
        np.array([feature, -2, -2]),
        np.array([threshold, nan, nan]),
        [None] * 3,
        np.array([[0, 1], [0, 0], [0, 1]]),
        np.array([-1, 0, 1]),
        np.array([0, 1]),
        list(names),
        np.array([False] * len(names)),
        {},
    )


def _tree_rows(seed: int) -> list[dict]:
    from sklearn.tree import DecisionTreeClassifier

    from ...audit import reconstruction_leak

    X = pd.DataFrame(TABLE_I, columns=["a1", "a2", "a3"])
    est = DecisionTreeClassifier(random_state=seed).fit(X, TABLE_I_LABELS)
    r = reconstruction_leak(est, X, TABLE_I_LABELS, domains={k: list(v) for k, v in FIG1_DOMAINS.items()})
    grid = pd.DataFrame(list(itertools.product(*FIG1_DOMAINS.values())), columns=list(FIG1_DOMAINS))
    leaf_of_grid = est.apply(grid)
    leaf_of_record = est.apply(X)
    root = est.tree_.feature[0]
    learner = f"scikit-learn tree, random_state={seed} (root a{root + 1})"
    per_record = r.per_record
    assert per_record is not None  # X was given
    out = []
    for i, leaf in enumerate(leaf_of_record):
        reach = grid[leaf_of_grid == leaf]
        sets = {k: _set(sorted(reach[k].unique())) for k in FIG1_DOMAINS}
        ratio = float(per_record[i])
        out.append(row("table2", learner, {"record": f"x{i + 1}", **sets}, math.inf, 0.0, seed, "dist_g_record", ratio))
    l6 = math.log2(len(FIG1_DOMAINS["a1"]))
    x3 = grid[leaf_of_grid == leaf_of_record[2]]["a1"].nunique()
    out.append(row("table2", learner, {}, math.inf, 0.0, seed, "cell_x3_a1", math.log2(x3) / l6))
    out.append(row("table2", learner, {}, math.inf, 0.0, seed, "dist", r.dist))
    out.append(row("table2", learner, {}, math.inf, 0.0, seed, "dist_g", r.dist_g))
    return out


def _rule_list_rows() -> list[dict]:
    from ...audit import reconstruction_leak

    rl = _rule_list_1()
    X = pd.DataFrame(TABLE_III, columns=["a1", "a2", "a3"])
    r = reconstruction_leak(rl, X, TABLE_III_LABELS)
    worlds = np.array(list(itertools.product((0, 1), repeat=3)))
    path_of_world = rl.apply(worlds)
    path_of_record = rl.apply(TABLE_III)
    out = []
    for i, p in enumerate(path_of_record):
        rows = worlds[path_of_world == p]
        out.append(
            row(
                "table4",
                "Rule List 1",
                {"record": f"x{i + 1}", "worlds": _rows_set(rows)},
                math.inf,
                0.0,
                0,
                "possible_rows",
                len(rows),
            )
        )
    for j, (n0, n1) in enumerate(zip(r.paths["support_0"], r.paths["support_1"])):
        out.append(
            row(
                "table4",
                "Rule List 1",
                {"rule": j, "path": r.paths["path"][j], "class": 0},
                math.inf,
                0.0,
                0,
                "support",
                n0,
            )
        )
        out.append(
            row(
                "table4",
                "Rule List 1",
                {"rule": j, "path": r.paths["path"][j], "class": 1},
                math.inf,
                0.0,
                0,
                "support",
                n1,
            )
        )
    out.append(row("table4", "Rule List 1", {}, math.inf, 0.0, 0, "dist_g", r.dist_g))
    return out


def _rec_rows() -> list[dict]:
    from ...audit import reconstruction_leak

    dom = {"a1": [0, 1], "a2": [1, 2, 3]}
    x = np.array([[1, 1]])
    out = []
    for name, model in (
        ("rec1", _one_split_tree(0, 0.5, ["a1", "a2"])),
        ("rec2", _one_split_tree(1, 1.5, ["a1", "a2"])),
    ):
        r = reconstruction_leak(model, x, domains=dom)
        out.append(row("tables5-7", name, {}, math.inf, 0.0, 0, "dist", r.dist))
        out.append(row("tables5-7", name, {}, math.inf, 0.0, 0, "dist_g", r.dist_g))
    return out


def toy_cell() -> list[dict]:
    """Every toy number of paper 003 (module docstring): tidy rows."""
    return _tree_rows(3) + _tree_rows(0) + _rule_list_rows() + _rec_rows()


def _cells(size):
    return [Cell("toy", toy_cell, {})]


def _num(v):
    return f"{v:.3f}"


def _table(df: pd.DataFrame) -> str:
    params = [json.loads(p) for p in df["parameters"]]
    d = df.assign(p=params)
    out = [
        "**Table I → Fig. 1 → Table II** (scikit-learn trees on Table I; V_1 = {10, …, 15}, V_2 = {0, 1}, "
        "V_3 = {1, 2, 3}).",
        "",
    ]
    t2 = d[d.dataset == "table2"]
    for learner in dict.fromkeys(t2.learner):
        part = t2[t2.learner == learner]
        out += [
            f"*{learner}*",
            "",
            "| record | a1 | a2 | a3 | paper's Table II | per-record Dist_G |",
            "|---|---|---|---|---|---|",
        ]
        for _, r in part[part.metric == "dist_g_record"].iterrows():
            p = r.p
            paper = " · ".join(PAPER["table2"][p["record"]])
            mine = " · ".join((p["a1"], p["a2"], p["a3"]))
            mark = "same" if paper == mine else "**differs**"
            out.append(f"| {p['record']} | {p['a1']} | {p['a2']} | {p['a3']} | {paper} ({mark}) | {_num(r.value)} |")
        m = part.set_index("metric")["value"]
        out += [
            "",
            f"Dist (Definition 2) = {_num(m['dist'])} (paper: {PAPER['dist_fig1']}); x3's a1 cell "
            f"log2|V^DT_3,1| / log2|V_1| = {_num(m['cell_x3_a1'])} (paper: {PAPER['cell_x3_a1']}); "
            f"Dist_G (Definition 4) = {_num(m['dist_g'])} (paper: not printed).",
            "",
        ]
    t4 = d[d.dataset == "table4"]
    out += [
        "**Table III → Rule List 1 → Table IV.** Rule List 1: if a1 ∧ a2 then 1, else if a3 then 0, else 1.",
        "",
        "| rule | captured (class 0; class 1), recomputed from Table III | paper |",
        "|---|---|---|",
    ]
    sup = t4[t4.metric == "support"]
    for j in sorted({p["rule"] for p in sup.p}):
        part = sup[[p["rule"] == j for p in sup.p]]
        by_class = {p["class"]: int(v) for p, v in zip(part.p, part.value)}
        path = part.p.iloc[0]["path"]
        paper = PAPER["rule_list_1_counts"][j]
        out.append(f"| {path} | [{by_class[0]}; {by_class[1]}] | [{paper[0]}; {paper[1]}] |")
    out += ["", "| record | possible (a1, a2, a3) rows | paper's Table IV | same? |", "|---|---|---|---|"]
    for _, r in t4[t4.metric == "possible_rows"].iterrows():
        paper = PAPER["table4"][r.p["record"]]
        out.append(f"| {r.p['record']} | {r.p['worlds']} | {paper} | {'yes' if paper == r.p['worlds'] else '**no**'} |")
    dg = float(t4[t4.metric == "dist_g"].value.iloc[0])
    out += ["", f"Dist_G of Rule List 1 = {_num(dg)} = (2·log2 2 + 3·log2 3) / (5·3) (the paper prints no value).", ""]
    t5 = d[d.dataset == "tables5-7"].set_index(["learner", "metric"])["value"]
    out += [
        "**Tables V–VII** (record (1, 1), V_1 = {0, 1}, V_2 = {1, 2, 3}).",
        "",
        "| reconstruction | Dist | paper | Dist_G | paper |",
        "|---|---|---|---|---|",
    ]
    for name, what in (("rec1", "V^rec1: a1 = 1 known"), ("rec2", "V^rec2: a2 = 1 known")):
        out.append(
            f"| {what} | {_num(t5[(name, 'dist')])} | {PAPER['dist_rec'][name]} | {_num(t5[(name, 'dist_g')])} | "
            f"{PAPER['dist_g_rec'][name]} |"
        )
    return "\n".join(out)


register(
    Experiment(
        "003-toy",
        paper="003",
        kind="table",
        title="The worked examples: Tables I–VII, Fig. 1 and Rule List 1",
        draws="Table II's reconstruction from scikit-learn trees fitted on Table I, Dist = .736; Rule List 1's counts "
        "and Table IV's possible rows from Table III; Dist and Dist_G of Tables V–VII, beside the paper's values",
        cells=_cells,
        table=_table,
        published=PAPER,
        full_cost="< 1 s",
        quick_cost="< 1 s",
    )
)
