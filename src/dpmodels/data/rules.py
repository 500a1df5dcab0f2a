"""Binary literals and feature groups: how rule-list columns print and which of them belong together.

A *literal* is a binary column ``x_f`` or its negation ``not x_f``. A *candidate rule* is a
conjunction of 1 to ``max_width`` literals over distinct columns. The candidate set depends only on
the schema (column names, their declared groups and ``max_width``), never on the rows or the
labels, so it is a public input to every private learner (docs/privacy.md, principle 6): nothing is pruned by
support.

Feature groups. Binary columns often come from one raw feature: one-hot columns of a categorical
feature (``race=A``, ``race=B``: at most one is 1) or threshold columns of a numerical one
(``age<=30``, ``age<=45``: nested). Some conjunctions of two such literals are then empty
(``race=A and race=B``, ``not age<=30 and age<=20``) or equal to one of their literals
(``race=A and not race=B`` is ``race=A``; ``age<=30 and age<=45`` is ``age<=30``). When the groups
are declared (:func:`check_feature_groups`; the :class:`~dpmodels.data.Binarizer` writes them in
its output's ``attrs["dpmodels_groups"]``, the bundled binarized Adult and COMPAS carry them too),
those candidates are dropped; intervals (``not age<=30 and age<=45``) and "none of"
(``not race=A and not race=B``) are kept. The declaration is public (it describes the columns, not
the records), so the pruned set is still a function of the schema only; pruning never changes
which sets of records a candidate can capture (``tests/data/test_binarize.py`` checks it by brute force).

A group declaration maps a column name to a spec (JSON-safe)::

    {"feature": "race", "kind": "category", "value": "A"}       # the column is  race == "A"
    {"feature": "age", "kind": "interval", "value": [30, 45]}   # the column is  30 < age <= 45
                                                                # (None: an open end)

Category columns of one feature are mutually exclusive and a record may hold none of them (an
unknown or missing value). Interval columns of one feature are sets of the real line.

The candidates themselves and their counting live in :mod:`dpmodels.rulelist.candidates`
(``RuleCandidates``, ``moments``); this module keeps what describes the *columns*: literal names
and the group declarations, and is imported by the learners, never the other way round.
"""

from __future__ import annotations

import math
import numbers
import re

import numpy as np

__all__ = [
    "literal_name",
    "literal_text",
    "check_feature_groups",
    "GROUPS_ATTR",
    "GROUP_KINDS",
]


GROUPS_ATTR = "dpmodels_groups"  # key of the group declaration in a DataFrame's ``attrs``
GROUP_KINDS = ("category", "interval")


_NEGATED_OP = {"<=": ">", ">": "<=", ">=": "<", "<": ">=", "=": "≠"}
_ONE_COMPARISON = re.compile(r"^[^<>=≠]+?(<=|>=|<|>|=)[^<>=≠]+$")


def literal_name(feature: str, positive: bool) -> str:
    """How a literal prints: the column's name, or its negation. A column named by one
    comparison (``age<=37.5``, ``Prior-Crimes>3``, ``sex=Male``) negates to the opposite
    comparison (``age>37.5``, ``Prior-Crimes<=3``, ``sex≠Male``): the same records, since a
    numerical value is never missing (``dpmodels.validation``) and ``≠`` includes the values
    outside the declared list. Any other name prints as ``not name``."""
    name = str(feature)
    if positive:
        return name
    m = _ONE_COMPARISON.match(name)
    if m:
        return name[: m.start(1)] + _NEGATED_OP[m.group(1)] + name[m.end(1) :]
    return f"not {name}"


def literal_text(feature: str, positive: bool, digits: int | None = 4) -> tuple[str, bool]:
    """:func:`literal_name` with a numeric threshold written at ``digits`` significant digits
    (``age<=37.49871`` → ``age<=37.5``) and whether that rounded it. Printing only: the model
    keeps its column names."""
    from .._format import significant

    text = literal_name(feature, positive)
    m = _ONE_COMPARISON.match(text)
    if digits is None or not m:
        return text, False
    rhs = text[m.end(1) :]
    try:
        value = float(rhs)
    except ValueError:
        return text, False
    short = significant(value, digits)
    if float(short) == value:
        return text, False
    return text[: m.end(1)] + short, True


