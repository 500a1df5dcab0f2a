"""``dpmodels fit``: a model on a user's CSV file (or a bundled dataset), printed and exported
with its guarantee.

::

    dpmodels fit --data train.csv --label income --model privatree --epsilon 1 \\
        --bounds age=17:90 --categories sex=Female,Male --classes '<=50K' '>50K' --out model.json
    dpmodels fit --data train.csv --schema schema.yaml --model dp-rulelist --out model.json

Decisions, written here because the help text can only summarise them (docs/privacy.md, "The
command line", gives the privacy argument for each):

* **Public inputs are declared**: ``--schema FILE`` (:mod:`dpmodels.cli.schema`), the options
  ``--classes``, ``--categories``, ``--bounds`` (``'*=LO:HI'`` for every column not declared
  otherwise), ``--cut-points``, ``--binary``, ``--n-public``, or for a bundled dataset its
  documentation (:func:`dpmodels.data.dataset_schema`). Anything undeclared is read from the data
  by the learner, which records a leak row in the model's ledger; each
  :class:`~dpmodels.privacy.PrivacyLeakWarning` prints as one line ``dpmodels: privacy leak: …``
  and the saved model says NOT PRIVATE.
* **The CSV is read as text and each column is parsed by its declaration**, never by pandas' type
  guessing: a numerical column's cells must be numbers (else a schema error naming the column,
  before anything is spent); a categorical column's cells are matched to the declared values *as
  values* (``0.0`` matches a declared ``0``; anything else is routed as unknown); a binary column
  holds 0/1 or true/false. Whether a rule list's columns go through the Binarizer follows from the
  declarations only (every column declared binary: no Binarizer).
* **The model is fitted on every row.** ``--holdout F`` opts into a held-out evaluation: each row
  is assigned by a keyed hash of its own cells (key ``--seed``), so the training rows of a file
  with one more row are the same rows plus at most that row, and the training and held-out parts
  are disjoint by a public per-record rule. The held-out accuracy is a DP release (noisy counts
  of right and wrong predictions, ``--eval-epsilon``, default the model's ε); by parallel
  composition the file-level guarantee stays the model's ε. No row count is printed.
* **Noise** comes from OS entropy unless ``--random-state`` is given; a seeded release is not
  private against whoever knows the seed: the CLI warns, the saved file records that the noise
  was seeded and never the seed.
* **Everything is checked before anything is spent**: option values, option/model combinations,
  the output paths, the data file, declared columns and kinds, every step's parameters, the labels
  against the label set, and the size guards.
"""

from __future__ import annotations

import argparse
import contextlib
import itertools
import warnings

from ..catalog import MECHANISMS, OPTIONS, Learner, Option, cli_learners, family, learner, takers
from ._common import (
    BUNDLED,
    OPTION_TYPES,
    UsageError,
    _bounds_item,
    _epsilon,
    _list_item,
    _pos_int,
    _seconds,
    check_readable,
    guarded,
    is_bundled,
    one_line_errors,
    read_csv_batches,
    shown_ledger_summary,
    shown_model,
)
from .schema import ColumnDecl, Declarations, apply_options, match_declared, parse_cells, read_schema_file

__all__ = ["add_parser", "cmd_fit", "MODELS", "MECHANISMS", "BUNDLED", "holdout_mask"]

# dpmodels.rulelist.private.BINARY_ONLY: mechanisms whose proofs cover two classes only
BINARY_MECHANISMS = ("sm-laplace", "sm-cauchy", "noisy-counts")
# the learners, their options, defaults and ranges: one table (dpmodels.catalog)
MODELS = tuple(entry.name for entry in cli_learners())


def _the(args) -> Learner:
    """The table's entry of ``--model``."""
    return learner(args.model)


