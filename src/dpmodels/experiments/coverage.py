"""The coverage of the papers' 26 result items: one status each, decided by one written rule.

The rule (:data:`RULE`) was written down on 2026-11-29 before the rows were re-read, and is applied
alike to every item; the counts on the front page of ``docs/results.md`` are computed from the
statuses here (:func:`counts`), never typed. Each row is short (status, the paper's claim, ours, one
cause, a link to the page with the details); ``make results-check`` fails when the table in
``docs/results.md`` is not the one :func:`coverage_markdown` generates.
"""

from __future__ import annotations

from typing import NamedTuple

__all__ = ["Item", "ITEMS", "RULE", "STATUSES", "counts", "coverage_markdown"]

STATUSES = ("agree", "partial", "not reproducible by the authors' code", "differs")

RULE = """\
**The rule** (written 2026-11-29 before the rows were re-read; applied alike to all 26 items):

- *Numbers.* An item's printed numbers agree when each lies within 2 combined standard errors of ours
  (the printed s.e. where the paper gives one, ours otherwise), under the protocol the paper states: the
  ε, data and settings its text gives; a setting is inferred only where the text states none, and the
  row says so. Where many numbers are compared (a table of ≥ 20 rows), an agreement test recorded in the
  item's section before the comparison may replace "each" by: no more beyond 2 s.e. than chance gives
  (≤ 5 of 21), none beyond 4 s.e., and the mean difference within 2 s.e.
- *Statements.* A statement agrees when it holds with the quantifier the paper uses: "always" / "at a
  given …" at every tested setting (95 % per setting, no multiple-testing correction, since none was
  declared in advance); "usually" in most settings; a direction drawn as mean curves when the 95 % CI of
  the mean paired difference excludes 0 in the stated direction.
- **agree**: every number and statement of the item agrees. **partial**: some agree, the rest do not,
  with a measured cause. **not reproducible by the authors' code**: what does not agree is also not what
  the authors' own public code gives when run on our data under the paper's protocol (their code within
  2 combined s.e. of ours). **differs**: nothing of the item agrees."""


class Item(NamedTuple):
    num: int
    item: str
    ids: tuple
    status: str
    claim: str
    ours: str
    cause: str
    page: str  # below docs/results/


