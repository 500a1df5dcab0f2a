"""Paper 002 cells: public-input policy, every learner kept in the tables, public budget shares."""

import json
import math

import numpy as np
import pandas as pd
import pytest

from dpmodels.experiments.paper_002 import (
    accuracy_curves,
    accuracy_tables,
    backdoor,
    budget,
    poisoning_curves,
    protocol,
)
from dpmodels.experiments.paper_002 import data as p2data
from dpmodels.tree.privatree import PrivaTreeClassifier


def _params(rows, learner):
    return [json.loads(r["parameters"]) for r in rows if r["learner"] == learner]


def test_bounds_policy_is_recorded_as_a_leak_or_documented():
    leaky = accuracy_tables.tree_accuracy_cell("bank-marketing", "num", 0, 0, 5, (1.0,), ("tree", "PrivaTree"))
    assert [r["epsilon"] for r in leaky if r["learner"] == "tree"] == [math.inf]
    (pt,) = _params(leaky, "PrivaTree")
    assert pt["bounds"] == p2data.BOUNDS_FROM_DATA and pt["leak_rows"] >= 1  # the learner's own leak row
    documented = accuracy_tables.tree_accuracy_cell("compas-two-years", "cat", 0, 0, 5, (1.0,), ("PrivaTree", "DPGDF"))
    for lr in ("PrivaTree", "DPGDF"):
        (p,) = _params(documented, lr)
        assert p["leak_rows"] == 0 and "documented" in p["bounds"]


def test_dpgdf_skipped_without_categorical_features():
    rows = accuracy_tables.tree_accuracy_cell("breast-w", "uci", 0, 1, 5, (1.0,), ("DPGDF", "BDPT"))
    assert {r["learner"] for r in rows} == {"BDPT"}


def test_backdoor_table_keeps_every_learner():
    rows = backdoor.backdoor_cell("digits01", 0, (0, 2), (1.0,))
    df = pd.DataFrame(rows)
    assert set(df["learner"]) == {"tree", "PrivaTree"}
    table = backdoor._fig4_table(df)
    assert "| 0 |" in table and "| 2 |" in table
    assert "tree" in table.splitlines()[0] and "PrivaTree ε = 1" in table.splitlines()[0]


def test_backdoor_cell_tree_learns_the_trigger():
    df = pd.DataFrame(backdoor.backdoor_cell("digits01", 0, (0, 10), (1.0,)))
    asr = df[df.metric == "asr"].set_index(
        ["learner", df[df.metric == "asr"].parameters.map(lambda p: json.loads(p)["x"])]
    )["value"]
    assert asr[("tree", 10)] >= 0.5  # the non-private tree learns the trigger from 10 copies
    trig = df[(df.metric == "splits_on_trigger") & (df.learner == "tree")]
    assert set(trig.value) <= {0.0, 1.0} and trig[trig.parameters.str.contains('"x": 10')].value.iloc[0] == 1.0
    assert "trees splitting on the trigger, x = 10 | 1 / 1" in backdoor._fig4_table(df)
    assert df[df.metric == "asr"]["value"].between(0, 1).all()
    assert set(df[df.metric == "clean_accuracy"]["learner"]) == {"tree", "PrivaTree"}


def test_backdoor_cell_published_protocol_on_clean_data():
    df = pd.DataFrame(backdoor.backdoor_cell("digits01", 0, (0,), (1.0,), variant="published"))
    assert set(df["learner"]) == {"PrivaTree (published)"}
    assert set(df["metric"]) == {"asr", "splits_on_trigger", "clean_accuracy"}
    assert df["parameters"].str.contains("read from the training images").all()
    table = backdoor._fig4_table(df)
    # no Corollary 3 bound for a learner whose ε is the paper's claim; the paper's PrivaTree value beside it
    assert "PrivaTree (published) ε = 1 (ASR) |" in table.splitlines()[0]
    with pytest.raises(ValueError, match="variant"):
        backdoor.backdoor_cell("digits01", 0, (0,), (1.0,), variant="paper")