# ---------------------------------------------------------------------------- parser
def add_parser(sub) -> None:
    """Add ``fit`` to the ``dpmodels`` sub-command parser."""
    f = one_line_errors(
        sub.add_parser(
            "fit",
            help="fit a rule list or a tree on a CSV file (or a bundled dataset), print it, save it",
            description="Fit a model on a CSV file or a bundled dataset, print it with its privacy "
            "ledger, and save it as JSON (with ε, δ, the ledger and the public schema). Public "
            "inputs are declared here or in --schema; anything undeclared is read from the data, which "
            "the model's ledger records as a leak (the model is then NOT private).",
            formatter_class=argparse.RawDescriptionHelpFormatter,
            epilog="examples:\n  dpmodels fit --data train.csv --label y --model privatree --epsilon 1 "
            "--bounds age=18:96 --categories sex=F,M --classes 0 1 --out model.json\n"
            "  dpmodels schema draft train.csv --label y > schema.yaml   # then edit it\n"
            "  dpmodels fit --data train.csv --schema schema.yaml --model dp-rulelist --out model.json",
        )
    )
    g = f.add_argument_group("data")
    g.add_argument(
        "--data",
        required=True,
        metavar="FILE.csv|NAME",
        help="a CSV file with a header row, or a bundled dataset name (adult, compas, "
        "german, ...: its documented schema is declared for you). Required.",
    )
    g.add_argument(
        "--label", metavar="COL", help="the label column of the CSV (required for a CSV unless --schema names it)"
    )
    g.add_argument("--sep", default=",", metavar="SEP", help="CSV field separator (default: ',')")
    g.add_argument(
        "--drop",
        nargs="+",
        action="extend",
        default=[],
        metavar="COL",
        help="columns to leave out (ids, free text). Default: none",
    )
    g = f.add_argument_group("model")
    g.add_argument(
        "--model",
        choices=MODELS,
        default="dp-rulelist",
        metavar="MODEL",
        help=_model_help(),
    )
    g = f.add_argument_group("public inputs (declared, never read from the data)")
    g.add_argument(
        "--schema",
        metavar="FILE",
        help="a YAML/JSON schema (label, classes, per-column kind, bounds, categories, "
        "cut points; see `dpmodels schema draft`) or a saved model whose schema is reused. "
        "The options below override it column by column. Default: none",
    )
    g.add_argument(
        "--categories",
        nargs="+",
        action="extend",
        type=_list_item("--categories"),
        default=[],
        metavar="COL=A,B,C",
        help="a categorical column and its category list; cells compare as values, "
        "others are routed as unknown. Repeatable. Default: none",
    )
    g.add_argument(
        "--bounds",
        nargs="+",
        action="extend",
        type=_bounds_item,
        default=[],
        metavar="COL=LO:HI",
        help="a numerical column and its public bounds (values outside are clipped); "
        "'*=LO:HI' declares every column not declared otherwise. Repeatable. Default: none",
    )
    g.add_argument(
        "--integer",
        nargs="+",
        action="extend",
        default=[],
        metavar="COL",
        help="numerical columns whose values are whole numbers (thresholds then print as "
        "integers: priors_count <= 2, not <= 2.629). Default: none",
    )
    g.add_argument(
        "--binary",
        nargs="+",
        action="extend",
        default=[],
        metavar="COL",
        help="binary columns (cells 0/1 or true/false). A rule list whose columns are all "
        "binary skips the Binarizer. Default: none",
    )
    g.add_argument(
        "--n-public",
        type=_pos_int,
        metavar="N",
        help="a public training-set size (or order of magnitude). Default: none (n is "
        "private; learners that need it estimate it privately or record a leak)",
    )
    g = f.add_argument_group("evaluation, randomness, output")
    g.add_argument("--no-split", action="store_true", help=argparse.SUPPRESS)  # the default now
    g.add_argument(
        "--seed",
        type=int,
        default=0,
        metavar="S",
        help="key of the per-row hash that assigns held-out rows (public: the assignment "
        "is a per-record rule); never the noise's seed (default: 0)",
    )
    g.add_argument(
        "--eval-epsilon",
        type=_epsilon,
        metavar="EPS",
        help="ε of the held-out accuracy (noisy counts of right and wrong predictions on "
        "the held-out rows; parallel to the training rows). Default: the model's ε, or 1",
    )
    g.add_argument(
        "--out",
        "--json",
        dest="out",
        metavar="MODEL.json",
        help="write the model (with ε, δ, ledger and schema) as JSON here. Default: not saved",
    )
    g.add_argument(
        "--max-seconds",
        type=_seconds,
        metavar="S",
        help="raise the limit on a fit's estimated seconds (default: 1800, or DPMODELS_MAX_SECONDS)",
    )
    g.add_argument("--quiet", action="store_true", help="print only the model and where it was saved")
    _add_learner_options(f)
    f.set_defaults(func=cmd_fit)


def _model_help() -> str:
    """``--model``'s help, from the table: which learners are private, which regress, which are
    additive."""

    def names(keep) -> str:
        return ", ".join(e.name for e in cli_learners() if keep(e))

    return (
        f"the learner (default: dp-rulelist). Private: {names(lambda e: e.private)}. Not private "
        f"(baselines): {names(lambda e: not e.private)}. Regressors (numeric labels, see --label-bounds): "
        f"{names(lambda e: not e.classifier)}. Additive models (one shape function per column): "
        f"{names(lambda e: e.kind == 'additive')}. Rule lists read binary columns: other columns are "
        "binarized first (see --cut-points)."
    )


def _add_learner_options(parser) -> None:
    """The options some learners take and others refuse (dpmodels.catalog.OPTIONS), one argparse
    group per set of learners taking them, titled by that set; each help ends with the defaults
    and ranges of the learners, from the table."""
    groups: dict = {}
    for opt in OPTIONS:
        who = takers(opt.name)
        if not who:
            continue
        key = tuple(e.name for e in who)
        if key not in groups:
            word = family(who)
            title = f"{word} ({', '.join(key)})" if word else f"options of {', '.join(key)}"
            groups[key] = parser.add_argument_group(title)
        kw: dict = {"dest": opt.name, "metavar": opt.metavar, "help": _option_help(opt, who)}
        if OPTION_TYPES[opt.type] is not None:
            kw["type"] = OPTION_TYPES[opt.type]
        if opt.choices:
            kw["choices"] = opt.choices
        if opt.many:
            kw["nargs"] = "+"
        if opt.repeatable:
            kw.update(action="extend", default=[])
        groups[key].add_argument(opt.flag, *opt.aliases, **kw)


def _option_help(opt: Option, who) -> str:
    """``opt.help``, then what it takes (a fixed list), its default and range for each learner."""
    text = opt.help
    if opt.choices:
        text += ": one of " + ", ".join(opt.choices)
    defaults = _by_learner(who, lambda e: e.defaults.get(opt.name, opt.default), lambda v: _said(opt, v))
    text += f". Default: {defaults}"
    ranges = _by_learner(who, lambda e: e.ranges.get(opt.name, opt.range), _span)
    if ranges != _span(None):
        text += f". Range: {ranges}"
    return text


def _by_learner(who, value, words) -> str:
    """``words(value(e))`` for the learners ``who``: one phrase when they agree, else one per value
    naming its learners."""
    seen: dict = {}
    for e in who:
        seen.setdefault(repr(value(e)), (value(e), []))[1].append(e.name)
    if len(seen) == 1:
        return words(next(iter(seen.values()))[0])
    return "; ".join(f"{', '.join(names)}: {words(v)}" for v, names in seen.values())


def _said(opt: Option, value) -> str:
    """A default in words: the table's words for it, else the value ("none" for no value)."""
    if value is None or value == []:
        return opt.says.get(None, "none")
    return opt.says.get(value, str(value))


def _span(rng) -> str:
    """A range ``(lo, hi)`` (None: no bound) in words."""
    lo, hi = rng if rng is not None else (None, None)
    if lo is not None and hi is not None:
        return f"in [{lo}, {hi}]"
    return f">= {lo}" if lo is not None else f"<= {hi}" if hi is not None else "any"


