"""Empirical DP audits of the privacy edges (docs/privacy.md, principles 14–15; docs/dp_audit.md).

For every learner and three pairs of neighbours D, D' = D ∪ {x}:

* **one class** — D holds one class; x has the other (declared) class;
* **declared, absent** — the label set is declared (three classes for the trees, two string labels
  for the rule lists); D lacks one declared class, x has it;
* **foreign type** — x carries a value of another type in a categorical column (an int in a
  column of strings; for the rule lists, whose features are 0/1, a bool in an int column).

The observable output of each run is ``(whether fit raised, classes_, the released structure)``
(the structure: the first rule, the root split, or the predictions on a fixed probe set for the
diffprivlib wrappers). Each learner must pass at its ε (outcome distributions within e^ε; the
non-private learners GreedyRL and DPA are audited on ``(raised, classes_)`` only, which must not
change at all). The planted-leak controls reproduce the code before the fix (label set read from
y, positive class inferred from the labels present, ``np.unique`` over mixed types) and must be
flagged (ε_lb > ε).
"""

import warnings

import numpy as np
import pandas as pd
import pytest

from _extras import need
from dpmodels.audit import add_one, audit_estimator
from dpmodels.privacy import PrivacyLeakWarning
from dpmodels.rulelist import DPRuleListClassifier, GreedyRuleListClassifier
from dpmodels.tree import PrivaTreeClassifier
from dpmodels.tree.baselines import BDPTClassifier, DPAClassifier, DPGDFClassifier

EPS = 1.0
N_RUNS = 300
COLOURS = ["red", "green", "blue"]
BOUNDS = {"age": (18, 90)}


# ---------------------------------------------------------------------------- neighbours
def tree_data(case):
    """(X, y, X', y', classes) for the tree learners (a numerical and a categorical column)."""
    rng = np.random.default_rng(0)
    n = 24
    X = pd.DataFrame(
        {
            "age": rng.integers(18, 90, n).astype(float),
            "colour": pd.Series(np.array(COLOURS, dtype=object)[rng.integers(0, 3, n)], dtype=object),
        }
    )  # object: a str dtype would turn 7 into "7"
    if case == "one class":
        y, classes, new = np.zeros(n, int), [0, 1], ({"age": 40.0, "colour": "red"}, 1)
    elif case == "declared, absent":
        y, classes, new = np.arange(n) % 2, [0, 1, 2], ({"age": 40.0, "colour": "red"}, 2)
    else:  # foreign type
        y, classes, new = np.arange(n) % 2, [0, 1], ({"age": 40.0, "colour": 7}, 1)
    X2, y2 = add_one(X, pd.Series(y), *new)
    assert X2["colour"].iloc[-1] == new[0]["colour"]  # the foreign value keeps its type
    return X, pd.Series(y), X2, y2, classes


def rule_data(case):
    """(X, y, X', y', classes) for the rule lists (binary features)."""
    rng = np.random.default_rng(1)
    n = 24
    X = pd.DataFrame(rng.integers(0, 2, (n, 3)), columns=["f0", "f1", "f2"]).astype(object)
    if case == "one class":
        y, classes, new = np.zeros(n, int), None, ([1, 0, 1], 1)
    elif case == "declared, absent":
        y, classes, new = np.full(n, "no", dtype=object), ["no", "yes"], ([1, 0, 1], "yes")
    else:  # foreign type: a bool in an int column
        y, classes, new = np.arange(n) % 2, None, ([True, 0, 1], 1)
    X2, y2 = add_one(X, pd.Series(y), *new)
    assert type(X2.iloc[-1, 0]) is type(new[0][0])
    return X, pd.Series(y), X2, y2, classes


# ---------------------------------------------------------------------------- observables
def _classes(m):
    return tuple(str(c) for c in m.classes_)


def tree_key(m):
    t = m.tree_
    if t.children_left[0] == -1:
        root = "leaf"
    else:
        f = int(t.feature[0])
        root = (t.feature_names[f], t.left_categories[0]) if t.categorical[f] else t.feature_names[f]
    return _classes(m), root


def rule_key(m):
    rules = m.rule_list_.rules
    return _classes(m), rules[0].antecedent if rules else "no rule"


