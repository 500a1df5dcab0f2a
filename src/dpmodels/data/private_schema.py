"""A differentially private schema draft, for users who do not know their bounds and categories.

A DP learner's public inputs (the label set, each column's kind, bounds and categories) must be
declared, never read from the data (docs/privacy.md, "What is public"). When nothing public is at
hand, :func:`draft_private_schema` (the library function behind ``dpmodels schema draft
--epsilon``) releases them with differential privacy instead, each value marked ``source: dp``:

* **kind** of an undeclared column: a noisy vote ``#numeric cells − #other cells`` (one record
  moves it by 1; geometric noise of scale 1/ε_kind): numerical when positive, else categorical.
  (Binary is never voted: "every cell is 0 or 1" is not a majority question. A 0/1 column comes
  out numerical with bounds about [0, 1]; declare ``kinds={col: "binary"}`` to say it.) A numerical
  column's non-numeric cells then make the fit refuse the table: impute them first;
* **bounds** of a numerical column: a noisy histogram (geometric noise, ε-DP: each record is in
  one bin) over public bins of fixed relative width (``bins_per_octave`` per factor 2, default 1:
  few bins keep the threshold below low; a pilot on other splits than the benchmark's preferred 1
  to 2 and 4 on Adult and COMPAS) covering a declared very wide ``search_range`` (default ±10⁶; values beyond it are
  clipped). Post-processing only: the bins whose noisy count clears ``ln(B/0.1)/ε`` (an empty bin
  does so with probability ≤ 0.1 over all B bins) are kept, and the bounds are the
  ``bounds_quantiles`` (default 1 % and 99 %) of the kept noisy counts, rounded outward to three
  significant digits;
* **categories** of a categorical column and the **label set**: a thresholded noisy histogram
  (:func:`dpmodels.privacy.mechanisms.thresholded_histogram`) over the values present. This is
  **(ε, δ)-DP only, δ > 0 is required**: a value held by one record appears with probability at
  most δ, never "rarely" (a fixed threshold without δ names such a value whenever noise pushes it
  over). A categorical column with no value over the threshold is marked ``drop``;
* **label bounds** of a regression label: as a numerical column's bounds.

**Budget.** ε is split equally over the releases the declarations leave to do (one per undeclared
label set, one per column whose kind is undeclared or needs values); within an undeclared column
``kind_share`` of its part goes to the kind votes. δ is split equally over the parts that may
release a category list (the label set, and every column that may turn out categorical). Every
record is in every part: sequential composition, so the draft is (ε, δ)-DP in total. The plan is
a function of the declarations only; it is made, and bad input refused, before anything is read.

**The ledger travels with the values.** The draft's ledger is in :attr:`PrivateSchema.ledger`;
a fit that uses the drafted values must carry it: :meth:`PrivateSchema.attach` marks a frame with
the draft's release (a learner fitted on it merges the draft's rows: the model's ledger then says
ε_draft + ε_fit), and :meth:`PrivateSchema.estimator_params` gives the values marked ``dp`` with
the draft's release id (:func:`dpmodels.validation.declared`): a fit given them without the draft's
ledger records a leak row. With ``accountant=``, the draft spends from the accountant, and fits
sharing it are charged in the same total.
"""

from __future__ import annotations

import math
import uuid
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ..privacy.accountant import PROVENANCE_ATTR, check_accountant, published_ledger
from ..privacy.ledger import PrivacyLedger, check_delta, check_epsilon
from ..privacy.mechanisms import noisy_histogram, noisy_integer_sums, thresholded_histogram
from ..privacy.samplers import check_random_state

__all__ = ["PrivateSchema", "draft_private_schema", "KINDS"]

KINDS = ("numerical", "categorical", "binary", "drop")
_TRUE = ("1", "true", "yes", "1.0")
_FALSE = ("0", "false", "no", "0.0")
OWNER = "schema draft"


