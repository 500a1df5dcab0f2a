"""A per-partition cache of encoded records, so that the passes after the first do not re-read and
re-encode the source.

A tree's level passes need each record's bin codes (a public function of the record: the
released thresholds and the declared categories) and its label's index. Computing them means
reading the partition and encoding its columns again at every level — most of a pass's cost on
Parquet (docs/benchmarks.md, "Out of core"). Scikit-learn has no such passes; Spark MLlib's
trees and XGBoost's external-memory mode keep the binned records between passes in the same way.

:func:`encoded_cache` makes one pass over a source and keeps, per partition, the arrays that
``prepare(X, y)`` returns (for PrivaTree: uint8/uint16 bin codes of shape (n_part, m) and the
label indices):

- in-memory source: the arrays stay in memory (the source is in memory already);
- pyarrow source: each record batch's arrays are written as ``.npy`` files to a private
  temporary folder (mode 0700), read back one batch at a time — memory stays one batch, disk
  holds n·(m + 1) bytes for byte-sized codes — and deleted by :meth:`EncodedCache.close`;
- Dask: the encoded partitions are ``persist``-ed on the workers of ``distributed``'s default
  client (spilled by Dask when memory runs short), or held in process by the local scheduler.

The cached arrays are the records themselves in another encoding: nothing about them is
released, and what each later pass returns is still exact int64 counts of a public shape
(:func:`dpmodels.data.counts.counts`). A cache is a snapshot of one pass over the source, so the
later passes cannot see a file rewritten in between.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import weakref

import numpy as np

from .counts import split_partition

__all__ = ["EncodedCache", "encoded_cache"]


class EncodedCache:
    """Encoded partitions of a source; a source for :func:`dpmodels.data.counts.counts` whose
    passes receive ``fn(*arrays)`` of one partition (module docstring)."""

    def __init__(self, kind, parts, folder=None, n_partitions=0):
        self.kind = kind  # "cache" (local partitions) or "cache-dask" (persisted delayed objects)
        self._parts = parts
        self._folder = folder
        self.n_partitions = n_partitions
        # the folder goes when the cache is closed, collected, or at exit (a fit that raised)
        self._cleanup = weakref.finalize(self, shutil.rmtree, folder, True) if folder else None

    def partitions(self):
        if self._parts is None:
            raise ValueError("this encoded cache was closed")
        for p in self._parts:
            if isinstance(p, tuple) and p and isinstance(p[0], str):  # file names of one partition
                yield tuple(np.load(f, allow_pickle=False) for f in p)
            else:
                yield p

    def delayed_parts(self):
        if self._parts is None:
            raise ValueError("this encoded cache was closed")
        return list(self._parts)

    def close(self) -> None:
        """Drop the cached arrays (the temporary folder, the persisted partitions)."""
        self._parts = None
        if self._cleanup is not None:
            self._cleanup()
            self._folder = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def _prepare_part(prepare, columns, label, part):
    return tuple(prepare(*split_partition(columns, label, part)))


def encoded_cache(source, prepare, *, folder=None) -> EncodedCache:
    """One pass over ``source`` keeping ``prepare(X, y)`` (a tuple of numpy arrays, a pure function
    of the partition and public inputs) per partition. ``folder``: where a pyarrow source's cache
    is written (default: the system's temporary directory)."""
    kind = getattr(source, "kind", None)
    if kind == "memory":
        return EncodedCache("cache", [tuple(prepare(X, y)) for X, y in source.partitions()], None, source.n_partitions)
    if kind == "pyarrow":
        source.check_unchanged()
        tmp = tempfile.mkdtemp(prefix="dpmodels-cache-", dir=folder)  # created with mode 0700
        try:
            files = []
            for k, (X, y) in enumerate(source.partitions()):
                arrays = prepare(X, y)
                names = []
                for i, a in enumerate(arrays):
                    f = os.path.join(tmp, f"{k:08d}-{i}.npy")
                    np.save(f, np.ascontiguousarray(a), allow_pickle=False)
                    names.append(f)
                files.append(tuple(names))
            source.check_unchanged()  # a file rewritten during the pass would mix two datasets
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise
        return EncodedCache("cache", files, tmp, len(files))
    if kind == "dask":
        import dask
        from dask import delayed

        cols, label = list(source.columns), source.label
        parts = [delayed(_prepare_part, pure=True)(prepare, cols, label, p) for p in source.frame.to_delayed()]
        persisted = list(dask.persist(*parts)) if parts else []
        return EncodedCache("cache-dask", persisted, None, len(persisted))
    raise TypeError(f"not a data source: {type(source).__name__}")