def _scope(opt: Option) -> str:
    """Who takes ``opt``, in words: a family of three or more learners by its name, else the names."""
    who = takers(opt.name)
    word = family(who)
    if word is not None and len(who) >= 3:
        return word
    names = [e.name for e in who]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


# ---------------------------------------------------------------------------- fit: checks
def _given(args, name) -> bool:
    return getattr(args, name, None) not in (None, [], False)


def _check_fit_args(args) -> None:
    """Option/model combinations and ranges, before anything is read or fitted."""
    entry = _the(args)
    for opt in OPTIONS:
        if _given(args, opt.name) and opt.name not in entry.all_options:
            why = f" ({opt.why})" if opt.why else ""
            raise UsageError(f"{opt.flag} applies to {_scope(opt)}, not to {args.model}{why}")
    if args.no_split and args.holdout is not None:
        raise UsageError("--holdout and --no-split exclude each other")
    if args.eval_epsilon is not None and args.holdout is None:
        raise UsageError("--eval-epsilon applies to a held-out evaluation (--holdout F)")
    if args.classes is not None:
        _check_label_count(args.model, len(args.classes), args.mechanism, "--classes")
    if args.classes is not None and len(set(args.classes)) != len(args.classes):
        raise UsageError("--classes has duplicate labels")
    _check_ranges(args, entry)
    _check_column_options(args)
    if args.max_memory is not None:
        from ..guards import parse_bytes

        parse_bytes(args.max_memory)
    if entry.private and args.random_state is not None:
        warnings.warn(
            "--random-state seeds the noise: the model is NOT private against whoever "
            "knows the seed (use it for reproducible research only)",
            UserWarning,
            stacklevel=2,
        )


def _check_ranges(args, entry: Learner) -> None:
    """The option ranges (dpmodels.catalog: an option's own, narrowed by the learner's)."""
    for opt in OPTIONS:
        own = entry.ranges.get(opt.name)
        lo, hi = own or opt.range or (None, None)
        v = getattr(args, opt.name, None)
        if not isinstance(v, int) or isinstance(v, bool):  # not given, or privatree's "auto" depth
            continue
        if (lo is not None and v < lo) or (hi is not None and v > hi):
            who = f" for {args.model}" if own else ""
            raise UsageError(f"{opt.flag} must be {_span((lo, hi))}{who}, got {v}")


def _check_column_options(args) -> None:
    """Each column declared once, with one kind."""
    for what, names in (
        ("--bounds", [n for n, _ in args.bounds]),
        ("--categories", [n for n, _ in args.categories]),
        ("--cut-points", [n for n, _ in args.cut_points]),
        ("--binary", list(args.binary)),
        ("--drop", list(args.drop)),
        ("--integer", list(args.integer)),
    ):
        dup = {n for n in names if names.count(n) > 1}
        if dup:
            raise UsageError(f"{what} declares {sorted(dup)[0]!r} twice")
    kinds = [
        ("categorical", {n for n, _ in args.categories}),
        ("numerical", {n for n, _ in args.bounds if n != "*"} | {n for n, _ in args.cut_points}),
        ("binary", set(args.binary)),
        ("dropped", set(args.drop)),
    ]
    for i, (k1, s1) in enumerate(kinds):
        for k2, s2 in kinds[i + 1 :]:
            both = s1 & s2
            if both:
                raise UsageError(f"column {sorted(both)[0]!r} is declared both {k1} and {k2}")
    if any(n == "*" for n, _ in args.cut_points + args.categories):
        raise UsageError("the wildcard '*' applies to --bounds only ('*=LO:HI')")


def _check_label_count(model: str, k: int, mechanism, where: str) -> None:
    """How many labels a classifier's label set may have (public: the declaration only). Rule
    lists take K >= 2 labels, but optimal-rulelist (its bounds are two-class) and the dp-rulelist
    mechanisms whose proofs are binary (docs/privacy.md, "Rule lists over K classes") take
    exactly 2: refused here, before anything is read or spent."""
    if k < 2:
        raise UsageError(f"{where}: the label set needs at least 2 labels, got {k}")
    if k == 2:
        return
    reason = learner(model).binary_only
    if reason is not None:
        raise UsageError(f"{where}: {model} is binary ({reason}): exactly 2 labels, got {k}")
    if mechanism in BINARY_MECHANISMS:  # dp-rulelist's (the only learner with --mechanism)
        raise UsageError(
            f"{where}: mechanism {mechanism!r} is for two classes only (its sensitivity proof is "
            f"binary); got {k} labels: use permute-and-flip or a gl-* mechanism"
        )


def _fill_defaults(args) -> None:
    """Each option not given takes its default (dpmodels.catalog: the learner's own, else the
    option's)."""
    entry = _the(args)
    for opt in OPTIONS:
        default = entry.defaults.get(opt.name, opt.default)
        if default is not None and getattr(args, opt.name, None) is None:
            setattr(args, opt.name, default)
    if args.eval_epsilon is None and args.holdout is not None:
        args.eval_epsilon = args.epsilon if entry.private else 1.0


# ---------------------------------------------------------------------------- fit: data
def _declarations(args) -> Declarations:
    """Bundled documentation, then ``--schema``, then the options (module docstring)."""
    dec = Declarations()
    if is_bundled(args.data):
        dec = _bundled_declarations(args.data.strip().lower(), binarized=_binarized(args))
    if args.schema is not None:
        if is_bundled(args.data):
            raise UsageError("--schema applies to a CSV file; a bundled dataset's schema is its documentation")
        dec = read_schema_file(args.schema)
    dec = apply_options(dec, args)
    if not _the(args).classifier:
        # a numeric label has no label set: one in a schema (a draft lists the label's values,
        # a bundled dataset its classes) is not used; --classes was refused above
        dec.classes = None
    elif dec.label_bounds is not None:
        dec.label_bounds = None  # a regression label's bounds, not used by a classifier
    if dec.classes is not None:
        if len({str(c) for c in dec.classes}) != len(dec.classes):
            raise UsageError("the label set has duplicate labels")
        _check_label_count(args.model, len(dec.classes), args.mechanism, "the label set")
    return dec


