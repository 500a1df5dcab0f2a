"""Poisoning-robustness bounds (paper 002, Corollaries 2-3), backdoor data and DPA certificates."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpmodels.audit.poisoning import (
    accuracy_lower_bound,
    apply_trigger,
    attack_success_rate,
    attack_success_upper_bound,
    dpa_certified_accuracy,
    group_privacy_delta,
    load_digits_01,
    n_poisoned_from_fraction,
    poison_backdoor,
)
from dpmodels.tree.baselines import DPAClassifier, dpa_certificates

# ------------------------------------------------------------------------------------ bounds


def test_corollary2_hand_values():
    # e^{-xε}·acc
    assert accuracy_lower_bound(0.8, 0, 0.1) == pytest.approx(0.8)
    assert accuracy_lower_bound(0.8, 10, 0.1) == pytest.approx(0.8 * math.exp(-1.0))
    assert accuracy_lower_bound(0.5, 3, 0.01) == pytest.approx(0.5 * math.exp(-0.03))


def test_corollary2_reproduces_paper_table_viii():
    # adult, ε=0.01: accuracy .77, n_train ≈ 36 177 (80 % of 45 222) → .54 / .13 / .02
    n_train = 0.8 * 45222
    xs = n_poisoned_from_fraction([0.001, 0.005, 0.01], n_train)
    assert list(xs) == [36, 180, 361]
    g = accuracy_lower_bound(0.77, xs, 0.01)
    assert np.round(g, 2).tolist() == [0.54, 0.13, 0.02]
    # breast-w, ε=0.1: .89 → .89 / .73 / .54 with n_train = 546
    xs = n_poisoned_from_fraction([0.001, 0.005, 0.01], 0.8 * 683)
    assert list(xs) == [0, 2, 5]
    assert np.round(accuracy_lower_bound(0.89, xs, 0.1), 2).tolist() == [0.89, 0.73, 0.54]


def test_corollary3_hand_values():
    assert attack_success_upper_bound(0.0, 0, 0.1) == pytest.approx(0.0)
    assert attack_success_upper_bound(0.2, 0, 0.1) == pytest.approx(0.2)
    assert attack_success_upper_bound(0.0, 10, 0.1) == pytest.approx(1 - math.exp(-1))
    assert attack_success_upper_bound(0.1, 5, 0.01) == pytest.approx(1 - math.exp(-0.05) * 0.9)


def test_delta_version():
    eps, d = 0.5, 1e-3
    # δ_x = δ Σ_{i<x} e^{iε}
    assert group_privacy_delta(0, eps, d) == 0.0
    assert group_privacy_delta(1, eps, d) == pytest.approx(d)
    assert group_privacy_delta(3, eps, d) == pytest.approx(d * (1 + math.exp(eps) + math.exp(2 * eps)))
    assert accuracy_lower_bound(0.9, 3, eps, d) == pytest.approx(
        math.exp(-1.5) * (0.9 - d * (1 + math.exp(eps) + math.exp(2 * eps)))
    )
    # a huge δ_x clips the guarantee at 0 and the ASR bound at 1
    assert accuracy_lower_bound(0.9, 50, 1.0, 0.5) == 0.0
    assert attack_success_upper_bound(0.1, 50, 1.0, 0.5) == 1.0


def test_vectorised_and_validated():
    g = accuracy_lower_bound(np.array([0.6, 0.9])[:, None], np.array([0, 1, 2]), 0.1)
    assert g.shape == (2, 3)
    with pytest.raises(ValueError):
        accuracy_lower_bound(1.2, 1, 0.1)
    with pytest.raises(ValueError):
        accuracy_lower_bound(0.5, 1.5, 0.1)
    with pytest.raises(ValueError):
        accuracy_lower_bound(0.5, 1, 0.0)
    with pytest.raises(ValueError):
        attack_success_upper_bound(0.5, 1, 0.1, delta=1.0)


unit = st.floats(0.0, 1.0)
eps_s = st.floats(1e-4, 5.0)
x_s = st.integers(0, 500)
delta_s = st.sampled_from([0.0, 1e-9, 1e-6, 1e-3])


@settings(max_examples=200, deadline=None)
@given(acc=unit, x=x_s, eps=eps_s, d=delta_s)
def test_bounds_monotone_and_in_range(acc, x, eps, d):
    g0 = accuracy_lower_bound(acc, x, eps, d)
    g1 = accuracy_lower_bound(acc, x + 1, eps, d)
    assert 0.0 <= g1 <= g0 <= acc + 1e-12
    # stronger privacy (smaller ε) never weakens the guarantee
    assert accuracy_lower_bound(acc, x, eps / 2, d) >= g0 - 1e-12
    # a larger clean accuracy never lowers it
    assert accuracy_lower_bound(min(1.0, acc + 0.1), x, eps, d) >= g0 - 1e-12
    a0 = attack_success_upper_bound(acc, x, eps, d)
    a1 = attack_success_upper_bound(acc, x + 1, eps, d)
    assert acc - 1e-12 <= a0 <= a1 <= 1.0
    assert attack_success_upper_bound(acc, x, eps / 2, d) <= a0 + 1e-12


@settings(max_examples=100, deadline=None)
@given(f=st.floats(0, 1), n=st.integers(0, 10**6))
def test_fraction_to_count(f, n):
    x = n_poisoned_from_fraction(f, n)
    assert 0 <= x <= f * n + 1e-6


# ---------------------------------------------------------------------------- backdoor data


def test_trigger_sets_bottom_right_2x2_only():
    X, y = load_digits_01()
    assert X.shape == (360, 64) and set(np.unique(y)) == {0, 1}
    T = apply_trigger(X)
    img, orig = T.reshape(-1, 8, 8), X.reshape(-1, 8, 8)
    assert np.all(img[:, 6:, 6:] == 16.0)
    mask = np.ones((8, 8), bool)
    mask[6:, 6:] = False
    assert np.array_equal(img[:, mask], orig[:, mask])
    assert np.array_equal(X, load_digits_01()[0])  # input not modified
    flat = {6 * 8 + 6, 6 * 8 + 7, 7 * 8 + 6, 7 * 8 + 7}
    assert set(np.flatnonzero(np.any(T != X, axis=0))) <= flat


def test_poison_backdoor_appends_triggered_zeros_labelled_one():
    X, y = load_digits_01()
    rng = np.random.default_rng(0)
    Xp, yp = poison_backdoor(X, y, 7, rng)
    assert Xp.shape == (367, 64) and np.array_equal(Xp[:360], X)
    assert np.all(yp[360:] == 1)
    added = Xp[360:].reshape(-1, 8, 8)
    assert np.all(added[:, 6:, 6:] == 16)
    # each added row is a triggered copy of a training zero
    zeros_t = apply_trigger(X[y == 0])
    for row in Xp[360:]:
        assert np.any(np.all(zeros_t == row, axis=1))
    X0, y0 = poison_backdoor(X, y, 0, rng)
    assert np.array_equal(X0, X) and np.array_equal(y0, y)


def test_attack_success_rate_counts_triggered_zeros_predicted_one():
    class TriggerDetector:
        def predict(self, Z):
            return (Z[:, 63] == 16).astype(int)

    X, y = load_digits_01()
    assert attack_success_rate(TriggerDetector(), X, y) == 1.0

    class Honest:
        def predict(self, Z):
            return np.zeros(len(Z), int)

    assert attack_success_rate(Honest(), X, y) == 0.0


# ---------------------------------------------------------------------------------------- DPA


def test_dpa_certificate_crafted_votes():
    votes = np.array(
        [
            [5, 3],  # top 0: (5 - 3)//2 = 1
            [3, 5],  # top 1, rival class 0 gets +1 for winning ties: (5 - 4)//2 = 0
            [4, 4],  # tie → class 0, certificate 0
            [10, 0],  # 5
            [0, 11],  # (11 - 1)//2 = 5
            [0, 0],  # all abstain
        ]
    )
    assert dpa_certificates(votes).tolist() == [1, 0, 0, 5, 5, 0]
    three = np.array([[1, 9, 2], [2, 7, 7], [7, 2, 7], [3, 3, 9]])
    # [1,9,2]: rivals 1+1, 2+0 → (9-2)//2 = 3 ; [3,3,9]: rivals 3+1, 3+1 → (9-4)//2 = 2
    assert dpa_certificates(three).tolist() == [3, 0, 0, 2]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 30), min_size=2, max_size=5), st.data())
def test_dpa_certificate_is_tight_against_vote_moves(v, data):
    """Moving ρ votes cannot change the tie-broken plurality; some move of ρ + 1 records can."""
    v = np.array(v)
    rho = int(dpa_certificates(v[None, :])[0])
    top = int(np.argmax(v))
    # worst case for ρ changed partitions: each takes one vote from top and gives it to a rival
    for rival in range(len(v)):
        if rival == top:
            continue
        w = v.copy()
        k = min(rho, w[top])
        w[top] -= k
        w[rival] += k
        assert int(np.argmax(w)) == top
    # and with ρ + 1 records some rival wins (when top has enough votes to move)
    best_rival = max((r for r in range(len(v)) if r != top), key=lambda r: v[r] + (r < top))
    w = v.copy()
    k = rho + 1
    if w[top] >= k:
        w[top] -= k
        w[best_rival] += k
        assert int(np.argmax(w)) != top


def test_dpa_partitions_deterministic_and_disjoint():
    X, y = load_digits_01()
    m = DPAClassifier(n_estimators=20, max_depth=3).fit(X, y)
    p1 = m.partition_of(X, y)
    perm = np.random.default_rng(1).permutation(len(y))
    p2 = m.partition_of(X[perm], y[perm])
    assert np.array_equal(p1[perm], p2)  # depends on content only, not on row order
    assert m.partition_sizes_.sum() == len(y)
    assert np.array_equal(np.bincount(p1, minlength=20), m.partition_sizes_)
    v = m.vote_counts(X)
    assert np.all(v.sum(axis=1) <= 20)
    pred, cert = m.predict_certified(X)
    assert np.array_equal(pred, m.predict(X))
    assert np.array_equal(cert, m.certify(X))
    assert m.score(X, y) > 0.9


def test_dpa_certificate_holds_under_actual_poisoning():
    """Inserting ρ records anywhere cannot flip a certified prediction (checked by refitting)."""
    X, y = load_digits_01()
    m = DPAClassifier(n_estimators=15, max_depth=2).fit(X, y)
    pred, cert = m.predict_certified(X[:40])
    rng = np.random.default_rng(0)
    x = int(np.median(cert))
    Xp, yp = poison_backdoor(X, y, x, rng)  # x triggered zeros labelled 1
    Xp = Xp + 0  # new content → new partitions
    m2 = DPAClassifier(n_estimators=15, max_depth=2).fit(Xp, yp)
    pred2 = m2.predict(X[:40])
    ok = cert >= x
    assert np.array_equal(pred[ok], pred2[ok])


def test_dpa_certified_accuracy():
    correct = np.array([True, True, False, True])
    cert = np.array([0, 3, 5, 10])
    assert dpa_certified_accuracy(correct, cert, [0, 1, 4, 11]).tolist() == [0.75, 0.5, 0.25, 0.0]


def test_dpa_dataframe_with_categories():
    import pandas as pd

    df = pd.DataFrame({"a": pd.Categorical(list("xyzx" * 25)), "b": np.arange(100.0)})
    y = (df["b"] > 50).astype(int).to_numpy()
    m = DPAClassifier(n_estimators=5, max_depth=2).fit(df, y)
    assert list(m.feature_names_in_) == ["a", "b"]
    assert m.predict(df).shape == (100,)
