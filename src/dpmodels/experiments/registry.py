"""One id per published result: what it draws, its sizes, its cells, its figure and its table.

An :class:`Experiment` is registered once (``register(Experiment(...))``) by the module of its
paper (a module of the package ``paper_000``, ``paper_002`` or ``paper_003``); the registry imports
every module of those packages lazily (:data:`PLUGIN_PACKAGES`), so an id whose module is absent
from a build is simply not listed. Everything the command line and the report need comes from here:

* ``cells(size)`` -> a list of :class:`Cell`: independent, picklable units of work, each with its
  own seed, returning tidy rows (:data:`ROW_FIELDS`). The grid runner (:mod:`.grid`) runs them
  locally or on Dask, resumes from finished cells and merges the rows. A cell that needs an
  optional package (``Cell(..., requires="diffprivlib")``) is run only where it imports; elsewhere
  its finished file, written by another environment, is read (:mod:`.run`).
* ``plot(df, out_dir)`` -> PNG paths, drawn as the paper draws the result (log ε axis, the same
  panels, error bands, the published points overlaid where the text gives them).
* ``table(df)`` -> Markdown, our numbers beside the paper's.
* ``published``: the paper's numbers as data (``None`` where the text gives none).

How to plug in a new id (e.g. ``003-fig2``), in a module of its paper's package
(``experiments/paper_003/...``), which the registry finds by itself::

    from dpmodels.experiments.registry import Cell, Experiment, register, row

    def _cells(size):                       # size: a Size (quick, runs, datasets, epsilons, ...)
        return [Cell(f"{ds}-r{r}", _one, dict(dataset=ds, seed=r)) for ds in ... for r in range(size.runs or 10)]

    def _one(dataset, seed):                # module-level: picklable for joblib and Dask
        ...
        return [row(dataset, "CART", {"depth": 3}, float("inf"), 0.0, seed, "dist_g", value, secs)]

    register(Experiment("003-fig2", paper="003", kind="figure", title="...", draws="...",
                        cells=_cells, plot=_plot, table=_table, full_cost="≈ 4 min", quick_cost="≈ 20 s"))

and add its line to the table of the package's ``__init__`` docstring. A module outside the paper
packages goes in :data:`PLUGIN_MODULES` (or is imported before using the registry).
"""

from __future__ import annotations

import functools
import hashlib
import importlib
import json
import math
import pkgutil
import sys
from dataclasses import dataclass, field
from typing import Any, Callable

from .catalogue import CATALOGUE, sort_key

__all__ = [
    "Cell",
    "Skip",
    "Experiment",
    "Size",
    "ROW_FIELDS",
    "PAPER_IDS",
    "PLUGIN_PACKAGES",
    "PLUGIN_MODULES",
    "register",
    "get",
    "all_experiments",
    "row",
    "resolve",
    "requirement_met",
]

# one tidy row per (fit, metric)
ROW_FIELDS = ("dataset", "learner", "parameters", "epsilon", "delta", "seed", "metric", "value", "fit_seconds")

# The 26 result items of the papers (000 = 001's newer version, 002, 003): every figure and table
# with a result in it. Ids outside this list ("000-mia", "002-uci", "lib-proba" ...) go beyond them.
PAPER_IDS = (
    "000-fig1", "000-fig2", "000-fig3", "000-fig4", "000-table1", "000-table2", "000-table3", "000-fig6",
    "002-fig1", "002-fig2", "002-fig3", "002-fig4", "002-table2", "002-table3", "002-table4", "002-table5",
    "002-table6", "002-table7", "002-table8",
    "003-toy", "003-fig2", "003-fig3", "003-fig4", "003-fig5", "003-fig6", "003-fig7",
)  # fmt: skip

# One package per paper; every module inside registers its ids when imported (see _load_plugins).
PLUGIN_PACKAGES = (
    "dpmodels.experiments.paper_000",
    "dpmodels.experiments.paper_002",
    "dpmodels.experiments.paper_003",
    "dpmodels.experiments.library",  # studies of the library's own choices (ids "lib-...")
)
# Further modules that register experiments outside those packages; a missing one is skipped.
PLUGIN_MODULES: tuple = ()


