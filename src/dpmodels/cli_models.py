"""``dpmodels fit | predict | show``: models on a user's CSV file, exported with their guarantee.

::

    dpmodels fit --data train.csv --label income --model privatree --epsilon 1 \\
        --bounds age=17:90 --categories sex=Female,Male --classes '<=50K' '>50K' --out model.json
    dpmodels predict model.json new.csv --out predictions.csv --proba
    dpmodels show model.json

Decisions, written here because the help text can only summarise them:

* **Public inputs are declared on the command line** (``--classes``, ``--categories``,
  ``--bounds``, ``--cut-points``, ``--n-public``), or for a bundled dataset taken from its
  documentation (:func:`dpmodels.data.dataset_schema`). Anything left undeclared is read from
  the data by the learner, which records a leak row in the model's ledger; the CLI prints each
  :class:`~dpmodels.privacy.PrivacyLeakWarning` as one line ``dpmodels: privacy leak: …`` and the
  saved model says NOT PRIVATE. A partial ``--bounds`` (some numerical columns without bounds)
  is refused: declare all or none.
* **Columns declared categorical are read as text**, so ``--categories grade=1,2,3`` matches a
  column of numbers; the label column is read as text when ``--classes`` is given.
* **Held-out evaluation**: by default 30 % of the rows (``--test-size``) are held out and the
  model is fitted on the rest; the printed held-out accuracy is computed on your test rows, is
  not a DP release and is not saved. ``--no-split`` fits on every row (for the model you publish).
  The split is random with ``--seed`` (default 0); it is *not* stratified (no decision depends on
  the labels).
* **Noise** comes from OS entropy unless ``--random-state`` is given; a seeded release is not
  private against whoever knows the seed: the CLI warns, the saved file records that the noise
  was seeded and never the seed.
* **Everything is checked before anything is fitted**: option values, option/model combinations,
  the output paths (a writable directory, not a directory itself), the data file, declared
  columns. Every bad input prints one line on stderr and exits non-zero (2 for bad input, 1 for
  a failure while fitting, 3 for an internal error); never a traceback unless
  ``DPMODELS_DEBUG=1``.
"""

from __future__ import annotations

import argparse
import functools
import math
import os
import sys
import types
import warnings
from pathlib import Path

__all__ = ["add_parsers", "cmd_fit", "cmd_predict", "cmd_show", "MODELS"]

# dpmodels.rulelist.MECHANISMS, written out so that building the parser imports no scikit-learn
# (`dpmodels --help` and argument errors answer in ~0.1 s); tests/test_cli_models.py checks it
MECHANISMS = ("permute-and-flip", "sm-laplace", "sm-cauchy", "gl-laplace", "gl-gaussian",
              "gl-exponential", "noisy-counts")
RULE_LISTS = ("greedy-rulelist", "dp-rulelist", "optimal-rulelist")
TREES = ("privatree", "bdpt", "dpgdf")
MODELS = RULE_LISTS + TREES
PRIVATE = ("dp-rulelist", "privatree", "bdpt", "dpgdf")

_DEFAULTS = {  # model-specific defaults, filled in after parsing (the help text lists them)
    "epsilon": 1.0,
    "max_rules": 5,
    "min_support": {"optimal-rulelist": 0.01, None: 0.05},
    "max_width": 2,
    "max_depth": 4,
    "max_bins": 10,
    "n_bins": 3,
    "binarizer_share": 0.1,
}


class UsageError(ValueError):
    """Bad command-line input (exit code 2)."""


# ---------------------------------------------------------------------------- one-line errors
def _one_line_error(self, message):
    """argparse's error on one line (no usage block): ``dpmodels fit: error: …``."""
    self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def one_line_errors(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    parser.error = types.MethodType(_one_line_error, parser)
    return parser


def _err(msg: str) -> None:
    print(f"dpmodels: error: {msg}", file=sys.stderr)


def _guarded(fn):
    """Run a command; bad input and failures become one line on stderr and an exit code."""

    @functools.wraps(fn)
    def run(args) -> int:
        try:
            with _one_line_warnings():
                return fn(args)
        except UsageError as exc:
            _err(str(exc))
            return 2
        except (ValueError, TypeError) as exc:
            _err(str(exc).splitlines()[0] if str(exc) else type(exc).__name__)
            return 2
        except BrokenPipeError:  # the reader went away (`dpmodels predict ... | head`)
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())  # no second error when Python flushes stdout
            return 141
        except (OSError, MemoryError) as exc:
            _err(f"{type(exc).__name__}: {exc}")
            return 1
        except KeyboardInterrupt:
            _err("interrupted")
            return 130
        except Exception as exc:  # noqa: BLE001 - one line instead of a traceback
            from .privacy.ledger import BudgetExceededError

            if isinstance(exc, BudgetExceededError):
                _err(f"BudgetExceededError: {exc}")
                return 1
            if os.environ.get("DPMODELS_DEBUG") == "1":
                raise
            _err(f"internal error {type(exc).__name__}: {exc} (DPMODELS_DEBUG=1 shows the traceback)")
            return 3

    return run


