"""Branch-and-bound for certifiably optimal width-1 rule lists (the engine of
:class:`dpmodels.rulelist.OptimalRuleListClassifier`).

Problem. Given binary records and labels, candidate literals (a column or its negation), a length
budget ``R`` (non-default rules), a minimum captured support Λ and a per-rule penalty ``pen`` (in
misclassified records), find the rule list d = (r_1, …, r_L, default), L ≤ R, minimising
``errors(d) + pen · L``, where every rule r_j captures at least Λ training records *in its
position* (records that r_1..r_{j-1} did not capture) and every consequent is the majority of
what its rule captures. This is CORELS's objective (Angelino et al., JMLR 2018, Eq. (2):
R(d) = ℓ(d) + λ·K) multiplied by n.

Decomposition. The set S of records a prefix leaves uncaptured determines everything that
follows, so the best completion with at most r more rules is a function f(S, r):

    f(S, 0) = min(P_S, N_S)                        (the default rule's errors)
    f(S, r) = min( f(S, 0),  min_ℓ [ min(P_ℓ, N_ℓ) + pen + f(S \\ ℓ, r − 1) ] )

over literals ℓ that capture ≥ Λ records of S (P, N: positives and negatives). The search memoises
f on the *set* S, stored as a bitset over the distinct feature patterns (rules cannot tell two
records with the same pattern apart). Prefixes that are permutations of each other leave the same
S, so the memo subsumes CORELS's permutation bound (JMLR Thm 15); it also merges prefixes that
are not permutations but capture the same records.

Bounds — each a valid lower bound on f, used to drop a child before expanding it:

* hierarchical bound (JMLR Thm 1): the errors a prefix has made are paid whatever follows;
* equivalent points bound (JMLR Thm 20): records with identical features share every rule, so the
  minority label of each such group is always misclassified: f(S, r) ≥ EQ(S);
* minimum support: a literal capturing fewer than Λ records of S is no child at all;
* accurate support (JMLR Thm 11): a rule classifying fewer than ``pen`` of its records correctly
  is never in an optimal list (dropping it saves pen and costs at most those records), so it is no
  child either — this is what keeps regularised searches short;
* lookahead (JMLR Lemma 2, with EQ): any list continuing from S pays EQ(S) and one more rule, so
  f(S, r) ≥ min(f(S, 0), EQ(S) + pen); child ℓ thus costs at least
  min(P_ℓ, N_ℓ) + pen + min(f(S \\ ℓ, 0), EQ(S \\ ℓ) + pen). Children are visited in increasing
  order of that bound, so the first one that cannot beat the incumbent ends the loop.

Vectorised last levels: f(S, 1) comes from the counts of every literal on S, and f(S, 2) from one
pair-count matrix — the records of b left after a are count(b) − count(a ∧ b) — so every (a, b)
pair is scored at once. Pair counts are either a float64 Gram product over the distinct patterns
of S or popcounts of AND-ed record bitsets, whichever is cheaper for the data (both exact).

Two searches share these bounds. With a penalty of at least one record (CORELS's regularised
objective, ``strategy="best"``) a best-first search expands prefixes in the order of their lower
bounds, as CORELS does (JMLR §5), keeps one prefix per uncaptured set (the permutation map), and
counts the children of a batch of nodes in one pass of popcounts over packed record bitsets; see
:meth:`RuleListSearch._best_first`. Below one record (accuracy only, the penalty just breaks
ties) the depth-first search below certifies faster: its memo stores exact f(S, r) values that a
best-first search, whose bounds barely move without a penalty, cannot use.

The depth-first search is a branch and bound with fail-soft cutoffs: ``_solve(S, r, U)`` returns
(lb, ub) with lb ≤ f(S, r) ≤ ub, ub achieved by a stored choice, and either lb == ub (exact) or
lb ≥ U (the caller needed no more). Memo entries keep both, so a later visit with a larger cutoff
resumes from the stored lower bound. When the time limit is reached the recursion unwinds with the
lower bounds it has (children never expanded contribute their lookahead bound), so the root's lb
certifies the incumbent: gap = ub − lb.
"""

from __future__ import annotations

import heapq
import math
import time
from dataclasses import dataclass

import numpy as np

__all__ = ["RuleListSearch", "SearchResult", "completion_bound", "support_threshold"]

_INF = math.inf
_HAS_POPCOUNT = hasattr(np, "bitwise_count")  # NumPy ≥ 2.0


