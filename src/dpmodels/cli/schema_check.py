"""``dpmodels schema check DATA.csv --schema FILE``: the data owner's local pre-flight.

A fit never reports what its data hold beyond its ledger: a cell ``Café`` under a declared category
list ``Cafe, Hôpital`` is routed to "unknown" silently, a label outside the classes is refused
without naming it, a number outside its bounds is clipped. Reporting such cells would release
them. This command is the place to see them: it reads every cell of the file *on the owner's
machine*, compares it with the schema's declarations, and prints what does not fit — the cell
values included. **It is not a release**: its output describes the private data, is for the data
owner only, and nothing of it enters a model file. Exit 0 when every cell fits, 1 when something
does not (2: bad input, as every command).
"""

from __future__ import annotations

import sys
import unicodedata

from ._common import UsageError, one_line_errors

NOT_A_RELEASE = (
    "This check reads every cell of the data on this machine and prints values from it: it is NOT a "
    "release (not differentially private). Keep its output with the data; nothing of it is published "
    "or written into a model."
)


_YAML_BOOLS = {"yes", "no", "on", "off", "y", "n", "true", "false"}


def _fold(s: str) -> str:
    """A text without case, accents and surrounding spaces (``Café `` → ``cafe``): to suggest
    which declared value a stray cell was meant to be."""
    nfkd = unicodedata.normalize("NFKD", str(s))
    return "".join(ch for ch in nfkd if not unicodedata.combining(ch)).strip().casefold()


def _values_text(counts, max_listed: int) -> str:
    items = [f"{v!r} ({n:,} row{'s' if n != 1 else ''})" for v, n in counts[:max_listed]]
    more = len(counts) - max_listed
    return ", ".join(items) + (f", and {more:,} more value{'s' if more != 1 else ''}" if more > 0 else "")


def _outside_list(cells, declared, what: str, max_listed: int) -> str | None:
    """Cells that equal no declared value (as ``fit`` compares them, :func:`match_declared`),
    with a hint when a cell equals a declared value but for case, accents or spaces."""
    from .schema import match_declared

    matched = match_declared(cells, declared, what)
    miss = cells[~matched.isin(list(declared)).to_numpy()]
    if miss.empty:
        return None
    counts = list(miss.value_counts(sort=True).items())
    folded = {_fold(v): v for v in declared}
    hints = [f"{v!r} looks like {folded[_fold(v)]!r}" for v, _ in counts[:max_listed] if _fold(v) in folded]
    if any(isinstance(v, bool) for v in declared) and any(_fold(v) in _YAML_BOOLS for v, _ in counts):
        hints.append("the schema declares true/false: YAML reads unquoted yes/no/on/off as booleans, quote them")
    text = f"{len(miss):,} cell(s) outside the declared {what}: {_values_text(counts, max_listed)}"
    return text + (f" ({'; '.join(hints)})" if hints else "")


def _numbers(cells, bounds, integer: bool, max_listed: int) -> list[str]:
    import numpy as np
    import pandas as pd

    out = []
    x = pd.to_numeric(cells.str.strip(), errors="coerce")
    bad = x.isna().to_numpy()
    if bad.any():
        counts = list(cells[bad].value_counts(sort=True).items())
        out.append(f"{int(bad.sum()):,} cell(s) that are not numbers: {_values_text(counts, max_listed)}")
    v = x.to_numpy(dtype=float)
    ok = ~bad
    if bounds is not None:
        lo, hi = float(bounds[0]), float(bounds[1])
        below, above = ok & (v < lo), ok & (v > hi)
        if below.any() or above.any():
            parts = []
            if below.any():
                parts.append(f"{int(below.sum()):,} below {lo:g} (smallest {np.min(v[below]):g})")
            if above.any():
                parts.append(f"{int(above.sum()):,} above {hi:g} (largest {np.max(v[above]):g})")
            out.append(f"numbers outside the declared bounds [{lo:g}, {hi:g}]: {', '.join(parts)} (a fit clips them)")
    if integer:
        frac = ok & np.isfinite(v) & (v != np.round(v))
        if frac.any():
            counts = list(cells[frac].value_counts(sort=True).items())
            out.append(
                f"{int(frac.sum()):,} non-integer cell(s) in a column declared integer: {_values_text(counts, max_listed)}"
            )
    return out


