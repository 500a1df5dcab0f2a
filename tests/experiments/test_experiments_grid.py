"""Registry, cell runner (serial, joblib, Dask), resumption, report."""

import pickle

import numpy as np
import pandas as pd
import pytest

from _extras import need
from dpmodels.experiments import grid
from dpmodels.experiments.paper_000.accuracy import accuracy_cell, noise_cell
from dpmodels.experiments.registry import (
    PAPER_IDS,
    ROW_FIELDS,
    Cell,
    Size,
    Skip,
    all_experiments,
    get,
    resolve,
    row,
)


@pytest.mark.parametrize("eid", PAPER_IDS)
def test_every_paper_result_has_an_id(eid):
    assert get(eid).id == eid


def test_paper_ids_are_the_26_result_items_and_all_registered(capsys):
    from dpmodels.cli import main

    assert len(PAPER_IDS) == len(set(PAPER_IDS)) == 26
    per_paper = {p: sum(i.startswith(p) for i in PAPER_IDS) for p in ("000", "002", "003")}
    assert per_paper == {"000": 8, "002": 11, "003": 7}
    assert {"002-table3", "002-table4", "003-toy"} <= set(PAPER_IDS)
    assert main(["reproduce", "--list"]) == 0
    assert "not registered" not in capsys.readouterr().out


def test_ids_are_unique_ordered_and_resolvable():
    ids = [e.id for e in all_experiments()]
    assert len(ids) == len(set(ids))
    assert resolve(["all"]) == ids
    assert resolve(["000-fig4", "000-fig4"]) == ["000-fig4"]
    with pytest.raises(ValueError, match="unknown experiment id"):
        resolve(["rulelist-accuracy"])  # the pre-registry names are gone (CHANGELOG)
    with pytest.raises(ValueError, match="unknown experiment id"):
        resolve(["000-fig99"])


@pytest.mark.parametrize("eid", [e.id for e in all_experiments()])
def test_quick_cells_are_picklable_with_unique_keys(eid):
    exp = get(eid)
    assert exp.kind in ("figure", "table") and exp.draws and exp.full_cost
    src = get(exp.source) if exp.source else exp
    items = src.cells(Size(quick=True))
    cells = [c for c in items if isinstance(c, Cell)]
    assert all(isinstance(c, (Cell, Skip)) for c in items)
    if eid == "002-authors" and not cells:  # needs a user-given checkout: skipped, with the reason
        assert len(items) == 1 and "DPMODELS_AUTHORS_PRIVATREE" in items[0].reason
        return
    assert cells, eid
    uids = [c.uid for c in cells]
    assert len(uids) == len(set(uids))
    for c in cells[:3]:
        again = pickle.loads(pickle.dumps(c))
        assert again.uid == c.uid
    assert exp.plot is not None or exp.table is not None


def test_cell_uid_depends_on_parameters():
    a = Cell("k", noise_cell, dict(mechanism="sm-Laplace", seed=0, ns=(1, 2)))
    b = Cell("k", noise_cell, dict(mechanism="sm-Laplace", seed=0, ns=(1, 3)))
    assert a.uid != b.uid and a.uid.startswith("k-")


@pytest.mark.parametrize(
    "eid,key,uid",
    [
        ("000-fig1", "gl-Laplace (Δ/ε, as the paper)", "gl-Laplace__Δ_ε__as_the_paper_-bfe749bbe0"),
        ("000-table2", "compas-run0", "compas-run0-3fefe9b61a"),
        ("002-table2", "compas-two-years-cat-r0-f0", "compas-two-years-cat-r0-f0-e30b6948f8"),
        ("002-table2", "compas-two-years-cat-r0-f0-diffprivlib", "compas-two-years-cat-r0-f0-diffprivlib-13ef04a5f5"),
        ("002-fig4", "digits01-rep0", "digits01-rep0-faea651d9c"),
        ("003-fig2", "sklearn_DT-adult-s0", "sklearn_DT-adult-s0-7e9f62ba76"),
    ],
)
def test_cell_files_are_keyed_by_key_and_parameters(eid, key, uid):
    """A cell's file name hashes its key and parameters only: moving or renaming the function that
    computes it (a module split) keeps finished cells resumable."""
    cells = {c.key: c for c in get(eid).cells(Size(quick=True)) if isinstance(c, Cell)}
    assert cells[key].uid == uid


