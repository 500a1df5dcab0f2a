"""Rule lists on partitioned input (Parquet streamed with pyarrow, Dask): the fit as a driver loop.

The learners are those of :mod:`.greedy` and :mod:`.private` (same parameters, same releases,
same random draws in the same order); only the way the data are touched differs: through a
:class:`~.counters.SourceCounts` instead of a :class:`~.counters.MemoryCounts`
(docs/privacy.md, "Rule lists at scale"):

- **one moment pass per rule position** (at most K − 1): every partition recomputes which of its
  records the released rules capture (nothing is cached between passes) and returns, per class,
  the moments of the remaining records over the binary columns — the Gram matrix of literal ×
  literal × class (and the third-order moments at width 3; beyond, one count per candidate);
- **one histogram pass** at the end (the default mechanism and GreedyRL): the class counts of the
  partition the rules induce.

Every partition function gets public inputs only (the declared columns and label set, the
candidate set, the released rules; a :class:`~dpmodels.data.Binarizer`'s released thresholds when
the input is a :class:`~dpmodels.data.binarize_stream.BinarizedSource`) and returns exact int64
counts of a public shape; noise is drawn on the driver only. With the same seed the model and the
ledger equal those of the in-memory fit of the concatenated data.

Partitioned input declares its schema: the columns are the source's (names only), the label set
is ``classes`` (or the rule lists' schema {0, 1}); a value outside {0, 1} or a label outside the
label set raises in the pass that meets it, before any release.
"""

from __future__ import annotations

import numpy as np

from ..data.sources import as_source
from ..privacy.accountant import ledger_for_fit, published_ledger
from ..privacy.samplers import check_random_state
from ..privacy.steps import BudgetRequest
from ..validation import resolve_classes
from .counters import BinaryEncoder, SourceCounts
from .split_stats import single_threaded_blas

__all__ = ["fit_source"]


def fit_source(est, X, y=None, sample_weight=None):
    """``est.fit(X, y)`` on partitioned input (module docstring)."""
    from sklearn.utils.validation import _check_feature_names, _check_n_features

    from ..data.binarize_stream import BinarizedSource

    name = type(est).__name__
    if sample_weight is not None:
        raise ValueError(f"{name}: sample_weight is not supported on partitioned input")
    if getattr(est, "criterion", "split") != "split":
        raise ValueError(f"{name}: criterion={est.criterion!r} is not available on partitioned input")
    private = isinstance(est, BudgetRequest)  # dpmodels.privacy.steps: a learner that spends
    if private:
        _, eps, delta = est._budget_request()
    else:
        est._check_params()
    source = as_source(X, y)
    schema = source.schema_frame()
    names = [str(c) for c in schema.columns]
    declared = getattr(est, "classes", None)
    binary = declared is None or est._binary_only
    est.classes_, _ = resolve_classes(declared, np.zeros(0, dtype=object), None, binary=binary)
    _check_feature_names(est, schema, reset=True)
    _check_n_features(est, schema, reset=True)
    # public: the column names and their declared groups; n is unknown (never read for a guard)
    cands = est._guarded_candidates(schema, names, est.n_public if private else None)
    if isinstance(source, BinarizedSource):
        raw, transform = source.source, source.transform
    else:
        raw, transform = source, None
    counter = SourceCounts(raw, cands, BinaryEncoder(names, declared, binary, transform), len(est.classes_))
    with single_threaded_blas():
        if private:
            ledger = ledger_for_fit(est, eps, delta, X=schema)  # the binarizer's releases are merged
            rng = check_random_state(est.random_state)
            rule_list = est._release_counts(cands, counter, names, ledger, rng)
            est.privacy_ledger_ = published_ledger(ledger)
            est.n_candidates_ = len(cands)
            est.rule_list_ = rule_list
        else:
            est._fit_split(cands, counter, names)
    est.n_partitions_ = source.n_partitions
    est.n_passes_ = counter.n_passes
    return est
