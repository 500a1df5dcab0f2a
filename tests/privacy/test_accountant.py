"""One budget for a pipeline: the accountant shared by the Binarizer and the learners."""

import copy
import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.model_selection import cross_val_score
from sklearn.pipeline import make_pipeline

from dpmodels.data import Binarizer
from dpmodels.privacy import BudgetAccountant, BudgetExceededError, LedgerShare, PrivacyLeakWarning
from dpmodels.rulelist import DPRuleListClassifier
from dpmodels.tree import PrivaTreeClassifier
from dpmodels.tree.baselines import BDPTClassifier, DPGDFClassifier


def data(n=400, seed=0):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(
        {"age": rng.integers(18, 90, n).astype(float), "city": rng.choice(["a", "b", "c"], n).astype(object)}
    )
    y = pd.Series(((X["age"] > 50) ^ (X["city"] == "a")).astype(int), name="y")
    return X, y


CATS = {"city": ["a", "b", "c"]}


def pipeline(acc, eq=0.2, el=0.8, **bin_kw):
    kw = dict(epsilon=eq, bounds={"age": (18, 90)}, categories=CATS, accountant=acc, random_state=0)
    kw.update(bin_kw)
    return make_pipeline(Binarizer(**kw), DPRuleListClassifier(epsilon=el, max_rules=3, accountant=acc, random_state=1))


def test_pipeline_reports_one_ledger():
    X, y = data()
    acc = BudgetAccountant(1.0)
    p = pipeline(acc).fit(X, y)
    led = acc.ledger
    assert p[0].privacy_ledger_ is led and p[-1].privacy_ledger_ is led
    whats = [r.what for r in led.rows]
    assert whats[0] == "Binarizer: 2 quantiles of 'age'"
    assert all(w.startswith("DPRuleListClassifier: ") for w in whats[1:]) and len(whats) >= 2
    assert led.epsilon == 1.0 and led.epsilon_spent == pytest.approx(1.0)
    assert led.is_private and "PRIVATE" in led.summary()
    assert acc.is_private and acc.epsilon_remaining == pytest.approx(0.0, abs=1e-12)
    # the learner planned with its own share: its selections cost 0.8 / K each
    assert led.rows[1].epsilon == pytest.approx(0.8 / 3)


def test_a_share_beyond_what_is_left_is_refused_before_anything_is_spent():
    X, y = data()
    acc = BudgetAccountant(1.0)
    with pytest.raises(BudgetExceededError, match="DPRuleListClassifier asks the accountant"):
        DPRuleListClassifier(epsilon=1.5, accountant=acc).fit(X[["age"]] > 50, y)
    assert acc.ledger.rows == []
    with pytest.raises(BudgetExceededError, match="nothing was spent"):
        pipeline(acc, eq=0.5, el=0.6).fit(X, y)  # the binarizer's 0.5 fits, the learner's 0.6 not
    assert [r.what for r in acc.ledger.rows] == ["Binarizer: 2 quantiles of 'age'"]


def test_a_second_fit_spends_more_of_the_total():
    X, y = data()
    acc = BudgetAccountant(2.0)
    p = pipeline(acc)
    p.fit(X, y)
    n1 = len(acc.ledger.rows)
    assert acc.is_private
    p.fit(X, y)
    releases = [r for r in acc.ledger.rows if r.composition != "leak"]
    assert acc.epsilon_spent == pytest.approx(2.0) and len(releases) == 2 * n1
    # two fits of each step: the total covers publishing both, choosing one is not covered
    selections = [r.what for r in acc.ledger.rows if r.composition == "leak"]
    assert selections == [
        "Binarizer: 2 fits under this accountant",
        "DPRuleListClassifier: 2 fits under this accountant",
    ]
    assert not acc.is_private and "choosing among them is not a DP release" in acc.summary()
    with pytest.raises(BudgetExceededError):
        p.fit(X, y)
    releases = [r for r in acc.ledger.rows if r.composition != "leak"]
    assert acc.epsilon_spent == pytest.approx(2.0) and len(releases) == 2 * n1


def test_cross_validation_is_charged_for_every_fit():
    X, y = data()
    acc = BudgetAccountant(2.5)
    with pytest.raises(BudgetExceededError):
        cross_val_score(pipeline(acc), X, y, cv=3, error_score="raise")
    # two folds fitted; on the third the binarizer's release fits (0.2), the learner's is refused
    assert acc.epsilon_spent == pytest.approx(2.2)


def test_clone_and_copies_share_the_accountant():
    acc = BudgetAccountant(1.0)
    assert copy.copy(acc) is acc and copy.deepcopy(acc) is acc
    p = clone(pipeline(acc))
    assert p[0].accountant is acc and p[-1].accountant is acc
    assert "BudgetAccountant(epsilon=1" in repr(p[-1])


