"""What every ``dpmodels`` sub-command shares: one-line errors and warnings, argparse types,
terminal-safe output, and reading a CSV file by its declarations.

Every bad input prints one line on stderr and exits non-zero (2 for bad input, 1 for a failure
while fitting, 3 for an internal error); never a traceback unless ``DPMODELS_DEBUG=1``.

Text is a channel (docs/privacy.md, "The command line"): names, categories and ledger notes come
from CSV headers, cells and model files, which anyone may write. Everything the command line
writes to stdout and stderr passes through :func:`escape_text` (:func:`terminal_output`, set up by
:func:`dpmodels.cli.main`), so an escape sequence, a bell or a carriage return in a name is shown
as ``\\x1b``, ``\\x07``, ``\\r`` instead of acting on the terminal; what the command line prints
*from* a model file is built from its strings with line breaks escaped too (:func:`escape_strings`),
so a name cannot start a line of its own.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import math
import os
import re
import sys
import types
import warnings
from pathlib import Path


class UsageError(ValueError):
    """Bad command-line input (exit code 2)."""


# ---------------------------------------------------------------------------- terminal-safe text
# C0 controls but tab and line feed, DEL, C1 controls (0x9b is a one-byte CSI on some terminals),
# and the Unicode marks that reorder or break what is shown (bidi overrides, line separators)
_UNSAFE = "\\x00-\\x08\\x0b-\\x1f\\x7f-\\x9f\\u061c\\u200e\\u200f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069"
_UNSAFE_KEEP_LF = re.compile(f"[{_UNSAFE}]")
_UNSAFE_ALL = re.compile(f"[{_UNSAFE}\\n]")


def _escape_char(m: re.Match) -> str:
    c = ord(m.group())
    if c in (10, 13):
        return "\\n" if c == 10 else "\\r"
    return f"\\x{c:02x}" if c < 0x100 else f"\\u{c:04x}"


def escape_text(text: str, *, newlines: bool = False) -> str:
    """``text`` with every control character shown as an escape (``\\x1b``, ``\\x07``,
    ``\\u202e``): C0 and C1 controls, DEL, bidi overrides and line separators. Tab is kept, and
    line feeds unless ``newlines=True`` (for one string that must stay on its line: a name).

    >>> escape_text("job\\x1b]0;owned\\x07 ok\\n")
    'job\\\\x1b]0;owned\\\\x07 ok\\n'
    """
    return (_UNSAFE_ALL if newlines else _UNSAFE_KEEP_LF).sub(_escape_char, text)


def escape_strings(doc):
    """A JSON document (a model file's) with :func:`escape_text` applied, line feeds included, to
    every string, keys too: what the command line prints from a model file is built from this copy,
    so no name, category or note can act on the terminal or start a line of its own."""
    if isinstance(doc, str):
        return escape_text(doc, newlines=True)
    if isinstance(doc, list):
        return [escape_strings(v) for v in doc]
    if isinstance(doc, dict):
        return {escape_text(k, newlines=True) if isinstance(k, str) else k: escape_strings(v) for k, v in doc.items()}
    return doc


def shown_model(obj):
    """What the command line prints a model from: the :class:`~dpmodels.io.LoadedModel` of
    ``obj``'s file document (an estimator or pipeline: what ``dpmodels show`` will print of its
    file; a parsed model file: as read) with every string escaped by :func:`escape_strings`."""
    from ..io import model_from_dict, model_to_dict

    doc = obj if isinstance(obj, dict) else model_to_dict(obj)
    return model_from_dict(escape_strings(doc), _values_checked=isinstance(obj, dict))


def shown_ledger_summary(ledger, verdict=None) -> str:
    """``ledger.summary(verdict=...)`` from copies whose strings are escaped (:func:`escape_strings`);
    ``verdict``: the fitted object's one verdict (:func:`dpmodels.privacy.verdict.verdict`)."""
    from ..privacy.ledger import PrivacyLedger

    if verdict is not None:
        verdict = type(verdict)(verdict.is_private, tuple(escape_strings(list(verdict.reasons))))
    return PrivacyLedger.from_dict(escape_strings(ledger.to_dict())).summary(verdict=verdict)


class _EscapingWriter:
    """A text stream that writes ``escape_text(s)`` to the stream it wraps (everything else is
    delegated). ``terminal`` is the wrapped stream, for the progress bars' own control codes."""

    def __init__(self, stream):
        self.terminal = stream

    def write(self, s):
        return self.terminal.write(escape_text(s) if isinstance(s, str) else s)

    def writelines(self, lines):
        for line in lines:
            self.write(line)

    def __getattr__(self, name):
        return getattr(self.terminal, name)