def _binarized(args) -> bool:
    """A rule list reads a bundled dataset's documented binarization when it has one (nursery has
    none: its raw categorical columns go through the Binarizer)."""
    from ..data import list_datasets

    return _the(args).kind == "rule_list" and args.data.strip().lower() in list_datasets(binarized=True)


def _bundled_declarations(name: str, *, binarized: bool) -> Declarations:
    from ..data import dataset_schema, load_dataset

    X, y = load_dataset(name, binarized=binarized)
    dec = Declarations(label=str(y.name))
    if binarized:  # a documented binarization: every column is 0/1 by construction
        dec.columns = {str(c): ColumnDecl("binary") for c in X.columns}
        try:
            dec.classes = list(dataset_schema(name).classes)
        except ValueError:
            dec.classes = None
        return dec
    try:
        sch = dataset_schema(name)
    except ValueError:
        return dec
    dec.classes = list(sch.classes)
    for c, v in sch.categories.items():
        dec.columns[str(c)] = ColumnDecl("categorical", categories=list(v))
    for c, v in sch.bounds.items():
        integer = c in getattr(sch, "integer", ())
        cast = int if integer else float
        dec.columns[str(c)] = ColumnDecl("numerical", bounds=(cast(v[0]), cast(v[1])), integer=integer)
    return dec


def _load_fit_data(args, dec: Declarations):
    """``(X, y, dec, leaks)``: features typed by their declarations, labels matched to the label
    set, and what had to be read from the data (each a leak row of the fit)."""
    leaks = [(w, "a schema entry marked `source: data` (a draft's value kept as is)") for w in dec.data_sourced()]
    if is_bundled(args.data):
        from ..data import load_dataset

        name = args.data.strip().lower()
        X, y = load_dataset(name, binarized=_binarized(args))
        if args.label is not None and args.label != y.name:
            raise UsageError(f"--label {args.label!r}: the label of bundled {name!r} is {y.name!r}")
        X.columns = [str(c) for c in X.columns]
        _check_declared_columns(X.columns, dec, args)
        X = X.drop(columns=[c for c in X.columns if dec.kind(c) == "drop"])
        if args.classes is not None:  # text on the command line, matched to the documented labels
            documented = _bundled_declarations(name, binarized=_binarized(args)).classes
            dec.classes = _match_labels(args.classes, documented or [0, 1])
        return X, y, dec, leaks
    if dec.label is None:
        raise UsageError(
            "--label is required with a CSV file (the name of the label column), or a --schema that names it"
        )
    batches = read_csv_batches(args.data, sep=args.sep)  # the text of one batch at a time
    first = next(batches)
    columns = list(first.columns)
    if dec.label not in columns:
        raise UsageError(
            f"--label {dec.label!r} is not a column of {args.data!r} "
            f"(columns: {', '.join(columns[:8])}{', ...' if len(columns) > 8 else ''})"
        )
    _check_declared_columns([c for c in columns if c != dec.label], dec, args)
    feats = [c for c in columns if c != dec.label and dec.kind(c) != "drop"]
    if not feats:
        raise UsageError("no feature column is left after the label and the dropped columns")
    X, y = _parse_batches(itertools.chain([first], batches), feats, dec, args, leaks)
    return X, y, dec, leaks


def _parse_batches(batches, feats, dec: Declarations, args, leaks):
    """``(X, y)`` parsed batch by batch: each batch's text is parsed by the declarations and
    dropped, so the peak is the typed columns plus one batch of text (docs/benchmarks.md,
    "Reading a CSV"). The result, the leak rows and the error raised (the first column in
    the order label, features whose parse fails anywhere) are those of parsing the whole file
    at once: a column whose kind or label set is read from the data (a leak) keeps its text
    until the end, since that reading looks at the whole column."""
    import pandas as pd

    entry = _the(args)
    whole_label = entry.classifier and dec.classes is None and entry.kind != "rule_list"
    later = {c for c in feats if dec.kind(c) is None} | ({dec.label} if whole_label else set())
    order = [dec.label, *feats]
    pieces: dict = {c: [] for c in order}
    failed: dict = {}
    for df in batches:
        for c in order:
            if c in failed:
                continue
            if c in later:
                pieces[c].append(df[c])
                continue
            try:
                parsed = (
                    _parse_labels(df[c], dec, args, leaks) if c == dec.label else _parse_column(df[c], c, dec, leaks)
                )
            except UsageError as exc:
                failed[c], pieces[c] = exc, []
                continue
            pieces[c].append(parsed)
        del df
    cols = {}
    for c in order:
        if c in failed:
            raise failed[c]
        col = pieces.pop(c)
        col = col[0] if len(col) == 1 else pd.concat(col)
        if c in later:
            col = _parse_labels(col, dec, args, leaks) if c == dec.label else _parse_column(col, c, dec, leaks)
        cols[c] = col
    y = cols.pop(dec.label)
    return pd.DataFrame(cols, index=y.index), y


def _check_declared_columns(columns, dec: Declarations, args) -> None:
    """Every declared column exists: a misspelled name is an error, never silently ignored."""
    cols = set(map(str, columns))
    for c in dec.columns:
        if c not in cols and c != dec.label:
            src = "--schema" if args.schema is not None else "a declaration"
            for opt, names in (
                ("--categories", [n for n, _ in args.categories]),
                ("--bounds", [n for n, _ in args.bounds]),
                ("--cut-points", [n for n, _ in args.cut_points]),
                ("--binary", args.binary),
                ("--drop", args.drop),
                ("--integer", args.integer),
            ):
                if c in names:
                    src = opt
            raise UsageError(f"{src}: {c!r} is not a column of the data")


