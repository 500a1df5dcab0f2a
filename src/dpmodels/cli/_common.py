"""What every ``dpmodels`` sub-command shares: one-line errors and warnings, argparse types,
and reading a CSV file by its declarations.

Every bad input prints one line on stderr and exits non-zero (2 for bad input, 1 for a failure
while fitting, 3 for an internal error); never a traceback unless ``DPMODELS_DEBUG=1``.
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


class UsageError(ValueError):
    """Bad command-line input (exit code 2)."""


# ---------------------------------------------------------------------------- one-line errors
def _one_line_error(self, message):
    """argparse's error on one line (no usage block): ``dpmodels fit: error: …``."""
    self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def one_line_errors(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    setattr(parser, "error", types.MethodType(_one_line_error, parser))  # noqa: B010 - an instance override
    return parser


def err(msg: str) -> None:
    print(f"dpmodels: error: {msg}", file=sys.stderr)


def guarded(fn):
    """Run a command; bad input and failures become one line on stderr and an exit code."""

    @functools.wraps(fn)
    def run(args) -> int:
        try:
            with _one_line_warnings():
                return fn(args)
        except UsageError as exc:
            err(str(exc))
            return 2
        except (ValueError, TypeError) as exc:
            err(str(exc).splitlines()[0] if str(exc) else type(exc).__name__)
            return 2
        except BrokenPipeError:  # the reader went away (`dpmodels predict ... | head`)
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())  # no second error when Python flushes stdout
            return 141
        except (OSError, MemoryError) as exc:
            err(f"{type(exc).__name__}: {exc}")
            return 1
        except KeyboardInterrupt:
            err("interrupted")
            return 130
        except Exception as exc:  # noqa: BLE001 - one line instead of a traceback
            from ..privacy.ledger import BudgetExceededError

            if isinstance(exc, BudgetExceededError):
                err(f"BudgetExceededError: {exc}")
                return 1
            if os.environ.get("DPMODELS_DEBUG") == "1":
                raise
            err(f"internal error {type(exc).__name__}: {exc} (DPMODELS_DEBUG=1 shows the traceback)")
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
            from ..privacy.ledger import PrivacyLeakWarning

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
        return (
            f" (CLI: --cut-points {m.group(1)}=C1,C2 for public thresholds, or --bounds "
            f"{m.group(1)}=LO:HI with dp-rulelist for private quantiles)"
        )
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
        raise argparse.ArgumentTypeError(
            f"{what} must look like NAME={'LO:HI' if what == '--bounds' else 'A,B,C'}, got {s!r}"
        )
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


def _label_bounds(s):
    lo, sep, hi = s.partition(":")
    try:
        a, b = float(lo), float(hi)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must look like LO:HI with numbers, got {s!r}") from None
    if not sep or not (math.isfinite(a) and math.isfinite(b)) or a > b:
        raise argparse.ArgumentTypeError(f"need finite LO <= HI (LO:HI), got {s!r}")
    return (a, b)


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


# ---------------------------------------------------------------------------- fit: data
# the bundled datasets (dpmodels.data.list_datasets(); checked by the tests) without importing them
BUNDLED = (
    "adult",
    "australian-credit",
    "breast-w",
    "compas",
    "diabetes",
    "german",
    "heart-cleveland",
    "mushroom",
    "nursery",
    "tic-tac-toe",
    "vote",
)


def is_bundled(name: str) -> bool:
    return name.strip().lower() in BUNDLED and not Path(name).exists()


def check_readable(path) -> Path:
    p = Path(path)
    if not p.exists():
        raise UsageError(f"data file {str(p)!r} does not exist (nor is it a bundled dataset name)")
    if p.is_dir():
        raise UsageError(f"data path {str(p)!r} is a directory, not a CSV file")
    if not os.access(p, os.R_OK):
        raise UsageError(f"data file {str(p)!r} is not readable")
    return p


def check_model_path(path) -> None:
    p = Path(path)
    if not p.exists():
        raise UsageError(f"model file {str(p)!r} does not exist")
    if p.is_dir():
        raise UsageError(f"{str(p)!r} is a directory, not a model file")


def read_csv_text(path, *, sep):
    """Every cell of a CSV as text (no type guessing, no missing-value guessing: an empty cell is
    the empty string). Columns are parsed later by what is declared about them."""
    import pandas as pd

    p = check_readable(path)
    try:
        df = pd.read_csv(p, sep=sep, dtype=str, keep_default_na=False, na_filter=False)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError, ValueError) as exc:
        raise UsageError(f"cannot read {str(p)!r} as CSV: {' '.join(str(exc).split())}") from None
    df.columns = [str(c) for c in df.columns]
    # pandas renames a repeated name ("worst area" → "worst area.1"): check the header as written
    header = pd.read_csv(p, sep=sep, header=None, nrows=1, dtype=str, keep_default_na=False, na_filter=False)
    names = [str(c) for c in header.iloc[0]] if len(header) else []
    seen: set[str] = set()
    dup = [c for c in names if c in seen or seen.add(c)]
    if dup:
        raise UsageError(f"{str(p)!r} has the column {dup[0]!r} twice; give each column its own name")
    return df
