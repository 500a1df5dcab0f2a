"""Declarations of a table: what each column is, the label set, n — and ``dpmodels schema draft``.

A fit's public inputs come from three places, later ones overriding earlier ones column by column:

1. a bundled dataset's documented schema (:func:`dpmodels.data.dataset_schema`);
2. ``--schema FILE``: a YAML or JSON file in the format below, or a model file written by
   ``dpmodels fit`` (its public schema is reused);
3. the command-line options ``--classes``, ``--categories``, ``--bounds`` (``'*=LO:HI'`` for every
   column not declared otherwise), ``--cut-points``, ``--binary``, ``--drop``, ``--n-public``.

The schema file::

    label: income
    classes: ['<=50K', '>50K']          # the label set, in order (K >= 2 labels)
    label_bounds: [0, 500000]           # instead of classes, for a regression label (numbers)
    n_public: 30000                     # optional: a public training-set size
    columns:
      age:       {kind: numerical, bounds: [17, 90], integer: true}
      hours:     {kind: numerical, cut_points: [20, 40]}
      sex:       {kind: categorical, categories: [Female, Male]}
      smoker:    {kind: binary}         # cells 0/1 or true/false
      person_id: {kind: drop}

**What a column is follows from its declaration, never from its cells** (docs/privacy.md,
"Declarations, not dtypes"): a CSV is read as text and each column is parsed by its declared kind.
A column with no declaration at all gets its kind from the data (numbers or not), which is a leak:
a ``PrivacyLeakWarning`` and a leak row in the model's ledger.

``dpmodels schema draft data.csv --label y --epsilon 0.1`` releases the schema with differential
privacy (:mod:`dpmodels.data.private_schema`): every value is marked ``source: dp`` and the file
holds the draft's ledger (a ``draft`` block), which a fit with the file merges into the model's
ledger (total ε = draft + fit). A ``source: dp`` value without its draft block is refused.

``dpmodels schema draft data.csv --label y`` writes a starting point read from the file: every
value taken from the data carries ``source: data``. A fit with such entries records each one as a
leak, so a draft cannot launder data-derived bounds into a "private" model: the user reviews each
entry (replacing it with public knowledge) and deletes its ``source`` line.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path

from ._common import UsageError, one_line_errors

__all__ = [
    "ColumnDecl",
    "Declarations",
    "read_schema_file",
    "draft_schema",
    "schema_document",
    "match_declared",
    "parse_number",
    "add_parser",
]

KINDS = ("numerical", "categorical", "binary", "drop")
_COLUMN_KEYS = {"kind", "bounds", "categories", "cut_points", "integer", "source"}
_TOP_KEYS = {
    "label",
    "classes",
    "classes_source",
    "label_bounds",
    "label_bounds_source",
    "n_public",
    "n_public_source",
    "columns",
    "draft",
    "format",
}
SOURCES = ("user", "dp", "data")


@dataclass
class ColumnDecl:
    """One column's declaration and where it came from: ``source`` is ``user`` (public knowledge),
    ``dp`` (a DP draft's release, ``schema draft --epsilon``) or ``data`` (read from the private
    file: a leak wherever it is used). One source covers the column's kind and values."""

    kind: str
    bounds: tuple[float, float] | None = None
    categories: list | None = None
    cut_points: list[float] | None = None
    integer: bool = False
    source: str = "user"


@dataclass
class Declarations:
    label: str | None = None
    classes: list | None = None
    classes_source: str = "user"
    label_bounds: tuple[float, float] | None = None  # a regression label's public bounds
    label_bounds_source: str = "user"
    n_public: int | None = None
    n_public_source: str = "user"
    columns: dict[str, ColumnDecl] = field(default_factory=dict)
    wildcard_bounds: tuple[float, float] | None = None  # --bounds '*=LO:HI'
    # the DP draft whose releases the `source: dp` values are ({"id", "ledger"}; docs/privacy.md)
    draft: dict | None = None

    def dp_sourced(self) -> bool:
        """Whether a value in use is a DP draft's release (its ledger must join the fit's)."""
        return (
            any(d.source == "dp" and d.kind != "drop" for d in self.columns.values())
            or (self.classes is not None and self.classes_source == "dp")
            or (self.label_bounds is not None and self.label_bounds_source == "dp")
            or (self.n_public is not None and self.n_public_source == "dp")
        )

    def kind(self, col: str) -> str | None:
        d = self.columns.get(col)
        if d is not None:
            return d.kind
        return "numerical" if self.wildcard_bounds is not None else None

    def bounds(self, col: str):
        d = self.columns.get(col)
        if d is not None and d.bounds is not None:
            return d.bounds
        if self.kind(col) == "numerical" and (d is None or d.cut_points is None):
            return self.wildcard_bounds
        return None

    def data_sourced(self) -> list[str]:
        """What a draft read from the data and the user kept: each is a leak of the fit."""
        what = {"numerical": "kind and bounds", "categorical": "kind and categories", "binary": "kind"}
        out = [
            f"{what[d.kind]} of column {c!r}"
            for c, d in self.columns.items()
            if d.source == "data" and d.kind != "drop"
        ]
        if self.classes is not None and self.classes_source == "data":
            out.insert(0, "label set")
        if self.label_bounds is not None and self.label_bounds_source == "data":
            out.insert(0, "label bounds")
        if self.n_public is not None and self.n_public_source == "data":
            out.append("training-set size n (n_public)")
        return out


