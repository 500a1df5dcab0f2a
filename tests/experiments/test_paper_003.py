"""Paper 003's reproduction ids (003-fig2 … 003-fig7, 003-dp): cells, statements and the CLI."""

import json
import math
import shutil
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.tree import DecisionTreeClassifier

from _extras import need
from dpmodels._optional import available
from dpmodels.audit import reconstruction_leak
from dpmodels.experiments.paper_003 import dp as p3dp
from dpmodels.experiments.paper_003 import figures, fits, protocol, tables, uncertainty
from dpmodels.experiments.paper_003 import reconstruction as p3
from dpmodels.experiments.paper_003 import statements as p3st
from dpmodels.experiments.registry import ROW_FIELDS, Cell, Size, Skip, all_experiments, get, row
from dpmodels.rulelist import DPRuleListClassifier, GreedyRuleListClassifier, OptimalRuleListClassifier
from dpmodels.tree import PrivaTreeClassifier

IDS = ("003-fig2", "003-fig3", "003-fig4", "003-fig5", "003-fig6", "003-fig7", "003-dp")


def _metrics(rows, learner=None):
    return {r["metric"]: r["value"] for r in rows if learner is None or r["learner"] == learner}


def _well_formed(rows):
    assert rows
    for r in rows:
        assert set(ROW_FIELDS) <= set(r)
        assert isinstance(json.loads(r["parameters"]), dict)
        assert np.isfinite(r["value"]) or r["metric"] == "dist_g"


# --------------------------------------------------------------------------- registry and protocol
def test_registry_lists_every_id_and_the_figures_share_one_grid():
    listed = {e.id for e in all_experiments()}
    assert set(IDS) <= listed
    for eid in IDS[1:-1]:
        assert get(eid).source == "003-fig2"
    assert get("003-fig2").source is None and get("003-fig2").cells is not None
    assert get("003-dp").cells is not None
    for eid in IDS:
        assert get(eid).published is not None or eid == "003-dp"


def test_splits_follow_the_protocol():
    Xtr, Xte, ytr, yte = protocol.load_split("adult", 0)
    assert (len(Xtr), len(Xte)) == (3907, 977) and Xtr.shape[1] == 24
    Xtr1 = protocol.load_split("adult", 1)[0]
    assert not Xtr.reset_index(drop=True).equals(Xtr1.reset_index(drop=True))  # a subsample per seed
    Xc, Xct, _, _ = protocol.load_split("compas", 0)
    assert (len(Xc), len(Xct)) == (5771, 1443) and Xc.shape[1] == 27
    with pytest.raises(ValueError, match="datasets"):
        protocol.load_split("german", 0)


@pytest.mark.parametrize("n", [3907, 5771, 977, 1000, 123])
@pytest.mark.parametrize("lam", [0.01, 0.02, 0.03, 0.04, 0.05])
def test_one_support_count_for_every_learner(n, lam):
    m = protocol.min_count(lam, n)
    assert m == max(1, math.ceil(lam * n))
    assert math.floor((m + 0.5) / n * n) == m  # GreedyRL's ⌊λ'·n⌋ with λ' = (m + ½)/n
    assert (m / n >= lam) and ((m - 1) / n < lam)  # OptimalRL's test captured / n ≥ λ


@pytest.mark.parametrize("n", [3907, 5771, 977, 1000, 123, 100])
@pytest.mark.parametrize("lam", [0.01, 0.02, 0.03, 0.04, 0.05])
def test_floor_support_is_the_authors_count(n, lam):
    # brute force: the largest count m with m ≤ λn (at least 1), as int(λ * n) truncates
    m = protocol.min_count(lam, n, "floor")
    assert m == max(1, max(k for k in range(n + 1) if k <= lam * n))
    assert math.ceil((m - 0.5) / n * n) == m  # OptimalRL's ⌈λ'·n⌉ with λ' = (m − ½)/n
    assert protocol.min_count(lam, n, "ceil") - m == (0 if float(lam * n).is_integer() else 1)
    with pytest.raises(ValueError, match="rounding"):
        protocol.min_count(lam, n, "round")


def test_floor_grid_gives_trees_and_optimal_lists_the_floor_count():
    Xtr, _, ytr, _ = protocol.load_split("adult", 0)
    n, lam = len(ytr), 0.01
    m = protocol.min_count(lam, n, "floor")
    assert (m, protocol.min_count(lam, n)) == (39, 40)  # the brief's example: 39 instead of 40 records
    trees = fits.tree_cell("adult", 0, depths=(6,), supports=(lam,), largest=(6, lam), rounding="floor")
    opt = fits.optimal_rulelist_cell("adult", 0, support=lam, lengths=(3,), largest=(3, lam), rounding="floor")
    for rows in (trees, opt):
        p = json.loads(rows[0]["parameters"])
        assert p["min_count"] == m and p["rounding"] == "floor"
    est = DecisionTreeClassifier(max_depth=6, min_samples_leaf=m, random_state=1).fit(Xtr, ytr)
    assert _metrics(trees)["dist_g"] == pytest.approx(reconstruction_leak(est, Xtr, ytr, domains="binary").dist_g)
    o = OptimalRuleListClassifier(max_rules=4, min_support=(m - 0.5) / n, min_literal_support=lam).fit(Xtr, ytr)
    assert o.certificate_.min_captured == m
    assert _metrics(opt)["dist_g"] == pytest.approx(reconstruction_leak(o, Xtr, ytr).dist_g)
    cells = fits._grid_cells(Size(quick=True, datasets=("compas",)), rounding="floor", dl85_time_limit=3600.0)
    assert all(c.kwargs.get("rounding") == "floor" for c in cells if isinstance(c, Cell))
    assert all(c.kwargs["time_limit"] == 3600.0 for c in cells if isinstance(c, Cell) and c.key.startswith("DL8.5"))


