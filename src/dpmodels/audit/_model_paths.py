"""Decision paths of a tree or a rule list, with the number of attribute assignments each captures.

One place turns every accepted model into :class:`ModelPaths` (paper 003, Section IV): a rule list
(:class:`dpmodels.rulelist.model.RuleList`, or an estimator with ``rule_list_``), a tree
(:class:`dpmodels.tree.Tree`, an estimator with ``tree_``) or a fitted scikit-learn decision tree.
For each path j it computes log2 Capt_j, the number of assignments of the d attributes, each
within its public domain V_k, that the path captures:

* tree leaf (Eq. 8/11): Capt_j = Π_k |V_k ∩ region_k(leaf)|, the region being independent per
  attribute (attributes no split on the path tests keep their whole domain);
* rule j of a rule list (Eq. 12): the assignments satisfying rule j and none of the earlier rules;
  the default rule captures what all rules leave (:mod:`._model_count`).

Domains are public inputs and are never read from the data: a rule list's columns are 0/1; a
tree's categorical feature has its declared category list (the tree's "unknown category" bucket
is not part of the domain: an unknown value is not a possible value); a numerical feature needs a
finite domain from the caller (``domains={name: values}``).
"""

from __future__ import annotations

import math
from bisect import bisect_right
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.utils.validation import check_is_fitted

from ..guards import check_model_count
from ._model_count import capture_counts, estimate_work

__all__ = ["ModelPaths", "model_paths"]


@dataclass(frozen=True, eq=False)
class ModelPaths:
    """What the reconstruction needs from a model; one entry per path (leaf or rule)."""

    kind: str  # "tree" or "rule_list"
    ids: np.ndarray  # path id as ``apply`` returns it: leaf node id, or rule index (default = len(rules))
    descriptions: list
    log2_capt: np.ndarray  # float; -inf where Capt_j = 0 (no assignment of the domains reaches j)
    log2_domain: float  # Σ_k log2 |V_k|: the log-number of possible records
    classes: list
    class_counts: np.ndarray | None  # (n_paths, n_classes) as released; NaN where nothing was
    support: np.ndarray | None  # (n_paths,) model's record count per path, when it stores one
    counts_are_noisy: bool
    route: Callable  # X -> path id of each row
    cell_ratio: np.ndarray | None  # trees: Σ_k log2|V_k ∩ R_jk| / log2|V_k| (Definition 2)
    n_cells: int  # number of attributes with |V_k| > 1 (Definition 2's d)
    # the path as rule text for reading: one condition per feature (a tree's repeated tests of one
    # feature joined into an interval, a category set intersected along the path), thresholds at
    # 4 significant digits; ``descriptions`` keeps every test with its exact threshold
    rules: list | None = None

    def rows_of(self, path_ids: np.ndarray) -> np.ndarray:
        """Position in this table of each path id."""
        lookup = np.full(int(self.ids.max()) + 1, -1, dtype=np.int64)
        lookup[self.ids] = np.arange(self.ids.size)
        return lookup[np.asarray(path_ids, dtype=np.int64)]


