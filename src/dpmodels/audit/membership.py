"""Membership inference attacks on any classifier with ``predict_proba`` (paper 000, App. C, and beyond).

One call runs an attack and evaluates it::

    res = membership_inference(model, X_train, y_train, X_test, y_test, attack="lira",
                               X_pop=X_aux, y_pop=y_aux, random_state=0)
    res.auc, res.tpr_at(0.001), res.tpr_at(0.01); res.plot_roc()

Threat model (all attacks)
--------------------------
The attacker queries the fitted target's ``predict_proba`` (black box: output vectors, no
parameters), knows each audited record (x, y) and must tell members (``X_in``: training records)
from non-members (``X_out``: records of the same distribution the target did not see). Attacks
with reference models also know the learning algorithm and its hyper-parameters (``learner``; by
default a clone of the target) and own **population data** ``X_pop, y_pop`` from the same
distribution, disjoint from the audited records. ``X_in``/``X_out`` only evaluate the attack;
no attack reads which records are members, except ``"black-box"``, whose attack model is trained
on a known part of the membership (as in paper 000's pipeline).

Attacks (``attack=``)
---------------------
``"threshold"``  (Yeom et al. 2018) score = log p_θ(y|x) = −cross-entropy loss. Thresholding
    the loss or the true-class confidence is the same test (monotone), so one score covers both.
``"black-box"``  paper 000's pipeline (App. C, Fig. 5; ART's MembershipInferenceBlackBox with a
    random forest): an attack model (``RandomForestClassifier``, 100 trees) on the target's
    output vector + one-hot label, trained on a random ``attack_train_fraction`` of the members
    and of the non-members, evaluated on the rest (only those records are scored).
``"shadow"``  (Shokri et al. 2017) the same attack model trained on *shadow* models instead: R
    references trained by ``learner`` on subsets of the population; each one's outputs on its own
    training records are labelled IN, on the other population records OUT (balanced).
``"lira"`` / ``"lira-offline"``  Carlini et al. 2022 (:mod:`.likelihood_ratio`). Online: the pool
    is audited ∪ population records, each in about q = size/|pool| of the references (so the
    attacker trains on the candidates without knowing their membership, as in Carlini et al.).
    Offline: references trained on the population only, all OUT for every audited record.
``"rmia"`` / ``"rmia-online"``  Zarifzadeh et al. 2024, offline (default, linear approximation
    with a tuned a) or online; the population records are the z sample.

Reference models (``n_reference``, default 64; 16 shadow models) are trained on ``reference_size``
records each (default: the number of members — the attacker is assumed to know the target's
training-set size — capped at 80 % of the pool so every pool record is OUT of ≥ 20 % of them).
Fits run in parallel (``n_jobs``) with fresh randomness each (:mod:`._references`).

Evaluation: ROC at the unique scores, AUC, TPR at FPR 0.1 % and 1 % by linear interpolation between
ROC vertices (randomised thresholds; :mod:`._roc`), and ε estimates (plug-in and Clopper–Pearson).
"""

from __future__ import annotations

import functools
import numbers
import time
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np
from sklearn.ensemble import RandomForestClassifier

from ..privacy.samplers import check_random_state
from . import _references as refs
from ._roc import epsilon_from_roc, roc_auc, roc_curve, tpr_at_fpr
from ._summary import ESTIMATE_VS_BOUND, Summary, num, pct
from .likelihood_ratio import lira_offline, lira_online, logit_confidence, rmia_scores, tune_rmia_a

__all__ = [
    "ATTACKS",
    "LOW_FPR",
    "MembershipInferenceResult",
    "membership_inference",
    "membership_inference_suite",
    "evaluate_scores",
]

LOW_FPR = (0.001, 0.01)


