"""How models print and what get_rules() returns: the conventions of dpmodels._format."""

import re
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpmodels._format import count_cell, significant
from dpmodels.data import dataset_schema
from dpmodels.rulelist import DPRuleListClassifier, GreedyRuleListClassifier, Rule, RuleList
from dpmodels.tree import PrivaTreeClassifier, Tree
from dpmodels.tree.baselines import BDPTClassifier, DPGDFClassifier


@pytest.fixture(scope="module")
def compas_raw(compas_raw):
    """The first 1,500 rows of raw COMPAS (overrides the suite's ``compas_raw``)."""
    X, y = compas_raw
    return X.iloc[:1500], y.iloc[:1500]


# ---------------------------------------------------------------------------- counts
def test_count_cell_labels_classes_shows_share_and_marks_clipped_noise():
    cell, clipped = count_cell([201, 111], ["no", "yes"], noisy=True, predicted=0)
    assert cell == "[n≈312: no 201 (64%), yes 111]" and not clipped
    cell, clipped = count_cell([5, -3], ["no", "yes"], noisy=True, predicted=0)
    assert cell == "[n≈5: no 5 (100%), yes 0*]" and clipped
    cell, clipped = count_cell([5, -3], [0, 1], noisy=False, predicted=0)  # exact: as is
    assert "-3" in cell and not clipped
    assert count_cell([np.nan, np.nan], [0, 1], noisy=True)[0] == "(counts not released)"


@pytest.mark.parametrize(
    "x, s",
    [
        (37.49871, "37.5"),
        (1234567.0, "1235000"),
        (2.0, "2"),
        (0.000123456, "0.0001235"),
        (-0.5, "-0.5"),
        (1e-9, "1e-09"),
    ],
)
def test_significant_digits(x, s):
    assert significant(x) == s


# ---------------------------------------------------------------------------- rule lists
def _rl(preds, default, counts=None, noisy=True):
    names = [f"f{i}" for i in range(len(preds))]
    counts = counts or [(10.0, 3.0)] * (len(preds) + 1)
    rules = [Rule([(names[i], True)], p, counts[i]) for i, p in enumerate(preds)]
    return RuleList(names, rules, Rule([], default, counts[-1]), ["no", "yes"], noisy)


def test_trailing_rules_predicting_the_default_class_are_merged_in_print_only():
    rl = _rl([1, 0, 0], 0, [(1, 9), (8, 2), (7, 1), (20, 5)])
    merged = rl.merge_default()
    assert len(merged.rules) == 1 and merged.default.counts == (35.0, 8.0)
    text = rl.to_text(merge=True)
    rows = [ln for ln in text.splitlines() if ln.startswith(("IF", "ELSE"))]
    assert rows[0].startswith("IF ") and rows[-1].startswith("ELSE ") and len(rows) == 2
    assert "2 trailing rules predicting no merged into ELSE" in text
    assert "n≈43  [no 35, yes 8]" in text and rows[-1].endswith("rules 1–3")
    p = rl.proba_table()[1:, 0]  # the merged row shows the range of its rules' predict_proba
    assert f"P={round(100 * p.min())}–{round(100 * p.max())}%" in rows[-1]
    assert len(rl.rules) == 3  # the model itself is unchanged
    raw = rl.to_text()  # default: the list as fitted
    assert len([ln for ln in raw.splitlines() if ln.startswith(("IF", "ELSE"))]) == 4


def test_rows_are_aligned():
    rl = RuleList(
        ["a", "long_name"],
        [Rule([("a", True)], 1, (1, 5)), Rule([("long_name", False), ("a", False)], 0, (6, 1))],
        Rule([], 1, (2, 3)),
        [0, 1],
        False,
    )
    rows = [ln for ln in rl.to_text().splitlines() if ln.startswith(("IF", "ELSE"))]
    starts = {ln.index("[") for ln in rows}
    assert len(starts) == 1  # per-class counts start in one column
    ends = {m.end() for ln in rows for m in [re.search(r"n=\d[\d,]*", ln)]}
    assert len(ends) == 1  # the samples column is right-aligned
    assert all(ln.index("THEN") == rows[0].index("THEN") for ln in rows[:-1])


def test_a_model_predicting_one_class_says_so():
    rl = _rl([0, 0], 0)
    text = rl.to_text(merge=True)
    assert "This model predicts no for every record." in text
    assert any(ln.startswith("ALWAYS") for ln in text.splitlines())


@settings(max_examples=60, deadline=None)
@given(
    preds=st.lists(st.integers(0, 1), max_size=5),
    default=st.integers(0, 1),
    X=st.lists(st.lists(st.integers(0, 1), min_size=5, max_size=5), min_size=1, max_size=30),
)
def test_merging_never_changes_predictions(preds, default, X):
    names = [f"f{i}" for i in range(5)]
    rules = [Rule([(names[i], bool(i % 2))], p, (float(i), 2.0)) for i, p in enumerate(preds)]
    rl = RuleList(names, rules, Rule([], default, (3.0, 4.0)), [0, 1], True)
    X = np.array(X)
    assert np.array_equal(rl.merge_default().predict_encoded(X), rl.predict_encoded(X))
    # every remaining last rule predicts the other class
    m = rl.merge_default()
    assert not m.rules or m.rules[-1].prediction != m.default.prediction


