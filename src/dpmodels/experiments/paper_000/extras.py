"""Paper 000's two results without a figure: §V-D's sweep of K and App. C's label-only attack.

``000-k-sweep`` (§V-D, "Hyperparameters and Fine-Tuning")
    The paper fixes the rule list's length at K = 5 and says, without a figure, that "a value of
    K = 5 was on average the best performing for all models", that "for K = 7 this value was most
    of the time not reached as the minimum support condition was not achieved anymore", that the
    global-sensitivity models "were also terminated before reaching this depth", and that the
    smooth mechanisms beat the global ones "for any value of K". One cell = one (dataset, run):
    the paper protocol's fits (:func:`.accuracy.accuracy_cell` with ``protocol="paper"``) for every
    K in the grid, each a list of at most K − 1 rules plus the default rule (the paper's K; its
    budget per node is ε / (3K − 1)). Metrics ``test_accuracy`` and ``n_rules``; "K reached" means
    ``n_rules == K − 1``.

``000-label-only`` (App. C)
    The paper tried ART's label-only membership-inference attack (Choquette-Choo et al., 2021) and
    reports its results as "sub-par" because the rule lists read binary features, so the attack's
    exploration of the input space is confined to {0, 1}^m. ART is an optional extra, and its
    decision-boundary attack (HopSkipJump on continuous inputs) has no meaning on 0/1 inputs, so
    this id runs the same paper's other label-only attack, the noise-robustness one, on the binary
    space the paper describes: a record's score is 0 when the model misclassifies it and otherwise
    the share of ``n_flips`` perturbed copies (1 or 2 random attribute bits flipped; the rule
    columns are rebuilt from the attributes, :func:`dpmodels.data.paper_protocols.rules_from_columns`)
    that keep the true label. Members (the 70 % training split) should score higher than
    non-members (the 30 % test split) when the model overfits. Reported: AUC and TPR at 1 % FPR
    (:func:`dpmodels.audit.evaluate_scores`), per (dataset, learner, ε). One cell = one (dataset,
    run).

Both use the paper protocol (:mod:`dpmodels.data.paper_protocols`: the authors' COMPAS and Adult
files and rules, German rebuilt from Sec. V-A) and the paper's calibration of the baselines.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from ...audit import evaluate_scores
from ..registry import Cell, Experiment, register, row
from .accuracy import DATASETS, FIG4_LEARNERS, _datasets, accuracy_cell
from .attacks import _capture_on_columns, _dp_rule_list, _fit_timed, _greedy, _split
from .protocol import PAPER_LAMBDA

__all__ = ["K_GRID", "k_sweep_cell", "k_sweep_markdown", "label_only_cell", "label_only_markdown", "label_only_scores"]

K_GRID = (2, 3, 4, 5, 6, 7)
K_EPSILONS = (0.1, 1.0, 10.0)
SMOOTH = ("sm-Laplace", "sm-Cauchy")
GLOBAL = ("gl-Laplace", "gl-Gaussian", "gl-Exponential")


# ------------------------------------------------------------------------------ §V-D: K
def k_sweep_cell(dataset, run, ks, epsilons, learners):
    """:func:`.accuracy.accuracy_cell` under the paper protocol for each K of ``ks``; its rows, the
    fits' K in their ``parameters`` (``max_rules``)."""
    rows = []
    for k in ks:
        rows += accuracy_cell(dataset, run, epsilons, learners, "test", protocol="paper", max_rules=int(k))
    return rows


def _k_of(params: str) -> int:
    import json

    return int(json.loads(params)["max_rules"])


