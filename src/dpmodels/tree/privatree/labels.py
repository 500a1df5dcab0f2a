"""What a PrivaTree counts per record: the label kernels of the classifier and the regressor.

The fit (:mod:`.fitting`) is one driver for both learners and every count backend; what differs
is the statistic of a (node, feature, bin) cell and of a leaf, both exact int64 arrays of a
public shape:

- :class:`ClassLabels` (the classifier): a record is its class index; a level's counts are
  (nodes, m, B, K) class counts, a leaf's (L, K);
- :class:`RegressionLabels` (the regressor): a record is its clipped label on the public integer
  grid u ∈ [−G, G] (:func:`.regressor.label_units`); a level's statistics are (nodes, m, B, 3):
  the count, Σv and Σv² of v = u clipped to the central half [−G/2, G/2] (what the SSE utility
  reads, :mod:`.regressor`), a leaf's (L, 2): the count and Σu.

The kernels are small picklable objects holding public inputs only (the declared label set, the
declared label bounds): a partitioned fit ships them to the workers with its count passes.
"""

from __future__ import annotations

import numpy as np

from ...validation import check_y, resolve_classes
from .histograms import Histograms, row_blocks

__all__ = ["ClassLabels", "RegressionLabels", "sum_statistics", "label_units", "LABEL_GRID"]

LABEL_GRID = 1 << 16  # grid steps per half-range of the regressor's label bounds


def _as_float_labels(y, name):
    """The checked labels (:func:`dpmodels.validation.check_fit_input`) as a finite float64 array."""
    try:
        y = y.astype(np.float64)
    except (TypeError, ValueError):
        raise ValueError("y must be numeric for a regressor") from None
    if not np.all(np.isfinite(y)):  # a schema error: the label domain is the real line, bounded
        raise ValueError("Input y contains NaN or infinity")
    return y


def label_units(yc, label_bounds):
    """The clipped labels as integers in [−G, G] on the public grid (G = :data:`LABEL_GRID`):
    rint((y − c)/h·G), c = (lo + hi)/2, h = (hi − lo)/2 — a fixed per-record map (neighbours stay
    neighbours), used by the split utility and the leaf sums alike (0 when lo = hi)."""
    lo, hi = label_bounds
    half = 0.5 * hi - 0.5 * lo
    if not half > 0:
        return np.zeros(np.shape(yc), dtype=np.int64)
    mid = 0.5 * lo + 0.5 * hi
    u = np.rint((np.asarray(yc, dtype=float) - mid) / half * LABEL_GRID)
    return np.clip(u, -LABEL_GRID, LABEL_GRID).astype(np.int64)


class ClassLabels:
    """Class indices into the public label set ``classes`` (declared or resolved)."""

    def __init__(self, classes):
        self.classes = classes
        self.K = int(len(classes))
        self.width = self.leaf_width = self.K  # statistics per (node, feature, bin) cell, per leaf
        self.count_channel = None  # a cell's record count: the sum over the classes

    def encode(self, y) -> np.ndarray:
        """One partition's labels as class indices (a label outside ``classes`` raises)."""
        y = check_y(y)
        _, y_idx = resolve_classes(self.classes, y, None)
        return y_idx.astype(np.uint8 if self.K <= 256 else np.int32)

    def level_pass(self, codes, lab, tables, slot_of_node, out) -> None:
        """A level pass over one partition: ``out`` (S, m, B, K) += class counts (compiled)."""
        from .kernels import level_class_counts

        level_class_counts(np.ascontiguousarray(codes), lab, *tables, slot_of_node, out)

    def leaf_pass(self, codes, lab, tables, leaf_of_node, out) -> None:
        """The leaf pass over one partition: ``out`` (L, K) += class counts (compiled)."""
        from .kernels import leaf_class_counts

        leaf_class_counts(np.ascontiguousarray(codes), lab, *tables, leaf_of_node, out)

    def counter(self, codes, lab, B):
        """The in-memory counter of :mod:`.histograms` (features packed per bincount element)."""
        return Histograms(codes, lab, B, self.K)

    def leaf_counts(self, leaf, lab, L) -> np.ndarray:
        """(L, K) class counts of the leaves (``leaf`` >= 0 for every record)."""
        K = self.K
        return np.bincount(leaf * K + lab, minlength=L * K).reshape(L, K)