def test_estimator_header_says_learner_privacy_n_and_classes(compas):
    X, y = compas
    clf = DPRuleListClassifier(epsilon=1.0, classes=["no", "yes"]).fit(X, y.map({0: "no", 1: "yes"}))
    lines = str(clf).splitlines()
    assert lines[0].startswith("DPRuleListClassifier(mechanism='permute-and-flip', max_rules=5")
    assert lines[1] == "privacy: ε=1, δ=0 · proven DP"
    n = round(clf.rule_list_.n_total)
    assert lines[2] == f"n≈{n:,} (noisy total) · classes: no, yes"
    seeded = DPRuleListClassifier(epsilon=1.0, random_state=0).fit(X, y)
    assert "noise seeded" in str(seeded).splitlines()[1]
    greedy = GreedyRuleListClassifier().fit(X, y)
    assert str(greedy).splitlines()[1] == "privacy: not private (no DP guarantee)"
    assert str(greedy).splitlines()[2].startswith(f"n={len(X):,} ·")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sm = DPRuleListClassifier(mechanism="sm-laplace", delta=1e-6).fit(X, y)
    assert "NOT PRIVATE (1 leak: training-set size n" in str(sm) and "only claimed DP" in str(sm)


def test_rule_list_get_rules_agrees_with_apply_and_predict_proba(compas):
    X, y = compas
    clf = DPRuleListClassifier(epsilon=0.5, random_state=3).fit(X, y)
    df = clf.get_rules()
    rl = clf.rule_list_
    assert list(df["position"]) == list(range(len(rl.rules) + 1))
    assert df["is_default"].tolist() == [False] * len(rl.rules) + [True]
    assert {
        "rule",
        "antecedent",
        "literals",
        "prediction",
        "count_0",
        "count_1",
        "noisy",
        "n",
        "share",
        "proba",
    } <= set(df.columns)
    idx, proba, pred = clf.apply(X), clf.predict_proba(X), clf.predict(X)
    for k, row in df.iterrows():
        hit = idx == row["position"]
        if hit.any():
            assert (pred[hit] == row["prediction"]).all()
            col = list(clf.classes_).index(row["prediction"])
            assert np.allclose(proba[hit][:, col], row["proba"])
        assert row["count_0"] == rl._all_rules()[k].counts[0]  # raw, negatives kept
    assert df["noisy"].all()
    assert len(clf.get_rules(merge=True)) == len(rl.merge_default())


# ---------------------------------------------------------------------------- trees
def test_tree_header_rounding_legend_and_pruning(compas_raw):
    X, y = compas_raw
    s = dataset_schema("compas")
    params = s.fit_params()
    params["bounds"] = {c: (float(lo), float(hi)) for c, (lo, hi) in params["bounds"].items()}  # real-valued
    t = PrivaTreeClassifier(epsilon=1.0, max_depth=3, random_state=0, **params).fit(X, y)
    text = t.to_text(prune=True)
    lines = text.splitlines()
    assert lines[0].startswith("PrivaTreeClassifier(max_depth=3") and lines[1].startswith(
        "privacy: ε=1, δ=0 · proven DP · noise seeded"
    )
    assert lines[2].startswith("n≈") and lines[2].endswith("classes: 0, 1")
    thr = [float(m) for m in re.findall(r"<= ([-0-9.e+]+)$", text, flags=re.M)]
    assert thr and all(len(re.sub(r"[-.]", "", f"{v:g}").lstrip("0")) <= 4 for v in thr)
    assert "# thresholds rounded for reading" in text
    if t.tree_.prune().n_leaves < t.tree_.n_leaves:
        assert "pairs of sibling leaves with the same label merged" in text or "pair of sibling" in text
    assert t.export_text() != t.to_text()  # the exact form stays available


def test_tree_get_rules_conditions_select_exactly_the_leaf_records(compas_raw):
    X, y = compas_raw
    s = dataset_schema("compas")
    t = PrivaTreeClassifier(epsilon=2.0, max_depth=4, random_state=1, **s.fit_params()).fit(X, y)
    df = t.get_rules()
    leaf = t.apply(X)
    assert set(df["leaf"]) == set(np.flatnonzero(t.tree_.is_leaf))
    for _, row in df.iterrows():
        mask = np.ones(len(X), dtype=bool)
        for name, op, v in row["conditions"]:
            col = X[name]
            if op == "<=":
                mask &= col.to_numpy(dtype=float) <= v
            elif op == ">":
                mask &= col.to_numpy(dtype=float) > v
            elif op == "in":
                mask &= col.astype(object).isin(v).to_numpy()
            else:
                mask &= ~col.astype(object).isin(v).to_numpy()
        assert np.array_equal(mask, leaf == row["leaf"]), row["rule"]
        assert row["rule"].startswith("IF ") and row["rule"].endswith(f"THEN {row['prediction']}")
    proba = t.predict_proba(X)
    for _, row in df.iterrows():
        hit = leaf == row["leaf"]
        if hit.any():
            assert np.allclose(proba[hit][:, list(t.classes_).index(row["prediction"])], row["proba"])