@dataclass
class MembershipInferenceResult:
    """Scores of one attack on audited records, their membership, and the ROC they give."""

    attack: str
    scores: np.ndarray
    membership: np.ndarray
    fpr: np.ndarray = field(repr=False)
    tpr: np.ndarray = field(repr=False)
    thresholds: np.ndarray = field(repr=False)
    auc: float = float("nan")
    record_index: np.ndarray | None = field(default=None, repr=False)
    params: dict = field(default_factory=dict)
    seconds: float = 0.0
    tp: np.ndarray | None = field(default=None, repr=False)
    fp: np.ndarray | None = field(default=None, repr=False)

    @property
    def n_members(self) -> int:
        return int(self.membership.sum())

    @property
    def n_nonmembers(self) -> int:
        return int((~self.membership).sum())

    def tpr_at(self, fpr) -> float:
        """TPR at FPR ``fpr`` (linear between ROC vertices: a randomised threshold)."""
        return float(tpr_at_fpr(self.fpr, self.tpr, fpr))

    @property
    def tpr_at_low_fpr(self) -> dict:
        return {f: self.tpr_at(f) for f in LOW_FPR}

    def epsilon_estimate(self, fpr=0.01) -> float:
        """Plug-in ln(TPR/FPR) at FPR ``fpr`` (δ = 0): a **point estimate**, no confidence.

        By the hypothesis-testing view of DP (Kairouz et al. 2015) an (ε, 0)-DP learner has
        TPR ≤ e^ε · FPR for every membership test, so ln(TPR/FPR) at one operating point *estimates*
        how much ε that test uses. It carries sampling noise (at 1 % FPR on 300 non-members, three
        records decide FPR) and no confidence: it is neither a bound nor comparable to one.
        :meth:`epsilon_lower_bound` is the number with a guarantee; the two are read at different
        thresholds, so the bound can exceed the estimate (e.g. 3.67 beside 0.24 when the best
        threshold for the bound is not the one at 1 % FPR).
        """
        return epsilon_from_roc(self.fpr, self.tpr, fpr)

    def epsilon_lower_bound(self, alpha=0.05, delta=0.0, selection_fraction=0.5, random_state=0) -> float:
        """ε lower bound at confidence 1 − alpha from Clopper–Pearson intervals (δ given): the
        **bound** of the two ε numbers (:meth:`epsilon_estimate` is a point estimate).

        Read: if the model were (ε', δ)-DP for some ε' below the returned value, a result this
        extreme would occur with probability at most alpha (under the assumption below). So a value
        above the model's stated ε refutes the claim (or the assumption); a value below it is
        consistent with the claim and proves nothing about it.

        The records are split at random (stratified by membership): the first part
        (``selection_fraction``) only *chooses* the threshold with the best bound; the bound is
        computed on the other part at that single threshold with
        :func:`dpmodels.audit.epsilon_lower_bound` (four one-sided Clopper–Pearson bounds,
        Bonferroni): ε ≥ max(ln((TPR_low − δ)/FPR_high), ln((TNR_low − δ)/FNR_high), 0).

        **Assumption.** Each audited record is treated as an independent trial of "is this record's
        membership detectable". That holds for records from independent training runs; records
        of *one* model share its randomness, so the interval can be too narrow (Steinke, Nasr and
        Jagielski 2023 analyse one-run audits properly). The certified audit on neighbouring
        datasets is :func:`dpmodels.audit.audit_estimator`.
        """
        from .dp_audit import epsilon_lower_bound

        if not 0.0 < selection_fraction < 1.0:
            raise ValueError("selection_fraction must be in (0, 1)")
        rng = check_random_state(random_state)
        m = self.membership
        sel = np.zeros(len(m), dtype=bool)
        for side in (True, False):
            idx = np.flatnonzero(m == side)
            k = int(round(selection_fraction * len(idx)))
            sel[rng.choice(idx, size=k, replace=False)] = True
        est = ~sel
        if m[sel].all() or (~m[sel]).all() or m[est].all() or (~m[est]).all():
            raise ValueError("too few members or non-members to split for the bound")
        _, _, thr, tp, fp = roc_curve(self.scores[sel], m[sel])
        n1, n0 = int(m[sel].sum()), int((~m[sel]).sum())
        cand = epsilon_lower_bound(tp[1:], n1, fp[1:], n0, delta=delta, alpha=alpha)
        t = thr[1:][int(np.argmax(cand))]
        flag = self.scores[est] >= t
        k1, n1 = int((flag & m[est]).sum()), int(m[est].sum())
        k0, n0 = int((flag & ~m[est]).sum()), int((~m[est]).sum())
        return float(epsilon_lower_bound(k1, n1, k0, n0, delta=delta, alpha=alpha))

    def summary(self, alpha=0.05) -> Summary:
        """The attack's numbers as a dict (``attack``, ``auc``, ``tpr@0.1%fpr``, ``tpr@1%fpr``,
        ``n_members``, ``n_nonmembers``, ``seconds``, and ``epsilon_lower_bound`` at confidence
        1 − ``alpha`` (None when the records are too few to split), ``epsilon_estimate`` at 1 %
        FPR) whose ``str()`` is a sentence: "threshold attack: AUC 0.61; TPR 1.3 % at 1 % FPR;
        ε ≥ 3.7 at 95 % confidence (lower bound); ε ≈ 0.24 (point estimate at 1 % FPR)". See
        :meth:`describe` for the same with the meaning of the two ε numbers."""
        try:
            lb = self.epsilon_lower_bound(alpha=alpha)
        except ValueError:
            lb = None
        est = self.epsilon_estimate(0.01)
        numbers = {
            "attack": self.attack,
            "auc": self.auc,
            "tpr@0.1%fpr": self.tpr_at(0.001),
            "tpr@1%fpr": self.tpr_at(0.01),
            "n_members": self.n_members,
            "n_nonmembers": self.n_nonmembers,
            "seconds": self.seconds,
            "epsilon_lower_bound": lb,
            "epsilon_estimate": est,
            "alpha": alpha,
        }
        conf = f"{100 * (1 - alpha):g} %"
        bound = (
            f"ε ≥ {num(lb, 2)} at {conf} confidence (lower bound)"
            if lb is not None
            else "no ε lower bound (too few records to split)"
        )
        text = (
            f"{self.attack} attack: AUC {num(self.auc)}; TPR {pct(self.tpr_at(0.01))} at 1 % FPR "
            f"({self.n_members} members, {self.n_nonmembers} non-members); {bound}; "
            f"ε ≈ {num(est, 2)} (point estimate at 1 % FPR)"
        )
        return Summary(numbers, text)

    def describe(self, alpha=0.05) -> str:
        """:meth:`summary` in words, followed by what the lower bound and the estimate each mean."""
        return f"{self.summary(alpha)}. {ESTIMATE_VS_BOUND}"

    def __str__(self) -> str:
        return str(self.summary())

    def roc_segments(self, lo=None, points=64):
        """The ROC as drawn: every vertex joined to the next by its straight segment, sampled densely.

        The curve between two vertices (0, 0), …, (1, 1) is linear in (FPR, TPR) — what a
        randomised threshold achieves (:mod:`._roc`) — and a straight segment is not straight on
        log axes, so each segment is sampled at ``points`` positions (geometrically spaced in FPR
        when it starts at FPR = 0, the segment out of (0, 0) being a line of slope 1 on log-log
        axes). Points with FPR < ``lo`` (default 1/(2 n_non-members)) or TPR = 0 are dropped: they
        cannot be drawn on log axes. Returns ``(fpr, tpr, vertex_index)``: the sampled curve and
        the positions in it of the ROC's own vertices (for markers).
        """
        lo = 0.5 / max(self.n_nonmembers, 1) if lo is None else float(lo)
        f, t = np.asarray(self.fpr, dtype=float), np.asarray(self.tpr, dtype=float)
        xs, ys, is_vertex = [], [], []
        for i in range(len(f) - 1):
            f0, f1, t0, t1 = f[i], f[i + 1], t[i], t[i + 1]
            if f1 <= f0:  # vertical jump: both ends suffice
                q = np.array([0.0, 1.0])
            elif f0 == 0.0:  # from FPR 0: geometric in FPR, down to the axis limit
                q = np.geomspace(min(lo / f1, 1.0), 1.0, points) if f1 > lo else np.array([1.0])
                q = np.r_[0.0, q]
            else:
                q = np.linspace(0.0, 1.0, points)
            if i > 0:  # the segment's start is the previous segment's end
                q = q[q > 0.0]
            xs.append(f0 + q * (f1 - f0))
            ys.append(t0 + q * (t1 - t0))
            v = q == 1.0
            if i == 0:
                v |= q == 0.0
            is_vertex.append(v)
        x, y, v = np.concatenate(xs), np.concatenate(ys), np.concatenate(is_vertex)
        keep = (x >= lo * (1 - 1e-12)) & (y > 0)
        x, y, v = x[keep], y[keep], v[keep]
        return x, y, np.flatnonzero(v)

    def plot_roc(self, ax=None, label=None, **kwargs):
        """Log-log ROC (Carlini et al.'s view of the low-FPR regime); returns the Axes.

        Drawn as the ROC's straight segments between its vertices, from (0, 0) to (1, 1)
        (:meth:`roc_segments`), with a small marker on each vertex when there are at most 40
        (the operating points of a coarse score), so a coarse-score attack (a
        rule list has a few distinct scores, hence a few vertices) shows as a visible curve and
        not as one or two isolated points. The vertex (0, 0) cannot be drawn on log axes; the x
        range starts at 1/(2 n_non-members).
        """
        import matplotlib.pyplot as plt  # optional dependency: pip install dpmodels[plots]

        if ax is None:
            _, ax = plt.subplots(figsize=(4, 4))
        lab = label if label is not None else f"{self.attack} (AUC {self.auc:.3f})"
        lo = 0.5 / max(self.n_nonmembers, 1)
        x, y, vertices = self.roc_segments(lo)
        # markers only where they are the few operating points of a coarse score (≤ 40 vertices)
        style = dict(marker="o", ms=2.5, markevery=list(vertices)) if 0 < len(vertices) <= 40 else {}
        style.update(kwargs)
        ax.plot(x, y, label=lab, **style)
        ax.plot([lo, 1], [lo, 1], ls="--", color="grey", lw=0.8)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlim(lo, 1)
        ax.set_ylim(lo, 1.05)
        ax.set_xlabel("false positive rate")
        ax.set_ylabel("true positive rate")
        ax.legend(loc="lower right", fontsize="small")
        return ax


