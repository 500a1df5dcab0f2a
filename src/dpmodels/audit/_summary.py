"""The numbers of an audit result with a sentence that reads them: ``str(result.summary())``.

:class:`Summary` is a ``dict`` (the numbers, as ``MembershipInferenceResult.summary()`` has always
returned them) whose ``str`` is the sentence, so ``print(res.summary())`` reads as words and
``res.summary()["auc"]`` still works.
"""

from __future__ import annotations

import math

__all__ = ["Summary", "ESTIMATE_VS_BOUND", "pct", "num"]

# One sentence on the two ε numbers of a membership audit (docs/attacks.md, "Estimate and bound").
ESTIMATE_VS_BOUND = (
    "The ε lower bound is a one-sided Clopper–Pearson bound at the stated confidence: were the "
    "model ε'-DP for any ε' below it, results this extreme would occur with probability below "
    "alpha (each audited record counted as an independent trial); the ε estimate ln(TPR/FPR) at "
    "1 % FPR is a point value with no confidence attached, read at another threshold, so it can "
    "lie above or below the bound and says little on a few hundred records."
)


class Summary(dict):
    """A result's numbers (a dict) whose ``str()`` is one sentence in words."""

    def __init__(self, numbers: dict, text: str):
        super().__init__(numbers)
        self.text = text

    def __str__(self) -> str:
        return self.text


def num(v, digits: int = 3) -> str:
    """``v`` at ``digits`` significant digits; "n/a" for None or NaN."""
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "n/a"
    return f"{float(v):.{digits}g}"


def pct(v) -> str:
    """A rate in [0, 1] as a percentage with 2 significant digits ("1.3 %")."""
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "n/a"
    p = 100.0 * float(v)
    return f"{p:.2g} %" if p < 10 else f"{p:.0f} %"