def test_path_text_simplifies_intervals_and_category_sets():
    # x <= 5 -> (x > 2 -> leaf) ; categorical c in {u} -> ...
    t = Tree(
        children_left=[1, 3, -1, -1, -1],
        children_right=[2, 4, -1, -1, -1],
        feature=[0, 0, -2, -2, -2],
        threshold=[5.0, 2.0, np.nan, np.nan, np.nan],
        left_categories=[None] * 5,
        value=np.ones((5, 2)),
        label=[-1, -1, 0, 1, 0],
        classes=[0, 1],
        feature_names=["x"],
        categorical=[False],
    )
    rules = dict(zip(t.get_rules()["leaf"], t.get_rules()["antecedent"]))
    assert rules == {2: "x > 5", 3: "x <= 2", 4: "2 < x <= 5"}


def test_dpgdf_prints_labels_without_counts_and_predicts_its_label(compas_raw):
    X, y = compas_raw
    s = dataset_schema("compas")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t = DPGDFClassifier(epsilon=1.0, max_depth=2, categories=s.categories, classes=[0, 1], random_state=0).fit(X, y)
    text = str(t)
    assert "n: not released" in text and "(counts not released)" in text
    assert np.array_equal(t.tree_.leaf_proba()[t.apply(X)].argmax(axis=1), t.predict(X))
    assert t.get_rules()["n"].isna().all()
    pruned = t.tree_.prune()
    assert np.isnan(pruned.value[pruned.is_leaf]).all()  # merging unreleased leaves releases nothing


def test_long_category_sets_print_compactly_and_exactly():
    cats = list("abcdefgh")
    t = Tree(
        children_left=[1, -1, -1],
        children_right=[2, -1, -1],
        feature=[0, -2, -2],
        threshold=[np.nan] * 3,
        left_categories=[(0, 1, 2, 3, 4, 5), None, None],
        value=np.ones((3, 2)),
        label=[-1, 0, 1],
        classes=[0, 1],
        feature_names=["c"],
        categorical=[True],
        categories={0: cats},
    )
    text = t.to_text(prune=False)
    assert "c in {all listed but g, h}" in text and "c in {g, h, <unlisted>}" in text
    assert "c in {a, b, c, d, e, f}" in t.export_text()  # the exact form lists them


def test_bdpt_prints_with_counts(compas_raw):
    X, y = compas_raw
    s = dataset_schema("compas")
    t = BDPTClassifier(epsilon=1.0, max_depth=2, random_state=0, **s.fit_params()).fit(X, y)
    assert str(t).startswith("BDPTClassifier(max_depth=2)\nprivacy: ε=1, δ=0 · proven DP")
    assert isinstance(t.get_rules(), pd.DataFrame)


# ---------------------------------------------------------------------------- predict_proba
def test_shrinkage_formula_and_when_it_applies():
    from dpmodels._format import shrunk_proba

    counts = np.array([[0.0, 1.0], [300.0, 100.0], [-4.0, 2.0], [np.nan, np.nan]])
    pi = np.array([300.0, 103.0]) / 403.0  # clipped counts summed over the rows
    b = 10.0
    p = shrunk_proba(counts, b)
    assert np.allclose(p[0], (np.array([0, 1]) + b * pi) / (1 + b))  # one record: near the prior
    assert np.allclose(p[1], (np.array([300, 100]) + b * pi) / (400 + b))  # large: near its share
    assert np.allclose(p[2], (np.array([0, 2]) + b * pi) / (2 + b))
    assert np.isnan(p[3]).all()
    assert np.allclose(shrunk_proba(counts[:3], None)[1], [0.75, 0.25])  # exact counts: shares
    rl = RuleList(["a"], [Rule([("a", True)], 1, (0.0, 1.0))], Rule([], 0, (300.0, 100.0)), [0, 1], True, 10.0)
    assert np.allclose(rl.proba_table(shrink=False)[0], [0, 1])
    # one noisy record says little: shrunk to the prior (0.32 for class 1); the consequent (1)
    # then holds the top share, so that predict is the argmax of predict_proba
    shrunk = (np.array([0, 1]) + 10.0 * np.array([300, 101]) / 401) / 11
    assert shrunk[1] < 0.35 and np.allclose(rl.proba_table()[0], shrunk[::-1])
    exact = RuleList(["a"], rl.rules, rl.default, [0, 1], False, 10.0)
    assert np.allclose(exact.proba_table()[0], [0, 1])  # exact counts are never shrunk