class _one_line_warnings:
    """Show every warning as one line on stderr: ``dpmodels: privacy leak: …`` for
    :class:`PrivacyLeakWarning`, ``dpmodels: warning: …`` for the others."""

    def __enter__(self):
        self._ctx = warnings.catch_warnings()
        self._ctx.__enter__()
        warnings.simplefilter("always")
        warnings.filterwarnings("ignore", category=DeprecationWarning)
        warnings.filterwarnings("ignore", category=FutureWarning)

        seen = set()

        def show(message, category, filename, lineno, file=None, line=None):
            text = " ".join(str(message).split())
            if text in seen:  # the same warning twice (a check run before the fit and in it)
                return
            seen.add(text)
            from .privacy.ledger import PrivacyLeakWarning

            if issubclass(category, PrivacyLeakWarning):
                print(f"dpmodels: privacy leak: {text}{_cli_hint(text)}", file=sys.stderr)
            else:
                print(f"dpmodels: warning: {text}", file=sys.stderr)

        warnings.showwarning = show
        return self

    def __exit__(self, *exc):
        return self._ctx.__exit__(*exc)


def _cli_hint(text: str) -> str:
    """The command-line option that declares what a leak warning says was read."""
    import re

    m = re.match(r"categories of feature '(.+?)'", text)
    if m:
        return f" (CLI: --categories {m.group(1)}=A,B,...)"
    if text.startswith("label set"):
        return " (CLI: --classes A B)"
    if text.startswith("bounds"):
        return " (CLI: --bounds COL=LO:HI for every numerical column)"
    if text.startswith("training-set size"):
        return " (CLI: --n-public N)"
    m = re.match(r"quantiles of feature '(.+?)'", text)
    if m:
        return (f" (CLI: --cut-points {m.group(1)}=C1,C2 for public thresholds, or --bounds "
                f"{m.group(1)}=LO:HI with dp-rulelist for private quantiles)")
    return ""


# ---------------------------------------------------------------------------- argument types
def _number(kind, ok, valid: str):
    """An argparse type: ``kind(s)`` (int or float) accepted when ``ok(value)``; otherwise argparse's
    one-line error "must be <valid>, got '<s>'"."""

    def parse(s):
        try:
            v = kind(s)
        except ValueError:
            v = None
        if v is None or not ok(v):
            raise argparse.ArgumentTypeError(f"must be {valid}, got {s!r}")
        return v

    return parse


_epsilon = _number(float, lambda v: v > 0 and math.isfinite(v), "a finite number > 0")
_delta = _number(float, lambda v: 0.0 <= v < 1.0, "a number in [0, 1)")
_pos_int = _number(int, lambda v: v >= 1, "a positive integer")
_nonneg_int = _number(int, lambda v: v >= 0, "an integer >= 0")
_seconds = _number(float, lambda v: v > 0 and math.isfinite(v), "a number of seconds > 0")


def _fraction(lo_open=True):
    if lo_open:
        return _number(float, lambda v: 0.0 < v < 1.0, "a number in (0, 1)")
    return _number(float, lambda v: 0.0 <= v < 1.0, "a number in [0, 1)")


def _name_value(s, what):
    name, sep, value = s.partition("=")
    if not sep or not name.strip() or not value.strip():
        raise argparse.ArgumentTypeError(f"{what} must look like NAME={'LO:HI' if what == '--bounds' else 'A,B,C'}, got {s!r}")
    return name.strip(), value


def _bounds_item(s):
    name, value = _name_value(s, "--bounds")
    lo, sep, hi = value.partition(":")
    try:
        a, b = float(lo), float(hi)
    except ValueError:
        raise argparse.ArgumentTypeError(f"--bounds {s!r}: LO and HI must be numbers (NAME=LO:HI)") from None
    if not sep or not (math.isfinite(a) and math.isfinite(b)) or a > b:
        raise argparse.ArgumentTypeError(f"--bounds {s!r}: need finite LO <= HI (NAME=LO:HI)")
    return name, (a, b)


def _list_item(what):
    def parse(s):
        name, value = _name_value(s, what)
        vals = [v.strip() for v in value.split(",")]
        if any(v == "" for v in vals):
            raise argparse.ArgumentTypeError(f"{what} {s!r}: empty value in the list")
        if len(set(vals)) != len(vals):
            raise argparse.ArgumentTypeError(f"{what} {s!r}: duplicate values")
        return name, vals

    return parse


def _cut_item(s):
    name, vals = _list_item("--cut-points")(s)
    try:
        cuts = [float(v) for v in vals]
    except ValueError:
        raise argparse.ArgumentTypeError(f"--cut-points {s!r}: cut points must be numbers") from None
    if any(not math.isfinite(c) for c in cuts):
        raise argparse.ArgumentTypeError(f"--cut-points {s!r}: cut points must be finite")
    return name, sorted(cuts)


