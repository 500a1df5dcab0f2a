"""Command line: ``dpmodels demo | fit | predict | show | audit | schema | reproduce``.

One module per job: :mod:`~dpmodels.cli._common` (one-line errors and warnings, argparse types,
reading a CSV as text), :mod:`~dpmodels.cli.fit`, :mod:`~dpmodels.cli.predict` (``predict`` and
``show``), :mod:`~dpmodels.cli.schema` (schema files and ``schema draft``),
:mod:`~dpmodels.cli.reproduce`, :mod:`~dpmodels.cli.audit`. This module holds ``main`` and ``demo``.
"""

from __future__ import annotations

import argparse
import sys
import time

__all__ = ["main"]


def _rule(title: str) -> str:
    return f"\n{title}\n{'=' * len(title)}"


def _split(X, y, seed):
    from sklearn.model_selection import train_test_split

    return train_test_split(X, y, test_size=0.3, random_state=seed, stratify=y)


def cmd_demo(args) -> int:
    from ..data import load_dataset
    from ..privacy.verdict import verdict
    from ..rulelist import DPRuleListClassifier, GreedyRuleListClassifier

    X, y = load_dataset("compas", binarized=True)
    Xtr, Xte, ytr, yte = _split(X, y, args.seed)
    print(
        f"COMPAS (binarized, bundled): {X.shape[0]} records, {X.shape[1]} binary features; "
        f"label {y.name} (see dpmodels/data/_bundled/NOTICE.md). 70/30 split."
    )

    t = time.perf_counter()
    # binarized COMPAS: 0/1 features and labels (the rule lists' default label set {0, 1})
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
    print(dp.privacy_ledger_.summary(verdict=verdict(dp)))

    from ..data import dataset_schema
    from ..tree import PrivaTreeClassifier

    # The public schema of raw COMPAS — label set, category lists, numerical bounds — comes from
    # ProPublica's documentation (dpmodels.data.schema), not from the file: nothing below is read
    # from the records outside the tree's mechanisms, so the ledger has no leak row.
    schema = dataset_schema("compas")
    Xr, yr = load_dataset("compas", binarized=False)
    Xtr, Xte, ytr, yte = _split(Xr, yr, args.seed)
    t = time.perf_counter()
    tree = PrivaTreeClassifier(epsilon=args.epsilon, max_depth=3, **schema.fit_params()).fit(Xtr, ytr)
    tt = time.perf_counter() - t
    print(_rule(f"DP decision tree (PrivaTree, ε = {args.epsilon:g}) on raw COMPAS"))
    print(tree)
    print(f"test accuracy: {tree.score(Xte, yte):.3f}   (fit {tt * 1000:.0f} ms)")
    print()
    print(tree.privacy_ledger_.summary(verdict=verdict(tree)))
    return 0


def build_parser() -> argparse.ArgumentParser:
    from .. import __version__
    from ._common import one_line_errors

    p = one_line_errors(
        argparse.ArgumentParser(prog="dpmodels", description="Differentially private interpretable models.")
    )
    p.add_argument("--version", action="version", version=f"dpmodels {__version__}")
    sub = p.add_subparsers(dest="command", required=True)

    d = one_line_errors(
        sub.add_parser("demo", help="train a greedy and a DP rule list (and a DP tree) on bundled COMPAS")
    )
    d.add_argument("--epsilon", type=float, default=1.0, help="privacy budget of the DP models (default: 1.0)")
    d.add_argument("--seed", type=int, default=0, help="seed of the train/test split (not of the noise)")
    d.set_defaults(func=cmd_demo)

    from . import audit, card, fit, predict, reproduce, schema, schema_check

    fit.add_parser(sub)
    predict.add_parsers(sub)
    audit.add_parser(sub)
    card.add_parser(sub)
    schema_check.add_check_parser(schema.add_parser(sub))  # `schema check`: the local pre-flight
    reproduce.add_parser(sub)
    return p


def main(argv=None) -> int:
    from ._common import terminal_output

    with terminal_output():  # every printed text has its control characters escaped
        args = build_parser().parse_args(argv)
        try:
            return args.func(args)
        except (ValueError, TypeError) as exc:
            print(f"dpmodels: error: {exc}", file=sys.stderr)
            return 2


if __name__ == "__main__":
    sys.exit(main())