# ------------------------------------------------------------------ feature groups
def _spec_value(kind, value, col):
    if kind == "category":
        try:
            hash(value)
        except TypeError:
            raise ValueError(f"feature group of column {col!r}: a category value must be hashable") from None
        return value
    if not isinstance(value, (list, tuple)) or len(value) != 2:
        raise ValueError(f"feature group of column {col!r}: an interval is [lo, hi] (None: open end)")
    ends = []
    for v, inf in zip(value, (-math.inf, math.inf)):
        if v is None:
            ends.append(inf)
            continue
        if isinstance(v, bool) or not isinstance(v, numbers.Real) or math.isnan(float(v)):
            raise ValueError(f"feature group of column {col!r}: interval ends must be numbers or None")
        ends.append(float(v))
    if not ends[0] < ends[1]:
        raise ValueError(f"feature group of column {col!r}: an interval (lo, hi] needs lo < hi")
    return tuple(ends)


def check_feature_groups(groups, feature_names, *, strict: bool = True) -> list | None:
    """Normalise a group declaration to one ``(feature, kind, value)`` or None per column.

    ``groups``: None (no groups) or a dict ``{column name: {"feature", "kind", "value"}}`` (module
    docstring). Columns without an entry are ungrouped. ``strict``: a column name that is not in
    ``feature_names`` is an error (an explicit ``feature_groups=``); otherwise such entries are
    ignored (a frame's ``attrs`` after its columns were selected). Returns None when no column is
    grouped. Every check is on the declaration, never on data.
    """
    if groups is None:
        return None
    if not isinstance(groups, dict):
        raise ValueError("feature_groups must be None, 'auto' or a dict {column: {'feature', 'kind', 'value'}}")
    names = [str(f) for f in feature_names]
    index = {n: i for i, n in enumerate(names)}
    out: list = [None] * len(names)
    kinds: dict = {}
    for col, spec in groups.items():
        if str(col) not in index:
            if strict:
                raise ValueError(f"feature_groups: unknown column {col!r}")
            continue
        if not isinstance(spec, dict) or not {"feature", "kind", "value"} <= set(spec):
            raise ValueError(f"feature_groups[{col!r}] must be a dict with keys 'feature', 'kind', 'value'")
        feat, kind = str(spec["feature"]), spec["kind"]
        if kind not in GROUP_KINDS:
            raise ValueError(f"feature_groups[{col!r}]: kind must be one of {GROUP_KINDS}, got {kind!r}")
        if kinds.setdefault(feat, kind) != kind:
            raise ValueError(f"feature_groups: feature {feat!r} mixes kinds {kinds[feat]!r} and {kind!r}")
        out[index[str(col)]] = (feat, kind, _spec_value(kind, spec["value"], col))
    return out if any(g is not None for g in out) else None


def _group_masks(members, kind):
    """Each member column as a bitmask over the group's atoms, and the mask of the whole domain.

    Categories: one atom per distinct value plus one for "any other value" (unknown, missing).
    Intervals: the cells between consecutive distinct finite endpoints (the real line cut there).
    """
    if kind == "category":
        values = list(dict.fromkeys(v for _, v in members))
        atom = {v: k for k, v in enumerate(values)}
        full = (1 << (len(values) + 1)) - 1  # the last atom: every other value
        return [1 << atom[v] for _, v in members], full
    ends = sorted({e for _, (lo, hi) in members for e in (lo, hi) if math.isfinite(e)})
    cells = [-math.inf, *ends, math.inf]  # cell t = (cells[t], cells[t + 1]]
    masks = []
    for _, (lo, hi) in members:
        m = 0
        for t in range(len(cells) - 1):
            if cells[t] >= lo and cells[t + 1] <= hi:
                m |= 1 << t
        masks.append(m)
    return masks, (1 << (len(cells) - 1)) - 1