# ---------------------------------------------------------------------------- parsers
def add_parsers(sub) -> None:
    """Add ``fit``, ``predict`` and ``show`` to the ``dpmodels`` sub-command parser."""
    f = one_line_errors(sub.add_parser(
        "fit",
        help="fit a rule list or a tree on a CSV file (or a bundled dataset), print it, save it",
        description="Fit a model on a CSV file or a bundled dataset, print it with its privacy "
        "ledger, and save it as JSON (with ε, δ, the ledger and the public schema). Public "
        "inputs are declared here; anything undeclared is read from the data, which the model's "
        "ledger records as a leak (the model is then NOT private).",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="example:\n  dpmodels fit --data train.csv --label y --model privatree --epsilon 1 "
        "--bounds age=18:96 --categories sex=F,M --classes 0 1 --out model.json",
    ))
    g = f.add_argument_group("data")
    g.add_argument("--data", required=True, metavar="FILE.csv|NAME",
                   help="a CSV file with a header row, or a bundled dataset name (adult, compas, "
                   "german, ...: its documented schema is declared for you). Required.")
    g.add_argument("--label", metavar="COL",
                   help="the label column of the CSV (required for a CSV; a bundled dataset has its own)")
    g.add_argument("--sep", default=",", metavar="SEP", help="CSV field separator (default: ',')")
    g.add_argument("--drop", nargs="+", default=[], metavar="COL",
                   help="columns to leave out (ids, free text). Default: none")
    g = f.add_argument_group("model")
    g.add_argument("--model", choices=MODELS, default="dp-rulelist",
                   help="the learner (default: dp-rulelist). Private: dp-rulelist, privatree, bdpt, "
                   "dpgdf. Not private (baselines): greedy-rulelist, optimal-rulelist. Rule lists "
                   "read binary columns: raw columns are binarized first (see --cut-points).")
    g.add_argument("--epsilon", type=_epsilon, metavar="EPS",
                   help="total privacy budget ε > 0 of a private model (default: 1.0); not "
                   "allowed for the non-private models")
    g.add_argument("--delta", type=_delta, metavar="DELTA",
                   help="δ in [0, 1) for dp-rulelist mechanisms that need it (default: 0, or the "
                   "mechanism's default with --n-public)")
    g.add_argument("--mechanism", choices=MECHANISMS, metavar="MECH",
                   help="dp-rulelist only: one of " + ", ".join(MECHANISMS)
                   + " (default: permute-and-flip, pure ε-DP)")
    g.add_argument("--max-rules", type=_pos_int, metavar="K",
                   help="rule lists: length including the default rule (default: 5)")
    g.add_argument("--min-support", type=_fraction(lo_open=False), metavar="λ",
                   help="rule lists: minimum support in [0, 1) (default: 0.05; optimal-rulelist 0.01)")
    g.add_argument("--max-width", type=_pos_int, metavar="W",
                   help="greedy-rulelist / dp-rulelist: literals per rule (default: 2)")
    g.add_argument("--time-limit", type=_seconds, metavar="S",
                   help="optimal-rulelist: seconds before returning the best list found with its "
                   "gap (default: none, search to optimality)")
    g.add_argument("--max-depth", type=_nonneg_int, metavar="D",
                   help="trees: maximum depth (default: 4; bdpt/dpgdf need >= 1)")
    g.add_argument("--max-bins", type=_pos_int, metavar="B",
                   help="privatree / bdpt: bins per numerical column (default: 10)")
    g = f.add_argument_group("public inputs (declared, never read from the data)")
    g.add_argument("--classes", nargs="+", metavar="LABEL",
                   help="the label set, in order (rule lists: exactly 2, negative then positive). "
                   "Default: rule lists {0, 1}; trees read it from the data (a leak)")
    g.add_argument("--categories", nargs="+", action="extend", type=_list_item("--categories"),
                   default=[], metavar="COL=A,B,C",
                   help="category list of a categorical column; the column is read as text. "
                   "Undeclared text columns are read from the data (a leak). Repeatable. Default: none")
    g.add_argument("--bounds", nargs="+", action="extend", type=_bounds_item, default=[],
                   metavar="COL=LO:HI",
                   help="public bounds of a numerical column (values outside are clipped). Declare "
                   "all numerical columns or none (none: read from the data, a leak). Repeatable. Default: none")
    g.add_argument("--cut-points", nargs="+", action="extend", type=_cut_item, default=[],
                   metavar="COL=C1,C2",
                   help="rule lists: public thresholds of a numerical column (no privacy cost). "
                   "Repeatable. Default: none")
    g.add_argument("--n-bins", type=_pos_int, metavar="K",
                   help="rule lists: bins per numerical column without cut points (default: 3); "
                   "private quantiles within --bounds, or the data's quantiles (a leak) without")
    g.add_argument("--binarizer-share", type=_fraction(), metavar="S",
                   help="dp-rulelist: share of ε spent on the binarizer's private quantiles when "
                   "numerical columns have --bounds and no --cut-points (default: 0.1)")
    g.add_argument("--n-public", type=_pos_int, metavar="N",
                   help="a public training-set size (or order of magnitude). Default: none (n is "
                   "private; learners that need it estimate it privately or record a leak)")
    g = f.add_argument_group("evaluation, randomness, output")
    g.add_argument("--test-size", type=_fraction(), metavar="F",
                   help="share of rows held out to print a test accuracy (default: 0.3); the model "
                   "is fitted on the rest. The accuracy is not a DP release and is not saved")
    g.add_argument("--no-split", action="store_true",
                   help="fit on every row and print no test accuracy (the model you publish)")
    g.add_argument("--seed", type=int, default=0, metavar="S",
                   help="seed of the train/test split only, never of the noise (default: 0)")
    g.add_argument("--random-state", type=int, metavar="S",
                   help="seed the privacy noise (reproducible research). NOT private against "
                   "whoever knows the seed. Default: none (OS entropy)")
    g.add_argument("--out", "--json", dest="out", metavar="MODEL.json",
                   help="write the model (with ε, δ, ledger and schema) as JSON here. Default: "
                   "not saved")
    g.add_argument("--max-candidates", type=_pos_int, metavar="N",
                   help="raise the rule-candidate limit (default: 500000, or DPMODELS_MAX_CANDIDATES)")
    g.add_argument("--max-memory", metavar="SIZE",
                   help="raise the memory limit of a tree fit, e.g. 16G (default: half the RAM, "
                   "at most 8G, or DPMODELS_MAX_MEMORY)")
    g.add_argument("--max-seconds", type=_seconds, metavar="S",
                   help="raise the limit on a fit's estimated seconds (default: 1800, or "
                   "DPMODELS_MAX_SECONDS)")
    g.add_argument("--quiet", action="store_true", help="print only the model and where it was saved")
    f.set_defaults(func=cmd_fit)

    p = one_line_errors(sub.add_parser(
        "predict", help="predict with a saved model on a CSV file",
        description="Predict with a model saved by `dpmodels fit` on a CSV file (raw columns, as "
        "at fit time; extra columns such as the label are ignored).",
    ))
    p.add_argument("model", metavar="MODEL.json", help="a model file written by dpmodels fit")
    p.add_argument("data", metavar="DATA.csv", help="a CSV file with the model's input columns")
    p.add_argument("--out", metavar="PREDICTIONS.csv",
                   help="write the predictions here as CSV (default: print them to stdout)")
    p.add_argument("--proba", action="store_true",
                   help="add one column of class probabilities per class (from the noisy counts)")
    p.add_argument("--id", metavar="COL",
                   help="copy this column of the data into the output (default: none)")
    p.add_argument("--sep", default=",", metavar="SEP", help="CSV field separator (default: ',')")
    p.set_defaults(func=cmd_predict)

    s = one_line_errors(sub.add_parser(
        "show", help="print a saved model, its privacy ledger and its public schema",
        description="Print a saved model (header, rules), its privacy ledger with the verdict, and "
        "its public schema.",
    ))
    s.add_argument("model", metavar="MODEL.json", help="a model file written by dpmodels fit")
    s.add_argument("--raw", action="store_true",
                   help="show the model as fitted (no merging of trailing rules / sibling leaves)")
    s.add_argument("--rules", action="store_true", help="also print get_rules() as a table")
    s.set_defaults(func=cmd_show)


