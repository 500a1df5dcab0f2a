"""Figures as the papers draw them, from the tidy results (matplotlib, optional extra ``[plots]``).

The helpers here take the tidy frame of an experiment (one row per fit and metric) and draw
mean ± one standard error bands, log-scaled ε axes, one panel per dataset, and the papers'
published points as black markers. Without matplotlib :func:`pyplot` raises an ImportError with
the install hint; the runner turns it into a one-line note and still writes the tables.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

__all__ = ["pyplot", "summarise", "curves_vs_epsilon", "save", "PUBLISHED_STYLE"]

PUBLISHED_STYLE = dict(marker="*", s=90, color="black", zorder=5, edgecolors="white", linewidths=0.5)


def pyplot():
    """matplotlib's pyplot with the non-interactive Agg backend."""
    try:
        import matplotlib

        matplotlib.use("Agg", force=True)
        import matplotlib.pyplot as plt
    except ImportError:
        raise ImportError("figures need matplotlib: pip install 'dpmodels[plots]'") from None
    return plt


def summarise(df: pd.DataFrame, by, value: str = "value") -> pd.DataFrame:
    """Mean, standard error (ddof 1; 0 for one observation) and count of ``value`` per group."""
    g = df.groupby(list(by), sort=False, dropna=False)[value]
    out = g.agg(mean="mean", sd="std", n="size").reset_index()
    out["se"] = out["sd"].fillna(0.0) / np.sqrt(out["n"])
    return out.drop(columns="sd")


def curves_vs_epsilon(ax, df: pd.DataFrame, learners, *, colors=None, baseline=None, published=(),
                      value="value", label_published=True):
    """Draw mean ± s.e. bands against log ε for ``learners`` (order kept) on one axis.

    ``baseline``: a learner fitted without privacy (ε = inf) drawn as a horizontal line with its
    band. ``published``: iterable of dicts with ``epsilon``, ``value`` and ``learner``, drawn as
    markers (the paper's numbers). Returns the handles for a legend.
    """
    handles = []
    colors = colors or {}
    for i, lr in enumerate(learners):
        d = df[(df["learner"] == lr) & np.isfinite(df["epsilon"])]
        if d.empty:
            continue
        s = summarise(d, ["epsilon"], value).sort_values("epsilon")
        c = colors.get(lr, f"C{i}")
        (h,) = ax.plot(s["epsilon"], s["mean"], color=c, lw=1.3, label=lr)
        ax.fill_between(s["epsilon"], s["mean"] - s["se"], s["mean"] + s["se"], color=c, alpha=0.2, lw=0)
        handles.append(h)
    if baseline is not None:
        d = df[df["learner"] == baseline]
        if len(d):
            m = d[value].mean()
            se = d[value].std(ddof=1) / np.sqrt(len(d)) if len(d) > 1 else 0.0
            h = ax.axhline(m, color="0.25", ls="--", lw=1.1, label=f"{baseline} (non-private)")
            ax.axhspan(m - se, m + se, color="0.25", alpha=0.12, lw=0)
            handles.append(h)
    pts = list(published)
    if pts:
        h = ax.scatter([p["epsilon"] for p in pts], [p["value"] for p in pts], label="published" if label_published else None,
                       **PUBLISHED_STYLE)
        handles.append(h)
    ax.set_xscale("log")
    ax.grid(True, which="major", alpha=0.3)
    return handles


def save(fig, path) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=130, bbox_inches="tight")
    import matplotlib.pyplot as plt

    plt.close(fig)
    return path
