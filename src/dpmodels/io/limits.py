"""A model file read as untrusted input (docs/privacy.md, "Model files are untrusted input"): the
size caps, the parse that refuses what JSON should not hold, and the checks of each model kind's
sizes and shape before anything is built from it."""

from __future__ import annotations

import json
import math
import numbers
from pathlib import Path
from typing import Any

import numpy as np

from ..privacy.ledger import PrivacyLedger
from .format import ModelFileError, _one_line

# ---------------------------------------------------------------------------- size caps
# Checked before anything is built from a file (docs/privacy.md, "Model files are untrusted input"): each is far
# above what a real model needs and keeps a crafted file from costing more than a fixed multiple
# of its own size in memory and time.
MAX_FILE_BYTES = 256 * 2**20  #: bytes of a model file
MAX_NESTING = 32  #: JSON nesting depth (a saved model needs about 8)
MAX_STRING_CHARS = 65_536  #: characters of any string (names, category values, ledger notes)
MAX_INT_DIGITS = 40  #: digits of an integer literal
MAX_NODES = 1_000_000  #: nodes of a tree
MAX_DEPTH = 256  #: depth of a tree (printing recurses once per level)
MAX_FEATURES = 100_000  #: features of a model, or input columns
MAX_CATEGORIES = 100_000  #: public categories of one categorical feature
MAX_CLASSES = 10_000  #: class labels
MAX_RULES = 100_000  #: rules of a rule list
MAX_LITERALS = 10_000  #: literals of one rule
MAX_LEDGER_ROWS = 100_000  #: rows of a privacy ledger
MAX_BINS = 1_000_000  #: bins (times scores per bin) of all the shape functions of an additive model

CAPS = {
    "file bytes": MAX_FILE_BYTES,
    "nesting depth": MAX_NESTING,
    "string characters": MAX_STRING_CHARS,
    "integer digits": MAX_INT_DIGITS,
    "tree nodes": MAX_NODES,
    "tree depth": MAX_DEPTH,
    "features": MAX_FEATURES,
    "categories per feature": MAX_CATEGORIES,
    "classes": MAX_CLASSES,
    "rules": MAX_RULES,
    "literals per rule": MAX_LITERALS,
    "ledger rows": MAX_LEDGER_ROWS,
    "bins of an additive model": MAX_BINS,
}


def _need(d: dict, key: str, types, where: str):
    """``d[key]``, checked to be of ``types`` (a bool is not an int here)."""
    if not isinstance(d, dict) or key not in d:
        raise ModelFileError(f"{where} lacks the key {key!r}")
    v = d[key]
    types = types if isinstance(types, tuple) else (types,)
    if not isinstance(v, types) or (isinstance(v, bool) and bool not in types):
        names = " or ".join(t.__name__ for t in types)
        raise ModelFileError(f"{where}: {key!r} must be {names}, got {type(v).__name__}")
    return v


