"""Rule lists over K ≥ 2 declared classes (docs/privacy.md, "Rule lists over K classes").

* The K-class count-scaled Gini n − Σ_k a_k²/n: exhaustive brute force of its add/remove
  sensitivity on every small count vector and every neighbour (the bound is < 2, approached, and
  the change is never negative: monotone), and of the default mechanism's utility with the support
  penalty (< 2 + λ).
* The K-class split counts of :class:`SplitStats` against a direct count.
* The learners on nursery (5 classes, bundled) and wine (3 classes, shipped with scikit-learn),
  save/load round trips, the mechanisms that refuse K > 2.
* The empirical DP audit of the first selection with a planted leak.
"""

import itertools

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpmodels.audit import audit_estimator
from dpmodels.data import Binarizer
from dpmodels.data.datasets import load_dataset
from dpmodels.io import load_model, save_model
from dpmodels.privacy import selection as selection_module
from dpmodels.rulelist import DPRuleListClassifier, GreedyRuleListClassifier
from dpmodels.rulelist.candidates import RuleCandidates
from dpmodels.rulelist.private import BINARY_ONLY, MECHANISMS, gini_global_sensitivity
from dpmodels.rulelist.split_stats import SplitStats, count_scaled_gini, count_scaled_gini_k


# ----------------------------------------------------------------- sensitivity (brute force)
def csg(counts):
    """Direct definition: n − Σ_k a_k²/n (0 for an empty child), in exact rationals."""
    from fractions import Fraction

    n = sum(counts)
    return Fraction(0) if n == 0 else Fraction(n) - Fraction(sum(a * a for a in counts), n)


def neighbours(counts):
    """Every add/remove-one-record neighbour of a class-count vector."""
    for k in range(len(counts)):
        for d in (1, -1):
            c = list(counts)
            c[k] += d
            if c[k] >= 0:
                yield tuple(c)


@pytest.mark.parametrize("K, top", [(2, 30), (3, 12), (4, 7)])
def test_k_class_gini_sensitivity_exhaustive(K, top):
    """Every count vector in [0, top]^K and every neighbour: the change lies in [0, 2) when a
    record is added (so |Δ| < 2 both ways) and the supremum is approached."""
    worst = 0
    for c in itertools.product(range(top + 1), repeat=K):
        base = csg(c)
        np.testing.assert_allclose(float(count_scaled_gini_k(np.array(c)[:, None], sum(c))[0]), float(base), atol=1e-9)
        for c2 in neighbours(c):
            d = csg(c2) - base
            if sum(c2) > sum(c):
                assert 0 <= d < 2, (c, c2, d)  # adding never lowers it: monotone
            else:
                assert -2 < d <= 0, (c, c2, d)
            worst = max(worst, abs(d))
    # the bound 2n/(n+1) at a pure child of n = top records receiving another class
    assert worst == pytest.approx(2 * top / (top + 1))


def test_k2_equals_the_binary_form():
    for a, b in itertools.product(range(25), repeat=2):
        assert float(count_scaled_gini_k(np.array([[a], [b]]), a + b)[0]) == pytest.approx(
            float(count_scaled_gini(b, a + b)), abs=1e-9
        )


def split_utility(cap, out, n_total, lam):
    """The default mechanism's utility: −[CSG(captured) + CSG(not captured) + max(0, λn − n_c)]."""
    return -(float(csg(cap) + csg(out)) + max(0.0, lam * n_total - sum(cap)))


