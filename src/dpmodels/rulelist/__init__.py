"""Greedy rule lists: the non-private GreedyRL baseline and its differentially private versions."""

from .greedy import GreedyRuleListClassifier
from .model import Rule, RuleList
from .private import MECHANISMS, DPRuleListClassifier

__all__ = ["GreedyRuleListClassifier", "DPRuleListClassifier", "MECHANISMS", "Rule", "RuleList"]
