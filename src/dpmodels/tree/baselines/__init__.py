"""Baselines for the private decision trees of paper 002 (PrivaTree, Vos et al.).

* :class:`DPAClassifier` — Deep Partition Aggregation (Levine & Feizi, ICLR 2021): an ensemble of
  non-private scikit-learn trees on *disjoint* partitions of the training set chosen by a
  deterministic hash of each record, predicting by plurality vote, with a per-prediction
  certificate of robustness to poisoning. Not private, not interpretable; it is the certified
  reference of paper 002, Fig. 3.
* :class:`DiffprivlibTreeClassifier`, :class:`DPLogisticRegression` — thin wrappers around
  diffprivlib's random-split ``DecisionTreeClassifier`` and objective-perturbation
  logistic regression (optional extra ``dpmodels[diffprivlib]``; imported lazily).
* :class:`BDPTClassifier`, :class:`DPGDFClassifier` — greedy private trees after Guan et al. (2020)
  and Xin et al. (2019), rebuilt on this project's mechanisms and ledger; see their docstrings for
  what is published and what was inferred.

The non-private reference is scikit-learn's ``DecisionTreeClassifier`` itself.

Modules: :mod:`.dpa`, :mod:`.diffprivlib` (wrappers), :mod:`.bdpt`, :mod:`.dpgdf` and their shared
builder :mod:`._greedy`; :mod:`._encoding` (public integer codes for the matrix-based learners).
"""

from ._encoding import OrdinalEncoder as _OrdinalEncoder  # noqa: F401 (kept for old imports)
from .bdpt import BDPTClassifier
from .diffprivlib import DiffprivlibTreeClassifier, DPLogisticRegression
from .dpa import DPAClassifier, dpa_certificates
from .dpgdf import DPGDFClassifier

__all__ = [
    "DPAClassifier",
    "dpa_certificates",
    "DiffprivlibTreeClassifier",
    "DPLogisticRegression",
    "BDPTClassifier",
    "DPGDFClassifier",
]
