"""Paper 000's attack-based evaluation (Sec. V-E, V-F, App. C), reproduced and extended.

Protocol (as :mod:`.paper_rulelists`, paper 000 Sec. V-A): bundled binarized COMPAS / German /
Adult, run r = a 70/30 train/test split with ``random_state = r``, K = 5 rules including the
default, width ≤ 2, λ = 0.12 (German) / 0.05 (COMPAS, Adult), C = 0.99, n declared public for
the sm-* mechanisms (Λ = ⌊λn⌋, δ = 1/n²). DP fits draw their noise from
``SeedSequence([r, 2024])`` spawned once per (ε, learner) in grid order — the same models as the
accuracy experiment for the same grid.

* :func:`run_table2` — distributional-overfitting vulnerability V (train vs test) and test
  accuracy of GreedyRL and every DP mechanism at several ε (paper: ε = 10, sm-Laplace only).
  ``n_permutations`` adds V's permutation-null mean (the V of "no difference" on these sets).
* :func:`run_table3` — top-k permutation-importance overlap I_k (k = 7) of every DP mechanism with
  GreedyRL on Adult's test split, ε = 1 and 10; both tie rules (:mod:`dpmodels.audit.importance`)
  with accuracy as the score (scikit-learn's default, the paper's presumably), and the default
  tie rule with ROC AUC as the score (it sees probability changes that flip no prediction).
  Importances of the reference and of the DP model use the same permutations.
* :func:`run_mia` — membership inference (every attack of :data:`dpmodels.audit.ATTACKS`) against
  rule lists, PrivaTree, BDPT, DPGDF and scikit-learn trees. Protocol beyond the paper (which
  needs population data the 70/30 split does not leave): run r splits the dataset 50/50 into the
  attacker's population and a target part (``random_state = r``), and the target part 70/30 into
  members (the target's training set) and non-members. Reference models (64 per set, shared by
  the attacks: :func:`dpmodels.audit.membership_inference_suite`) train on as many records as the
  target. Trees get the binary columns declared categorical ({0, 1}) and the label set {0, 1}.
  :func:`run_fig6` is its paper-000 Figure 6 subset (German and COMPAS, GreedyRL vs a DP rule list)
  and keeps the per-record scores for the ROC curves.
* :func:`epsilon_table` — per learner, the empirical ε implied by the attacks beside the ε it
  claims: the plug-in ln(TPR/FPR) at 1 % FPR of the pooled ROC (a heuristic, no confidence) and a
  Clopper–Pearson lower bound (α = 0.05) where the attack and its threshold are chosen on one half
  of the records and the bound is computed on the other half.

Every run function returns a tidy frame, one row per (run, learner, ε, metric): ``dataset,
learner, parameters, epsilon, delta, seed, metric, value, fit_seconds`` (``attack`` too for
membership inference); ``quick=True`` shrinks the grid for a smoke run.
"""

from __future__ import annotations

import argparse
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from joblib import Parallel, delayed
from sklearn.inspection import permutation_importance
from sklearn.model_selection import train_test_split
from sklearn.tree import DecisionTreeClassifier

from ..audit import ATTACKS, evaluate_scores, membership_inference_suite, vulnerability
from ..audit.dp_audit import epsilon_lower_bound
from ..audit.importance import overlap, top_k_features
from ..data import load_dataset
from ..rulelist import DPRuleListClassifier, GreedyRuleListClassifier
from .paper_rulelists import LEARNERS, PAPER_LAMBDA, PAPER_TABLE_II

__all__ = [
    "PAPER_TABLE_II_VULNERABILITY",
    "PAPER_TABLE_II_ACCURACY",
    "PAPER_TABLE_III",
    "MIA_LEARNERS",
    "run_table2",
    "run_table3",
    "run_mia",
    "run_fig6",
    "epsilon_table",
    "summarise",
    "table2_markdown",
    "table3_markdown",
    "mia_markdown",
    "epsilon_markdown",
    "plot_table2",
    "plot_table3",
    "plot_fig6",
]