@dataclass(frozen=True)
class Size:
    """How big a run is. ``None`` fields mean "the experiment's own quick/full default"."""

    quick: bool = False
    runs: int | None = None
    datasets: tuple | None = None
    epsilons: tuple | None = None
    data_dir: str | None = None
    download: bool = False

    def pick(self, quick_value, full_value):
        return quick_value if self.quick else full_value

    # --runs, --datasets and --epsilons override an id's own choice:
    def runs_or(self, quick_value, full_value):
        """``--runs`` when given, else the id's quick or full number of runs."""
        return self.runs if self.runs is not None else self.pick(quick_value, full_value)

    def datasets_or(self, default):
        """``--datasets`` (a tuple) when given, else the id's ``default``."""
        return tuple(self.datasets) if self.datasets is not None else default

    def epsilons_or(self, quick_value, full_value=None):
        """``--epsilons`` (a tuple of floats) when given, else the id's quick grid or its full one
        (``full_value``; None: the same as the quick one)."""
        if self.epsilons is not None:
            return tuple(float(e) for e in self.epsilons)
        return self.pick(quick_value, quick_value if full_value is None else full_value)


@dataclass(frozen=True, eq=False)
class Cell:
    """A unit of work: ``fn(**kwargs)`` returns a list of tidy row dicts.

    ``fn`` must be a module-level function (picklable); ``kwargs`` plain data. ``key`` names the
    cell within its experiment's folder; the file a finished cell is stored in adds a hash of
    ``key`` and ``kwargs``, so changing a cell's parameters (e.g. ``--quick`` vs full) never reuses
    a stale result, while moving or renaming ``fn`` keeps the file.
    """

    key: str
    fn: Callable[..., list]
    kwargs: dict = field(default_factory=dict)
    cost: float = 1.0  # relative cost hint: expensive cells are scheduled first
    # an optional package the cell needs (e.g. "diffprivlib"); where it does not import, the runner
    # does not run the cell but still reads its result file when another environment wrote it.
    # Not part of ``uid``: the same cell has the same file in every environment.
    requires: str | None = None

    @property
    def uid(self) -> str:
        payload = json.dumps([self.key, self.kwargs], sort_keys=True, default=str)
        h = hashlib.sha1(payload.encode()).hexdigest()[:10]
        safe = "".join(ch if ch.isalnum() or ch in "-_.=" else "_" for ch in self.key)
        return f"{safe}-{h}"

    def run(self) -> list:
        return self.fn(**self.kwargs)


@functools.lru_cache(maxsize=None)
def requirement_met(package: str | None) -> bool:
    """Whether ``package`` imports here (``None``: no requirement). An import that fails with any
    error counts as missing: diffprivlib 0.6.6 raises at import under scikit-learn >= 1.8."""
    if package is None:
        return True
    try:
        importlib.import_module(package)
    except Exception:  # noqa: BLE001 - ImportError, or a package broken by a newer dependency
        return False
    return True


@dataclass(frozen=True)
class Skip:
    """A part of a grid this build or this machine cannot run (e.g. an unbundled dataset), with why.

    A ``cells`` function may return ``Skip`` entries among its cells; the runner reports them.
    """

    key: str
    reason: str


@dataclass
class Experiment:
    """A registered result of one of the papers (see the module docstring)."""

    id: str
    paper: str
    kind: str  # "figure" or "table"
    title: str
    draws: str
    cells: Callable[[Size], list] | None = None
    plot: Callable[..., list] | None = None
    table: Callable[..., str] | None = None
    published: Any = None
    full_cost: str = "not measured"
    quick_cost: str = "not measured"
    source: str | None = None  # draw from another id's results (its cells run in its folder)
    notes: str = ""
    unavailable: str | None = None  # a reason, when this build cannot run it
    # an agreement test fixed before comparing: rows -> one sentence with its outcome (generated pages)
    agreement: Callable[..., str] | None = None
    # the rows its generated page commits when the run's own are too many (a summary computed from
    # them, which ``table`` reads as well), and the columns beyond ROW_FIELDS that summary keeps
    page_rows: Callable[..., Any] | None = None
    page_columns: tuple[str, ...] = ()
    module: str = ""  # the module that registered it (set by register; the catalogue names it too)

    def __post_init__(self):
        if self.kind not in ("figure", "table"):
            raise ValueError(f"{self.id}: kind must be 'figure' or 'table'")


