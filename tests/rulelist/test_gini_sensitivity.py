"""Count-scaled Gini (docs/privacy.md, principle 2) and the default mechanism's utility (docs/privacy.md):
exhaustive and property checks of their sensitivity under add/remove of one record."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from dpmodels.rulelist.split_stats import count_scaled_gini


def split_csg(cp, cn, up, un):
    return float(count_scaled_gini(cp, cp + cn) + count_scaled_gini(up, up + un))


def utility(cp, cn, up, un, n_total, lam):
    """−[CSG + max(0, λ·n − n_c)] of the default mechanism."""
    return -(split_csg(cp, cn, up, un) + max(0.0, lam * n_total - (cp + cn)))


def neighbours(cells):
    """Add or remove one record in any cell of (captured+, captured−, uncaptured+, uncaptured−, other)."""
    for i in range(5):
        for d in (1, -1):
            c = list(cells)
            c[i] += d
            if c[i] >= 0:
                yield c


@given(st.lists(st.integers(0, 60), min_size=5, max_size=5), st.floats(0, 0.99))
@settings(max_examples=500, deadline=None)
def test_utility_sensitivity_below_2_plus_lambda(cells, lam):
    cp, cn, up, un, other = cells
    n = sum(cells)
    u = utility(cp, cn, up, un, n, lam)
    s = split_csg(cp, cn, up, un)
    for c in neighbours(cells):
        assert abs(split_csg(*c[:4]) - s) < 2.0  # docs/privacy.md, principle 2
        assert abs(utility(*c[:4], sum(c), lam) - u) < 2.0 + lam + 1e-12


def test_count_scaled_gini_bound_is_approached_exhaustively():
    """Exhaustive over small counts: the sup of the change is < 2 and gets close to 2."""
    worst = 0.0
    for a in range(0, 40):
        for b in range(0, 40):
            f = float(count_scaled_gini(a, a + b))
            worst = max(worst, abs(float(count_scaled_gini(a + 1, a + b + 1)) - f))
    assert 1.9 < worst < 2.0


def test_gini_ranking_equals_normalised_gini_ranking():
    """Eq. (1)+(2) normalised by ñ ranks candidates exactly as the count-scaled form."""
    rng = np.random.default_rng(0)
    N, P = 200, 80
    cap = rng.integers(1, N, 50)
    cp = np.minimum(rng.integers(0, P + 1, 50), cap)
    cp = np.maximum(cp, cap - (N - P))

    def g(p):
        return 1 - p**2 - (1 - p) ** 2

    normalised = cap / N * g(cp / cap) + (N - cap) / N * g((P - cp) / np.maximum(N - cap, 1))
    scaled = count_scaled_gini(cp, cap) + count_scaled_gini(P - cp, N - cap)
    assert np.allclose(normalised, scaled / N)


@given(st.lists(st.integers(0, 60), min_size=5, max_size=5), st.integers(0, 4))
@settings(max_examples=500, deadline=None)
def test_lambda_zero_utilities_are_monotone(cells, where):
    """With λ = 0 the default mechanism uses the monotone scale: adding a record (anywhere) can
    only raise every rule's split CSG and the parent's CSG ("stop"), never lower one."""
    cp, cn, up, un, other = cells
    added = list(cells)
    added[where] += 1
    assert split_csg(*added[:4]) >= split_csg(cp, cn, up, un) - 1e-12
    parent = float(count_scaled_gini(cp + up, cp + cn + up + un))
    parent_added = float(count_scaled_gini(added[0] + added[2], sum(added[:4])))
    assert parent_added >= parent - 1e-12
