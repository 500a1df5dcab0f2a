"""BDPT and DPGDF as paper 002 ran them (``variant="published"``): they fit, their ledgers are
not proven private, and the published sensitivities match brute force."""

import itertools
import math
import warnings

import numpy as np
import pandas as pd
import pytest

from dpmodels.tree.baselines import BDPTClassifier, DPGDFClassifier
from dpmodels.tree.baselines.bdpt import gini_sensitivity
from dpmodels.tree.baselines.dpgdf import smooth_majority_sensitivity


def mixed_data(n=500, seed=0):
    rng = np.random.default_rng(seed)
    df = pd.DataFrame(
        {
            "age": rng.integers(18, 90, n).astype(float),
            "colour": pd.Categorical(rng.choice(["red", "green", "blue"], n), categories=["blue", "green", "red"]),
            "size": rng.normal(0, 1, n),
            "shape": pd.Categorical(rng.choice(["a", "b"], n), categories=["a", "b"]),
        }
    )
    y = ((df["age"] > 50) & (df["colour"] != "blue")).astype(int).to_numpy()
    return df, y


PUBLIC = dict(bounds=([18.0, -5.0], [90.0, 5.0]), classes=[0, 1])


def _fit(est, X, y):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return est.fit(X, y)


def _weighted_gini(children):
    n = sum(sum(c) for c in children)
    total = 0.0
    for c in children:
        m = sum(c)
        if m:
            total += m * (1 - sum((a / m) ** 2 for a in c))
    return total / n if n else 0.0


@pytest.mark.parametrize("n", range(1, 13))
def test_gini_sensitivity_is_the_brute_force_change_when_one_record_is_added(n):
    # every binary-labelled node of n records split two ways, every record added
    worst = 0.0
    for a0, a1, b0 in itertools.product(range(n + 1), repeat=3):
        b1 = n - a0 - a1 - b0
        if b1 < 0:
            continue
        base = _weighted_gini([(a0, a1), (b0, b1)])
        for k in range(4):
            add = [0, 0, 0, 0]
            add[k] = 1
            new = _weighted_gini([(a0 + add[0], a1 + add[1]), (b0 + add[2], b1 + add[3])])
            worst = max(worst, abs(new - base))
    assert float(gini_sensitivity(n)) == pytest.approx(worst, abs=1e-12)
    # the literal form of the published formula
    assert float(gini_sensitivity(n)) == pytest.approx(1 - (n / (n + 1)) ** 2 - (1 / (n + 1)) ** 2)


def test_gini_sensitivity_at_size_n_does_not_bound_a_removal():
    # a neighbour with one record fewer changes G by up to g(n − 1) > g(n): evaluated at the
    # node's own (or a noisy) size the bound is local, not global (the published claim)
    for n in range(2, 40):
        assert gini_sensitivity(n - 1) > gini_sensitivity(n)


def test_smooth_majority_sensitivity_formula():
    for counts, eps in [((10, 3), 0.1), ((3, 10, 2), 0.5), ((4, 4), 1.0), ((7,), 0.2)]:
        c = sorted(counts, reverse=True)
        gap = c[0] - c[1] if len(c) > 1 else c[0]
        assert smooth_majority_sensitivity(counts, eps) == pytest.approx(math.exp(-gap * eps))


def test_smooth_majority_labelling_is_not_epsilon_dp():
    # neighbours with count gaps g and g + 1: the minority label's probability ratio
    # exp(ε e^{gε}(e^ε − 1)) exceeds e^ε (docs/privacy.md, "BDPT and DPGDF as published")
    eps, g = 0.1, 50

    def p_minority(gap):
        w = eps / smooth_majority_sensitivity((gap, 0), eps)  # monotone exponential mechanism
        return 1.0 / (1.0 + math.exp(w))

    assert math.log(p_minority(g) / p_minority(g + 1)) > eps


@pytest.mark.parametrize("Est", [BDPTClassifier, DPGDFClassifier])
def test_published_variant_fits_and_its_ledger_is_not_private(Est):
    X, y = mixed_data()
    kw = dict(PUBLIC) if Est is BDPTClassifier else dict(classes=[0, 1])
    rig = _fit(Est(epsilon=2.0, max_depth=3, random_state=0, **kw), X, y)
    pub = _fit(Est(epsilon=2.0, max_depth=3, random_state=0, variant="published", **kw), X, y)
    assert rig.privacy_ledger_.is_private
    led = pub.privacy_ledger_
    assert not led.is_private
    assert led.epsilon_spent == pytest.approx(2.0)
    guarantees = {r.guarantee for r in led.rows}
    assert "claimed" in guarantees and "none" in guarantees  # split / leaf claims and the stopping leak
    assert any("stopping rule" in r.what for r in led.leaks)
    assert all(r.guarantee == "claimed" for r in led.rows if "split selection" in r.what)
    assert pub.score(X, y) > 0.6
    with warnings.catch_warnings():  # a numpy frame has no feature names (scikit-learn warns)
        warnings.simplefilter("ignore", UserWarning)
        assert np.array_equal(pub.predict(X.to_numpy(dtype=object)), pub.predict(X))


def test_bdpt_published_groups_numerical_values_and_tests_one_group_vs_the_rest():
    X, y = mixed_data()
    m = _fit(BDPTClassifier(epsilon=5.0, max_depth=3, random_state=1, variant="published", **PUBLIC), X, y)
    assert any("groups of 5" in r.what for r in m.privacy_ledger_.leaks)
    starts = m.group_starts_["age"]
    assert np.array_equal(starts, np.unique(X["age"])[::5])
    # every feature of the fitted tree is categorical (groups), tests are one value vs the rest
    assert m.tree_.categorical.all()
    # prediction maps new values to the training groups: a value below the first group joins group 0
    row = X.iloc[:1].copy()
    low = row.copy()
    low["age"] = starts[0] - 100.0
    first = row.copy()
    first["age"] = starts[0]
    assert m.apply(low)[0] == m.apply(first)[0]


def test_dpgdf_published_stops_on_pure_and_small_nodes():
    X, y = mixed_data(n=60)
    y = np.zeros(len(X), dtype=int)  # pure root: a single leaf, no split selection spent
    m = _fit(DPGDFClassifier(epsilon=1.0, max_depth=3, classes=[0, 1], random_state=0, variant="published"), X, y)
    assert len(m.tree_.feature) == 1
    assert not any("split selection" in r.what for r in m.privacy_ledger_.rows)
    assert m.predict(X).tolist() == [0] * len(X)  # the gap 60 at ε/2: the majority wins


@pytest.mark.parametrize("Est", [BDPTClassifier, DPGDFClassifier])
def test_bad_variant_is_refused_before_any_spend(Est):
    X, y = mixed_data(n=50)
    with pytest.raises(ValueError, match="variant"):
        Est(epsilon=1.0, classes=[0, 1], variant="paper").fit(X, y)


def test_bdpt_published_cannot_be_saved(tmp_path):
    from dpmodels.io import save_model

    X, y = mixed_data(n=100)
    m = _fit(BDPTClassifier(epsilon=1.0, max_depth=2, random_state=0, variant="published", **PUBLIC), X, y)
    with pytest.raises(TypeError, match="variant='published'"):
        save_model(m, tmp_path / "m.json")
    assert not (tmp_path / "m.json").exists()
