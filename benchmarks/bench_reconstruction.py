"""Dist_G (paper 003) speed: exact model counting vs the paper's recursion (Eq. 13-15).

Run with ``make bench`` (or ``pytest benchmarks/bench_reconstruction.py -o python_files="bench_*.py"
--benchmark-only``). Targets: exact Dist_G for 30 width-2 rules over 100 binary
attributes in < 1 s, a 10-rule list in a few ms. The peer is our implementation of the paper's
method (``tests/audit/_paper_recursion.py``: 2^(r+1) − 1 calls for r rules and the default), timed on
the same lists up to 18 rules. Per-call overhead for an experiment grid: a GreedyRL list and a
depth-10 scikit-learn tree on binarized Adult (10 % subsample, 80 % train, as in the paper) with
the training records given.
"""

import sys
from pathlib import Path

import numpy as np
import pytest
from sklearn.model_selection import train_test_split
from sklearn.tree import DecisionTreeClassifier

from dpmodels.audit import reconstruction_leak
from dpmodels.audit._model_count import capture_counts
from dpmodels.data import load_dataset
from dpmodels.rulelist import GreedyRuleListClassifier
from dpmodels.rulelist.model import Rule, RuleList

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from _paper_recursion import paper_capture_counts  # noqa: E402


def random_rule_list(n_rules, n_attrs, width, seed):
    rng = np.random.default_rng(seed)
    names = [f"a{i}" for i in range(n_attrs)]
    rules = [
        Rule(
            [(names[k], bool(rng.integers(2))) for k in rng.choice(n_attrs, width, replace=False)],
            1,
            tuple(float(c) for c in rng.integers(1, 50, 2)),
        )
        for _ in range(n_rules)
    ]
    return RuleList(names, rules, Rule([], 0, (10.0, 10.0)))


def literal_form(rl):
    col = {f: i for i, f in enumerate(rl.feature_names)}
    return [[(col[f], int(p)) for f, p in r.literals] for r in rl.rules]


# ------------------------------------------------------------------ exact counting vs Eq. 13-15
@pytest.mark.benchmark(group="reconstruction-30x2-over-100")
def test_ours_30_width2_rules_100_attrs(benchmark):
    rl = random_rule_list(30, 100, 2, seed=0)
    r = benchmark(reconstruction_leak, rl)
    assert 0 < r.dist_g < 1


@pytest.mark.benchmark(group="reconstruction-30x2-over-100")
@pytest.mark.parametrize("seed", range(1, 6))
def test_ours_30_width2_rules_100_attrs_other_seeds(benchmark, seed):
    rl = random_rule_list(30, 100, 2, seed=seed)
    benchmark(reconstruction_leak, rl)


@pytest.mark.benchmark(group="reconstruction-r-rules-width2-over-24")
@pytest.mark.parametrize("n_rules", [10, 16, 18, 30])
def test_ours_counting(benchmark, n_rules):
    rl = random_rule_list(n_rules, 24, 2, seed=n_rules)
    benchmark(capture_counts, literal_form(rl), 24)


@pytest.mark.benchmark(group="reconstruction-r-rules-width2-over-24")
@pytest.mark.parametrize("n_rules", [10, 16, 18])
def test_paper_recursion(benchmark, n_rules):
    rl = random_rule_list(n_rules, 24, 2, seed=n_rules)
    rules = literal_form(rl)
    expected = capture_counts(rules, 24)
    rounds = 5 if n_rules <= 16 else 3
    out = benchmark.pedantic(paper_capture_counts, args=(rules, 24), rounds=rounds, iterations=1)
    assert out == expected


@pytest.mark.benchmark(group="reconstruction-10-rules")
def test_ours_10_rule_list_full_call(benchmark):
    rl = random_rule_list(10, 24, 2, seed=10)
    benchmark(reconstruction_leak, rl)


# ------------------------------------------------------------------ hard instances (dense overlap)
@pytest.mark.benchmark(group="reconstruction-dense")
@pytest.mark.parametrize("n_rules,n_attrs,width", [(30, 30, 3), (60, 30, 2), (40, 40, 3)])
def test_ours_dense(benchmark, n_rules, n_attrs, width):
    rl = random_rule_list(n_rules, n_attrs, width, seed=0)
    benchmark.pedantic(capture_counts, args=(literal_form(rl), n_attrs), rounds=3, iterations=1)


# ------------------------------------------------------------------ per-call overhead in a grid
@pytest.fixture(scope="module")
def adult_train():
    X, y = load_dataset("adult")
    Xs = X.sample(frac=0.1, random_state=0)
    Xtr, _, ytr, _ = train_test_split(Xs, y.loc[Xs.index], test_size=0.2, random_state=0)
    return Xtr, ytr


@pytest.mark.benchmark(group="reconstruction-adult-grid-call")
@pytest.mark.parametrize("width", [1, 2])
def test_greedy_rule_list_on_adult_with_X(benchmark, adult_train, width):
    Xtr, ytr = adult_train
    clf = GreedyRuleListClassifier(max_rules=11, max_width=width, min_support=0.0).fit(Xtr, ytr)
    r = benchmark(reconstruction_leak, clf, Xtr, ytr)
    assert abs(r.per_record.mean() - r.dist_g) < 1e-12


@pytest.mark.benchmark(group="reconstruction-adult-grid-call")
def test_sklearn_depth10_tree_on_adult_with_X(benchmark, adult_train):
    Xtr, ytr = adult_train
    est = DecisionTreeClassifier(max_depth=10, min_samples_leaf=0.01, random_state=0).fit(Xtr, ytr)
    benchmark(reconstruction_leak, est, Xtr, ytr, domains="binary")


@pytest.mark.benchmark(group="reconstruction-adult-grid-call")
def test_greedy_fit_for_scale(benchmark, adult_train):
    """The fit the grid runs before each call, for scale."""
    Xtr, ytr = adult_train
    benchmark(lambda: GreedyRuleListClassifier(max_rules=11, max_width=1, min_support=0.0).fit(Xtr, ytr))
