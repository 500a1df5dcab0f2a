"""Private hyper-parameter selection (dpmodels.model_selection): one proven (ε, δ) for the search."""

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.base import BaseEstimator, ClassifierMixin

from dpmodels.data import load_dataset
from dpmodels.model_selection import PrivateSearch, ProxySearch, accuracy_vs_epsilon
from dpmodels.privacy import PrivacyLeakWarning, PrivacyLedger
from dpmodels.privacy.private_selection import random_stopping_selection, runs_cap, truncation_delta
from dpmodels.rulelist import DPRuleListClassifier
from dpmodels.tree import PrivaTreeClassifier


@pytest.fixture(scope="module")
def compas(compas_raw, compas_schema):
    """The first 1,500 rows of raw COMPAS and its schema (overrides the suite's ``compas``)."""
    X, y = compas_raw
    return X.iloc[:1500], y.iloc[:1500], compas_schema


def test_runs_cap_is_the_smallest_cap_within_delta():
    for eps_t in (0.01, 0.3, 1.0, 3.0):
        for gamma in (0.05, 0.2, 0.5, 0.99):
            for delta in (1e-9, 1e-6, 1e-3):
                t = runs_cap(eps_t, gamma, delta)
                assert truncation_delta(eps_t, gamma, t) <= delta * (1 + 1e-12)
                if t > 1:
                    assert truncation_delta(eps_t, gamma, t - 1) > delta
    assert runs_cap(1.0, 0.5, 0.0) is None and truncation_delta(1.0, 0.5, None) == 0.0
    assert truncation_delta(1.0, 0.5, 3) == pytest.approx((1 + math.e**3) * 0.125)


def test_random_stopping_returns_the_best_and_charges_three_trial_epsilons():
    rng = np.random.default_rng(0)
    led = PrivacyLedger(3.0, 1e-6)
    seen = []

    def trial(i):
        s = float(rng.random())
        seen.append(s)
        return s, i

    best, cand, runs = random_stopping_selection(trial, 1.0, 0.2, rng, max_runs=runs_cap(1.0, 0.2, 1e-6), ledger=led)
    assert best == max(seen) and seen[cand] == best and runs == len(seen)
    assert len(led.rows) == 1 and led.rows[0].epsilon == pytest.approx(3.0) and led.is_private
    # the number of runs is geometric(γ) capped at T: its mean over many searches is about 1/γ
    counts = [random_stopping_selection(lambda i: (0.0, i), 1.0, 0.25, rng)[2] for _ in range(4000)]
    assert abs(np.mean(counts) - 4.0) < 0.2


def test_search_ledger_is_one_proven_budget(compas):
    X, y, s = compas
    ps = PrivateSearch(
        PrivaTreeClassifier(**s.fit_params()), [{"max_depth": d} for d in (1, 2, 3)], epsilon=1.0, delta=1e-6
    ).fit(X, y)
    led = ps.privacy_ledger_
    assert led.is_private and led.epsilon_spent == pytest.approx(1.0) and led.delta_spent <= 1e-6
    assert led.rows[0].mechanism.startswith("random stopping") and led.rows[0].epsilon == pytest.approx(0.2)
    assert ps.best_params_["max_depth"] in (1, 2, 3) and 0.0 <= ps.best_score_ <= 1.0
    assert ps.best_estimator_.privacy_ledger_ is led and ps.best_estimator_.max_depth == ps.best_params_["max_depth"]
    assert not hasattr(ps, "trials_") and not hasattr(ps, "n_trials_")  # not covered by the theorem
    assert ps.score(X, y) > 0.5 and ps.predict_proba(X).shape == (len(X), 2)
    # no refit: the best trial's model, all of ε on the selection
    ps0 = PrivateSearch(
        PrivaTreeClassifier(**s.fit_params()), [{"max_depth": 2}], epsilon=0.9, refit_share=0, delta=0
    ).fit(X, y)
    assert len(ps0.privacy_ledger_.rows) == 1 and ps0.privacy_ledger_.rows[0].epsilon == pytest.approx(0.9)
    assert ps0.max_trials_ is None and ps0.trial_epsilon_ == pytest.approx(0.3)


def test_saved_model_states_the_search_total(compas, tmp_path):
    from dpmodels.io import load_model, save_model

    X, y, s = compas
    ps = PrivateSearch(DPRuleListClassifier(), [{"max_rules": k} for k in (2, 4)], epsilon=2.0)
    Xb, yb = load_dataset("compas", binarized=True)
    ps.fit(Xb.iloc[:1500], yb.iloc[:1500])
    doc = load_model(save_model(ps.best_estimator_, tmp_path / "m.json"))
    assert doc.privacy["is_private"] is True and doc.privacy["epsilon_spent"] == pytest.approx(2.0)


