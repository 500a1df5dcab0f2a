"""How models print: one set of conventions for rule lists and trees.

* **Counts** are labelled by class, with thousands separators (:func:`count_text`; thresholds,
  which are values to compare with, print without): printed models show a samples column
  ``n≈1,312``, right-aligned over the leaves or rules, then ``[no 1,201, yes 111]``; a picture's
  box ``[n≈1,312: no 1,201, yes 111]`` (:func:`count_cell`). ``≈`` marks noisy counts
  released by a DP mechanism, ``=`` exact counts. A noisy count below 0 is shown as ``0*``
  (clipping is post-processing; the raw values stay in the model and in its JSON) and a legend
  line says so. A noisy leaf or rule whose clipped counts are all 0 prints ``no records (noise)``.
* **P and ids**: every leaf / rule shows ``P=64%``, what ``predict_proba`` returns for its records
  (the shrunk share of :func:`shrunk_proba`, not the raw count share), and its id (``leaf 15``,
  ``rule 2``), what ``apply`` returns. Models print as fitted by default; the merged displays
  (``prune=True`` / ``merge=True``) show the ids a merged row holds and the range of their P.
* **Header**: the learner, its privacy status (ε, δ and the ledger's verdict), n (the noisy total
  for DP models: the sum of the released counts), and the label set.
* **Numbers** (thresholds) print with a few significant digits; where that rounds a value, a
  legend line says so and where the exact value is. On a column declared integer-valued
  (:func:`declared_integer_features`) a threshold t prints as ⌊t⌋: the same test on integers.
* **Comparisons** are written ``<=`` and ``>`` in every model and picture (scikit-learn's
  ``export_text``): a tree's left branch is ``x <= t``, its right ``x >  t``; a rule list's
  binarized column ``age<=37.5`` and its negation ``age>37.5``; an additive model's bins
  ``<= 37.5``, ``(37.5, 45]``, ``> 45``. (A bundled dataset's own column names, such as COMPAS's
  ``Age>=40``, print as the dataset spells them.)
* **Rule lists** print one row per rule and one line saying how they are read
  (:data:`RULE_LIST_READING`; their pictures too).
* **Negations** of a one-comparison column name print as the opposite comparison (``age>37.5``,
  ``sex≠Male``; :func:`dpmodels.data.rules.literal_name`); category sets on a tree path are
  intersected with what the path leaves, and a set longer than ``max_listed`` prints as a count
  (``zip in {2,493 of 5,000 listed}``; the values are in ``get_rules()`` and the JSON).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

__all__ = [
    "py_scalar",
    "round_count",
    "count_text",
    "count_cell",
    "significant",
    "privacy_status",
    "model_header",
    "learner_title",
    "estimator_header",
    "NOISY_LEGEND",
    "RULE_LIST_READING",
    "shrunk_proba",
    "declared_integer_features",
]

RULE_LIST_READING = "# read top to bottom: the first rule whose condition holds decides (ELSE: none holds)"
NOISY_LEGEND = "*: a noisy count below 0, shown as 0 (post-processing; the raw value is kept in the model)"


def py_scalar(v):
    """Numpy scalar -> Python scalar (JSON, printing)."""
    return v.item() if isinstance(v, np.generic) else v


def round_count(x):
    """A count as printed: an int when it is integral (noisy counts of this library are)."""
    x = float(x)
    if math.isnan(x):
        return x
    return int(x) if x.is_integer() else round(x, 2)


def count_text(x) -> str:
    """A count as printed, with thousands separators: ``6,318``, ``0``, ``1,234.5`` (a
    non-integral count, e.g. a weighted one, keeps two decimals at most)."""
    v = round_count(x)
    if isinstance(v, float) and math.isnan(v):
        return "nan"
    return f"{v:,}"


def count_parts(counts, classes, *, noisy: bool, predicted: int | None = None) -> tuple[str, str, bool]:
    """``("n≈312", "no 201 (64%), yes 111", clipped)``: the samples column and the per-class
    counts of :func:`count_cell`, for layouts that align them in columns (rule lists)."""
    c = np.asarray(counts, dtype=float)
    eq = "≈" if noisy else "="
    shown, clipped = [], False
    for x in c:
        x = 0.0 if math.isnan(x) else float(x)
        mark = ""
        if x < 0 and noisy:  # exact counts are never negative; shown as they are if they are
            x, mark, clipped = 0.0, "*", True
        shown.append((round_count(x), mark))
    total = sum(v for v, _ in shown)
    parts = []
    for k, (cls, (v, mark)) in enumerate(zip(classes, shown)):
        s = f"{cls} {count_text(v)}{mark}"
        if predicted is not None and k == predicted and total > 0:
            s += f" ({100.0 * v / total:.0f}%)"
        parts.append(s)
    return f"n{eq}{count_text(total)}", ", ".join(parts), clipped


def count_cell(counts, classes, *, noisy: bool, predicted: int | None = None) -> tuple[str, bool]:
    """``[n≈1,312: no 1,201 (92%), yes 111]`` and whether a negative noisy count was clipped.

    ``counts``: one (raw) count per class; ``predicted``: index of the predicted class, whose share
    of the (clipped) total is shown. NaN counts (nothing released) give ``(counts not released)``.
    """
    c = np.asarray(counts, dtype=float)
    if c.size and np.all(np.isnan(c)):
        return "(counts not released)", False
    n, per_class, clipped = count_parts(c, classes, noisy=noisy, predicted=predicted)
    return f"[{n}: {per_class}]", clipped


def significant(x: float, digits: int = 4) -> str:
    """``x`` with at most ``digits`` significant digits, positional, trailing zeros trimmed.

    >>> significant(37.49871), significant(1234567.0), significant(0.000123456), significant(2.0)
    ('37.5', '1235000', '0.0001235', '2')
    """
    x = float(x)
    if not math.isfinite(x):
        return repr(x)
    if x == 0:
        return "0"
    if not 1e-4 <= abs(x) < 1e9:
        return f"{x:.{digits}g}"
    return np.format_float_positional(x, precision=digits, unique=True, fractional=False, trim="-")


def privacy_status(ledger, *, private_learner: bool, seeded: bool = False) -> str:
    """One phrase: ``ε=1, δ=0 · proven DP`` / ``ε=1 · NOT PRIVATE (1 leak: …)`` / ``not private``."""
    if ledger is None:
        return "not private (no DP guarantee)" if not private_learner else "privacy unknown (no ledger)"
    from .privacy.verdict import verdict_from

    eps = f"ε={ledger.epsilon:g}" + (f", δ={ledger.delta:g}" if ledger.delta else ", δ=0")
    if verdict_from(ledger).is_private:  # its rows; the seed is stated below
        status = "proven DP"
    else:
        why = []
        if ledger.leaks:
            what = "; ".join(r.what for r in ledger.leaks)
            why.append(f"{len(ledger.leaks)} leak{'s' if len(ledger.leaks) > 1 else ''}: {what}")
        if ledger.claimed:
            why.append(f"{len(ledger.claimed)} release(s) only claimed DP")
        if ledger.not_dp:
            why.append(f"{len(ledger.not_dp)} release(s) not DP")
        if not why:
            why.append("totals exceed the budget")
        status = "NOT PRIVATE (" + "; ".join(why) + ")"
    if seeded:
        status += " · noise seeded: not private against whoever knows the seed"
    return f"{eps} · {status}"


def model_header(learner: str | None, *, status: str | None, n_total, noisy: bool, classes, notes=()) -> list[str]:
    """Header lines: the learner; ``privacy: <status>``; n and the label set; then notes."""
    lines = [learner or "model"]
    if status:
        lines.append("privacy: " + status)
    if n_total is None or (isinstance(n_total, float) and math.isnan(n_total)):
        n = "n: not released"
    else:
        n = f"n{'≈' if noisy else '='}{count_text(n_total)}" + (" (noisy total)" if noisy else "")
    lines.append(f"{n} · classes: " + ", ".join(str(py_scalar(c)) for c in classes))
    return [*lines, *notes]


def learner_title(name: str, params: dict, keys=()) -> str:
    """``DPRuleListClassifier(mechanism='permute-and-flip', max_rules=5)``: the name and the
    parameters in ``keys`` that are present (the ones that shape the printed model)."""
    shown = [f"{k}={params[k]!r}" for k in keys if k in params and params[k] is not None]
    return f"{name}({', '.join(shown)})"


def estimator_header(est, model, keys=()) -> list[str]:
    """Header lines of a fitted estimator's printed model (learner, privacy status, n, classes)."""
    ledger = getattr(est, "privacy_ledger_", None)
    private = ledger is not None
    params = est.get_params(deep=False)
    seeded = private and params.get("random_state") is not None
    return model_header(
        learner_title(type(est).__name__, params, keys),
        status=privacy_status(ledger, private_learner=private, seeded=seeded),
        n_total=model.n_total,
        noisy=model.counts_are_noisy,
        classes=list(model.classes),
    )


