"""One privacy budget for a whole pipeline: a budget accountant shared by its steps.

A pipeline such as ``make_pipeline(Binarizer(epsilon=0.2, ...), DPRuleListClassifier(epsilon=0.8,
...))`` makes two releases from the same private records: the binarizer's cut points (DP
quantiles) and the rule list. By sequential composition the pipeline is (ε₁ + ε₂, δ₁ + δ₂)-DP, so
its guarantee is one number only if somebody adds the shares and refuses what would exceed the
total. That is the accountant (diffprivlib's ``accountant=`` idea)::

    acc = BudgetAccountant(epsilon=1.0)
    pipe = make_private_pipeline(      # dpmodels.pipeline: every step checked before any spends
        Binarizer(epsilon=0.2, bounds=..., categories=..., accountant=acc),
        DPRuleListClassifier(epsilon=0.8, classes=[0, 1], accountant=acc))
    pipe.fit(X, y)
    print(acc.ledger.summary())       # every release of both steps, one total, one verdict
    pipe[-1].privacy_ledger_ is acc.ledger   # True: each step shows the shared ledger

Rules (what every estimator with ``accountant=`` does, through :func:`ledger_for_fit`):

* With an accountant, an estimator's ``epsilon`` / ``delta`` are the **share** it requests. The
  request is checked against what the accountant has left *when fit starts*, before the data is
  read: a share that does not fit raises :class:`BudgetExceededError` and nothing is spent.
* During the fit the estimator plans with its share (its own budget split is unchanged) and spends
  from a :class:`LedgerShare`: every row is admitted only if it fits both in the share and in the
  accountant, and is recorded in both (the accountant's copy names the estimator). Leak rows are
  recorded in both too, so one leaky step makes the whole pipeline "not private".
* After the fit, the estimator's ``privacy_ledger_`` **is the accountant's ledger** (the same
  object), so ``is_private``, ``summary()`` and the totals are those of the whole pipeline — the
  released model depends on every earlier release (e.g. its columns are the DP cut points).
* A second fit with the same accountant spends more of the total: refitting on the same data is
  another release. Cross-validation or a grid search over estimators sharing an accountant is
  therefore charged for every fit, and stops with :class:`BudgetExceededError` when the total is
  used up (``docs/privacy.md``, "Pipelines", "Resampling and model selection").

**Grants are reserved and atomic.** A granted share is *reserved*: what other fits may request
is the total minus what was spent minus the unspent part of every share still in use, and every
row is admitted and recorded under one lock. So fits running in threads never overshoot the
total. A share is closed (its unspent part returned) when its fit publishes its ledger
(:func:`published_ledger`), or when the share is garbage-collected after a failed fit.

**More than one fit of a learner under one accountant is a selection.** The accountant counts the
fits it granted per estimator class (``fits_granted``). From the second grant to the same class
on, its ledger carries a row with guarantee ``"none"`` ("selection among k fits …"): the total ε
covers publishing *every* one of those models, but choosing one of them — by a grid search's
``best_params_``, by fold scores or by eye — uses scores computed on the private records, which no
ledger row accounts for. So ``best_estimator_.privacy_ledger_.is_private`` is False after a
``GridSearchCV`` under one accountant (``docs/privacy.md``, "Pipelines").

**Earlier releases travel with their output.** A :class:`dpmodels.data.Binarizer` writes what it
released (its own ledger rows, and which accountant it spent from) into its output's
``attrs["dpmodels_provenance"]``. A learner fitted on that frame merges those rows into its ledger
(:func:`ledger_for_fit`): without an accountant, its ledger's budget is its own plus the
binarizer's and its rows include the binarizer's (so a data-quantile binarizer's leak row makes
the learner "NOT PRIVATE"); with an accountant other than the binarizer's, the binarizer's rows
are charged to it once. With the same accountant nothing is merged: the rows are already there.

An accountant is a handle to one budget: :func:`copy.copy` / :func:`copy.deepcopy` (hence
scikit-learn's ``clone``) return the same accountant, so a cloned pipeline still shares — and
spends from — the original budget. Copying a budget would silently double it. For the same
reason an accountant restored by :mod:`pickle` — e.g. sent to a joblib worker *process* by
``cross_val_score(..., n_jobs=2)`` — is **detached**: it keeps its ledger for reading, but refuses
every request, because what a copy in another process spends would never be charged to the
original. Fit estimators that share an accountant in one process (``n_jobs=1``, or a threading
backend), or give a loaded model a new accountant with ``set_params(accountant=...)``.
"""

from __future__ import annotations

