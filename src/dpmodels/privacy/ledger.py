"""Privacy ledger: the budget (ε, δ) of one private fit and every data access made against it.

Each row records one release computed from the private data: what was released, by which
mechanism, with which sensitivity and which share (ε, δ) of the budget, and how the row composes
with the others:

* ``"sequential"``: the row's (ε, δ) add to the totals (basic sequential composition).
* ``"parallel"``: the mechanism ran at (ε, δ) on each of ``parts`` *disjoint* subsets of the data
  (e.g. the leaves of a tree, the rules of a rule list); by parallel composition the row costs
  (ε, δ) once, whatever ``parts`` is.

A learner asks the ledger *before* releasing anything (:meth:`PrivacyLedger.spend`): a request
that would push the totals over the budget raises :class:`BudgetExceededError`, so an over-budget
fit fails before any noisy value exists.

Rows with ``composition="leak"`` record a *non-private* access (e.g. bounds read from the data
because the user gave none). They cost no ε but mark the ledger as not private; the learner also
emits a :class:`PrivacyLeakWarning`.

**Guarantee of each row** (``LedgerRow.guarantee``), so that the ledger is honest about *why* a
release is private (docs/privacy.md, principle 17):

* ``"proven"`` — a mechanism with a standard proof (written in ``docs/privacy.md``) at the recorded
  (ε, δ) and sensitivity.
* ``"claimed"`` — a published construction whose accounting is the authors' claim, not a proven
  theorem (e.g. paper 000's noisy argmin over smooth-sensitivity-noised scores, docs/privacy.md, principle 4).
* ``"none"`` — not a DP release: leak rows, and releases such as the paper's confidence gate that
  hold only "with confidence C". Their ε is still charged against the budget.

:attr:`PrivacyLedger.is_private` is True only when **every** row is ``"proven"`` and the totals are
within the budget; :meth:`PrivacyLedger.summary` says in words why a ledger is not private. That is
the rows' part of the verdict: whether a *fitted object* (an estimator, a pipeline, a search, a
loaded model) is private also depends on its seeds and on its parts without a ledger, and is
decided by :func:`dpmodels.privacy.verdict.verdict` only.
"""

from __future__ import annotations

import math
import numbers
import warnings
from dataclasses import asdict, dataclass, field

__all__ = [
    "BudgetExceededError",
    "PrivacyLeakWarning",
    "LedgerRow",
    "PrivacyLedger",
    "check_epsilon",
    "check_delta",
    "charge",
    "GUARANTEES",
]

GUARANTEES = ("proven", "claimed", "none")

# Relative slack for float round-off when shares of the budget are summed back up.
_REL_TOL = 1e-9


class BudgetExceededError(RuntimeError):
    """A private computation asked for more (ε, δ) than the ledger's budget has left."""


class PrivacyLeakWarning(UserWarning):
    """A quantity that should be public was read from the private data (diffprivlib's convention)."""


def check_epsilon(epsilon, name: str = "epsilon") -> float:
    """Validate a privacy parameter ε: a finite real number > 0."""
    try:
        eps = float(epsilon)
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be a real number, got {epsilon!r}") from None
    if not math.isfinite(eps) or eps <= 0:
        raise ValueError(f"{name} must be finite and > 0, got {epsilon!r}")
    return eps


def check_delta(delta, name: str = "delta") -> float:
    """Validate a privacy parameter δ in [0, 1)."""
    try:
        d = float(delta)
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be a real number in [0, 1), got {delta!r}") from None
    if not (0.0 <= d < 1.0):
        raise ValueError(f"{name} must be in [0, 1), got {delta!r}")
    return d


@dataclass(frozen=True)
class LedgerRow:
    """One data access. ``epsilon``/``delta`` are what the row costs under its composition."""

    what: str
    mechanism: str
    epsilon: float
    delta: float = 0.0
    sensitivity: float | None = None
    composition: str = "sequential"  # "sequential" | "parallel" | "leak"
    parts: int = 1
    note: str = ""
    guarantee: str = "proven"  # "proven" | "claimed" | "none" (module docstring)

    def __post_init__(self):
        if self.guarantee not in GUARANTEES:
            raise ValueError(f"guarantee must be one of {GUARANTEES}, got {self.guarantee!r}")
        if self.composition == "leak" and self.guarantee != "none":
            raise ValueError("a leak row cannot carry a DP guarantee")