def _pair_tables(groups, p):
    """``pair[i, j, a, b]``: keep the conjunction (column i, polarity a) ∧ (column j, polarity b);
    ``single[i, a]``: keep the literal. False only within a group, where the conjunction is empty
    or equal to a single literal of the group."""
    pair = np.ones((p, p, 2, 2), dtype=bool)
    single = np.ones((p, 2), dtype=bool)
    by_feature: dict = {}
    for i, g in enumerate(groups):
        if g is not None:
            by_feature.setdefault((g[0], g[1]), []).append((i, g[2]))
    for (_, kind), members in by_feature.items():
        masks, full = _group_masks(members, kind)
        idx = np.array([i for i, _ in members], dtype=np.int64)
        fill = _group_pairs_vectorised if full < 2**63 else _group_pairs_loop
        keep, lit_single = fill(masks, full)
        single[idx] = lit_single
        g = idx.size
        a, b, s, t = (x.ravel() for x in np.indices((2, 2, g, g)))
        off = s != t  # (i, i) is not a pair: left as it is
        pair[idx[s[off]], idx[t[off]], a[off], b[off]] = keep.ravel()[off]
    return pair, single


def _group_pairs_loop(masks, full):
    """``(keep, single)`` for one group, bitmasks as Python integers (any number of atoms):
    ``keep[a, b, s, t]`` for members s, t with polarities a, b (0 negated, 1 positive): their
    conjunction is nonempty and no literal of the group; ``single[s, a]``: the literal is nonempty."""
    g = len(masks)
    lit = [(full & ~m, m) for m in masks]  # polarity 0 (negated), 1 (positive)
    literal_sets = {x for pair_ in lit for x in pair_}
    keep = np.zeros((2, 2, g, g), dtype=bool)
    for s in range(g):
        for t in range(g):
            for a in (0, 1):
                for b in (0, 1):
                    both = lit[s][a] & lit[t][b]
                    keep[a, b, s, t] = both != 0 and both not in literal_sets
    single = np.array([[x != 0 for x in pair_] for pair_ in lit], dtype=bool).reshape(g, 2)
    return keep, single


def _group_pairs_vectorised(masks, full):
    """:func:`_group_pairs_loop` with the bitmasks as uint64 (fewer than 64 atoms), in numpy."""
    m = np.array(masks, dtype=np.uint64)
    lit = np.stack([np.uint64(full) & ~m, m])  # (2, g): polarity 0 (negated), 1 (positive)
    literal_sets = np.unique(lit)
    both = lit[:, None, :, None] & lit[None, :, None, :]  # (2, 2, g, g)
    keep = (both != 0) & ~np.isin(both, literal_sets)
    return keep, (lit != 0).T


def _keep_mask(F, P, groups):
    """Candidates all of whose literals and pairs of literals are kept (``_pair_tables``).

    A pruned candidate holds an empty literal or pair (it captures nothing) or a pair equal to one
    literal ℓ (it equals a candidate with one literal fewer, or is empty when ℓ conflicts with a
    third literal); so nothing a candidate could capture is lost.
    """
    pair, single = _pair_tables(groups, len(groups))
    # flat tables indexed by literals, a literal (column f, polarity q) being 2f + q: single at
    # 2f + q, pair[i, j, a, b] — laid out as (i, a, j, b) — at (2i + a)·2p + (2j + b)
    pair, single = pair.transpose(0, 2, 1, 3).ravel(), single.ravel()
    lit = [2 * F[:, k] + P[:, k] for k in range(F.shape[1])]
    keep = np.ones(F.shape[0], dtype=bool)
    w, p2 = F.shape[1], 2 * len(groups)
    for k in range(w):
        keep &= single[lit[k]]
        for l in range(k + 1, w):
            keep &= pair[lit[k] * p2 + lit[l]]
    return keep
