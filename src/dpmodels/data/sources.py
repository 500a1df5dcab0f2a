"""Partitioned training data: Parquet files streamed with pyarrow, or a Dask DataFrame.

A *source* is what a learner reads when the data do not fit in memory as one frame. It exposes
a small interface (docs/privacy.md, "Counting at scale"):

- ``columns`` (the feature columns, in order), ``label`` (the label column) and
  ``schema_frame()``: an empty pandas frame with the feature columns' dtypes — the *types* of
  the declared schema, never values read from the data;
- ``n_partitions`` and ``fingerprint()`` (what was read: the pinned file list with sizes and
  modification times, or the Dask graph's name);
- ``partitions()`` (pyarrow and in-memory sources): ``(X, y)`` pandas frames / arrays, one per
  record batch, in a fixed order; a pyarrow source's ``map_batches(fn)`` hands a pass function
  with a ``from_arrow`` method the record batches themselves instead.

The passes that turn partitions into exact counts are in :mod:`dpmodels.data.counts`. Neither
pyarrow nor Dask is imported by the in-memory path: this module imports them lazily.
"""

from __future__ import annotations

import copy
import hashlib
import os
from pathlib import Path

import numpy as np
import pandas as pd

from .._optional import require
from .sources_pinned import check_pin as _check_pin
from .sources_pinned import text_columns as _text_columns

__all__ = [
    "Source",
    "ParquetSource",
    "DaskSource",
    "InMemorySource",
    "as_source",
    "is_partitioned",
    "map_partitions",
    "check_partitions",
]

_DEFAULT_BATCH_ROWS = 1 << 18
_LABEL = "__dpmodels_label__"  # the label column of a Dask source built from (X, y)


def _is_dask(obj) -> bool:
    """A Dask collection, recognised without importing Dask (the in-memory path never does)."""
    return type(obj).__module__.split(".")[0] in ("dask", "dask_expr")


class Source:
    """Base class of the partitioned inputs (the sources below, and the Binarizer's
    ``BinarizedSource``): what :func:`is_partitioned` recognises."""


def _is_source(X) -> bool:
    return isinstance(X, Source)


def is_partitioned(X, y=None) -> bool:
    """Whether ``fit(X, y)`` was given partitioned input (a source, or a Dask DataFrame)."""
    return _is_source(X) or _is_dask(X) or (y is not None and _is_dask(y))


def _schema_dtypes(frame: pd.DataFrame) -> pd.DataFrame:
    """An empty frame with ``frame``'s dtypes, a ``category`` dtype turned into ``object``.

    A Parquet dictionary or a Dask ``category`` column carries categories read from the data
    (the file's dictionary, Dask's known categories): for partitioned input they do not count as
    a declaration; the categories must be passed as ``categories=``.

    The frame's ``attrs`` are kept, as ``frame.iloc[:0]`` keeps them: a Binarizer's output carries
    its declared feature groups and its release there (docs/privacy.md, "Rule lists at scale"),
    and a Dask frame it transformed carries them in its ``_meta`` — without them a rule list on
    that frame would enumerate another candidate set than the in-memory fit.
    """
    out = {}
    for c in frame.columns:
        dt = frame.dtypes[c]
        out[c] = pd.Series([], dtype=object if isinstance(dt, pd.CategoricalDtype) else dt)
    empty = pd.DataFrame(out, columns=list(frame.columns))
    empty.attrs.update(copy.deepcopy(dict(frame.attrs)))
    return empty