@given(
    st.lists(st.integers(0, 25), min_size=3, max_size=3),
    st.lists(st.integers(0, 25), min_size=3, max_size=3),
    st.integers(0, 30),
    st.floats(0, 0.99),
)
@settings(max_examples=400, deadline=None)
def test_k_class_utility_sensitivity_below_2_plus_lambda(cap, out, other, lam):
    """A record lands in the captured child, the uncaptured child, or among the records earlier
    rules captured (``other``: only n moves): |Δu| < 2 + λ in every case (docs/privacy.md)."""
    n = sum(cap) + sum(out) + other
    u = split_utility(cap, out, n, lam)
    for c2 in neighbours(cap):
        assert abs(split_utility(c2, out, n + sum(c2) - sum(cap), lam) - u) < 2 + lam + 1e-12
    for o2 in neighbours(out):
        assert abs(split_utility(cap, o2, n + sum(o2) - sum(out), lam) - u) < 2 + lam + 1e-12
    for d in (1, -1) if other else (1,):
        assert abs(split_utility(cap, out, n + d, lam) - u) <= lam + 1e-12


# ----------------------------------------------------------------- counts
@pytest.mark.parametrize("width", [1, 2, 3])
def test_split_stats_k_class_counts_equal_a_direct_count(width):
    rng = np.random.default_rng(width)
    X = rng.integers(0, 2, size=(120, 5)).astype(float)
    y = rng.integers(0, 4, size=120)
    cands = RuleCandidates.from_features([f"x{i}" for i in range(5)], width)
    stats = SplitStats(cands, X, y, n_classes=4)
    remaining = rng.random(120) < 0.7
    for _ in range(2):  # the second call exercises the Gram downdate
        N, P, cap, cap_pos = stats(remaining)
        assert N == remaining.sum()
        np.testing.assert_array_equal(P, [np.sum(remaining & (y == k)) for k in (1, 2, 3)])
        for c in range(len(cands)):
            s = remaining & cands.support(X, c)
            assert cap[c] == s.sum()
            np.testing.assert_array_equal(cap_pos[:, c], [np.sum(s & (y == k)) for k in (1, 2, 3)])
            np.testing.assert_array_equal(stats.class_counts(N, P, cap, cap_pos, c), np.bincount(y[s], minlength=4))
        imp = stats.split_impurity(N, P, cap, cap_pos)
        c = 3
        s = remaining & cands.support(X, c)
        direct = float(
            csg(tuple(np.bincount(y[s], minlength=4))) + csg(tuple(np.bincount(y[remaining & ~s], minlength=4)))
        )
        assert imp[c] == pytest.approx(direct)
        remaining = remaining & (rng.random(120) < 0.8)


# ----------------------------------------------------------------- learners on real data
@pytest.fixture(scope="module")
def nursery():
    X, y = load_dataset("nursery", binarized=False)
    labels = list(y.attrs["classes"])
    cats = {c: list(X[c].cat.categories) for c in X.columns}
    Xb = Binarizer(categories=cats).fit_transform(X)
    return Xb, pd.Series(np.asarray(labels, dtype=object)[y.to_numpy()], name="class"), labels


def test_greedy_on_nursery_uses_five_classes(nursery):
    Xb, y, labels = nursery
    g = GreedyRuleListClassifier(classes=labels, max_rules=6).fit(Xb, y)
    assert list(g.classes_) == labels
    assert g.score(Xb, y) > 0.8  # three rules: 'health=not_recom' → not_recom, ...
    proba = g.predict_proba(Xb)
    assert proba.shape == (len(y), 5)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    rules = g.get_rules()
    assert [f"count_{c}" for c in labels] == [c for c in rules.columns if c.startswith("count_")]
    # exact counts: every rule's counts sum to its captured records, all of them to n
    assert rules[[f"count_{c}" for c in labels]].to_numpy().sum() == len(y)
    assert "not_recom" in g.to_text()


@pytest.mark.parametrize("mechanism", ["permute-and-flip", "gl-exponential", "gl-laplace", "gl-gaussian"])
def test_dp_rule_list_on_nursery(nursery, mechanism):
    Xb, y, labels = nursery
    kw = {"delta": 1e-6} if mechanism == "gl-gaussian" else {}
    d = DPRuleListClassifier(epsilon=1.0, classes=labels, max_rules=6, mechanism=mechanism, random_state=0, **kw).fit(
        Xb, y
    )
    led = d.privacy_ledger_
    assert led.is_private and led.epsilon_spent <= 1.0 + 1e-12
    assert all(len(r.counts) == 5 for r in d.rule_list_._all_rules())
    assert d.predict_proba(Xb).shape == (len(y), 5)
    if mechanism == "permute-and-flip":
        assert d.score(Xb, y) > 0.8  # as the greedy list, at ε = 1 on 12,960 records
    if mechanism.startswith("gl-") and mechanism != "gl-gaussian":
        sens = [r.sensitivity for r in led.rows if "pick among" in r.what]
        assert sens and all(s == pytest.approx(gini_global_sensitivity(5)) for s in sens)


