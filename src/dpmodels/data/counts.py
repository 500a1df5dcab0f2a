"""The count backend: one pass over a source = exact int64 counts of a public shape, summed.

``counts(source, fn, shape)`` applies ``fn(X, y)`` to every partition of ``source``
(:mod:`dpmodels.data.sources`) and returns the sum of the results (docs/privacy.md, "Counting at
scale"):

- ``fn`` is a pure function of one partition and of public inputs only (declared schema,
  released thresholds and splits): it draws no randomness, and what it returns has the public
  ``shape`` and dtype int64 — checked on the driver for every partition. Sums of int64 counts are
  exact whatever the partitioning, so the total equals one call on the concatenated data.
- in-memory source: one call on the whole frame; pyarrow source: a loop over record batches (one
  batch in memory at a time, the pinned files re-checked before and after the pass; a ``fn`` with
  a ``from_arrow`` method gets each batch itself, not its pandas frame:
  :meth:`dpmodels.data.ParquetSource.map_batches`); Dask: one
  task per partition and a pairwise tree sum, computed by ``dask.compute`` — on ``distributed``'s
  default client if one exists, else Dask's local scheduler. Only the count arrays (public shape)
  travel back; a recomputed task returns the same array (it is pure). On the pinned files of
  ``DaskSource.from_parquet``, a ``fn`` with a ``from_arrow(batches, n_rows)`` method gets each
  file as pyarrow record batches instead (:func:`dpmodels.data.sources_pinned.read_pinned`), and
  must return what ``fn(X, y)`` returns on that file's frame.
- an encoded cache (:mod:`dpmodels.data.cache`): ``fn(*arrays)`` on each cached partition's arrays
  (in memory, read back from the cache's files one partition at a time, or the persisted Dask
  partitions), with the same checks. On ``distributed``, such a pass is one task per worker over
  the persisted partitions it holds (one count array per worker travels back).
"""

from __future__ import annotations

import numpy as np

__all__ = ["counts"]


def _checked(part, shape):
    a = np.asarray(part)
    if a.dtype != np.int64 or a.shape != tuple(shape):
        raise TypeError(f"a count pass must return int64 counts of shape {tuple(shape)}, got {a.dtype} {a.shape}")
    return a


def _apply(fn, shape, X, y):
    return _checked(fn(X, y), shape)


def split_partition(columns, label, part):
    """A Dask partition (one frame) as ``(X, y)``: the feature columns, and the label column's
    values (None for a source without labels)."""
    return part[columns], (None if label is None else part[label].to_numpy())


def _apply_part(fn, shape, columns, label, part):
    return _checked(fn(*split_partition(columns, label, part)), shape)


def _apply_pinned(fn, shape, columns, pin):
    from .sources_pinned import read_pinned

    return _checked(read_pinned(fn, columns, pin), shape)


def _add(a, b):
    return a + b


def counts(source, fn, shape) -> np.ndarray:
    """Exact int64 sum over the partitions of ``source`` of ``fn(X_part, y_part)`` (module docstring)."""
    shape = tuple(int(s) for s in shape)
    kind = getattr(source, "kind", None)
    if kind == "dask":
        return _dask_counts(source, fn, shape)
    if kind == "cache":
        total = np.zeros(shape, dtype=np.int64)
        for arrays in source.partitions():
            total += _checked(fn(*arrays), shape)
        return total
    if kind == "cache-dask":
        check = getattr(source, "check_unchanged", None)
        if check is not None:
            check()
        parts = source.delayed_parts()
        client = _distributed_client()
        if client is not None:
            total = _per_worker_sum(client, fn, shape, parts)
        else:
            total = _tree_sum([_delayed_apply_cached(fn, shape, p) for p in parts], shape)
        if check is not None:
            check()
        return total
    if kind not in ("memory", "pyarrow"):
        raise TypeError(f"not a data source: {type(source).__name__}")
    check = getattr(source, "check_unchanged", None)
    if check is not None:
        check()
    total = np.zeros(shape, dtype=np.int64)
    if kind == "pyarrow":  # record batches, or their frames (ParquetSource.map_batches)
        for part in source.map_batches(fn):
            total += _checked(part, shape)
    else:
        for X, y in source.partitions():
            total += _apply(fn, shape, X, y)
    if check is not None:
        check()  # a file rewritten during the pass would mix two datasets
    return total


