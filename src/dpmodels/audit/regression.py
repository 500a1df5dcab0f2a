"""Dist_G and V of a regression tree (docs/reconstruction.md, "Regression trees").

A regression tree releases, per leaf, its region of the feature space, a (noisy) record count and
a value (a noisy mean of its records' labels, clipped to the declared label bounds).

**Dist_G** (paper 003, Definition 4) is the classifier's, over the d features: a record on leaf j
is any of the Capt_j = Π_k |V_k ∩ region_k(j)| assignments of the public feature domains, C_j is
the released leaf count (clipped at 0; the noisy total is n), and

    Dist_G = Σ_j C_j log2 Capt_j / (n Σ_k log2 |V_k|).

The label is not one of the d attributes, as for classifiers (paper 003's reconstructions carry
the label beside the attributes and measure the attributes). What a leaf's value says about its
records' labels is one number for all of them — their (noisy) mean — which constrains the labels
jointly, not one by one: under the paper's rows-independent reconstruction each record's label
keeps its whole declared range. The exception is an exact (non-DP) leaf holding one record, whose
value is that record's label; the membership attack on the loss is what measures that.

**V** (paper 000, Sec. V-E): the success rate of the best attacker in the balanced membership game
who sees what the released model says about a record. For a classifier that is its decision path
and its label; for a regression tree, its leaf r and its loss — the squared error (y − f(x))² —
read on a public grid: ``loss_bins`` equal-width bins of the absolute error |y − f(x)| over
[0, hi − lo], the declared label bounds (bins of the square root of the loss, which partition the
loss as bins at the squared edges would; labels outside the bounds fall in the last bin). With
P_1 and P_0 the members' and non-members' distributions of (r, b),

    V = ½ + ½ TV(P_1, P_0) = ½ + ¼ Σ_(r, b) |P_1(r, b) − P_0(r, b)|,

the classifier's V with the label replaced by the loss bin and one joint distance (the loss bin
depends on the leaf, so there is no label to condition on first). A regressor without leaves (an
additive model) has one cell: V reads the loss bin alone. As for classifiers, empirical
TV is biased upwards; ``n_permutations`` gives the level of "no difference" and a p-value.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..privacy.samplers import check_random_state
from ._model_paths import ModelPaths, _tree_paths, _TreeArrays
from .vulnerability import VulnerabilityResult, decision_paths

__all__ = ["regression_tree_paths", "regression_vulnerability", "DEFAULT_LOSS_BINS"]

DEFAULT_LOSS_BINS = 10


def _regression_tree(model):
    """``(RegressionTree, route, noisy)`` of a regression model, or None for any other model."""
    from ..io import LoadedModel
    from ..tree.regression_model import RegressionTree

    if isinstance(model, RegressionTree):
        return model, model.apply, bool(model.counts_are_noisy)
    if isinstance(model, LoadedModel) and isinstance(model.model_, RegressionTree):
        private = model.privacy_ledger_ is not None and model.privacy.get("private_learner") is not False
        return model.model_, model.apply, bool(model.model_.counts_are_noisy or private)
    tree = getattr(model, "tree_", None)
    if isinstance(tree, RegressionTree):
        return tree, model.apply, bool(tree.counts_are_noisy or hasattr(model, "privacy_ledger_"))
    return None


def regression_tree_paths(model, domains) -> ModelPaths | None:
    """The leaves of a regression tree (a :class:`~dpmodels.tree.regression_model.RegressionTree`,
    a fitted ``PrivaTreeRegressor`` or a saved file) with their captures over the declared
    feature domains and their released counts (the ``n`` column; the ``sum`` column is not a
    count); None when ``model`` is not a regression tree."""
    found = _regression_tree(model)
    if found is None:
        return None
    t, route, noisy = found
    return _tree_paths(_TreeArrays.of_tree(t, regression=True), domains, route, noisy=noisy)


def _declared_label_bounds(model) -> tuple[float, float] | None:
    """The declared label bounds of a regressor without leaves (a fitted or loaded additive
    regressor), or None."""
    for obj in (model, getattr(model, "model_", None)):
        b = getattr(obj, "label_bounds", None)
        if b is not None and len(b) == 2:
            return float(b[0]), float(b[1])
    return None


def _loss_bins(model, found, X, y, loss_bins: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Leaf id, loss bin and the bin edges (of the absolute error) of every row; ``found``: the
    model's :func:`_regression_tree`, None for a regressor without leaves."""
    if found is not None:
        t, _, _ = found
        leaf = decision_paths(model, X)
        pred = np.asarray(t.leaf_value, dtype=float)[leaf]
        bounds = t.label_bounds
    else:  # a regressor without leaves (an additive model): one cell, the loss bins alone
        bounds = _declared_label_bounds(model)
        if bounds is None or not hasattr(model, "predict"):
            raise TypeError(
                f"regression_vulnerability needs a regression model with declared label bounds; got {type(model).__name__}"
            )
        pred = np.asarray(model.predict(X), dtype=float).ravel()
        leaf = np.zeros(pred.shape[0], dtype=np.int64)
    yv = np.asarray(y, dtype=float).ravel()
    if yv.shape[0] != leaf.shape[0]:
        raise ValueError(f"{leaf.shape[0]} rows but {yv.shape[0]} labels")
    if not np.isfinite(yv).all():
        raise ValueError("the labels of a regression model must be finite numbers")
    lo, hi = bounds
    edges = np.linspace(0.0, float(hi) - float(lo), int(loss_bins) + 1)
    err = np.abs(yv - pred)
    b = np.clip(np.searchsorted(edges, err, side="right") - 1, 0, int(loss_bins) - 1)
    return leaf, b.astype(np.int64), edges


