"""Rule candidates that know the feature groups: nothing dropped could capture a set of records no
kept candidate captures (brute force over every input the schema allows), the groups declared for
the bundled binarizations hold on their files, and the learners read the declaration."""

import itertools
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpmodels.data import Binarizer, check_feature_groups, load_dataset
from dpmodels.data.schema import binarized_feature_groups
from dpmodels.rulelist import DPRuleListClassifier, GreedyRuleListClassifier
from dpmodels.rulelist.candidates import RuleCandidates


# ------------------------------------------------------------------ brute force
def universe(specs):
    """Every input the declaration allows, one point per atom of each grouped feature (plus both
    values of each ungrouped column), as a 0/1 matrix over the columns."""
    feats = {}
    for j, s in enumerate(specs):
        if s is not None:
            feats.setdefault(s[0], (s[1], []))[1].append(j)
    axes, free = [], [j for j, s in enumerate(specs) if s is None]
    for kind, cols in feats.values():
        if kind == "category":
            values = list(dict.fromkeys(specs[j][2] for j in cols)) + [object()]  # + an unknown
            pts = [[int(specs[j][2] == v) for j in cols] for v in values]
        else:
            ends = sorted({e for j in cols for e in specs[j][2] if math.isfinite(e)})
            reps = list(ends) + [(ends[-1] + 1) if ends else 0.0]  # e is in the cell (prev, e]
            pts = [[int(specs[j][2][0] < x <= specs[j][2][1]) for j in cols] for x in reps]
        axes.append((cols, pts))
    rows = []
    for combo in itertools.product(*[p for _, p in axes], *[[0, 1]] * len(free)):
        row = np.zeros(len(specs), dtype=np.int8)
        for (cols, _), pt in zip(axes, combo[: len(axes)]):
            row[cols] = pt
        row[free] = combo[len(axes) :]
        rows.append(row)
    return np.array(rows)


def supports(cands, U):
    return {tuple(cands.support(U, i)): int(cands.width[i]) for i in range(len(cands))}


def check_pruning(names, groups, width):
    specs = check_feature_groups(groups, names)
    full = RuleCandidates.from_features(names, width)
    kept = RuleCandidates.from_features(names, width, specs)
    U = universe(specs)
    kept_sup = {}
    for i in range(len(kept)):
        s = tuple(kept.support(U, i))
        kept_sup[s] = min(kept_sup.get(s, 99), int(kept.width[i]))
    kept_names = set(kept.names)
    assert kept.n_pruned == len(full) - len(kept)
    for i in range(len(full)):
        if full.name(i) in kept_names:
            continue
        s = tuple(full.support(U, i))
        # a pruned candidate is empty on every input, or equal to a kept one with fewer literals
        assert not any(s) or kept_sup.get(s, 99) < int(full.width[i]), full.name(i)
    # so every set of inputs a candidate can capture is still captured by a kept one
    assert {s for s in supports(full, U) if any(s)} <= set(kept_sup)
    return full, kept


def test_category_group_drops_impossible_and_redundant_pairs():
    names = ["race=A", "race=B", "race=C", "z"]
    groups = {f"race={v}": dict(feature="race", kind="category", value=v) for v in "ABC"}
    full, kept = check_pruning(names, groups, 2)
    k = set(kept.names)
    assert "race=A and race=B" not in k and "race=A and not race=B" not in k
    assert "not race=A and race=B" not in k
    assert "race≠A and race≠B" in k  # "neither A nor B": C or unknown
    assert "race=A and z" in k and "race=A" in k
    assert len(full) - len(kept) == 3 * 3  # three pairs, three of four polarities each


@settings(max_examples=60, deadline=None)
@given(
    n_atoms=st.integers(1, 20),
    masks=st.lists(st.integers(0, 2**20 - 1), min_size=1, max_size=9),
)
def test_group_pair_tables_vectorised_equal_the_loop(n_atoms, masks):
    """The numpy tables of one group (bitmasks below 2^63) equal the Python-integer loop."""
    from dpmodels.data.rules import _group_pairs_loop, _group_pairs_vectorised

    full = (1 << n_atoms) - 1
    masks = [m & full for m in masks]
    k1, s1 = _group_pairs_loop(masks, full)
    k2, s2 = _group_pairs_vectorised(masks, full)
    assert np.array_equal(k1, k2) and np.array_equal(s1, s2)


