"""Pictures and DOT text of models (dpmodels.export): what is drawn is the released model.

Set DPMODELS_WRITE_FIGURES=1 to (re)write the README's figures docs/figures/privatree-compas.png
and docs/figures/dp-rulelist-compas.png from the same code.
"""

import os
import re
import shutil
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

from _extras import need

matplotlib = need("matplotlib")
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from sklearn.pipeline import make_pipeline  # noqa: E402

from dpmodels.data import Binarizer, dataset_schema, load_dataset  # noqa: E402
from dpmodels.export import export_graphviz, export_text, plot_model, save_model_figure  # noqa: E402
from dpmodels.io import load_model, save_model  # noqa: E402
from dpmodels.rulelist import DPRuleListClassifier, Rule, RuleList  # noqa: E402
from dpmodels.tree import PrivaTreeClassifier, Tree  # noqa: E402

FIGURES = Path(__file__).resolve().parents[2] / "docs" / "figures"


@pytest.fixture(scope="module")
def compas_raw(compas_raw):
    """The first 3,000 rows of raw COMPAS (overrides the suite's ``compas_raw``)."""
    X, y = compas_raw
    return X.iloc[:3000], y.iloc[:3000]


@pytest.fixture(scope="module")
def tree(compas_raw):
    X, y = compas_raw
    return PrivaTreeClassifier(epsilon=1.0, max_depth=3, random_state=0, **dataset_schema("compas").fit_params()).fit(
        X, y
    )


@pytest.fixture(scope="module")
def rule_list(compas):
    X, y = compas
    return DPRuleListClassifier(epsilon=1.0, max_rules=4, random_state=0).fit(X, y)


def _boxes(ax, prefix):
    return {t.get_gid(): t for t in ax.texts if (t.get_gid() or "").startswith(prefix)}


# ---------------------------------------------------------------------------- trees
def test_tree_figure_one_box_per_node_header_title_and_majority_colours(tree, compas_raw):
    fig, ax = plt.subplots()
    try:
        plot_model(tree, ax)
        boxes = _boxes(ax, "node-")
        t = tree.tree_
        assert len(boxes) == t.n_nodes and set(boxes) == {f"node-{i}" for i in range(t.n_nodes)}
        title = ax.get_title(loc="left")
        assert title.startswith("PrivaTreeClassifier(max_depth=3") and "privacy: ε=1, δ=0 · proven DP" in title
        proba = tree.predict_proba(compas_raw[0])
        leaf_of = tree.apply(compas_raw[0])
        for i in np.flatnonzero(t.is_leaf):
            text = boxes[f"node-{i}"].get_text()
            assert f"leaf {i}" in text and f"class: {t.classes[t.label[i]]}" in text
            rows = leaf_of == i
            if rows.any():  # the printed P is what predict_proba returns for the leaf's rows
                p = int(re.search(r"P=(\d+)%", text).group(1))
                assert np.allclose(proba[rows, t.label[i]], p / 100, atol=0.005)
            # colour by majority class: class 0 is blue (b > r), class 1 orange (r > b)
            r, _, b = boxes[f"node-{i}"].get_bbox_patch().get_facecolor()[:3]
            assert (r > b) == (t.label[i] == 1)
        for i in np.flatnonzero(~t.is_leaf):
            assert re.match(r"\w+ (<= -?\d|in \{|not in \{)", boxes[f"node-{i}"].get_text())
    finally:
        plt.close(fig)


def test_pruned_tree_figure_shows_merged_ids(tree):
    fig, ax = plt.subplots()
    try:
        plot_model(tree, ax, prune=True)
        pruned, origin = tree.tree_.prune_origin()
        boxes = _boxes(ax, "node-")
        assert len(boxes) == pruned.n_nodes
        for i in np.flatnonzero(pruned.is_leaf):
            ids = re.search(r"leaf (?:\d+)|leaves [\d–, ]+", boxes[f"node-{i}"].get_text()).group(0)
            shown = set()
            for part in re.findall(r"\d+–\d+|\d+", ids):
                lo, _, hi = part.partition("–")
                shown |= set(range(int(lo), int(hi or lo) + 1))
            assert shown == set(origin[i])
    finally:
        plt.close(fig)