class InMemorySource(Source):
    """A pandas frame and its labels as a source: one partition (the reference backend), or the
    row ranges between ``cuts`` (to test that a fit does not depend on the partitioning)."""

    kind = "memory"

    def __init__(self, X: pd.DataFrame, y, cuts=()):
        if not isinstance(X, pd.DataFrame):
            raise TypeError("InMemorySource needs a pandas DataFrame")
        self.X, self.y = X, np.asarray(y)
        self.columns = [str(c) for c in X.columns]
        self.label = None
        self.edges = [0, *sorted(int(c) for c in cuts), len(X)]
        self.n_partitions = len(self.edges) - 1

    def schema_frame(self) -> pd.DataFrame:
        return _schema_dtypes(self.X.iloc[:0])

    def fingerprint(self) -> str:
        return f"memory:{id(self.X):x}"

    def partitions(self):
        for a, b in zip(self.edges[:-1], self.edges[1:]):
            yield self.X.iloc[a:b], self.y[a:b]


class ParquetSource(Source):
    """A Parquet file or a folder of Parquet files, streamed in pyarrow record batches.

    Parameters
    ----------
    path : str or Path
        A ``.parquet`` file, or a folder: every ``*.parquet`` file under it (recursively), in
        sorted path order.
    label : str
        The label column.
    columns : None or list of str
        The feature columns, in order; ``None``: every column but the label, in file order.
    batch_rows : int
        Rows per record batch (bounds the memory of a pass: one batch at a time).

    Notes
    -----
    The file list, sizes and modification times are pinned when the source is made; every pass
    checks them again and raises if a file changed (a model must be fitted on one dataset). Each
    file's schema must hold the declared columns.
    """

    kind = "pyarrow"

    def __init__(self, path, label, columns=None, batch_rows=_DEFAULT_BATCH_ROWS):
        pq = require("pyarrow", "ParquetSource")

        p = Path(path)
        if p.is_dir():
            files = sorted(f for f in p.rglob("*.parquet") if f.is_file())
        elif p.is_file():
            files = [p]
        else:
            raise ValueError(f"ParquetSource: no such file or folder: {str(path)!r}")
        if not files:
            raise ValueError(f"ParquetSource: no .parquet file under {str(path)!r}")
        if not isinstance(label, str):
            raise ValueError(f"ParquetSource: label must be a column name, got {label!r}")
        if not (isinstance(batch_rows, int) and not isinstance(batch_rows, bool) and batch_rows >= 1):
            raise ValueError(f"ParquetSource: batch_rows must be a positive integer, got {batch_rows!r}")
        self.path = str(path)
        self.files = tuple(str(f) for f in files)
        self._stats = self._stat()
        self.batch_rows = int(batch_rows)
        self.label = label
        schema0 = pq.read_schema(self.files[0])
        names = list(schema0.names)
        if columns is None:
            columns = [c for c in names if c != label]
        columns = [str(c) for c in columns]
        if label in columns:
            raise ValueError(f"ParquetSource: the label {label!r} is also listed as a feature column")
        if not columns:
            raise ValueError("ParquetSource: no feature column")
        if len(set(columns)) != len(columns):
            raise ValueError("ParquetSource: a feature column is listed twice")
        self.columns = columns
        for f in self.files:  # footers only: the schema is metadata, not records
            have = set(pq.read_schema(f).names)
            missing = [c for c in [*columns, label] if c not in have]
            if missing:
                raise ValueError(f"ParquetSource: {f!r} has no column {missing[0]!r}")
        self._schema = schema0
        self.n_partitions = len(self.files)

    def _stat(self):
        out = []
        for f in self.files:
            st = os.stat(f)
            out.append((st.st_size, st.st_mtime_ns))
        return tuple(out)

    def check_unchanged(self) -> None:
        """Raise if a pinned file changed size or modification time (or disappeared)."""
        try:
            now = self._stat()
        except OSError as e:
            raise ValueError(f"ParquetSource: a pinned file is gone ({e.filename!r})") from None
        if now != self._stats:
            bad = next(f for f, a, b in zip(self.files, now, self._stats) if a != b)
            raise ValueError(f"ParquetSource: {bad!r} changed since the source was made; make a new source")

    def schema_frame(self) -> pd.DataFrame:
        empty = self._schema.empty_table().to_pandas()
        return _schema_dtypes(empty[self.columns])

    def fingerprint(self) -> str:
        h = hashlib.sha256()
        for f, (size, mtime) in zip(self.files, self._stats):
            h.update(f"{f}\0{size}\0{mtime}\n".encode())
        h.update(("\0".join(self.columns) + f"\0label={self.label}").encode())
        return h.hexdigest()[:16]

    def record_batches(self):
        """The pyarrow record batches of :meth:`partitions`: the feature columns in order, then
        the label, at most ``batch_rows`` rows each, file by file."""
        import pyarrow.parquet as pq

        cols = [*self.columns, self.label]
        for f in self.files:
            # text columns as dictionaries: pandas categoricals, coded once per distinct value
            # (declared values compare as values either way: the codes are the same)
            pf = pq.ParquetFile(f, read_dictionary=_text_columns(f, self.columns))
            yield from pf.iter_batches(batch_size=self.batch_rows, columns=cols)

    def partitions(self):
        """``(X, y)`` per record batch: X a pandas frame of the feature columns, y a numpy array."""
        for rb in self.record_batches():
            df = rb.to_pandas()
            yield df[self.columns], df[self.label].to_numpy()

    #: whether a pass function with a ``from_arrow`` method reads the record batches themselves
    #: (:meth:`map_batches`); False: every pass reads pandas frames (the same results, more CPU)
    arrow_passes: bool = True

    def map_batches(self, fn):
        """``fn`` on every record batch, in order: ``fn.from_arrow([batch], n_rows)`` when ``fn``
        has that method (PrivaTree's two source passes, on numpy views of the batch's buffers, as
        for the pinned files of :meth:`DaskSource.from_parquet`), else ``fn(X, y)`` on the frames of
        :meth:`partitions`. Both give the same result on every batch (a batch the views do not
        cover goes through ``fn(X, y)``); only the CPU differs. The partitions are the same either
        way, so is what an encoded cache keeps of each. The caller checks the pinned files
        (:meth:`check_unchanged`) before and after the pass."""
        from_arrow = getattr(fn, "from_arrow", None) if self.arrow_passes else None
        if not callable(from_arrow):
            return (fn(X, y) for X, y in self.partitions())
        return (from_arrow(iter((rb,)), rb.num_rows) for rb in self.record_batches())