def shrunk_proba(counts, noise_scale=None, prior_rows=None):
    """Class probabilities of every row (a rule, a leaf) from released class counts.

    Negative noisy counts are clipped at 0 (post-processing). With ``noise_scale`` b (the scale
    of the discrete Laplace noise the counts were released with: 1/ε of that release, public),
    each row is shrunk toward the model's overall class share π (the clipped counts of the rows
    ``prior_rows`` — default all — summed and normalised: a function of the released counts only):

        p_k = (c_k + b·π_k) / (n + b),    n = Σ_k c_k (clipped),

    i.e. a pseudo-count of one noise scale: a row whose noisy total is small against the noise
    leans on the model's share, a large row keeps its own. ``noise_scale=None`` (exact counts)
    gives the plain shares; a row with n = 0 then gets the uniform distribution. Rows without
    released counts (all NaN) are returned as NaN for the caller to fill. Chosen by measurement
    (``docs/results.md``, "predict_proba from noisy counts").
    """
    raw = np.asarray(counts, dtype=float)
    c = np.clip(np.nan_to_num(raw, nan=0.0), 0.0, None)
    k = c.shape[1]
    tot = c.sum(axis=1, keepdims=True)
    if noise_scale is not None and float(noise_scale) > 0:
        allc = c[prior_rows].sum(axis=0) if prior_rows is not None else c.sum(axis=0)
        pi = allc / allc.sum() if allc.sum() > 0 else np.full(k, 1.0 / k)
        b = float(noise_scale)
        p = (c + b * pi) / (tot + b)
    else:
        with np.errstate(invalid="ignore", divide="ignore"):
            p = np.where(tot > 0, c / np.where(tot > 0, tot, 1.0), 1.0 / k)
    p[np.all(np.isnan(raw), axis=1)] = np.nan
    return p