def sum_statistics(codes, v, B, slot=None, rows=None, n_slots=1) -> np.ndarray:
    """(n_slots, m, B, 3) int64: the count, Σv and Σv² of the integer values ``v`` per (slot,
    feature, bin) over ``rows`` (all if None), exactly.

    ``|v| <= 2^16``: a block of at most 2^17 values sums |v| < 2^33 and v² < 2^49 in float64
    bincounts without rounding (integers below 2^53); the blocks add up in int64.
    """
    n, m = codes.shape
    stride = m * B
    size = n_slots * stride
    out = np.zeros((3, size), dtype=np.int64)
    N = n if rows is None else rows.size
    fo = np.arange(m, dtype=np.intp) * B
    for a, b in row_blocks(N, m):
        if rows is None:
            c, vr = codes[a:b], v[a:b]
        else:
            rr = rows[a:b]
            c, vr = codes[rr], v[rr]
        idx = c.astype(np.intp)
        idx += fo
        if slot is not None:
            idx += (slot[a:b] * stride)[:, None]
        flat = idx.ravel()
        w = np.repeat(vr.astype(np.float64), m)
        out[0] += np.bincount(flat, minlength=size)
        out[1] += np.bincount(flat, weights=w, minlength=size).astype(np.int64)
        out[2] += np.bincount(flat, weights=w * w, minlength=size).astype(np.int64)
    return np.moveaxis(out.reshape(3, n_slots, m, B), 0, -1)


class _SumCounter:
    """:func:`sum_statistics` of fixed codes and values (the in-memory counter's interface)."""

    def __init__(self, codes, v, B):
        self.codes, self.v, self.B = codes, v, B

    def counts(self, rows=None, slot=None, n_slots=1):
        return sum_statistics(self.codes, self.v, self.B, slot, rows, n_slots)


class RegressionLabels:
    """Labels clipped to the public ``label_bounds`` on the integer grid (module docstring)."""

    width = 3  # count, Σv, Σv² per (node, feature, bin) cell
    leaf_width = 2  # count, Σu per leaf
    count_channel = 0

    def __init__(self, label_bounds):
        self.label_bounds = (float(label_bounds[0]), float(label_bounds[1]))
        self.w = LABEL_GRID // 2  # the split utility's clip: the central half of the grid

    def encode(self, y) -> np.ndarray:
        """One partition's labels as grid units (a non-number, NaN or ±inf raises)."""
        y = _as_float_labels(check_y(y), "PrivaTreeRegressor")
        lo, hi = self.label_bounds
        return label_units(np.clip(y, lo, hi), self.label_bounds).astype(np.int32)

    def _level_values(self, lab):
        return np.clip(lab, -self.w, self.w)

    def level_pass(self, codes, lab, tables, slot_of_node, out) -> None:
        """A level pass over one partition: ``out`` (S, m, B, 3) += (count, Σv, Σv²) (compiled)."""
        from .kernels import level_sum_counts

        level_sum_counts(np.ascontiguousarray(codes), lab, self.w, *tables, slot_of_node, out)

    def leaf_pass(self, codes, lab, tables, leaf_of_node, out) -> None:
        """The leaf pass over one partition: ``out`` (L, 2) += (count, Σu) (compiled)."""
        from .kernels import leaf_sum_counts

        leaf_sum_counts(np.ascontiguousarray(codes), lab, *tables, leaf_of_node, out)

    def counter(self, codes, lab, B):
        return _SumCounter(codes, self._level_values(lab), B)

    def leaf_counts(self, leaf, lab, L) -> np.ndarray:
        """(L, 2): the record count and Σu of every leaf (exact int64)."""
        out = np.zeros((L, 2), dtype=np.int64)
        out[:, 0] = np.bincount(leaf, minlength=L)
        for a, b in row_blocks(leaf.size, 1):
            out[:, 1] += np.bincount(leaf[a:b], weights=lab[a:b].astype(np.float64), minlength=L).astype(np.int64)
        return out
