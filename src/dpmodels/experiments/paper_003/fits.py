"""The fits of paper 003's grid: each cell fits one kind of learner on one split and measures it
(Dist_G from the training data, size, accuracies, certification); :func:`_grid_cells` lists the
grid's cells. The learners and metrics are described in :mod:`.reconstruction`."""

from __future__ import annotations

import contextlib
import math
import os
import signal
import time
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from ..._optional import available
from ..registry import Cell, Skip, row
from .protocol import (
    DL85_MEMORY_SHARE,
    DL85_TIME_LIMIT,
    OPTIMAL_RL_TIME_LIMIT,
    Q_METRICS,
    QUANTILES,
    _datasets,
    _rounding_param,
    grid_sizes,
    load_split,
    min_count,
)

__all__ = ["tree_cell", "dl85_cell", "rulelist_cell", "optimal_rulelist_cell"]


# a row's first six fields: dataset, learner, parameters, ε, δ, seed
_Base = tuple[str, str, dict, float, float, int]


@dataclass(frozen=True)
class _Split:
    """Split ``seed`` of ``dataset`` (:func:`load_split`); its rows start with :meth:`base`."""

    dataset: str
    seed: int
    X_train: Any
    X_test: Any
    y_train: Any
    y_test: Any

    @classmethod
    def load(cls, dataset, seed) -> _Split:
        return cls(dataset, seed, *load_split(dataset, seed))

    @property
    def n(self) -> int:
        return len(self.y_train)

    def base(self, learner, params, epsilon=math.inf) -> _Base:
        """A row's first six fields: dataset, learner, parameters, ε, δ = 0, seed."""
        return (self.dataset, learner, params, epsilon, 0.0, self.seed)


def _timed(est, split: _Split):
    """``(est.fit(X_train, y_train), wall seconds, CPU seconds)``."""
    t, c = time.perf_counter(), time.process_time()
    model = est.fit(split.X_train, split.y_train)
    return model, time.perf_counter() - t, time.process_time() - c


def _internal_nodes(model) -> int:
    return int(np.sum(np.asarray(model.tree_.feature) >= 0))


def _tree_leaves(model) -> int:
    return int(np.sum(np.asarray(model.tree_.feature) < 0))


def _rules(model) -> int:
    return len(model.rule_list_.rules)


@dataclass(frozen=True)
class _Kind:
    """How the experiments read one kind of fitted model: its size (internal nodes or rules), its
    paths, the domains its Dist_G enumerates (``"binary"``: the 0/1 columns of a learner that
    declares none), whether its search certified it optimal, and the further metrics it reports."""

    size: Callable[[Any], int]
    n_paths: Callable[[Any], int]
    domains: str | None = None
    optimal: Callable[[Any], Any] | None = None
    extra: tuple[tuple[str, Callable[[Any], Any]], ...] = ()


SKLEARN_TREE = _Kind(_internal_nodes, lambda m: int(m.tree_.n_leaves), domains="binary")
DL85_TREE = _Kind(
    _internal_nodes,
    _tree_leaves,
    domains="binary",
    optimal=lambda m: m.optimal_,
    extra=(("lattice_size", lambda m: m.lattice_size_),),
)
PRIVATREE = _Kind(_internal_nodes, _tree_leaves)  # its declared categories are its domains
RULE_LIST = _Kind(_rules, lambda m: _rules(m) + 1)  # the rules and the default
OPTIMAL_RULE_LIST = _Kind(
    _rules,
    lambda m: _rules(m) + 1,
    optimal=lambda m: m.certificate_.optimal,
    extra=(("nodes", lambda m: m.certificate_.nodes),),
)


def _model_rows(model, kind: _Kind, base: _Base, split: _Split, secs, *, n_paths=True):
    """The rows every fit of paper 003 gives (Dist_G, size, [paths,] training and test accuracy)
    and the :func:`~dpmodels.audit.reconstruction_leak` they were read from."""
    from ...audit import reconstruction_leak

    leak = reconstruction_leak(model, split.X_train, split.y_train, domains=kind.domains)
    rows = [row(*base, "dist_g", leak.dist_g, secs), row(*base, "size", kind.size(model), secs)]
    if n_paths:
        rows.append(row(*base, "n_paths", kind.n_paths(model), secs))
    for metric, X, y in (
        ("train_accuracy", split.X_train, split.y_train),
        ("test_accuracy", split.X_test, split.y_test),
    ):
        rows.append(row(*base, metric, float(np.mean(model.predict(X) == y.to_numpy())), secs))
    return rows, leak