@dataclass
class PrivateSchema:
    """A DP schema draft: the released declarations and the ledger of their release.

    ``kinds`` maps every column to ``numerical`` / ``categorical`` / ``binary`` / ``drop``;
    ``bounds`` and ``categories`` hold the numerical and categorical columns' values; ``classes``
    (or ``label_bounds`` for a regression label) the label's. ``declared`` lists what the caller
    declared (source ``user``); everything else was released here (source ``dp``)."""

    kinds: dict
    bounds: dict
    categories: dict
    classes: list | None
    label_bounds: tuple | None
    ledger: PrivacyLedger
    release_id: str
    declared: set = field(default_factory=set)
    accountant_id: str | None = None

    def source(self, what: str) -> str:
        """``user`` for a declaration the caller gave, ``dp`` for a released value."""
        return "user" if what in self.declared else "dp"

    @property
    def drop(self) -> list:
        """Columns to leave out of the fit (an identifier or free text: no value cleared the threshold)."""
        return [c for c, k in self.kinds.items() if k == "drop"]

    def provenance(self) -> dict:
        """The release record a fitted learner merges (``dpmodels.privacy.accountant``)."""
        return {
            "owner": OWNER,
            "id": self.release_id,
            "accountant": self.accountant_id,
            "ledger": self.ledger.to_dict(),
        }

    def attach(self, X: pd.DataFrame) -> pd.DataFrame:
        """``X`` (a shallow copy) marked with this draft's release: a dpmodels learner fitted on
        it merges the draft's ledger rows into its own (total ε = draft + fit)."""
        if not isinstance(X, pd.DataFrame):
            raise TypeError("attach takes a pandas DataFrame (its attrs carry the draft's ledger)")
        out = X.drop(columns=[c for c in self.drop if c in X.columns])
        carried = [dict(r) for r in (X.attrs.get(PROVENANCE_ATTR) or []) if r.get("id") != self.release_id]
        out.attrs[PROVENANCE_ATTR] = carried + [self.provenance()]
        return out

    def estimator_params(self) -> dict:
        """``classes`` (or ``label_bounds``), ``categories`` and ``bounds`` for a dpmodels
        estimator, each value marked with its source (``dp`` values carry this draft's release id).
        Binary columns are categorical with the values 0 and 1."""
        from ..validation import declared

        def mark(v, what):
            return declared(v, self.source(what), self.release_id)

        cats = {c: mark(list(v), f"column {c}") for c, v in self.categories.items()}
        cats.update({c: mark([0, 1], f"column {c}") for c, k in self.kinds.items() if k == "binary"})
        out: dict = {
            "categories": cats or None,
            "bounds": {c: mark(tuple(v), f"column {c}") for c, v in self.bounds.items()} or None,
        }
        if self.classes is not None:
            out["classes"] = mark(list(self.classes), "classes")
        if self.label_bounds is not None:
            out["label_bounds"] = mark(tuple(self.label_bounds), "label")
        return out


def log_bin_edges(lo: float, hi: float, per_octave: int = 4, smallest: float = 2.0**-10) -> np.ndarray:
    """Public bin edges over ``[lo, hi]``: 0, ±``smallest``·2^(k/per_octave) for k >= 0 (a fixed
    relative resolution at every scale), clipped to the range, with ``lo`` and ``hi`` as the outer
    edges. A function of the declared range only."""
    top = max(abs(lo), abs(hi), smallest)
    k = int(math.ceil(per_octave * math.log2(top / smallest))) + 1
    mags = smallest * 2.0 ** (np.arange(k + 1) / per_octave)
    e = np.concatenate([-mags[::-1], [0.0], mags])
    e = e[(e > lo) & (e < hi)]
    return np.concatenate([[lo], e, [hi]])


def _bin_of(x: np.ndarray, edges: np.ndarray) -> np.ndarray:
    """The bin of each value (clipped to the range): a fixed per-record map."""
    x = np.clip(np.asarray(x, dtype=float), edges[0], edges[-1])
    return np.clip(np.searchsorted(edges, x, side="right") - 1, 0, edges.size - 2)