def _v_joint(keys_in: np.ndarray, keys_out: np.ndarray) -> tuple[float, np.ndarray, np.ndarray, np.ndarray]:
    """V = ½ + ½ TV of the (leaf, bin) keys of members and non-members; the keys seen and the
    members' and non-members' counts of each."""
    keys, inv = np.unique(np.concatenate([keys_in, keys_out]), return_inverse=True)
    c_in = np.bincount(inv[: keys_in.size], minlength=keys.size)
    c_out = np.bincount(inv[keys_in.size :], minlength=keys.size)
    tv = 0.5 * float(np.abs(c_in / keys_in.size - c_out / keys_out.size).sum())
    return 0.5 + 0.5 * tv, keys, c_in, c_out


def regression_vulnerability(
    model, X_train, y_train, X_out, y_out, *, loss_bins: int = DEFAULT_LOSS_BINS, n_permutations=0, random_state=None
) -> VulnerabilityResult:
    """V of a regression tree on its loss (module docstring): members ``X_train, y_train``,
    non-members ``X_out, y_out``; ``loss_bins`` public bins of the absolute error over the label
    bounds' width. The result's ``tau`` holds the one total-variation distance (key ``"all"``,
    prior 1) and its ``paths`` table one row per (leaf, loss bin) seen."""
    from ..guards import progress
    from ._references import as_model

    if not (isinstance(loss_bins, (int, np.integer)) and not isinstance(loss_bins, bool) and loss_bins >= 1):
        raise ValueError(f"loss_bins must be an integer >= 1, got {loss_bins!r}")
    if int(n_permutations) != n_permutations or n_permutations < 0:
        raise ValueError(f"n_permutations must be a non-negative integer, got {n_permutations!r}")
    model = as_model(model)
    found = _regression_tree(model)
    leaf_in, b_in, edges = _loss_bins(model, found, X_train, y_train, int(loss_bins))
    leaf_out, b_out, _ = _loss_bins(model, found, X_out, y_out, int(loss_bins))
    if leaf_in.size == 0 or leaf_out.size == 0:
        raise ValueError("both the training and the out-of-training sets must be non-empty")
    B = int(loss_bins)
    k_in, k_out = leaf_in * B + b_in, leaf_out * B + b_out
    V, keys, c_in, c_out = _v_joint(k_in, k_out)
    rows = [
        dict(
            path=int(k // B),
            description=f"leaf {int(k // B)}" if found is not None else "all records",
            label=f"|error| in [{edges[k % B]:.4g}, {edges[k % B + 1]:.4g}" + ("]" if k % B == B - 1 else ")"),
            n_members=int(c_in[i]),
            n_nonmembers=int(c_out[i]),
            p_members=float(c_in[i] / k_in.size),
            p_nonmembers=float(c_out[i] / k_out.size),
        )
        for i, k in enumerate(keys.tolist())
    ]
    null = None
    if n_permutations:
        rng = check_random_state(random_state)
        k_all = np.concatenate([k_in, k_out])
        null = np.empty(int(n_permutations))
        for i in progress(range(int(n_permutations)), desc="audit: V permutations"):
            perm = rng.permutation(k_all.size)
            null[i] = _v_joint(k_all[perm[: k_in.size]], k_all[perm[k_in.size :]])[0]
    return VulnerabilityResult(
        V=V,
        tau={"all": 2.0 * V - 1.0},
        prior={"all": 1.0},
        paths=pd.DataFrame(rows),
        n_members=int(k_in.size),
        n_nonmembers=int(k_out.size),
        prior_kind="joint",
        null=null,
        observed=f"(leaf, loss bin) pairs ({B} bins of |y − f(x)| over the label bounds)",
    )