# ---------------------------------------------------------------------------- values
def parse_number(s) -> float | None:
    """The number a cell or a declared value spells (``'1'``, ``'1.0'``, ``' 2e3 '``), else None."""
    if isinstance(s, bool):
        return float(s)
    if isinstance(s, (int, float)):
        return float(s)
    try:
        v = float(str(s).strip())
    except (ValueError, OverflowError):
        return None
    return None if math.isnan(v) else v


def _numeric_keys(declared, what: str) -> dict:
    """Declared value -> itself, keyed by the number it spells. Two declared values that spell
    the same number (``1`` and ``1.0``) are refused: the rule below could not tell them apart."""
    out: dict = {}
    for v in declared:
        x = parse_number(v)
        if x is None:
            continue
        if x in out:
            raise UsageError(f"{what}: {out[x]!r} and {v!r} are the same number")
        out[x] = v
    return out


def match_declared(cells, declared, what: str):
    """Map text cells to the declared values they equal, comparing as values: a cell equals a
    declared value when the texts are equal, or when both spell numbers and the numbers are equal
    (``'0.0'`` matches a declared ``0``). A public rule, applied cell by cell. Cells that match
    nothing are returned as they are (the learner routes them as unknown, or refuses a label
    outside the declared set)."""
    import numpy as np
    import pandas as pd

    cells = pd.Series(cells, copy=False)
    text = cells.astype(str)
    keys = [str(v) for v in declared]
    out = np.empty(len(text), dtype=object)
    codes = pd.Categorical(text, categories=keys).codes
    hit = codes >= 0
    values = np.empty(len(keys), dtype=object)
    values[:] = list(declared)
    out[hit] = values[codes[hit]]
    by_num = _numeric_keys(declared, what)
    todo = ~hit
    if by_num and todo.any():
        nums = pd.to_numeric(text[todo].str.strip(), errors="coerce").to_numpy(dtype=float)
        num_keys = np.array(sorted(by_num))
        pos = np.clip(np.searchsorted(num_keys, nums), 0, len(num_keys) - 1)
        eq = num_keys[pos] == nums  # NaN (not a number) never equals
        idx = np.flatnonzero(todo)
        num_values = np.empty(len(num_keys), dtype=object)
        num_values[:] = [by_num[k] for k in num_keys]
        out[idx[eq]] = num_values[pos[eq]]
        hit[idx[eq]] = True
    miss = ~hit
    out[miss] = cells.to_numpy(dtype=object)[miss]
    return pd.Series(out, index=cells.index, name=cells.name)


_TRUE = ("1", "true", "yes")
_FALSE = ("0", "false", "no")


def parse_cells(
    cells, c: str, kind: str, *, values=None, bounds=None, finite: bool = True, declared: str = "declared "
):
    """Text cells of column ``c`` parsed by its kind: categorical cells matched to ``values`` as
    values (:func:`match_declared`); binary cells 0/1 or true/false; numerical cells numbers,
    clipped to ``bounds`` (so 1e400, read as inf, is clipped like any other value). A cell that
    does not fit its kind is a one-line error naming the column, never the cell."""
    import numpy as np
    import pandas as pd

    if kind == "categorical":
        return cells if not values else match_declared(cells, values, f"categories of {c!r}")
    if kind == "binary":
        low = cells.str.strip().str.lower()
        num = pd.to_numeric(low, errors="coerce")
        out = np.where(low.isin(_TRUE) | (num == 1), 1, np.where(low.isin(_FALSE) | (num == 0), 0, -1))
        if (out < 0).any():
            raise UsageError(
                f"column {c!r} is {declared}binary but holds a cell other than 0/1 or "
                "true/false (fix the file, or declare the column otherwise)"
            )
        return pd.Series(out.astype(np.int64), index=cells.index, name=c)
    x = pd.to_numeric(cells.str.strip(), errors="coerce").to_numpy(dtype=float)
    if np.isnan(x).any():
        raise UsageError(
            f"column {c!r} is {declared}numerical but holds an empty or non-numeric cell "
            "(impute it with a public rule, or declare the column otherwise)"
        )
    if bounds is not None:
        x = np.clip(x, bounds[0], bounds[1])
    elif finite and not np.isfinite(x).all():
        raise UsageError(
            f"column {c!r} holds a value too large for a float and has no declared "
            f"bounds to clip it to (--bounds {c}=LO:HI)"
        )
    return pd.Series(x, index=cells.index, name=c)


