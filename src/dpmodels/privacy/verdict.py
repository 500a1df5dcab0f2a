"""One verdict for every fitted object: is it private, and if not, why (docs/privacy.md, "One verdict").

A privacy library that prints PRIVATE wrongly is worse than none, and a verdict computed in several
places drifts apart: the command line, the model file, the printed header and the audit report must
say the same thing about the same model. :func:`verdict` is the one place that decides, for any
fitted object — a DP estimator, a scikit-learn ``Pipeline`` of DP steps, a :class:`PrivateSearch` /
:class:`ProxySearch`, a loaded model file (:func:`dpmodels.io.load_model`), a bare
:class:`PrivacyLedger` — from three things only:

1. **its ledger rows** (all steps' ledgers, each release counted once): every row must be a
   *proven* DP release and the totals within the budget (:attr:`PrivacyLedger.is_private`; a leak
   row — a public input read from the data, including a declaration whose source is the data —
   makes it False);
2. **its seeds**: a part whose noise was drawn from a seeded ``random_state`` is not private
   against whoever knows the seed (PRIVACY-NOTES 11): a seeded learner, a seeded Binarizer step, a
   seeded search, a model file that says ``noise_seeded``;
3. **its parts without a ledger**: a final learner without one is not a private learner; a fitted
   intermediate step without one (a scikit-learn scaler, say) learned something from the data that
   no ledger accounts for.

A composition is private only if every part is. :func:`is_private` is ``verdict(obj).is_private``.

:func:`check_private_trials` is the rule a private selection needs before any trial runs
(PRIVACY-NOTES 25): each trial must be a proven, pure ε_t-DP release with every input declared.
It asks the estimator itself — one fit of each candidate on a *public probe*, a few synthetic rows
built from the declarations and the column names only — and reads that fit's ledger: a leak row
(an input the estimator would read from the data), a claimed or non-DP row, a δ > 0 or more than
ε_t spent refuses the candidate. The probe never reads a record, so the refusal is the same on
every pair of neighbouring datasets, and a new estimator class is covered without a list of its
parameters: whatever its fit would read from the data, it records as a leak on the probe too.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np

from .ledger import PrivacyLedger

__all__ = [
    "Verdict",
    "verdict",
    "is_private",
    "verdict_from",
    "combined_ledger",
    "ledger_faults",
    "check_private_trials",
    "PROBE_EPSILON",
]

_REL_TOL = 1e-9


@dataclass(frozen=True)
class Verdict:
    """``is_private`` and the reasons, one line each (``PRIVATE: …`` or ``NOT PRIVATE …`` lines)."""

    is_private: bool
    reasons: tuple[str, ...] = field(default_factory=tuple)

    def __bool__(self) -> bool:
        return self.is_private

    def __str__(self) -> str:
        return "\n".join(self.reasons)


def verdict_from(
    ledger: PrivacyLedger | None,
    *,
    private_learner: bool | None = True,
    seeded: Sequence[str] = (),
    unaccounted: Sequence[str] = (),
) -> Verdict:
    """The verdict of one fitted thing from its parts (module docstring): its (combined) ``ledger``
    (None: none kept), whether its final learner keeps a ledger (``None``: unknown, a bare model
    file), the parts whose noise was ``seeded`` and the fitted parts that kept no ledger
    (``unaccounted``). Every printed or saved verdict of dpmodels comes from here."""
    reasons: list[str] = []
    if ledger is None:
        if private_learner is None:
            reasons.append("privacy unknown: a bare model file (no ledger)")
        else:
            reasons.append("NOT PRIVATE: a non-private learner (no privacy ledger).")
    elif private_learner is False:
        reasons.append("NOT PRIVATE: a non-private learner (the ledger covers the preprocessing only).")
    if ledger is not None and not ledger.is_private:
        reasons.extend(ledger.verdict())
    if unaccounted:
        reasons.append(
            "NOT PRIVATE: fitted on the data without a privacy ledger (what they learned is not accounted): "
            + ", ".join(unaccounted)
        )
    if seeded:
        reasons.append(
            "NOT PRIVATE against whoever knows the seed: the noise of "
            + " and ".join(seeded)
            + " was drawn from a seeded random_state."
        )
    if reasons:
        return Verdict(False, tuple(reasons))
    assert ledger is not None
    return Verdict(True, tuple(ledger.verdict()))


def combined_ledger(ledgers: Iterable[PrivacyLedger | None]) -> PrivacyLedger | None:
    """One ledger for the parts of a composition: the shared one when every part holds the same
    ledger object, else all rows under the summed budgets (sequential composition: every part read
    the same records). A part's ledger that a later part already merged (a Binarizer's releases
    carried by its output, :func:`dpmodels.privacy.accountant.ledger_for_fit`) is counted once."""
    uniq: list[PrivacyLedger] = []
    for led in ledgers:
        if led is not None and all(led is not u for u in uniq):
            uniq.append(led)
    merged = set().union(*(u.includes_releases for u in uniq))
    uniq = [u for u in uniq if u.release_id is None or u.release_id not in merged] or uniq
    if not uniq:
        return None
    if len(uniq) == 1:
        return uniq[0]
    out = PrivacyLedger(sum(u.epsilon for u in uniq), sum(u.delta for u in uniq))
    out.rows = [r for u in uniq for r in u.rows]
    return out


def _seeded(obj) -> bool:
    try:
        params = obj.get_params(deep=False)
    except (AttributeError, TypeError):
        return getattr(obj, "random_state", None) is not None
    return params.get("random_state") is not None


def _stateless(step) -> bool:
    """A step whose fit reads nothing from the data (so it needs no ledger)."""
    from sklearn.preprocessing import FunctionTransformer

    if isinstance(step, FunctionTransformer):
        return True
    tags = getattr(step, "__sklearn_tags__", None)
    try:
        return tags is not None and not tags().requires_fit
    except Exception:  # noqa: BLE001 - a third-party step whose tags fail: treat as stateful
        return False


def _parts(obj, name: str | None = None):
    """``(ledgers, private_learner, seeded, unaccounted)`` of a fitted object (module docstring)."""
    from sklearn.pipeline import Pipeline

    label = name or type(obj).__name__
    if isinstance(obj, PrivacyLedger):
        return [obj], True, [], []
    if hasattr(obj, "ledger") and isinstance(getattr(obj, "ledger", None), PrivacyLedger):  # BudgetAccountant
        return [obj.ledger], True, [], []
    if _is_loaded_model(obj):
        privacy = obj.privacy or {}
        pl = privacy.get("private_learner")
        led = obj.privacy_ledger_
        seeded = ["the saved model (its file says noise_seeded)"] if privacy.get("noise_seeded") else []
        learner: bool | None = bool(pl) if pl is not None else (None if led is None else True)
        return [led], learner, seeded, []
    if isinstance(obj, Pipeline):
        ledgers: list = []
        seeds: list = []
        unaccounted: list = []
        steps = [(n, s) for n, s in obj.steps if s is not None and not (isinstance(s, str) and s == "passthrough")]
        learner_private: bool | None = False
        for k, (_n, s) in enumerate(steps):
            last = k == len(steps) - 1
            sub_led, sub_pl, sub_seed, sub_un = _parts(s, f"{type(s).__name__} (pipeline step {k + 1})")
            ledgers.extend(sub_led)
            seeds.extend(sub_seed)
            unaccounted.extend(sub_un)
            if last:
                learner_private = sub_pl
            elif not any(sub_led) and not _stateless(s):
                unaccounted.append(f"{type(s).__name__} (pipeline step {k + 1})")
        return ledgers, learner_private, seeds, unaccounted
    led = getattr(obj, "privacy_ledger_", None)
    if led is None:
        from sklearn.utils.validation import check_is_fitted

        check_is_fitted(obj)  # an unfitted estimator has no verdict yet (NotFittedError)
        if hasattr(obj, "best_estimator_"):  # e.g. GridSearchCV: fold scores and the choice are exact
            return [], True, [], [f"{label} (its choice among fits on the private data)"]
        return [], False, [], []
    inner = getattr(obj, "best_estimator_", None)
    seeded = [label] if _seeded(obj) else []
    if inner is not None and inner is not obj:  # a search: its ledger holds the trials' and the fit's rows
        seeded += [f"{label}'s chosen {type(inner).__name__}"] if _seeded(inner) and not seeded else []
    return [led], True, seeded, []


def _is_loaded_model(obj) -> bool:
    """A model read from a file (:class:`dpmodels.io.LoadedModel` marks itself; the privacy layer
    does not import the layer above it)."""
    return getattr(type(obj), "_dpmodels_loaded_model", False) is True


def verdict(obj) -> Verdict:
    """The verdict of any fitted object of dpmodels (module docstring)."""
    ledgers, private_learner, seeded, unaccounted = _parts(obj)
    return verdict_from(
        combined_ledger(ledgers), private_learner=private_learner, seeded=seeded, unaccounted=unaccounted
    )


def is_private(obj) -> bool:
    """``verdict(obj).is_private``: True only if every part of ``obj`` is private (module docstring)."""
    return verdict(obj).is_private


# --------------------------------------------------------------------------- trials of a selection
def ledger_faults(ledger: PrivacyLedger, epsilon: float, *, pure: bool = True) -> list[str]:
    """Why a fit with this ``ledger`` is not a proven ``epsilon``-DP release with every input
    declared (pure: δ = 0 too), one phrase per fault; [] when it is."""
    out = [f"reads {r.what} from the data" for r in ledger.leaks]
    out += [f"uses {r.mechanism} for {r.what}, whose DP guarantee is only claimed" for r in ledger.claimed]
    out += [f"releases {r.what} by {r.mechanism}, not a DP release" for r in ledger.not_dp]
    spent = ledger.epsilon_spent
    if spent > epsilon * (1 + _REL_TOL):
        out.append(f"spends ε={spent:.6g} > ε_t={epsilon:.6g}")
    if pure and ledger.delta_spent > 0:
        out.append(f"spends δ={ledger.delta_spent:.3g} (the tuner's proof needs pure ε-DP trials)")
    return out


def _columns(X) -> tuple[list, bool]:
    """The column keys of ``X`` (its schema, never its rows) and whether it is a DataFrame."""
    cols = getattr(X, "columns", None)
    if cols is not None:
        return list(cols), True
    return [f"x{j}" for j in range(int(np.shape(X)[1]))], False


def _probe(estimator, X, rows: int = 32):
    """A public probe dataset: ``rows`` synthetic records with ``X``'s columns, every value taken
    from ``estimator``'s declarations (declared categories cycled, 0/1 elsewhere), labels from its
    declared ``classes`` / ``label_bounds`` (0/1 without). Reads the column names and pandas
    ``category`` dtypes of ``X`` (declarations), never a record."""
    import pandas as pd
    from sklearn.base import is_regressor

    from .accountant import PROVENANCE_ATTR

    params = estimator.get_params(deep=False)
    cats = params.get("categories") or {}
    classes = params.get("classes")
    if classes is not None:
        rows = max(rows, 2 * len(list(classes)))
    cols, frame = _columns(X)
    data = {}
    for j, c in enumerate(cols):
        dt = X.dtypes.iloc[j] if frame else None
        declared = cats.get(c, cats.get(j)) if isinstance(cats, dict) else None
        if isinstance(dt, pd.CategoricalDtype):
            vals = list(dt.categories) or [None]
            data[c] = pd.Categorical([vals[i % len(vals)] for i in range(rows)], dtype=dt)
        elif declared is not None:
            vals = list(declared) or [None]
            data[c] = np.array([vals[i % len(vals)] for i in range(rows)], dtype=object)
        else:  # numbers clip to declared bounds; 0/1 is every binary learner's domain
            data[c] = ((np.arange(rows) >> (j % 5)) & 1).astype(np.uint8)
    Xp = pd.DataFrame(data, columns=cols)
    if frame:
        Xp.attrs = {k: v for k, v in getattr(X, "attrs", {}).items() if k != PROVENANCE_ATTR}
    else:
        Xp = Xp.to_numpy(dtype=object) if any(v.dtype == object for v in data.values()) else Xp.to_numpy()
    if classes is not None:
        lab = list(classes)
        yp = np.array([lab[i % len(lab)] for i in range(rows)], dtype=object)
        if all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in lab):
            yp = yp.astype(np.int64)
    elif is_regressor(estimator):
        lb = params.get("label_bounds") or (0.0, 1.0)
        yp = np.array([float(lb[i % 2]) for i in range(rows)])
    else:
        yp = np.arange(rows) % 2
    return Xp, yp


#: ε of the probe fits: large enough that every data-dependent gate of an algorithm (a support
#: gate, a stopping threshold) opens on the probe, so the probe's ledger holds every kind of row a
#: fit with these parameters can record
PROBE_EPSILON = 1e3


def check_private_trials(estimator, candidates: Sequence[dict], X, *, epsilon: float, pure: bool = True) -> None:
    """Refuse (one ``ValueError``, nothing fitted on the data, nothing spent) unless every candidate
    configuration of ``estimator`` is a proven DP release with every input declared, pure (δ = 0)
    when ``pure``: the rule of a private selection's trials (module docstring). ``epsilon`` is the
    trial's ε_t (quoted in the message; each trial's own ledger enforces it). Reads ``X``'s column
    names (and pandas ``category`` dtypes, which are declarations) only; fits each candidate once on
    the public probe at :data:`PROBE_EPSILON`."""
    from sklearn.base import clone

    params = estimator.get_params(deep=False)
    if params.get("accountant") is not None:
        raise ValueError(
            f"{type(estimator).__name__} has an accountant: a search's trials spend the search's ε; "
            "give the search its budget instead"
        )
    Xp, yp = _probe(estimator, X)
    seen: dict[str, list] = {}
    for c in candidates:
        est = clone(estimator).set_params(**c, epsilon=PROBE_EPSILON, random_state=0)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # the probe is public: its leak warnings are the ledger's rows
                est.fit(Xp, yp)
        except (ValueError, TypeError) as e:
            first = str(e).splitlines()[0] if str(e) else type(e).__name__
            raise type(e)(f"candidate {c!r}: {first}") from None
        led = getattr(est, "privacy_ledger_", None)
        faults = (
            ["keeps no privacy ledger (not a DP estimator)"] if led is None else ledger_faults(led, math.inf, pure=pure)
        )
        for f in faults:
            seen.setdefault(f, []).append(c)
    if seen:
        why = "; ".join(
            f"{who[0]!r}{'' if len(who) == 1 else f' (and {len(who) - 1} more)'} {f}" for f, who in seen.items()
        )
        raise ValueError(
            f"{type(estimator).__name__} candidates cannot be trials of a private selection (each must be a proven"
            f"{' pure' if pure else ''} ε_t-DP release, ε_t = {epsilon:.6g}, with every input declared): {why}. "
            "Declare classes, categories, bounds, label_bounds or n_public as needed, use a proven mechanism "
            "(docs/privacy.md, 'Which trials a search may run'). Nothing was fitted on the data and nothing spent."
        )
