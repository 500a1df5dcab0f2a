"""Decision trees: one tree representation (:mod:`dpmodels.tree.model`) and private learners."""

from .model import Tree
from .privatree import PrivaTreeClassifier, PrivaTreeRegressor, leaf_epsilon_for_error
from .regression_model import RegressionTree

__all__ = ["Tree", "RegressionTree", "PrivaTreeClassifier", "PrivaTreeRegressor", "leaf_epsilon_for_error"]
