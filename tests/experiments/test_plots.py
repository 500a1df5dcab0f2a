"""Figures say what they show: band legends, only series that ran, quick-run headings, visible ROC segments."""

import math

import numpy as np
import pandas as pd
import pytest

from _extras import need

need("matplotlib")

from dpmodels.audit import evaluate_scores  # noqa: E402
from dpmodels.experiments import plots  # noqa: E402
from dpmodels.experiments.registry import Size, row  # noqa: E402


def _frame(learners, eps=(0.1, 1.0), runs=3):
    rows = [
        row("d", lr, {}, e, 0.0, r, "acc", 0.5 + 0.01 * r + 0.1 * i)
        for i, lr in enumerate(learners)
        for e in eps
        for r in range(runs)
    ]
    rows += [row("d", "base", {}, math.inf, 0.0, r, "acc", 0.8) for r in range(runs)]
    return pd.DataFrame(rows)


def _legend_texts(ax):
    return [t.get_text() for t in ax.legend().get_texts()]


def test_legend_lists_only_series_that_ran_and_labels_the_bands():
    plt = plots.pyplot()
    fig, ax = plt.subplots()
    plots.curves_vs_epsilon(
        ax,
        _frame(["a", "b"]),
        ["a", "never ran", "b"],
        baseline="base",
        published=[dict(epsilon=1.0, value=0.6, learner="a")],
        published_label="paper, Table II",
    )
    texts = _legend_texts(ax)
    assert texts == ["a", "b", "base (non-private)", "paper, Table II", "shaded: ±1 s.e. over 3 runs"]
    plt.close(fig)
    fig, ax = plt.subplots()
    plots.curves_vs_epsilon(ax, _frame(["a"]), ["a", "b"], baseline="missing")
    assert _legend_texts(ax) == ["a", "shaded: ±1 s.e. over 3 runs"]
    plt.close(fig)


def test_band_label_gives_a_range_when_points_differ():
    assert plots.band_label([5, 5, 5]) == "shaded: ±1 s.e. over 5 runs"
    assert plots.band_label([2, 5, 3], "splits") == "shaded: ±1 s.e. over 2–5 splits"


def test_quick_and_reduced_runs_are_headed_full_size_is_not():
    plt = plots.pyplot()
    assert plots.run_note(False, 50) is None
    assert "--runs 8" in plots.run_note(False, 8, requested_runs=8)
    for note, expect in ((plots.run_note(True, 3), "QUICK RUN"), (None, None)):
        fig, _ = plt.subplots()
        with plots.figure_note(note):
            plots.annotate(fig)
        title = fig._suptitle.get_text() if fig._suptitle is not None else None
        if expect is None:
            assert title is None
        else:
            assert expect in title and "quick" in title and "3 runs" in title
        plt.close(fig)


def test_reproduce_quick_heads_the_saved_figure(tmp_path, monkeypatch):
    """End to end (002-fig3 --quick, ≈ 3 s): the figure the runner saves carries the heading and the band key."""
    import matplotlib.pyplot as plt

    from dpmodels.experiments.run import run_experiment

    kept, real_close = [], plt.close
    monkeypatch.setattr(plt, "close", lambda fig=None: kept.append(fig))
    res = run_experiment("002-fig3", Size(quick=True), tmp_path, progress=False)
    assert res.figures and kept
    fig = kept[-1]
    assert "QUICK RUN" in fig._suptitle.get_text() and "run" in fig._suptitle.get_text()
    texts = [t.get_text() for ax in fig.axes if ax.get_legend() for t in ax.get_legend().get_texts()]
    assert any(t.startswith("shaded: ±1 s.e. over") and t.endswith("splits") for t in texts)
    real_close("all")


def test_plot_roc_draws_the_segments_of_a_coarse_score():
    """Three distinct scores give 4 ROC vertices; the drawn line samples every segment, (0, 0) included."""
    plt = plots.pyplot()
    rng = np.random.default_rng(0)
    m = rng.random(400) < 0.5
    s = np.where(
        m, rng.choice([0.2, 0.6, 0.9], 400, p=[0.3, 0.4, 0.3]), rng.choice([0.2, 0.6, 0.9], 400, p=[0.4, 0.4, 0.2])
    )
    r = evaluate_scores(s, m, "threshold")
    assert len(r.fpr) == 4  # (0, 0), two inner vertices, (1, 1)
    fig, ax = plt.subplots()
    r.plot_roc(ax=ax)
    line = ax.get_lines()[0]
    x, y = line.get_xdata(), line.get_ydata()
    assert len(x) > 100  # not 2 or 3 isolated points
    lo = 0.5 / r.n_nonmembers
    assert x.min() == pytest.approx(lo) and x.max() == 1.0 and y.max() == 1.0
    # the segment out of (0, 0) is TPR = (t1 / f1)·FPR, below the first inner vertex
    f1, t1 = r.fpr[1], r.tpr[1]
    below = x < f1
    assert below.sum() > 10 and np.allclose(y[below], t1 / f1 * x[below])
    # between two vertices the curve is the straight segment (linear interpolation)
    mid = (x > r.fpr[1]) & (x < r.fpr[2])
    assert np.allclose(y[mid], np.interp(x[mid], r.fpr, r.tpr))
    # every inner vertex is on the line, with a marker
    for f, t in zip(r.fpr[1:], r.tpr[1:]):
        assert np.any(np.isclose(x, f) & np.isclose(y, t))
    assert line.get_marker() == "o" and len(line.get_markevery()) == 3
    plt.close(fig)
