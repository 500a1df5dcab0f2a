"""Empirical DP audit of the additive models (docs/privacy.md, "Additive models"; principle 12).

Neighbours: D has 40 records of two features (a numerical x cut at the public point 0.5, a
categorical c); D' adds one record (x = 0.9, c = "a", y = 1). Two releases are audited, each with a
planted leak that the audit must flag:

* the histogram pass (``max_rounds=0``): the event is on the noisy size of the record's bin; the
  planted leak releases the histograms with noise 10× too small (the per-feature budget not split
  over the features is a 2× leak: too small to flag with few runs);
* a gradient round (``max_rounds=1``, feature x alone): the output audited is the round's noisy
  gradient sum of the record's bin, minus what D's own records contribute to it at the intercept
  released by the histogram pass — a fixed function of the two releases (D is public to the
  auditor), so any event on it is an event on the learner's output; without it the histogram
  noise, which moves every gradient, hides the round. The planted leak draws the round's noise 10×
  too small.

Both directions (D vs D' and D' vs D) and the complement of every event are tested by the auditor.
"""

import numpy as np
import pandas as pd
import pytest

from dpmodels.audit import audit_estimator
from dpmodels.gam import DPAdditiveClassifier

pytestmark = pytest.mark.slow

X_NEW = pd.DataFrame([{"x": 0.9, "c": "a"}])


def neighbours():
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"x": rng.random(40), "c": rng.choice(["a", "b"], 40)})
    y = pd.Series((X["x"] > 0.5).astype(int).to_numpy())
    Xp = pd.concat([X, X_NEW], ignore_index=True)
    yp = pd.concat([y, pd.Series([1])], ignore_index=True)
    return X, y, Xp, yp


def make(cls, **kw):
    def build(seed):
        return cls(
            epsilon=1.0,
            cut_points={"x": [0.5]},
            bounds={"x": (0.0, 1.0)},
            categories={"c": ["a", "b"]},
            classes=[0, 1],
            n_public=40,
            random_state=seed % 2**32,
            **kw,
        )

    return build


class LeakyHistograms(DPAdditiveClassifier):
    def _release(self, exact, scale, plan, rng):
        return super()._release(exact, scale / 10, plan, rng)


def bin_size(model):
    return int(model.model_.bin_counts[0][1])


class Recording(DPAdditiveClassifier):
    """Keeps every noisy vector it releases (the learner's outputs before post-processing)."""

    def _release(self, exact, scale, plan, rng):
        out = super()._release(exact, scale, plan, rng)
        self.released_ = [*getattr(self, "released_", []), out]
        return out


class LeakyRecording(Recording):
    def _round_scale(self, plan, l1, l2):
        return super()._round_scale(plan, l1, l2) / 10


def round_sum_beyond_d(model):
    """The released gradient sum of bin x > 0.5 in round 1, minus D's records' part of it at the
    released intercept, in gradient units (rounded to 0.25)."""
    from dpmodels.gam.estimator import GRADIENT_GRID

    X, y, _, _ = neighbours()
    hist, sums = model.released_[0], model.released_[1]
    tot = np.clip(np.clip(hist, 0, None).sum(axis=0).astype(float), 1.0, None)
    p1 = tot[1] / tot.sum()  # the logistic of the intercept log(tot1 / tot0)
    inside = (X["x"] > 0.5).to_numpy()
    g = np.rint(np.clip(y.to_numpy()[inside] - p1, -1, 1) * GRADIENT_GRID).sum()
    return round(float(sums[1, 0] - g) / GRADIENT_GRID * 4) / 4


def audit(cls, key, n_runs, seed, **kw):
    X, y, Xp, yp = neighbours()
    return audit_estimator(make(cls, **kw), X, y, Xp, yp, key, n_runs=n_runs, epsilon=1.0, random_state=seed)


def test_histogram_pass_passes_and_its_planted_leak_is_flagged():
    ok = audit(DPAdditiveClassifier, bin_size, 3000, 1, max_rounds=0)
    assert ok.passed, str(ok)
    leak = audit(LeakyHistograms, bin_size, 3000, 2, max_rounds=0)
    assert not leak.passed and leak.epsilon_lb > 1.0, str(leak)


def test_gradient_round_passes_and_its_planted_leak_is_flagged():
    kw = dict(max_rounds=1, histogram_share=0.5, init="prior")
    X, y, Xp, yp = neighbours()
    X, Xp = X[["x"]], Xp[["x"]]

    def build(cls):
        def b(seed):
            return cls(epsilon=1.0, cut_points={"x": [0.5]}, bounds={"x": (0.0, 1.0)}, classes=[0, 1],
                       n_public=40, random_state=seed % 2**32, **kw)  # fmt: skip

        return b

    ok = audit_estimator(build(Recording), X, y, Xp, yp, round_sum_beyond_d, 3000, 1.0, random_state=3)
    assert ok.passed, str(ok)
    leak = audit_estimator(build(LeakyRecording), X, y, Xp, yp, round_sum_beyond_d, 3000, 1.0, random_state=4)
    assert not leak.passed and leak.epsilon_lb > 1.0, str(leak)