def _match_labels(given, labels):
    """Declared labels given as text, matched to the bundled dataset's label values."""
    by_text = {str(c): c for c in labels}
    out = []
    for g in given:
        if g not in by_text:
            raise UsageError(f"--classes {g!r} is not a label of this dataset ({list(by_text)})")
        out.append(by_text[g])
    return out


def _parse_labels(cells, dec: Declarations, args, leaks):
    """Labels matched to the declared label set as values; rule lists default to {0, 1}; a tree
    without a label set reads it from the data (the learner records that leak). A regressor's
    labels are numbers (an empty or non-numeric cell is an error naming the column); with
    declared label bounds they are clipped to them."""
    if not _the(args).classifier:
        import numpy as np
        import pandas as pd

        y = pd.to_numeric(cells.str.strip(), errors="coerce").to_numpy(dtype=float)
        if np.isnan(y).any():
            raise UsageError(
                f"the label column {dec.label!r} holds an empty or non-numeric cell "
                "(privatree-regressor's labels are numbers)"
            )
        if dec.label_bounds is not None:
            y = np.clip(y, *dec.label_bounds)
        elif not np.isfinite(y).all():
            raise UsageError(
                f"the label column {dec.label!r} holds a value too large for a float and "
                "there are no declared label bounds to clip it to (--label-bounds LO:HI)"
            )
        return pd.Series(y, index=cells.index, name=cells.name)
    if dec.classes is not None:
        return match_declared(cells, dec.classes, "the label set")
    if _the(args).kind == "rule_list":
        return match_declared(cells, [0, 1], "the label set")
    import pandas as pd

    nums = pd.to_numeric(cells.str.strip(), errors="coerce")
    if len(cells) and nums.notna().all():  # the label set is read from the data anyway (a leak)
        return nums.astype("int64") if (nums == nums.round()).all() else nums
    return cells


def _parse_column(cells, c: str, dec: Declarations, leaks):
    """One column, parsed by its declared kind (module docstring); an undeclared column's kind is
    read from its cells, a leak."""
    import numpy as np
    import pandas as pd

    kind = dec.kind(c)
    if kind is None:
        nums = pd.to_numeric(cells.str.strip(), errors="coerce")
        kind = "numerical" if len(cells) and np.isfinite(nums.to_numpy(dtype=float)).all() else "categorical"
        leaks.append(
            (
                f"kind of column {c!r} ({kind})",
                f"Declare it: --bounds {c}=LO:HI, --categories {c}=A,B, --binary {c}, --drop {c}, or --schema.",
            )
        )
        dec.columns[c] = ColumnDecl(kind, source="data")
    d = dec.columns.get(c)
    return parse_cells(cells, c, kind, values=d.categories if d is not None else None, bounds=dec.bounds(c))


def _check_bounds_complete(X, dec: Declarations, *, binarizer: bool) -> None:
    """Declared bounds must cover every numerical column (but those with public cut points), or be
    absent: half a declaration is refused before anything is spent."""
    num = [c for c in X.columns if dec.kind(c) == "numerical"]
    need = [c for c in num if not (binarizer and dec.columns.get(c) is not None and dec.columns[c].cut_points)]
    have = [c for c in need if dec.bounds(c) is not None]
    missing = [c for c in need if dec.bounds(c) is None]
    if have and missing:
        raise UsageError(
            f"bounds are declared for some numerical columns but not {', '.join(repr(c) for c in missing[:4])}"
            f"{' ...' if len(missing) > 4 else ''}: declare bounds (or cut points) for every numerical "
            "column, or none (they are then read from the data, which is not private)"
        )


# ---------------------------------------------------------------------------- fit: estimators
def _categories_of(X, dec: Declarations) -> dict:
    out = {}
    for c in X.columns:
        d = dec.columns.get(c)
        if d is None:
            continue
        if d.kind == "binary":
            out[c] = [0, 1]
        elif d.kind == "categorical" and d.categories is not None:
            out[c] = list(d.categories)
    return out


def _bounds_of(X, dec: Declarations) -> dict:
    return {c: dec.bounds(c) for c in X.columns if dec.kind(c) == "numerical" and dec.bounds(c) is not None}


def _estimator(args, X, dec: Declarations):
    """The learner of ``--model``, its parameters taken from the options and the declarations
    (:func:`_learner_params`)."""
    return _the(args).cls(**_learner_params(args, X, dec))


def _learner_params(args, X, dec: Declarations) -> dict:
    """The constructor parameters of ``--model`` (dpmodels.catalog: ``Learner.params``) from the
    options and the declarations. A parameter the learner takes only when given (dp-rulelist's
    mechanism and δ) keeps the class's default otherwise."""
    entry = _the(args)
    declared = {
        "classes": lambda: dec.classes,
        "label_bounds": lambda: dec.label_bounds,
        "n_public": lambda: dec.n_public,
        "bounds": lambda: _bounds_of(X, dec) or None,
        "categories": lambda: _categories_of(X, dec) or None,
    }
    kw = {}
    for name in entry.params:
        value = declared[name]() if name in declared else getattr(args, name)
        if value is not None or name not in entry.given_only:
            kw[name] = value
    return kw


def _rule_list_pipeline(args, X, dec: Declarations):
    """``(steps, estimator)``: columns all declared binary go straight to the learner; otherwise a
    :class:`~dpmodels.data.Binarizer` comes first. Decided from the declarations, never from the
    cells (docs/privacy.md, "The command line")."""
    if all(dec.kind(c) == "binary" for c in X.columns):
        return [], _estimator(args, X, dec)
    return _binarizer_pipeline(args, X, dec)


