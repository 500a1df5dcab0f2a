"""Provable robustness of differentially private learners to data poisoning (paper 002, Sec. V).

Bounds
------
Paper 002 (Vos et al., *Differentially-Private Decision Trees and Provable Robustness to Data
Poisoning*) takes Theorem 4 from Ma, Zhu & Hsu (2019, "Data poisoning against differentially-
private learners"): for an ε-DP learner M, an attack cost J(D) = E[C(M(D))] with C ≥ 0 and a
poisoned dataset D̃ with |D̃ ⊖ D| ≤ x,

    J(D̃) ≥ e^{−xε} J(D)                                                    (paper 002, Eq. 11)

which gives

* **Corollary 2** (accuracy):  E[Acc(M(D̃))] ≥ e^{−xε} · E[Acc(M(D))]
* **Corollary 3** (backdoor):  E[ASR(M(D̃))] ≤ 1 − e^{−xε} · E[1 − ASR(M(D))]

Both are the group-privacy property of DP applied to a bounded statistic. We also give the
(ε, δ) version, derived here (paper 002 states only the pure case). Group privacy: if M is
(ε, δ)-DP and D, D̃ differ in x records (add/remove), chaining x neighbours gives

    P[M(D) ∈ S] ≤ e^{xε} P[M(D̃) ∈ S] + δ_x,   δ_x = δ · Σ_{i=0}^{x−1} e^{iε} = δ (e^{xε} − 1)/(e^ε − 1).

For a cost C with values in [0, 1], E[C] = ∫_0^1 P[C > t] dt, so
E[C(M(D))] ≤ e^{xε} E[C(M(D̃))] + δ_x, i.e.

    E[C(M(D̃))] ≥ e^{−xε} (E[C(M(D))] − δ_x),

clipped at 0. With δ = 0 this is Eq. 11; C = accuracy gives Corollary 2, C = 1 − ASR gives
Corollary 3.

What the bounds mean, and what they do not:

* ``x`` is the size of the symmetric difference (records inserted or removed): the neighbouring
  relation of the add/remove DP the models use. A *modified* record is a removal plus an insertion
  and counts 2. The backdoor attack of Fig. 4 only inserts, so x = number of poisoned copies.
* The bounds are on *expectations over the learner's randomness*. Paper 002 plugs in an empirical
  mean test accuracy for E[Acc(M(D))] (50 random splits for Fig. 3; 5-fold CV for Table III); the
  result inherits that estimate's sampling error, so it is an estimate of a guarantee, not itself a
  certified number. Paper 002 takes x = ⌊fraction · n_train⌋ (we checked this against Table III /
  VIII: e.g. adult, ε = 0.01, accuracy .77 → .54 at 0.1 % needs x = 36 ≈ ⌊0.001 · 36 177⌋).
* DPA's certificate (:func:`dpmodels.tree.baselines.dpa_certificates`) is per prediction and
  deterministic; its "guaranteed accuracy" at x is the fraction of test points predicted correctly
  with certificate ≥ x.

Experiments
-----------
:mod:`dpmodels.experiments.paper_002` runs them (paper 002's Fig. 3 / Tables III and VIII and the
backdoor of Fig. 4: its modules ``poisoning_curves``, ``guarantees`` and ``backdoor``); the registry ids ``002-fig3``, ``002-fig4``, ``002-table3`` and ``002-table8``
redraw the paper's results on the bundled OpenML files and MNIST 0 vs 1 (``load_digits_01`` is
the small 8×8 stand-in kept for quick runs).
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

__all__ = [
    "group_privacy_delta",
    "accuracy_lower_bound",
    "attack_success_upper_bound",
    "n_poisoned_from_fraction",
    "dpa_certified_accuracy",
    "load_digits_01",
    "apply_trigger",
    "poison_backdoor",
    "attack_success_rate",
    "make_private_learner",
]


# --------------------------------------------------------------------------- bounds
def _out(a):
    a = np.asarray(a, dtype=float)
    return float(a) if a.ndim == 0 else a


def _check_args(x, epsilon, delta):
    x = np.asarray(x, dtype=float)
    eps = np.asarray(epsilon, dtype=float)
    d = np.asarray(delta, dtype=float)
    if np.any(~np.isfinite(x)) or np.any(x < 0) or np.any(x != np.floor(x)):
        raise ValueError("the number of poisoned records x must be a non-negative integer")
    if np.any(~np.isfinite(eps)) or np.any(eps <= 0):
        raise ValueError("epsilon must be finite and > 0")
    if np.any(d < 0) or np.any(d >= 1) or np.any(~np.isfinite(d)):
        raise ValueError("delta must be in [0, 1)")
    return x, eps, d


def group_privacy_delta(x, epsilon, delta=0.0):
    """δ_x = δ · Σ_{i<x} e^{iε} = δ (e^{xε} − 1)/(e^ε − 1): the δ of an (ε, δ)-DP learner at distance x.

    Vectorised (NumPy broadcasting). ``group_privacy_delta(0, ε, δ) == 0``.
    """
    x, eps, d = _check_args(x, epsilon, delta)
    with np.errstate(over="ignore", invalid="ignore"):
        ratio = np.expm1(x * eps) / np.expm1(eps)  # may overflow to inf: then δ_x = inf
        out = np.where(d == 0, 0.0, d * np.where(x == 0, 0.0, ratio))
    return _out(out)


def _bounded_cost_lower_bound(clean, x, epsilon, delta):
    clean = np.asarray(clean, dtype=float)
    if np.any(~np.isfinite(clean)) or np.any((clean < 0) | (clean > 1)):
        raise ValueError("clean accuracy / attack success rate must lie in [0, 1]")
    x, eps, d = _check_args(x, epsilon, delta)
    dx = np.asarray(group_privacy_delta(x, eps, d))
    with np.errstate(over="ignore", invalid="ignore"):
        val = np.where(dx >= clean, 0.0, np.exp(-x * eps) * (clean - dx))
    return np.clip(val, 0.0, 1.0)


def accuracy_lower_bound(clean_accuracy, n_poisoned, epsilon, delta=0.0):
    """Guaranteed expected accuracy under ``n_poisoned`` poisoned records (paper 002, Corollary 2).

    E[Acc(M(D̃))] ≥ e^{−xε} · E[Acc(M(D))]   for an ε-DP learner M and |D̃ ⊖ D| ≤ x,

    generalised to (ε, δ)-DP as e^{−xε}(E[Acc(M(D))] − δ_x) with δ_x = δ(e^{xε} − 1)/(e^ε − 1)
    (see the module docstring), clipped to [0, 1]. All arguments broadcast.

    >>> round(accuracy_lower_bound(0.77, 36, 0.01), 3)   # paper 002, Table VIII, adult, ε=0.01
    0.537
    """
    return _out(_bounded_cost_lower_bound(clean_accuracy, n_poisoned, epsilon, delta))


def attack_success_upper_bound(clean_asr, n_poisoned, epsilon, delta=0.0):
    """Upper bound on the expected backdoor attack success rate (paper 002, Corollary 3).

    E[ASR(M(D̃))] ≤ 1 − e^{−xε} · E[1 − ASR(M(D))]   for an ε-DP learner and x inserted records,

    generalised to (ε, δ)-DP as 1 − e^{−xε}(1 − E[ASR(M(D))] − δ_x), clipped to [0, 1].
    ``clean_asr`` is the ASR of models trained on the clean data (trigger added at test time only).

    >>> round(attack_success_upper_bound(0.0, 10, 0.1), 4)   # 1 − e^{−1}
    0.6321
    """
    asr = np.asarray(clean_asr, dtype=float)
    if np.any(~np.isfinite(asr)) or np.any((asr < 0) | (asr > 1)):
        raise ValueError("clean attack success rate must lie in [0, 1]")
    return _out(1.0 - _bounded_cost_lower_bound(1.0 - asr, n_poisoned, epsilon, delta))


def n_poisoned_from_fraction(fraction, n_train):
    """x = ⌊fraction · n_train⌋, the convention behind paper 002's Table III / VIII."""
    f = np.asarray(fraction, dtype=float)
    n = np.asarray(n_train, dtype=float)
    if np.any(f < 0) or np.any(n < 0):
        raise ValueError("fraction and n_train must be >= 0")
    # the small tolerance keeps e.g. 0.001 * 3000 = 2.9999999999999996 from flooring to 2
    out = np.floor(f * n + 1e-9).astype(np.int64)
    return int(out) if out.ndim == 0 else out


