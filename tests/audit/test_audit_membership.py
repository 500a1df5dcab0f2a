"""Membership inference: ROC with ties, LiRA / RMIA formulas by hand, power and DP sanity checks."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats
from sklearn.metrics import roc_auc_score
from sklearn.metrics import roc_curve as sk_roc_curve
from sklearn.model_selection import train_test_split
from sklearn.tree import DecisionTreeClassifier

from _extras import need
from dpmodels.audit import ATTACKS, evaluate_scores, membership_inference, membership_inference_suite
from dpmodels.audit._references import inclusion_matrix, learner_factory, true_class_proba
from dpmodels.audit._roc import roc_auc, roc_curve
from dpmodels.audit.likelihood_ratio import (
    lira_offline,
    lira_online,
    logit_confidence,
    rmia_scores,
    tune_rmia_a,
)
from dpmodels.rulelist import DPRuleListClassifier

# ------------------------------------------------------------------------------------------ ROC


def test_roc_matches_sklearn_and_mann_whitney_with_ties():
    rng = np.random.default_rng(0)
    s = rng.integers(0, 6, 300).astype(float)  # coarse scores: many ties
    m = rng.random(300) < 0.4 + 0.05 * s
    fpr, tpr, thr, tp, fp = roc_curve(s, m)
    f2, t2, th2 = sk_roc_curve(m, s, drop_intermediate=False)
    np.testing.assert_allclose(fpr, f2)
    np.testing.assert_allclose(tpr, t2)
    np.testing.assert_allclose(thr[1:], th2[1:])
    pos, neg = s[m], s[~m]
    mw = ((pos[:, None] > neg[None, :]).sum() + 0.5 * (pos[:, None] == neg[None, :]).sum()) / (len(pos) * len(neg))
    assert roc_auc(fpr, tpr) == pytest.approx(mw)
    assert roc_auc(fpr, tpr) == pytest.approx(roc_auc_score(m, s))
    assert tp[-1] == m.sum() and fp[-1] == (~m).sum()


def test_tpr_at_fpr_interpolates_between_vertices():
    # members 3, 2, 2, 1; non-members 2, 1, 1, 0 -> vertices (0,0), (0,1/4), (1/4,3/4), (3/4,1), (1,1)
    r = evaluate_scores([3, 2, 2, 1, 2, 1, 1, 0], [1, 1, 1, 1, 0, 0, 0, 0])
    np.testing.assert_allclose(r.fpr, [0, 0, 0.25, 0.75, 1])
    np.testing.assert_allclose(r.tpr, [0, 0.25, 0.75, 1, 1])
    assert r.tpr_at(0.0) == 0.25  # the vertical jump at FPR 0: the highest TPR there
    assert r.tpr_at(0.125) == pytest.approx(0.5)  # randomised threshold at the tie "2"
    assert r.tpr_at(0.5) == pytest.approx(0.875)
    assert r.auc == pytest.approx(0.25 * 0.5 * (0.25 + 0.75) + 0.5 * 0.5 * (0.75 + 1) + 0.25)
    assert r.epsilon_estimate(0.125) == pytest.approx(math.log(4))
    with pytest.raises(ValueError, match="members and non-members"):
        evaluate_scores([1, 2], [1, 1])


# ----------------------------------------------------------------------------------- LiRA/RMIA


def test_lira_formulas_by_hand():
    phi_ref = np.array([[1.0], [3.0], [-1.0], [1.0]])
    in_mask = np.array([[True], [True], [False], [False]])
    # IN: mean 2, var 2; OUT: mean 0, var 2; observation 2 -> log N(2;2,2) − log N(2;0,2) = 4/4
    assert lira_online([2.0], phi_ref, in_mask, fix_variance=False)[0] == pytest.approx(1.0)
    direct = stats.norm.logpdf(0.5, 2, math.sqrt(2)) - stats.norm.logpdf(0.5, 0, math.sqrt(2))
    assert lira_online([0.5], phi_ref, in_mask, fix_variance=False)[0] == pytest.approx(direct)
    assert lira_offline([2.0], phi_ref[2:])[0] == pytest.approx(2 / math.sqrt(2))
    # fixed variance: pooled within-record variance Σ(n−1)s² / Σ(n−1) over two records
    two = np.array([[0.0, 0.0], [2.0, 6.0], [4.0, 3.0]])  # record 1: var 4; record 2: var 9
    assert lira_offline([2.0, 3.0], two, fix_variance=True) == pytest.approx([0.0, 0.0])
    assert lira_offline([4.0, 3.0], two, fix_variance=True)[0] == pytest.approx(2 / math.sqrt(6.5))
    assert logit_confidence(0.5) == 0.0
    assert logit_confidence(1.0, clip=1e-3) == pytest.approx(math.log(0.999 / 0.001))
    with pytest.raises(ValueError, match="IN and one OUT"):
        lira_online([0.0], phi_ref[:2], in_mask[:2])


def test_rmia_formulas_by_hand():
    # x: references (OUT) give 0.4 and 0.6 -> Pr_OUT = 0.5; a = 0.5: Pr(x) = ½(1.5·0.5 + 0.5) = 0.625
    p_ref_x = np.array([[0.4], [0.6]])
    # z1: Pr = 0.625, p = 0.625 -> ratio 1; z2: Pr = 1, p = 0.5 -> 0.5; z3: Pr = 0.25, p = 0.5 -> 2
    p_ref_z = np.array([[0.5, 1.0, 0.0], [0.5, 1.0, 0.0]])
    p_z = np.array([0.625, 0.5, 0.5])
    out_x, out_z = np.zeros_like(p_ref_x, bool), np.zeros_like(p_ref_z, bool)
    # p(x) = 0.75 -> ratio 1.2: LR = 1.2, 2.4, 0.6 against z1, z2, z3
    s1 = rmia_scores([0.75], p_ref_x, out_x, p_z, p_ref_z, out_z, a=0.5, gamma=1.0)
    s2 = rmia_scores([0.75], p_ref_x, out_x, p_z, p_ref_z, out_z, a=0.5, gamma=2.0)
    assert s1[0] == pytest.approx(2 / 3) and s2[0] == pytest.approx(1 / 3)
    # online: Pr = ½(mean IN + mean OUT), equal weights whatever the counts
    p_ref = np.array([[0.9], [0.8], [0.2]])
    inm = np.array([[True], [True], [False]])
    zs = rmia_scores([0.85], p_ref, inm, [0.5], np.array([[0.5], [0.5], [0.5]]), inm, online=True)
    assert zs[0] == 1.0  # ratio_x = 0.85/0.525 > ratio_z = 1
    with pytest.raises(ValueError, match="gamma"):
        rmia_scores([0.5], p_ref_x, out_x, p_z, p_ref_z, out_z, gamma=0)


def test_rmia_a_tuning_prefers_signal():
    rng = np.random.default_rng(0)
    keep = inclusion_matrix(400, 8, 200, rng)
    p = np.where(keep, 0.9, 0.5) + rng.normal(0, 0.02, keep.shape)  # IN raises p
    a, aucs = tune_rmia_a(p, keep)
    assert 0.0 <= a <= 1.0 and aucs[a] > 0.9


def test_inclusion_design_and_fresh_reference_seeds():
    keep = inclusion_matrix(100, 10, 30, np.random.default_rng(0))
    assert (keep.sum(axis=0) == 3).all()  # every record IN exactly round(q·R) references
    make = learner_factory(DPRuleListClassifier(epsilon=1.0, random_state=7), None)
    a, b = make(1), make(2)
    assert (a.random_state, b.random_state) == (1, 2)  # the learner's fixed seed is replaced
    with pytest.raises(TypeError, match="clone"):
        learner_factory(None, object())
    proba = np.array([[0.2, 0.8], [0.6, 0.4]])
    assert true_class_proba(proba, np.array([1, 5]), [0, 1]).tolist() == [0.8, 0.0]


# ---------------------------------------------------------------------------- attacks end-to-end


@pytest.fixture(scope="module")
def memorising():
    """A fully grown tree on random labels: members are predicted perfectly, others by chance."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(1600, 5))
    y = rng.integers(0, 2, 1600)
    tree = DecisionTreeClassifier(random_state=0).fit(X[:400], y[:400])
    return tree, (X[:400], y[:400]), (X[400:800], y[400:800]), (X[800:], y[800:])