def _per_record_rows(base: _Base, per_record, fit_seconds):
    """The 101 quantiles of the per-record ratios, one row each; ``base``: the rows' first six fields."""
    q = np.quantile(np.asarray(per_record, dtype=float), QUANTILES)
    return [row(*base, m, float(v), fit_seconds) for m, v in zip(Q_METRICS, q)]


def _measure(kind: _Kind, learner, split: _Split, params, fit, *, per_record=False):
    """Tidy rows of one fitted model of the non-private grid (module docstring: metrics); ``fit``:
    what :func:`_timed` returned; ``per_record``: add the quantiles of the per-record ratios."""
    model, secs, cpu = fit
    base = split.base(learner, params)
    rows, leak = _model_rows(model, kind, base, split, secs)
    rows.append(row(*base, "cpu_seconds", cpu, secs))
    if kind.optimal is not None:
        rows.append(row(*base, "optimal", float(bool(kind.optimal(model))), secs))
    if per_record:
        rows += _per_record_rows(base, leak.per_record, secs)
    rows += [row(*base, metric, value(model), secs) for metric, value in kind.extra]
    return rows


def _grid_params(depth, support, m, n, rounding, **extra):
    """A grid fit's parameters: depth or length, λ, the count m it implies, n, the rounding."""
    return dict(depth=int(depth), support=float(support), min_count=m, n_train=n, **_rounding_param(rounding), **extra)


# --------------------------------------------------------------------------- cells
def tree_cell(dataset, seed, depths, supports, largest, rounding="ceil"):
    """Every sklearn_DT fit of one split (cheap): rows for each (max depth, λ); ``rounding`` of
    the leaf support as in :func:`min_count`."""
    from sklearn.tree import DecisionTreeClassifier

    split = _Split.load(dataset, seed)
    rows = []
    for lam in supports:
        m = min_count(lam, split.n, rounding)
        leaf = float(lam) if rounding == "ceil" else m  # a float λ is ⌈λ·n⌉ in scikit-learn
        for depth in depths:
            est = DecisionTreeClassifier(max_depth=int(depth), min_samples_leaf=leaf, random_state=1 + int(seed))
            params = _grid_params(depth, lam, m, split.n, rounding)
            fit = _timed(est, split)
            rows += _measure(SKLEARN_TREE, "sklearn_DT", split, params, fit, per_record=(depth, lam) == tuple(largest))
    return rows


def _physical_memory() -> int | None:
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):  # pragma: no cover - not on every platform
        return None


def _address_space_now() -> int:
    """This process's current virtual size in bytes (Linux ``/proc``; 0 elsewhere)."""
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):  # pragma: no cover - not Linux
        return 0


@contextlib.contextmanager
def _address_space_limit(share):
    """Let this process's address space grow by at most ``share`` of physical memory while inside
    (POSIX; a no-op where ``resource`` or the memory size is unavailable). Yields the cap in bytes.

    The cap is relative to the current virtual size (a forked child starts with its parent's
    reserved address space; an absolute cap made fits fail at once in a worker that had run a big
    fit before).
    """
    try:
        import resource
    except ImportError:  # pragma: no cover - Windows
        yield None
        return
    total = _physical_memory()
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    if total is None:
        yield None
        return
    cap = _address_space_now() + int(share * total)
    if hard != resource.RLIM_INFINITY:
        cap = min(cap, hard)
    if soft != resource.RLIM_INFINITY and soft <= cap:
        yield soft  # already tighter
        return
    resource.setrlimit(resource.RLIMIT_AS, (cap, hard))
    try:
        yield cap
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


