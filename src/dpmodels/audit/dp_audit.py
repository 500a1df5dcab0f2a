"""Empirical differential-privacy audit: a statistically certified lower bound on ε.

A mechanism M is (ε, δ)-DP when, for all neighbouring datasets D, D' and every output event E,
``P[M(D) ∈ E] ≤ e^ε · P[M(D') ∈ E] + δ`` (and the same with D and D' swapped). The auditor runs
M many times on a fixed pair of neighbours, estimates ``P[E]`` on each side for one event E, and
turns exact binomial (Clopper–Pearson) confidence bounds into

    ε_lb = max( ln((p_low(D) − δ) / p_high(D')),  ln((p_low(D') − δ) / p_high(D)),
                the same two for the complement of E,  0 ).

With probability at least 1 − α (over the auditor's own runs), ε_lb is ≤ the true privacy loss
of M on this pair, hence ≤ the ε of any valid (ε, δ) claim. So ``ε_lb > ε_claimed`` refutes the
claim at confidence 1 − α, and a correct mechanism is flagged with probability at most α.
(Method of Ding et al. 2018 "Detecting violations of differential privacy" and Jagielski et al.
2020 "Auditing differentially private machine learning"; see ``docs/dp_audit.md``.)

**Why the statement holds.** The four ratios use four one-sided bounds: p_low and p_high on each
side (the complement's bounds are 1 − p_high and 1 − p_low of the same sample). Each one-sided bound
fails with probability ≤ α/4 (a two-sided Clopper–Pearson interval at level α/2 per sample), so by
the union (Bonferroni) bound all four hold together with probability ≥ 1 − α, and then all four
ratios are simultaneously below e^{true loss}; so is their maximum.

**Choosing the event without bias.** If the event were picked as the most discriminating one on
the same runs used for the bound, the bound would be biased upwards (the maximum of many noisy
ratios). :func:`audit_mechanism` therefore splits the runs: a first batch (``selection_fraction``,
20 % by default) only *chooses* the event among the candidates, and the bound is computed on the
remaining, independent runs for that single event. (Alternatively, with a fixed list of m events
and ``selection_fraction=0``, every event is tested on all runs at level α/m and the maximum is
reported.)

**Power limit.** With n estimation runs per dataset, even a mechanism that reveals everything
(E always happens on D, never on D') certifies only

    ε_lb ≤ ln((α/4)^{1/n} − δ) − ln(1 − (α/4)^{1/n})  ≈  ln(n / ln(4/α))

(:func:`max_certifiable_epsilon`): about 5.4 for n = 1 000, 7.7 for n = 10 000 and 10.0 for
n = 100 000 at α = 0.05. An audit can never refute a claim ε ≥ that value, and in practice it needs
much more than the minimum: if the best event has probability q on its rare side, the rare-side
upper bound is ≈ q + z·√(q/n) (z ≈ 2.24 for α = 0.05), so the expected ε_lb of a mechanism with
true loss ε_true only reaches a claim ε once ``n ≳ z² / (q · (1 − e^{−(ε_true − ε)})²)`` estimation
runs per dataset (a coin-flip verdict; a reliable flag needs several times more), and ε_lb fluctuates
across seeds with standard deviation ≈ √((1 − p)/(n·p) + (1 − q)/(n·q)) (p: the common side).
:func:`projected_epsilon_lower_bound` gives the expected ε_lb for given event probabilities; flag
reliably only where it exceeds the claim by ≳ 3 such standard deviations. Measured on
permute-and-flip at ε = 1 (event probabilities 0.5 vs 0.5·e^{−ε_true}): a 2× leak is flagged with
2 000 runs per dataset, a 1.2× leak needs ~5 000–20 000, a 1.1× leak ~2·10⁵.
Recommendation: at least 2 000 runs per dataset for a smoke test, 2·10⁴ for a release audit,
and more for claims ε ≳ 4 or events rarer than ~1 %. A pass is *not* a proof of privacy — only the
absence of evidence against it, for this pair of datasets and these candidate events.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy import stats

from ..privacy.samplers import check_random_state

__all__ = [
    "AuditResult",
    "clopper_pearson",
    "epsilon_lower_bound",
    "max_certifiable_epsilon",
    "projected_epsilon_lower_bound",
    "audit_mechanism",
    "audit_estimator",
    "add_one",
    "FitError",
]


# ----------------------------------------------------------------------------------------------
# Statistics
# ----------------------------------------------------------------------------------------------


def _check_alpha(alpha) -> float:
    a = float(alpha)
    if not 0.0 < a < 1.0:
        raise ValueError(f"alpha must be in (0, 1), got {alpha!r}")
    return a


def _check_delta(delta) -> float:
    d = float(delta)
    if not 0.0 <= d < 1.0:
        raise ValueError(f"delta must be in [0, 1), got {delta!r}")
    return d


def _as_counts(k, n):
    k = np.asarray(k, dtype=float)
    n = np.asarray(n, dtype=float)
    if np.any(~np.isfinite(k)) or np.any(~np.isfinite(n)):
        raise ValueError("counts must be finite")
    if np.any(n <= 0):
        raise ValueError("n must be > 0")
    if np.any(k < 0) or np.any(k > n):
        raise ValueError("counts must satisfy 0 <= k <= n")
    return k, n


def clopper_pearson(k, n, alpha=0.05):
    """Exact two-sided (1 − alpha) Clopper–Pearson interval for a binomial proportion.

    ``low = Beta⁻¹(alpha/2; k, n − k + 1)`` (0 when k = 0) and
    ``high = Beta⁻¹(1 − alpha/2; k + 1, n − k)`` (1 when k = n). Each one-sided bound holds with
    probability ≥ 1 − alpha/2 for every true p. Vectorised: ``k`` and ``n`` broadcast; scalars in,
    floats out. Non-integer ``k`` is accepted (used for projections with expected counts).
    """
    a = _check_alpha(alpha)
    k, n = _as_counts(k, n)
    k, n = np.broadcast_arrays(k, n)
    pos = k > 0
    below = k < n
    with np.errstate(all="ignore"):
        low = stats.beta.ppf(a / 2, np.where(pos, k, 1.0), np.where(pos, n - k + 1, 1.0))
        high = stats.beta.ppf(1 - a / 2, np.where(below, k + 1, 1.0), np.where(below, n - k, 1.0))
    low = np.where(pos, low, 0.0)
    high = np.where(below, high, 1.0)
    if low.ndim == 0:
        return float(low), float(high)
    return low, high


def _log_ratio(num, den):
    """ln(num/den) where num > 0 and den > 0, else −inf; no floating-point warnings."""
    ok = (num > 0) & (den > 0)
    with np.errstate(all="ignore"):
        out = np.log(np.where(ok, num, 1.0)) - np.log(np.where(ok, den, 1.0))
    return np.where(ok, out, -np.inf)


def epsilon_lower_bound(k1, n1, k2, n2, delta=0.0, alpha=0.05):
    """Largest ε certified at confidence 1 − alpha by an event seen k1/n1 times on D, k2/n2 on D'.

    Returns ``max(0, ln((p_low(D) − δ)/p_high(D')), ln((p_low(D') − δ)/p_high(D)), and the same
    two ratios for the complement of the event)``. The four ratios rest on four one-sided
    Clopper–Pearson bounds, each at level alpha/4 (two-sided intervals at alpha/2 per sample), so by
    Bonferroni they hold simultaneously with probability ≥ 1 − alpha and the reported maximum is a
    valid lower bound on the privacy loss of any (ε, δ)-DP mechanism at that confidence.

    The value is 0 for identical counts, symmetric in (D, D') and under complementing the event,
    and never exceeds :func:`max_certifiable_epsilon` ``(min(n1, n2), alpha, delta)``.
    Vectorised over broadcastable count arrays.
    """
    a = _check_alpha(alpha)
    d = _check_delta(delta)
    k1, n1 = _as_counts(k1, n1)
    k2, n2 = _as_counts(k2, n2)
    lo1, hi1 = clopper_pearson(k1, n1, a / 2)
    lo2, hi2 = clopper_pearson(k2, n2, a / 2)
    lo1, hi1, lo2, hi2 = (np.asarray(v, dtype=float) for v in (lo1, hi1, lo2, hi2))
    cands = np.stack(
        np.broadcast_arrays(
            _log_ratio(lo1 - d, hi2),  # E: D more likely than D'
            _log_ratio(lo2 - d, hi1),  # E: D' more likely than D
            _log_ratio((1 - hi1) - d, 1 - lo2),  # complement of E, D over D'
            _log_ratio((1 - hi2) - d, 1 - lo1),  # complement of E, D' over D
        )
    )
    out = np.maximum(cands.max(axis=0), 0.0)
    return float(out) if out.ndim == 0 else out


def max_certifiable_epsilon(n, alpha=0.05, delta=0.0) -> float:
    """The largest ε_lb any audit with n runs per dataset can return (perfect separation).

    Equal to ``epsilon_lower_bound(n, n, 0, n, delta, alpha)`` =
    ``ln((α/4)^{1/n} − δ) − ln(1 − (α/4)^{1/n}) ≈ ln(n / ln(4/α))``: roughly ln(n). A claim
    ε ≥ this value cannot be refuted with n runs, whatever the mechanism does.
    """
    return epsilon_lower_bound(n, n, 0, n, delta, alpha)


def projected_epsilon_lower_bound(p1, p2, n_runs, alpha=0.05, delta=0.0, selection_fraction=0.2):
    """ε_lb an audit would return if its counts came out exactly at their expectations.

    ``p1``/``p2`` are the true probabilities of the chosen event on D and D'; ``n_runs`` is the
    number of runs per dataset given to :func:`audit_mechanism` (the estimation batch is
    ``n_runs − round(selection_fraction · n_runs)``). A planning tool for choosing ``n_runs``:
    the actual ε_lb fluctuates around this value.
    """
    n_est = n_runs - int(round(selection_fraction * n_runs))
    return epsilon_lower_bound(np.asarray(p1) * n_est, n_est, np.asarray(p2) * n_est, n_est, delta, alpha)


# ----------------------------------------------------------------------------------------------
# Result
# ----------------------------------------------------------------------------------------------


@dataclass
class AuditResult:
    """Outcome of an empirical DP audit.

    ``epsilon_lb`` is certified at confidence ``1 − alpha``; ``passed`` is
    ``epsilon_lb <= epsilon_claimed``. ``counts`` maps ``"D"`` and ``"D_prime"`` to
    ``(k, n)``: how often the chosen ``event`` occurred in the estimation runs. ``n_runs`` is the
    total number of runs per dataset (selection + estimation).
    """

    epsilon_lb: float
    epsilon_claimed: float
    delta: float
    event: str
    counts: dict
    n_runs: int
    alpha: float
    passed: bool
    n_selection: int = 0
    n_candidates: int = 1
    selection_counts: dict | None = None
    predicate: Callable | None = field(default=None, repr=False, compare=False)

    def __str__(self) -> str:
        verdict = "PASSED" if self.passed else "FLAGGED (claim refuted)"
        rel = "<=" if self.passed else ">"
        lines = [
            f"DP audit {verdict}: epsilon_lb = {self.epsilon_lb:.4g} {rel} claimed epsilon = "
            f"{self.epsilon_claimed:.4g} (delta = {self.delta:.3g}, confidence {1 - self.alpha:.1%})",
            f"  event: {self.event}",
        ]
        a = self.alpha / 2
        for name, label in (("D", "D "), ("D_prime", "D'")):
            k, n = self.counts[name]
            lo, hi = clopper_pearson(k, n, a)
            lines.append(f"  {label}: {k}/{n} = {k / n:.4f}  (one-sided bounds at {a / 2:.3g}: [{lo:.4f}, {hi:.4f}])")
        n_est = self.n_runs - self.n_selection
        lines.append(
            f"  runs per dataset: {self.n_runs} ({self.n_selection} to choose among "
            f"{self.n_candidates} candidate events, {n_est} to bound); "
            f"max certifiable epsilon with {n_est} runs: "
            f"{max_certifiable_epsilon(n_est, self.alpha, self.delta):.3g}"
        )
        return "\n".join(lines)


# ----------------------------------------------------------------------------------------------
# Events
# ----------------------------------------------------------------------------------------------


def _short(v, limit=60) -> str:
    if isinstance(v, np.generic):
        v = v.item()
    s = repr(v)
    return s if len(s) <= limit else s[: limit - 3] + "..."


class _KeyIn:
    """Event ``key(output) in values``."""

    def __init__(self, key, values, description):
        self.key = key
        self.values = frozenset(values)
        self.description = description

    def __call__(self, output) -> bool:
        return self.key(output) in self.values

    def __repr__(self) -> str:
        return self.description


class _KeyAtLeast:
    """Event ``key(output) >= threshold`` (numeric keys)."""

    def __init__(self, key, threshold):
        self.key = key
        self.threshold = threshold
        self.description = f"key >= {_short(threshold)}"

    def __call__(self, output) -> bool:
        return self.key(output) >= self.threshold

    def __repr__(self) -> str:
        return self.description


class _Observe:
    """Map an output to what a phase needs: a bool tuple, a key, or one bool."""

    def __init__(self, mode, fn):
        self.mode = mode  # "predicates" (fn = tuple of predicates), "key", "event"
        self.fn = fn

    def __call__(self, output):
        if self.mode == "predicates":
            return tuple(bool(p(output)) for p in self.fn)
        if self.mode == "event":
            return bool(self.fn(output))
        return self.fn(output)


def _is_real(v) -> bool:
    return isinstance(v, numbers.Real) and not isinstance(v, bool | np.bool_) and v == v


def _key_candidates(keys1, keys2, key_fn):
    """Candidate events from the selection runs' outcome keys, with their counts.

    Families: singletons {v}; for numeric keys the up-sets {key ≥ t}; and the likelihood-ratio
    sets (outcomes sorted by smoothed p̂(D)/p̂(D'), every proper prefix) — the Neyman–Pearson
    optimal family when the outcome space is small.
    """
    index: dict = {}
    values: list = []
    for k in (*keys1, *keys2):
        if k not in index:
            index[k] = len(values)
            values.append(k)
    m = len(values)
    c1 = np.bincount([index[k] for k in keys1], minlength=m).astype(float)
    c2 = np.bincount([index[k] for k in keys2], minlength=m).astype(float)
    n1, n2 = len(keys1), len(keys2)

    events, k1s, k2s = [], [], []

    def add(ev, a, b):
        events.append(ev)
        k1s.append(a)
        k2s.append(b)

    for i, v in enumerate(values):
        add(_KeyIn(key_fn, [v], f"key == {_short(v)}"), c1[i], c2[i])

    if m > 1 and all(_is_real(v) for v in values):
        order = sorted(range(m), key=lambda i: values[i], reverse=True)
        cum1, cum2 = np.cumsum(c1[order]), np.cumsum(c2[order])
        for j in range(m - 1):  # {key >= t} for all but the smallest t (that is everything)
            add(_KeyAtLeast(key_fn, values[order[j]]), cum1[j], cum2[j])

    if m > 2:
        ratio = ((c1 + 0.5) / (n1 + 1)) / ((c2 + 0.5) / (n2 + 1))
        order = list(np.argsort(-ratio, kind="stable"))
        cum1, cum2 = np.cumsum(c1[order]), np.cumsum(c2[order])
        for j in range(1, m - 1):  # prefixes of length 1 and m - 1 are singletons / complements
            members = [values[i] for i in order[: j + 1]]
            desc = (
                f"key in {{{', '.join(_short(v, 20) for v in members)}}}"
                if len(members) <= 8
                else f"key in <{len(members)} outcomes most likely under D rather than D'>"
            )
            add(_KeyIn(key_fn, members, desc), cum1[j], cum2[j])

    return events, np.array(k1s), np.array(k2s)


def _choose(k1, n1, k2, n2, n_est, delta, alpha) -> int:
    """Index of the most discriminating candidate on the selection runs.

    Score: the bound the selection runs themselves certify (at the same alpha), which ranks a rare
    event by how much evidence there is for its ratio, not just by its noisy point ratio (scoring
    by the raw ratio, or by a bound projected to the estimation size, keeps picking rare tail
    events whose ratio was inflated by selection noise, and then certifies little). Ties (e.g. all
    zero): the bound projected to ``n_est`` runs, then the smoothed point log-ratio.
    """
    score = np.atleast_1d(epsilon_lower_bound(k1, n1, k2, n2, delta, alpha))
    s = n_est / n1
    proj = np.atleast_1d(epsilon_lower_bound(k1 * s, n_est, k2 * s, n_est, delta, alpha))
    p1 = (k1 + 0.5) / (n1 + 1)
    p2 = (k2 + 0.5) / (n2 + 1)
    point = np.max(
        np.stack(
            [
                _log_ratio(p1 - delta, p2),
                _log_ratio(p2 - delta, p1),
                _log_ratio(1 - p1 - delta, 1 - p2),
                _log_ratio(1 - p2 - delta, 1 - p1),
            ]
        ),
        axis=0,
    )
    order = np.lexsort((-np.atleast_1d(point), -proj, -score))  # last key is primary
    return int(order[0])


# ----------------------------------------------------------------------------------------------
# Runs
# ----------------------------------------------------------------------------------------------


def _root_seed_sequence(random_state) -> np.random.SeedSequence:
    if random_state is None:
        return np.random.SeedSequence()
    if isinstance(random_state, np.random.SeedSequence):
        return random_state
    if isinstance(random_state, numbers.Integral) and not isinstance(random_state, bool):
        if random_state < 0:
            raise ValueError(f"random_state must be a non-negative integer, got {random_state}")
        return np.random.SeedSequence(int(random_state))
    if isinstance(random_state, np.random.RandomState):
        return np.random.SeedSequence(random_state.randint(0, 2**32 - 1, size=4).tolist())
    if isinstance(random_state, np.random.Generator):
        return np.random.SeedSequence(random_state.integers(0, 2**63, size=4).tolist())
    raise TypeError(
        "random_state must be None, a non-negative int, a SeedSequence, Generator or RandomState; "
        f"got {type(random_state).__name__}"
    )


def _child(parent: np.random.SeedSequence, i: int) -> np.random.SeedSequence:
    """The i-th child of ``parent``, identical to ``parent.spawn(i + 1)[i]`` on a fresh parent."""
    return np.random.SeedSequence(parent.entropy, spawn_key=(*parent.spawn_key, i), pool_size=parent.pool_size)


def _observe_chunk(run, dataset, parent, start, stop, observe, batch_size):
    """Runs ``start..stop`` (or batches, if ``batch_size``) of one (phase, dataset) stream."""
    out = []
    if batch_size is None:
        for i in range(start, stop):
            out.append(observe(run(dataset, check_random_state(_child(parent, i)))))
        return out
    for b in range(start, stop):
        size = batch_size[b]
        outputs = run(dataset, check_random_state(_child(parent, b)), size)
        if len(outputs) != size:
            raise ValueError(f"vectorized run returned {len(outputs)} outputs, expected {size}")
        out.extend(observe(o) for o in outputs)
    return out


def _collect(run, dataset, parent, n, observe, n_jobs, vectorized, batch_size):
    """Observations of n independent runs on ``dataset``; seeds depend only on (parent, index)."""
    if n == 0:
        return []
    if vectorized:
        sizes = [batch_size] * (n // batch_size) + ([n % batch_size] if n % batch_size else [])
        units, sizes_arg = len(sizes), sizes
    else:
        units, sizes_arg = n, None
    if n_jobs == 1:
        return _observe_chunk(run, dataset, parent, 0, units, observe, sizes_arg)
    import joblib

    workers = joblib.effective_n_jobs(n_jobs)
    n_chunks = max(1, min(units, 4 * workers))
    bounds = np.linspace(0, units, n_chunks + 1).astype(int)
    parts = joblib.Parallel(n_jobs=n_jobs)(
        joblib.delayed(_observe_chunk)(run, dataset, parent, int(lo), int(hi), observe, sizes_arg)
        for lo, hi in zip(bounds[:-1], bounds[1:])
        if hi > lo
    )
    return [o for p in parts for o in p]


# ----------------------------------------------------------------------------------------------
# Audits
# ----------------------------------------------------------------------------------------------


def audit_mechanism(
    run: Callable,
    D: Any,
    D_prime: Any,
    events: Mapping[str, Callable] | Callable,
    n_runs: int,
    epsilon: float,
    delta: float = 0.0,
    alpha: float = 0.05,
    *,
    selection_fraction: float = 0.2,
    random_state=None,
    n_jobs: int | None = 1,
    vectorized: bool = False,
    batch_size: int = 4096,
) -> AuditResult:
    """Audit a randomised mechanism for an (ε, δ)-DP claim on one pair of neighbours.

    Parameters
    ----------
    run : callable
        ``run(dataset, rng) -> output`` runs the mechanism once with the ``numpy.random.Generator``
        ``rng`` (its only source of randomness). With ``vectorized=True`` it is called as
        ``run(dataset, rng, size)`` and must return a sequence of ``size`` i.i.d. outputs.
    D, D_prime : any
        Neighbouring datasets (e.g. ``D_prime = add_one(...)``), passed to ``run`` as is.
    events : dict or callable
        Either a dict ``name -> predicate(output) -> bool`` of candidate events, or a callable
        ``output -> hashable outcome key``; in that case the candidate events are built from the
        keys seen in the selection runs: every single outcome, ``key >= t`` when the keys are
        numbers, and the likelihood-ratio sets (outcomes ranked by estimated P(D)/P(D')).
        The complement of each candidate is always considered too.
    n_runs : int
        Runs **per dataset** (so 2·n_runs runs in total), selection and estimation together.
        ε_lb can never exceed :func:`max_certifiable_epsilon` of the estimation runs, ≈ ln(n_runs);
        see the module docstring for how many runs a given leak needs.
    epsilon, delta : float
        The privacy claim under test; δ also enters the bound, ``ln((p_low − δ)/p_high)``.
    alpha : float
        The result holds at confidence 1 − alpha: a mechanism satisfying the claim is flagged
        with probability ≤ alpha.
    selection_fraction : float
        Share of the runs (on each dataset) used only to choose the event: the candidate with the
        largest bound certified by these runs alone is then bounded on the other, independent
        runs, so choosing does not bias the bound. With a single event in ``events`` no runs are
        spent on selection. With ``selection_fraction=0`` and a dict of m events, every event is
        bounded on all runs at level alpha/m and the largest bound is reported (Bonferroni).
    random_state : None, int, SeedSequence or Generator
        Root of the seeds. Each run (or each batch, when vectorized) draws from its own child of a
        ``SeedSequence`` spawned from it, indexed by (phase, dataset, run), so results do not
        depend on ``n_jobs``. ``None`` uses OS entropy; an int makes the audit reproducible.
    n_jobs : int or None
        Parallel workers via joblib (``run`` and the events must then be picklable by cloudpickle;
        lambdas are fine with the default loky backend). Only observations travel back.
    vectorized, batch_size :
        Call ``run(dataset, rng, size)`` on batches of ``batch_size`` runs, one stream per batch.
    """
    n_runs = int(n_runs)
    eps = float(epsilon)
    if not math.isfinite(eps) or eps < 0:
        raise ValueError(f"epsilon must be finite and >= 0, got {epsilon!r}")
    d = _check_delta(delta)
    a = _check_alpha(alpha)
    f = float(selection_fraction)
    if not 0.0 <= f < 1.0:
        raise ValueError(f"selection_fraction must be in [0, 1), got {selection_fraction!r}")
    if vectorized and int(batch_size) < 1:
        raise ValueError("batch_size must be >= 1")
    batch_size = int(batch_size)

    if isinstance(events, Mapping):
        if len(events) == 0:
            raise ValueError("events must not be empty")
        names = list(events)
        preds = tuple(events[nm] for nm in names)
        for nm, p in zip(names, preds):
            if not callable(p):
                raise TypeError(f"event {nm!r} is not callable")
        key_mode = False
    elif callable(events):
        key_mode = True
    else:
        raise TypeError("events must be a dict name -> predicate, or a callable output -> key")

    single = not key_mode and len(preds) == 1
    bonferroni = not key_mode and not single and f == 0.0
    if key_mode and f == 0.0:
        raise ValueError("an outcome-key audit needs selection runs: selection_fraction must be > 0")
    n_sel = 0 if (single or bonferroni) else int(round(f * n_runs))
    n_est = n_runs - n_sel
    if n_est < 1 or (not (single or bonferroni) and n_sel < 1):
        raise ValueError(
            f"n_runs={n_runs} is too small to split with selection_fraction={f} "
            "(need at least one selection and one estimation run per dataset)"
        )

    root = _root_seed_sequence(random_state)
    # Streams: phase 0 = selection, 1 = estimation; dataset 0 = D, 1 = D'.
    stream = {(ph, ds): _child(_child(root, ph), ds) for ph in (0, 1) for ds in (0, 1)}
    collect = lambda ph, ds, n, obs: _collect(  # noqa: E731
        run, (D, D_prime)[ds], stream[ph, ds], n, obs, n_jobs, vectorized, batch_size
    )

    selection_counts = None
    if bonferroni:
        obs = _Observe("predicates", preds)
        o1 = np.array(collect(1, 0, n_est, obs), dtype=bool).reshape(n_est, len(preds))
        o2 = np.array(collect(1, 1, n_est, obs), dtype=bool).reshape(n_est, len(preds))
        k1, k2 = o1.sum(axis=0), o2.sum(axis=0)
        lbs = np.atleast_1d(epsilon_lower_bound(k1, n_est, k2, n_est, d, a / len(preds)))
        i = int(np.argmax(lbs))
        eps_lb = float(lbs[i])
        return AuditResult(
            epsilon_lb=eps_lb,
            epsilon_claimed=eps,
            delta=d,
            event=f"{names[i]} (max over {len(preds)} events, Bonferroni alpha/{len(preds)})",
            counts={"D": (int(k1[i]), n_est), "D_prime": (int(k2[i]), n_est)},
            n_runs=n_runs,
            alpha=a,
            passed=bool(eps_lb <= eps),
            n_selection=0,
            n_candidates=len(preds),
            predicate=preds[i],
        )

    if single:
        event, description, n_cand = preds[0], str(names[0]), 1
    elif key_mode:
        obs = _Observe("key", events)
        keys1 = collect(0, 0, n_sel, obs)
        keys2 = collect(0, 1, n_sel, obs)
        cands, c1, c2 = _key_candidates(keys1, keys2, events)
        i = _choose(c1, n_sel, c2, n_sel, n_est, d, a)
        event, description, n_cand = cands[i], cands[i].description, len(cands)
        selection_counts = {"D": (int(c1[i]), n_sel), "D_prime": (int(c2[i]), n_sel)}
    else:
        obs = _Observe("predicates", preds)
        o1 = np.array(collect(0, 0, n_sel, obs), dtype=bool).reshape(n_sel, len(preds))
        o2 = np.array(collect(0, 1, n_sel, obs), dtype=bool).reshape(n_sel, len(preds))
        c1, c2 = o1.sum(axis=0).astype(float), o2.sum(axis=0).astype(float)
        i = _choose(c1, n_sel, c2, n_sel, n_est, d, a)
        event, description, n_cand = preds[i], str(names[i]), len(preds)
        selection_counts = {"D": (int(c1[i]), n_sel), "D_prime": (int(c2[i]), n_sel)}

    obs = _Observe("event", event)
    k1 = int(sum(collect(1, 0, n_est, obs)))
    k2 = int(sum(collect(1, 1, n_est, obs)))
    eps_lb = float(epsilon_lower_bound(k1, n_est, k2, n_est, d, a))
    return AuditResult(
        epsilon_lb=eps_lb,
        epsilon_claimed=eps,
        delta=d,
        event=description,
        counts={"D": (k1, n_est), "D_prime": (k2, n_est)},
        n_runs=n_runs,
        alpha=a,
        passed=bool(eps_lb <= eps),
        n_selection=n_sel,
        n_candidates=n_cand,
        selection_counts=selection_counts,
        predicate=event,
    )


@dataclass(frozen=True)
class FitError:
    """What a run returns when ``fit`` raised (``audit_estimator(..., fit_errors="outcome")``):
    whether a learner raises is itself an observable output (docs/privacy.md, principle 15)."""

    type: str
    message: str = field(default="", compare=False)


class _FitRun:
    """``run(dataset, rng)`` for an estimator: a fresh estimator seeded from rng, fitted."""

    def __init__(self, make_estimator, fit_params, catch_errors=False):
        self.make_estimator = make_estimator
        self.fit_params = dict(fit_params or {})
        self.catch_errors = catch_errors

    def __call__(self, dataset, rng):
        X, y = dataset
        # 63-bit seeds: with 10^5 runs a collision (two runs sharing randomness) has probability
        # ~ 10^-9; 32-bit seeds would collide with probability ~ 0.7.
        est = self.make_estimator(int(rng.integers(0, 2**63 - 1)))
        try:
            if y is None:
                est.fit(X, **self.fit_params)
            else:
                est.fit(X, y, **self.fit_params)
        except Exception as exc:  # noqa: BLE001 - an error is an outcome here
            if not self.catch_errors:
                raise
            return FitError(type(exc).__name__, str(exc))
        return est


class _ErrorAwareKey:
    """Outcome key ``("raised", error type)`` for a failed fit, ``("fitted", key(model))`` else."""

    def __init__(self, key):
        self.key = key

    def __call__(self, output):
        if isinstance(output, FitError):
            return ("raised", output.type)
        return ("fitted", self.key(output))


class _ErrorAwarePredicate:
    """A dict event on fitted models; False on a failed fit (the event "fit raised" is added)."""

    def __init__(self, predicate):
        self.predicate = predicate

    def __call__(self, output):
        return False if isinstance(output, FitError) else bool(self.predicate(output))


def _fit_raised(output) -> bool:
    return isinstance(output, FitError)


def audit_estimator(
    make_estimator: Callable[[int], Any],
    X,
    y,
    X_prime,
    y_prime,
    output_key: Mapping[str, Callable] | Callable,
    n_runs: int,
    epsilon: float,
    delta: float = 0.0,
    alpha: float = 0.05,
    *,
    fit_params: dict | None = None,
    fit_errors: str = "raise",
    **kwargs,
) -> AuditResult:
    """Audit a learner: fit ``make_estimator(seed)`` n_runs times on (X, y) and on (X', y').

    ``make_estimator(seed)`` returns an unfitted estimator whose only randomness is ``seed``
    (a fresh non-negative int below 2**63 per run; reduce it modulo 2**32 for estimators that need
    a 32-bit seed). ``output_key(fitted)`` maps the fitted model to a hashable outcome (e.g. the
    first rule, the root split); it may also be a dict of predicates on the fitted model, as
    ``events`` in :func:`audit_mechanism`. ``fit_params`` are passed to ``fit``; other keyword
    arguments (``selection_fraction``, ``random_state``, ``n_jobs``) go to
    :func:`audit_mechanism`. Use :func:`add_one` to build (X', y').

    ``fit_errors="outcome"`` makes *whether fit raised* part of the output (an error that occurs
    on D' but not on D distinguishes the neighbours with certainty, docs/privacy.md, principle 15): a failed
    fit yields :class:`FitError`; an ``output_key`` callable is wrapped to return
    ``("raised", error type)`` or ``("fitted", output_key(model))``, and a dict of events gets the
    event ``"fit raised"`` (its predicates see only fitted models). ``"raise"`` (default): an
    error in ``fit`` propagates.
    """
    if fit_errors not in ("raise", "outcome"):
        raise ValueError(f"fit_errors must be 'raise' or 'outcome', got {fit_errors!r}")
    catch = fit_errors == "outcome"
    if catch:
        if isinstance(output_key, Mapping):
            output_key = {name: _ErrorAwarePredicate(p) for name, p in output_key.items()}
            output_key["fit raised"] = _fit_raised
        else:
            output_key = _ErrorAwareKey(output_key)
    run = _FitRun(make_estimator, fit_params, catch)
    return audit_mechanism(run, (X, y), (X_prime, y_prime), output_key, n_runs, epsilon, delta, alpha, **kwargs)


# ----------------------------------------------------------------------------------------------
# Neighbouring datasets
# ----------------------------------------------------------------------------------------------


def add_one(X, y, x_row, y_row=None):
    """Return ``(X', y')`` = D ∪ {(x_row, y_row)}: the add-one neighbour of (X, y).

    Works for numpy arrays (1-d or 2-d X) and pandas DataFrames/Series; the inputs are not
    modified. For pandas, a RangeIndex is extended (0..n); otherwise the new row is labelled by
    ``x_row.name`` if it is a named Series, else by ``len(X)``. ``y`` may be None (unsupervised).
    """
    try:
        import pandas as pd
    except ImportError:  # pragma: no cover - pandas is a dependency
        pd = None

    if pd is not None and isinstance(X, pd.DataFrame):
        if isinstance(x_row, pd.Series):
            missing = [c for c in X.columns if c not in x_row.index]
            if missing:
                raise ValueError(f"x_row lacks columns {missing}")
            values = x_row[X.columns]
            label = x_row.name if x_row.name is not None else len(X)
            row = values.to_frame().T
        elif isinstance(x_row, Mapping):
            missing = [c for c in X.columns if c not in x_row]
            if missing:
                raise ValueError(f"x_row lacks columns {missing}")
            row = pd.DataFrame([{c: x_row[c] for c in X.columns}])
            label = len(X)
        else:
            arr = np.asarray(x_row, dtype=object).reshape(-1)
            if arr.size != X.shape[1]:
                raise ValueError(f"x_row has {arr.size} values, X has {X.shape[1]} columns")
            row = pd.DataFrame([list(arr)], columns=X.columns)
            label = len(X)
        range_index = isinstance(X.index, pd.RangeIndex)
        row.index = [len(X) if range_index else label]
        row = row.astype(X.dtypes.to_dict(), errors="ignore")
        X_new = pd.concat([X, row], ignore_index=range_index)
        new_label = X_new.index[-1]
    else:
        Xa = np.asarray(X)
        xr = np.asarray(x_row)
        if Xa.ndim == 1:
            if xr.size != 1:
                raise ValueError("X is 1-d: x_row must be a single value")
            X_new = np.concatenate([Xa, xr.reshape(1)])
        elif Xa.ndim == 2:
            if xr.size != Xa.shape[1]:
                raise ValueError(f"x_row has {xr.size} values, X has {Xa.shape[1]} columns")
            X_new = np.concatenate([Xa, xr.reshape(1, -1)], axis=0)
        else:
            raise ValueError("X must be 1-d or 2-d")
        new_label = None

    if y is None:
        if y_row is not None:
            raise ValueError("y is None but y_row was given")
        return X_new, None
    if pd is not None and isinstance(y, pd.Series):
        idx = [new_label] if new_label is not None else [len(y)]
        y_add = pd.Series([y_row], index=idx, name=y.name)
        y_add = y_add.astype(y.dtype, errors="ignore")
        y_new = pd.concat([y, y_add], ignore_index=isinstance(y.index, pd.RangeIndex))
    else:
        ya = np.asarray(y)
        y_new = np.concatenate([ya, np.asarray([y_row])])
    return X_new, y_new
