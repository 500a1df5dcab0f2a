"""Dist_G (paper 003): exact counts against brute-force enumeration, the paper's worked examples,
DP models (noisy counts), every accepted input type, and the errors."""

import itertools
import math
import warnings

import numpy as np
import pandas as pd
import pytest
from _paper_recursion import paper_capture_counts
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sklearn.exceptions import NotFittedError
from sklearn.linear_model import LogisticRegression
from sklearn.tree import DecisionTreeClassifier

from _extras import need
from dpmodels.audit import ReconstructionResult, plot_per_record_cdf, reconstruction_leak
from dpmodels.audit._model_count import capture_counts
from dpmodels.io import ModelFileError
from dpmodels.rulelist import DPRuleListClassifier, GreedyRuleListClassifier
from dpmodels.rulelist.model import Rule, RuleList
from dpmodels.tree import PrivaTreeClassifier, Tree

TOL = 1e-12


# ----------------------------------------------------------------------------- helpers
def all_assignments(d):
    return np.array(list(itertools.product((0, 1), repeat=d)), dtype=np.int64).reshape(-1, d)


def brute_capt_rule_list(rl: RuleList) -> np.ndarray:
    """Capt_j by routing every one of the 2^d assignments through RuleList.apply."""
    d = len(rl.feature_names)
    return np.bincount(rl.apply(all_assignments(d)), minlength=len(rl.rules) + 1)


def brute_capt_tree(apply, domains: list) -> dict:
    """{leaf id: number of points of Π_k V_k that reach it}, by routing the whole product."""
    grid = np.array(list(itertools.product(*domains)), dtype=float)
    leaves, cnt = np.unique(apply(grid), return_counts=True)
    return dict(zip(leaves.tolist(), cnt.tolist()))


def dist_g_oracle(capt_of_record, log2_domain):
    """Definition 4 straight from the records: mean of log2 Capt(path of record) / Σ log2|V_k|."""
    return float(np.mean([math.log2(c) for c in capt_of_record])) / log2_domain


def tree(cl, cr, feat, thr, value, label, names, categorical=None, categories=None, left_categories=None):
    n = len(cl)
    return Tree(
        cl,
        cr,
        feat,
        thr,
        left_categories or [None] * n,
        value,
        label,
        [0, 1],
        names,
        categorical or [False] * len(names),
        categories or {},
    )


# ----------------------------------------------------------------------------- paper examples
def test_rule_list_1_on_table_iii():
    """Rule List 1 (Section III-A): Dist_G = (2·1 + 3·log2 3) / (5·3) ≈ 0.4503."""
    rl = RuleList(
        ["a1", "a2", "a3"],
        [Rule([("a1", True), ("a2", True)], 1, (0, 2)), Rule([("a3", True)], 0, (2, 0))],
        Rule([], 1, (0, 1)),
    )
    X = np.array([[1, 1, 1], [1, 1, 0], [0, 1, 1], [1, 0, 1], [1, 0, 0]])  # Table III
    y = np.array([1, 1, 0, 0, 1])
    expected = (2 + 3 * math.log2(3)) / 15
    assert expected == pytest.approx(0.4503, abs=5e-5)
    for r in (reconstruction_leak(rl, X, y), reconstruction_leak(rl)):  # data, and the model's counts
        assert abs(r.dist_g - expected) < TOL
        assert r.paths["log2_capt"].tolist() == pytest.approx([1.0, math.log2(3), math.log2(3)], abs=TOL)
        assert r.kind == "rule_list" and r.dist is None and r.log2_domain == 3
    r = reconstruction_leak(rl, X, y)
    assert r.paths["support_0"].tolist() == [0, 2, 0] and r.paths["support_1"].tolist() == [2, 0, 1]


def fig1_tree():
    """Fig. 1 / Table II: root a3 <= 1.5 (x4); right: a1 <= 11.5 (x3) else (x1, x2)."""
    return tree(
        [1, -1, 3, -1, -1],
        [2, -1, 4, -1, -1],
        [2, -2, 0, -2, -2],
        [1.5, np.nan, 11.5, np.nan, np.nan],
        [[2, 2], [0, 1], [2, 1], [0, 1], [2, 0]],
        [-1, 1, -1, 1, 0],
        ["a1", "a2", "a3"],
    )


