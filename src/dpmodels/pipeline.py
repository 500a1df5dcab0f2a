"""Private pipelines: every step is checked before the first one spends (a two-phase fit).

A scikit-learn :class:`~sklearn.pipeline.Pipeline` fits its steps one after the other. With a
:class:`~dpmodels.privacy.BudgetAccountant` shared by a DP :class:`~dpmodels.data.Binarizer` and a
DP learner, a mistake in the *learner* — a mechanism typo, ``max_rules=0``, a label outside
``classes``, a NaN label, a candidate set over the guard of :mod:`dpmodels.guards` — is found only
after the binarizer has spent its share. The refit then finds less budget left, and a user who
starts a new accountant has spent more than the total they state.

:class:`PrivatePipeline` (built by :func:`make_private_pipeline`) is a ``Pipeline`` whose ``fit``
first runs :func:`validate_before_spend`, then fits as usual:

1. **Parameters** of every step (each step's own checks, which read no data).
2. **Labels** against each learner's declared ``classes`` (the schema {0, 1} for rule lists).
3. **Public-size guards** of every step: each transformer that has the hook reports the *most*
   columns it can produce — a function of public inputs only (declared categories, cut points or
   ``n_bins``, ``encoding``) — as an empty frame with their groups, and the next step checks its
   guard on it (the rule lists' candidate count grows with the columns, so the check on the most
   columns bounds every outcome of the DP quantiles).
4. **Budget**: the shares the steps will request from each accountant, added up, must fit in
   what that accountant has left (spent and reserved shares deducted).

Only then does any step read the data for a release. Schema errors (NaN in a numerical feature,
a ``sample_weight`` other than 0/1) are found in phase 1 as well. On partitioned input (Parquet,
Dask) checks 1–4 run on the declared schema, then one pass over the records runs every step's
checks on each partition (:func:`dpmodels.data.sources.check_partitions`: a label the learner
refuses is found before the Binarizer releases). An error that still comes after a release (a
file rewritten between passes, a lost worker) says in its message what the fit had spent.

What the checks cannot see: a step without the hook (a scikit-learn transformer, say) hides
the columns after it, so the steps after it get the parameter and label checks only; its own
errors surface when it is fitted. Errors that only the released values can cause (two DP
thresholds rounding to one output name is not one: they are de-duplicated) would come after.

**A plain ``sklearn.pipeline.Pipeline``** does none of this: its steps are fitted in order, and an
error in step k comes after steps 1…k−1 have spent (their rows stay in the accountant's ledger,
truthfully). ``validate_before_spend(pipe, X, y)`` runs phase 1 on any pipeline; call it before
``pipe.fit`` when you cannot use :class:`PrivatePipeline` (``docs/privacy.md``, "Pipelines").

:func:`make_private_rule_list` builds the common case — raw columns, a DP
:class:`~dpmodels.data.Binarizer` and a :class:`~dpmodels.rulelist.DPRuleListClassifier` under
one accountant of total ε — as one estimator with one check.

**Verdict.** A fitted pipeline is private only if every step is: ``dpmodels.privacy.verdict.verdict(pipe)``
reads every step's ledger (a shared accountant's once), every step's seed (a seeded Binarizer makes
the whole pipeline NOT PRIVATE, as a seeded learner does) and names a fitted step that keeps no
ledger (e.g. a scikit-learn scaler, whose fit read the data unaccounted).

Steps take part through the private-step protocol (:mod:`dpmodels.privacy.steps`):
``_validate_before_spend(X, y)`` (raise on any problem; return an empty frame describing the
output for a transformer, else None) and ``_budget_request()`` → ``(accountant, ε, δ)``.
"""

from __future__ import annotations

import contextlib
import math

import numpy as np
from sklearn.pipeline import Pipeline, make_pipeline

from .privacy.steps import BudgetRequest, SpendCheck
from .validation import apply_unit_sample_weight

__all__ = [
    "PrivatePipeline",
    "make_private_pipeline",
    "make_private_rule_list",
    "split_epsilon",
    "validate_before_spend",
]


def _steps(pipeline):
    if isinstance(pipeline, Pipeline):
        return [(name, est) for name, est in pipeline.steps]
    return [(type(est).__name__, est) for est in pipeline]


