"""The released regression tree: :class:`~dpmodels.tree.Tree`'s node arrays with a value per leaf.

:class:`RegressionTree` keeps the structure of :class:`Tree` (children, feature, threshold,
categorical tests, routing by :meth:`Tree.apply`) and changes what a leaf holds:

``value`` : float64, shape (n_nodes, 2)
    The leaf's released statistics: column 0 the (noisy) record count ñ, column 1 the (noisy) sum
    of the labels clipped to ``label_bounds`` (in label units); internal nodes hold the sums of
    their leaves (post-processing). ``classes`` names the two columns, ``["n", "sum"]``.
``leaf_value`` : float64, shape (n_nodes,)
    The prediction of each leaf (NaN for internal nodes): a post-processing of ``value``
    (:meth:`estimate`), clipped to ``label_bounds``.
``label_bounds`` : (lo, hi)
    The public label bounds the learner clipped the labels to.

``label`` is 0 at every leaf (unused: a regression leaf has no class). Everything round-trips
through :meth:`to_dict` / :meth:`from_dict` (``format = "dpmodels.regression_tree/1"``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .._format import count_text, significant
from .model import Tree

__all__ = ["RegressionTree", "REGRESSION_COLUMNS", "regression_header"]

REGRESSION_COLUMNS = ("n", "sum")


def regression_header(learner, *, status, n_total, noisy, label_bounds, notes=()) -> list[str]:
    """Header lines of a printed regression tree: the learner, ``privacy: …``, n and the label
    bounds (the layout of :func:`dpmodels._format.model_header`, without a label set)."""
    lines = [learner or "model"]
    if status:
        lines.append("privacy: " + status)
    if n_total is None or np.isnan(n_total):
        n = "n: not released"
    else:
        n = f"n{'≈' if noisy else '='}{count_text(n_total)}" + (" (noisy total)" if noisy else "")
    lo, hi = label_bounds
    lines.append(f"{n} · labels clipped to [{significant(lo)}, {significant(hi)}]")
    return [*lines, *notes]


@dataclass
class RegressionTree(Tree):
    leaf_value: np.ndarray = field(default_factory=lambda: np.zeros(0))
    label_bounds: tuple = (0.0, 1.0)

    def __post_init__(self):
        super().__post_init__()
        lo, hi = (float(v) for v in self.label_bounds)
        if not (np.isfinite(lo) and np.isfinite(hi) and lo <= hi):
            raise ValueError(f"label_bounds must be finite with lo <= hi, got {self.label_bounds!r}")
        self.label_bounds = (lo, hi)
        lv = np.asarray(self.leaf_value, dtype=float)
        if lv.shape != (self.n_nodes,):
            raise ValueError(f"leaf_value must have shape ({self.n_nodes},)")
        if not np.all(np.isfinite(lv[self.is_leaf])):
            raise ValueError("every leaf needs a finite leaf_value")
        self.leaf_value = lv

    @staticmethod
    def estimate(count, total, label_bounds, noise_scale=None):
        """Leaf predictions from released (count, sum), clipped to the label bounds
        (post-processing).

        ``noise_scale`` b (the scale of the count release, 1/ε of it; public): each leaf's mean is
        shrunk toward the tree's overall mean μ̂ = Σ sum / Σ count with a pseudo-count of b,
        (sum + b·μ̂) / (max(count, 0) + b) — the convention of the classifiers' ``predict_proba``
        (:func:`dpmodels._format.shrunk_proba`): a leaf whose noisy count is small against the
        noise leans on the tree's mean, a large leaf keeps its own. ``None``: sum / count (the
        centre of the bounds where the count is ≤ 0).
        """
        lo, hi = label_bounds
        count = np.asarray(count, dtype=float)
        total = np.asarray(total, dtype=float)
        if noise_scale is not None and float(noise_scale) > 0:
            c = np.clip(count, 0.0, None)
            mu = np.clip(total.sum() / c.sum(), lo, hi) if c.sum() > 0 else 0.5 * (lo + hi)
            b = float(noise_scale)
            return np.clip((np.where(c > 0, total, 0.0) + b * mu) / (c + b), lo, hi)
        mean = np.where(count > 0, total / np.maximum(count, 1.0), 0.5 * (lo + hi))
        return np.clip(mean, lo, hi)

    # ------------------------------------------------------------------ predict
    def predict(self, X) -> np.ndarray:
        return self.leaf_value[self.apply(X)]

    def predict_proba(self, X):
        raise AttributeError("a regression tree has no predict_proba")

    def leaf_proba(self, *, shrink: bool = True):
        raise AttributeError("a regression tree has no class probabilities")

    def prune(self) -> "RegressionTree":
        """No merging: sibling leaves of a regression tree predict different values."""
        return self

    # ------------------------------------------------------------------ print
    @property
    def n_total(self) -> float:
        v = self.value[self.is_leaf, 0]
        if v.size == 0 or np.all(np.isnan(v)):
            return float("nan")
        return float(np.clip(np.nan_to_num(v, nan=0.0), 0.0, None).sum())

    def _leaf_cell(self, i) -> str:
        eq = "≈" if self.counts_are_noisy else "="
        n = self.value[i, 0]
        return f"[n{eq}{count_text(max(float(n), 0.0))}]" if np.isfinite(n) else "(count not released)"

    def export_text(
        self,
        *,
        significant_digits: int | None = 4,
        spacing: int = 3,
        show_counts: bool = True,
        integer_features=(),
        show_ids: bool = True,
        max_listed: int | None = None,
        _compact: bool = False,
        **_,
    ) -> str:
        """scikit-learn's ``export_text`` layout: ``value: 12.3  n≈104  leaf 4`` at the leaves
        (``leaf k``: what :meth:`apply` returns); categorical branches print the category set a
        record on that branch holds, intersected along the path, and integer-declared features
        print a threshold t as ⌊t⌋ (the conventions of :meth:`Tree.export_text`)."""

        def leaf_line(i):  # columns: value, the samples column, (count not released), id
            v = self.leaf_value[i]
            head = "value: " + (significant(v, significant_digits) if significant_digits else repr(float(v)))
            n, cell = "", ""
            if show_counts:
                c = self.value[i, 0]
                eq = "≈" if self.counts_are_noisy else "="
                n, cell = (
                    (f"n{eq}{count_text(max(float(c), 0.0))}", "") if np.isfinite(c) else ("", "(count not released)")
                )
            return head, n, cell, f"leaf {int(i)}" if show_ids else ""

        lines, integer, rounded, floored = self._walk_lines(
            leaf_line,
            significant_digits=significant_digits,
            integer_features=integer_features,
            spacing=spacing,
            max_listed=max_listed,
            compact=_compact,
        )
        lines += self._threshold_legend(integer, rounded, floored)
        return "\n".join(lines) + "\n"

    def to_text(
        self,
        *,
        prune: bool = True,
        header=None,
        significant_digits: int = 4,
        integer_features=(),
        max_listed: int | None = 12,
        **kw,
    ) -> str:
        if header is None:
            header = regression_header(
                "Regression tree",
                status=None,
                n_total=self.n_total,
                noisy=self.counts_are_noisy,
                label_bounds=self.label_bounds,
            )
        lines = list(header)
        lines.append(
            self.export_text(
                significant_digits=significant_digits,
                integer_features=integer_features,
                max_listed=max_listed,
                _compact=True,
            ).rstrip("\n")
        )
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.export_text()

    def get_rules(
        self,
        *,
        prune: bool = False,
        significant_digits: int | None = 4,
        integer_features=(),
        max_listed: int | None = 12,
    ) -> pd.DataFrame:
        """One row per leaf: ``leaf``, ``depth``, ``rule``, ``antecedent``, ``conditions``,
        ``prediction`` (the leaf value), ``n`` and ``sum`` (released, raw), ``noisy``."""
        depth = self.node_depth
        rows = []
        for leaf, path in sorted(self.leaf_paths().items()):
            ante = self._path_text(path, significant_digits, self._integer_index(integer_features), max_listed)
            conds = []
            for f, op, v in path:
                if op in ("in", "not in"):
                    v = tuple(self.categories[f][c] for c in v)
                conds.append((self.feature_names[f], op, v))
            pred = float(self.leaf_value[leaf])
            rows.append(
                {
                    "leaf": leaf,
                    "depth": int(depth[leaf]),
                    "rule": f"IF {ante} THEN {significant(pred) if significant_digits else pred}",
                    "antecedent": ante,
                    "conditions": conds,
                    "prediction": pred,
                    "n": float(self.value[leaf, 0]),
                    "sum": float(self.value[leaf, 1]),
                    "noisy": bool(self.counts_are_noisy),
                }
            )
        return pd.DataFrame(rows)

    # ------------------------------------------------------------------ serialisation
    def to_dict(self) -> dict:
        d = super().to_dict()
        d["format"] = "dpmodels.regression_tree/1"
        d["leaf_value"] = [None if np.isnan(v) else float(v) for v in self.leaf_value.tolist()]
        d["label_bounds"] = [float(v) for v in self.label_bounds]
        return d

    @classmethod
    def from_dict(cls, d: dict) -> "RegressionTree":
        if not isinstance(d, dict) or d.get("format") != "dpmodels.regression_tree/1":
            raise ValueError("not a serialised regression tree (format 'dpmodels.regression_tree/1')")
        if list(d.get("classes", [])) != list(REGRESSION_COLUMNS):
            raise ValueError(f"regression tree: classes must be {list(REGRESSION_COLUMNS)}")
        lb = d["label_bounds"]
        if (
            not isinstance(lb, list)
            or len(lb) != 2
            or not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in lb)
        ):
            raise ValueError("regression tree: label_bounds must be two numbers")
        base = Tree.from_dict(d)
        lv = [np.nan if v is None else v for v in d["leaf_value"]]
        return cls(
            base.children_left,
            base.children_right,
            base.feature,
            base.threshold,
            base.left_categories,
            base.value,
            base.label,
            base.classes,
            base.feature_names,
            base.categorical,
            base.categories,
            base.counts_are_noisy,
            base.count_noise_scale,
            leaf_value=np.asarray(lv, dtype=float),
            label_bounds=tuple(lb),
        )
