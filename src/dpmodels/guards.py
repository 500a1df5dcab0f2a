"""Guards against runaway fits: refuse or warn *before* the work, with the numbers.

What a fit costs grows with public quantities (the schema and the hyper-parameters) and with the
number of records n, which is **private**. A guard that read n would make an error or a warning
depend on the private data — itself a release (docs/privacy.md, Principles: conventions). So every guard here
uses only

* public quantities: the number of candidate rules (columns and ``max_width``), a tree's
  ``2^max_depth`` leaves × features × bins × classes, the machine's memory;
* ``n_public`` when the user declared it (a public number) — otherwise the message gives the cost
  *per 1,000 records* and says why it cannot give a total.

Non-private learners (GreedyRL) may pass their true n: they release the data anyway.

Limits (refusals raise :class:`ResourceLimitError`, a ``ValueError``, before any budget is spent):

* ``max_candidates`` — rule candidates per rule-list fit. Default :data:`DEFAULT_MAX_CANDIDATES`.
* ``max_memory`` — bytes of the estimated peak of a tree or rule-list fit (a rule list's:
  its candidate tables and moment matrices, plus its per-record part when ``n_public`` is
  declared, :func:`rule_list_memory`). Default: half the machine's memory,
  at most :data:`DEFAULT_MAX_MEMORY`.
* ``max_seconds`` — estimated seconds of a fit (when it can be estimated from public
  quantities). Default :data:`DEFAULT_MAX_SECONDS`. Estimates are from this project's machine and
  can be off by a factor of 2–3 elsewhere.

Overrides, for users who really want the work: environment variables ``DPMODELS_MAX_CANDIDATES``,
``DPMODELS_MAX_MEMORY`` (bytes, or with a unit: ``16G``, ``500M``) and ``DPMODELS_MAX_SECONDS``
(``0`` or ``none`` turns a limit off), or in Python
``with dpmodels.guards.limits(max_candidates=5_000_000): ...``. The command line has
``--max-candidates``, ``--max-memory`` and ``--max-seconds``.

Costs above :data:`SLOW_SECONDS` (estimated) give a :class:`CostWarning` instead of silence, and
long loops show a progress bar (tqdm) on an interactive terminal after 2 s
(``DPMODELS_PROGRESS=1`` forces it, ``0`` turns it off).

Cost models, measured on this project's 2-core machine (load ≈ 8; ``docs/benchmarks.md``):

* rule lists, ``max_width >= 4``: each rule position scores every candidate on every distinct
  record pattern, ≈ 55 ns per (candidate × pattern); patterns ≤ n. ``max_width = 3``: the
  third-order moments over the distinct patterns, ≤ 1 ns per (columns³ × pattern) and position
  (measured ≈ 0.2 ns on binarized Adult), plus ≈ 2 µs per candidate and position. ``max_width <= 2``: one Gram
  product, ≈ 2 µs per candidate and position. Candidate tables: ≈ (9·w + 90) bytes per candidate.
* PrivaTree: the histograms of a level hold (nodes × features × bins × classes) int64 counts;
  the peak is ≈ 4.4× the last level's (measured 685 MB at depth 14 on Adult, 103 MB on COMPAS);
  time ≈ 0.6–1.2 µs per histogram cell. Leaves ≤ 2^max_depth.
* BDPT / DPGDF: ≤ 2^(max_depth+1) − 1 nodes, ≈ 1.5–2 ms and ≈ 1 kB per node.
* ``reconstruction_leak`` of a rule list (exact model counting): ≈ 2 µs per state visit of the
  counter's bound (measured 0.6–6 µs; the bound comes from the rules' overlap structure alone).
"""

from __future__ import annotations

import contextlib
import contextvars
import math
import os
import re
import sys
import types
import warnings
from collections.abc import Mapping
from math import comb