def support_threshold(min_support: float, n: int) -> int:
    """Λ: the least integer m with m / n ≥ min_support in floating point (⌈λn⌉), at least 1.

    The floating-point test is the one pycorels uses (``(double) ones / nsamples < min_support``
    rejects), so the two searches agree at the boundary. A rule capturing no record never changes
    the errors, so Λ ≥ 1 even for λ = 0.
    """
    if n <= 0:
        return 1
    m = max(0, math.ceil(min_support * n))
    while m > 0 and (m - 1) / n >= min_support:
        m -= 1
    while m / n < min_support:
        m += 1
    return max(1, m)


def completion_bound(P, N, cp, cn, cpa, cna):
    """Lower bound on errors(b) + errors(default) after a node t = (parent, a), from parent counts.

    P, N: positives and negatives left at t; cp, cn: what literal b captures at the parent;
    cpa, cna: what a captured there. On S_t, b keeps x positives with cp − cpa ≤ x ≤ min(cp, P)
    (a took at most cpa of them) and z negatives alike; the errors min(x, z) + min(P − x, N − z)
    are concave in (x, z) (sums of minima of linear functions), so their least value over that
    box is at one of its four corners. Broadcasts over arrays.
    """
    lo_p, hi_p = np.maximum(cp - cpa, 0.0), np.minimum(cp, P)
    lo_n, hi_n = np.maximum(cn - cna, 0.0), np.minimum(cn, N)
    out = None
    for x in (lo_p, hi_p):
        for z in (lo_n, hi_n):
            v = np.minimum(x, z) + np.minimum(P - x, N - z)
            out = v if out is None else np.minimum(out, v)
    return out


@dataclass
class SearchResult:
    """The chosen literals (in order), their objective value, and what certifies it."""

    literals: list[int]
    value: float  # errors + pen · len(literals)
    lower_bound: float  # a proven lower bound on the optimum of the same objective
    nodes: int  # subproblems expanded (memo misses that did work)
    memo_entries: int
    seconds: float
    timed_out: bool
    backend: str


# ---------------------------------------------------------------------------- counting backends
class _PatternCounts:
    """Counts as float64 products over the distinct patterns (cost ∝ patterns in S).

    A state is a boolean mask over the m patterns.
    """

    name = "gram"

    def __init__(self, lit: np.ndarray, W: np.ndarray):
        self.lit = lit
        self.litT = np.ascontiguousarray(lit.T)  # (q, m): the patterns each literal captures
        self.litf = lit.astype(np.float64)
        self.litfT = np.ascontiguousarray(self.litf.T)
        self.W = W  # (m, 3): positives, negatives, equivalent-points minority
        # (m, 3, q): each literal's column weighted by the pattern's records, positives, EQ minority
        w3 = np.column_stack([W[:, 0] + W[:, 1], W[:, 0], W[:, 2]])
        self.LW3 = np.ascontiguousarray(np.stack([self.litf * w3[:, j : j + 1] for j in range(3)], axis=1))

    def root(self):
        return np.ones(self.lit.shape[0], dtype=bool)

    @staticmethod
    def mask(state):
        return state

    def counts(self, state):
        idx = np.flatnonzero(state)
        if 3 * len(idx) < len(state):  # a small S: gather its patterns first
            return self.litf[idx].T @ self.W[idx]
        return self.litfT @ (self.W * state[:, None])

    def child(self, state, cnt, a):
        """State S \\ a and the counts of every literal on it."""
        capt = state & self.lit[:, a]
        idx = np.flatnonzero(capt)
        return state & ~capt, cnt - self.litf[idx].T @ self.W[idx]

    def pairs(self, state, A, B):
        """(positives, negatives) of a ∧ b on S for a in A, b in B: two (|A|, |B|) arrays."""
        idx = np.flatnonzero(state)
        la = self.litf[np.ix_(idx, A)]
        lb = self.litf[np.ix_(idx, B)]
        w = self.W[idx]
        G = la.T @ np.hstack([lb * w[:, :1], lb * w[:, 1:2]])
        return G[:, : len(B)], G[:, len(B) :]

    # -- best-first kernels: a state is the bool mask of the patterns S holds
    def bf_states(self, prefixes):
        """(k, m): the states the prefixes leave (rebuilt from their literals: queued nodes store
        no state), one reduction for the batch."""
        lens = [len(p) for p in prefixes]
        out = np.ones((len(prefixes), self.lit.shape[0]), dtype=bool)
        rows = [i for i, n in enumerate(lens) if n]
        if rows:
            flat = [a for p in prefixes for a in p]
            starts = np.cumsum([0] + [lens[i] for i in rows[:-1]])
            out[rows] = ~np.logical_or.reduceat(self.litT[flat], starts, axis=0)
        return out

    @staticmethod
    def bf_keys(states):
        return np.packbits(states, axis=1)

    def bf_child_states(self, states, I, A):
        """The states S_i \\ a for the pairs (i, a)."""
        return states[I] & ~self.litT[A]

    def bf_counts(self, states, cols):
        """(k, 2, |cols|): records and positives of the literals ``cols`` on each of k states,
        one matrix product."""
        lw = self.LW3[:, :2, cols].reshape(self.LW3.shape[0], -1)
        return (states.astype(np.float64) @ lw).reshape(len(states), 2, -1)

    def bf_pair_counts(self, states, I, A):
        """Records and positives of literal A[t] on state I[t], for each t."""
        G = np.einsum("tm,mjt->tj", states[I].astype(np.float64), self.LW3[:, :2, A])
        return G[:, 0], G[:, 1]

    def bf_eq(self, states, I, A):
        """Equivalent-points minority of literal A[t] on state I[t], for each t."""
        return np.einsum("tm,tm->t", states[I].astype(np.float64), self.LW3[:, 2, A].T)


