"""The shared tree representation (dpmodels.tree.model)."""

import json
import re

import numpy as np
import pandas as pd
import pytest

from dpmodels.tree import Tree

# ---------------------------------------------------------------------------- printed-rule oracle
_COND = re.compile(r"^(?P<name>.+?) (?P<op><=|>|not in|in)\s+(?P<rhs>.+)$")


def parse_rules(text):
    """export_text -> list of (conditions, class label string); conditions (name, op, rhs)."""
    rules, stack = [], []
    for line in text.splitlines():
        if not line.strip() or line.startswith("#"):  # the legend of noisy counts
            continue
        m = re.match(r"^((?:\|   )*)\|--- (.*)$", line)
        assert m, line
        depth = len(m.group(1)) // 4
        body = m.group(2)
        del stack[depth:]
        if body.startswith("class: "):
            label = body[len("class: ") :].split("  ")[0]
            rules.append((list(stack), label))
            continue
        c = _COND.match(body)
        assert c, body
        op, rhs = c.group("op").strip(), c.group("rhs")
        if op in ("in", "not in"):
            rhs = set(v.strip() for v in rhs.strip("{}").split(",")) if rhs != "{}" else set()
        else:
            rhs = float(rhs)
        stack.append((c.group("name"), op, rhs))
    return rules


def evaluate_rules(rules, X: pd.DataFrame):
    """Label of each row by the printed rules alone (no use of apply())."""
    out = []
    for _, row in X.iterrows():
        hits = []
        for conds, label in rules:
            ok = True
            for name, op, rhs in conds:
                v = row[name]
                if op == "<=":
                    ok = float(v) <= rhs
                elif op == ">":
                    ok = float(v) > rhs
                elif op == "in":
                    ok = str(v) in rhs
                else:
                    ok = str(v) not in rhs
                if not ok:
                    break
            if ok:
                hits.append(label)
        assert len(hits) == 1, "printed rules must cover every row exactly once"
        out.append(hits[0])
    return np.array(out)


# ---------------------------------------------------------------------------- fixtures
def small_tree():
    #            0: x <= 0.5
    #      1: c in {u, w}          2: leaf a  counts [3, -1]
    #   3: leaf b [4, 6]  4: leaf a [0, 0]
    return Tree(
        children_left=[1, 3, -1, -1, -1],
        children_right=[2, 4, -1, -1, -1],
        feature=[0, 1, -2, -2, -2],
        threshold=[0.5, np.nan, np.nan, np.nan, np.nan],
        left_categories=[None, (0, 2), None, None, None],
        value=np.array([[np.nan] * 2, [np.nan] * 2, [3, -1], [4, 6], [0, 0]], float),
        label=[-1, -1, 0, 1, 0],
        classes=np.array(["a", "b"]),
        feature_names=["x", "c"],
        categorical=[False, True],
        categories={1: ["u", "v", "w"]},
    )


def test_apply_predict_and_proba():
    t = small_tree()
    X = pd.DataFrame({"x": [0.1, 0.2, 0.7, 0.3, 0.5], "c": ["u", "v", "w", "zz", "w"]})
    assert t.apply(X).tolist() == [3, 4, 2, 4, 3]
    assert t.predict(X).tolist() == ["b", "a", "a", "a", "b"]
    p = t.predict_proba(X)
    np.testing.assert_allclose(p[0], [0.4, 0.6])
    np.testing.assert_allclose(p[1], [0.5, 0.5])  # all-zero counts: uniform
    np.testing.assert_allclose(p[2], [1.0, 0.0])  # negative count clipped at 0
    np.testing.assert_allclose(p.sum(axis=1), 1.0)


