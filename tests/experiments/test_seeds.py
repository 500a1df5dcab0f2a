"""One seed derivation for the experiments (dpmodels.experiments.seeds), equal to the helpers it replaced."""

import zlib

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from dpmodels.experiments.paper_000 import accuracy, scripts
from dpmodels.experiments.paper_003 import dp as p3
from dpmodels.experiments.seeds import derive_seed, epsilon_key, fit_entropy

parts = st.lists(st.one_of(st.text(), st.integers(), st.floats(allow_nan=False)), min_size=1, max_size=6)


@given(parts)
def test_derive_seed_is_the_31_bit_crc_of_the_joined_parts(p):
    """The formula papers 002/003 and the library comparisons wrote out four times."""
    assert derive_seed(*p) == zlib.crc32("|".join(map(str, p)).encode()) & 0x7FFFFFFF


@given(st.text(), st.integers(0, 10**6), st.floats(1e-6, 1e6))
def test_fit_entropy_is_paper_000s_list_of_whole_checksums(name, run, eps):
    """The formula of paper 000's fit seeds (accuracy._crc, scripts._fit_seed)."""
    crc = zlib.crc32
    want = [2024, run, crc(name.encode()), crc(f"{float(eps):.12g}".encode())]
    assert fit_entropy(run, name, epsilon_key(eps)) == want == scripts._fit_seed(run, name, eps)


def test_committed_seeds_are_unchanged():
    """Values the replaced helpers returned (computed with them before the change)."""
    assert derive_seed("compas", "PrivaTree", 1.0, 0, 3) == 28224264
    assert derive_seed("adult", "LR", 0.5, 2) == 1066959460
    assert derive_seed("probe", "DP-EBM", 7) == 1158732185
    assert accuracy.fit_seed(2, "compas", "sm-Laplace", 1.0) == [2024, 2, 211222821, 3281461435, 2212294583]
    assert scripts._fit_seed(1, "sm-laplace K=3 x", 0.1) == [2024, 1, 3350666647, 2180199828]
    draws = p3._fit_rng("compas", 0, "PrivaTree", 2, "1").integers(0, 2**62, 3)
    assert draws.tolist() == [3755872227505092332, 1766172860637098387, 2158181892167728317]


def test_bits_are_checked():
    assert derive_seed("x", bits=32) == zlib.crc32(b"x")
    assert 0 <= derive_seed("x", bits=1) <= 1
    for bad in (0, 33):
        with pytest.raises(ValueError, match="bits must be in 1..32"):
            derive_seed("x", bits=bad)
    assert np.random.default_rng(derive_seed("a", 1)).integers(10) == np.random.default_rng(
        derive_seed("a", 1)
    ).integers(10)
