"""Audits of what a model leaks.

* empirical differential-privacy lower bounds on neighbouring datasets (:mod:`.dp_audit`);
* the probabilistic-reconstruction leak Dist_G of trees and rule lists, paper 003
  (:func:`reconstruction_leak`);
* distributional-overfitting vulnerability V of paper 000 (:func:`vulnerability`; of a regression
  tree, on its loss: :func:`regression_vulnerability`);
* feature-importance preservation I_k of paper 000 (:func:`feature_importance_overlap`);
* membership inference attacks — loss threshold, black-box / shadow models, LiRA, RMIA — with
  low-FPR ROC evaluation (:func:`membership_inference`); ART's attack through
  :func:`dpmodels.audit.art_adapter.art_membership_inference` (optional extra ``[attacks]``);
* poisoning guarantees (:mod:`.poisoning`);
* all of the above on a published model file, as a text verdict, JSON and an HTML page
  (:func:`audit_model`, ``dpmodels audit``).
"""

from ._summary import ESTIMATE_VS_BOUND
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
from .importance import ImportanceOverlap, feature_importance_overlap
from .membership import (
    ATTACKS,
    MembershipInferenceResult,
    evaluate_scores,
    membership_inference,
    membership_inference_suite,
)
from .reconstruction import ReconstructionResult, plot_per_record_cdf, reconstruction_leak
from .regression import regression_vulnerability
from .report import DEFAULT_GRID, ModelAudit, audit_model, default_domains
from .vulnerability import VulnerabilityResult, vulnerability

__all__ = [
    "ATTACKS",
    "ESTIMATE_VS_BOUND",
    "AuditResult",
    "FitError",
    "ImportanceOverlap",
    "MembershipInferenceResult",
    "ModelAudit",
    "ReconstructionResult",
    "VulnerabilityResult",
    "add_one",
    "audit_estimator",
    "audit_model",
    "audit_mechanism",
    "clopper_pearson",
    "default_domains",
    "DEFAULT_GRID",
    "epsilon_lower_bound",
    "evaluate_scores",
    "feature_importance_overlap",
    "max_certifiable_epsilon",
    "membership_inference",
    "membership_inference_suite",
    "plot_per_record_cdf",
    "projected_epsilon_lower_bound",
    "reconstruction_leak",
    "regression_vulnerability",
    "vulnerability",
]