# ---------------------------------------------------------------------------- files
def _as_bounds(v, where):
    if not (isinstance(v, (list, tuple)) and len(v) == 2):
        raise UsageError(f"{where}: bounds must be [LO, HI]")
    lo, hi = (parse_number(x) for x in v)
    if lo is None or hi is None or not (math.isfinite(lo) and math.isfinite(hi)) or lo > hi:
        raise UsageError(f"{where}: bounds must be finite numbers with LO <= HI")
    return (lo, hi)


def _as_list(v, where, *, numbers=False):
    if not isinstance(v, list) or not v:
        raise UsageError(f"{where} must be a non-empty list")
    if numbers:
        xs = [parse_number(x) for x in v]
        if any(x is None or not math.isfinite(x) for x in xs):
            raise UsageError(f"{where} must be finite numbers")
        return sorted(xs)
    vals = [str(x) if not isinstance(x, (int, float, bool)) else x for x in v]
    if len({str(x) for x in vals}) != len(vals):
        raise UsageError(f"{where} has duplicate values")
    return vals


def _column(name, spec, path) -> ColumnDecl:
    where = f"{path}: column {name!r}"
    if isinstance(spec, str):
        spec = {"kind": spec}
    if not isinstance(spec, dict):
        raise UsageError(f"{where}: expected a mapping like {{kind: numerical, bounds: [0, 1]}}")
    unknown = set(spec) - _COLUMN_KEYS
    if unknown:
        raise UsageError(f"{where}: unknown key {sorted(unknown)[0]!r} (keys: {', '.join(sorted(_COLUMN_KEYS))})")
    kind = spec.get("kind")
    if kind is None:
        kind = (
            "categorical"
            if "categories" in spec
            else "numerical"
            if ("bounds" in spec or "cut_points" in spec)
            else None
        )
    if kind not in KINDS:
        raise UsageError(f"{where}: kind must be one of {', '.join(KINDS)}")
    source = _source(spec.get("source", "user"), f"{where}: source")
    d = ColumnDecl(kind=kind, source=source, integer=bool(spec.get("integer", False)))
    if kind == "numerical":
        if "bounds" in spec:
            d.bounds = _as_bounds(spec["bounds"], where)
            if d.integer:  # the integers within the declared range
                d.bounds = (math.ceil(d.bounds[0]), math.floor(d.bounds[1]))
        if "cut_points" in spec:
            d.cut_points = _as_list(spec["cut_points"], f"{where}: cut_points", numbers=True)
    elif kind == "categorical":
        if "categories" not in spec:
            raise UsageError(f"{where}: a categorical column needs its categories")
        d.categories = _as_list(spec["categories"], f"{where}: categories")
    if kind != "numerical" and ("bounds" in spec or "cut_points" in spec):
        raise UsageError(f"{where}: bounds and cut_points belong to numerical columns")
    if kind != "categorical" and "categories" in spec:
        raise UsageError(f"{where}: categories belong to categorical columns")
    return d


def _source(v, where: str) -> str:
    if v not in SOURCES:
        raise UsageError(f"{where} must be one of {', '.join(SOURCES)} (a draft's value: data or dp)")
    return v


def _draft_block(v, where) -> dict:
    """A DP draft's record (``draft: {id, ledger}``): the releases its ``source: dp`` values are."""
    from ..privacy.ledger import PrivacyLedger

    if not isinstance(v, dict) or not isinstance(v.get("id"), str) or not isinstance(v.get("ledger"), dict):
        raise UsageError(f"{where}: draft must be a mapping with an id and the draft's ledger")
    try:
        led = PrivacyLedger.from_dict(v["ledger"])
    except (KeyError, TypeError, ValueError) as exc:
        raise UsageError(f"{where}: the draft's ledger is malformed ({type(exc).__name__})") from None
    return {"id": v["id"], "ledger": led}