def dpa_certified_accuracy(correct, certificates, n_poisoned):
    """Fraction of rows that are correct and certified for ≥ x poisoned records, for each x."""
    c = np.asarray(correct, dtype=bool)
    r = np.asarray(certificates)
    x = np.atleast_1d(np.asarray(n_poisoned))
    return (c[None, :] & (r[None, :] >= x[:, None])).mean(axis=1)


# --------------------------------------------------------------------------- backdoor data
TRIGGER_SIZE = 2
DIGITS_MAX = 16.0


def load_digits_01():
    """scikit-learn's bundled 8×8 digits restricted to 0 vs 1 (the offline stand-in for MNIST 0/1).

    Returns ``X`` (n, 64) float with grey levels 0–16 and ``y`` in {0, 1}.
    """
    from sklearn.datasets import load_digits

    d = load_digits()
    keep = d.target <= 1
    return d.data[keep].astype(float), d.target[keep].astype(int)


def apply_trigger(X, image_shape=(8, 8), size=TRIGGER_SIZE, value=DIGITS_MAX):
    """Copy of X (flattened images) with the bottom-right ``size``×``size`` pixels set to ``value``."""
    X = np.array(X, dtype=float, copy=True)
    h, w = image_shape
    if X.ndim != 2 or X.shape[1] != h * w:
        raise ValueError(f"X must have shape (n, {h * w})")
    imgs = X.reshape(-1, h, w)
    imgs[:, h - size :, w - size :] = value
    return imgs.reshape(X.shape[0], h * w)