def bounds_from_noisy_histogram(noisy, edges, epsilon: float, quantiles=(0.01, 0.99), beta: float = 0.1):
    """Bounds read from a noisy histogram (post-processing only): the bins whose noisy count
    clears ``τ = ln(B/β)/ε`` (an empty bin does so with probability at most β over all B bins),
    or the highest bin when none does; then the ``quantiles`` of the kept noisy counts, linear
    within a bin."""
    noisy = np.asarray(noisy, dtype=float)
    tau = math.log(noisy.size / beta) / epsilon
    w = np.where(noisy >= tau, noisy, 0.0)
    if not w.any():
        w = np.zeros_like(noisy)
        w[int(np.argmax(noisy))] = 1.0
    cum = np.cumsum(w) / w.sum()

    def at(level):
        j = int(np.searchsorted(cum, level, side="left"))
        j = min(j, w.size - 1)
        before = cum[j - 1] if j > 0 else 0.0
        frac = 0.0 if w[j] == 0 else (level - before) / (cum[j] - before)
        return float(edges[j] + min(max(frac, 0.0), 1.0) * (edges[j + 1] - edges[j]))

    lo, hi = at(quantiles[0]), at(quantiles[1])
    return (_round_out(lo, math.floor), _round_out(hi, math.ceil))


def _round_out(v: float, how) -> float:
    """``v`` rounded outward to 3 significant digits (readable; post-processing)."""
    if v == 0 or not math.isfinite(v):
        return float(v)
    exp = math.floor(math.log10(abs(v))) - 2
    return float(f"{how(v / 10.0**exp)}e{exp}")  # exact decimal digits, no 7.0200000000000005


def _text(col) -> pd.Series:
    """Cells as stripped text, missing cells as None (they vote 'other' and hold no category)."""
    s = pd.Series(col, copy=False)
    miss = s.isna().to_numpy()
    t = s.astype(str).str.strip()
    return t.mask(miss, None)


def _numbers(col) -> np.ndarray:
    """The finite numbers among a column's cells (a per-record map: other cells are left out)."""
    s = pd.Series(col, copy=False)
    if pd.api.types.is_numeric_dtype(s.dtype) and not pd.api.types.is_bool_dtype(s.dtype):
        x = s.to_numpy(dtype=float)
    else:
        x = pd.to_numeric(_text(s), errors="coerce").to_numpy(dtype=float)
    return x[np.isfinite(x)]


def _value_order(v):
    try:
        x = float(v)
        return (0, x if math.isfinite(x) else 0.0, str(v))
    except (TypeError, ValueError):
        return (1, 0.0, str(v))


def _counts(col) -> dict:
    """``{value: count}`` of a column's non-missing cells (values as given; text cells stripped)."""
    s = pd.Series(col, copy=False)
    if s.dtype == object or pd.api.types.is_string_dtype(s.dtype) or isinstance(s.dtype, pd.CategoricalDtype):
        s = _text(s)
    vc = s.dropna().value_counts(sort=False)
    return {(v.item() if isinstance(v, np.generic) else v): int(c) for v, c in vc.items()}


