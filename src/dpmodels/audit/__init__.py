"""Audits of what a model leaks.

* empirical differential-privacy lower bounds on neighbouring datasets (:mod:`.dp_audit`);
* distributional-overfitting vulnerability V of paper 000 (:func:`vulnerability`);
* feature-importance preservation I_k of paper 000 (:func:`feature_importance_overlap`);
* membership inference attacks — loss threshold, black-box / shadow models, LiRA, RMIA — with
  low-FPR ROC evaluation (:func:`membership_inference`); ART's attack through
  :func:`dpmodels.audit.art_adapter.art_membership_inference` (optional extra ``[attacks]``);
* poisoning guarantees (:mod:`.poisoning`).
"""

from .dp_audit import (
    AuditResult,
    add_one,
    audit_estimator,
    audit_mechanism,
    clopper_pearson,
    epsilon_lower_bound,
    max_certifiable_epsilon,
    projected_epsilon_lower_bound,
)
from .importance import ImportanceOverlap, feature_importance_overlap
from .membership import (
    ATTACKS,
    MembershipInferenceResult,
    evaluate_scores,
    membership_inference,
    membership_inference_suite,
)
from .vulnerability import VulnerabilityResult, vulnerability

__all__ = [
    "ATTACKS",
    "AuditResult",
    "ImportanceOverlap",
    "MembershipInferenceResult",
    "VulnerabilityResult",
    "add_one",
    "audit_estimator",
    "audit_mechanism",
    "clopper_pearson",
    "epsilon_lower_bound",
    "evaluate_scores",
    "feature_importance_overlap",
    "max_certifiable_epsilon",
    "membership_inference",
    "membership_inference_suite",
    "projected_epsilon_lower_bound",
    "vulnerability",
]