COLUMNS = ["dataset", "learner", "parameters", "epsilon", "delta", "seed", "metric", "value", "fit_seconds"]
K_RULES, WIDTH = 5, 2

# Paper 000, Table II (100 runs; the vulnerability's ε is not stated, the accuracy column is ε = 10).
# Values as printed ("0.507^+" = a bit above 0.507); the "±" column (4·10⁻⁶ … 5·10⁻⁵) is far below
# any standard error of a mean over 100 runs of these data and looks like a variance.
PAPER_TABLE_II_VULNERABILITY = {
    ("compas", "GreedyRL"): 0.507,
    ("compas", "sm-laplace (confidence)"): 0.507,
    ("german", "GreedyRL"): 0.524,
    ("german", "sm-laplace (confidence)"): 0.516,
    ("adult", "GreedyRL"): 0.502,
    ("adult", "sm-laplace (confidence)"): 0.502,
}
PAPER_TABLE_II_ACCURACY = dict(PAPER_TABLE_II)
# Paper 000, Table III (Adult, K = 5, k = 7, 100 runs): I_k mean ± the paper's "±".
PAPER_TABLE_III = {
    (1.0, "sm-laplace (confidence)"): (0.542, 0.03),
    (1.0, "gl-laplace"): (0.316, 0.04),
    (10.0, "sm-laplace (confidence)"): (0.684, 0.03),
    (10.0, "gl-laplace"): (0.308, 0.04),
}

# label -> (kind, params); rule-list DP labels come from paper_rulelists.LEARNERS
MIA_LEARNERS = {
    "GreedyRL": ("greedy", {}),
    **{name: ("dp-rulelist", p) for name, p in LEARNERS.items()},
    "PrivaTree": ("privatree", {}),
    "BDPT": ("bdpt", {}),
    "DPGDF": ("dpgdf", {}),
    "tree (depth 4)": ("sklearn", {"max_depth": 4}),
    "tree (fully grown)": ("sklearn", {}),
}
MIA_DEFAULT_LEARNERS = ("GreedyRL", "permute-and-flip", "sm-laplace (confidence)", "PrivaTree", "BDPT",
                        "DPGDF", "tree (depth 4)", "tree (fully grown)")
NON_PRIVATE = ("GreedyRL", "tree (depth 4)", "tree (fully grown)")


# ------------------------------------------------------------------------------------ helpers
def _split(dataset, run, test_size=0.3, X=None, y=None):
    if X is None:
        X, y = load_dataset(dataset)
    return train_test_split(X, y, test_size=test_size, random_state=run)


def _rule_params(name, lam):
    base = f"K={K_RULES}, λ={lam}, width≤{WIDTH}"
    if name == "GreedyRL":
        return base
    p = LEARNERS[name]
    extra = ", ".join(f"{k}={v}" for k, v in p.items())
    return f"{base}, {extra}" + (", C=0.99, n public" if p["mechanism"].startswith("sm-") else "")


def _dp_rule_list(name, eps, lam, n, seed):
    return DPRuleListClassifier(
        epsilon=eps, max_rules=K_RULES, min_support=lam, max_width=WIDTH, confidence=0.99, n_public=n,
        random_state=np.random.default_rng(seed), **LEARNERS[name],
    )


def _greedy(lam):
    return GreedyRuleListClassifier(max_rules=K_RULES, min_support=lam, max_width=WIDTH)


def _row(dataset, learner, params, eps, delta, seed, metric, value, secs, **extra):
    return dict(dataset=dataset, learner=learner, parameters=params, epsilon=float(eps), delta=float(delta),
                seed=int(seed), metric=metric, value=float(value), fit_seconds=float(secs), **extra)


def _fit_timed(est, X, y):
    t = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # δ ≥ 1/n notes etc.: the grid is fixed in advance
        est.fit(X, y)
    return est, time.perf_counter() - t


