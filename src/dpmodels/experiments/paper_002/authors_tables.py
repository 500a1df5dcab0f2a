"""Paper 002's accuracy tables (II, VI, VII) with the authors' own code, and the agreement test.

The authors' public repository holds the script that printed Tables II, VI and VII
(``performance_comparison.py``) and the estimators it ran. This module runs those estimators
through :mod:`.authors` (a checkout the user gives, never copied into dpmodels) on **our** data and
**our** folds — the same ``(X, y)`` and the same stratified splits as every other column of the
``002-table*`` ids — with the script's arguments:

* depth 4, ``max_bins=10``, the table's ε;
* ``feature_range``: each feature's min and max over the training fold, and
  ``categorical_features``: for each categorical feature its largest training code + 1 (both
  read from the data, as the script does; categories are the integer codes of our public lists);
* ``"PrivaTree (authors' code)"``: their ``PrivaTreeClassifier`` with its defaults (private
  quantiles); ``"PrivaTree* (authors' code)"``: the same with ``use_private_quantiles=False``,
  the script's "non-priv. quantiles" series, which the paper prints as PrivaTree*.

Which commit printed the tables: the paper's Algorithm 1 and Eq. (9)–(10) (quantiles at
(ε − ε_leaf)/(1 + d) per feature, noisy histograms of every feature at each node) are the code
of commits 563786e (2023-05) and 2aff7a0 (2023-10); from f2922ff (2023-12, "Fix privacy
leaks") the code bins on equal-width bins without private quantiles and charges the node
histograms differently, which is not what the paper describes. 563786e and 2aff7a0 differ only
in multiclass bookkeeping (identical on binary labels). The checkout's directory name is recorded
with every row (``implementation`` in the parameters).

The cells need diffprivlib (the authors' code imports it), so they run in the side environment
(``requires="diffprivlib"``), and only when a checkout is named by ``$DPMODELS_AUTHORS_PRIVATREE``
— in both environments, so that the main one reads their result files. None of these models is
a private release: ranges and category counts are read from the data, as in the authors' script.

**When does a column reproduce the paper's?** (fixed before the tables were compared). Row i has
our mean ± s.e. m_i ± s_i over the folds and the paper's p_i ± t_i (also a mean ± s.e. over 5
folds). Its deviation is z_i = (m_i − p_i) / max(√(s_i² + t_i²), 0.001) (the floor: three printed
decimals). With s.e. estimated from 5 folds z_i is roughly t-distributed with ≈ 4–8 degrees of
freedom, so |z_i| > 2 happens for ≈ 10 % of rows by chance even when both estimate the same
accuracy. A column of n rows **reproduces** when (1) the number of rows with |z_i| > 2 is at most
k(n), the largest count that 10 %-per-row chance reaches with probability ≥ 5 % (binomial upper
tail; k(21) = 5), (2) no row has |z_i| > 4, and (3) the mean difference d̄ = mean(m_i − p_i) is
within 2 s.e. of 0, s.e.(d̄) = √(Σ(s_i² + t_i²)) / n (no systematic bias).
"""

from __future__ import annotations

import contextlib
import importlib
import math
import os
import time
from pathlib import Path

import numpy as np

from ..registry import Cell, row
from . import authors

__all__ = [
    "AUTHORS_LEARNERS",
    "AUTHORS_PRIVATREE",
    "AUTHORS_PROTOCOL",
    "authors_checkout_given",
    "authors_accuracy_cell",
    "authors_cells",
    "agreement",
    "agreement_lines",
    "chance_rows",
]