def test_cell_uid_ignores_the_function():
    def other(**kw):
        return []

    a = Cell("k", noise_cell, dict(seed=0))
    assert Cell("k", other, dict(seed=0)).uid == a.uid
    assert Cell("k2", noise_cell, dict(seed=0)).uid != a.uid


def test_plugins_are_found_in_the_paper_packages():
    from dpmodels.experiments import registry

    mods = registry._plugin_modules()
    for pkg in registry.PLUGIN_PACKAGES:
        assert any(m.startswith(pkg + ".") for m in mods), pkg
    modules = {getattr(e.cells, "func", e.cells).__module__ for e in all_experiments() if e.cells is not None}
    assert all(m.split(".")[2] in ("paper_000", "paper_002", "paper_003", "library") for m in modules), modules


def test_each_package_index_lists_its_ids_and_their_modules():
    """The __init__ docstring of each paper package is the index of its ids: id -> module."""
    import importlib

    for e in all_experiments():
        package, _, name = e.module.rpartition(".")
        doc = importlib.import_module(package).__doc__
        line = next((ln for ln in doc.splitlines() if ln.startswith(e.id + " ")), None)
        assert line is not None, f"{e.id} missing from {package}'s index"
        assert f":mod:`.{name}`" in line, (e.id, line)


def test_row_schema():
    r = row("d", "l", {"b": 1, "a": 2}, 1.0, 0.0, 3, "m", 0.5, 0.1)
    assert tuple(r) == ROW_FIELDS and r["parameters"] == '{"a": 2, "b": 1}'


def _small_cells():
    return [
        Cell(f"noise-{m}", noise_cell, dict(mechanism=m, seed=1, ns=(1, 10, 100), draws=200))
        for m in ("sm-Laplace", "sm-Cauchy")
    ] + [
        Cell(f"acc-{r}", accuracy_cell, dict(dataset="compas", run=r, epsilons=(1.0,), learners=("gl-Laplace",)))
        for r in range(2)
    ]


def _rows(tmp, cells, **kw):
    stats = grid.run_cells(cells, tmp / "cells", progress=False, **kw)
    df = grid.read_results(cells, tmp / "cells", tmp / "results.parquet")
    key = ["dataset", "learner", "parameters", "epsilon", "seed", "metric"]
    return stats, df.drop(columns="fit_seconds").sort_values(key).reset_index(drop=True)


def test_joblib_equals_serial_and_resumes(tmp_path):
    cells = _small_cells()
    s1, serial = _rows(tmp_path / "a", cells, workers=1)
    s2, par = _rows(tmp_path / "b", cells, workers=2)
    assert s1["ran"] == s2["ran"] == len(cells)
    pd.testing.assert_frame_equal(serial, par)
    # rerun: nothing recomputed; drop one cell file: only that cell reruns
    s3, again = _rows(tmp_path / "b", cells, workers=2)
    assert s3["ran"] == 0 and s3["cached"] == len(cells) and s3["cpu_seconds"] == 0
    next((tmp_path / "b" / "cells").glob("acc-1-*")).unlink()
    s4, again = _rows(tmp_path / "b", cells, workers=1)
    assert s4["ran"] == 1
    pd.testing.assert_frame_equal(serial, again)


def test_dask_local_cluster_gives_the_joblib_rows(tmp_path):
    need("distributed")
    cells = _small_cells()
    _, ref = _rows(tmp_path / "joblib", cells, workers=2)
    _, dk = _rows(tmp_path / "dask", cells, workers=2, dask="local")
    pd.testing.assert_frame_equal(ref, dk)


