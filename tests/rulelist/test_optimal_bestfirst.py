"""The best-first search of the optimal rule list (``RuleListSearch(strategy="best")``, the one
regularised fits use): exact against brute force, equal to the depth-first search, honest when
cut, and its captured-set permutation map merges what it should."""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpmodels.rulelist import OptimalRuleListClassifier, _bnb
from dpmodels.rulelist._bnb import RuleListSearch


def brute_force(L, y, lam, pen, R):
    """min over lists of ≤ R distinct literals, each capturing ≥ lam records in position, of
    errors + pen · length (majority consequents): every permutation scored directly."""
    n, q = L.shape
    best = None
    for k in range(R + 1):
        for seq in itertools.permutations(range(q), k):
            rem, err, ok = np.ones(n, dtype=bool), 0, True
            for a in seq:
                cap = rem & L[:, a]
                if cap.sum() < lam:
                    ok = False
                    break
                pos = int(y[cap].sum())
                err += min(pos, int(cap.sum()) - pos)
                rem &= ~cap
            if ok:
                pos = int(y[rem].sum())
                v = err + min(pos, int(rem.sum()) - pos) + pen * k
                best = v if best is None else min(best, v)
    return best


def score(L, y, lam, lits):
    """errors + 0-penalty of the given list, asserting its position supports."""
    rem, err = np.ones(len(y), dtype=bool), 0
    for a in lits:
        cap = rem & L[:, a]
        assert cap.sum() >= lam
        pos = int(y[cap].sum())
        err += min(pos, int(cap.sum()) - pos)
        rem &= ~cap
    pos = int(y[rem].sum())
    return err + min(pos, int(rem.sum()) - pos)


def instance(rng, n_max=30, p_max=4):
    n, p = int(rng.integers(2, n_max + 1)), int(rng.integers(1, p_max + 1))
    X = rng.random((n, p)) < rng.uniform(0.1, 0.9, p)
    if rng.random() < 0.5:
        y = (rng.random(n) < rng.uniform(0.2, 0.8)).astype(np.int64)
    else:  # labels from a noisy rule list, so long lists can pay
        y = (np.where(X[:, 0], 1, X[:, -1]) ^ (rng.random(n) < 0.15)).astype(np.int64)
    return np.hstack([X, ~X]), y


@settings(max_examples=150, deadline=None)
@given(
    st.integers(0, 2**32 - 1),
    st.integers(0, 4),
    st.integers(1, 4),
    st.sampled_from([1.0, 1.5, 2.0, 3.0, 4.5]),
    st.sampled_from(["gram", "bitset"]),
)
def test_equals_brute_force(seed, R, lam, pen, backend):
    L, y = instance(np.random.default_rng(seed))
    res = RuleListSearch(L, y, lam, pen, backend=backend, strategy="best").run(R)
    opt = brute_force(L, y, lam, pen, R)
    assert res.value == opt and res.lower_bound == opt and not res.timed_out
    assert len(res.literals) <= R
    assert score(L, y, lam, res.literals) + pen * len(res.literals) == res.value


def test_equals_depth_first_search_sweep():
    """Larger instances than brute force reaches: both searches certify the same optimum."""
    rng = np.random.default_rng(3)
    for _ in range(120):
        L, y = instance(rng, n_max=200, p_max=8)
        R = int(rng.integers(1, 8))
        lam = int(rng.integers(1, 8))
        pen = float(rng.choice([1.0, 2.0, 3.25, 6.0]))
        depth = RuleListSearch(L, y, lam, pen, strategy="depth").run(R)
        for backend in ("gram", "bitset"):
            best = RuleListSearch(L, y, lam, pen, backend=backend, strategy="best").run(R)
            assert best.value == depth.value == best.lower_bound
            assert score(L, y, lam, best.literals) + pen * len(best.literals) == best.value


def test_batch_size_does_not_change_the_optimum(monkeypatch):
    """Strict best-first order (one node per pass) and the batched passes agree."""
    rng = np.random.default_rng(11)
    for _ in range(40):
        L, y = instance(rng, n_max=150, p_max=7)
        args = (L, y, int(rng.integers(1, 5)), float(rng.choice([1.0, 2.5, 5.0])))
        R = int(rng.integers(2, 7))
        batched = RuleListSearch(*args, strategy="best").run(R)
        monkeypatch.setattr(RuleListSearch, "_BATCH", 1)
        strict = RuleListSearch(*args, strategy="best").run(R)
        monkeypatch.undo()
        assert strict.value == batched.value == strict.lower_bound


class FakeClock:
    """Each reading advances one tick: time limits become budgets of batches (deterministic)."""

    def __init__(self):
        self.t = 0.0

    def __call__(self):
        self.t += 1.0
        return self.t