class DaskSource(Source):
    """A Dask DataFrame of features and its labels (a Dask Series, or a column of the frame).

    ``DaskSource(ddf, label="y")`` (every other column is a feature) or ``DaskSource(X, y=y)``
    with ``X`` and ``y`` from the same frame (same partitions, e.g. ``ddf[features]`` and
    ``ddf["y"]``).
    """

    kind = "dask"

    def __init__(self, X, y=None, label=None, columns=None):
        if not _is_dask(X):
            raise TypeError("DaskSource needs a dask DataFrame")
        if y is not None and label is not None:
            raise ValueError("DaskSource: give either the labels y or the label column's name, not both")
        if label is not None:
            if label not in X.columns:
                raise ValueError(f"DaskSource: no label column {label!r}")
            feats = [c for c in X.columns if c != label] if columns is None else list(columns)
            frame, X = X[[*feats, label]], X[feats]
        else:
            if columns is not None:
                X = X[list(columns)]
            if y is None:  # no labels (an unsupervised step such as the Binarizer): passes get y=None
                frame = X
            elif not _is_dask(y):
                raise TypeError("DaskSource: y must be a dask Series of the same frame as X")
            else:
                if _LABEL in X.columns:
                    raise ValueError(f"DaskSource: a feature is named {_LABEL!r}")
                # one frame, so that every task holds a partition's features and its labels
                # (projected separately, Dask may cut X and y into different partitions)
                try:
                    frame = X.assign(**{_LABEL: y})
                except Exception as e:
                    raise ValueError(
                        f"X and y must come from one dask DataFrame (e.g. ddf[features] and "
                        f"ddf[label]): {str(e).splitlines()[0] if str(e) else type(e).__name__}"
                    ) from None
                label = _LABEL
        self.X, self.frame, self.label = X, frame, label
        self.columns = [str(c) for c in X.columns]
        self.n_partitions = frame.npartitions

    pins: tuple = ()  # ((file, (size, mtime_ns)), ...) of a source made by from_parquet

    @classmethod
    def from_parquet(cls, path, label, columns=None) -> "DaskSource":
        """A Parquet file or folder as a Dask frame of one partition per file, **pinned** as
        :class:`ParquetSource` pins it: the sorted file list with sizes and modification times
        is fixed now, and the task that reads a file — on whichever worker runs it, including a
        recomputation after a lost worker — checks them before and after reading and raises if
        the file changed; the driver checks them before and after every pass too. (A frame from
        ``dask.dataframe.read_parquet`` cannot be pinned by dpmodels: a file rewritten during a
        fit, then re-read when Dask recomputes a lost partition, would silently mix two
        datasets.)"""
        from dask import dataframe as dd

        pq = ParquetSource(path, label=label, columns=columns)  # lists, pins, checks the schemas
        cols = [*pq.columns, label]
        pins = tuple(zip(pq.files, pq._stats))
        meta = pq._schema.empty_table().to_pandas()[cols]
        frame = dd.from_map(_PinnedRead(cols), list(pins), meta=meta, enforce_metadata=False)
        src = cls(frame, label=label, columns=pq.columns)
        src.pins = pins
        return src

    def check_unchanged(self) -> None:
        """Raise if a pinned file changed (:meth:`from_parquet`; nothing to check otherwise)."""
        for pin in self.pins:
            _check_pin(*pin)

    def schema_frame(self) -> pd.DataFrame:
        return _schema_dtypes(self.X._meta)

    def fingerprint(self) -> str:
        return f"dask:{self.frame._name}"