# ---------------------------------------------------------------------------- fit: checks
def _given(args, name) -> bool:
    return getattr(args, name, None) not in (None, [], False)


def _check_fit_args(args) -> None:
    """Option/model combinations and ranges, before anything is read or fitted."""
    m = args.model
    is_rl, private = m in RULE_LISTS, m in PRIVATE
    only = {
        "epsilon": (PRIVATE, "private models"),
        "delta": (("dp-rulelist",), "dp-rulelist (the trees are pure ε-DP)"),
        "mechanism": (("dp-rulelist",), "dp-rulelist"),
        "max_rules": (RULE_LISTS, "rule lists"),
        "min_support": (RULE_LISTS, "rule lists"),
        "max_width": (("greedy-rulelist", "dp-rulelist"), "greedy-rulelist and dp-rulelist"),
        "time_limit": (("optimal-rulelist",), "optimal-rulelist"),
        "max_depth": (TREES, "trees (privatree, bdpt, dpgdf)"),
        "max_bins": (("privatree", "bdpt"), "privatree and bdpt"),
        "cut_points": (RULE_LISTS, "rule lists (trees choose their own thresholds)"),
        "n_bins": (RULE_LISTS, "rule lists"),
        "binarizer_share": (("dp-rulelist",), "dp-rulelist"),
        "random_state": (PRIVATE, "private models (the others draw no noise)"),
        "max_candidates": (("greedy-rulelist", "dp-rulelist"), "greedy-rulelist and dp-rulelist"),
        "max_memory": (TREES, "trees"),
    }
    for name, (models, what) in only.items():
        if _given(args, name) and m not in models:
            raise UsageError(f"--{name.replace('_', '-')} applies to {what}, not to {m}")
    if args.no_split and args.test_size is not None:
        raise UsageError("--test-size and --no-split exclude each other")
    if is_rl and args.classes is not None and len(args.classes) != 2:
        raise UsageError(f"rule lists are binary: --classes needs exactly 2 labels, got {len(args.classes)}")
    if args.classes is not None and len(set(args.classes)) != len(args.classes):
        raise UsageError("--classes has duplicate labels")
    if m in ("bdpt", "dpgdf") and args.max_depth == 0:
        raise UsageError(f"--max-depth must be >= 1 for {m}")
    if m == "privatree" and args.max_depth is not None and args.max_depth > 20:
        raise UsageError(f"--max-depth must be <= 20 for privatree, got {args.max_depth}")
    if args.max_bins is not None and m == "privatree" and not 2 <= args.max_bins <= 255:
        raise UsageError(f"--max-bins must be in [2, 255] for privatree, got {args.max_bins}")
    if args.n_bins is not None and not 2 <= args.n_bins <= 256:
        raise UsageError(f"--n-bins must be in [2, 256], got {args.n_bins}")
    if args.max_bins is not None and m == "bdpt" and args.max_bins < 2:
        raise UsageError(f"--max-bins must be >= 2 for bdpt, got {args.max_bins}")
    for what, items in (("--bounds", args.bounds), ("--categories", args.categories),
                        ("--cut-points", args.cut_points)):
        names = [n for n, _ in items]
        dup = {n for n in names if names.count(n) > 1}
        if dup:
            raise UsageError(f"{what} declares {sorted(dup)[0]!r} twice")
    cat = {n for n, _ in args.categories}
    both = cat & ({n for n, _ in args.bounds} | {n for n, _ in args.cut_points})
    if both:
        raise UsageError(f"column {sorted(both)[0]!r} is declared both categorical and numerical")
    if args.max_memory is not None:
        from .guards import parse_bytes

        parse_bytes(args.max_memory)
    if private and args.random_state is not None:
        warnings.warn("--random-state seeds the noise: the model is NOT private against whoever "
                      "knows the seed (use it for reproducible research only)", UserWarning)


