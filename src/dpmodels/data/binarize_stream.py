"""The :class:`~dpmodels.data.Binarizer` on partitioned input (Parquet via pyarrow, Dask).

``fit`` is one count pass (:func:`dpmodels.data.counts.counts`; docs/privacy.md, "Counting at
scale"): every partition returns its row count and the public-grid histogram
(:func:`dpmodels.privacy.quantiles.grid_histogram`) of each feature whose thresholds are DP
quantiles — a (1 + k·grid_size,) int64 array — and checks the declared schema on its rows (a
non-number in a numerical column raises here, before any release). The releases are then those
of the in-memory fit (:meth:`Binarizer._fit_releases`), from the summed histograms: with the same seed
the thresholds, output columns and ledger equal the in-memory fit's on the concatenated data.

Partitioned input must declare everything a fit would otherwise read from the data: categories
of every categorical feature, and for every numerical feature either ``cut_points=`` or
``epsilon=`` with ``bounds=`` (the data's own quantiles and min/max are not available).
``transform`` maps the partitions of a Dask frame, or yields the binarized record batches of a
Parquet source (one batch in memory at a time).
"""

from __future__ import annotations

import numpy as np

from ..privacy.accountant import ledger_for_fit
from ..privacy.quantiles import grid_histogram
from ..validation import numeric_column
from .counts import counts
from .sources import DaskSource, InMemorySource, ParquetSource, Source, as_source, declared_schema

__all__ = ["fit_binarizer_source", "transform_source", "BinarizedSource"]


class _HistogramPass:
    """(1 + k·G,) int64: rows, then the grid histogram of each DP feature; schema checked."""

    def __init__(self, names, num_idx, dp, bounds, G):
        self.names, self.num_idx, self.dp, self.bounds, self.G = names, num_idx, dp, bounds, G

    def __call__(self, X, y):
        out = np.zeros(1 + len(self.dp) * self.G, dtype=np.int64)
        out[0] = len(X)
        cols = {j: numeric_column(X.iloc[:, j], self.names[j]) for j in self.num_idx}  # schema errors
        for i, j in enumerate(self.dp):
            out[1 + i * self.G : 1 + (i + 1) * self.G] = grid_histogram(cols[j], self.bounds[j], self.G)
        return out


def fit_binarizer_source(b, X, y=None, sample_weight=None):
    """:meth:`Binarizer.fit` on partitioned input (module docstring)."""
    from sklearn.utils.validation import _check_feature_names, _check_n_features

    eps = b._check_params()
    name = type(b).__name__
    if sample_weight is not None:
        raise ValueError(f"{name}: sample_weight is not supported on partitioned input")
    source = as_source(X, y, labels=False)
    schema = source.schema_frame()
    names, categorical, cats = declared_schema(name, schema, b.categories, b.bounds, b.cut_points)
    cuts_in = b._declared_cuts(names, categorical)
    m = len(names)
    num_idx = [j for j in range(m) if not categorical[j]]
    undeclared = [names[j] for j in num_idx if j not in cuts_in]
    if undeclared and eps is None:
        raise ValueError(
            f"{name}: partitioned input: feature {undeclared[0]!r} needs cut_points= or epsilon= "
            "with bounds= (the data's own quantiles are not read)"
        )
    if undeclared and b.bounds is None:
        raise ValueError(
            f"{name}: partitioned input needs bounds= for the DP quantiles; they are not read from the data"
        )
    _check_feature_names(b, schema, reset=True)
    _check_n_features(b, schema, reset=True)
    ledger = ledger_for_fit(b, eps or 0.0)
    kind = {j: ("public" if j in cuts_in else "dp") for j in num_idx}
    bounds = b._resolve_bounds(names, num_idx, kind, None, ledger)
    dp = [j for j in num_idx if kind[j] == "dp" and bounds[j][0] < bounds[j][1]]
    G = int(b.grid_size)
    total = counts(source, _HistogramPass(names, num_idx, dp, bounds, G), (1 + len(dp) * G,))
    if total[0] == 0:
        raise ValueError(
            "Found array with 0 sample(s) while a minimum of 1 is required (the empty dataset is outside the domain)."
        )
    H = total[1:].reshape(len(dp), G)
    b._fit_releases(
        eps,
        names,
        categorical,
        cats,
        cuts_in,
        num_idx,
        kind,
        bounds,
        ledger,
        None,
        lambda feats: H[[dp.index(j) for j in feats]],
    )
    b.n_partitions_ = source.n_partitions
    return b


class _Transform:
    def __init__(self, b):
        self.b = b

    def __call__(self, part):
        return self.b.transform(part)


def transform_source(b, X):
    """Binarized partitions: a Dask frame (lazy, ``map_partitions``) or, for a source object
    (:class:`~dpmodels.data.ParquetSource`, :class:`~dpmodels.data.DaskSource`), a
    :class:`BinarizedSource` (iterating a Parquet one yields ``(binarized batch, labels)``)."""
    if isinstance(X, (ParquetSource, DaskSource, InMemorySource)):
        return BinarizedSource(X, b)
    if not hasattr(X, "map_partitions"):
        raise TypeError(f"{type(b).__name__}.transform: partitioned input must be a dask DataFrame or a ParquetSource")
    fn = _Transform(b)
    return X.map_partitions(fn, meta=fn(X._meta))


class BinarizedSource(Source):
    """A source seen through a fitted :class:`~dpmodels.data.Binarizer`: what
    ``Binarizer.transform`` returns for a source object, and what a rule list fits on
    (docs/privacy.md, "Rule lists at scale").

    Nothing is materialised: the count passes read the raw partitions of ``source`` and binarize
    each one where it is (the binarizer travels with the task: public thresholds and categories
    only). ``columns`` are the binarizer's output names; ``schema_frame()`` is an empty uint8
    frame of them carrying the declared groups and the binarizer's release (its provenance), as
    its in-memory output does. Iterating a Parquet-backed one yields ``(binarized batch,
    labels)`` one record batch at a time.
    """

    def __init__(self, source, binarizer):
        self.source, self.binarizer = source, binarizer
        self.kind = source.kind
        self.label = source.label
        self.columns = [str(c) for c in binarizer.get_feature_names_out()]
        self.n_partitions = source.n_partitions

    def schema_frame(self):
        import pandas as pd

        from ..privacy.accountant import PROVENANCE_ATTR
        from .rules import GROUPS_ATTR

        out = pd.DataFrame({c: pd.Series([], dtype=np.uint8) for c in self.columns}, columns=self.columns)
        out.attrs[GROUPS_ATTR] = {k: dict(v) for k, v in self.binarizer.groups_.items()}
        release = getattr(self.binarizer, "_release", None)
        if release is not None:
            out.attrs[PROVENANCE_ATTR] = [dict(release)]
        return out

    def fingerprint(self) -> str:
        return f"binarized:{self.source.fingerprint()}"

    def transform(self, X):
        """One raw partition binarized (the function the passes apply)."""
        return self.binarizer.transform(X)

    def __iter__(self):
        if not hasattr(self.source, "partitions"):
            raise TypeError("a Dask-backed binarized source is read by count passes, not iterated")
        return ((self.binarizer.transform(Xp), yp) for Xp, yp in self.source.partitions())
