"""Differentially private greedy rule lists (paper 000, Algorithms 1–3, and a pure-DP default).

Mechanisms (``mechanism=``):

``"permute-and-flip"`` (default, pure ε-DP — docs/privacy.md, principles 2, 5, 6)
    At each position, permute-and-flip over every unused candidate rule *and* a "stop here"
    candidate, with utility u(r) = −[CSG(r) + max(0, λ·n − n_c(r))] and u(stop) = −CSG(∅), where
    CSG is the count-scaled Gini (Σ_children 2ab/(a+b)) and n_c(r) the remaining records r captures.
    The support penalty replaces the paper's data-dependent support filter; the utilities have
    sensitivity Δ = 2 + λ (proof in ``docs/privacy.md``). Each of the ≤ K − 1 selections costs ε/K.
    When the list is complete, one noisy histogram of the class counts over the rules' disjoint
    supports (parallel composition) gives every consequent and every printed count at once, with
    whatever budget the selections left (≥ ε/K).

``"sm-laplace"``, ``"sm-cauchy"`` (paper 000, Alg. 1–3, as published)
    ε_node = ε/(3K−1), δ_node = δ/(K−1); a Laplace-noised gate on the remaining count, a noisy
    argmin over smooth-sensitivity-noised Gini values (Theorem IV.1, β = ε_node / (2 ln(2/δ_node))
    for Laplace, β = ε_node / (2(γ+1)) for Cauchy), and Laplace counts (here: geometric) for each
    consequent. **What is guaranteed:** the paper claims (ε, δ)-DP (sm-laplace) and ε-DP (sm-cauchy);
    the noisy argmin over |R| smooth-sensitivity-noised scores accounted as a single query is the
    paper's claim, not a standard theorem (docs/privacy.md, principle 4). The gate:
    ``gate="confidence"`` is the paper's threshold T = ⌊−(ln 2 + ln(1 − C))/ε_node⌋ + 1 — it holds
    "with confidence C", which is **not** a DP guarantee; ``gate="ptr"`` (default) is
    propose-test-release with T = ⌈ln(1/(2δ_gate))/ε_node⌉ and δ_gate accounted (docs/privacy.md, principle 3),
    so sm-cauchy with the PTR gate would be (ε, δ)-DP, not pure, *if* the selection's claim held.
    The ledger says so: the selections are recorded with ``guarantee="claimed"`` and the paper's
    gate with ``guarantee="none"``, so ``privacy_ledger_.is_private`` is False for sm-* models and
    the summary explains why (``docs/privacy.md``).

``"gl-laplace"``, ``"gl-gaussian"``, ``"gl-exponential"``, ``"noisy-counts"`` (Sections V-B/V-C)
    Global-sensitivity baselines on the normalised Gini (Δ = 1/2), ε_node = ε/(2K−1): selection +
    consequent counts per rule, plus the default counts. Rigorous calibrations where the paper is
    loose: report-noisy-max with Laplace uses scale 2Δ/ε (not Δ/ε: Gini is not a monotone count);
    the Gaussian variant perturbs the whole score vector with the analytic Gaussian mechanism for
    its L2 sensitivity Δ·√(|R|+1) (each record can move every score); noisy counts perturb the
    2 × 2 table (captured / not, class) of every rule with Laplace(|R|/ε_node) — one record changes
    one cell per rule — and pick the rule whose noisy counts give the lowest Gini.

``calibration="paper"`` (the global-sensitivity baselines as paper 000 calibrates them, Sec. V-B)
    ``gl-laplace``: report-noisy-max at scale Δ/ε (the monotone-count scale; the normalised Gini
    is not a monotone count, so the ledger row is ``guarantee="claimed"``). ``gl-gaussian``: one
    Gaussian per score calibrated to a single score's Δ (analytic Gaussian at (ε_node, δ_node)),
    the argmin of |R| + 1 such scores accounted as one query — ``"claimed"``. ``noisy-counts``: the
    paper's split of ε_node over the 2|R| count queries (caught / not caught per rule, each a
    class histogram), i.e. Laplace(2|R|/ε_node) per cell — sequential composition, ``"proven"``
    (twice the rigorous default's noise: the default uses the tables' joint L1 sensitivity |R|).
    ``gl-exponential`` and the sm-* / default mechanisms are the same under both calibrations.
    The default ``calibration="rigorous"`` is the one described above (``docs/privacy.md``, "The
    paper's calibration of the baselines").

K classes (``classes=`` with K > 2 labels): CSG is n − Σ_k a_k²/n per child (still Δ < 2, monotone),
the consequents' histogram has K counts per rule, the gl-* baselines use the normalised Gini's
range 1 − 1/K as Δ; sm-* and noisy-counts stay binary (``docs/privacy.md``, "Rule lists over K
classes").

Throughout, n is private: λ·n only enters utilities (default mechanism). The sm-* mechanisms need
Λ = ⌊λ·n⌋ as a public number: pass ``n_public`` (the paper treats n as public), else n is read from
the data and the ledger records the leak.
"""

