"""Graphviz DOT text of a model (like scikit-learn's ``export_graphviz``, written for dpmodels).

A tree: one node per tree node, named by its id (what ``apply`` returns), internal nodes showing
the test that sends a record left (the ``True`` edge, as in scikit-learn) and their summed
(noisy) counts, leaves the line of the text printing (class, ``P`` = ``predict_proba``, counts,
id). A rule list: one node per rule, the default last, joined by ``else`` edges. The graph's
label is the privacy header. Render with ``dot -Tpng model.dot -o model.png``.
"""

from __future__ import annotations

from .._format import RULE_LIST_READING
from ._common import blend, class_colours, hex_colour, node_colouring, resolve, rule_rows, tree_node_texts

__all__ = ["export_graphviz"]


def _q(s: str) -> str:
    """A DOT double-quoted string: backslashes and quotes escaped, newlines as centred breaks."""
    return '"' + str(s).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def export_graphviz(
    model, *, filled: bool = True, prune: bool = False, merge: bool = False, fontname: str = "helvetica"
) -> str:
    """DOT text of ``model`` (a fitted estimator, a Pipeline ending in one, a ``LoadedModel``, a
    ``Tree`` or a ``RuleList``).

    ``filled``: colour each node by its majority class (leaves: their label, faded by how sure
    ``predict_proba`` is). ``prune`` (trees) / ``merge`` (rule lists): draw the merged display of
    :meth:`Tree.to_text` / :meth:`RuleList.to_text` (same predictions; merged nodes show the ids
    they hold and the range of their ``predict_proba``).
    """
    shown = resolve(model)
    lines = [
        "digraph Model {",
        f'node [shape=box, style="{"filled, rounded" if filled else "rounded"}", fontname={_q(fontname)}] ;',
        f"edge [fontname={_q(fontname)}] ;",
        'labelloc="t" ;',
        f"fontname={_q(fontname)} ;",
        f"label={_q(shown.title + (chr(10) + RULE_LIST_READING.lstrip('# ') if shown.kind == 'rule_list' else ''))} ;",
    ]
    if shown.kind in ("tree", "regression_tree"):
        tree = shown.model
        origin = base = None
        if prune and shown.kind == "tree":  # a regression tree has nothing to merge
            base = tree.leaf_proba()
            tree, origin = tree.prune_origin()
        tests, bodies = tree_node_texts(tree, origin=origin, base_proba=base, **shown.print_kw)
        colours, cls, strength = node_colouring(tree)
        for i in range(tree.n_nodes):
            if tests[i] is None:  # a leaf: class · P, then its counts and its id, one per line
                parts = bodies[i].split("  ")
                label = "\n".join([" · ".join(parts[:2]), *parts[2:]])
            else:
                label = f"{tests[i]}\n{bodies[i]}"
            fill = f", fillcolor={_q(hex_colour(blend(colours[cls[i]], strength[i])))}" if filled else ""
            lines.append(f"{i} [label={_q(label)}{fill}] ;")
        for i in range(tree.n_nodes):
            if tree.children_left[i] == -1:
                continue
            for child, word, angle in ((tree.children_left[i], "True", 45), (tree.children_right[i], "False", -45)):
                if i == 0:  # the root's edges say which way is True, as in scikit-learn
                    lines.append(f'{i} -> {int(child)} [labeldistance=2.5, labelangle={angle}, headlabel="{word}"] ;')
                else:
                    lines.append(f"{i} -> {int(child)} ;")
    else:
        rl = shown.model
        rows = rule_rows(rl, merge=merge)
        colours = class_colours(len(rl.classes))
        names = [str(c) for c in rl.classes]
        from .._format import count_cell

        for k, (where, cond, pred, p, counts, empty) in enumerate(rows):
            cell = "no records (noise)" if empty else count_cell(counts, names, noisy=rl.counts_are_noisy)[0]
            label = f"{cond}\nTHEN {names[pred]}  {p}\n{cell}\n{where}"
            share = float(counts[pred] / counts.sum()) if counts.sum() > 0 else 0.5
            level = max(0.0, (share - 1 / len(names)) / (1 - 1 / len(names)))
            fill = f", fillcolor={_q(hex_colour(blend(colours[pred], level)))}" if filled else ""
            lines.append(f"{k} [label={_q(label)}{fill}] ;")
        for k in range(len(rows) - 1):
            lines.append(f'{k} -> {k + 1} [label="else"] ;')
    lines.append("}")
    return "\n".join(lines) + "\n"
