"""The fits of paper 003's grid: each cell fits one kind of learner on one split and measures it
(Dist_G from the training data, size, accuracies, certification); :func:`_grid_cells` lists the
grid's cells. The learners and metrics are described in :mod:`.reconstruction`."""

from __future__ import annotations

import contextlib
import math
import os
import signal
import time

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


def _per_record_rows(base, per_record, fit_seconds):
    """The 101 quantiles of the per-record ratios, one row each; ``base``: the rows' first six fields."""
    dataset, learner, params, epsilon, delta, seed = base
    q = np.quantile(np.asarray(per_record, dtype=float), QUANTILES)
    return [row(dataset, learner, params, epsilon, delta, seed, m, float(v), fit_seconds) for m, v in zip(Q_METRICS, q)]


def _measure(
    model,
    learner,
    dataset,
    seed,
    params,
    split,
    secs,
    cpu,
    size,
    n_paths,
    *,
    optimal=None,
    per_record=False,
    domains=None,
):
    """Tidy rows of one fitted model (module docstring: metrics)."""
    from ...audit import reconstruction_leak

    Xtr, Xte, ytr, yte = split
    leak = reconstruction_leak(model, Xtr, ytr, domains=domains)
    base = (dataset, learner, params, math.inf, 0.0, seed)
    rows = [
        row(*base, "dist_g", leak.dist_g, secs),
        row(*base, "size", size, secs),
        row(*base, "n_paths", n_paths, secs),
        row(*base, "train_accuracy", float(np.mean(model.predict(Xtr) == ytr.to_numpy())), secs),
        row(*base, "test_accuracy", float(np.mean(model.predict(Xte) == yte.to_numpy())), secs),
        row(*base, "cpu_seconds", cpu, secs),
    ]
    if optimal is not None:
        rows.append(row(*base, "optimal", float(bool(optimal)), secs))
    if per_record:
        rows += _per_record_rows(base, leak.per_record, secs)
    return rows


def _timed(est, X, y):
    """``(est.fit(X, y), wall seconds, CPU seconds)``."""
    t, c = time.perf_counter(), time.process_time()
    model = est.fit(X, y)
    return model, time.perf_counter() - t, time.process_time() - c


def _internal_nodes(feature) -> int:
    return int(np.sum(np.asarray(feature) >= 0))


# --------------------------------------------------------------------------- cells
def tree_cell(dataset, seed, depths, supports, largest, rounding="ceil"):
    """Every sklearn_DT fit of one split (cheap): rows for each (max depth, λ); ``rounding`` of
    the leaf support as in :func:`min_count`."""
    from sklearn.tree import DecisionTreeClassifier

    split = load_split(dataset, seed)
    Xtr, ytr = split[0], split[2]
    n = len(ytr)
    rows = []
    for lam in supports:
        for depth in depths:
            m = min_count(lam, n, rounding)
            leaf = float(lam) if rounding == "ceil" else m  # a float λ is ⌈λ·n⌉ in scikit-learn
            est = DecisionTreeClassifier(max_depth=int(depth), min_samples_leaf=leaf, random_state=1 + int(seed))
            model, secs, cpu = _timed(est, Xtr, ytr)
            params = dict(depth=int(depth), support=float(lam), min_count=m, n_train=n, **_rounding_param(rounding))
            rows += _measure(
                model,
                "sklearn_DT",
                dataset,
                seed,
                params,
                split,
                secs,
                cpu,
                _internal_nodes(model.tree_.feature),
                int(model.tree_.n_leaves),
                per_record=(depth, lam) == tuple(largest),
                domains="binary",
            )
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
    return dict(
        depth=int(depth),
        support=float(support),
        min_count=min_count(support, n, rounding),
        n_train=n,
        time_limit=time_limit,
        **_rounding_param(rounding),
    )


def _oom_row(dataset, seed, depth, support, time_limit, secs, exitcode=None, rounding="ceil"):
    n = len(load_split(dataset, seed)[2])
    gb = round(DL85_MEMORY_SHARE * (_physical_memory() or 0) / 2**30, 1)
    params = dict(_dl85_params(depth, support, n, time_limit, rounding), memory_cap_gb=gb)
    if exitcode is not None:
        params["exitcode"] = exitcode
    return row(dataset, "DL8.5", params, math.inf, 0.0, seed, "out_of_memory", gb, secs)