def test_learners_record_the_noise_scale_of_their_count_release(compas, compas_raw):
    X, y = compas
    clf = DPRuleListClassifier(epsilon=1.0, max_rules=5).fit(X, y)
    hist = [r for r in clf.privacy_ledger_.rows if r.what.startswith("class counts")][0]
    assert clf.rule_list_.count_noise_scale == pytest.approx(1 / hist.epsilon)
    assert GreedyRuleListClassifier().fit(X, y).rule_list_.count_noise_scale is None
    Xr, yr = compas_raw
    s = dataset_schema("compas")
    for labels, share in (("noisy-counts", 1.0), ("permute-and-flip", 0.5)):
        t = PrivaTreeClassifier(epsilon=1.0, max_depth=2, leaf_labels=labels, **s.fit_params()).fit(Xr, yr)
        leaf_eps = sum(r.epsilon for r in t.privacy_ledger_.rows if r.what.startswith("leaf class counts"))
        assert t.tree_.count_noise_scale == pytest.approx(1 / leaf_eps)
        assert t.budget_["leaf"] * share == pytest.approx(leaf_eps)
    bd = BDPTClassifier(epsilon=1.0, max_depth=2, **s.fit_params()).fit(Xr, yr)
    eps_cnt = [r.epsilon for r in bd.privacy_ledger_.rows if r.what.startswith("class counts")]
    assert bd.tree_.count_noise_scale == pytest.approx(1 / min(eps_cnt))


# ---------------------------------------------------------------------------- what is printed is what predicts
def _leaf_lines(text):
    """{leaf id: (label, P in %, line)} of the printed tree's leaves."""
    out = {}
    for ln in text.splitlines():
        m = re.search(r"class: (\S+)  P=(\d+)%  .*leaf (\d+)$", ln)
        if m:
            out[int(m.group(3))] = (m.group(1), int(m.group(2)), ln)
    return out


def test_printed_leaf_share_and_id_are_predict_proba_and_apply(compas_raw):
    X, y = compas_raw
    s = dataset_schema("compas")
    t = PrivaTreeClassifier(epsilon=1.0, max_depth=4, random_state=2, **s.fit_params()).fit(X, y)
    leaves = _leaf_lines(str(t))
    assert set(leaves) == set(np.flatnonzero(t.tree_.is_leaf))  # every leaf printed once, by its id
    leaf, proba = t.apply(X), t.predict_proba(X)
    assert set(np.unique(leaf)) <= set(leaves)
    for i, (label, p, _) in leaves.items():
        k = list(t.classes_.astype(str)).index(label)
        assert abs(p / 100 - t.tree_.leaf_proba()[i, k]) <= 0.005
        rows = leaf == i
        if rows.any():
            assert np.allclose(proba[rows, k], t.tree_.leaf_proba()[i, k])
            assert (t.predict(X)[rows].astype(str) == label).all()
    # the merged display: ids of the fitted leaves it holds and the range of their predict_proba
    _, origin = t.tree_.prune_origin()
    text = t.to_text(prune=True)
    for ln in text.splitlines():
        m = re.search(r"P=(\d+)(?:–(\d+))?%  .*leaves? ([\d–, ]+)$", ln)
        if not m:
            continue
        ids = set()
        for part in m.group(3).split(", "):
            lo, _, hi = part.partition("–")
            ids |= set(range(int(lo), int(hi or lo) + 1))
        assert any(set(o) == ids for o in origin)
        rows = np.isin(leaf, list(ids))
        if rows.any():
            k = int(np.argmax(np.bincount(t.tree_.label[list(ids)])))
            lo, hi = int(m.group(1)), int(m.group(2) or m.group(1))
            assert (proba[rows, k] >= lo / 100 - 0.005).all() and (proba[rows, k] <= hi / 100 + 0.005).all()


def test_rule_list_rows_show_predict_proba_and_apply_positions(compas):
    X, y = compas
    clf = DPRuleListClassifier(epsilon=1.0, max_rules=5, random_state=4).fit(X, y)
    rows = [ln for ln in str(clf).splitlines() if ln.startswith(("IF", "ELSE", "ALWAYS"))]
    rl = clf.rule_list_
    assert len(rows) == len(rl.rules) + 1
    pos, proba = clf.apply(X), clf.predict_proba(X)
    for k, ln in enumerate(rows):
        assert ln.endswith(f"rule {k}")
        p = int(re.search(r"P=(\d+)%", ln).group(1))
        pred = rl._all_rules()[k].prediction
        hit = pos == k
        if hit.any():
            assert np.allclose(proba[hit, pred], rl.proba_table()[k, pred])
        assert abs(p / 100 - rl.proba_table()[k, pred]) <= 0.005


