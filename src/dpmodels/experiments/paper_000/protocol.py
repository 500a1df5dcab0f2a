"""Reproduce paper 000's accuracy study (Section V-A/V-C, Table II) on the bundled data.

Kept for its constants and its small runner (other modules import them, e.g.
``.attacks``); the registry ids ``000-fig4`` / ``000-table1`` (:mod:`.accuracy`, with the
shared-split batch of :mod:`.batch`) reproduce the full grid.

Protocol: for each dataset and run r, a 70/30 split seeded by r; GreedyRL and every DP mechanism
are fitted on the training part (K = 5 rules including the default, C = 0.99, λ = 0.12 for German
and 0.05 for COMPAS/Adult, conjunctions of up to two literals) and scored on the test part. As in
the paper, n is treated as public for the sm-* mechanisms (Λ = ⌊λn⌋, δ = 1/n²); the default
mechanism does not need it. Output: one tidy row per (dataset, data, learner, ε, run).

``data="binarized"`` (default): the bundled published binarizations (with their declared one-hot
groups unless ``feature_groups=None``). ``data="raw"``: the raw files through
:class:`dpmodels.data.Binarizer` with the documented schema (:func:`dpmodels.data.dataset_schema`:
category lists and bounds). GreedyRL (not private) is cut at the data's quantiles, as the paper's
binarization; every DP learner is a pipeline Binarizer → learner sharing one
:class:`~dpmodels.privacy.BudgetAccountant` of total ε: ``quantile_share``·ε for the DP quantiles
(JointExp within the public bounds), the rest for the rule list.
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pandas as pd
from joblib import Parallel, delayed
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline

from ...data import Binarizer, dataset_schema, load_dataset
from ...privacy import BudgetAccountant
from ...rulelist import DPRuleListClassifier, GreedyRuleListClassifier

__all__ = ["PAPER_LAMBDA", "PAPER_TABLE_II", "LEARNERS", "run_rulelist_accuracy", "summarise"]

PAPER_LAMBDA = {"compas": 0.05, "german": 0.12, "adult": 0.05}
# Paper 000, Table II (ε = 10): test accuracy of GreedyRL and sm-Laplace.
PAPER_TABLE_II = {
    ("compas", "GreedyRL"): 0.660,
    ("compas", "sm-laplace (confidence)"): 0.658,
    ("german", "GreedyRL"): 0.711,
    ("german", "sm-laplace (confidence)"): 0.683,
    ("adult", "GreedyRL"): 0.798,
    ("adult", "sm-laplace (confidence)"): 0.795,
}

# label -> DPRuleListClassifier parameters
LEARNERS = {
    "permute-and-flip": dict(mechanism="permute-and-flip"),
    "sm-laplace (confidence)": dict(mechanism="sm-laplace", gate="confidence"),
    "sm-laplace (ptr)": dict(mechanism="sm-laplace", gate="ptr"),
    "sm-cauchy (confidence)": dict(mechanism="sm-cauchy", gate="confidence"),
    "gl-laplace": dict(mechanism="gl-laplace"),
    "gl-gaussian": dict(mechanism="gl-gaussian"),
    "gl-exponential": dict(mechanism="gl-exponential"),
    "noisy-counts": dict(mechanism="noisy-counts"),
}


def _one_run(dataset, run, epsilons, learners, max_rules, max_width, data="binarized",
             feature_groups="auto", quantile_share=0.2, encoding="thermometer", n_bins=3):
    import warnings

    from ...privacy import PrivacyLeakWarning

    X, y = load_dataset(dataset, binarized=data == "binarized")
    lam = PAPER_LAMBDA.get(dataset, 0.05)
    Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.3, random_state=run)
    rows = []
    if data == "raw":
        schema = dataset_schema(dataset)
        cats = {c: list(v) for c, v in schema.categories.items()}
        bounds = {c: tuple(float(b) for b in v) for c, v in schema.bounds.items()}

    def binarizer(**kw):
        return Binarizer(categories=cats, encoding=encoding, n_bins=n_bins, **kw)

    def record(name, eps, delta, est, secs):
        rows.append(
            dict(
                dataset=dataset, data=data, learner=name, epsilon=eps, delta=delta, seed=run,
                accuracy=float(est.score(Xte, yte)), n_rules=len(est[-1].rule_list_ if data == "raw"
                                                                  else est.rule_list_) - 1,
                fit_seconds=secs,
            )
        )

    t = time.perf_counter()
    g = GreedyRuleListClassifier(max_rules=max_rules, min_support=lam, max_width=max_width,
                                 feature_groups=feature_groups)
    if data == "raw":
        with warnings.catch_warnings():  # the non-private baseline reads the data's quantiles
            warnings.simplefilter("ignore", PrivacyLeakWarning)
            g = make_pipeline(binarizer(), g).fit(Xtr, ytr)
    else:
        g.fit(Xtr, ytr)
    record("GreedyRL", np.inf, 0.0, g, time.perf_counter() - t)
    ss = np.random.SeedSequence([run, 2024])
    n_tr = len(Xtr)
    for eps in epsilons:
        for name in learners:
            params = LEARNERS[name]
            seed = ss.spawn(1)[0]
            rng = np.random.default_rng(seed)
            est = DPRuleListClassifier(
                epsilon=eps, max_rules=max_rules, min_support=lam, max_width=max_width,
                confidence=0.99, n_public=n_tr, random_state=rng, feature_groups=feature_groups,
                **params,
            )
            if data == "raw":  # one budget: DP quantiles + the rule list
                acc = BudgetAccountant(eps, 1.0 / n_tr**2)
                eq = quantile_share * eps
                est.set_params(epsilon=eps - eq, accountant=acc)
                est = make_pipeline(binarizer(epsilon=eq, bounds=bounds, accountant=acc, random_state=rng), est)
            t = time.perf_counter()
            est.fit(Xtr, ytr)
            led = est[-1].privacy_ledger_ if data == "raw" else est.privacy_ledger_
            record(name, eps, led.delta_spent if data == "raw" else led.delta, est, time.perf_counter() - t)
    return rows


def run_rulelist_accuracy(
    datasets=("compas", "german", "adult"),
    epsilons=(0.1, 1.0, 10.0),
    runs=100,
    learners=tuple(LEARNERS),
    max_rules=5,
    max_width=2,
    n_jobs=1,
    out: str | Path | None = None,
    progress=False,
    *,
    data="binarized",
    feature_groups="auto",
    quantile_share=0.2,
    encoding="thermometer",
    n_bins=3,
) -> pd.DataFrame:
    """Run the grid; return (and optionally write as CSV) the tidy results (module docstring for
    ``data``, ``quantile_share``, ``encoding``, ``n_bins``; ``feature_groups`` goes to every
    learner)."""
    if data not in ("binarized", "raw"):
        raise ValueError(f"data must be 'binarized' or 'raw', got {data!r}")
    if not 0 < quantile_share < 1:
        raise ValueError(f"quantile_share must be in (0, 1), got {quantile_share!r}")
    unknown = set(learners) - set(LEARNERS)
    if unknown:
        raise ValueError(f"unknown learners {sorted(unknown)}; choose from {list(LEARNERS)}")
    jobs = [(d, r) for d in datasets for r in range(runs)]
    it = Parallel(n_jobs=n_jobs, return_as="generator")(
        delayed(_one_run)(d, r, tuple(epsilons), tuple(learners), max_rules, max_width, data,
                          feature_groups, quantile_share, encoding, n_bins)
        for d, r in jobs
    )
    if progress:
        try:
            from tqdm import tqdm

            it = tqdm(it, total=len(jobs), desc="rule-list accuracy")
        except ImportError:  # tqdm is optional
            pass
    rows = [row for chunk in it for row in chunk]
    df = pd.DataFrame(rows)
    if out is not None:
        out = Path(out)
        out.parent.mkdir(parents=True, exist_ok=True)
        df.to_csv(out, index=False)
    return df


def summarise(df: pd.DataFrame) -> pd.DataFrame:
    """Mean test accuracy and its standard error per (dataset, learner, ε)."""
    g = df.groupby(["dataset", "learner", "epsilon"])["accuracy"]
    out = g.agg(["mean", "std", "count"]).reset_index()
    out["sem"] = out["std"] / np.sqrt(out["count"])
    return out.drop(columns="std")


def markdown_table(df: pd.DataFrame) -> str:
    """One row per (dataset, learner), one column per ε: 'mean ± sem'."""
    df = df.copy()
    if "data" in df:
        df["dataset"] = np.where(df["data"] == "raw", df["dataset"] + " (raw)", df["dataset"])
    s = summarise(df)
    s["cell"] = s.apply(lambda r: f"{r['mean']:.3f} ± {r['sem']:.3f}", axis=1)
    wide = s.pivot_table(index=["dataset", "learner"], columns="epsilon", values="cell", aggfunc="first")
    cols = list(wide.columns)
    head = "| dataset | learner | " + " | ".join("ε = ∞ (non-private)" if not np.isfinite(c) else f"ε = {c:g}" for c in cols) + " |"
    lines = [head, "|" + "---|" * (len(cols) + 2)]
    for (d, l), row in wide.iterrows():
        lines.append(f"| {d} | {l} | " + " | ".join(str(v) if isinstance(v, str) else "" for v in row) + " |")
    return "\n".join(lines)