@dataclass
class PrivacyLedger:
    """Budget (ε, δ) and the accesses made against it.

    >>> led = PrivacyLedger(1.0)
    >>> _ = led.spend("rule 1", "permute-and-flip", 0.5, sensitivity=2.0)
    >>> round(led.epsilon_spent, 3), round(led.epsilon_remaining, 3)
    (0.5, 0.5)
    """

    epsilon: float
    delta: float = 0.0
    rows: list[LedgerRow] = field(default_factory=list)
    # provenance of carried releases (dpmodels.privacy.accountant): a Binarizer's ledger has the id
    # of its release; a learner's ledger that merged such releases lists their ids, so a pipeline's
    # totals count each release once (dpmodels.io, dpmodels.export)
    release_id: str | None = field(default=None, repr=False, compare=False)
    includes_releases: set = field(default_factory=set, repr=False, compare=False)

    def __post_init__(self):
        # A budget of 0 is allowed: the ledger of a step that releases nothing (a transform with
        # public cut points); it refuses every request, and leak rows still make it not private.
        self.epsilon = 0.0 if _is_zero(self.epsilon) else check_epsilon(self.epsilon)
        self.delta = check_delta(self.delta)

    # ----------------------------------------------------------------- totals
    @property
    def epsilon_spent(self) -> float:
        return math.fsum(r.epsilon for r in self.rows if r.composition != "leak")

    @property
    def delta_spent(self) -> float:
        return math.fsum(r.delta for r in self.rows if r.composition != "leak")

    @property
    def epsilon_remaining(self) -> float:
        return max(0.0, self.epsilon - self.epsilon_spent)

    @property
    def delta_remaining(self) -> float:
        return max(0.0, self.delta - self.delta_spent)

    @property
    def leaks(self) -> list[LedgerRow]:
        """Non-private accesses: public inputs read from the data."""
        return [r for r in self.rows if r.composition == "leak"]

    @property
    def claimed(self) -> list[LedgerRow]:
        """Releases whose privacy rests on a published claim, not on a proven theorem."""
        return [r for r in self.rows if r.guarantee == "claimed"]

    @property
    def not_dp(self) -> list[LedgerRow]:
        """Charged releases that are not DP (e.g. the paper's confidence gate); leaks excluded."""
        return [r for r in self.rows if r.guarantee == "none" and r.composition != "leak"]

    @property
    def is_private(self) -> bool:
        """True only when every row is a *proven* DP release and the totals are within budget."""
        return all(r.guarantee == "proven" for r in self.rows) and self._within(self.epsilon_spent, self.delta_spent)

    def _within(self, eps: float, delta: float) -> bool:
        return eps <= self.epsilon * (1 + _REL_TOL) and delta <= self.delta * (1 + _REL_TOL) + 1e-300

    # --------------------------------------------------------------- requests
    def spend(
        self,
        what: str,
        mechanism: str,
        epsilon: float,
        delta: float = 0.0,
        *,
        sensitivity: float | None = None,
        composition: str = "sequential",
        parts: int = 1,
        note: str = "",
        guarantee: str = "proven",
    ) -> LedgerRow:
        """Record an access *before* it is released; raise if the budget would be exceeded.

        ``guarantee``: ``"proven"`` (default), ``"claimed"`` or ``"none"`` (module docstring).
        """
        if composition not in ("sequential", "parallel"):
            raise ValueError(f"composition must be 'sequential' or 'parallel', got {composition!r}")
        if guarantee not in GUARANTEES:
            raise ValueError(f"guarantee must be one of {GUARANTEES}, got {guarantee!r}")
        eps = check_epsilon(epsilon, "epsilon of a ledger row")
        d = float(delta)
        if not (0.0 <= d < 1.0):
            raise ValueError(f"delta of a ledger row must be in [0, 1), got {delta!r}")
        if int(parts) < 1:
            raise ValueError("parts must be >= 1")
        row = LedgerRow(what, mechanism, eps, d, sensitivity, composition, int(parts), note, guarantee)
        self._admit(row)
        self._append(row)
        return row

    def _admit(self, row: LedgerRow) -> None:
        """Raise :class:`BudgetExceededError` if ``row`` does not fit in what is left."""
        if not self._within(self.epsilon_spent + row.epsilon, self.delta_spent + row.delta):
            raise BudgetExceededError(
                f"{row.what!r} via {row.mechanism} asks for (ε={row.epsilon:.6g}, δ={row.delta:.3g}) "
                f"but only (ε={self.epsilon_remaining:.6g}, δ={self.delta_remaining:.3g}) of the "
                f"budget (ε={self.epsilon:.6g}, δ={self.delta:.3g}) is left"
            )

    def _append(self, row: LedgerRow) -> None:
        """Record an admitted row (a shared ledger also records it in its parent)."""
        self.rows.append(row)

    def record_leak(self, what: str, note: str = "", *, warn: bool = True) -> LedgerRow:
        """Record a non-private access (a public input read from the data) and warn."""
        row = LedgerRow(what, "none (read from the data)", 0.0, 0.0, None, "leak", 1, note, "none")
        self._append(row)
        if warn:
            warnings.warn(
                f"{what} read from the private data: the result is not differentially private "
                f"with respect to it. {note}".strip(),
                PrivacyLeakWarning,
                stacklevel=3,
            )
        return row

    def check(self) -> None:
        """Raise if the recorded totals exceed the budget (a final check before fit returns)."""
        if not self._within(self.epsilon_spent, self.delta_spent):
            raise BudgetExceededError(
                f"ledger totals (ε={self.epsilon_spent:.6g}, δ={self.delta_spent:.3g}) exceed the "
                f"budget (ε={self.epsilon:.6g}, δ={self.delta:.3g})"
            )

    # ----------------------------------------------------------------- output
    def summary(self, verdict=None) -> str:
        """A readable table of every access, the totals, and whether (and why not) it is private.

        ``verdict``: the :class:`~dpmodels.privacy.verdict.Verdict` of the fitted object this ledger
        belongs to (its seeds and parts count too: :func:`dpmodels.privacy.verdict.verdict`); by
        default the ledger's own rows decide.

        The ``what`` column is at most 64 characters wide; a longer description wraps onto
        continuation lines (never cut), so the table shows everything the ledger holds."""
        import textwrap

        wwhat = min(64, max([4] + [len(r.what) for r in self.rows]))  # room for "Owner: " prefixes
        wmech = max([9] + [len(r.mechanism) for r in self.rows])
        head = (
            f"{'#':>3}  {'what':<{wwhat}} {'mechanism':<{wmech}} {'Δ':>7} {'ε':>9} {'δ':>9}  "
            f"{'guarantee':<9}  composition"
        )
        lines = [f"Privacy ledger — budget ε={self.epsilon:g}, δ={self.delta:g}", head, "-" * len(head)]
        for i, r in enumerate(self.rows, 1):
            sens = "-" if r.sensitivity is None else f"{r.sensitivity:.3g}"
            comp = r.composition if r.composition != "parallel" else f"parallel ×{r.parts}"
            what = textwrap.wrap(r.what, wwhat, break_long_words=True, break_on_hyphens=False) or [""]
            lines.append(
                f"{i:>3}  {what[0]:<{wwhat}} {r.mechanism:<{wmech}} {sens:>7} {r.epsilon:>9.4g} "
                f"{r.delta:>9.3g}  {r.guarantee:<9}  {comp}"
            )
            lines.extend(f"{'':>3}    {more}" for more in what[1:])
        lines.append("-" * len(head))
        lines.append(
            f"     total spent: ε={self.epsilon_spent:.6g} of {self.epsilon:g}, "
            f"δ={self.delta_spent:.3g} of {self.delta:g}"
        )
        lines.extend("     " + v for v in (self.verdict() if verdict is None else verdict.reasons))
        return "\n".join(lines)

    def verdict(self) -> list[str]:
        """Why the ledger is (not) private, in words: one line per reason."""
        if self.is_private and not self.rows:
            return ["PRIVATE: nothing was released from the data."]
        if self.is_private:
            return [
                f"PRIVATE: every release is a proven DP mechanism and the totals are within "
                f"(ε={self.epsilon:g}, δ={self.delta:g})."
            ]
        out = []
        if not self._within(self.epsilon_spent, self.delta_spent):
            out.append("NOT PRIVATE: the totals exceed the budget.")
        if self.claimed:
            out.append(
                f"NOT PROVEN PRIVATE: {len(self.claimed)} release(s) rest on a published claim, "
                "not on a proven theorem: " + "; ".join(r.what for r in self.claimed)
            )
        if self.not_dp:
            out.append(
                f"NOT PRIVATE: {len(self.not_dp)} release(s) are not DP releases: "
                + "; ".join(f"{r.what} ({r.note})" if r.note else r.what for r in self.not_dp)
            )
        selections = [r for r in self.leaks if r.mechanism.startswith("selection among fits")]
        reads = [r for r in self.leaks if r not in selections]
        if selections:
            out.append(
                "NOT PRIVATE as one model: more than one fit under one accountant ("
                + "; ".join(r.what for r in selections)
                + "): the totals cover publishing every fit; choosing among them is not a DP release."
            )
        if reads:
            out.append(
                f"NOT PRIVATE: {len(reads)} non-private access(es), read from the data: "
                + "; ".join(r.what for r in reads)
            )
        return out

    def __str__(self) -> str:
        return self.summary()

    def to_dict(self) -> dict:
        return {
            "epsilon": self.epsilon,
            "delta": self.delta,
            "epsilon_spent": self.epsilon_spent,
            "delta_spent": self.delta_spent,
            "rows": [asdict(r) for r in self.rows],
        }

    @classmethod
    def from_dict(cls, d: dict) -> "PrivacyLedger":
        """Inverse of :meth:`to_dict`.

        Dicts written before rows carried a ``guarantee`` get one from what this library recorded
        then: leak rows ``"none"``; the paper's confidence gate (its note says "NOT a DP
        guarantee") ``"none"``; the smooth-sensitivity selections (mechanism "smooth-sens. …")
        ``"claimed"``; every other row ``"proven"``.
        """
        led = cls(d["epsilon"], d.get("delta", 0.0))
        rows = []
        for r in d.get("rows", []):
            r = dict(r)
            if "guarantee" not in r:
                r["guarantee"] = _legacy_guarantee(r)
            if r["guarantee"] not in GUARANTEES:
                raise ValueError(f"unknown guarantee {r['guarantee']!r} in a ledger row")
            rows.append(LedgerRow(**r))
        led.rows = rows
        return led


def _is_zero(v) -> bool:
    return isinstance(v, numbers.Real) and not isinstance(v, bool) and v == 0


def _legacy_guarantee(r: dict) -> str:
    if r.get("composition") == "leak" or "NOT a DP guarantee" in str(r.get("note", "")):
        return "none"
    if str(r.get("mechanism", "")).startswith("smooth-sens."):
        return "claimed"
    return "proven"


def charge(
    ledger: PrivacyLedger | None,
    what: str,
    mechanism: str,
    epsilon: float,
    delta: float = 0.0,
    *,
    sensitivity: float | None = None,
    parts: int = 1,
    note: str = "",
    guarantee: str = "proven",
) -> None:
    """Record a mechanism's access in ``ledger`` (if any) before it draws noise.

    ``parts > 1``: the mechanism ran on that many disjoint subsets (parallel composition).
    Shared by every mechanism in :mod:`dpmodels.privacy`, so rows are recorded one way.
    """
    if ledger is not None:
        comp = "parallel" if parts > 1 else "sequential"
        ledger.spend(
            what,
            mechanism,
            epsilon,
            delta,
            sensitivity=sensitivity,
            composition=comp,
            parts=parts,
            note=note,
            guarantee=guarantee,
        )