class _PinnedRead:
    """Read one pinned Parquet file (a Dask task: runs on a worker, maybe more than once)."""

    def __init__(self, columns):
        self.columns = list(columns)

    def __call__(self, pin):
        import pyarrow.parquet as pq

        file, stat = pin
        _check_pin(file, stat)
        # text columns as dictionaries, as ParquetSource reads them: pandas categoricals coded once
        # per distinct value (declared values compare as values: the same codes), not one Python
        # string per row
        df = pq.read_table(file, columns=self.columns, read_dictionary=_text_columns(file, self.columns)).to_pandas()
        _check_pin(file, stat)  # rewritten while it was read
        return df


def declared_schema(est_name, schema, categories, bounds, cut_points=None):
    """``(names, categorical, categories)`` of partitioned input, from declarations only.

    As :func:`dpmodels.validation.resolve_categories`, but a feature neither declared
    categorical (``categories=``) nor numerical (``bounds=`` / ``cut_points=``, or a numeric
    dtype) is an error: its categories are not read from the data (docs/privacy.md, "Counting
    at scale"). ``schema`` holds dtypes only (``category`` dtypes already turned into ``object``).
    """
    from ..validation import check_feature_keys, resolve_categories

    names, categorical, cats = resolve_categories(
        schema, categories, None, read_object_columns=False, bounds=bounds, cut_points=cut_points
    )
    pair = bounds is not None and not isinstance(bounds, dict)
    declared = set()
    for d, what in ((bounds, "bounds"), (cut_points, "cut_points")):
        if isinstance(d, dict):
            declared.update(check_feature_keys(d, names, what))
    for j in np.flatnonzero(~categorical):
        dt = schema.dtypes.iloc[j]
        numeric = pd.api.types.is_numeric_dtype(dt) and not pd.api.types.is_bool_dtype(dt)
        if not (numeric or pair or j in declared):
            raise ValueError(
                f"{est_name}: partitioned input: feature {names[j]!r} is neither declared categorical "
                "(categories=) nor numerical (bounds=); categories are not read from the data"
            )
    return names, categorical, cats