def test_csv_fallback(tmp_path):
    cells = _small_cells()[:1]
    grid.run_cells(cells, tmp_path / "cells", progress=False, fmt="csv")
    assert list((tmp_path / "cells").glob("*.csv"))
    df = grid.read_results(cells, tmp_path / "cells", tmp_path / "results.csv")
    assert (tmp_path / "results.csv").exists() and len(df) == 6
    with pytest.raises(FileNotFoundError):
        grid.read_results(_small_cells()[1:2], tmp_path / "cells")


def test_fit_seeds_do_not_depend_on_the_grid():
    a = accuracy_cell("compas", 0, (1.0, 10.0), ("gl-Laplace",))
    b = accuracy_cell("compas", 0, (10.0,), ("permute-and-flip", "gl-Laplace"))
    va = [r["value"] for r in a if r["learner"] == "gl-Laplace" and r["epsilon"] == 10.0]
    vb = [r["value"] for r in b if r["learner"] == "gl-Laplace" and r["epsilon"] == 10.0]
    assert va == vb


def test_markdown_to_html_inlines_images(tmp_path):
    from dpmodels.experiments.report import markdown_to_html

    png = tmp_path / "x.png"
    png.write_bytes(b"\x89PNG\r\n\x1a\nfake")
    md = "## 000-fig1 — t\n\n**bold** and `code`\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n![x](x.png)\n\n- item\n"
    html = markdown_to_html(md, base=tmp_path)
    assert "<table>" in html and "<td>1</td>" in html and "<strong>bold</strong>" in html
    assert "data:image/png;base64," in html and "<li>item</li>" in html and 'id="000-fig1"' in html


def test_noise_cell_matches_the_closed_form():
    import json

    from dpmodels.privacy.smooth import gini_smooth_sensitivity

    rows = noise_cell("sm-Laplace", 0, (5, 500), epsilon=1.0, delta=1e-6, draws=50_000)
    got = {(json.loads(r["parameters"])["n"], r["metric"]): r["value"] for r in rows}
    beta = 1.0 / (2 * np.log(2 / 1e-6))
    for n in (5, 500):
        assert got[(n, "noise_scale")] == pytest.approx(2 * gini_smooth_sensitivity(n, beta, 1))
        assert got[(n, "mean_abs_noise")] == pytest.approx(got[(n, "noise_scale")], rel=0.03)  # E|Lap(b)| = b


def test_finished_only_draws_a_partial_grid_and_says_so(tmp_path, monkeypatch):
    from dpmodels.experiments import registry, run
    from dpmodels.experiments.report import write_report

    cells = _small_cells()
    exp = registry.Experiment(
        "zzz-partial",
        paper="zzz",
        kind="table",
        title="partial",
        draws="test",
        cells=lambda size: cells,
        table=lambda df: f"{len(df)} rows",
    )
    monkeypatch.setitem(registry._REGISTRY, exp.id, exp)
    with pytest.raises(FileNotFoundError, match="has not run yet"):
        grid.read_results(cells, tmp_path / "nothing")
    grid.run_cells(cells[:1], tmp_path / exp.id / "cells", progress=False)
    r = run.run_experiment(exp.id, Size(), tmp_path, progress=False, finished_only=True)
    assert (r.cells_run, r.cells_cached, r.cells_missing) == (0, 1, len(cells) - 1)
    assert r.notes == [
        f"{len(cells) - 1} of {len(cells)} cells not run yet: drawn from the 1 finished ones (partial grid)"
    ]
    assert r.table == f"{r.rows} rows" and r.rows > 0
    assert grid.finished(cells, tmp_path / exp.id / "cells") == cells[:1]  # nothing was computed
    md, _ = write_report(tmp_path)
    assert "Partial grid:** 3 of 4 cells had not run" in md.read_text()