def _binarizer_pipeline(args, X, dec: Declarations):
    """A :class:`~dpmodels.data.Binarizer` then the rule list.

    Numerical columns are cut at their public cut points (free); the others at ``--n-bins``
    quantiles. A private rule list is :func:`dpmodels.pipeline.make_private_rule_list`'s pipeline:
    DP quantiles within the declared bounds (JointExp, a share ``--binarizer-share`` of ε, the
    rest to the learner, both spent through one :class:`~dpmodels.privacy.BudgetAccountant` so
    the model's ledger covers both steps), or without declared bounds the data's quantiles (a
    leak) and all of ε to the learner. The non-private baselines cut at the data's quantiles (a
    leak, as they read the data anyway). Categorical and binary columns are one-hot over their
    declared values.
    """
    cats = _categories_of(X, dec)
    cuts = {c: list(d.cut_points) for c in X.columns if (d := dec.columns.get(c)) is not None and d.cut_points}
    bounds = {c: b for c, b in _bounds_of(X, dec).items() if c not in cuts}
    need = [c for c in X.columns if dec.kind(c) == "numerical" and c not in cuts]  # quantiles
    integer = [c for c in need if (d := dec.columns.get(c)) is not None and d.integer] or None
    if not _the(args).private:
        from ..data import Binarizer

        binarizer = Binarizer(
            cut_points=cuts or None,
            n_bins=args.n_bins,
            bounds=bounds or None,
            categories=cats or None,
            integer_features=integer,
        )
        return [binarizer], _estimator(args, X, dec)
    from ..pipeline import make_private_rule_list

    params = _learner_params(args, X, dec)
    epsilon, classes = params.pop("epsilon"), params.pop("classes")
    pipe = make_private_rule_list(
        epsilon=epsilon,
        classes=classes,
        bounds=bounds or None,
        categories=cats or None,
        cut_points=cuts or None,
        n_bins=args.n_bins,
        binarizer_share=args.binarizer_share,
        integer_features=integer,
        accountant=_drafted_accountant(args, dec, params),
        **params,
    )
    return [pipe[0]], pipe[-1]


def _drafted_accountant(args, dec: Declarations, params: dict):
    """With a DP-drafted schema whose values the fit uses (``source: dp``), the accountant of the
    fit plus the draft: the learner merges the draft's ledger (it travels with X) into it, so the
    pipeline's total is draft + fit. None otherwise (the pipeline's own, of ε and the learner's δ)."""
    if dec.draft is None or not dec.dp_sourced():
        return None
    from ..privacy import BudgetAccountant

    _, delta = _the(args).cls(epsilon=args.epsilon, **params).privacy_params()  # the learner's δ
    led0 = dec.draft["ledger"]
    return BudgetAccountant(args.epsilon + led0.epsilon, delta + led0.delta)


# ---------------------------------------------------------------------------- fit: checks on data
def _check_estimator_params(est) -> None:
    """The learner's own parameter checks (they read no data), before anything is fitted."""
    from ..privacy.steps import ParamCheck

    if isinstance(est, ParamCheck):  # dpmodels.privacy.steps
        est._check_params()


def _check_labels(y, dec: Declarations, *, binary: bool) -> None:
    """Labels outside the declared set (or outside {0, 1} for rule lists without a label set)
    are a schema error: raised before any step is fitted, with the learner's own message."""
    if dec.classes is None and not binary:
        return  # the learner reads the label set from the data (a leak it records)
    from ..validation import check_y, resolve_classes

    resolve_classes(dec.classes, check_y(y), None, binary=binary)


def _identifier_hint(X, dec: Declarations) -> str:
    """When a size guard trips and a categorical column has many values read from the data (an
    identifier, free text), the column to leave out."""
    wide = sorted(
        ((X[c].nunique(), c) for c in X.columns if dec.kind(c) == "categorical" and dec.columns[c].categories is None),
        reverse=True,
    )
    if wide and wide[0][0] > 50:
        return (
            f" — column {wide[0][1]!r} has {wide[0][0]} distinct values read from the data (an "
            f"identifier or free text?): leave it out with --drop {wide[0][1]}, or declare its categories"
        )
    return ""


def _limits(args):
    from ..guards import limits

    kw = {}
    if args.max_candidates is not None:
        kw["max_candidates"] = args.max_candidates
    if args.max_memory is not None:
        kw["max_memory"] = args.max_memory
    if args.max_seconds is not None:
        kw["max_seconds"] = args.max_seconds
    return limits(**kw)


# ---------------------------------------------------------------------------- held-out rows
def holdout_mask(rows, share: float, key: int):
    """Which rows are held out: a keyed hash of each row's own cells, compared with ``share``.

    A per-record rule: a row's assignment depends on its content and the public key only, so
    the training rows of ``D + x`` are the training rows of ``D`` plus at most ``x`` (identical rows
    go the same way). Never a permutation of row positions, which reshuffles hundreds of rows when
    one is added (docs/privacy.md, "The command line").
    """
    import numpy as np
    import pandas as pd

    key16 = f"{int(key) & (2**64 - 1):016x}"[-16:]
    h = pd.util.hash_pandas_object(rows.astype(str), index=False, hash_key=key16).to_numpy(dtype=np.uint64)
    return (h >> np.uint64(11)).astype(np.float64) / float(2**53) < share


def _dp_accuracy(model, Xte, yte, epsilon, random_state):
    """``(accuracy estimate or None, ledger)``: noisy counts of right and wrong predictions on the
    held-out rows (one histogram, L1 sensitivity 1: ε-DP on those rows)."""
    import numpy as np

    from ..privacy import PrivacyLedger, check_random_state
    from ..privacy.mechanisms import noisy_histogram

    ledger = PrivacyLedger(epsilon)
    right = (
        int(np.sum(np.asarray(model.predict(Xte), dtype=object) == np.asarray(yte, dtype=object))) if len(yte) else 0
    )
    counts = np.array([right, len(yte) - right], dtype=np.int64)
    noisy = noisy_histogram(
        counts,
        epsilon,
        check_random_state(random_state),
        ledger=ledger,
        what="held-out accuracy: counts of right and wrong predictions",
    )
    r, w = (max(float(v), 0.0) for v in noisy)
    return (r / (r + w) if r + w > 0 else None), ledger