# The paper prints V_1 = {0, 11, ..., 15}; its own computation (|V_1| = 6, H(V_{3,1}) over {10, 11})
# uses V_1 = {10, ..., 15}, which is what we use.
FIG1_DOMAINS = {"a1": range(10, 16), "a2": (0, 1), "a3": (1, 2, 3)}
TABLE_I = np.array([[12, 0, 3], [14, 1, 2], [11, 1, 2], [14, 0, 1]])


def test_fig1_tree_definition_2_and_dist_g():
    r = reconstruction_leak(fig1_tree(), TABLE_I, [0, 0, 1, 1], domains=FIG1_DOMAINS)
    # Definition 2 (Table II): x1, x2: a1 in 4 of 6, a2 free, a3 in 2 of 3; x3: a1 in 2 of 6; x4: a3 = 1
    l6, l3 = math.log2(6), math.log2(3)
    cells = 2 * (2 / l6 + 1 + 1 / l3) + (1 / l6 + 1 + 1 / l3) + (1 + 1 + 0)
    assert abs(r.dist - cells / 12) < TOL
    assert round(r.dist, 3) == 0.736
    # Definition 4: Capt = 4·2·2 (x1, x2), 2·2·2 (x3), 6·2·1 (x4); denominator 4·log2(6·2·3)
    assert abs(r.dist_g - (4 + 4 + 3 + math.log2(12)) / (4 * math.log2(36))) < TOL
    assert r.per_record.mean() == pytest.approx(r.dist_g, abs=TOL)


def test_tables_vi_vii():
    """One record (1, 1), V_1 = {0, 1}, V_2 = {1, 2, 3}: knowing a1 gives 0.613, knowing a2 0.387."""
    dom = {"a1": (0, 1), "a2": (1, 2, 3)}
    nan = np.nan  # rec1 splits on a1 <= 0.5, rec2 on a2 <= 1.5
    rec1 = tree(
        [1, -1, -1], [2, -1, -1], [0, -2, -2], [0.5, nan, nan], [[0, 1], [0, 0], [0, 1]], [-1, 0, 1], ["a1", "a2"]
    )
    rec2 = tree(
        [1, -1, -1], [2, -1, -1], [1, -2, -2], [1.5, nan, nan], [[0, 1], [0, 1], [0, 0]], [-1, 1, 0], ["a1", "a2"]
    )
    x = np.array([[1, 1]])
    r1, r2 = reconstruction_leak(rec1, x, domains=dom), reconstruction_leak(rec2, x, domains=dom)
    assert abs(r1.dist_g - math.log2(3) / math.log2(6)) < TOL and round(r1.dist_g, 3) == 0.613
    assert abs(r2.dist_g - 1 / math.log2(6)) < TOL and round(r2.dist_g, 3) == 0.387
    assert r1.dist == pytest.approx(0.5) and r2.dist == pytest.approx(0.5)  # Dist cannot tell them apart


# ----------------------------------------------------------------------------- rule lists vs brute force
@st.composite
def rule_lists(draw, max_d=7, max_rules=8):
    d = draw(st.integers(1, max_d))
    names = [f"f{i}" for i in range(d)]
    literal = st.tuples(st.sampled_from(names), st.booleans())
    rules = []
    for _ in range(draw(st.integers(0, max_rules))):
        if rules and draw(st.integers(0, 5)) == 0:  # duplicate an earlier rule: unreachable
            lits = list(draw(st.sampled_from(rules)).literals)
        else:  # widths 1-3, features may repeat: duplicates and contradictions included
            lits = draw(st.lists(literal, min_size=1, max_size=3))
        rules.append(Rule(lits, draw(st.integers(0, 1))))
    return RuleList(names, rules, Rule([], 0))


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rl=rule_lists(), data=st.data())
def test_rule_list_capt_and_dist_g_match_brute_force(rl, data):
    d = len(rl.feature_names)
    brute = brute_capt_rule_list(rl)
    rules = [[(int(f[1:]), int(p)) for f, p in r.literals] for r in rl.rules]
    assert capture_counts(rules, d) == brute.tolist()
    assert paper_capture_counts(rules, d) == brute.tolist()  # the paper's recursion agrees
    # training records: any assignments; they only ever land on paths with Capt >= 1
    X = data.draw(st.lists(st.lists(st.integers(0, 1), min_size=d, max_size=d), min_size=1, max_size=25))
    X = np.array(X)
    r = reconstruction_leak(rl, X)
    path = rl.apply(X)
    assert abs(r.dist_g - dist_g_oracle(brute[path], d)) < TOL
    assert abs(r.per_record.mean() - r.dist_g) < TOL
    assert r.paths["support"].tolist() == np.bincount(path, minlength=len(rl.rules) + 1).tolist()
    with np.errstate(divide="ignore"):
        assert np.allclose(r.paths["log2_capt"], np.log2(brute.astype(float)), atol=TOL, rtol=0)


