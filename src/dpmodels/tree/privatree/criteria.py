"""Split criteria of PrivaTree: the utilities its selections maximise, with their sensitivities.

Both take the (node, feature, bin, class) counts ``H`` and, per node and feature, the ``order`` in
which the bins are placed left to right; candidate ``b`` sends the first ``b + 1`` bins of the
order left. Both are **monotone** under add/remove of one record (every candidate's score moves
in the same direction), so permute-and-flip and the exponential mechanism use the scale Δ/ε
(proofs in ``docs/privacy.md``, row 3a):

* ``"error"`` — u = −Σ_children (n_c − max_k n_ck), the training records the children's majority
  labels misclassify. Adding a record raises n_c by 1 and the maximum by 0 or 1: Δ = 1.
* ``"gini"`` — u = −Σ_children (n_c − Σ_k n_ck²/n_c), the count-scaled Gini impurity
  (docs/privacy.md, principle 2). Adding a record raises one child's term by a value in [0, 2): Δ = 2.
* ``"error-gini"`` (the default) — u = −Σ_children [(n_c − max_k n_ck) + λ·(n_c² − Σ_k n_ck²)/(2n_c)]:
  the error plus λ times half the count-scaled Gini; the two terms rise by [0, 1] and [0, 1) when a
  record is added: Δ = 1 + λ, monotone. λ is public (:func:`.budget.gini_weight`). Computed from
  the exact integer counts (the Gini numerator Σ_{k≠l} n_ck n_cl in integers, one division).
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "CRITERIA",
    "GINI_WEIGHT",
    "count_scaled_gini",
    "half_gini_exact",
    "error_gini",
    "misclassified",
    "gini_impurity",
    "prefix_counts",
    "one_vs_rest_scores",
]

# λ of "error-gini" when no weight is given: u = −(misclassified + λ·half count-scaled Gini), Δ = 1 + λ
# (the estimator passes the public λ of budget.gini_weight)
GINI_WEIGHT = 2.0


def count_scaled_gini(v: np.ndarray) -> np.ndarray:
    """n − Σ_k v_k²/n over the last axis (0 where n = 0): n times the Gini impurity."""
    n = v.sum(axis=-1)
    sq = (v * v).sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        out = n - np.where(n > 0, sq / np.where(n > 0, n, 1.0), 0.0)
    return out


def half_gini_exact(v: np.ndarray) -> np.ndarray:
    """(n² − Σ_k v_k²) / (2n) over the last axis of integer counts (0 where n = 0): half the
    count-scaled Gini, whose numerator is computed exactly in integers (int64 while every n is
    below 2^31, Python integers beyond) and divided once (one rounding, relative error ≤ 2^−53)."""
    v = np.asarray(v)
    if v.dtype.kind not in "iu":
        raise TypeError("half_gini_exact needs integer counts")
    n = v.sum(axis=-1)
    if n.size and int(n.max(initial=0)) >= 1 << 31:  # n² would overflow int64: exact Python integers
        v = v.astype(object)
        n = n.astype(object)
    num = n * n - (v * v).sum(axis=-1)  # = Σ_{k≠l} v_k v_l, exact
    den = 2 * n
    out = np.zeros(np.shape(n), dtype=float)
    pos = np.asarray(n > 0, dtype=bool)
    out[pos] = np.asarray(num[pos], dtype=float) / np.asarray(den[pos], dtype=float)
    return out


def error_gini(H, order, weight=None):
    """The default criterion: misclassified count + λ·(half count-scaled Gini) of both children
    (λ = ``weight``, the estimator's public :func:`.budget.gini_weight`; :data:`GINI_WEIGHT` if None). The error term separates splits that change the children's majority
    labels (what accuracy needs); the Gini term breaks its ties — on imbalanced labels most
    candidates misclassify the same records — by how much the split purifies the children (what
    ranking needs). Both terms rise by a value in [0, 1] (error) and [0, 1) (half Gini) when a
    record is added: monotone, Δ = 1 + λ (docs/privacy.md, row 3a). Integer counts: the error is an
    exact integer and the Gini part an exact integer ratio, one rounding."""
    lam = GINI_WEIGHT if weight is None else float(weight)
    H = np.asarray(H)
    if H.dtype.kind not in "iu":
        H = np.rint(H).astype(np.int64)
    if order is None and H.ndim == 4 and H.size and _compiled_scores(H):  # one loop, the same values
        from .memory_kernels import error_gini_scores

        out = np.empty(H.shape[:3])
        error_gini_scores(np.ascontiguousarray(H, dtype=np.int64), lam, out)
        return out
    L, R = prefix_counts(H, order)
    err = misclassified(H, order).astype(float)
    return err + lam * (half_gini_exact(L) + half_gini_exact(R))


def _compiled_scores(H) -> bool:
    """The compiled scores when the fit runs compiled kernels (:mod:`dpmodels._compiled`) and every
    node total is below 2^31 (the exact int64 numerators of :func:`half_gini_exact`)."""
    from ..._compiled import use_compiled

    return int(H[:, 0].sum(axis=(1, 2)).max()) < 1 << 31 and use_compiled()


def prefix_counts(H, order):
    """Left (first b + 1 bins of the order) and right class counts of every candidate b
    (``order`` None: every feature in its own bin order)."""
    Ho = H if order is None else np.take_along_axis(H, order[..., None], axis=2)
    L = np.cumsum(Ho, axis=2)
    if H.dtype.kind in "iu":  # exact integers: the node's total is the last prefix
        R = L[:, :, -1:] - L
    else:
        R = H.sum(axis=2, keepdims=True) - L
    return L, R


def misclassified(H, order):
    """Training records misclassified by majority children of every split: Σ_c (n_c − max_k n_ck)."""
    L, R = prefix_counts(H, order)
    if H.shape[-1] == 2 and H.dtype.kind in "iu":  # two classes, exact integers: n − max = min
        return np.minimum(L[..., 0], L[..., 1]) + np.minimum(R[..., 0], R[..., 1])
    return (L.sum(-1) - L.max(-1)) + (R.sum(-1) - R.max(-1))


def gini_impurity(H, order):
    """Count-scaled Gini of every (node, feature, prefix) split. H: (nodes, m, B, K)."""
    L, R = prefix_counts(H, order)
    return count_scaled_gini(L) + count_scaled_gini(R)


def one_vs_rest_scores(name, H, weight=None):
    """The criterion ``name`` of every one-vs-rest split (bin b alone left, every other bin right)
    of every (node, feature): the same two-children formula as the prefix splits, so the same
    monotonicity and Δ (module docstring)."""
    L = H
    R = H.sum(axis=2, keepdims=True) - H
    if name == "error":
        return (L.sum(-1) - L.max(-1)) + (R.sum(-1) - R.max(-1))
    if name == "error-gini":
        Li, Ri = np.rint(L).astype(np.int64), np.rint(R).astype(np.int64)
        err = (Li.sum(-1) - Li.max(-1)) + (Ri.sum(-1) - Ri.max(-1))
        lam = GINI_WEIGHT if weight is None else float(weight)
        return err + lam * (half_gini_exact(Li) + half_gini_exact(Ri))
    return count_scaled_gini(L) + count_scaled_gini(R)


# name -> (score to minimise, sensitivity Δ of −score, description for the ledger)
CRITERIA = {
    "error": (misclassified, 1.0, "−misclassified count"),
    "gini": (gini_impurity, 2.0, "−count-scaled Gini"),
    # Δ = 1 + λ: the estimator records the λ it uses (splitter.select_level)
    "error-gini": (error_gini, 1.0 + GINI_WEIGHT, "−(misclassified + λ·count-scaled Gini/2)"),
}