def declared_integer_features(bounds) -> list:
    """Names of the features whose declared bounds are a pair of integers, e.g.
    ``bounds={"priors_count": (0, 40)}``: the declaration that the column holds integers, which
    printing uses to write a threshold t as ⌊t⌋ (the same test on integer values). Only a dict of
    per-feature bounds declares it (one global ``(0, 1)`` is not read as a statement about every
    column); write ``(0.0, 70.0)`` for a real-valued column. Printing only: the model and its
    JSON keep the released thresholds."""
    if not isinstance(bounds, dict):
        return []
    out = []
    for name, b in bounds.items():
        try:
            lo, hi = b
        except (TypeError, ValueError):
            continue
        if all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in (lo, hi)):
            out.append(str(name))
    return out


if TYPE_CHECKING:  # the mixin goes before scikit-learn's BaseEstimator, whose reprs it falls back to
    from sklearn.base import BaseEstimator as _ReprBase
else:
    _ReprBase = object


class FittedReprMixin(_ReprBase):
    """Jupyter shows a fitted dpmodels estimator as it prints — the header with its privacy status,
    the model, and its privacy ledger with the one verdict (:mod:`dpmodels.privacy.verdict`) — and an
    unfitted one as scikit-learn does (its parameter diagram). Put it before ``BaseEstimator``."""

    def _fitted_html(self) -> str | None:
        import html

        text = str(self)
        if text == self.__repr__():  # unfitted: __str__ falls back to repr
            return None
        parts = [f"<pre class='dpmodels-model'>{html.escape(text)}</pre>"]
        ledger = getattr(self, "privacy_ledger_", None)
        if ledger is not None:
            from .privacy.verdict import verdict

            parts.append(
                f"<details><summary>Privacy ledger</summary><pre>{html.escape(ledger.summary(verdict=verdict(self)))}</pre></details>"
            )
        return "<div class='dpmodels'>" + "".join(parts) + "</div>"

    @property
    def _repr_html_(self) -> object:
        if self._fitted_html() is None:
            return super()._repr_html_
        return self._fitted_html

    def _repr_mimebundle_(self, **kwargs) -> dict:
        page = self._fitted_html()
        if page is None:
            return super()._repr_mimebundle_(**kwargs)
        return {"text/plain": repr(self), "text/html": page}