def check(df, header: list[str], dec, *, label: str | None, max_listed: int = 10) -> list[tuple[str, str]]:
    """``(column, problem)`` for every way the frame's cells (text, as ``fit`` reads them) and its
    header depart from the declarations ``dec`` (:class:`~dpmodels.cli.schema.Declarations`)."""
    problems: list[tuple[str, str]] = []
    seen: set[str] = set()
    for c in header:
        if c in seen:
            problems.append((c, f"the header names column {c!r} more than once (a fit refuses the file)"))
        seen.add(c)
    label = label if label is not None else dec.label
    for c, d in dec.columns.items():
        if d.kind == "drop":
            continue
        if c not in df.columns:
            problems.append((c, "declared, but not a column of the file"))
            continue
        cells = df[c]
        if d.kind == "categorical" and d.categories:
            p = _outside_list(cells, d.categories, f"categories of {c!r}", max_listed)
            if p:
                problems.append((c, p + " (a fit routes them as an unknown category)"))
        elif d.kind == "binary":
            problems += [(c, p) for p in _binary(cells, max_listed)]
        elif d.kind == "numerical":
            problems += [(c, p) for p in _numbers(cells, dec.bounds(c), d.integer, max_listed)]
    if label is not None:
        problems += _label_problems(df, dec, label, max_listed)
    return problems


def _binary(cells, max_listed: int) -> list[str]:
    """The problem of a binary column's cells: those other than 0/1 or true/false."""
    from .schema import _FALSE, _TRUE

    bad = ~cells.str.strip().str.lower().isin(_TRUE + _FALSE)
    if not bad.any():
        return []
    counts = list(cells[bad.to_numpy()].value_counts(sort=True).items())
    return [f"{int(bad.sum()):,} cell(s) other than 0/1 or true/false: {_values_text(counts, max_listed)}"]


def _label_problems(df, dec, label: str, max_listed: int) -> list[tuple[str, str]]:
    """The label column against the declared label set or label bounds."""
    if label not in df.columns:
        return [(label, "the label column is not a column of the file")]
    if dec.classes is not None:
        p = _outside_list(df[label], dec.classes, f"classes of {label!r}", max_listed)
        return [(label, p + " (a fit refuses such a label)")] if p else []
    if dec.label_bounds is not None:
        return [(label, p) for p in _numbers(df[label], dec.label_bounds, False, max_listed)]
    return []


def cmd_schema_check(args) -> int:
    import pandas as pd

    from ._common import check_readable
    from .schema import read_schema_file

    dec = read_schema_file(args.schema)
    p = check_readable(args.data)
    try:
        head = pd.read_csv(p, sep=args.sep, header=None, nrows=1, dtype=str, keep_default_na=False, na_filter=False)
        df = pd.read_csv(p, sep=args.sep, dtype=str, keep_default_na=False, na_filter=False)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError, ValueError) as exc:
        raise UsageError(f"cannot read {str(p)!r} as CSV: {' '.join(str(exc).split())}") from None
    header = [str(c) for c in head.iloc[0]] if len(head) else []
    df.columns = [str(c) for c in df.columns]
    problems = check(df, header, dec, label=args.label, max_listed=args.max_listed)
    print(f"dpmodels schema check of {args.data} ({len(df):,} rows) against {args.schema}")
    print(NOT_A_RELEASE)
    undeclared = [c for c in header if c not in dec.columns and c != (args.label or dec.label)]
    if undeclared and dec.wildcard_bounds is None:
        print(f"not declared (a fit with this schema does not use them): {', '.join(undeclared)}")
    if not problems:
        print("every cell fits the schema's declarations")
        return 0
    for c, text in problems:
        print(f"  {c}: {text}")
    print(f"{len(problems)} problem(s): fix the data or the schema before fitting")
    sys.stdout.flush()
    return 1


def add_check_parser(ss) -> None:
    """``schema check`` under ``dpmodels schema`` (called by :func:`dpmodels.cli.schema.add_parser`)."""
    from ._common import _pos_int, guarded

    c = one_line_errors(
        ss.add_parser(
            "check",
            help="a local pre-flight: list the cells that do not fit a schema (NOT a release: it prints data)",
            description="Compare every cell of a CSV with a schema's declarations and list what does not fit: "
            "values outside a declared category list (e.g. 'Café' where 'Cafe' is declared), labels outside "
            "the classes, numbers outside the bounds, duplicate columns. For the data owner, on the data's "
            "machine: the output shows private values and is not a release. Exit 1 when something does not fit.",
        )
    )
    c.add_argument("data", metavar="DATA.csv", help="a CSV file with a header row")
    c.add_argument("--schema", required=True, metavar="FILE", help="a schema file (YAML/JSON) or a model file")
    c.add_argument("--label", metavar="COL", help="the label column (default: the schema's)")
    c.add_argument("--sep", default=",", metavar="SEP", help="CSV field separator (default: ',')")
    c.add_argument(
        "--max-listed", type=_pos_int, default=10, metavar="K", help="values listed per problem (default: 10)"
    )
    c.set_defaults(func=guarded(cmd_schema_check))
