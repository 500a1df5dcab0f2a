"""Decision trees: one tree representation (:mod:`dpmodels.tree.model`) and private learners."""

from .model import Tree
from .privatree import PrivaTreeClassifier, leaf_epsilon_for_error

__all__ = ["Tree", "PrivaTreeClassifier", "leaf_epsilon_for_error"]
