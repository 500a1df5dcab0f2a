"""``dpmodels predict`` and ``dpmodels show``: use and read a saved model file.

``predict`` reads the CSV as text and parses each input column by the model's public schema (the
kinds ``dpmodels fit`` declared, or the categories and bounds the file holds), the same rule as at
fit time; ``show`` prints the model, its ledger with the verdict, and its public schema in the
format ``--schema`` reads.
"""

from __future__ import annotations

import contextlib
import sys

from ._common import UsageError, check_model_path, check_readable, guarded, is_bundled, one_line_errors

__all__ = ["add_parsers", "cmd_predict", "cmd_show"]


def add_parsers(sub) -> None:
    """Add ``predict`` and ``show`` to the ``dpmodels`` sub-command parser."""
    p = one_line_errors(
        sub.add_parser(
            "predict",
            help="predict with a saved model on a CSV file",
            description="Predict with a model saved by `dpmodels fit` on a CSV file (raw columns, as "
            "at fit time; extra columns such as the label are ignored).",
        )
    )
    p.add_argument("model", metavar="MODEL.json", help="a model file written by dpmodels fit")
    p.add_argument("data", metavar="DATA.csv", help="a CSV file with the model's input columns")
    p.add_argument(
        "--out", metavar="PREDICTIONS.csv", help="write the predictions here as CSV (default: print them to stdout)"
    )
    p.add_argument(
        "--proba",
        action="store_true",
        help="add one column of class probabilities per class (from the noisy counts); classifiers only",
    )
    p.add_argument("--id", metavar="COL", help="copy this column of the data into the output (default: none)")
    p.add_argument("--sep", default=",", metavar="SEP", help="CSV field separator (default: ',')")
    p.add_argument(
        "--max-memory",
        metavar="SIZE",
        help="the CSV is read, parsed and predicted in batches of about 1/16 of this, e.g. 2G "
        "(default: half the RAM, at most 8G, or DPMODELS_MAX_MEMORY)",
    )
    p.set_defaults(func=cmd_predict)

    s = one_line_errors(
        sub.add_parser(
            "show",
            help="print a saved model, its privacy ledger and its public schema",
            description="Print a saved model (header, rules), its privacy ledger with the verdict, and "
            "its public schema (in the format `dpmodels fit --schema` reads).",
        )
    )
    s.add_argument("model", metavar="MODEL.json", help="a model file written by dpmodels fit")
    s.add_argument("--raw", action="store_true", help="show the model as fitted (the default; kept for older scripts)")
    s.add_argument(
        "--compact",
        action="store_true",
        help="merge trailing rules that predict the default's class, and sibling leaves with the same label "
        "(post-processing: same predictions; the merged rows show the ids they hold)",
    )
    s.add_argument("--rules", action="store_true", help="also print get_rules() as a table")
    s.add_argument(
        "--plot",
        metavar="FILE.png|svg",
        help="also draw the model (a tree's nodes or one bar per rule, the privacy header as "
        "title) to this PNG or SVG file (needs matplotlib: the [plots] extra). Default: none",
    )
    s.set_defaults(func=cmd_show)


# ---------------------------------------------------------------------------- reading by schema
def _column_kinds(schema: dict, preprocessing=()) -> dict:
    """Input column -> (kind, declared values or None) from a model's public schema."""
    kinds: dict = {}
    for c, spec in (schema.get("columns") or {}).items():
        if isinstance(spec, dict) and spec.get("kind") in ("numerical", "categorical", "binary"):
            kinds[str(c)] = (spec["kind"], spec.get("categories"))
    for c, v in (schema.get("categories") or {}).items():
        kinds.setdefault(str(c), ("categorical", list(v)))
    for step in preprocessing:
        for c, v in (getattr(step, "categories_", None) or {}).items():
            kinds.setdefault(str(c), ("categorical", list(v)))
    return kinds