# ---------------------------------------------------------------------------- negated thresholds
@settings(max_examples=200, deadline=None)
@given(
    c=st.floats(-1e6, 1e6, allow_nan=False),
    x=st.floats(-1e6, 1e6, allow_nan=False),
    op=st.sampled_from(["<=", "<", ">=", ">"]),
)
def test_a_negated_comparison_prints_as_the_opposite_comparison(c, x, op):
    from dpmodels.data.rules import literal_name

    name = f"x{op}{c!r}"
    neg = literal_name(name, False)
    assert not neg.startswith("not ")
    m = re.fullmatch(r"x(<=|<|>=|>)(.+)", neg)
    assert m and float(m.group(2)) == c
    ops = {"<=": x <= c, "<": x < c, ">=": x >= c, ">": x > c}
    assert ops[m.group(1)] == (not ops[op])  # the printed literal holds exactly where the column is 0


def test_negated_names_that_are_not_one_comparison_keep_not():
    from dpmodels.data.rules import literal_name

    assert literal_name("sex=Male", False) == "sex≠Male"
    assert literal_name("30<age<=50", False) == "not 30<age<=50"
    assert literal_name("f12", False) == "not f12"
    rl = RuleList(
        ["age<=37.5", "sex=Male"],
        [Rule([("age<=37.5", False), ("sex=Male", False)], 1, (1, 4))],
        Rule([], 0, (5, 1)),
        [0, 1],
        False,
    )
    assert "IF   age>37.5 and sex≠Male THEN 1" in rl.to_text()
    assert rl.get_rules()["literals"][0] == [("age<=37.5", False), ("sex=Male", False)]  # the model


# ---------------------------------------------------------------------------- integer columns
def _stump(threshold, noisy=True, value=((5.0, 1.0), (1.0, 5.0))):
    return Tree(
        children_left=[1, -1, -1],
        children_right=[2, -1, -1],
        feature=[0, -2, -2],
        threshold=[threshold, np.nan, np.nan],
        left_categories=[None] * 3,
        value=np.array([[6.0, 6.0], *value]),
        label=[-1, 0, 1],
        classes=[0, 1],
        feature_names=["priors_count"],
        categorical=[False],
        counts_are_noisy=noisy,
    )


def test_integer_columns_print_the_equivalent_integer_threshold():
    t = _stump(0.5311)
    text = t.to_text(integer_features=["priors_count"])
    assert "priors_count <= 0\n" in text and "priors_count >  0\n" in text
    assert "declared" in text and "0.5311" not in text
    assert "priors_count <= 0.5311" in t.to_text()  # not declared: the released value
    df = t.get_rules(integer_features=["priors_count"])
    assert df["antecedent"].tolist() == ["priors_count <= 0", "priors_count > 0"]
    assert df["conditions"][0] == [("priors_count", "<=", 0.5311)]  # the model keeps the release
    assert t.to_dict()["threshold"][0] == 0.5311


@settings(max_examples=100, deadline=None)
@given(thr=st.floats(-50, 50, allow_nan=False), xs=st.lists(st.integers(-60, 60), min_size=1, max_size=30))
def test_integer_rendering_sends_every_integer_where_the_model_does(thr, xs):
    t = _stump(thr)
    printed = int(re.search(r"priors_count <= (-?\d+)", t.to_text(integer_features=[0])).group(1))
    x = np.array(xs, dtype=float)[:, None]
    assert np.array_equal(t.apply_encoded(x) == 1, x[:, 0] <= printed)


def test_bundled_schemas_declare_integer_columns_by_integer_bounds():
    s = dataset_schema("diabetes")
    b = s.fit_params()["bounds"]
    assert isinstance(b["glucose"][0], int) and isinstance(b["bmi"][0], float)
    assert "bmi" not in s.integer and "diabetes_pedigree" not in s.integer
    assert all(isinstance(v, int) for lo_hi in dataset_schema("compas").fit_params()["bounds"].values() for v in lo_hi)


# ---------------------------------------------------------------------------- empty leaves, category sets
def test_empty_noisy_leaves_and_rules_say_no_records():
    t = _stump(3.0, value=((5.0, 1.0), (-2.0, 0.0)))
    line = [ln for ln in t.export_text().splitlines() if ln.endswith("leaf 2")][0]
    assert "no records (noise)" in line and "n≈" not in line and "0*" not in line
    exact = _stump(3.0, noisy=False, value=((5.0, 1.0), (0.0, 0.0)))
    assert "n=0  [0 0, 1 0]" in exact.export_text()  # exact counts: an empty leaf is a fact, shown as is
    rl = RuleList(["a"], [Rule([("a", True)], 1, (-1.0, -3.0))], Rule([], 0, (9.0, 2.0)), [0, 1], True, 1.0)
    assert "no records (noise)" in rl.to_text().splitlines()[2]