def classes_only(m):
    return _classes(m)


PROBE = pd.DataFrame({"age": [20.0, 50.0, 80.0], "colour": ["red", "blue", "green"]})


def probe_key(m):
    return _classes(m), tuple(str(p) for p in m.predict(PROBE))


CATS = {"colour": COLOURS}
LEARNERS = {
    # name: (factory(seed, classes), data, observable)
    "GreedyRL": (lambda s, c: GreedyRuleListClassifier(classes=c), rule_data, classes_only),
    "DP rule list": (
        lambda s, c: DPRuleListClassifier(epsilon=EPS, max_rules=3, min_support=0.0, classes=c, random_state=s),
        rule_data,
        rule_key,
    ),
    "PrivaTree": (
        lambda s, c: PrivaTreeClassifier(
            epsilon=EPS, max_depth=2, bounds=BOUNDS, categories=CATS, classes=c, random_state=s
        ),
        tree_data,
        tree_key,
    ),
    "BDPT": (
        lambda s, c: BDPTClassifier(
            epsilon=EPS, max_depth=2, bounds=([18.0], [90.0]), categories=CATS, classes=c, random_state=s
        ),
        tree_data,
        tree_key,
    ),
    "DPGDF": (
        lambda s, c: DPGDFClassifier(epsilon=EPS, max_depth=2, categories=CATS, classes=c, random_state=s),
        tree_data,
        tree_key,
    ),
    "DPA": (
        lambda s, c: DPAClassifier(n_estimators=5, max_depth=2, categories=CATS, classes=c),
        tree_data,
        classes_only,
    ),
}
CASES = ["one class", "declared, absent", "foreign type"]


def run_audit(factory, data, key, case, seed):
    X, y, X2, y2, classes = data(case)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # DPGDF: "ignores the numerical features"
        return audit_estimator(
            lambda s: factory(s, classes), X, y, X2, y2, key, N_RUNS, EPS, random_state=seed, fit_errors="outcome"
        )


@pytest.mark.slow
@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("name", list(LEARNERS))
def test_edges_pass_the_audit(name, case):
    factory, data, key = LEARNERS[name]
    res = run_audit(factory, data, key, case, seed=hash((name, case)) % 2**32)
    assert res.passed, str(res)
    assert "raised" not in res.event or res.counts["D"][0] == res.counts["D_prime"][0] == 0


@pytest.mark.slow
@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("name", ["DiffprivlibTreeClassifier", "DPLogisticRegression"])
def test_edges_pass_the_audit_diffprivlib(name, case):
    need("diffprivlib")
    from dpmodels.tree import baselines

    Est = getattr(baselines, name)
    if name == "DiffprivlibTreeClassifier":

        def factory(s, c):
            return Est(
                epsilon=EPS,
                max_depth=2,
                bounds=([18.0, 0.0], [90.0, 2.0]),
                categories=CATS,
                classes=c,
                random_state=s % 2**31,
            )
    else:

        def factory(s, c):
            return Est(epsilon=EPS, data_norm=100.0, categories=CATS, classes=c, random_state=s % 2**31)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # DP LR's ledger records n (diffprivlib's mechanism)
        res = run_audit(factory, tree_data, probe_key, case, seed=hash((name, case)) % 2**32)
    assert res.passed, str(res)


# ---------------------------------------------------------------------------- planted leaks
class _OldLabelInference(DPRuleListClassifier):
    """PLANTED LEAK: the label encoding before the fix — the positive class is the larger label
    present, and one class other than 0/1 raises."""

    def _encode_labels(self, y):
        uniq = np.unique(np.asarray(y))
        if len(uniq) == 1 and uniq[0] not in (0, 1):
            raise ValueError("y holds one class that is not 0/1")
        self.classes_ = uniq if len(uniq) == 2 else np.array([0, 1])
        return (np.asarray(y) == self.classes_[-1]).astype(np.int64)


def _old_category_codes(col, values):
    """PLANTED LEAK: np.unique over the column (TypeError on mixed types), as before the fix."""
    from dpmodels.validation import category_codes

    a = np.asarray(col.to_numpy() if hasattr(col, "to_numpy") else col)
    if a.dtype.kind == "O":
        np.unique(a)  # raises TypeError when the column mixes str and int
    return category_codes(col, values)