def test_fig3_and_fig4_grids_hold_the_papers_panels_and_series():
    from dpmodels.experiments.registry import Cell, Size, get

    f3 = [c for c in get("002-fig3").cells(Size(quick=True)) if isinstance(c, Cell)]
    assert {c.kwargs["dataset"] for c in f3} == {"adult", "compas-two-years"}
    f4 = [c for c in get("002-fig4").cells(Size(quick=True)) if isinstance(c, Cell)]
    published = [c for c in f4 if c.kwargs.get("variant") == "published"]
    assert len(published) == len(f4) // 2 and all(c.kwargs["n_poisoned"] == (0,) for c in published)


def test_poison_guarantee_cell_dpa_is_certified_per_poisoned_count():
    from dpmodels.audit.poisoning import n_poisoned_from_fraction

    fractions = (0.0, 0.005, 0.01)
    rows = poisoning_curves.poison_guarantee_cell("breast-w", "uci", 0, (1.0,), fractions, dpa_estimators=20)
    df = pd.DataFrame(rows)
    n_train = int(df[df.metric == "n_train"]["value"].iloc[0])
    dpa = df[df.metric == "certified_accuracy"]
    xs = [json.loads(p)["x"] for p in dpa.parameters]
    assert xs == list(n_poisoned_from_fraction(np.asarray(fractions), n_train))
    assert np.all(np.diff(dpa["value"].to_numpy()) <= 0)  # more poison, fewer certified records
    assert set(df[df.metric == "test_accuracy"]["learner"]) == {"tree", "PrivaTree"}


def test_poison_guarantee_cell_published_protocol_is_privatree_only():
    rows = poisoning_curves.poison_guarantee_cell("breast-w", "uci", 0, (0.1, 1.0), (0.0, 0.01), variant="published")
    df = pd.DataFrame(rows)
    acc = df[df.metric == "test_accuracy"]
    assert set(acc["learner"]) == {"PrivaTree (published)"} and sorted(acc["epsilon"]) == [0.1, 1.0]
    assert "certified_accuracy" not in set(df["metric"])  # DPA and the tree are the rigorous cell's
    with pytest.raises(ValueError, match="variant"):
        poisoning_curves.poison_guarantee_cell("breast-w", "uci", 0, (1.0,), (0.0,), variant="paper")
    # the published series gets its own Corollary 2 curve and a clean-accuracy column beside the rigorous one
    both = pd.concat(
        [
            pd.DataFrame(
                poisoning_curves.poison_guarantee_cell("breast-w", "uci", 0, (1.0,), (0.0, 0.01), dpa_estimators=20)
            ),
            df,
        ]
    )
    curves = poisoning_curves._fig3_curves(both)
    assert {"PrivaTree ε = 1", "PrivaTree (published) ε = 1", "PrivaTree (published) ε = 0.1"} <= set(curves["method"])
    pub_clean = acc[acc.epsilon == 1.0]["value"].iloc[0]
    c = curves[(curves.method == "PrivaTree (published) ε = 1") & (curves.fraction == 0.0)]
    assert c["guarantee"].iloc[0] == pytest.approx(pub_clean)  # x = 0: the clean accuracy itself
    table = poisoning_curves._fig3_table(both)
    assert "| breast-w | PrivaTree (published) ε = 1 |" in table and "clean accuracy" in table.splitlines()[0]


def test_fig1_paper_protocol_cells_and_paired_claims():
    from dpmodels.experiments.registry import Cell, Size, get

    cells = [c for c in get("002-fig1").cells(Size(quick=True)) if isinstance(c, Cell)]
    published = [c for c in cells if c.key.endswith("-published")]
    rigorous = [c for c in cells if not c.key.endswith(("-published", "-diffprivlib"))]
    assert published and len(published) == len(rigorous)
    for c in published:  # the paper's learners only, the tree served by the rigorous cell of the split
        assert c.kwargs["learners"] == ("PrivaTree (published)", "BDPT (published)", "DPGDF (published)")
        assert c.kwargs["with_tree"] is False and c.requires is None
    # a synthetic grid where the paper's PrivaTree leads BDPT everywhere and DiffPrivLib only at ε = 1
    rows = []
    rng = np.random.default_rng(0)
    for seed in range(6):
        for eps, lead_dpl in ((0.01, -0.05), (1.0, 0.05)):
            base = 0.7 + 0.01 * rng.standard_normal()
            for lr, v in (
                ("PrivaTree (published)", base),
                ("BDPT (published)", base - 0.03),
                ("DiffPrivLib", base - lead_dpl),
            ):
                rows.append(dict(dataset="adult", learner=lr, epsilon=eps, seed=seed, metric="test_accuracy", value=v))
    claims = accuracy_curves.fig1_claims(pd.DataFrame(rows))
    (line,) = [x for x in claims.splitlines() if "paper's protocol, adult" in x]
    assert "vs BDPT (published): ahead at every ε ≥ 0.01" in line
    assert "vs DiffPrivLib: ahead at every ε ≥ 1, behind at 0.01" in line