@settings(max_examples=100, deadline=None)
@given(rl=rule_lists(max_d=40, max_rules=9))
def test_capture_counts_match_paper_recursion_on_wide_data(rl):
    """Beyond brute force (d up to 40): the DP against Eq. 13-15; counts partition 2^d."""
    d = len(rl.feature_names)
    rules = [[(int(f[1:]), int(p)) for f, p in r.literals] for r in rl.rules]
    ours = capture_counts(rules, d)
    assert ours == paper_capture_counts(rules, d)
    assert sum(ours) == 2**d


def test_dense_rule_list_where_the_second_variable_order_is_used():
    """40 width-3 rules over 14 attributes: one component whose first greedy order is costly
    enough that the counter tries (and here takes) the second one; still exact."""
    from collections import defaultdict

    from dpmodels.audit import _model_count as mc

    rng = np.random.default_rng(0)
    rules = [[(int(k), int(rng.integers(2))) for k in rng.choice(14, 3, replace=False)] for _ in range(40)]
    terms = {j: dict(r) for j, r in enumerate(rules)}
    occ = defaultdict(list)
    for j, lits in terms.items():
        for k, b in lits.items():
            occ[k].append((j, b))
    size = {j: 3 for j in terms}
    (comp,) = mc._components(terms, occ)
    costs = [mc._order_cost(mc._greedy_order(comp, occ, size, flag), occ, terms, size) for flag in (False, True)]
    assert costs[0] > mc._RETRY_ORDER_COST and costs[1] < costs[0]
    names = [f"f{i}" for i in range(14)]
    rl = RuleList(names, [Rule([(names[k], bool(b)) for k, b in r], 1) for r in rules], Rule([], 0))
    assert capture_counts(rules, 14) == brute_capt_rule_list(rl).tolist()


def test_unused_features_count_in_every_path():
    rl = RuleList(["a", "b", "c", "d", "e"], [Rule([("a", True)], 1, (0, 3))], Rule([], 0, (4, 0)))
    r = reconstruction_leak(rl)
    assert r.log2_domain == 5
    assert r.paths["log2_capt"].tolist() == [4.0, 4.0]  # the other 4 columns stay free
    assert abs(r.dist_g - 4 / 5) < TOL


def test_unreachable_rule_contributes_nothing():
    rl = RuleList(
        ["a", "b"],
        [
            Rule([("a", True)], 1, (0, 2)),
            Rule([("a", True), ("b", True)], 0, (0, 0)),
            Rule([("b", True), ("b", False)], 0, (0, 0)),
        ],
        Rule([], 0, (3, 0)),
    )
    r = reconstruction_leak(rl)
    assert r.paths["log2_capt"].tolist()[1:3] == [-math.inf, -math.inf]
    assert abs(r.dist_g - (2 * 1 + 3 * 1) / (5 * 2)) < TOL
    assert np.isfinite(r.per_record).all()


def test_rule_with_no_literal_captures_everything_left():
    rl = RuleList(
        ["a", "b"],
        [Rule([("a", True)], 1, (0, 1)), Rule([], 0, (1, 0)), Rule([("b", True)], 1, (0, 0))],
        Rule([], 0, (0, 0)),
    )
    assert capture_counts([[(0, 1)], [], [(1, 1)]], 2) == brute_capt_rule_list(rl).tolist() == [2, 2, 0, 0]
    assert abs(reconstruction_leak(rl).dist_g - 0.5) < TOL  # each rule pins a down: 1 of 2 bits