def _check_dp_sources(dec: Declarations, where) -> Declarations:
    if dec.dp_sourced() and dec.draft is None:
        raise UsageError(
            f"{where}: values marked source: dp need the draft's ledger (the 'draft' block that "
            "dpmodels schema draft --epsilon writes): without it their cost is unknown"
        )
    return dec


def _from_model_document(doc, path) -> Declarations:
    """The public schema of a model file written by ``dpmodels fit`` (or ``save_model``), each
    value with its source (docs/privacy.md, "Sources travel with values"). A file's recorded
    source is kept, and made ``data`` whenever a leak row of the file's ledger names the value.
    Files written before sources were recorded are read conservatively: a value is ``data`` when a
    leak row names it, or when the file has no ledger at all (a non-private learner reads what it
    is not given without a row)."""
    from ..validation import leaked_declarations, worst_source

    sch = doc.get("schema") or {}
    led = (doc.get("privacy") or {}).get("ledger")
    rows = []
    if isinstance(led, dict):
        from ..privacy.ledger import PrivacyLedger

        try:
            rows = PrivacyLedger.from_dict(led).rows
        except (KeyError, TypeError, ValueError):
            raise UsageError(f"--schema {str(path)!r}: the model file's ledger is malformed") from None
    leaked = leaked_declarations(rows)
    unknown = "data" if not isinstance(led, dict) else "user"  # no ledger: nothing says it was declared

    def src(key, leak):
        recorded = sch.get(key)
        s = _source(recorded, f"{path}: {key}") if recorded is not None else unknown
        return "data" if leak else s

    dec = Declarations(label=sch.get("label"), classes=sch.get("classes"), n_public=sch.get("n_public"))
    if dec.classes is not None:
        dec.classes_source = src("classes_source", leaked["classes"])
    if sch.get("label_bounds") is not None:
        dec.label_bounds = _as_bounds(sch["label_bounds"], f"{path}: label_bounds")
        dec.label_bounds_source = src("label_bounds_source", leaked["label_bounds"])
    if dec.n_public is not None:
        dec.n_public_source = src("n_public_source", leaked["n_public"])
    if sch.get("draft") is not None:
        dec.draft = _draft_block(sch["draft"], path)
    recorded = sch.get("column_sources")
    recorded_cols: dict = recorded if isinstance(recorded, dict) else {}

    def col_source(c, d: ColumnDecl, spec_has_source: bool) -> str:
        leak = c in leaked["columns"] or (leaked["all_bounds"] and d.kind == "numerical")
        s = d.source if spec_has_source else unknown
        if c in recorded_cols:
            s = worst_source(s, _source(recorded_cols[c], f"{path}: column_sources"))
        return "data" if leak else s

    cols = sch.get("columns")
    if isinstance(cols, dict):
        for c, spec in cols.items():
            d = _column(str(c), spec, path)
            d.source = col_source(str(c), d, isinstance(spec, dict) and "source" in spec)
            dec.columns[str(c)] = d
        return _check_dp_sources(dec, path)
    for c, v in (sch.get("categories") or {}).items():
        d = ColumnDecl("categorical", categories=list(v))
        d.source = col_source(str(c), d, False)
        dec.columns[str(c)] = d
    for c, v in (sch.get("bounds") or {}).items():
        d = ColumnDecl("numerical", bounds=_as_bounds(v, f"{path}: bounds of {c!r}"))
        d.source = col_source(str(c), d, False)
        dec.columns[str(c)] = d
    return _check_dp_sources(dec, path)


def _parse_schema_text(text: str, p: Path):
    """A schema file's text as JSON, else as YAML; one line naming the file (and the YAML error's
    line) when it is neither."""
    try:
        return json.loads(text)
    except ValueError:
        pass
    try:
        import yaml
    except ImportError:  # pragma: no cover - pyyaml is a core dependency
        raise UsageError("--schema: reading YAML needs PyYAML (pip install pyyaml), or use JSON") from None
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        at = f" at line {mark.line + 1}" if mark is not None else ""
        raise UsageError(f"--schema {str(p)!r} is neither JSON nor YAML{at}") from None