def _parallel(fn, jobs, n_jobs):
    out = Parallel(n_jobs=n_jobs)(delayed(fn)(*j) for j in jobs)
    return [row for rows in out for row in rows]


def _write(df, out):
    if out is not None:
        out = Path(out)
        out.parent.mkdir(parents=True, exist_ok=True)
        df.to_csv(out, index=False)
    return df


# ------------------------------------------------------------------------------------ Table II
def _table2_run(dataset, run, epsilons, learners, n_permutations):
    lam = PAPER_LAMBDA.get(dataset, 0.05)
    Xtr, Xte, ytr, yte = _split(dataset, run)
    rows = []

    def measure(name, eps, delta, est, secs):
        params = _rule_params(name, lam)
        v = vulnerability(est, Xtr, ytr, Xte, yte, n_permutations=n_permutations, random_state=run)
        rows.append(_row(dataset, name, params, eps, delta, run, "vulnerability", v.V, secs))
        if n_permutations:
            rows.append(_row(dataset, name, params, eps, delta, run, "vulnerability (null mean)", v.null_mean, secs))
        rows.append(_row(dataset, name, params, eps, delta, run, "accuracy", est.score(Xte, yte), secs))

    g, secs = _fit_timed(_greedy(lam), Xtr, ytr)
    measure("GreedyRL", np.inf, 0.0, g, secs)
    ss = np.random.SeedSequence([run, 2024])
    for eps in epsilons:
        for name in learners:
            seed = ss.spawn(1)[0]
            est, secs = _fit_timed(_dp_rule_list(name, eps, lam, len(Xtr), seed), Xtr, ytr)
            measure(name, eps, est.privacy_ledger_.delta, est, secs)
    return rows


def run_table2(datasets=("compas", "german", "adult"), epsilons=(0.1, 1.0, 10.0), learners=tuple(LEARNERS),
               runs=100, n_permutations=0, quick=False, n_jobs=1, out=None) -> pd.DataFrame:
    """V and accuracy of GreedyRL and every DP rule list per run (paper 000, Table II)."""
    _check_learners(learners, LEARNERS)
    if quick:
        runs, epsilons = min(runs, 3), tuple(epsilons)[-1:]
    jobs = [(d, r, tuple(epsilons), tuple(learners), int(n_permutations)) for d in datasets for r in range(runs)]
    return _write(pd.DataFrame(_parallel(_table2_run, jobs, n_jobs), columns=COLUMNS), out)


# ------------------------------------------------------------------------------------ Table III
def _table3_run(dataset, run, epsilons, learners, k, n_repeats):
    lam = PAPER_LAMBDA.get(dataset, 0.05)
    Xtr, Xte, ytr, yte = _split(dataset, run)
    perm_seed = 10_000 + run  # one permutation seed per run, shared by reference and DP models

    def importances(est):
        """Mean importance under accuracy (the paper's, scikit-learn's default) and under ROC AUC."""
        return {sc: permutation_importance(est, Xte, yte, n_repeats=n_repeats, scoring=sc,
                                           random_state=perm_seed).importances_mean
                for sc in ("accuracy", "roc_auc")}

    g, _ = _fit_timed(_greedy(lam), Xtr, ytr)
    ref = importances(g)
    variants = (("I_k", "accuracy", "positive"), ("I_k (rank ties)", "accuracy", "rank"),
                ("I_k (AUC scoring)", "roc_auc", "positive"))
    rows = []
    ss = np.random.SeedSequence([run, 2024])
    for eps in epsilons:
        for name in learners:
            seed = ss.spawn(1)[0]
            est, secs = _fit_timed(_dp_rule_list(name, eps, lam, len(Xtr), seed), Xtr, ytr)
            imp = importances(est)
            params = _rule_params(name, lam) + f", k={k}"
            delta = est.privacy_ledger_.delta
            for metric, sc, ties in variants:
                val = overlap(top_k_features(ref[sc], k, ties), top_k_features(imp[sc], k, ties), k, ties)
                rows.append(_row(dataset, name, params, eps, delta, run, metric, val, secs))
            rows.append(_row(dataset, name, params, eps, delta, run, "n important features",
                             int((imp["accuracy"] > 0).sum()), secs))
    rows.append(_row(dataset, "GreedyRL", _rule_params("GreedyRL", lam), np.inf, 0.0, run,
                     "n important features", int((ref["accuracy"] > 0).sum()), 0.0))
    return rows