def _fill_defaults(args) -> None:
    m = args.model
    for name, default in _DEFAULTS.items():
        if getattr(args, name, None) is None:
            if isinstance(default, dict):
                default = default.get(m, default[None])
            setattr(args, name, default)
    if args.test_size is None:
        args.test_size = 0.3


# ---------------------------------------------------------------------------- fit: data
# the bundled datasets (dpmodels.data.list_datasets(); checked by the tests) without importing them
BUNDLED = ("adult", "australian-credit", "breast-w", "compas", "diabetes", "german",
           "heart-cleveland", "mushroom", "nursery", "tic-tac-toe", "vote")


def _is_bundled(name: str) -> bool:
    return name.strip().lower() in BUNDLED and not Path(name).exists()


def _check_readable(path) -> Path:
    p = Path(path)
    if not p.exists():
        raise UsageError(f"data file {str(p)!r} does not exist (nor is it a bundled dataset name)")
    if p.is_dir():
        raise UsageError(f"data path {str(p)!r} is a directory, not a CSV file")
    if not os.access(p, os.R_OK):
        raise UsageError(f"data file {str(p)!r} is not readable")
    return p


def _read_csv(path, *, sep, text_columns=()):
    """Read a CSV; the given columns as text (their declared values are text)."""
    import pandas as pd

    p = _check_readable(path)
    try:
        header = pd.read_csv(p, sep=sep, nrows=0)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError, ValueError) as exc:
        raise UsageError(f"cannot read {str(p)!r} as CSV: {' '.join(str(exc).split())}") from None
    cols = [str(c) for c in header.columns]
    dtype = {c: str for c in text_columns if c in cols}
    try:
        df = pd.read_csv(p, sep=sep, dtype=dtype, keep_default_na=True)
    except (pd.errors.ParserError, UnicodeDecodeError, ValueError) as exc:
        raise UsageError(f"cannot read {str(p)!r} as CSV: {' '.join(str(exc).split())}") from None
    df.columns = [str(c) for c in df.columns]
    if df.shape[0] == 0:
        raise UsageError(f"{str(p)!r} has no data rows")
    return df


def _load_fit_data(args):
    """``(X, y, schema)``: features, labels and the declared public inputs (dict)."""
    from .data import dataset_schema, load_dataset

    declared = {
        "classes": list(args.classes) if args.classes else None,
        "categories": {n: v for n, v in args.categories},
        "bounds": {n: v for n, v in args.bounds},
        "cut_points": {n: v for n, v in args.cut_points},
    }
    if _is_bundled(args.data):
        name = args.data.strip().lower()
        binarized = args.model in RULE_LISTS
        X, y = load_dataset(name, binarized=binarized)
        if args.label is not None and args.label != y.name:
            raise UsageError(f"--label {args.label!r}: the label of bundled {name!r} is {y.name!r}")
        try:
            sch = dataset_schema(name)
        except ValueError:
            sch = None
        if sch is not None:
            if declared["classes"] is None:
                declared["classes"] = list(sch.classes)
            else:  # labels of the bundled data are the schema's: declared text must name them
                declared["classes"] = _match_labels(declared["classes"], list(sch.classes))
            if not binarized:
                declared["categories"] = {**{c: list(v) for c, v in sch.categories.items()},
                                          **declared["categories"]}
                declared["bounds"] = {**{c: tuple(float(b) for b in v) for c, v in sch.bounds.items()},
                                      **declared["bounds"]}
        X = X.drop(columns=[c for c in args.drop if c in X.columns])
        _check_columns(X, args)
        return X, y, declared
    if args.label is None:
        raise UsageError("--label is required with a CSV file (the name of the label column)")
    text = list(declared["categories"]) + ([args.label] if declared["classes"] else [])
    df = _read_csv(args.data, sep=args.sep, text_columns=text)
    if args.label not in df.columns:
        raise UsageError(f"--label {args.label!r} is not a column of {args.data!r} "
                         f"(columns: {', '.join(df.columns[:8])}{', ...' if df.shape[1] > 8 else ''})")
    missing_drop = [c for c in args.drop if c not in df.columns]
    if missing_drop:
        raise UsageError(f"--drop: {missing_drop[0]!r} is not a column of {args.data!r}")
    y = df[args.label]
    X = df.drop(columns=[args.label, *args.drop])
    if X.shape[1] == 0:
        raise UsageError("no feature column is left after the label and --drop")
    _check_columns(X, args)
    return X, y, declared


def _match_labels(given, schema_classes):
    """Declared labels given as text, matched to the bundled dataset's label values."""
    by_text = {str(c): c for c in schema_classes}
    out = []
    for g in given:
        if g not in by_text:
            raise UsageError(f"--classes {g!r} is not a label of this dataset ({list(by_text)})")
        out.append(by_text[g])
    return out