def parse_frame(df, features, kinds: dict):
    """The model's input columns parsed by their kinds (text read by :func:`~dpmodels.cli._common.read_csv_batches`).
    Categorical cells are matched to the declared values as values; binary cells are 0/1 or
    true/false; every other column must hold numbers (a one-line error names the column)."""
    import pandas as pd

    from .schema import parse_cells

    out = {}
    for c in features:
        kind, values = kinds.get(c, ("numerical", None))
        out[c] = parse_cells(df[c], c, kind, values=values, finite=False, declared="")
    return pd.DataFrame(out, index=df.index)


def _check_predict_columns(args, df, needed) -> None:
    if args.id is not None and args.id not in df.columns:
        raise UsageError(f"--id {args.id!r} is not a column of {args.data!r}")
    missing = [c for c in needed if c not in df.columns]
    if missing:
        raise UsageError(
            f"{args.data!r} lacks {len(missing)} column(s) the model needs: "
            f"{', '.join(repr(c) for c in missing[:5])}{' ...' if len(missing) > 5 else ''}"
        )


# ---------------------------------------------------------------------------- predict
@guarded
def cmd_predict(args) -> int:
    from .._paths import check_output_path
    from ._common import read_csv_batches

    if args.out is not None:
        check_output_path(args.out)
    if not is_bundled(args.data):
        check_readable(args.data)
    check_model_path(args.model)
    import pandas as pd

    from ..guards import limits, parse_bytes
    from ..io import load_model

    memory: contextlib.AbstractContextManager
    if args.max_memory is not None:
        try:
            memory = limits(max_memory=parse_bytes(args.max_memory))
        except ValueError as exc:
            raise UsageError(f"--max-memory: {exc}") from None
    else:
        memory = contextlib.nullcontext()

    model = load_model(args.model)
    if args.proba and model.kind == "regression_tree":  # the file's kind is public
        raise UsageError("--proba applies to classifiers; this model is a regression tree")
    if is_bundled(args.data):
        from ..data import load_dataset

        binarized = model.kind == "rule_list" and not model.preprocessing_
        X, _ = load_dataset(args.data.strip().lower(), binarized=binarized)
        X.columns = [str(c) for c in X.columns]
        _check_predict_columns(args, X, model.feature_names_in_)
        batches, parse = iter([X]), None
    else:  # one batch of text at a time: read, parse, predict, write (docs/benchmarks.md)
        feats, kinds = list(model.feature_names_in_), _column_kinds(model.schema, model.preprocessing_)
        batches = read_csv_batches(args.data, sep=args.sep)

        def parse(df):
            return parse_frame(df, feats, kinds)

    with memory, _predictions_out(args.out) as target:
        for k, df in enumerate(batches):
            if k == 0:
                _check_predict_columns(args, df, model.feature_names_in_)
            Xin = df if parse is None else parse(df)
            out = pd.DataFrame(index=df.index)
            if args.id is not None:
                out[args.id] = df[args.id]
            out["prediction"] = model.predict(Xin)
            if args.proba:
                P = model.predict_proba(Xin)
                for j, c in enumerate(model.classes_):
                    out[f"proba_{c}"] = P[:, j]
            out.to_csv(target, index=False, header=k == 0)
    if args.out is not None:
        print(f"predictions written to {args.out}", file=sys.stderr)
    return 0


@contextlib.contextmanager
def _predictions_out(path):
    """stdout, or a temporary file beside ``path`` renamed to it once every batch is written (a
    failure in a later batch leaves no partial file; on stdout, the rows of earlier batches are
    out already and the exit code says the run failed)."""
    if path is None:
        yield sys.stdout
        return
    import os
    import tempfile
    from pathlib import Path

    p = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{p.name}.", suffix=".part", dir=p.parent if str(p.parent) else ".")
    try:
        with os.fdopen(fd, "w", newline="", encoding="utf-8") as f:
            yield f
        os.replace(tmp, p)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