@pytest.mark.parametrize("attack", ATTACKS)
def test_every_attack_has_power_on_a_memorising_tree(memorising, attack):
    tree, (Xi, yi), (Xo, yo), (Xp, yp) = memorising
    r = membership_inference(tree, Xi, yi, Xo, yo, attack=attack, X_pop=Xp, y_pop=yp, n_reference=16, random_state=0)
    assert r.auc > 0.68, (attack, r.auc)  # the loss threshold's ideal here is 0.75
    assert r.scores.shape == r.membership.shape
    if attack == "threshold":
        assert r.auc == pytest.approx(0.75, abs=0.03)


@pytest.fixture(scope="module")
def dp_rule_list(compas):
    X, y = compas
    Xt, Xp, yt, yp = train_test_split(X, y, test_size=0.5, random_state=0)
    Xi, Xo, yi, yo = train_test_split(Xt, yt, test_size=0.3, random_state=0)
    m = DPRuleListClassifier(epsilon=0.1, max_rules=5, min_support=0.05, random_state=0).fit(Xi, yi)
    return m, (Xi, yi), (Xo, yo), (Xp.iloc[:1500], yp.iloc[:1500])


@pytest.mark.parametrize("attack", ATTACKS)
def test_every_attack_is_near_chance_on_a_dp_rule_list(dp_rule_list, attack):
    m, (Xi, yi), (Xo, yo), (Xp, yp) = dp_rule_list
    r = membership_inference(m, Xi, yi, Xo, yo, attack=attack, X_pop=Xp, y_pop=yp, n_reference=8, random_state=0)
    assert abs(r.auc - 0.5) < 0.06, (attack, r.auc)