# ------------------------------------------------------------------------------- dispatch
def model_paths(model, domains=None) -> ModelPaths:
    """:class:`ModelPaths` of any accepted classifier (the only place that dispatches on its type;
    a regression tree's leaves: :func:`dpmodels.audit.regression.regression_tree_paths`)."""
    from ..io import LoadedModel
    from ..rulelist.model import RuleList
    from ..tree.model import Tree
    from ..tree.regression_model import RegressionTree

    if any(
        isinstance(m, RegressionTree) for m in (model, getattr(model, "tree_", None), getattr(model, "model_", None))
    ):  # its value columns are a count and a sum, not classes
        raise TypeError("a regression tree's paths: dpmodels.audit.regression.regression_tree_paths")
    if isinstance(model, LoadedModel):  # a saved file: raw frames routed through its preprocessing
        private = model.privacy_ledger_ is not None and model.privacy.get("private_learner") is not False
        inner = model.model_
        if isinstance(inner, RuleList):
            return _rule_list_paths(inner, domains, inner.counts_are_noisy or private, route=model.apply)
        return _tree_paths(_TreeArrays.of_tree(inner), domains, model.apply, noisy=inner.counts_are_noisy or private)
    if isinstance(model, RuleList):
        return _rule_list_paths(model, domains, model.counts_are_noisy)
    if isinstance(model, Tree):
        return _tree_paths(_TreeArrays.of_tree(model), domains, model.apply, noisy=False)
    private = hasattr(model, "privacy_ledger_")
    if isinstance(getattr(model, "rule_list_", None), RuleList):
        # routed by column name like a bare list: the estimator's own input checks cost ~5 ms
        rl = model.rule_list_
        return _rule_list_paths(rl, domains, rl.counts_are_noisy or private)
    if isinstance(getattr(model, "tree_", None), Tree):
        return _tree_paths(_TreeArrays.of_tree(model.tree_), domains, model.apply, noisy=private)
    if type(model).__module__.startswith("sklearn."):  # import scikit-learn's trees only when needed
        from sklearn.tree import DecisionTreeClassifier

        if isinstance(model, DecisionTreeClassifier):
            check_is_fitted(model)
            if model.n_outputs_ != 1:
                raise ValueError("multi-output scikit-learn trees are not supported: fit one tree per output")
            return _tree_paths(_TreeArrays.of_sklearn(model), domains, model.apply, noisy=False)
    if isinstance(model, BaseEstimator):
        check_is_fitted(model)  # NotFittedError for an unfitted learner, before the TypeError
    raise TypeError(
        "reconstruction_leak needs a RuleList, a dpmodels Tree, a fitted estimator with `rule_list_` "
        f"or a dpmodels `tree_`, or a fitted scikit-learn DecisionTreeClassifier; got {type(model).__name__}"
    )


# ------------------------------------------------------------------------------- rule lists
def _rule_list_paths(rl, domains, noisy, route=None) -> ModelPaths:
    names = [str(f) for f in rl.feature_names]
    _check_rule_list_domains(domains, names)
    col = {f: i for i, f in enumerate(names)}
    rules = []
    for j, rule in enumerate(rl.rules):
        try:
            rules.append([(col[str(f)], 1 if pos else 0) for f, pos in rule.literals])
        except KeyError as e:
            raise ValueError(f"rule {j} tests {e.args[0]!r}, which is not one of the rule list's features") from None
    visits, _ = estimate_work(rules, len(names))  # refuse before an exponential count
    check_model_count(visits, n_rules=len(rules), n_vars=len(names))
    capt = capture_counts(rules, len(names))
    all_rules = [*rl.rules, rl.default]
    return ModelPaths(
        kind="rule_list",
        ids=np.arange(len(all_rules)),
        descriptions=[r.antecedent for r in rl.rules] + ["default"],
        rules=[f"rule {j + 1}: IF {r.antecedent}" for j, r in enumerate(rl.rules)]
        + ["default rule: no earlier rule applies"],
        log2_capt=np.array([_log2(c) for c in capt]),
        log2_domain=float(len(names)),
        classes=list(rl.classes),
        class_counts=np.array([r.counts for r in all_rules], dtype=float).reshape(len(all_rules), -1),
        support=None,
        counts_are_noisy=bool(noisy),
        route=route if route is not None else (lambda X: rl.apply(_binary01(X, names))),
        cell_ratio=None,
        n_cells=len(names),
    )


def _check_rule_list_domains(domains, names) -> None:
    if domains is None or (isinstance(domains, str) and domains == "binary"):
        return
    if isinstance(domains, str):
        raise ValueError(f"domains must be None, 'binary' or a mapping feature -> values; got {domains!r}")
    if not isinstance(domains, Mapping):
        raise TypeError(f"domains must be None, 'binary' or a mapping feature -> values; got {type(domains).__name__}")
    _check_keys(domains, names)
    for f, values in domains.items():
        if set(_finite_values(f, values).tolist()) != {0.0, 1.0}:
            raise ValueError(f"rule lists are over 0/1 columns: the domain of {str(f)!r} is {{0, 1}}")


