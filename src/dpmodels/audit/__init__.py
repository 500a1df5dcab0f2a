"""Audits of what a model leaks: empirical differential-privacy lower bounds."""

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

__all__ = [
    "AuditResult",
    "FitError",
    "add_one",
    "audit_estimator",
    "audit_mechanism",
    "clopper_pearson",
    "epsilon_lower_bound",
    "max_certifiable_epsilon",
    "projected_epsilon_lower_bound",
]