def _education_tree():
    cats = ["Bachelors", "Doctorate", "HS-grad", "Prof-school"]
    # root: education in {Prof-school} ? leaf : (education in {Doctorate, Prof-school} ? leaf : leaf)
    return Tree(
        children_left=[1, -1, 3, -1, -1],
        children_right=[2, -1, 4, -1, -1],
        feature=[0, -2, 0, -2, -2],
        threshold=[np.nan] * 5,
        left_categories=[(3,), None, (1, 3), None, None],
        value=np.ones((5, 2)),
        label=[-1, 1, -1, 1, 0],
        classes=[0, 1],
        feature_names=["education"],
        categorical=[True],
        categories={0: cats},
    )


def test_a_childs_category_set_is_intersected_with_what_its_parent_leaves():
    t = _education_tree()
    text = t.export_text()
    assert "education in {Doctorate}\n" in text  # not {Doctorate, Prof-school}
    assert "education not in {Doctorate, Prof-school}\n" in text
    assert "education in {Doctorate, Prof-school" not in text
    compact = t.to_text()
    assert (
        "education in {Bachelors, HS-grad, <unlisted>}" in compact
        or "education not in {Doctorate, Prof-school}" in compact
    )
    # the printed rules route every value (unlisted ones included) as the model does
    from test_tree_model import evaluate_rules, parse_rules

    X = pd.DataFrame({"education": ["Bachelors", "Doctorate", "HS-grad", "Prof-school", "Masters"]})
    assert np.array_equal(evaluate_rules(parse_rules(text), X), t.predict(X).astype(str))
    assert dict(zip(t.get_rules()["leaf"], t.get_rules()["antecedent"]))[3] == "education in {Doctorate}"


def test_thousands_of_categories_print_as_a_count_with_the_full_set_in_get_rules():
    zips = [f"{k:05d}" for k in range(5000)]
    left = tuple(range(0, 4986, 2))  # 2,493 codes
    t = Tree(
        children_left=[1, -1, -1],
        children_right=[2, -1, -1],
        feature=[0, -2, -2],
        threshold=[np.nan] * 3,
        left_categories=[left, None, None],
        value=np.ones((3, 2)),
        label=[-1, 0, 1],
        classes=[0, 1],
        feature_names=["zip"],
        categorical=[True],
        categories={0: zips},
    )
    text = t.to_text()
    assert "zip in {2,493 of 5,000 listed}" in text and "zip not in {2,493 of 5,000 listed}" in text
    assert len(text) < 2000
    df = t.get_rules()
    assert df["antecedent"][0] == "zip in {2,493 of 5,000 listed}"
    assert df["conditions"][0] == [("zip", "in", tuple(zips[c] for c in left))]  # every value
    assert "00002" in t.export_text()  # the exact form lists them (max_listed=None)
    assert t.to_dict()["left_categories"][0] == list(left)


# ---------------------------------------------------------------------------- ledger, Binarizer grid
def test_ledger_summary_wraps_long_descriptions_instead_of_cutting_them():
    from dpmodels.privacy import PrivacyLedger

    led = PrivacyLedger(1.0)
    what = (
        "level 3: split of 8 node(s) among 31–45 candidates inside each node's region, "
        "histograms of 2 categorical features in category order, and a long tail of words"
    )
    led.spend(what, "permute-and-flip", 0.5, sensitivity=1.0)
    text = led.summary()
    assert "..." not in text
    assert " ".join(text.split()).count(" ".join(what.split())) == 0  # wrapped over lines ...
    assert all(w in text for w in what.split())  # ... but every word is there
    table = text.splitlines()
    width = len(table[1])
    assert all(len(ln) <= width for ln in table[1:-2])


def test_binarizer_rounding_grid_is_a_documented_choice_on_skewed_columns():
    from dpmodels.data import Binarizer

    rng = np.random.default_rng(0)
    X = pd.DataFrame({"vicprice": np.round(rng.lognormal(6, 1, 20000))})  # quantiles ~260, ~630
    kw = dict(epsilon=5.0, bounds={"vicprice": (0, 1_000_000)}, random_state=1)
    assert list(Binarizer(**kw).fit(X).get_feature_names_out()) == ["vicprice<=0"]  # the range grid (10^4)
    sig = Binarizer(rounding="significant", grid_size=2**20, **kw).fit(X).cut_points_["vicprice"]
    assert sig.size == 2 and 150 <= sig[0] <= 400 and 400 <= sig[1] <= 1000
    assert all(len(f"{v:g}".rstrip("0").replace(".", "")) <= 2 for v in sig)
    raw = Binarizer(rounding=None, grid_size=2**20, **kw).fit(X).cut_points_["vicprice"]
    assert not np.allclose(raw, np.round(raw, -1))  # not rounded
    for bad, match in (
        (dict(rounding="log"), "'rounding' parameter of Binarizer"),
        (dict(grid_size=0), "'grid_size' parameter"),
    ):
        b = Binarizer(**bad, **kw)
        with pytest.raises(ValueError, match=match):
            b.fit(X)
        assert not hasattr(b, "privacy_ledger_")  # refused before any budget is spent