def evaluate_scores(scores, membership, attack="custom", record_index=None, params=None, seconds=0.0):
    """Wrap membership scores (higher = more likely member) into a :class:`MembershipInferenceResult`."""
    s = np.asarray(scores, dtype=float).ravel()
    m = np.asarray(membership).ravel().astype(bool)
    fpr, tpr, thr, tp, fp = roc_curve(s, m)
    return MembershipInferenceResult(
        attack=attack,
        scores=s,
        membership=m,
        fpr=fpr,
        tpr=tpr,
        thresholds=thr,
        auc=roc_auc(fpr, tpr),
        record_index=record_index,
        params=dict(params or {}),
        seconds=float(seconds),
        tp=tp,
        fp=fp,
    )


# ---------------------------------------------------------------------------------------- attacks
def regression_loss_attack(model, X_in, y_in, X_out, y_out) -> MembershipInferenceResult:
    """The loss-threshold attack (Yeom et al., 2018) on a regression model: each record's score
    is minus its squared error, −(y − ŷ)², so records the model fits better rank as members. The
    attack a classifier gets from ``log p(y)``, on the loss a regressor has."""
    model = refs.as_model(model)
    n_in, n_out = refs.n_rows(X_in), refs.n_rows(X_out)
    if n_in == 0 or n_out == 0:
        raise ValueError(f"need members and non-members; got {n_in} and {n_out}")
    y = np.concatenate([np.asarray(y_in, dtype=float).ravel(), np.asarray(y_out, dtype=float).ravel()])
    if y.shape[0] != n_in + n_out:
        raise ValueError("X_in/y_in or X_out/y_out differ in length")
    t0 = time.perf_counter()
    pred = np.asarray(model.predict(refs.concat([X_in, X_out])), dtype=float)
    scores = -((y - pred) ** 2)
    member = np.r_[np.ones(n_in, bool), np.zeros(n_out, bool)]
    params = {"attack": "threshold", "loss": "squared error"}
    return evaluate_scores(scores, member, "threshold", np.arange(n_in + n_out), params, time.perf_counter() - t0)


