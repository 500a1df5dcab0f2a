"""The static index of every reproduce id: paper, kind, the module that registers it, its full-size
cost here and a one-line summary.

``dpmodels reproduce --list`` prints this table without importing a single experiment module (they
load only when an id runs), and :func:`dpmodels.experiments.registry.get` imports just the module an
id names. ``tests/experiments/test_reproduce_catalogue.py`` holds the table against the registry: an id that is
registered but missing here (or listed here but registered elsewhere) fails the suite, so a new id is
one line below plus its ``register(...)`` call. Costs are CPU time measured on this project's 2-core
machine (``docs/results`` pages give the details); the registry's ``full_cost`` keeps the long form
(``dpmodels reproduce --list --verbose``).
"""

from __future__ import annotations

from typing import NamedTuple

__all__ = ["Entry", "CATALOGUE", "entry", "list_lines", "sort_key"]


class Entry(NamedTuple):
    paper: str
    kind: str  # "figure" or "table"
    module: str  # below dpmodels.experiments
    cost: str  # full size, CPU time here
    summary: str


_E = Entry
# fmt: off
CATALOGUE: dict[str, Entry] = {
    "000-fig1": _E("000", "figure", "paper_000.accuracy", "0.1 CPU-s", "noise amplitude: smooth vs global sensitivity"),
    "000-fig2": _E("000", "figure", "paper_000.accuracy", "20 CPU-s", "noisy counts vs noisy Gini vs GreedyRL, COMPAS"),
    "000-fig3": _E("000", "figure", "paper_000.accuracy", "145 CPU-s", "noisy counts vs noisy Gini vs GreedyRL, German and Adult"),
    "000-fig4": _E("000", "figure", "paper_000.accuracy", "20 CPU-min", "test accuracy vs ε of every DP rule-list mechanism"),
    "000-fig6": _E("000", "figure", "paper_000.attacks", "see 000-mia", "membership-inference ROC: GreedyRL vs DP rule lists"),
    "000-fig2-paper": _E("000", "figure", "paper_000.accuracy", "16 CPU-s", "000-fig2 under the paper's protocol"),
    "000-fig3-paper": _E("000", "figure", "paper_000.accuracy", "275 CPU-s", "000-fig3 under the paper's protocol"),
    "000-fig4-paper": _E("000", "figure", "paper_000.accuracy", "≈ 1 CPU-h", "000-fig4 under the paper's protocol (the authors' runner)"),
    "000-fig2-script": _E("000", "figure", "paper_000.fig23_script", "15 CPU-s", "Fig. 2 as the authors' script ran it"),
    "000-fig3-script": _E("000", "figure", "paper_000.fig23_script", "95 CPU-s", "Fig. 3 as the authors' script ran it"),
    "000-k-sweep": _E("000", "table", "paper_000.extras", "262 CPU-s", "sweep of the rule list's length K (Sec. V-D)"),
    "000-label-only": _E("000", "table", "paper_000.extras", "5 CPU-min", "label-only membership inference (App. C)"),
    "000-mia": _E("000", "table", "paper_000.attacks", "645 CPU-s", "membership inference on every learner, empirical ε beside claimed ε"),
    "000-raw": _E("000", "table", "paper_000.protocol", "4.5 CPU-min", "DP rule lists on the raw files through the DP Binarizer"),
    "000-theorem41": _E("000", "figure", "paper_000.theory", "< 1 CPU-s", "Theorem IV.1: closed-form smooth sensitivity vs brute force"),
    "000-alg3-example": _E("000", "table", "paper_000.theory", "< 1 CPU-s", "Algorithm 3's worked example: printed T = 7 vs the formula's 33"),
    "000-table1": _E("000", "table", "paper_000.accuracy", "37 CPU-s", "standard error of the mean test accuracy"),
    "000-table2": _E("000", "table", "paper_000.attacks", "262 CPU-s", "distributional-overfitting vulnerability V"),
    "000-table3": _E("000", "table", "paper_000.attacks", "2,052 CPU-s", "feature-importance overlap I_k on Adult"),
    "000-table1-paper": _E("000", "table", "paper_000.accuracy", "162 CPU-s", "000-table1 under the paper's protocol"),
    "000-table2-paper": _E("000", "table", "paper_000.attacks", "279 CPU-s", "000-table2 under the paper's protocol"),
    "000-table3-paper": _E("000", "table", "paper_000.attacks", "41 CPU-s", "000-table3 under the paper's protocol"),
    "000-table2-script": _E("000", "table", "paper_000.scripts", "143 CPU-s", "Table II as the authors' script ran it"),
    "000-table3-script": _E("000", "table", "paper_000.scripts", "343 CPU-s", "Table III as the authors' script ran it (k = 5)"),
    "002-authors": _E("002", "table", "paper_002.authors_runs", "≈ 6 CPU-min", "the authors' public PrivaTree vs our 'as published' rebuild"),
    "002-corollaries": _E("002", "table", "paper_002.corollaries", "< 1 CPU-s", "Corollaries 2 and 3 recomputed at the paper's points"),
    "002-fig1": _E("002", "figure", "paper_002.accuracy_curves", "322 CPU-s", "accuracy vs ε of DP trees, adult and compas-two-years"),
    "002-fig2": _E("002", "figure", "paper_002.budget", "87 CPU-s", "training accuracy vs budget distribution (vote, pol)"),
    "002-fig3": _E("002", "figure", "paper_002.poisoning_curves", "88 CPU-s", "guaranteed accuracy vs poisoned samples"),
    "002-fig4": _E("002", "figure", "paper_002.backdoor", "≈ 14 CPU-min", "backdoor attack success vs poisoned samples (MNIST 0 vs 1)"),
    "002-reference": _E("002", "table", "paper_002.variants", "≈ 5 CPU-min", "the reference protocol: binarized adult / COMPAS at ε = 0.1"),
    "002-table2": _E("002", "table", "paper_002.accuracy_tables", "24 CPU-s", "test accuracy of DP trees at ε = 0.1"),
    "002-table3": _E("002", "table", "paper_002.guarantees", "9 CPU-s", "poisoning guarantees on numerical data"),
    "002-table4": _E("002", "table", "paper_002.datasets", "10 CPU-s", "properties of the datasets"),
    "002-table5": _E("002", "table", "paper_002.accuracy_tables", "see 002-table2", "runtimes at ε = 0.1"),
    "002-table6": _E("002", "table", "paper_002.accuracy_tables", "24 CPU-s", "test accuracy of DP trees at ε = 0.01"),
    "002-table7": _E("002", "table", "paper_002.accuracy_tables", "24 CPU-s", "test accuracy of DP trees at ε = 1"),
    "002-table8": _E("002", "table", "paper_002.guarantees", "8 CPU-s", "poisoning guarantees on mixed data"),
    "002-uci": _E("002", "table", "paper_002.variants", "≈ 8 CPU-min", "PrivaTree's split selections and baselines on the UCI rows"),
    "003-dp": _E("003", "figure", "paper_003.dp", "≈ 4 CPU-min", "Dist_G of DP rule lists and PrivaTrees across ε"),
    "003-fig2": _E("003", "figure", "paper_003.reconstruction", "2.8 CPU-h", "Dist_G of optimal (DL8.5) vs greedy trees"),
    "003-fig3": _E("003", "figure", "paper_003.reconstruction", "see 003-fig2", "Dist_G of optimal vs greedy rule lists"),
    "003-fig4": _E("003", "figure", "paper_003.reconstruction", "see 003-fig2", "per-record entropy reduction ratio"),
    "003-fig5": _E("003", "figure", "paper_003.reconstruction", "see 003-fig2", "tree size and Dist_G vs the maximum depth"),
    "003-fig6": _E("003", "figure", "paper_003.reconstruction", "see 003-fig2", "rule-list length and Dist_G vs the maximum length"),
    "003-fig7": _E("003", "figure", "paper_003.reconstruction", "see 003-fig2", "Dist_G vs the minimum support"),
    "003-fig5-certified": _E("003", "figure", "paper_003.reconstruction", "1.9 CPU-h", "Fig. 5 on Adult, every DL8.5 fit given the paper's hour"),
    "003-toy": _E("003", "table", "paper_003.toy", "< 1 CPU-s", "the worked examples: Tables I–VII, Fig. 1, Rule List 1"),
    "lib-multiclass": _E("lib", "table", "library.multiclass", "≈ 1 CPU-min", "rule lists over K declared classes (nursery, wine)"),
    "lib-peers": _E("lib", "table", "library.peers", "≈ 4 CPU-min", "beside DP-EBM and diffprivlib: accuracy, AUC, Brier, R², fit CPU"),
    "lib-privatree-default": _E("lib", "table", "library.privatree_default", "≈ 25 CPU-s", "PrivaTree's default vs the error and Gini criteria: acc, AUC, Brier"),
    "lib-privatree-regressor": _E("lib", "table", "library.privatree_default", "≈ 10 CPU-s", "PrivaTreeRegressor's default vs its former law: R²"),
    "lib-proba": _E("lib", "table", "library.proba_shrinkage", "≈ 1 CPU-min", "predict_proba from noisy counts: raw shares vs shrinkage"),
    "lib-regression": _E("lib", "table", "library.regression", "15 CPU-s", "PrivaTreeRegressor beside scikit-learn and diffprivlib"),
    "lib-search": _E("lib", "table", "library.private_search", "270 CPU-s", "private hyper-parameter selection and public proxies"),
}
# fmt: on


def entry(eid: str) -> Entry:
    """The catalogue entry of ``eid`` (KeyError when the id is unknown)."""
    return CATALOGUE[eid]


def sort_key(eid: str):
    """Paper, then figures before tables, then the item's number: the order ids are listed in."""
    paper, _, item = eid.partition("-")
    kind = "".join(ch for ch in item if ch.isalpha())
    num = "".join(ch for ch in item if ch.isdigit())
    return (paper, kind, int(num) if num else 0, eid)


def list_lines() -> list[str]:
    """``dpmodels reproduce --list``: a header, then one line per id (at most 120 characters)."""
    w = max(len(i) for i in CATALOGUE)
    cw = max(len(e.cost) for e in CATALOGUE.values())
    lines = [f"{'id':<{w}}  {'kind':<6}  {'full cost':<{cw}}  what it draws"]
    for eid in sorted(CATALOGUE, key=sort_key):
        e = CATALOGUE[eid]
        lines.append(f"{eid:<{w}}  {e.kind:<6}  {e.cost:<{cw}}  {e.summary}")
    return lines