def _dl85_rows(dataset, seed, depth, support, largest, time_limit, rounding="ceil"):
    from ...tree.optimal import DL85Classifier

    split = load_split(dataset, seed)
    Xtr, ytr = split[0], split[2]
    params = _dl85_params(depth, support, len(ytr), time_limit, rounding)
    est = DL85Classifier(max_depth=int(depth), min_sup=params["min_count"], time_limit=time_limit)
    t0 = time.perf_counter()
    try:
        model, secs, cpu = _timed(est, Xtr, ytr)
    except RuntimeError:  # PyDL8.5 found no tree within the limit: recorded, not hidden
        return [row(dataset, "DL8.5", params, math.inf, 0.0, seed, "no_tree", 1.0, float(time_limit))]
    except MemoryError:
        return [_oom_row(dataset, seed, depth, support, time_limit, time.perf_counter() - t0, rounding=rounding)]
    rows = _measure(
        model,
        "DL8.5",
        dataset,
        seed,
        params,
        split,
        secs,
        cpu,
        _internal_nodes(model.tree_.feature),
        int(np.sum(model.tree_.feature < 0)),
        optimal=model.optimal_,
        per_record=(depth, support) == tuple(largest),
        domains="binary",
    )
    rows.append(row(dataset, "DL8.5", params, math.inf, 0.0, seed, "lattice_size", model.lattice_size_, secs))
    return rows


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

    split = load_split(dataset, seed)
    Xtr, ytr = split[0], split[2]
    n = len(ytr)
    rows = []
    for crit in criteria:
        label = "GreedyRL" if tuple(criteria) == ("split",) else GREEDY_SERIES[crit]
        for lam in supports:
            own = crit in ("authors", "captured")  # their own ratio test: ⌈λn⌉
            m = min_count(lam, n, "ceil" if own else rounding)
            lam_fit = float(lam) if own else (m + 0.5) / n  # ⌊λ'·n⌋ = m (module docstring)
            for L in lengths:
                est = GreedyRuleListClassifier(max_rules=int(L) + 1, min_support=lam_fit, max_width=1, criterion=crit)
                model, secs, cpu = _timed(est, Xtr, ytr)
                k = len(model.rule_list_.rules)
                params = dict(depth=int(L), support=float(lam), min_count=m, n_train=n, **_rounding_param(rounding))
                rows += _measure(
                    model,
                    label,
                    dataset,
                    seed,
                    params,
                    split,
                    secs,
                    cpu,
                    k,
                    k + 1,
                    per_record=(L, lam) == tuple(largest),
                )
    return rows


def optimal_rulelist_cell(dataset, seed, support, lengths, largest, time_limit=OPTIMAL_RL_TIME_LIMIT, rounding="ceil"):
    """Certifiably optimal width-1 rule lists of one split and λ, for each length L; ``"floor"``:
    each rule captures ≥ ⌊λn⌋ records as the authors' modified CORELS counts (literals still mined
    in [λ, 1 − λ])."""
    from ...rulelist import OptimalRuleListClassifier

    split = load_split(dataset, seed)
    Xtr, ytr = split[0], split[2]
    n = len(ytr)
    m = min_count(support, n, rounding)
    # ⌈λ'·n⌉ = m for λ' = (m − ½)/n; the mining keeps λ
    lam_fit = float(support) if rounding == "ceil" else (m - 0.5) / n
    rows = []
    for L in lengths:
        est = OptimalRuleListClassifier(
            max_rules=int(L) + 1, min_support=lam_fit, min_literal_support=float(support), time_limit=time_limit
        )
        model, secs, cpu = _timed(est, Xtr, ytr)
        cert = model.certificate_
        if cert.min_captured != m:  # the learner's own count must be the grid's m
            raise RuntimeError(f"OptimalRuleListClassifier used {cert.min_captured} records, expected {m}")
        k = len(model.rule_list_.rules)
        params = dict(depth=int(L), support=float(support), min_count=m, n_train=n, **_rounding_param(rounding))
        rows += _measure(
            model,
            "OptimalRL",
            dataset,
            seed,
            params,
            split,
            secs,
            cpu,
            k,
            k + 1,
            optimal=cert.optimal,
            per_record=(L, support) == tuple(largest),
        )
        rows.append(row(dataset, "OptimalRL", params, math.inf, 0.0, seed, "nodes", cert.nodes, secs))
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
