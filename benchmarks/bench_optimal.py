"""Optimal learners of paper 003: certification time of the optimal rule list, beside CORELS (when
``make corels`` built it), GreedyRL and DL8.5 (when the ``[optimal]`` extra is installed).

Run with ``make bench``. Data: binarized Adult, a 10 % subsample drawn with seed 0 (4,884 rows ×
24 columns, as paper 003 subsamples it), and binarized COMPAS (7,214 × 27).

* ``test_optimal_rl_*``: paper 003's setting — 10 rules + default (``max_rules=11``), minimum
  captured support 0.01, accuracy only; the certificate must close (gap 0).
* ``test_*_regularised``: the problem PyPI CORELS solves (no length limit, mined literals, c =
  0.002), ours vs CORELS on the same data; both certify optimality.
* ``test_regularised_six``: the six settings of ``corels_compare.py`` (COMPAS and Adult 10 % at
  c = 0.01 / 0.005, Adult 10 % through the Binarizer at c = 0.03 / 0.02), ours vs CORELS.
* ``test_dl85_*``: DL8.5 depth 4 on Adult 10 %, min leaf support 0.01.

``python benchmarks/bench_optimal.py`` (not run by pytest) prints the certification-time grid of
paper 003 (lengths 1–10 × supports 0.01–0.05 × 5 seeds of 80 % training splits) on both datasets.
"""

import sys
import time

import numpy as np
import pytest

from dpmodels.data import load_dataset
from dpmodels.rulelist import GreedyRuleListClassifier, OptimalRuleListClassifier


def adult_10pct(seed=0):
    X, y = load_dataset("adult")
    idx = np.random.default_rng(seed).choice(len(X), size=int(round(0.1 * len(X))), replace=False)
    return X.iloc[idx].reset_index(drop=True), y.iloc[idx].reset_index(drop=True)


@pytest.fixture(scope="module")
def adult():
    return adult_10pct()


@pytest.fixture(scope="module")
def compas():
    return load_dataset("compas")


def _certified(model):
    cert = model.certificate_
    assert cert.optimal and cert.gap == 0
    return model


# --------------------------------------------------------- paper 003's setting (10 rules + default)
@pytest.mark.benchmark(group="optimal-rl-paper003")
def test_optimal_rl_adult10_len10_sup001(benchmark, adult):
    X, y = adult
    benchmark.pedantic(
        lambda: _certified(OptimalRuleListClassifier(max_rules=11, min_support=0.01).fit(X, y)), rounds=5, iterations=1
    )


@pytest.mark.benchmark(group="optimal-rl-paper003")
def test_optimal_rl_compas_len10_sup001(benchmark, compas):
    X, y = compas
    benchmark.pedantic(
        lambda: _certified(OptimalRuleListClassifier(max_rules=11, min_support=0.01).fit(X, y)), rounds=5, iterations=1
    )


@pytest.mark.benchmark(group="optimal-rl-paper003")
def test_greedy_rl_adult10_len10_sup001(benchmark, adult):
    X, y = adult
    benchmark.pedantic(
        lambda: GreedyRuleListClassifier(max_rules=11, min_support=0.01, max_width=1).fit(X, y), rounds=5, iterations=1
    )


# ------------------------------------------------- the regularised problem, ours vs the real CORELS
C_REG = 0.002


def _ours_regularised(X, y):
    m = OptimalRuleListClassifier(
        max_rules=int(0.5 / C_REG) + 2, min_support=0.0, min_literal_support=0.01, regularization=C_REG
    )
    return _certified(m.fit(X, y))


def _corels(X, y):
    corels = pytest.importorskip("corels")
    clf = corels.CorelsClassifier(c=C_REG, n_iter=10**8, max_card=1, min_support=0.01, verbosity=[])
    return clf.fit(np.asarray(X, dtype=np.uint8), np.asarray(y, dtype=int))


@pytest.mark.benchmark(group="regularised-adult10")
def test_ours_regularised_adult10(benchmark, adult):
    X, y = adult
    benchmark.pedantic(lambda: _ours_regularised(X, y), rounds=3, iterations=1)


@pytest.mark.benchmark(group="regularised-adult10")
def test_corels_regularised_adult10(benchmark, adult):
    pytest.importorskip("corels")
    X, y = adult
    benchmark.pedantic(lambda: _corels(X, y), rounds=3, iterations=1)