def validate_before_spend(pipeline, X, y=None, **fit_params) -> None:
    """Run every check of ``pipeline.fit(X, y, **fit_params)`` that needs no release (module
    docstring); raise the first problem found. Nothing is read for a release and nothing is
    spent. ``pipeline``: a ``Pipeline`` or a list of estimators."""
    for key, w in fit_params.items():
        if key.endswith("sample_weight"):
            X, y = apply_unit_sample_weight(X, y, w, key.split("__")[0])
    from .data.sources import as_source, is_partitioned

    source = None
    if is_partitioned(X, y):  # the checks run on the declared schema (an empty frame of its
        # columns), then, once they pass, on every partition's records (_check_partitions)
        source = as_source(X, y)
        X, y = source.schema_frame(), np.zeros(0, dtype=object)
    steps = _steps(pipeline)
    budgets: dict[int, list] = {}
    Z, known = X, True
    for name, step in steps:
        if step is None or (isinstance(step, str) and step == "passthrough"):
            continue
        if not isinstance(step, SpendCheck):
            known = False  # an opaque step: the columns after it are unknown
            continue
        out = step._validate_before_spend(Z if known else None, y)
        if out is not None:
            Z = out
        if isinstance(step, BudgetRequest):
            acc, eps, delta = step._budget_request()
            if acc is not None:
                entry = budgets.setdefault(id(acc), [acc, [], [], []])
                entry[1].append(float(eps))
                entry[2].append(float(delta))
                entry[3].append(f"{name} (ε={eps:.6g})")
    for acc, eps, delta, who in budgets.values():
        acc.check_available(math.fsum(eps), math.fsum(delta), what="the pipeline's steps " + ", ".join(who))
    if source is not None:
        _check_partitions(source, steps)


def _check_partitions(source, steps) -> None:
    """Partitioned input: one pass over the records running every step's checks (labels against
    each learner's ``classes``, the first step's columns), before the first step fits. A single
    step checks its input in its own first pass, before its release; with two or more, the
    second one's first pass would come after the first one's release."""
    from .data.sources import check_partitions

    hooked = [s for _, s in steps if isinstance(s, SpendCheck)]
    if len(hooked) >= 2:
        check_partitions(source, hooked)


class PrivatePipeline(Pipeline):
    """A scikit-learn ``Pipeline`` that checks every step before the first one spends (module
    docstring). Same parameters and behaviour as ``Pipeline`` otherwise.

    >>> from dpmodels.data import Binarizer
    >>> from dpmodels.rulelist import DPRuleListClassifier
    >>> pipe = make_private_pipeline(Binarizer(cut_points={"x": [0.5]}),
    ...                              DPRuleListClassifier(mechanism="permute-and-fip"))
    >>> import pandas as pd
    >>> try:
    ...     pipe.fit(pd.DataFrame({"x": [0.0, 1.0]}), [0, 1])
    ... except ValueError as e:
    ...     print(str(e)[:35])
    unknown mechanism 'permute-and-fip'
    """

    def fit(self, X, y=None, **params):
        validate_before_spend(self, X, y, **params)
        with _say_what_was_spent(self):
            return super().fit(X, y, **params)

    def fit_transform(self, X, y=None, **params):
        validate_before_spend(self, X, y, **params)
        with _say_what_was_spent(self):
            return super().fit_transform(X, y, **params)

    def fit_predict(self, X, y=None, **params):
        validate_before_spend(self, X, y, **params)
        with _say_what_was_spent(self):
            return super().fit_predict(X, y, **params)


@contextlib.contextmanager
def _say_what_was_spent(pipeline):
    """An error raised once a step has released something (a file rewritten between passes, a
    lost worker, a step without the checks) says what was spent: its message ends with the
    (ε, δ) the fit took from each accountant and from each step fitted without one — what stays
    spent, truthfully, in their ledgers. Errors before any release are left as they are."""
    steps = [s for _, s in _steps(pipeline) if s is not None and not isinstance(s, str)]
    accs = {id(a): a for a in (getattr(s, "accountant", None) for s in steps) if a is not None}
    before = {k: (a.epsilon_spent, a.delta_spent) for k, a in accs.items()}
    ledgers = {id(s): getattr(s, "privacy_ledger_", None) for s in steps}
    try:
        yield
    except Exception as e:
        spent = []
        for k, a in accs.items():
            eps, delta = a.epsilon_spent - before[k][0], a.delta_spent - before[k][1]
            if eps > 0 or delta > 0:
                spent.append(f"ε={eps:.6g}, δ={delta:.6g} from the pipeline's accountant")
        for s in steps:
            led = getattr(s, "privacy_ledger_", None)
            if led is None or led is ledgers[id(s)] or getattr(s, "accountant", None) is not None:
                continue  # no release of this step's own during the failed call
            if led.epsilon_spent > 0 or led.delta_spent > 0:
                spent.append(f"ε={led.epsilon_spent:.6g}, δ={led.delta_spent:.6g} by {type(s).__name__}")
        if spent and e.args and isinstance(e.args[0], str):
            note = f" [raised after a release: spent {'; '.join(spent)}; recorded in the ledger]"
            e.args = (e.args[0] + note, *e.args[1:])
        raise


