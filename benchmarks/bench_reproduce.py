"""Paper 000's Fig. 4 workload: one split, every mechanism × many ε, batched vs one estimator per fit.

Run with ``make bench``. A block is what one ``000-fig4`` cell does on one training split: the six
Fig. 4 mechanisms at 20 log-spaced ε in [0.01, 100] (120 fits), either through
:class:`dpmodels.experiments.paper_000.batch.SharedSplit` (candidates, distinct-row index and the
prefix-memoised counts built once per split) or through ``DPRuleListClassifier(...).fit`` per fit
(the peer; identical models, see tests/rulelist/test_rulelist_batch.py). The 1-minute load average is
recorded with each case (shared machine).
"""

import os

import numpy as np
import pytest
from sklearn.model_selection import train_test_split

from dpmodels.data import load_dataset
from dpmodels.experiments.paper_000.accuracy import FIG4_LEARNERS, LAMBDA, LEARNERS
from dpmodels.experiments.paper_000.batch import SharedSplit
from dpmodels.rulelist import DPRuleListClassifier
from dpmodels.rulelist.split_stats import single_threaded_blas

EPS = np.logspace(-2, 2, 20)


def _split(name):
    X, y = load_dataset(name)
    return train_test_split(X, y, test_size=0.3, random_state=0)[::2]


def _params(name, n):
    return [
        (lr, dict(max_rules=5, min_support=LAMBDA[name], max_width=2, confidence=0.99, n_public=n, **LEARNERS[lr]))
        for lr in FIG4_LEARNERS
    ]


def _batched(Xtr, ytr, name):
    shared = SharedSplit(Xtr, ytr)
    with single_threaded_blas():  # as a 000-fig4 cell: one limit around the block
        for i, (_, p) in enumerate(_params(name, len(Xtr))):
            for j, e in enumerate(EPS):
                shared.fit(random_state=np.random.default_rng([i, j]), single_thread=False, epsilon=float(e), **p)


def _one_by_one(Xtr, ytr, name):
    for i, (_, p) in enumerate(_params(name, len(Xtr))):
        for j, e in enumerate(EPS):
            DPRuleListClassifier(random_state=np.random.default_rng([i, j]), epsilon=float(e), **p).fit(Xtr, ytr)


@pytest.mark.parametrize("name", ["compas", "german", "adult"])
@pytest.mark.parametrize("how", ["batched", "one-by-one"])
def test_fig4_block_120_fits(benchmark, name, how):
    Xtr, ytr = _split(name)
    benchmark.group = f"000-fig4 block ({name}, 120 fits)"
    benchmark.extra_info["load_1min"] = os.getloadavg()[0]
    fn = _batched if how == "batched" else _one_by_one
    benchmark.pedantic(fn, args=(Xtr, ytr, name), rounds=3, iterations=1)
