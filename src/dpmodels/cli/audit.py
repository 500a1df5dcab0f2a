"""``dpmodels audit MODEL.json --train CSV --test CSV [--population CSV]``: what does a published
model leak?

Reads the CSVs as text and parses the model's input columns by the file's public schema (as
``dpmodels predict``); the label column is the file's ``schema.label`` or ``--label``, its cells
matched to the model's classes as values. Runs :func:`dpmodels.audit.audit_model` and prints its
verdict (the AUC, Dist_G, V and the ε lower bound beside the stated ε); ``--json`` and ``--html``
write the numbers and a self-contained report page. Every input is checked before any attack.
"""

from __future__ import annotations

import json
import os
import sys

from .._optional import available, missing
from ._common import UsageError, _nonneg_int, _pos_int, check_model_path, check_readable, guarded, one_line_errors

__all__ = ["add_parser", "cmd_audit"]


def _alpha(s):
    import argparse

    try:
        v = float(s)
    except ValueError:
        v = None
    if v is None or not 0.0 < v < 1.0:
        raise argparse.ArgumentTypeError(f"must be a number in (0, 1), got {s!r}")
    return v


def add_parser(sub) -> None:
    """Add ``audit`` to the ``dpmodels`` sub-command parser."""
    p = one_line_errors(
        sub.add_parser(
            "audit",
            help="what does a published model leak? (Dist_G, V, membership inference, ε lower bound)",
            description="Audit a model file written by `dpmodels fit` against its training records and "
            "held-out records: the reconstruction leak Dist_G with the per-record exposure, "
            "distributional-overfitting V with its permutation null, membership inference (the "
            "threshold attack; shadow, LiRA and RMIA with --population) and the empirical ε lower "
            "bound next to the model's stated ε. The audit reads the training records: its outputs "
            "are not a DP release.",
        )
    )
    p.add_argument("model", metavar="MODEL.json", help="a model file written by dpmodels fit")
    p.add_argument("--train", required=True, metavar="CSV", help="the model's training records (with the label)")
    p.add_argument(
        "--test",
        required=True,
        metavar="CSV",
        help="held-out records of the same distribution, not used in training (with the label)",
    )
    p.add_argument(
        "--population",
        metavar="CSV",
        help="population records disjoint from both, for the shadow, LiRA and RMIA attacks "
        "(reference models rebuilt from the file's learner and parameters). Default: none",
    )
    p.add_argument(
        "--label", metavar="COL", help="the label column (default: the model file's schema.label; required without it)"
    )
    p.add_argument("--json", metavar="FILE", help="write the numbers as JSON here (default: none)")
    p.add_argument(
        "--html",
        metavar="FILE",
        help="write a self-contained HTML report here: the model's picture, its ledger, the "
        "ROC and the per-record exposure (needs matplotlib: the [plots] extra). Default: none",
    )
    p.add_argument("--permutations", type=_nonneg_int, default=200, help="permutations of the V null (default: 200)")
    p.add_argument(
        "--n-reference",
        type=_pos_int,
        default=32,
        help="reference models per set for the population attacks (default: 32)",
    )
    p.add_argument(
        "--grid",
        type=_pos_int,
        default=None,
        help="values in the Dist_G domain of a continuous numerical feature (one declared integer-"
        "valued, with --integer or `integer: true`, gets every integer in its bounds). Default: 101, "
        "and the report says the default was used",
    )
    p.add_argument(
        "--alpha",
        type=_alpha,
        default=0.05,
        help="1 − confidence of the ε lower bound, split over the attacks (default: 0.05)",
    )
    p.add_argument(
        "--seed",
        type=int,
        default=0,
        help="seed of the audit's own randomness (splits, reference fits, permutations; it "
        "releases nothing). Default: 0",
    )
    p.add_argument("--sep", default=",", metavar="SEP", help="CSV field separator (default: ',')")
    p.set_defaults(func=cmd_audit)