def dl85_cell(dataset, seed, depth, support, largest, time_limit=DL85_TIME_LIMIT, rounding="ceil"):
    """One DL8.5 fit (optimal tree); ``optimal`` = 0 when the time limit stopped the search.

    ``time_limit`` is wall-clock (PyDL8.5's timer): on a loaded machine the search gets less CPU
    than that; ``cpu_seconds`` records what it used. ``lattice_size``: itemsets PyDL8.5 explored.

    Memory: the fit runs in a forked child process (where ``fork`` exists), so PyDL8.5's cache is
    returned to the OS when it ends — a worker that ran a big fit holds no memory for the next one
    — and the child may grow by at most :data:`DL85_MEMORY_SHARE` of physical memory. A fit that
    needs more is one ``out_of_memory`` row (value: the allowed growth in GB), not a crash.
    """
    import multiprocessing

    args = (dataset, seed, depth, support, largest, time_limit, rounding)
    try:
        ctx = multiprocessing.get_context("fork")
    except ValueError:  # pragma: no cover - no fork (Windows): in this process
        return _dl85_rows(*args)
    recv, send = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_dl85_child, args=(send, args), daemon=True)
    t0 = time.perf_counter()
    proc.start()
    send.close()
    try:
        out = recv.recv()
    except EOFError:  # the child died without answering (killed by the OS)
        out = None
    proc.join()
    recv.close()
    if isinstance(out, BaseException):
        raise out
    if out is None:
        if proc.exitcode != -signal.SIGKILL:  # not the OOM killer: a real failure
            raise RuntimeError(
                f"the DL8.5 fit's process ended with exit code {proc.exitcode} ({dataset}, seed "
                f"{seed}, depth {depth}, support {support})"
            )
        return [
            _oom_row(
                dataset,
                seed,
                depth,
                support,
                time_limit,
                time.perf_counter() - t0,
                exitcode=proc.exitcode,
                rounding=rounding,
            )
        ]
    return out


def _dl85_child(conn, args):
    try:
        with _address_space_limit(DL85_MEMORY_SHARE):
            out = _dl85_rows(*args)
    except BaseException as exc:  # sent back and raised in the parent
        out = exc
    conn.send(out)
    conn.close()


def _dl85_params(depth, support, n, time_limit, rounding="ceil"):
    return _grid_params(depth, support, min_count(support, n, rounding), n, rounding, time_limit=time_limit)


def _oom_row(dataset, seed, depth, support, time_limit, secs, exitcode=None, rounding="ceil"):
    split = _Split.load(dataset, seed)
    gb = round(DL85_MEMORY_SHARE * (_physical_memory() or 0) / 2**30, 1)
    params = dict(_dl85_params(depth, support, split.n, time_limit, rounding), memory_cap_gb=gb)
    if exitcode is not None:
        params["exitcode"] = exitcode
    return row(*split.base("DL8.5", params), "out_of_memory", gb, secs)


def _dl85_rows(dataset, seed, depth, support, largest, time_limit, rounding="ceil"):
    from ...tree.optimal import DL85Classifier

    split = _Split.load(dataset, seed)
    params = _dl85_params(depth, support, split.n, time_limit, rounding)
    est = DL85Classifier(max_depth=int(depth), min_sup=params["min_count"], time_limit=time_limit)
    t0 = time.perf_counter()
    try:
        fit = _timed(est, split)
    except RuntimeError:  # PyDL8.5 found no tree within the limit: recorded, not hidden
        return [row(*split.base("DL8.5", params), "no_tree", 1.0, float(time_limit))]
    except MemoryError:
        return [_oom_row(dataset, seed, depth, support, time_limit, time.perf_counter() - t0, rounding=rounding)]
    return _measure(DL85_TREE, "DL8.5", split, params, fit, per_record=(depth, support) == tuple(largest))


# GreedyRL criterion -> learner label: the authors' learner as they ran it is the paper's GreedyRL;
# their first draft and paper 000's split Gini (the library's default criterion) are extra series
GREEDY_SERIES = {"authors": "GreedyRL", "captured": "GreedyRL-draft", "split": "GreedyRL-split"}


def rulelist_cell(dataset, seed, lengths, supports, largest, criteria=("split",), rounding="ceil"):
    """Every GreedyRL fit of one split (width 1): rows for each (criterion, length L, λ).

    ``criteria``: ``"authors"`` (the authors' learner, its own test captured/n ≥ λ, i.e. ⌈λn⌉,
    whatever ``rounding``: so their script does), ``"captured"`` (their draft, same test) and/or
    ``"split"`` (paper 000's criterion at λ' = (m ± ½)/n, so that it captures ≥ m of
    :func:`min_count`); labels in :data:`GREEDY_SERIES` (with only ``"split"``, the label
    "GreedyRL" of the earliest grid)."""
    from ...rulelist import GreedyRuleListClassifier

    split = _Split.load(dataset, seed)
    n = split.n
    rows = []
    for crit in criteria:
        label = "GreedyRL" if tuple(criteria) == ("split",) else GREEDY_SERIES[crit]
        for lam in supports:
            own = crit in ("authors", "captured")  # their own ratio test: ⌈λn⌉
            m = min_count(lam, n, "ceil" if own else rounding)
            lam_fit = float(lam) if own else (m + 0.5) / n  # ⌊λ'·n⌋ = m (module docstring)
            for L in lengths:
                est = GreedyRuleListClassifier(max_rules=int(L) + 1, min_support=lam_fit, max_width=1, criterion=crit)
                params = _grid_params(L, lam, m, n, rounding)
                fit = _timed(est, split)
                rows += _measure(RULE_LIST, label, split, params, fit, per_record=(L, lam) == tuple(largest))
    return rows