def poison_backdoor(X, y, n_poisoned, rng, source_class=0, target_class=1, **trigger_kw):
    """BadNets-style poisoning (paper 002, Sec. VI-C): append ``n_poisoned`` triggered copies of
    randomly chosen ``source_class`` training images, labelled ``target_class``."""
    X = np.asarray(X, dtype=float)
    y = np.asarray(y)
    if n_poisoned <= 0:
        return X.copy(), y.copy()
    src = np.flatnonzero(y == source_class)
    pick = rng.choice(src, size=int(n_poisoned), replace=len(src) < n_poisoned)
    Xp = apply_trigger(X[pick], **trigger_kw)
    yp = np.full(int(n_poisoned), target_class, dtype=y.dtype)
    return np.vstack([X, Xp]), np.concatenate([y, yp])


def attack_success_rate(model, X_test, y_test, source_class=0, target_class=1, **trigger_kw):
    """Fraction of test images of ``source_class`` predicted ``target_class`` once triggered."""
    src = np.asarray(y_test) == source_class
    if not src.any():
        return float("nan")
    pred = model.predict(apply_trigger(np.asarray(X_test)[src], **trigger_kw))
    return float(np.mean(pred == target_class))


# --------------------------------------------------------------------------- learners
def _public_bounds(X):
    """Feature bounds declared public for the experiments (taken from the whole dataset, as the
    paper's experiments do; a deployment would use domain knowledge)."""
    if isinstance(X, pd.DataFrame):
        num = X.select_dtypes(include="number")
        return num.min().to_numpy(float), num.max().to_numpy(float)
    A = np.asarray(X, dtype=float)
    return A.min(axis=0), A.max(axis=0)


PRIVATE_METHODS = ("privatree", "dp_logreg", "bdpt", "dpgdf", "diffprivlib_tree")


def make_private_learner(method, epsilon, *, max_depth=4, bounds=None, classes=None, seed=None):
    """An unfitted ε-DP learner by name (the learners the poisoning experiments compare).

    ``bounds`` (numerical features) and ``classes`` are passed as public inputs.
    """
    if method == "privatree":
        from dpmodels.tree.privatree import PrivaTreeClassifier

        kw = dict(epsilon=epsilon, max_depth=max_depth, random_state=seed, classes=classes)
        if bounds is not None:
            kw["bounds"] = bounds
        return PrivaTreeClassifier(**kw)
    if method == "dp_logreg":
        from dpmodels.tree.baselines import DPLogisticRegression

        return DPLogisticRegression(epsilon=epsilon, standardize=True, classes=classes, random_state=seed)
    if method == "bdpt":
        from dpmodels.tree.baselines import BDPTClassifier

        return BDPTClassifier(epsilon=epsilon, max_depth=max_depth, bounds=bounds, classes=classes, random_state=seed)
    if method == "dpgdf":
        from dpmodels.tree.baselines import DPGDFClassifier

        return DPGDFClassifier(epsilon=epsilon, max_depth=max_depth, classes=classes, random_state=seed)
    if method == "diffprivlib_tree":
        from dpmodels.tree.baselines import DiffprivlibTreeClassifier

        return DiffprivlibTreeClassifier(
            epsilon=epsilon, max_depth=max_depth, classes=classes, random_state=None if seed is None else seed % (2**31)
        )
    raise ValueError(f"unknown private method {method!r}; choose from {PRIVATE_METHODS}")


def _fit_quiet(model, X, y):
    from dpmodels.privacy.ledger import PrivacyLeakWarning

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)
        try:  # diffprivlib's own leak warning class, if it is installed
            from diffprivlib.utils import PrivacyLeakWarning as DPLLeak

            warnings.simplefilter("ignore", DPLLeak)
        except Exception:  # noqa: BLE001
            pass
        return model.fit(X, y)