# ---------------------------------------------------------------------------- rule lists
def test_rule_list_figure_one_row_per_rule_bars_are_the_counts(rule_list):
    fig, ax = plt.subplots()
    try:
        plot_model(rule_list, ax)
        rl = rule_list.rule_list_
        rows = _boxes(ax, "rule-")
        assert len(rows) == len(rl.rules) + 1
        labels = [t.get_text() for t in ax.get_yticklabels()]
        assert labels[0].startswith("IF ") and labels[-1] == "ELSE"
        bars = {p.get_gid(): p for p in ax.patches if p.get_gid()}
        for k, r in enumerate(rl._all_rules()):
            for j in range(2):
                assert bars[f"rule-{k}-class-{j}"].get_width() == pytest.approx(max(r.counts[j], 0))
            p = int(re.search(r"P=(\d+)%", rows[f"rule-{k}"].get_text()).group(1))
            assert abs(p / 100 - rl.proba_table()[k, r.prediction]) <= 0.005
            assert f"(rule {k})" in rows[f"rule-{k}"].get_text()
        assert "privacy: ε=1" in ax.get_title(loc="left")
    finally:
        plt.close(fig)


def test_pipeline_and_loaded_model_draw_like_the_estimator(tmp_path, rule_list, tree, compas_raw):
    X, y = compas_raw
    s = dataset_schema("compas")
    num = list(s.bounds)
    pipe = make_pipeline(
        Binarizer(epsilon=0.5, bounds=s.fit_params()["bounds"], categories=s.fit_params()["categories"]),
        DPRuleListClassifier(epsilon=1.0, max_rules=3, classes=[0, 1]),
    ).fit(X[num + list(s.categories)], y)
    fig, ax = plt.subplots()
    try:
        plot_model(pipe, ax)
        # the learner's ledger carries the Binarizer's releases (its input said where its cut points
        # came from): the title shows that one ledger, the pipeline's whole ε, counted once
        title = ax.get_title(loc="left")
        assert "privacy: ε=1.5, δ=0 · proven DP" in title and "+ Binarizer" not in title
        assert "input: Binarizer of the columns age" in export_text(pipe)
        assert len(_boxes(ax, "rule-")) == len(pipe[-1].rule_list_.rules) + 1
    finally:
        plt.close(fig)
    from dpmodels.privacy import BudgetAccountant

    acc = BudgetAccountant(1.5)
    shared = make_pipeline(
        Binarizer(
            epsilon=0.5, bounds=s.fit_params()["bounds"], categories=s.fit_params()["categories"], accountant=acc
        ),
        DPRuleListClassifier(epsilon=1.0, max_rules=3, classes=[0, 1], accountant=acc),
    ).fit(X[num + list(s.categories)], y)
    header = export_text(shared).splitlines()
    assert header[1].startswith("privacy: ε=1.5, δ=0 · proven DP") and " + " not in header[1]
    for est in (tree, rule_list):
        path = save_model(est, tmp_path / f"{type(est).__name__}.json")
        loaded = load_model(path)
        body = [ln for ln in export_graphviz(est).splitlines() if not ln.startswith("label=")]
        assert body == [ln for ln in export_graphviz(loaded).splitlines() if not ln.startswith("label=")]
        assert export_text(loaded).splitlines()[3:] == export_text(est).splitlines()[3:]


# ---------------------------------------------------------------------------- files
def test_save_model_figure_picks_the_format_from_the_suffix(tmp_path, tree, rule_list):
    png = save_model_figure(tree, tmp_path / "t.png")
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    svg = save_model_figure(rule_list, tmp_path / "r.SVG")
    assert "<svg" in svg.read_text()[:2000]
    for bad in ("t.jpg", "t.pdf", "t"):
        with pytest.raises(ValueError, match=r"use \.png or \.svg") as e:
            save_model_figure(tree, tmp_path / bad)
        assert "\n" not in str(e.value) and not (tmp_path / bad).exists()


def test_unfitted_or_foreign_objects_get_one_clear_error():
    with pytest.raises(ValueError, match="not fitted yet"):
        export_graphviz(PrivaTreeClassifier(epsilon=1.0))
    with pytest.raises(ValueError, match="not fitted yet"):
        export_graphviz(DPRuleListClassifier(epsilon=1.0))
    with pytest.raises(TypeError, match="cannot draw a LogisticRegression"):
        from sklearn.linear_model import LogisticRegression

        export_graphviz(LogisticRegression())


def test_missing_matplotlib_says_how_to_install_it(monkeypatch, tree, tmp_path):
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    with pytest.raises(ImportError, match=r"pip install 'dpmodels\[plots\]'"):
        plot_model(tree)
    assert "digraph" in export_graphviz(tree)  # DOT needs nothing


