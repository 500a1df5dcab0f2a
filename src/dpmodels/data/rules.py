"""Rule candidates: conjunctions of binary literals, counted as matrix products.

A *literal* is a binary column ``x_f`` or its negation ``not x_f``. A *candidate rule* is a
conjunction of 1 to ``max_width`` literals over distinct columns. The candidate set depends only on
the schema (column names and ``max_width``), never on the rows or the labels, so it is a public
input to every private learner (PRIVACY-NOTES 6): nothing is pruned by support.

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
the sensitivity proofs of the private learners — PRIVACY-NOTES 16).
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations

import numpy as np

__all__ = ["RuleCandidates", "literal_name"]


def literal_name(feature: str, positive: bool) -> str:
    return str(feature) if positive else f"not {feature}"


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

    # ------------------------------------------------------------------ build
    @classmethod
    def from_features(cls, feature_names, max_width: int = 2) -> "RuleCandidates":
        names = tuple(str(f) for f in feature_names)
        p = len(names)
        if p == 0:
            raise ValueError("at least one binary feature is required")
        if int(max_width) != max_width or max_width < 1:
            raise ValueError(f"max_width must be a positive integer, got {max_width!r}")
        max_width = int(max_width)
        feats, pols, widths = [], [], []
        for w in range(1, min(max_width, p) + 1):
            cols = np.array(list(combinations(range(p), w)), dtype=np.int64).reshape(-1, w)
            # all 2^w polarity patterns (bit k set = literal k negated), one block per pattern
            patt = ((np.arange(2**w)[:, None] >> np.arange(w)[None, :]) & 1) == 0
            f = np.repeat(cols[:, None, :], len(patt), axis=1).reshape(-1, w)
            q = np.broadcast_to(patt[None, :, :], (len(cols), len(patt), w)).reshape(-1, w)
            pad = max_width - w  # pad by repeating the first literal
            feats.append(np.concatenate([f, np.repeat(f[:, :1], pad, axis=1)], axis=1))
            pols.append(np.concatenate([q, np.repeat(q[:, :1], pad, axis=1)], axis=1))
            widths.append(np.full(len(f), w, dtype=np.int64))
        return cls(names, max_width, np.concatenate(feats), np.concatenate(pols), np.concatenate(widths))

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
        return np.stack([self.counts(X, W[:, j]) for j in range(W.shape[1])])

    def _pair_counts(self, A, s, total):
        f1, f2 = self.features[:, 0], self.features[:, -1]
        p1 = self.positive[:, 0].astype(np.float64)
        p2 = self.positive[:, -1].astype(np.float64)
        a = A[f1, f2]
        si, sj = s[f1], s[f2]
        return (
            p1 * p2 * a
            + p1 * (1 - p2) * (si - a)
            + (1 - p1) * p2 * (sj - a)
            + (1 - p1) * (1 - p2) * (total - si - sj + a)
        )

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
        """Boolean mask of the rows of X captured by candidate ``i``."""
        Xb = np.asarray(X).astype(bool, copy=False)
        mask = np.ones(Xb.shape[0], dtype=bool)
        for f, pos in self.literals(i):
            mask &= Xb[:, f] if pos else ~Xb[:, f]
        return mask