_REGISTRY: dict[str, Experiment] = {}
_loaded = False


def register(exp: Experiment) -> Experiment:
    """Add (or replace) an experiment under its id; ``exp.module`` becomes the registering module."""
    exp.module = sys._getframe(1).f_globals.get("__name__", "")
    _REGISTRY[exp.id] = exp
    return exp


def _load_plugins():
    global _loaded
    if _loaded:
        return
    _loaded = True
    for mod in _plugin_modules():
        _import_plugin(mod)


def _import_plugin(mod: str) -> None:
    try:
        importlib.import_module(mod)
    except ModuleNotFoundError as exc:
        if exc.name != mod:  # the module exists but one of its imports is missing: a real error
            raise


def _plugin_modules() -> list[str]:
    """Every module of the paper packages (:data:`PLUGIN_PACKAGES`), then :data:`PLUGIN_MODULES`.

    A new file in ``experiments/paper_XXX/`` is found without being listed anywhere; a package
    absent from a build is skipped.
    """
    mods: list[str] = []
    for pkg in PLUGIN_PACKAGES:
        try:
            package = importlib.import_module(pkg)
        except ModuleNotFoundError as exc:
            if exc.name != pkg:
                raise
            continue
        mods += [
            f"{pkg}.{m.name}"
            for m in sorted(pkgutil.iter_modules(package.__path__), key=lambda m: m.name)
            if not m.name.startswith("_")
        ]
    return mods + list(PLUGIN_MODULES)


def all_experiments() -> list[Experiment]:
    """Every registered experiment, in paper and id order."""
    _load_plugins()
    return [_REGISTRY[k] for k in sorted(_REGISTRY, key=sort_key)]


def get(eid: str) -> Experiment:
    """The experiment registered under ``eid`` (ValueError listing the known ids otherwise).

    An id of the static catalogue loads only the module that registers it."""
    if eid not in _REGISTRY and eid in CATALOGUE:
        _import_plugin(f"dpmodels.experiments.{CATALOGUE[eid].module}")
    if eid not in _REGISTRY:
        _load_plugins()
    if eid not in _REGISTRY:
        known = ", ".join(e.id for e in all_experiments())
        raise ValueError(f"unknown experiment id {eid!r}; known: {known}")
    return _REGISTRY[eid]


def resolve(names) -> list[str]:
    """Expand ``all`` and paper prefixes (``000``, ``lib``) into registered ids, in order."""
    out: list[str] = []
    for name in names:
        if name == "all":
            ids = sorted(CATALOGUE, key=sort_key)
        elif name in ("000", "002", "003", "lib"):
            ids = [i for i in sorted(CATALOGUE, key=sort_key) if CATALOGUE[i].paper == name]
        else:
            ids = [get(name).id]
        for i in ids:
            get(i)
            if i not in out:
                out.append(i)
    return out


def row(dataset, learner, parameters, epsilon, delta, seed, metric, value, fit_seconds=float("nan")) -> dict:
    """One tidy result row (:data:`ROW_FIELDS`); ``parameters`` is a dict stored as sorted JSON."""
    if not isinstance(parameters, str):
        parameters = json.dumps(parameters, sort_keys=True, default=str)
    eps = float(epsilon) if epsilon is not None else math.nan
    return dict(
        dataset=str(dataset),
        learner=str(learner),
        parameters=parameters,
        epsilon=eps,
        delta=float(delta) if delta is not None else math.nan,
        seed=int(seed),
        metric=str(metric),
        value=float(value),
        fit_seconds=float(fit_seconds),
    )