def test_a_category_group_beyond_63_values_prunes_like_a_small_one():
    """70 values (71 atoms with "other"): the Python-integer path; the same pruning pattern."""
    names = [f"c={v}" for v in range(70)] + ["z"]
    groups = {n: dict(feature="c", kind="category", value=str(v)) for v, n in enumerate(names[:-1])}
    kept = RuleCandidates.from_features(names, 2, check_feature_groups(groups, names))
    k = set(kept.names)
    assert "c=0 and c=69" not in k and "c=0 and not c=69" not in k and "not c=0 and c=69" not in k
    assert "c≠0 and c≠69" in k and "c=0 and z" in k and "c=69" in k
    # every pair of values loses three of its four polarities
    assert kept.n_pruned == 3 * (70 * 69 // 2)


def test_thermometer_group_keeps_only_intervals():
    names = ["age<=20", "age<=30", "age<=45"]
    groups = {n: dict(feature="age", kind="interval", value=[None, float(n[5:])]) for n in names}
    _, kept = check_pruning(names, groups, 3)
    two = [n for n in kept.names if " and " in n]
    assert two == ["age>20 and age<=30", "age>20 and age<=45", "age>30 and age<=45"]


def test_compas_style_overlapping_intervals():
    g = binarized_feature_groups("compas")
    names = [c for c in g if g[c]["feature"] in ("age", "prior_crimes")] + ["Gender=Male"]
    check_pruning(names, {c: g[c] for c in names if c in g}, 2)


def test_exhaustive_bins_drop_the_complement_pair():
    names = ["x<=0", "0<x<=1", "x>1"]
    groups = {
        "x<=0": dict(feature="x", kind="interval", value=[None, 0]),
        "0<x<=1": dict(feature="x", kind="interval", value=[0, 1]),
        "x>1": dict(feature="x", kind="interval", value=[1, None]),
    }
    _, kept = check_pruning(names, groups, 2)
    assert "not x<=0 and not 0<x<=1" not in kept.names  # equals x>1


@st.composite
def schemas(draw):
    names, groups = [], {}
    for f in range(draw(st.integers(1, 3))):
        kind = draw(st.sampled_from(["category", "interval"]))
        k = draw(st.integers(1, 4))
        for c in range(k):
            name = f"f{f}_{c}"
            if kind == "category":
                v = draw(st.integers(0, 4))
            else:
                lo = draw(st.one_of(st.none(), st.integers(-3, 3)))
                hi = draw(st.one_of(st.none(), st.integers(-3, 3)))
                if lo is not None and hi is not None and lo >= hi:
                    lo, hi = (None, hi) if draw(st.booleans()) else (lo, None)
                v = [lo, hi]
            names.append(name)
            groups[name] = dict(feature=f"f{f}", kind=kind, value=v)
    names += [f"free{i}" for i in range(draw(st.integers(0, 1)))]
    return names, groups


@settings(max_examples=60, deadline=None)
@given(schemas(), st.integers(1, 3))
def test_pruning_never_loses_a_capturable_set(schema, width):
    names, groups = schema
    check_pruning(names, groups, width)


def test_binarizer_columns_prune_by_brute_force():
    X = pd.DataFrame({"x": np.linspace(0, 10, 50), "c": ["a", "b", "c", "d", "e"] * 10})
    for enc in ("thermometer", "onehot"):
        b = Binarizer(cut_points={"x": [2, 5, 7]}, categories={"c": list("abcd")}, encoding=enc).fit(X)
        check_pruning(list(b.get_feature_names_out()), b.groups_, 2)


def test_candidates_depend_on_the_declaration_only():
    names = ["a=1", "a=2", "b"]
    groups = {"a=1": dict(feature="a", kind="category", value=1), "a=2": dict(feature="a", kind="category", value=2)}
    specs = check_feature_groups(groups, names)
    assert RuleCandidates.from_features(names, 2, specs).names == RuleCandidates.from_features(names, 2, specs).names


@pytest.mark.parametrize(
    "groups, match",
    [
        ("x", "feature_groups must be"),
        ({"nope": dict(feature="a", kind="category", value=1)}, "unknown column"),
        ({"a": dict(feature="a", kind="ordinal", value=1)}, "kind"),
        ({"a": dict(feature="a", value=1)}, "keys"),
        (
            {"a": dict(feature="f", kind="category", value=1), "b": dict(feature="f", kind="interval", value=[0, 1])},
            "mixes",
        ),
        ({"a": dict(feature="a", kind="interval", value=[1, 1])}, "lo < hi"),
        ({"a": dict(feature="a", kind="interval", value=[0])}, "interval"),
        ({"a": dict(feature="a", kind="interval", value=["x", 1])}, "numbers"),
        ({"a": dict(feature="a", kind="category", value=[1])}, "hashable"),
    ],
)
def test_bad_declarations(groups, match):
    with pytest.raises(ValueError, match=match):
        check_feature_groups(groups, ["a", "b"])


# ------------------------------------------------------------------ bundled binarizations
@pytest.mark.parametrize("name", ["adult", "compas"])
def test_declared_groups_hold_on_the_bundled_files(name):
    """Every conjunction the declaration calls empty captures no record of the file."""
    X, _ = load_dataset(name)
    groups = X.attrs["dpmodels_groups"]
    assert groups == binarized_feature_groups(name) and set(groups) <= set(X.columns)
    names = list(X.columns)
    specs = check_feature_groups(groups, names)
    full = RuleCandidates.from_features(names, 2)
    kept = set(RuleCandidates.from_features(names, 2, specs).names)
    Xf = X.to_numpy(np.float64)
    U = universe(specs)
    for i in range(len(full)):
        if full.name(i) not in kept and not full.support(U, i).any():
            assert not full.support(Xf, i).any(), full.name(i)


def test_german_binarization_declares_no_groups():
    X, _ = load_dataset("german")
    assert "dpmodels_groups" not in X.attrs


# ------------------------------------------------------------------ learners
def test_learners_read_the_groups_from_attrs_or_the_parameter(compas):
    X, y = compas[0].iloc[:1500], compas[1].iloc[:1500]
    auto = GreedyRuleListClassifier().fit(X, y)
    off = GreedyRuleListClassifier(feature_groups=None).fit(X, y)
    Xplain = pd.DataFrame(X.to_numpy(), columns=X.columns)  # no attrs
    explicit = GreedyRuleListClassifier(feature_groups=binarized_feature_groups("compas")).fit(Xplain, y)
    assert off.n_candidates_ == 1458 and auto.n_candidates_ == explicit.n_candidates_ == 1290
    assert str(auto.rule_list_) == str(explicit.rule_list_)
    assert GreedyRuleListClassifier().fit(Xplain, y).n_candidates_ == 1458
    # numpy input: no attrs; an explicit dict must name existing columns (x0, x1, …)
    with pytest.raises(ValueError, match="unknown column"):
        GreedyRuleListClassifier(feature_groups=binarized_feature_groups("compas")).fit(X.to_numpy(), y)
    dp = DPRuleListClassifier(epsilon=1.0, random_state=0).fit(X, y)
    assert dp.n_candidates_ == auto.n_candidates_
    with pytest.raises(ValueError, match="feature_groups"):
        GreedyRuleListClassifier(feature_groups="yes").fit(X, y)


def test_binarizer_pipeline_passes_its_groups():
    from sklearn.pipeline import make_pipeline

    X = pd.DataFrame({"x": np.arange(200) % 17, "c": np.array(list("abcd"))[np.arange(200) % 4]})
    y = ((X["x"] > 8) ^ (X["c"] == "a")).astype(int)
    b = Binarizer(cut_points={"x": [3, 6, 9, 12]}, categories={"c": list("abcd")})
    p = make_pipeline(b, GreedyRuleListClassifier(max_rules=4)).fit(X, y)
    names = list(b.get_feature_names_out())
    assert p[-1].n_candidates_ == len(RuleCandidates.from_features(names, 2, check_feature_groups(b.groups_, names)))
    assert p[-1].n_candidates_ < len(RuleCandidates.from_features(names, 2))


# ------------------------------------------------------------------ counting over distinct rows
@pytest.mark.parametrize("p", [5, 64, 70, 130])
def test_split_stats_updates_equal_a_fresh_count(p):
    """Distinct rows (one or several 64-bit words) and Gram updates give exact counts."""
    from dpmodels.rulelist.distinct import _distinct_rows
    from dpmodels.rulelist.split_stats import SplitStats

    rng = np.random.default_rng(p)
    X = (rng.random((400, p)) < 0.3).astype(np.float64)
    X[200:] = X[:200]  # duplicates
    y = rng.integers(0, 2, 400)
    first, inv = _distinct_rows(X)
    _, ref_inv = np.unique(X, axis=0, return_inverse=True)
    assert len(first) == len(np.unique(ref_inv)) and np.array_equal(X[first][inv], X)
    cands = RuleCandidates.from_features([f"f{i}" for i in range(p)], 2)
    stats = SplitStats(cands, X, y)
    remaining = np.ones(400, dtype=bool)
    for step in range(6):
        got = stats(remaining)
        want = SplitStats(cands, X, y)(remaining)
        assert got[:2] == want[:2]
        np.testing.assert_array_equal(got[2], want[2])
        np.testing.assert_array_equal(got[3], want[3])
        Xs = X[remaining]
        some = rng.choice(len(cands), min(200, len(cands)), replace=False)
        np.testing.assert_array_equal(got[2][some], [cands.support(Xs, i).sum() for i in some])
        remaining = remaining & (rng.random(400) < (0.95 if step % 2 else 0.5))


# ------------------------------------------------------------------ counts up to width 3: brute force
def _onehot_groups(p, n_groups):
    """Declare columns 0.. as one-hot groups of sizes 2-3 (the rest ungrouped)."""
    groups, j = {}, 0
    for g in range(n_groups):
        size = 2 + g % 2
        for v in range(size):
            if j < p:
                groups[f"c{j}"] = {"feature": f"g{g}", "kind": "category", "value": v}
                j += 1
    return groups


def _onehot_matrix(rng, n, p, groups):
    """Rows valid under the declaration: at most one 1 per one-hot group."""
    X = (rng.random((n, p)) < 0.4).astype(np.float64)
    by = {}
    for col, spec in groups.items():
        by.setdefault(spec["feature"], []).append(int(col[1:]))
    for cols in by.values():
        X[:, cols] = 0
        pick = rng.integers(-1, len(cols), n)
        rows = np.flatnonzero(pick >= 0)
        X[rows, np.asarray(cols)[pick[rows]]] = 1
    return X


@settings(max_examples=40, deadline=None)
@given(
    p=st.integers(1, 7),
    n=st.integers(1, 40),
    width=st.integers(1, 3),
    n_groups=st.integers(0, 2),
    seed=st.integers(0, 2**32 - 1),
)
def test_counts_up_to_width_3_equal_brute_force(p, n, width, n_groups, seed):
    """Every candidate's weighted count (counts, counts_many, and the moment formulas) equals the
    sum of the weights of the rows its literals all hold on."""
    rng = np.random.default_rng(seed)
    names = [f"c{j}" for j in range(p)]
    groups = _onehot_groups(p, n_groups)
    X = _onehot_matrix(rng, n, p, groups)
    specs = check_feature_groups(groups or None, names)
    try:
        cands = RuleCandidates.from_features(names, width, specs)
    except ValueError:  # the groups leave no candidate
        return
    W = rng.integers(0, 4, (n, 2)).astype(np.float64)
    brute = np.array([[W[cands.support(X, i), j].sum() for i in range(len(cands))] for j in range(2)])
    np.testing.assert_array_equal(cands.counts(X, W[:, 0]), brute[0])
    np.testing.assert_array_equal(cands.counts_many(X, W), brute)


@pytest.mark.parametrize("width", [1, 2, 3])
def test_split_stats_width_3_updates_equal_brute_force(width):
    """SplitStats over distinct rows with moment downdates (width 3) as records are removed."""
    from dpmodels.rulelist.split_stats import SplitStats

    rng = np.random.default_rng(width)
    p = 9
    names = [f"c{j}" for j in range(p)]
    groups = _onehot_groups(p, 2)
    X = _onehot_matrix(rng, 300, p, groups)
    X[150:] = X[:150]
    y = rng.integers(0, 2, 300)
    cands = RuleCandidates.from_features(names, width, check_feature_groups(groups, names))
    stats = SplitStats(cands, X, y)
    remaining = np.ones(300, dtype=bool)
    for step in range(6):
        N, P, cap, cap_pos = stats(remaining)
        Xs, ys = X[remaining], y[remaining]
        assert (N, P) == (remaining.sum(), ys.sum())
        np.testing.assert_array_equal(cap, [cands.support(Xs, i).sum() for i in range(len(cands))])
        np.testing.assert_array_equal(cap_pos, [ys[cands.support(Xs, i)].sum() for i in range(len(cands))])
        remaining = remaining & (rng.random(300) < (0.95 if step % 2 else 0.6))