def test_rule_list_thresholds_print_at_four_significant_digits():
    names = ["vicprice<=261.6394087383489", "age<=37.5"]
    rl = RuleList(names, [Rule([(names[0], False), (names[1], True)], 1, (1, 4))], Rule([], 0, (5, 1)), [0, 1], False)
    text = rl.to_text()
    assert "IF   vicprice>261.6 and age<=37.5 THEN 1" in text
    assert "# thresholds rounded for reading" in text
    assert rl.get_rules()["literals"][0][0] == (names[0], False)  # the model's column, exact
    assert "261.6394087383489" in rl.to_text(significant_digits=None)
    assert "rounded" not in _rl([1], 0).to_text()


# ---------------------------------------------------------------------------- one set of conventions
_TREE_LINE = re.compile(r"^((?:\|   )*)\|--- (.*)$")
_NUM_TEST = re.compile(r"^(?P<name>\S+) (?P<op><=|> ) (?P<thr>\S+)$")


def _printed_leaf_paths(text):
    """{leaf id: [(feature, op, printed threshold text)]} read from a printed tree alone."""
    paths, stack = {}, []
    for line in text.splitlines():
        m = _TREE_LINE.match(line)
        if not m:
            continue
        depth, body = len(m.group(1)) // 4, m.group(2)
        del stack[depth:]
        leaf = re.search(r"  leaf (\d+)$", body)
        if leaf:
            paths[int(leaf.group(1))] = list(stack)
            continue
        t = _NUM_TEST.match(body)
        assert t, body  # numerical columns only in these fixtures
        stack.append((t.group("name"), t.group("op").strip(), t.group("thr")))
    return paths


def _route_by_text(paths, X: pd.DataFrame) -> np.ndarray:
    """Leaf of every row by the printed tests alone; exactly one printed path must hold."""
    out = []
    for _, row in X.iterrows():
        hit = [
            leaf
            for leaf, conds in paths.items()
            if all((row[f] <= float(t)) if op == "<=" else (row[f] > float(t)) for f, op, t in conds)
        ]
        assert len(hit) == 1, hit
        out.append(hit[0])
    return np.array(out)


@pytest.fixture(scope="module")
def integer_frame(compas_raw):
    """COMPAS's integer columns, and one real-valued column (declared by float bounds)."""
    X, y = compas_raw
    cols = ["age", "juv_fel_count", "juv_misd_count", "juv_other_count", "priors_count"]
    Xn = X[cols].astype(int).assign(score=np.random.default_rng(0).uniform(0, 10, len(X)).round(1))
    bounds = {**{c: dataset_schema("compas").bounds[c] for c in cols}, "score": (0.0, 10.0)}
    return Xn, y, bounds, cols


@pytest.mark.parametrize("kind", ["classifier", "regressor"])
def test_printed_integer_thresholds_are_integers_and_route_rows_as_the_model(integer_frame, kind):
    from dpmodels.tree import PrivaTreeRegressor

    X, y, bounds, cols = integer_frame
    if kind == "classifier":
        est = PrivaTreeClassifier(epsilon=2.0, max_depth=4, classes=[0, 1], bounds=bounds, random_state=5).fit(X, y)
    else:
        est = PrivaTreeRegressor(epsilon=2.0, max_depth=4, bounds=bounds, label_bounds=(0.0, 1.0), random_state=5).fit(
            X, y.astype(float)
        )
    text = str(est)
    paths = _printed_leaf_paths(text)
    printed = [(f, t) for conds in paths.values() for f, _, t in conds]
    assert {f for f, _ in printed} & set(cols)  # the fixture tests integer columns
    assert all(re.fullmatch(r"-?\d+", t) for f, t in printed if f in cols), printed
    assert np.array_equal(_route_by_text(paths, X), est.apply(X))  # the printed tree is the model


def test_counts_print_with_thousands_separators():
    cell, _ = count_cell([12345, 1234567], ["no", "yes"], noisy=True, predicted=1)
    assert cell == "[n≈1,246,912: no 12,345, yes 1,234,567 (99%)]"
    t = _stump(3.0, value=((5000.0, 1200.0), (999.0, 1000.0)))
    text = t.to_text()
    assert "n≈8,199 (noisy total)" in text and "[n≈6,200: 0 5,000 (81%), 1 1,200]" not in text
    assert "0 5,000, 1 1,200" in text and "0 999, 1 1,000" in text
    assert "threshold" not in text and "priors_count <= 3\n" in text  # thresholds: no separator