def _features(proba, y, classes):
    """Attack-model input: output vector + one-hot label (as ART's black-box attack)."""
    idx = refs.label_index(y, classes)
    onehot = np.zeros((len(idx), len(classes)))
    ok = idx >= 0
    onehot[np.flatnonzero(ok), idx[ok]] = 1.0
    return np.hstack([proba, onehot])


def _attack_model(seed, n_jobs):
    return RandomForestClassifier(n_estimators=100, random_state=seed, n_jobs=n_jobs)


def split_known_membership(n_in, n_out, fraction, rng):
    """Boolean masks over [members; non-members]: which records train the black-box attack model."""
    train = np.zeros(n_in + n_out, dtype=bool)
    for lo, n in ((0, n_in), (n_in, n_out)):
        k = int(round(fraction * n))
        if k < 1 or k >= n:
            raise ValueError(f"attack_train_fraction={fraction} leaves no records to train or to evaluate")
        train[lo + rng.choice(n, size=k, replace=False)] = True
    return train


def _check_n(value, name, minimum=1):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {value!r}")
    return int(value)


def membership_inference(
    model,
    X_in,
    y_in,
    X_out,
    y_out,
    attack="threshold",
    *,
    learner=None,
    X_pop=None,
    y_pop=None,
    n_reference=None,
    reference_size=None,
    fix_variance="auto",
    clip=1e-6,
    a="auto",
    gamma=1.0,
    attack_train_fraction=0.5,
    max_attack_samples=50_000,
    random_state=None,
    n_jobs=None,
    _cache=None,
) -> MembershipInferenceResult:
    """Run one membership inference attack against a fitted classifier and evaluate it.

    Parameters
    ----------
    model : fitted classifier with ``predict_proba`` and ``classes_``, or a saved model file
        (its path, or a :class:`~dpmodels.io.LoadedModel`): what users publish. Reference
        models then default to the learner the file records (its class from the loader's
        allow-list, its saved parameters, after its saved preprocessing).
    X_in, y_in : audited members (records the target was trained on).
    X_out, y_out : audited non-members (same distribution, not in training).
    attack : one of :data:`ATTACKS` (module docstring).
    learner : unfitted estimator or callable ``seed -> estimator`` for reference / shadow models
        (default: a clone of ``model``). Each fit gets a fresh ``random_state``.
    X_pop, y_pop : the attacker's population data, disjoint from the audited records
        (required by "shadow", "lira-offline", "rmia", "rmia-online"; optional for "lira").
    n_reference : number of reference models (default 64; 16 for "shadow").
    reference_size : training-set size of each reference (default: module docstring).
    fix_variance : LiRA's global-variance option (True, False or "auto").
    clip : LiRA's probability clipping for φ = log(p/(1−p)).
    a, gamma : RMIA's offline coefficient ("auto": tuned on the references) and threshold γ.
    attack_train_fraction : "black-box": share of members and of non-members that train the attack model.
    max_attack_samples : "shadow": cap on the attack model's training rows (random subsample).
    random_state : None (OS entropy) or a seed; drives splits, reference seeds and the attack model.
    n_jobs : joblib workers for reference fits and the random forest.
    """
    spec = _attack_spec(attack)
    model = refs.as_model(model)
    classes, n_in, n_out = _check_inputs(model, X_in, y_in, X_out, y_out, X_pop, y_pop, spec, attack_train_fraction)
    R = _check_n(spec.n_reference if n_reference is None else n_reference, "n_reference", minimum=spec.min_n_reference)
    rng = check_random_state(random_state)
    make = refs.learner_factory(learner, model) if spec.references is not None else None

    X_aud = refs.concat([X_in, X_out])
    y_aud = np.concatenate([np.asarray(y_in).ravel(), np.asarray(y_out).ravel()])
    t0 = time.perf_counter()
    proba_aud = refs.aligned_proba(model, X_aud, classes)
    audit = _Audit(
        attack=attack,
        model=model,
        classes=classes,
        X_aud=X_aud,
        y_aud=y_aud,
        member=np.r_[np.ones(n_in, bool), np.zeros(n_out, bool)],
        proba_aud=proba_aud,
        p_aud=refs.true_class_proba(proba_aud, y_aud, classes),
        params={"attack": attack},
        rng=rng,
        t0=t0,
        n_jobs=n_jobs,
        X_pop=X_pop,
        y_pop=y_pop,
        options=dict(
            fix_variance=fix_variance,
            clip=clip,
            a=a,
            gamma=gamma,
            attack_train_fraction=attack_train_fraction,
            max_attack_samples=max_attack_samples,
        ),
    )
    if spec.references is None:
        return spec.run(audit, None)
    bank = _reference_bank(
        spec.references, make, X_aud, y_aud, X_pop, y_pop, R, reference_size, n_in, classes, rng, n_jobs, _cache
    )
    audit.params.update(n_reference=R, reference_size=bank["size"], pool=len(bank["y_pool"]))
    return spec.run(audit, bank)