def test_a_pickled_accountant_is_detached():
    """A copy in another process (joblib workers) could spend without charging the original."""
    import pickle

    X, y = data()
    acc = BudgetAccountant(1.0)
    p = pipeline(acc).fit(X, y)
    q = pickle.loads(pickle.dumps(p))
    assert q[-1].privacy_ledger_ is q[-1].accountant.ledger  # the ledger is kept, for reading
    assert q[-1].accountant.epsilon_spent == pytest.approx(1.0) and "detached" in repr(q[-1].accountant)
    with pytest.raises(RuntimeError, match="restored by pickle"):
        q.fit(X, y)
    assert not acc.detached and acc.ledger.rows == p[-1].privacy_ledger_.rows


def test_a_leaky_step_makes_the_whole_pipeline_not_private():
    X, y = data()
    acc = BudgetAccountant(1.0)
    p = make_pipeline(
        Binarizer(categories=CATS, accountant=acc),  # data quantiles: a leak
        DPRuleListClassifier(epsilon=1.0, max_rules=3, accountant=acc, random_state=0),
    )
    with pytest.warns(PrivacyLeakWarning):
        p.fit(X, y)
    led = p[-1].privacy_ledger_
    assert led is acc.ledger and not led.is_private
    assert "Binarizer: quantiles of feature 'age'" in led.summary()


