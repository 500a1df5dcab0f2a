"""Paper 003 (Ferry et al., probabilistic dataset reconstruction): Fig. 2–7, and Dist_G under DP.

Protocol (paper 003, Sec. V-A; the facts of the authors' public scripts where the text is silent):

* **Data.** Bundled binarized Adult (48,842 × 24) randomly sub-sampled to 10 % — a new subsample
  for every seed, ``sample_without_replacement(48842, 4884, random_state=seed)`` as the authors'
  script draws it — and the CORELS version of binarized COMPAS (7,214 × 27). Each seed s ∈ 0…4 then
  splits 80/20 with ``train_test_split(test_size=0.2, random_state=s)`` (Adult: 3,907 training
  rows, COMPAS: 5,771).
* **Grid.** Maximum depth (trees) or length (rule lists, if-then rules without the default)
  1–10 × relative minimum support λ ∈ {0.01, …, 0.05}. The support is a *count* m = ⌈λ·n_train⌉
  for every learner, so that greedy and optimal models face the same constraint. The authors'
  scripts count differently per learner: ⌊λ·n⌋ for the trees (``int(λ * n)``) and in their
  modified CORELS (an integer truncation of λ·n), ``captured / n ≥ λ`` (⌈λn⌉) in their greedy
  list — 39 instead of 40 records on Adult at λ = 0.01. ``_grid_cells(size, rounding="floor")``
  runs the grid with their counts (GreedyRL keeps its own test):

  - ``sklearn_DT``: ``DecisionTreeClassifier(max_depth=D, min_samples_leaf=λ, random_state=1+s)``
    (a float λ is ⌈λ·n⌉ records per leaf in scikit-learn; the count m with ``"floor"``).
  - ``DL8.5``: :class:`~dpmodels.tree.optimal.DL85Classifier` (PyDL8.5, exact search, its
    suboptimal depth-2 solver off), ``min_sup=m``, a time limit per fit (:data:`DL85_TIME_LIMIT`;
    the paper gave 1 h of CPU: ``_grid_cells(size, dl85_time_limit=3600)``, wall-clock as PyDL8.5
    counts it). A fit that times out keeps PyDL8.5's best tree and is recorded with ``optimal = 0``.
  - ``GreedyRL``: the authors' greedy list as they ran it for the paper,
    ``GreedyRuleListClassifier(criterion="authors", max_width=1, max_rules=L+1, min_support=λ)``:
    literals pre-mined by training support in [λ, 1 − λ], the split's Gini with ties to the purer
    side, each rule capturing ≥ λ·n training records (``captured / n ≥ λ``, i.e. m), stopping
    when no rule beats not splitting (in exact arithmetic: the remaining records are pure, or no
    literal meets the support while leaving a record on the other side).
  - ``GreedyRL-draft`` (beside it): the first draft in the authors' repository,
    ``criterion="captured"`` (the captured records' Gini, stops only for support), which the
    grid ran as ``GreedyRL`` before the authors' final learner was identified.
  - ``GreedyRL-split`` (the library's criterion, beside it): paper 000's greedy list (the split's
    weighted Gini, Eq. (1)+(2)), ``max_width=1``, λ' = (m + ½)/n so that its "captures ≥ ⌊λ'·n⌋
    of the remaining records" is the same count m; it also stops when no rule lowers the Gini
    and does not pre-mine.
  - ``OptimalRL``: :class:`~dpmodels.rulelist.OptimalRuleListClassifier` — CORELS's problem as
    the paper ran it (accuracy only, width 1, each rule capturing ≥ m records in its position,
    literals mined in [λ, 1 − λ]), certified by this library's branch and bound; ``max_rules=L+1``.
    The paper's "CORELS" points are these models (the optimum is the same).
* **Metrics** (one tidy row each, ``epsilon = inf``): ``dist_g`` (Definition 4 from the training
  data, ``reconstruction_leak(model, X_train, y_train)``, binary domains), ``size`` (internal
  nodes / if-then rules), ``n_paths`` (leaves / rules + default), ``train_accuracy``,
  ``test_accuracy``, ``cpu_seconds`` of the fit, and for the optimal learners ``optimal``
  (1 when certified). At the grid's largest setting (deepest / longest, smallest λ) each fit also
  stores its per-record ratios as 101 quantiles, metrics ``per_record_q0`` … ``per_record_q100``
  (Fig. 4).

All ids 003-fig2 … 003-fig7 draw from one grid, run in ``OUT/003-fig2/`` (``source=``).

``003-dp`` (beyond the paper, its Appendix C's question): Dist_G of the library's DP rule lists
(:class:`~dpmodels.rulelist.DPRuleListClassifier`, default mechanism, widths 1 and 2) and
PrivaTrees (:class:`~dpmodels.tree.PrivaTreeClassifier` on the binarized data, every column
declared categorical {0, 1}) across ε, beside their non-private counterparts. Dist_G of a DP model
is computed from what it released (noisy counts, ``dist_g``) and, for the auditor, from the true
counts of the same structure (``dist_g_data``).
"""

