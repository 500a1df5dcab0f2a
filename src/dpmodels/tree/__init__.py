"""Decision trees: one tree representation (:mod:`dpmodels.tree.model`) and private learners."""

from .model import Tree

__all__ = ["Tree"]

try:  # the learner module lands after the model; keep the package importable meanwhile
    from .privatree import PrivaTreeClassifier  # noqa: F401

    __all__.append("PrivaTreeClassifier")
except ImportError:  # pragma: no cover
    pass