import functools
import math
import threading
import uuid
import weakref
from dataclasses import dataclass, field, replace
from typing import Any

from .ledger import (
    BudgetExceededError,
    LedgerRow,
    PrivacyLedger,
    _is_zero,
    check_delta,
    check_epsilon,
)

__all__ = [
    "BudgetAccountant",
    "LedgerShare",
    "ledger_for_fit",
    "published_ledger",
    "check_accountant",
    "PROVENANCE_ATTR",
    "provenance_of",
]

#: ``DataFrame.attrs`` key under which a transformer records the releases its output depends on.
PROVENANCE_ATTR = "dpmodels_provenance"
#: mechanism of the row that marks more than one fit of one estimator class under an accountant
SELECTION_MECHANISM = "selection among fits (not a DP release)"


@dataclass
class LedgerShare(PrivacyLedger):
    """The part (ε, δ) of an accountant's budget one fit may spend; rows go to both ledgers.

    ``epsilon`` / ``delta`` are the share; ``parent`` the accountant's ledger; ``owner`` names the
    estimator in the parent's copy of each row (``"Binarizer: 2 quantiles of 'age'"``).
    """

    parent: PrivacyLedger | None = field(default=None, repr=False)
    owner: str = ""
    accountant: "BudgetAccountant | None" = field(default=None, repr=False, compare=False)

    def _for_parent(self, row: LedgerRow) -> LedgerRow:
        return replace(row, what=f"{self.owner}: {row.what}") if self.owner else row

    def spend(self, *args, **kwargs) -> LedgerRow:
        """:meth:`PrivacyLedger.spend`, admitted and recorded under the accountant's lock."""
        if self.accountant is None:
            return super().spend(*args, **kwargs)
        with self.accountant._lock:
            return super().spend(*args, **kwargs)

    def record_leak(self, *args, **kwargs) -> LedgerRow:
        if self.accountant is None:
            return super().record_leak(*args, **kwargs)
        with self.accountant._lock:
            return super().record_leak(*args, **kwargs)

    def _admit(self, row: LedgerRow) -> None:
        super()._admit(row)  # within the share
        if self.accountant is not None:  # within what the accountant has not given to others
            self.accountant._admit_for(self, self._for_parent(row))
        elif self.parent is not None:
            self.parent._admit(self._for_parent(row))

    def _append(self, row: LedgerRow) -> None:
        super()._append(row)
        if self.parent is not None:
            self.parent._append(self._for_parent(row))

    def check(self) -> None:
        super().check()
        if self.parent is not None:
            self.parent.check()

    def close(self) -> None:
        """Return the unspent part of the share to the accountant (the fit is over)."""
        if self.accountant is not None:
            self.accountant._close(self)

    @property
    def unspent(self) -> tuple[float, float]:
        return (max(0.0, self.epsilon - self.epsilon_spent), max(0.0, self.delta - self.delta_spent))


def _fmt(v: float) -> str:
    return f"{v:.6g}"


def _forget_share(open_shares: dict, key: int, _ref) -> None:
    """Weak-reference callback: a collected share no longer reserves budget."""
    open_shares.pop(key, None)