def test_the_label_holds_the_top_probability_also_in_a_tie():
    """Noisy counts (-3, 2) with label 0: clipped and shrunk, class 1 comes out on top, so the
    shares are swapped and the label holds the top one. A tie (exact counts [5, 5], label b) keeps
    the released label: it is one of the argmaxes."""
    t = small_tree()
    t.value[3] = [5, 5]
    X = pd.DataFrame({"x": [0.1, 0.2], "c": ["u", "v"]})
    np.testing.assert_allclose(t.predict_proba(X), [[0.5, 0.5], [0.5, 0.5]])
    assert t.predict(X).tolist() == ["b", "a"]
    assert "class: b  P=50%  n=10  [a 5, b 5]  leaf 3" in _columns(t.export_text())
    t.value[3] = [-3, 2]
    t.label[3] = 0
    t.counts_are_noisy = True
    p = t.predict_proba(X)[0]
    assert t.predict(X)[0] == "a" and p[0] >= p[1] and p[0] > 0.5


def test_numpy_input_and_column_order_by_name():
    t = small_tree()
    Xn = np.array([[0.1, "u"], [0.9, "v"]], dtype=object)
    assert t.predict(Xn).tolist() == ["b", "a"]
    Xp = pd.DataFrame({"c": ["u", "v"], "x": [0.1, 0.9]})  # reordered columns
    assert t.predict(Xp).tolist() == ["b", "a"]


def test_unknown_category_goes_right_and_nan_is_an_error():
    t = small_tree()
    assert t.apply(pd.DataFrame({"x": [0.0], "c": ["never-seen"]})).tolist() == [4]
    with pytest.raises(ValueError, match="NaN"):
        t.apply(pd.DataFrame({"x": [np.nan], "c": ["u"]}))
    with pytest.raises(ValueError, match="infinity"):
        t.apply(pd.DataFrame({"x": [np.inf], "c": ["u"]}))
    # a categorical value of any type outside the public list, missing included, is unknown:
    # routed right, never an error (foreign types used to raise TypeError in np.unique)
    odd = pd.DataFrame({"x": [0.0] * 6, "c": [None, np.nan, pd.NA, 3, 2.5, ("u",)]}, dtype=object)
    assert t.apply(odd).tolist() == [4] * 6
    mixed = np.array([[0.0, "u"], [0.0, 7], [0.0, None], [0.0, [1, 2]]], dtype=object)
    assert t.apply(mixed).tolist() == [t.apply(pd.DataFrame({"x": [0.0], "c": ["u"]}))[0], 4, 4, 4]


def test_export_text_agrees_with_predictions():
    t = small_tree()
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"x": rng.uniform(-1, 2, 300), "c": rng.choice(["u", "v", "w", "q"], 300)})
    X.loc[0, "x"] = 0.5  # exactly on the threshold
    assert np.array_equal(evaluate_rules(parse_rules(t.export_text()), X), t.predict(X))


def test_to_dict_json_round_trip():
    t = small_tree().fill_internal_values()
    d = json.loads(json.dumps(t.to_dict()))
    t2 = Tree.from_dict(d)
    assert t2.export_text() == t.export_text()
    for name in ("children_left", "children_right", "feature", "label"):
        assert np.array_equal(getattr(t, name), getattr(t2, name))
    np.testing.assert_array_equal(t.value, t2.value)
    X = pd.DataFrame({"x": [0.1, 0.9, 0.2], "c": ["u", "u", "v"]})
    assert np.array_equal(t.predict(X), t2.predict(X))
    assert Tree.from_json(t.to_json()).to_dict() == t.to_dict()


def test_fill_internal_values_and_prune_keep_predictions():
    t = small_tree().fill_internal_values()
    np.testing.assert_allclose(t.value[1], [4, 6])
    np.testing.assert_allclose(t.value[0], [7, 5])
    p = t.prune()
    X = pd.DataFrame({"x": np.linspace(-1, 2, 50), "c": ["u", "v"] * 25})
    assert np.array_equal(p.predict(X), t.predict(X))
    # two sibling leaves with the same label merge
    t2 = small_tree()
    t2.label[3] = 0
    assert t2.prune().n_nodes == 1
    assert t2.prune().n_leaves == 1


def test_depth_and_counts():
    t = small_tree()
    assert t.n_leaves == 3 and t.max_depth == 2 and t.n_nodes == 5


