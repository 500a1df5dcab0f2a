"""Paper 000's attack-based evaluation (Sec. V-E, V-F, App. C), reproduced and extended.

Registry ids (``dpmodels reproduce ID``; :mod:`.registry`):

* ``000-table2`` — distributional-overfitting vulnerability V (train vs test) and test accuracy
  of GreedyRL and every DP mechanism at several ε (paper: sm-Laplace only, ε not stated), with
  V's permutation-null mean (the V of "no difference" on these sets). One cell = one (dataset, run).
* ``000-table3`` — top-k permutation-importance overlap I_k (k = 7) of every DP mechanism with
  GreedyRL on Adult's test split, ε = 1 and 10; both tie rules (:mod:`dpmodels.audit.importance`)
  with accuracy as the score (scikit-learn's default, the paper's presumably), and the default tie
  rule with ROC AUC as the score (it sees probability changes that flip no prediction).
  Importances of the reference and of the DP model use the same permutations. One cell = one run.
* ``000-mia`` (beyond the paper) — membership inference (every attack of
  :data:`dpmodels.audit.ATTACKS`, plus ART's black-box attack when the ``[attacks]`` extra is
  installed) against rule lists, PrivaTree, BDPT, DPGDF and scikit-learn trees, and per learner
  the empirical ε the attacks imply beside the ε it claims (:func:`epsilon_table`). One cell =
  one (dataset, run, learner); its rows hold the per-run metrics *and* every audited record's
  score (metric ``"score"``, columns ``attack``, ``record``, ``member``) for pooled ROC curves.
* ``000-table2-paper`` / ``000-table3-paper`` — the same grids under ``protocol="paper"``: Sec.
  V-A's binarizations and pre-mined rules (:func:`dpmodels.data.paper_protocols.paper_000_data`,
  one column per rule, ``candidates="columns"``) and the paper's calibration of gl-Laplace /
  gl-Gaussian / noisy counts (``calibration="paper"``), as the ``-paper`` ids of :mod:`.accuracy`.
* ``000-fig6`` — the paper's Figure 6 (log-log ROC of GreedyRL vs DP rule lists on German and
  COMPAS), drawn from ``000-mia``'s cells (``source=``): running either runs them once.

Protocol (as :mod:`.protocol`, paper 000 Sec. V-A): bundled binarized COMPAS / German /
Adult, run r = a 70/30 train/test split with ``random_state = r``, K = 5 rules including the
default, width ≤ 2, λ = 0.12 (German) / 0.05 (COMPAS, Adult), C = 0.99, n declared public for
the sm-* mechanisms (Λ = ⌊λn⌋, δ = 1/n²), label set {0, 1} declared (``classes=[0, 1]``).
Table II/III fits draw their noise from ``SeedSequence([r, 2024])`` spawned once per (ε, learner)
in grid order — the same models as :func:`.protocol.pipeline_cell` (``data="binarized"``) for the same
grid, and as this module's earlier runs (so a change of the numbers is a change of the code).

Membership inference (beyond the paper, which needs no population data because its attack is
trained on known members): run r splits the dataset 50/50 into the attacker's population and a
target part (``random_state = r``), and the target part 70/30 into members (the target's training
set) and non-members. Reference models (64 per set, shared by the attacks:
:func:`dpmodels.audit.membership_inference_suite`) train on as many records as the target. Trees
get the binarized columns declared categorical ({0, 1}: the binarization is public) and the
label set {0, 1}. The target's noise and the attacker's randomness are the children
(2i, 2i + 1) of ``SeedSequence([r, 2025])``, i = the (learner, ε) position in the grid — the
ids' default grids reproduce the earlier runs' draws.

Run them with ``dpmodels reproduce ID`` (the only runner). The cell builders :func:`table2_cells`,
:func:`table3_cells`, :func:`mia_cells` give the grids; each cell returns tidy rows, one per (run,
learner, ε, metric): ``dataset, learner, parameters, epsilon, delta, seed, metric, value,
fit_seconds`` (:data:`..registry.ROW_FIELDS`; ``attack`` too for membership inference).
"""

from __future__ import annotations

import contextlib
import functools
import json
import math
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.inspection import permutation_importance
from sklearn.model_selection import train_test_split
from sklearn.tree import DecisionTreeClassifier

from ..._optional import available
from ...audit import ATTACKS, evaluate_scores, membership_inference_suite, vulnerability
from ...audit.dp_audit import epsilon_lower_bound
from ...audit.importance import overlap, top_k_features
from ...data import load_dataset
from ...privacy import PrivacyLeakWarning
from ...rulelist import DPRuleListClassifier, GreedyRuleListClassifier
from .. import published as pub
from ..plots import pyplot, save
from ..registry import _REGISTRY, ROW_FIELDS, Cell, Experiment, register, row
from .protocol import AUTHORS_CAUCHY_GAMMA, LEARNERS, PAPER_LAMBDA

__all__ = [
    "PAPER_TABLE_II_VULNERABILITY",
    "PAPER_TABLE_II_ACCURACY",
    "PAPER_TABLE_III",
    "MIA_LEARNERS",
    "FIG6_LEARNERS",
    "table2_cell",
    "table3_cell",
    "mia_cell",
    "table2_cells",
    "table3_cells",
    "mia_cells",
    "split_mia",
    "epsilon_table",
    "summarise",
    "table2_markdown",
    "table3_markdown",
    "mia_markdown",
    "epsilon_markdown",
    "plot_table2",
    "plot_table3",
    "plot_fig6",
    "plot_mia_tpr",
]

COLUMNS = list(ROW_FIELDS)
K_RULES, WIDTH, CONFIDENCE = 5, 2, 0.99
CLASSES = [0, 1]  # the binarized datasets' public label set
DATASETS = ("compas", "german", "adult")

# this module's learner names -> the paper's
PAPER_NAMES = {"GreedyRL": "GreedyRL", "sm-laplace (confidence)": "sm-Laplace", "gl-laplace": "gl-Laplace"}
_TO_OURS = {v: k for k, v in PAPER_NAMES.items()}
# Paper 000, Table II (published.P000_TABLE2*): V as printed and test accuracy at ε = 10.
PAPER_TABLE_II_VULNERABILITY = {(d, _TO_OURS[lr]): v["value"] for (d, lr), v in pub.P000_TABLE2_VULNERABILITY.items()}
PAPER_TABLE_II_ACCURACY = {(d, _TO_OURS[lr]): v for (d, lr), v in pub.P000_TABLE2.items()}
# Paper 000, Table III (Adult, K = 5, k = 7, 100 runs): I_k mean ± the paper's "±".
PAPER_TABLE_III = {(e, _TO_OURS[lr]): v for (e, lr), v in pub.P000_TABLE3.items()}

# label -> (kind, params); rule-list DP labels come from protocol.LEARNERS
MIA_LEARNERS: dict[str, tuple[str, dict]] = {
    "GreedyRL": ("greedy", {}),
    **{name: ("dp-rulelist", p) for name, p in LEARNERS.items()},
    "PrivaTree": ("privatree", {}),
    "BDPT": ("bdpt", {}),
    "DPGDF": ("dpgdf", {}),
    "tree (depth 4)": ("sklearn", {"max_depth": 4}),
    "tree (fully grown)": ("sklearn", {}),
}
MIA_DEFAULT_LEARNERS = (
    "GreedyRL",
    "permute-and-flip",
    "sm-laplace (confidence)",
    "PrivaTree",
    "BDPT",
    "DPGDF",
    "tree (depth 4)",
    "tree (fully grown)",
)
NON_PRIVATE = ("GreedyRL", "tree (depth 4)", "tree (fully grown)")
# Paper 000, Fig. 6: GreedyRL vs sm-Laplace on German and COMPAS (+ the library's default mechanism)
FIG6_LEARNERS = ("GreedyRL", "sm-laplace (confidence)", "permute-and-flip")
FIG6_DATASETS = ("german", "compas")
MIA_METRICS = (("auc", None), ("tpr@0.1%fpr", 0.001), ("tpr@1%fpr", 0.01))