from __future__ import annotations

from ..registry import Experiment, register
from .figures import _fig4, _fig7, _fig_dist_vs, _fig_vs_depth
from .fits import _grid_cells
from .protocol import DL85_TIME_LIMIT, RULE_LISTS, TREES, _datasets
from .statements import PUBLISHED
from .tables import _certified_md, _table

__all__ = ["CERTIFIED_ID", "PAPER_DL85_TIME_LIMIT"]


# --------------------------------------------------------------------------- registry: Fig. 2–7
_GRID = "003-fig2"
_COMMON_NOTE = (
    "All 003-fig* ids share one grid (cells in OUT/003-fig2/): sklearn_DT, DL8.5, GreedyRL and OptimalRL fits "
    "on binarized Adult (a 10 % subsample per seed) and COMPAS, 80/20 splits, depth/length × min support, "
    f"width-1 rule lists; DL8.5 fits have a {DL85_TIME_LIMIT:g} s time limit each (non-certified fits are marked). "
    "OptimalRL is this library's certified solver of CORELS's problem (same optimum as CORELS). Dist_G from the "
    "training data, binary domains."
)
FULL_COST = (
    "grid of 003-fig2, measured 2026-11-29 (1 worker): DL8.5 9,778 CPU-s over 500 fits (longest 260 CPU-s; "
    "depths 8–10 are 86 %; each fit ≤ 300 s wall, up to ≈ 10 GB: keep --workers ≤ 2 on 24 GiB), the "
    "optimal rule lists 138 CPU-s, the rest 4 CPU-s (docs/results/003-fig2.md)"
)
QUICK_COST = "≈ 1 min (1 seed, depth/length {1, 2, 4}, λ {0.01, 0.05})"
SHARED_COST = "shares 003-fig2's grid"

register(
    Experiment(
        "003-fig2",
        paper="003",
        kind="figure",
        title="Dist_G of optimal (DL8.5) vs greedy (sklearn_DT) trees",
        draws="(a) entropy reduction ratio Dist_G vs tree size, (b) vs training accuracy; colour = min leaf support, "
        "marker = learner; Adult (10 %) and COMPAS; depth 1–10 × support 0.01–0.05, 5 seeds "
        "(runs the grid of every 003-fig* id)",
        cells=_grid_cells,
        plot=lambda df, out: _fig_dist_vs(df, out, TREES, "003-fig2", "trees"),
        table=_table(("003-fig2",), TREES, "trees"),
        published=PUBLISHED,
        full_cost=FULL_COST,
        quick_cost=QUICK_COST,
        notes=_COMMON_NOTE,
    )
)


def _on_the_grid(eid, title, draws, plot, table):
    """Register a figure of paper 003 drawn from the grid that ``003-fig2`` runs."""
    register(
        Experiment(
            eid,
            paper="003",
            kind="figure",
            title=title,
            draws=draws,
            source=_GRID,
            plot=plot,
            table=table,
            published=PUBLISHED,
            full_cost=SHARED_COST,
            quick_cost=SHARED_COST,
            notes=_COMMON_NOTE,
        )
    )