@pytest.mark.parametrize(
    "kw, msg",
    [
        (dict(candidates=[]), "non-empty list"),
        (dict(candidates=[{"depth": 2}]), "'depth' is not a parameter"),
        (dict(candidates=[{"epsilon": 2}]), "may not set epsilon"),
        (dict(candidates=[{"max_depth": 2}], gamma=0), "'gamma' parameter of PrivateSearch must be None or a float in"),
        (dict(candidates=[{"max_depth": 2}], holdout=1.0), "'holdout' parameter of PrivateSearch must be a float"),
        (dict(candidates=[{"max_depth": 2}], refit_share=1.0), "'refit_share' parameter of PrivateSearch must be"),
        (dict(candidates=[{"max_depth": 2}], tuner="rdp", gamma=1.0), "gamma must be in (0, 1) for tuner='rdp'"),
        (dict(candidates=[{"max_depth": 2}], epsilon=0), "epsilon"),
        (dict(candidates=[{"max_depth": -3}]), "max_depth"),
    ],
)
def test_bad_parameters_are_refused_before_anything_is_spent(compas, kw, msg):
    X, y, s = compas
    kw = {"epsilon": 1.0, **kw}
    with pytest.raises(ValueError, match=msg.replace("(", r"\(").replace(")", r"\)").replace("[", r"\[")):
        PrivateSearch(PrivaTreeClassifier(**s.fit_params()), **kw).fit(X, y)


def test_accuracy_vs_epsilon_on_a_public_proxy(compas):
    X, y, s = compas
    df = accuracy_vs_epsilon(PrivaTreeClassifier(max_depth=2, **s.fit_params()), X, y, [0.1, 1.0], runs=2)
    assert list(df.columns) == ["epsilon", "run", "accuracy"] and len(df) == 4


def test_rdp_tuner_ledger_is_one_proven_row_and_gives_each_trial_more(compas):
    X, y, s = compas
    cands = [{"max_depth": d} for d in (1, 2, 3)]
    ps = PrivateSearch(PrivaTreeClassifier(**s.fit_params()), cands, epsilon=1.0, delta=1e-6, tuner="rdp").fit(X, y)
    lt = PrivateSearch(PrivaTreeClassifier(**s.fit_params()), cands, epsilon=1.0, delta=1e-6).fit(X, y)
    led = ps.privacy_ledger_
    sel = led.rows[0]
    assert led.is_private and led.epsilon_spent <= 1.0 + 1e-12 and led.delta_spent <= 1e-6
    assert sel.mechanism.startswith("truncated negative binomial") and sel.epsilon == pytest.approx(0.2, rel=1e-5)
    assert [r.what.startswith("refit: ") for r in led.rows[1:]] == [True] * (len(led.rows) - 1)
    # pure ε_t-DP trials: (2 + η)·ε_t with η = 0 instead of Liu & Talwar's 3·ε_t
    assert ps.trial_epsilon_ == pytest.approx(0.1, rel=1e-5) and lt.trial_epsilon_ == pytest.approx(0.2 / 3)
    assert ps.max_trials_ >= 3 and ps.best_params_ in cands and 0.0 <= ps.best_score_ <= 1.0
    assert not hasattr(ps, "n_trials_")
    # η = 1 is the geometric law: the same charge as Liu & Talwar
    geo = PrivateSearch(PrivaTreeClassifier(**s.fit_params()), cands, epsilon=1.0, tuner="rdp", shape=1.0).fit(X, y)
    assert geo.trial_epsilon_ == pytest.approx(0.2 / 3, rel=1e-5)
    # δ = 0: no cap, the pure bound
    pure = PrivateSearch(PrivaTreeClassifier(**s.fit_params()), cands, epsilon=0.5, delta=0, tuner="rdp").fit(X, y)
    assert pure.max_trials_ is None and pure.privacy_ledger_.delta_spent == 0.0 and pure.privacy_ledger_.is_private