def read_schema_file(path) -> Declarations:
    """Read ``--schema FILE`` (YAML, JSON, or a saved model); one-line errors on anything wrong."""
    p = Path(path)
    if not p.is_file():
        raise UsageError(f"--schema {str(p)!r} is not a file")
    try:
        text = p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"--schema {str(p)!r}: cannot read it ({type(exc).__name__})") from None
    doc = _parse_schema_text(text, p)
    if not isinstance(doc, dict):
        raise UsageError(f"--schema {str(p)!r}: expected a mapping with 'columns' (see dpmodels schema draft)")
    if doc.get("format") == "dpmodels.model":
        return _from_model_document(doc, p)
    unknown = set(doc) - _TOP_KEYS
    if unknown:
        raise UsageError(
            f"--schema {str(p)!r}: unknown key {sorted(unknown)[0]!r} "
            f"(keys: {', '.join(sorted(_TOP_KEYS - {'format'}))})"
        )
    dec = Declarations(label=doc.get("label"))
    if doc.get("classes") is not None:
        dec.classes = _as_list(doc["classes"], f"{p}: classes")
        dec.classes_source = _source(doc.get("classes_source", "user"), f"{p}: classes_source")
    if doc.get("label_bounds") is not None:
        dec.label_bounds = _as_bounds(doc["label_bounds"], f"{p}: label_bounds")
        dec.label_bounds_source = _source(doc.get("label_bounds_source", "user"), f"{p}: label_bounds_source")
    if doc.get("n_public") is not None:
        n = doc["n_public"]
        if isinstance(n, bool) or not isinstance(n, int) or n < 1:
            raise UsageError(f"{p}: n_public must be a positive integer")
        dec.n_public = n
        dec.n_public_source = _source(doc.get("n_public_source", "user"), f"{p}: n_public_source")
    if doc.get("draft") is not None:
        dec.draft = _draft_block(doc["draft"], p)
    cols = doc.get("columns") or {}
    if not isinstance(cols, dict):
        raise UsageError(f"{p}: columns must be a mapping from column name to its declaration")
    for c, spec in cols.items():
        dec.columns[str(c)] = _column(str(c), spec, p)
    return _check_dp_sources(dec, p)


def apply_options(dec: Declarations, args) -> Declarations:
    """The command-line declarations on top of ``dec`` (a file's or a bundled dataset's)."""
    if args.label is not None:
        dec.label = args.label
    if args.classes is not None:
        dec.classes, dec.classes_source = list(args.classes), "user"
    if getattr(args, "label_bounds", None) is not None:
        dec.label_bounds, dec.label_bounds_source = tuple(args.label_bounds), "user"
    if args.n_public is not None:
        dec.n_public, dec.n_public_source = args.n_public, "user"
    for c in args.drop:
        dec.columns[c] = ColumnDecl("drop")
    for c in args.binary:
        dec.columns[c] = ColumnDecl("binary")
    for c, vals in args.categories:
        dec.columns[c] = ColumnDecl("categorical", categories=list(vals))
    for c, b in args.bounds:
        if c == "*":
            dec.wildcard_bounds = b
            continue
        old = dec.columns.get(c)
        keep_cuts = old.cut_points if old is not None and old.kind == "numerical" and old.source == "user" else None
        dec.columns[c] = ColumnDecl("numerical", bounds=b, cut_points=keep_cuts)
    for c, cuts in args.cut_points:
        old = dec.columns.get(c)
        keep_bounds = old.bounds if old is not None and old.kind == "numerical" and old.source == "user" else None
        dec.columns[c] = ColumnDecl("numerical", bounds=keep_bounds, cut_points=list(cuts))
    for c in args.integer:
        d = dec.columns.get(c)
        if d is None and dec.wildcard_bounds is not None:
            d = dec.columns[c] = ColumnDecl("numerical", bounds=dec.wildcard_bounds)
        if d is None or d.kind != "numerical":
            raise UsageError(f"--integer {c}: only a numerical column (with --bounds or --cut-points) can be integer")
        d.integer = True
        if d.bounds is not None:  # the integers within the declared range
            d.bounds = (math.ceil(d.bounds[0]), math.floor(d.bounds[1]))
    return dec


