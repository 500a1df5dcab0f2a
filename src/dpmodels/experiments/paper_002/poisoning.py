"""Poisoning-robustness experiments of paper 002 (Fig. 3, Tables III / VIII; the backdoor of Fig. 4).

The bounds (Corollaries 2–3), the learners and the backdoor helpers live in
:mod:`dpmodels.audit.poisoning`; this module runs them over data splits:
:func:`guarantee_experiment` (guaranteed accuracy vs fraction poisoned) and
:func:`backdoor_experiment` (attack success rate vs poisoned copies). Both return tidy
:class:`pandas.DataFrame` s. The registry ids ``002-fig3``, ``002-fig4``, ``002-table3`` and
``002-table8`` (:mod:`.results`) use the same helpers cell by cell.
"""

from __future__ import annotations

import math
import time

import numpy as np
import pandas as pd

from dpmodels.audit.poisoning import (
    DIGITS_MAX,
    PRIVATE_METHODS,
    _fit_quiet,
    _public_bounds,
    accuracy_lower_bound,
    attack_success_rate,
    attack_success_upper_bound,
    dpa_certified_accuracy,
    load_digits_01,
    make_private_learner,
    n_poisoned_from_fraction,
    poison_backdoor,
)

__all__ = ["guarantee_experiment", "backdoor_experiment", "splits"]


def splits(y, n_splits, cv, test_size, seed):
    """Stratified k-fold (``cv="kfold"``) or stratified shuffle splits (``"shuffle"``)."""
    from sklearn.model_selection import StratifiedKFold, StratifiedShuffleSplit

    if cv == "kfold":
        return list(StratifiedKFold(n_splits, shuffle=True, random_state=seed).split(np.zeros(len(y)), y))
    if cv == "shuffle":
        return list(
            StratifiedShuffleSplit(n_splits, test_size=test_size, random_state=seed).split(np.zeros(len(y)), y)
        )
    raise ValueError("cv must be 'kfold' or 'shuffle'")


def _take(X, idx):
    return X.iloc[idx] if isinstance(X, pd.DataFrame) else np.asarray(X)[idx]


def _sem(a):
    a = np.asarray(a, dtype=float)
    return float(a.std(ddof=1) / math.sqrt(a.size)) if a.size > 1 else float("nan")


def guarantee_experiment(
    X,
    y,
    *,
    dataset="data",
    methods=("privatree", "dp_logreg", "dpa", "tree"),
    epsilons=(0.01, 0.1),
    fractions=(0.0, 0.001, 0.005, 0.01),
    max_depth=4,
    dpa_n_estimators=1000,
    n_splits=5,
    cv="kfold",
    test_size=0.2,
    random_state=0,
):
    """Guaranteed accuracy vs fraction of poisoned records (paper 002, Fig. 3, Tables III / VIII).

    For each private ``method`` (see :func:`make_private_learner`: "privatree", "dp_logreg",
    "bdpt", "dpgdf", "diffprivlib_tree") and ε, the clean test accuracy is
    averaged over the splits and turned into a guarantee with :func:`accuracy_lower_bound` at
    x = ⌊fraction · n_train⌋ (n_train: the mean training-set size). For "dpa" (Deep Partition
    Aggregation, ``dpa_n_estimators`` depth-``max_depth`` trees) the guarantee at x is the
    certified accuracy (correct and certificate ≥ x), averaged over the splits; its ε is NaN.
    "tree" adds scikit-learn's non-private tree (guarantee NaN: no bound holds for it).

    Bounds for PrivaTree and the row norm for logistic regression are declared public from the
    whole dataset (as the paper's experiments do). Logistic regression standardises the features
    (paper 002, Sec. VI); that scaling is fitted on the training split and is not private.

    Returns a tidy DataFrame: dataset, method, epsilon, fraction, n_poisoned, n_train, accuracy,
    accuracy_se, guarantee, n_splits, fit_seconds.
    """
    from dpmodels.tree.baselines import DPAClassifier

    y = np.asarray(y)
    classes = np.unique(y)  # the label set is public for these benchmarks
    folds = splits(y, n_splits, cv, test_size, random_state)
    n_train = float(np.mean([len(tr) for tr, _ in folds]))
    xs = n_poisoned_from_fraction(np.asarray(fractions, dtype=float), n_train)
    bounds = _public_bounds(X)
    rows = []

    def add_private(method, eps, accs, secs):
        acc = float(np.mean(accs))
        g = np.asarray(accuracy_lower_bound(acc, xs, eps))
        for f, x, gv in zip(fractions, xs, np.atleast_1d(g)):
            rows.append(dict(dataset=dataset, method=method, epsilon=eps, fraction=float(f),
                             n_poisoned=int(x), n_train=n_train, accuracy=acc,
                             accuracy_se=_sem(accs), guarantee=float(gv), n_splits=len(folds),
                             fit_seconds=secs))

    for method in methods:
        if method in PRIVATE_METHODS:
            for eps in epsilons:
                accs, t0 = [], time.perf_counter()
                for s, (tr, te) in enumerate(folds):
                    seed = int(np.random.SeedSequence([random_state, s, int(eps * 1e6)]).generate_state(1)[0])
                    model = make_private_learner(method, eps, max_depth=max_depth, bounds=bounds,
                                                 classes=classes, seed=seed)
                    model = _fit_quiet(model, _take(X, tr), y[tr])
                    accs.append(float(np.mean(model.predict(_take(X, te)) == y[te])))
                add_private(method, eps, accs, (time.perf_counter() - t0) / len(folds))
        elif method == "dpa":
            accs, certs, t0 = [], [], time.perf_counter()
            for tr, te in folds:
                m = DPAClassifier(n_estimators=dpa_n_estimators, max_depth=max_depth)
                m.fit(_take(X, tr), y[tr])
                pred, cert = m.predict_certified(_take(X, te))
                correct = pred == y[te]
                accs.append(float(correct.mean()))
                certs.append(dpa_certified_accuracy(correct, cert, xs))
            certs = np.mean(certs, axis=0)
            for f, x, gv in zip(fractions, xs, certs):
                rows.append(dict(dataset=dataset, method="dpa", epsilon=float("nan"),
                                 fraction=float(f), n_poisoned=int(x), n_train=n_train,
                                 accuracy=float(np.mean(accs)), accuracy_se=_sem(accs),
                                 guarantee=float(gv), n_splits=len(folds),
                                 fit_seconds=(time.perf_counter() - t0) / len(folds)))
        elif method == "tree":
            from sklearn.tree import DecisionTreeClassifier

            from dpmodels.tree.baselines import _OrdinalEncoder

            accs, t0 = [], time.perf_counter()
            for tr, te in folds:
                enc = _OrdinalEncoder().fit(_take(X, tr))
                m = DecisionTreeClassifier(max_depth=max_depth, random_state=0)
                m.fit(enc.transform(_take(X, tr)), y[tr])
                accs.append(float(np.mean(m.predict(enc.transform(_take(X, te))) == y[te])))
            for f, x in zip(fractions, xs):
                rows.append(dict(dataset=dataset, method="tree", epsilon=float("nan"),
                                 fraction=float(f), n_poisoned=int(x), n_train=n_train,
                                 accuracy=float(np.mean(accs)), accuracy_se=_sem(accs),
                                 guarantee=float("nan"), n_splits=len(folds),
                                 fit_seconds=(time.perf_counter() - t0) / len(folds)))
        else:
            raise ValueError(f"unknown method {method!r}")
    return pd.DataFrame(rows)