# fmt: off
ITEMS: tuple[Item, ...] = (
    Item(1, "000 Fig. 1", ("000-fig1",), "agree", "smooth-sensitivity noise scales of Theorem IV.1",
         "sampler draws match the formulas", "—", "000-fig1.md"),
    Item(2, "000 Fig. 2", ("000-fig2-script",), "agree", "noisy Gini beats noisy counts on COMPAS, slower to reach GreedyRL",
         "ahead by > 2 s.e. at every ε in [0.1, 135]", "the authors' script, checked seed for seed", "000-fig2-script.md"),
    Item(3, "000 Fig. 3", ("000-fig3-script",), "agree", "noisy Gini remains the best choice (German, Adult)",
         "mean curves (no 'always'): +.166 German, +.107 Adult, CIs exclude 0; level only at Adult's ε = 18.7", "the authors' script; German on CP4IM's file, as rows 4 and 6", "000-fig3-script.md"),
    Item(4, "000 Fig. 4", ("000-fig4-paper",), "partial", "for ε ≥ 0.1 smooth mechanisms ≥ global ones",
         "holds on COMPAS and Adult (0 and 3 of 900 paired tests behind)", "German's smooth mechanisms trail below ε ≈ 1 (120 of 300 pairs)", "000-fig4-paper.md"),
    Item(5, "000 Table I", ("000-table1-paper",), "agree", "standard errors of the mean accuracy",
         "2 of 45 beyond 2 s.e. (5 allowed), none beyond 4; median ratio 0.99", "the runner's split, γ, candidates and CP4IM's German", "000-table1-paper.md"),
    Item(6, "000 Table II", ("000-table2-script",), "partial", "vulnerability V at ε = 10 (000 §V-C)",
         "COMPAS, Adult within 2.7 s.e.; German .7035 ± .0025 vs .683", "German is ≈ 5 s.e. off at the stated ε = 10 (it agrees only at ε = 1)", "000-table2-script.md"),
    Item(7, "000 Table III", ("000-table3-script",), "agree", "importance overlap I_k on Adult",
         "gl-Laplace 1.1/1.7 s.e.; sm-Laplace +0.7/+1.0 s.d. of 20 streams", "low power: it detects 0.08 (80 %) on gl-Laplace; any sm-Laplace value in .20–.71 / .32–.80 agrees", "000-table3-script.md"),
    Item(8, "000 Fig. 6", ("000-fig6", "000-label-only"), "agree", "rule lists resist membership inference",
         "every DP AUC within ≈ 2 s.e. of .5", "—", "000-fig6.md"),
    Item(9, "002 Fig. 1", ("002-fig1", "002-authors"), "agree", "PrivaTree best from ε ≈ 0.01 (adult) / 0.05 (compas)",
         "switch 0.01–0.018 / 0.032–0.056; stars within s.e.", "published variant fixed (own bins, weighted Gini)", "002-fig1.md"),
    Item(10, "002 Fig. 2", ("002-fig2",), "agree", "small data spend on leaves, large data on splits",
         "vote best 0/.1/.9, pol .3/.6/.1", "—", "002-fig2.md"),
    Item(11, "002 Fig. 3", ("002-fig3", "002-authors"), "agree", "guaranteed accuracy vs poisoned samples",
         "every point within .02 of Table VIII's", "—", "002-fig3.md"),
    Item(12, "002 Fig. 4", ("002-fig4", "002-authors"), "not reproducible by the authors' code", "MNIST clean accuracy .974 at ε = 0.01; tree ASR ≈ 100 %",
         ".891 ours (50 splits), .889 ± .013 the authors' code (5); ASR holds", "the authors' public code gives ours, not .974", "002-fig4.md"),
    Item(13, "002 Table II", ("002-table2",), "agree", "accuracy of DP trees at ε = 0.1",
         "authors' code: every column passes the test fixed beforehand; our rebuilds too but BDPT", "BDPT: breast-w, a bug of the authors' BDPT", "002-table2.md"),
    Item(14, "002 Table III", ("002-table3",), "agree", "poisoning guarantees, numerical data",
         "as published: 11/11 within .02 at ε = 0.1, ε = 0.01 mean −.001 ± .011; guarantees follow", "rigorous PrivaTree −.019 ± .005 at ε = 0.1: the paper's unproven accounting", "002-table3.md"),
    Item(15, "002 Table IV", ("002-table4",), "agree", "dataset properties",
         "21 bundled rows identical", "8 datasets need --data-dir", "002-table4.md"),
    Item(16, "002 Table V", ("002-table5",), "agree", "runtimes",
         "same orders of magnitude", "—", "002-table5.md"),
    Item(17, "002 Table VI", ("002-table6",), "not reproducible by the authors' code", "accuracy of DP trees at ε = 0.01",
         "5 of 6 columns agree; PrivaTree's printed column not", "the authors' code is +.029 ± .013 above the printed column", "002-table6.md"),
    Item(18, "002 Table VII", ("002-table7",), "agree", "accuracy of DP trees at ε = 1",
         "authors' code: every column passes; our rebuilds too but BDPT", "BDPT: breast-w, a bug of the authors' BDPT", "002-table7.md"),
    Item(19, "002 Table VIII", ("002-table8",), "partial", "poisoning guarantees, mixed data",
         "PrivaTree as published agrees at both ε; DP LR at ε = 0.01 +.073 ± .030", "diffprivlib 0.6.6 vs the authors' pinned 0.6.2", "002-table8.md"),
    Item(20, "003 Tables I–VII", ("003-toy",), "agree", "the worked examples",
         "every printed value", "—", "003-toy.md"),
    Item(21, "003 Fig. 2", ("003-fig2",), "agree", "optimal trees usually leak less at equal size / accuracy",
         "50/50 and 50/50 at equal accuracy (both readings); 24/32 and 24/32 per size", "5 Adult depth-10 DL8.5 fits stopped at 300 s; the paper's hour in `003-fig5-certified`", "003-fig2.md"),
    Item(22, "003 Fig. 3", ("003-fig3",), "partial", "at a given accuracy optimal rule lists leak no more",
         "COMPAS 50/50; Adult 45/50 (CI .64–.94), 2 failures beyond the seed noise", "at λ = .01, L = 8–9 the authors' lists sit .008–.009 above the optimal line", "003-fig3.md"),
    Item(23, "003 Fig. 4", ("003-fig4",), "agree", "per-record ratio: CORELS lower; sklearn_DT leaks more",
         ".845 vs .876, .825 vs .895; extremes .958 / .592; Adult trees .685 vs .712", "—", "003-fig4.md"),
    Item(24, "003 Fig. 5", ("003-fig5", "003-fig5-certified"), "agree", "sklearn_DT leaks more and is larger, by depth (mean curves)",
         "paired means: Dist_G −.0055 Adult, +.0069 COMPAS; nodes +2.6, +1.5; CIs exclude 0", "per setting COMPAS is at chance (25/45), as in the authors' rows", "003-fig5.md"),
    Item(25, "003 Fig. 6", ("003-fig6",), "agree", "CORELS lists are longer and hold more information",
         "longer 51/51; adult 40/45, compas 45/45", "—", "003-fig6.md"),
    Item(26, "003 Fig. 7", ("003-fig7",), "agree", "support matters for trees at depth ≥ 6; no clear trend for lists",
         "ρ > 0.8 on 20/20; median |ρ| .62", "—", "003-fig7.md"),
)
# fmt: on


def counts(items=ITEMS) -> dict:
    """Status -> number of items, in :data:`STATUSES` order."""
    return {s: sum(it.status == s for it in items) for s in STATUSES}


def _row(it: Item) -> str:
    ids = ", ".join(f"`{i}`" for i in it.ids)
    status = it.status if it.status == "agree" else f"*{it.status}*"
    # a '|' in a text ("median |ρ|") is escaped: it would otherwise start a column
    texts = (it.item, it.claim, it.ours, it.cause)
    item, claim, ours, cause = (t.replace("|", "\\|") for t in texts)
    return f"| {it.num} | {item} | {status} | {claim} | {ours} | {cause} | [{ids}](results/{it.page}) |"


def coverage_markdown(items=ITEMS) -> str:
    """The front page's coverage block: the counts (computed), the rule, the table."""
    c = counts(items)
    lines = [
        "Status under the rule below: " + ", ".join(f"**{n} {s}**" for s, n in c.items()) + f" ({len(items)} items).",
        "",
        RULE,
        "",
        "| # | item | status | the paper | ours | cause | details |",
        "|---|---|---|---|---|---|---|",
        *(_row(it) for it in items),
    ]
    return "\n".join(lines)