from __future__ import annotations

import math

import numpy as np

from .._params import Interval, Real, StrOptions
from ..guards import progress
from ..privacy import mechanisms as mech
from ..privacy import selection
from ..privacy.accountant import check_accountant, ledger_for_fit, published_ledger
from ..privacy.ledger import check_delta, check_epsilon
from ..privacy.samplers import check_random_state
from ..privacy.smooth import gini_smooth_sensitivity
from ..validation import check_n_public, resolve_n, warn_if_delta_large
from ._base import RuleListEstimator
from ._counts import MemoryCounts
from .model import Rule
from .split_stats import SplitStats, count_scaled_gini

__all__ = ["DPRuleListClassifier", "MECHANISMS"]

MECHANISMS = (
    "permute-and-flip",
    "sm-laplace",
    "sm-cauchy",
    "gl-laplace",
    "gl-gaussian",
    "gl-exponential",
    "noisy-counts",
)
GATES = ("ptr", "confidence")


def confidence_threshold(confidence: float, epsilon_node: float) -> int:
    """The paper's Algorithm 3: T = ⌊−(ln 2 + ln(1 − C))/ε_node⌋ + 1 (``gate="confidence"``).

    It makes P[Lap(1/ε_node) < T] ≥ C, a confidence, not a DP guarantee (docs/privacy.md). The paper's
    worked example prints T = 7 at ε = 0.1, C = 0.98, where this formula gives 33 (``000-alg3-example``).
    """
    return math.floor(-(math.log(2.0) + math.log(1.0 - float(confidence))) / float(epsilon_node)) + 1


CALIBRATIONS = ("rigorous", "paper")
GINI_GLOBAL_SENSITIVITY = 0.5
# mechanisms whose proof covers two classes only (docs/privacy.md, "Rule lists over K classes"):
# Theorem IV.1's smooth sensitivity is derived for a binary Gini, and the noisy-counts variant
# perturbs 2 × 2 tables
BINARY_ONLY = ("sm-laplace", "sm-cauchy", "noisy-counts")


def gini_global_sensitivity(n_classes: int) -> float:
    """Global sensitivity of the normalised Gini (Eq. 1+2) over K classes: its range, 1 − 1/K
    (1/2 for two classes; docs/privacy.md, "Rule lists over K classes")."""
    return 1.0 - 1.0 / n_classes