def test_result_helpers_and_epsilon_bounds():
    rng = np.random.default_rng(1)
    m = np.r_[np.ones(2000, bool), np.zeros(2000, bool)]
    perfect = evaluate_scores(m.astype(float), m)
    lb = perfect.epsilon_lower_bound(alpha=0.05)
    assert 5.0 < lb < math.log(1000)  # ≈ ln(n_est / ln(4/α)) with 1 000 records per side
    noise = evaluate_scores(rng.random(4000), m)
    assert noise.epsilon_lower_bound() < 0.3
    assert noise.summary()["n_members"] == 2000
    with pytest.raises(ValueError, match="selection_fraction"):
        noise.epsilon_lower_bound(selection_fraction=1.0)


def test_plot_roc():
    need("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    r = evaluate_scores([3, 2, 2, 1, 2, 1, 1, 0], [1, 1, 1, 1, 0, 0, 0, 0], attack="x")
    ax = r.plot_roc()
    assert ax.get_xscale() == "log" and ax.get_yscale() == "log"


def test_errors(memorising):
    tree, (Xi, yi), (Xo, yo), (Xp, yp) = memorising
    with pytest.raises(ValueError, match="unknown attack"):
        membership_inference(tree, Xi, yi, Xo, yo, attack="magic")
    for attack in ("shadow", "lira-offline", "rmia", "rmia-online"):
        with pytest.raises(ValueError, match="population"):
            membership_inference(tree, Xi, yi, Xo, yo, attack=attack)
    with pytest.raises(TypeError, match="predict_proba"):
        membership_inference(object(), Xi, yi, Xo, yo)
    with pytest.raises(ValueError, match="attack_train_fraction"):
        membership_inference(tree, Xi, yi, Xo, yo, attack="black-box", attack_train_fraction=1.0)
    with pytest.raises(ValueError, match="n_reference"):
        membership_inference(tree, Xi, yi, Xo, yo, attack="lira", n_reference=1)
    with pytest.raises(ValueError, match="reference_size"):
        membership_inference(tree, Xi, yi, Xo, yo, attack="lira-offline", X_pop=Xp, y_pop=yp, reference_size=len(Xp))


def test_suite_shares_references(memorising, monkeypatch):
    import dpmodels.audit._references as refs

    tree, (Xi, yi), (Xo, yo), (Xp, yp) = memorising
    calls = []
    real = refs.fit_references
    monkeypatch.setattr(refs, "fit_references", lambda *a, **k: calls.append(1) or real(*a, **k))
    res = membership_inference_suite(tree, Xi, yi, Xo, yo, X_pop=Xp, y_pop=yp, n_reference=8, random_state=0)
    assert list(res) == list(ATTACKS) and len(calls) == 2  # one online and one offline set
    assert all(r.auc > 0.68 for r in res.values())
    only = membership_inference_suite(tree, Xi, yi, Xo, yo, n_reference=8, random_state=0)
    assert set(only) == {"threshold", "black-box", "lira"}


@pytest.mark.slow
def test_lira_and_rmia_beat_the_loss_threshold_at_low_fpr():
    """Memorised mislabelled records: the reference-model attacks find them, the loss cannot."""
    gains = {a: [] for a in ("threshold", "lira", "lira-offline", "rmia", "rmia-online")}
    for seed in range(3):
        rng = np.random.default_rng(seed)
        X = rng.normal(size=(4000, 5))
        y = ((X[:, 0] + X[:, 1] > 0) ^ (rng.random(4000) < 0.1)).astype(int)
        tree = DecisionTreeClassifier(max_depth=20, random_state=0).fit(X[:1000], y[:1000])
        res = membership_inference_suite(
            tree,
            X[:1000],
            y[:1000],
            X[1000:2000],
            y[1000:2000],
            attacks=list(gains),
            X_pop=X[2000:],
            y_pop=y[2000:],
            n_reference=64,
            random_state=seed,
        )
        for a, r in res.items():
            gains[a].append(r.tpr_at(0.01))
    base = np.mean(gains.pop("threshold"))
    for a, v in gains.items():
        assert np.mean(v) > 3 * base, (a, np.mean(v), base)


@pytest.mark.slow
def test_attacks_stay_at_chance_on_dp_rule_lists_with_many_references(compas):
    X, y = compas
    aucs = {a: [] for a in ATTACKS}
    for seed in range(4):
        Xt, Xp, yt, yp = train_test_split(X, y, test_size=0.5, random_state=seed)
        Xi, Xo, yi, yo = train_test_split(Xt, yt, test_size=0.3, random_state=seed)
        m = DPRuleListClassifier(epsilon=0.1, max_rules=5, min_support=0.05, random_state=seed).fit(Xi, yi)
        res = membership_inference_suite(
            m, Xi, yi.to_numpy(), Xo, yo.to_numpy(), X_pop=Xp, y_pop=yp.to_numpy(), n_reference=64, random_state=seed
        )
        for a, r in res.items():
            aucs[a].append(r.auc)
    for a, v in aucs.items():
        assert abs(np.mean(v) - 0.5) < 0.03, (a, v)


class FixedProba:
    """A 'fitted model' whose predict_proba returns column 0 of X as P(class 1)."""

    classes_ = np.array([0, 1])

    def predict_proba(self, X):
        p1 = np.asarray(X, dtype=float)[:, 0]
        return np.column_stack([1 - p1, p1])


def test_threshold_scores_are_log_true_class_probability():
    X_in, y_in = np.array([[0.9], [0.2]]), np.array([1, 0])
    X_out, y_out = np.array([[0.6], [0.0]]), np.array([1, 1])
    r = membership_inference(FixedProba(), X_in, y_in, X_out, y_out)
    np.testing.assert_allclose(r.scores[:3], np.log([0.9, 0.8, 0.6]))
    assert r.scores[3] == pytest.approx(np.log(1e-300))  # p = 0 is clipped, not −inf
    assert r.auc == 1.0
