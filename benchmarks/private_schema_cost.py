"""What a DP-drafted schema costs: accuracy with ``draft_private_schema`` vs the documented schema.

    PYTHONPATH=src python benchmarks/private_schema_cost.py --splits 10 --out results.csv
    PYTHONPATH=src python benchmarks/private_schema_cost.py --out results.csv --summary

For each split (a seeded stratified 70/30 split of the bundled raw Adult or COMPAS data), each
total ε and each learner, two fits on the same 70 %, scored on the same 30 %:

* ``documented``: the dataset's documented schema (``dataset_schema(name).fit_params()``), the
  learner at the whole ε;
* ``dp-draft``: :func:`dpmodels.data.private_schema.draft_private_schema` on the training part (its
  categorical columns as plain text, so their categories are released too) at
  ``--draft-share`` (default 0.1) of ε and δ = 1e-6, the learner at the rest, both under one
  :class:`~dpmodels.privacy.BudgetAccountant` of (ε, 1e-6) (so the fit's ledger holds the draft's
  rows and its total is ε: equal total budget).

Learners: ``privatree`` (PrivaTreeClassifier, max_depth 4, its default criterion) and
``dp-rulelist`` (Binarizer with 3 DP quantile bins per numerical column at 0.1 of the learner's ε,
then DPRuleListClassifier at the rest, as ``dpmodels fit --model dp-rulelist`` does). Noise is
seeded per split (reproducible research). One CSV row per fit is appended to ``--out`` as soon as
it is measured (split, data, epsilon, learner, schema, accuracy, epsilon_spent, is_private);
splits already there are skipped. ``--summary`` prints means ± s.e. and the paired differences
to ``documented`` (a Markdown table). ``dp-draft-classes`` is the draft with the label set declared
(public: the task's labels) and everything else released. The numbers are in the README ("A DP schema draft") and docs/privacy.md.
"""

from __future__ import annotations

import argparse
import csv
import math
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline

from dpmodels.data import Binarizer, dataset_schema, load_dataset
from dpmodels.data.private_schema import draft_private_schema
from dpmodels.privacy import BudgetAccountant
from dpmodels.rulelist import DPRuleListClassifier
from dpmodels.tree import PrivaTreeClassifier

FIELDS = ["split", "data", "epsilon", "learner", "schema", "accuracy", "epsilon_spent", "is_private"]
DELTA = 1e-6


def learner(kind: str, eps: float, params: dict, acc, seed: int):
    """The learner at ε with the declarations ``params`` (classes, categories, bounds)."""
    if kind == "privatree":
        return PrivaTreeClassifier(epsilon=eps, max_depth=4, accountant=acc, random_state=seed, **params)
    bounds, cats = params.get("bounds"), params.get("categories")
    binarizer = Binarizer(
        n_bins=3, bounds=bounds, categories=cats, epsilon=0.1 * eps, accountant=acc, random_state=seed
    )
    rl = DPRuleListClassifier(epsilon=0.9 * eps, classes=params["classes"], accountant=acc, random_state=seed)
    return make_pipeline(binarizer, rl)