def run_table3(dataset="adult", epsilons=(1.0, 10.0), learners=tuple(LEARNERS), runs=100, k=7, n_repeats=5,
               quick=False, n_jobs=1, out=None) -> pd.DataFrame:
    """I_k of every DP mechanism against GreedyRL per run (paper 000, Table III)."""
    _check_learners(learners, LEARNERS)
    if quick:
        runs, n_repeats = min(runs, 2), min(n_repeats, 2)
    jobs = [(dataset, r, tuple(epsilons), tuple(learners), int(k), int(n_repeats)) for r in range(runs)]
    return _write(pd.DataFrame(_parallel(_table3_run, jobs, n_jobs), columns=COLUMNS), out)


# -------------------------------------------------------------------------- membership inference
def _mia_target(name, eps, lam, n, seed, rng_seed, cats):
    """(unfitted target, parameters text) for one MIA learner; ``cats``: the public categories."""
    kind, p = MIA_LEARNERS[name]
    if kind == "greedy":
        return _greedy(lam), _rule_params("GreedyRL", lam)
    if kind == "dp-rulelist":
        return _dp_rule_list(name, eps, lam, n, seed), _rule_params(name, lam)
    if kind == "sklearn":
        return DecisionTreeClassifier(random_state=rng_seed, **p), ", ".join(f"{k}={v}" for k, v in p.items()) or "no depth limit"
    from ..tree.baselines import BDPTClassifier, DPGDFClassifier
    from ..tree.privatree import PrivaTreeClassifier

    rs = np.random.default_rng(seed)
    if kind == "privatree":
        return PrivaTreeClassifier(epsilon=eps, max_depth=4, categories=cats, random_state=rs), "max_depth=4, binary columns categorical"
    if kind == "bdpt":
        return BDPTClassifier(epsilon=eps, max_depth=4, categories=cats, classes=[0, 1], random_state=rs), "max_depth=4, binary columns categorical"
    return DPGDFClassifier(epsilon=eps, max_depth=4, categories=cats, classes=[0, 1], random_state=rs), "max_depth=4, binary columns categorical"


def _art_available() -> bool:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # ART warns that PyTorch is absent
            from ..audit.art_adapter import _import_art

            _import_art()
    except ImportError:
        return False
    return True


def _mia_run(dataset, run, learners, epsilons, attacks, n_reference, keep_scores, n_jobs_inner, art=False):
    X, y = load_dataset(dataset)
    cats = {c: [0, 1] for c in X.columns}
    Xt, Xp, yt, yp = train_test_split(X, y, test_size=0.5, random_state=run)
    Xi, Xo, yi, yo = train_test_split(Xt, yt, test_size=0.3, random_state=run)
    yi, yo, yp = yi.to_numpy(), yo.to_numpy(), yp.to_numpy()
    lam = PAPER_LAMBDA.get(dataset, 0.05)
    rows, scores = [], []
    ss = np.random.SeedSequence([run, 2025])
    for name in learners:
        private = name not in NON_PRIVATE
        for eps in (epsilons if private else [np.inf]):
            seed, attack_seed = ss.spawn(2)  # the target's noise and the attacker's randomness
            est, params = _mia_target(name, eps, lam, len(Xi), seed, run, cats)
            est, secs = _fit_timed(est, Xi, yi)
            delta = getattr(getattr(est, "privacy_ledger_", None), "delta", 0.0)
            t = time.perf_counter()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", UserWarning)
                res = membership_inference_suite(est, Xi, yi, Xo, yo, attacks=attacks, X_pop=Xp, y_pop=yp,
                                                 n_reference=n_reference, n_jobs=n_jobs_inner,
                                                 random_state=np.random.default_rng(attack_seed))
                if art:  # same split as "black-box" (the first attack drawing from a fresh generator)
                    from ..audit.art_adapter import art_membership_inference

                    res["art-black-box"] = art_membership_inference(
                        est, Xi, yi, Xo, yo, random_state=np.random.default_rng(attack_seed))
            attack_secs = time.perf_counter() - t
            for attack, r in res.items():
                for metric, val in (("auc", r.auc), ("tpr@0.1%fpr", r.tpr_at(0.001)), ("tpr@1%fpr", r.tpr_at(0.01))):
                    rows.append(_row(dataset, name, params, eps, delta, run, metric, val, secs, attack=attack,
                                     attack_seconds=attack_secs))
                if keep_scores:
                    scores.append(pd.DataFrame(dict(dataset=dataset, learner=name, epsilon=float(eps), seed=run,
                                                    attack=attack, record=r.record_index, member=r.membership,
                                                    score=r.scores)))
    return rows, scores


