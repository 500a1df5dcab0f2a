"""Probabilistic dataset reconstruction from a tree or a rule list: the Dist_G leak (paper 003).

A released tree or rule list tells an adversary, for every training record, which decision path
(leaf or rule) it followed, up to how many records each path holds (the model's counts). The set
of training sets compatible with that knowledge is a *generalized probabilistic dataset*
(Definition 3). Under the paper's assumptions — rows independent, and the possible values of a row
equally likely (Section IV-A) — its joint entropy is Σ_j C_j log2 Capt_j, where C_j is the number
of records on path j and Capt_j the number of possible records that path captures (Eq. 10, 11,
16). Normalised by the entropy of an uninformed reconstruction, n Σ_k log2 |V_k| (Eq. 4):

    Dist_G = Σ_j C_j log2 Capt_j / (n Σ_k log2 |V_k|)                    (Definition 4)

1 means the model teaches nothing about its training rows, 0 that it pins every row down; the
"entropy reduction ratio" plotted in the paper's figures is Dist_G itself. For binary data the
denominator is n·d. Each record's own ratio, log2 Capt_j / Σ_k log2 |V_k| for its path j, is its
per-record leak (Fig. 4); Dist_G is their mean.

Where the C_j come from (``counts=``):

* ``"data"``: route the training records X through the model and count them. This is the paper's
  setting (non-private models display exact counts, so the two coincide).
* ``"model"``: the counts stored in the released model — per-class counts clipped at 0 and
  summed. A differentially private model releases *noisy* counts; the adversary sees only those,
  so Dist_G of a released DP model is computed from them (n = their sum), never from the training
  data. See ``docs/reconstruction.md`` for what Dist_G then means (paper 003, Appendix C).

Default: ``"model"`` when the model's counts are noisy (a DP rule list, or a DP estimator), or
when X is not given; ``"data"`` otherwise. With ``counts="model"`` and X given, X is only routed to
produce the per-record view (whose mean then differs from Dist_G by the noise).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._optional import require
from ._model_paths import model_paths
from ._references import as_model
from ._summary import Summary, num
from .regression import regression_tree_paths

__all__ = ["ReconstructionResult", "reconstruction_leak", "plot_per_record_cdf"]

_COUNTS = ("data", "model")


@dataclass(frozen=True, eq=False)
class ReconstructionResult:
    """Dist_G of a model and its parts (see :func:`reconstruction_leak`).

    Attributes
    ----------
    dist_g : float
        Definition 4 under rows-independent / uniform-worlds assumptions; NaN when the weights
        sum to 0 (every noisy count clipped to 0).
    paths : pandas.DataFrame
        One row per path: ``path_id`` (leaf node id, or rule index with ``len(rules)`` the
        default rule, as ``apply`` returns), ``path`` (its conditions with exact thresholds, or ``"default"``),
        ``rule`` (the same as rule text for reading: ``leaf 15: IF priors_count <= 10 AND …``, one
        condition per feature, or ``rule 2: IF …``),
        ``support`` (C_j used, a float for noisy counts), one ``support_<class>`` column per class
        when per-class counts are known, ``log2_capt`` (log2 Capt_j; ``-inf`` for a path no
        possible record reaches) and ``ratio`` (log2 Capt_j / Σ_k log2 |V_k|).
    per_record : numpy.ndarray or None
        The ratio of each training record's path, in the order of X when X was given; without X,
        from exact (non-noisy) model counts, repeated per path in path order; None for noisy
        counts without X.
    n : float
        Σ_j C_j (the number of training records, or the noisy total).
    log2_domain : float
        Σ_k log2 |V_k|, the entropy of one uninformed row (d for d binary attributes).
    counts : str
        ``"data"`` or ``"model"``: where the C_j came from.
    counts_are_noisy : bool
        Whether the model's stored counts are noisy (a DP release).
    infeasible_weight : float
        Noisy weight released on paths that no possible record reaches (Capt_j = 0); an adversary
        knows it is pure noise, so it is left out of Dist_G and of n.
    dist : float or None
        Trees only: Gambs et al.'s Dist (Definition 2), the mean over records and attributes of
        log2 |V_k ∩ R_jk| / log2 |V_k| (attributes with a single-value domain left out). None for
        rule lists, whose reconstruction is not a product of per-attribute domains (Section III-A).
    kind : str
        ``"tree"`` or ``"rule_list"``.
    """

    dist_g: float
    paths: pd.DataFrame
    per_record: np.ndarray | None
    n: float
    log2_domain: float
    counts: str
    counts_are_noisy: bool
    infeasible_weight: float
    dist: float | None
    kind: str
    record_paths: np.ndarray | None = None  # path_id of each record of X (None without X)

    def exposure(self, k: int = 5) -> dict:
        """The per-record exposure distribution: quantiles of the per-record ratio (lower = more
        exposed: the record's path leaves fewer possible values for it) and the ``k`` most and
        least exposed records (their positions in X, ratio and path rule). Empty dict when the
        result has no per-record view (noisy counts without X)."""
        if self.per_record is None or len(self.per_record) == 0:
            return {}
        r = np.asarray(self.per_record, dtype=float)
        order = np.argsort(r, kind="stable")
        q = np.quantile(r, [0.0, 0.05, 0.5, 0.95, 1.0])
        text = self.paths["rule"] if "rule" in self.paths else self.paths["path"]
        rule_of = dict(zip(self.paths["path_id"].tolist(), text))

        def rec(i):
            pid = None if self.record_paths is None else int(self.record_paths[i])
            return {"record": int(i), "ratio": float(r[i]), "path": str(rule_of.get(pid, ""))}

        return {
            "min": float(q[0]),
            "p05": float(q[1]),
            "median": float(q[2]),
            "p95": float(q[3]),
            "max": float(q[4]),
            "most_exposed": [rec(i) for i in order[:k]],
            "least_exposed": [rec(i) for i in order[::-1][:k]],
        }

    def summary(self) -> Summary:
        """Dist_G and the per-record spread as a dict (``dist_g``, ``n``, ``counts``, ``min`` …
        ``max`` of the per-record ratio) whose ``str()`` is a sentence: "Dist_G 0.892 (1 = …);
        per-record ratio 0.796 (most exposed) to 0.925 (least exposed), median 0.894"."""
        ex = self.exposure(0)
        numbers = {
            "dist_g": None if np.isnan(self.dist_g) else float(self.dist_g),
            "n": self.n,
            "counts": self.counts,
            "counts_are_noisy": self.counts_are_noisy,
            **{k: ex[k] for k in ("min", "p05", "median", "p95", "max") if k in ex},
        }
        src = (
            "the model's noisy counts"
            if self.counts == "model" and self.counts_are_noisy
            else ("the model's counts" if self.counts == "model" else "the training records")
        )
        text = (
            f"Dist_G {num(self.dist_g)} (1 = the model tells nothing about a training row beyond "
            f"its public domain, 0 = it pins every row down; C_j from {src})"
        )
        if ex:
            text += (
                f"; per-record ratio {num(ex['min'])} (most exposed) to {num(ex['max'])} "
                f"(least exposed), median {num(ex['median'])}"
            )
        return Summary(numbers, text)

    def __str__(self) -> str:
        return str(self.summary())

    def __repr__(self) -> str:
        noisy = ", noisy" if self.counts_are_noisy else ""
        return (
            f"ReconstructionResult(dist_g={self.dist_g:.4f}, {self.kind}, {len(self.paths)} paths, "
            f"n={self.n:g}, counts={self.counts!r}{noisy})"
        )


def reconstruction_leak(model, X=None, y=None, *, domains=None, counts=None) -> ReconstructionResult:
    """Dist_G (paper 003, Definition 4) of a tree or a rule list, per path and per record.

    Parameters
    ----------
    model : :class:`~dpmodels.rulelist.model.RuleList`, :class:`~dpmodels.tree.Tree`, a fitted
        estimator with ``rule_list_`` (GreedyRuleListClassifier, DPRuleListClassifier) or a dpmodels
        ``tree_`` (PrivaTreeClassifier, BDPTClassifier, DPGDFClassifier, PrivaTreeRegressor: its
        leaves' record counts, :mod:`dpmodels.audit.regression`), a fitted scikit-learn
        ``DecisionTreeClassifier``, or a saved model file (its path or a
        :class:`~dpmodels.io.LoadedModel`: X is then the raw frame, routed through the file's
        preprocessing; a rule list's domains stay its 0/1 columns).
    X : array-like or DataFrame, optional
        The training records, routed through the model for ``counts="data"`` and for the
        per-record view. Never used to infer domains.
    y : array-like, optional
        Training labels (with X): per-class supports in the path table (a regression tree's
        labels are ignored). Labels are not part of Dist_G (its attributes are the d features).
    domains : None, ``"binary"`` or mapping feature name -> values
        Public domains V_k. Rule lists: 0/1 columns (the default; a mapping may only restate
        {0, 1}). Trees: categorical features use their declared category list
        (``Tree.categories``; the "unknown category" bucket is not part of the domain); every
        numerical feature needs a finite domain here, e.g. ``{"age": range(17, 91)}`` or a grid;
        ``"binary"`` gives every numerical feature {0, 1} (a tree on 0/1 data: a threshold such
        as 0.5 splits {0} from {1}). Features the model never tests still count: each adds
        log2 |V_k| to every path and to the denominator.
    counts : None, ``"data"`` or ``"model"``
        Source of the C_j (module docstring). ``None``: ``"model"`` if X is None or the model
        released noisy counts, else ``"data"`` (also for a DP model that released no counts). A
        bare :class:`~dpmodels.tree.Tree` does not say whether its counts are noisy: pass the
        estimator (or ``counts="model"``) for a DP tree.

    Returns
    -------
    ReconstructionResult

    Raises
    ------
    ValueError
        A numerical tree feature without a domain; ``counts="data"`` without X; training records
        (or exact model counts) on a path that no value of the declared domains reaches (the
        domains do not cover the data); ``counts="model"`` on a model that released no counts.
    TypeError
        Any other kind of model.

    Cost: trees O(nodes · depth) (the path descriptions); rule lists: exact model counting
    (``_model_count``), e.g. < 1 ms for 30 width-2 rules over 100 attributes; plus routing X once.
    """
    if counts is not None and counts not in _COUNTS:
        raise ValueError(f"counts must be None, 'data' or 'model'; got {counts!r}")
    if counts == "data" and X is None:
        raise ValueError("counts='data' needs the training records X")
    if y is not None and X is None:
        raise ValueError("y was given without X")
    model = as_model(model)
    paths = regression_tree_paths(model, domains)  # None unless a regression tree
    if paths is None:
        paths = model_paths(model, domains)
    if not paths.classes:  # a regression tree: its labels are numbers, not classes to count
        y = None
    if counts is None:
        released = paths.class_counts is not None and not np.isnan(paths.class_counts).any()
        counts = "model" if X is None or (paths.counts_are_noisy and released) else "data"

    rows = None
    if X is not None:
        rows = paths.rows_of(paths.route(X))
        if y is not None and len(np.asarray(y)) != rows.size:
            raise ValueError(f"X has {rows.size} rows but y has {len(np.asarray(y))}")
    if counts == "data":
        assert rows is not None  # counts="data" needs X (checked above)
        support, class_support = _data_support(paths, rows, y)
    else:
        support, class_support = _model_support(paths)
    support, infeasible_weight = _feasible_support(paths, support, counts, rows)

    ratio = paths.log2_capt / paths.log2_domain
    used = support > 0
    n = float(support.sum())
    weighted = float(np.dot(support[used], ratio[used]))
    dist_g = weighted / n if n > 0 else float("nan")
    dist = None
    if paths.cell_ratio is not None:  # Definition 2, trees only
        cells = float(np.dot(support[used], paths.cell_ratio[used]))
        dist = cells / (n * paths.n_cells) if n > 0 else float("nan")

    table = {"path_id": paths.ids, "path": paths.descriptions}
    if paths.rules is not None:
        table["rule"] = paths.rules
    table["support"] = support
    if class_support is not None and paths.classes:
        for c, col in zip(paths.classes, class_support.T):
            table[f"support_{c}"] = col
    table["log2_capt"] = paths.log2_capt
    table["ratio"] = ratio
    return ReconstructionResult(
        dist_g=dist_g,
        paths=pd.DataFrame(table),
        per_record=_per_record(paths, rows, support, ratio),
        n=n,
        log2_domain=paths.log2_domain,
        counts=counts,
        counts_are_noisy=paths.counts_are_noisy,
        infeasible_weight=infeasible_weight,
        dist=dist,
        kind=paths.kind,
        record_paths=None if rows is None else paths.ids[rows],
    )


def _per_record(paths, rows, support, ratio) -> np.ndarray | None:
    """Each training record's ratio: of X's rows when given, else from exact counts (repeated per
    path in path order); None for noisy counts without X. Read-only."""
    if rows is not None:
        per_record = ratio[rows]
    elif not paths.counts_are_noisy and np.array_equal(support, np.round(support)):
        per_record = np.repeat(ratio, support.astype(np.int64))
    else:
        return None
    per_record.setflags(write=False)
    return per_record


def _data_support(paths, rows: np.ndarray, y):
    """C_j (and per class, with y) from the training records routed to their paths."""
    n_paths = paths.ids.size
    support = np.bincount(rows, minlength=n_paths).astype(np.int64)
    if y is None:
        return support, None
    yv = np.asarray(y)
    per_class = [np.bincount(rows[yv == c], minlength=n_paths) for c in paths.classes]
    return support, np.column_stack(per_class).astype(np.int64)


def _feasible_support(paths, support, counts: str, rows):
    """The supports without the noisy weight on paths no possible record reaches (and that
    weight); exact counts or records on such a path mean the domains miss the data: ValueError."""
    feasible = np.isfinite(paths.log2_capt)
    infeasible = (support > 0) & ~feasible
    infeasible_weight = 0.0
    if infeasible.any():
        if counts == "model" and paths.counts_are_noisy:
            infeasible_weight = float(support[infeasible].sum())
            support = np.where(infeasible, 0, support)
        else:
            j = int(np.flatnonzero(infeasible)[0])
            raise ValueError(
                f"{support[j]:g} training records are on path {paths.descriptions[j]!r}, which no value "
                "of the declared domains reaches: the domains do not cover the data"
            )
    if rows is not None and not feasible[rows].all():
        j = int(rows[~feasible[rows]][0])
        raise ValueError(
            f"X has records on path {paths.descriptions[j]!r}, which no value of the declared domains "
            "reaches: the domains do not cover X"
        )
    return support, infeasible_weight


def _model_support(paths):
    """C_j from the counts stored in the model: per class clipped at 0, summed (a DP release's
    post-processing, as ``predict_proba`` does); the model's record count where it keeps one."""
    cc = paths.class_counts
    if cc is None or np.isnan(cc).any():
        raise ValueError("the model released no counts for some paths: pass the training records X with counts='data'")
    cc = np.clip(cc, 0.0, None)
    if paths.support is not None:
        return paths.support.astype(np.int64), cc
    if not paths.counts_are_noisy and np.array_equal(cc, np.round(cc)):
        cc = cc.astype(np.int64)
    return cc.sum(axis=1), cc


def plot_per_record_cdf(result: ReconstructionResult, ax=None, **plot_kw):
    """Proportion of training records whose ratio is at most x (paper 003, Fig. 4).

    Uses ``result.per_record`` when present, else the path table weighted by the supports (a
    noisy release without X). Needs matplotlib (``pip install dpmodels[plots]``). Returns the axes.
    """
    require("matplotlib", "plot_per_record_cdf")
    import matplotlib.pyplot as plt

    if result.per_record is not None:
        x = np.sort(np.asarray(result.per_record, dtype=float))
        w = np.ones_like(x)
    else:
        t = result.paths[result.paths["support"] > 0].sort_values("ratio")
        x, w = t["ratio"].to_numpy(float), t["support"].to_numpy(float)
    if ax is None:
        _, ax = plt.subplots()
    if x.size:
        p = np.cumsum(w) / w.sum()
        ax.step(np.r_[x[0], x], np.r_[0.0, p], where="post", **plot_kw)
    ax.set_xlabel("entropy reduction ratio (log2 Capt / Σ log2 |V_k|)")
    ax.set_ylabel("proportion of training records")
    ax.set_ylim(0, 1.02)
    return ax
