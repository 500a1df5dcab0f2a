"""Prediction vs scikit-learn's DecisionTreeClassifier.predict, same data, same depth, same run.

Trees: 200,000 rows × 24 numerical features (float64, the data of ``bench_privatree.py``),
PrivaTree (ε = 1, public bounds and classes) and scikit-learn at depth 4 and 8, as a numpy array
and as a DataFrame. Rule lists: binarized Adult tiled 4× (195,368 × 24 uint8), GreedyRL (5 rules,
width 2) vs scikit-learn's tree at depth 4 on the same 0/1 matrix. Every call is a full
``predict`` of the estimator (input validation and encoding included).

Run ``pytest benchmarks/bench_predict.py --benchmark-only`` (``make bench``): one benchmark per
case. The numbers of ``docs/benchmarks.md`` come from the script, an interleaved run in which each
round calls every case once (the order rotating from round to round) and CPU times
(``time.process_time``) are compared per round::

    python benchmarks/bench_predict.py --rounds 21 [--base /path/to/other/checkout/src]

``--base`` runs the same cases with another checkout's code in a second process, in the same
rounds (before / after).
"""

import os
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

N_ROWS, N_FEATURES, TILE = 200_000, 24, 4


def _trees_data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(N_ROWS, N_FEATURES))
    y = (X[:, 0] + X[:, 1] * X[:, 2] - 0.5 * X[:, 3] + rng.normal(size=N_ROWS) > 0).astype(np.int64)
    return X, y


def cases() -> dict:
    """name -> a zero-argument ``predict`` call (models fitted once, deterministically)."""
    from sklearn.tree import DecisionTreeClassifier

    from dpmodels.data import load_dataset
    from dpmodels.rulelist import GreedyRuleListClassifier
    from dpmodels.tree import PrivaTreeClassifier

    warnings.simplefilter("ignore")  # n read from the data (PrivacyLeakWarning); not what is measured
    X, y = _trees_data()
    frame = pd.DataFrame(X, columns=[f"x{j}" for j in range(N_FEATURES)])
    out = {}
    for d in (4, 8):
        pt = PrivaTreeClassifier(epsilon=1.0, max_depth=d, bounds=(-6.0, 6.0), classes=[0, 1], random_state=0)
        pt.fit(X, y)
        ptf = PrivaTreeClassifier(**pt.get_params()).fit(frame, y)
        sk = DecisionTreeClassifier(max_depth=d, random_state=0).fit(X, y)
        out[f"privatree_d{d}"] = lambda pt=pt: pt.predict(X)
        out[f"privatree_d{d}_frame"] = lambda ptf=ptf: ptf.predict(frame)
        out[f"sklearn_d{d}"] = lambda sk=sk: sk.predict(X)
    Xa, ya = load_dataset("adult")
    rl = GreedyRuleListClassifier(max_rules=5, max_width=2).fit(Xa, ya)
    B = np.tile(Xa.to_numpy(), (TILE, 1))
    Bf = pd.DataFrame(B, columns=Xa.columns)
    skb = DecisionTreeClassifier(max_depth=4, random_state=0).fit(Xa.to_numpy(), ya)
    out["rulelist"] = lambda: rl.predict(Bf)
    out["sklearn_binary_d4"] = lambda: skb.predict(B)
    return out


PEER = {
    "privatree_d4": "sklearn_d4",
    "privatree_d4_frame": "sklearn_d4",
    "privatree_d8": "sklearn_d8",
    "privatree_d8_frame": "sklearn_d8",
    "rulelist": "sklearn_binary_d4",
}

_CASES: dict = {}


@pytest.mark.parametrize(
    "name", ["privatree_d4", "sklearn_d4", "privatree_d8", "sklearn_d8", "rulelist", "sklearn_binary_d4"]
)
def test_predict(benchmark, name):
    if not _CASES:
        _CASES.update(cases())
    benchmark.group = f"predict: {PEER.get(name, name)} and its peer"
    benchmark.extra_info["load_avg_1min_before"] = os.getloadavg()[0]
    benchmark.pedantic(_CASES[name], rounds=15, warmup_rounds=2)


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).parent))
    from _interleaved import main

    main(__file__, cases, PEER, "interleaved predict timings vs scikit-learn", peer_label="scikit-learn")