def _check_draft_args(
    X, y, epsilon, delta, classes, regression, kinds, search_range, bounds_quantiles, kind_share, bins_per_octave
):
    """:func:`draft_private_schema`'s arguments checked, before anything is read: ``(ε, δ, column
    names, declared kinds by name, (lo, hi) of the search range, quantile levels, classes)``."""
    if not isinstance(X, pd.DataFrame):
        raise TypeError("draft_private_schema takes a pandas DataFrame (column names are part of the schema)")
    eps = check_epsilon(epsilon)
    dlt = check_delta(delta)
    names = [str(c) for c in X.columns]
    if len(set(names)) != len(names):
        raise ValueError("X has two columns with the same name")
    kinds = dict(kinds or {})
    for c, k in kinds.items():
        if str(c) not in names:
            raise ValueError(f"kinds: {c!r} is not a column of X")
        if k not in KINDS:
            raise ValueError(f"kinds[{c!r}] must be one of {', '.join(KINDS)}, got {k!r}")
    kinds = {str(c): k for c, k in kinds.items()}
    lo_r, hi_r = (float(v) for v in search_range)
    if not (math.isfinite(lo_r) and math.isfinite(hi_r) and lo_r < hi_r):
        raise ValueError(f"search_range must be finite numbers lo < hi, got {search_range!r}")
    q = tuple(float(v) for v in bounds_quantiles)
    if len(q) != 2 or not (0.0 < q[0] < q[1] < 1.0):
        raise ValueError(f"bounds_quantiles must be two levels 0 < q_lo < q_hi < 1, got {bounds_quantiles!r}")
    if not (0.0 < float(kind_share) < 1.0):
        raise ValueError(f"kind_share must be in (0, 1), got {kind_share!r}")
    if int(bins_per_octave) < 1:
        raise ValueError("bins_per_octave must be >= 1")
    if classes is not None and regression:
        raise ValueError("classes declare a label set; a regression label has bounds instead")
    if classes is not None:
        from ..validation import check_declared_values

        classes = check_declared_values(classes, "classes", min_size=2)
    if y is not None and len(y) != len(X):
        raise ValueError(f"X has {len(X)} rows but y has {len(y)}")
    return eps, dlt, names, kinds, (lo_r, hi_r), q, classes


def _draft_plan(X, y, names, kinds, classes, regression):
    """The public plan of a draft: its releases ``(what, column or "" for the label)`` in order, and
    the columns whose pandas ``category`` dtype declares their categories."""
    parts: list[tuple[str, str]] = []  # (what, column or label)
    label_release = y is not None and classes is None
    if label_release:
        parts.append(("label bounds" if regression else "label set", ""))
    # a pandas category dtype is a declaration (dpmodels.validation): its categories are used, not released
    dtype_declared = {
        c: list(X[X.columns[j]].dtype.categories)
        for j, c in enumerate(names)
        if isinstance(X[X.columns[j]].dtype, pd.CategoricalDtype) and c not in kinds
    }
    for c in names:
        k = kinds.get(c)
        if k in ("binary", "drop") or c in dtype_declared:
            continue
        parts.append((k or "kind", c))
    return parts, dtype_declared