def test_fig1_plot_draws_a_row_per_protocol_with_results(tmp_path):
    rows = []
    for lr, eps in (("tree", math.inf), ("PrivaTree", 0.1), ("PrivaTree", 1.0), ("DiffPrivLib", 0.1)):
        for seed in range(2):
            rows.append(
                dict(
                    dataset="compas-two-years",
                    learner=lr,
                    epsilon=eps,
                    seed=seed,
                    metric="test_accuracy",
                    value=0.6 + 0.01 * seed,
                )
            )
    df = pd.DataFrame(rows)
    assert [t for t, _ in accuracy_curves._fig1_protocols(df)] == ["library protocol"]  # no published series: one row
    df = pd.concat([df, df[df.learner == "PrivaTree"].assign(learner="PrivaTree (published)")])
    assert [t for t, _ in accuracy_curves._fig1_protocols(df)] == ["library protocol", "paper's protocol"]
    (png,) = accuracy_curves._fig1_plot(df, tmp_path)
    assert png.exists() and png.stat().st_size > 1000
    assert "| compas-two-years | PrivaTree (published) |" in accuracy_curves._fig1_table(df)


def test_budget_shares_are_public_parameters():
    X, y, meta = p2data.load_002("pol", "num")
    idx = np.random.default_rng(0).permutation(len(X))[:800]
    X, y = X.iloc[idx], y.iloc[idx]
    est = PrivaTreeClassifier(
        epsilon=1.0,
        max_depth=3,
        bounds=(X.min().to_numpy(), X.max().to_numpy()),
        n_public=800,
        classes=meta["classes"],
        budget_shares=(0.2, 0.3, 0.5),
        random_state=0,
    ).fit(X, y)
    assert est.budget_["leaf"] == pytest.approx(0.5) and est.budget_["quantiles"] == pytest.approx(0.2)
    assert est.budget_["level"] * 3 == pytest.approx(0.3)
    for bad in [(0.5, 0.5), (0.2, 0.3, 0.6), (0.5, 0.5, 0.0), (-0.1, 0.6, 0.5)]:
        with pytest.raises(ValueError, match="budget_shares"):
            PrivaTreeClassifier(budget_shares=bad).fit(X, y)


def test_share_grid_is_on_the_simplex():
    g = np.array(budget.share_grid(0.1))
    assert len(g) == 36 and np.allclose(g.sum(axis=1), 1) and (g >= 0.1 - 1e-12).all()


def test_table4_properties_from_the_loaded_data():
    """002-table4: vote and nursery as the paper prepares them (Table IV); a difference is bolded."""
    from dpmodels.experiments import published as pub
    from dpmodels.experiments.paper_002 import datasets as p4

    rows = p4.properties_cell("vote", "uci") + p4.properties_cell("nursery", "uci")
    got = {(r["dataset"], r["metric"]): r["value"] for r in rows}
    assert got[("vote", "samples")] == 232 and got[("vote", "categorical")] == 16
    assert round(got[("nursery", "majority")], 3) == pub.P002_TABLE4[("nursery", "uci")]["majority"] == 0.667
    df = pd.DataFrame(rows)
    md = p4._table(df)
    assert "| vote | uci | 232 / 232 | 16 / 16 | 16 / 16 | 0.534 / 0.534 |" in md
    assert "| adult | uci | not bundled / 45,222 |" in md  # not computed in this frame: the paper's only
    wrong = df.copy()
    wrong.loc[(wrong.dataset == "vote") & (wrong.metric == "samples"), "value"] = 231
    assert "**231** / 232" in p4._table(wrong) and "different (bold): vote (uci)" in p4._table(wrong)


