"""`lib-peers`: dpmodels beside DP-EBM and diffprivlib (issue 24 §4) — registration, declared
inputs, skipped peers with their reason, the probe's neighbouring pair, and the generated page."""

import io
import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from _extras import need
from dpmodels.experiments import run as run_module
from dpmodels.experiments.grid import read_frame, results_path
from dpmodels.experiments.library import peers
from dpmodels.experiments.registry import Size, get, row

DOCS = Path(__file__).resolve().parents[2] / "docs" / "results"


def test_registered_and_listed():
    from dpmodels.cli.reproduce import list_ids

    exp = get("lib-peers")
    assert exp.paper == "lib" and exp.table is peers.markdown_table
    buf = io.StringIO()
    list_ids(buf)
    assert any(line.startswith("lib-peers ") for line in buf.getvalue().splitlines())


def test_full_grid_is_the_issue_grid():
    cells = [c for c in peers._cells(Size()) if not c.key.startswith("probe")]
    assert {c.kwargs["dataset"] for c in cells} == set(peers.CLASSIFICATION + peers.REGRESSION)
    assert {c.kwargs["split_index"] for c in cells} == set(range(10))
    assert {tuple(c.kwargs["epsilons"]) for c in cells} == {peers.EPSILONS, ()}  # () : the non-private tree
    assert set(peers.LEARNERS_CLF + peers.LEARNERS_REG) == set(peers._ORDER)  # every learner has its column
    needs = {c.kwargs["learner"]: c.requires for c in cells}
    assert needs["DP-EBM"] == "interpret" and needs["DP additive"] == "dpmodels.gam"
    assert needs["diffprivlib LR"] == "diffprivlib" and needs["PrivaTree (default)"] is None


@pytest.mark.parametrize("name", ["compas", "german", "credit-default", "electricity", "diabetes"])
def test_every_column_is_declared(name):
    X, y, spec = peers.load_task(name)
    declared = set(spec["categories"]) | set(spec["bounds"])
    assert set(X.columns) == declared and not set(spec["categories"]) & set(spec["bounds"])
    assert ("classes" in spec) != ("label_bounds" in spec)


def test_splits_are_the_same_for_every_learner_and_stratified():
    X, y, _ = peers.load_task("german")
    a = peers.split("german", 3, X, y)
    b = peers.split("german", 3, X.copy(), y.copy())
    assert all(np.array_equal(u, v) for u, v in zip(a, b))
    tr, te = a
    assert len(te) == 300 and abs(y.iloc[tr].mean() - y.iloc[te].mean()) < 0.01


def _absent(monkeypatch, *packages):
    real = run_module.requirement_met
    monkeypatch.setattr(run_module, "requirement_met", lambda p: p not in packages and real(p))


def test_quick_run_without_peers_skips_their_series_with_the_reason(tmp_path, monkeypatch):
    _absent(monkeypatch, "interpret", "diffprivlib", "dpmodels.gam")
    size = Size(quick=True, runs=1, datasets=("german",), epsilons=(1.0,))
    res = run_module.run_experiment("lib-peers", size, tmp_path, progress=False, plot=False)
    text = " ".join(res.skipped)
    for pkg in ("interpret", "diffprivlib", "dpmodels.gam"):
        assert f"need {pkg}, which does not import" in text
    df = read_frame(results_path(tmp_path / "lib-peers"))
    assert set(df.learner) == {"PrivaTree (default)", "PrivaTree gini", "DP rule list", "sklearn tree depth 4"}
    assert set(df.metric) == {"accuracy", "roc_auc", "brier"}
    assert ((df.value >= 0) & (df.value <= 1)).all()
    assert (df[df.learner != "sklearn tree depth 4"].delta == 0).all()

    # the page is generated from that results file (the generic generated pages); an edited number is detected
    from dpmodels.experiments import pages

    docs = tmp_path / "docs"
    (docs / "results").mkdir(parents=True)
    page = pages.write_page("lib-peers", tmp_path, docs)
    assert pages.check(docs) == []
    text = page.read_text()
    assert "Series not in these rows" in text and "DP-EBM (`interpret`)" in text
    s = peers.summary(pages.read_rows(docs / "results" / "data" / "lib-peers.csv.gz"))
    acc = s[(s.learner == "PrivaTree gini") & (s.metric == "accuracy")].iloc[0]
    cell = peers._fmt(acc["mean"], acc["se"])
    assert f"| {cell} |" in text
    page.write_text(text.replace(f"| {cell} |", "| .999 |", 1))
    assert pages.check(docs)


def test_summary_is_mean_and_standard_error_per_setting():
    rows = [row("german", "X", {"split": s}, 1.0, 0.0, s, "accuracy", v, 0.5) for s, v in enumerate([0.6, 0.7, 0.8])]
    rows += [row("german", "X", {"split": 0}, 4.0, 0.0, 0, "accuracy", 0.9, 0.1)]
    s = peers.summary(pd.DataFrame(rows)).set_index("epsilon")
    assert s.loc[1.0, "mean"] == pytest.approx(0.7) and s.loc[1.0, "n"] == 3
    assert s.loc[1.0, "se"] == pytest.approx(np.std([0.6, 0.7, 0.8], ddof=1) / math.sqrt(3))
    assert s.loc[4.0, "se"] == 0.0 and s.loc[4.0, "fit_cpu_s"] == pytest.approx(0.1)


def test_ours_name_the_probed_category_whether_or_not_the_record_is_there():
    rows = peers.probe_cell(fits=2, epsilon=0.1, learners=("PrivaTree (default)",))
    by = {(json.loads(r["parameters"])["neighbour"], r["seed"]): r["value"] for r in rows}
    assert by == {("with", 0): 1.0, ("with", 1): 1.0, ("without", 0): 1.0, ("without", 1): 1.0}


def test_dpebm_cannot_name_a_category_absent_from_its_data():
    need("interpret")
    rows = peers.probe_cell(fits=2, epsilon=0.1, learners=("DP-EBM",))
    without = [r["value"] for r in rows if json.loads(r["parameters"])["neighbour"] == "without"]
    assert without == [0.0, 0.0] and all(r["delta"] == 1e-5 for r in rows)


def test_dpebm_cell_scores_with_declared_bounds():
    need("interpret")
    rows = peers.fit_cell("german", "DP-EBM", 0, (1.0,))
    assert {r["metric"] for r in rows} == {"accuracy", "roc_auc", "brier"}
    assert all(r["delta"] == 1e-5 and r["epsilon"] == 1.0 for r in rows)


def test_committed_page_matches_its_rows(tmp_path):
    """The page alone, copied with its data beside it: the check of every page (8 CPU-s) is
    tests/experiments/test_results_pages.py's."""
    import shutil

    from dpmodels.experiments import pages

    (tmp_path / "results" / "data").mkdir(parents=True)
    for f in ("lib-peers.md", "data/lib-peers.csv.gz", "data/lib-peers.json"):
        shutil.copyfile(DOCS / f, tmp_path / "results" / f)
    figures = DOCS.parent / "figures" / "results" / "lib-peers"
    if figures.exists():
        shutil.copytree(figures, tmp_path / "figures" / "results" / "lib-peers")
    assert pages.check(tmp_path) == []
    page = tmp_path / "results" / "lib-peers.md"
    page.write_text(page.read_text().replace("|", "| ", 1))  # and the check reads this page's block
    assert len(pages.check(tmp_path)) == 1
