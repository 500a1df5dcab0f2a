"""One privacy budget for a whole pipeline: a budget accountant shared by its steps.

A pipeline such as ``make_pipeline(Binarizer(epsilon=0.2, ...), DPRuleListClassifier(epsilon=0.8,
...))`` makes two releases from the same private records: the binarizer's cut points (DP
quantiles) and the rule list. By sequential composition the pipeline is (ε₁ + ε₂, δ₁ + δ₂)-DP, so
its guarantee is one number only if somebody adds the shares and refuses what would exceed the
total. That is the accountant (diffprivlib's ``accountant=`` idea)::

    acc = BudgetAccountant(epsilon=1.0)
    pipe = make_pipeline(Binarizer(epsilon=0.2, bounds=..., categories=..., accountant=acc),
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
  used up (``docs/privacy.md``, "Pipelines and hyper-parameter search").

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

from dataclasses import dataclass, field, replace

from .ledger import (
    BudgetExceededError,
    LedgerRow,
    PrivacyLedger,
    _is_zero,
    check_delta,
    check_epsilon,
)

__all__ = ["BudgetAccountant", "LedgerShare", "ledger_for_fit", "published_ledger", "check_accountant"]


@dataclass
class LedgerShare(PrivacyLedger):
    """The part (ε, δ) of an accountant's budget one fit may spend; rows go to both ledgers.

    ``epsilon`` / ``delta`` are the share; ``parent`` the accountant's ledger; ``owner`` names the
    estimator in the parent's copy of each row (``"Binarizer: 2 quantiles of 'age'"``).
    """

    parent: PrivacyLedger | None = field(default=None, repr=False)
    owner: str = ""

    def _for_parent(self, row: LedgerRow) -> LedgerRow:
        return replace(row, what=f"{self.owner}: {row.what}") if self.owner else row

    def _admit(self, row: LedgerRow) -> None:
        super()._admit(row)  # within the share
        if self.parent is not None:
            self.parent._admit(self._for_parent(row))  # and within what the accountant has left

    def _append(self, row: LedgerRow) -> None:
        super()._append(row)
        if self.parent is not None:
            self.parent._append(self._for_parent(row))

    def check(self) -> None:
        super().check()
        if self.parent is not None:
            self.parent.check()


def _fmt(v: float) -> str:
    return f"{v:.6g}"


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
    def is_private(self) -> bool:
        return self.ledger.is_private

    def summary(self) -> str:
        return self.ledger.summary()

    # ---------------------------------------------------------------- requests
    def request(self, epsilon, delta=0.0, *, owner: str = "") -> LedgerShare:
        """A :class:`LedgerShare` of (ε, δ) for one fit; refused if it exceeds what is left.

        ``epsilon = 0`` is a valid share (a step that releases nothing, e.g. public cut points);
        it still records its leak rows, if any, in the accountant.
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
        led = self.ledger
        if not led._within(led.epsilon_spent + eps, led.delta_spent + d):
            who = f"{owner} " if owner else ""
            raise BudgetExceededError(
                f"{who}asks the accountant for (ε={_fmt(eps)}, δ={d:.3g}) but only "
                f"(ε={_fmt(led.epsilon_remaining)}, δ={led.delta_remaining:.3g}) of its total "
                f"(ε={_fmt(led.epsilon)}, δ={led.delta:.3g}) is left; nothing was spent"
            )
        return LedgerShare(eps, d, parent=led, owner=owner)

    # ------------------------------------------------------------ a handle
    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self

    def __setstate__(self, state):
        self.__dict__.update(state)
        self.detached = True  # a pickled copy: reading only (module docstring)

    def __repr__(self) -> str:
        detached = "; detached copy" if self.detached else ""
        return (f"BudgetAccountant(epsilon={_fmt(self.epsilon)}, delta={self.delta:g}; "
                f"spent ε={_fmt(self.epsilon_spent)}, δ={self.delta_spent:.3g}{detached})")


def check_accountant(accountant, owner: str = "estimator") -> BudgetAccountant | None:
    """``None`` or a :class:`BudgetAccountant`; anything else is a one-line TypeError."""
    if accountant is None or isinstance(accountant, BudgetAccountant):
        return accountant
    raise TypeError(
        f"{owner}: accountant must be None or a dpmodels.privacy.BudgetAccountant, "
        f"got {type(accountant).__name__}"
    )


def ledger_for_fit(estimator, epsilon, delta=0.0) -> PrivacyLedger:
    """The ledger one fit of ``estimator`` spends from (the one helper every private estimator uses).

    Without ``estimator.accountant``: a fresh :class:`PrivacyLedger` with budget (ε, δ). With one:
    a :class:`LedgerShare` of (ε, δ) requested from it — refused with
    :class:`BudgetExceededError` before anything is read or spent when it does not fit.
    """
    name = type(estimator).__name__
    acc = check_accountant(getattr(estimator, "accountant", None), name)
    if acc is None:
        return PrivacyLedger(epsilon, delta)
    return acc.request(epsilon, delta, owner=name)


def published_ledger(ledger: PrivacyLedger) -> PrivacyLedger:
    """What a fitted estimator exposes as ``privacy_ledger_``: its own ledger, or — when it spent
    from an accountant — the accountant's ledger, whose verdict covers the whole pipeline."""
    while isinstance(ledger, LedgerShare) and ledger.parent is not None:
        ledger = ledger.parent
    return ledger