def _check_columns(X, args) -> None:
    """Every column named by --categories / --bounds / --cut-points is a feature column."""
    cols = set(map(str, X.columns))
    for what, items in (("--categories", args.categories), ("--bounds", args.bounds),
                        ("--cut-points", args.cut_points)):
        for n, _ in items:
            if n not in cols:
                raise UsageError(f"{what}: {n!r} is not a feature column of the data")


def _numeric_columns(X, categories) -> list[str]:
    import pandas as pd

    return [str(c) for c in X.columns if str(c) not in categories
            and pd.api.types.is_numeric_dtype(X[c].dtype) and not pd.api.types.is_bool_dtype(X[c].dtype)]


def _check_bounds_complete(X, declared) -> None:
    """Declared bounds must cover every numerical column, or be absent (module docstring)."""
    b = declared["bounds"]
    if not b:
        return
    num = _numeric_columns(X, declared["categories"])
    missing = [c for c in num if c not in b]
    if missing:
        raise UsageError(
            f"--bounds declares some numerical columns but not {', '.join(repr(c) for c in missing[:4])}"
            f"{' ...' if len(missing) > 4 else ''}: declare bounds for every numerical column "
            "(or none: they are then read from the data, which is not private)"
        )


# ---------------------------------------------------------------------------- fit: estimators
def _tree_estimator(args, X, declared):
    from .tree import PrivaTreeClassifier
    from .tree.baselines import BDPTClassifier, DPGDFClassifier

    cats = {c: v for c, v in declared["categories"].items() if c in X.columns} or None
    bounds = {c: v for c, v in declared["bounds"].items() if c in X.columns} or None
    common = dict(epsilon=args.epsilon, max_depth=args.max_depth, classes=declared["classes"],
                  categories=cats, random_state=args.random_state)
    if args.model == "privatree":
        return PrivaTreeClassifier(**common, max_bins=args.max_bins, bounds=bounds, n_public=args.n_public)
    if args.model == "bdpt":
        return BDPTClassifier(**common, max_bins=args.max_bins, bounds=bounds)
    return DPGDFClassifier(**common)


def _rule_list_estimator(args, declared, epsilon, accountant=None):
    from .rulelist import DPRuleListClassifier, GreedyRuleListClassifier, OptimalRuleListClassifier

    classes = declared["classes"]
    if args.model == "greedy-rulelist":
        return GreedyRuleListClassifier(max_rules=args.max_rules, min_support=args.min_support,
                                        max_width=args.max_width, classes=classes)
    if args.model == "optimal-rulelist":
        return OptimalRuleListClassifier(max_rules=args.max_rules, min_support=args.min_support,
                                         time_limit=args.time_limit, classes=classes)
    kw = dict(epsilon=epsilon, max_rules=args.max_rules, min_support=args.min_support,
              max_width=args.max_width, classes=classes, n_public=args.n_public,
              random_state=args.random_state, accountant=accountant)
    if args.mechanism is not None:
        kw["mechanism"] = args.mechanism
    if args.delta is not None:
        kw["delta"] = args.delta
    return DPRuleListClassifier(**kw)


def _rule_list_pipeline(args, X, declared):
    """``(steps, estimator)`` for a rule list: binary columns go straight to the learner; raw
    columns are binarized first (:func:`_binarizer`)."""
    if _all_binary(X, declared):
        return [], _rule_list_estimator(args, declared, args.epsilon)
    return _binarizer_pipeline(args, X, declared)


def _all_binary(X, declared) -> bool:
    """Every column holds 0/1 (or bools) and none is declared categorical: a binary table."""
    import numpy as np
    import pandas as pd

    if declared["categories"] or declared["cut_points"]:
        return False
    for c in X.columns:
        col = X[c]
        if pd.api.types.is_bool_dtype(col.dtype):
            continue
        if not pd.api.types.is_numeric_dtype(col.dtype):
            return False
        v = col.to_numpy()
        if not np.isin(v, (0, 1)).all():
            return False
    return True


def _binarizer_pipeline(args, X, declared):
    """A :class:`~dpmodels.data.Binarizer` then the rule list, sharing one budget.

    Numerical columns are cut at ``--cut-points`` (public, free); the others at ``--n-bins``
    quantiles: for ``dp-rulelist`` private ones within ``--bounds`` (JointExp, a share
    ``--binarizer-share`` of ε, the rest to the learner, both spent through one
    :class:`~dpmodels.privacy.BudgetAccountant` so the model's ledger covers both steps), for the
    non-private baselines the data's quantiles (a leak, as they read the data anyway).
    Categorical columns are one-hot over ``--categories`` (undeclared text columns are read from
    the data: a leak recorded in the shared ledger).
    """
    from .data import Binarizer
    from .privacy import BudgetAccountant

    cats = {c: v for c, v in declared["categories"].items() if c in X.columns}
    cuts = {c: v for c, v in declared["cut_points"].items() if c in X.columns}
    bounds = {c: v for c, v in declared["bounds"].items() if c in X.columns}
    need = [c for c in _numeric_columns(X, cats) if c not in cuts]  # columns needing quantiles
    if bounds and any(c not in bounds for c in need):
        missing = [c for c in need if c not in bounds]
        raise UsageError(
            f"--bounds declares some numerical columns but not {', '.join(repr(c) for c in missing[:4])}"
            f"{' ...' if len(missing) > 4 else ''}: declare bounds (or --cut-points) for every numerical "
            "column, or no bounds (they are then read from the data, which is not private)"
        )
    if args.model != "dp-rulelist":
        binarizer = Binarizer(cut_points=cuts or None, n_bins=args.n_bins, bounds=bounds or None,
                              categories=cats or None)
        return [binarizer], _rule_list_estimator(args, declared, args.epsilon)
    learner = _rule_list_estimator(args, declared, args.epsilon)
    _, delta = learner._resolve_params()  # the learner's δ (0 for pure mechanisms): the budget's
    share = args.binarizer_share if need else 0.0
    acc = BudgetAccountant(args.epsilon, delta)
    binarizer = Binarizer(cut_points=cuts or None, n_bins=args.n_bins, bounds=bounds or None,
                          categories=cats or None, epsilon=share * args.epsilon if need else None,
                          accountant=acc, random_state=args.random_state)
    learner = _rule_list_estimator(args, declared, (1.0 - share) * args.epsilon, accountant=acc)
    return [binarizer], learner