@pytest.mark.parametrize(
    "change",
    [
        dict(children_left=[1, 3, -1, -1, 9]),  # child out of range
        dict(children_right=[2, -1, -1, -1, -1]),  # one child only
        dict(feature=[5, 1, -2, -2, -2]),  # feature out of range
        dict(threshold=[np.nan] * 5),  # numerical node without threshold
        dict(left_categories=[None, (0, 7), None, None, None]),  # code out of range
        dict(label=[-1, -1, 0, 2, 0]),  # label out of range
        dict(value=np.zeros((5, 3))),  # wrong value shape
    ],
)
def test_validation_errors(change):
    kw = dict(
        children_left=[1, 3, -1, -1, -1],
        children_right=[2, 4, -1, -1, -1],
        feature=[0, 1, -2, -2, -2],
        threshold=[0.5, np.nan, np.nan, np.nan, np.nan],
        left_categories=[None, (0, 2), None, None, None],
        value=np.zeros((5, 2)),
        label=[-1, -1, 0, 1, 0],
        classes=np.array(["a", "b"]),
        feature_names=["x", "c"],
        categorical=[False, True],
        categories={1: ["u", "v", "w"]},
    )
    kw.update(change)
    with pytest.raises(ValueError):
        Tree(**kw)


@pytest.mark.parametrize(
    "categorical_first, message",
    [(True, "categorical node 1 needs left_categories"), (False, "numerical node 1 needs a finite threshold")],
)
def test_validation_reports_the_first_bad_node(categorical_first, message):
    """A bad numerical node and a bad categorical node: the error names the one with the smaller id."""
    kw = dict(
        children_left=[1, 3, 5, -1, -1, -1, -1],
        children_right=[2, 4, 6, -1, -1, -1, -1],
        feature=[0, 1, 0, -2, -2, -2, -2] if categorical_first else [0, 0, 1, -2, -2, -2, -2],
        threshold=[0.5] + [np.nan] * 6,
        left_categories=[None] * 7,
        value=np.zeros((7, 2)),
        label=[-1, -1, -1, 0, 1, 0, 1],
        classes=np.array(["a", "b"]),
        feature_names=["x", "c"],
        categorical=[False, True],
        categories={1: ["u", "v", "w"]},
    )
    with pytest.raises(ValueError, match=message):
        Tree(**kw)


def test_apply_is_vectorised_on_large_input():
    t = small_tree()
    n = 200_000
    Z = np.column_stack([np.random.default_rng(1).uniform(0, 1, n), np.tile([0.0, 1.0, 2.0, -1.0], n // 4)])
    leaves = t.apply_encoded(Z)
    assert leaves.shape == (n,)
    assert set(np.unique(leaves)) <= {2, 3, 4}


def _columns(text: str) -> str:
    """A printed tree with its leaves' column padding (alignment) squeezed to two spaces."""
    return re.sub(r" {2,}", "  ", text)


def test_printed_counts_are_labelled_by_class_and_noisy_negatives_are_clipped_and_marked():
    exact = _columns(small_tree().export_text())
    assert "class: a  P=100%  n=2  [a 3, b -1]  leaf 2" in exact and "≈" not in exact  # not noisy: as is
    t = small_tree()
    t.counts_are_noisy = True
    text = _columns(t.export_text())
    assert "class: a  P=100%  n≈3  [a 3, b 0*]  leaf 2" in text  # P: predict_proba of the label
    assert "class: b  P=60%  n≈10  [a 4, b 6]" in text
    assert text.splitlines()[-1].startswith("# ≈: noisy counts") and "raw value" in text
    assert t.value[2, 1] == -1  # the raw noisy value stays in the model ...
    back = Tree.from_json(t.to_json())
    assert back.counts_are_noisy and back.value[2, 1] == -1  # ... and in its JSON
    named = _columns(t.export_text(class_names=["no", "yes"]))
    assert len(re.findall(r"n≈\d+  \[no \d", named)) == 2
    assert "class: no  P=50%  no records (noise)  leaf 4" in named  # noisy counts (0, 0): no [n≈0 …] cell
    assert not Tree.from_dict(
        {k: v for k, v in small_tree().to_dict().items() if k != "counts_are_noisy"}
    ).counts_are_noisy
