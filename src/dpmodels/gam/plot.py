"""Matplotlib pictures of an additive model: one panel per shape function, and the importances.

Each numerical feature's panel is a step function over its public bins (the score each bin adds;
the bounds at the ends), each categorical feature's a bar per declared value plus ``unknown``; the
shade of a bin says how many (noisy) training records it holds, so a reader sees which scores rest
on few records. A K-class model draws one line per class. The last panel ranks the terms by
importance (mean absolute score over the noisy bin counts). The figure's title is the privacy
header, as for trees and rule lists (:mod:`dpmodels.export`). matplotlib is imported lazily (the
``plots`` extra).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from .._optional import require

__all__ = ["plot_model", "save_model_figure"]


def _parts(est):
    """``(AdditiveModel, header lines)`` of a fitted estimator or a loaded model file."""
    from .model import AdditiveModel

    if isinstance(est, AdditiveModel):
        return est, ["Additive model"]
    model = getattr(est, "model_", None)
    if not isinstance(model, AdditiveModel):
        raise TypeError(f"expected a fitted dpmodels.gam estimator (or a loaded one), got {type(est).__name__}")
    return model, est.header()


def plot_model(est, features=None, *, max_features: int = 15, ncols: int = 4, figsize=None):
    """Draw the shape functions of ``est`` (a fitted :class:`DPAdditiveClassifier` /
    :class:`DPAdditiveRegressor`, a :class:`dpmodels.io.LoadedModel` of one, or an
    :class:`AdditiveModel`). ``features``: names to draw (default: the ``max_features`` most
    important). Returns the matplotlib Figure."""
    require("matplotlib", "drawing a model")
    import matplotlib.pyplot as plt

    model, header = _parts(est)
    imp = model.term_importances()
    order = [int(j) for j in np.argsort(-imp, kind="stable")]
    if features is not None:
        names = [str(f) for f in features]
        unknown = [f for f in names if f not in model.feature_names]
        if unknown:
            raise ValueError(f"not a feature of the model: {unknown[0]!r}")
        order = [model.feature_names.index(f) for f in names]
    else:
        order = order[:max_features]
    n_panels = len(order) + 1
    ncols = max(1, min(ncols, n_panels))
    nrows = int(np.ceil(n_panels / ncols))
    fig, axes = plt.subplots(nrows, ncols, figsize=figsize or (3.6 * ncols, 2.8 * nrows + 0.6), squeeze=False)
    flat = axes.ravel()
    S = model.intercept.size
    labels = ["score"] if S == 1 else [str(c) for c in model.classes]
    for ax, j in zip(flat, order):
        _panel(ax, model, j, labels)
    imp_ax = flat[len(order)]
    shown = order[::-1]
    imp_ax.barh([model.feature_names[j] for j in shown], imp[shown], color="#4c72b0")
    imp_ax.set_title("term importance", fontsize=9)
    imp_ax.tick_params(labelsize=7)
    for ax in flat[n_panels:]:
        ax.axis("off")
    fig.suptitle("\n".join(header[:2]), fontsize=9, x=0.01, ha="left")
    fig.tight_layout(rect=(0, 0, 1, 0.95))
    return fig


def _panel(ax, model, j, labels):
    t = model.terms[j]
    w = np.clip(model.bin_counts[j], 0.0, None)
    shade = w / w.max() if w.max() > 0 else np.zeros_like(w)
    name = model.feature_names[j]
    if model.categorical[j]:
        x = np.arange(t.shape[0])
        width = 0.8 / t.shape[1]
        for s in range(t.shape[1]):
            colours = [(0.30, 0.45, 0.69, 0.25 + 0.75 * a) for a in shade]
            ax.bar(x + s * width - 0.4 + width / 2, t[:, s], width=width, color=colours, label=labels[s])
        ax.set_xticks(x)
        ax.set_xticklabels(model.bin_labels(j), rotation=60, ha="right", fontsize=6)
    else:
        lo, hi = model.bounds[j]
        c = model.cut_points[j]
        edges = np.concatenate([[lo], c, [hi]])
        for s in range(t.shape[1]):
            ax.stairs(t[:, s], edges, baseline=None, label=labels[s] if t.shape[1] > 1 else None, linewidth=1.4)
        for b in range(t.shape[0]):  # the records behind each bin
            ax.axvspan(edges[b], edges[b + 1], color="0.5", alpha=0.25 * shade[b], linewidth=0)
        ax.tick_params(labelsize=7)
    ax.axhline(0.0, color="0.6", linewidth=0.6)
    ax.set_title(name, fontsize=9)
    if t.shape[1] > 1 and not model.categorical[j]:
        ax.legend(fontsize=6)


def save_model_figure(est, path, **kw) -> Path:
    """:func:`plot_model` written to ``path`` (.png or .svg); returns the path."""
    import matplotlib.pyplot as plt

    p = Path(path)
    if p.suffix not in (".png", ".svg"):
        raise ValueError(f"figure format must be .png or .svg, got {p.suffix!r}")
    fig = plot_model(est, **kw)
    try:
        fig.savefig(p, dpi=110)
    finally:
        plt.close(fig)
    return p