def schema_document(dec: Declarations, columns=None, *, explicit_sources: bool = False) -> dict:
    """The schema file's mapping (what ``schema draft`` writes and ``show`` prints). A source is
    written when it is not ``user``, or always with ``explicit_sources`` (model files: a reader
    then tells a declared value from one of a file written before sources were recorded)."""
    doc: dict = {}
    if dec.label is not None:
        doc["label"] = dec.label
    if dec.classes is not None:
        doc["classes"] = list(dec.classes)
        if dec.classes_source != "user" or explicit_sources:
            doc["classes_source"] = dec.classes_source
    if dec.label_bounds is not None:
        doc["label_bounds"] = [float(b) for b in dec.label_bounds]
        if dec.label_bounds_source != "user" or explicit_sources:
            doc["label_bounds_source"] = dec.label_bounds_source
    if dec.n_public is not None:
        doc["n_public"] = dec.n_public
        if dec.n_public_source != "user" or explicit_sources:
            doc["n_public_source"] = dec.n_public_source
    cols = {}
    for c in columns if columns is not None else dec.columns:
        d = dec.columns.get(c)
        if d is None:
            kind = dec.kind(c)
            if kind is None:
                continue
            d = ColumnDecl(kind, bounds=dec.bounds(c))  # '*=LO:HI'
        cols[c] = _column_spec(d, explicit_sources)
    doc["columns"] = cols
    if dec.draft is not None:
        doc["draft"] = {"id": dec.draft["id"], "ledger": dec.draft["ledger"].to_dict()}
    return doc


def _column_spec(d: ColumnDecl, explicit_sources: bool) -> dict:
    """One column's entry of :func:`schema_document`."""
    spec: dict = {"kind": d.kind}
    if d.bounds is not None:
        spec["bounds"] = [_num(d.bounds[0]), _num(d.bounds[1])] if d.integer else [float(b) for b in d.bounds]
    if d.cut_points is not None:
        spec["cut_points"] = [_num(x) for x in d.cut_points]
    if d.categories is not None:
        spec["categories"] = list(d.categories)
    if d.integer:
        spec["integer"] = True
    if d.source != "user" or explicit_sources:
        spec["source"] = d.source
    return spec


def _num(x: float):
    return int(x) if float(x).is_integer() and abs(x) < 2**53 else float(x)


def dump_yaml(doc: dict) -> str:
    import yaml

    class _Flow(yaml.SafeDumper):
        pass

    def _represent_dict(dumper, data):
        # column declarations on one line each, the top level in block style
        flow = all(
            not isinstance(v, dict) and not (isinstance(v, list) and any(isinstance(x, dict) for x in v))
            for v in data.values()
        )
        return dumper.represent_mapping("tag:yaml.org,2002:map", data.items(), flow_style=flow)

    def _represent_list(dumper, data):
        # a list of values (classes, bounds) on one line
        flow = all(not isinstance(v, (dict, list)) for v in data)
        return dumper.represent_sequence("tag:yaml.org,2002:seq", data, flow_style=flow)

    _Flow.add_representer(dict, _represent_dict)
    _Flow.add_representer(list, _represent_list)
    return yaml.dump(doc, Dumper=_Flow, sort_keys=False, allow_unicode=True, width=100)


# ---------------------------------------------------------------------------- draft
DRAFT_HEADER = """\
# dpmodels schema DRAFT, read from {path}: every entry marked `source: data` was taken from the
# private file and is a leak if kept. Replace each with public knowledge (documented ranges,
# code lists), delete its `source` line, then: dpmodels fit --data {path} --schema THIS_FILE ...
"""


def draft_schema(df, label: str | None, *, max_categories: int = 100, regression: bool | None = None) -> Declarations:
    """A schema read from the data (every entry ``source: data``). The label's values become the
    classes, or, for a regression label (``regression=True``; with ``None``, a label whose cells all
    spell numbers and take more than ``max_categories`` values), its range becomes ``label_bounds``.
    A column of 0/1 cells is binary;
    a column whose cells all spell numbers is numerical with the data's range (integers when every value is whole); a column
    with at most ``max_categories`` distinct values is categorical; any other column is marked
    ``drop`` (an identifier or free text)."""
    import pandas as pd

    dec = Declarations(label=label)
    for c in df.columns:
        col = df[c].astype(str)
        if c == label:
            values = set(col)
            nums = pd.to_numeric(col.str.strip(), errors="coerce")
            numeric = bool(len(col)) and bool(nums.notna().all())
            as_bounds = regression if regression is not None else numeric and len(values) > max_categories
            if as_bounds:
                if not numeric:
                    bad = next(v for v, n in zip(col, nums) if pd.isna(n))
                    raise UsageError(f"--regression: label {c!r} has a cell that is not a number: {bad!r}")
                dec.label_bounds, dec.label_bounds_source = (float(nums.min()), float(nums.max())), "data"
            else:
                vals = sorted(values, key=lambda s: (parse_number(s) is None, parse_number(s) or 0, s))
                dec.classes, dec.classes_source = vals, "data"
            continue
        nums = pd.to_numeric(col.str.strip(), errors="coerce")
        if len(col) and nums.notna().all() and nums.isin((0, 1)).all():
            dec.columns[c] = ColumnDecl("binary", source="data")
            continue
        if len(col) and nums.notna().all():
            lo, hi = float(nums.min()), float(nums.max())
            integer = bool((nums == nums.round()).all())
            bounds = (int(lo), int(hi)) if integer else (lo, hi)
            dec.columns[c] = ColumnDecl("numerical", bounds=bounds, integer=integer, source="data")
            continue
        distinct = col.unique()
        if len(distinct) <= max_categories:
            dec.columns[c] = ColumnDecl("categorical", categories=sorted(distinct), source="data")
        else:
            dec.columns[c] = ColumnDecl("drop", source="data")
    return dec