def k_sweep_markdown(df: pd.DataFrame) -> str:
    """Mean test accuracy per (dataset, learner, K) at each ε, the share of lists reaching K, and
    the §V-D statements measured."""
    d = df.copy()
    d["K"] = d.parameters.map(_k_of)
    acc = d[d.metric == "test_accuracy"]
    nr = d[d.metric == "n_rules"].copy()
    nr["reached"] = (nr.value == nr.K - 1).astype(float)
    runs = acc.seed.nunique()
    ks = sorted(acc.K.unique())
    lines = [f"Test accuracy (mean over {runs} runs) by K, the list's length including the default rule:", ""]
    lines.append("| dataset | learner | ε | " + " | ".join(f"K = {k}" for k in ks) + " | best K |")
    lines.append("|---|---|---|" + "---|" * (len(ks) + 1))
    best: dict = {}
    near5: dict = {}
    for (ds, lr, e), g in acc.groupby(["dataset", "learner", "epsilon"], sort=False):
        m = g.groupby("K").value.mean()
        se = g.groupby("K").value.sem()
        bk = int(m.idxmax())
        best[(ds, lr, e)] = bk
        if 5 in m.index:  # K = 5 as good as the best within 2 s.e. of the two means
            near5[(ds, lr, e)] = bool(m[bk] - m[5] <= 2 * np.hypot(se.get(bk, 0.0), se.get(5, 0.0)))
        cells = " | ".join(f"{m[k]:.3f} ± {se[k]:.3f}" if k in m.index else "" for k in ks)
        lines.append(f"| {ds} | {lr} | {'–' if not np.isfinite(e) else f'{e:g}'} | {cells} | {bk} |")
    lines += ["", "Share of lists that reach K (K − 1 rules before the default):", ""]
    lines.append("| dataset | learner | ε | " + " | ".join(f"K = {k}" for k in ks) + " |")
    lines.append("|---|---|---|" + "---|" * len(ks))
    for (ds, lr, e), g in nr.groupby(["dataset", "learner", "epsilon"], sort=False):
        m = g.groupby("K").reached.mean()
        cells = " | ".join(f"{m[k]:.2f}" if k in m.index else "" for k in ks)
        lines.append(f"| {ds} | {lr} | {'–' if not np.isfinite(e) else f'{e:g}'} | {cells} |")
    # the statements
    dp = [key for key in best if key[1] != "GreedyRL"]
    n5 = sum(best[key] == 5 for key in dp)
    k7 = nr[nr.K == 7]
    r7 = k7.groupby(["learner"]).reached.mean()
    # two readings of "our smooth sensitivity method beats the global ones": the two smooth
    # mechanisms' runs pooled, and the better of the two; each against the best global mechanism
    sm = acc[acc.learner.isin(SMOOTH)].groupby(["dataset", "epsilon", "K"]).value.mean()
    smb = acc[acc.learner.isin(SMOOTH)].groupby(["dataset", "epsilon", "K", "learner"]).value.mean()
    smmax = smb.groupby(level=[0, 1, 2]).max()
    gl = acc[acc.learner.isin(GLOBAL)].groupby(["dataset", "epsilon", "K", "learner"]).value.mean()
    glmax = gl.groupby(level=[0, 1, 2]).max()
    both = pd.concat([sm.rename("smooth"), smmax.rename("best smooth"), glmax.rename("global")], axis=1).dropna()
    wins = int((both.smooth >= both["global"]).sum())
    wins_best = int((both["best smooth"] >= both["global"]).sum())
    lines += [
        "",
        "§V-D's statements, measured:",
        f"* best K = 5: {n5} of {len(dp)} (dataset, DP learner, ε) settings have their highest mean accuracy at K = 5; "
        f"in {sum(near5.get(key, False) for key in dp)} K = 5 is within 2 s.e. of the best K.",
        "* K = 7 reached: " + ", ".join(f"{lr} {v:.2f}" for lr, v in r7.items()) + " (share of lists).",
        f"* smooth ≥ global for every K: the smooth mechanisms' pooled mean is ≥ the best global one's in {wins} of "
        f"{len(both)} (dataset, ε, K) settings; the better smooth mechanism's mean in {wins_best}.",
    ]
    return "\n".join(lines)