def _binary01(X, names) -> np.ndarray:
    """X (DataFrame with the rule list's columns, or array in their order) -> checked 0/1 matrix."""
    try:
        import pandas as pd
    except ImportError:  # pragma: no cover
        pd = None
    if pd is not None and isinstance(X, pd.DataFrame):
        cols = [str(c) for c in X.columns]
        if set(names) <= set(cols):
            X = X.iloc[:, [cols.index(f) for f in names]]
    A = np.asarray(X)
    if A.ndim != 2 or A.shape[1] != len(names):
        raise ValueError(f"X must be 2-d with the rule list's {len(names)} columns; got shape {A.shape}")
    if A.dtype != bool and np.any((A != 0) & (A != 1)):
        raise ValueError("rule lists need 0/1 features; X holds other values — binarize first")
    return A


# ------------------------------------------------------------------------------- trees
@dataclass
class _TreeArrays:
    """The parts of a tree the reconstruction reads (ours or scikit-learn's)."""

    children_left: np.ndarray
    children_right: np.ndarray
    feature: np.ndarray
    threshold: np.ndarray
    left_categories: list | None
    feature_names: list
    categorical: np.ndarray
    categories: dict
    classes: list
    class_counts: np.ndarray  # (n_nodes, n_classes)
    support: np.ndarray | None  # (n_nodes,) records per node, when the model stores them

    @classmethod
    def of_tree(cls, t, regression=False) -> "_TreeArrays":
        """A dpmodels tree's arrays; a regression tree (``regression=True``) has no classes and its
        count column is the released record count per node (the ``n`` column of ``value``)."""
        return cls(
            t.children_left,
            t.children_right,
            t.feature,
            t.threshold,
            t.left_categories,
            list(t.feature_names),
            t.categorical,
            t.categories,
            [] if regression else list(t.classes.tolist()),
            np.asarray(t.value, dtype=float)[:, :1] if regression else t.value,  # (n_nodes, 1) when regression
            None,
        )

    @classmethod
    def of_sklearn(cls, est) -> "_TreeArrays":
        t = est.tree_
        d = int(est.n_features_in_)
        names = [str(f) for f in getattr(est, "feature_names_in_", [f"x{i}" for i in range(d)])]
        n_node = t.n_node_samples.astype(np.int64)
        # scikit-learn >= 1.4 stores class fractions in `value`; × records = class counts (exact
        # without sample weights). The support used for Dist_G is the record count itself.
        frac = t.value[:, 0, :]
        counts = frac / frac.sum(axis=1, keepdims=True) * n_node[:, None]
        return cls(
            t.children_left,
            t.children_right,
            t.feature,
            t.threshold,
            None,
            names,
            np.zeros(d, dtype=bool),
            {},
            list(np.asarray(est.classes_).tolist()),
            counts,
            n_node,
        )