def test_thirty_width_two_rules_over_hundred_attributes_exact():
    rng = np.random.default_rng(0)
    names = [f"a{i}" for i in range(100)]
    rules = [
        Rule([(names[k], bool(rng.integers(2))) for k in rng.choice(100, 2, replace=False)], 1, (1, 1))
        for _ in range(30)
    ]
    rl = RuleList(names, rules, Rule([], 0, (5, 5)))
    capt = capture_counts([[(int(f[1:]), int(p)) for f, p in r.literals] for r in rules], 100)
    assert sum(capt) == 2**100 and all(c > 0 for c in capt[:1])
    assert capt[0] == 2**98
    r = reconstruction_leak(rl)
    expected = sum(2 * math.log2(c) for c in capt[:-1]) + 10 * math.log2(capt[-1])
    assert abs(r.dist_g - expected / (r.n * 100)) < TOL


# ----------------------------------------------------------------------------- trees vs brute force
@st.composite
def random_trees(draw):
    """Trees over binary, small-integer numerical and categorical features; thresholds may fall
    outside the domain (empty regions) and category subsets may be empty or full."""
    m = draw(st.integers(1, 3))
    kinds = [draw(st.sampled_from(["bin", "num", "cat"])) for _ in range(m)]
    doms, categories = [], {}
    for k, kind in enumerate(kinds):
        if kind == "bin":
            doms.append([0, 1])
        elif kind == "num":
            doms.append(sorted(draw(st.sets(st.integers(-3, 8), min_size=1, max_size=5))))
        else:
            ncat = draw(st.integers(1, 4))
            categories[k] = [f"c{i}" for i in range(ncat)]
            doms.append(list(range(ncat)))  # codes
    cl, cr, feat, thr, lc = [], [], [], [], []

    def grow(depth):
        i = len(cl)
        cl.append(-1), cr.append(-1), feat.append(-2), thr.append(np.nan), lc.append(None)
        if depth < 3 and draw(st.booleans()):
            k = draw(st.integers(0, m - 1))
            feat[i] = k
            if kinds[k] == "cat":
                lc[i] = tuple(sorted(draw(st.sets(st.integers(0, len(categories[k]) - 1)))))
            else:
                thr[i] = draw(st.sampled_from([-4.5, -0.5, 0.5, 1.5, 2.5, 4.0, 7.5, 9.0]))
            cl[i] = grow(depth + 1)
            cr[i] = grow(depth + 1)
        return i

    grow(0)
    n = len(cl)
    leaf = np.array(cl) == -1
    value = np.where(leaf[:, None], np.array([[1.0, 1.0]] * n), np.nan)
    label = np.where(leaf, 0, -1)
    t = Tree(
        cl,
        cr,
        feat,
        thr,
        lc,
        value,
        label,
        [0, 1],
        [f"f{k}" for k in range(m)],
        [kd == "cat" for kd in kinds],
        categories,
    )
    return t, kinds, doms