def test_rule_lists_say_how_they_are_read_and_right_align_the_samples_column():
    rl = _rl([1, 0], 0, [(1500.0, 9.0), (8.0, 2.0), (20.0, 12000.0)])
    text = rl.to_text()
    rows = [ln for ln in text.splitlines() if ln.startswith(("IF", "ELSE"))]
    assert text.count("first rule whose condition holds decides") == 1
    ends = {re.search(r"n≈[\d,]+", ln).end() for ln in rows}
    assert len(ends) == 1 and "n≈12,020" in rows[-1] and "[no 1,500, yes 9]" in rows[0]
    only_default = RuleList(["a"], [], Rule([], 0, (3.0, 1.0)), ["no", "yes"], True)
    assert "first rule" not in only_default.to_text()  # one row: nothing to read in order
    from dpmodels.export import export_graphviz

    assert "the first rule whose condition holds decides" in export_graphviz(rl)  # the picture's title
    pytest.importorskip("matplotlib")
    import matplotlib.pyplot as plt

    from dpmodels.export import plot_model

    ax = plot_model(rl)
    assert "the first rule whose condition holds decides" in ax.get_xlabel()
    plt.close(ax.figure)


def test_every_model_and_picture_writes_comparisons_as_le_and_gt(integer_frame):
    """Trees, regression trees, rule lists over binarized columns and additive models: ``<=``
    and ``>`` only (no ``≤``, ``≥``, ``>=``, ``<``), in text and in the graphviz export."""
    from dpmodels.data import Binarizer
    from dpmodels.export import export_graphviz
    from dpmodels.gam import DPAdditiveRegressor
    from dpmodels.tree import PrivaTreeRegressor

    X, y, bounds, _ = integer_frame
    X = X.assign(score=X["score"] * 1.001)  # real thresholds too
    kw = dict(epsilon=2.0, bounds=bounds, random_state=1)
    tree = PrivaTreeClassifier(max_depth=3, classes=[0, 1], **kw).fit(X, y)
    reg = PrivaTreeRegressor(max_depth=3, label_bounds=(0.0, 1.0), **kw).fit(X, y.astype(float))
    gam = DPAdditiveRegressor(label_bounds=(0.0, 1.0), max_rounds=1, **kw).fit(X, y.astype(float))
    Xb = Binarizer(cut_points={"age": [25.5, 37.5], "score": [4.25]}).fit_transform(X[["age", "score"]])
    rules = GreedyRuleListClassifier(max_rules=3).fit(Xb, y)
    texts = [str(tree), str(reg), str(gam), str(rules), export_graphviz(tree), export_graphviz(reg)]
    ops = {op for t in texts for op in re.findall(r"(<=|>=|≤|≥|(?<![-=])>(?!=)|<(?![=u]))", t)}
    assert ops == {"<=", ">"}, ops
    for block in str(gam).split(":\n")[1:]:  # each term's bins: the samples column right-aligned
        rows = [ln for ln in block.splitlines() if "→" in ln]
        assert len({len(ln.rstrip()) for ln in rows}) == 1 and all(re.search(r"n≈[\d,]+$", ln) for ln in rows)


def test_tree_leaves_print_their_samples_column_right_aligned():
    """Leaves at different depths: heads padded to one width, ``n≈…`` right-aligned, then the
    per-class counts and the id (the rule lists' columns); a regression tree's likewise."""
    from dpmodels.tree.regression_model import RegressionTree

    kw = dict(
        children_left=[1, -1, 3, -1, -1],
        children_right=[2, -1, 4, -1, -1],
        feature=[0, -2, 0, -2, -2],
        threshold=[1.5, np.nan, 3.5, np.nan, np.nan],
        left_categories=[None] * 5,
        feature_names=["x"],
        categorical=[False],
        counts_are_noisy=True,
    )
    value = np.array([[0, 0], [5, 1], [0, 0], [12000, 345], [-2, 1]], dtype=float)
    t = Tree(value=value, label=[-1, 0, -1, 0, 1], classes=[0, 1], **kw)
    leaves = [ln for ln in t.export_text().splitlines() if ln.rstrip().split()[-2:-1] == ["leaf"]]
    assert len(leaves) == 3 and "n≈12,345  [0 12,000, 1 345]" in leaves[1]
    assert len({re.search(r"n≈[\d,]+", ln).end() for ln in leaves}) == 1  # right-aligned
    assert len({ln.index("leaf ") for ln in leaves}) == 1
    reg = RegressionTree(
        value=np.array([[0, 0], [5, 10], [0, 0], [12345, 9.0e4], [3, 3]], dtype=float),
        label=[-1, 0, -1, 0, 0],
        classes=np.array(["n", "sum"]),
        leaf_value=np.array([0, 2.0, 0, 7.29, 1.0]),
        label_bounds=(0.0, 10.0),
        **kw,
    )
    rows = [ln for ln in reg.export_text().splitlines() if "value: " in ln]
    assert len({re.search(r"n≈[\d,]+", ln).end() for ln in rows}) == 1 and "n≈12,345" in rows[1]