# ------------------------------------------------------------------------------------ helpers
# protocol="library": the bundled binarizations, every conjunction of ≤ 2 literals, the rigorous
# calibration; protocol="paper": Sec. V-A's binarizations and pre-mined rules rebuilt from the raw
# files (dpmodels.data.paper_protocols, one column per rule, candidates="columns") and the paper's
# calibration of gl-Laplace / gl-Gaussian / noisy counts (calibration="paper") — as .accuracy
PROTOCOLS = ("library", "paper")
PAPER_CALIBRATED = ("gl-laplace", "gl-gaussian", "noisy-counts")


@functools.lru_cache(maxsize=6)
def _data(dataset, protocol="library"):
    if protocol == "paper":
        from ...data.paper_protocols import paper_000_data

        X, y, _ = paper_000_data(dataset)
        return X, y
    if protocol != "library":
        raise ValueError(f"protocol must be one of {PROTOCOLS}, got {protocol!r}")
    return load_dataset(dataset)


def _split(dataset, run, test_size=0.3, protocol="library"):
    X, y = _data(dataset, protocol)
    return train_test_split(X, y, test_size=test_size, random_state=run)


def _rule_params(name, lam, n=None, protocol="library") -> dict:
    """The fit's parameters for the tidy ``parameters`` column (n_public: the declared n)."""
    p = dict(max_rules=K_RULES, min_support=lam, max_width=WIDTH, classes=CLASSES)
    if protocol == "paper":  # each pre-mined rule is one column: no further conjunctions
        p.update(max_width=1, candidates="columns")
    if name == "GreedyRL":
        return p
    p = dict(p, **LEARNERS[name], confidence=CONFIDENCE, n_public=n)
    if protocol == "paper" and p["mechanism"] in PAPER_CALIBRATED:
        p["calibration"] = "paper"
    if protocol == "paper" and p["mechanism"] == "sm-cauchy":
        p["gamma"] = AUTHORS_CAUCHY_GAMMA
    return p


def _dp_rule_list(name, eps, lam, n, seed, protocol="library"):
    return DPRuleListClassifier(
        epsilon=eps, random_state=np.random.default_rng(seed), **_rule_params(name, lam, n, protocol)
    )


def _greedy(lam, protocol="library"):
    return GreedyRuleListClassifier(**_rule_params("GreedyRL", lam, protocol=protocol))