def _check_inputs(model, X_in, y_in, X_out, y_out, X_pop, y_pop, spec, attack_train_fraction):
    """The target's classes and the numbers of members and non-members, after checking every input
    (one clear error before any fit)."""
    if not hasattr(model, "predict_proba"):
        raise TypeError(f"membership inference needs predict_proba; {type(model).__name__} has none")
    classes = np.asarray(getattr(model, "classes_", []))
    if classes.size == 0:
        raise TypeError("the target must be fitted and expose classes_")
    n_in, n_out = refs.n_rows(X_in), refs.n_rows(X_out)
    if n_in == 0 or n_out == 0:
        raise ValueError(f"need members and non-members; got {n_in} and {n_out}")
    if len(np.asarray(y_in).ravel()) != n_in or len(np.asarray(y_out).ravel()) != n_out:
        raise ValueError("X_in/y_in or X_out/y_out differ in length")
    if spec.needs_population and (X_pop is None or y_pop is None):
        raise ValueError(f"attack {spec.name!r} needs population data X_pop, y_pop (disjoint from the audited records)")
    if (X_pop is None) != (y_pop is None):
        raise ValueError("pass both X_pop and y_pop, or neither")
    if X_pop is not None and refs.n_rows(X_pop) != len(np.asarray(y_pop).ravel()):
        raise ValueError("X_pop and y_pop differ in length")
    if not 0.0 < float(attack_train_fraction) < 1.0:
        raise ValueError(f"attack_train_fraction must be in (0, 1), got {attack_train_fraction!r}")
    return classes, n_in, n_out