@settings(max_examples=200, deadline=None)
@given(spec=random_trees(), data=st.data())
def test_tree_capt_and_dist_g_match_brute_force(spec, data):
    t, kinds, doms = spec
    domains = {f"f{k}": doms[k] for k in range(len(kinds)) if kinds[k] != "cat"}
    code_grid = doms  # categorical columns enumerate their codes
    brute = brute_capt_tree(t.apply_encoded, code_grid)
    log2_domain = sum(math.log2(len(v)) for v in doms)
    if log2_domain == 0:
        with pytest.raises(ValueError, match="nothing to reconstruct"):
            reconstruction_leak(t, domains=domains)
        return
    # records drawn from the domains, as raw values (category names for categorical columns)
    rows = data.draw(st.lists(st.tuples(*[st.sampled_from(v) for v in doms]), min_size=1, max_size=20))
    codes = np.array(rows, dtype=float)
    X = pd.DataFrame(
        {
            f"f{k}": ([t.categories[k][int(c)] for c in codes[:, k]] if kinds[k] == "cat" else codes[:, k])
            for k in range(len(kinds))
        }
    )
    r = reconstruction_leak(t, X, domains=domains)
    leaf = t.apply_encoded(codes)
    assert abs(r.dist_g - dist_g_oracle([brute[j] for j in leaf], log2_domain)) < TOL
    assert abs(r.per_record.mean() - r.dist_g) < TOL
    table = r.paths.set_index("path_id")
    for j in table.index:
        c, got = brute.get(j, 0), table.loc[j, "log2_capt"]
        assert got == -math.inf if c == 0 else abs(got - math.log2(c)) < TOL
    # Definition 2 from the per-attribute projections of each leaf's region
    informative = [k for k in range(len(doms)) if len(doms[k]) > 1]
    grid = np.array(list(itertools.product(*doms)), dtype=float)
    gl = t.apply_encoded(grid)
    cell = 0.0
    for j in leaf:
        pts = grid[gl == j]
        cell += sum(math.log2(len(set(pts[:, k]))) / math.log2(len(doms[k])) for k in informative)
    assert abs(r.dist - cell / (len(leaf) * len(informative))) < TOL


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10**6), depth=st.integers(1, 5))
def test_sklearn_tree_matches_brute_force(seed, depth):
    rng = np.random.default_rng(seed)
    doms = [[0, 1], [0, 1], list(range(5)), [-1, 0, 2, 3]]
    X = np.column_stack([rng.choice(v, 60) for v in doms]).astype(float)
    y = (X[:, 0] + X[:, 2] + rng.integers(0, 2, 60) > 3).astype(int)
    est = DecisionTreeClassifier(max_depth=depth, random_state=seed).fit(X, y)
    domains = {"x0": "01", "x1": (0, 1), "x2": range(5), "x3": doms[3]}
    with pytest.raises(ValueError, match="sequence of numbers"):
        reconstruction_leak(est, X, domains=domains)
    domains["x0"] = (0, 1)
    brute = brute_capt_tree(est.apply, doms)
    r = reconstruction_leak(est, X, y, domains=domains)
    log2_domain = sum(math.log2(len(v)) for v in doms)
    assert abs(r.dist_g - dist_g_oracle([brute[j] for j in est.apply(X)], log2_domain)) < TOL
    # the model's own counts (n_node_samples) are the training records' counts
    rm = reconstruction_leak(est, domains=domains)
    assert rm.counts == "model" and abs(rm.dist_g - r.dist_g) < TOL
    assert rm.paths["support"].tolist() == r.paths["support"].tolist()
    assert np.allclose(rm.paths[["support_0", "support_1"]], r.paths[["support_0", "support_1"]])


def test_sklearn_tree_on_binary_data():
    X = np.array([[0, 0, 1], [0, 1, 1], [1, 0, 0], [1, 1, 0], [1, 1, 1]])
    y = np.array([0, 0, 1, 1, 1])
    est = DecisionTreeClassifier(random_state=0).fit(X, y)  # one split on x0 (or x2)
    r = reconstruction_leak(est, X, domains="binary")
    assert r.log2_domain == 3
    assert abs(r.dist_g - 2 / 3) < TOL  # each leaf fixes one of three bits


def test_categorical_domain_is_the_declared_list():
    t = Tree(
        [1, -1, -1],
        [2, -1, -1],
        [0, -2, -2],
        [np.nan] * 3,
        [(0,), None, None],
        [[2, 2], [1, 1], [1, 1]],
        [-1, 0, 1],
        [0, 1],
        ["colour"],
        [True],
        {0: ["red", "green", "blue"]},
    )
    X = pd.DataFrame({"colour": ["red", "blue", "green", "red"]})
    r = reconstruction_leak(t, X)
    # left {red}: 1 of 3; right {green, blue}: 2 of 3 (the unknown bucket is not a possible value)
    assert r.paths["log2_capt"].tolist() == [0.0, 1.0]
    assert abs(r.dist_g - 2 * (1 / math.log2(3)) / 4) < TOL
    with pytest.raises(ValueError, match="categorical"):
        reconstruction_leak(t, X, domains={"colour": (0, 1, 2)})