# learner name -> the script's arguments beyond the common ones
AUTHORS_LEARNERS = {
    "PrivaTree (authors' code)": dict(use_private_quantiles=True),
    "PrivaTree* (authors' code)": dict(use_private_quantiles=False),
}
# their BDPT and DPGDF with the script's arguments (DPGDF on the categorical columns only)
AUTHORS_BASELINES = ("BDPT (authors' code)", "DPGDF (authors' code)")
# their BDPT maps test values to its groups of 5 training values through a threshold array made
# with np.empty and one slot too long when a feature's distinct training values are a multiple of
# 5: that last, never written slot (in practice 0.0) breaks the sorted search. This series is the
# same fitted tree, predicting with the written slots only (a bisection, not a column of the paper).
BDPT_FILLED = "BDPT (authors' code, written thresholds only)"
# one knob of ours swapped into their code (a bisection, not a column of the paper): their
# JointExp over the intervals between the sorted training values replaced by this library's
# JointExp on its public grid of GRID equal-width cells over the feature's range
GRID_QUANTILES = "PrivaTree (authors' code, our grid quantiles)"
KNOB_LEARNERS = (GRID_QUANTILES, BDPT_FILLED)
# the series of the 002-table2 / -table6 / -table7 cells
TABLE_LEARNERS = (*AUTHORS_LEARNERS, *AUTHORS_BASELINES, BDPT_FILLED)
AUTHORS_PRIVATREE = "PrivaTree (authors' code)"
# the paper's column each series is compared with
AUTHORS_PAPER_COLUMN = {
    "PrivaTree (authors' code)": "PrivaTree",
    "PrivaTree* (authors' code)": "PrivaTree*",
    "BDPT (authors' code)": "BDPT",
    "DPGDF (authors' code)": "DPGDF",
}
AUTHORS_PROTOCOL = (
    "authors' code and script: feature ranges and category counts read from the training fold (not a DP release)"
)
MAX_BINS = 10
Z_ROW = 2.0
Z_GROSS = 4.0
P_ROW = 0.10  # chance of |z| > 2 per row under "same accuracy" (t with 4-8 d.f.)
SE_FLOOR = 0.001


def authors_checkout_given() -> Path | None:
    """The checkout named by ``$DPMODELS_AUTHORS_PRIVATREE``, or None (not set, or not a checkout)."""
    if not os.environ.get(authors.AUTHORS_PRIVATREE_ENV):
        return None
    try:
        return authors.authors_checkout()
    except authors.AuthorsCodeUnavailable:
        return None


def _authors_fold_inputs(A, train, categorical):
    """The script's ``feature_range`` (train min, max per feature) and ``categorical_features``
    (train max code + 1 for categorical features, 0 otherwise)."""
    Xtr = A[train]
    feature_range = np.stack([Xtr.min(axis=0), Xtr.max(axis=0)], axis=1)
    cats = np.array(
        [int(Xtr[:, j].max()) + 1 if categorical[j] else 0 for j in range(A.shape[1])],
        dtype=int,
    )
    return feature_range, cats


def authors_accuracy_cell(dataset, group, repeat, fold, folds, epsilons, checkout, learners=None, depth=4):
    """Test accuracy of the authors' PrivaTree / PrivaTree* on one of our folds (module docstring).

    ``checkout``: the path of the authors' checkout (its directory name is recorded as
    ``implementation``). Rows: metric ``test_accuracy``, one per learner and ε."""
    from ..seeds import derive_seed
    from .data import _kfold, _ordinal, load_002

    module = authors.load_authors_privatree(checkout)
    label = Path(checkout).name
    X, y, meta = load_002(dataset, group)
    tr, te = _kfold(y, folds, repeat)[fold]
    A = _ordinal(X, meta)
    yy = np.asarray(y)
    categorical = np.array([c in meta["categories"] for c in X.columns])
    feature_range, cats = _authors_fold_inputs(A, tr, categorical)
    out = []
    names = tuple(learners or AUTHORS_LEARNERS)
    unknown = [n for n in names if n not in (*AUTHORS_LEARNERS, *AUTHORS_BASELINES, *KNOB_LEARNERS)]
    if unknown:
        raise ValueError(f"unknown learners {unknown}")
    for name in names:
        if name == "DPGDF (authors' code)" and not categorical.any():
            continue  # the script runs DPGDF on the categorical columns only ("–" without any)
        cols = categorical if name == "DPGDF (authors' code)" else np.ones(A.shape[1], dtype=bool)
        for eps in epsilons:
            seed = derive_seed(dataset, "BDPT (authors' code)" if name == BDPT_FILLED else name, eps, repeat, fold)
            est = _authors_estimator(checkout, module, name, depth, float(eps), feature_range, cats, seed)
            t = time.perf_counter()
            if name == GRID_QUANTILES:
                with _grid_quantiles(module):
                    est.fit(A[tr], yy[tr])
            else:
                est.fit(A[tr][:, cols], yy[tr])
            secs = time.perf_counter() - t
            if name == BDPT_FILLED:
                _written_thresholds_only(est)
            acc = float(np.mean(est.predict(A[te][:, cols]) == yy[te]))
            params = dict(
                depth=depth, group=group, fold=fold, folds=folds, bounds=AUTHORS_PROTOCOL, implementation=label
            )
            out.append(row(dataset, name, params, float(eps), 0.0, repeat * folds + fold, "test_accuracy", acc, secs))
    return out