class DPRuleListClassifier(RuleListEstimator):
    """Differentially private greedy rule list.

    Parameters
    ----------
    epsilon : float, default=1.0
        Total privacy budget ε > 0.
    delta : float or None, default=None
        Total δ in [0, 1). Needed by ``sm-laplace``, ``gl-gaussian`` and by ``gate="ptr"`` with
        ``sm-cauchy``. ``None``: 0 for pure mechanisms; 1/n² (the paper's choice) for the others
        when ``n_public`` is given, else an error.
    mechanism : str, default="permute-and-flip"
        One of ``MECHANISMS`` (see the module docstring for guarantees).
    max_rules : int, default=5
        K, the maximum length of the list *including the default rule* (paper 000's K).
    min_support : float in [0, 1), default=0.05
        λ. Default mechanism: a penalty max(0, λn − n_c) in the utility; sm-*: the gate on the
        remaining count and Λ in the smooth sensitivity; gl-*, noisy-counts: unused (as published).
    max_width : int, default=2
        Maximum number of literals per rule.
    confidence : float, default=0.99
        C of the paper's confidence gate (``gate="confidence"`` only).
    gate : {"ptr", "confidence"}, default="ptr"
        Minimum-support gate of the sm-* mechanisms.
    gamma : float, default=4.0
        γ > 1 of the heavy-tailed noise of ``sm-cauchy``.
    calibration : {"rigorous", "paper"}, default="rigorous"
        Noise calibration of the global-sensitivity baselines (``gl-laplace``, ``gl-gaussian``,
        ``noisy-counts``): the library's proven one, or paper 000's (module docstring); the
        paper's Δ/ε report-noisy-max and single-score Gaussian are recorded as ``claimed``.
    n_public : int or None, default=None
        A public training-set size (or order of magnitude), for Λ and δ's default.
    classes : None or list of K ≥ 2 labels, default=None
        The public label set in order (``classes_`` is exactly it; rule counts are per class in
        this order; for two labels ``[negative, positive]``). K > 2 (multi-class lists):
        ``permute-and-flip`` and the ``gl-*`` mechanisms, whose proofs hold for any K
        (``docs/privacy.md``, "Rule lists over K classes"); ``sm-*`` and ``noisy-counts`` refuse
        K > 2 before anything is spent. ``None``: the schema {0, 1}. Never read from the data: a
        label outside the label set is an error raised the same way whatever else y holds (the
        DP universe is X × classes); a training set holding one class is valid.
    random_state : None, int or Generator
        ``None`` draws from OS entropy (use this for private releases). A seed makes runs
        reproducible for research; whoever knows it can remove the noise.
    feature_groups : "auto", None or dict, default="auto"
        Columns that come from one raw feature, so that empty or redundant conjunctions are not
        candidates (as in :class:`GreedyRuleListClassifier`; :mod:`dpmodels.data.rules`). The
        declaration is public: the candidate set stays a function of the schema.
    candidates : {"conjunctions", "columns"}, default="conjunctions"
        The public candidate rules: every conjunction of ≤ ``max_width`` literals over the columns
        (:mod:`dpmodels.data.rules`), or ``"columns"``: each column *is* one candidate rule (a
        pre-mined rule set materialised as 0/1 columns, e.g. paper 000's, built by
        :mod:`dpmodels.data.paper_protocols`); ``max_width`` and ``feature_groups`` are then unused.
    accountant : None or :class:`dpmodels.privacy.BudgetAccountant`
        A budget shared with other steps (e.g. a :class:`dpmodels.data.Binarizer` with DP cut
        points): ``epsilon`` / ``delta`` are then the share this fit requests from it, refused
        before anything is spent when it exceeds what is left, and ``privacy_ledger_`` is the
        accountant's ledger (every step's rows, one verdict). :mod:`dpmodels.privacy.accountant`.
    """

    _display_params = ("mechanism", "max_rules", "max_width", "min_support")

    _partitioned_fit = True  # fits on Parquet / Dask sources (:mod:`._partitioned`)

    def __init__(
        self,
        epsilon=1.0,
        delta=None,
        mechanism="permute-and-flip",
        max_rules=5,
        min_support=0.05,
        max_width=2,
        confidence=0.99,
        gate="ptr",
        gamma=4.0,
        calibration="rigorous",
        n_public=None,
        random_state=None,
        classes=None,
        feature_groups="auto",
        accountant=None,
        candidates="conjunctions",
    ):
        self.epsilon = epsilon
        self.delta = delta
        self.mechanism = mechanism
        self.max_rules = max_rules
        self.min_support = min_support
        self.max_width = max_width
        self.confidence = confidence
        self.gate = gate
        self.gamma = gamma
        self.calibration = calibration
        self.n_public = n_public
        self.random_state = random_state
        self.classes = classes
        self.feature_groups = feature_groups
        self.accountant = accountant
        self.candidates = candidates

    # ------------------------------------------------------------- params
    def _needs_delta(self) -> bool:
        m = self.mechanism
        return m in ("sm-laplace", "gl-gaussian") or (m == "sm-cauchy" and self.gate == "ptr")

    _parameter_constraints: dict = {
        **RuleListEstimator._parameter_constraints,
        "epsilon": "no_validation",  # check_epsilon (dpmodels.privacy)
        "delta": "no_validation",  # None, or check_delta (below)
        "mechanism": [StrOptions(set(MECHANISMS))],
        "confidence": [Interval(Real, 0, 1, closed="neither")],
        "gate": [StrOptions(set(GATES))],
        "gamma": [Interval(Real, 1, None, closed="neither")],
        "calibration": [StrOptions(set(CALIBRATIONS))],
        "n_public": "no_validation",  # check_n_public
        "random_state": "no_validation",  # samplers.check_random_state
        "accountant": "no_validation",  # check_accountant
    }

    def privacy_params(self) -> tuple[float, float]:
        """``(ε, δ)`` this learner will spend, from its parameters alone: δ is the declared one, 0
        for a pure mechanism, or 1/n² from ``n_public`` for a mechanism that needs δ > 0. Checks
        every parameter first (no data read, nothing spent): a bad one is a one-line
        ``ValueError``. What a budget shared with other steps must hold for this fit."""
        self._check_common_params()
        eps = check_epsilon(self.epsilon)
        check_n_public(self.n_public, integer=True)
        check_accountant(self.accountant, type(self).__name__)
        if self.delta is None:
            if not self._needs_delta():
                delta = 0.0
            elif self.n_public is not None:
                delta = 1.0 / float(self.n_public) ** 2
            else:
                raise ValueError(
                    f"mechanism {self.mechanism!r} (gate={self.gate!r}) needs δ > 0: pass delta=..., "
                    "or declare n_public to use the paper's δ = 1/n²"
                )
        else:
            delta = check_delta(self.delta)
        if self._needs_delta() and delta == 0:
            raise ValueError(f"mechanism {self.mechanism!r} (gate={self.gate!r}) needs delta > 0")
        warn_if_delta_large(delta, self.n_public)  # compares with the declared n only
        if self.classes is not None and self.mechanism in BINARY_ONLY:
            n_labels = len(np.atleast_1d(np.asarray(self.classes, dtype=object)))
            if n_labels > 2:  # the label set is public: this refusal reads no data
                raise ValueError(
                    f"mechanism {self.mechanism!r} is for two classes only (its sensitivity proof is "
                    f"binary; docs/privacy.md); got {n_labels} classes: use 'permute-and-flip'"
                )
        return eps, delta

    def _check_params(self):  # dpmodels.privacy.steps.ParamCheck
        self.privacy_params()

    def _guard_n(self, y):
        return self.n_public  # a public n only: never the private one

    def _budget_request(self):
        """``(accountant, ε, δ)`` this fit will request (:mod:`dpmodels.pipeline`)."""
        eps, delta = self.privacy_params()
        return self.accountant, eps, delta

    # ---------------------------------------------------------------- fit
    def _fit(self, X, y):
        eps, delta = self.privacy_params()
        Xb, yb, names = self._validate_fit_data(X, y)
        # public: the column names and their groups; refused before any release when too many
        # (the estimate uses the schema and the declared n only, never n)
        cands = self._guarded_candidates(X, names, self.n_public)
        # refused here when an accountant has too little left; X's provenance (a Binarizer's
        # releases) is merged into the ledger (docs/privacy.md, "Pipelines")
        ledger = ledger_for_fit(self, eps, delta, X=X)
        rng = check_random_state(self.random_state)
        stats = SplitStats(cands, Xb, yb, n_classes=len(self.classes_))
        rule_list = self._release(cands, stats, Xb, yb, names, ledger, rng)
        self.privacy_ledger_ = published_ledger(ledger)
        self.n_candidates_ = len(cands)
        self.rule_list_ = rule_list
        return self

    def _release(self, cands, stats, Xb, yb, names, ledger, rng):
        """Everything that draws noise: the antecedents, the consequents and their counts, checked
        against the ledger; returns the released rule list. ``stats`` gives the exact counts of
        the remaining records (shared by the batched fits of :mod:`dpmodels.experiments.paper_000.batch`)."""
        counter = MemoryCounts(stats, cands, Xb, yb, len(self.classes_))
        return self._release_counts(cands, counter, names, ledger, rng)

    def _release_counts(self, cands, counter, names, ledger, rng):
        """:meth:`_release` on any counter of :mod:`.candidates` (in memory, or partitioned
        input): the data are read through ``counter`` only."""
        if self.mechanism == "permute-and-flip":
            chosen = self._fit_pf(cands, counter, ledger, rng)
            rules, default = self._consequents_from_histogram(chosen, counter, ledger, rng, cands)
        else:
            rules, default = self._fit_paper(cands, counter, ledger, rng)
        ledger.check()
        rule_list = self._build_rule_list(names, rules, default, True)
        # every count release is a geometric histogram of sensitivity 1: noise scale 1/ε (the
        # widest one when the rules' counts were released separately); predict_proba's shrinkage
        counts_eps = [r.epsilon for r in ledger.rows if r.mechanism.startswith("geometric")]
        rule_list.count_noise_scale = 1.0 / min(counts_eps) if counts_eps else None
        return rule_list

    # ------------------------------------------------- default: permute-and-flip
    def _fit_pf(self, cands, counter, ledger, rng):
        """Choose the antecedents (``counter`` records them: its partition histogram follows)."""
        K = self.max_rules
        lam = float(self.min_support)
        eps_sel = ledger.epsilon / K
        # λ > 0: the support penalty can move against the Gini term, Δ = 2 + λ (docs/privacy.md).
        # λ = 0: every utility (rules and "stop") can only fall when a record is added, so the
        # selection is monotone and the scale Δ/ε = 2/ε suffices (half the general 2Δ/ε).
        monotone = lam == 0.0
        sens = 2.0 if monotone else 2.0 + lam
        available = np.ones(len(cands), dtype=bool)
        chosen: list[int] = []
        for pos in progress(range(K - 1), desc="DP rule list"):
            N, P, cap, cap_pos = counter.counts()
            n_true = counter.n  # private: in the utilities only
            idx = np.flatnonzero(available)
            imp = SplitStats.split_impurity(N, P, cap[idx], cap_pos[..., idx])
            penalty = np.maximum(0.0, lam * n_true - cap[idx])
            u = np.concatenate([-(imp + penalty), [-SplitStats.node_impurity(N, P)]])
            k = selection.permute_and_flip(
                u,
                eps_sel,
                sens,
                rng,
                monotone=monotone,
                ledger=ledger,
                what=f"rule {pos + 1}: pick among {len(idx)} rules + stop",
            )
            if k == len(idx):
                break
            best = int(idx[k])
            counter.take(best)
            chosen.append(best)
            available[best] = False
        return chosen

    def _consequents_from_histogram(self, chosen, counter, ledger, rng, cands):
        """One noisy histogram over the partition the rules induce (docs/privacy.md, principle 5)."""
        hist = counter.partition_histogram()
        noisy = mech.noisy_histogram(
            hist,
            ledger.epsilon_remaining,
            rng,
            ledger=ledger,
            what=f"class counts of {len(chosen) + 1} rules (disjoint)",
            parts=len(chosen) + 1,
        )
        rules = [self._make_rule(cands, c, noisy[k]) for k, c in enumerate(chosen)]
        return rules, self._make_rule(cands, None, noisy[-1])

    @staticmethod
    def _make_rule(cands, c, noisy_counts):
        """Rule for candidate ``c`` (None: the default rule), consequent = argmax of the noisy counts
        (ties: the first class; for two classes int(c1 > c0))."""
        names = cands.feature_names
        lits = [] if c is None else [(names[f], pos) for f, pos in cands.literals(c)]
        counts = np.asarray(noisy_counts, dtype=float)
        return Rule(lits, int(np.argmax(counts)), tuple(float(v) for v in counts))

    # ------------------------------------------------------ paper's Algorithm 1
    def _fit_paper(self, cands, counter, ledger, rng):
        K = self.max_rules
        m = self.mechanism
        smooth = m.startswith("sm-")
        paper_cal = self.calibration == "paper"
        eps_node = ledger.epsilon / ((3 * K - 1) if smooth else (2 * K - 1))
        delta_node = ledger.delta / (K - 1) if K > 1 else 0.0
        gamma = float(self.gamma)
        n_classes = len(self.classes_)
        gl_sens = gini_global_sensitivity(n_classes)
        if smooth and K > 1:  # K = 1: the list is the default rule alone, no selection step
            n_for_lambda = int(resolve_n(self.n_public, counter.n, ledger, what="training-set size n (for Λ = ⌊λn⌋)"))
            Lam = max(1, math.floor(float(self.min_support) * n_for_lambda))
            if self.gate == "ptr":
                d_gate = delta_node / 2 if m == "sm-laplace" else delta_node
                d_sel = delta_node - d_gate
                T = math.ceil(math.log(1.0 / (2.0 * d_gate)) / eps_node)
                gate_note = f"PTR gate: T={T}, failure prob ≤ {d_gate:.3g} (accounted)"
            else:
                d_gate, d_sel = 0.0, (delta_node if m == "sm-laplace" else 0.0)
                C = float(self.confidence)
                T = confidence_threshold(C, eps_node)
                gate_note = f"paper's confidence gate C={C}: NOT a DP guarantee"
            if m == "sm-laplace":
                beta = eps_node / (2.0 * math.log(2.0 / d_sel))
            else:
                beta = eps_node / (2.0 * (gamma + 1.0))

        available = np.ones(len(cands), dtype=bool)
        rules: list[Rule] = []
        for pos in progress(range(K - 1), desc="DP rule list"):
            N, P, cap, cap_pos = counter.counts()
            if smooth:
                go = mech.laplace_threshold(
                    N,
                    Lam + T,
                    eps_node,
                    rng,
                    ledger=ledger,
                    delta=d_gate,
                    what=f"rule {pos + 1}: support gate",
                    note=gate_note,
                    guarantee="proven" if self.gate == "ptr" else "none",
                )
                if not go:
                    break
            idx = np.flatnonzero(available)
            Nn = max(N, 1.0)
            gini = SplitStats.split_impurity(N, P, cap[idx], cap_pos[..., idx]) / Nn
            gini_stop = SplitStats.node_impurity(N, P) / Nn
            scores = np.concatenate([gini, [gini_stop]])
            what = f"rule {pos + 1}: pick among {len(idx)} rules + stop"
            if smooth:
                S = gini_smooth_sensitivity(int(N), beta, Lam) if N >= 1 else 1.0
                k = mech.smooth_noisy_argmin(
                    scores,
                    S,
                    eps_node,
                    rng,
                    noise="laplace" if m == "sm-laplace" else "cauchy",
                    gamma=gamma,
                    delta=d_sel,
                    ledger=ledger,
                    what=what,
                    note=f"β={beta:.4g}, Λ={Lam}",
                )
            elif m == "gl-laplace" and paper_cal:
                # the paper's scale Δ/ε: the monotone-count scale, claimed for the Gini (docs/privacy.md)
                k = selection.report_noisy_max(
                    -scores,
                    eps_node,
                    gl_sens,
                    rng,
                    monotone=True,
                    ledger=ledger,
                    what=what,
                    guarantee="claimed",
                    note="paper's calibration: scale Δ/ε on a non-monotone score",
                )
            elif m == "gl-laplace":
                k = selection.report_noisy_max(-scores, eps_node, gl_sens, rng, ledger=ledger, what=what)
            elif m == "gl-exponential":
                k = selection.exponential_mechanism(-scores, eps_node, gl_sens, rng, ledger=ledger, what=what)
            elif m == "gl-gaussian":
                if paper_cal:  # one score's Δ, the argmin accounted as one query: the paper's claim
                    noisy = mech.gaussian_vector(
                        scores,
                        eps_node,
                        delta_node,
                        gl_sens,
                        rng,
                        ledger=ledger,
                        what=what,
                        guarantee="claimed",
                        note="paper's calibration: one score's Δ for |R|+1 scores",
                    )
                else:
                    l2 = gl_sens * math.sqrt(len(scores))
                    noisy = mech.gaussian_vector(scores, eps_node, delta_node, l2, rng, ledger=ledger, what=what)
                k = int(np.argmin(noisy))
            else:  # noisy-counts
                table = np.stack(
                    [cap_pos[idx], cap[idx] - cap_pos[idx], P - cap_pos[idx], (N - cap[idx]) - (P - cap_pos[idx])]
                )
                # rigorous: the 4 cells of a rule partition the data, so the |R| tables have joint L1
                # sensitivity |R|; the paper's split spends ε_node/(2|R|) on each of 2|R| count queries
                l1 = float(2 * len(idx) if paper_cal else len(idx))
                note = "paper's split: ε_node/(2|R|) per count query" if paper_cal else ""
                noisy = np.clip(
                    mech.laplace_vector(table, eps_node, l1, rng, ledger=ledger, what=what, note=note), 0, None
                )
                g = count_scaled_gini(noisy[0], noisy[0] + noisy[1]) + count_scaled_gini(noisy[2], noisy[2] + noisy[3])
                tot = noisy.sum(axis=0)
                g = np.divide(g, tot, out=np.full_like(g, 0.5), where=tot > 0)
                # "stop": the parent's impurity from the same noisy table (post-processing): every
                # rule's column sums estimate (P, N); their mean is the least noisy estimate
                p_hat, n_hat = float((noisy[0] + noisy[2]).mean()), float(tot.mean())
                g_stop = float(count_scaled_gini(p_hat, n_hat)) / n_hat if n_hat > 0 else 0.5
                k = int(np.argmin(np.concatenate([g, [g_stop]])))
            if k == len(idx):
                break
            best = int(idx[k])
            hist = counter.take(best)  # the class counts of the records the rule captures
            noisy_c = mech.noisy_histogram(
                hist, eps_node, rng, ledger=ledger, what=f"rule {pos + 1}: class counts", parts=1
            )
            rules.append(self._make_rule(cands, best, noisy_c))
            available[best] = False
        hist = counter.remaining_histogram()
        noisy_c = mech.noisy_histogram(hist, eps_node, rng, ledger=ledger, what="default rule: class counts", parts=1)
        return rules, self._make_rule(cands, None, noisy_c)
