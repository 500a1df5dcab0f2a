"""Fast prediction against plain row-by-row oracles: the blocked, level-synchronous routing of
``Tree.apply`` against a plain traversal, and ``RuleList.apply`` against a first-match scan.

Random trees mix numerical and categorical nodes; random inputs hold values beyond the bounds
the thresholds came from (a learner clips them at fit; prediction needs no clipping), categories
outside the public list, missing values in categorical columns, NaN in numerical ones (a schema
error), and come as DataFrames, C- and F-ordered arrays, strided views and narrow dtypes.
"""

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dpmodels.rulelist.model import Rule, RuleList
from dpmodels.tree.model import TREE_LEAF, Tree, encode_matrix
from dpmodels.validation import numeric_column

CATEGORIES = ["a", "b", "c", 3, 4.5]
UNKNOWN = ["zz", None, float("nan"), 7, "A"]


@st.composite
def trees(draw):
    m = draw(st.integers(1, 4))
    categorical = draw(st.lists(st.booleans(), min_size=m, max_size=m))
    n_classes = draw(st.integers(2, 3))
    left, right, feature, threshold, lcats = [-1], [-1], [-2], [math.nan], [None]
    frontier = [(0, 0)]
    max_depth = draw(st.integers(0, 5))
    while frontier:
        i, d = frontier.pop(0)
        if d >= max_depth or not draw(st.booleans() if d else st.just(True)):
            continue
        f = draw(st.integers(0, m - 1))
        feature[i] = f
        if categorical[f]:
            lcats[i] = tuple(draw(st.sets(st.integers(0, len(CATEGORIES) - 1), max_size=len(CATEGORIES))))
        else:
            threshold[i] = draw(st.floats(-10, 10))
        for side in (left, right):
            side[i] = len(feature)
            left.append(-1), right.append(-1), feature.append(-2), threshold.append(math.nan), lcats.append(None)
            frontier.append((side[i], d + 1))
    nn = len(feature)
    label = [draw(st.integers(0, n_classes - 1)) if left[i] == TREE_LEAF else -1 for i in range(nn)]
    return Tree(
        children_left=left,
        children_right=right,
        feature=feature,
        threshold=threshold,
        left_categories=lcats,
        value=np.ones((nn, n_classes)),
        label=label,
        classes=list(range(n_classes)),
        feature_names=[f"f{j}" for j in range(m)],
        categorical=categorical,
        categories={j: list(CATEGORIES) for j in range(m) if categorical[j]},
    )


def reference_codes(tree: Tree, X: pd.DataFrame) -> np.ndarray:
    """Encoding written plainly: a listed category's position (as a value: 3 == 3.0), -1 for
    anything else (missing values included); numbers as they are."""
    Z = np.empty(X.shape, dtype=float)
    for j in range(X.shape[1]):
        for r, v in enumerate(X.iloc[:, j].tolist()):
            if tree.categorical[j]:
                missing = v is None or (isinstance(v, float) and math.isnan(v))
                Z[r, j] = -1 if missing else next((c for c, u in enumerate(CATEGORIES) if u == v), -1)
            else:
                Z[r, j] = float(v)
    return Z


def raw_rows(tree: Tree, draw_values):
    return pd.DataFrame(
        {name: draw_values(bool(cat)) for name, cat in zip(tree.feature_names, tree.categorical)},
        columns=tree.feature_names,
    )


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tree=trees(), data=st.data())
def test_apply_matches_plain_traversal(tree, data):
    n = data.draw(st.integers(1, 40))
    numbers = st.floats(-1e3, 1e3) | st.sampled_from([-10.0, 10.0, 1e300, -1e300, 0.0])  # beyond ±10: clipped at fit
    cats = st.sampled_from(CATEGORIES + UNKNOWN)

    def column(cat):
        return data.draw(st.lists(cats if cat else numbers, min_size=n, max_size=n))

    X = raw_rows(tree, column)
    expected = tree.apply_reference(reference_codes(tree, X))
    np.testing.assert_array_equal(tree.apply(X), expected)
    np.testing.assert_array_equal(tree.predict(X), tree.classes[tree.label[expected]])
    Z = tree.encode(X)
    np.testing.assert_array_equal(tree.apply_encoded(np.asfortranarray(Z)), expected)
    np.testing.assert_array_equal(tree.apply_encoded(np.repeat(Z, 2, axis=0)[::2]), expected)
    if not tree.categorical.any():
        A = X.to_numpy(dtype=float)
        np.testing.assert_array_equal(tree.apply(A), expected)
        np.testing.assert_array_equal(tree.apply(np.asfortranarray(A)), expected)


