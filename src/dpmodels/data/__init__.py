"""Bundled datasets (raw UCI/ProPublica files and their published binarizations).

See :mod:`dpmodels.data.datasets` and ``_bundled/NOTICE.md`` for provenance.
"""

from dpmodels.data.binarize import Binarizer
from dpmodels.data.datasets import (
    list_datasets,
    load_adult,
    load_compas,
    load_dataset,
    load_german,
)
from dpmodels.data.openml import DatasetUnavailable, list_openml, load_mnist01, load_openml
from dpmodels.data.rules import check_feature_groups
from dpmodels.data.schema import PUBLIC_BOUNDS, DatasetSchema, dataset_schema
from dpmodels.data.sources import DaskSource, ParquetSource

__all__ = [
    "Binarizer",
    "DaskSource",
    "ParquetSource",
    "DatasetSchema",
    "DatasetUnavailable",
    "PUBLIC_BOUNDS",
    "RuleCandidates",
    "check_feature_groups",
    "dataset_schema",
    "list_openml",
    "load_mnist01",
    "load_openml",
    "list_datasets",
    "load_adult",
    "load_compas",
    "load_dataset",
    "load_german",
]
