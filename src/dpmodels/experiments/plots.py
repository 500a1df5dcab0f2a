"""Figures as the papers draw them, from the tidy results (matplotlib, optional extra ``[plots]``).

The helpers here take the tidy frame of an experiment (one row per fit and metric) and draw
mean ± one standard error bands, log-scaled ε axes, one panel per dataset, and the papers'
published points as black markers. Without matplotlib :func:`pyplot` raises an ImportError with
the install hint; the runner turns it into a one-line note and still writes the tables.

Every figure says what it shows: a shaded band has a legend entry "±1 s.e. over R runs"
(:func:`band_key`), a legend lists only the series that have results, and a figure drawn from a
reduced grid (``--quick`` or ``--runs``) carries a red heading saying so and how many runs it
uses (:func:`figure_note`, added by :func:`save`).
"""

from __future__ import annotations

import contextlib
from pathlib import Path

import numpy as np
import pandas as pd

from .._optional import require

__all__ = [
    "pyplot",
    "summarise",
    "curves_vs_epsilon",
    "save",
    "PUBLISHED_STYLE",
    "band_label",
    "band_key",
    "figure_note",
    "run_note",
    "annotate",
]

PUBLISHED_STYLE = dict(marker="*", s=90, color="black", zorder=5, edgecolors="white", linewidths=0.5)


def pyplot():
    """matplotlib's pyplot with the non-interactive Agg backend."""
    matplotlib = require("matplotlib", "figures")
    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    return plt


def summarise(df: pd.DataFrame, by, value: str = "value") -> pd.DataFrame:
    """Mean, standard error (ddof 1; 0 for one observation) and count of ``value`` per group."""
    g = df.groupby(list(by), sort=False, dropna=False)[value]
    out = g.agg(mean="mean", sd="std", n="size").reset_index()
    out["se"] = out["sd"].fillna(0.0) / np.sqrt(out["n"])
    return out.drop(columns="sd")


def band_label(counts, what="runs") -> str:
    """Legend text of a shaded band: "±1 s.e. over R runs" (R the observations per point; a
    range "R1–R2" when the points differ)."""
    ns = sorted({int(n) for n in counts})
    if not ns:
        return "±1 s.e."
    r = f"{ns[0]}" if len(ns) == 1 else f"{ns[0]}–{ns[-1]}"
    return f"shaded: ±1 s.e. over {r} {what}"


def band_key(ax, counts, what="runs", color="0.55"):
    """Add the legend entry of the shaded bands of ``ax`` (an empty grey patch); returns it."""
    return ax.fill_between([], [], [], color=color, alpha=0.3, lw=0, label=band_label(counts, what))


def curves_vs_epsilon(
    ax,
    df: pd.DataFrame,
    learners,
    *,
    colors=None,
    baseline=None,
    published=(),
    value="value",
    label_published=True,
    published_label="published",
    what="runs",
):
    """Draw mean ± s.e. bands against log ε for ``learners`` (order kept) on one axis.

    Only learners with results are drawn (and so listed in a legend). ``baseline``: a learner
    fitted without privacy (ε = inf) drawn as a horizontal line with its band. ``published``:
    iterable of dicts with ``epsilon``, ``value`` and ``learner``, drawn as markers (the paper's
    numbers). The bands get one legend entry, "±1 s.e. over R runs" (:func:`band_key`). Returns
    the handles for a legend.
    """
    handles = []
    colors = colors or {}
    counts = []
    for i, lr in enumerate(learners):
        d = df[(df["learner"] == lr) & np.isfinite(df["epsilon"])]
        if d.empty:
            continue
        s = summarise(d, ["epsilon"], value).sort_values("epsilon")
        c = colors.get(lr, f"C{i}")
        (h,) = ax.plot(s["epsilon"], s["mean"], color=c, lw=1.3, label=lr)
        ax.fill_between(s["epsilon"], s["mean"] - s["se"], s["mean"] + s["se"], color=c, alpha=0.2, lw=0)
        counts += list(s["n"])
        handles.append(h)
    if baseline is not None:
        d = df[df["learner"] == baseline]
        if len(d):
            m = d[value].mean()
            se = d[value].std(ddof=1) / np.sqrt(len(d)) if len(d) > 1 else 0.0
            h = ax.axhline(m, color="0.25", ls="--", lw=1.1, label=f"{baseline} (non-private)")
            ax.axhspan(m - se, m + se, color="0.25", alpha=0.12, lw=0)
            counts.append(len(d))
            handles.append(h)
    pts = list(published)
    if pts:
        h = ax.scatter(
            [p["epsilon"] for p in pts],
            [p["value"] for p in pts],
            label=published_label if label_published else None,
            **PUBLISHED_STYLE,
        )
        handles.append(h)
    if counts:
        handles.append(band_key(ax, counts, what))
    ax.set_xscale("log")
    ax.grid(True, which="major", alpha=0.3)
    return handles


# The heading that save() puts on every figure drawn while a note is set (run.render sets it).
_NOTES: list = []


@contextlib.contextmanager
def figure_note(text):
    """Within the block, :func:`save` heads every figure with ``text`` (``None``: no heading)."""
    _NOTES.append(text)
    try:
        yield
    finally:
        _NOTES.pop()


def run_note(quick: bool, runs, requested_runs=None):
    """The heading of a figure drawn from a reduced grid, or None at the experiment's full size.

    ``runs``: the distinct seeds in the results (runs, splits or folds); ``requested_runs``: an
    explicit ``--runs``.
    """
    if quick:
        return (
            f"QUICK RUN (dpmodels reproduce --quick): {runs} run{'s' if runs != 1 else ''} (distinct seeds) — "
            "a reduced grid, not the paper's size"
        )
    if requested_runs is not None:
        return f"reduced run (--runs {requested_runs}): {runs} run{'s' if runs != 1 else ''} (distinct seeds)"
    return None


def annotate(fig):
    """Head ``fig`` with the current :func:`figure_note` (a red suptitle above the panels)."""
    note = _NOTES[-1] if _NOTES else None
    if note:
        fig.suptitle(note, y=1.0, va="bottom", fontsize=9, color="firebrick")
    return fig


def save(fig, path) -> Path:
    """Write ``fig`` as PNG (with the current :func:`figure_note` heading) and close it."""
    annotate(fig)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=130, bbox_inches="tight")
    import matplotlib.pyplot as plt

    plt.close(fig)
    return path