class BudgetAccountant:
    """A total budget (ε, δ) shared by the steps of a pipeline and by repeated fits.

    Parameters
    ----------
    epsilon : float > 0
        Total ε of everything fitted with this accountant.
    delta : float in [0, 1), default 0
        Total δ.

    Attributes
    ----------
    ledger : PrivacyLedger
        Every release made through the accountant (rows prefixed by the estimator's name), with
        the total budget: ``ledger.is_private``, ``ledger.summary()``.

    >>> acc = BudgetAccountant(1.0)
    >>> share = acc.request(0.25, owner="Binarizer")
    >>> _ = share.spend("2 quantiles of 'age'", "jointexp (exponential)", 0.25, sensitivity=2.0)
    >>> acc.epsilon_spent, acc.epsilon_remaining
    (0.25, 0.75)
    >>> acc.ledger.rows[0].what
    "Binarizer: 2 quantiles of 'age'"
    """

    def __init__(self, epsilon, delta=0.0):
        self.ledger = PrivacyLedger(check_epsilon(epsilon), check_delta(delta))
        self.detached = False
        self.id = uuid.uuid4().hex  # names this budget in the provenance of transformed data
        self.fits_granted: dict[str, int] = {}  # estimator class -> number of fits granted
        self._lock = threading.RLock()
        self._open: dict[int, weakref.ref] = {}  # shares in use: their unspent part is reserved
        self._merged: set[str] = set()  # provenance releases already charged here
        self._selection_rows: dict[str, int] = {}  # owner -> index of its selection row

    # ------------------------------------------------------------------ totals
    @property
    def epsilon(self) -> float:
        return self.ledger.epsilon

    @property
    def delta(self) -> float:
        return self.ledger.delta

    @property
    def epsilon_spent(self) -> float:
        return self.ledger.epsilon_spent

    @property
    def delta_spent(self) -> float:
        return self.ledger.delta_spent

    @property
    def epsilon_remaining(self) -> float:
        return self.ledger.epsilon_remaining

    @property
    def delta_remaining(self) -> float:
        return self.ledger.delta_remaining

    @property
    def epsilon_reserved(self) -> float:
        """ε granted to fits still in use and not spent yet (other requests cannot take it)."""
        with self._lock:
            return self._reserved()[0]

    @property
    def is_private(self) -> bool:
        return self.ledger.is_private

    def summary(self) -> str:
        return self.ledger.summary()

    # ---------------------------------------------------------------- requests
    def request(self, epsilon, delta=0.0, *, owner: str = "", provenance=()) -> LedgerShare:
        """A :class:`LedgerShare` of (ε, δ) for one fit; refused if it exceeds what is left.

        What is left is the total minus what was spent minus the unspent part of the shares still
        in use (reserved). ``epsilon = 0`` is a valid share (a step that releases nothing, e.g.
        public cut points); it still records its leak rows, if any, in the accountant.
        ``provenance``: releases the fit's input depends on (:func:`provenance_of`); those made
        under another accountant (or none) are charged here once, with the share, atomically.
        """
        eps = 0.0 if _is_zero(epsilon) else check_epsilon(epsilon, "epsilon share")
        d = check_delta(delta, "delta share")
        if self.detached:
            raise RuntimeError(
                "this BudgetAccountant was restored by pickle (e.g. sent to a joblib worker "
                "process): what it spent would not be charged to the original budget. Fit "
                "estimators sharing an accountant in one process (n_jobs=1), or give this one a "
                "new accountant with set_params(accountant=...)"
            )
        with self._lock:
            led = self.ledger
            foreign = [p for p in provenance if p["accountant"] != self.id and p["id"] not in self._merged]
            p_eps = math.fsum(p["ledger"].epsilon_spent for p in foreign)
            p_delta = math.fsum(p["ledger"].delta_spent for p in foreign)
            r_eps, r_delta = self._reserved()
            if not led._within(led.epsilon_spent + r_eps + p_eps + eps, led.delta_spent + r_delta + p_delta + d):
                who = f"{owner} " if owner else ""
                earlier = (
                    f" (plus ε={_fmt(p_eps)}, δ={p_delta:.3g} spent by earlier steps under "
                    "another budget, carried by the input)"
                    if foreign
                    else ""
                )
                raise BudgetExceededError(
                    f"{who}asks the accountant for (ε={_fmt(eps)}, δ={d:.3g}){earlier} but only "
                    f"(ε={_fmt(max(0.0, led.epsilon_remaining - r_eps))}, "
                    f"δ={max(0.0, led.delta_remaining - r_delta):.3g}) of its total "
                    f"(ε={_fmt(led.epsilon)}, δ={led.delta:.3g}) is left; nothing was spent"
                )
            for p in foreign:
                led.rows.extend(_prefixed(p))
                self._merged.add(p["id"])
            share = LedgerShare(eps, d, parent=led, owner=owner, accountant=self)
            key = id(share)
            self._open[key] = weakref.ref(share, functools.partial(_forget_share, self._open, key))
            if owner:
                self._count_fit(owner)
            return share

    def check_available(self, epsilon, delta=0.0, *, what: str = "a request") -> None:
        """Raise :class:`BudgetExceededError` unless (ε, δ) fits in what is neither spent nor
        reserved; spends and reserves nothing (a pipeline's check before its first step)."""
        eps, d = float(epsilon), float(delta)
        if self.detached:
            raise RuntimeError("this BudgetAccountant was restored by pickle: it grants nothing")
        with self._lock:
            led = self.ledger
            r_eps, r_delta = self._reserved()
            if not led._within(led.epsilon_spent + r_eps + eps, led.delta_spent + r_delta + d):
                raise BudgetExceededError(
                    f"{what} ask the accountant for (ε={_fmt(eps)}, δ={d:.3g}) in total but only "
                    f"(ε={_fmt(max(0.0, led.epsilon_remaining - r_eps))}, "
                    f"δ={max(0.0, led.delta_remaining - r_delta):.3g}) of its total "
                    f"(ε={_fmt(led.epsilon)}, δ={led.delta:.3g}) is left; nothing was spent"
                )

    def _count_fit(self, owner: str) -> None:
        """Record one more fit granted to ``owner``; from the second on, a selection row."""
        k = self.fits_granted[owner] = self.fits_granted.get(owner, 0) + 1
        if k < 2:
            return
        row = LedgerRow(
            f"{owner}: {k} fits under this accountant",
            SELECTION_MECHANISM,
            0.0,
            0.0,
            None,
            "leak",
            1,
            "the total covers publishing all of them; choosing one (best_params_, fold scores) "
            "reads the private records and is not a DP release",
            "none",
        )
        i = self._selection_rows.get(owner)
        if i is None:
            self._selection_rows[owner] = len(self.ledger.rows)
            self.ledger.rows.append(row)
        else:
            self.ledger.rows[i] = row

    def _reserved(self) -> tuple[float, float]:
        """Unspent (ε, δ) of the shares in use (call with the lock held)."""
        while True:  # a weak-reference callback may drop a collected share meanwhile: retry
            try:
                refs = list(self._open.values())
                break
            except RuntimeError:
                continue
        live = [s for s in (r() for r in refs) if s is not None]
        return (math.fsum(s.unspent[0] for s in live), math.fsum(s.unspent[1] for s in live))

    def _admit_for(self, share: LedgerShare, row: LedgerRow) -> None:
        """Admit ``row`` of ``share`` if it fits in the total beside the other shares' reservations."""
        led = self.ledger
        r_eps, r_delta = self._reserved()
        mine_eps, mine_delta = share.unspent if id(share) in self._open else (0.0, 0.0)
        others_eps, others_delta = max(0.0, r_eps - mine_eps), max(0.0, r_delta - mine_delta)
        if not led._within(led.epsilon_spent + others_eps + row.epsilon, led.delta_spent + others_delta + row.delta):
            raise BudgetExceededError(
                f"{row.what!r} via {row.mechanism} asks for (ε={row.epsilon:.6g}, δ={row.delta:.3g}) "
                f"but only (ε={_fmt(max(0.0, led.epsilon_remaining - others_eps))}, "
                f"δ={max(0.0, led.delta_remaining - others_delta):.3g}) of the accountant's total "
                f"(ε={led.epsilon:.6g}, δ={led.delta:.3g}) is not spent or reserved by other fits"
            )

    def _close(self, share: LedgerShare) -> None:
        with self._lock:
            self._open.pop(id(share), None)

    # ------------------------------------------------------------ a handle
    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self

    def __getstate__(self):
        state = dict(self.__dict__)
        for k in ("_lock", "_open"):  # a lock and weak references do not pickle
            state.pop(k, None)
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        self.__dict__.setdefault("id", uuid.uuid4().hex)
        self.__dict__.setdefault("fits_granted", {})
        self.__dict__.setdefault("_merged", set())
        self.__dict__.setdefault("_selection_rows", {})
        self._lock = threading.RLock()
        self._open = {}
        self.detached = True  # a pickled copy: reading only (module docstring)

    def __repr__(self) -> str:
        detached = "; detached copy" if self.detached else ""
        return (
            f"BudgetAccountant(epsilon={_fmt(self.epsilon)}, delta={self.delta:g}; "
            f"spent ε={_fmt(self.epsilon_spent)}, δ={self.delta_spent:.3g}{detached})"
        )