def test_grid_runs_the_authors_greedy_list_as_greedyrl():
    rows = fits.rulelist_cell(
        "compas", 0, lengths=(10,), supports=(0.01,), largest=(10, 0.01), criteria=("authors", "captured", "split")
    )
    assert {r["learner"] for r in rows} == {"GreedyRL", "GreedyRL-draft", "GreedyRL-split"}
    Xtr, _, ytr, _ = protocol.load_split("compas", 0)
    g = GreedyRuleListClassifier(max_rules=11, min_support=0.01, max_width=1, criterion="authors").fit(Xtr, ytr)
    got = _metrics(rows, "GreedyRL")
    assert got["size"] == len(g.rule_list_.rules)
    assert got["dist_g"] == pytest.approx(reconstruction_leak(g, Xtr, ytr).dist_g, abs=1e-12)


def test_quick_grid_and_skips_without_pydl85(monkeypatch):
    monkeypatch.setattr(fits, "_has_dl85", lambda: False)
    items = fits._grid_cells(Size(quick=True))
    skips = [c for c in items if isinstance(c, Skip)]
    cells = [c for c in items if isinstance(c, Cell)]
    assert skips and all("make optimal" in s.reason for s in skips)
    assert not any(c.key.startswith("DL8.5") for c in cells)
    monkeypatch.setattr(fits, "_has_dl85", lambda: True)
    items = fits._grid_cells(Size(quick=True, datasets=("compas",)))
    assert not any(isinstance(c, Skip) for c in items)
    assert sum(c.key.startswith("DL8.5") for c in items) == len(protocol.QUICK_DEPTHS) * len(protocol.QUICK_SUPPORTS)
    with pytest.raises(ValueError, match="datasets"):
        fits._grid_cells(Size(quick=True, datasets=("german",)))


# --------------------------------------------------------------------------- cells against direct calls
def test_tree_cell_rows_equal_direct_reconstruction_leak():
    rows = fits.tree_cell("compas", 0, depths=(1, 3), supports=(0.05,), largest=(3, 0.05))
    _well_formed(rows)
    Xtr, Xte, ytr, yte = protocol.load_split("compas", 0)
    for depth in (1, 3):
        got = _metrics(r for r in rows if json.loads(r["parameters"])["depth"] == depth)
        est = DecisionTreeClassifier(max_depth=depth, min_samples_leaf=0.05, random_state=1).fit(Xtr, ytr)
        leak = reconstruction_leak(est, Xtr, ytr, domains="binary")
        assert got["dist_g"] == pytest.approx(leak.dist_g, abs=1e-12)
        assert got["size"] == int(np.sum(est.tree_.feature >= 0))
        assert got["train_accuracy"] == pytest.approx(est.score(Xtr, ytr))
        assert got["test_accuracy"] == pytest.approx(est.score(Xte, yte))
        assert est.tree_.n_node_samples[est.tree_.feature < 0].min() >= protocol.min_count(0.05, len(ytr))
        if depth == 3:  # the largest setting also stores the per-record quantiles
            q = np.array([got[f"per_record_q{k}"] for k in range(101)])
            assert q[0] == pytest.approx(leak.per_record.min()) and q[-1] == pytest.approx(leak.per_record.max())
            assert np.all(np.diff(q) >= 0)
        else:
            assert "per_record_q0" not in got


def test_rule_list_cells_equal_direct_calls_and_respect_the_support():
    Xtr, _, ytr, _ = protocol.load_split("adult", 0)
    n, lam = len(ytr), 0.03
    m = protocol.min_count(lam, n)
    greedy = fits.rulelist_cell("adult", 0, lengths=(2, 4), supports=(lam,), largest=(4, lam))
    optimal = fits.optimal_rulelist_cell("adult", 0, support=lam, lengths=(2, 4), largest=(4, lam))
    _well_formed(greedy + optimal)
    g = GreedyRuleListClassifier(max_rules=5, min_support=(m + 0.5) / n, max_width=1).fit(Xtr, ytr)
    o = OptimalRuleListClassifier(max_rules=5, min_support=lam).fit(Xtr, ytr)
    for rows, est, name in ((greedy, g, "GreedyRL"), (optimal, o, "OptimalRL")):
        got = _metrics(r for r in rows if json.loads(r["parameters"])["depth"] == 4)
        assert got["dist_g"] == pytest.approx(reconstruction_leak(est, Xtr, ytr).dist_g, abs=1e-12)
        assert got["size"] == len(est.rule_list_.rules) and got["n_paths"] == got["size"] + 1
        captured = np.bincount(est.apply(Xtr), minlength=len(est.rule_list_.rules) + 1)[:-1]
        assert np.all(captured >= m), name  # every rule captures ≥ ⌈λn⌉ records in its position
    assert _metrics(optimal)["optimal"] == 1.0
    o_acc = [r["value"] for r in optimal if r["metric"] == "train_accuracy"]
    g_acc = [r["value"] for r in greedy if r["metric"] == "train_accuracy"]
    assert all(a >= b for a, b in zip(o_acc, g_acc))  # same constraints: the optimum is at least as accurate


def test_dl85_cell_equals_direct_call():
    need("pydl85")
    from dpmodels.tree.optimal import DL85Classifier

    rows = fits.dl85_cell("compas", 0, depth=2, support=0.05, largest=(2, 0.05))
    _well_formed(rows)
    got = _metrics(rows)
    Xtr, _, ytr, _ = protocol.load_split("compas", 0)
    est = DL85Classifier(max_depth=2, min_sup=protocol.min_count(0.05, len(ytr))).fit(Xtr, ytr)
    assert got["optimal"] == 1.0
    assert got["dist_g"] == pytest.approx(reconstruction_leak(est, Xtr, ytr, domains="binary").dist_g, abs=1e-12)
    assert got["train_accuracy"] == pytest.approx(est.score(Xtr, ytr))
    assert "per_record_q50" in got