def _read(path, what, model, label, sep):
    """(X parsed by the model's schema, labels matched to its classes) of one CSV."""
    from ._common import read_csv_text
    from .predict import _column_kinds, parse_frame
    from .schema import match_declared

    df = read_csv_text(path, sep=sep)
    need = list(model.feature_names_in_)
    missing = [c for c in need + [label] if c not in df.columns]
    if missing:
        raise UsageError(
            f"{what} {path!r} lacks the column(s) {', '.join(repr(c) for c in missing[:5])}"
            f"{' ...' if len(missing) > 5 else ''}"
        )
    if len(df) < 2:
        raise UsageError(f"{what} {path!r} has fewer than 2 rows")
    X = parse_frame(df, need, _column_kinds(model.schema, model.preprocessing_))
    if model.kind == "regression_tree":  # numbers: a regression loss, not classes
        import numpy as np
        import pandas as pd

        y_num = pd.to_numeric(df[label].str.strip(), errors="coerce")
        bad = ~np.isfinite(y_num.to_numpy(dtype=float))
        if bad.any():
            raise UsageError(f"{what} {path!r}: label {df[label][bad].iloc[0]!r} in column {label!r} is not a number")
        return X, y_num.to_numpy(dtype=float)
    classes = list(model.classes_.tolist())
    y = match_declared(df[label], classes, f"classes of {label!r}")
    # a matched cell is the declared class itself; an unmatched one stays its text
    known = y.isin(classes)
    if not bool(known.all()):
        bad = df[label][~known].iloc[0]
        raise UsageError(
            f"{what} {path!r}: label {bad!r} in column {label!r} is not one of the model's classes {classes}"
        )
    return X, y.to_numpy(dtype=object)


@guarded
def cmd_audit(args) -> int:  # noqa: C901 - in the table branch's area (the learner table read by the CLI); split after its merge
    from .._paths import check_output_path

    check_model_path(args.model)
    for path in (args.train, args.test) + ((args.population,) if args.population else ()):
        check_readable(path)
    for out, suffix in ((args.json, ".json"), (args.html, ".html")):
        if out is not None:
            check_output_path(out)
            if not str(out).lower().endswith((suffix, ".htm") if suffix == ".html" else suffix):
                raise UsageError(f"--{suffix[1:]} {out!r}: the file name must end with {suffix}")
    named = [("--train", args.train), ("--test", args.test), ("--population", args.population)]
    named = [(opt, os.path.realpath(x)) for opt, x in named if x]
    for i, (opt, path) in enumerate(named):
        for opt0, path0 in named[:i]:
            if path == path0:
                raise UsageError(
                    f"{opt0} and {opt} name the same file: members and non-members must be different records"
                )
    inputs = {os.path.realpath(x) for x in (args.model, args.train, args.test, args.population) if x}
    outs = [x for x in (args.json, args.html) if x is not None]
    for out in outs:
        if os.path.realpath(out) in inputs:
            raise UsageError(f"{out!r} is an input of this audit: writing the report there would overwrite it")
    if len(outs) == 2 and os.path.realpath(outs[0]) == os.path.realpath(outs[1]):
        raise UsageError("--json and --html name the same file")
    if args.html is not None:
        if not available("matplotlib"):
            raise UsageError(f"--html draws figures: {missing('matplotlib')}")

    from ..io import load_model

    model = load_model(args.model)
    label = model.schema.get("label") or args.label
    if args.label is not None:
        label = args.label
    if not label:
        raise UsageError("the model file names no label column: pass --label COL")
    X_tr, y_tr = _read(args.train, "--train", model, label, args.sep)
    X_te, y_te = _read(args.test, "--test", model, label, args.sep)
    X_pop = y_pop = None
    if args.population:
        X_pop, y_pop = _read(args.population, "--population", model, label, args.sep)

    from ..audit import audit_model

    audit = audit_model(
        model,
        X_tr,
        y_tr,
        X_te,
        y_te,
        X_pop=X_pop,
        y_pop=y_pop,
        grid=args.grid,
        n_permutations=args.permutations,
        n_reference=args.n_reference,
        alpha=args.alpha,
        random_state=args.seed,
        source=str(args.model),
    )
    print(audit.verdict())
    if args.json is not None:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(audit.to_dict(), f, indent=1, ensure_ascii=False, default=str)
        print(f"numbers written to {args.json}", file=sys.stderr)
    if args.html is not None:
        with open(args.html, "w", encoding="utf-8") as f:
            f.write(audit.to_html())
        print(f"report written to {args.html}", file=sys.stderr)
    return 0
