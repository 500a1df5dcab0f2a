"""Fits with the label set declared (``classes=[...]``) and read from the data (undeclared: a
leak row; the labels used to be checked for missing values one by one), same data, same run.

PrivaTree (depth 4, ε = 1, public bounds) on 100,000 rows × 24 numerical features, labels as
integers and as text (object arrays). Run
``pytest benchmarks/bench_labels.py --benchmark-only``, or the interleaved script (the numbers of
``docs/benchmarks.md``)::

    python benchmarks/bench_labels.py --rounds 15 [--base /path/to/other/checkout/src]
"""

import os
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

N_ROWS = 100_000


def cases() -> dict:
    from dpmodels.tree import PrivaTreeClassifier

    warnings.simplefilter("ignore")  # the leak rows' PrivacyLeakWarning: not what is measured
    rng = np.random.default_rng(0)
    X = rng.normal(size=(N_ROWS, 24))
    y = (X[:, 0] + rng.normal(size=N_ROWS) > 0).astype(np.int64)
    text = np.where(y == 1, "yes", "no").astype(object)

    def tree(classes, labels):
        est = PrivaTreeClassifier(epsilon=1.0, max_depth=4, bounds=(-6.0, 6.0), classes=classes, random_state=0)
        return lambda: est.fit(X, labels)

    return {
        "declared_int": tree([0, 1], y),
        "undeclared_int": tree(None, y),
        "declared_text": tree(["no", "yes"], text),
        "undeclared_text": tree(None, text),
    }


PEER = {"undeclared_int": "declared_int", "undeclared_text": "declared_text"}
_CASES: dict = {}


@pytest.mark.parametrize("name", ["declared_int", "undeclared_int", "declared_text", "undeclared_text"])
def test_fit(benchmark, name):
    if not _CASES:
        _CASES.update(cases())
    benchmark.group = "PrivaTree fit, classes declared or read"
    benchmark.extra_info["load_avg_1min_before"] = os.getloadavg()[0]
    benchmark.pedantic(_CASES[name], rounds=7, warmup_rounds=1)


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).parent))
    from _interleaved import main

    main(__file__, cases, PEER, "interleaved fits, classes declared or not", peer_label="declared")
