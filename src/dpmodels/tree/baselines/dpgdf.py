"""DPGDF: the greedy private tree of Xin et al. (2019) for categorical features, rebuilt on this
project's mechanisms."""

from __future__ import annotations

import warnings

import numpy as np

from ..._params import Interval, Real, StrOptions
from ._greedy import GreedyPrivateTree

__all__ = ["DPGDFClassifier", "smooth_majority_sensitivity"]

VARIANTS = ("rigorous", "published")


def smooth_majority_sensitivity(counts, epsilon):
    """The published leaf sensitivity e^{−g·ε} of the majority indicator, g = the gap between the
    largest and the second largest class count (the count itself for one class): as the DPGDF
    reimplementation computes it. Not a valid DP bound (class docstring)."""
    c = np.sort(np.asarray(counts, dtype=np.int64))[::-1]
    gap = int(c[0] - c[1]) if c.size > 1 else int(c[0])
    return float(np.exp(-gap * float(epsilon)))


class DPGDFClassifier(GreedyPrivateTree):
    """Greedy private tree after Xin, Yang, Wang & Huang (ICASSP 2019), "DPGDF" in paper 002.

    Sources, and what each part of this implementation rests on:

    * **Published (paper 002, Table I and Sec. III, VI):** a greedy tree for *categorical features
      only*, splits chosen by the exponential mechanism, leaves labelled by the exponential
      mechanism with smooth sensitivity. Paper 002 runs it with the numerical features removed
      (``numerical="drop"``, our default; ``"error"`` refuses them).
    * **Inferred from the PrivaTree authors' reimplementation** (github.com/tudelft-cda-lab/
      PrivaTree, ``privatree/dpgdf.py``; facts only): ε split 50/50 between nodes and leaves,
      ε/(2·max_depth) per level of splits; splits "one value vs the rest", a (feature, value)
      test used higher on the path is not offered again; leaf utility 1 for the majority class.
    * **Changed to be differentially private:** the smooth-sensitivity leaf labelling, as the
      reimplementation reads it (exponential mechanism on the majority indicator with
      sensitivity e^{−gap·ε}), is *not* ε-DP: for a count gap g the probability of the minority
      label is ≈ exp(−ε·e^{gε}), and its ratio between neighbours (gap g vs g + 1) is
      exp(ε e^{gε}(e^ε − 1)), unbounded in g (at ε = 0.1, g = 50 the log-ratio is 1.56 > ε). We
      label leaves with the exponential mechanism on the class counts (global sensitivity 1,
      monotone), or permute-and-flip (``leaf_mechanism="permute-and-flip"``), one parallel row for
      all leaves. Splits use the exponential mechanism (``split_mechanism``) on the count-scaled
      Gini with Δ = 2 (docs/privacy.md, principle 2). The reimplementation's data-dependent stopping
      (pure node, fewer than 11 rows) is dropped: the tree grows to ``max_depth`` unless no
      candidate test is left (a public condition). Leaves release a label only (``value`` is NaN
      in the tree); ``predict_proba`` is the one-hot label.

    **As published** (``variant="published"``; not a proven DP release, for comparison with paper
    002's DPGDF column), the protocol of the PrivaTree authors' reimplementation (facts only): a
    node becomes a leaf at ``max_depth``, when pure or with fewer than ``min_samples_split`` (11)
    records, decided on the true counts (a leak row); splits by permute-and-flip on the weighted
    Gini impurity Σ_c (n_c/n)·gini(c) with sensitivity 0.5 (its range for two classes; a
    ``claimed`` row, the nodes it runs on follow the stopping rule); leaves by the exponential
    mechanism on the majority indicator with the smooth sensitivity
    :func:`smooth_majority_sensitivity` e^{−gap·ε_leaf}, monotone (``claimed``: not ε-DP, see
    above). Budgets as the rigorous variant. ``is_private`` is False.

    Accounting: ``max_depth`` sequential "split selection" rows at ε/(2·max_depth) (parallel
    across the nodes of a level) and one "leaf labels" row at ε/2 (parallel across leaves).
    With ``accountant=`` (a :class:`dpmodels.privacy.BudgetAccountant`), ``epsilon`` is the share
    requested from it and ``privacy_ledger_`` is the accountant's ledger.
    """

    _accepts_numerical = False
    _parameter_constraints: dict = {
        **GreedyPrivateTree._parameter_constraints,
        "numerical": [StrOptions({"drop", "error"})],
        "split_mechanism": [StrOptions({"exponential", "permute-and-flip"})],
        "leaf_mechanism": [StrOptions({"exponential", "permute-and-flip"})],
        "variant": [StrOptions(set(VARIANTS))],
        "min_samples_split": [Interval(Real, 0, None, closed="left")],
    }

    def __init__(
        self,
        epsilon=1.0,
        max_depth=4,
        categories=None,
        classes=None,
        numerical="drop",
        split_mechanism="exponential",
        leaf_mechanism="exponential",
        random_state=None,
        accountant=None,
        variant="rigorous",
        min_samples_split=11,
    ):
        self.epsilon = epsilon
        self.max_depth = max_depth
        self.categories = categories
        self.classes = classes
        self.numerical = numerical
        self.split_mechanism = split_mechanism
        self.leaf_mechanism = leaf_mechanism
        self.random_state = random_state
        self.accountant = accountant
        self.variant = variant
        self.min_samples_split = min_samples_split

    bounds = None  # numerical features are never used

    def _keep_features(self, names, categorical):
        if not categorical.all():
            num = [names[j] for j in np.flatnonzero(~categorical)]
            if self.numerical == "error":
                raise ValueError(f"DPGDF handles categorical features only; numerical: {num}")
            warnings.warn(f"DPGDF ignores the numerical features {num} (paper 002 protocol)", UserWarning, stacklevel=4)
        if not categorical.any():
            raise ValueError("DPGDF needs at least one categorical feature")
        return categorical.copy()

    def _numeric_edges(self, x, lo, hi, name, ledger):  # pragma: no cover - never called
        return np.zeros(0)

    def _select(self, u, eps, rng):
        from dpmodels.privacy import selection

        if self.variant == "published":  # normalised Gini, its two-class range 0.5
            return selection.permute_and_flip(u, eps, 0.5, rng)
        mech = {"exponential": selection.exponential_mechanism, "permute-and-flip": selection.permute_and_flip}
        return mech[self.split_mechanism](u, eps, 2.0, rng)

    def _node_utilities(self, rows, yk):
        utils = super()._node_utilities(rows, yk)
        if self.variant != "published":
            return utils
        n = max(len(rows), 1)  # the weighted Gini impurity (normalised by the true size)
        return [u / n for u in utils]

    def _plan_budget(self, eps, D):
        self._eps_sel = eps / (2 * D)
        self._eps_leaf = eps / 2

    def _grow_level(self, nodes, level, d, D, ledger, rng):
        if d == D:
            return []
        published = self.variant == "published"
        if published:
            if d == 0:
                ledger.record_leak(
                    "stopping rule (pure node, fewer than min_samples_split records) on the true counts",
                    "DPGDF as published decides leaves from the data outside any mechanism",
                )
            K = self._K
            level = [
                i
                for i in level
                if np.count_nonzero(np.bincount(self._yk[nodes[i]["rows"]], minlength=K)) > 1
                and len(nodes[i]["rows"]) >= int(self.min_samples_split)
            ]
            if not level:
                return []
        ledger.spend(
            f"split selection, depth {d}",
            "permute-and-flip" if published else self.split_mechanism,
            self._eps_sel,
            sensitivity=0.5 if published else 2.0,
            composition="parallel" if len(level) > 1 else "sequential",
            parts=len(level),
            note="weighted Gini, sensitivity 0.5 (published)" if published else "count-scaled Gini",
            guarantee="claimed" if published else "proven",
        )
        nxt = []
        for i in level:
            if self._split_node(nodes, i, rng, self._eps_sel, self._yk):
                nxt += [len(nodes) - 2, len(nodes) - 1]
        return nxt

    def _finish_leaves(self, nodes, ledger, rng):
        from dpmodels.privacy.selection import select_rows

        leaves = [i for i, nd in enumerate(nodes) if "split" not in nd]
        K = self._K
        counts = np.stack([np.bincount(self._yk[nodes[i]["rows"]], minlength=K) for i in leaves])
        if self.variant == "published":
            self._published_leaves(nodes, leaves, counts, ledger, rng)
            return
        ledger.spend(
            "leaf labels (all leaves)",
            self.leaf_mechanism,
            self._eps_leaf,
            sensitivity=1.0,
            composition="parallel" if len(leaves) > 1 else "sequential",
            parts=len(leaves),
            note="class counts, monotone",
        )
        labels = select_rows(counts, self._eps_leaf, 1.0, rng, monotone=True, mechanism=self.leaf_mechanism)
        for i, lab in zip(leaves, labels):
            nodes[i]["label"] = int(lab)
            nodes[i]["value"] = None

    def _published_leaves(self, nodes, leaves, counts, ledger, rng):
        """Leaf labels as published: exponential mechanism on the majority indicator, monotone,
        sensitivity e^{−gap·ε_leaf} (:func:`smooth_majority_sensitivity`)."""
        from dpmodels.privacy.selection import exponential_mechanism

        eps = self._eps_leaf
        ledger.spend(
            "leaf labels (all leaves)",
            "exponential",
            eps,
            composition="parallel" if len(leaves) > 1 else "sequential",
            parts=len(leaves),
            guarantee="claimed",
            note="majority indicator with the smooth sensitivity e^(-gap·ε) (published; not ε-DP)",
        )
        tiny = np.finfo(float).tiny  # e^(-gap·ε) underflows for large gaps: the majority then wins
        for i, c in zip(leaves, counts):
            u = (c == c.max()).astype(float)
            delta = max(smooth_majority_sensitivity(c, eps), tiny)
            nodes[i]["label"] = int(exponential_mechanism(u, eps, delta, rng, monotone=True))
            nodes[i]["value"] = None

    def predict_proba(self, X):
        leaf = self.apply(X)
        P = np.zeros((len(leaf), len(self.classes_)))
        P[np.arange(len(leaf)), self.tree_.label[leaf]] = 1.0
        return P