# ---------------------------------------------------------------------------- fit
def _check_estimator_params(est) -> None:
    """The learner's own parameter checks (they read no data), before the split and the fit."""
    for hook in ("_resolve_params", "_check_params", "_check_common_params"):
        fn = getattr(est, hook, None)
        if fn is not None:
            fn()
            return


def _check_labels(y, declared, *, binary: bool) -> None:
    """Labels outside the declared set (or outside {0, 1} for rule lists without --classes) are
    a schema error: raised before any step is fitted, with the learner's own message."""
    if declared["classes"] is None and not binary:
        return  # the learner reads the label set from the data (a leak it records)
    from .validation import check_y, resolve_classes

    resolve_classes(declared["classes"], check_y(y), None, binary=binary)


def _limits(args):
    from .guards import limits

    kw = {}
    if args.max_candidates is not None:
        kw["max_candidates"] = args.max_candidates
    if args.max_memory is not None:
        kw["max_memory"] = args.max_memory
    if args.max_seconds is not None:
        kw["max_seconds"] = args.max_seconds
    return limits(**kw)


@_guarded
def cmd_fit(args) -> int:
    from ._paths import check_output_path

    _check_fit_args(args)
    _fill_defaults(args)
    if args.out is not None:
        check_output_path(args.out)
    if not _is_bundled(args.data):
        _check_readable(args.data)
    X, y, declared = _load_fit_data(args)  # pandas only: errors about the data come fast
    import numpy as np
    from sklearn.model_selection import train_test_split

    from .io import save_model

    if args.model in TREES and args.model != "dpgdf":
        _check_bounds_complete(X, declared)
    if args.model in TREES:
        steps, est = [], _tree_estimator(args, X, declared)
    else:
        steps, est = _rule_list_pipeline(args, X, declared)
    for step in steps:
        step._check_params()  # the Binarizer's own checks (no data read)
    _check_estimator_params(est)
    _check_labels(y, declared, binary=args.model in RULE_LISTS)
    if args.no_split:
        Xtr, ytr, Xte, yte = X, y, None, None
    else:
        Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=args.test_size, random_state=args.seed)
    with _limits(args):
        Z = Xtr
        for step in steps:
            Z = step.fit_transform(Z, ytr)
        est.fit(Z, ytr)
    if steps:
        from sklearn.pipeline import make_pipeline

        model = make_pipeline(*steps, est)
    else:
        model = est
    from .io import model_from_dict, model_to_dict

    print(model_from_dict(model_to_dict(model)).to_text())  # what `dpmodels show` will print
    if not args.quiet:
        if Xte is not None:
            acc = float(np.mean(np.asarray(model.predict(Xte)) == np.asarray(yte)))
            print(f"\nheld-out accuracy: {acc:.3f} on {len(yte)} rows ({args.test_size:.0%}, split "
                  f"seed {args.seed}; computed on your test rows: not a DP release, not saved)")
        led = getattr(est, "privacy_ledger_", None)
        print()
        print(led.summary() if led is not None else
              "Privacy: NOT PRIVATE — a non-private learner (a baseline): no privacy ledger.")
    if args.out is not None:
        path = save_model(model, args.out)
        print(f"\nmodel written to {path}")
    return 0


# ---------------------------------------------------------------------------- predict / show
def _text_columns(model) -> list[str]:
    """Input columns whose public values are all text: read them as text."""
    cats = dict(model.schema.get("categories") or {})
    for step in model.preprocessing_:
        for c, v in (getattr(step, "categories_", None) or {}).items():
            cats.setdefault(str(c), v)
    return [c for c, v in cats.items() if v and all(isinstance(x, str) for x in v)]


def _peek_model(path):
    """The input columns and text columns of a model file, read without the model's imports;
    None when the file is not a well-formed model (then load_model says why)."""
    import json

    try:
        doc = json.loads(Path(path).read_text(encoding="utf-8"))
        sch = doc["schema"]
        if doc.get("format") != "dpmodels.model" or sch.get("preprocessing"):
            return None
        feats = [str(c) for c in sch["input_features"]]
        cats = sch.get("categories") or {}
        text = [c for c, v in cats.items() if v and all(isinstance(x, str) for x in v)]
        return {"input_features": feats, "text_columns": text}
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None