def _tree_paths(t: _TreeArrays, domains, route, noisy) -> ModelPaths:
    names = t.feature_names
    sizes, numeric = _tree_domains(t, domains)
    log2_sizes = [math.log2(s) for s in sizes]
    total = math.prod(sizes)
    n_cells = sum(s > 1 for s in sizes)
    left, right = np.asarray(t.children_left).tolist(), np.asarray(t.children_right).tolist()
    feat, thr = np.asarray(t.feature).tolist(), np.asarray(t.threshold, dtype=float).tolist()

    leaves: list[int] = []
    desc: list[str] = []
    rules: list[str] = []
    log2_capt: list[float] = []
    cell_ratio: list[float] = []
    # Depth-first. state: {feature: (lo, hi) positions in its sorted domain, or allowed codes};
    # capt = Π_k |V_k ∩ R_k| (exact int) and ratio = Σ_k log2|V_k ∩ R_k| / log2|V_k| over the
    # informative features, both updated for the one feature a split narrows.
    stack: list[tuple[int, dict, tuple, int, float, dict]] = [(0, {}, (), total, float(n_cells), {})]
    while stack:
        node, state, conds, capt, ratio, cuts = stack.pop()
        if left[node] == -1:
            leaves.append(node)
            desc.append(" and ".join(conds) if conds else "True")
            rules.append(_readable_path(t, state, numeric, sizes, node, cuts))
            log2_capt.append(_log2(capt))
            cell_ratio.append(ratio if capt else -math.inf)
            continue
        k = feat[node]
        if k in numeric:
            cut = bisect_right(numeric[k], thr[node])  # values <= threshold go left
            lo, hi = region = state.get(k, (0, sizes[k]))
            c_old = max(hi - lo, 0)
            go = ((lo, min(hi, cut)), (max(lo, cut), hi))
            counts = (max(min(hi, cut) - lo, 0), max(hi - max(lo, cut), 0))
            t_txt = repr(thr[node])
            text = (f"{names[k]} <= {t_txt}", f"{names[k]} > {t_txt}")
        else:
            region = state.get(k, frozenset(range(sizes[k])))
            c_old = len(region)
            assert t.left_categories is not None  # a tree with a categorical split lists its codes
            codes = frozenset(t.left_categories[node] or ())
            go = (region & codes, region - codes)
            counts = (len(go[0]), len(go[1]))
            cats = "{" + ", ".join(str(t.categories[k][c]) for c in sorted(codes)) + "}"
            text = (f"{names[k]} in {cats}", f"{names[k]} not in {cats}")
        if k in numeric:  # the thresholds that bound the path's interval: (lower, upper)
            t_lo, t_hi = cuts.get(k, (None, None))
            side = ({**cuts, k: (t_lo, thr[node])}, {**cuts, k: (thr[node], t_hi)})
        else:
            side = (cuts, cuts)
        for child, region_c, c_new, cond, cuts_c in (
            (right[node], go[1], counts[1], text[1], side[1]),
            (left[node], go[0], counts[0], text[0], side[0]),
        ):
            capt_c = capt // c_old * c_new if capt else 0  # exact: c_old is one factor of capt
            ratio_c = ratio
            if capt_c and sizes[k] > 1:
                ratio_c += (math.log2(c_new) - math.log2(c_old)) / log2_sizes[k]
            stack.append((child, {**state, k: region_c}, conds + (cond,), capt_c, ratio_c, cuts_c))

    ids = np.array(leaves, dtype=np.int64)
    order = np.argsort(ids, kind="stable")
    ids = ids[order]
    support = None if t.support is None else np.asarray(t.support, dtype=float)[ids]
    return ModelPaths(
        kind="tree",
        ids=ids,
        descriptions=[desc[i] for i in order],
        rules=[rules[i] for i in order],
        log2_capt=np.array(log2_capt)[order],
        log2_domain=float(math.fsum(log2_sizes)),
        classes=t.classes,
        class_counts=np.asarray(t.class_counts, dtype=float)[ids],
        support=support,
        counts_are_noisy=bool(noisy),
        route=route,
        cell_ratio=np.array(cell_ratio)[order],
        n_cells=n_cells,
    )


