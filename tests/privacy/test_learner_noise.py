"""Learners never draw noise themselves: every noisy release of the tree learners goes through a
function of :mod:`dpmodels.privacy.mechanisms` (the learner decides the budget and records it;
the mechanism only draws). The moved releases keep the same draws (tests/tree/test_privatree_identity.py
pins whole models); here each new mechanism is checked against a direct draw, and the sources
against a direct call of a sampler."""

import pathlib
import re

import numpy as np
import pytest

from dpmodels.privacy import mechanisms, samplers

SRC = pathlib.Path(__file__).resolve().parents[2] / "src" / "dpmodels"
# every learner and preprocessing step (the experiments draw noise on purpose: 000-fig1 plots it)
LEARNERS = ["tree", "rulelist", "data", "gam", "model_selection.py", "pipeline.py"]
DRAWS = re.compile(
    r"samplers\.(laplace|discrete_laplace|discrete_gaussian|gaussian|gumbel|exponential|heavy_tailed)\b"
    r"|\bdiscrete_laplace\(|\brng\.(laplace|geometric|normal|gumbel|exponential)\("
)


@pytest.mark.parametrize("where", LEARNERS)
def test_learners_do_not_call_noise_samplers(where):
    p = SRC / where
    files = [p] if p.is_file() else sorted(p.rglob("*.py"))
    assert files
    offenders = [
        f"{f.name}:{i}" for f in files for i, line in enumerate(f.read_text().splitlines(), 1) if DRAWS.search(line)
    ]
    assert offenders == []


def test_noisy_count_is_the_count_plus_one_discrete_laplace_draw():
    for seed in range(5):
        want = 1234 + int(samplers.discrete_laplace(1.0 / 0.05, 1, np.random.default_rng(seed))[0])
        assert mechanisms.noisy_count(1234, 0.05, np.random.default_rng(seed)) == want


def test_discrete_laplace_counts_uses_the_callers_scale():
    H = np.arange(24, dtype=np.int64).reshape(2, 3, 4)
    got = mechanisms.discrete_laplace_counts(H, 7.5, np.random.default_rng(3))
    assert got.dtype == np.int64
    assert np.array_equal(got, H + samplers.discrete_laplace(7.5, H.shape, np.random.default_rng(3)))


def test_noisy_counts_argmax_labels_are_the_argmax_of_the_released_counts():
    rng = np.random.default_rng(0)
    H = rng.integers(0, 50, size=(200, 3))
    noisy, labels = mechanisms.noisy_counts_argmax(H, 0.3, np.random.default_rng(1))
    r = np.random.default_rng(1)
    assert np.array_equal(noisy, H + samplers.discrete_laplace(1 / 0.3, H.shape, r))
    assert np.all(noisy[np.arange(200), labels] == noisy.max(axis=1))  # an argmax of each row
    # ties are broken at random, not always towards the first class
    ties = np.tile([5, 5], (4000, 1))
    _, lab = mechanisms.noisy_counts_argmax(ties, 1e9, np.random.default_rng(2))
    assert 0.45 < lab.mean() < 0.55