# ---------------------------------------------------------------------------- fit
@guarded
def cmd_fit(args) -> int:
    from .._paths import check_output_path

    _check_fit_args(args)
    _fill_defaults(args)
    if args.out is not None:
        check_output_path(args.out)
    if is_parquet(args.data):
        dec = _declarations(args)
        if dec.dp_sourced():
            raise UsageError(
                "a DP-drafted schema (source: dp) is not yet supported with Parquet data: fit the CSV, "
                "or declare the values (source: user)"
            )
        return _fit_parquet(args, dec)
    if not is_bundled(args.data):
        check_readable(args.data)
    from ..guards import ResourceLimitError

    dec = _declarations(args)
    with _limits(args):  # --max-memory sets the CSV's batch size too
        X, y, dec, leaks = _load_fit_data(args, dec)  # pandas only: errors about the data come fast
    X = _with_draft(X, dec)
    entry = _the(args)
    _check_bounds_complete(X, dec, binarizer=entry.kind == "rule_list")
    steps, est = _steps(args, X, dec)
    if entry.classifier:  # a regressor's labels were parsed as numbers
        binary = entry.binary_only is not None or (entry.kind == "rule_list" and dec.classes is None)
        _check_labels(y, dec, binary=binary)
    from ..pipeline import validate_before_spend

    try:  # every step's checks, the labels and the size guards, before the first step spends
        with _limits(args):
            validate_before_spend([*steps, est], X, y)
    except ResourceLimitError as exc:
        raise UsageError(str(exc).splitlines()[0] + _identifier_hint(X, dec)) from None
    Xte, yte = _fit(args, steps, est, X, y, dec)
    _record_leaks(est, steps, leaks)
    if steps:
        from sklearn.pipeline import make_pipeline

        model = make_pipeline(*steps, est)
    else:
        model = est
    print(shown_model(model).to_text())  # what `dpmodels show` will print
    if not args.quiet:
        _print_evaluation(args, model, est, Xte, yte)
    if args.out is not None:
        _save(args, model, dec, _saved_columns(X, dec), explicit_sources=True)
    return 0


def _fit(args, steps, est, X, y, dec: Declarations):
    """Fit the steps then the learner on the training rows (every row, or those ``--holdout``
    leaves); returns the held-out ``(X, y)`` (None, None without a held-out part)."""
    from ..guards import ResourceLimitError
    from ..validation import empty_fits_allowed

    if args.holdout is None:
        Xtr, ytr, Xte, yte = X, y, None, None
    else:
        test = holdout_mask(X.assign(**{"\x00label": y}), args.holdout, args.seed)
        Xtr, ytr, Xte, yte = X[~test], y[~test], X[test], y[test]
    try:  # the training part is chosen by a per-record rule: it may be empty, a valid DP fit
        with _limits(args), empty_fits_allowed() if args.holdout is not None else contextlib.nullcontext():
            Z = Xtr
            for step in steps:
                Z = step.fit_transform(Z, ytr)
            est.fit(Z, ytr)
    except ResourceLimitError as exc:
        raise UsageError(str(exc).splitlines()[0] + _identifier_hint(X, dec)) from None
    return Xte, yte


def _record_leaks(est, steps, leaks) -> None:
    """What this command read from the data on the learner's behalf: leak rows of the learner's
    ledger (or the first step's), else a warning."""
    led = getattr(est, "privacy_ledger_", None)
    for what, note in leaks:
        target = led if led is not None else getattr(steps[0], "privacy_ledger_", None) if steps else None
        if target is not None:
            target.record_leak(what, note)
        else:
            warnings.warn(f"{what} read from the private data. {note}", _leak_warning(), stacklevel=3)


def _print_evaluation(args, model, est, Xte, yte) -> None:
    """The DP held-out accuracy (with ``--holdout``) and the ledger's summary."""
    if Xte is not None:
        acc, _ = _dp_accuracy(model, Xte, yte, args.eval_epsilon, args.random_state)
        txt = f"{acc:.3f}" if acc is not None else "not estimable (the noisy counts are <= 0)"
        print(
            f"\nheld-out accuracy (DP, ε = {args.eval_epsilon:g} on the held-out rows, parallel to "
            f"training; share {args.holdout:g} by a keyed per-row hash): {txt}"
        )
    print()
    led = getattr(est, "privacy_ledger_", None)
    print(
        shown_ledger_summary(led, _verdict(model))  # the model's verdict: its seeds count too
        if led is not None
        else "Privacy: NOT PRIVATE — a non-private learner (a baseline): no privacy ledger."
    )


def _save(args, model, dec: Declarations, columns, *, explicit_sources: bool) -> None:
    """Write the model with its public schema: the label, each column's declaration and (for a
    CSV fit) every source (user / dp / data) and the DP draft's ledger, so that ``--schema
    model.json`` reuses them without turning a data value into a declaration."""
    from ..io import save_model
    from .schema import schema_document

    sch = schema_document(dec, columns, explicit_sources=explicit_sources)
    if explicit_sources:
        extra = {k: v for k, v in sch.items() if k in ("columns", "draft") or k.endswith("_source")}
        extra["label"] = dec.label
    else:
        extra = {"label": dec.label, "columns": sch["columns"]}
    path = save_model(model, args.out, schema_extra=extra)
    print(f"\nmodel written to {path}")