def _k_cells(size):
    runs = size.runs_or(2, 100)
    eps = tuple(float(e) for e in size.epsilons_or((1.0,), K_EPSILONS))
    ks = size.pick((3, 5, 7), K_GRID)
    return [
        Cell(
            f"{ds}-run{r}",
            k_sweep_cell,
            dict(dataset=ds, run=r, ks=tuple(int(k) for k in ks), epsilons=eps, learners=FIG4_LEARNERS),
        )
        for ds in _datasets(size, DATASETS)
        for r in range(runs)
    ]


register(
    Experiment(
        "000-k-sweep",
        paper="000",
        kind="table",
        title="Sweep of the rule list's length K (Sec. V-D, no figure in the paper)",
        draws="test accuracy and the share of lists reaching K, K = 2…7, ε 0.1 / 1 / 10, 6 mechanisms + GreedyRL, "
        "100 runs, German / COMPAS / Adult, paper protocol",
        cells=_k_cells,
        table=k_sweep_markdown,
        full_cost="262 CPU-s measured with sm-Cauchy at γ = 2 (300 cells; 31 min wall with 1 worker at load 10–13)",
        quick_cost="≈ 10 s",
        notes="Sec. V-D: 'K = 5 was on average the best performing for all models'; 'for K = 7 this value was "
        "most of the time not reached'.",
    )
)


# ------------------------------------------------------------------------------ App. C: label-only
LABEL_ONLY_LEARNERS = ("GreedyRL", "sm-laplace (confidence)", "gl-laplace", "permute-and-flip")


def label_only_scores(rule_list, literals, B, y, n_flips=32, rng=None) -> np.ndarray:
    """Noise-robustness label-only scores (module docstring) of the rows of the attribute frame
    ``B`` for a rule list over rule columns: 0 where the list misclassifies the row, else the share
    of ``n_flips`` copies with 1 bit flipped and ``n_flips`` with 2 bits flipped (random attribute
    columns, per copy) that keep the true label. ``rng``: a numpy Generator."""
    rng = np.random.default_rng(rng)
    names = [str(c) for c in B.columns]
    col = {c: i for i, c in enumerate(names)}
    X = B.to_numpy().astype(bool)
    y = np.asarray(y)
    classes = np.asarray(rule_list.classes)
    preds = np.array([r.prediction for r in (*rule_list.rules, rule_list.default)], dtype=np.int64)

    def label(M):
        return classes[preds[_capture_on_columns(rule_list, literals, M, col)]]

    correct = label(X) == y
    n, m = X.shape
    keep = np.zeros(n)
    rows = np.arange(n)
    for bits in (1, 2):
        for _ in range(int(n_flips)):
            Xp = X.copy()
            cols = np.stack([rng.permutation(m)[:bits] for _ in range(n)]) if bits > 1 else rng.integers(0, m, (n, 1))
            for b in range(bits):
                Xp[rows, cols[:, b]] ^= True
            keep += label(Xp) == y
    return np.where(correct, keep / (2 * int(n_flips)), 0.0)


def label_only_cell(dataset, run, epsilons, learners, n_flips=32):
    """The label-only attack on every (learner, ε) fit on run ``run``'s 70/30 split (paper
    protocol): rows with metrics ``auc``, ``tpr@1%fpr`` and ``train_accuracy`` / ``test_accuracy``."""
    from ...data.paper_protocols import paper_000_data, paper_000_features

    lam = PAPER_LAMBDA.get(dataset, 0.05)
    R, _, _ = paper_000_data(dataset)
    B, yall = paper_000_features(dataset)
    literals = R.attrs["literals"]
    Xtr, Xte, ytr, yte = _split(dataset, run, protocol="paper")
    Btr, Bte = B.loc[Xtr.index], B.loc[Xte.index]
    ss = np.random.SeedSequence([run, 2026])
    fits = [("GreedyRL", math.inf)] if "GreedyRL" in learners else []
    fits += [(lr, float(e)) for e in epsilons for lr in learners if lr != "GreedyRL"]
    rows = []
    for name, eps in fits:
        fit_seed, attack_seed = ss.spawn(2)
        if name == "GreedyRL":
            est, secs = _fit_timed(_greedy(lam, "paper"), Xtr, ytr)
            delta, params = 0.0, dict(learner="GreedyRL", max_rules=5, min_support=lam)
        else:
            est, secs = _fit_timed(_dp_rule_list(name, eps, lam, len(Xtr), fit_seed, "paper"), Xtr, ytr)
            delta, params = est.privacy_ledger_.delta, dict(est.get_params(), random_state=None)
        params = dict(params, n_flips=int(n_flips), attack="label-only (noise robustness)")
        gen = np.random.default_rng(attack_seed)
        s_in = label_only_scores(est.rule_list_, literals, Btr, ytr, n_flips, gen)
        s_out = label_only_scores(est.rule_list_, literals, Bte, yte, n_flips, gen)
        res = evaluate_scores(np.r_[s_in, s_out], np.r_[np.ones(len(s_in), bool), np.zeros(len(s_out), bool)])
        vals = {
            "auc": res.auc,
            "tpr@1%fpr": res.tpr_at(0.01),
            "train_accuracy": est.score(Xtr, ytr),
            "test_accuracy": est.score(Xte, yte),
        }
        rows += [row(dataset, name, params, eps, delta, run, k, v, secs) for k, v in vals.items()]
    return rows