# ---------------------------------------------------------------------------- show
def _schema_of_model(model):
    """The model's public schema as :class:`~dpmodels.cli.schema.Declarations`."""
    from .schema import ColumnDecl, Declarations

    sch = model.schema
    leaked = {r.what for r in model.privacy_ledger_.leaks} if model.privacy_ledger_ is not None else set()
    if model.classes_ is None:  # a regressor, no label set: the label bounds the labels were clipped to
        dec = Declarations(
            label=sch.get("label"),
            n_public=sch.get("n_public"),
            label_bounds=tuple(model.model_.label_bounds),
            label_bounds_source="data" if "label bounds" in leaked else "user",
        )
    else:
        dec = Declarations(
            label=sch.get("label"),
            classes=list(sch.get("classes") or list(model.classes_)),
            n_public=sch.get("n_public"),
        )
    kinds = _column_kinds(sch, model.preprocessing_)
    bounds = sch.get("bounds") or {}
    cols = sch.get("columns") or {}
    for c in model.feature_names_in_:
        spec = cols.get(c)
        if not isinstance(spec, dict):
            spec = {}
        kind, values = kinds.get(c, ("numerical", None))
        d = ColumnDecl(kind, integer=bool(spec.get("integer", False)))
        if kind == "categorical":
            d.categories = list(values) if values else None
        if kind == "numerical":
            b = bounds.get(c) or spec.get("bounds")
            d.bounds = tuple(b) if b else None
            d.cut_points = spec.get("cut_points")
        if spec.get("source") == "dp":
            d.source = "dp"
        if (
            spec.get("source") == "data"
            or f"categories of feature {c!r}" in leaked
            or any(w.startswith(f"kind of column {c!r}") for w in leaked)
        ):
            d.source = "data"
        dec.columns[c] = d
    return dec


@guarded
def cmd_show(args) -> int:
    check_model_path(args.model)
    if args.plot is not None:
        from .._paths import check_output_path

        check_output_path(args.plot)
        if not str(args.plot).lower().endswith((".png", ".svg")):
            raise UsageError(f"--plot {args.plot!r}: the figure is written as .png or .svg")
    import pandas as pd

    from ..io import model_from_dict, read_model_json
    from ._common import shown_model
    from .schema import dump_yaml, schema_document

    doc = read_model_json(args.model)
    model_from_dict(doc, source=str(args.model), _values_checked=True)  # the file as it is: valid?
    model = shown_model(doc)  # printed from its strings escaped: text is a channel
    if args.compact and args.raw:
        raise UsageError("--compact and --raw ask for two different views; give one")
    from ..catalog import KINDS

    compact = KINDS[model.kind].compact  # the printing option --compact turns on, if the kind has one
    kw: dict = {} if compact is None else {compact: bool(args.compact)}
    print(model.to_text(**kw))
    print()
    if model.privacy_ledger_ is not None:
        from ..privacy.verdict import verdict

        print(model.privacy_ledger_.summary(verdict=verdict(model)))  # the seed flag counts too
    else:
        for v in model.privacy.get("verdict") or ["Privacy: unknown"]:
            print(v)
    print(
        "\nPublic schema (reusable: dpmodels fit --schema this-model.json; entries marked "
        "source: data were read from the data)"
    )
    print(dump_yaml(schema_document(_schema_of_model(model), list(model.feature_names_in_))).rstrip())
    for step in model.preprocessing_:
        print(f"preprocessing: {type(step).__name__}")
        sources: dict = getattr(step, "cut_point_source_", {})
        for c, cuts in (getattr(step, "cut_points_", None) or {}).items():
            how = {"public": "public", "dp": "DP quantiles", "data": "the data's quantiles: a leak"}
            cut_txt = ", ".join(f"{v:g}" for v in cuts) or "none"
            print(f"  {c}: cut points {cut_txt} ({how.get(str(sources.get(c)), str(sources.get(c, '?')))})")
    for k, v in (model.extra or {}).items():
        if isinstance(v, dict):
            v = ", ".join(f"{a}={b:.4g}" if isinstance(b, float) else f"{a}={b}" for a, b in v.items())
        elif isinstance(v, float):
            v = f"{v:.6g}"
        print(f"{k}: {v}")
    if args.plot is not None:
        from ..export import save_model_figure

        print(f"\nfigure written to {save_model_figure(model, args.plot)}")
    if args.rules:
        print()
        with pd.option_context("display.max_colwidth", 120, "display.width", 200):
            print(model.get_rules().drop(columns=["literals", "conditions"], errors="ignore").to_string(index=False))
    return 0
