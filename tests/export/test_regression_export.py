"""Regression trees through every picture and the audit: ``plot_model`` / ``save_model_figure`` /
``export_graphviz`` of a fitted ``PrivaTreeRegressor``, of its model file and of the bare tree
(leaf boxes say what ``predict`` returns and the released count; shades follow the value), and
``audit_model`` (membership inference on the squared error; Dist_G and V: tests/audit/test_regression_audit.py).
The command line's ``show --plot`` and ``audit`` on a regressor: tests/cli/test_cli_learners.py."""

import re

import numpy as np
import pandas as pd
import pytest

from _extras import need
from dpmodels._optional import available
from dpmodels.io import load_model, save_model
from dpmodels.tree import PrivaTreeRegressor

DECL = dict(bounds={"a": (0.0, 10.0), "k": (0, 20)}, categories={"c": ["x", "y", "z"]}, label_bounds=(-1, 9))


def _data(n, seed=0):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({"a": rng.uniform(0, 10, n), "k": rng.integers(0, 21, n), "c": rng.choice(["x", "y", "z"], n)})
    y = 2.0 * (X["a"] > 5) + 0.2 * X["k"] + (X["c"] == "x") + rng.normal(0, 0.3, n)
    return X, y.to_numpy()


@pytest.fixture(scope="module")
def fitted(tmp_path_factory):
    X, y = _data(300)
    est = PrivaTreeRegressor(epsilon=2.0, max_depth=3, random_state=0, **DECL).fit(X, y)
    m = load_model(save_model(est, tmp_path_factory.mktemp("reg") / "r.json"))
    return est, m, X, y


def test_graphviz_of_a_regression_tree_shows_each_leaf_value_and_count(fitted):
    from dpmodels.export import export_graphviz

    est, m, X, _ = fitted
    t = est.tree_
    for obj in (est, m, t):
        dot = export_graphviz(obj)
        assert dot.startswith("digraph Model {") and dot.rstrip().endswith("}")
        leaves = np.flatnonzero(t.is_leaf)
        for i in leaves:  # every leaf: its id, its value as printed by the text, its count cell
            line = next(ln for ln in dot.splitlines() if ln.startswith(f"{i} [label="))
            assert f"leaf {i}" in line and "value: " in line and "[n" in line
        values = [float(v) for v in re.findall(r"value: ([-0-9.e]+)", dot)]
        np.testing.assert_allclose(sorted(values), sorted(t.leaf_value[leaves]), rtol=1e-3)
        assert "labels clipped to [-1, 9]" in dot and "class" not in dot
    # darker = larger: the fill of the largest leaf is darker than that of the smallest
    dot = export_graphviz(est)
    fills = {int(a): b for a, b in re.findall(r'^(\d+) \[label=.*fillcolor="#([0-9a-f]{6})"', dot, flags=re.M)}
    lo, hi = (
        int(np.argmin(np.where(t.is_leaf, t.leaf_value, np.inf))),
        int(np.argmax(np.where(t.is_leaf, t.leaf_value, -np.inf))),
    )
    if t.leaf_value[hi] > t.leaf_value[lo]:
        assert sum(int(fills[hi][j : j + 2], 16) for j in (0, 2, 4)) < sum(
            int(fills[lo][j : j + 2], 16) for j in (0, 2, 4)
        )


def test_figures_of_a_regression_tree(fitted, tmp_path):
    need("matplotlib")
    from dpmodels.export import plot_model, save_model_figure

    est, m, _, _ = fitted
    for k, obj in enumerate((est, m, est.tree_)):
        p = save_model_figure(obj, tmp_path / f"r{k}.png", dpi=60)
        assert p.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    ax = plot_model(m, prune=True)  # nothing to merge in a regression tree: drawn as fitted
    texts = [t.get_text() for t in ax.texts]
    assert sum("value: " in s for s in texts) == est.tree_.n_leaves
    import matplotlib.pyplot as plt

    plt.close(ax.figure)


def test_audit_of_a_regressor_attacks_the_squared_error(fitted):
    from dpmodels.audit import audit_model
    from dpmodels.audit.membership import regression_loss_attack

    est, m, X, y = fitted
    Xo, yo = _data(300, seed=1)
    a = audit_model(m, X, y, Xo, yo, n_permutations=0, random_state=0)
    assert list(a.membership) == ["threshold"] and a.reconstruction is not None and a.vulnerability is not None
    # the attack's scores are minus the squared errors of the file's predictions
    r = regression_loss_attack(m, X, y, Xo, yo)
    err = np.r_[(y - m.predict(X)) ** 2, (yo - m.predict(Xo)) ** 2]
    member = np.r_[np.ones(len(y), bool), np.zeros(len(yo), bool)]
    pairs = (err[~member][None, :] > err[member][:, None]).mean() + 0.5 * (
        err[~member][None, :] == err[member][:, None]
    ).mean()
    assert r.auc == pytest.approx(pairs)  # brute-force AUC of "smaller loss = member"
    text = a.verdict()
    assert f"Dist_G {a.reconstruction.dist_g:.3g}" in text and "(leaf, loss bin) pairs" in text
    d = a.to_dict()
    assert d["numbers"]["V"] == a.vulnerability.V and d["numbers"]["auc.threshold"] == r.auc
    with pytest.raises(ValueError, match="must be numbers"):
        audit_model(m, X, np.array(["a"] * len(y), dtype=object), Xo, yo, n_permutations=0)
    html = a.to_html() if available("matplotlib") else ""
    assert not html or ("Dist_G" in html and "(leaf, loss bin) pairs" in html and "not defined" not in html)
