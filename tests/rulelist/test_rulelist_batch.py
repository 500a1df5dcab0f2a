"""The shared-split batch of DP rule-list fits is the estimator, only faster.

Oracles: ``DPRuleListClassifier(...).fit`` under the same Generator state (bit-identical rule list
and ledger, every mechanism and gate), and brute-force support counts for the per-pair counting.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpmodels.experiments.paper_000.batch import MemoSplitStats, SharedSplit, _PairTable
from dpmodels.rulelist import DPRuleListClassifier
from dpmodels.rulelist.candidates import RuleCandidates
from dpmodels.rulelist.private import MECHANISMS
from dpmodels.rulelist.split_stats import SplitStats


@pytest.fixture(scope="module")
def compas_split(compas):
    X, y = compas
    rng = np.random.default_rng(0)
    idx = rng.permutation(len(X))[:1500]
    return X.iloc[idx].reset_index(drop=True), y.iloc[idx].reset_index(drop=True)


CASES = [(m, g) for m in MECHANISMS for g in (("ptr", "confidence") if m.startswith("sm-") else ("ptr",))]


@pytest.mark.parametrize("mechanism, gate", CASES)
@pytest.mark.parametrize("epsilon", [0.05, 1.0, 50.0])
def test_bit_identical_to_the_estimator(compas_split, mechanism, gate, epsilon):
    X, y = compas_split
    shared = SharedSplit(X, y)
    params = dict(epsilon=epsilon, mechanism=mechanism, gate=gate, max_rules=5, min_support=0.05, n_public=len(X))
    for seed in range(3):
        est = DPRuleListClassifier(random_state=np.random.default_rng(seed), **params).fit(X, y)
        rl, ledger = shared.fit(random_state=np.random.default_rng(seed), **params)
        assert rl.to_dict() == est.rule_list_.to_dict()
        assert ledger.to_dict() == est.privacy_ledger_.to_dict()
    # the same split serves the next fit: a memo hit returns the counts a fresh SplitStats computes
    assert shared.stats.hits > 0


def test_min_support_zero_and_small_lists_identical(compas_split):
    X, y = compas_split
    shared = SharedSplit(X, y)
    for K, lam in [(1, 0.05), (2, 0.0), (7, 0.0)]:
        p = dict(epsilon=2.0, max_rules=K, min_support=lam)
        est = DPRuleListClassifier(random_state=np.random.default_rng(1), **p).fit(X, y)
        rl, _ = shared.fit(random_state=np.random.default_rng(1), **p)
        assert rl.to_dict() == est.rule_list_.to_dict()


def test_memo_entries_are_read_only_and_exact(compas_split):
    X, y = compas_split
    Xb = X.to_numpy(np.float32)
    cands = RuleCandidates.from_features(list(X.columns), 2)
    memo = MemoSplitStats(cands, Xb, y.to_numpy(), maxsize=2)
    plain = SplitStats(cands, Xb, y.to_numpy())
    rng = np.random.default_rng(3)
    masks = [rng.random(len(X)) < p for p in (1.0, 0.6, 0.2, 0.0)]
    for m in masks + masks[2:] + masks[:2]:  # hits for the last two, recomputation for evicted ones
        a, b = memo(m), plain(m)
        assert a[0] == b[0] and a[1] == b[1]
        assert np.array_equal(a[2], b[2]) and np.array_equal(a[3], b[3])
        with pytest.raises(ValueError):
            a[2][0] = 1.0
    assert len(memo._memo) <= 2 and memo.hits >= 1


@settings(max_examples=30, deadline=None)
@given(n=st.integers(1, 40), p=st.integers(1, 6), seed=st.integers(0, 2**31 - 1))
def test_pair_table_counts_match_brute_force(n, p, seed):
    rng = np.random.default_rng(seed)
    X = (rng.random((n, p)) < 0.5).astype(np.float32)
    w = rng.integers(0, 4, n).astype(np.float32)
    cands = RuleCandidates.from_features([f"f{j}" for j in range(p)], 2)
    got = _PairTable(cands).counts(X, w, float(w.sum()))
    brute = np.array([w[cands.support(X, i)].sum() for i in range(len(cands))], dtype=np.float64)
    assert np.array_equal(got, brute)


def test_rejects_non_binary_labels_and_width_mismatch(compas_split):
    X, y = compas_split
    with pytest.raises(ValueError, match="labels"):
        SharedSplit(X, y + 1)
    with pytest.raises(ValueError, match="max_width"):
        SharedSplit(X, y, max_width=1).fit(random_state=0, epsilon=1.0, max_width=2)