@contextlib.contextmanager
def _quiet():
    """Silence the fixed grid's notes (δ ≥ 1/n etc.), never a PrivacyLeakWarning."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        warnings.simplefilter("always", PrivacyLeakWarning)
        yield


def _fit_timed(est, X, y):
    t = time.perf_counter()
    with _quiet():
        est.fit(X, y)
    return est, time.perf_counter() - t


def _check_learners(learners, known):
    unknown = [lr for lr in learners if lr not in known]
    if unknown:
        raise ValueError(f"unknown learners {unknown}; choose from {list(known)}")


def _check_datasets(datasets):
    bad = [d for d in datasets if d not in PAPER_LAMBDA]
    if bad:
        raise ValueError(f"paper 000 uses the datasets {sorted(PAPER_LAMBDA)}; not {bad}")


# ------------------------------------------------------------------------------------ Table II
def table2_cell(dataset, run, epsilons, learners, n_permutations=0, protocol="library"):
    """V (+ its permutation-null mean when ``n_permutations``) and test accuracy of GreedyRL and of
    every (learner, ε) on run ``run``'s 70/30 split of ``dataset``: tidy rows. ``protocol``: one of
    :data:`PROTOCOLS`."""
    lam = PAPER_LAMBDA.get(dataset, 0.05)
    Xtr, Xte, ytr, yte = _split(dataset, run, protocol=protocol)
    rows = []

    def measure(name, eps, delta, est, secs):
        params = json.dumps(_rule_params(name, lam, len(Xtr), protocol), sort_keys=True)
        v = vulnerability(est, Xtr, ytr, Xte, yte, n_permutations=n_permutations, random_state=run)
        rows.append(row(dataset, name, params, eps, delta, run, "vulnerability", v.V, secs))
        if n_permutations:
            rows.append(row(dataset, name, params, eps, delta, run, "vulnerability (null mean)", v.null_mean, secs))
        rows.append(row(dataset, name, params, eps, delta, run, "accuracy", est.score(Xte, yte), secs))

    g, secs = _fit_timed(_greedy(lam, protocol), Xtr, ytr)
    measure("GreedyRL", math.inf, 0.0, g, secs)
    ss = np.random.SeedSequence([run, 2024])
    for eps in epsilons:
        for name in learners:
            seed = ss.spawn(1)[0]
            est, secs = _fit_timed(_dp_rule_list(name, eps, lam, len(Xtr), seed, protocol), Xtr, ytr)
            measure(name, eps, est.privacy_ledger_.delta, est, secs)
    return rows


def _protocol_kwargs(protocol) -> dict:
    """The cells' ``protocol`` argument: absent for the library protocol (its cells keep their
    arguments, so their stored results are resumed)."""
    if protocol not in PROTOCOLS:
        raise ValueError(f"protocol must be one of {PROTOCOLS}, got {protocol!r}")
    return {} if protocol == "library" else dict(protocol=protocol)


def table2_cells(
    datasets=DATASETS,
    runs=100,
    epsilons=(0.1, 1.0, 10.0),
    learners=tuple(LEARNERS),
    n_permutations=20,
    protocol="library",
) -> list[Cell]:
    """One cell per (dataset, run)."""
    _check_datasets(datasets)
    _check_learners(learners, LEARNERS)
    extra = _protocol_kwargs(protocol)
    cost = {"adult": 4.0, "german": 1.5, "compas": 1.0}
    return [
        Cell(
            f"{d}-run{r}",
            table2_cell,
            dict(
                dataset=d,
                run=r,
                epsilons=tuple(float(e) for e in epsilons),
                learners=tuple(learners),
                n_permutations=int(n_permutations),
                **extra,
            ),
            cost=cost.get(d, 1.0),
        )
        for d in datasets
        for r in range(int(runs))
    ]


# ------------------------------------------------------------------------------------ Table III
IK_VARIANTS = (
    ("I_k", "accuracy", "positive"),
    ("I_k (rank ties)", "accuracy", "rank"),
    ("I_k (AUC scoring)", "roc_auc", "positive"),
)


# The authors' Table III script (read from their public repository; nothing copied): scikit-learn's
# permutation importance with n_repeats=10 and random_state=42 on the WHOLE binarized file (train
# and test rows), the features being the binarized attribute columns (not the rules); the top-k set
# is the last k entries of ``np.argsort(importances)`` reversed, so zero-importance ties go to the
# later columns first; I_k = |A ∩ B| / k. Reference: GreedyRL with λ = 0.05.
AUTHORS_T3 = dict(n_repeats=10, random_state=42)
IK_PAPER_VARIANTS = ("I_k", "I_k (rank ties)", "I_k (positive ties)")


def _capture_on_columns(rule_list, literals, B, col):
    """Index of the rule capturing each row, evaluated on the attribute matrix ``B`` (bool) whose
    columns ``col`` maps by name: each rule-column literal of the list is rebuilt from its
    attribute literals (``literals``: ``R.attrs["literals"]``). Same semantics as
    :meth:`RuleList.apply` on the rule columns."""
    n = B.shape[0]
    out = np.full(n, len(rule_list.rules), dtype=np.int64)
    free = np.ones(n, dtype=bool)
    for k, rule in enumerate(rule_list.rules):
        m = free.copy()
        for f, pos in rule.literals:
            c = np.ones(n, dtype=bool)
            for a, apos in literals[str(f)]:
                c &= B[:, col[a]] if apos else ~B[:, col[a]]
            m &= c if pos else ~c
        out[m] = k
        free &= ~m
    return out


def authors_importance(rule_list, literals, B, y, n_repeats=10, random_state=42) -> np.ndarray:
    """Permutation importance of every attribute column of ``B`` (a 0/1 DataFrame) for a fitted
    rule list over rule columns (``literals``: the rules' attribute literals): the mean drop of
    accuracy on ``(B, y)`` over ``n_repeats`` shuffles of the column. The same numbers as
    scikit-learn's ``permutation_importance(..., random_state=random_state)``: every column is
    shuffled by a generator seeded with the same number drawn from ``RandomState(random_state)``,
    each repeat shuffling the index array again and applying it to the already shuffled column. A column no rule of the list reads gets exactly 0
    (shuffling it changes no prediction), so only the columns it reads are shuffled."""
    names = [str(c) for c in B.columns]
    col = {c: i for i, c in enumerate(names)}
    X = B.to_numpy().astype(bool)
    y = np.asarray(y)
    preds = np.array([r.prediction for r in (*rule_list.rules, rule_list.default)], dtype=np.int64)
    classes = np.asarray(rule_list.classes)
    base = float(np.mean(classes[preds[_capture_on_columns(rule_list, literals, X, col)]] == y))
    used = {a for r in rule_list.rules for f, _ in r.literals for a, _ in literals[str(f)]}
    seed = np.random.RandomState(int(random_state)).randint(np.iinfo(np.int32).max + 1)
    imp = np.zeros(len(names))
    for a in sorted(used, key=lambda a: col[a]):
        j = col[a]
        rs = np.random.RandomState(seed)
        idx = np.arange(X.shape[0])
        orig = X[:, j].copy()
        drops = []
        for _ in range(int(n_repeats)):
            rs.shuffle(idx)
            X[:, j] = X[idx, j]  # re-shuffles the already shuffled column, as scikit-learn does
            acc = float(np.mean(classes[preds[_capture_on_columns(rule_list, literals, X, col)]] == y))
            drops.append(base - acc)
        X[:, j] = orig
        imp[j] = float(np.mean(drops))
    return imp


def authors_top_k(importances, k) -> np.ndarray:
    """The authors' top-k: the last k entries of the ascending (stable) argsort, reversed."""
    return np.argsort(np.asarray(importances, dtype=float), kind="stable")[::-1][: int(k)]


def _table3_cell_authors(dataset, run, epsilons, learners, k):
    """Table III the authors' way (:data:`AUTHORS_T3`): models fit on run ``run``'s 70/30 split
    of the rule columns, importances of the attribute columns on the whole file."""
    from ...data.paper_protocols import paper_000_data, paper_000_features

    lam = PAPER_LAMBDA.get(dataset, 0.05)
    R, _, _ = paper_000_data(dataset)
    B, yall = paper_000_features(dataset)
    literals = R.attrs["literals"]
    Xtr, _, ytr, _ = _split(dataset, run, protocol="paper")

    def importances(est):
        return authors_importance(est.rule_list_, literals, B, yall, **AUTHORS_T3)

    g, gsecs = _fit_timed(_greedy(lam, "paper"), Xtr, ytr)
    ref = importances(g)
    rows = []
    ss = np.random.SeedSequence([run, 2024])
    for eps in epsilons:
        for name in learners:
            seed = ss.spawn(1)[0]
            est, secs = _fit_timed(_dp_rule_list(name, eps, lam, len(Xtr), seed, "paper"), Xtr, ytr)
            imp = importances(est)
            params = json.dumps(
                dict(_rule_params(name, lam, len(Xtr), "paper"), k=k, importance="authors", **AUTHORS_T3),
                sort_keys=True,
            )
            delta = est.privacy_ledger_.delta
            vals = {
                "I_k": len(set(authors_top_k(ref, k)) & set(authors_top_k(imp, k))) / k,
                "I_k (rank ties)": overlap(top_k_features(ref, k, "rank"), top_k_features(imp, k, "rank"), k, "rank"),
                "I_k (positive ties)": overlap(top_k_features(ref, k), top_k_features(imp, k), k),
                "n important features": int((imp > 0).sum()),
            }
            rows += [row(dataset, name, params, eps, delta, run, m, v, secs) for m, v in vals.items()]
    gparams = dict(_rule_params("GreedyRL", lam, protocol="paper"), k=k, importance="authors", **AUTHORS_T3)
    rows.append(
        row(dataset, "GreedyRL", gparams, math.inf, 0.0, run, "n important features", int((ref > 0).sum()), gsecs)
    )
    return rows


def table3_cell(dataset, run, epsilons, learners, k=7, n_repeats=5, protocol="library"):
    """I_k of every (learner, ε) against GreedyRL on run ``run``'s test split: tidy rows (metrics
    :data:`IK_VARIANTS` and ``n important features``). Under ``protocol="paper"`` the authors'
    procedure (:data:`AUTHORS_T3`; ``n_repeats`` is then theirs, 10): the attribute columns'
    importances on the whole file, metrics :data:`IK_PAPER_VARIANTS`."""
    if protocol == "paper":
        return _table3_cell_authors(dataset, run, epsilons, learners, k)
    lam = PAPER_LAMBDA.get(dataset, 0.05)
    Xtr, Xte, ytr, yte = _split(dataset, run, protocol=protocol)
    perm_seed = 10_000 + run  # one permutation seed per run, shared by reference and DP models

    def importances(est):
        """Mean importance under accuracy (the paper's, scikit-learn's default) and under ROC AUC,
        from the same permutations (one multi-metric call)."""
        r = permutation_importance(
            est, Xte, yte, n_repeats=n_repeats, scoring=["accuracy", "roc_auc"], random_state=perm_seed
        )
        return {sc: r[sc].importances_mean for sc in ("accuracy", "roc_auc")}

    g, gsecs = _fit_timed(_greedy(lam, protocol), Xtr, ytr)
    ref = importances(g)
    rows = []
    ss = np.random.SeedSequence([run, 2024])
    for eps in epsilons:
        for name in learners:
            seed = ss.spawn(1)[0]
            est, secs = _fit_timed(_dp_rule_list(name, eps, lam, len(Xtr), seed, protocol), Xtr, ytr)
            imp = importances(est)
            params = json.dumps(
                dict(_rule_params(name, lam, len(Xtr), protocol), k=k, n_repeats=n_repeats), sort_keys=True
            )
            delta = est.privacy_ledger_.delta
            for metric, sc, ties in IK_VARIANTS:
                val = overlap(top_k_features(ref[sc], k, ties), top_k_features(imp[sc], k, ties), k, ties)
                rows.append(row(dataset, name, params, eps, delta, run, metric, val, secs))
            rows.append(
                row(
                    dataset,
                    name,
                    params,
                    eps,
                    delta,
                    run,
                    "n important features",
                    int((imp["accuracy"] > 0).sum()),
                    secs,
                )
            )
    gparams = dict(_rule_params("GreedyRL", lam, protocol=protocol), k=k, n_repeats=n_repeats)
    rows.append(
        row(
            dataset,
            "GreedyRL",
            gparams,
            math.inf,
            0.0,
            run,
            "n important features",
            int((ref["accuracy"] > 0).sum()),
            gsecs,
        )
    )
    return rows


def table3_cells(
    datasets=("adult",), runs=100, epsilons=(1.0, 10.0), learners=tuple(LEARNERS), k=7, n_repeats=5, protocol="library"
) -> list[Cell]:
    """One cell per (dataset, run)."""
    _check_datasets(datasets)
    _check_learners(learners, LEARNERS)
    extra = _protocol_kwargs(protocol)
    return [
        Cell(
            f"{d}-run{r}",
            table3_cell,
            dict(
                dataset=d,
                run=r,
                epsilons=tuple(float(e) for e in epsilons),
                learners=tuple(learners),
                k=int(k),
                n_repeats=int(n_repeats),
                **extra,
            ),
        )
        for d in datasets
        for r in range(int(runs))
    ]


# -------------------------------------------------------------------------- membership inference
def _mia_target(name, eps, lam, n, seed, rng_seed, cats):
    """(unfitted target, parameters) for one MIA learner; ``cats``: the public categories."""
    kind, p = MIA_LEARNERS[name]
    if kind == "greedy":
        return _greedy(lam), _rule_params("GreedyRL", lam)
    if kind == "dp-rulelist":
        return _dp_rule_list(name, eps, lam, n, seed), _rule_params(name, lam, n)
    if kind == "sklearn":
        return DecisionTreeClassifier(random_state=rng_seed, **p), dict(p, random_state=rng_seed)
    from ...tree.baselines import BDPTClassifier, DPGDFClassifier
    from ...tree.privatree import PrivaTreeClassifier

    cls = {"privatree": PrivaTreeClassifier, "bdpt": BDPTClassifier, "dpgdf": DPGDFClassifier}[kind]
    params = dict(max_depth=4, classes=CLASSES)
    est = cls(epsilon=eps, categories=cats, random_state=np.random.default_rng(seed), **params)
    return est, dict(params, categories="binary columns {0, 1}")


def _art_available() -> bool:
    return available("art")


def _mia_seeds(run, i):
    """(target noise, attacker) seeds of the i-th (learner, ε) of the grid: children 2i and 2i + 1
    of ``SeedSequence([run, 2025])`` (what ``spawn(2)`` per fit in grid order gives)."""
    return tuple(np.random.SeedSequence([run, 2025], spawn_key=(2 * i + j,)) for j in (0, 1))


def mia_cell(dataset, run, learner, epsilons, attacks, n_reference=64, seed_index=0, art=False, keep_scores=True):
    """Every attack against ``learner`` (at each ε of ``epsilons`` when private) on run ``run``:
    rows of metrics ``auc``, ``tpr@0.1%fpr``, ``tpr@1%fpr`` per attack, and with ``keep_scores``
    one ``score`` row per audited record and attack (columns ``record``, ``member``)."""
    X, y = _data(dataset)
    cats = {c: [0, 1] for c in X.columns}
    Xt, Xp, yt, yp = train_test_split(X, y, test_size=0.5, random_state=run)
    Xi, Xo, yi, yo = train_test_split(Xt, yt, test_size=0.3, random_state=run)
    yi, yo, yp = yi.to_numpy(), yo.to_numpy(), yp.to_numpy()
    lam = PAPER_LAMBDA.get(dataset, 0.05)
    rows = []
    for j, eps in enumerate(epsilons if learner not in NON_PRIVATE else (math.inf,)):
        seed, attack_seed = _mia_seeds(run, seed_index + j)
        est, params = _mia_target(learner, eps, lam, len(Xi), seed, run, cats)
        params = json.dumps(dict(params, n_reference=n_reference), sort_keys=True, default=str)
        est, secs = _fit_timed(est, Xi, yi)
        delta = getattr(getattr(est, "privacy_ledger_", None), "delta", 0.0)
        t = time.perf_counter()
        with _quiet():
            res = membership_inference_suite(
                est,
                Xi,
                yi,
                Xo,
                yo,
                attacks=attacks,
                X_pop=Xp,
                y_pop=yp,
                n_reference=n_reference,
                n_jobs=1,
                random_state=np.random.default_rng(attack_seed),
            )
            if art:  # same split as "black-box" (the first attack drawing from a fresh generator)
                from ...audit.art_adapter import art_membership_inference

                res["art-black-box"] = art_membership_inference(
                    est, Xi, yi, Xo, yo, random_state=np.random.default_rng(attack_seed)
                )
        attack_secs = time.perf_counter() - t
        for attack, r in res.items():
            for metric, fpr in MIA_METRICS:
                val = r.auc if fpr is None else r.tpr_at(fpr)
                rows.append(
                    dict(
                        row(dataset, learner, params, eps, delta, run, metric, val, secs),
                        attack=attack,
                        attack_seconds=attack_secs,
                    )
                )
            if keep_scores:
                base = row(dataset, learner, params, eps, delta, run, "score", 0.0, secs)
                rows += [
                    dict(base, value=float(s), attack=attack, record=int(i), member=bool(m))
                    for s, i, m in zip(r.scores, r.record_index, r.membership)
                ]
    return rows


def mia_cells(
    datasets=FIG6_DATASETS,
    runs=10,
    learners=MIA_DEFAULT_LEARNERS,
    epsilons=(1.0,),
    attacks=ATTACKS,
    n_reference=64,
    art="auto",
    keep_scores=True,
) -> list[Cell]:
    """One cell per (dataset, run, learner); ``art="auto"``: add ART's attack when it imports and
    "black-box" is the first attack drawing randomness (then both see the same split)."""
    _check_datasets(datasets)
    _check_learners(learners, MIA_LEARNERS)
    unknown = [a for a in attacks if a not in ATTACKS]
    if unknown:
        raise ValueError(f"unknown attacks {unknown}; choose from {ATTACKS}")
    if art == "auto":
        drawing = [a for a in attacks if a != "threshold"]
        art = bool(drawing) and drawing[0] == "black-box" and _art_available()
    offsets, i = {}, 0
    for lr in learners:
        offsets[lr] = i
        i += 1 if lr in NON_PRIVATE else len(epsilons)
    cost = {"BDPT": 2.5, "DPGDF": 2.0, "PrivaTree": 2.0}
    return [
        Cell(
            f"{d}-run{r}-{lr}",
            mia_cell,
            dict(
                dataset=d,
                run=r,
                learner=lr,
                epsilons=tuple(float(e) for e in epsilons),
                attacks=tuple(attacks),
                n_reference=int(n_reference),
                seed_index=offsets[lr],
                art=bool(art),
                keep_scores=bool(keep_scores),
            ),
            cost=cost.get(lr, 1.0) * (1 if lr in NON_PRIVATE else len(epsilons)),
        )
        for d in datasets
        for r in range(int(runs))
        for lr in learners
    ]


def split_mia(df: pd.DataFrame):
    """``(metrics, scores)`` from :func:`mia_cell` rows: metrics with ``attack``; scores as
    ``dataset, learner, epsilon, seed, attack, record, member, score`` (one row per record)."""
    is_score = df["metric"] == "score"
    metrics = df[~is_score].drop(columns=[c for c in ("record", "member") if c in df.columns]).reset_index(drop=True)
    s = df[is_score]
    scores = pd.DataFrame(
        dict(
            dataset=s["dataset"].to_numpy(),
            learner=s["learner"].to_numpy(),
            epsilon=s["epsilon"].to_numpy(),
            seed=s["seed"].to_numpy(),
            attack=s["attack"].to_numpy() if len(s) else [],
            record=s["record"].to_numpy(dtype=np.int64) if len(s) else [],
            member=s["member"].to_numpy(dtype=bool) if len(s) else [],
            score=s["value"].to_numpy(),
        )
    )
    return metrics, scores


def epsilon_table(scores: pd.DataFrame, alpha=0.05, fpr=0.01, seed=0) -> pd.DataFrame:
    """Empirical ε per (dataset, learner, ε claimed) from pooled per-record scores of all runs.

    ``eps_hat``: max over attacks of the plug-in ln(TPR/FPR) at FPR ``fpr`` (heuristic, no
    confidence). ``eps_lb``: Clopper–Pearson lower bound at confidence 1 − alpha; records
    (run, record) are split once at random into halves; the attack *and* threshold with the best
    bound on the first half are evaluated on the second half (so the choice does not bias it).
    Treats records as independent trials (see
    :meth:`dpmodels.audit.MembershipInferenceResult.epsilon_lower_bound`).
    """
    out = []
    for (ds, lr, eps), g in scores.groupby(["dataset", "learner", "epsilon"], sort=False):
        key = g["seed"].to_numpy().astype(np.int64) * 10_000_000 + g["record"].to_numpy().astype(np.int64)
        uniq = np.unique(key)
        half = np.random.default_rng(seed).random(len(uniq)) < 0.5
        in_sel = half[np.searchsorted(uniq, key)]
        best = (-1.0, None, None)
        eps_hat, hat_attack = 0.0, None
        for attack, ga in g.groupby("attack", sort=False):
            sel = in_sel[g.index.get_indexer(ga.index)]
            s, m = ga["score"].to_numpy(), ga["member"].to_numpy().astype(bool)
            e = evaluate_scores(s, m).epsilon_estimate(fpr)
            if e > eps_hat:
                eps_hat, hat_attack = e, attack
            if m[sel].all() or (~m[sel]).all():
                continue
            r = evaluate_scores(s[sel], m[sel])
            cand = epsilon_lower_bound(r.tp[1:], r.n_members, r.fp[1:], r.n_nonmembers, alpha=alpha)
            i = int(np.argmax(cand))
            if cand[i] > best[0]:
                best = (float(cand[i]), attack, r.thresholds[1:][i])
        lb, lb_attack = 0.0, best[1]
        if lb_attack is not None:
            ga = g[g["attack"] == lb_attack]
            est = ~in_sel[g.index.get_indexer(ga.index)]
            s, m = ga["score"].to_numpy()[est], ga["member"].to_numpy().astype(bool)[est]
            flag = s >= best[2]
            lb = float(
                epsilon_lower_bound(
                    int((flag & m).sum()), int(m.sum()), int((flag & ~m).sum()), int((~m).sum()), alpha=alpha
                )
            )
        out.append(
            dict(
                dataset=ds,
                learner=lr,
                epsilon_claimed=eps,
                eps_hat=eps_hat,
                eps_hat_attack=hat_attack,
                eps_lb=lb,
                eps_lb_attack=lb_attack,
                records=int(len(uniq)),
            )
        )
    return pd.DataFrame(out)


# ------------------------------------------------------------------------------------ summaries
def summarise(df: pd.DataFrame, by=("dataset", "learner", "epsilon", "metric")) -> pd.DataFrame:
    """Mean, standard error and count of ``value`` per group."""
    g = df.groupby(list(by), sort=False)["value"]
    s = g.agg(["mean", "std", "count"]).reset_index()
    s["sem"] = s["std"].fillna(0.0) / np.sqrt(s["count"])
    return s.drop(columns="std")


def _eps_label(e):
    return "∞" if not np.isfinite(e) else f"{e:g}"


def _runs(df) -> int:
    return int(df["seed"].nunique()) if len(df) else 0


def _excess(df: pd.DataFrame) -> pd.DataFrame:
    """Per run, V minus its permutation-null mean (rows with metric "V − null")."""
    keys = ["dataset", "learner", "epsilon", "seed"]
    v = df[df.metric == "vulnerability"].set_index(keys)["value"]
    n = df[df.metric == "vulnerability (null mean)"].set_index(keys)["value"]
    d = (v - n).dropna().rename("value").reset_index()
    d["metric"] = "V − null"
    return d


def _paper_eps(eps_values, target=10.0):
    """The ε of the grid the paper's Table II column is compared at: 10, else the largest."""
    finite = sorted(e for e in eps_values if np.isfinite(e))
    if not finite:
        return None
    return target if target in finite else finite[-1]


def table2_markdown(df: pd.DataFrame) -> str:
    """V, its permutation null, V − null and accuracy (mean ± s.e.) of GreedyRL and every mechanism
    at ε = 10 beside the paper's Table II; then V − null (or V) for every ε."""
    d = df[df.metric.isin(["vulnerability", "vulnerability (null mean)", "accuracy"])]
    s = summarise(pd.concat([d, _excess(df)], ignore_index=True))
    at = _paper_eps(s.epsilon.unique())
    has_null = (s.metric == "V − null").any()
    lines = [
        f"V and test accuracy at ε = {_eps_label(at) if at else '–'} (GreedyRL: no ε), mean ± s.e. over "
        f"{_runs(d)} runs:",
        "",
        "| dataset | learner | V (ours) | V null mean | V − null | V (paper) | accuracy (ours) | accuracy (paper) |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for (ds, lr, e), g in s.groupby(["dataset", "learner", "epsilon"], sort=False):
        if np.isfinite(e) and e != at:
            continue
        c = {m: f"{r['mean']:.4f} ± {r['sem']:.4f}" for m, r in zip(g.metric, g.to_dict("records"))}
        if "accuracy" in set(g.metric):
            r = g[g.metric == "accuracy"].iloc[0]
            c["accuracy"] = f"{r['mean']:.3f} ± {r['sem']:.3f}"
        pv = pub.P000_TABLE2_VULNERABILITY.get((ds, PAPER_NAMES.get(lr, "")))
        pa = pub.P000_TABLE2.get((ds, PAPER_NAMES.get(lr, "")))
        paper_v = f"{pv['printed']} (± {pv['pm']:.0e})" if pv else ""
        lines.append(
            f"| {ds} | {lr} | {c.get('vulnerability', '')} | {c.get('vulnerability (null mean)', '–')} | "
            f"{c.get('V − null', '–')} | {paper_v} | {c.get('accuracy', '')} | "
            f"{'' if pa is None else f'{pa:.3f}'} |"
        )
    metric = "V − null" if has_null else "vulnerability"
    w = s[s.metric == metric]
    learners = list(dict.fromkeys(w.learner))
    lines += [
        "",
        f"{'V − permutation null' if has_null else 'V'} (mean over runs) for every mechanism and ε:",
        "",
        "| dataset | ε | " + " | ".join(learners) + " |",
        "|---|---|" + "---|" * len(learners),
    ]
    greedy = {ds: g["mean"].iloc[0] for ds, g in w[w.learner == "GreedyRL"].groupby("dataset", sort=False)}
    for ds in dict.fromkeys(w.dataset):
        for e in sorted(x for x in w[w.dataset == ds].epsilon.unique() if np.isfinite(x)):
            vals = {r.learner: r.mean for r in w[(w.dataset == ds) & (w.epsilon == e)].itertuples()}
            vals["GreedyRL"] = greedy.get(ds, np.nan)
            lines.append(
                f"| {ds} | {_eps_label(e)} | "
                + " | ".join(
                    ""
                    if lr not in vals or np.isnan(vals[lr])
                    else f"{vals[lr]:+.4f}"
                    if has_null
                    else f"{vals[lr]:.4f}"
                    for lr in learners
                )
                + " |"
            )
    lines += [
        "",
        "Paper 000, Table II: 100 runs, vulnerability's ε not stated (its accuracy column is ε = 10); "
        "⁺/⁻: the untruncated value was above/below; the paper's ± is printed as given (it looks like a "
        "variance). The permutation null re-assigns membership at random on the same sets: the V of a "
        "model that learnt nothing about its training set (`dpmodels.audit.vulnerability`).",
    ]
    acc = df[df.metric == "accuracy"]
    if acc.epsilon.replace(np.inf, np.nan).nunique() > 1:  # the accuracy study at every ε of the grid
        from .protocol import markdown_table

        lines += ["", "Test accuracy of the same models at every ε (mean ± s.e. over runs):", "", markdown_table(acc)]
    return "\n".join(lines)


def _ik_table(df: pd.DataFrame, metrics, headers) -> list[str]:
    """The markdown rows of a Table III rendering: per (learner, ε), mean ± s.e. of each of
    ``metrics`` (column titles ``headers``), the important-feature count and the paper's value."""
    s = summarise(df[df.metric.isin([*metrics, "n important features"])])
    lines = [
        f"Mean ± s.e. over {_runs(df)} runs ({', '.join(dict.fromkeys(df.dataset))}, k = 7, K = 5):",
        "",
        f"| ε | learner | {' | '.join(headers)} | important features | paper |",
        "|---|---|" + "---|" * len(headers) + "---|---|",
    ]
    for (lr, e), g in s.groupby(["learner", "epsilon"], sort=False):
        c = {m: (r["mean"], r["sem"]) for m, r in zip(g.metric, g.to_dict("records"))}
        if not np.isfinite(e):
            lines.append(f"| – | {lr} (reference) | {'| ' * len(headers)}{c['n important features'][0]:.1f} | |")
            continue
        p = PAPER_TABLE_III.get((e, lr))
        cells = " | ".join(f"{c[m][0]:.3f} ± {c[m][1]:.3f}" for m in metrics)
        lines.append(
            f"| {_eps_label(e)} | {lr} | {cells} | {c['n important features'][0]:.1f} | "
            f"{'' if p is None else f'{p[0]} ± {p[1]}'} |"
        )
    return lines


def table3_markdown(df: pd.DataFrame) -> str:
    """I_k per (ε, learner) under the three variants, beside the paper's Table III."""
    lines = _ik_table(
        df, ("I_k", "I_k (rank ties)", "I_k (AUC scoring)"), ("I_k (ours)", "I_k, rank ties", "I_k, AUC scoring")
    )
    lines += [
        "",
        "Paper 000, Table III: Adult, 100 runs, sm-Laplace and gl-Laplace only. 'I_k': only features "
        "with positive importance enter a top-k set; 'rank ties': the literal rank rule (zero-importance "
        "ties by column order); 'AUC scoring': ROC AUC instead of accuracy as the permutation score "
        "(`dpmodels.audit.importance`).",
    ]
    return "\n".join(lines)


def _attack_order(attacks):
    known = list(ATTACKS) + ["art-black-box"]
    return sorted(dict.fromkeys(attacks), key=lambda a: (known.index(a) if a in known else len(known), a))


def mia_markdown(metrics: pd.DataFrame, eps: pd.DataFrame | None = None) -> str:
    """AUC / TPR at 1 % FPR (means over runs) per (dataset, learner, ε) × attack; with ``eps``
    (:func:`epsilon_table`) the empirical ε beside the claimed one."""
    s = summarise(metrics, by=("dataset", "learner", "epsilon", "attack", "metric"))
    wide = s.pivot_table(
        index=["dataset", "learner", "epsilon"], columns=["attack", "metric"], values="mean", sort=False
    )
    attacks = _attack_order(s.attack.unique())
    lines = [
        f"AUC / TPR at 1 % FPR (chance: .500 / .010), means over {_runs(metrics)} runs:",
        "",
        "| dataset | learner | ε | " + " | ".join(attacks) + " |",
        "|---|---|---|" + "---|" * len(attacks),
    ]
    for (d, lr, e), r in wide.iterrows():
        cells = [
            f"{r[(a, 'auc')]:.3f} / {r[(a, 'tpr@1%fpr')]:.3f}".replace("0.", ".") if (a, "auc") in r.index else ""
            for a in attacks
        ]
        lines.append(f"| {d} | {lr} | {_eps_label(e)} | " + " | ".join(cells) + " |")
    if eps is not None and len(eps):
        lines += ["", epsilon_markdown(eps)]
    return "\n".join(lines)


def epsilon_markdown(et: pd.DataFrame) -> str:
    """The :func:`epsilon_table` beside the claimed ε."""
    lines = [
        "| dataset | learner | ε claimed | ε̂ at 1 % FPR (plug-in, best attack) | ε lower bound (95 %, CP) | records |",
        "|---|---|---|---|---|---|",
    ]
    for r in et.itertuples():
        lines.append(
            f"| {r.dataset} | {r.learner} | {_eps_label(r.epsilon_claimed)} | "
            f"{r.eps_hat:.2f} ({r.eps_hat_attack}) | {r.eps_lb:.2f} ({r.eps_lb_attack}) | {r.records} |"
        )
    return "\n".join(lines)


# ------------------------------------------------------------------------------------ figures
def plot_table2(df: pd.DataFrame, path) -> Path:
    """V (mean ± s.e.) against ε per mechanism, GreedyRL as a line, one panel per dataset; with the
    permutation null, a second row shows V − null (paired per run). The paper's printed V is drawn
    on a row of its own: it uses joint shares P[r, y | M], another quantity than this library's V
    (conditional shares P[r | y, M]), so it never shares an axis with ours."""
    plt = pyplot()
    s = summarise(df[df.metric == "vulnerability"])
    ex = _excess(df)
    rows = [("V (ours: conditional shares)", s)] + ([("V − permutation null", summarise(ex))] if len(ex) else [])
    dsets = list(dict.fromkeys(s.dataset))
    paper = {d: {lr: v for (pd_, lr), v in PAPER_TABLE_II_VULNERABILITY.items() if pd_ == d} for d in dsets}
    n_rows = len(rows) + any(paper.values())
    fig, axes = plt.subplots(n_rows, len(dsets), figsize=(4.2 * len(dsets), 3.3 * n_rows), squeeze=False)
    for i, (ylabel, data) in enumerate(rows):
        for ax, d in zip(axes[i], dsets):
            sd = data[data.dataset == d]
            for lr, g in sd.groupby("learner", sort=False):
                if lr == "GreedyRL":
                    ax.axhspan(
                        g["mean"].iloc[0] - g["sem"].iloc[0],
                        g["mean"].iloc[0] + g["sem"].iloc[0],
                        color="k",
                        alpha=0.15,
                        lw=0,
                    )
                    ax.axhline(g["mean"].iloc[0], color="k", lw=1.2, label="GreedyRL (± s.e.)")
                    continue
                ax.errorbar(g.epsilon, g["mean"], yerr=g["sem"], marker="o", ms=3, lw=1, capsize=2, label=lr)
            if i == 0:
                ax.set_title(d, fontsize="small")
            else:
                ax.axhline(0.0, color="grey", lw=0.8)
            ax.set_xscale("log")
            ax.set_xlabel("ε")
            ax.set_ylabel(ylabel)
    if n_rows > len(rows):
        for ax, d in zip(axes[-1], dsets):
            pts = paper[d]
            if not pts:
                ax.set_axis_off()
                continue
            names = list(pts)
            ax.plot(range(len(names)), [pts[n] for n in names], "ks", ms=6)
            ax.set_xticks(range(len(names)))
            ax.set_xticklabels(names, fontsize="small")
            ax.set_xlim(-0.6, len(names) - 0.4)
            ax.set_ylabel("V (paper: joint shares)")
            ax.set_title(f"{d}: the paper's Table II at ε = 10 (another quantity)", fontsize="small")
    axes[0][-1].legend(fontsize="x-small", loc="best")
    fig.tight_layout()
    return save(fig, path)


def plot_table3(df: pd.DataFrame, path) -> Path:
    """I_k per mechanism at each ε (bars, ± s.e.), the paper's values as black marks."""
    plt = pyplot()
    s = summarise(df[df.metric == "I_k"])
    s = s[np.isfinite(s.epsilon)]
    eps = sorted(s.epsilon.unique())
    learners = list(dict.fromkeys(s.learner))
    fig, ax = plt.subplots(figsize=(0.6 * len(learners) * len(eps) + 2, 3.8))
    w = 0.8 / max(len(eps), 1)
    for j, e in enumerate(eps):
        se = s[s.epsilon == e].set_index("learner").reindex(learners)
        xs = np.arange(len(learners)) + j * w
        ax.bar(xs, se["mean"], w, yerr=se["sem"], label=f"ε = {e:g}", capsize=2)
        for i, lr in enumerate(learners):
            if (e, lr) in PAPER_TABLE_III:
                ax.plot(xs[i], PAPER_TABLE_III[(e, lr)][0], "k_", ms=14, mew=2)
    ax.set_xticks(np.arange(len(learners)) + 0.4 - w / 2)
    ax.set_xticklabels(learners, rotation=25, ha="right", fontsize="small")
    ax.set_ylabel("I_k (k = 7) vs GreedyRL")
    ax.set_ylim(0, 1.05)
    ax.legend(fontsize="small")
    ax.set_title(f"Feature-importance overlap on Adult, {_runs(df)} runs (black marks: paper)")
    fig.tight_layout()
    return save(fig, path)


def plot_fig6(scores: pd.DataFrame, path) -> Path:
    """Pooled log-log ROC per dataset × learner (rows × columns), one line per attack (paper Fig. 6)."""
    plt = pyplot()
    dsets = list(dict.fromkeys(scores.dataset))
    learners = list(dict.fromkeys(scores.learner))
    fig, axes = plt.subplots(len(dsets), len(learners), figsize=(3.6 * len(learners), 3.4 * len(dsets)), squeeze=False)
    for i, d in enumerate(dsets):
        for j, lr in enumerate(learners):
            ax = axes[i][j]
            g = scores[(scores.dataset == d) & (scores.learner == lr)]
            for attack in _attack_order(g.attack.unique()):
                ga = g[g.attack == attack]
                r = evaluate_scores(ga.score.to_numpy(), ga.member.to_numpy().astype(bool), attack)
                r.plot_roc(ax=ax, label=f"{attack} ({r.auc:.3f})", lw=1)
            eps = g.epsilon.iloc[0] if len(g) else np.inf
            ax.set_title(f"{d} — {lr}" + ("" if not np.isfinite(eps) else f" (ε = {eps:g})"), fontsize="small")
            ax.legend(fontsize="xx-small", loc="lower right")
    fig.tight_layout()
    return save(fig, path)


def plot_mia_tpr(metrics: pd.DataFrame, path, fpr=0.01) -> Path:
    """TPR at 1 % FPR of every attack (mean ± s.e. over runs) per learner, one panel per dataset,
    with chance (TPR = FPR) and, for DP learners, the ceiling e^ε·FPR + δ no attack can pass."""
    plt = pyplot()
    m = metrics[metrics.metric == "tpr@1%fpr"]
    s = summarise(m, by=("dataset", "learner", "epsilon", "attack", "metric"))
    dsets = list(dict.fromkeys(s.dataset))
    fig, axes = plt.subplots(1, len(dsets), figsize=(6.5 * len(dsets), 4.2), squeeze=False)
    attacks = _attack_order(s.attack.unique())
    for ax, d in zip(axes[0], dsets):
        sd = s[s.dataset == d]
        keys = list(dict.fromkeys(zip(sd.learner, sd.epsilon)))
        for k, a in enumerate(attacks):
            x = np.arange(len(keys)) + (k - (len(attacks) - 1) / 2) * 0.8 / len(attacks)
            g = sd[sd.attack == a].set_index(["learner", "epsilon"]).reindex(keys)
            ax.errorbar(x, g["mean"], yerr=g["sem"], fmt="o", ms=3, lw=0.8, capsize=1.5, label=a, color=f"C{k}")
        ax.axhline(fpr, color="grey", ls="--", lw=0.8, label="chance (TPR = FPR)")
        labelled = False
        for i, (lr, e) in enumerate(keys):
            if np.isfinite(e):
                delta = m[(m.dataset == d) & (m.learner == lr) & (m.epsilon == e)]["delta"].max()
                ceil = min(1.0, math.exp(e) * fpr + (0.0 if np.isnan(delta) else delta))
                ax.plot(
                    [i - 0.45, i + 0.45],
                    [ceil, ceil],
                    color="tab:red",
                    lw=1.5,
                    label=None if labelled else "DP ceiling e^ε·FPR + δ",
                )
                labelled = True
        ax.set_yscale("log")
        ax.set_xticks(np.arange(len(keys)))
        ax.set_xticklabels(
            [lr if not np.isfinite(e) else f"{lr}, ε = {e:g}" for lr, e in keys],
            rotation=30,
            ha="right",
            fontsize="small",
        )
        ax.set_ylabel(f"TPR at {fpr:.0%} FPR")
        ax.set_title(f"{d}: {_runs(m)} runs", fontsize="small")
    axes[0][-1].legend(fontsize="x-small", loc="upper left", bbox_to_anchor=(1.0, 1.0))
    fig.tight_layout()
    return save(fig, path)


# ------------------------------------------------------------------------------------ registry
def _sizes(size, quick, full):
    """Pick the quick or full value per key; ``size.runs`` / ``size.epsilons`` override."""
    p = dict(quick if size.quick else full)
    if size.runs is not None:
        p["runs"] = int(size.runs)
    if size.epsilons is not None:
        p["epsilons"] = tuple(float(e) for e in size.epsilons)
    if size.datasets is not None:
        p["datasets"] = tuple(size.datasets)
    return p


T2_FULL = dict(datasets=DATASETS, runs=100, epsilons=(0.1, 1.0, 10.0), n_permutations=20)
T2_QUICK = dict(datasets=DATASETS, runs=3, epsilons=(1.0, 10.0), n_permutations=5)
T3_FULL = dict(datasets=("adult",), runs=100, epsilons=(1.0, 10.0), n_repeats=5)
T3_QUICK = dict(datasets=("adult",), runs=2, epsilons=(1.0, 10.0), n_repeats=2)
MIA_FULL = dict(datasets=FIG6_DATASETS, runs=10, epsilons=(1.0,), n_reference=64)
MIA_QUICK = dict(datasets=FIG6_DATASETS, runs=1, epsilons=(1.0,), n_reference=16)


def _t2_cells(size, protocol="library"):
    return table2_cells(**_sizes(size, T2_QUICK, T2_FULL), protocol=protocol)


def _t3_cells(size, protocol="library"):
    return table3_cells(**_sizes(size, T3_QUICK, T3_FULL), protocol=protocol)


T3_PAPER_LEARNERS = ("sm-laplace (confidence)", "gl-laplace")  # the paper's two


def _t3_paper_cells(size):
    p = _sizes(size, T3_QUICK, T3_FULL)
    p.pop("n_repeats")
    return table3_cells(**p, learners=T3_PAPER_LEARNERS, n_repeats=AUTHORS_T3["n_repeats"], protocol="paper")


def table3_paper_markdown(df: pd.DataFrame) -> str:
    """I_k the authors' way (and under the two other tie rules) per (ε, learner), beside Table III."""
    lines = _ik_table(df, IK_PAPER_VARIANTS, ("I_k (authors' ties)", "I_k, rank ties", "I_k, positive only"))
    lines += [
        "",
        "The authors' procedure (their public Table III script): permutation importance (accuracy, 10 repeats, "
        "seed 42) of the 20 binarized Adult attribute columns on the whole file; top-k = the last k of the "
        "argsort, so zero-importance ties go to the later columns first; 'rank ties': ties by column order; "
        "'positive only': only features with positive importance (`dpmodels.audit.importance`). Data and rules: "
        "the authors' Adult file and mining (`dpmodels.data.paper_protocols`, 582 rules).",
    ]
    return "\n".join(lines)


def _mia_cells(size):
    return mia_cells(**_sizes(size, MIA_QUICK, MIA_FULL))


def _fig6_frame(df):
    _, scores = split_mia(df[df.learner.isin(FIG6_LEARNERS) & df.dataset.isin(FIG6_DATASETS)])
    return scores


def _fig6_plot(df, out_dir):
    return [plot_fig6(_fig6_frame(df), Path(out_dir) / "000-fig6.png")]


def _fig6_table(df):
    metrics, _ = split_mia(df[df.learner.isin(FIG6_LEARNERS)])
    return mia_markdown(metrics) + (
        "\n\nPaper 000, Fig. 6 prints no numbers: ROC curves of ART's black-box attack (random forest) on GreedyRL "
        "and sm-Laplace (ε not stated; here ε = 1), German and COMPAS, with the reading that rule lists, DP or not, "
        "resist membership inference and German shows slightly higher TPR at low FPR. `art-black-box` is that "
        "attack (when the `[attacks]` extra is installed); `black-box` is this library's version of it."
    )


def _mia_plot(df, out_dir):
    metrics, scores = split_mia(df)
    return [
        plot_mia_tpr(metrics, Path(out_dir) / "000-mia-tpr.png"),
        plot_fig6(scores, Path(out_dir) / "000-mia-roc.png"),
    ]


#: the pooled ε table's two numbers as rows of 000-mia's page (:func:`_mia_page_rows`)
EPS_METRICS = {"eps_hat": ("eps_hat", "eps_hat_attack"), "eps_lb": ("eps_lb", "eps_lb_attack")}


def _mia_page_rows(df: pd.DataFrame) -> pd.DataFrame:
    """What 000-mia's page commits instead of its 2.1 M per-record scores: the per-run metric rows
    (with their attack) and the pooled ε table (:func:`epsilon_table`) as rows of metric
    ``eps_hat`` / ``eps_lb``, the attack that gave it in ``attack`` and the number of pooled
    records in ``record``. :func:`_mia_table` reads either form."""
    metrics, scores = split_mia(df)
    et = epsilon_table(scores)
    rows = [
        dict(
            dataset=r["dataset"],
            learner=r["learner"],
            parameters="pooled over runs",
            epsilon=r["epsilon_claimed"],
            delta=0.0,
            seed=-1,
            metric=m,
            value=float(r[v]),
            fit_seconds=0.0,
            attack=r[a],
            record=int(r["records"]),
        )
        for r in et.to_dict("records")
        for m, (v, a) in EPS_METRICS.items()
    ]
    return pd.concat([metrics, pd.DataFrame(rows)], ignore_index=True)


def _pooled_epsilons(df: pd.DataFrame) -> pd.DataFrame:
    """:func:`epsilon_table` back from the rows :func:`_mia_page_rows` wrote."""
    out = []
    keys = ["dataset", "learner", "epsilon"]
    hat = df[df.metric == "eps_hat"].set_index(keys)
    lb = df[df.metric == "eps_lb"].set_index(keys)
    for key, h in hat.iterrows():
        b = lb.loc[key]
        out.append(
            dict(
                dataset=key[0],
                learner=key[1],
                epsilon_claimed=key[2],
                eps_hat=float(h["value"]),
                eps_hat_attack=h["attack"],
                eps_lb=float(b["value"]),
                eps_lb_attack=b["attack"],
                records=int(h["record"]),
            )
        )
    return pd.DataFrame(out)


def _mia_table(df):
    if (df["metric"] == "score").any():
        metrics, scores = split_mia(df)
        eps = epsilon_table(scores)
    else:  # the committed summary of a generated page
        metrics = df[~df.metric.isin(list(EPS_METRICS))].drop(columns=["record"], errors="ignore")
        eps = _pooled_epsilons(df)
    return mia_markdown(metrics, eps) + (
        "\n\nSecond table: per learner, over all runs pooled, the plug-in ln(TPR/FPR) at 1 % FPR of the best "
        "attack (a point estimate, no confidence) and a 95 % Clopper–Pearson lower bound on ε (attack and "
        "threshold chosen on a random half of the (run, record) pairs, the bound computed on the other half; "
        "records treated as independent trials). A certified audit of a DP claim: `dpmodels.audit.audit_estimator`."
    )


register(
    Experiment(
        "000-table2",
        paper="000",
        kind="table",
        title="Distributional-overfitting vulnerability V (Table II)",
        draws="V (train vs test) with its permutation null and test accuracy, GreedyRL and 8 DP rule-list mechanisms at "
        "ε 0.1 / 1 / 10, 100 runs, COMPAS / German / Adult; V and V − null against ε",
        cells=_t2_cells,
        plot=lambda df, out: [plot_table2(df, Path(out) / "000-table2.png")],
        table=table2_markdown,
        published=pub.P000_TABLE2_VULNERABILITY,
        full_cost="≈ 5 min, 300 cells, 296 CPU-s (1 worker, load 2–4)",
        quick_cost="≈ 5 s",
    )
)
register(
    Experiment(
        "000-table3",
        paper="000",
        kind="table",
        title="Feature-importance overlap I_k on Adult (Table III)",
        draws="top-7 permutation-importance overlap of 8 DP rule-list mechanisms with GreedyRL at ε 1 / 10, Adult, "
        "100 runs (accuracy and ROC-AUC scoring, two tie rules)",
        cells=_t3_cells,
        plot=lambda df, out: [plot_table3(df, Path(out) / "000-table3.png")],
        table=table3_markdown,
        published=pub.P000_TABLE3,
        full_cost="≈ 56 min, 100 cells, 2,052 CPU-s (1 worker, load 3–4)",
        quick_cost="≈ 25 s",
    )
)
register(
    Experiment(
        "000-fig6",
        paper="000",
        kind="figure",
        title="Membership-inference ROC curves of GreedyRL vs DP rule lists (Fig. 6)",
        draws="pooled log-log ROC of every attack (threshold, black-box, shadow, LiRA, RMIA; ART's if installed) on "
        "GreedyRL, sm-Laplace and permute-and-flip at ε = 1, German and COMPAS, 10 runs (cells of 000-mia)",
        source="000-mia",
        plot=_fig6_plot,
        table=_fig6_table,
        page_rows=lambda df: split_mia(df)[0],  # the metric rows (the ROC curves are in the figure)
        page_columns=("attack",),
        full_cost="the cost of 000-mia (shares its cells)",
        quick_cost="shares 000-mia's cells",
    )
)
register(
    Experiment(
        "000-mia",
        paper="000",
        kind="table",
        title="Membership inference on every learner, empirical ε beside the claimed ε (beyond the paper)",
        draws="AUC and TPR at 1 % FPR of every attack on GreedyRL, DP rule lists, PrivaTree, BDPT, DPGDF (ε = 1) and "
        "scikit-learn trees, German and COMPAS, 10 runs, 64 reference models; ε lower bounds from pooled scores",
        cells=_mia_cells,
        plot=_mia_plot,
        table=_mia_table,
        page_rows=_mia_page_rows,
        page_columns=("attack", "record"),
        full_cost="≈ 16 min, 160 cells, 645 CPU-s (1 worker, load 1–4); 2.1 M score rows",
        quick_cost="≈ 35 s",
    )
)


# ------------------------------------------------------------------- the paper's protocol (twins)
def _paper_note(markdown, df):
    return markdown(df) + (
        "\n\nProtocol 'paper' (dpmodels.data.paper_protocols): the authors' public COMPAS and Adult files and "
        "their rule mining (152 / 582 rules), German rebuilt from Sec. V-A (49 rules), one column per rule "
        "(candidates='columns'), and the paper's calibration of gl-Laplace / gl-Gaussian / noisy counts "
        "(calibration='paper')."
    )


register(
    Experiment(
        "000-table2-paper",
        paper="000",
        kind="table",
        title="Distributional-overfitting vulnerability V (Table II, paper protocol)",
        draws=_REGISTRY["000-table2"].draws + "; protocol='paper': the authors' COMPAS and Adult files and rules, "
        "German from Sec. V-A (dpmodels.data.paper_protocols), gl-* and noisy counts with calibration='paper'",
        cells=functools.partial(_t2_cells, protocol="paper"),
        plot=lambda df, out: [plot_table2(df, Path(out) / "000-table2-paper.png")],
        table=functools.partial(_paper_note, table2_markdown),
        published=pub.P000_TABLE2_VULNERABILITY,
        full_cost="279 CPU-s measured with sm-Cauchy at γ = 2 (300 cells; 34 min wall with 1 worker at load 10–13)",
        quick_cost="≈ 5 s",
    )
)
register(
    Experiment(
        "000-table3-paper",
        paper="000",
        kind="table",
        title="Feature-importance overlap I_k on Adult (Table III, paper protocol)",
        draws="top-7 permutation-importance overlap of sm-Laplace and gl-Laplace with GreedyRL at ε 1 / 10, Adult, "
        "100 runs, the authors' procedure: their Adult file and rules (dpmodels.data.paper_protocols), importances of "
        "the 20 attribute columns on the whole file (10 repeats, seed 42), argsort ties; gl-Laplace with "
        "calibration='paper'",
        cells=_t3_paper_cells,
        plot=lambda df, out: [plot_table3(df, Path(out) / "000-table3-paper.png")],
        table=table3_paper_markdown,
        published=pub.P000_TABLE3,
        full_cost="100 CPU-s measured (100 cells; 10 min wall at load 21)",
        quick_cost="≈ 30 s (30 CPU-s)",
    )
)