def _authors_estimator(checkout, module, name, depth, eps, feature_range, cats, seed):
    """The authors' estimator of series ``name`` with their script's arguments."""
    rs = np.random.RandomState(seed)
    if name in ("BDPT (authors' code)", BDPT_FILLED):
        bdpt = _authors_module(checkout, "bdpt")
        return bdpt.BDPTClassifier(
            max_depth=depth, epsilon=eps, feature_range=feature_range, categorical_features=cats, random_state=rs
        )
    if name == "DPGDF (authors' code)":
        dpgdf = _authors_module(checkout, "dpgdf")
        # the script: categorical_features=True (category counts read from the data by their code)
        return dpgdf.DPGDTClassifier(
            max_depth=depth, epsilon=eps, feature_range=feature_range, categorical_features=True, random_state=rs
        )
    extra = AUTHORS_LEARNERS.get(name, AUTHORS_LEARNERS["PrivaTree (authors' code)"])
    return module.PrivaTreeClassifier(
        max_depth=depth,
        max_bins=MAX_BINS,
        epsilon=eps,
        feature_range=feature_range,
        categorical_features=cats,
        random_state=rs,
        **extra,
    )


def _written_thresholds_only(est):
    """Cut each numerical feature's test-time threshold array of a fitted authors' BDPT to the
    slots its fit wrote (their ``categorical_features_`` holds how many groups it made)."""
    for j, t in enumerate(est.num_feature_to_cat_):
        if t is not None:
            est.num_feature_to_cat_[j] = t[: int(est.categorical_features_[j])]


@contextlib.contextmanager
def _grid_quantiles(module):
    """While active, the authors' binner draws its quantiles with
    :func:`dpmodels.privacy.jointexp_quantiles` on the public grid PrivaTree uses
    (:data:`dpmodels.tree.privatree.grid.GRID` cells over the same range, the same ε)."""
    from ...privacy.quantiles import jointexp_quantiles
    from ...tree.privatree.grid import GRID

    def grid_quantiles(sorted_data, data_low, data_high, qs, eps, random_state, swap=True):
        rng = np.random.default_rng(int(random_state.randint(2**31 - 1)))
        if data_high <= data_low:
            return np.full(len(qs), float(data_low))
        return jointexp_quantiles(
            np.asarray(sorted_data, dtype=float), qs, eps, (data_low, data_high), rng, grid_size=GRID
        )

    original = module.private_quantiles
    module.private_quantiles = grid_quantiles
    try:
        yield
    finally:
        module.private_quantiles = original