@dataclass
class _Audit:
    """What an attack reads: the target's outputs on the audited records [members; non-members],
    the attacker's population data and randomness, and the attack's options; ``params`` collects
    what the result reports."""

    attack: str
    model: Any
    classes: np.ndarray
    X_aud: Any
    y_aud: np.ndarray
    member: np.ndarray
    proba_aud: np.ndarray
    p_aud: np.ndarray  # the target's probability of each audited record's label
    params: dict
    rng: np.random.Generator
    t0: float
    n_jobs: int | None
    X_pop: Any
    y_pop: Any
    options: dict

    def result(self, scores, member=None, index=None) -> MembershipInferenceResult:
        """The attack's result on every audited record (or on ``member`` at ``index``)."""
        member = self.member if member is None else member
        index = np.arange(len(self.member)) if index is None else index
        return evaluate_scores(scores, member, self.attack, index, self.params, time.perf_counter() - self.t0)

    def attack_model_seed(self) -> int:
        return int(self.rng.integers(2**31 - 1))


def _threshold(a: _Audit, bank) -> MembershipInferenceResult:
    return a.result(np.log(np.maximum(a.p_aud, 1e-300)))


def _black_box(a: _Audit, bank) -> MembershipInferenceResult:
    fraction = float(a.options["attack_train_fraction"])
    n_in = int(a.member.sum())
    train = split_known_membership(n_in, len(a.member) - n_in, fraction, a.rng)
    F = _features(a.proba_aud, a.y_aud, a.classes)
    clf = _attack_model(a.attack_model_seed(), a.n_jobs).fit(F[train], a.member[train])
    a.params["attack_train_fraction"] = fraction
    return a.result(_member_proba(clf, F[~train]), a.member[~train], np.flatnonzero(~train))