_on_the_grid(
    "003-fig3",
    title="Dist_G of optimal (CORELS's problem) vs greedy rule lists",
    draws="(a) Dist_G vs number of rules, (b) vs training accuracy; width-1 lists, length 1–10 × support 0.01–0.05",
    plot=lambda df, out: _fig_dist_vs(df, out, RULE_LISTS, "003-fig3", "rule lists"),
    table=_table(("003-fig3",), RULE_LISTS, "rule lists"),
)
_on_the_grid(
    "003-fig4",
    title="Per-record entropy reduction ratio at the largest setting",
    draws="CDF of the training records' per-record ratios at depth/length 10, support 0.01 (101 quantiles per "
    "fit, mean curve over seeds, thin lines per seed): (a) trees, (b) rule lists",
    plot=lambda df, out: _fig4(df, out),
    table=_table(("003-fig4",)),
)
_on_the_grid(
    "003-fig5",
    title="Tree size and Dist_G vs the maximum depth (App. A)",
    draws="(a) internal nodes vs max depth, (b) Dist_G vs max depth; one colour per min leaf support, "
    "solid DL8.5, dashed sklearn_DT; mean ± s.e. over seeds",
    plot=lambda df, out: _fig_vs_depth(df, out, TREES, "003-fig5", "trees"),
    table=_table(("003-fig5",)),
)
_on_the_grid(
    "003-fig6",
    title="Rule-list length and Dist_G vs the maximum length (App. A)",
    draws="(a) number of rules vs max length, (b) Dist_G vs max length; solid OptimalRL, dashed GreedyRL",
    plot=lambda df, out: _fig_vs_depth(df, out, RULE_LISTS, "003-fig6", "rule lists"),
    table=_table(("003-fig6",)),
)
_on_the_grid(
    "003-fig7",
    title="Dist_G vs the minimum support (App. A)",
    draws="Dist_G vs min (leaf or rule) support, one colour per max depth/length: (a) trees, (b) rule lists",
    plot=lambda df, out: _fig7(df, out),
    table=_table(("003-fig7",)),
)


# --------------------------------------------------------------------------- Adult trees, the paper's DL8.5 budget
PAPER_DL85_TIME_LIMIT = 3600.0  # the paper's 1 h per DL8.5 fit (Sec. V-A; PyDL8.5 counts wall clock)
CERTIFIED_ID = "003-fig5-certified"


def _certified_cells(size):
    """The cells of ``003-fig5-certified``: the 003 grid's Adult tree cells (sklearn_DT, and DL8.5
    at every depth, λ and seed) with the paper's budget of :data:`PAPER_DL85_TIME_LIMIT` per DL8.5
    fit (``_grid_cells(size, dl85_time_limit=3600)``; COMPAS: the authors' own rows serve, see
    docs/results.md). Same cells, same files: a folder of them finished elsewhere is resumed."""
    from dataclasses import replace

    if size.datasets is not None and "adult" not in _datasets(size):
        return []
    cells = _grid_cells(replace(size, datasets=("adult",)), dl85_time_limit=PAPER_DL85_TIME_LIMIT)
    return [c for c in cells if c.key.startswith(("sklearn_DT-", "DL8.5-"))]


register(
    Experiment(
        CERTIFIED_ID,
        paper="003",
        kind="figure",
        title="Fig. 5 and Fig. 4a on Adult with every DL8.5 fit given the paper's hour",
        draws="Fig. 5 (tree size and Dist_G vs max depth) and Fig. 4a (per-record ratio CDF at depth 10, λ = 0.01) "
        "on Adult from DL8.5 fits with 3,600 s each (the paper's budget; uncertified fits are marked), sklearn_DT "
        "beside; per-depth paired uncertainty of 'sklearn_DT leaks more'",
        cells=_certified_cells,
        plot=lambda df, out: (
            _fig_vs_depth(df, out, TREES, CERTIFIED_ID, "trees") + _fig4(df, out, "003-fig4-certified")
        ),
        table=_certified_md,
        published=PUBLISHED,
        full_cost="measured 2026-11-29, 1 worker: DL8.5 6,623 CPU-s over 250 fits, all certified (depth 10 2,753, depth 9 "
        "1,913, depths 1–8 1,957; longest fit 346.6 CPU-s); sklearn_DT 1 CPU-s (docs/results/003-fig5-certified.md)",
        quick_cost="≈ 1 min (1 seed, depth {1, 2, 4}, λ {0.01, 0.05})",
        notes="Adult only: COMPAS's DL8.5 fits at the paper's budget are the authors' own rows (docs/results.md). "
        "DL8.5 gets 3,600 s of wall clock per fit; certification is recorded per fit (metric 'optimal').",
    )
)