def test_rdp_tuner_is_an_sklearn_estimator(compas):
    from sklearn.base import clone

    X, y, s = compas
    ps = PrivateSearch(PrivaTreeClassifier(**s.fit_params()), [{"max_depth": 2}], tuner="rdp", shape=0.5)
    c = clone(ps)
    assert c.get_params()["tuner"] == "rdp" and c.get_params()["shape"] == 0.5
    c.set_params(shape=-0.5, random_state=3).fit(X, y)
    assert c.predict(X).shape == (len(X),) and set(c.classes_) == set(s.fit_params()["classes"])


@pytest.mark.parametrize(
    "kw, msg",
    [
        (dict(tuner="renyi"), "'tuner' parameter of PrivateSearch must be"),
        (dict(tuner="rdp", shape=-1.0), "'shape' parameter of PrivateSearch must be"),
        (dict(tuner="rdp", shape=float("inf")), "'shape' parameter of PrivateSearch must be"),
        (dict(tuner="rdp", gamma=1.0), "gamma must be in (0, 1)"),
        (dict(tuner="rdp", gamma=0.0), "'gamma' parameter of PrivateSearch must be"),
        (dict(tuner="rdp", shape="0"), "'shape' parameter of PrivateSearch must be"),
    ],
)
def test_rdp_tuner_refuses_bad_parameters_before_any_fit(compas, monkeypatch, kw, msg):
    X, y, s = compas

    def no_fit(*a, **k):
        raise AssertionError("a trial ran before the parameters were checked")

    monkeypatch.setattr(PrivaTreeClassifier, "fit", no_fit)
    with pytest.raises(ValueError, match=msg.replace("(", r"\(").replace(")", r"\)")):
        PrivateSearch(PrivaTreeClassifier(**s.fit_params()), [{"max_depth": 2}, {"max_depth": 3}], **kw).fit(X, y)


def test_lib_search_study_cell_and_table():
    import pandas as pd

    from dpmodels.experiments.library.private_search import markdown_table, study_cell

    rows = study_cell("compas", 1.0, splits=2)
    assert len(rows) == 2 * 3 * 2 and {r["learner"] for r in rows} == {"fixed", "search-lt", "search-rdp"}
    depths = [r["value"] for r in rows if r["metric"] == "depth"]
    assert set(depths) <= {2, 3, 4, 5, 6} and all(r["delta"] <= 1e-6 for r in rows)
    table = markdown_table(pd.DataFrame(rows))
    assert table.count("| compas | 1 |") == 3 and "± " in table


# --------------------------------------------------------------------------- ProxySearch
class _Tree(ClassifierMixin, BaseEstimator):
    """A stand-in DP classifier for the oracle: scikit-learn's tree (no noise, so the choice is
    exact) that logs every fit (ε, training size, declared n) and keeps a one-row ledger."""

    log: list = []

    def __init__(self, epsilon=1.0, max_depth=2, random_state=None, classes=None, n_public=None):
        self.epsilon = epsilon
        self.max_depth = max_depth
        self.random_state = random_state
        self.classes = classes
        self.n_public = n_public

    def fit(self, X, y):
        from sklearn.tree import DecisionTreeClassifier

        type(self).log.append((float(self.epsilon), len(y), self.n_public))
        self.tree_ = DecisionTreeClassifier(max_depth=self.max_depth, random_state=0).fit(X, y)
        self.classes_ = self.tree_.classes_
        self.privacy_ledger_ = PrivacyLedger(self.epsilon)
        self.privacy_ledger_.spend("the tree", "test double", self.epsilon)
        return self

    def predict(self, X):
        return self.tree_.predict(X)


def _synthetic(seed, n=300, m=4):
    from sklearn.datasets import make_classification

    X, y = make_classification(n_samples=n, n_features=m, n_informative=3, n_redundant=0, flip_y=0.1, random_state=seed)
    return X, y


