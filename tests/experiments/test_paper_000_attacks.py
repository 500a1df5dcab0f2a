"""Smoke tests of the paper-000 attack experiments: tidy frames, protocol, tables and figures."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from _extras import need
from dpmodels.experiments.paper_000 import attacks as E
from dpmodels.experiments.paper_000.protocol import pipeline_cells


def _frame(cells):
    """The tidy rows of some cells, run in this process (the registry's runner does the same)."""
    return pd.DataFrame([r for c in cells for r in c.run()])


def test_table2_frame_and_same_models_as_accuracy_experiment():
    df = _frame(
        E.table2_cells(datasets=("german",), epsilons=(10.0,), learners=("permute-and-flip",), runs=1, n_permutations=3)
    )
    assert list(df.columns) == E.COLUMNS
    assert set(df.metric) == {"vulnerability", "vulnerability (null mean)", "accuracy"}
    v = df[df.metric == "vulnerability"].value
    assert ((v >= 0.5) & (v <= 1.0)).all()
    acc = _frame(
        pipeline_cells(datasets=("german",), epsilons=(10.0,), runs=1, learners=("permute-and-flip",), data="binarized")
    )
    ours = df[df.metric == "accuracy"].set_index("learner")["value"]
    theirs = acc[acc.metric == "accuracy"].set_index("learner")["value"]
    assert ours["permute-and-flip"] == pytest.approx(theirs["permute-and-flip"])  # same seeds, same model
    assert ours["GreedyRL"] == pytest.approx(theirs["GreedyRL"])
    md = E.table2_markdown(df)
    assert "| german | GreedyRL | 0.5" in md and "| 0.524 (± 3e-05) |" in md  # ours beside the paper's V


def test_table3_frame():
    df = _frame(
        E.table3_cells(datasets=("compas",), epsilons=(10.0,), learners=("permute-and-flip",), runs=1, n_repeats=1)
    )
    ik = df[df.metric.str.startswith("I_k")]
    assert len(ik) == 3 and ik.value.between(0, 1).all()
    assert "permute-and-flip" in E.table3_markdown(df)


def test_mia_frames_epsilon_table_and_figures(tmp_path):
    metrics, scores = E.split_mia(
        _frame(
            E.mia_cells(
                datasets=("german",),
                learners=("GreedyRL", "PrivaTree"),
                epsilons=(1.0,),
                attacks=("threshold", "lira"),
                runs=1,
                n_reference=2,
            )
        )
    )
    assert set(metrics.metric) == {"auc", "tpr@0.1%fpr", "tpr@1%fpr"}
    assert set(metrics.attack) == {"threshold", "lira"}
    assert np.isinf(metrics[metrics.learner == "GreedyRL"].epsilon).all()
    et = E.epsilon_table(scores)
    assert len(et) == 2 and (et.eps_lb >= 0).all() and (et.eps_hat >= 0).all()
    assert "| german | PrivaTree | 1 |" in E.mia_markdown(metrics)
    need("matplotlib")
    assert E.plot_fig6(scores, tmp_path / "fig6.png").exists()
    t2 = _frame(
        E.table2_cells(datasets=("german",), epsilons=(1.0, 10.0), learners=("gl-laplace",), runs=1, n_permutations=0)
    )
    assert E.plot_table2(t2, tmp_path / "t2.png").exists()


def test_unknown_learner():
    with pytest.raises(ValueError, match="unknown learners"):
        E.table2_cells(learners=("nope",))
    with pytest.raises(ValueError, match="unknown attacks"):
        E.mia_cells(attacks=("nope",))


def test_registry_ids_run_end_to_end(tmp_path, monkeypatch):
    """000-mia through the runner (a smaller quick grid); 000-fig6 reuses 000-mia's cells."""
    from dpmodels.experiments.registry import Size, get
    from dpmodels.experiments.run import run_experiment

    learners = ("GreedyRL", "permute-and-flip", "PrivaTree", "tree (fully grown)")
    monkeypatch.setattr(
        E, "MIA_QUICK", dict(E.MIA_QUICK, n_reference=2, learners=learners, attacks=("threshold", "lira"))
    )
    size = Size(quick=True, runs=1, datasets=("german",))
    mia = run_experiment("000-mia", size, tmp_path, progress=False, plot=False)
    assert mia.cells_run == len(learners) and mia.rows > 0
    assert "| german | tree (fully grown) | ∞ |" in (tmp_path / "000-mia" / "table.md").read_text()
    fig6 = run_experiment("000-fig6", size, tmp_path, progress=False, plot=False)
    assert fig6.cells_run == 0 and fig6.cells_cached == mia.cells_run  # drawn from 000-mia's cells
    assert "permute-and-flip" in fig6.table and "PrivaTree" not in fig6.table
    with pytest.raises(ValueError, match="paper 000 uses the datasets"):
        get("000-table2").cells(Size(quick=True, datasets=("nursery",)))


def test_mia_page_commits_a_summary_its_table_reads_alike(tmp_path):
    """000-mia's page commits per-run metrics and the pooled ε table instead of per-record
    scores; the table drawn from those committed rows (after the CSV round trip the page's check
    makes) is the table drawn from the run's own rows."""
    import numpy as np
    import pandas as pd

    from dpmodels.experiments.pages import read_rows
    from dpmodels.experiments.registry import ROW_FIELDS, get

    rng = np.random.default_rng(0)
    rows = []
    for lr in ("GreedyRL", "PrivaTree"):
        for seed in range(2):
            for attack in ("threshold", "black-box"):
                base = dict(dataset="german", learner=lr, parameters="{}", epsilon=1.0, delta=0.0, seed=seed)
                for m in ("auc", "tpr@0.1%fpr", "tpr@1%fpr"):
                    rows.append(dict(base, metric=m, value=rng.random(), fit_seconds=0.1, attack=attack))
                for rec in range(60):
                    rows.append(
                        dict(base, metric="score", value=rng.random() + (rec < 30) * 0.3 * (lr == "GreedyRL"),
                             fit_seconds=0.1, attack=attack, record=rec, member=rec < 30)
                    )  # fmt: skip
    df = pd.DataFrame(rows)
    exp = get("000-mia")
    summary = exp.page_rows(df)
    assert not (summary.metric == "score").any() and len(summary) < len(df)
    path = tmp_path / "rows.csv.gz"
    summary[list(ROW_FIELDS) + list(exp.page_columns)].to_csv(path, index=False)
    assert exp.table(read_rows(path)) == exp.table(df)
