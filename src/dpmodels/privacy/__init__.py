"""Privacy core: budget ledger, vectorised samplers, private selection, smooth sensitivity."""

from .accountant import BudgetAccountant, LedgerShare
from .ledger import (
    BudgetExceededError,
    LedgerRow,
    PrivacyLeakWarning,
    PrivacyLedger,
    charge,
    check_delta,
    check_epsilon,
)
from .quantiles import jointexp_quantiles
from .samplers import (
    check_random_state,
    discrete_laplace,
    exponential,
    gaussian,
    gumbel,
    heavy_tailed,
    laplace,
)
from .selection import exponential_mechanism, permute_and_flip, report_noisy_max, select_rows
from .smooth import (
    gini_local_sensitivity,
    gini_smooth_sensitivity,
    gini_smooth_sensitivity_bruteforce,
)

__all__ = [
    "BudgetAccountant",
    "LedgerShare",
    "charge",
    "jointexp_quantiles",
    "BudgetExceededError",
    "LedgerRow",
    "PrivacyLeakWarning",
    "PrivacyLedger",
    "check_delta",
    "check_epsilon",
    "check_random_state",
    "discrete_laplace",
    "exponential",
    "gaussian",
    "gumbel",
    "heavy_tailed",
    "laplace",
    "exponential_mechanism",
    "permute_and_flip",
    "report_noisy_max",
    "select_rows",
    "gini_local_sensitivity",
    "gini_smooth_sensitivity",
    "gini_smooth_sensitivity_bruteforce",
]