def test_proxy_search_picks_what_an_explicit_loop_over_the_proxies_picks():
    from sklearn.model_selection import KFold

    proxies = [_synthetic(s, n=200 + 50 * s, m=3 + s % 3) + ({},) for s in range(5)]
    cands = [{"max_depth": d} for d in (1, 2, 3, 5, 8)]
    cv = KFold(3)  # a deterministic splitter, so the oracle sees the same folds
    for aggregate in ("mean-accuracy", "mean-rank"):
        _Tree.log = []
        ps = ProxySearch(
            _Tree(n_public=100), cands, proxies, epsilon=0.5, cv=cv, aggregate=aggregate, max_proxy_epsilon=3.0
        )
        X, y = _synthetic(99)
        ps.fit(X, y)
        log = list(_Tree.log)
        # the oracle: an explicit loop, per proxy the mean held-out accuracy of each candidate
        acc = np.zeros((len(proxies), len(cands)))
        eps_seen = []
        for j, (Xp, yp, _) in enumerate(proxies):
            for i, c in enumerate(cands):
                scores = []
                for tr, te in cv.split(Xp):
                    eps_seen.append((min(0.5 * 100 / len(tr), 3.0), len(tr), len(tr)))
                    t = _Tree(max_depth=c["max_depth"]).fit(Xp[tr], yp[tr])
                    scores.append(np.mean(t.predict(Xp[te]) == yp[te]))
                acc[j, i] = np.mean(scores)
        if aggregate == "mean-accuracy":
            want = int(np.argmax(acc.mean(axis=0)))
        else:
            ranks = np.array([[1 + np.sum(row > v) + (np.sum(row == v) - 1) / 2 for v in row] for row in acc])
            want = int(np.argmin(ranks.mean(axis=0)))
        assert ps.best_index_ == want and ps.best_params_ == cands[want]
        assert np.allclose(ps.ranking_["mean_accuracy"], acc.mean(axis=0))
        # every proxy fit at ε_j = min(ε·n_public/n_j, cap), the declared n as the proxy's own size,
        # then exactly one fit on the private data, at the whole ε with the private n declared
        assert sorted(log[:-1]) == sorted(eps_seen)
        assert log[-1] == (0.5, len(y), 100) and len(log) == len(proxies) * len(cands) * 3 + 1


def test_proxy_epsilon_is_matched_and_capped():
    _Tree.log = []
    Xp, yp = _synthetic(1, n=400)
    ps = ProxySearch(_Tree(), [{"max_depth": 1}], [(Xp, yp)], epsilon=1.0, n_public=640, cv=2, max_proxy_epsilon=50.0)
    ps.rank()
    assert [e for e, n, _ in _Tree.log] == pytest.approx([1.0 * 640 / 200] * 2)
    _Tree.log = []
    ps.set_params(n_public=10**6).rank()  # 5000 > cap
    assert {e for e, n, _ in _Tree.log} == {50.0} and {d for *_, d in _Tree.log} == {None}  # undeclared stays so
    _Tree.log = []
    ps.set_params(epsilon=80.0, n_public=10).rank()  # the cap is never below ε
    assert [e for e, n, _ in _Tree.log] == pytest.approx([80.0 * 10 / 200] * 2)


class _Tripwire:
    """Private data that raise on any access but their column names (their public schema)."""

    def __init__(self, data):
        object.__setattr__(self, "_data", data)

    def __getattribute__(self, name):
        if name == "columns":
            return getattr(object.__getattribute__(self, "_data"), "columns", None)
        raise AssertionError(f"the private data were read before the final fit (.{name})")

    def __len__(self):
        raise AssertionError("the private data's length was read")

    def __iter__(self):
        raise AssertionError("the private data were iterated")

    def __getitem__(self, key):
        raise AssertionError("the private data were indexed")

    def __array__(self, *a, **k):
        raise AssertionError("the private data were converted")


class _Unwrapping(PrivaTreeClassifier):
    """PrivaTree that records whether each fit gets the private (tripwired) data, and unwraps them."""

    calls: list = []

    def fit(self, X, y=None, sample_weight=None):
        private = isinstance(X, _Tripwire)
        type(self).calls.append(private)
        if private:
            X, y = object.__getattribute__(X, "_data"), object.__getattribute__(y, "_data")
        return super().fit(X, y, sample_weight)


@pytest.fixture(scope="module")
def public_proxies():
    from dpmodels.data import dataset_schema as ds

    out = []
    for name in ("german", "diabetes"):
        X, y = load_dataset(name, binarized=False)
        out.append((X, y, ds(name).fit_params()))
    return out


def test_proxy_search_reads_the_private_data_only_in_the_final_fit(compas, public_proxies):
    import warnings

    X, y, s = compas
    _Unwrapping.calls = []
    cands = [{"max_depth": d} for d in (2, 3, 4)]
    ps = ProxySearch(_Unwrapping(**s.fit_params()), cands, public_proxies, epsilon=1.0, n_public=1500, cv=3)
    with warnings.catch_warnings():
        warnings.simplefilter("error", PrivacyLeakWarning)  # every public input declared: no leak
        ps.fit(_Tripwire(X), _Tripwire(y))
    assert _Unwrapping.calls == [False] * (2 * 3 * 3) + [True]
    led = ps.privacy_ledger_
    assert led.is_private and led.epsilon_spent == pytest.approx(1.0) and not led.leaks
    assert ps.best_estimator_.privacy_ledger_ is led and ps.best_estimator_.max_depth == ps.best_params_["max_depth"]