# ----------------------------------------------------------------------------- DP models
def test_dp_rule_list_uses_released_noisy_counts():
    rl = RuleList(
        ["a", "b", "c"],
        [
            Rule([("a", True)], 1, (-2.0, 5.5)),
            Rule([("b", True)], 0, (3.0, -1.0)),
            Rule([("a", True), ("c", True)], 1, (0.0, 4.0)),
        ],  # unreachable, noisy weight 4
        Rule([], 0, (-3.0, -0.5)),
        counts_are_noisy=True,
    )
    X = np.array([[1, 0, 0], [0, 1, 1], [0, 0, 0], [1, 1, 1]])
    r = reconstruction_leak(rl, X)  # X given, yet the counts are the release's
    assert r.counts == "model" and r.counts_are_noisy
    # weights clipped per class: 5.5, 3.0, (4.0 on an unreachable rule: dropped), 0
    assert r.infeasible_weight == 4.0 and r.n == 8.5
    assert r.paths["support"].tolist() == [5.5, 3.0, 0.0, 0.0]
    assert abs(r.dist_g - (5.5 * 2 + 3.0 * 1) / (8.5 * 3)) < TOL
    assert r.per_record.tolist() == pytest.approx([2 / 3, 1 / 3, 1 / 3, 2 / 3])  # X only routed
    assert reconstruction_leak(rl).per_record is None
    rd = reconstruction_leak(rl, X, counts="data")  # the auditor's view from the training data
    assert rd.counts == "data" and abs(rd.dist_g - rd.per_record.mean()) < TOL
    all_negative = RuleList(["a"], [], Rule([], 0, (-1.0, -2.0)), counts_are_noisy=True)
    assert math.isnan(reconstruction_leak(all_negative).dist_g)


def test_dp_rule_list_estimator():
    rng = np.random.default_rng(1)
    X = pd.DataFrame(rng.integers(0, 2, (400, 6)), columns=[f"c{i}" for i in range(6)])
    y = ((X.c0 & X.c1) | X.c2).to_numpy()
    clf = DPRuleListClassifier(epsilon=1.0, max_rules=4, random_state=0).fit(X, y)
    r = reconstruction_leak(clf, X, y)
    assert r.counts == "model" and r.counts_are_noisy
    cc = np.clip(np.array([ru.counts for ru in [*clf.rule_list_.rules, clf.rule_list_.default]]), 0, None)
    assert r.n == pytest.approx(cc.sum())
    assert np.allclose(r.paths["support"], cc.sum(axis=1))
    assert r.per_record.shape == (400,)


def test_privatree_estimator_noisy_leaves_and_domains():
    rng = np.random.default_rng(2)
    X = pd.DataFrame({"age": rng.integers(18, 80, 300), "hours": rng.integers(1, 60, 300)})
    y = (X.age > 40).astype(int).to_numpy()
    clf = PrivaTreeClassifier(
        epsilon=1.0, max_depth=2, bounds={"age": (18, 80), "hours": (1, 60)}, classes=[0, 1], random_state=0
    ).fit(X, y)
    with pytest.raises(ValueError, match="numerical feature 'age' needs a finite public domain"):
        reconstruction_leak(clf)
    domains = {"age": range(18, 81), "hours": range(1, 61)}
    r = reconstruction_leak(clf, domains=domains)
    assert r.counts == "model" and r.counts_are_noisy and r.kind == "tree"
    t = clf.tree_
    leaves = np.flatnonzero(t.children_left == -1)
    w = np.clip(t.value[leaves], 0, None).sum(axis=1)
    brute = brute_capt_tree(lambda g: t.apply_encoded(g), [list(range(18, 81)), list(range(1, 61))])
    feasible = np.array([brute.get(j, 0) > 0 for j in leaves])
    num = sum(wj * math.log2(brute[j]) for wj, j, ok in zip(w, leaves, feasible) if ok)
    assert abs(r.dist_g - num / (w[feasible].sum() * math.log2(63 * 60))) < TOL
    assert r.infeasible_weight == pytest.approx(w[~feasible].sum())
    # the bare Tree does not say it is noisy: with X it defaults to the training data
    assert reconstruction_leak(t, X, domains=domains).counts == "data"


