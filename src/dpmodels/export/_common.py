"""What every exporter needs from a model: the released structure, its header and node texts.

:func:`resolve` accepts what users hold — a fitted dpmodels estimator (tree or rule list), a
scikit-learn ``Pipeline`` ending in one (e.g. ``Binarizer`` + rule list), a
:class:`dpmodels.io.LoadedModel` read from a model file, or a bare :class:`~dpmodels.tree.Tree` /
:class:`~dpmodels.rulelist.RuleList` — and returns one :class:`Shown`: the model as released, the
header lines the text printing uses (learner, privacy status, n, classes) and the printing
options (integer-declared features). Everything here is post-processing of the released model: no
data is read.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .._format import count_cell, model_header, py_scalar, significant

__all__ = ["Shown", "resolve", "tree_node_texts", "regression_shades", "rule_rows", "class_colours", "blend"]


@dataclass
class Shown:
    kind: str  # "tree", "regression_tree" or "rule_list"
    model: Any  # Tree, RegressionTree or RuleList
    header: list
    print_kw: dict = field(default_factory=dict)

    @property
    def title(self) -> str:
        """The header down to the line with n and the classes: the learner and its privacy status."""
        end = next((k for k, ln in enumerate(self.header) if "classes:" in ln or "labels clipped" in ln), 2)
        return "\n".join(self.header[: end + 1])


def resolve(model) -> Shown:
    """The released model behind ``model`` (see the module docstring); a one-line error for
    anything else, or for an estimator that is not fitted."""
    from ..rulelist.model import RuleList
    from ..tree.model import Tree
    from ..tree.regression_model import RegressionTree

    if any(
        isinstance(m, RegressionTree) for m in (model, getattr(model, "model_", None), getattr(model, "tree_", None))
    ):
        return _resolve_regression(model)
    if isinstance(model, Tree):
        return Shown(
            "tree",
            model,
            model_header(
                "Decision tree", status=None, n_total=model.n_total, noisy=model.counts_are_noisy, classes=model.classes
            ),
        )
    if isinstance(model, RuleList):
        return Shown(
            "rule_list",
            model,
            model_header(
                "Rule list", status=None, n_total=model.n_total, noisy=model.counts_are_noisy, classes=model.classes
            ),
        )
    if type(model).__name__ == "LoadedModel" and hasattr(model, "model_") and hasattr(model, "header"):
        kw = model._print_kw() if hasattr(model, "_print_kw") else {}
        return Shown(model.kind, model.model_, model.header(), kw)
    notes, pre = [], []
    whole = model  # the pipeline, whose verdict the total line states
    steps = getattr(model, "steps", None)
    if isinstance(steps, list) and steps:  # a scikit-learn Pipeline: the last step is the model
        pre = [s for _, s in steps[:-1] if s not in (None, "passthrough")]
        if pre:
            cols = getattr(pre[0], "feature_names_in_", None)
            notes.append(
                "input: "
                + ", ".join(type(s).__name__ for s in pre)
                + ("" if cols is None else f" of the columns {', '.join(map(str, cols))}")
            )
        model = steps[-1][1]
    from .._format import estimator_header

    def with_steps(header):
        """The privacy line of a pipeline whose steps kept ledgers of their own (no shared
        accountant): each step's status and the total, so the title never shows a part."""
        own = getattr(model, "privacy_ledger_", None)
        merged = own.includes_releases if own is not None else set()  # steps whose releases `own` carries
        extra = [
            (type(s).__name__, s.privacy_ledger_)
            for s in pre
            if getattr(s, "privacy_ledger_", None) is not None
            and s.privacy_ledger_ is not own
            and (s.privacy_ledger_.release_id is None or s.privacy_ledger_.release_id not in merged)
            and (own is None or s.privacy_ledger_.to_dict() != own.to_dict())
        ]
        if not extra or len(header) < 2:
            return header
        from .._format import privacy_status

        parts = [f"{name}: {privacy_status(led, private_learner=True)}" for name, led in extra]
        ledgers = [led for _, led in extra] + ([own] if own is not None else [])
        eps = sum(led.epsilon_spent for led in ledgers)
        delta = sum(led.delta_spent for led in ledgers)
        from ..privacy.verdict import is_private

        ok = is_private(whole)  # every step's rows, seeds and ledger (dpmodels.privacy.verdict)
        total = f"pipeline total ε={eps:g}, δ={delta:g} (sequential composition)" + ("" if ok else " · NOT PRIVATE")
        return [header[0], header[1] + " + " + "; ".join(parts), total, *header[2:]]

    from ..rulelist._base import RuleListEstimator

    if isinstance(model, RuleListEstimator):
        if not hasattr(model, "rule_list_"):
            raise ValueError(f"{type(model).__name__} is not fitted yet: call fit before drawing it")
        header = with_steps(estimator_header(model, model.rule_list_, model._display_params))
        return Shown("rule_list", model.rule_list_, header + notes)
    if hasattr(model, "_integer_features"):  # TreeEstimatorMixin
        if not hasattr(model, "tree_"):
            raise ValueError(f"{type(model).__name__} is not fitted yet: call fit before drawing it")
        header = with_steps(estimator_header(model, model.tree_, model._display_params))
        return Shown("tree", model.tree_, header + notes, {"integer_features": model._integer_features()})
    raise TypeError(
        f"cannot draw a {type(model).__name__}: expected a dpmodels tree or rule-list estimator, a "
        "Pipeline ending in one, a LoadedModel (dpmodels.io.load_model) or a Tree / RuleList"
    )


