"""Paper 002 (Vos et al., PrivaTree): the protocol its Fig. 1–4 and Tables II, III, V–VIII share here.

Data. The 29 datasets of Table IV: 16 numerical OpenML files (suite 337), 7 mixed ones (suite
334), 6 UCI files. Fifteen OpenML files are bundled (:func:`dpmodels.data.load_openml`), the
other eight load from ``--data-dir`` or, when asked, OpenML; offline their rows are skipped with
the reason. UCI data and their documented public bounds come from
:mod:`.data` (rows with missing values dropped, nursery as
"not_recom vs the rest", as in the paper).

Public inputs (bounds policy). Categories: the declared schema (UCI category dtypes; the
documented codes of the OpenML "cat" files, see :mod:`dpmodels.data.openml`). Label set {0, 1}.
Numerical bounds: documented domains where this library knows them (UCI: ``PUBLIC_BOUNDS``;
compas-two-years: age 18–100, juvenile counts 0–20, priors 0–40, as the raw COMPAS file). The
OpenML benchmark publishes no domains for its other numerical features, and the paper's code read
them from the data; we do the same **through the learners' own** ``bounds=None`` **path**: each
private model reads its training fold's min/max, emits a PrivacyLeakWarning and writes a leak row
in its ledger (so ``is_private`` is False for those models). Those rows are marked "bounds read
from data" in the tables. MNIST pixels are 0–255 (public).

Learners. ``tree`` (scikit-learn, depth 4, integer-coded categories), ``PrivaTree`` (this library's
default until issue 24, named explicitly: permute-and-flip on the misclassification count, corrected accounting),
``PrivaTree (histogram)`` (the paper's private-histogram selection with the budget split across
features), ``BDPT`` and ``DPGDF`` (this library's DP rebuilds; DPGDF on categorical features only,
"–" where there are none, as the paper), ``DiffPrivLib`` (diffprivlib's random tree) and DP
logistic regression (``DP LR``, the paper's protocol; ``DP LR (public)``, a public design). diffprivlib
needs scikit-learn < 1.8, so those series are cells of their own (``requires="diffprivlib"``), run
by the side environment of `make reproduce-diffprivlib` and read by any other.
``PrivaTree (published)`` is paper 002's PrivaTree as published (``variant="published"``: per-feature
histograms and quantiles at the paper's budgets; ledger rows ``claimed``) and ``PrivaTree*`` the
paper's non-DP variant (``variant="published*"``: the data's quantiles, a leak row); both for
comparison with the paper's columns, neither is a proven DP release. ``BDPT (published)`` and
``DPGDF (published)`` are the baselines as the paper ran them (``variant="published"``: BDPT's
groups of 5 training values and g(ñ)-calibrated splits, DPGDF's smooth-sensitivity leaves, both
with the data-dependent stopping rule; leak and ``claimed`` ledger rows), beside the rebuilds.
Fig. 1, 3 and 4 run these paper-protocol learners in cells of their own (keys ending
``-published``) on the same splits as the library-protocol cells, whose keys stay unchanged.
"""

from __future__ import annotations

import functools
import time
import warnings

import numpy as np

from ..._optional import available
from .. import published as pub
from ..registry import Skip
from .data import (  # _ordinal: integer codes of the public categories, numbers as float
    _ordinal,
)

__all__ = ["TABLE_DATASETS", "LEARNERS", "DEPTH", "make_learner", "split_80_20"]

DEPTH = 4
# the paper's row order: (dataset, group)
TABLE_DATASETS = tuple(pub.P002_ACCURACY[0.1].keys())
# The revision of PrivaTree's ``variant="published"`` that the paper-protocol cells ran: the split of
# least weighted Gini, each feature's histogram over its own bins only, Algorithm 1's stopping rule,
# and the training size public (:data:`PAPER_N_PUBLIC`). A keyword of those cells, so their hash
# changes with it and results of an earlier rule are never reused.
PUBLISHED_RULE = "weighted-gini/own-bins/stop/n-public"

LEARNERS = (
    "tree",
    "BDPT",
    "BDPT (published)",
    "DPGDF",
    "DPGDF (published)",
    "DiffPrivLib",
    "PrivaTree",
    "PrivaTree (histogram)",
    "PrivaTree (published)",
    "PrivaTree*",
)


def has_diffprivlib() -> bool:
    return available("diffprivlib")


# --------------------------------------------------------------------------- data
def _bundled(name, group) -> bool:
    if group in ("uci", "vote435"):
        return True
    from ...data.openml import openml_info

    return openml_info(name, group).bundled


def _source(name, group, size) -> dict:
    """``data_dir`` / ``download`` cell arguments: only for unbundled data (they enter the cell's hash)."""
    if _bundled(name, group):
        return dict(data_dir=None, download=False)
    return dict(data_dir=size.data_dir, download=size.download)


def _available(name, group, size):
    if group in ("uci", "vote435"):
        return True, "bundled"
    from ...data.openml import availability

    return availability(name, group, data_dir=size.data_dir, download=size.download)