def test_private_trees_from_baselines():
    from dpmodels.tree.baselines import BDPTClassifier, DPGDFClassifier

    rng = np.random.default_rng(3)
    X = pd.DataFrame(
        {"a": pd.Categorical(rng.choice(["x", "y", "z"], 200)), "b": pd.Categorical(rng.choice(["u", "v"], 200))}
    )
    y = (X.a == "x").astype(int).to_numpy()
    # DPGDF labels its leaves with the exponential mechanism and releases no counts
    dpgdf = DPGDFClassifier(epsilon=2.0, max_depth=2, classes=[0, 1], random_state=0).fit(X, y)
    assert np.isnan(dpgdf.tree_.value[dpgdf.tree_.children_left == -1]).all()
    with pytest.raises(ValueError, match="released no counts"):
        reconstruction_leak(dpgdf)
    r = reconstruction_leak(dpgdf, X)
    assert r.counts == "data" and abs(r.per_record.mean() - r.dist_g) < TOL
    # BDPT releases noisy leaf counts (some negative): those are the weights, X or not
    bdpt = BDPTClassifier(epsilon=2.0, max_depth=2, classes=[0, 1], random_state=0).fit(X, y)
    t = bdpt.tree_
    leaves = np.flatnonzero(t.children_left == -1)
    w = np.clip(t.value[leaves], 0, None).sum(axis=1)
    for rb in (reconstruction_leak(bdpt), reconstruction_leak(bdpt, X)):
        assert rb.counts == "model" and rb.counts_are_noisy and rb.n == w.sum()
        assert rb.paths["support"].tolist() == w.tolist()
        assert abs(rb.dist_g - np.dot(w, rb.paths["ratio"]) / w.sum()) < TOL


# ----------------------------------------------------------------------------- estimators, inputs, errors
def test_greedy_estimator_matches_bare_rule_list():
    rng = np.random.default_rng(4)
    X = pd.DataFrame(rng.integers(0, 2, (300, 5)), columns=list("abcde"))
    y = (X.a | (X.b & X.c)).to_numpy()
    clf = GreedyRuleListClassifier(max_rules=4, max_width=2).fit(X, y)
    r_est, r_bare = reconstruction_leak(clf, X, y), reconstruction_leak(clf.rule_list_, X, y)
    assert r_est.counts == r_bare.counts == "data"
    assert r_est.dist_g == r_bare.dist_g and np.array_equal(r_est.per_record, r_bare.per_record)
    assert abs(reconstruction_leak(clf).dist_g - r_est.dist_g) < TOL  # stored counts = training counts
    # a DataFrame with the columns in another order is routed by name
    r_perm = reconstruction_leak(clf.rule_list_, X[list("edcba")])
    assert np.array_equal(r_perm.per_record, r_bare.per_record)


def test_result_object():
    rl = RuleList(["a", "b"], [Rule([("a", True)], 1, (0, 2))], Rule([], 0, (2, 0)))
    r = reconstruction_leak(rl)
    assert isinstance(r, ReconstructionResult)
    with pytest.raises(AttributeError):
        r.dist_g = 0.0
    with pytest.raises(ValueError):
        r.per_record[0] = 0.0
    assert "dist_g=0.5000" in repr(r)
    assert list(r.paths.columns) == [
        "path_id",
        "path",
        "rule",
        "support",
        "support_0",
        "support_1",
        "log2_capt",
        "ratio",
    ]


def test_errors():
    rl = RuleList(["a", "b"], [Rule([("a", True)], 1, (0, 2))], Rule([], 0, (2, 0)))
    with pytest.raises(ValueError, match="counts='data' needs"):
        reconstruction_leak(rl, counts="data")
    with pytest.raises(ValueError, match="counts must be"):
        reconstruction_leak(rl, counts="noisy")
    with pytest.raises(ValueError, match="y was given without X"):
        reconstruction_leak(rl, y=[0, 1])
    with pytest.raises(ValueError, match="0/1 columns"):
        reconstruction_leak(rl, domains={"a": (0, 1, 2)})
    with pytest.raises(ValueError, match="unknown features"):
        reconstruction_leak(rl, domains={"zzz": (0, 1)})
    with pytest.raises(ValueError, match="0/1 features"):
        reconstruction_leak(rl, np.array([[0, 2], [1, 1]]))
    with pytest.raises(ValueError, match="rows but y has"):
        reconstruction_leak(rl, np.array([[0, 1], [1, 1]]), [0])
    with pytest.raises(TypeError, match="got LogisticRegression"):
        reconstruction_leak(LogisticRegression().fit([[0.0], [1.0]], [0, 1]))
    with pytest.raises(TypeError, match="got dict"):
        reconstruction_leak({"a": "rule list"})
    with pytest.raises(ModelFileError, match="does not exist"):  # a string is a saved model's path
        reconstruction_leak("a rule list")
    with pytest.raises(NotFittedError):
        reconstruction_leak(GreedyRuleListClassifier())
    with pytest.raises(NotFittedError):
        reconstruction_leak(DecisionTreeClassifier())
    with pytest.raises(ValueError, match="multi-output"):
        reconstruction_leak(DecisionTreeClassifier().fit([[0], [1]], [[0, 1], [1, 0]]), domains="binary")
    t = fig1_tree()
    with pytest.raises(ValueError, match="numerical feature 'a3' needs a finite public domain"):
        reconstruction_leak(t, TABLE_I, domains={"a1": range(10, 16), "a2": (0, 1)})
    # records need not sit on the domain's points (a grid may discretise a continuous feature) ...
    r = reconstruction_leak(t, np.array([[17.5, 0, 2.2]]), domains={**FIG1_DOMAINS, "a1": range(12, 16)})
    assert r.paths["support"].tolist() == [0, 0, 1]
    # ... but a record on a path that no domain value reaches is not a possible world
    with pytest.raises(ValueError, match="do not cover"):
        reconstruction_leak(t, TABLE_I, domains={**FIG1_DOMAINS, "a1": range(10, 12)})
    # exact model counts on a path no value of the domains reaches
    with pytest.raises(ValueError, match="do not cover the data"):
        reconstruction_leak(t, domains={**FIG1_DOMAINS, "a3": (2, 3)})