def draft_private_schema(
    X: pd.DataFrame,
    y=None,
    *,
    epsilon: float,
    delta: float,
    classes=None,
    regression: bool = False,
    kinds: dict | None = None,
    search_range: tuple = (-1e6, 1e6),
    bounds_quantiles: tuple = (0.01, 0.99),
    kind_share: float = 0.2,
    bins_per_octave: int = 1,
    accountant=None,
    random_state=None,
) -> PrivateSchema:
    """Release a schema for ``X`` (and the label ``y``) with (ε, δ)-DP (module docstring).

    Parameters
    ----------
    X : DataFrame
        The private table (any dtypes; a CSV read as text works).
    y : array-like, optional
        The label. Its label set (or, with ``regression=True``, its bounds) is released unless
        ``classes`` declares it.
    epsilon, delta : float
        The draft's budget. δ > 0 is required whenever a category list or a label set may be
        released (every column whose kind is not declared, every declared categorical column, an
        undeclared label set).
    classes : list, optional
        The declared label set (then not released).
    kinds : dict, optional
        Declared kinds ``{column: numerical | categorical | binary | drop}``: no vote for them. A
        column with a pandas ``category`` dtype is declared by it (its categories are used, not
        released), as everywhere in dpmodels.
    search_range : (lo, hi)
        The public range searched for numerical bounds (values beyond it are clipped); bins of
        fixed relative width (``bins_per_octave`` per factor 2) cover it.
    bounds_quantiles : (q_lo, q_hi)
        The quantile levels released as a column's bounds.
    kind_share : float
        The share of an undeclared column's ε spent on its kind votes.
    accountant : BudgetAccountant, optional
        Spend from it (fits sharing it are charged in the same total).
    random_state : None, int or Generator
        None draws OS entropy (private); a seed is for reproducible research, not private.
    """
    # ------------------------------------------------------------ checks (nothing read yet)
    eps, dlt, names, kinds, (lo_r, hi_r), q, classes = _check_draft_args(
        X, y, epsilon, delta, classes, regression, kinds, search_range, bounds_quantiles, kind_share, bins_per_octave
    )
    # ------------------------------------------------------------ the plan (public)
    parts, dtype_declared = _draft_plan(X, y, names, kinds, classes, regression)
    hist_parts = sum(1 for what, _ in parts if what in ("label set", "categorical", "kind"))
    if hist_parts and not dlt > 0:
        raise ValueError(
            "a DP category list or label set is a thresholded noisy histogram, which is (ε, δ)-DP only: "
            "pass delta > 0 (well below 1/n, e.g. 1e-6), or declare every column's kind (and the classes)"
        )
    eps_part = eps / max(1, len(parts))
    d_part = dlt / hist_parts if hist_parts else 0.0
    rng = check_random_state(random_state)
    acc = check_accountant(accountant, OWNER)
    ledger = acc.request(eps, dlt, owner=OWNER) if acc is not None else PrivacyLedger(eps, dlt)
    release_id = uuid.uuid4().hex
    edges = log_bin_edges(lo_r, hi_r, int(bins_per_octave))

    def bounds_of(values, e, what):
        counts = np.bincount(_bin_of(values, edges), minlength=edges.size - 1)
        noisy = noisy_histogram(counts, e, rng, ledger=ledger, what=what, parts=counts.size)
        return bounds_from_noisy_histogram(noisy, edges, e, q)

    # ------------------------------------------------------------ releases
    out_kinds: dict = {c: "categorical" for c in dtype_declared}
    bounds: dict = {}
    cats: dict = dict(dtype_declared)
    out_classes, label_bounds = (list(classes) if classes is not None else None), None
    # a column whose kind is declared binary or drop releases nothing; any other column's values are DP
    declared = {f"column {c}" for c, k in kinds.items() if k in ("binary", "drop")} | {
        f"column {c}" for c in dtype_declared
    }
    declared |= {"classes"} if classes is not None else set()
    for what, c in parts:
        if what == "label set":
            keys = thresholded_histogram(_counts(y), eps_part, d_part, rng, ledger=ledger, what="label set (classes)")
            out_classes = sorted(keys, key=_value_order)
            continue
        if what == "label bounds":
            label_bounds = bounds_of(_numbers(y), eps_part, "label bounds (noisy log-scale histogram)")
            continue
        col = X[X.columns[names.index(c)]]
        kind, e_values = what, eps_part
        if what == "kind":
            e_kind = eps_part * float(kind_share)
            e_values = eps_part - e_kind
            cells = _text(col)
            numeric = int(np.isfinite(pd.to_numeric(cells, errors="coerce").to_numpy(dtype=float)).sum())
            vote = np.array([2 * numeric - len(cells)], dtype=np.int64)  # one record moves it by 1
            noisy = noisy_integer_sums(vote, e_kind, 1, rng, ledger=ledger, what=f"kind of column {c!r} (numeric vote)")
            kind = "numerical" if noisy[0] > 0 else "categorical"
        if kind == "binary":
            out_kinds[c] = "binary"
        elif kind == "numerical":
            out_kinds[c] = "numerical"
            bounds[c] = bounds_of(_numbers(col), e_values, f"bounds of column {c!r} (noisy log-scale histogram)")
        else:
            keys = thresholded_histogram(
                _counts(col), e_values, d_part, rng, ledger=ledger, what=f"categories of column {c!r}"
            )
            if keys:
                out_kinds[c], cats[c] = "categorical", sorted(keys, key=_value_order)
            else:
                out_kinds[c] = "drop"
    for c in names:
        out_kinds.setdefault(c, kinds.get(c, "drop"))
    ledger = published_ledger(ledger)
    if acc is not None:
        acc.ledger.includes_releases.add(release_id)
    return PrivateSchema(
        kinds=out_kinds,
        bounds=bounds,
        categories=cats,
        classes=out_classes,
        label_bounds=label_bounds,
        ledger=ledger,
        release_id=release_id,
        declared=declared,
        accountant_id=None if acc is None else acc.id,
    )