def backdoor_experiment(
    *,
    method="privatree",
    epsilons=(0.01, 0.1, 1.0),
    n_poisoned=(0, 1, 2, 3, 5, 10, 20),
    n_splits=10,
    max_depth=4,
    test_size=0.2,
    include_tree=True,
    random_state=0,
    data=None,
    image_shape=(8, 8),
    pixel_max=DIGITS_MAX,
):
    """Backdoor attack success rate vs number of poisoned records (paper 002, Fig. 4).

    Data: digits 0 vs 1 (:func:`load_digits_01`; MNIST is not available offline). On each of
    ``n_splits`` stratified random splits, the attacker appends x triggered copies of training
    zeros labelled 1 (:func:`poison_backdoor`); the ASR is the fraction of test zeros predicted 1
    once triggered. For the private ``method`` (PrivaTree by default) at each ε the Corollary 3 bound is computed from the mean ASR of
    the clean models (x = 0). Pixel bounds (0, 16) are public.

    Returns a tidy DataFrame: method, epsilon, n_poisoned, fraction (of the clean training set),
    asr, asr_se, asr_bound, clean_accuracy, n_splits.
    """
    from sklearn.tree import DecisionTreeClassifier

    X, y = load_digits_01() if data is None else data
    folds = splits(y, n_splits, "shuffle", test_size, random_state)
    n_train = float(np.mean([len(tr) for tr, _ in folds]))
    bounds = (0.0, float(pixel_max))
    trig = dict(image_shape=tuple(image_shape), value=float(pixel_max))
    methods = ([("tree", float("nan"))] if include_tree else []) + [(method, float(e)) for e in epsilons]
    xs = [int(v) for v in n_poisoned]
    if 0 not in xs:
        xs = [0] + xs
    rows = []
    for method, eps in methods:
        asr = np.zeros((len(xs), len(folds)))
        acc = np.zeros(len(folds))
        for s, (tr, te) in enumerate(folds):
            for i, x in enumerate(xs):
                seed = int(np.random.SeedSequence(
                    [random_state, s, x, 7, 0 if method == "tree" else int(eps * 1e6)]).generate_state(1)[0])
                rng = np.random.default_rng(seed)
                Xp, yp = poison_backdoor(X[tr], y[tr], x, rng, **trig)
                if method == "tree":
                    model = DecisionTreeClassifier(max_depth=max_depth, random_state=seed % (2**31))
                else:
                    model = make_private_learner(method, eps, max_depth=max_depth, bounds=bounds,
                                                 classes=[0, 1], seed=seed)
                model = _fit_quiet(model, Xp, yp)
                asr[i, s] = attack_success_rate(model, X[te], y[te], **trig)
                if x == 0:
                    acc[s] = float(np.mean(model.predict(X[te]) == y[te]))
        clean_asr = float(asr[xs.index(0)].mean())
        for i, x in enumerate(xs):
            bound = (float("nan") if method == "tree"
                     else attack_success_upper_bound(clean_asr, x, eps))
            rows.append(dict(method=method, epsilon=eps, n_poisoned=x, fraction=x / n_train,
                             asr=float(asr[i].mean()), asr_se=_sem(asr[i]), asr_bound=bound,
                             clean_accuracy=float(acc.mean()), n_splits=len(folds)))
    return pd.DataFrame(rows)