def make_private_pipeline(*steps, memory=None, verbose=False) -> PrivatePipeline:
    """:func:`sklearn.pipeline.make_pipeline` for a :class:`PrivatePipeline` (steps named after
    their classes, lower-cased)."""
    named = make_pipeline(*steps).steps
    return PrivatePipeline(named, memory=memory, verbose=verbose)


def make_private_rule_list(
    *,
    epsilon=1.0,
    classes=None,
    bounds=None,
    categories=None,
    cut_points=None,
    n_bins=3,
    encoding="thermometer",
    binarizer_share=0.1,
    integer_features=None,
    accountant=None,
    **learner_params,
) -> PrivatePipeline:
    """Raw columns → a DP rule list with one total budget: a :class:`PrivatePipeline` of a
    :class:`~dpmodels.data.Binarizer` and a :class:`~dpmodels.rulelist.DPRuleListClassifier`
    sharing one :class:`~dpmodels.privacy.BudgetAccountant`.

    ``epsilon`` is the total. With ``bounds`` declared, the binarizer gets ``binarizer_share``·ε
    for the DP quantiles of the numerical features without ``cut_points`` (a share it does not
    use — every feature has public cut points — is returned unspent) and the rule list the rest;
    the two parts add up to ε exactly (:func:`split_epsilon`). Without ``bounds`` the binarizer
    releases nothing private: public ``cut_points``, or the data's quantiles (a leak, recorded)
    and the rule list gets all of ε. ``integer_features``: numerical features whose thresholds
    are whole numbers (the Binarizer's). ``accountant``: an existing budget to spend from
    (default: a new one of (ε, the rule list's δ)). ``learner_params`` go to the rule list
    (``max_rules``, ``mechanism``, ``random_state``, …). ``dpmodels fit --model dp-rulelist``
    builds its pipeline with this function.
    """
    from .data.binarize import Binarizer
    from .privacy.accountant import BudgetAccountant, check_accountant
    from .privacy.ledger import check_epsilon
    from .rulelist import DPRuleListClassifier

    eps = check_epsilon(epsilon)
    try:
        share = float(binarizer_share)
    except (TypeError, ValueError):
        raise ValueError(f"binarizer_share must be a number in (0, 1), got {binarizer_share!r}") from None
    if not 0.0 < share < 1.0:
        raise ValueError(f"binarizer_share must be in (0, 1), got {binarizer_share!r}")
    q, rest = split_epsilon(eps, share) if bounds is not None else (None, eps)
    learner = DPRuleListClassifier(epsilon=rest, classes=classes, **learner_params)
    _, delta = learner.privacy_params()  # parameter errors now, before anything is built
    acc = check_accountant(accountant, "make_private_rule_list")
    if acc is None:
        acc = BudgetAccountant(eps, delta)
    learner.set_params(accountant=acc)
    random_state = learner_params.get("random_state")
    binarizer = Binarizer(
        cut_points=cut_points,
        n_bins=n_bins,
        bounds=bounds,
        categories=categories,
        epsilon=q,
        encoding=encoding,
        accountant=acc,
        random_state=random_state,
        integer_features=integer_features,
    )
    return make_private_pipeline(binarizer, learner)


def split_epsilon(total: float, share: float) -> tuple[float, float]:
    """``(part, rest)`` of ``total``: ``part`` ≈ ``share``·total and ``part + rest == total`` exactly
    (as real numbers, not only after rounding), so a composition of the two is never charged more
    than ``total``.

    ``rest`` is ``total − share·total`` rounded once, and ``part`` is ``total − rest``, which is
    exact: for ``share`` ≤ ½, ``rest`` lies in [total/2, total] (Sterbenz's lemma); otherwise
    ``rest = total − share·total`` was exact already and ``part`` is ``share·total``. The naive
    ``share·total`` and ``total − share·total`` add up to one unit in the last place *above* the
    total for common values (ε = 1, share 0.1).

    >>> split_epsilon(1.0, 0.1)
    (0.09999999999999998, 0.9)
    """
    if not 0.0 < share < 1.0:
        raise ValueError(f"share must be in (0, 1), got {share!r}")
    rest = total - share * total
    part = total - rest
    if not (part > 0.0 and rest > 0.0):
        raise ValueError(f"a share {share!r} of ε = {total!r} rounds to 0: use a larger share or a larger ε")
    return part, rest