def label_only_markdown(df: pd.DataFrame) -> str:
    """AUC and TPR at 1 % FPR (mean ± s.e. over runs) per (dataset, learner, ε)."""
    g = df.groupby(["dataset", "learner", "epsilon", "metric"], sort=False).value.agg(["mean", "sem", "count"])
    runs = int(g["count"].max()) if len(g) else 0
    lines = [
        f"Label-only membership inference (noise robustness on the binary attributes), mean ± s.e. over {runs} runs:",
        "",
        "| dataset | learner | ε | AUC | TPR @ 1 % FPR | train − test accuracy |",
        "|---|---|---|---|---|---|",
    ]
    for (ds, lr, e), h in g.groupby(level=[0, 1, 2], sort=False):
        h = h.droplevel([0, 1, 2])
        gap = h.loc["train_accuracy", "mean"] - h.loc["test_accuracy", "mean"]
        lines.append(
            f"| {ds} | {lr} | {'–' if not np.isfinite(e) else f'{e:g}'} | "
            f"{h.loc['auc', 'mean']:.3f} ± {h.loc['auc', 'sem']:.3f} | "
            f"{h.loc['tpr@1%fpr', 'mean']:.4f} ± {h.loc['tpr@1%fpr', 'sem']:.4f} | {gap:+.3f} |"
        )
    lines += [
        "",
        "Paper 000, App. C: the label-only attack's results were 'sub-par' (no numbers). AUC = 0.5 is chance; an "
        "attack that works on these lists would need the train − test gap to be far from 0.",
    ]
    return "\n".join(lines)


def _label_only_cells(size):
    runs = size.runs_or(1, 10)
    eps = tuple(float(e) for e in size.epsilons_or((1.0,), (1.0, 10.0)))
    flips = size.pick(4, 32)
    return [
        Cell(
            f"{ds}-run{r}",
            label_only_cell,
            dict(dataset=ds, run=r, epsilons=eps, learners=LABEL_ONLY_LEARNERS, n_flips=int(flips)),
        )
        for ds in _datasets(size, DATASETS)
        for r in range(runs)
    ]


register(
    Experiment(
        "000-label-only",
        paper="000",
        kind="table",
        title="Label-only membership inference on rule lists (App. C, 'sub-par' in the paper)",
        draws="AUC and TPR at 1 % FPR of the noise-robustness label-only attack (1- and 2-bit flips of the binary "
        "attributes) on GreedyRL, sm-Laplace, gl-Laplace and permute-and-flip at ε 1 / 10, 10 runs, German / "
        "COMPAS / Adult, paper protocol",
        cells=_label_only_cells,
        table=label_only_markdown,
        full_cost="≈ 5 CPU-min measured (30 cells; Adult ≈ 25 CPU-s per cell)",
        quick_cost="≈ 5 s",
    )
)