def check_accountant(accountant, owner: str = "estimator") -> BudgetAccountant | None:
    """``None`` or a :class:`BudgetAccountant`; anything else is a one-line TypeError."""
    if accountant is None or isinstance(accountant, BudgetAccountant):
        return accountant
    raise TypeError(
        f"{owner}: accountant must be None or a dpmodels.privacy.BudgetAccountant, got {type(accountant).__name__}"
    )


def provenance_of(X) -> list[dict]:
    """The releases ``X`` depends on, from ``X.attrs["dpmodels_provenance"]`` (written by
    :meth:`dpmodels.data.Binarizer.transform`): a list of ``{"owner", "id", "accountant",
    "ledger"}`` with ``ledger`` a :class:`PrivacyLedger` of the step's own rows. Empty for input
    without it (numpy arrays, frames not made by a dpmodels transformer)."""
    attrs = getattr(X, "attrs", None)
    raw = attrs.get(PROVENANCE_ATTR) if isinstance(attrs, dict) else None
    if not raw:
        return []
    if not isinstance(raw, (list, tuple)):
        raise ValueError(f"X.attrs[{PROVENANCE_ATTR!r}] must be a list of release records")
    out = []
    for p in raw:
        try:
            led = PrivacyLedger.from_dict(p["ledger"])
            out.append(
                dict(
                    owner=str(p["owner"]),
                    id=str(p["id"]),
                    ledger=led,
                    accountant=None if p.get("accountant") is None else str(p["accountant"]),
                )
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"X.attrs[{PROVENANCE_ATTR!r}] holds a malformed release record: {exc}") from None
    return out