def test_wine_three_classes():
    from sklearn.datasets import load_wine

    X, y = load_wine(return_X_y=True, as_frame=True)
    bounds = {c: (float(X[c].min()), float(X[c].max())) for c in X.columns}  # public here: a demo
    Xb = Binarizer(n_bins=3, bounds=bounds, epsilon=1.0, random_state=0).fit_transform(X)
    g = GreedyRuleListClassifier(classes=[0, 1, 2], max_rules=5).fit(Xb, y)
    assert g.score(Xb, y) > 0.85
    d = DPRuleListClassifier(epsilon=5.0, classes=[0, 1, 2], max_rules=5, random_state=0).fit(Xb, y)
    assert d.predict_proba(Xb).shape == (178, 3)


@pytest.mark.parametrize("mechanism", BINARY_ONLY)
def test_binary_only_mechanisms_refuse_k_classes_before_spending(mechanism, nursery):
    Xb, y, labels = nursery
    est = DPRuleListClassifier(classes=labels, mechanism=mechanism, delta=1e-6, random_state=0)
    with pytest.raises(ValueError, match="for two classes only") as exc:
        est.fit(Xb, y)
    assert "\n" not in str(exc.value)
    assert not hasattr(est, "privacy_ledger_")
    # the same mechanisms still fit two declared classes
    assert set(BINARY_ONLY) < set(MECHANISMS)


def test_k_class_lists_round_trip_through_save_and_load(nursery, tmp_path):
    Xb, y, labels = nursery
    for est in (
        GreedyRuleListClassifier(classes=labels, max_rules=6),
        DPRuleListClassifier(epsilon=1.0, classes=labels, max_rules=6, random_state=1),
    ):
        est.fit(Xb, y)
        p = save_model(est, tmp_path / "m.json")
        m = load_model(p)
        assert list(m.classes_) == labels
        np.testing.assert_array_equal(m.predict(Xb), est.predict(Xb))
        np.testing.assert_allclose(m.predict_proba(Xb), est.predict_proba(Xb))
        assert m.to_text().splitlines()[-1] == est.to_text().splitlines()[-1]


def test_from_dict_checks_k_class_counts_and_predictions(nursery):
    from dpmodels.rulelist.model import RuleList

    Xb, y, labels = nursery
    d = GreedyRuleListClassifier(classes=labels, max_rules=3).fit(Xb, y).rule_list_.to_dict()
    bad = {**d, "default": {**d["default"], "prediction": 5}}
    with pytest.raises(ValueError, match=r"class index in \[0, 5\)"):
        RuleList.from_dict(bad)
    bad = {**d, "default": {**d["default"], "counts": [1.0, 2.0]}}
    with pytest.raises(ValueError, match="5 numbers"):
        RuleList.from_dict(bad)


def test_undeclared_labels_keep_the_binary_schema():
    X = pd.DataFrame({"a": [0, 1, 0, 1], "b": [1, 1, 0, 0]})
    with pytest.raises(ValueError, match="declare yours with classes"):
        GreedyRuleListClassifier().fit(X, [0, 1, 2, 1])