def optimal_rulelist_cell(dataset, seed, support, lengths, largest, time_limit=OPTIMAL_RL_TIME_LIMIT, rounding="ceil"):
    """Certifiably optimal width-1 rule lists of one split and λ, for each length L; ``"floor"``:
    each rule captures ≥ ⌊λn⌋ records as the authors' modified CORELS counts (literals still mined
    in [λ, 1 − λ])."""
    from ...rulelist import OptimalRuleListClassifier

    split = _Split.load(dataset, seed)
    n = split.n
    m = min_count(support, n, rounding)
    # ⌈λ'·n⌉ = m for λ' = (m − ½)/n; the mining keeps λ
    lam_fit = float(support) if rounding == "ceil" else (m - 0.5) / n
    rows = []
    for L in lengths:
        est = OptimalRuleListClassifier(
            max_rules=int(L) + 1, min_support=lam_fit, min_literal_support=float(support), time_limit=time_limit
        )
        fit = _timed(est, split)
        found = fit[0].certificate_.min_captured
        if found != m:  # the learner's own count must be the grid's m
            raise RuntimeError(f"OptimalRuleListClassifier used {found} records, expected {m}")
        params = _grid_params(L, support, m, n, rounding)
        rows += _measure(OPTIMAL_RULE_LIST, "OptimalRL", split, params, fit, per_record=(L, support) == tuple(largest))
    return rows


def _has_dl85() -> bool:
    return available("pydl85")


DL85_MISSING = (
    "PyDL8.5 is not installed: DL8.5 trees need the optional extra "
    "(`make optimal` or pip install 'dpmodels[optimal]', ≈ 4 min, +256 MB)"
)


def _grid_cells(size, rounding="ceil", dl85_time_limit=DL85_TIME_LIMIT):
    """The cells of the 003 grid. Options (the default grid: ``"ceil"``, 300 s): ``rounding="floor"``
    gives the trees and OptimalRL the authors' ⌊λn⌋ (GreedyRL keeps its own ⌈λn⌉ test, as theirs
    did); ``dl85_time_limit=3600`` is the paper's budget of one hour per DL8.5 fit (PyDL8.5 counts
    wall-clock time, so on a loaded machine a fit gets less than an hour of CPU)."""
    depths, supports, seeds = grid_sizes(size)
    extra = _rounding_param(rounding)
    largest = (max(depths), min(supports))
    dl85 = _has_dl85()
    cells: list[Cell | Skip] = []
    for ds in _datasets(size):
        for s in range(seeds):
            cells.append(
                Cell(
                    f"sklearn_DT-{ds}-s{s}",
                    tree_cell,
                    dict(dataset=ds, seed=s, depths=tuple(depths), supports=tuple(supports), largest=largest, **extra),
                    cost=1.0,
                )
            )
            cells.append(
                Cell(
                    f"GreedyRL-{ds}-s{s}",
                    rulelist_cell,
                    dict(
                        dataset=ds,
                        seed=s,
                        lengths=tuple(depths),
                        supports=tuple(supports),
                        largest=largest,
                        criteria=("authors", "captured", "split"),
                        **extra,
                    ),
                    cost=0.5,
                )
            )
            for lam in supports:
                cells.append(
                    Cell(
                        f"OptimalRL-{ds}-s{s}-sup{lam:g}",
                        optimal_rulelist_cell,
                        dict(
                            dataset=ds,
                            seed=s,
                            support=lam,
                            lengths=tuple(depths),
                            largest=largest,
                            time_limit=OPTIMAL_RL_TIME_LIMIT,
                            **extra,
                        ),
                        cost=10.0,
                    )
                )
                for d in depths:
                    key = f"DL8.5-{ds}-s{s}-d{d}-sup{lam:g}"
                    if dl85:
                        # depth dominates DL8.5's cost (×3 per level measured here), small λ next
                        cells.append(
                            Cell(
                                key,
                                dl85_cell,
                                dict(
                                    dataset=ds,
                                    seed=s,
                                    depth=d,
                                    support=lam,
                                    largest=largest,
                                    time_limit=dl85_time_limit,
                                    **extra,
                                ),
                                cost=3.0**d / lam,
                            )
                        )
            if not dl85:
                cells.append(Skip(f"DL8.5-{ds}-s{s}", DL85_MISSING))
    return cells