def _resolve_regression(model) -> Shown:
    """A regression tree (bare, a ``LoadedModel`` of one, or a fitted ``PrivaTreeRegressor``)
    with the header its text printing shows (learner, privacy, n, the label bounds)."""
    from ..tree.regression_model import RegressionTree, regression_header

    if isinstance(model, RegressionTree):
        header = regression_header(
            "Regression tree",
            status=None,
            n_total=model.n_total,
            noisy=model.counts_are_noisy,
            label_bounds=model.label_bounds,
        )
        return Shown("regression_tree", model, header)
    if type(model).__name__ == "LoadedModel":
        return Shown("regression_tree", model.model_, model.header(), model._print_kw())
    if not isinstance(getattr(model, "tree_", None), RegressionTree):
        raise ValueError(f"{type(model).__name__} is not fitted yet: call fit before drawing it")
    lines = model.to_text().splitlines()
    header = lines[: next((k for k, ln in enumerate(lines) if ln.startswith("|")), len(lines))]
    kw = {"integer_features": model._integer_features()} if hasattr(model, "_integer_features") else {}
    return Shown("regression_tree", model.tree_, header, kw)


def regression_shades(tree) -> tuple[list, np.ndarray, np.ndarray]:
    """Colouring of a regression tree's nodes: one hue, its strength the node's predicted value
    placed within the label bounds (leaves: their value; internal nodes: the count-weighted mean
    of the released leaves below). Post-processing of released values."""
    lo, hi = (float(v) for v in tree.label_bounds)
    sums = _subtree_counts(tree)  # columns (n, sum) summed over the leaves below
    value = np.where(tree.is_leaf, np.asarray(tree.leaf_value, dtype=float), np.nan)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.where(sums[:, 0] > 0, sums[:, 1] / np.where(sums[:, 0] > 0, sums[:, 0], 1.0), (lo + hi) / 2)
    v = np.where(tree.is_leaf, value, np.nan_to_num(mean, nan=(lo + hi) / 2))
    strength = np.clip((v - lo) / (hi - lo), 0.0, 1.0) if hi > lo else np.full(tree.n_nodes, 0.5)
    return class_colours(1), np.zeros(tree.n_nodes, dtype=int), np.nan_to_num(strength, nan=0.5)