class _BitsetCounts:
    """Counts as popcounts of AND-ed record bitsets (cost ∝ n / 64 per literal pair).

    A state is (pattern mask, uint64 words of the records in S); the mask keys the memo.
    """

    name = "bitset"
    _PAIR_BYTES = 1 << 23  # chunk the (|A|, |B|, words) pair tensor to ~8 MB
    _BF_BYTES = 1 << 21  # chunk the best-first (nodes, literals, words) tensor to ~2 MB

    def __init__(self, lit: np.ndarray, inv: np.ndarray, y: np.ndarray, eq_records: np.ndarray):
        self.lit = lit
        self.litT = np.ascontiguousarray(lit.T)
        self.n = len(inv)
        self.L = self._pack(lit[inv].T)  # (q, words)
        self.Y = self._pack(y.astype(bool)[None, :])[0]
        self.E = self._pack(eq_records[None, :])[0]
        self.full = self._pack(np.ones((1, self.n), dtype=bool))[0]
        # per-word popcounts summed over the words: uint16 holds them while n < 2^16
        self._sum_dtype = np.uint16 if self.n < (1 << 16) else np.int64
        self.Z3 = np.ascontiguousarray(np.stack([self.L, self.L & self.Y, self.L & self.E]))  # (3, q, words)

    @staticmethod
    def _pack(rows: np.ndarray) -> np.ndarray:
        b = np.packbits(np.ascontiguousarray(rows, dtype=bool), axis=1, bitorder="little")
        pad = (-b.shape[1]) % 8
        if pad:
            b = np.pad(b, ((0, 0), (0, pad)))
        return np.ascontiguousarray(b).view(np.uint64)

    def root(self):
        return np.ones(self.lit.shape[0], dtype=bool), self.full.copy()

    @staticmethod
    def mask(state):
        return state[0]

    @staticmethod
    def _pc(x):
        return np.bitwise_count(x).sum(axis=-1, dtype=np.int64)

    def counts(self, state):
        T = self.L & state[1]
        tot = self._pc(T)
        pos = self._pc(T & self.Y)
        eq = self._pc(T & self.E)
        return np.column_stack([pos, tot - pos, eq]).astype(np.float64)

    def child(self, state, cnt, a):
        new = (state[0] & ~self.lit[:, a], state[1] & ~self.L[a])
        return new, self.counts(new)

    def pairs(self, state, A, B):
        TA = self.L[A] & state[1]
        TB = self.L[B] & state[1]
        gp = np.empty((len(A), len(B)))
        gn = np.empty((len(A), len(B)))
        step = max(1, self._PAIR_BYTES // max(1, TB.nbytes))
        for lo in range(0, len(A), step):
            pr = TA[lo : lo + step, None, :] & TB[None, :, :]
            tot = self._pc(pr)
            pr &= self.Y
            pos = self._pc(pr)
            gp[lo : lo + step] = pos
            gn[lo : lo + step] = tot - pos
        return gp, gn

    # -- best-first kernels: a state is the uint64 words of the records S holds
    def bf_states(self, prefixes):
        lens = [len(p) for p in prefixes]
        out = np.repeat(self.full[None, :], len(prefixes), axis=0)
        rows = [i for i, n in enumerate(lens) if n]
        if rows:
            flat = [a for p in prefixes for a in p]
            starts = np.cumsum([0] + [lens[i] for i in rows[:-1]])
            out[rows] &= ~np.bitwise_or.reduceat(self.L[flat], starts, axis=0)
        return out

    @staticmethod
    def bf_keys(states):
        return states.view(np.uint8)

    def bf_child_states(self, states, I, A):
        return states[I] & ~self.L[A]

    def bf_counts(self, states, cols):
        # Z's rows: the records of each literal, of its positives (of its EQ minority: bf_eq)
        Z = self.Z3[:2, cols].reshape(-1, self.Z3.shape[2])
        out = np.empty((len(states), Z.shape[0]))
        step = max(1, self._BF_BYTES // max(1, Z.nbytes))
        for lo in range(0, len(states), step):
            out[lo : lo + step] = np.bitwise_count(states[lo : lo + step, None, :] & Z[None, :, :]).sum(
                axis=-1, dtype=self._sum_dtype
            )
        return out.reshape(len(states), 2, -1)

    def bf_pair_counts(self, states, I, A):
        ct = np.empty(len(I))
        cp = np.empty(len(I))
        step = max(1, self._BF_BYTES // max(1, 16 * states.shape[1]))
        for lo in range(0, len(I), step):
            S = states[I[lo : lo + step]]
            a = A[lo : lo + step]
            ct[lo : lo + step] = self._pc(S & self.Z3[0, a])
            cp[lo : lo + step] = self._pc(S & self.Z3[1, a])
        return ct, cp

    def bf_eq(self, states, I, A):
        return self._pc(states[I] & self.Z3[2, A]).astype(np.float64)


# ---------------------------------------------------------------------------------- the search
class RuleListSearch:
    """Exact search over width-1 rule lists.

    Parameters
    ----------
    X : bool array (n, p') of candidate literals evaluated on each training record
        (the caller builds it: columns and negated columns, possibly filtered).
    y : 0/1 int array (n,)
    min_captured : int
        Λ, the least number of records a non-default rule must capture in its position.
    pen : float
        Cost of one non-default rule, in misclassified records.
    backend : {"auto", "gram", "bitset"}
        How pair counts are computed; ``"auto"`` picks the cheaper one for the data (both exact).
    """

    _BATCH = 32  # nodes expanded per vectorised pass of the best-first search

    def __init__(
        self,
        X: np.ndarray,
        y: np.ndarray,
        min_captured: int,
        pen: float,
        backend: str = "auto",
        strategy: str = "auto",
    ):
        X = np.asarray(X, dtype=bool)
        y = np.asarray(y).astype(np.int64)
        n, q = X.shape
        # distinct patterns: rules treat records with the same literal values alike
        packed = np.packbits(X, axis=1)
        _, first, inv = np.unique(packed, axis=0, return_index=True, return_inverse=True)
        inv = inv.ravel()
        self.lit = np.ascontiguousarray(X[first])
        m = len(first)
        pos = np.bincount(inv, weights=y, minlength=m)
        neg = np.bincount(inv, minlength=m) - pos
        W = np.column_stack([pos, neg, np.minimum(pos, neg)]).astype(np.float64)
        self.m, self.q, self.n = m, q, n
        if strategy not in ("auto", "depth", "best"):
            raise ValueError(f"strategy must be 'auto', 'depth' or 'best', got {strategy!r}")
        if strategy == "auto":
            # a penalty of at least one record makes the lower bounds bite (CORELS's setting);
            # below it, the depth-first search with its memo certifies accuracy-only lists faster
            strategy = "best" if float(pen) >= 1.0 else "depth"
        self.strategy = strategy
        if backend == "auto":
            # measured here: for the depth-first search a Gram column costs ~3 bitset words of
            # popcount per pattern; the best-first batches count faster with popcounts throughout
            backend = "bitset" if (_HAS_POPCOUNT and (strategy == "best" or n < 3 * m)) else "gram"
        self.counter: _BitsetCounts | _PatternCounts
        if backend == "bitset":
            if not _HAS_POPCOUNT:
                raise ValueError("the bitset backend needs NumPy >= 2.0 (np.bitwise_count)")
            # the minority records of each pattern: min(pos, neg) of its minority label
            minority_label = (pos < neg).astype(np.int64)  # label of the minority (ties: negatives)
            is_min = y == minority_label[inv]
            # rank of each record among the records of its pattern with the same label
            key = inv * 2 + y
            order = np.argsort(key, kind="stable")
            rank = np.empty(n, dtype=np.int64)
            sk = key[order]
            starts = np.r_[0, np.flatnonzero(np.diff(sk)) + 1]
            run = np.arange(n) - np.repeat(starts, np.diff(np.r_[starts, n]))
            rank[order] = run
            eq_records = is_min & (rank < W[inv, 2])
            self.counter = _BitsetCounts(self.lit, inv, y, eq_records)
        elif backend == "gram":
            self.counter = _PatternCounts(self.lit, W)
        else:
            raise ValueError(f"backend must be 'auto', 'gram' or 'bitset', got {backend!r}")
        self.W = W
        self.lam = int(min_captured)
        self.pen = float(pen)
        self.memo: dict[bytes, list] = {}
        self.nodes = 0
        self._deadline = _INF
        self.timed_out = False

    # ------------------------------------------------------------------ public
    def run(self, max_rules: int, time_limit: float | None = None) -> SearchResult:
        """Optimal list with at most ``max_rules`` non-default rules (or the best within the time)."""
        t0 = time.perf_counter()
        self._deadline = _INF if time_limit is None else t0 + float(time_limit)
        self.timed_out = False
        if self.strategy == "best":
            lits, value, lower = self._best_first(int(max_rules))
            return SearchResult(
                lits,
                value,
                lower,
                self.nodes,
                len(self.memo),
                time.perf_counter() - t0,
                self.timed_out,
                self.counter.name + "/best-first",
            )
        state = self.counter.root()
        cnt = self.counter.counts(state)
        tot = self.W.sum(axis=0)
        lb, ub = self._solve(state, cnt, tot, int(max_rules), _INF)
        lits = self._reconstruct(self.counter.mask(state), int(max_rules))
        return SearchResult(
            lits,
            ub,
            min(lb, ub),
            self.nodes,
            len(self.memo),
            time.perf_counter() - t0,
            self.timed_out,
            self.counter.name,
        )

    # ---------------------------------------------------------------- helpers
    @staticmethod
    def _key(mask: np.ndarray, r: int) -> bytes:
        return np.packbits(mask).tobytes() + r.to_bytes(2, "little")

    def _reconstruct(self, mask: np.ndarray, r: int) -> list[int]:
        out: list[int] = []
        while r > 0:
            entry = self.memo.get(self._key(mask, r))
            if entry is None or not entry[2]:  # no entry: the default rule was optimal there
                break
            choice = entry[2]
            if r <= 2:  # a vectorised level stores its whole tail: (a, b) or (a, -1)
                out.extend(c for c in choice if c >= 0)
                break
            out.append(choice[0])
            mask = mask & ~self.lit[:, choice[0]]
            r -= 1
        return out

    # ------------------------------------------------------- best-first search
    def _best_first(self, R: int) -> tuple[list[int], float, float]:
        """Best-first branch and bound over prefixes (CORELS's search, JMLR §5), in records.

        A queued prefix d carries g = its errors + pen·|d| (hierarchical bound, Thm 1) and the
        positives, negatives and equivalent-points minority of what it leaves uncaptured (S). Its
        priority is g + EQ(S) + pen, a lower bound on every list that extends d by at least one
        rule (one-step lookahead, Lemma 2, with the equivalent points bound, Thm 20); d's own
        list (d, then the default) was scored when d was generated. Nodes are expanded in the
        order of their priorities, as CORELS's ``lower_bound`` policy does, and the search ends
        when the least priority left is not below the incumbent: no queued list can then beat
        it, which is the certificate.

        Children ℓ of a node are *eligible* when they capture ≥ Λ records of S and classify at
        least ``pen`` of them correctly (accurate support, Thm 11, which implies CORELS's
        minimum support, Thm 10). Permutation bound (Cor. 16), keyed by the captured set: per
        uncaptured set S the queue keeps the prefix with the least g (under a binding length
        budget, also the shortest); a prefix dominated by one already kept is not queued, and a
        queued one superseded later is skipped when popped.

        Nodes are popped in batches of up to ``_BATCH`` (all below the incumbent) and their
        children counted in one vectorised pass over the packed records (popcounts) or the
        distinct patterns (a matrix product); a batch can only expand nodes that a strict
        best-first order would have expanded before improving the incumbent, so the certificate
        is unchanged and the extra work is bounded by one batch per incumbent improvement.
        """
        pen, counter = self.pen, self.counter
        P, N, E = (float(v) for v in self.W.sum(axis=0))
        best, best_prefix = min(P, N), ()
        if R <= 0 or best <= E + pen:
            return [], best, best
        q = self.q
        # entries: (bound, tie, g, prefix, P, N, EQ of S, literals eligible at the parent)
        heap: list[tuple] = [(E + pen, 0, 0.0, (), P, N, E, np.ones(q, dtype=bool))]
        seen: dict[bytes, list] = self.memo  # uncaptured set -> [least g, its length]
        tick = 1
        heappop = heapq.heappop
        batch = self._BATCH
        while heap and heap[0][0] < best:
            if time.perf_counter() > self._deadline:
                self.timed_out = True
                break
            # pop the next nodes in order of their bounds (all below the incumbent); their
            # children are counted together, one vectorised pass for the whole batch
            nodes: list[tuple] = []
            while heap and heap[0][0] < best and len(nodes) < batch:
                nodes.append(heappop(heap))
            nodes, st = self._bf_live(nodes, seen)
            if not nodes:
                continue
            self.nodes += len(nodes)
            g0 = np.array([e[2] for e in nodes])
            tot = np.array([e[4:7] for e in nodes])  # (k, 3): P, N, EQ of each node's S
            cp, cn, elig, cg, (v, i0, a0) = self._bf_children(st, g0, tot[:, 0], tot[:, 1], [e[7] for e in nodes])
            if v < best:
                best, best_prefix = v, nodes[i0][3] + (a0,)
            # one-step lookahead: extending child ℓ costs at least cg + EQ(S \\ ℓ) + pen. The EQ
            # minority ℓ captures is at most its errors (per pattern min(pos, neg) ≤ the rule's
            # min over the sums), so EQ(S \\ ℓ) ≥ max(EQ(S) − e1, 0): that bound screens the
            # children first, the exact EQ is counted only for those it lets by
            e1 = cg - (g0[:, None] + pen)
            deep = np.array([len(e[3]) + 1 < R for e in nodes])
            ok = elig & deep[:, None] & ((cg + pen + np.maximum(tot[:, 2:3] - e1, 0.0)) < best)
            I, A = np.nonzero(ok)
            if I.size:
                cE = tot[I, 2] - counter.bf_eq(st, I, A)
                kk = cg[I, A] + cE + pen
                sel = np.flatnonzero(kk < best)
                I, A, cE, kk = I[sel], A[sel], cE[sel], kk[sel]
            if I.size == 0:
                continue
            # a child within one pen of the incumbent (or at the length budget) has no child
            # that passes the lookahead (each pays one more pen, and e1 ≥ the EQ it captures):
            # it is closed here, in its parent's pass, rather than queued — only its one-rule
            # completions can still win. It is not entered in the map: a dominated duplicate
            # costs one more vectorised row, a dictionary probe per child costs more
            d1 = np.array([len(e[3]) + 1 for e in nodes])[I]
            term = (kk >= best - pen) | (d1 + 1 >= R)
            if term.any():
                It, At = I[term], A[term]
                self.nodes += len(It)
                v, k0, b0 = self._bf_terminal(
                    counter.bf_child_states(st, It, At),
                    cg[It, At],
                    tot[It, 0] - cp[It, At],
                    tot[It, 1] - cn[It, At],
                    cp[It],
                    cn[It],
                    cp[It, At],
                    cn[It, At],
                    elig[It],
                    best,
                )
                if v < best:
                    best, best_prefix = v, nodes[int(It[k0])][3] + (int(At[k0]), b0)
                keep = np.flatnonzero(~term & (kk < best))
                I, A, cE, kk, d1 = I[keep], A[keep], cE[keep], kk[keep], d1[keep]
                if I.size == 0:
                    continue
            ckeys = counter.bf_keys(counter.bf_child_states(st, I, A))
            cPl = (tot[I, 0] - cp[I, A]).tolist()
            cNl = (tot[I, 1] - cn[I, A]).tolist()
            children = zip(I.tolist(), cg[I, A].tolist(), kk.tolist(), cE.tolist(), A.tolist(), d1.tolist(), cPl, cNl)
            tick = _bf_queue(heap, tick, seen, ckeys, nodes, elig, children)
        # finished (the first bound left is not below the incumbent: no queued list can beat it),
        # or stopped by the clock: the least bound left is the certificate
        lower = min(best, heap[0][0]) if heap else best
        return list(best_prefix), best, lower

    def _bf_live(self, nodes: list[tuple], seen: dict[bytes, list]) -> tuple[list[tuple], np.ndarray]:
        """The popped nodes not superseded (permutation bound: a prefix with a lower g, or as low
        and shorter, leaves the same records) and their states."""
        st = self.counter.bf_states([e[3] for e in nodes])
        keys = self.counter.bf_keys(st)
        live = []
        for i, e in enumerate(nodes):
            g, depth = e[2], len(e[3])
            if depth:
                kept = seen.get(keys[i].tobytes())
                if kept is not None and kept[0] <= g and kept[1] <= depth and (kept[0] != g or kept[1] != depth):
                    continue  # superseded by a better prefix leaving the same records
            live.append(i)
        if len(live) < len(nodes):
            return [nodes[i] for i in live], st[live]
        return nodes, st

    def _bf_children(self, st, g, Ps, Ns, cand):
        """Count the candidate literals on k states at once and score every child list.

        ``cand``: per state, the literals eligible at its parent (a literal not eligible there is
        not eligible here: its counts only shrink); the counts of the union are computed, the
        others stay 0 (not eligible). Returns the records, errors, eligibility, cost g', and the
        positives / negatives left, each (k, q), and (value, state, literal) of the best child
        list (the child then the default), value ∞ when no child is eligible.
        """
        pen, q = self.pen, self.q
        cols = np.flatnonzero(np.logical_or.reduce(np.asarray(cand), axis=0))
        cnt = np.zeros((len(st), 2, q))
        if cols.size:
            cnt[:, :, cols] = self.counter.bf_counts(st, cols)
        ct, cp = cnt[:, 0], cnt[:, 1]
        cn = ct - cp
        e1 = np.minimum(cp, cn)
        elig = (ct >= self.lam) & ((ct - e1) >= pen)
        cg = (np.asarray(g, dtype=np.float64)[:, None] + pen) + e1
        cP = np.asarray(Ps, dtype=np.float64)[:, None] - cp
        cN = np.asarray(Ns, dtype=np.float64)[:, None] - cn
        cobj = np.where(elig, cg + np.minimum(cP, cN), _INF)
        i0, a0 = divmod(int(cobj.argmin()), q)
        return cp, cn, elig, cg, (float(cobj[i0, a0]), i0, a0)

    def _bf_terminal(self, st, g, Ps, Ns, cp_par, cn_par, cpa, cna, cand, best):
        """Best one-rule completion of k nodes t = (parent, a) that cannot have queued children.

        Only lists (t, b, default) can still win. Before counting b on S_t, its positives there
        are bracketed from the parent's counts: cp_b − cp_a ≤ cp_b(S_t) ≤ min(cp_b, P_t) (a took
        at most cp_a of them), negatives alike. errors(b) + errors(default) = min(x, z) +
        min(P_t − x, N_t − z) is concave in (x, z), so its least value over that box is at a
        corner: a lower bound on the list's objective. Only pairs whose bound beats the
        incumbent are counted. Returns (value, node, literal) of the best list, ∞ if none.
        """
        pen = self.pen
        P = np.asarray(Ps, dtype=np.float64)[:, None]
        N = np.asarray(Ns, dtype=np.float64)[:, None]
        lb = completion_bound(P, N, cp_par, cn_par, np.asarray(cpa)[:, None], np.asarray(cna)[:, None])
        gt = np.asarray(g, dtype=np.float64)
        T, B = np.nonzero(cand & ((gt[:, None] + pen + lb) < best))
        if T.size == 0:
            return _INF, 0, 0
        ct, cp = self.counter.bf_pair_counts(st, T, B)
        cn = ct - cp
        e1 = np.minimum(cp, cn)
        ok = (ct >= self.lam) & ((ct - e1) >= pen)
        obj = np.where(ok, gt[T] + pen + e1 + np.minimum(P[T, 0] - cp, N[T, 0] - cn), _INF)
        k = int(obj.argmin())
        return float(obj[k]), int(T[k]), int(B[k])

    # ------------------------------------------------------------------ search
    def _solve(self, state, cnt, tot, r, U):
        """(lb, ub) on f(S, r); exact (lb == ub) unless lb ≥ U or the time limit was reached."""
        P, N, E = float(tot[0]), float(tot[1]), float(tot[2])
        stop = min(P, N)
        if r == 0 or stop <= E + self.pen:  # any rule costs ≥ EQ + pen: the default is optimal
            return stop, stop
        mask = self.counter.mask(state)
        key = self._key(mask, r)
        entry = self.memo.get(key)
        lb0 = min(stop, E + self.pen)  # stop now, or pay EQ and at least one rule
        if entry is not None:
            if entry[0] >= entry[1] or entry[0] >= U:
                return entry[0], entry[1]
            lb0 = max(lb0, entry[0])
        if lb0 >= U:
            return lb0, stop
        if time.perf_counter() > self._deadline:
            self.timed_out = True
            return lb0, (entry[1] if entry is not None else stop)
        self.nodes += 1
        pen = self.pen
        cp, cn, ce = cnt[:, 0], cnt[:, 1], cnt[:, 2]
        e1 = np.minimum(cp, cn)
        # a rule that classifies fewer than pen of its records correctly is never in an optimal
        # list: dropping it saves pen and costs at most those records (JMLR Thm 11)
        elig = ((cp + cn) >= self.lam) & (np.maximum(cp, cn) >= pen)
        # lookahead: the child either stops (its default errors) or pays ≥ EQ + one more rule
        c_eq = E - ce
        c_stop = np.minimum(P - cp, N - cn)
        cb = np.where(elig, e1 + pen + np.minimum(c_stop, c_eq + pen), _INF)
        if r <= 2:
            lb, ub, choice = self._last_levels(state, cnt, P, N, r, U, cb, elig, e1, stop)
        else:
            lb, ub, choice = self._branch(state, cnt, P, N, E, r, U, cb, e1, stop)
        lb = max(lb, lb0)
        if entry is not None and entry[1] < ub:  # a previous visit found a better list
            ub, choice = entry[1], entry[2]
        lb = min(lb, ub)
        self.memo[key] = [lb, ub, choice]
        return lb, ub

    def _branch(self, state, cnt, P, N, E, r, U, cb, e1, stop):
        order = np.argsort(cb, kind="stable")
        best = stop
        choice: tuple[int, ...] = ()  # the chosen rule(s), none: stop here
        lbs = _INF  # min over children of a lower bound on their value
        for k, a in enumerate(order):
            thr = min(best, U)
            if cb[a] >= thr:  # sorted: no later child can do better either
                lbs = min(lbs, float(cb[a]))
                break
            a = int(a)
            cstate, ccnt = self.counter.child(state, cnt, a)
            ctot = (P - cnt[a, 0], N - cnt[a, 1], E - cnt[a, 2])
            off = float(e1[a]) + self.pen
            clb, cub = self._solve(cstate, ccnt, ctot, r - 1, thr - off)
            if cub + off < best:
                best, choice = cub + off, (a,)
            lbs = min(lbs, clb + off)
            if self.timed_out:  # children not entered keep their lookahead bound
                if k + 1 < len(order):
                    lbs = min(lbs, float(cb[order[k + 1 :]].min()))
                break
        return min(best, lbs), best, choice

    def _last_levels(self, state, cnt, P, N, r, U, cb, elig, e1, stop):
        """Exact f(S, 1), or f(S, 2) over the first rules whose lookahead bound beats the cutoff."""
        pen = self.pen
        cp, cn = cnt[:, 0], cnt[:, 1]
        one = np.where(elig, e1 + pen + np.minimum(P - cp, N - cn), _INF)
        a1 = int(np.argmin(one))
        best = stop
        choice: tuple[int, ...] = ()  # the chosen rule(s), none: stop here
        if one[a1] < best:
            best, choice = float(one[a1]), (a1, -1)
        if r == 1:
            return best, best, choice
        thr = min(best, U)
        A = np.flatnonzero(cb < thr)
        rest = cb[cb >= thr]
        lb_rest = float(rest.min()) if rest.size else _INF
        B = np.flatnonzero(elig)
        if A.size and B.size > 1:
            gp, gn = self.counter.pairs(state, A, B)
            cpb = cp[B][None, :] - gp  # records of b that a left
            cnb = cn[B][None, :] - gn
            P1 = (P - cp[A])[:, None]
            N1 = (N - cn[A])[:, None]
            two = e1[A][:, None] + 2 * pen + np.minimum(cpb, cnb) + np.minimum(P1 - cpb, N1 - cnb)
            two[(cpb + cnb) < self.lam] = _INF
            i, j = np.unravel_index(int(np.argmin(two)), two.shape)
            if two[i, j] < best:
                best, choice = float(two[i, j]), (int(A[i]), int(B[j]))
        return min(best, lb_rest), best, choice


def _bf_queue(heap: list[tuple], tick: int, seen: dict[bytes, list], ckeys, nodes, elig, children) -> int:
    """Queue the children ``(parent, g, bound, EQ, literal, length, P, N)`` of a best-first batch
    that no kept prefix leaving the same records (key ``ckeys[k]``) dominates; the next tie-break
    counter."""
    heappush = heapq.heappush
    for k, (i, ga, bound, eq, a, dk, cP, cN) in enumerate(children):
        key = ckeys[k].tobytes()
        kept = seen.get(key)
        if kept is not None:
            if kept[0] <= ga and kept[1] <= dk:
                continue  # a prefix at least as good leaves the same records
            if ga <= kept[0] and dk <= kept[1]:
                kept[0], kept[1] = ga, dk
        else:
            seen[key] = [ga, dk]
        heappush(heap, (bound, tick, ga, nodes[i][3] + (a,), cP, cN, eq, elig[i]))
        tick += 1
    return tick