__all__ = [
    "ResourceLimitError",
    "CostWarning",
    "DEFAULT_MAX_CANDIDATES",
    "DEFAULT_MAX_MEMORY",
    "SLOW_SECONDS",
    "limits",
    "max_candidates",
    "max_memory",
    "max_seconds",
    "n_rule_candidates",
    "check_rule_candidates",
    "check_tree_size",
    "check_model_count",
    "progress",
    "progress_bar",
    "parse_bytes",
]

DEFAULT_MAX_CANDIDATES = 500_000
DEFAULT_MAX_MEMORY = 8 * 2**30
DEFAULT_MAX_SECONDS = 1800.0
SLOW_SECONDS = 60.0

# cost constants (module docstring)
_NS_PER_CAND_PATTERN = 55e-9
_S_PER_CAND_GRAM = 2e-6
_NS_PER_CUBE_PATTERN = 1e-9  # width 3: ≈ 1 ns per (column³ × distinct row) and position (bound)
_BYTES_PER_CAND = 90
_PRIVATREE_PEAK_FACTOR = 5.0  # measured ≈ 4.4, rounded up
_PRIVATREE_S_PER_CELL = 1.2e-6
_GREEDY_TREE_S_PER_NODE = 2e-3
_GREEDY_TREE_BYTES_PER_NODE = 1024
_S_PER_COUNT_STATE = 2e-6  # rule-list model counting: 0.6-6 µs per bounded state visit (measured)


class ResourceLimitError(ValueError):
    """A fit would exceed a resource limit of :mod:`dpmodels.guards` (raised before any work)."""


class CostWarning(UserWarning):
    """A fit is estimated to take long or use much memory (from public quantities only)."""


# the limits set by `limits(...)` in this context; the default is read-only (every change copies)
_OVERRIDES: contextvars.ContextVar[Mapping] = contextvars.ContextVar(
    "dpmodels_guard_limits", default=types.MappingProxyType({})
)


@contextlib.contextmanager
def limits(
    *,
    max_candidates: int | None | str = "keep",
    max_memory: int | str | None = "keep",
    max_seconds: float | None | str = "keep",
):
    """Raise (or, with None, remove) a limit inside a ``with`` block.

    >>> with limits(max_candidates=2_000_000):
    ...     pass  # fit a width-3 rule list on 112 columns here
    """
    new = dict(_OVERRIDES.get())
    if max_candidates != "keep":
        new["max_candidates"] = None if max_candidates is None else _positive_int(max_candidates, "max_candidates")
    if max_memory != "keep":
        new["max_memory"] = None if max_memory is None else parse_bytes(max_memory)
    if max_seconds != "keep":
        new["max_seconds"] = None if max_seconds is None else _positive_seconds(max_seconds)
    token = _OVERRIDES.set(new)
    try:
        yield
    finally:
        _OVERRIDES.reset(token)


def _positive_int(v, name) -> int:
    try:
        iv = int(v)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a positive integer, got {v!r}") from None
    if iv != v and not isinstance(v, str) or iv < 1:
        raise ValueError(f"{name} must be a positive integer, got {v!r}")
    return iv


def _positive_seconds(v) -> float:
    try:
        f = float(v)
    except (TypeError, ValueError):
        raise ValueError(f"max_seconds must be a number of seconds > 0, got {v!r}") from None
    if not (f > 0 and math.isfinite(f)):
        raise ValueError(f"max_seconds must be a number of seconds > 0, got {v!r}")
    return f


_UNITS = {
    "": 1,
    "b": 1,
    "k": 2**10,
    "kb": 2**10,
    "m": 2**20,
    "mb": 2**20,
    "g": 2**30,
    "gb": 2**30,
    "t": 2**40,
    "tb": 2**40,
}


def parse_bytes(v) -> int:
    """``16G``, ``500M``, ``1.5g``, ``1048576`` -> bytes (binary units)."""
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        if v <= 0 or not math.isfinite(v):
            raise ValueError(f"a memory limit must be > 0, got {v!r}")
        return int(v)
    m = re.fullmatch(r"\s*([0-9]*\.?[0-9]+)\s*([a-zA-Z]*)\s*", str(v))
    if not m or m.group(2).lower() not in _UNITS or float(m.group(1)) <= 0:
        raise ValueError(f"a memory limit must look like 16G, 500M or a number of bytes, got {v!r}")
    return int(float(m.group(1)) * _UNITS[m.group(2).lower()])


