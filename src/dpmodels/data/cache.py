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
  holds n·(m + 1) bytes for byte-sized codes — and deleted by :meth:`EncodedCache.close`, when
  the cache is collected, at exit, and on SIGTERM (the handler removes every open cache's folder,
  then lets the signal act as before: the previous handler, or the default exit). A process
  killed harder (SIGKILL, power loss) leaves its folder; the folder's name holds the host and the
  process id, and the next cache made in the same directory removes the folders of processes of
  this host that are no longer running (:func:`remove_stale_caches`);
- Dask: the encoded partitions are ``persist``-ed on the workers of ``distributed``'s default
  client (spilled by Dask when memory runs short), or held in process by the local scheduler.

The cached arrays are the records themselves in another encoding: nothing about them is
released, and what each later pass returns is still exact int64 counts of a public shape
(:func:`dpmodels.data.counts.counts`). A cache is a snapshot of one pass over the source, so the
later passes cannot see a file rewritten in between.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import tempfile
import threading
import weakref

import numpy as np

from .counts import split_partition

__all__ = ["EncodedCache", "encoded_cache", "remove_stale_caches"]

_PREFIX = "dpmodels-cache-"
_OPEN: set[str] = set()  # folders of this process's open caches (what SIGTERM removes)
_LOCK = threading.Lock()


def _host() -> str:
    return re.sub(r"[^A-Za-z0-9_]", "_", socket.gethostname())[:64] or "host"


def _folder_prefix() -> str:
    """``dpmodels-cache-<pid>-<host>-``: whose folder it is, for :func:`remove_stale_caches`."""
    return f"{_PREFIX}{os.getpid()}-{_host()}-"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # another user's process (EPERM): alive
        return True
    return True


def remove_stale_caches(directory=None) -> list[str]:
    """Remove the cache folders in ``directory`` (default: the system's temporary directory) that
    belong to this user and to processes of this host that are no longer running (a fit killed by
    SIGKILL); returns their paths. Folders of running processes, of other hosts sharing the
    directory and of other users are left alone."""
    d = directory if directory is not None else tempfile.gettempdir()
    pattern = re.compile(rf"^{re.escape(_PREFIX)}(\d+)-{re.escape(_host())}-[A-Za-z0-9_]+$")
    removed: list[str] = []
    try:
        entries = list(os.scandir(d))
    except OSError:
        return removed
    for e in entries:
        m = pattern.match(e.name)
        if m is None or int(m.group(1)) == os.getpid() or _alive(int(m.group(1))):
            continue
        try:
            if not e.is_dir(follow_symlinks=False) or e.stat(follow_symlinks=False).st_uid != os.getuid():
                continue
        except OSError:
            continue
        shutil.rmtree(e.path, ignore_errors=True)
        removed.append(e.path)
    return removed


def _remove_folder(folder: str) -> None:
    with _LOCK:
        _OPEN.discard(folder)
    shutil.rmtree(folder, True)


_previous_sigterm = None


def _on_sigterm(signum, frame):
    """Remove every open cache folder, then let SIGTERM act as it did before this module's handler."""
    with _LOCK:
        folders = list(_OPEN)
        _OPEN.clear()
    for f in folders:
        shutil.rmtree(f, True)
    prev = _previous_sigterm
    if callable(prev):
        prev(signum, frame)
    elif prev != signal.SIG_IGN:  # the default action: end the process by the signal itself
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGTERM)


def _watch_sigterm() -> None:
    """Install :func:`_on_sigterm` (once; only the main thread may set handlers — elsewhere the
    folder is still removed at close, collection and exit)."""
    global _previous_sigterm
    if threading.current_thread() is not threading.main_thread():
        return
    current = signal.getsignal(signal.SIGTERM)
    if current is _on_sigterm:
        return
    _previous_sigterm = current
    signal.signal(signal.SIGTERM, _on_sigterm)


class EncodedCache:
    """Encoded partitions of a source; a source for :func:`dpmodels.data.counts.counts` whose
    passes receive ``fn(*arrays)`` of one partition (module docstring)."""

    def __init__(self, kind, parts, folder=None, n_partitions=0):
        self.kind = kind  # "cache" (local partitions) or "cache-dask" (persisted delayed objects)
        self._parts = parts
        self._folder = folder
        self.n_partitions = n_partitions
        self.check_unchanged = None  # the source's pin check (Dask), run around every pass
        # the folder goes when the cache is closed, collected, at exit (a fit that raised), or on
        # SIGTERM (_on_sigterm)
        self._cleanup = weakref.finalize(self, _remove_folder, folder) if folder else None

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


def _prepare_pinned(prepare, columns, pin):
    from .sources_pinned import read_pinned

    return tuple(read_pinned(prepare, columns, pin))


def cache_to_folder(source, parts, folder=None) -> EncodedCache:
    """A cache of ``parts`` (an iterable of array tuples, one per partition of ``source``, made
    while it is consumed) written to a private temporary folder under ``folder``; ``source``'s
    files are checked before and after (module docstring)."""
    source.check_unchanged()
    remove_stale_caches(folder)
    _watch_sigterm()
    tmp = tempfile.mkdtemp(prefix=_folder_prefix(), dir=folder)  # created with mode 0700
    with _LOCK:
        _OPEN.add(tmp)
    try:
        files = []
        for k, arrays in enumerate(parts):
            names = []
            for i, a in enumerate(arrays):
                f = os.path.join(tmp, f"{k:08d}-{i}.npy")
                np.save(f, np.ascontiguousarray(a), allow_pickle=False)
                names.append(f)
            files.append(tuple(names))
        source.check_unchanged()  # a file rewritten during the pass would mix two datasets
    except BaseException:
        _remove_folder(tmp)
        raise
    return EncodedCache("cache", files, tmp, len(files))


def encoded_cache(source, prepare, *, folder=None) -> EncodedCache:
    """One pass over ``source`` keeping ``prepare(X, y)`` (a tuple of numpy arrays, a pure function
    of the partition and public inputs) per partition. ``folder``: where a pyarrow source's cache
    is written (default: the system's temporary directory)."""
    kind = getattr(source, "kind", None)
    if kind == "memory":
        return EncodedCache("cache", [tuple(prepare(X, y)) for X, y in source.partitions()], None, source.n_partitions)
    if kind == "pyarrow":
        return cache_to_folder(source, source.map_batches(prepare), folder)  # per record batch
    if kind == "dask":
        import dask
        from dask import delayed

        from .sources_pinned import reads_arrow

        cols, label = list(source.columns), source.label
        if reads_arrow(source, prepare):  # pinned files as Arrow record batches (sources_pinned.read_pinned)
            parts = [delayed(_prepare_pinned, pure=True)(prepare, [*cols, label], pin) for pin in source.pins]
        else:
            parts = [delayed(_prepare_part, pure=True)(prepare, cols, label, p) for p in source.frame.to_delayed()]
        persisted = list(dask.persist(*parts)) if parts else []
        cache = EncodedCache("cache-dask", persisted, None, len(persisted))
        # a lost worker's partitions are recomputed from the source: its pinned files (if any) are
        # checked by the reading tasks, and by the driver around every pass over the cache
        cache.check_unchanged = getattr(source, "check_unchanged", None)
        return cache
    raise TypeError(f"not a data source: {type(source).__name__}")