def test_cut_searches_bracket_the_optimum(monkeypatch):
    """Whenever the clock stops the search, lb ≤ optimum ≤ value of the returned list."""
    rng = np.random.default_rng(5)
    monkeypatch.setattr(RuleListSearch, "_BATCH", 2)  # many passes, many places to cut
    cut = 0
    for _ in range(60):
        L, y = instance(rng, n_max=120, p_max=8)
        R, lam, pen = int(rng.integers(2, 7)), int(rng.integers(1, 4)), float(rng.choice([1.0, 2.0, 4.0]))
        opt = RuleListSearch(L, y, lam, pen, strategy="best").run(R).value
        for ticks in (1, 2, 3, 5, 9):
            with monkeypatch.context() as mp:
                mp.setattr(_bnb.time, "perf_counter", FakeClock())
                res = RuleListSearch(L, y, lam, pen, strategy="best").run(R, time_limit=float(ticks))
            assert res.lower_bound <= opt <= res.value
            assert res.timed_out or res.lower_bound == res.value == opt
            assert score(L, y, lam, res.literals) + pen * len(res.literals) == res.value
            cut += res.timed_out and res.lower_bound < res.value
    assert cut > 0  # the cuts did happen (this test can fail)


def test_captured_set_map_merges_duplicates_and_permutations():
    """A duplicated literal leaves the same uncaptured sets at the same cost: the map keeps one
    queued prefix per set, so the search queues exactly the same sets with the duplicate as
    without (nodes closed in their parent's pass skip the map, so only those may repeat)."""
    rng = np.random.default_rng(2)
    checked = 0
    for _ in range(30):
        L, y = instance(rng, n_max=300, p_max=6)
        base = RuleListSearch(L, y, 2, 1.5, strategy="best")
        a = base.run(5)
        dup = RuleListSearch(np.hstack([L, L[:, :1]]), y, 2, 1.5, strategy="best")
        b = dup.run(5)
        assert a.value == b.value
        assert a.memo_entries == b.memo_entries and a.nodes <= b.nodes
        checked += a.memo_entries > 1
    assert checked > 5


def test_permutations_are_queued_once(monkeypatch):
    """(a, b) and (b, a) leave the same records at the same cost: only the first one generated is
    queued (CORELS's permutation bound, JMLR Cor. 16, here keyed by the uncaptured set)."""
    n = 60
    a = np.zeros(n, dtype=bool)
    a[:10] = True
    b = np.zeros(n, dtype=bool)
    b[10:20] = True
    c = np.zeros(n, dtype=bool)
    c[40:47] = True  # 5 positives, 2 negatives: worth a third rule after a and b
    L = np.column_stack([a, b, c])
    y = np.zeros(n, dtype=np.int64)
    y[:20] = 1
    y[40:45] = 1
    pushed = []
    real_push = _bnb.heapq.heappush

    def spy(heap, item):
        pushed.append(item[3])
        real_push(heap, item)

    monkeypatch.setattr(_bnb.heapq, "heappush", spy)
    res = RuleListSearch(L, y, 1, 1.0, strategy="best").run(4)
    monkeypatch.undo()
    assert res.value == brute_force(L, y, 1, 1.0, 4) == 5.0
    assert (0,) in pushed and (1,) in pushed  # both orders were reachable
    pairs = [p for p in pushed if sorted(p) == [0, 1]]
    assert len(pairs) == 1, pushed


def test_fit_uses_best_first_for_regularised_objectives():
    rng = np.random.default_rng(0)
    X = (rng.random((400, 6)) < 0.4).astype(np.int64)
    y = (X[:, 0] ^ (rng.random(400) < 0.2)).astype(np.int64)
    m = OptimalRuleListClassifier(max_rules=8, min_support=0.0, regularization=0.01).fit(X, y)
    assert m.certificate_.backend.endswith("best-first") and m.certificate_.optimal
    m0 = OptimalRuleListClassifier(max_rules=4, min_support=0.01).fit(X, y)
    assert not m0.certificate_.backend.endswith("best-first")


def test_bad_strategy_is_refused():
    with pytest.raises(ValueError, match="strategy"):
        RuleListSearch(np.ones((3, 2), dtype=bool), np.array([0, 1, 0]), 1, 1.0, strategy="greedy")


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 80))
def test_completion_bound_is_below_the_exact_errors(seed, n):
    """The corner bound of a one-rule completion after (parent, a), from the parent's counts,
    never exceeds the errors of (b, default) counted on what a leaves."""
    from dpmodels.rulelist._bnb import completion_bound

    rng = np.random.default_rng(seed)
    y = rng.random(n) < rng.uniform(0.1, 0.9)
    S = rng.random(n) < rng.uniform(0.3, 1.0)  # the parent's uncaptured records
    a = S & (rng.random(n) < rng.uniform(0.0, 0.7))
    b = rng.random(n) < rng.uniform(0.0, 1.0)
    St = S & ~a
    P, N = int((St & y).sum()), int((St & ~y).sum())
    cp, cn = int((S & b & y).sum()), int((S & b & ~y).sum())
    cpa, cna = int((a & y).sum()), int((a & ~y).sum())
    x, z = int((St & b & y).sum()), int((St & b & ~y).sum())
    exact = min(x, z) + min(P - x, N - z)
    bound = completion_bound(float(P), float(N), float(cp), float(cn), float(cpa), float(cna))
    assert bound <= exact
    if cpa == 0 and cna == 0:  # a took nothing: the box is a point, the bound is exact
        assert bound == exact
