"""Command line: ``dpmodels demo | fit | reproduce`` (``reproduce`` lives in :mod:`dpmodels.cli_reproduce`)."""

from __future__ import annotations

import argparse
import sys
import time
import warnings

import numpy as np

__all__ = ["main"]


def _rule(title: str) -> str:
    return f"\n{title}\n{'=' * len(title)}"


def _split(X, y, seed):
    from sklearn.model_selection import train_test_split

    return train_test_split(X, y, test_size=0.3, random_state=seed, stratify=y)


def cmd_demo(args) -> int:
    from .data import load_dataset
    from .rulelist import DPRuleListClassifier, GreedyRuleListClassifier

    X, y = load_dataset("compas", binarized=True)
    Xtr, Xte, ytr, yte = _split(X, y, args.seed)
    print(
        f"COMPAS (binarized, bundled): {X.shape[0]} records, {X.shape[1]} binary features; "
        f"label {y.name} (see dpmodels/data/_bundled/NOTICE.md). 70/30 split."
    )

    t = time.perf_counter()
    greedy = GreedyRuleListClassifier(max_rules=5, min_support=0.05).fit(Xtr, ytr)
    tg = time.perf_counter() - t
    print(_rule("Non-private greedy rule list (GreedyRL)"))
    print(greedy)
    print(f"test accuracy: {greedy.score(Xte, yte):.3f}   (fit {tg * 1000:.0f} ms)")

    # random_state=None: noise from OS entropy — this is a genuinely private release.
    t = time.perf_counter()
    dp = DPRuleListClassifier(epsilon=args.epsilon, max_rules=5, min_support=0.05).fit(Xtr, ytr)
    td = time.perf_counter() - t
    print(_rule(f"DP rule list (permute-and-flip, ε = {args.epsilon:g}, pure DP)"))
    print(dp)
    print(f"test accuracy: {dp.score(Xte, yte):.3f}   (fit {td * 1000:.0f} ms)")
    print()
    print(dp.privacy_ledger_.summary())

    try:
        from .tree.privatree import PrivaTreeClassifier
    except ImportError:
        return 0
    Xr, yr = load_dataset("compas", binarized=False)
    Xtr, Xte, ytr, yte = _split(Xr, yr, args.seed)
    bounds = _public_bounds(Xr)
    t = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # categories are declared below; nothing is read from data
        tree = PrivaTreeClassifier(
            epsilon=args.epsilon, max_depth=3, bounds=bounds, categories=_public_categories(Xr)
        ).fit(Xtr, ytr)
    tt = time.perf_counter() - t
    print(_rule(f"DP decision tree (PrivaTree, ε = {args.epsilon:g}) on raw COMPAS"))
    print(tree.export_text(decimals=2))  # integer-valued features: rounding is exact here
    print(f"test accuracy: {tree.score(Xte, yte):.3f}   (fit {tt * 1000:.0f} ms)")
    print()
    print(tree.privacy_ledger_.summary())
    return 0


def _public_bounds(X):
    """Public domain bounds of raw COMPAS's numerical columns (ages 18–96, counts 0–40)."""
    lo, hi = [], []
    for c in X.columns:
        if str(X[c].dtype) == "category":
            continue
        if c == "age":
            lo.append(18.0), hi.append(96.0)
        else:
            lo.append(0.0), hi.append(40.0)
    return (np.array(lo), np.array(hi))


def _public_categories(X):
    """Category sets of raw COMPAS: the documented domains (schema, not read from records)."""
    return {c: list(X[c].cat.categories) for c in X.columns if str(X[c].dtype) == "category"}


def cmd_fit(args) -> int:
    from .data import load_dataset
    from .rulelist import DPRuleListClassifier, GreedyRuleListClassifier

    X, y = load_dataset(args.data, binarized=True)
    Xtr, Xte, ytr, yte = _split(X, y, args.seed)
    if args.model == "greedy-rulelist":
        est = GreedyRuleListClassifier(max_rules=args.max_rules, min_support=args.min_support)
    else:
        est = DPRuleListClassifier(
            epsilon=args.epsilon, delta=args.delta, mechanism=args.mechanism,
            max_rules=args.max_rules, min_support=args.min_support,
        )
    est.fit(Xtr, ytr)
    print(est)
    print(f"test accuracy: {est.score(Xte, yte):.3f}")
    if hasattr(est, "privacy_ledger_"):
        print()
        print(est.privacy_ledger_.summary())
    if args.json:
        with open(args.json, "w") as fh:
            fh.write(est.rule_list_.to_json(indent=2))
        print(f"model written to {args.json}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="dpmodels", description="Differentially private interpretable models.")
    sub = p.add_subparsers(dest="command", required=True)

    d = sub.add_parser("demo", help="train a greedy and a DP rule list (and a DP tree) on bundled COMPAS")
    d.add_argument("--epsilon", type=float, default=1.0)
    d.add_argument("--seed", type=int, default=0, help="seed of the train/test split (not of the noise)")
    d.set_defaults(func=cmd_demo)

    f = sub.add_parser("fit", help="fit one model on a bundled binarized dataset and print it")
    f.add_argument("--data", default="compas")
    f.add_argument("--model", choices=["dp-rulelist", "greedy-rulelist"], default="dp-rulelist")
    f.add_argument("--mechanism", default="permute-and-flip")
    f.add_argument("--epsilon", type=float, default=1.0)
    f.add_argument("--delta", type=float, default=None)
    f.add_argument("--max-rules", type=int, default=5)
    f.add_argument("--min-support", type=float, default=0.05)
    f.add_argument("--seed", type=int, default=0, help="seed of the train/test split (not of the noise)")
    f.add_argument("--json", default=None, help="write the fitted model as JSON to this path")
    f.set_defaults(func=cmd_fit)

    from .cli_reproduce import add_parser as add_reproduce

    add_reproduce(sub)
    return p


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except (ValueError, TypeError) as exc:
        print(f"dpmodels: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
