"""Bundled datasets (raw UCI/ProPublica files and their published binarizations).

See :mod:`dpmodels.data.datasets` and ``_bundled/NOTICE.md`` for provenance.
"""

from dpmodels.data.datasets import (
    list_datasets,
    load_adult,
    load_compas,
    load_dataset,
    load_german,
)
from dpmodels.data.rules import RuleCandidates

__all__ = [
    "RuleCandidates",
    "list_datasets",
    "load_adult",
    "load_compas",
    "load_dataset",
    "load_german",
]
