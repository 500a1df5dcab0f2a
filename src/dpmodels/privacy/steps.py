"""The private-step protocol: how an estimator or a transformer takes part in a checked fit.

A fit that spends a privacy budget checks everything it can before its first release
(:mod:`dpmodels.pipeline`, the command line, :class:`~dpmodels.model_selection.PrivateSearch`). A
step takes part through up to three methods, each optional and each declared here once; callers
ask ``isinstance(step, ParamCheck)`` (and so on), never for a method by name.

- :class:`ParamCheck` — ``_check_params()``: the step's own parameter checks. Reads no data,
  spends nothing; raises a ``ValueError`` with one line on a bad value.
- :class:`SpendCheck` — ``_validate_before_spend(X, y)``: every check of ``fit`` that needs no
  release (parameters, labels against the declared label set, size guards over the columns).
  ``X`` may be an empty frame describing the columns an earlier step will produce, or None when
  they are unknown. A transformer returns an empty frame describing its output; an estimator
  returns None.
- :class:`BudgetRequest` — ``_budget_request()``: ``(accountant, ε, δ)``, what the fit will take
  from ``accountant`` (None: a budget of its own), so that a pipeline adds up its steps' shares
  before any of them spends.
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

__all__ = ["ParamCheck", "SpendCheck", "BudgetRequest"]


@runtime_checkable
class ParamCheck(Protocol):
    """A step whose parameters can be checked before anything is read."""

    def _check_params(self) -> Any:
        """Check the parameters (no data read, nothing spent); one-line ``ValueError`` if bad."""
        ...


@runtime_checkable
class SpendCheck(Protocol):
    """A step whose fit can be checked, on the declared columns and labels, before it spends."""

    def _validate_before_spend(self, X, y) -> Any:
        """Raise on any problem a fit on ``(X, y)`` would meet before its first release; return an
        empty frame describing the output (a transformer) or None."""
        ...


@runtime_checkable
class BudgetRequest(Protocol):
    """A step that spends from a budget."""

    def _budget_request(self) -> tuple[Any, float, float]:
        """``(accountant or None, ε, δ)`` the fit will take (parameters checked, no data read)."""
        ...