def test_plot_per_record_cdf():
    need("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    r = reconstruction_leak(fig1_tree(), TABLE_I, domains=FIG1_DOMAINS)
    ax = plot_per_record_cdf(r, label="tree")
    x, p = ax.lines[0].get_data()
    assert p[-1] == pytest.approx(1.0) and x.max() == pytest.approx(r.per_record.max())
    noisy = RuleList(["a", "b"], [Rule([("a", True)], 1, (0, 2.5))], Rule([], 0, (1.5, 0)), counts_are_noisy=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ax = plot_per_record_cdf(reconstruction_leak(noisy))  # weighted by the noisy supports
    assert ax.lines[0].get_data()[1][-1] == pytest.approx(1.0)


# ------------------------------------------------------------------ guard on the model counting
def _dense_rule_list(n_rules, n_attrs, width, seed):
    rng = np.random.default_rng(seed)
    names = [f"a{i}" for i in range(n_attrs)]
    # counts 0: a rule that earlier ones shadow completely holds no record
    rules = [
        Rule([(names[k], bool(rng.integers(2))) for k in rng.choice(n_attrs, width, replace=False)], 1, (0.0, 0.0))
        for _ in range(n_rules)
    ]
    return RuleList(names, rules, Rule([], 0, (1.0, 1.0)))


def test_dense_rule_list_is_refused_before_counting():
    """200 width-3 rules over 60 attributes: ~10^14 counter states; refused before counting, one
    line (the count itself is never entered; no wall-clock limit, which flakes under load)."""
    from dpmodels.audit import _model_paths
    from dpmodels.guards import ResourceLimitError

    def _counted(*a, **k):
        raise AssertionError("capture_counts ran: the refusal came after the count began")

    rl = _dense_rule_list(200, 60, 3, 0)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(_model_paths, "capture_counts", _counted)
        with pytest.raises(ResourceLimitError, match="exact model counting of 200 rules over 60 attributes") as e:
            reconstruction_leak(rl)
    assert "\n" not in str(e.value)


def test_model_count_guard_follows_the_limit_and_lets_sparse_lists_through():
    from dpmodels.audit._model_count import estimate_work
    from dpmodels.guards import ResourceLimitError, limits

    rl = _dense_rule_list(40, 14, 3, 1)
    col = {f: i for i, f in enumerate(rl.feature_names)}
    visits, peak = estimate_work([[(col[f], int(p)) for f, p in r.literals] for r in rl.rules], 14)
    assert visits >= peak >= 1
    with limits(max_seconds=1e-9), pytest.raises(ResourceLimitError, match="max_seconds"):
        reconstruction_leak(rl)
    with limits(max_seconds=None):
        assert 0 <= reconstruction_leak(rl).dist_g <= 1
    assert 0 < reconstruction_leak(_dense_rule_list(30, 100, 2, 0)).dist_g < 1  # default limit: fast