def _steps(args, X, dec: Declarations):
    """``(preprocessing steps, learner)`` of ``--model``, their parameters checked (no data read):
    a rule list may come after a Binarizer (:func:`_rule_list_pipeline`), the others stand alone."""
    if _the(args).kind == "rule_list":
        steps, est = _rule_list_pipeline(args, X, dec)
    else:
        steps, est = [], _estimator(args, X, dec)
    for step in steps:
        step._check_params()  # the Binarizer's own checks (no data read)
    _check_estimator_params(est)
    return steps, est


def _with_draft(X, dec: Declarations):
    """``X`` carrying the DP draft's release when the fit uses its values (``source: dp``): the
    learner merges the draft's ledger into its own (dpmodels.privacy.accountant, "Earlier releases
    travel with their output"), so the model's totals and verdict are draft + fit."""
    if dec.draft is None or not dec.dp_sourced():
        return X
    from ..privacy.accountant import PROVENANCE_ATTR

    X = X.copy(deep=False)
    record = {
        "owner": "schema draft",
        "id": dec.draft["id"],
        "accountant": None,
        "ledger": dec.draft["ledger"].to_dict(),
    }
    X.attrs[PROVENANCE_ATTR] = [record]
    return X


def _saved_columns(X, dec: Declarations) -> list:
    """The columns whose declarations the model file keeps: the features, then the dropped ones
    (so ``--schema model.json`` drops them again)."""
    return [*X.columns, *(c for c, d in dec.columns.items() if d.kind == "drop" and c not in X.columns)]


def _verdict(model):
    """The one verdict of the fitted model (dpmodels.privacy.verdict): what the file will say."""
    from ..privacy.verdict import verdict

    return verdict(model)


def _leak_warning():
    from ..privacy.ledger import PrivacyLeakWarning

    return PrivacyLeakWarning


# ---------------------------------------------------------------------------- fit: Parquet, streamed
def is_parquet(path) -> bool:
    """A ``.parquet`` file, or a folder holding some: the data are streamed, never loaded whole."""
    from pathlib import Path

    p = Path(path)
    return (p.is_file() and p.suffix == ".parquet") or (p.is_dir() and any(p.rglob("*.parquet")))


def _fit_parquet(args, dec: Declarations) -> int:
    """``dpmodels fit --data events.parquet``: the learners that stream (dpmodels.catalog:
    ``Learner.streams``: PrivaTree, GreedyRL, the DP rule list, the DP additive models) by count
    passes over pyarrow batches (:mod:`dpmodels.tree.privatree.streaming`,
    :mod:`dpmodels.rulelist._partitioned`; a rule list's raw columns go through a
    :class:`~dpmodels.data.Binarizer` fitted by its own pass). The whole schema must be declared
    (--schema or the options): nothing is read from the data but counts."""
    from ..data.sources import ParquetSource

    feats = _parquet_features(args, dec)
    try:
        source = ParquetSource(args.data, label=dec.label, columns=feats)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    import pandas as pd

    steps, est = _steps(args, pd.DataFrame(columns=feats), dec)
    from ..guards import ResourceLimitError

    try:
        with _limits(args):
            if steps:
                from ..pipeline import make_private_pipeline

                model = make_private_pipeline(*steps, est).fit(source)
            else:
                model = est.fit(source)
    except ResourceLimitError as exc:
        raise UsageError(str(exc).splitlines()[0]) from None
    if steps:  # saved as the in-memory command saves it: a plain pipeline of the fitted steps
        from sklearn.pipeline import make_pipeline

        model = make_pipeline(*steps, est)
    print(shown_model(model).to_text())
    if not args.quiet:
        print(f"\nstreamed {source.n_partitions} Parquet file(s) in record batches")
        _print_evaluation(args, model, est, None, None)
    if args.out is not None:
        cols = [*feats, *(c for c, d in dec.columns.items() if d.kind == "drop" and c not in feats)]
        _save(args, model, dec, cols, explicit_sources=False)
    return 0


def _parquet_features(args, dec: Declarations) -> list:
    """The feature columns of a Parquet fit, once every one of them (and the label set or label
    bounds) is declared: streamed data are never read for a declaration."""
    entry = _the(args)
    if not entry.streams:
        streamed = ", ".join(e.name for e in cli_learners() if e.streams)
        raise UsageError(f"--data with Parquet streams for {streamed} only, not {args.model}")
    if args.holdout is not None:
        raise UsageError("--holdout is not available when streaming Parquet")
    if dec.label is None:
        raise UsageError("--label is required with Parquet data (or a --schema that names it)")
    if not entry.classifier:
        if dec.label_bounds is None:
            raise UsageError("Parquet data is streamed: declare the label bounds (--label-bounds or --schema)")
    elif dec.classes is None:
        raise UsageError("Parquet data is streamed: declare the label set (--classes or --schema)")
    try:
        import pyarrow.parquet as pq
    except ImportError:
        raise UsageError("Parquet data needs pyarrow: pip install 'dpmodels[distributed]'") from None
    from pathlib import Path

    data = Path(args.data)
    files = sorted(data.rglob("*.parquet")) if data.is_dir() else [data]
    names = [c for c in pq.read_schema(files[0]).names]
    if dec.label not in names:
        raise UsageError(f"--label {dec.label!r} is not a column of {args.data!r}")
    feats = [c for c in names if c != dec.label and dec.kind(c) != "drop"]
    if not feats:
        raise UsageError("no feature column is left after the label and the dropped columns")
    for c in feats:
        k = dec.kind(c)
        cut = (d := dec.columns.get(c)) is not None and bool(d.cut_points)
        if (
            k is None
            or (k == "numerical" and dec.bounds(c) is None and not (cut and entry.kind == "rule_list"))
            or (k == "categorical" and dec.columns[c].categories is None)
        ):
            raise UsageError(
                f"column {c!r} is not fully declared: Parquet data is streamed, so every column needs "
                f"--bounds {c}=LO:HI, --categories {c}=A,B, --binary {c} or --drop {c} (or --schema)"
            )
    return feats