@settings(max_examples=30, deadline=None)
@given(tree=trees(), data=st.data())
def test_apply_encoded_matches_plain_traversal_on_any_matrix(tree, data):
    """Also on matrices no encoder produces: NaN (goes right at numerical and categorical nodes),
    codes out of range, ±inf."""
    n = data.draw(st.integers(1, 30))
    values = st.floats(allow_nan=True, allow_infinity=True) | st.integers(-3, 7).map(float)
    Z = np.array(
        data.draw(
            st.lists(st.lists(values, min_size=tree.n_features, max_size=tree.n_features), min_size=n, max_size=n)
        )
    )
    with np.errstate(invalid="ignore"):
        got = tree.apply_encoded(Z)
    np.testing.assert_array_equal(got, tree.apply_reference(Z))


def test_blocks_and_depth_one_tree_on_many_rows():
    """More rows than one routing block, a stump, and a single leaf."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(20_000, 3))
    stump = Tree([1, -1, -1], [2, -1, -1], [2, -2, -2], [0.1, np.nan, np.nan], [None] * 3, np.ones((3, 2)),
                 [-1, 0, 1], [0, 1], ["a", "b", "c"], [False] * 3)  # fmt: skip
    np.testing.assert_array_equal(stump.apply(X), np.where(X[:, 2] <= 0.1, 1, 2))
    leaf = Tree([-1], [-1], [-2], [np.nan], [None], np.ones((1, 2)), [1], [0, 1], ["a", "b", "c"], [False] * 3)
    np.testing.assert_array_equal(leaf.apply(X), np.zeros(20_000))


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64, np.int8, np.uint16, bool])
@pytest.mark.parametrize("frame", [False, True])
def test_fast_encoding_equals_column_by_column(dtype, frame):
    rng = np.random.default_rng(1)
    A = (rng.normal(size=(50, 3)) * 50).astype(dtype)
    X = pd.DataFrame(A, columns=["a", "b", "c"]) if frame else A
    names, cat = ["a", "b", "c"], np.zeros(3, dtype=bool)
    slow = np.column_stack([numeric_column(A[:, j], names[j]) for j in range(3)])
    copied = encode_matrix(X, names, cat, {})
    view = encode_matrix(X, names, cat, {}, copy=False)
    np.testing.assert_array_equal(copied, slow)
    np.testing.assert_array_equal(view, slow)
    assert not np.may_share_memory(copied, A)
    assert copied.flags.writeable and not view.flags.writeable  # never a writable alias of X


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_fast_encoding_raises_the_column_error(bad):
    """The first bad column is named, with the same message as the column-by-column path."""
    X = np.zeros((5, 3))
    X[2, 1], X[4, 2] = bad, np.nan
    with pytest.raises(ValueError) as fast:
        encode_matrix(X, ["a", "b", "c"], np.zeros(3, dtype=bool), {}, copy=False)
    with pytest.raises(ValueError) as slow:
        numeric_column(X[:, 1], "b")
    assert str(fast.value) == str(slow.value)


def test_overflowing_sum_of_finite_values_is_finite():
    X = np.full((4, 2), 1e308)
    np.testing.assert_array_equal(encode_matrix(X, ["a", "b"], np.zeros(2, dtype=bool), {}), X)


@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_rule_list_apply_matches_first_match_scan(data):
    """Empty rules, repeated and contradictory literals, any integers (nonzero reads as 1)."""
    p = data.draw(st.integers(1, 5))
    names = [f"b{j}" for j in range(p)]
    literals = st.lists(st.tuples(st.sampled_from(names), st.booleans()), max_size=3)
    rules = [Rule(lits, data.draw(st.integers(0, 1))) for lits in data.draw(st.lists(literals, max_size=5))]
    rl = RuleList(feature_names=names, rules=rules, default=Rule([], 1))
    n = data.draw(st.integers(1, 30))
    X = np.array(data.draw(st.lists(st.lists(st.integers(0, 2), min_size=p, max_size=p), min_size=n, max_size=n)))
    expected = [
        next((k for k, r in enumerate(rules) if all(bool(row[int(f[1:])]) == pos for f, pos in r.literals)), len(rules))
        for row in X
    ]
    np.testing.assert_array_equal(rl.apply(X), expected)
    X01 = np.minimum(X, 1)
    np.testing.assert_array_equal(rl.apply(pd.DataFrame(X01, columns=names)), rl.apply(X01))