def _shadow(a: _Audit, bank) -> MembershipInferenceResult:
    keep, y_pool = bank["keep"], bank["y_pool"]
    proba_pool = bank["proba"][:, len(a.member) :]  # offline bank: outputs on [audited; pool]
    F_rows, lab_rows = [], []
    for r in range(len(keep)):
        F_pool = _features(proba_pool[r], y_pool, a.classes)
        i_in, i_out = np.flatnonzero(keep[r]), np.flatnonzero(~keep[r])
        m = min(len(i_in), len(i_out))
        i_in = a.rng.choice(i_in, size=m, replace=False)
        i_out = a.rng.choice(i_out, size=m, replace=False)
        F_rows.append(F_pool[np.r_[i_in, i_out]])
        lab_rows.append(np.r_[np.ones(m, bool), np.zeros(m, bool)])
    Ftr, ltr = np.vstack(F_rows), np.concatenate(lab_rows)
    cap = a.options["max_attack_samples"]
    if len(ltr) > cap:
        sub = a.rng.choice(len(ltr), size=int(cap), replace=False)
        Ftr, ltr = Ftr[sub], ltr[sub]
    clf = _attack_model(a.attack_model_seed(), a.n_jobs).fit(Ftr, ltr)
    a.params["attack_rows"] = int(len(ltr))
    return a.result(_member_proba(clf, _features(a.proba_aud, a.y_aud, a.classes)))


def _reference_proba(a: _Audit, bank, online):
    """The references' probability of the label on the audited records and on the pool, and which
    references trained on each audited record: ``(p_ref_aud, in_aud, p_ref_pool)``."""
    n_aud, keep = len(a.member), bank["keep"]
    if online:  # pool = [audited; population]; outputs on the pool
        p_ref_pool = refs.true_class_proba(bank["proba"], bank["y_pool"], a.classes)
        return p_ref_pool[:, :n_aud], keep[:, :n_aud], p_ref_pool
    # pool = population; outputs on [audited; pool]; audited records are OUT everywhere
    p_ref_all = refs.true_class_proba(bank["proba"], np.concatenate([a.y_aud, bank["y_pool"]]), a.classes)
    p_ref_aud = p_ref_all[:, :n_aud]
    return p_ref_aud, np.zeros_like(p_ref_aud, dtype=bool), p_ref_all[:, n_aud:]


def _lira(a: _Audit, bank, online) -> MembershipInferenceResult:
    p_ref_aud, in_aud, _ = _reference_proba(a, bank, online)
    fix_variance, clip = a.options["fix_variance"], a.options["clip"]
    phi_t = logit_confidence(a.p_aud, clip)
    phi_r = logit_confidence(p_ref_aud, clip)
    if online:
        scores = lira_online(phi_t, phi_r, in_aud, fix_variance=fix_variance)
    else:
        scores = lira_offline(phi_t, phi_r, fix_variance=fix_variance)
    a.params.update(fix_variance=fix_variance, clip=clip)
    return a.result(scores)


def _rmia(a: _Audit, bank, online) -> MembershipInferenceResult:
    p_ref_aud, in_aud, p_ref_pool = _reference_proba(a, bank, online)
    n_aud, keep, y_pool, gamma = len(a.member), bank["keep"], bank["y_pool"], a.options["gamma"]
    # z = the population records (offline: the pool; online: the pool's population part)
    if online:
        if len(y_pool) == n_aud:
            raise ValueError("rmia-online needs population data X_pop for the z sample")
        X_z, y_z = a.X_pop, np.asarray(a.y_pop).ravel()
        p_ref_z, in_z = p_ref_pool[:, n_aud:], keep[:, n_aud:]
    else:
        X_z, y_z = bank["X_pool"], y_pool
        p_ref_z, in_z = p_ref_pool, keep
    p_z = refs.true_class_proba(refs.aligned_proba(a.model, X_z, a.classes), y_z, a.classes)
    a_used, a_auc = (0.0, {})
    if not online:
        if a.options["a"] == "auto":
            a_used, a_auc = tune_rmia_a(p_ref_pool, keep, gamma=gamma, rng=a.rng)
        else:
            a_used = float(a.options["a"])
    scores = rmia_scores(a.p_aud, p_ref_aud, in_aud, p_z, p_ref_z, in_z, a=a_used, gamma=gamma, online=online)
    a.params.update(a=a_used, gamma=gamma, n_z=int(len(p_z)), a_auc=a_auc)
    return a.result(scores)


@dataclass(frozen=True)
class _Attack:
    """One row of the attack table: how the attack scores the audited records and what it needs."""

    name: str
    run: Callable[[_Audit, Any], MembershipInferenceResult]
    references: str | None = None  # "online" / "offline" reference models (:func:`_reference_bank`), or none
    needs_population: bool = False
    n_reference: int = 64  # default number of reference models
    min_n_reference: int = 1