# ---------------------------------------------------------------------------- DOT
def _dot_structure(dot):
    body = [ln for ln in dot.splitlines()]
    assert body[0].startswith("digraph ") and body[0].endswith("{") and body[-1] == "}"
    unquoted = re.sub(r'"(?:[^"\\]|\\.)*"', '""', dot)  # braces inside labels do not count
    assert unquoted.count("{") == unquoted.count("}") == 1
    nodes = [ln for ln in body if re.match(r"^\d+ \[label=", ln)]
    edges = [ln for ln in body if re.match(r"^\d+ -> \d+", ln)]
    return nodes, edges


def test_graphviz_dot_parses_one_line_per_node_and_a_tree_of_edges(tree, rule_list):
    for est, n in ((tree, tree.tree_.n_nodes), (rule_list, len(rule_list.rule_list_.rules) + 1)):
        dot = export_graphviz(est)
        nodes, edges = _dot_structure(dot)
        assert len(nodes) == n and len(edges) == n - 1
        ids = [int(ln.split()[0]) for ln in nodes]
        assert ids == list(range(n))
        assert "privacy: ε=1" in dot.splitlines()[5]
    t = tree.tree_
    dot = export_graphviz(tree)
    for i in range(t.n_nodes):
        if t.children_left[i] != -1:
            assert f"{i} -> {t.children_left[i]}" in dot and f"{i} -> {t.children_right[i]}" in dot
    # labels with quotes and backslashes stay one DOT string
    odd = Tree(
        children_left=[1, -1, -1],
        children_right=[2, -1, -1],
        feature=[0, -2, -2],
        threshold=[np.nan] * 3,
        left_categories=[(0,), None, None],
        value=np.ones((3, 2)),
        label=[-1, 0, 1],
        classes=[0, 1],
        feature_names=['say "hi"\\'],
        categorical=[True],
        categories={0: ['a"b', "c"]},
    )
    nodes, edges = _dot_structure(export_graphviz(odd))
    assert len(nodes) == 3 and len(edges) == 2


@pytest.mark.skipif(shutil.which("dot") is None, reason="graphviz's dot binary is not installed")
def test_graphviz_renders_with_dot(tree, rule_list, tmp_path):
    for est in (tree, rule_list):
        r = subprocess.run(
            ["dot", "-Tsvg"], input=export_graphviz(est), capture_output=True, text=True, timeout=60, check=False
        )
        assert r.returncode == 0 and "<svg" in r.stdout, r.stderr


# ---------------------------------------------------------------------------- the README's figures
def test_readme_figures(tmp_path):
    """A PrivaTree on raw COMPAS and a DP rule list, drawn as the README shows them (unseeded:
    the header says proven DP). Written to docs/figures/ when DPMODELS_WRITE_FIGURES=1."""
    out = FIGURES if os.environ.get("DPMODELS_WRITE_FIGURES") == "1" else tmp_path
    X, y = load_dataset("compas", binarized=False)
    s = dataset_schema("compas")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # every public input declared: no leak warning
        t = PrivaTreeClassifier(epsilon=1.0, max_depth=3, **s.fit_params()).fit(X, y)
        Xb, yb = load_dataset("compas")
        r = DPRuleListClassifier(epsilon=1.0, max_rules=4, classes=[0, 1], n_public=len(Xb)).fit(Xb, yb)
    for model, name in ((t, "privatree-compas.png"), (r, "dp-rulelist-compas.png")):
        p = save_model_figure(model, out / name)
        assert p.stat().st_size > 10_000
        assert "proven DP" in export_text(model).splitlines()[1]


def test_bare_models_draw_with_a_default_header(tmp_path):
    rl = RuleList(
        ["a<=1", "b=x"], [Rule([("a<=1", False)], 1, (2.0, 7.0))], Rule([], 0, (-2.0, -1.0)), [0, 1], True, 1.0
    )
    fig, ax = plt.subplots()
    try:
        plot_model(rl, ax)
        rows = _boxes(ax, "rule-")
        assert "no records (noise)" in rows["rule-1"].get_text()
        assert [t.get_text() for t in ax.get_yticklabels()] == ["IF a>1", "ELSE"]
        assert ax.get_title(loc="left").startswith("Rule list")
    finally:
        plt.close(fig)


def test_plot_model_without_axes_makes_a_figure_titled_by_the_header(tree):
    ax = plot_model(tree)
    try:
        title = ax.figure.get_suptitle()
        assert title.startswith("PrivaTreeClassifier(") and "privacy: ε=1, δ=0 · proven DP" in title
        assert len(_boxes(ax, "node-")) == tree.tree_.n_nodes
    finally:
        plt.close(ax.figure)
