"""The released additive model: one shape function per feature on public bins, and an intercept.

An :class:`AdditiveModel` holds only public and released information:

* the public schema: feature names, which features are categorical, each categorical feature's
  declared list (its bins, plus one bin ``unknown`` for every other value), each numerical
  feature's public cut points ``c_1 < … < c_k`` within its declared bounds (bin b holds
  ``c_b < x <= c_{b+1}``, values clipped to the bounds), the label set or the label bounds;
* the released numbers: ``terms[j]`` of shape (bins of feature j, S) — the score each bin adds
  (S = 1 for binary classification and regression, K for K ≥ 3 classes) — the ``intercept`` (S,),
  and ``bin_counts[j]`` (bins,), the noisy record counts of each bin (a DP release, shown when
  printing and used as the weights of the term importances).

The score of a row is ``intercept + Σ_j terms[j][bin_j(x_j)]``; a binary classifier's probability
of ``classes[1]`` is the logistic function of it, a K-class one's probabilities its softmax, a
regressor's prediction the score clipped to the label bounds. Everything here is post-processing
of the DP releases: no method reads training data.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from .._format import py_scalar, round_count, significant
from ..validation import UNKNOWN_CATEGORY, category_codes, numeric_column

__all__ = ["AdditiveModel", "MODEL_FORMAT"]

MODEL_FORMAT = "dpmodels.additive/1"


class AdditiveModel:
    """A fitted additive model (module docstring). Build it with the estimators of
    :mod:`dpmodels.gam`, or read it back with :meth:`from_dict`."""

    def __init__(
        self,
        feature_names,
        categorical,
        categories,
        cut_points,
        bounds,
        terms,
        intercept,
        bin_counts,
        *,
        classes=None,
        label_bounds=None,
        integer_features=(),
    ):
        self.feature_names = [str(f) for f in feature_names]
        m = len(self.feature_names)
        self.categorical = np.asarray(categorical, dtype=bool).reshape(m)
        self.categories = {int(j): list(v) for j, v in categories.items()}
        self.cut_points = {int(j): np.asarray(v, dtype=float).ravel() for j, v in cut_points.items()}
        self.bounds = {int(j): (float(a), float(b)) for j, (a, b) in bounds.items()}
        self.terms = [np.asarray(t, dtype=float) for t in terms]
        self.intercept = np.asarray(intercept, dtype=float).ravel()
        self.bin_counts = [np.asarray(c, dtype=float).ravel() for c in bin_counts]
        self.classes = None if classes is None else np.asarray(classes, dtype=object if _mixed(classes) else None)
        self.label_bounds = None if label_bounds is None else (float(label_bounds[0]), float(label_bounds[1]))
        # numerical features declared integer-valued (integer bounds): printing writes a cut c as
        # ⌊c⌋, the same test on integers (dpmodels._format.declared_integer_features)
        self.integer_features = [f for f in self.feature_names if f in set(map(str, integer_features))]
        if (self.classes is None) == (self.label_bounds is None):
            raise ValueError("an additive model has either classes (a classifier) or label_bounds (a regressor)")
        S = self.intercept.size
        if len(self.terms) != m or len(self.bin_counts) != m:
            raise ValueError("one term and one bin-count vector per feature")
        for j in range(m):
            nb = self.n_bins(j)
            if self.terms[j].shape != (nb, S) or self.bin_counts[j].shape != (nb,):
                raise ValueError(f"term of feature {self.feature_names[j]!r}: expected {nb} bins × {S} scores")
            if not np.all(np.isfinite(self.terms[j])):
                raise ValueError("scores must be finite numbers")
        if not np.all(np.isfinite(self.intercept)):
            raise ValueError("the intercept must be finite")
        if self.classes is not None:
            K = len(self.classes)
            if K < 2 or S != (1 if K == 2 else K):
                raise ValueError(f"{K} classes need {1 if K == 2 else K} score(s) per bin, got {S}")
        elif S != 1:
            raise ValueError("a regressor has one score per bin")

    # ------------------------------------------------------------------ structure
    @property
    def n_features(self) -> int:
        return len(self.feature_names)

    @property
    def is_classifier(self) -> bool:
        return self.classes is not None

    def _classes(self) -> np.ndarray:
        """The label set of a classifier (a regressor has none)."""
        if self.classes is None:
            raise ValueError("a regression model has no classes")
        return self.classes

    def _label_bounds(self) -> tuple:
        """The label bounds of a regressor (a classifier has none)."""
        if self.label_bounds is None:
            raise ValueError("a classification model has no label bounds")
        return tuple(self.label_bounds)

    def n_bins(self, j: int) -> int:
        if self.categorical[j]:
            return len(self.categories[j]) + 1  # the declared values, then "unknown"
        return self.cut_points[j].size + 1

    def bin_labels(self, j: int, digits: int = 4) -> list[str]:
        """Readable bins of feature j: ``<= 37.5``, ``(37.5, 45]``, ``> 45``; categories; ``unknown``."""
        if self.categorical[j]:
            return [str(py_scalar(v)) for v in self.categories[j]] + ["unknown"]
        c = self.cut_points[j]
        if self.feature_names[j] in self.integer_features:
            c = np.floor(c)
        lo, hi = self.bounds[j]
        if c.size == 0:
            return [f"[{significant(lo, digits)}, {significant(hi, digits)}]"]
        out = [f"<= {significant(c[0], digits)}"]
        out += [f"({significant(a, digits)}, {significant(b, digits)}]" for a, b in zip(c[:-1], c[1:])]
        out.append(f"> {significant(c[-1], digits)}")
        return out

    # ------------------------------------------------------------------ encoding
    def encode(self, X) -> np.ndarray:
        """(n, m) int64 bin index of every cell of ``X`` (raw values, columns in model order)."""
        cols = _columns(X, self.feature_names)
        n = len(cols[0]) if cols else 0
        B = np.empty((n, self.n_features), dtype=np.int64)
        for j, col in enumerate(cols):
            if self.categorical[j]:
                codes = category_codes(col, self.categories[j])
                B[:, j] = np.where(codes == UNKNOWN_CATEGORY, len(self.categories[j]), codes)
            else:
                B[:, j] = self.bin_numbers(j, numeric_column(col, self.feature_names[j]))
        return B

    def bin_numbers(self, j: int, x: np.ndarray) -> np.ndarray:
        """Bins of the numbers ``x`` of numerical feature j (clipped to its public bounds)."""
        lo, hi = self.bounds[j]
        return np.searchsorted(self.cut_points[j], np.clip(x, lo, hi), side="left").astype(np.int64)

    # ------------------------------------------------------------------ prediction
    def decision_function_binned(self, B: np.ndarray) -> np.ndarray:
        """(n, S) scores of rows given as bin indices (:meth:`encode`)."""
        F = np.broadcast_to(self.intercept, (B.shape[0], self.intercept.size)).copy()
        for j in range(self.n_features):
            F += self.terms[j][B[:, j]]
        return F

    def decision_function(self, X) -> np.ndarray:
        """Scores: (n,) for a binary classifier or a regressor, (n, K) for K ≥ 3 classes."""
        F = self.decision_function_binned(self.encode(X))
        return F[:, 0] if F.shape[1] == 1 else F

    def predict_proba_binned(self, B: np.ndarray) -> np.ndarray:
        return scores_to_proba(self.decision_function_binned(B))

    def predict_proba(self, X) -> np.ndarray:
        if not self.is_classifier:
            raise AttributeError("a regression model has no predict_proba")
        return self.predict_proba_binned(self.encode(X))

    def predict(self, X) -> np.ndarray:
        B = self.encode(X)
        if not self.is_classifier:
            lo, hi = self._label_bounds()
            return np.clip(self.decision_function_binned(B)[:, 0], lo, hi)
        assert self.classes is not None
        return self.classes[np.argmax(self.predict_proba_binned(B), axis=1)]

    # ------------------------------------------------------------------ reading
    def term_importances(self) -> np.ndarray:
        """Mean absolute score of each term over the (noisy) bin counts (InterpretML's
        importance), summed over the scores of a K-class model. Post-processing."""
        out = np.zeros(self.n_features)
        for j in range(self.n_features):
            w = np.clip(self.bin_counts[j], 0.0, None)
            tot = w.sum()
            if tot > 0:
                out[j] = float((np.abs(self.terms[j]).sum(axis=1) * w).sum() / tot)
        return out

    def shape_table(self) -> pd.DataFrame:
        """One row per (feature, bin): ``feature, bin, count, score`` (K-class models: one score
        column per class)."""
        rows = []
        S = self.intercept.size
        names = ["score"] if S == 1 else [f"score[{py_scalar(c)}]" for c in self._classes()]
        for j in range(self.n_features):
            for b, lab in enumerate(self.bin_labels(j)):
                row = {"feature": self.feature_names[j], "bin": lab, "count": round_count(self.bin_counts[j][b])}
                row.update({k: float(self.terms[j][b, s]) for s, k in enumerate(names)})
                rows.append(row)
        return pd.DataFrame(rows)

    def to_text(self, header=(), *, digits: int = 3, max_bins: int | None = None) -> str:
        """The model as text: the header, the intercept, then every term by decreasing
        importance, one line per bin ``bin → score`` (runs of neighbouring numerical bins with the
        same printed score are merged), with the noisy bin count ``n≈…`` right-aligned."""
        lines = list(header)
        S = self.intercept.size
        fmt = _score_fmt(digits)
        if self.is_classifier and S == 1:
            what = f"score = log-odds of {py_scalar(self._classes()[1])!s} (P = 1/(1+e^-score))"
        elif self.is_classifier:
            what = "scores: one per class (P = softmax of the scores): " + ", ".join(
                str(py_scalar(c)) for c in self._classes()
            )
        else:
            lo, hi = self._label_bounds()
            what = f"prediction = score, clipped to the label bounds [{significant(lo)}, {significant(hi)}]"
        lines.append(what + "; score = intercept + the sum of one term per feature")
        lines.append("intercept: " + " ".join(fmt(v) for v in self.intercept))
        imp = self.term_importances()
        for j in np.argsort(-imp, kind="stable"):
            kind = "categorical" if self.categorical[j] else "numerical"
            lines.append(f"{self.feature_names[j]} ({kind}, importance {imp[j]:.3g}):")
            labels = self.bin_labels(j)
            rows = _merged_rows(self, j, labels, fmt)
            shown = rows if max_bins is None or len(rows) <= max_bins else rows[:max_bins]
            wn = max(len(cnt) for _, _, cnt in shown) + 2  # the samples column, right-aligned
            for lab, score, cnt in shown:
                lines.append(f"    {lab:<24} → {score:>{8 if S == 1 else 1}}   {'n≈' + cnt:>{wn}}")
            if len(shown) < len(rows):
                lines.append(f"    … {len(rows) - len(shown)} more bins (shape_table() lists them)")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.to_text()

    # ------------------------------------------------------------------ JSON
    def to_dict(self) -> dict:
        def val(v):
            v = py_scalar(v)
            return v

        return {
            "format": MODEL_FORMAT,
            "feature_names": list(self.feature_names),
            "categorical": [bool(c) for c in self.categorical],
            "categories": {self.feature_names[j]: [val(v) for v in vs] for j, vs in self.categories.items()},
            "cut_points": {self.feature_names[j]: [float(c) for c in v] for j, v in self.cut_points.items()},
            "bounds": {self.feature_names[j]: [a, b] for j, (a, b) in self.bounds.items()},
            "terms": [t.tolist() for t in self.terms],
            "intercept": self.intercept.tolist(),
            "bin_counts": [c.tolist() for c in self.bin_counts],
            "classes": None if self.classes is None else [val(c) for c in self.classes],
            "label_bounds": None if self.label_bounds is None else list(self.label_bounds),
            "integer_features": list(self.integer_features),
        }

    @classmethod
    def from_dict(cls, d: dict) -> "AdditiveModel":
        """Inverse of :meth:`to_dict` (sizes are checked by :mod:`dpmodels.io` first)."""
        if d.get("format") != MODEL_FORMAT:
            raise ValueError(f"not an additive model (format {str(d.get('format'))[:60]!r})")
        names = list(d["feature_names"])
        idx = {n: j for j, n in enumerate(names)}
        if len(idx) != len(names):
            raise ValueError("duplicate feature names")
        categorical = [bool(c) for c in d["categorical"]]
        if len(categorical) != len(names):
            raise ValueError("'categorical' needs one flag per feature")

        def by_feature(key, want):
            out = {}
            for name, v in d[key].items():
                if name not in idx or categorical[idx[name]] != want:
                    raise ValueError(
                        f"{key}: {str(name)[:60]!r} is not a {'categorical' if want else 'numerical'} feature"
                    )
                out[idx[name]] = v
            return out

        cats = by_feature("categories", True)
        cuts = by_feature("cut_points", False)
        bounds = by_feature("bounds", False)
        for j, c in enumerate(categorical):
            if c and j not in cats:
                raise ValueError(f"no category list for feature {names[j][:60]!r}")
            if not c and (j not in cuts or j not in bounds):
                raise ValueError(f"no cut points or bounds for feature {names[j][:60]!r}")
        for j, v in cuts.items():
            a = np.asarray(v, dtype=float)
            lo, hi = (float(x) for x in bounds[j])
            if not (np.all(np.isfinite(a)) and np.all(np.diff(a) > 0) and lo <= hi):
                raise ValueError(f"cut points of {names[j][:60]!r} must be finite and increasing")
        lb = d.get("label_bounds")
        return cls(
            names,
            categorical,
            cats,
            cuts,
            {j: tuple(b) for j, b in bounds.items()},
            [np.asarray(t, dtype=float) for t in d["terms"]],
            np.asarray(d["intercept"], dtype=float),
            [np.asarray(c, dtype=float) for c in d["bin_counts"]],
            classes=d.get("classes"),
            label_bounds=None if lb is None else tuple(lb),
            integer_features=[str(f) for f in d.get("integer_features", [])],
        )


def scores_to_proba(F: np.ndarray) -> np.ndarray:
    """(n, 2) logistic probabilities of (n, 1) scores, or (n, K) softmax of (n, K) scores."""
    if F.shape[1] == 1:
        p1 = 1.0 / (1.0 + np.exp(-np.clip(F[:, 0], -700, 700)))
        return np.column_stack([1.0 - p1, p1])
    Z = F - F.max(axis=1, keepdims=True)
    E = np.exp(Z)
    return E / E.sum(axis=1, keepdims=True)


def _mixed(values) -> bool:
    return len({type(py_scalar(v)) for v in values}) > 1


def _score_fmt(digits: int):
    def fmt(v: float) -> str:
        v = float(v)
        if v == 0:
            return "0"
        return f"{v:+.{digits}g}" if abs(v) >= 10 ** (-digits) else f"{v:+.1e}"

    return fmt


def _merged_rows(model: AdditiveModel, j: int, labels, fmt):
    """``(bin label, printed scores, printed count)`` per bin; neighbouring numerical bins whose
    printed scores agree are merged into one interval (their counts summed)."""
    t = model.terms[j]
    cnt = model.bin_counts[j]
    printed = [" ".join(fmt(v) for v in t[b]) for b in range(t.shape[0])]
    if model.categorical[j]:
        return [(labels[b], printed[b], _count(cnt[b])) for b in range(t.shape[0])]
    c = model.cut_points[j]
    if model.feature_names[j] in model.integer_features:
        c = np.floor(c)
    rows = []
    b = 0
    while b < len(printed):
        e = b
        while e + 1 < len(printed) and printed[e + 1] == printed[b]:
            e += 1
        if b == e:
            lab = labels[b]
        else:
            left = None if b == 0 else c[b - 1]
            right = None if e == len(printed) - 1 else c[e]
            lab = (
                (f"({significant(left)}, " if left is not None else "<= ")
                + (f"{significant(right)}]" if right is not None else "")
                if right is not None
                else f"> {significant(left)}"
                if left is not None
                else "all"
            )
            if left is None and right is not None:
                lab = f"<= {significant(right)}"
        rows.append((lab, printed[b], _count(cnt[b : e + 1].sum())))
        b = e + 1
    return rows


def _count(v: float) -> str:
    v = float(v)
    if math.isnan(v):
        return "?"
    return f"{round_count(max(v, 0.0)):,}"


def _columns(X, names):
    """The columns of ``X`` in model order (a DataFrame by position: the estimator checks names)."""
    if isinstance(X, pd.DataFrame):
        if X.shape[1] != len(names):
            raise ValueError(f"X has {X.shape[1]} columns, the model {len(names)}")
        return [X.iloc[:, j] for j in range(X.shape[1])]
    A = np.asarray(X) if not isinstance(X, np.ndarray) else X
    if A.ndim != 2 or A.shape[1] != len(names):
        raise ValueError(f"X must be 2-d with {len(names)} columns, got shape {A.shape}")
    return [A[:, j] for j in range(A.shape[1])]