def test_address_space_limit_turns_a_runaway_allocation_into_memory_error():
    pytest.importorskip("resource")
    if fits._physical_memory() is None:
        pytest.skip("physical memory size unknown here")
    before = fits._address_space_now()
    with fits._address_space_limit(0.45) as cap:
        # relative to what the process already reserved (a worker after a big fit keeps address space)
        assert cap is None or before < cap <= fits._address_space_now() + 0.45 * fits._physical_memory() + 2**20
        np.ones(2**27 // 8)  # growth below the cap is fine
        with pytest.raises(MemoryError):
            np.ones(int(0.5 * fits._physical_memory()) // 8)  # more than the cap allows
    np.ones(2**27 // 8)  # the cap is lifted afterwards


def test_dl85_cell_out_of_memory_is_a_row_not_a_crash(monkeypatch):
    need("pydl85")
    from dpmodels.tree import optimal

    def runaway(self, X, y):  # what PyDL8.5's std::bad_alloc becomes under the cap
        raise MemoryError("std::bad_alloc")

    monkeypatch.setattr(optimal.DL85Classifier, "fit", runaway)
    rows = fits.dl85_cell("compas", 0, depth=2, support=0.05, largest=(2, 0.05))
    assert [r["metric"] for r in rows] == ["out_of_memory"]
    assert "memory_cap_gb" in json.loads(rows[0]["parameters"])
    assert "ran out of the memory cap" in tables._uncertified_md(pd.DataFrame(rows))


def test_dl85_cell_whose_process_is_killed_is_a_row_not_a_crash(monkeypatch):
    """The OS's OOM killer ends the forked fit: the worker survives and records it."""
    need("pydl85")
    import os
    import signal

    from dpmodels.tree import optimal

    monkeypatch.setattr(optimal.DL85Classifier, "fit", lambda self, X, y: os.kill(os.getpid(), signal.SIGKILL))
    rows = fits.dl85_cell("compas", 0, depth=2, support=0.05, largest=(2, 0.05))
    assert [r["metric"] for r in rows] == ["out_of_memory"]
    assert json.loads(rows[0]["parameters"])["exitcode"] == -signal.SIGKILL
    # any other death of the child is an error, not a memory row
    monkeypatch.setattr(optimal.DL85Classifier, "fit", lambda self, X, y: os._exit(3))
    with pytest.raises(RuntimeError, match="exit code 3"):
        fits.dl85_cell("compas", 0, depth=2, support=0.05, largest=(2, 0.05))


@pytest.mark.filterwarnings("error::dpmodels.privacy.PrivacyLeakWarning")  # every public input declared
def test_dp_cell_release_and_data_views():
    rows = p3dp.dp_cell("compas", 0, epsilons=(1.0,), lengths=(3,), widths=(1,), depths=(2,))
    _well_formed(rows)
    df = pd.DataFrame(rows)
    assert set(df["learner"]) == {"GreedyRL w1", "OptimalRL w1", "DP rule list w1", "sklearn_DT", "PrivaTree"}
    Xtr, _, ytr, _ = protocol.load_split("compas", 0)
    dp = DPRuleListClassifier(
        epsilon=1.0,
        max_rules=4,
        min_support=0.01,
        max_width=1,
        random_state=p3dp._fit_rng("compas", 0, "DPRL", 1, 3, "1"),
    ).fit(Xtr, ytr)
    got = _metrics(rows, "DP rule list w1")
    assert got["dist_g"] == pytest.approx(reconstruction_leak(dp, Xtr, ytr).dist_g, abs=1e-12)
    assert got["dist_g_data"] == pytest.approx(reconstruction_leak(dp, Xtr, ytr, counts="data").dist_g, abs=1e-12)
    pt = PrivaTreeClassifier(
        epsilon=1.0,
        max_depth=2,
        categories={c: [0, 1] for c in Xtr.columns},
        classes=[0, 1],
        random_state=p3dp._fit_rng("compas", 0, "PrivaTree", 2, "1"),
    ).fit(Xtr, ytr)
    got = _metrics(rows, "PrivaTree")
    assert got["dist_g"] == pytest.approx(reconstruction_leak(pt, Xtr, ytr).dist_g, abs=1e-12)
    assert got["noisy_n"] != len(ytr)  # released counts are noisy
    for lr in ("GreedyRL w1", "OptimalRL w1", "sklearn_DT"):  # non-private: both views coincide
        m = _metrics(rows, lr)
        assert m["dist_g"] == m["dist_g_data"]


# --------------------------------------------------------------------------- statements
def _fake(values):
    """Tidy rows from {(dataset, learner, depth, support): {metric: value}} (seed 0)."""
    rows = []
    for (ds, lr, d, s), metrics in values.items():
        for m, v in metrics.items():
            rows.append(row(ds, lr, dict(depth=d, support=s), math.inf, 0.0, 0, m, v))
    return pd.DataFrame(rows)


def _fake_fits(values):
    """:func:`_fake` for fits whose test accuracy is their training accuracy."""
    return _fake({k: dict(v, test_accuracy=v["train_accuracy"]) for k, v in values.items()})


def test_every_statement_has_one_check_and_unknown_keys_are_refused():
    assert [st["key"] for st in p3st.PUBLISHED] == list(p3st.CHECKS)
    with pytest.raises(ValueError, match="unknown statement 'nope'"):
        p3st._check("nope", _fake({}), _fake({}))


def test_statement_checks_follow_the_data():
    base = {
        ("adult", "OptimalRL", 10, 0.01): dict(dist_g=0.80, size=10, train_accuracy=0.83),
        ("adult", "GreedyRL", 10, 0.01): dict(dist_g=0.85, size=7, train_accuracy=0.80),
    }
    t = p3st.check_statements(_fake(base), ids=("003-fig3",)).set_index("key")
    assert t.loc["rl_largest", "verdict"] == "holds"
    assert t.loc["more_accurate", "verdict"] == "holds"
    flipped = dict(base)
    flipped[("adult", "OptimalRL", 10, 0.01)] = dict(dist_g=0.90, size=10, train_accuracy=0.83)
    t = p3st.check_statements(_fake(flipped), ids=("003-fig3",)).set_index("key")
    assert t.loc["rl_largest", "verdict"] == "does not hold"
    assert t.loc["same_accuracy", "verdict"] == "holds"  # as accurate and leaks less


def _seeded(values):
    """Tidy rows from {(dataset, learner, depth, support, seed): dist_g}."""
    return pd.DataFrame(
        [
            row(ds, lr, dict(depth=d, support=s), math.inf, 0.0, sd, "dist_g", v)
            for (ds, lr, d, s, sd), v in values.items()
        ]
    )


def test_paired_uncertainty_against_brute_force():
    rng = np.random.default_rng(7)
    vals = {}
    for d in (2, 3, 4):
        for lam in (0.01, 0.02):
            for sd in range(5):
                base = rng.uniform(0.7, 0.9)
                vals[("adult", "a", d, lam, sd)] = base + rng.normal(0, 0.01)
                vals[("adult", "b", d, lam, sd)] = base
    vals[("adult", "a", 1, 0.01, 0)] = 0.0  # depth 1 is left out (min_depth=2)
    df = _seeded(vals)
    u = uncertainty.paired_uncertainty(df, "a", "b", "adult", sign=-1, n_boot=500)
    diffs = [
        np.mean([vals[("adult", "a", d, lam, sd)] - vals[("adult", "b", d, lam, sd)] for sd in range(5)])
        for d in (2, 3, 4)
        for lam in (0.01, 0.02)
    ]
    assert u["n"] == 6 and u["k"] == sum(x < 0 for x in diffs) and u["seeds"] == 5
    assert u["diff"] == pytest.approx(np.mean(diffs))
    assert u["ci"][0] <= u["share"] <= u["ci"][1] and u["diff_ci"][0] <= u["diff"] <= u["diff_ci"][1]
    # a difference of one sign in every seed: the share is 1 under any resampling of the seeds
    sure = {k: (v - 0.05 if k[1] == "a" else v) for k, v in vals.items() if k[2] >= 2}
    u = uncertainty.paired_uncertainty(_seeded(sure), "a", "b", "adult", sign=-1, n_boot=200)
    assert u["share"] == 1.0 and u["ci"] == (1.0, 1.0) and u["p_sign"] == pytest.approx(2 * 0.5**6)
    assert uncertainty.paired_uncertainty(_seeded(sure), "a", "b", "compas")["n"] == 0


def test_extremes_statement_reads_the_quantiles():
    q = {f"per_record_q{k}": 0.55 + 0.41 * k / 100 for k in range(101)}
    df = _fake({("adult", "OptimalRL", 10, 0.01): dict(dist_g=0.8, size=10, train_accuracy=0.8, **q)})
    t = p3st.check_statements(df, ids=("003-fig4",)).set_index("key")
    assert t.loc["extremes", "verdict"] == "holds" and "0.960" in t.loc["extremes", "measured"]
    q["per_record_q0"] = 0.61
    df = _fake({("adult", "OptimalRL", 10, 0.01): dict(dist_g=0.8, size=10, train_accuracy=0.8, **q)})
    assert p3st.check_statements(df, ids=("003-fig4",)).set_index("key").loc["extremes", "verdict"] == "does not hold"


def test_every_statement_is_checked_on_a_real_tiny_grid():
    rows = (
        fits.tree_cell("compas", 0, depths=(1, 2), supports=(0.03, 0.05), largest=(2, 0.03))
        + fits.rulelist_cell("compas", 0, lengths=(1, 2), supports=(0.03, 0.05), largest=(2, 0.03))
        + fits.optimal_rulelist_cell("compas", 0, support=0.03, lengths=(1, 2), largest=(2, 0.03))
        + fits.optimal_rulelist_cell("compas", 0, support=0.05, lengths=(1, 2), largest=(2, 0.03))
    )
    t = p3st.check_statements(pd.DataFrame(rows))
    assert len(t) == len(p3st.PUBLISHED)
    assert set(t["verdict"]) <= {"holds", "partly", "does not hold", "not measured"}
    for exp_id in IDS[:-1]:
        assert get(exp_id).table(pd.DataFrame(rows)).startswith("| where |")


# --------------------------------------------------------------------------- end to end
def test_reproduce_003_fig3_quick_in_a_subprocess(tmp_path):
    exe = shutil.which("dpmodels")
    cmd = [exe] if exe else [sys.executable, "-m", "dpmodels.cli"]
    r = subprocess.run(
        cmd + ["reproduce", "003-fig3", "--quick", "--datasets", "compas", "--out", str(tmp_path), "--no-progress"],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert r.returncode == 0, r.stderr[-2000:]
    assert any((tmp_path / "003-fig2" / f"results.{ext}").exists() for ext in ("parquet", "csv"))
    table = (tmp_path / "003-fig3" / "table.md").read_text()
    assert "CORELS" in table and "OptimalRL" in table
    if not available("matplotlib"):
        return
    assert (tmp_path / "003-fig3" / "003-fig3.png").stat().st_size > 1000


def test_toy_id_recomputes_the_papers_worked_examples():
    """003-toy: Table II, Table IV and Dist / Dist_G of Tables V-VII equal the paper's, computed by the library."""
    from dpmodels.experiments.paper_003 import toy

    df = pd.DataFrame(toy.toy_cell())
    assert list(df.columns) == list(ROW_FIELDS)
    fig1 = df[df.learner.str.contains("random_state=3")].set_index("metric")["value"]
    assert round(fig1["dist"], 3) == toy.PAPER["dist_fig1"] and round(fig1["cell_x3_a1"], 3) == 0.387
    md = get("003-toy").table(df)
    assert "**differs**" in md  # the other tie-break (root a1) reconstructs x3, x4 differently
    fig1_part = md.split("*scikit-learn tree, random_state=0")[0]
    assert "differs" not in fig1_part and fig1_part.count("(same)") == 4
    assert md.count("| yes |") == 5 and "| **no** |" not in md  # Table IV, row by row
    assert "Dist_G of Rule List 1 = 0.450" in md
    assert "| 0.500 | 0.5 | 0.613 | 0.613 |" in md and "| 0.500 | 0.5 | 0.387 | 0.387 |" in md


def test_paired_uncertainty_leaves_out_settings_missing_a_seed():
    vals = {}
    for d in (2, 3):
        for sd in range(3):
            vals[("adult", "a", d, 0.01, sd)] = 0.5
            vals[("adult", "b", d, 0.01, sd)] = 0.6
    del vals[("adult", "b", 3, 0.01, 2)]  # depth 3 lacks a seed of b: not a complete pair
    u = uncertainty.paired_uncertainty(_seeded(vals), "a", "b", "adult", sign=-1, n_boot=50)
    assert (u["k"], u["n"], u["seeds"]) == (1, 1, 3) and u["diff"] == pytest.approx(-0.1)


# --------------------------------------------------------------------------- "at a given accuracy" (Fig. 2b / 3b)
def _line_oracle(acc, dist, a):
    """The authors' line (points sorted by (accuracy, Dist_G), joined by segments) at accuracy a, by
    walking its segments: the highest Dist_G the polyline takes at a; None if a is outside."""
    pts = sorted(zip(acc, dist))
    best = None
    for (x0, y0), (x1, y1) in zip(pts, pts[1:] + pts[-1:]):
        if x0 == a:
            best = y0 if best is None else max(best, y0)
        if x0 < a < x1:
            y = y0 + (a - x0) / (x1 - x0) * (y1 - y0)
            best = y if best is None else max(best, y)
    return best


@given(
    st.lists(st.tuples(st.integers(0, 20), st.floats(0.5, 1.0)), min_size=1, max_size=8),
    st.integers(-2, 22),
)
@settings(max_examples=200, deadline=None)
def test_optimal_line_at_an_accuracy_matches_walking_the_segments(points, a_int):
    acc = [x / 20 for x, _ in points]
    dist = [y for _, y in points]
    a = a_int / 20
    value, where = uncertainty._optimal_at_accuracy(acc, dist, a)
    if a > max(acc):
        assert where == "above" and math.isnan(value)
    elif a < min(acc):
        assert where == "below" and value == max(d for x, d in zip(acc, dist) if x == min(acc))
    else:
        assert where == "on" and value == pytest.approx(_line_oracle(acc, dist, a), abs=1e-12)


def test_accuracy_pairings_differ_where_the_optimal_line_passes_between_its_points():
    # COMPAS's case: the greedy model's accuracy lies between two optimal depths; no fitted optimal
    # model is at least as accurate *and* leaks no more, but the optimal line at that accuracy is higher
    o = {"support": [0.01, 0.01], "train_accuracy": [0.664, 0.669], "dist_g": [0.918, 0.896]}
    g = {"support": [0.01], "train_accuracy": [0.6666], "dist_g": [0.9008]}
    ok_dom, short_dom = uncertainty._accuracy_pairs(o, g, "dominance")
    ok_cur, short_cur = uncertainty._accuracy_pairs(o, g, "curve")
    assert not ok_dom[0] and short_dom[0] == pytest.approx(0.9008 - 0.896)
    line = 0.918 + (0.6666 - 0.664) / 0.005 * (0.896 - 0.918)
    assert ok_cur[0] and short_cur[0] == pytest.approx(0.9008 - line)
    # "curve" reads the line of the greedy model's own λ only; "dominance" any λ
    o2 = {k: v + w for (k, v), w in zip(o.items(), ([0.05], [0.70], [0.99]))}
    assert uncertainty._accuracy_pairs(o2, g, "dominance")[0][0] and uncertainty._accuracy_pairs(o2, g, "curve")[0][0]
    g2 = {"support": [0.05], "train_accuracy": [0.71], "dist_g": [0.5]}  # more accurate than its λ's line
    assert not uncertainty._accuracy_pairs(o2, g2, "curve")[0][0]
    with pytest.raises(ValueError, match="pairing"):
        uncertainty._accuracy_pairs(o, g, "nearest")


def _seeded_acc(values):
    """Tidy rows from {(dataset, learner, depth, support, seed): (train_accuracy, dist_g)}."""
    out = []
    for (ds, lr, d, s, sd), (acc, dg) in values.items():
        p = dict(depth=d, support=s)
        out += [
            row(ds, lr, p, math.inf, 0.0, sd, "train_accuracy", acc),
            row(ds, lr, p, math.inf, 0.0, sd, "dist_g", dg),
        ]
    return pd.DataFrame(out)


def test_same_accuracy_uncertainty_against_brute_force():
    rng = np.random.default_rng(3)
    vals = {}
    for sd in range(4):
        for lam in (0.01, 0.05):
            for d in (1, 2, 3):
                vals[("compas", "opt", d, lam, sd)] = (0.60 + 0.02 * d + rng.normal(0, 0.004), 0.95 - 0.03 * d)
                vals[("compas", "gr", d, lam, sd)] = (0.59 + 0.02 * d, 0.95 - 0.03 * d + rng.normal(0, 0.01))
    df = _seeded_acc(vals)
    for pairing in uncertainty.ACCURACY_PAIRINGS:
        u = uncertainty.same_accuracy_uncertainty(df, "opt", "gr", "compas", pairing, n_boot=300)
        means = {
            (lr, d, lam): np.mean([vals[("compas", lr, d, lam, sd)] for sd in range(4)], axis=0)
            for lr in ("opt", "gr")
            for d in (1, 2, 3)
            for lam in (0.01, 0.05)
        }
        oks = []
        for (lr, _d, lam), (a, dg) in means.items():
            if lr != "gr":
                continue
            if pairing == "dominance":
                oks.append(any(o[0] >= a - 1e-12 and o[1] >= dg - 1e-12 for k, o in means.items() if k[0] == "opt"))
            else:
                line = [(o[0], o[1]) for k, o in means.items() if k[0] == "opt" and k[2] == lam]
                ref, _ = uncertainty._optimal_at_accuracy([x for x, _ in line], [y for _, y in line], a)
                oks.append(bool(np.isfinite(ref) and ref >= dg - 1e-12))
        assert (u["k"], u["n"], u["seeds"]) == (sum(oks), 6, 4)
        assert u["ci"][0] <= u["share"] <= u["ci"][1]
    # the optimal line far above the greedy points in every seed: the share is 1 under any resampling
    sure = {k: ((v[0] + 0.01, v[1] + 0.2) if k[1] == "opt" else v) for k, v in vals.items()}
    u = uncertainty.same_accuracy_uncertainty(_seeded_acc(sure), "opt", "gr", "compas", "curve", n_boot=100)
    assert u["share"] == 1.0 and u["ci"] == (1.0, 1.0) and math.isnan(u["shortfall"])
    assert uncertainty.same_accuracy_uncertainty(_seeded_acc(sure), "opt", "gr", "adult")["n"] == 0


def test_check_statements_takes_the_accuracy_pairing_and_the_table_shows_both():
    base = {
        ("compas", "OptimalRL", 1, 0.01): dict(dist_g=0.918, size=1, train_accuracy=0.664),
        ("compas", "OptimalRL", 2, 0.01): dict(dist_g=0.896, size=2, train_accuracy=0.669),
        ("compas", "GreedyRL", 1, 0.01): dict(dist_g=0.915, size=1, train_accuracy=0.650),
        ("compas", "GreedyRL", 2, 0.01): dict(dist_g=0.9008, size=2, train_accuracy=0.6666),
    }
    df = _fake_fits(base)
    dom = p3st.check_statements(df, ids=("003-fig3",)).set_index("key").loc["same_accuracy"]
    cur = p3st.check_statements(df, ids=("003-fig3",), accuracy_pairing="curve").set_index("key").loc["same_accuracy"]
    assert "1/2" in dom["measured"] and dom["verdict"] == "partly"
    assert "2/2" in cur["measured"] and cur["verdict"] == "holds"
    md = get("003-fig3").table(df)
    assert md.count("For a given accuracy level") == 2 and 'accuracy_pairing="curve"' in md
    with pytest.raises(ValueError, match="accuracy_pairing"):
        p3st.check_statements(df, accuracy_pairing="nearest")


def test_paired_uncertainty_counts_float_ties_as_ties():
    # the same partition summed in another leaf order: Dist_G equal up to rounding, not "a leaks more"
    vals = {}
    for d in (2, 3, 4):
        for sd in range(3):
            vals[("adult", "a", d, 0.01, sd)] = 0.7 + 0.01 * d
            vals[("adult", "b", d, 0.01, sd)] = 0.7 + 0.01 * d + (1e-16 if d == 2 else 0.0)
    vals[("adult", "a", 4, 0.01, 0)] -= 0.03  # one real difference
    u = uncertainty.paired_uncertainty(_seeded(vals), "a", "b", "adult", sign=-1, n_boot=50)
    assert (u["k"], u["n"]) == (1, 3) and u["p_sign"] == 1.0  # sign test over the 1 non-tie
    assert u["ci"][1] == 1 / 3  # resampled, the float ties never count as "a below b"
    u = uncertainty.paired_uncertainty(_seeded(vals), "a", "b", "adult", sign=1, n_boot=50)
    assert u["k"] == 0


# --------------------------------------------------------------------------- failures beyond the seed noise
def _line_case(noise, gap, seeds=5, seed=0):
    """One λ: an optimal line through (0.80, 0.90) and (0.82, 0.86) in every seed (plus ``noise``),
    and a greedy setting at accuracy 0.81 whose Dist_G is ``gap`` above that line (0.88) on average:
    a failure of "at a given accuracy, optimal leaks no more" by ``gap``."""
    rng = np.random.default_rng(seed)
    vals = {}
    for sd in range(seeds):
        e = rng.normal(0, noise, 4)
        vals[("adult", "opt", 1, 0.01, sd)] = (0.80, 0.90 + e[0])
        vals[("adult", "opt", 2, 0.01, sd)] = (0.82, 0.86 + e[1])
        vals[("adult", "gr", 1, 0.01, sd)] = (0.81 + e[2] / 10, 0.88 + gap + e[3])
    # center the greedy noise so that the seed-mean shortfall is exactly ``gap``
    m = np.mean([vals[("adult", "gr", 1, 0.01, sd)][1] for sd in range(seeds)])
    mo = np.mean([vals[("adult", "opt", d, 0.01, sd)][1] for sd in range(seeds) for d in (1, 2)])
    ma = np.mean([vals[("adult", "gr", 1, 0.01, sd)][0] for sd in range(seeds)])
    for sd in range(seeds):
        a, dg = vals[("adult", "gr", 1, 0.01, sd)]
        vals[("adult", "gr", 1, 0.01, sd)] = (a - ma + 0.81, dg - m + mo + gap)
    return vals


def test_same_accuracy_failures_tells_a_real_failure_from_seed_noise():
    # a failure by .02 with seed noise of .001: the optimal line is below in every resample
    sure = _seeded_acc(_line_case(noise=0.001, gap=0.02))
    f = uncertainty.same_accuracy_failures(sure, "opt", "gr", "adult", n_boot=400)
    assert len(f) == 1 and bool(f["significant"].iloc[0])
    assert f["shortfall"].iloc[0] == pytest.approx(0.02, abs=1e-9)
    assert f["ci_lo"].iloc[0] > 0 and f["p_fail"].iloc[0] == 1.0
    # a failure by .005 with seed noise of .03: within the noise, not significant
    noisy = _seeded_acc(_line_case(noise=0.03, gap=0.005))
    f = uncertainty.same_accuracy_failures(noisy, "opt", "gr", "adult", n_boot=400)
    assert len(f) == 1 and not bool(f["significant"].iloc[0])
    assert f["shortfall"].iloc[0] == pytest.approx(0.005, abs=1e-9)
    assert f["ci_lo"].iloc[0] < 0 < f["ci_hi"].iloc[0] and 0 < f["p_fail"].iloc[0] < 1
    # the statement holds (greedy below the line): no failure to test
    fine = _seeded_acc(_line_case(noise=0.001, gap=-0.01))
    assert uncertainty.same_accuracy_failures(fine, "opt", "gr", "adult", n_boot=50).empty
    with pytest.raises(ValueError, match="level"):
        uncertainty.same_accuracy_failures(sure, "opt", "gr", "adult", level=1.5)


def test_same_accuracy_failures_brute_force_bootstrap():
    # the shortfall of each resample recomputed by hand from the resampled means of both learners
    vals = _line_case(noise=0.01, gap=0.004, seeds=4, seed=5)
    df = _seeded_acc(vals)
    f = uncertainty.same_accuracy_failures(df, "opt", "gr", "adult", n_boot=300, seed=11)
    rng = np.random.default_rng(11)
    short = []
    for _ in range(300):
        pick = rng.integers(0, 4, 4)
        o = [np.mean([vals[("adult", "opt", d, 0.01, sd)] for sd in pick], axis=0) for d in (1, 2)]
        g = np.mean([vals[("adult", "gr", 1, 0.01, sd)] for sd in pick], axis=0)
        ref = _line_oracle([x for x, _ in o], [y for _, y in o], g[0])
        short.append(np.inf if ref is None else g[1] - ref)
    lo, hi = np.quantile(short, [0.025, 0.975])
    assert f["ci_lo"].iloc[0] == pytest.approx(lo) and f["ci_hi"].iloc[0] == pytest.approx(hi)
    assert bool(f["significant"].iloc[0]) == (lo > 1e-12)


def _curve_frame(vals):
    """``_seeded_acc`` rows of rule lists (OptimalRL / GreedyRL) plus the size and test rows the
    statement table needs."""
    out = []
    for (ds, lr, d, s, sd), (acc, dg) in vals.items():
        lr = {"opt": "OptimalRL", "gr": "GreedyRL"}[lr]
        p = dict(depth=d, support=s)
        for metric, v in (("train_accuracy", acc), ("dist_g", dg), ("size", d), ("test_accuracy", acc)):
            out.append(row(ds, lr, p, math.inf, 0.0, sd, metric, v))
    return pd.DataFrame(out)


def test_check_statements_failure_test_option():
    noisy = _curve_frame(_line_case(noise=0.03, gap=0.005))
    plain = p3st.check_statements(noisy, ids=("003-fig3",), accuracy_pairing="curve").set_index("key")
    tested = p3st.check_statements(noisy, ids=("003-fig3",), accuracy_pairing="curve", failure_test=True)
    tested = tested.set_index("key")
    assert plain.loc["same_accuracy", "verdict"] == "does not hold"  # 0/1 on the seed means
    assert tested.loc["same_accuracy", "verdict"] == "holds"  # ... but within the seed noise
    assert "failures beyond seed noise 0/1" in tested.loc["same_accuracy", "measured"]
    sure = _curve_frame(_line_case(noise=0.001, gap=0.02))
    t = p3st.check_statements(sure, ids=("003-fig3",), accuracy_pairing="curve", failure_test=True).set_index("key")
    assert t.loc["same_accuracy", "verdict"] == "does not hold"
    assert "failures beyond seed noise 1/1" in t.loc["same_accuracy", "measured"]
    assert "1/1 with a Bonferroni correction" in t.loc["same_accuracy", "measured"]  # one test: the same level
    md = get("003-fig3").table(sure)
    statements = md.split("\n\n")[0]  # the failures' table comes after the statements' table, not inside it
    assert statements.count("| Sec.") + statements.count("| App.") == statements.count("\n") - 1
    assert "failure_test=True" in md and "| rule lists | adult | 1 | 0.01 | +0.0200 |" in md and "| yes |" in md
    assert "| no |" in get("003-fig3").table(noisy) and "beyond seed noise |" not in get("003-fig3").table(
        _curve_frame(_line_case(noise=0.001, gap=-0.01))
    )


# --------------------------------------------------------------------------- 003-fig5-certified
def test_certified_id_runs_the_grids_adult_tree_cells_with_the_papers_hour(monkeypatch):
    monkeypatch.setattr(fits, "_has_dl85", lambda: True)
    exp = get(p3.CERTIFIED_ID)
    assert exp.cells is not None and exp.source is None and exp.paper == "003"
    cells = exp.cells(Size(quick=True))
    grid = {c.key: c for c in fits._grid_cells(Size(quick=True), dl85_time_limit=3600.0) if isinstance(c, Cell)}
    assert cells and all(c.key in grid and c.uid == grid[c.key].uid for c in cells)  # the same files
    assert {c.key.split("-")[0] for c in cells} == {"sklearn_DT", "DL8.5"}
    assert all("-adult-" in c.key for c in cells)
    assert all(c.kwargs["time_limit"] == p3.PAPER_DL85_TIME_LIMIT for c in cells if c.key.startswith("DL8.5"))
    assert exp.cells(Size(quick=True, datasets=("compas",))) == []
    with pytest.raises(ValueError, match="datasets"):
        exp.cells(Size(quick=True, datasets=("german",)))


def _tree_frame(vals):
    """Tidy rows {(learner, depth, support, seed): (dist_g, size, optimal)} on Adult."""
    out = []
    for (lr, d, s, sd), (dg, size, opt) in vals.items():
        p = dict(depth=d, support=s)
        base = ("adult", lr, p, math.inf, 0.0, sd)
        out += [row(*base, "dist_g", dg), row(*base, "size", size), row(*base, "train_accuracy", 0.8)]
        out += [row(*base, "test_accuracy", 0.8), row(*base, "cpu_seconds", 1.0 + d)]
        if lr == "DL8.5":
            out.append(row(*base, "optimal", opt))
    return pd.DataFrame(out)


def test_depth_breakdown_and_the_certified_table():
    vals = {}
    for d in (2, 3, 4):
        for sd in range(3):
            gap = {2: 0.0, 3: 0.01, 4: -0.02}[d]  # depth 2: the same tree; 3: DL8.5 leaks more; 4: sklearn_DT
            vals[("sklearn_DT", d, 0.01, sd)] = (0.8 + gap + 0.001 * sd, 10 + d, None)
            vals[("DL8.5", d, 0.01, sd)] = (0.8, 9 + d, 1.0 if d < 4 else float(sd > 0))
    df = _tree_frame(vals)
    b = uncertainty.depth_breakdown(df, n_boot=100).set_index("depths")
    assert list(b.index) == ["2", "3", "4", "2–3", "2–4"]
    assert (b.loc["2", "k"], b.loc["3", "k"], b.loc["4", "k"], b.loc["2–4", "k"]) == (0, 0, 1, 1)
    assert b.loc["4", "diff"] == pytest.approx(-0.02 + 0.001) and b.loc["2–4", "n"] == 3
    gap = _tree_frame({k: v for k, v in vals.items() if not (k[0] == "DL8.5" and k[1] == 3)})
    assert list(uncertainty.depth_breakdown(gap, n_boot=20)["depths"]) == ["2", "4"]  # no range across a missing depth
    md = get(p3.CERTIFIED_ID).table(df)
    assert "| 4 | 1/1 |" in md and "| 2–4 | 1/3 |" in md
    assert "| 4 | 3 | 2 |" in md  # DL8.5 at depth 4: 3 fits, 2 certified
    assert "Not certified" in md and "Fig. 5b" in md


def test_fig4_marks_fits_the_time_limit_stopped(tmp_path, monkeypatch):
    need("matplotlib")
    vals = {}
    for sd in range(3):
        q = {f"per_record_q{k}": 0.6 + 0.003 * k for k in range(101)}
        vals[("sklearn_DT", 10, 0.01, sd)] = (0.70, 50, None)
        vals[("DL8.5", 10, 0.01, sd)] = (0.71, 40, float(sd != 1))  # seed 1: stopped by the time limit
    df = _tree_frame(vals)
    qrows = [
        row("adult", lr, dict(depth=10, support=0.01), math.inf, 0.0, sd, m, v)
        for (lr, _, _, sd) in vals
        for m, v in q.items()
    ]
    df = pd.concat([df, pd.DataFrame(qrows)], ignore_index=True)
    seen = {}

    def keep(fig, path):
        ax = fig.axes[0]
        seen["labels"] = [t.get_text() for t in ax.get_legend().get_texts()]
        seen["styles"] = [ln.get_linestyle() for ln in ax.get_lines()]
        seen["rows"] = len(fig.axes)
        return path

    monkeypatch.setattr(figures, "save", keep)
    assert figures._fig4(df, tmp_path, "x") == [tmp_path / "x.png"]
    assert seen["rows"] == 1  # trees only: no empty rule-list panel
    assert any("DL8.5" in t and "(2/3 seeds certified)" in t for t in seen["labels"])
    assert not any("sklearn_DT" in t and "certified" in t for t in seen["labels"])
    assert seen["styles"].count(":") == 2  # seed 1's thin line and DL8.5's mean curve
    df = df[~((df["metric"] == "optimal") & (df["seed"] == 1))]
    df = pd.concat([df, _tree_frame({("DL8.5", 10, 0.01, 1): (0.71, 40, 1.0)}).query("metric == 'optimal'")])
    figures._fig4(df, tmp_path, "x")
    assert ":" not in seen["styles"] and not any("certified" in t for t in seen["labels"])


def test_a_family_page_tests_the_shared_statements_on_its_own_family():
    # trees always dominate; one greedy rule list is as accurate as the optimal one and leaks less:
    # Fig. 2's page (trees) holds, Fig. 3's (rule lists) does not, and neither mixes in the other
    base = {
        ("compas", "DL8.5", 1, 0.01): dict(dist_g=0.95, size=1, train_accuracy=0.70),
        ("compas", "sklearn_DT", 1, 0.01): dict(dist_g=0.90, size=1, train_accuracy=0.65),
        ("compas", "OptimalRL", 1, 0.01): dict(dist_g=0.80, size=1, train_accuracy=0.70),
        ("compas", "GreedyRL", 1, 0.01): dict(dist_g=0.90, size=1, train_accuracy=0.70),
    }
    df = _fake_fits(base)
    trees, lists = get("003-fig2").table(df), get("003-fig3").table(df)
    row = next(line for line in trees.splitlines() if "optimal models always leak less" in line)
    assert "trees, compas: 1/1" in row and "rule lists" not in row and row.endswith("**holds** |")
    row = next(line for line in lists.splitlines() if "optimal models always leak less" in line)
    assert "rule lists, compas: 0/1" in row and "trees" not in row and "**holds**" not in row