def run_mia(datasets=("german", "compas"), learners=MIA_DEFAULT_LEARNERS, epsilons=(1.0,), attacks=ATTACKS,
            runs=10, n_reference=64, quick=False, n_jobs=1, return_scores=False, art="auto", out=None):
    """Membership inference against every learner (module docstring); tidy metrics per run.

    With ``return_scores=True`` returns ``(metrics, scores)``, ``scores`` holding every audited
    record's score (for pooled ROC curves and :func:`epsilon_table`). ``art``: also run ART's
    black-box attack (the paper's tool) on the split of ``"black-box"``; "auto" = when ART
    imports and "black-box" is the first attack drawing randomness.
    """
    _check_learners(learners, MIA_LEARNERS)
    unknown = [a for a in attacks if a not in ATTACKS]
    if unknown:
        raise ValueError(f"unknown attacks {unknown}; choose from {ATTACKS}")
    if quick:
        runs, n_reference = min(runs, 2), min(n_reference, 16)
    if art == "auto":
        drawing = [a for a in attacks if a != "threshold"]
        art = bool(drawing) and drawing[0] == "black-box" and _art_available()
    jobs = [(d, r, tuple(learners), tuple(epsilons), tuple(attacks), int(n_reference), bool(return_scores), 1,
             bool(art)) for d in datasets for r in range(runs)]
    out_chunks = Parallel(n_jobs=n_jobs)(delayed(_mia_run)(*j) for j in jobs)
    metrics = pd.DataFrame([row for rows, _ in out_chunks for row in rows],
                           columns=COLUMNS + ["attack", "attack_seconds"])
    _write(metrics, out)
    if not return_scores:
        return metrics
    parts = [s for _, sc in out_chunks for s in sc]
    return metrics, (pd.concat(parts, ignore_index=True) if parts else pd.DataFrame())


def run_fig6(datasets=("german", "compas"), learners=("GreedyRL", "sm-laplace (confidence)", "permute-and-flip"),
             epsilon=1.0, attacks=ATTACKS, runs=10, n_reference=64, quick=False, n_jobs=1, art="auto"):
    """Paper 000's Figure 6 setting (ROC of GreedyRL vs DP rule lists): ``(metrics, scores)``."""
    return run_mia(datasets, learners, (epsilon,), attacks, runs, n_reference, quick, n_jobs, return_scores=True,
                   art=art)


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
            lb = float(epsilon_lower_bound(int((flag & m).sum()), int(m.sum()), int((flag & ~m).sum()),
                                           int((~m).sum()), alpha=alpha))
        out.append(dict(dataset=ds, learner=lr, epsilon_claimed=eps, eps_hat=eps_hat, eps_hat_attack=hat_attack,
                        eps_lb=lb, eps_lb_attack=lb_attack, records=int(len(uniq))))
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