def test_proxy_search_ledger_is_the_fit_after_one_zero_cost_row(compas, public_proxies, tmp_path):
    from sklearn.base import clone

    from dpmodels.io import load_model, save_model
    from dpmodels.privacy import check_random_state

    X, y, s = compas
    cands = [{"max_depth": d} for d in (2, 4)]
    ps = ProxySearch(
        PrivaTreeClassifier(**s.fit_params()), cands, public_proxies, epsilon=0.7, n_public=1500, cv=3, random_state=5
    ).fit(X, y)
    led = ps.privacy_ledger_
    sel = led.rows[0]
    assert (sel.epsilon, sel.delta, sel.guarantee, sel.composition) == (0.0, 0.0, "proven", "sequential")
    assert "2 public proxy" in sel.what and "n_public=1500" in sel.note and "ε=0.7" in sel.note
    # fit = rank() + one fit of the chosen configuration, seeded by the search's first draw
    seed = int(check_random_state(5).integers(2**63 - 1))
    ref = clone(PrivaTreeClassifier(**s.fit_params())).set_params(**ps.best_params_, epsilon=0.7, random_state=seed)
    ref.fit(X, y)
    assert [(r.what, r.epsilon) for r in led.rows[1:]] == [(r.what, r.epsilon) for r in ref.privacy_ledger_.rows]
    assert np.array_equal(ps.predict(X), ref.predict(X)) and ps.n_features_in_ == X.shape[1]
    ranked = clone(ps).rank()
    assert ranked.best_params_ == ps.best_params_ and ranked.proxy_scores_.equals(ps.proxy_scores_)
    assert led.is_private and led.epsilon_spent == pytest.approx(0.7)
    # unseeded (OS entropy): the saved model states the fit's total, the selection row included
    ps_os = clone(ps).set_params(random_state=None, candidates=[{"max_depth": 2}]).fit(X, y)
    doc = load_model(save_model(ps_os.best_estimator_, tmp_path / "m.json"))
    assert doc.privacy["is_private"] is True and doc.privacy["epsilon_spent"] == pytest.approx(0.7)
    assert doc.privacy_ledger_.rows[0].what == ps_os.privacy_ledger_.rows[0].what


def test_proxy_search_without_a_declared_n_records_the_leak(compas, public_proxies):
    X, y, s = compas
    ps = ProxySearch(PrivaTreeClassifier(**s.fit_params()), [{"max_depth": 2}], public_proxies[:1], cv=2)
    with pytest.warns(PrivacyLeakWarning, match="training-set size n"):
        ps.fit(X, y)
    assert not ps.privacy_ledger_.is_private and len(ps.privacy_ledger_.leaks) == 1 and ps.n_public_ == len(y)
    with pytest.raises(ValueError, match="declare n_public"):
        ps.rank()
    # the estimator's own declaration is used when the search has none
    ps2 = ProxySearch(
        PrivaTreeClassifier(n_public=1500, **s.fit_params()), [{"max_depth": 2}], public_proxies[:1], cv=2
    )
    assert ps2.fit(X, y).privacy_ledger_.is_private and ps2.n_public_ == 1500


