"""Rule lists: the non-private GreedyRL baseline, its differentially private versions, and the
certifiably optimal (CORELS-problem) learner of paper 003."""

from .greedy import GreedyRuleListClassifier
from .model import Rule, RuleList
from .optimal import OptimalityCertificate, OptimalRuleListClassifier
from .private import MECHANISMS, DPRuleListClassifier

__all__ = [
    "GreedyRuleListClassifier",
    "OptimalRuleListClassifier",
    "OptimalityCertificate",
    "DPRuleListClassifier",
    "MECHANISMS",
    "Rule",
    "RuleList",
]