def _dask_counts(source, fn, shape):
    from dask import delayed

    from .sources_pinned import reads_arrow

    check = getattr(source, "check_unchanged", None)  # pinned files (DaskSource.from_parquet)
    if check is not None:
        check()
    cols, label = list(source.columns), source.label  # public: names only travel with the tasks
    if reads_arrow(source, fn):  # pinned files, read as Arrow record batches (sources_pinned.read_pinned)
        cols = [*cols, label]
        parts = [delayed(_apply_pinned, pure=True)(fn, shape, cols, pin) for pin in source.pins]
    else:
        parts = [delayed(_apply_part, pure=True)(fn, shape, cols, label, p) for p in source.frame.to_delayed()]
    total = _tree_sum(parts, shape)
    if check is not None:
        check()
    return total


def _apply_cached(fn, shape, arrays):
    return _checked(fn(*arrays), shape)


def _delayed_apply_cached(fn, shape, part):
    from dask import delayed

    return delayed(_apply_cached, pure=True)(fn, shape, part)


def _distributed_client():
    """The ``distributed`` client that ``dask.compute`` would use now, or None (the local
    scheduler, or a scheduler set by ``dask.config``)."""
    import dask.base

    client = getattr(dask.base.get_scheduler(), "__self__", None)
    kind = type(client)
    return client if kind.__name__ == "Client" and kind.__module__.split(".")[0] == "distributed" else None


def _apply_cached_many(fn, shape, *parts):
    """The sum of ``fn`` over several cached partitions of one worker, in one array."""
    total = np.zeros(shape, dtype=np.int64)
    for arrays in parts:
        total += _checked(fn(*arrays), shape)
    return total


def _per_worker_sum(client, fn, shape, parts):
    """A pass over persisted partitions on ``distributed``: one task per worker over the partitions
    it holds, so that a pass costs one task, one count array and one transfer per worker — not one
    per partition and a tree of additions moving count arrays between workers. Where the
    partitions are is a fact about the cluster, not about the data."""
    from distributed import futures_of, wait

    futures = [f for p in parts for f in futures_of(p)]
    if len(futures) != len(parts):  # not persisted as one future per partition: the generic path
        return _tree_sum([_delayed_apply_cached(fn, shape, p) for p in parts], shape)
    wait(futures)  # the first pass over a cache waits for the encoding, wherever it runs
    where = client.who_has(futures)
    groups: dict = {}
    for f in futures:
        holders = sorted(where.get(f.key, ()))
        groups.setdefault(holders[0] if holders else None, []).append(f)
    tasks = [
        client.submit(
            _apply_cached_many,
            fn,
            shape,
            *group,
            workers=None if w is None else [w],
            allow_other_workers=True,
            pure=False,
        )
        for w, group in sorted(groups.items(), key=lambda kv: str(kv[0]))
    ]
    total = np.zeros(shape, dtype=np.int64)
    for part in client.gather(tasks):
        total += _checked(part, shape)
    return total


def _tree_sum(parts, shape):
    import dask
    from dask import delayed

    if not parts:
        return np.zeros(shape, dtype=np.int64)
    while len(parts) > 1:  # pairwise tree sum: one (shape) array per task crosses the network
        nxt = [delayed(_add, pure=True)(parts[i], parts[i + 1]) for i in range(0, len(parts) - 1, 2)]
        if len(parts) % 2:
            nxt.append(parts[-1])
        parts = nxt
    (total,) = dask.compute(parts[0])
    return _checked(total, shape)
