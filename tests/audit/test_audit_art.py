"""Our black-box / shadow attacks against ART's MembershipInferenceBlackBox (optional extra)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.tree import DecisionTreeClassifier

from _extras import need
from dpmodels.audit import membership_inference

need("art")  # probed with warnings silenced (ART warns that PyTorch is absent)

from dpmodels.audit.art_adapter import art_membership_inference  # noqa: E402


def test_ours_and_art_agree_on_a_memorising_tree():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(2400, 5))
    y = rng.integers(0, 2, 2400)
    tree = DecisionTreeClassifier(random_state=0).fit(X[:600], y[:600])
    Xi, yi, Xo, yo, Xp, yp = X[:600], y[:600], X[600:1200], y[600:1200], X[1200:], y[1200:]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        art = art_membership_inference(tree, Xi, yi, Xo, yo, random_state=0)
    ours = membership_inference(tree, Xi, yi, Xo, yo, attack="black-box", random_state=0)
    shadow = membership_inference(
        tree, Xi, yi, Xo, yo, attack="shadow", X_pop=Xp, y_pop=yp, n_reference=8, random_state=0
    )
    np.testing.assert_array_equal(art.record_index, ours.record_index)  # same evaluation records
    assert art.auc == pytest.approx(0.75, abs=0.04)
    assert abs(art.auc - ours.auc) < 0.02
    assert abs(art.auc - shadow.auc) < 0.04
    # the attack model learns "p(true label) = 1 ⇒ member": scores agree record by record
    assert np.corrcoef(art.scores, ours.scores)[0, 1] > 0.95
