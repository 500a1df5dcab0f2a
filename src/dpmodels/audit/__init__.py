"""Audits of what a model leaks: empirical differential-privacy lower bounds, and the
probabilistic-reconstruction leak Dist_G of trees and rule lists (paper 003)."""

from .dp_audit import (
    AuditResult,
    FitError,
    add_one,
    audit_estimator,
    audit_mechanism,
    clopper_pearson,
    epsilon_lower_bound,
    max_certifiable_epsilon,
    projected_epsilon_lower_bound,
)
from .reconstruction import ReconstructionResult, plot_per_record_cdf, reconstruction_leak

__all__ = [
    "AuditResult",
    "FitError",
    "ReconstructionResult",
    "add_one",
    "audit_estimator",
    "audit_mechanism",
    "clopper_pearson",
    "epsilon_lower_bound",
    "max_certifiable_epsilon",
    "plot_per_record_cdf",
    "projected_epsilon_lower_bound",
    "reconstruction_leak",
]