def _prefixed(p: dict) -> list[LedgerRow]:
    return [replace(r, what=f"{p['owner']}: {r.what}") for r in p["ledger"].rows]


def ledger_for_fit(estimator, epsilon, delta=0.0, X=None) -> PrivacyLedger:
    """The ledger one fit of ``estimator`` spends from (the one helper every private estimator uses).

    Without ``estimator.accountant``: a fresh :class:`PrivacyLedger` with budget (ε, δ). With one:
    a :class:`LedgerShare` of (ε, δ) requested from it — refused with
    :class:`BudgetExceededError` before anything is read or spent when it does not fit.

    ``X``: the fit's input. When it carries the provenance of earlier releases
    (:func:`provenance_of`), they are merged (module docstring): without an accountant the fit
    spends from a share of (ε, δ) of a ledger that already holds those rows, whose budget is (ε, δ)
    plus theirs; so the published ledger's totals and verdict cover them.
    """
    name = type(estimator).__name__
    acc = check_accountant(getattr(estimator, "accountant", None), name)
    prov = provenance_of(X) if X is not None else []
    if acc is not None:
        share = acc.request(epsilon, delta, owner=name, provenance=prov)
        known = {p["id"] for p in prov} | set(acc.ledger.includes_releases)
        _record_sources(estimator, share, known)
        return share
    if not prov:
        led = PrivacyLedger(epsilon, delta)
        _record_sources(estimator, led, ())
        return led
    eps = 0.0 if _is_zero(epsilon) else check_epsilon(epsilon)
    d = check_delta(delta)
    base = PrivacyLedger(
        eps + math.fsum(p["ledger"].epsilon for p in prov),
        min(d + math.fsum(p["ledger"].delta for p in prov), 1.0 - 1e-12),
    )
    for p in prov:
        base.rows.extend(_prefixed(p))
    base.includes_releases = {p["id"] for p in prov}  # read by dpmodels.io (counted once)
    share = LedgerShare(eps, d, parent=base, owner=name)
    _record_sources(estimator, share, base.includes_releases)
    return share


def _record_sources(estimator, ledger, releases) -> None:
    """The sources of the estimator's declared parameters (dpmodels.validation decides: a value
    marked ``data`` is a leak row, a ``dp`` value needs its release merged into this fit)."""
    get = getattr(estimator, "get_params", None)
    if get is None:
        return
    from ..validation import record_declaration_sources

    cls = type(estimator)
    if cls not in _PARAM_NAMES:
        _PARAM_NAMES[cls] = _plain_param_names(cls)
    names = _PARAM_NAMES[cls]
    params = get(deep=False) if names is None else {k: getattr(estimator, k) for k in names}
    record_declaration_sources(ledger, params, releases)


# class -> its parameter names (_plain_param_names), computed once per class
_PARAM_NAMES: "weakref.WeakKeyDictionary[type, tuple[str, ...] | None]" = weakref.WeakKeyDictionary()


def _plain_param_names(cls: Any) -> tuple[str, ...] | None:
    """The parameter names ``get_params(deep=False)`` lists for a class that keeps scikit-learn's
    own ``get_params`` and ``_get_param_names`` (their signature inspection costs ~50 µs: done
    once per class); None for any other class (its own ``get_params`` is called each time)."""
    from sklearn.base import BaseEstimator

    if not issubclass(cls, BaseEstimator):
        return None
    if cls.get_params is not BaseEstimator.get_params:
        return None
    if getattr(cls._get_param_names, "__func__", None) is not BaseEstimator._get_param_names.__func__:
        return None
    return tuple(cls._get_param_names())


def published_ledger(ledger: PrivacyLedger) -> PrivacyLedger:
    """What a fitted estimator exposes as ``privacy_ledger_``: its own ledger, or — when it spent
    from an accountant — the accountant's ledger, whose verdict covers the whole pipeline.
    Closes the fit's share (its unspent part is returned to the accountant)."""
    if isinstance(ledger, LedgerShare):
        ledger.close()
    while isinstance(ledger, LedgerShare) and ledger.parent is not None:
        ledger = ledger.parent
    return ledger