def table2_markdown(df: pd.DataFrame) -> str:
    """Vulnerability (mean ± s.e.) per dataset × learner × ε, with the paper's value where it has one."""
    s = summarise(pd.concat([df[df.metric.isin(["vulnerability", "vulnerability (null mean)", "accuracy"])],
                             _excess(df)], ignore_index=True))
    lines = ["| dataset | learner | ε | V (ours) | V null mean | V − null | V paper | accuracy | accuracy paper |",
             "|---|---|---|---|---|---|---|---|---|"]
    for (d, lr, e), g in s.groupby(["dataset", "learner", "epsilon"], sort=False):
        cell = {m: f"{r['mean']:.4f} ± {r['sem']:.4f}" for m, r in zip(g.metric, g.to_dict("records"))}
        acc = g[g.metric == "accuracy"]
        pv = PAPER_TABLE_II_VULNERABILITY.get((d, lr)) if (e == 10 or not np.isfinite(e)) else None
        pa = PAPER_TABLE_II_ACCURACY.get((d, lr)) if (e == 10 or not np.isfinite(e)) else None
        lines.append(f"| {d} | {lr} | {_eps_label(e)} | {cell.get('vulnerability', '')} | "
                     f"{cell.get('vulnerability (null mean)', '')} | {cell.get('V − null', '')} | "
                     f"{'' if pv is None else pv} | "
                     f"{acc['mean'].iloc[0]:.3f} | {'' if pa is None else pa} |")
    return "\n".join(lines)


def table3_markdown(df: pd.DataFrame) -> str:
    s = summarise(df[df.metric.isin(["I_k", "I_k (rank ties)", "I_k (AUC scoring)", "n important features"])])
    lines = ["| ε | learner | I_k (ours) | I_k, rank ties | I_k, AUC scoring | important features | paper |",
             "|---|---|---|---|---|---|---|"]
    for (lr, e), g in s.groupby(["learner", "epsilon"], sort=False):
        c = {m: (r["mean"], r["sem"]) for m, r in zip(g.metric, g.to_dict("records"))}
        if not np.isfinite(e):
            lines.append(f"| – | {lr} (reference) | | | | {c['n important features'][0]:.1f} | |")
            continue
        p = PAPER_TABLE_III.get((e, lr))
        lines.append(f"| {_eps_label(e)} | {lr} | {c['I_k'][0]:.3f} ± {c['I_k'][1]:.3f} | "
                     f"{c['I_k (rank ties)'][0]:.3f} ± {c['I_k (rank ties)'][1]:.3f} | "
                     f"{c['I_k (AUC scoring)'][0]:.3f} ± {c['I_k (AUC scoring)'][1]:.3f} | "
                     f"{c['n important features'][0]:.1f} | {'' if p is None else f'{p[0]} ± {p[1]}'} |")
    return "\n".join(lines)


def mia_markdown(metrics: pd.DataFrame, eps: pd.DataFrame | None = None) -> str:
    """AUC / TPR@0.1 % / TPR@1 % (mean over runs) per dataset × learner × ε × attack."""
    s = summarise(metrics, by=("dataset", "learner", "epsilon", "attack", "metric"))
    wide = s.pivot_table(index=["dataset", "learner", "epsilon", "attack"], columns="metric", values="mean", sort=False)
    lines = ["| dataset | learner | ε | attack | AUC | TPR@0.1% | TPR@1% |", "|---|---|---|---|---|---|---|"]
    for (d, lr, e, a), r in wide.iterrows():
        lines.append(f"| {d} | {lr} | {_eps_label(e)} | {a} | {r['auc']:.3f} | {r['tpr@0.1%fpr']:.4f} | {r['tpr@1%fpr']:.4f} |")
    return "\n".join(lines)