def _node_test(tree, i, state, integer, significant_digits, max_listed):
    """The test sending a record left at internal node ``i`` (threshold at ``significant_digits``,
    ⌊t⌋ for integer features, category sets intersected with what the path leaves), and the path
    states of its left and right children."""
    f = int(tree.feature[i])
    name = tree.feature_names[f]
    if tree.categorical[f]:
        left = tree.left_categories[i]
        ls = {**state, f: tree._path_state(state, f, left, True)}
        rs = {**state, f: tree._path_state(state, f, left, False)}
        return f"{name} " + tree._set_text(f, *ls[f], compact=True, max_listed=max_listed), ls, rs
    t = float(tree.threshold[i])
    txt = str(int(np.floor(t))) if f in integer else significant(t, significant_digits)
    return f"{name} <= {txt}", state, state


def tree_node_texts(tree, *, integer_features=(), significant_digits=4, max_listed=12, origin=None, base_proba=None):
    """Per node of ``tree``: ``(test, body)``.

    ``test`` (internal nodes; None for leaves): the condition that sends a record **left**, in the
    text printing's form (threshold at ``significant_digits``, ⌊t⌋ for integer-declared features,
    category sets intersected with what the path to the node leaves). ``body``: the leaf's line of
    :meth:`Tree.export_text` without the tree drawing and its column padding, the counts in one
    cell (``class: 1  P=63%  [n≈419: 0 156, 1 263]  leaf 15``) or,
    for an internal node, its (noisy) class counts summed over its leaves.
    """
    from ..tree.regression_model import RegressionTree

    if isinstance(tree, RegressionTree):
        return _regression_node_texts(tree, integer_features, significant_digits, max_listed)
    integer = tree._integer_index(integer_features)
    cls = [str(py_scalar(c)) for c in tree.classes]
    proba = tree.leaf_proba()
    sums = _subtree_counts(tree)
    tests: list[str | None] = [None] * tree.n_nodes
    bodies: list[str | None] = [None] * tree.n_nodes
    stack: list[tuple[int, dict]] = [(0, {})]
    while stack:
        i, state = stack.pop()
        if tree.children_left[i] == -1:
            bodies[i] = tree._leaf_text(
                i,
                cls,
                proba,
                show_counts=True,
                show_ids=True,
                members=None if origin is None else origin[i],
                base_proba=base_proba,
            )[0]
            continue
        tests[i], ls, rs = _node_test(tree, i, state, integer, significant_digits, max_listed)
        c = sums[i]
        bodies[i] = (
            count_cell(c, cls, noisy=tree.counts_are_noisy)[0] if not np.all(np.isnan(c)) else "(counts not released)"
        )
        stack.append((tree.children_right[i], rs))
        stack.append((tree.children_left[i], ls))
    return tests, bodies


def _regression_node_texts(tree, integer_features, significant_digits, max_listed):
    """:func:`tree_node_texts` of a regression tree: leaves ``value: 12.3  [n≈40]  leaf 4`` (the
    values of :meth:`RegressionTree.export_text`), internal nodes their released count summed below."""
    from .._format import count_text

    integer = tree._integer_index(integer_features)
    sums = _subtree_counts(tree)
    eq = "≈" if tree.counts_are_noisy else "="
    tests: list[str | None] = [None] * tree.n_nodes
    bodies: list[str | None] = [None] * tree.n_nodes
    stack: list[tuple[int, dict]] = [(0, {})]
    while stack:
        i, state = stack.pop()
        if tree.children_left[i] == -1:
            v = float(tree.leaf_value[i])
            bodies[i] = f"value: {significant(v, significant_digits)}  {tree._leaf_cell(i)}  leaf {int(i)}"
            continue
        tests[i], ls, rs = _node_test(tree, i, state, integer, significant_digits, max_listed)
        n = sums[i, 0]
        bodies[i] = f"[n{eq}{count_text(max(float(n), 0.0))}]" if np.isfinite(n) else "(count not released)"
        stack.append((tree.children_right[i], rs))
        stack.append((tree.children_left[i], ls))
    return tests, bodies


def _subtree_counts(tree) -> np.ndarray:
    """(n_nodes, K): each node's released leaf counts (clipped at 0) summed over its leaves; NaN
    where no leaf below released counts. Post-processing of the leaf release."""
    v = np.clip(tree.value, 0, None)
    out = np.where(tree.is_leaf[:, None], v, 0.0)
    released = tree.is_leaf & ~np.all(np.isnan(tree.value), axis=1)
    has = released.copy()
    for i in np.argsort(-tree.node_depth, kind="stable"):
        if tree.children_left[i] != -1:
            l, r = tree.children_left[i], tree.children_right[i]
            out[i] = np.nan_to_num(out[l]) + np.nan_to_num(out[r])
            has[i] = has[l] or has[r]
    out[~has] = np.nan
    return out