@contextlib.contextmanager
def terminal_output():
    """Within it, ``sys.stdout`` and ``sys.stderr`` escape control characters (module docstring)."""
    out, errs = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = _EscapingWriter(out), _EscapingWriter(errs)
    try:
        yield
    finally:
        for wrapped in (sys.stdout, sys.stderr):
            if isinstance(wrapped, _EscapingWriter):
                with contextlib.suppress(Exception):
                    wrapped.flush()
        sys.stdout, sys.stderr = out, errs


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


#: the argparse type of each kind of option value (dpmodels.catalog.OptionType); None: the text
OPTION_TYPES = {
    "epsilon": _epsilon,
    "delta": _delta,
    "count": _pos_int,
    "count0": _nonneg_int,
    "seconds": _seconds,
    "share": _fraction(),
    "share0": _fraction(lo_open=False),
    "int": int,
    "text": None,
    "lo:hi": _label_bounds,
    "col=cuts": _cut_item,
}


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


_CSV_ERRORS: tuple = (UnicodeDecodeError, ValueError)  # pandas' ParserError and EmptyDataError are ValueErrors


def read_csv_text(path, *, sep):
    """Every cell of a CSV as text (no type guessing, no missing-value guessing: an empty cell is
    the empty string). Columns are parsed later by what is declared about them. The whole file
    is held as text: commands that read large files use :func:`read_csv_batches`."""
    import pandas as pd

    p = check_readable(path)
    try:
        df = pd.read_csv(p, **_csv_options(sep))
    except _CSV_ERRORS as exc:
        raise _unreadable(p, exc) from None
    df.columns = [str(c) for c in df.columns]
    _check_unique_columns(p, sep)
    return df


def _csv_options(sep) -> dict:
    return dict(sep=sep, dtype=str, keep_default_na=False, na_filter=False)


def _unreadable(p, exc) -> UsageError:
    return UsageError(f"cannot read {str(p)!r} as CSV: {' '.join(str(exc).split())}")


def _check_unique_columns(p, sep) -> None:
    """Refuse a header that names a column twice. pandas renames a repeated name ("worst area" →
    "worst area.1") whenever it reads a header, so the header row is read as written, as data."""
    import pandas as pd

    try:
        header = pd.read_csv(p, header=None, nrows=1, **_csv_options(sep))
    except _CSV_ERRORS as exc:
        raise _unreadable(p, exc) from None
    names = [str(c) for c in header.iloc[0]] if len(header) else []
    seen: set[str] = set()
    dup = [c for c in names if c in seen or seen.add(c)]  # type: ignore[func-returns-value]
    if dup:
        raise UsageError(f"{str(p)!r} has the column {dup[0]!r} twice; give each column its own name")


def csv_batch_rows(n_columns: int) -> int:
    """Rows per batch of :func:`read_csv_batches`: a batch's text takes at most ≈ 1/16 of the
    memory limit in force (``--max-memory``, :func:`dpmodels.guards.max_memory`), counting
    ≈ 128 bytes per cell, between 1,024 and 262,144 rows. Public: the limit and the number of
    columns (the header), never the number of records."""
    from ..guards import max_memory

    limit = max_memory()
    if limit is None:
        return 1 << 18
    return int(min(1 << 18, max(1024, limit // 16 // (128 * max(1, n_columns)))))


def read_csv_batches(path, *, sep, batch_rows: int | None = None):
    """The CSV as text frames of consecutive rows (as :func:`read_csv_text`, one batch in memory
    at a time; rows numbered on from one batch to the next). ``batch_rows``: rows per batch
    (default :func:`csv_batch_rows` of the header's width). A file with a header and no row is
    one empty batch; a malformed file is a one-line :class:`UsageError`, wherever it is found.
    Progress (:func:`dpmodels.guards.progress_bar`: on a terminal, or ``DPMODELS_PROGRESS=1``)
    counts bytes of the file, not rows."""
    import pandas as pd

    p = check_readable(path)
    try:
        header = pd.read_csv(p, nrows=0, **_csv_options(sep))
    except _CSV_ERRORS as exc:
        raise _unreadable(p, exc) from None
    header.columns = [str(c) for c in header.columns]
    _check_unique_columns(p, sep)
    rows = batch_rows or csv_batch_rows(header.shape[1])
    n = 0
    # progress in bytes of the file (its size is on disk for all to see), never in rows read: the
    # number of records of a private file is private unless declared (n_public)
    from ..guards import progress_bar

    bar = progress_bar(total=p.stat().st_size, desc="reading CSV", unit="B", unit_scale=True)
    try:
        with open(p, "rb") as fh, pd.read_csv(fh, chunksize=rows, **_csv_options(sep)) as reader:
            done = 0
            for df in reader:
                df.columns = list(header.columns)
                df.index = pd.RangeIndex(n, n + len(df))
                n += len(df)
                bar.update(fh.tell() - done)  # the parser reads ahead: bytes consumed so far
                done = fh.tell()
                yield df
    except _CSV_ERRORS as exc:
        raise _unreadable(p, exc) from None
    finally:
        bar.close()
    if n == 0:
        yield header