def _env_limit(name, parse):
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return "unset"
    if raw.strip().lower() in ("0", "none", "off", "inf"):
        return None
    try:
        return parse(raw)
    except ValueError as exc:
        raise ValueError(f"environment variable {name}: {exc}") from None


def max_candidates() -> int | None:
    """The rule-candidate limit in force (None: no limit)."""
    o = _OVERRIDES.get()
    if "max_candidates" in o:
        return o["max_candidates"]
    env = _env_limit("DPMODELS_MAX_CANDIDATES", lambda s: _positive_int(s.strip().replace("_", ""), "max_candidates"))
    return DEFAULT_MAX_CANDIDATES if env == "unset" else env


def _physical_memory() -> int | None:
    try:
        return int(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))
    except (ValueError, OSError, AttributeError):
        return None


def max_memory() -> int | None:
    """The memory limit in force, in bytes (None: no limit)."""
    o = _OVERRIDES.get()
    if "max_memory" in o:
        return o["max_memory"]
    env = _env_limit("DPMODELS_MAX_MEMORY", parse_bytes)
    if env != "unset":
        return env
    phys = _physical_memory()
    return DEFAULT_MAX_MEMORY if phys is None else min(DEFAULT_MAX_MEMORY, phys // 2)


def max_seconds() -> float | None:
    """The limit on a fit's estimated seconds in force (None: no limit)."""
    o = _OVERRIDES.get()
    if "max_seconds" in o:
        return o["max_seconds"]
    env = _env_limit("DPMODELS_MAX_SECONDS", _positive_seconds)
    return DEFAULT_MAX_SECONDS if env == "unset" else env


def _refuse_slow(learner: str, what: str, secs: float, mem_txt: str) -> None:
    limit = max_seconds()
    if limit is not None and secs > limit:
        raise ResourceLimitError(
            f"{learner}: {what}: estimated ≈ {_fmt_seconds(secs)} ({mem_txt}), above the limit of "
            f"{_fmt_seconds(limit)}. Make the model smaller, or raise the limit: "
            "DPMODELS_MAX_SECONDS=... or dpmodels.guards.limits(max_seconds=...) (CLI: --max-seconds)"
        )


# ---------------------------------------------------------------------------- formatting
def _fmt_bytes(b: float) -> str:
    for unit, size in (("TB", 2**40), ("GB", 2**30), ("MB", 2**20), ("kB", 2**10)):
        if b >= size:
            return f"{b / size:.3g} {unit}"
    return f"{b:.0f} B"


def _fmt_seconds(s: float) -> str:
    if s >= 3600:
        return f"{s / 3600:.2g} h"
    if s >= 60:
        return f"{s / 60:.2g} min"
    return f"{s:.2g} s"


# ---------------------------------------------------------------------------- rule lists
def n_rule_candidates(n_features: int, max_width: int, groups=None) -> int:
    """Number of conjunctions of 1..``max_width`` literals over distinct columns (closed form:
    Σ_w C(p, w)·2^w). With ``groups`` (list of group sizes partitioning the columns, e.g. the
    one-hot columns of one categorical feature), conjunctions of two columns of one group are
    not counted: Σ_w 2^w·e_w(sizes), e_w the elementary symmetric polynomial."""
    w_max = max(0, min(int(max_width), int(n_features)))
    if groups is None:
        return sum(comb(int(n_features), w) * 2**w for w in range(1, w_max + 1))
    e = [1] + [0] * w_max  # e_w of the group sizes, by the product of (1 + s·x)
    for s in groups:
        for w in range(w_max, 0, -1):
            e[w] += e[w - 1] * int(s)
    return sum(e[w] * 2**w for w in range(1, w_max + 1))


BUILD_FACTOR = 4  # candidate sets whose bound is within 4× the limit are built, then counted


def _rule_list_bytes_per_record(n_features: int) -> float:
    """Bytes per training record of an in-memory rule-list fit: the 0/1 matrix as uint8 in ≈ 3
    copies (the caller's, the validated one, the distinct rows) and ≈ 7 int64 per record (row
    and pair indices, labels, masks). Measured: 10^6 records × 100 columns peak at ≈ 0.7 GB with
    the CSV and the Binarizer (``docs/benchmarks.md``)."""
    return 3.0 * int(n_features) + 56.0


def rule_list_memory(n_features: int, max_width: int, n_candidates: int, n_public=None) -> float:
    """Estimated peak bytes of a rule-list fit from public quantities: the candidate tables
    (≈ (9·w + 90) bytes per candidate: literals, counts and the scores of a position), the
    moment matrices (per class: p² float64 Gram entries; width 3: also the p³ third-order ones,
    two copies for the downdates; at most 128 MB of float64 distinct rows), and — when
    ``n_public`` is declared — the per-record part (:func:`_rule_list_bytes_per_record`)."""
    p, w = int(n_features), int(max_width)
    mem = float(n_candidates) * (9 * w + _BYTES_PER_CAND)
    mem += 2 * 8 * 2 * p * p  # two weight columns (or classes) of p × p Gram matrices, twice
    if w == 3:
        mem += 2 * 8 * 2 * float(p) ** 3
    if n_public is not None:
        mem += float(n_public) * _rule_list_bytes_per_record(p) + min(float(n_public) * p * 8, 128 * 2**20)
    return mem


def check_rule_candidates(
    n_features: int,
    max_width: int,
    *,
    max_rules: int,
    n_public=None,
    groups=None,
    learner: str = "rule list",
    n_candidates: int | None = None,
    upper_bound: bool = False,
) -> int:
    """Refuse (ResourceLimitError) a candidate set beyond :func:`max_candidates`, warn
    (:class:`CostWarning`) when the estimated time exceeds :data:`SLOW_SECONDS`. Uses the
    schema and ``n_public`` only. ``n_candidates``: the exact count when the set is built (e.g.
    after the feature groups' exclusions); ``upper_bound``: the count is a bound ("up to").
    Returns the number of candidates."""
    m = int(n_candidates) if n_candidates is not None else n_rule_candidates(n_features, max_width, groups)
    up = "up to " if upper_bound else ""
    positions = max(1, int(max_rules) - 1)
    mem = rule_list_memory(n_features, max_width, m, n_public)
    if int(max_width) >= 3:
        if int(max_width) == 3:  # third-order moments over the distinct rows, then O(1) per candidate
            per_1000 = _NS_PER_CUBE_PATTERN * int(n_features) ** 3 * 1000 * positions
        else:
            per_1000 = _NS_PER_CAND_PATTERN * m * 1000 * positions
        if n_public is not None:
            time_txt = f"≈ {_fmt_seconds(per_1000 * float(n_public) / 1000)} for n_public={int(n_public):,}"
            est = per_1000 * float(n_public) / 1000
        else:
            time_txt = (
                f"≈ {_fmt_seconds(per_1000)} per 1,000 distinct training records (n is "
                "private: declare n_public for a total)"
            )
            est = None
        if int(max_width) == 3:
            est = None if est is None else est + _S_PER_CAND_GRAM * m * positions
    else:
        est = _S_PER_CAND_GRAM * m * positions
        time_txt = f"≈ {_fmt_seconds(est)}"
    per_record = (
        f" with n_public={int(n_public):,}"
        if n_public is not None
        else " (plus ≈ "
        + _fmt_bytes(1000 * _rule_list_bytes_per_record(n_features))
        + " per 1,000 records: n is private, declare n_public to include it)"
    )
    mem_limit = max_memory()
    if mem_limit is not None and mem > mem_limit:
        raise ResourceLimitError(
            f"{learner}: max_width={max_width} on {n_features} binary columns: {up}{m:,} candidate "
            f"rules, ≈ {_fmt_bytes(mem)} of memory{per_record}, above the limit of "
            f"{_fmt_bytes(mem_limit)}. Lower max_width or the number of columns, or raise the limit: "
            "DPMODELS_MAX_MEMORY=16G or dpmodels.guards.limits(max_memory='16G') (CLI: --max-memory)"
        )
    limit = max_candidates()
    if limit is not None and m > limit:
        raise ResourceLimitError(
            f"{learner}: max_width={max_width} on {n_features} binary columns gives {up}{m:,} "
            f"candidate rules (limit {limit:,}); {positions} rule positions would take {time_txt} and "
            f"{_fmt_bytes(mem)} of candidate tables. Lower max_width or the number of columns, or "
            "raise the limit: DPMODELS_MAX_CANDIDATES=... or "
            "dpmodels.guards.limits(max_candidates=...) (CLI: --max-candidates)"
        )
    if upper_bound:  # the exact count, once built, decides about time
        return m
    if est is not None:
        _refuse_slow(
            learner, f"{m:,} candidate rules × {positions} positions", est, f"{_fmt_bytes(mem)} of candidate tables"
        )
    if est is not None and est > SLOW_SECONDS:
        warnings.warn(
            f"{learner}: {m:,} candidate rules × {positions} positions: {time_txt}",
            CostWarning,
            stacklevel=3,
        )
    return m


# ---------------------------------------------------------------------------- audits
def check_model_count(visits: int, *, n_rules: int, n_vars: int, what: str = "reconstruction_leak") -> float:
    """Refuse (ResourceLimitError) the exact model counting of a rule list (Dist_G) whose estimated
    time exceeds :func:`max_seconds`; warn (:class:`CostWarning`) above :data:`SLOW_SECONDS`.
    ``visits``: the counter's bound on its dynamic-program state visits, from the rules' structure
    only (:func:`dpmodels.audit._model_count.estimate_work`). Returns the estimated seconds."""
    secs = _S_PER_COUNT_STATE * float(visits)
    task = f"exact model counting of {n_rules} rules over {n_vars} attributes (≤ {float(visits):.3g} DP states)"
    _refuse_slow(what, task, secs, "dense overlap of wide rules")
    if secs > SLOW_SECONDS:
        warnings.warn(f"{what}: {task}: ≈ {_fmt_seconds(secs)}", CostWarning, stacklevel=3)
    return secs


# ---------------------------------------------------------------------------- trees
def check_tree_size(
    learner: str, *, max_depth: int, n_features: int, n_bins: int, n_classes: int, n_public=None
) -> dict:
    """Refuse a tree fit whose estimated peak memory exceeds :func:`max_memory`; warn when its
    estimated time exceeds :data:`SLOW_SECONDS`, or when ``2^max_depth`` leaves far exceed a
    declared ``n_public``. Public quantities only (module docstring). Returns the estimates."""
    d = int(max_depth)
    leaves = 2**d
    if learner == "PrivaTree":
        cells = leaves * n_features * n_bins * n_classes
        mem = _PRIVATREE_PEAK_FACTOR * 8 * cells
        secs = _PRIVATREE_S_PER_CELL * cells
        what = f"2^{d} = {leaves:,} leaves × {n_features} features × {n_bins} bins × {n_classes} classes of histograms"
    else:
        nodes = 2 * leaves - 1
        mem = _GREEDY_TREE_BYTES_PER_NODE * nodes
        secs = _GREEDY_TREE_S_PER_NODE * nodes
        what = f"up to 2^{d + 1} − 1 = {nodes:,} nodes"
    per_record = ""
    if n_public is not None:
        mem += float(n_public) * n_features * 8 * 3  # encoded matrix, codes, routing
        per_record = f" (with n_public={int(n_public):,})"
    else:
        per_record = " (plus a part growing with n, which is private: declare n_public to include it)"
    limit = max_memory()
    if limit is not None and mem > limit:
        raise ResourceLimitError(
            f"{learner}: max_depth={d} means {what}: ≈ {_fmt_bytes(mem)} of memory{per_record} and "
            f"≈ {_fmt_seconds(secs)}, above the limit of {_fmt_bytes(limit)}. Lower max_depth, or "
            "raise the limit: DPMODELS_MAX_MEMORY=16G or dpmodels.guards.limits(max_memory='16G') "
            "(CLI: --max-memory)"
        )
    _refuse_slow(learner, f"max_depth={d} means {what}", secs, f"≈ {_fmt_bytes(mem)}{per_record}")
    if secs > SLOW_SECONDS:
        warnings.warn(
            f"{learner}: max_depth={d} means {what}: ≈ {_fmt_seconds(secs)} and ≈ {_fmt_bytes(mem)}{per_record}",
            CostWarning,
            stacklevel=3,
        )
    if n_public is not None and leaves > 8 * float(n_public):
        warnings.warn(
            f"{learner}: 2^{d} = {leaves:,} leaves for n_public={int(n_public):,} records: most "
            "leaves hold no record, their counts are noise (lower max_depth)",
            CostWarning,
            stacklevel=3,
        )
    return {"memory_bytes": mem, "seconds": secs}


# ---------------------------------------------------------------------------- progress
def _progress_mode() -> str:
    """``"off"``, ``"terminal"`` (stderr is an interactive terminal: bars after 2 s) or
    ``"forced"`` (``DPMODELS_PROGRESS=1``: at once, wherever stderr goes). ``DPMODELS_PROGRESS=0``
    and a stderr that is not a terminal (tests, CI logs, pipes) give ``"off"``."""
    flag = os.environ.get("DPMODELS_PROGRESS", "").strip()
    if flag == "0":
        return "off"
    if flag == "1":
        return "forced"
    return "terminal" if hasattr(sys.stderr, "isatty") and sys.stderr.isatty() else "off"


def progress(iterable, *, total=None, desc: str = ""):
    """``iterable`` wrapped in a tqdm bar shown on an interactive terminal once 2 s have passed
    (``DPMODELS_PROGRESS=1`` forces it, ``0`` hides it). The bar counts public steps (rule
    positions, tree levels) only."""
    mode = _progress_mode()
    if mode == "off":
        return iterable
    try:
        from tqdm.auto import tqdm
    except ImportError:  # pragma: no cover - tqdm is a core dependency
        return iterable
    delay = 0 if mode == "forced" else 2.0
    return tqdm(iterable, total=total, desc=desc, delay=delay, leave=False, file=progress_stream())


class _NoBar:
    """What :func:`progress_bar` returns when no bar is shown: ``update`` and ``close`` do nothing."""

    def update(self, n=1) -> None:
        pass

    def close(self) -> None:
        pass


def progress_bar(*, total=None, desc: str = "", unit: str = "it", unit_scale: bool = False, leave: bool = False):
    """A tqdm bar updated by hand (``update(k)``, ``close()``), shown as :func:`progress` decides
    (``DPMODELS_PROGRESS``, an interactive stderr), else an object whose methods do nothing. The
    caller counts public quantities only (bytes of a file, cells of a grid), never records read."""
    mode = _progress_mode()
    if mode == "off":
        return _NoBar()
    try:
        from tqdm.auto import tqdm
    except ImportError:  # pragma: no cover - tqdm is a core dependency
        return _NoBar()
    return tqdm(
        total=total,
        desc=desc,
        unit=unit,
        unit_scale=unit_scale,
        delay=0 if mode == "forced" else 2.0,
        leave=leave,
        dynamic_ncols=True,
        file=progress_stream(),
    )


def progress_stream():
    """Where progress bars write: stderr itself, not the command line's escaping wrapper
    (:func:`dpmodels.cli._common.terminal_output`) — a bar's carriage returns are its own; its
    text is public (counts of public steps and a fixed description)."""
    return getattr(sys.stderr, "terminal", sys.stderr)