@pytest.mark.parametrize(
    "change, msg",
    [
        (dict(proxies=[]), "proxies must be a non-empty list"),
        (
            dict(proxies=[(np.zeros((20, 3)), np.arange(20) % 2)]),
            "X has 9 features but proxy 0 (without its own params) has 3",
        ),
        (dict(proxies="P1"), "with wrong labels"),
        (dict(proxies="P2"), "proxy 0 has 9 features, proxy"),  # placeholder replaced below
        (dict(proxies="P3"), "'depth' is not a parameter"),
        (dict(proxies="P4"), "params may not set 'max_depth'"),
        (dict(proxies="P5"), "expected (X, y) or (X, y, params)"),
        (dict(proxies="P6"), "X has 30 rows but y has 29"),
        (dict(candidates=[{"n_public": 5}]), "may not set 'n_public'"),
        (dict(candidates=[]), "non-empty list"),
        (dict(aggregate="median"), "'aggregate' parameter of ProxySearch must be"),
        (dict(cv=1), "'cv' parameter of ProxySearch must be"),
        (dict(epsilon=0), "epsilon"),
        (dict(n_public=0.5), "n_public"),
    ],
)
def test_proxy_search_refuses_bad_input_before_any_fit(compas, public_proxies, monkeypatch, change, msg):
    X, y, s = compas
    Xg, yg, pg = public_proxies[0]
    bad = {
        "P1": [(X.iloc[:40], pd.Series(np.arange(40) % 3))],  # labels outside classes=[0, 1]
        "P2": [(X.iloc[:40], y.iloc[:40]), (Xg.iloc[:40], yg.iloc[:40])],
        "P3": [(Xg, yg, {**pg, "depth": 3})],
        "P4": [(Xg, yg, {**pg, "max_depth": 3})],
        "P5": [(Xg,)],
        "P6": [(Xg.iloc[:30], yg.iloc[:29], pg)],
    }
    if change.get("proxies") == "P1":
        msg = "proxy 0: y holds a label outside the declared classes=[0, 1]"
    if change.get("proxies") == "P2":
        msg = "proxy 1 has 20 features, proxy 0 has 9"
    if isinstance(change.get("proxies"), str):
        change = {"proxies": bad[change["proxies"]]}
    kw = dict(candidates=[{"max_depth": 2}, {"max_depth": 3}], proxies=public_proxies, epsilon=1.0, n_public=1500)
    kw.update(change)

    def no_fit(*a, **k):
        raise AssertionError("something was fitted before the input was checked")

    monkeypatch.setattr(PrivaTreeClassifier, "fit", no_fit)
    with pytest.raises(ValueError) as e:
        ProxySearch(PrivaTreeClassifier(**s.fit_params()), **kw).fit(X, y)
    assert msg in str(e.value) and "\n" not in str(e.value)


def test_proxy_search_is_an_sklearn_estimator(public_proxies):
    from sklearn.base import clone

    ps = ProxySearch(PrivaTreeClassifier(), {"max_depth": [2, 3]}, public_proxies, n_public=10)
    c = clone(ps)
    assert c.get_params()["candidates"] == {"max_depth": [2, 3]} and c.get_params()["aggregate"] == "mean-accuracy"
    c.set_params(aggregate="mean-rank")
    assert c.aggregate == "mean-rank"


def test_lib_search_proxy_learner_uses_a_public_ranking():
    import pandas as pd

    from dpmodels.experiments.library.private_search import markdown_table, proxy_pool, study_cell

    assert all(len(p) == 3 for p in proxy_pool("compas", ("german", "heloc")))
    assert len(proxy_pool("compas", ("compas", "german"))) == 1  # the target is never its own proxy
    rows = study_cell("compas", 1.0, splits=2, proxy_rankings=1, proxy_names=("german", "diabetes"))
    proxy = [r for r in rows if r["learner"] == "search-proxy"]
    depths = {r["value"] for r in proxy if r["metric"] == "depth"}
    assert len(proxy) == 4 and len(depths) == 1 and depths <= {2, 3, 4, 5, 6}  # one ranking for both splits
    assert markdown_table(pd.DataFrame(rows)).count("| search-proxy |") == 1


@settings(max_examples=25, deadline=None)
@given(
    eps=st.floats(0.01, 20.0),
    n_pub=st.integers(1, 10**7),
    sizes=st.lists(st.integers(20, 120), min_size=1, max_size=3),
    cap=st.floats(0.5, 100.0),
)
def test_proxy_epsilon_and_ledger_for_any_public_inputs(eps, n_pub, sizes, cap):
    from sklearn.model_selection import KFold

    proxies = [_synthetic(i, n=n, m=3) for i, n in enumerate(sizes)]
    _Tree.log = []
    ps = ProxySearch(_Tree(), [{"max_depth": 1}, {"max_depth": 3}], proxies, epsilon=eps, n_public=n_pub, cv=KFold(2))
    ps.set_params(max_proxy_epsilon=cap).fit(*_synthetic(7, n=50, m=3))
    want = [
        min(eps * n_pub / len(tr), max(cap, eps)) for X, _ in proxies for tr, _ in KFold(2).split(X) for _ in (1, 3)
    ]
    assert [e for e, *_ in _Tree.log[:-1]] == pytest.approx(want) and _Tree.log[-1][0] == eps
    led = ps.privacy_ledger_
    assert [r.epsilon for r in led.rows] == [0.0, eps] and led.rows[0].guarantee == "proven"
    assert led.is_private and led.epsilon_spent == pytest.approx(eps)
