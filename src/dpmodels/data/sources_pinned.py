"""Pinned Parquet files read by Dask tasks: the pin check, and PrivaTree's Arrow passes over them.

:meth:`dpmodels.data.DaskSource.from_parquet` pins its files (sizes and modification times); the
task that reads a file checks the pin before and after (:mod:`dpmodels.data.sources`). A pass
function with a ``from_arrow(batches, n_rows)`` method gets each pinned file as pyarrow record
batches (:func:`read_pinned`) instead of the frame's pandas partition
(:func:`dpmodels.data.counts.counts`, :func:`dpmodels.data.cache.encoded_cache`). Imports nothing
of dpmodels (the sources, the passes and the cache all import it).
"""

from __future__ import annotations

import os

__all__ = ["check_pin", "text_columns", "reads_arrow", "read_pinned"]


def check_pin(file, stat) -> None:
    """Raise if ``file`` is gone or its (size, modification time) is not ``stat``."""
    try:
        st = os.stat(file)
    except OSError:
        raise ValueError(f"DaskSource: a pinned file is gone ({file!r})") from None
    if (st.st_size, st.st_mtime_ns) != tuple(stat):
        raise ValueError(f"DaskSource: {file!r} changed since the source was made; make a new source")


_ARROW_BATCH_ROWS = 1 << 16  # a pinned file's record batches in an Arrow pass (read_pinned)


def reads_arrow(source, fn) -> bool:
    """Whether a pass of ``fn`` over ``source`` reads pinned files as Arrow record batches
    (:func:`read_pinned`) instead of the frame's pandas partitions: a source with pinned files
    (:meth:`DaskSource.from_parquet`), and a pass function with a ``from_arrow`` method."""
    return bool(getattr(source, "pins", ())) and callable(getattr(fn, "from_arrow", None))


def read_pinned(fn, columns, pin):
    """``fn.from_arrow(batches, n_rows)`` on one pinned Parquet file (a Dask task, as
    :class:`dpmodels.data.sources._PinnedRead`, on whichever worker runs it): the file is checked before and after it
    is read, its ``columns`` come as pyarrow record batches of at most 2^16 rows in file order
    (text columns as dictionaries, as :class:`dpmodels.data.sources._PinnedRead` reads them; at least one batch, empty
    for an empty file), and ``n_rows`` is the file's row count from its footer (the batches are
    checked to sum to it).

    Why not the frame's partitions: a pass over pandas partitions converts the whole file to a
    frame and the frame to a float matrix — fresh allocations of the partition's size at every
    source pass, which Dask's workers pay again in page faults (docs/benchmarks.md, "Dask against
    pyarrow"). Record batches are read into Arrow's own pool, and a pass function reads their
    buffers as numpy views (``dpmodels.tree.privatree.streaming``).
    """
    import pyarrow as pa
    import pyarrow.parquet as pq

    file, stat = pin
    check_pin(file, stat)
    pf = pq.ParquetFile(file, read_dictionary=text_columns(file, columns))
    n_rows = pf.metadata.num_rows
    schema = pa.schema([pf.schema_arrow.field(c) for c in columns])

    def batches():
        seen = 0
        for rb in pf.iter_batches(batch_size=_ARROW_BATCH_ROWS, columns=columns, use_threads=False):
            seen += rb.num_rows
            if seen > n_rows:
                break
            yield rb
        if seen == 0:
            yield pa.RecordBatch.from_arrays([pa.array([], type=f.type) for f in schema], schema=schema)
        if seen != n_rows:
            raise ValueError(f"DaskSource: {file!r} holds another number of rows than its footer says")

    out = fn.from_arrow(batches(), n_rows)
    check_pin(file, stat)  # rewritten while it was read
    return out


def text_columns(file, columns) -> list:
    """The columns of ``columns`` that a Parquet file stores as (large) strings."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    schema = pq.read_schema(file)
    return [
        c for c in columns if pa.types.is_string(schema.field(c).type) or pa.types.is_large_string(schema.field(c).type)
    ]