@pytest.mark.benchmark(group="regularised-compas")
def test_ours_regularised_compas(benchmark, compas):
    X, y = compas
    benchmark.pedantic(lambda: _ours_regularised(X, y), rounds=3, iterations=1)


@pytest.mark.benchmark(group="regularised-compas")
def test_corels_regularised_compas(benchmark, compas):
    pytest.importorskip("corels")
    X, y = compas
    benchmark.pedantic(lambda: _corels(X, y), rounds=3, iterations=1)


# ------------------------------- the six regularised settings of corels_compare.py, ours vs CORELS
def _six():
    sys.path.insert(0, str(__import__("pathlib").Path(__file__).parent))
    import corels_compare

    return corels_compare


@pytest.fixture(scope="module")
def six_data():
    return _six().datasets()


@pytest.mark.parametrize("name, c", _six().SETTINGS)
@pytest.mark.parametrize("who", ["ours", "corels"])
def test_regularised_six(benchmark, six_data, name, c, who):
    """``python benchmarks/corels_compare.py`` prints the same comparison with node counts."""
    cc = _six()
    if who == "corels":
        pytest.importorskip("corels")
    X, y = six_data[name]
    fn = cc.run_ours if who == "ours" else cc.run_corels
    benchmark.group = f"regularised-{name}-c{c}"
    rounds = 1 if (name, c) == ("adult10-bin", 0.02) else 3
    benchmark.pedantic(lambda: fn(X, y, c), rounds=rounds, iterations=1)


# ------------------------------------------------------------------------------------- DL8.5
@pytest.mark.benchmark(group="dl85-adult10")
def test_dl85_depth4_adult10(benchmark, adult):
    pytest.importorskip("pydl85")
    from dpmodels.tree.optimal import DL85Classifier

    X, y = adult
    benchmark.pedantic(lambda: DL85Classifier(max_depth=4, min_sup=0.01).fit(X, y), rounds=3, iterations=1)


@pytest.mark.benchmark(group="dl85-adult10")
def test_dl85_depth4_adult10_fast_depth_two(benchmark, adult):
    pytest.importorskip("pydl85")
    from dpmodels.tree.optimal import DL85Classifier

    X, y = adult
    benchmark.pedantic(
        lambda: DL85Classifier(max_depth=4, min_sup=0.01, fast_depth_two=True).fit(X, y), rounds=3, iterations=1
    )


# ------------------------------------------------------------------- paper 003's grid (script)
def grid(seeds=5, lengths=range(1, 11), supports=(0.01, 0.02, 0.03, 0.04, 0.05)):
    """Median / max certification seconds per (dataset, support, length) on 80 % training splits."""
    from sklearn.model_selection import train_test_split

    data = {"adult10": adult_10pct(), "compas": load_dataset("compas")}
    out = {}
    for name, (X, y) in data.items():
        splits = [train_test_split(X, y, test_size=0.2, random_state=s)[::2] for s in range(seeds)]
        for lam in supports:
            for L in lengths:
                secs = []
                for Xtr, ytr in splits:
                    t = time.perf_counter()
                    m = OptimalRuleListClassifier(max_rules=L + 1, min_support=lam).fit(Xtr, ytr)
                    secs.append(time.perf_counter() - t)
                    assert m.certificate_.optimal
                out[name, lam, L] = (float(np.median(secs)), float(np.max(secs)))
    return out


if __name__ == "__main__":
    import os

    t0 = time.perf_counter()
    res = grid()
    for name in ("adult10", "compas"):
        print(f"\n{name}: median (max) seconds over 5 splits; rows = min support, columns = length")
        print("| λ | " + " | ".join(str(L) for L in range(1, 11)) + " |")
        print("|---" * 11 + "|")
        for lam in (0.01, 0.02, 0.03, 0.04, 0.05):
            cells = [f"{res[name, lam, L][0]:.2f} ({res[name, lam, L][1]:.2f})" for L in range(1, 11)]
            print(f"| {lam} | " + " | ".join(cells) + " |")
    print(f"\ntotal {time.perf_counter() - t0:.0f} s, load {os.getloadavg()}", file=sys.stderr)