def _is_num(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _check_values(d, source: str) -> None:
    """Caps on the parsed JSON as a whole (iteratively: no recursion on file content): nesting
    depth, string lengths, integer sizes, finite floats. The walk holds one iterator per open
    container: its memory is bounded by the nesting cap, whatever the file's size."""
    max_int = 10**MAX_INT_DIGITS
    if _check_scalar(d, source, max_int):
        return
    stack = [_to_walk(d, source, max_int)]  # depth-first, one iterator per open container: memory O(nesting)
    while stack:
        for v in stack[-1]:
            if not _check_scalar(v, source, max_int):
                if len(stack) >= MAX_NESTING:
                    raise ModelFileError(f"{source}: nested more than {MAX_NESTING} levels deep")
                stack.append(_to_walk(v, source, max_int))
                break
        else:
            stack.pop()


def _check_scalar(v, source: str, max_int: int) -> bool:
    """Check a non-container value of :func:`_check_values`; False for a list or an object."""
    t = type(v)  # the JSON types first, by identity (the ABC checks below cost 10 x more)
    if t is int:
        if not -max_int < v < max_int:
            raise ModelFileError(f"{source}: an integer of more than {MAX_INT_DIGITS} digits")
        return True
    if t is float:
        if not math.isfinite(v):
            raise ModelFileError(f"{source}: a non-finite number ({v}); model files hold finite numbers")
        return True
    if t is list or t is dict:
        return False
    return _check_other_scalar(v, source, max_int)


def _check_other_scalar(v, source: str, max_int: int) -> bool:
    """:func:`_check_scalar` for the types a parser other than :mod:`json` may produce (numpy
    scalars, tuples) and for strings, booleans and None."""
    if isinstance(v, str):
        if len(v) > MAX_STRING_CHARS:
            raise ModelFileError(f"{source}: a string longer than {MAX_STRING_CHARS:,} characters")
    elif isinstance(v, (bool, np.bool_)) or v is None:
        pass
    elif isinstance(v, numbers.Integral):
        if not -max_int < int(v) < max_int:
            raise ModelFileError(f"{source}: an integer of more than {MAX_INT_DIGITS} digits")
    elif isinstance(v, numbers.Real):
        if not math.isfinite(float(v)):
            raise ModelFileError(f"{source}: a non-finite number ({v}); model files hold finite numbers")
    elif isinstance(v, (list, tuple, dict)):
        return False
    else:
        raise ModelFileError(f"{source}: a value of type {type(v).__name__} (not JSON)")
    return True


_LEAF_TYPES = {int, float, str, bool, type(None)}


def _to_walk(c, source: str, max_int: int):
    """An iterator over what remains to walk in container ``c``: nothing when it holds only
    plain JSON scalars (then checked here, at C speed: most of a file), else its values."""
    vals = c
    if isinstance(c, dict):
        if set(map(type, c)) == {str}:
            if c and max(map(len, c)) > MAX_STRING_CHARS:
                raise ModelFileError(f"{source}: a key longer than {MAX_STRING_CHARS:,} characters")
        else:
            for k in c:
                _check_scalar(k, source, max_int)
        vals = c.values()
    if len(vals) <= 4:  # a small container: the per-value checks cost less than the bulk ones
        return iter(vals)
    types = set(map(type, vals))
    if not types <= _LEAF_TYPES:
        return iter(vals)
    _check_leaves(vals, types, source, max_int)
    return iter(())


def _check_leaves(vals, types: set, source: str, max_int: int) -> None:
    """The bulk checks of a container of plain JSON scalars (``types``: the types it holds)."""
    if int in types:
        ints = [v for v in vals if type(v) is int]
        if not (-max_int < min(ints) and max(ints) < max_int):
            raise ModelFileError(f"{source}: an integer of more than {MAX_INT_DIGITS} digits")
    if float in types and not all(map(math.isfinite, (v for v in vals if type(v) is float))):
        raise ModelFileError(f"{source}: a non-finite number; model files hold finite numbers")
    if str in types and max(len(v) for v in vals if type(v) is str) > MAX_STRING_CHARS:
        raise ModelFileError(f"{source}: a string longer than {MAX_STRING_CHARS:,} characters")


def _check_labels(values: list, what: str, where: str) -> None:
    """Class labels and category values: JSON scalars (text, numbers, booleans), all distinct
    as values (1, 1.0 and true are one value to the lookups: listed twice, it would have two
    codes)."""
    if not all(isinstance(v, (str, int, float)) for v in values):  # bool is an int
        raise ModelFileError(f"{where}: {what} must be texts or numbers")
    if len(set(values)) != len(values):
        raise ModelFileError(f"{where}: {what} list a value twice")


def _cap(n: int, cap: int, what: str, source: str) -> None:
    if n > cap:
        raise ModelFileError(f"{source}: {n:,} {what} (a model file may hold at most {cap:,})")


def _list(d: dict, key: str, where: str, cap: int, what: str, *, optional: bool = False) -> Any:
    if optional and d.get(key) is None:
        return None
    v = _need(d, key, list, where)
    _cap(len(v), cap, what, where)
    return v


def _check_tree_doc(m: dict, source: str) -> None:
    """Sizes and shape of a serialised tree, before anything is allocated from it: at most
    :data:`MAX_NODES` nodes forming one tree from the root (every node reached exactly once) of
    depth at most :data:`MAX_DEPTH`; category lists and label lists within their caps."""
    where = f"{source}: malformed tree"
    cl = _list(m, "children_left", where, MAX_NODES, "tree nodes")
    cr = _list(m, "children_right", where, MAX_NODES, "tree nodes")
    n = len(cl)
    for key in ("feature", "threshold", "left_categories", "value", "label"):
        if len(_list(m, key, where, MAX_NODES, "tree nodes")) != n:
            raise ModelFileError(f"{where}: {key!r} has not one entry per node ({n})")
    if n == 0 or len(cr) != n:
        raise ModelFileError(f"{where}: children_left and children_right need one entry per node (>= 1)")
    if not set(map(type, cl)) <= {int} or not set(map(type, cr)) <= {int}:
        raise ModelFileError(f"{where}: child ids must be integers")
    _check_labels(_list(m, "classes", where, MAX_CLASSES, "classes"), "the classes", where)
    names = _list(m, "feature_names", where, MAX_FEATURES, "features")
    if len(_list(m, "categorical", where, MAX_FEATURES, "features")) != len(names):
        raise ModelFileError(f"{where}: 'categorical' has not one entry per feature")
    _check_tree_categories(m, where)
    _check_one_tree(cl, cr, where)


def _check_tree_categories(m: dict, where: str) -> None:
    """A tree's public categories (within the caps, each value once) and the category codes its
    nodes send left."""
    cats = _need(m, "categories", dict, where)
    _cap(len(cats), MAX_FEATURES, "categorical features", where)
    for k, vals in cats.items():
        if not isinstance(vals, list):
            raise ModelFileError(f"{where}: the categories of feature {k[:50]!r} must be a list")
        _cap(len(vals), MAX_CATEGORIES, f"categories of feature {k[:50]!r}", where)
        _check_labels(vals, f"the categories of feature {k[:50]!r}", where)
    for i, s in enumerate(m["left_categories"]):
        if s is not None and not (isinstance(s, list) and set(map(type, s)) <= {int}):
            raise ModelFileError(f"{where}: left_categories[{i}] must be null or a list of integer codes")
        if s is not None:
            _cap(len(s), MAX_CATEGORIES, f"category codes at node {i}", where)


def _check_one_tree(cl: list, cr: list, where: str) -> None:
    """The child arrays form one tree from the root, breadth first: each node reached once, two
    children or none, depth within :data:`MAX_DEPTH`."""
    n = len(cl)
    seen = bytearray(n)
    seen[0] = 1
    level, depth, reached = [0], 0, 1
    while level:
        nxt = []
        for i in level:
            a, b = cl[i], cr[i]
            if (a == -1) != (b == -1):
                raise ModelFileError(f"{where}: node {i} must have two children or none")
            if a == -1:
                continue
            for c in (a, b):
                if not 0 < c < n or seen[c]:
                    raise ModelFileError(f"{where}: node {i} has the child {c}, which is not a new node in 1..{n - 1}")
                seen[c] = 1
                nxt.append(c)
        if nxt:
            depth += 1
            if depth > MAX_DEPTH:
                raise ModelFileError(f"{where}: a tree deeper than {MAX_DEPTH} levels")
        reached += len(nxt)
        level = nxt
    if reached != n:
        raise ModelFileError(f"{where}: {n - reached} node(s) are not reachable from the root")


def _check_regression_tree_doc(m: dict, source: str) -> None:
    """A serialised regression tree: the checks of :func:`_check_tree_doc` (same node arrays, same
    caps) plus one ``leaf_value`` per node and two label bounds."""
    _check_tree_doc(m, source)
    where = f"{source}: malformed regression tree"
    n = len(m["children_left"])
    lv = _need(m, "leaf_value", list, where)
    _cap(len(lv), MAX_NODES, "tree nodes", where)
    if len(lv) != n:
        raise ModelFileError(f"{where}: 'leaf_value' has not one entry per node ({n})")
    if not all(v is None or (_is_num(v) and not isinstance(v, bool)) for v in lv):
        raise ModelFileError(f"{where}: leaf values must be numbers or null")
    lb = _need(m, "label_bounds", list, where)
    if len(lb) != 2 or not all(_is_num(v) and not isinstance(v, bool) for v in lb):
        raise ModelFileError(f"{where}: label_bounds must be two numbers")


def _check_additive_doc(m: dict, source: str) -> None:
    """Sizes of a serialised additive model: features, categories, classes, bins (all within the
    caps), checked before :meth:`AdditiveModel.from_dict` builds anything."""
    where = f"{source}: malformed additive model"
    names = _list(m, "feature_names", where, MAX_FEATURES, "features")
    terms = _list(m, "terms", where, MAX_FEATURES, "features")
    counts = _list(m, "bin_counts", where, MAX_FEATURES, "features")
    if len(terms) != len(names) or len(counts) != len(names):
        raise ModelFileError(f"{where}: one term and one bin-count list per feature")
    cats = _need(m, "categories", dict, where)
    for v in cats.values():
        if not isinstance(v, list):
            raise ModelFileError(f"{where}: a category list must be a list")
        _cap(len(v), MAX_CATEGORIES, "categories per feature", where)
    cuts = _need(m, "cut_points", dict, where)
    total = 0
    for v in cuts.values():
        if not isinstance(v, list) or not all(_is_num(c) and not isinstance(c, bool) for c in v):
            raise ModelFileError(f"{where}: cut points must be lists of numbers")
        total += len(v) + 1
    total += sum(len(v) + 1 for v in cats.values())
    _cap(total, MAX_BINS, "bins", where)
    classes = m.get("classes")
    if classes is not None:
        _check_labels(_list(m, "classes", where, MAX_CLASSES, "classes"), "the classes", where)
    width = 1 if classes is None or len(classes) == 2 else len(classes)
    _cap(total * width, MAX_BINS, "scores", where)
    for t in terms:
        if not isinstance(t, list) or not all(
            isinstance(r, list) and all(_is_num(v) and not isinstance(v, bool) for v in r) for r in t
        ):
            raise ModelFileError(f"{where}: a term must be a list of rows of numbers")
    for c in counts:
        if not isinstance(c, list) or not all(_is_num(v) and not isinstance(v, bool) for v in c):
            raise ModelFileError(f"{where}: bin counts must be lists of numbers")


def _check_rule_list_doc(m: dict, source: str) -> None:
    """Sizes of a serialised rule list: rules, literals per rule, features."""
    where = f"{source}: malformed rule list"
    _list(m, "feature_names", where, MAX_FEATURES, "features")
    _check_labels(_list(m, "classes", where, MAX_CLASSES, "classes"), "the classes", where)
    rules = _list(m, "rules", where, MAX_RULES, "rules")
    for k, r in enumerate(rules):
        if isinstance(r, dict) and isinstance(r.get("antecedent"), list):
            _cap(len(r["antecedent"]), MAX_LITERALS, f"literals in rule {k + 1}", where)


_LEDGER_ROW_TYPES = {
    "what": (str,),
    "mechanism": (str,),
    "epsilon": (int, float),
    "delta": (int, float),
    "sensitivity": (int, float, type(None)),
    "composition": (str,),
    "parts": (int,),
    "note": (str,),
    "guarantee": (str,),
}


def _load_ledger(led, source: str):
    if not isinstance(led, dict):
        raise ModelFileError(f"{source}: privacy.ledger must be an object")
    where = f"{source}: malformed privacy ledger"
    for key in ("epsilon", "delta"):
        if key in led and not _is_num(led[key]):
            raise ModelFileError(f"{where} ({key!r} must be a number)")
    rows = led.get("rows", [])
    if not isinstance(rows, list):
        raise ModelFileError(f"{where} ('rows' must be a list)")
    _cap(len(rows), MAX_LEDGER_ROWS, "ledger rows", source)
    for k, r in enumerate(rows):
        if not isinstance(r, dict):
            raise ModelFileError(f"{where} (row {k} is not an object)")
        for key, v in r.items():
            types = _LEDGER_ROW_TYPES.get(key)
            if types is None:
                raise ModelFileError(f"{where} (row {k} has the unknown key {key[:50]!r})")
            if not isinstance(v, types) or isinstance(v, bool):
                raise ModelFileError(f"{where} (row {k}: {key!r} has the wrong type)")
    try:
        ledger = PrivacyLedger.from_dict(led)
        ledger.verdict()  # everything printing needs, computed once here
    except (KeyError, TypeError, ValueError, ArithmeticError) as exc:
        raise ModelFileError(f"{where} ({_one_line(exc)})") from None
    return ledger


def read_model_json(path):
    """The parsed JSON of a model file, read as untrusted input: at most :data:`MAX_FILE_BYTES`
    (checked before reading), no ``NaN`` / ``Infinity``, nesting and values within the caps of
    this module; anything else is a :class:`ModelFileError`. Not yet validated as a model (see
    :func:`model_from_dict`): for code that peeks at a file's schema before loading it."""
    p = Path(path)
    if p.is_dir():
        raise ModelFileError(f"{str(p)!r} is a directory, not a model file")
    try:
        size = p.stat().st_size
        if size > MAX_FILE_BYTES:
            raise ModelFileError(f"{str(p)!r}: {size:,} bytes (a model file may hold at most {MAX_FILE_BYTES:,})")
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ModelFileError(f"model file {str(p)!r} does not exist") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ModelFileError(f"cannot read model file {str(p)!r}: {_one_line(exc)}") from None
    d = _parse_json(text, str(p))
    _check_values(d, str(p))
    return d


def _reject_constant(name):
    raise ModelFileError(f"{name} is not a JSON number (save_model never writes it)")


def _parse_json(text: str, source: str):
    try:
        return json.loads(text, parse_constant=_reject_constant)
    except json.JSONDecodeError as exc:
        raise ModelFileError(
            f"{source!r} is not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})"
        ) from None
    except ModelFileError as exc:
        raise ModelFileError(f"{source!r}: {exc}") from None
    except RecursionError:
        raise ModelFileError(f"{source!r}: JSON nested too deeply") from None
    except ValueError as exc:  # e.g. an integer literal beyond Python's digit limit
        raise ModelFileError(f"{source!r}: unreadable JSON value ({_one_line(exc)})") from None