# ----------------------------------------------------------------- empirical DP audit
def audit_neighbours():
    """D: f0, f1 both send the 20 class-2 records one way and 20 class-0 + 2 class-1 records the
    other. D' adds (f0=1, f1=0, class 0): f0's captured child becomes impure (its CSG rises by
    2·20/21 ≈ 1.9, near the bound) while f1's other child stays nearly pure (+0.016)."""
    rows = [(1, 1, 2)] * 20 + [(0, 0, 0)] * 20 + [(0, 0, 1)] * 2
    X = pd.DataFrame([r[:2] for r in rows], columns=["f0", "f1"])
    y = pd.Series([r[2] for r in rows], name="y")
    return X, y, pd.DataFrame([[1, 0]], columns=["f0", "f1"]), pd.Series([0], name="y")


def first_rule(model):
    rules = model.rule_list_.rules
    return rules[0].antecedent if rules else "stop"


def run_audit(n_runs, seed):
    X, y, x_new, y_new = audit_neighbours()
    Xp, yp = pd.concat([X, x_new], ignore_index=True), pd.concat([y, y_new], ignore_index=True)
    return audit_estimator(
        lambda s: DPRuleListClassifier(epsilon=1.0, max_rules=2, min_support=0.0, classes=[0, 1, 2], random_state=s),
        X,
        y,
        Xp,
        yp,
        first_rule,
        n_runs=n_runs,
        epsilon=1.0,
        random_state=seed,
    )


@pytest.fixture
def leaky_selection(monkeypatch):
    real = selection_module.permute_and_flip

    def leaky(u, epsilon, sensitivity, rng, **kw):
        return real(u, epsilon, sensitivity / 10.0, rng, **kw)  # noise 10× too small

    monkeypatch.setattr(selection_module, "permute_and_flip", leaky)


@pytest.mark.slow
def test_k_class_default_mechanism_passes_audit():
    res = run_audit(20_000, seed=21)
    print(res)
    assert res.passed, str(res)


@pytest.mark.slow
def test_k_class_planted_leak_is_flagged(leaky_selection):
    res = run_audit(2_000, seed=22)
    print(res)
    assert not res.passed, str(res)
    assert res.epsilon_lb > 1.0


def test_the_captured_criterion_stays_binary(nursery):
    """Paper 003's authors' greedy list is a two-class learner: K declared classes are refused."""
    Xb, y, labels = nursery
    with pytest.raises(ValueError, match="is for two classes; got 5 classes"):
        GreedyRuleListClassifier(classes=labels, criterion="captured").fit(Xb, y)


@pytest.mark.parametrize("mechanism", ["gl-laplace", "gl-gaussian"])
def test_the_papers_calibration_uses_the_k_class_gini_range(mechanism, nursery):
    """calibration='paper' with K classes: the claimed selections are calibrated to Δ = 1 − 1/K."""
    Xb, y, labels = nursery
    d = DPRuleListClassifier(
        epsilon=2.0, delta=1e-6, classes=labels, mechanism=mechanism, calibration="paper", max_rules=3, random_state=0
    ).fit(Xb.iloc[:2000], y.iloc[:2000])
    picks = [r for r in d.privacy_ledger_.rows if "pick among" in r.what]
    assert picks and all(r.guarantee == "claimed" for r in picks)
    assert all(r.sensitivity == pytest.approx(gini_global_sensitivity(5)) == pytest.approx(0.8) for r in picks)
    assert not d.privacy_ledger_.is_private


def test_the_pre_spend_checks_accept_k_declared_classes(nursery):
    """dpmodels.pipeline.validate_before_spend checks labels as fit does: K declared classes for
    GreedyRL / the DP list, two for the binary-only optimal list, {0, 1} without a label set."""
    from dpmodels.pipeline import validate_before_spend
    from dpmodels.rulelist import OptimalRuleListClassifier

    Xb, y, labels = nursery
    validate_before_spend([DPRuleListClassifier(classes=labels)], Xb, y)
    validate_before_spend([GreedyRuleListClassifier(classes=labels)], Xb, y)
    with pytest.raises(ValueError, match="exactly 2 labels"):
        validate_before_spend([OptimalRuleListClassifier(classes=labels)], Xb, y)
    with pytest.raises(ValueError, match="declare yours with classes"):
        validate_before_spend([DPRuleListClassifier()], Xb, y)