def as_source(X, y=None, *, labels=True):
    """The source behind ``fit(X, y)`` on partitioned input (see :func:`is_partitioned`);
    ``labels=False``: an unsupervised fit (a Dask frame without y is accepted)."""
    if _is_source(X):
        if y is not None:
            raise ValueError("a source carries its labels (label=...): pass y=None")
        return X
    if _is_dask(X):
        if y is None and labels:
            raise ValueError("a dask DataFrame needs its labels: fit(ddf[features], ddf[label])")
        return DaskSource(X, y=y)
    if y is not None and _is_dask(y):
        raise TypeError("y is a dask collection but X is not: pass both from one dask DataFrame")
    raise TypeError(f"not a partitioned input: {type(X).__name__}")


# ---------------------------------------------------------------------------- validate first
class _PartitionChecks:
    """A count pass that releases nothing: every step's schema checks on one partition, then its
    row count (shape (1,)). ``first`` gets the raw partition (its columns), ``later`` steps the
    labels only — their columns are what the earlier steps produce (a Binarizer's 0/1 columns,
    described by its hook on the declared schema). Public inputs only: the steps' parameters."""

    def __init__(self, first, later):
        self.first, self.later = first, later

    def __call__(self, X, y):
        if self.first is not None:
            self.first(X, y)
        for hook in self.later:
            hook(None, y)
        return np.array([len(X)], dtype=np.int64)


def check_partitions(source, steps) -> int:
    """One pass over ``source`` running the checks of every step of a pipeline that need no
    release (``step._validate_before_spend``: the first step on the raw columns when it is a
    transformer, every step on the labels); returns the row count, and releases and spends
    nothing. :func:`dpmodels.pipeline.validate_before_spend` runs it before the first step fits
    (docs/privacy.md, "Counting at scale"): in memory the whole input is checked before any
    release, and so it is here — a label outside a learner's ``classes`` no longer surfaces in
    the learner's first pass, after the Binarizer released its thresholds."""
    from .counts import counts

    hooks = [(s, s._validate_before_spend) for s in steps]
    if not hooks:
        return 0
    (s0, h0), rest = hooks[0], hooks[1:]
    first = h0 if hasattr(s0, "transform") else None
    later = ([] if first is not None else [h0]) + [h for _, h in rest]
    return int(counts(source, _PartitionChecks(first, later), (1,))[0])


# ---------------------------------------------------------------------------- prediction
class _Predict:
    """One partition's predictions as a pandas object on the partition's index (picklable for
    Dask's workers: the fitted estimator travels with it, the data stay where they are)."""

    def __init__(self, est, method):
        self.est, self.method = est, method

    def __call__(self, part):
        out = getattr(self.est, self.method)(part)
        if self.method in ("predict", "apply"):
            return pd.Series(out, index=part.index)
        return pd.DataFrame(out, index=part.index, columns=[str(c) for c in self.est.classes_])


def map_partitions(est, X, method):
    """``est.predict`` / ``predict_proba`` / ``apply`` on a Dask DataFrame, partition by
    partition and lazily: a Dask Series (labels, ids) or DataFrame (one column per class).

    Prediction reads the released model only, so it touches no budget; each partition is
    validated as a whole input would be (its schema errors surface when it is computed).
    """
    from sklearn.utils.validation import check_is_fitted

    check_is_fitted(est)
    if not _is_dask(X) or not hasattr(X, "map_partitions"):
        raise TypeError(f"{type(est).__name__}.{method}: partitioned prediction needs a dask DataFrame")
    if method == "predict":  # the output's type, from the public label set (no empty-input fit)
        meta = pd.Series(np.asarray(est.classes_)[:0])
    elif method == "apply":
        meta = pd.Series(np.zeros(0, dtype=np.int64))
    else:
        meta = pd.DataFrame({str(c): np.zeros(0, dtype=float) for c in est.classes_})
    return X.map_partitions(_Predict(est, method), meta=meta)