DP_DRAFT_HEADER = """\
# dpmodels schema draft of {path}, released with differential privacy: (ε={eps:g}, δ={delta:g}) in total.
# Every value marked `source: dp` is a DP release; the `draft` block is its ledger. Keep the block with
# the values: a fit with this file adds the draft's (ε, δ) to the model's ledger (total = draft + fit).
# Values you replace with public knowledge: set their source to user (or delete the source line).
{note}"""


def private_declarations(ps, label: str | None, columns) -> Declarations:
    """A :class:`~dpmodels.data.private_schema.PrivateSchema` as declarations: every released
    value ``source: dp``, the draft's ledger in ``draft``."""
    dec = Declarations(label=label, draft={"id": ps.release_id, "ledger": ps.ledger})
    if ps.classes is not None:
        dec.classes, dec.classes_source = list(ps.classes), ps.source("classes")
    if ps.label_bounds is not None:
        dec.label_bounds, dec.label_bounds_source = tuple(ps.label_bounds), "dp"
    for c in columns:
        if c == label:
            continue
        kind = ps.kinds[c]
        src = ps.source(f"column {c}")
        if kind == "numerical":
            dec.columns[c] = ColumnDecl("numerical", bounds=tuple(ps.bounds[c]), source=src)
        elif kind == "categorical":
            dec.columns[c] = ColumnDecl("categorical", categories=list(ps.categories[c]), source=src)
        else:
            dec.columns[c] = ColumnDecl(kind, source=src)
    return dec


def _dp_draft(args, df) -> str:
    """``schema draft --epsilon``: the YAML text of a DP draft (docs/privacy.md, "DP schema draft")."""
    import warnings

    from ..data.private_schema import draft_private_schema

    if args.max_categories is not None:
        raise UsageError(
            "--max-categories applies to the non-private draft; a DP draft keeps the values that clear its threshold"
        )
    if args.random_state is not None:
        warnings.warn(
            "--random-state seeds the noise: the draft is NOT private against whoever knows the seed",
            UserWarning,
            stacklevel=2,
        )
    if args.classes is not None and (args.label is None or args.regression):
        raise UsageError("--classes declares the label set of a classification label: it needs --label COL")
    y = df[args.label] if args.label is not None else None
    X = df.drop(columns=[args.label]) if args.label is not None else df
    kinds = {c: "drop" for c in args.drop}
    for c in args.drop:
        if c not in X.columns:
            raise UsageError(f"--drop {c!r} is not a column of {args.data!r}")
    try:  # every check of the draft runs before its first release
        ps = draft_private_schema(
            X,
            y,
            epsilon=args.epsilon,
            delta=args.delta,
            classes=args.classes,
            regression=bool(args.regression),
            kinds=kinds,
            search_range=args.search_range,
            random_state=args.random_state,
        )
    except ValueError as exc:
        raise UsageError(f"schema draft --epsilon: {str(exc).splitlines()[0]}") from None
    dec = private_declarations(ps, args.label, list(df.columns))
    note = ""
    if ps.classes is not None and len(ps.classes) < 2:
        note = (
            "# NOTE: fewer than 2 labels cleared the threshold (a fit needs the whole label set): declare it\n"
            "# with --classes (public knowledge) or draft with a larger epsilon.\n"
        )
    if ps.drop:
        note += f"# kind: drop for {len(ps.drop)} column(s) where no value cleared the threshold (identifiers, free text).\n"
    head = DP_DRAFT_HEADER.format(path=args.data, eps=ps.ledger.epsilon, delta=ps.ledger.delta, note=note)
    return head + dump_yaml(schema_document(dec, list(df.columns)))