def epsilon_markdown(et: pd.DataFrame) -> str:
    """The :func:`epsilon_table` beside the claimed ε."""
    lines = ["| dataset | learner | ε claimed | ε̂ at 1 % FPR (plug-in, best attack) | ε lower bound (95 %, CP) | records |",
             "|---|---|---|---|---|---|"]
    for r in et.itertuples():
        lines.append(f"| {r.dataset} | {r.learner} | {_eps_label(r.epsilon_claimed)} | "
                     f"{r.eps_hat:.2f} ({r.eps_hat_attack}) | {r.eps_lb:.2f} ({r.eps_lb_attack}) | {r.records} |")
    return "\n".join(lines)


# ------------------------------------------------------------------------------------ figures
def _pyplot():
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        warnings.warn("matplotlib is not installed (pip install 'dpmodels[plots]'): no PNG written", stacklevel=3)
        return None
    return plt


def _excess(df: pd.DataFrame) -> pd.DataFrame:
    """Per run, V minus its permutation-null mean (rows with metric "V − null")."""
    keys = ["dataset", "learner", "epsilon", "seed"]
    v = df[df.metric == "vulnerability"].set_index(keys)["value"]
    n = df[df.metric == "vulnerability (null mean)"].set_index(keys)["value"]
    d = (v - n).dropna().rename("value").reset_index()
    d["metric"] = "V − null"
    return d


def plot_table2(df: pd.DataFrame, path) -> Path | None:
    """V (mean ± s.e.) against ε per mechanism, GreedyRL as a line, one panel per dataset; with the
    permutation null, a second row shows V − null (paired per run)."""
    plt = _pyplot()
    if plt is None:
        return None
    s = summarise(df[df.metric == "vulnerability"])
    ex = _excess(df)
    rows = [("vulnerability V", s)] + ([("V − permutation null", summarise(ex))] if len(ex) else [])
    dsets = list(dict.fromkeys(s.dataset))
    fig, axes = plt.subplots(len(rows), len(dsets), figsize=(4.2 * len(dsets), 3.3 * len(rows)), squeeze=False)
    for i, (ylabel, data) in enumerate(rows):
        for ax, d in zip(axes[i], dsets):
            sd = data[data.dataset == d]
            for lr, g in sd.groupby("learner", sort=False):
                if lr == "GreedyRL":
                    ax.axhspan(g["mean"].iloc[0] - g["sem"].iloc[0], g["mean"].iloc[0] + g["sem"].iloc[0],
                               color="k", alpha=0.15, lw=0)
                    ax.axhline(g["mean"].iloc[0], color="k", lw=1.2, label="GreedyRL (± s.e.)")
                    continue
                ax.errorbar(g.epsilon, g["mean"], yerr=g["sem"], marker="o", ms=3, lw=1, capsize=2, label=lr)
            if i == 0:
                for (pd_, lr), v in PAPER_TABLE_II_VULNERABILITY.items():
                    if pd_ == d:
                        ax.axhline(v, ls=":", color="grey" if lr == "GreedyRL" else "tab:red", lw=1)
                ax.set_title(f"{d} (dotted: paper, grey GreedyRL, red sm-Laplace)", fontsize="small")
            else:
                ax.axhline(0.0, color="grey", lw=0.8)
            ax.set_xscale("log")
            ax.set_xlabel("ε")
            ax.set_ylabel(ylabel)
    axes[0][-1].legend(fontsize="x-small", loc="best")
    fig.tight_layout()
    return _save(fig, plt, path)


def plot_table3(df: pd.DataFrame, path) -> Path | None:
    """I_k per mechanism at each ε (bars, ± s.e.), the paper's values as black marks."""
    plt = _pyplot()
    if plt is None:
        return None
    s = summarise(df[df.metric == "I_k"])
    s = s[np.isfinite(s.epsilon)]
    eps = sorted(s.epsilon.unique())
    learners = list(dict.fromkeys(s.learner))
    fig, ax = plt.subplots(figsize=(0.6 * len(learners) * len(eps) + 2, 3.8))
    w = 0.8 / len(eps)
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
    ax.set_title("Feature-importance overlap on Adult (black marks: paper)")
    fig.tight_layout()
    return _save(fig, plt, path)