def test_public_cut_points_cost_nothing():
    X, y = data()
    acc = BudgetAccountant(1.0)
    p = make_pipeline(
        Binarizer(cut_points={"age": [30, 60]}, categories=CATS, accountant=acc),
        DPRuleListClassifier(epsilon=1.0, max_rules=3, accountant=acc, random_state=0),
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error", PrivacyLeakWarning)
        p.fit(X, y)
    assert acc.is_private and not any(r.what.startswith("Binarizer") for r in acc.ledger.rows)


def test_a_granted_share_is_reserved_until_its_fit_ends():
    acc = BudgetAccountant(1.0)
    a = acc.request(0.7, owner="A")
    assert acc.epsilon_reserved == pytest.approx(0.7)
    with pytest.raises(BudgetExceededError, match="nothing was spent"):
        acc.request(0.7, owner="B")  # 0.7 of the 1.0 is A's, spent or not
    a.spend("x", "laplace", 0.5)
    with pytest.raises(BudgetExceededError):
        a.spend("z", "laplace", 0.3)  # beyond A's share
    assert [r.what for r in acc.ledger.rows] == ["A: x"]
    b = acc.request(0.3, owner="B")  # 0.5 spent + A's unspent 0.2 reserved: 0.3 is left
    with pytest.raises(BudgetExceededError):
        acc.request(0.05, owner="C")
    a.close()  # A's fit is over: its unspent 0.2 returns
    c = acc.request(0.2, owner="C")
    b.spend("y", "laplace", 0.3)
    c.spend("w", "laplace", 0.2)
    assert acc.epsilon_spent == pytest.approx(1.0) and acc.is_private


def test_an_abandoned_share_is_released_when_collected():
    import gc

    acc = BudgetAccountant(1.0)
    acc.request(0.9, owner="A")  # not kept: a fit that failed and was dropped
    gc.collect()
    acc.request(0.9, owner="B")


def test_the_accountant_never_overshoots_under_threads():
    """Many fits in threads, each requesting a share and spending it row by row: the spent
    total never exceeds the budget, and every refusal happens at a request or a row."""
    import threading

    for trial in range(40):
        acc = BudgetAccountant(1.0)
        barrier = threading.Barrier(8)

        def fit(k, barrier=barrier, acc=acc):
            barrier.wait()
            try:
                share = acc.request(0.3, owner=f"fit{k}")
            except BudgetExceededError:
                return
            for i in range(6):
                share.spend(f"row {i}", "laplace", 0.05)
            share.close()

        ts = [threading.Thread(target=fit, args=(k,)) for k in range(8)]
        for t in ts:
            t.start()
        for t in ts:
            t.join()
        assert acc.epsilon_spent <= 1.0 * (1 + 1e-9), trial
        assert acc.epsilon_spent == pytest.approx(0.9)  # three shares of 0.3 fit, no more
        assert acc.epsilon_reserved == 0.0


def test_share_rows_are_checked_against_the_accountant_at_every_release():
    acc = BudgetAccountant(1.0)
    a = acc.request(0.7, owner="A")
    a.spend("x", "laplace", 0.7)
    with pytest.raises(BudgetExceededError):
        a.spend("z", "laplace", 0.1)  # beyond A's share
    acc.ledger.spend("direct", "laplace", 0.3)  # spent on the accountant's ledger itself
    b = LedgerShare(0.5, parent=acc.ledger, owner="B", accountant=acc)  # made by hand, not granted
    with pytest.raises(BudgetExceededError):
        b.spend("y", "laplace", 0.1)  # within B's share, beyond the accountant
    assert b.rows == [] and [r.what for r in acc.ledger.rows] == ["A: x", "direct"]


@pytest.mark.parametrize(
    "make",
    [
        lambda acc: PrivaTreeClassifier(
            epsilon=0.5,
            bounds={"age": (18, 90)},
            categories=CATS,
            classes=[0, 1],
            n_public=400,
            accountant=acc,
            random_state=0,
        ),
        lambda acc: BDPTClassifier(
            epsilon=0.5, bounds={"age": (18, 90)}, categories=CATS, classes=[0, 1], accountant=acc, random_state=0
        ),
        lambda acc: DPGDFClassifier(epsilon=0.5, categories=CATS, classes=[0, 1], accountant=acc, random_state=0),
    ],
)
def test_tree_learners_take_the_accountant(make):
    X, y = data()
    acc = BudgetAccountant(0.8)
    m = make(acc).fit(X, y)
    assert m.privacy_ledger_ is acc.ledger and acc.is_private
    assert acc.epsilon_spent == pytest.approx(0.5)
    name = type(m).__name__
    assert all(r.what.startswith(f"{name}: ") for r in acc.ledger.rows)
    with pytest.raises(BudgetExceededError):
        make(acc).fit(X, y)
    assert acc.epsilon_spent == pytest.approx(0.5)
    # without an accountant nothing changes
    solo = make(None).fit(X, y)
    assert solo.privacy_ledger_.epsilon == 0.5 and solo.privacy_ledger_ is not acc.ledger


@pytest.mark.parametrize("cls", [DPRuleListClassifier, PrivaTreeClassifier, BDPTClassifier, DPGDFClassifier, Binarizer])
def test_a_wrong_accountant_is_a_type_error(cls):
    X, y = data()
    with pytest.raises(TypeError, match="BudgetAccountant"):
        cls(accountant=1.0).fit(X[["age"]] > 50, y)


def test_accountant_validates_its_budget():
    with pytest.raises(ValueError):
        BudgetAccountant(0)
    with pytest.raises(ValueError):
        BudgetAccountant(1.0, 1.0)
    acc = BudgetAccountant(1.0, 1e-6)
    share = acc.request(0.5, 1e-7, owner="x")
    assert (share.epsilon, share.delta) == (0.5, 1e-7)
    with pytest.raises(BudgetExceededError):
        acc.request(0.5, 1e-5)


def test_readme_pipeline_example_runs():
    """The README's tree example defines X, y, schema; its pipeline block must run as written."""
    import pathlib
    import re

    text = (pathlib.Path(__file__).resolve().parents[2] / "README.md").read_text()
    section = text.split("### Raw data to a DP rule list, with one budget", 1)[1]
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    from dpmodels.data import dataset_schema, load_dataset
    from dpmodels.rulelist import DPRuleListClassifier

    X, y = load_dataset("adult", binarized=False)
    ns = dict(
        X=X.iloc[:8000],
        y=y.iloc[:8000],
        schema=dataset_schema("adult"),
        DPRuleListClassifier=DPRuleListClassifier,
        print=lambda *a: None,
    )
    exec(code, ns)
    acc = ns["acc"]
    assert acc.is_private and acc.epsilon_spent == pytest.approx(1.0)
    assert sum(r.what.startswith("Binarizer: ") for r in acc.ledger.rows) == 6


def test_spent_plus_reserved_never_exceeds_the_total_property():
    """Any interleaving of requests, spends and closes: spent + reserved stays within the total,
    and a share's rows never exceed the share."""
    from hypothesis import given, settings
    from hypothesis import strategies as st

    op = st.tuples(st.sampled_from(["request", "spend", "close"]), st.integers(0, 4), st.floats(0.01, 0.6))

    @settings(max_examples=60, deadline=None)
    @given(st.lists(op, max_size=40))
    def run(ops):
        acc = BudgetAccountant(1.0)
        shares = []
        for kind, k, x in ops:
            try:
                if kind == "request":
                    shares.append(acc.request(x, owner=f"E{k}"))
                elif shares and kind == "spend":
                    shares[k % len(shares)].spend("r", "laplace", x)
                elif shares:
                    shares[k % len(shares)].close()
            except BudgetExceededError:
                pass
            assert acc.epsilon_spent + acc.epsilon_reserved <= 1.0 + 1e-9
            assert all(s.epsilon_spent <= s.epsilon + 1e-9 for s in shares)

    run()


def test_threaded_cross_validation_stays_within_the_total():
    """Real fits in joblib threads (the backend the docs recommend for a shared accountant):
    each fit reserves its whole share, so two of five folds fit in 2.5 and nothing overshoots."""
    from joblib import parallel_backend
    from sklearn.exceptions import FitFailedWarning

    X, y = data()
    Xb = (X[["age"]] > 50).astype(int)
    for _ in range(3):
        acc = BudgetAccountant(2.5)
        est = DPRuleListClassifier(epsilon=1.0, max_rules=3, accountant=acc)
        with parallel_backend("threading"), warnings.catch_warnings():
            warnings.simplefilter("ignore", FitFailedWarning)
            warnings.simplefilter("ignore", UserWarning)
            scores = cross_val_score(est, Xb, y, cv=5, n_jobs=4, error_score=np.nan)
        assert int(np.isfinite(scores).sum()) == 2
        assert acc.epsilon_spent == pytest.approx(2.0) and acc.epsilon_spent <= 2.5
        assert acc.epsilon_reserved == 0.0