def run_split(name: str, split: int, eps: float, draft_share: float, learners) -> list[dict]:
    X, y = load_dataset(name, binarized=False)
    # the bundled loaders declare categorical columns by their documented pandas dtype: as text
    # (a CSV read as is) the draft has to release their categories too
    X = X.astype({c: object for c in X.columns if isinstance(X[c].dtype, pd.CategoricalDtype)})
    Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.3, random_state=split, stratify=y)
    rows = []
    for kind in learners:
        seed = 1000 * split + (0 if kind == "privatree" else 1)
        # the documented schema at the whole ε
        acc = BudgetAccountant(eps, DELTA)
        est = learner(kind, eps, dataset_schema(name).fit_params(), acc, seed)
        est.fit(Xtr, ytr)
        rows.append(_row(split, name, eps, kind, "documented", est.score(Xte, yte), acc))
        # a DP draft at draft_share·ε, the learner at the rest, one accountant of ε; "dp-draft"
        # releases the label set too, "dp-draft-classes" declares it (the task's labels are usually known)
        for schema, classes in (("dp-draft", None), ("dp-draft-classes", list(dataset_schema(name).classes))):
            acc = BudgetAccountant(eps, DELTA)
            ps = draft_private_schema(
                Xtr, ytr, epsilon=draft_share * eps, delta=DELTA, classes=classes, accountant=acc, random_state=seed + 7
            )
            if ps.classes is None or len(ps.classes) < 2:  # the fit needs the label set: a failed draft
                rows.append(_row(split, name, eps, kind, schema, float("nan"), acc))
                continue
            est = learner(kind, (1 - draft_share) * eps, ps.estimator_params(), acc, seed)
            est.fit(Xtr.drop(columns=ps.drop), ytr)
            rows.append(_row(split, name, eps, kind, schema, est.score(Xte.drop(columns=ps.drop), yte), acc))
    return rows


def _row(split, name, eps, kind, schema, acc_value, acc) -> dict:
    return dict(
        split=split,
        data=name,
        epsilon=eps,
        learner=kind,
        schema=schema,
        accuracy=round(float(acc_value), 6),
        epsilon_spent=round(acc.epsilon_spent, 9),
        is_private=bool(acc.ledger.is_private),
    )


def _ms(v) -> str:
    """Mean ± standard error of a column of paired results."""
    n = len(v)
    return f"{v.mean():.4f} ± {v.std(ddof=1) / math.sqrt(n):.4f}" if n > 1 else f"{v.mean():.4f}"


def summary(path: Path) -> None:
    df = pd.read_csv(path)
    print(f"{len(df)} fits; every fit private: {bool(df.is_private.all())}; max ε spent {df.epsilon_spent.max():g}")
    print("| data | ε | learner | documented | DP draft | paired diff | DP draft, classes declared | paired diff |")
    print("|---|---|---|---|---|---|---|---|")
    for (name, eps, kind), g in df.groupby(["data", "epsilon", "learner"]):
        w = g.pivot(index="split", columns="schema", values="accuracy")
        cells = [_ms(w["documented"])]
        for schema in ("dp-draft", "dp-draft-classes"):
            ok = w[schema].notna()
            failed = int((~ok).sum())
            if not ok.any():
                cells += [f"no label set in {failed}/{len(w)}", "–"]
                continue
            note = f" ({failed}/{len(w)} without a label set)" if failed else ""
            cells += [_ms(w[schema][ok]) + note, _ms((w[schema] - w["documented"])[ok])]
        print(f"| {name} | {eps:g} | {kind} | " + " | ".join(cells) + " |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--splits", type=int, default=10)
    ap.add_argument("--data", nargs="+", default=["adult", "compas"])
    ap.add_argument("--epsilon", type=float, nargs="+", default=[1.0])
    ap.add_argument("--learners", nargs="+", default=["privatree", "dp-rulelist"])
    ap.add_argument("--draft-share", type=float, default=0.1)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--summary", action="store_true")
    a = ap.parse_args()
    if a.summary:
        summary(a.out)
        return
    done = set()
    if a.out.exists():
        with a.out.open() as fh:
            done = {(int(r["split"]), r["data"], float(r["epsilon"])) for r in csv.DictReader(fh)}
    new = not a.out.exists()
    with a.out.open("a", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=FIELDS)
        if new:
            w.writeheader()
        for name in a.data:
            for eps in a.epsilon:
                for split in range(a.splits):
                    if (split, name, eps) in done:
                        continue
                    for row in run_split(name, split, eps, a.draft_share, a.learners):
                        w.writerow(row)
                    fh.flush()
                    print(name, eps, split, "done", flush=True)
    np.seterr(all="ignore")


if __name__ == "__main__":
    main()