def _readable_path(t: _TreeArrays, state: dict, numeric: dict, sizes, leaf: int, cuts=None) -> str:
    """A leaf's path as rule text: ``leaf 15: IF lo < x <= hi AND c in {a, b}`` (one condition
    per tested feature, in feature order; a category set is what the path leaves of the domain).
    On an integer domain (consecutive integers: a feature declared integer-valued) the interval's
    ends are domain values — the last one below it and the largest it keeps (``29 < age <= 40``:
    ``<=`` and ``>``, as every printed model writes its tests); on any other (a continuous feature's grid, which records
    fall between) they are the tree's thresholds, ``cuts`` — either way every record routed to
    the leaf satisfies the text. Numbers at 4 significant digits."""
    from .._format import significant

    parts = []
    for k in sorted(state):
        name = t.feature_names[k]
        if k in numeric:
            lo, hi = state[k]
            dom = numeric[k]
            t_lo, t_hi = (cuts or {}).get(k, (None, None))
            steps = np.diff(np.asarray(dom, dtype=float))
            integer_domain = len(dom) < 2 or bool(np.all(steps == 1.0) and float(dom[0]).is_integer())
            if hi <= lo:
                parts.append(f"{name} in {{}} (no value of the domain)")
            elif not integer_domain and (t_lo is not None or t_hi is not None):
                if t_lo is None:
                    parts.append(f"{name} <= {significant(t_hi)}")
                elif t_hi is None:
                    parts.append(f"{name} > {significant(t_lo)}")
                else:
                    parts.append(f"{significant(t_lo)} < {name} <= {significant(t_hi)}")
            elif hi <= lo:
                parts.append(f"{name} in {{}} (no value of the domain)")
            elif hi - lo == 1:
                parts.append(f"{name} = {significant(dom[lo])}")
            elif lo == 0:
                parts.append(f"{name} <= {significant(dom[hi - 1])}")
            elif hi == sizes[k]:  # comparisons as every printed model writes them: <= and >
                parts.append(f"{name} > {significant(dom[lo - 1])}")
            else:
                parts.append(f"{significant(dom[lo - 1])} < {name} <= {significant(dom[hi - 1])}")
        else:
            cats = [str(t.categories[k][c]) for c in sorted(state[k])]
            parts.append(f"{name} in {{{', '.join(cats)}}}" if len(cats) != 1 else f"{name} = {cats[0]}")
    return f"leaf {leaf}: IF " + (" AND ".join(parts) if parts else "always")


def _tree_domains(t: _TreeArrays, domains):
    """|V_k| of every feature, and the sorted domain (a list of floats) of each numerical one."""
    names = t.feature_names
    if isinstance(domains, str):
        if domains != "binary":
            raise ValueError(f"domains must be None, 'binary' or a mapping feature -> values; got {domains!r}")
        given = {f: (0, 1) for i, f in enumerate(names) if not t.categorical[i]}
    elif domains is None:
        given = {}
    elif isinstance(domains, Mapping):
        _check_keys(domains, names)
        given = {str(f): v for f, v in domains.items()}
    else:
        raise TypeError(f"domains must be None, 'binary' or a mapping feature -> values; got {type(domains).__name__}")
    sizes, numeric = [], {}
    for k, f in enumerate(names):
        if t.categorical[k]:
            if f in given:
                raise ValueError(
                    f"{f!r} is categorical: its domain is its declared category list (Tree.categories), "
                    "not a domains= entry"
                )
            sizes.append(len(t.categories[int(k)]))
            continue
        if f not in given:
            raise ValueError(
                f"numerical feature {f!r} needs a finite public domain: pass domains={{{f!r}: values}} "
                "(e.g. range(18, 97) or a grid), or domains='binary' for 0/1 features"
            )
        values = np.unique(_finite_values(f, given[f])).tolist()
        numeric[k] = values
        sizes.append(len(values))
    if not any(s > 1 for s in sizes):
        raise ValueError("every feature's domain has one value: there is nothing to reconstruct")
    if any(s == 0 for s in sizes):
        raise ValueError(f"feature {names[sizes.index(0)]!r} has an empty domain")
    return sizes, numeric


# ------------------------------------------------------------------------------- helpers
def _check_keys(domains: Mapping, names) -> None:
    unknown = [str(f) for f in domains if str(f) not in set(names)]
    if unknown:
        raise ValueError(f"domains names unknown features {unknown[:5]}; the model's features are {names[:8]}…")


def _finite_values(name, values) -> np.ndarray:
    if isinstance(values, (str, bytes)) or not hasattr(values, "__iter__"):
        raise ValueError(f"the domain of {str(name)!r} must be a sequence of numbers, got {values!r}")
    try:
        arr = np.asarray(list(values), dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"the domain of {str(name)!r} must be a sequence of numbers") from None
    if arr.ndim != 1 or arr.size == 0 or not np.all(np.isfinite(arr)):
        raise ValueError(f"the domain of {str(name)!r} must be a non-empty sequence of finite numbers")
    return arr


def _log2(c: int) -> float:
    """log2 of an exact (possibly huge) non-negative integer; -inf for 0."""
    return math.log2(c) if c > 0 else -math.inf
