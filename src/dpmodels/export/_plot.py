"""Matplotlib pictures of a model (like scikit-learn's ``plot_tree``, written for dpmodels).

* A **tree**: one box per node (gid ``node-<id>``, the id ``apply`` returns), drawn sideways: the
  root at the left, one column per depth, leaves stacked top to bottom (``True`` branches above), so
  a depth-6 tree fits about 2,000 pixels across; an internal box shows the test sending a record left (``True``, the left
  edge) and its summed (noisy) class counts; a leaf box shows its class, ``P`` =
  ``predict_proba``, its counts (``no records (noise)`` when the noisy counts are all ≤ 0) and its
  id. Boxes are coloured by majority class, faded by how sure the node is.
* A **rule list**: one row per rule (the default last, gid ``rule-<position>``), its condition
  on the left and a horizontal bar of its (noisy, clipped) class counts, one colour per class,
  with ``P`` and the position at the end of the bar.

The title is the privacy header (learner, ε, δ and the ledger's verdict, n, classes), so a picture
cut out of a report still says whether the model is private. matplotlib is imported lazily: it is
in the ``plots`` extra (``pip install 'dpmodels[plots]'``).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from .._format import RULE_LIST_READING
from .._optional import require
from ..catalog import KINDS, model_kind
from ._common import blend, class_colours, node_colouring, resolve, rule_rows, tree_node_texts

__all__ = ["plot_model", "save_model_figure", "FIGURE_FORMATS"]

FIGURE_FORMATS = (".png", ".svg")
_MAX_INCHES = 200.0  # a very deep tree's figure stops growing here (its boxes then overlap)
_MAX_PIXELS = 30_000  # save_model_figure lowers the dpi of wider figures (PNG limits)


def _matplotlib():
    require("matplotlib", "drawing a model", "or use dpmodels.export.export_graphviz, which needs nothing")


def _tree_layout(tree):
    """(row, depth) per node, root at the left: leaves on rows 0, 1, 2, … from the top in
    left-to-right order (``True`` branches above), a parent at the middle of its children's rows.
    A subtree holds consecutive rows, so two boxes of one column are at least a row apart."""
    row = np.zeros(tree.n_nodes)
    nxt = 0

    def place(i):
        nonlocal nxt
        if tree.children_left[i] == -1:
            row[i] = nxt
            nxt += 1
            return
        place(tree.children_left[i])
        place(tree.children_right[i])
        row[i] = 0.5 * (row[tree.children_left[i]] + row[tree.children_right[i]])

    import sys

    sys.setrecursionlimit(max(sys.getrecursionlimit(), 4 * tree.n_nodes + 100))
    place(0)
    return row, tree.node_depth.astype(int)


# A tree is drawn sideways, in inches as data units: one column per depth, as wide as its longest
# label line; one row per leaf, as tall as the tallest label. Tests wrap at _WRAP characters, so a
# depth-6 tree stays within about 2,000 pixels at the default 150 dpi (tests/export/test_plot.py).
_CHAR_IN = 0.062  # the width of a character at 8 pt, in inches (DejaVu Sans, with margin)
_LINE_IN = 0.16  # the height of a line at 8 pt, in inches
_WRAP = 24


def _tree_labels(tree, tests, bodies) -> list[str]:
    import textwrap

    out = []
    for i in range(tree.n_nodes):
        if tests[i] is None:  # a leaf: class · P on the first line, then counts and id
            parts = bodies[i].split("  ")
            out.append("\n".join([" · ".join(parts[:2]), *parts[2:]]))
        else:
            out.append(textwrap.fill(tests[i], _WRAP, subsequent_indent="  ") + f"\n{bodies[i]}")
    return out


def _tree_geometry(tree, labels, fontsize=8.0):
    """Column centres (inches) per depth, the row pitch (inches) and the total size of the drawing."""
    scale = fontsize / 8.0
    depth = tree.node_depth.astype(int)
    widths = np.zeros(int(depth.max()) + 1)
    lines = 1
    for i, lab in enumerate(labels):
        rows = lab.split("\n")
        widths[depth[i]] = max(widths[depth[i]], max(len(r) for r in rows) * _CHAR_IN * scale + 0.15)
        lines = max(lines, len(rows))
    gap = 0.2 * scale
    left = np.concatenate([[0.0], np.cumsum(widths + gap)[:-1]])
    centres = left + widths / 2
    pitch = lines * _LINE_IN * scale + 0.3 * scale
    return centres, pitch, float(left[-1] + widths[-1]), float(pitch * tree.n_leaves)


def _figure_size(shown):
    if shown.kind in ("tree", "regression_tree"):
        t = shown.model
        tests, bodies = tree_node_texts(t, **shown.print_kw)
        _, _, width, height = _tree_geometry(t, _tree_labels(t, tests, bodies))
        return min(max(6.0, width + 0.4), _MAX_INCHES), min(max(3.5, height + 1.6), _MAX_INCHES)
    rows = len(shown.model) if hasattr(shown.model, "__len__") else 2
    width = max(len(r.antecedent) for r in shown.model._all_rules()) if shown.model.rules else 10
    return max(9.0, 0.085 * width + 6.0), max(2.8, 0.55 * rows + 1.8)


def plot_model(model, ax=None, *, fontsize: float = 8.0, prune: bool = False, merge: bool = False):
    """Draw ``model`` (a fitted tree or rule-list estimator, a Pipeline ending in one, a
    ``LoadedModel``, a ``Tree`` or a ``RuleList``) on ``ax`` (a new figure when None); returns
    the axes. ``prune`` (trees) / ``merge`` (rule lists): draw the merged display of the text
    printing (merged boxes show the ids they hold and their ``predict_proba`` range)."""
    _matplotlib()
    shown = resolve(model)
    own = ax is None or ax.get_gid() == "dpmodels-own-figure"
    if ax is None:
        import matplotlib.pyplot as plt

        _, ax = plt.subplots(figsize=_figure_size(shown), layout="constrained")
    if shown.kind in ("tree", "regression_tree"):
        _draw_tree(shown, ax, fontsize, prune)
    else:
        _draw_rule_list(shown, ax, fontsize, merge)
    # the privacy header: over the whole figure when the figure is ours (the rule labels reach
    # left of the axes), else over the axes the caller gave
    # wrapped to the figure's width (≈ 11 characters of the 9.5-pt title per inch)
    title = _wrapped(shown.title, max(50, min(140, int(11 * ax.figure.get_size_inches()[0]))))
    if own:
        ax.figure.suptitle(title, x=0.01, ha="left", fontsize=fontsize + 1.5)
    else:
        ax.set_title(title, fontsize=fontsize + 1.5, loc="left")
    return ax


def _draw_tree(shown, ax, fontsize, prune):
    tree, origin, base = shown.model, None, None
    if prune and shown.kind == "tree":  # a regression tree has nothing to merge
        base = tree.leaf_proba()
        tree, origin = tree.prune_origin()
    tests, bodies = tree_node_texts(tree, origin=origin, base_proba=base, **shown.print_kw)
    labels = _tree_labels(tree, tests, bodies)
    row, depth = _tree_layout(tree)
    centres, pitch, width, height = _tree_geometry(tree, labels, fontsize)
    x, y = centres[depth], -row * pitch
    colours, cls, strength = node_colouring(tree)
    ax.set_axis_off()
    ax.set_xlim(-0.1, width + 0.1)
    ax.set_ylim(-height + 0.5 * pitch, 0.5 * pitch)
    for i in range(tree.n_nodes):  # edges first, under the boxes: elbows from a box's right side
        for child, word in ((tree.children_left[i], "True"), (tree.children_right[i], "False")):
            if child == -1:
                continue
            mid = 0.5 * (x[i] + x[child])
            ax.plot([x[i], mid, mid, x[child]], [y[i], y[i], y[child], y[child]], color="0.45", lw=0.9, zorder=1)
            if i == 0:
                ax.text(
                    mid,
                    0.5 * (y[i] + y[child]),
                    word,
                    ha="center",
                    va="center",
                    fontsize=fontsize,
                    color="0.25",
                    zorder=2,
                    bbox=dict(boxstyle="round,pad=0.15", fc="white", ec="none"),
                    gid=f"edge-{word}",
                )
    for i in range(tree.n_nodes):
        t = ax.text(
            x[i],
            y[i],
            labels[i],
            ha="center",
            va="center",
            fontsize=fontsize,
            zorder=3,
            bbox=dict(boxstyle="round,pad=0.35", fc=blend(colours[cls[i]], strength[i]), ec="0.3", lw=0.8),
        )
        t.set_gid(f"node-{i}")
    if shown.kind == "regression_tree":
        lo, hi = (float(v) for v in tree.label_bounds)
        _legend(ax, [f"value: darker = larger, within [{lo:g}, {hi:g}]"], colours, fontsize, word="", loc="upper left")
    else:
        _legend(ax, tree.classes, colours, fontsize, loc="upper left")  # the corner a sideways tree leaves empty


def _draw_rule_list(shown, ax, fontsize, merge):
    rl = shown.model
    rows = rule_rows(rl, merge=merge)
    names = [str(c) for c in rl.classes]
    colours = class_colours(len(names))
    y = np.arange(len(rows))
    scale = max([float(r[4].sum()) for r in rows] + [1.0])
    for k, (where, _cond, pred, p, counts, empty) in enumerate(rows):
        left = 0.0
        for j, c in enumerate(counts):
            bar = ax.barh(y[k], c, left=left, color=colours[j], height=0.6, edgecolor="white", lw=0.5)
            bar.patches[0].set_gid(f"rule-{k}-class-{j}")
            left += c
        end = f"THEN {names[pred]}  {p}  " + (
            "no records (noise)" if empty else f"n≈{round(left):,}" if rl.counts_are_noisy else f"n={round(left):,}"
        )
        ax.text(left + 0.01 * scale, y[k], f"{end}  ({where})", va="center", fontsize=fontsize, gid=f"rule-{k}")
    ax.set_yticks(y, [r[1] for r in rows], fontsize=fontsize)
    ax.invert_yaxis()
    ax.set_xlim(0, scale * 1.45)
    what = "(noisy) class counts" if rl.counts_are_noisy else "class counts"
    ax.set_xlabel(f"{what} of the records each rule captures\n{RULE_LIST_READING.lstrip('# ')}", fontsize=fontsize)
    ax.tick_params(axis="x", labelsize=fontsize)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    _legend(ax, rl.classes, colours, fontsize)


def _wrapped(text: str, width: int) -> str:
    """Each line of ``text`` wrapped at ``width`` characters (continuations indented)."""
    import textwrap

    return "\n".join(textwrap.fill(ln, width, subsequent_indent="    ") for ln in text.splitlines())


def _legend(ax, classes, colours, fontsize, word="class ", loc="lower right"):
    from matplotlib.patches import Patch

    handles = [Patch(facecolor=c, edgecolor="0.3", label=f"{word}{k}") for k, c in zip(classes, colours)]
    ax.legend(handles=handles, loc=loc, fontsize=fontsize, frameon=False)


def save_model_figure(model, path, *, dpi: int = 150, **kw) -> Path:
    """Draw ``model`` (:func:`plot_model`) into ``path``; the format follows the suffix
    (``.png`` or ``.svg``; anything else is refused with a one-line ``ValueError`` before drawing).
    Uses no pyplot state (a private Agg canvas), so it is safe in scripts and servers."""
    p = Path(path)
    if p.suffix.lower() not in FIGURE_FORMATS:
        raise ValueError(f"cannot write a figure as {p.suffix or 'a file without suffix'!r}: use .png or .svg")
    kind = model_kind(model)
    own = None if kind is None else KINDS[kind].picture_function
    if own is not None:  # a kind its own package draws (dpmodels.catalog.KINDS)
        return own(model, p)
    _matplotlib()
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    shown = resolve(model)
    size = _figure_size(shown)
    dpi = min(dpi, int(_MAX_PIXELS / max(size)))
    fig = Figure(figsize=size, layout="constrained")
    FigureCanvasAgg(fig)
    ax = fig.add_subplot(gid="dpmodels-own-figure")
    plot_model(model, ax, **kw)
    fig.savefig(p, dpi=dpi, format=p.suffix.lower()[1:])
    return p