# the attacks, in the order of :data:`ATTACKS` (module docstring)
_ATTACK_TABLE = (
    _Attack("threshold", _threshold),
    _Attack("black-box", _black_box),
    _Attack("shadow", _shadow, "offline", needs_population=True, n_reference=16, min_n_reference=2),
    _Attack("lira", functools.partial(_lira, online=True), "online", min_n_reference=2),
    _Attack("lira-offline", functools.partial(_lira, online=False), "offline", needs_population=True),
    _Attack("rmia", functools.partial(_rmia, online=False), "offline", needs_population=True),
    _Attack("rmia-online", functools.partial(_rmia, online=True), "online", needs_population=True, min_n_reference=2),
)
_ATTACK_SPECS = {spec.name: spec for spec in _ATTACK_TABLE}
ATTACKS = tuple(_ATTACK_SPECS)  # "threshold", "black-box", "shadow", "lira", "lira-offline", "rmia", "rmia-online"
NEEDS_POPULATION = tuple(spec.name for spec in _ATTACK_TABLE if spec.needs_population)


def _attack_spec(attack) -> _Attack:
    if attack not in _ATTACK_SPECS:
        raise ValueError(f"unknown attack {attack!r}; choose one of {ATTACKS}")
    return _ATTACK_SPECS[attack]


def _reference_bank(kind, make, X_aud, y_aud, X_pop, y_pop, R, reference_size, n_in, classes, rng, n_jobs, cache):
    """Reference models of one kind, fitted once (and shared through ``cache`` by the suite).

    "online": pool = [audited; population], outputs on the pool. "offline": pool = population,
    outputs on [audited; pool].
    """
    key = (kind, R, reference_size)
    if cache is not None and key in cache:
        return cache[key]
    n_pop = 0 if X_pop is None else refs.n_rows(X_pop)
    if kind == "online":
        X_pool = refs.concat([X_aud, X_pop]) if n_pop else X_aud
        y_pool = np.concatenate([y_aud, np.asarray(y_pop).ravel()]) if n_pop else y_aud
    else:
        X_pool, y_pool = X_pop, np.asarray(y_pop).ravel()
    N = len(y_pool)
    size = reference_size if reference_size is not None else min(n_in, int(0.8 * N))
    size = _check_n(size, "reference_size")
    if size >= N:
        raise ValueError(f"reference_size={size} must be smaller than the pool ({N} records)")
    keep = refs.inclusion_matrix(N, R, size, rng)
    X_eval = X_pool if kind == "online" else refs.concat([X_aud, X_pool])
    proba = refs.fit_references(make, X_pool, y_pool, keep, X_eval, classes, rng, n_jobs)
    bank = {"keep": keep, "proba": proba, "X_pool": X_pool, "y_pool": y_pool, "size": size}
    if cache is not None:
        cache[key] = bank
    return bank


def membership_inference_suite(model, X_in, y_in, X_out, y_out, attacks=ATTACKS, **kwargs) -> dict:
    """Run several attacks, sharing their reference models; returns ``{attack: result}``.

    The online attacks ("lira", "rmia-online") share one set of references, the offline ones
    ("shadow", "lira-offline", "rmia") another, so every attack sees the same references and the
    cost is two reference sets instead of one per attack. ``n_reference`` applies to all (shadow
    included). Keyword arguments as :func:`membership_inference`; attacks needing population data
    are skipped when ``X_pop`` is not given.
    """
    unknown = [a for a in attacks if a not in ATTACKS]
    if unknown:
        raise ValueError(f"unknown attacks {unknown}; choose from {ATTACKS}")
    rng = check_random_state(kwargs.pop("random_state", None))
    model = refs.as_model(model)  # a file is read once for all the attacks
    if kwargs.get("n_reference") is None:
        kwargs["n_reference"] = 64
    cache: dict = {}
    out = {}
    for attack in attacks:
        if attack in NEEDS_POPULATION and kwargs.get("X_pop") is None:
            continue
        out[attack] = membership_inference(
            model, X_in, y_in, X_out, y_out, attack, random_state=rng, _cache=cache, **kwargs
        )
    return out


def _member_proba(clf, F):
    p = clf.predict_proba(F)
    cls = list(clf.classes_)
    return p[:, cls.index(True)] if True in cls else np.zeros(len(F))
