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
because the user gave none). They cost no ε but mark the ledger as not satisfying its budget; the
learner also emits a :class:`PrivacyLeakWarning`.
"""

from __future__ import annotations

import math
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
]

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

    def __post_init__(self):
        self.epsilon = check_epsilon(self.epsilon)
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
        return [r for r in self.rows if r.composition == "leak"]

    @property
    def is_private(self) -> bool:
        """True when every access is accounted within budget and nothing leaked."""
        return not self.leaks and self._within(self.epsilon_spent, self.delta_spent)

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
    ) -> LedgerRow:
        """Record an access *before* it is released; raise if the budget would be exceeded."""
        if composition not in ("sequential", "parallel"):
            raise ValueError(f"composition must be 'sequential' or 'parallel', got {composition!r}")
        eps = check_epsilon(epsilon, "epsilon of a ledger row")
        d = float(delta)
        if not (0.0 <= d < 1.0):
            raise ValueError(f"delta of a ledger row must be in [0, 1), got {delta!r}")
        if int(parts) < 1:
            raise ValueError("parts must be >= 1")
        new_eps = self.epsilon_spent + eps
        new_delta = self.delta_spent + d
        if not self._within(new_eps, new_delta):
            raise BudgetExceededError(
                f"{what!r} via {mechanism} asks for (ε={eps:.6g}, δ={d:.3g}) but only "
                f"(ε={self.epsilon_remaining:.6g}, δ={self.delta_remaining:.3g}) of the budget "
                f"(ε={self.epsilon:.6g}, δ={self.delta:.3g}) is left"
            )
        row = LedgerRow(what, mechanism, eps, d, sensitivity, composition, int(parts), note)
        self.rows.append(row)
        return row

    def record_leak(self, what: str, note: str = "", *, warn: bool = True) -> LedgerRow:
        """Record a non-private access (a public input read from the data) and warn."""
        row = LedgerRow(what, "none (read from the data)", 0.0, 0.0, None, "leak", 1, note)
        self.rows.append(row)
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
    def summary(self) -> str:
        """A readable table of every access and the totals against the budget."""
        wwhat = min(44, max([4] + [len(r.what) for r in self.rows]))
        wmech = max([9] + [len(r.mechanism) for r in self.rows])
        head = f"{'#':>3}  {'what':<{wwhat}} {'mechanism':<{wmech}} {'Δ':>7} {'ε':>9} {'δ':>9}  composition"
        lines = [f"Privacy ledger — budget ε={self.epsilon:g}, δ={self.delta:g}", head, "-" * len(head)]
        for i, r in enumerate(self.rows, 1):
            sens = "-" if r.sensitivity is None else f"{r.sensitivity:.3g}"
            comp = r.composition if r.composition != "parallel" else f"parallel ×{r.parts}"
            what = r.what if len(r.what) <= wwhat else r.what[: wwhat - 3] + "..."
            lines.append(
                f"{i:>3}  {what:<{wwhat}} {r.mechanism:<{wmech}} {sens:>7} {r.epsilon:>9.4g} {r.delta:>9.3g}  {comp}"
            )
        lines.append("-" * len(head))
        lines.append(
            f"     total spent: ε={self.epsilon_spent:.6g} of {self.epsilon:g}, "
            f"δ={self.delta_spent:.3g} of {self.delta:g}"
        )
        if self.leaks:
            lines.append(
                f"     WARNING: {len(self.leaks)} non-private access(es): "
                + "; ".join(r.what for r in self.leaks)
            )
        return "\n".join(lines)

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
        led = cls(d["epsilon"], d.get("delta", 0.0))
        led.rows = [LedgerRow(**r) for r in d.get("rows", [])]
        return led


def charge(ledger: PrivacyLedger | None, what: str, mechanism: str, epsilon: float, delta: float = 0.0,
           *, sensitivity: float | None = None, parts: int = 1, note: str = "") -> None:
    """Record a mechanism's access in ``ledger`` (if any) before it draws noise.

    ``parts > 1``: the mechanism ran on that many disjoint subsets (parallel composition).
    Shared by every mechanism in :mod:`dpmodels.privacy`, so rows are recorded one way.
    """
    if ledger is not None:
        comp = "parallel" if parts > 1 else "sequential"
        ledger.spend(what, mechanism, epsilon, delta, sensitivity=sensitivity, composition=comp,
                     parts=parts, note=note)