def node_colouring(tree) -> tuple[list, np.ndarray, np.ndarray]:
    """``(colours, colour index per node, strength per node)``: classes for a classification tree
    (:func:`majority`), the predicted value for a regression tree (:func:`regression_shades`)."""
    from ..tree.regression_model import RegressionTree

    if isinstance(tree, RegressionTree):
        return regression_shades(tree)
    cls, strength = majority(tree)
    return class_colours(tree.n_classes), cls, strength


def majority(tree) -> tuple[np.ndarray, np.ndarray]:
    """Per node: the class to colour it by and the strength (0 = even, 1 = one class). Leaves: their
    label and ``predict_proba`` of it (rescaled from [1/K, 1]); internal nodes: the argmax of their
    summed counts and its share."""
    K = tree.n_classes
    proba = tree.leaf_proba()
    sums = _subtree_counts(tree)
    cls = np.zeros(tree.n_nodes, dtype=int)
    strength = np.zeros(tree.n_nodes)
    for i in range(tree.n_nodes):
        if tree.children_left[i] == -1:
            k = int(tree.label[i])
            p = float(proba[i, k])
        else:
            c = np.nan_to_num(sums[i])
            k = int(np.argmax(c))
            p = float(c[k] / c.sum()) if c.sum() > 0 else 1.0 / K
        cls[i] = k
        strength[i] = max(0.0, (p - 1.0 / K) / (1.0 - 1.0 / K)) if K > 1 else 1.0
    return cls, strength


def rule_rows(rl, *, merge=False):
    """Rows of a rule list as drawn: ``(position text, condition, prediction index, P text,
    counts (clipped, NaN-free), empty-noise flag)``, the default last (:meth:`RuleList.to_text`)."""
    shown = rl.merge_default() if merge else rl
    proba = rl.proba_table()
    rows = []
    for k, r in enumerate(shown._all_rules()):
        held = [k] if k < len(shown.rules) else list(range(k, len(rl.rules) + 1))
        ps = sorted({round(100 * float(proba[j, r.prediction])) for j in held})
        p = f"P={ps[0]}%" if len(ps) == 1 else f"P={ps[0]}–{ps[-1]}%"
        c = np.clip(np.nan_to_num(np.asarray(r.counts, dtype=float)), 0, None)
        if k < len(shown.rules):
            cond = ("IF " if k == 0 else "ELSE IF ") + r.display(4)[0]
        else:
            cond = "ELSE" if shown.rules else "ALWAYS"
        where = f"rule {k}" if len(held) == 1 else f"rules {held[0]}–{held[-1]}"
        rows.append((where, cond, int(r.prediction), p, c, bool(rl.counts_are_noisy and c.sum() == 0)))
    return rows


def class_colours(k: int) -> list:
    """One RGB colour per class (matplotlib's tab10 hues, written out: no import needed)."""
    base = [
        (0.12, 0.47, 0.71),
        (1.0, 0.50, 0.05),
        (0.17, 0.63, 0.17),
        (0.84, 0.15, 0.16),
        (0.58, 0.40, 0.74),
        (0.55, 0.34, 0.29),
        (0.89, 0.47, 0.76),
        (0.50, 0.50, 0.50),
        (0.74, 0.74, 0.13),
        (0.09, 0.75, 0.81),
    ]
    return [base[i % len(base)] for i in range(k)]


def blend(rgb, strength: float) -> tuple:
    """``rgb`` faded toward white: strength 0 → white, 1 → the full colour (alpha 0.15–0.85)."""
    a = 0.15 + 0.7 * float(min(max(strength, 0.0), 1.0))
    return tuple(1.0 - a + a * c for c in rgb)


def hex_colour(rgb) -> str:
    return "#" + "".join(f"{round(255 * c):02x}" for c in rgb)