def cmd_schema_draft(args) -> int:
    import sys

    from ._common import read_csv_text

    if args.epsilon is None and (args.delta is not None or args.classes is not None or args.drop):
        raise UsageError("--delta, --classes and --drop belong to a DP draft: add --epsilon E")
    if args.epsilon is not None and args.delta is None:
        args.delta = 1e-6
    df = read_csv_text(args.data, sep=args.sep)
    if args.label is not None and args.label not in df.columns:
        raise UsageError(f"--label {args.label!r} is not a column of {args.data!r}")
    if args.regression and args.label is None:
        raise UsageError("--regression needs --label COL (the regression label)")
    if args.epsilon is not None:
        text = _dp_draft(args, df)
    else:
        k = 100 if args.max_categories is None else args.max_categories
        dec = draft_schema(df, args.label, max_categories=k, regression=args.regression)
        text = DRAFT_HEADER.format(path=args.data) + dump_yaml(schema_document(dec, list(df.columns)))
    if args.out is None:
        sys.stdout.write(text)
    else:
        Path(args.out).write_text(text, encoding="utf-8")
        print(f"schema draft written to {args.out}", file=sys.stderr)
    return 0


def _range(text: str):
    lo, sep, hi = text.partition(":")
    a, b = parse_number(lo), parse_number(hi)
    if not sep or a is None or b is None or not (math.isfinite(a) and math.isfinite(b) and a < b):
        import argparse

        raise argparse.ArgumentTypeError(f"expected LO:HI with finite numbers LO < HI, got {text!r}")
    return (a, b)


def add_parser(sub):
    """Add ``schema`` and its ``draft`` command; returns the sub-command parsers (``schema check``,
    :mod:`.schema_check`, adds itself there: it builds on this module)."""
    from ._common import guarded

    s = one_line_errors(
        sub.add_parser(
            "schema",
            help="write a draft schema (column kinds, bounds, categories) from a CSV file",
            description="Schema files declare a table's public inputs for `dpmodels fit --schema FILE`.",
        )
    )
    ss = s.add_subparsers(dest="schema_command", required=True)
    d = one_line_errors(
        ss.add_parser(
            "draft",
            help="write a schema draft from a CSV: read as is (source: data, a leak) or with --epsilon (DP)",
            description="Write a YAML schema draft of a CSV file. Without --epsilon every entry is read from "
            "the file and marked `source: data`: a fit that keeps such entries records each as a leak; "
            "review each, replace it with public knowledge, and delete its source line. With --epsilon E "
            "the entries are released with differential privacy (`source: dp`, a private declaration) "
            "and the draft's ledger is written with them: a fit with the file is charged draft + fit.",
        )
    )
    d.add_argument("data", metavar="DATA.csv", help="a CSV file with a header row")
    d.add_argument("--label", metavar="COL", help="the label column (its values become the draft's classes)")
    d.add_argument(
        "--regression",
        action="store_true",
        default=None,
        help="the label is a number to predict: draft its range as label_bounds instead of classes "
        "(default: only when every label cell is a number and there are more than --max-categories values)",
    )
    d.add_argument("--sep", default=",", metavar="SEP", help="CSV field separator (default: ',')")
    d.add_argument(
        "--max-categories",
        type=int,
        default=None,
        metavar="K",
        help="text columns with more distinct values are marked kind: drop (default: 100; non-private draft)",
    )
    dp = d.add_argument_group(
        "DP draft (--epsilon)",
        "Release the schema with differential privacy: every value `source: dp`, the draft's ledger "
        "in the file (a fit adds it to the model's ledger). Category lists and the label set are "
        "thresholded noisy histograms: (ε, δ)-DP, a value of one record appears with probability <= δ.",
    )
    dp.add_argument("--epsilon", type=float, metavar="E", help="the draft's ε (e.g. 0.1 of your total)")
    dp.add_argument("--delta", type=float, metavar="D", help="the draft's δ (default 1e-6: keep it well below 1/n)")
    dp.add_argument("--classes", nargs="+", metavar="LABEL", help="the public label set (not released)")
    dp.add_argument("--drop", nargs="+", default=[], metavar="COL", help="columns to leave out (not released)")
    dp.add_argument(
        "--search-range",
        type=_range,
        default=(-1e6, 1e6),
        metavar="LO:HI",
        help="the public range searched for numerical bounds (default -1e6:1e6; values beyond are clipped; "
        "write --search-range=-10:10 when LO is negative)",
    )
    dp.add_argument("--random-state", type=int, default=None, help="seed the noise (reproducible, NOT private)")
    d.add_argument("--out", metavar="SCHEMA.yaml", help="write here (default: stdout)")
    d.set_defaults(func=guarded(cmd_schema_draft))
    return ss
