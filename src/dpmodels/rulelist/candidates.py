"""Rule candidates and their counts: what every rule-list learner reads from the data.

A *candidate rule* is a conjunction of 1 to ``max_width`` literals (a binary column ``x_f`` or its
negation) over distinct columns (:class:`RuleCandidates`). The set depends only on the schema —
column names, their declared groups (:mod:`dpmodels.data.rules`) and ``max_width`` — never on the
rows or the labels, so it is a public input to every private learner (docs/privacy.md,
principle 6).

Counting. A learner needs, at every position of a rule list, the number of remaining records (and
of remaining positives) each candidate captures. For ``max_width <= 2`` all those counts come from
one p × p Gram matrix: with weights w (1 for a remaining record), s = Xᵀw, N = Σw and A = Xᵀ diag(w) X,

    #(x_i ∧ x_j) = A_ij,           #(x_i ∧ ¬x_j) = s_i − A_ij,
    #(¬x_i ∧ x_j) = s_j − A_ij,    #(¬x_i ∧ ¬x_j) = N − s_i − s_j + A_ij,

and a single literal is the pair of a literal with itself. One BLAS product per weight vector
replaces an n × |R| boolean matrix. Wider conjunctions fall back to chunked products over an
explicit support matrix.

Exactness: the products run in float64 whatever the input dtype, so with integer weights every
count is an exact integer up to 2^53 (float32 stops being exact at 2^24 records, which would break
the sensitivity proofs of the private learners — docs/privacy.md, principle 16).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from itertools import combinations

import numpy as np

from ..data.rules import _keep_mask, literal_name

__all__ = ["RuleCandidates", "moments"]


@dataclass(frozen=True)
class RuleCandidates:
    """All conjunctions of up to ``max_width`` literals over ``feature_names``.

    Attributes
    ----------
    features : int array (m, max_width)
        Column index of each literal of each candidate, padded by repeating the first literal.
    positive : bool array (m, max_width)
        Polarity of each literal (True: ``x_f``, False: ``not x_f``).
    width : int array (m,)
        Number of distinct literals of each candidate.
    """

    feature_names: tuple
    max_width: int
    features: np.ndarray
    positive: np.ndarray
    width: np.ndarray
    n_pruned: int = 0  # candidates dropped because of the declared groups

    # ------------------------------------------------------------------ build
    @classmethod
    def from_features(cls, feature_names, max_width: int = 2, groups=None) -> "RuleCandidates":
        """Every conjunction of ≤ ``max_width`` literals over distinct columns, minus — when
        ``groups`` (a list with one spec or None per column, :func:`check_feature_groups`) is
        given — the conjunctions that are empty or equal to one literal within a group."""
        names = tuple(str(f) for f in feature_names)
        p = len(names)
        if p == 0:
            raise ValueError("at least one binary feature is required")
        if int(max_width) != max_width or max_width < 1:
            raise ValueError(f"max_width must be a positive integer, got {max_width!r}")
        max_width = int(max_width)
        feats, pols, widths = [], [], []
        for w in range(1, min(max_width, p) + 1):
            if w <= 2:  # the same rows as combinations(range(p), w), in the same order
                cols = np.column_stack(np.triu_indices(p, 1) if w == 2 else [np.arange(p)]).astype(np.int64)
            else:
                cols = np.array(list(combinations(range(p), w)), dtype=np.int64).reshape(-1, w)
            # all 2^w polarity patterns (bit k set = literal k negated), one block per pattern
            patt = ((np.arange(2**w)[:, None] >> np.arange(w)[None, :]) & 1) == 0
            f = np.repeat(cols[:, None, :], len(patt), axis=1).reshape(-1, w)
            q = np.broadcast_to(patt[None, :, :], (len(cols), len(patt), w)).reshape(-1, w)
            pad = max_width - w  # pad by repeating the first literal
            feats.append(np.concatenate([f, np.repeat(f[:, :1], pad, axis=1)], axis=1))
            pols.append(np.concatenate([q, np.repeat(q[:, :1], pad, axis=1)], axis=1))
            widths.append(np.full(len(f), w, dtype=np.int64))
        F, P, W = np.concatenate(feats), np.concatenate(pols), np.concatenate(widths)
        n_pruned = 0
        if groups is not None:
            if len(groups) != p:
                raise ValueError(f"groups must have one entry per column ({p}), got {len(groups)}")
            keep = _keep_mask(F, P, groups)
            n_pruned = int((~keep).sum())
            F, P, W = F[keep], P[keep], W[keep]
            if F.shape[0] == 0:
                raise ValueError("the declared feature groups leave no candidate rule")
        return cls(names, max_width, F, P, W, n_pruned)

    @classmethod
    def from_columns(cls, feature_names) -> "RuleCandidates":
        """Each column is one candidate rule, as it is (no negation, no conjunction): for a
        pre-mined rule set whose rules were materialised as 0/1 columns
        (:mod:`dpmodels.data.paper_protocols`). Still a function of the schema only."""
        names = tuple(str(f) for f in feature_names)
        p = len(names)
        if p == 0:
            raise ValueError("at least one binary feature is required")
        F = np.arange(p, dtype=np.int64).reshape(-1, 1)
        return cls(names, 1, F, np.ones((p, 1), dtype=bool), np.ones(p, dtype=np.int64), 0)

    def __len__(self) -> int:
        return int(self.features.shape[0])

    @property
    def n_features(self) -> int:
        return len(self.feature_names)

    def literals(self, i: int) -> list[tuple[int, bool]]:
        """The (column, polarity) literals of candidate ``i``."""
        w = int(self.width[i])
        return [(int(self.features[i, k]), bool(self.positive[i, k])) for k in range(w)]

    def name(self, i: int) -> str:
        return " and ".join(literal_name(self.feature_names[f], pos) for f, pos in self.literals(i))

    @property
    def names(self) -> list[str]:
        return [self.name(i) for i in range(len(self))]

    # --------------------------------------------------------------- counting
    def counts(self, X: np.ndarray, weights: np.ndarray) -> np.ndarray:
        """Weighted number of rows each candidate captures: Σ_i w_i · [rule(x_i)].

        ``X`` is an (n, p) 0/1 array; ``weights`` has length n. Computed in float64 (exact).
        """
        X = np.asarray(X, dtype=np.float64)
        w = np.asarray(weights, dtype=np.float64)
        if self.max_width <= 2:
            s = X.T @ w
            A = X.T @ (X * w[:, None])
            total = w.sum(dtype=np.float64)
            return self._pair_counts(A, s, total)
        if self.max_width == 3:
            total, s, A, T = moments(X, w[:, None], self.pair_rows()[1])
            return self.counts_from_moments(total[0], s[:, 0], A[..., 0], T[..., 0])
        out = np.empty(len(self), dtype=np.float64)
        for lo in range(0, len(self), 2048):
            hi = min(len(self), lo + 2048)
            out[lo:hi] = w @ self._support(X, slice(lo, hi))
        return out

    def counts_many(self, X: np.ndarray, W: np.ndarray) -> np.ndarray:
        """Counts for several weight vectors at once: W is (n, k); returns (k, m). float64 (exact)."""
        X = np.asarray(X, dtype=np.float64)
        W = np.asarray(W, dtype=np.float64)
        if self.max_width <= 2:
            S = X.T @ W  # (p, k)
            totals = W.sum(axis=0, dtype=np.float64)
            out = np.empty((W.shape[1], len(self)))
            for j in range(W.shape[1]):
                A = X.T @ (X * W[:, j : j + 1])
                out[j] = self._pair_counts(A, S[:, j], totals[j])
            return out
        if self.max_width == 3:
            total, s, A, T = moments(X, W, self.pair_rows()[1])
            return np.stack(
                [self.counts_from_moments(total[j], s[:, j], A[..., j], T[..., j]) for j in range(W.shape[1])]
            )
        return np.stack([self.counts(X, W[:, j]) for j in range(W.shape[1])])

    def counts_from_gram(self, A, s, total) -> np.ndarray:
        """Counts of every candidate (``max_width <= 2``) from the weighted Gram matrix
        ``A = Xᵀ diag(w) X``, ``s = Xᵀ w`` and ``total = Σ w`` (module docstring)."""
        if self.max_width > 2:
            raise ValueError("counts_from_gram needs max_width <= 2")
        return self._pair_counts(A, s, total)

    @functools.cached_property
    def _pair_flat(self) -> np.ndarray:
        """``max_width == 2``: each candidate's position in the (4, p, p) table of
        :meth:`_pair_counts` — polarity pattern (+,+), (+,−), (−,+), (−,−), then its two columns
        (a width-1 candidate repeats its literal: the diagonal). Public: the candidates only."""
        p = self.n_features
        f1, f2 = self.features[:, 0], self.features[:, 1]
        code = 2 * (~self.positive[:, 0]) + (~self.positive[:, 1])
        return (code * p + f1) * p + f2

    def _pair_counts(self, A, s, total, idx=slice(None)):
        if self.max_width == 2 and A is not None and isinstance(idx, slice) and idx == slice(None):
            # every pattern's counts on the p × p grid (the four formulas of the module docstring),
            # then one gather: the same exact integers as the expression below
            p = len(s)
            T = np.empty((4, p, p))
            T[0] = A
            np.subtract(s[:, None], A, out=T[1])
            np.subtract(s[None, :], A, out=T[2])
            T[3] = total - s[:, None] - s[None, :] + A
            return T.ravel()[self._pair_flat]
        c = 1 if self.max_width >= 2 else 0  # the second literal (a width-1 candidate repeats the first)
        f1, f2 = self.features[idx, 0], self.features[idx, c]
        p1 = self.positive[idx, 0].astype(np.float64)
        p2 = self.positive[idx, c].astype(np.float64)
        si, sj = s[f1], s[f2]
        a = si if A is None else A[f1, f2]  # width 1: #(x_i ∧ x_i) = s_i, no Gram matrix needed
        return (
            p1 * p2 * a
            + p1 * (1 - p2) * (si - a)
            + (1 - p1) * p2 * (sj - a)
            + (1 - p1) * (1 - p2) * (total - si - sj + a)
        )

    def pair_rows(self):
        """The column pairs (i < j) that start a width-3 candidate: ``(index, pairs)`` with
        ``index[i, j]`` the row of pair (i, j) in ``pairs`` (an (n_pairs, 2) array), -1 if none.
        Depends on the candidate set only (public)."""
        p = self.n_features
        index = np.full((p, p), -1, dtype=np.int64)
        w3 = self.width == 3
        if not w3.any():
            return index, np.zeros((0, 2), dtype=np.int64)
        key = np.unique(self.features[w3, 0] * p + self.features[w3, 1])
        pairs = np.column_stack([key // p, key % p])
        index[pairs[:, 0], pairs[:, 1]] = np.arange(key.size)
        return index, pairs

    def counts_from_moments(self, total, s, A, T=None, pair_index=None) -> np.ndarray:
        """Counts of every candidate (``max_width <= 3``) from the moments of the weights w:
        ``total = Σ w``, ``s = Xᵀ w``, ``A = Xᵀ diag(w) X`` and ``T[r, k] = Σ w x_i x_j x_k`` for
        the pair (i, j) of row r of :meth:`pair_rows` (width 3 only).

        A literal is ``a + b·x`` (``x``: a = 0, b = 1; ``not x``: a = 1, b = −1), so a conjunction of
        three literals on columns i < j < k is the sum over the subsets S of its literals of
        ``Π_{∉S} a · Π_{∈S} b · #(∧_{S} x)``: eight moments with coefficients 0 or ±1. Every term is
        an exact integer in float64 below 2^53, so the count is exact.
        """
        if self.max_width > 3:
            raise ValueError("counts_from_moments needs max_width <= 3")
        if self.max_width <= 2:
            return self._pair_counts(A, s, total)
        out = np.empty(len(self))
        w3 = self.width == 3
        lo = np.flatnonzero(~w3)
        out[lo] = self._pair_counts(A, s, total, lo)
        hi = np.flatnonzero(w3)
        if hi.size:
            if pair_index is None:
                pair_index = self.pair_rows()[0]
            i, j, k = (self.features[hi, c] for c in range(3))
            pos = self.positive[hi].astype(np.float64)
            a, b = 1.0 - pos, 2.0 * pos - 1.0
            ai, aj, ak = a.T
            bi, bj, bk = b.T
            out[hi] = (
                ai * aj * ak * total
                + bi * aj * ak * s[i]
                + ai * bj * ak * s[j]
                + ai * aj * bk * s[k]
                + bi * bj * ak * A[i, j]
                + bi * aj * bk * A[i, k]
                + ai * bj * bk * A[j, k]
                + bi * bj * bk * T[pair_index[i, j], k]
            )
        return out

    def _support(self, X, idx) -> np.ndarray:
        feats = self.features[idx]
        pols = self.positive[idx]
        Xb = X.astype(bool, copy=False)
        out = np.ones((X.shape[0], feats.shape[0]), dtype=bool)
        for k in range(self.max_width):
            lit = Xb[:, feats[:, k]]
            out &= np.where(pols[:, k], lit, ~lit)
        return out.astype(np.float64)

    def support(self, X: np.ndarray, i: int) -> np.ndarray:
        """Boolean mask of the rows of X captured by candidate ``i`` (reads its columns only)."""
        X = np.asarray(X)
        mask = np.ones(X.shape[0], dtype=bool)
        for f, pos in self.literals(i):
            col = X[:, f] != 0
            mask &= col if pos else ~col
        return mask


def moments(X, W, pairs, rows=None):
    """``(total, s, A, T)`` of the weights ``W`` (n, k) over the 0/1 rows ``X`` (n, p) (or the
    subset ``rows``): ``total[j] = Σ W[:, j]``, ``s`` (p, k), ``A`` (p, p, k) and ``T`` (n_pairs, p,
    k) with ``T[r, c, j] = Σ W[:, j] x_a x_b x_c`` for ``(a, b) = pairs[r]``
    (:meth:`RuleCandidates.counts_from_moments`). float64 products of 0/1 values and integer
    weights: exact. The pair products are formed in blocks of rows (bounded memory)."""
    X = np.asarray(X, dtype=np.float64)
    W = np.asarray(W, dtype=np.float64)
    if rows is not None:
        X, W = X[rows], W[rows]
    n, p = X.shape
    k = W.shape[1]
    XW = (X[:, :, None] * W[:, None, :]).reshape(n, p * k)
    total = W.sum(axis=0)
    s = X.T @ W
    A = (X.T @ XW).reshape(p, p, k)
    T = np.zeros((len(pairs), p * k))
    if len(pairs):
        step = max(1, (1 << 22) // max(1, len(pairs)))  # rows per block of the (rows, pairs) products
        for a in range(0, n, step):
            Xa = X[a : a + step]
            T += (Xa[:, pairs[:, 0]] * Xa[:, pairs[:, 1]]).T @ XW[a : a + step]
    return total, s, A, T.reshape(len(pairs), p, k)