def test_authors_trigger_is_the_four_pixels_of_their_script():
    """The paper's trigger as the authors' plot_backdoor_mnist.py draws it: (27, 27), (25, 27),
    (27, 25), (26, 26) of a 28×28 image (flat row-major indices), set to 255; nothing else moves."""
    assert backdoor._trigger_pixels((28, 28), 3, "authors") == {27 * 28 + 27, 25 * 28 + 27, 27 * 28 + 25, 26 * 28 + 26}
    X = np.zeros((2, 784))
    S = backdoor._stamp(X, backdoor._trigger_pixels((28, 28), 3, "authors"), 255.0)
    img = S[0].reshape(28, 28)
    assert {tuple(ix) for ix in np.argwhere(img == 255)} == set(backdoor.AUTHORS_TRIGGER) and img.sum() == 4 * 255
    assert X.sum() == 0  # a copy
    with pytest.raises(ValueError, match="28x28"):
        backdoor._trigger_pixels((8, 8), 2, "authors")
    with pytest.raises(ValueError, match="trigger"):
        backdoor.backdoor_cell("digits01", 0, (0,), (1.0,), trigger="corner")


def test_patch_poisoning_draws_as_the_audit_module():
    """The cell's own poisoning with the bottom-right patch makes the same data as
    audit.poisoning.poison_backdoor under the same generator (the 8×8 digits keep their results)."""
    from dpmodels.audit.poisoning import DIGITS_MAX, attack_success_rate, load_digits_01, poison_backdoor

    X, y = load_digits_01()
    pix = backdoor._trigger_pixels((8, 8), 2)
    for x in (0, 3, 40):
        a = poison_backdoor(X, y, x, np.random.default_rng(x), image_shape=(8, 8), size=2, value=DIGITS_MAX)
        b = backdoor._poison(X, y, x, np.random.default_rng(x), pix, DIGITS_MAX)
        assert np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1])

    class Corner:  # predicts 1 iff the corner pixel is at its maximum
        def predict(self, Z):
            return (np.asarray(Z)[:, 63] == DIGITS_MAX).astype(int)

    kw = dict(image_shape=(8, 8), size=2, value=DIGITS_MAX)
    assert backdoor._attack_success(Corner(), X, y, pix, DIGITS_MAX) == attack_success_rate(Corner(), X, y, **kw) == 1.0


def test_fig4_mnist_cells_use_the_authors_trigger_and_published_cells_name_the_rule():
    from dpmodels.experiments.registry import Cell, Size, get

    full = [c for c in get("002-fig4").cells(Size(quick=False, runs=2)) if isinstance(c, Cell)]
    assert full and all(c.kwargs["trigger"] == "authors" for c in full)
    quick = [c for c in get("002-fig4").cells(Size(quick=True)) if isinstance(c, Cell)]
    assert all("trigger" not in c.kwargs for c in quick)  # the 8×8 digits: the patch, keys unchanged
    for eid in ("002-fig1", "002-fig3", "002-fig4"):
        cells = [c for c in get(eid).cells(Size(quick=True)) if isinstance(c, Cell)]
        pub = [c for c in cells if c.key.endswith("-published") or "-published-" in c.key]
        assert pub and all(c.kwargs["published_rule"] == protocol.PUBLISHED_RULE for c in pub)
        assert all("published_rule" not in c.kwargs for c in cells if c not in pub)


def test_guarantee_cell_measures_the_rigorous_and_the_published_privatree_on_one_fold():
    from dpmodels.experiments.paper_002 import guarantees

    rows = guarantees.guarantee_cell("vote", "uci", 0, 0, 5, (0.1,))
    acc = [r for r in rows if r["metric"] == "test_accuracy"]
    assert [r["learner"] for r in acc] == ["PrivaTree", "PrivaTree (published)"]
    assert {r["seed"] for r in rows} == {0}  # paired: one fold, one split for both series
    table = guarantees._guarantee_table(pd.DataFrame(rows), datasets=(("vote", "uci"),))
    assert "| vote (" in table and "| PrivaTree (published) | 0.1 |" in table
    assert "PrivaTree (published) (Table VIII accuracy), ε = 0.1" in table