def authors_cells(splits, epsilons, folds, checkout: Path, requires: str, learners=None) -> list:
    """One cell per (dataset, group, repeat, fold) of ``splits``, keyed ``…-authors-<directory>``
    (``learners``: a subset of :data:`AUTHORS_LEARNERS` and :data:`KNOB_LEARNERS`; default the former)."""
    label = checkout.name
    extra = {} if learners is None else dict(learners=tuple(learners))
    return [
        Cell(
            f"{d}-{g}-r{r}-f{k}-authors-{label}",
            authors_accuracy_cell,
            dict(
                dataset=d,
                group=g,
                repeat=r,
                fold=k,
                folds=folds,
                epsilons=tuple(epsilons),
                checkout=str(checkout),
                **extra,
            ),
            requires=requires,
        )
        for d, g, r, k in splits
    ]


def _binom_sf(k, n, p):
    """P(X > k) for X ~ Binomial(n, p)."""
    return float(sum(math.comb(n, j) * p**j * (1 - p) ** (n - j) for j in range(k + 1, n + 1)))


def chance_rows(n, p=P_ROW, level=0.05) -> int:
    """k(n): the largest number of rows beyond 2 combined s.e. that chance reaches with
    probability ≥ ``level`` (criterion (1) of the module docstring)."""
    k = 0
    while k < n and _binom_sf(k, n, p) > level:
        k += 1
    return k


def agreement(pairs):
    """The criterion of the module docstring on ``pairs`` = [(label, m, s, p, t), ...]: a dict with
    the rows' z, the count beyond 2, the gross rows, the mean difference ± s.e. and ``reproduces``."""
    if not pairs:
        return None
    z = []
    for label, m, s, p, t in pairs:
        z.append((label, (m - p) / max(math.hypot(s, t), SE_FLOOR)))
    n = len(pairs)
    diffs = np.array([m - p for _, m, _, p, _ in pairs])
    var = sum(s * s + t * t for _, _, s, _, t in pairs)
    se = max(math.sqrt(var) / n, SE_FLOOR / math.sqrt(n))
    beyond = [(lab, v) for lab, v in z if abs(v) > Z_ROW]
    gross = [(lab, v) for lab, v in z if abs(v) > Z_GROSS]
    k = chance_rows(n)
    mean = float(diffs.mean())
    ok = len(beyond) <= k and not gross and abs(mean) <= 2 * se
    return dict(
        n=n,
        z=z,
        beyond=beyond,
        gross=gross,
        allowed=k,
        mean_ours=float(np.mean([m for _, m, _, _, _ in pairs])),
        mean_paper=float(np.mean([p for _, _, _, p, _ in pairs])),
        mean_diff=mean,
        se_diff=se,
        within_02=int(np.sum(np.abs(diffs) <= 0.02 + 1e-9)),
        reproduces=ok,
    )


def agreement_lines(results: dict) -> list[str]:
    """Markdown lines, one per series: ``results`` = {series name: :func:`agreement` dict}."""
    lines = [
        "| series (paper's column) | rows | mean ours / paper | mean diff ± s.e. | within .02 | "
        "beyond 2 s.e. (allowed) | beyond 4 s.e. | reproduces |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for name, a in results.items():
        if a is None:
            continue
        far = ", ".join(f"{lab} {v:+.1f}" for lab, v in sorted(a["beyond"], key=lambda t: -abs(t[1])))
        lines.append(
            f"| {name} | {a['n']} | {a['mean_ours']:.3f} / {a['mean_paper']:.3f} | "
            f"{a['mean_diff']:+.3f} ± {a['se_diff']:.3f} | {a['within_02']}/{a['n']} | "
            f"{len(a['beyond'])} ({a['allowed']}){': ' + far if far else ''} | "
            f"{len(a['gross'])} | {'yes' if a['reproduces'] else 'no'} |"
        )
    return lines


def _authors_module(checkout, name):
    """``privatree.<name>`` of the loaded checkout (``bdpt``, ``dpgdf``)."""
    authors.load_authors_privatree(checkout)
    return importlib.import_module(f"privatree.{name}")