def _check_predict_columns(args, df, needed) -> None:
    if args.id is not None and args.id not in df.columns:
        raise UsageError(f"--id {args.id!r} is not a column of {args.data!r}")
    missing = [c for c in needed if c not in df.columns]
    if missing:
        raise UsageError(f"{args.data!r} lacks {len(missing)} column(s) the model needs: "
                         f"{', '.join(repr(c) for c in missing[:5])}{' ...' if len(missing) > 5 else ''}")


@_guarded
def cmd_predict(args) -> int:
    from ._paths import check_output_path

    if args.out is not None:
        check_output_path(args.out)
    if not _is_bundled(args.data):
        _check_readable(args.data)
    _check_model_path(args.model)
    import pandas as pd

    peek = _peek_model(args.model)
    if peek and not _is_bundled(args.data):  # column errors before the model's imports
        df = _read_csv(args.data, sep=args.sep, text_columns=peek["text_columns"])
        _check_predict_columns(args, df, peek["input_features"])
    from .io import load_model

    model = load_model(args.model)
    if args.proba and model.kind == "regression_tree":  # the file's kind is public
        raise UsageError("--proba applies to classifiers; this model is a regression tree")
    if _is_bundled(args.data):
        from .data import load_dataset

        binarized = model.kind == "rule_list" and not model.preprocessing_
        X, _ = load_dataset(args.data.strip().lower(), binarized=binarized)
        df = X
    elif peek is None or set(_text_columns(model)) != set(peek["text_columns"]):
        df = _read_csv(args.data, sep=args.sep, text_columns=_text_columns(model))
    _check_predict_columns(args, df, model.feature_names_in_)
    out = pd.DataFrame(index=df.index)
    if args.id is not None:
        out[args.id] = df[args.id]
    out["prediction"] = model.predict(df)
    if args.proba:
        P = model.predict_proba(df)
        for k, c in enumerate(model.classes_):
            out[f"proba_{c}"] = P[:, k]
    if args.out is None:
        out.to_csv(sys.stdout, index=False)
    else:
        out.to_csv(args.out, index=False)
        print(f"{len(out)} predictions written to {args.out}", file=sys.stderr)
    return 0


def _check_model_path(path) -> None:
    p = Path(path)
    if not p.exists():
        raise UsageError(f"model file {str(p)!r} does not exist")
    if p.is_dir():
        raise UsageError(f"{str(p)!r} is a directory, not a model file")


@_guarded
def cmd_show(args) -> int:
    _check_model_path(args.model)
    import pandas as pd

    from .io import load_model

    model = load_model(args.model)
    kw = {"merge": False} if args.raw and model.kind == "rule_list" else {}
    if args.raw and model.kind == "tree":
        kw = {"prune": False}
    print(model.to_text(**kw))
    print()
    if model.privacy_ledger_ is not None:
        print(model.privacy_ledger_.summary())
        if model.privacy.get("noise_seeded"):
            print("     NOT PRIVATE against whoever knows the seed: the noise was seeded.")
    else:
        for v in model.privacy.get("verdict") or ["Privacy: unknown"]:
            print(v)
    sch = model.schema
    print("\nPublic schema")
    if model.kind == "regression_tree":
        lo, hi = model.model_.label_bounds
        print(f"  label bounds: [{lo:g}, {hi:g}] (labels clipped)")
    else:
        print(f"  classes: {', '.join(map(str, sch.get('classes') or list(model.classes_)))}")
    print(f"  input columns ({len(model.feature_names_in_)}): {', '.join(model.feature_names_in_)}")
    leaked = {r.what for r in model.privacy_ledger_.leaks} if model.privacy_ledger_ is not None else set()
    for c, v in (sch.get("categories") or {}).items():
        note = "  (read from the data: a leak)" if f"categories of feature {c!r}" in leaked else ""
        print(f"  {c}: categories {', '.join(map(str, v))}{note}")
    for c, (lo, hi) in (sch.get("bounds") or {}).items():
        print(f"  {c}: bounds [{lo:g}, {hi:g}]")
    if sch.get("n_public") is not None:
        print(f"  n_public: {sch['n_public']}")
    for step in model.preprocessing_:
        print(f"  preprocessing: {type(step).__name__}")
        sources = getattr(step, "cut_point_source_", {})
        for c, cuts in (getattr(step, "cut_points_", None) or {}).items():
            how = {"public": "public", "dp": "DP quantiles", "data": "the data's quantiles: a leak"}
            cut_txt = ", ".join(f"{v:g}" for v in cuts) or "none"
            print(f"    {c}: cut points {cut_txt} ({how.get(sources.get(c), sources.get(c, '?'))})")
        for c, v in (getattr(step, "categories_", None) or {}).items():
            note = "  (read from the data: a leak)" if f"categories of feature {c!r}" in leaked else ""
            print(f"    {c}: categories {', '.join(map(str, v))}{note}")
    for k, v in (model.extra or {}).items():
        if isinstance(v, dict):
            v = ", ".join(f"{a}={b:.4g}" if isinstance(b, float) else f"{a}={b}" for a, b in v.items())
        elif isinstance(v, float):
            v = f"{v:.6g}"
        print(f"  {k}: {v}")
    if args.rules:
        print()
        with pd.option_context("display.max_colwidth", 120, "display.width", 200):
            print(model.get_rules().drop(columns=["literals", "conditions"], errors="ignore").to_string(index=False))
    return 0