@pytest.mark.slow
def test_planted_label_set_read_from_y_is_flagged():
    """PrivaTree without classes= (the label set read from y, as before the fix): one record of
    an absent class changes classes_ with certainty."""

    def factory(s, c):
        return PrivaTreeClassifier(
            epsilon=EPS,
            max_depth=2,
            bounds=BOUNDS,
            categories=CATS,
            random_state=s,
        )

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)
        for case in ("one class", "declared, absent"):
            res = run_audit(factory, tree_data, tree_key, case, seed=21)
            assert not res.passed and res.epsilon_lb > 2 * EPS, str(res)


@pytest.mark.slow
def test_planted_positive_class_inference_is_flagged():
    X, y, _, _, _ = rule_data("one class")
    y = pd.Series(np.full(len(y), 2))
    X2, y2 = add_one(X, y, [1, 0, 1], 1)
    res = audit_estimator(
        lambda s: _OldLabelInference(epsilon=EPS, random_state=s),
        X,
        y,
        X2,
        y2,
        rule_key,
        N_RUNS,
        EPS,
        random_state=22,
        fit_errors="outcome",
    )
    assert not res.passed and res.epsilon_lb > 2 * EPS, str(res)
    # the fixed learner refuses both with the same schema error: no difference to see
    ok = audit_estimator(
        lambda s: DPRuleListClassifier(epsilon=EPS, random_state=s),
        X,
        y,
        X2,
        y2,
        rule_key,
        100,
        EPS,
        random_state=22,
        fit_errors="outcome",
    )
    assert ok.passed and ok.counts["D"] == ok.counts["D_prime"]


@pytest.mark.slow
def test_planted_type_error_on_foreign_category_is_flagged(monkeypatch):
    import dpmodels.tree.model as model

    monkeypatch.setattr(model, "category_codes", _old_category_codes)
    factory, data, key = LEARNERS["PrivaTree"]
    res = run_audit(factory, data, key, "foreign type", seed=23)
    assert not res.passed and "raised" in res.event and res.epsilon_lb > 2 * EPS, str(res)


# ---------------------------------------------------------------------------- ledgers (fast)
@pytest.mark.parametrize(
    "Est, kw",
    [
        (PrivaTreeClassifier, dict(bounds=BOUNDS, categories=CATS)),
        (BDPTClassifier, dict(bounds=([18.0], [90.0]), categories=CATS)),
        (DPGDFClassifier, dict(categories=CATS)),
    ],
)
def test_no_declared_classes_means_a_leak_row(Est, kw):
    X, y, _, _, _ = tree_data("declared, absent")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        undeclared = Est(epsilon=EPS, random_state=0, **kw).fit(X, y)
        declared = Est(epsilon=EPS, random_state=0, classes=[0, 1], **kw).fit(X, y)
    assert not undeclared.privacy_ledger_.is_private
    assert any("label set" in r.what for r in undeclared.privacy_ledger_.leaks)
    assert declared.privacy_ledger_.is_private


def test_no_declared_classes_means_a_leak_row_diffprivlib():
    need("diffprivlib")
    from dpmodels.tree.baselines import DiffprivlibTreeClassifier, DPLogisticRegression

    X, y, _, _, _ = tree_data("declared, absent")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for m in (
            DiffprivlibTreeClassifier(bounds=([18.0, 0.0], [90.0, 2.0]), categories=CATS),
            DPLogisticRegression(data_norm=100.0, categories=CATS),
        ):
            led = m.fit(X, y).privacy_ledger_
            assert not led.is_private and any("label set" in r.what for r in led.leaks)


def test_rule_lists_never_read_the_label_set():
    """The rule lists' label set is the schema {0, 1} or the declaration: nothing is read."""
    X, y, _, _, _ = rule_data("one class")
    with warnings.catch_warnings():
        warnings.simplefilter("error", PrivacyLeakWarning)
        assert DPRuleListClassifier(random_state=0).fit(X, y).privacy_ledger_.is_private