def _dataset_list(size, default):
    """Available (dataset, group) pairs of ``default`` (restricted by --datasets) + Skips."""
    chosen = list(default)
    if size.datasets is not None:
        names = set(size.datasets)
        known = {d for d, _ in default}
        bad = sorted(names - known)
        if bad:
            raise ValueError(f"unknown datasets {bad} for this id; choose from {sorted(known)}")
        chosen = [(d, g) for d, g in default if d in names]
    ok, skips = [], []
    for d, g in chosen:
        avail, why = _available(d, g, size)
        if avail:
            ok.append((d, g))
        else:
            skips.append(Skip(f"{d} ({g})", why))
    return ok, skips


# --------------------------------------------------------------------------- learners
def split_80_20(y, rep):
    """The stratified 80/20 split number ``rep`` (train, test positions) of the figures' protocol
    (Fig. 1, 3, 4 and ``002-authors``, which compares implementations on these same splits)."""
    from sklearn.model_selection import StratifiedShuffleSplit

    return next(StratifiedShuffleSplit(1, test_size=0.2, random_state=rep).split(np.zeros(len(y)), y))


def make_learner(learner, eps, X, meta, seed, depth=DEPTH, **extra):
    """(estimator, transform or None) for one learner; None when it does not apply to the data."""
    from sklearn.tree import DecisionTreeClassifier

    cats, bounds = meta["categories"], meta["bounds"]
    num = [c for c in X.columns if c not in cats]
    if learner == "tree":
        return DecisionTreeClassifier(max_depth=depth, random_state=seed % (2**31)), functools.partial(
            _ordinal, meta=meta
        )
    if learner.startswith("PrivaTree"):
        from ...tree.privatree import PrivaTreeClassifier

        kw = dict(
            epsilon=eps,
            max_depth=depth,
            bounds=(dict(bounds) if bounds else None) if num else None,
            categories=dict(cats) or None,
            random_state=seed,
            **extra,
        )
        if learner == "PrivaTree":
            # the library's default until issue 24, named so that these tables keep their law
            kw["split_criterion"] = "error"
        if learner == "PrivaTree (histogram)":
            kw["split_selection"] = "histogram"
        elif learner in ("PrivaTree (published)", "PrivaTree*"):  # paper 002 as published: not proven DP
            kw["variant"] = "published" if learner == "PrivaTree (published)" else "published*"
        kw["classes"] = meta["classes"]
        return PrivaTreeClassifier(**kw), None
    if learner in ("BDPT", "BDPT (published)"):
        from ...tree.baselines import BDPTClassifier

        b = None
        if num and bounds is not None:
            b = (np.array([bounds[c][0] for c in num]), np.array([bounds[c][1] for c in num]))
        # "(published)": the paper's protocol (groups of 5 training values, g(ñ)-calibrated splits,
        # data-dependent stopping): leak and claimed rows, for comparison with the paper's column
        variant = "published" if learner == "BDPT (published)" else "rigorous"
        return BDPTClassifier(
            epsilon=eps,
            max_depth=depth,
            bounds=b,
            categories=dict(cats),
            classes=meta["classes"],
            random_state=seed,
            variant=variant,
        ), None
    if learner in ("DPGDF", "DPGDF (published)"):
        if not cats:
            return None, None
        from ...tree.baselines import DPGDFClassifier

        variant = "published" if learner == "DPGDF (published)" else "rigorous"
        return DPGDFClassifier(
            epsilon=eps,
            max_depth=depth,
            categories=dict(cats),
            classes=meta["classes"],
            random_state=seed,
            variant=variant,
        ), None
    if learner == "DiffPrivLib":
        if not has_diffprivlib():
            return None, None
        from ...tree.baselines import DiffprivlibTreeClassifier

        b = None
        if bounds is not None or not num:
            lo = np.array([0.0 if c in cats else bounds[c][0] for c in X.columns])
            hi = np.array([len(cats[c]) - 1.0 if c in cats else bounds[c][1] for c in X.columns])
            b = (lo, hi)
        return DiffprivlibTreeClassifier(
            epsilon=eps, max_depth=depth, bounds=b, classes=meta["classes"], random_state=seed % (2**31)
        ), functools.partial(_ordinal, meta=meta)
    raise ValueError(f"unknown learner {learner!r}")


def _fit_score(est, tf, Xtr, ytr, Xte, yte):
    A, B = (Xtr, Xte) if tf is None else (tf(Xtr), tf(Xte))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the leak warnings are recorded in the ledgers
        t = time.perf_counter()
        est.fit(A, np.asarray(ytr))
        secs = time.perf_counter() - t
        acc = float(np.mean(est.predict(B) == np.asarray(yte)))
    ledger = getattr(est, "privacy_ledger_", None)
    leaks = len(getattr(ledger, "leaks", []) or []) if ledger is not None else 0
    return acc, secs, leaks


# --------------------------------------------------------------------------- Tables II, VI, VII, V
PAPER_N_PUBLIC = ("PrivaTree (published)", "PrivaTree*")


# diffprivlib imports only with scikit-learn < 1.8, so its learners run in cells of their own
# (``requires="diffprivlib"``): the other cells, and their result files, are the same in every
# environment, and the DiffPrivLib cells are run by the side environment of
# `make reproduce-diffprivlib` and read by any other (`dpmodels.experiments.run`).
DIFFPRIVLIB = "diffprivlib"


def _cell(m, se):
    def f(v):
        s = f"{v:.3f}"
        return s[1:] if s.startswith("0") else s

    return f"{f(m)} ± {f(se)}"