def plot_fig6(scores: pd.DataFrame, path) -> Path | None:
    """Pooled log-log ROC per dataset × learner (rows × columns), one line per attack (paper Fig. 6)."""
    plt = _pyplot()
    if plt is None:
        return None
    dsets = list(dict.fromkeys(scores.dataset))
    learners = list(dict.fromkeys(scores.learner))
    fig, axes = plt.subplots(len(dsets), len(learners), figsize=(3.6 * len(learners), 3.4 * len(dsets)), squeeze=False)
    for i, d in enumerate(dsets):
        for j, lr in enumerate(learners):
            ax = axes[i][j]
            g = scores[(scores.dataset == d) & (scores.learner == lr)]
            for attack, ga in g.groupby("attack", sort=False):
                r = evaluate_scores(ga.score.to_numpy(), ga.member.to_numpy().astype(bool), attack)
                r.plot_roc(ax=ax, label=f"{attack} ({r.auc:.3f})", lw=1)
            eps = g.epsilon.iloc[0] if len(g) else np.inf
            ax.set_title(f"{d} — {lr}" + ("" if not np.isfinite(eps) else f" (ε = {eps:g})"), fontsize="small")
            ax.legend(fontsize="xx-small", loc="lower right")
    fig.tight_layout()
    return _save(fig, plt, path)


def _save(fig, plt, path):
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def _check_learners(learners, known):
    unknown = [lr for lr in learners if lr not in known]
    if unknown:
        raise ValueError(f"unknown learners {unknown}; choose from {list(known)}")


# ------------------------------------------------------------------------------------ command line
def main(argv=None):  # pragma: no cover - thin wrapper
    p = argparse.ArgumentParser(prog="python -m dpmodels.experiments.paper_000_attacks")
    p.add_argument("what", choices=["table2", "table3", "mia", "fig6"])
    p.add_argument("--runs", type=int, default=10)
    p.add_argument("--n-jobs", type=int, default=1)
    p.add_argument("--n-reference", type=int, default=64)
    p.add_argument("--datasets", nargs="+", default=None)
    p.add_argument("--epsilons", nargs="+", type=float, default=None)
    p.add_argument("--permutations", type=int, default=0)
    p.add_argument("--quick", action="store_true")
    p.add_argument("--out", required=True, help="output directory (CSV + PNG)")
    a = p.parse_args(argv)
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    kw = dict(quick=a.quick, n_jobs=a.n_jobs)
    if a.what == "table2":
        df = run_table2(datasets=a.datasets or ("compas", "german", "adult"), epsilons=a.epsilons or (0.1, 1.0, 10.0),
                        runs=a.runs, n_permutations=a.permutations, out=out / "table2.csv", **kw)
        plot_table2(df, out / "table2.png")
        print(table2_markdown(df))
    elif a.what == "table3":
        df = run_table3(epsilons=a.epsilons or (1.0, 10.0), runs=a.runs, out=out / "table3.csv", **kw)
        plot_table3(df, out / "table3.png")
        print(table3_markdown(df))
    else:
        if a.what == "fig6":
            m, sc = run_fig6(datasets=a.datasets or ("german", "compas"), epsilon=(a.epsilons or [1.0])[0],
                             runs=a.runs, n_reference=a.n_reference, **kw)
            plot_fig6(sc, out / "fig6.png")
        else:
            m, sc = run_mia(datasets=a.datasets or ("german", "compas"), epsilons=a.epsilons or (1.0,), runs=a.runs,
                            n_reference=a.n_reference, return_scores=True, **kw)
        m.to_csv(out / f"{a.what}.csv", index=False)
        sc.to_csv(out / f"{a.what}_scores.csv.gz", index=False)
        et = epsilon_table(sc)
        et.to_csv(out / f"{a.what}_epsilon.csv", index=False)
        print(mia_markdown(m))
        print(epsilon_markdown(et))


if __name__ == "__main__":  # pragma: no cover
    main()
