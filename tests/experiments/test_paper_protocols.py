"""The papers' own protocols: paper 000's binarizations and pre-mined rules, the rule-list learners'
``candidates="columns"``, and the paper's calibration of the global-sensitivity baselines.

Oracles: brute-force supports of every literal pair (mining), the bins' partition property
(binarization), the estimator under the same Generator (the batched fits), and the ledger's
guarantee column (what is proven and what is the paper's claim).
"""

from fractions import Fraction
from itertools import combinations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpmodels.data.paper_protocols import (
    AUTHORS_000,
    PAPER_000,
    authors_adult_columns,
    mine_rules,
    mine_rules_authors,
    paper_000_data,
    paper_000_features,
    quantile_onehot,
    rules_from_columns,
)
from dpmodels.experiments.paper_000.batch import SharedSplit
from dpmodels.rulelist import DPRuleListClassifier, GreedyRuleListClassifier
from dpmodels.rulelist.candidates import RuleCandidates


# ----------------------------------------------------------------------------- data
@pytest.mark.parametrize(
    "name, source", [("german", "sec-v-a"), ("compas", "sec-v-a"), ("adult", "sec-v-a"), ("compas", "authors")]
)
def test_paper_000_data_counts(name, source):
    R, y, info = paper_000_data(name, source=source)
    assert info["source"] == source
    cfg = PAPER_000[name] if source == "sec-v-a" else dict(AUTHORS_000[name], sensitive=AUTHORS_000[name]["removed"])
    lam = cfg["lam"]
    assert len(y) == len(R) == info["rows"] and set(np.unique(y)) <= {0, 1}
    assert set(np.unique(R.to_numpy())) <= {0, 1}
    s = R.mean().to_numpy()
    assert np.all(s >= lam) and np.all(s <= 1 - lam)
    assert not any(sens in c for c in R.columns for sens in cfg["sensitive"])
    # the rules' literals rebuild the rule columns from the attribute columns
    B, yb = paper_000_features(name, source=source)
    assert (np.asarray(yb) == np.asarray(y)).all()
    assert (rules_from_columns(B, R.attrs["literals"]).to_numpy() == R.to_numpy()).all()
    if source == "sec-v-a":
        assert R.shape[1] == PAPER_000[name]["n_rules"]  # |R| as the paper's, by construction
        assert info["mined"] >= PAPER_000[name]["n_rules"]
        expected_rows = {"german": 1000, "adult": 48842, "compas": 6172}[name]  # compas: 22 more than the paper
        assert info["rows"] == expected_rows
        # no two rules capture the same rows
        assert len({R[c].to_numpy().tobytes() for c in R.columns}) == R.shape[1]
    else:
        assert (info["rows"], info["columns"], R.shape[1]) == (7214, 12, 152)
    # the copy returned is the caller's
    R.iloc[0, 0] = 1 - R.iloc[0, 0]
    assert paper_000_data(name, source=source)[0].iloc[0, 0] != R.iloc[0, 0]


def test_paper_000_default_sources():
    assert paper_000_data("german")[2]["source"] == "sec-v-a"  # the authors' German file is not public
    for name in ("compas", "adult"):
        assert paper_000_data(name)[2]["source"] == "authors"
    with pytest.raises(ValueError, match="not public"):
        paper_000_data("german", source="authors")
    with pytest.raises(ValueError, match="source"):
        paper_000_data("adult", source="kaggle")


def test_authors_adult_columns_on_hand_made_rows():
    """Each group and threshold of the authors' Adult binarization (module docstring)."""
    X = pd.DataFrame(
        {
            "sex": ["Female", "Male", "Male", None],
            "age": [36, 37, 90, 17],
            "hours_per_week": [39, 40, 99, 1],
            "capital_gain": [0, 1, 0, 0],
            "capital_loss": [0, 0, 5, 0],
            "workclass": ["Self-emp-inc", "Federal-gov", "Without-pay", None],
            "occupation": ["Tech-support", "Armed-Forces", "Farming-fishing", "Adm-clerical"],
            "education": ["Prof-school", "Doctorate", "Assoc-acdm", "Preschool"],
        }
    )
    A = authors_adult_columns(X)
    assert A.shape == (4, 24) and list(A.columns[:2]) == ["gender_Female", "gender_Male"]
    on = {c for c in A.columns if A.loc[0, c]}
    assert on == {
        "gender_Female", "age_low", "hours_per_week_low", "capital_gain_0", "capital_loss_0",
        "workclass_Self-Employed", "occupation_Service", "education_School_Prof-School",
    }  # fmt: skip
    on1 = {c for c in A.columns if A.loc[1, c]}
    assert {
        "age_high",
        "hours_per_week_high",
        "capital_gain_>0",
        "workclass_Government",
        "education_Masters_Doctorate",
    } <= on1
    assert not any(c.startswith("occupation") for c in on1)  # Armed-Forces sets no column
    on2 = {c for c in A.columns if A.loc[2, c]}
    assert {"capital_loss_>0", "occupation_Blue-Collar", "education_Assoc"} <= on2
    assert not any(c.startswith("workclass") for c in on2)  # Without-pay sets no column
    assert not A.loc[3, ["gender_Female", "gender_Male"]].any()  # a missing value sets none


def test_authors_adult_matches_the_bundled_raw_file_marginals():
    """The authors' Adult file's column shares (read off their public file, 48,842 rows)."""
    B, y = paper_000_features("adult")
    assert B.shape == (48842, 20) and not any(c.startswith(("gender", "age")) for c in B.columns)
    share = B.mean()
    for c, v in {
        "hours_per_week_high": 0.761, "occupation_Blue-Collar": 0.308, "capital_gain_>0": 0.083,
        "workclass_Private": 0.694, "education_HS-grad": 0.323, "occupation_Service": 0.155,
        "capital_loss_>0": 0.047, "education_School_Prof-School": 0.148,
    }.items():  # fmt: skip
        assert share[c] == pytest.approx(v, abs=6e-4), c
    assert np.mean(y) == pytest.approx(0.2393, abs=1e-4)


def _brute_force_authors(B, lam, max_card):
    """Every literal (column, then its negation) and every pair of frequent literals, by itertools."""
    X = B.to_numpy().astype(bool)
    lits = [(n, p, X[:, j] if p else ~X[:, j]) for j, n in enumerate(B.columns) for p in (True, False)]
    out = [((n, p),) for n, p, m in lits if lam <= m.mean() <= 1 - lam]
    if max_card == 2:
        freq = [lit for lit in lits if lit[2].mean() >= lam]
        for i in range(len(freq)):
            for j in range(i + 1, len(freq)):
                (na, pa, ma), (nb, pb, mb) = freq[i], freq[j]
                if lam <= (ma & mb).mean() <= 1 - lam:
                    out.append(((na, pa), (nb, pb)))
    return out


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 10_000), st.sampled_from([1, 2]), st.sampled_from([0.0, 0.05, 0.2]))
def test_authors_mining_matches_brute_force(seed, max_card, lam):
    rng = np.random.default_rng(seed)
    B = pd.DataFrame(rng.random((30, 4)) < rng.random(4), columns=list("abcd")).astype(np.uint8)
    R = mine_rules_authors(B, min_support=lam, max_card=max_card)
    oracle = _brute_force_authors(B, lam, max_card)
    assert list(R.attrs["literals"].values()) == oracle  # same rules, same (enumeration) order
    assert R.shape[1] == len(oracle)
    assert (rules_from_columns(B, R.attrs["literals"]).to_numpy() == R.to_numpy()).all()
    s = R.mean().to_numpy()
    assert np.all(s >= lam) and np.all(s <= 1 - lam)


def test_authors_mining_rejects_bad_parameters():
    B = pd.DataFrame({"a": [0, 1]}, dtype=np.uint8)
    with pytest.raises(ValueError, match="max_card"):
        mine_rules_authors(B, min_support=0.1, max_card=3)
    with pytest.raises(ValueError, match="min_support"):
        mine_rules_authors(B, min_support=0.7)
    with pytest.raises(ValueError, match="empty"):
        mine_rules_authors(B.iloc[:0], min_support=0.1)


def test_quantile_onehot_bins_partition_each_numerical_feature():
    rng = np.random.default_rng(0)
    X = pd.DataFrame(
        {
            "a": rng.integers(0, 10, 200),
            "b": rng.normal(size=200),
            "c": pd.Categorical(rng.choice(["x", "y"], 200), categories=["x", "y", "z"]),
        }
    )
    for bins in (2, 3, 5):
        B, feature_of = quantile_onehot(X, bins, ["c"])
        for f in ("a", "b"):
            cols = [c for c, g in feature_of.items() if g == f]
            assert 1 <= len(cols) <= bins
            assert (B[cols].sum(axis=1) == 1).all()  # every row in exactly one bin
        assert list(B.columns[-3:]) == ["c=x", "c=y", "c=z"]  # declared categories, even unused
    B, _ = quantile_onehot(X, 2, ["c"], drop=("a",))
    assert not any(c.startswith("a=") for c in B.columns)
    with pytest.raises(ValueError, match="n_bins"):
        quantile_onehot(X, 1, ["c"])


def _brute_force_mining(B, feature_of, lo, hi, width):
    X = B.to_numpy(bool)
    names = list(B.columns)
    lits = [(names[j], X[:, j]) for j in range(len(names))] + [(f"not {names[j]}", ~X[:, j]) for j in range(len(names))]
    out = {}
    for nm, m in lits:
        if lo <= m.mean() <= hi:
            out.setdefault(m.tobytes(), nm)
    if width == 2:
        for (na, ma), (nb, mb) in combinations(lits, 2):
            fa = feature_of[na.removeprefix("not ")]
            fb = feature_of[nb.removeprefix("not ")]
            if fa != fb and lo <= (ma & mb).mean() <= hi:
                out.setdefault((ma & mb).tobytes(), f"{na} and {nb}")
    return out


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 10_000), st.sampled_from([1, 2]), st.sampled_from(["support", "balance"]))
def test_mining_matches_brute_force(seed, width, rank):
    rng = np.random.default_rng(seed)
    B = pd.DataFrame(rng.integers(0, 2, size=(40, 4)), columns=["f1=a", "f1=b", "f2=a", "f3=a"]).astype(np.uint8)
    feature_of = {"f1=a": "f1", "f1=b": "f1", "f2=a": "f2", "f3=a": "f3"}
    R, n_mined = mine_rules(B, feature_of, min_support=0.1, max_support=0.9, max_width=width, rank=rank)
    oracle = _brute_force_mining(B, feature_of, 0.1, 0.9, width)
    # the same distinct captured sets, each once
    assert n_mined == len(oracle) == R.shape[1]
    assert {R[c].to_numpy().astype(bool).tobytes() for c in R.columns} == set(oracle)
    # each rule's column is what its name says
    for c in R.columns:
        m = np.ones(len(B), bool)
        for lit in c.split(" and "):
            m &= ~B[lit[4:]].astype(bool).to_numpy() if lit.startswith("not ") else B[lit].astype(bool).to_numpy()
        assert (R[c].to_numpy().astype(bool) == m).all()
    # ranked: support descending (or balance ascending) and truncation keeps the head
    s = R.mean().to_numpy()
    key = -s if rank == "support" else np.abs(s - 0.5)
    assert np.all(np.diff(key) >= -1e-12)
    R3, _ = mine_rules(B, feature_of, min_support=0.1, max_support=0.9, max_width=width, n_rules=3, rank=rank)
    assert list(R3.columns) == list(R.columns[:3])


def test_mining_rejects_bad_parameters():
    B = pd.DataFrame({"a": [0, 1]}, dtype=np.uint8)
    with pytest.raises(ValueError, match="max_width"):
        mine_rules(B, {"a": "a"}, min_support=0.1, max_support=0.9, max_width=3)
    with pytest.raises(ValueError, match="rank"):
        mine_rules(B, {"a": "a"}, min_support=0.1, max_support=0.9, rank="lift")
    with pytest.raises(ValueError, match="protocol"):
        paper_000_data("mushroom")


# ---------------------------------------------------------------- candidates="columns"
def _toy(n=400, seed=0):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(rng.integers(0, 2, size=(n, 5)), columns=[f"r{i}" for i in range(5)])
    y = ((X["r0"] & X["r1"]) | (rng.random(n) < 0.1)).astype(int)
    return X, y


def test_columns_candidates_are_the_columns():
    X, y = _toy()
    c = RuleCandidates.from_columns(X.columns)
    assert len(c) == 5 and c.names == list(X.columns)
    g = GreedyRuleListClassifier(candidates="columns", max_width=2).fit(X, y)
    assert g.n_candidates_ == 5
    for r in g.rule_list_.rules:
        assert len(r.literals) == 1 and r.literals[0][1] is True  # a column as it is, never negated
    d = DPRuleListClassifier(candidates="columns", epsilon=5.0, random_state=0).fit(X, y)
    assert d.n_candidates_ == 5 and d.privacy_ledger_.is_private
    # the default still builds every conjunction of ≤ 2 literals
    assert GreedyRuleListClassifier().fit(X, y).n_candidates_ == 5 * 2 + 10 * 4
    with pytest.raises(ValueError, match="candidates"):
        GreedyRuleListClassifier(candidates="mined").fit(X, y)


def test_greedy_on_columns_equals_brute_force_first_rule():
    X, y = _toy(seed=3)
    g = GreedyRuleListClassifier(candidates="columns", max_rules=2, min_support=0.0).fit(X, y)
    yv = y.to_numpy()

    def split_gini(m):
        out = 0.0
        for part in (m, ~m):
            t = part.sum()
            if t:
                p = yv[part].mean()
                out += t * 2 * p * (1 - p)
        return out

    best = min(X.columns, key=lambda c: (split_gini(X[c].to_numpy().astype(bool)), list(X.columns).index(c)))
    assert g.rule_list_.rules[0].literals == [(best, True)]


# --------------------------------------------------------------------- calibration="paper"
@pytest.mark.parametrize(
    "mechanism, guarantee, sens",
    [("gl-laplace", "claimed", 0.5), ("gl-gaussian", "claimed", 0.5), ("noisy-counts", "proven", None)],
)
def test_paper_calibration_ledger(mechanism, guarantee, sens):
    X, y = _toy()
    p = dict(mechanism=mechanism, epsilon=2.0, max_rules=3, n_public=len(X), candidates="columns")
    paper = DPRuleListClassifier(calibration="paper", random_state=0, **p).fit(X, y)
    rig = DPRuleListClassifier(random_state=0, **p).fit(X, y)
    sel = [r for r in paper.privacy_ledger_.rows if r.what.endswith("+ stop")]
    sel_rig = [r for r in rig.privacy_ledger_.rows if r.what.endswith("+ stop")]
    assert sel and all(r.guarantee == guarantee for r in sel)
    assert all(r.guarantee == "proven" for r in rig.privacy_ledger_.rows) and rig.privacy_ledger_.is_private
    assert paper.privacy_ledger_.is_private == (guarantee == "proven")
    if mechanism == "gl-gaussian":  # one score's Δ instead of the vector's Δ·√(|R|+1)
        assert sel[0].sensitivity == pytest.approx(0.5)
        assert sel_rig[0].sensitivity == pytest.approx(0.5 * np.sqrt(5 + 1))
    elif mechanism == "noisy-counts":  # the paper's 2|R| count queries: twice the joint L1 sensitivity
        assert sel[0].sensitivity == pytest.approx(2 * sel_rig[0].sensitivity)
    else:
        assert sel[0].sensitivity == pytest.approx(sens)
        assert "Δ/ε" in sel[0].note
    # the budget is the same: the calibration changes the noise, not the split of ε
    assert paper.privacy_ledger_.epsilon_spent == pytest.approx(rig.privacy_ledger_.epsilon_spent)


def test_paper_calibration_of_report_noisy_max_is_half_the_scale():
    """The paper's gl-Laplace adds Lap(Δ/ε), the rigorous one Lap(2Δ/ε): with two candidates whose
    utilities differ by d, P[the worse one wins] has the closed form ½·e^{−d/b}(1 + d/(2b))."""
    from dpmodels.privacy import selection

    eps, d, n = 1.0, 0.6, 40_000
    u = np.array([d, 0.0])
    rng = np.random.default_rng(5)
    for monotone, b in ((True, 0.5 / eps), (False, 1.0 / eps)):
        wins = sum(selection.report_noisy_max(u, eps, 0.5, rng, monotone=monotone) == 1 for _ in range(n))
        expected = 0.5 * np.exp(-d / b) * (1 + d / (2 * b))
        assert abs(wins / n - expected) < 5 * np.sqrt(expected * (1 - expected) / n)


def test_calibration_validated_before_any_release():
    X, y = _toy()
    with pytest.raises(ValueError, match="calibration"):
        DPRuleListClassifier(calibration="loose").fit(X, y)


@pytest.mark.parametrize("mechanism", ["gl-laplace", "gl-gaussian", "noisy-counts", "sm-laplace"])
def test_shared_split_with_columns_and_paper_calibration_is_the_estimator(mechanism):
    R, y, _ = paper_000_data("compas")
    R, y = R.iloc[:1500], y.iloc[:1500]
    shared = SharedSplit(R, y, max_width=1, candidates="columns")
    params = dict(
        epsilon=1.0,
        mechanism=mechanism,
        max_rules=5,
        min_support=0.05,
        n_public=len(R),
        max_width=1,
        candidates="columns",
        calibration="paper",
        gate="confidence",
    )
    for seed in range(2):
        est = DPRuleListClassifier(random_state=np.random.default_rng(seed), **params).fit(R, y)
        rl, ledger = shared.fit(random_state=np.random.default_rng(seed), **params)
        assert rl.to_dict() == est.rule_list_.to_dict()
        assert ledger.to_dict() == est.privacy_ledger_.to_dict()
    with pytest.raises(ValueError, match="candidates"):
        shared.fit(random_state=0, **dict(params, candidates="conjunctions"))


# ------------------------------------------- GreedyRL criterion="authors" / "captured"
def _q(pos, tot):
    """Exact Gini 2p(1 − p) of pos positives among tot records."""
    return Fraction(2 * pos * (tot - pos), tot * tot) if tot else Fraction(0)


def _authors_greedy(X, y, max_len, lam, criterion="authors"):
    """Brute-force reading of paper 003's authors' learner (width 1), in exact fractions, scanned
    as their script scans: pre-mine literals (column order, positive before negated) with training
    share in [λ, 1 − λ]; at each position walk the list, drop literals capturing no record or
    < λ·n, and keep the first literal that beats the best so far — "authors": by split Gini S,
    then weighted captured Gini W, starting from (G, G) of the remaining records (no rule beats it:
    stop); "captured": by captured Gini, starting from nothing."""
    n, p = X.shape
    lits = []
    for j in range(p):
        for pos in (True, False):
            m = X[:, j] if pos else ~X[:, j]
            if lam <= m.mean() <= 1 - lam:
                lits.append((j, pos))
    remaining = np.ones(n, bool)
    out = []
    while len(out) < max_len:
        N, P = int(remaining.sum()), int(y[remaining].sum())
        best = None
        best_key = (_q(P, N), _q(P, N)) if criterion == "authors" else None
        for j, pos in list(lits):
            cap = remaining & (X[:, j] if pos else ~X[:, j])
            c, k = int(cap.sum()), int(y[cap].sum())
            if not (c > 0 and c / n >= lam):
                lits.remove((j, pos))
                continue
            if criterion == "authors":
                if c == N:  # nothing left on the other side: never taken
                    continue
                w = Fraction(c, N) * _q(k, c)
                key = (w + Fraction(N - c, N) * _q(P - k, N - c), w)
            else:
                key = (_q(k, c),)
            if best_key is None or key < best_key:
                best, best_key = (j, pos), key
        if best is None:
            break
        cap = remaining & (X[:, best[0]] if best[1] else ~X[:, best[0]])
        out.append((best, int(2 * y[cap].sum() >= cap.sum())))
        remaining &= ~cap
        lits.remove(best)
    default = int(2 * y[remaining].sum() >= remaining.sum()) if remaining.any() else int(2 * y.sum() >= n)
    return out, default


def _draw(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(30, 200))
    X = rng.random((n, 5)) < rng.uniform(0.05, 0.95, 5)
    y = ((X[:, 0] & ~X[:, 1]) ^ (rng.random(n) < 0.2)).astype(int)
    return X, y


def _fit_greedy(X, y, max_len, lam, criterion):
    g = GreedyRuleListClassifier(criterion=criterion, max_width=1, max_rules=max_len + 1, min_support=lam)
    g.fit(pd.DataFrame(X.astype(np.uint8), columns=[f"c{j}" for j in range(X.shape[1])]), y)
    got = [((int(r.literals[0][0][1:]), r.literals[0][1]), r.prediction) for r in g.rule_list_.rules]
    return got, g.rule_list_.default.prediction


def _captured_case(seed, lam, max_len, criterion="captured"):
    X, y = _draw(seed)
    assert _fit_greedy(X, y, max_len, lam, criterion) == _authors_greedy(X, y, max_len, lam, criterion)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10_000), st.sampled_from([0.01, 0.05, 0.2]), st.integers(1, 6))
def test_captured_criterion_equals_the_authors_algorithm(seed, lam, max_len):
    _captured_case(seed, lam, max_len)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10_000), st.sampled_from([0.01, 0.05, 0.2]), st.integers(1, 6))
def test_authors_criterion_equals_the_authors_algorithm(seed, lam, max_len):
    _captured_case(seed, lam, max_len, "authors")


@pytest.mark.parametrize("criterion", ["captured", "authors"])
@pytest.mark.parametrize("seed", [0, 1, 2, 3, 5, 8, 13, 21, 44])
def test_authors_learners_equal_the_oracle_on_fixed_draws(seed, criterion):
    for lam in (0.01, 0.05, 0.2):
        for max_len in (1, 3, 6):
            _captured_case(seed, lam, max_len, criterion)


def test_captured_criterion_exact_tie_goes_to_the_first_literal():
    # seed 44, λ = 0.01, second position: (c0 = 0) captures 3 of 15 positive, (c2 = 0) 28 of 35 and
    # c3 28 of 35: all Gini 8/25. In floats 2p(1 − p) orders them by rounding (c2 = 0 came out
    # lowest); as fractions they tie and the first literal, (c0 = 0), is the authors' choice.
    X, y = _draw(44)
    rules, _ = _fit_greedy(X, y, 3, 0.01, "captured")
    assert [r[0] for r in rules] == [(1, True), (0, False), (2, False)]
    assert _q(3, 15) == _q(28, 35) == Fraction(8, 25)


def test_authors_criterion_stops_when_no_rule_lowers_the_gini():
    # c0 isolates the 8 positives (S = 0); the 12 records left are all negative (G = 0) and c1 still
    # splits them with enough support, but S = W = 0 does not beat (G, G): the list stops at one
    # rule although 9 are allowed; the draft ("captured") takes c1 (captured Gini 0) and goes on
    c0 = np.r_[np.ones(8), np.zeros(12)].astype(bool)
    c1 = np.r_[np.zeros(8), np.ones(4), np.zeros(8)].astype(bool)
    X, y = np.c_[c0, c1], c0.astype(int)
    got = _fit_greedy(X, y, 9, 0.05, "authors")
    assert got == _authors_greedy(X, y, 9, 0.05, "authors") == ([((0, True), 1)], 0)
    draft = _fit_greedy(X, y, 9, 0.05, "captured")
    assert draft == _authors_greedy(X, y, 9, 0.05, "captured") and len(draft[0]) == 2


def test_authors_criterion_takes_a_split_that_keeps_the_class_rate():
    # c0 captures 10 records, 5 positive, of 20 with 10 positive: S = G (no Gini gain) but
    # W = G/2 < G, so the authors' tie clause takes it (c0 before "not c0": same S, same W); then
    # "not c0" would capture everything left (the other side empty): never taken, the list stops
    c0 = np.r_[np.ones(10), np.zeros(10)].astype(bool)
    y = np.r_[np.ones(5), np.zeros(5), np.ones(5), np.zeros(5)].astype(int)
    got = _fit_greedy(c0[:, None], y, 5, 0.05, "authors")
    assert got == _authors_greedy(c0[:, None], y, 5, 0.05, "authors") == ([((0, True), 1)], 1)


@pytest.mark.parametrize("criterion", ["captured", "authors"])
def test_authors_support_is_the_ceiling_of_lambda_n(criterion):
    # n = 40, λ = 0.06: λn = 2.4, so a literal needs 3 records; c0 captures 2 (never taken), c1 3
    n = 40
    X = np.zeros((n, 2), bool)
    X[:2, 0] = True
    X[2:5, 1] = True
    y = np.r_[np.ones(5), np.zeros(35)].astype(int)
    rules, _ = _fit_greedy(X, y, 3, 0.06, criterion)
    assert (0, True) not in [r[0] for r in rules] and (1, True) in [r[0] for r in rules]
    assert _fit_greedy(X, y, 3, 0.06, criterion) == _authors_greedy(X, y, 3, 0.06, criterion)


def test_captured_criterion_rejects_unknown_criterion():
    X, y = _toy()
    with pytest.raises(ValueError, match="criterion"):
        GreedyRuleListClassifier(criterion="entropy").fit(X, y)


# ---------------------------------------------------------------- paper 000's twin ids
def test_paper_protocol_ids_run_the_paper_protocol():
    from dpmodels.experiments.paper_000 import accuracy as paper_000
    from dpmodels.experiments.registry import Size, get

    for eid in ("000-fig2", "000-fig3", "000-fig4", "000-table1"):
        exp = get(f"{eid}-paper")
        cells = exp.cells(Size(quick=True, runs=1, epsilons=(1.0,)))
        assert cells and all(c.kwargs["protocol"] == "paper" for c in cells)
        # the library-protocol cells keep their arguments (and so their stored results)
        assert all("protocol" not in c.kwargs for c in get(eid).cells(Size(quick=True, runs=1, epsilons=(1.0,))))
    rows = paper_000.accuracy_cell("compas", 0, (1.0,), ("gl-Laplace", "permute-and-flip"), protocol="paper")
    gl = [r for r in rows if r["learner"] == "gl-Laplace"]
    assert gl and all(
        '"calibration": "paper"' in r["parameters"] and '"candidates": "columns"' in r["parameters"] for r in gl
    )
    pf = [r for r in rows if r["learner"] == "permute-and-flip"]
    assert pf and all("calibration" not in r["parameters"] for r in pf)
    with pytest.raises(ValueError, match="protocol"):
        paper_000._data("compas", "mine")


def test_paper_protocol_twins_of_tables_2_and_3():
    """000-table2-paper / 000-table3-paper run Sec. V-A's rules with the paper's calibration; the
    library-protocol cells keep their arguments (their stored results stay valid)."""
    from dpmodels.experiments.paper_000 import attacks
    from dpmodels.experiments.registry import Size, get

    size = Size(quick=True, runs=1, epsilons=(1.0,))
    for eid in ("000-table2", "000-table3"):
        cells = get(f"{eid}-paper").cells(size)
        assert cells and all(c.kwargs["protocol"] == "paper" for c in cells)
        assert all("protocol" not in c.kwargs for c in get(eid).cells(size))
    rows = attacks.table2_cell("compas", 0, (1.0,), ("gl-laplace", "permute-and-flip"), protocol="paper")
    by = {lr: [r for r in rows if r["learner"] == lr] for lr in ("GreedyRL", "gl-laplace", "permute-and-flip")}
    assert all(
        '"candidates": "columns"' in r["parameters"] and '"max_width": 1' in r["parameters"]
        for rs in by.values()
        for r in rs
    )
    assert by["gl-laplace"] and all('"calibration": "paper"' in r["parameters"] for r in by["gl-laplace"])
    assert by["permute-and-flip"] and all("calibration" not in r["parameters"] for r in by["permute-and-flip"])
    # the same fit as the accuracy ids' paper protocol: GreedyRL on the authors' COMPAS rules
    acc = next(r["value"] for r in by["GreedyRL"] if r["metric"] == "accuracy")
    from dpmodels.experiments.paper_000 import accuracy

    ref = next(
        r["value"]
        for r in accuracy.accuracy_cell("compas", 0, (), (), protocol="paper")
        if r["learner"] == "GreedyRL" and r["metric"] == "test_accuracy"
    )
    assert acc == pytest.approx(ref)
    lib = attacks.table2_cell("compas", 0, (1.0,), ("gl-laplace",))
    assert all("candidates" not in r["parameters"] and "calibration" not in r["parameters"] for r in lib)
    with pytest.raises(ValueError, match="protocol"):
        attacks.table2_cells(protocol="mine")


# ------------------------------------------------------- sm-Cauchy with the authors' γ = 2
def test_paper_protocol_sm_cauchy_uses_the_authors_gamma():
    """protocol="paper" runs sm-Cauchy with the authors' γ = 2; the library protocol keeps the
    estimator's default (γ = 4); the selection stays a "claimed" ledger row either way."""
    from dpmodels.experiments.paper_000 import accuracy, attacks
    from dpmodels.experiments.paper_000.protocol import AUTHORS_CAUCHY_GAMMA

    assert AUTHORS_CAUCHY_GAMMA == 2.0
    paper = [r for r in accuracy.accuracy_cell("german", 0, (1.0,), ("sm-Cauchy",), protocol="paper")]
    lib = [r for r in accuracy.accuracy_cell("german", 0, (1.0,), ("sm-Cauchy",))]
    assert [r for r in paper if r["learner"] == "sm-Cauchy"]
    assert all('"gamma": 2.0' in r["parameters"] for r in paper if r["learner"] == "sm-Cauchy")
    assert all("gamma" not in r["parameters"] for r in lib)
    assert attacks._rule_params("sm-cauchy (confidence)", 0.05, 100, "paper")["gamma"] == 2.0
    assert "gamma" not in attacks._rule_params("sm-cauchy (confidence)", 0.05, 100)
    assert "gamma" not in attacks._rule_params("sm-laplace (confidence)", 0.05, 100, "paper")
    R, y, _ = paper_000_data("compas")
    est = DPRuleListClassifier(
        mechanism="sm-cauchy", gamma=2.0, gate="confidence", epsilon=10.0, n_public=len(R), candidates="columns"
    ).fit(R, y)
    sel = [r for r in est.privacy_ledger_.rows if r.what.endswith("+ stop")]
    assert sel and all(r.guarantee == "claimed" for r in sel) and not est.privacy_ledger_.is_private


def test_smooth_cauchy_selection_with_gamma_2_is_cauchy_noise_at_scale_6s_over_eps():
    """γ = 2: each score gets 6·S*/ε times a standard Cauchy draw, so the difference of two noisy
    scores is Cauchy with scale 12·S*/ε and P[the worse of two scores wins] = ½ − arctan(d/b)/π
    with b = 12·S*/ε (closed form; γ = 4's lighter tails make that probability smaller)."""
    from dpmodels.privacy import mechanisms as mech

    eps, S, d, n = 2.0, 0.01, 0.05, 20_000
    rng = np.random.default_rng(11)
    scores = np.array([0.0, d])  # argmin: index 1 is the worse score
    for gamma in (2.0, 4.0):
        wins = np.mean(
            [mech.smooth_noisy_argmin(scores, S, eps, rng, noise="cauchy", gamma=gamma) == 1 for _ in range(n)]
        )
        if gamma == 2.0:
            b = 12.0 * S / eps
            expected = 0.5 - np.arctan(d / b) / np.pi
            assert abs(wins - expected) < 5 * np.sqrt(expected * (1 - expected) / n)
        else:
            assert wins < expected - 0.01


def test_table1_paper_twin_runs_the_authors_runner_split():
    """000-table1-paper uses the authors' runner's 80/20 permutation split (their Table I's
    s.e.); the other twins keep Sec. V-A's 70/30 and their cell arguments."""
    from dpmodels.experiments.paper_000 import accuracy
    from dpmodels.experiments.registry import Size, get

    size = Size(quick=True, runs=1, epsilons=(1.0,))
    assert all(c.kwargs["split"] == "runner" for c in get("000-table1-paper").cells(size))
    assert all("split" not in c.kwargs for c in get("000-fig4-paper").cells(size))
    rows = accuracy.accuracy_cell("german", 3, (1.0,), ("sm-Laplace",), protocol="paper", split="runner")
    assert all('"n_public": 800' in r["parameters"] for r in rows if r["learner"] == "sm-Laplace")
    Xtr, Xte, _, _ = accuracy._split("german", 3, "paper", "runner")
    perm = np.random.default_rng(3).permutation(1000)
    assert list(Xtr.index) == list(perm[:800]) and list(Xte.index) == list(perm[800:])
    with pytest.raises(ValueError, match="split"):
        accuracy._split("german", 3, "paper", "kfold")


# ------------------------------------- Fig. 4: the authors' runner's candidates for gl-*
def test_runner_global_rules_are_every_literal_and_pair_on_the_same_rows():
    """The runner's min_support = 0 candidates: every literal (both orientations) of the attribute
    columns, and on COMPAS / Adult every pair of literals (C(2m, 2) of them, any two): 2m + C(2m, 2)
    rules (m = 12 / 20 columns: 300 / 820), German 2m = 130 literals; the same rows as the mined
    rules, each column the brute-force conjunction of its literals."""
    from dpmodels.data.paper_protocols import RUNNER_MAX_CARD, paper_000_runner_global_rules

    for name, expected in (("compas", 300), ("adult", 820), ("german", 130)):
        B, _ = paper_000_features(name)
        R, _, _ = paper_000_data(name)
        S = paper_000_runner_global_rules(name)
        m = B.shape[1]
        two = 2 * m + (2 * m) * (2 * m - 1) // 2
        assert S.shape[1] == (two if RUNNER_MAX_CARD[name] == 2 else 2 * m) == expected
        assert list(S.index) == list(R.index) and len(set(S.columns)) == S.shape[1]
        lits = S.attrs["literals"]
        every = {(str(c), p) for c in B.columns for p in (True, False)}
        assert {lit for rule in lits.values() for lit in rule} == every
        if name != "german":  # the rules mined at λ are among them (same names, same columns)
            assert set(R.columns) <= set(S.columns)
        rng = np.random.default_rng(0)
        for rule in rng.choice(list(lits), size=20, replace=False):
            want = np.ones(len(B), dtype=bool)
            for c, pos in lits[rule]:
                want &= (B[c].to_numpy() == 1) == pos
            assert np.array_equal(S[rule].to_numpy().astype(bool), want)


def test_fig4_paper_gives_gl_the_support_0_candidates_and_the_others_the_mined_rules():
    """000-fig4-paper's cells (only they) carry global_candidates="support-0"; in such a cell
    gl-Laplace / gl-Gaussian / gl-Exponential fit the runner's rules — the same result as the
    estimator fitted on those columns with the same Generator — while sm-*, permute-and-flip and
    GreedyRL keep the rules mined at λ (rows identical to the cell without the option)."""
    from dpmodels.data.paper_protocols import paper_000_runner_global_rules
    from dpmodels.experiments.paper_000 import accuracy
    from dpmodels.experiments.registry import Size, get

    size = Size(quick=True, runs=1, epsilons=(1.0,))
    for eid in ("000-fig4-paper", "000-table1-paper"):  # the authors' runner drew both
        assert all(c.kwargs["global_candidates"] == "support-0" for c in get(eid).cells(size))
    for eid in ("000-fig4", "000-fig2-paper", "000-fig3-paper"):
        assert all("global_candidates" not in c.kwargs for c in get(eid).cells(size))
    learners = ("sm-Laplace", "gl-Laplace", "gl-Gaussian", "gl-Exponential", "permute-and-flip")
    eps = (0.1, 10.0)
    new = accuracy.accuracy_cell("compas", 2, eps, learners, protocol="paper", global_candidates="support-0")
    old = accuracy.accuracy_cell("compas", 2, eps, learners, protocol="paper")
    key = lambda r: (r["learner"], r["epsilon"], r["metric"])  # noqa: E731
    old_by = {key(r): r for r in old}
    gl = ("gl-Laplace", "gl-Gaussian", "gl-Exponential")
    for r in new:
        if r["learner"] in gl:
            assert '"rule_set": "support-0"' in r["parameters"]
        else:
            assert "rule_set" not in r["parameters"]
            assert r["value"] == old_by[key(r)]["value"] and r["parameters"] == old_by[key(r)]["parameters"]
    # oracle: the estimator on the support-0 columns of the same split, same seed
    R0 = paper_000_runner_global_rules("compas")
    R, y, _ = paper_000_data("compas")
    from sklearn.model_selection import train_test_split

    tr, te = train_test_split(np.arange(len(y)), test_size=0.3, random_state=2)
    differs = 0
    for lr in gl:
        for e in eps:
            params = dict(accuracy.LEARNERS[lr])
            if params["mechanism"] in accuracy.PAPER_CALIBRATED:
                params["calibration"] = "paper"
            est = DPRuleListClassifier(
                epsilon=e,
                max_rules=accuracy.MAX_RULES,
                min_support=0.05,
                max_width=1,
                candidates="columns",
                confidence=accuracy.CONFIDENCE,
                n_public=len(tr),
                random_state=np.random.default_rng(accuracy.fit_seed(2, "compas", lr, e)),
                **params,
            ).fit(R0.iloc[tr], y.iloc[tr])
            got = next(r["value"] for r in new if key(r) == (lr, e, "test_accuracy"))
            assert got == pytest.approx(est.score(R0.iloc[te], y.iloc[te]))
            differs += got != old_by[(lr, e, "test_accuracy")]["value"]
    assert differs  # the candidate set changed some fit
    with pytest.raises(ValueError, match="global_candidates"):
        accuracy.accuracy_cell("compas", 0, (1.0,), gl, protocol="paper", global_candidates="all")
    with pytest.raises(ValueError, match="paper protocol"):
        accuracy.accuracy_cell("compas", 0, (1.0,), gl, global_candidates="support-0")


def test_runner_mined_rules_are_single_literals_on_german_and_the_mined_rules_elsewhere():
    """The runner's smooth-mechanism candidates: on COMPAS / Adult the rules of paper_000_data; on
    German (its grid's max_card = 1) every literal of the Sec. V-A columns with support in
    [0.12, 0.88], by brute force."""
    from dpmodels.data.paper_protocols import paper_000_runner_mined_rules

    R, _, _ = paper_000_data("compas")
    M = paper_000_runner_mined_rules("compas")
    assert list(M.columns) == list(R.columns) and np.array_equal(M.to_numpy(), R.to_numpy())
    B, _ = paper_000_features("german")
    G = paper_000_runner_mined_rules("german")
    want = _literals_in_support(B, 0.12, 0.88)
    assert list(G.columns) == list(want) and all(len(v) == 1 for v in G.attrs["literals"].values())
    assert all(np.array_equal(G[k].to_numpy().astype(bool), v) for k, v in want.items())


def test_fig4_paper_runs_the_runners_greedy_and_german_literals():
    """000-fig4-paper's cells (only they) carry runner=True: GreedyRL is the runner's "vanilla"
    list (support 0, K + 1 rules, its own literals and pairs of the attribute columns), equal to
    that estimator fitted on the same split; on German sm-Laplace fits the single literals at λ
    (the estimator on those columns, same Generator); other learners as without the option."""
    from sklearn.model_selection import train_test_split

    from dpmodels.data.paper_protocols import paper_000_runner_mined_rules
    from dpmodels.experiments.paper_000 import accuracy
    from dpmodels.experiments.registry import Size, get

    size = Size(quick=True, runs=1, epsilons=(1.0,))
    for eid in ("000-fig4-paper", "000-table1-paper"):
        assert all(c.kwargs["runner"] is True for c in get(eid).cells(size))
    for eid in ("000-fig4", "000-fig2-paper"):
        assert all("runner" not in c.kwargs for c in get(eid).cells(size))
    eps = (1.0,)
    for ds, card in (("compas", 2), ("german", 1)):
        kw = dict(protocol="paper", global_candidates="support-0")
        rows = accuracy.accuracy_cell(ds, 1, eps, ("sm-Laplace", "gl-Laplace"), runner=True, **kw)
        old = accuracy.accuracy_cell(ds, 1, eps, ("sm-Laplace", "gl-Laplace"), **kw)
        get_ = lambda rs, lr: next(r for r in rs if r["learner"] == lr and r["metric"] == "test_accuracy")  # noqa: E731
        B, y = paper_000_features(ds)
        tr, te = train_test_split(np.arange(len(y)), test_size=0.3, random_state=1)
        g = GreedyRuleListClassifier(
            classes=[0, 1], criterion="authors", min_support=0.0, max_rules=6, max_width=card, feature_groups=None
        ).fit(B.iloc[tr], y.iloc[tr])
        assert get_(rows, "GreedyRL")["value"] == pytest.approx(g.score(B.iloc[te], y.iloc[te]))
        assert '"rule_set": "runner"' in get_(rows, "GreedyRL")["parameters"]
        assert get_(rows, "gl-Laplace")["value"] == get_(old, "gl-Laplace")["value"]
        if ds == "compas":  # the mined rules are the runner's: unchanged
            assert get_(rows, "sm-Laplace")["value"] == get_(old, "sm-Laplace")["value"]
        else:
            M = paper_000_runner_mined_rules("german")
            est = DPRuleListClassifier(
                epsilon=1.0, mechanism="sm-laplace", gate="confidence", max_rules=5, min_support=0.12, max_width=1,
                candidates="columns", confidence=0.99, n_public=len(tr),
                random_state=np.random.default_rng(accuracy.fit_seed(1, "german", "sm-Laplace", 1.0)),
            ).fit(M.iloc[tr], y.iloc[tr])  # fmt: skip
            assert get_(rows, "sm-Laplace")["value"] == pytest.approx(est.score(M.iloc[te], y.iloc[te]))
    with pytest.raises(ValueError, match="runner"):
        accuracy.accuracy_cell("compas", 0, eps, ("gl-Laplace",), runner=True)


def test_paired_smooth_vs_global_judges_the_paired_difference():
    """A smooth mechanism 0.01 behind a global one in every run is "behind" (its paired s.e. is
    tiny) although the two means' own s.e. overlap; one level with it within noise is "level"."""
    from dpmodels.experiments.paper_000 import accuracy

    rng = np.random.default_rng(0)
    rows = []
    for run in range(40):
        base = 0.7 + 0.05 * rng.standard_normal()  # the split's difficulty, shared by every learner
        for lr, shift in (("sm-Laplace", -0.01), ("sm-Cauchy", 0.0), ("gl-Laplace", 0.0)):
            noise = 0.001 * rng.standard_normal()
            for eps in (0.05, 1.0):
                rows.append(dict(dataset="d", learner=lr, epsilon=eps, seed=run, metric="test_accuracy",
                                 value=base + shift + noise))  # fmt: skip
    res = accuracy.paired_smooth_vs_global(pd.DataFrame(rows))
    assert set(res["epsilon"]) == {1.0}  # ε < 0.1 is outside the statement
    v = {r.smooth: r.verdict for r in res.itertuples()}
    assert v == {"sm-Laplace": "behind", "sm-Cauchy": "level"}
    assert "| d | sm-Laplace | 1 | 1 | 0 | 0 |" in accuracy._paired_table(pd.DataFrame(rows))


def test_fig4_paper_german_is_cp4ims_file_and_the_rebuild_a_labelled_alternative():
    """000-fig4-paper's German cells build the runner's candidates from CP4IM's german-credit.txt
    (the bundled copy, every column kept): sm-Laplace fits the literals with support in
    [0.12, 0.88] (brute force), GreedyRL the 112 columns; ``--datasets german-sec-v-a`` runs the
    Sec. V-A rebuild under the same runner, its rows equal to the rebuild's and labelled apart."""
    from sklearn.model_selection import train_test_split

    from dpmodels.experiments.paper_000 import accuracy
    from dpmodels.experiments.paper_000.scripts import german_script_columns
    from dpmodels.experiments.registry import Size, get

    size = Size(quick=True, runs=1, epsilons=(1.0,))
    cells = {c.key: c.kwargs for c in get("000-fig4-paper").cells(size)}
    assert cells["german-run0"]["german_file"] == "cp4im" and "german_file" not in cells["compas-run0"]
    alt = get("000-fig4-paper").cells(Size(quick=True, runs=1, epsilons=(1.0,), datasets=("german-sec-v-a",)))
    assert [(c.key, c.kwargs["dataset"], c.kwargs["german_file"]) for c in alt] == [
        ("german-sec-v-a-run0", "german", "sec-v-a")
    ]
    t1 = {c.key: c.kwargs for c in get("000-table1-paper").cells(size)}
    assert t1["german-run0"]["german_file"] == "cp4im"  # the runner's Table I: the same German file
    for eid in ("000-fig3-paper",):
        assert all("german_file" not in c.kwargs for c in get(eid).cells(size))
        with pytest.raises(ValueError, match="not \\['german-sec-v-a'\\]"):
            get(eid).cells(Size(quick=True, runs=1, datasets=("german-sec-v-a",)))

    B, y = german_script_columns("cp4im")
    want = _literals_in_support(B, 0.12, 0.88)
    M, _ = accuracy._data("german", "paper", "runner-mined", "cp4im")
    assert list(M.columns) == list(want)
    assert all(np.array_equal(M[k].to_numpy().astype(bool), v) for k, v in want.items())
    assert accuracy._data("german", "paper", "support-0", "cp4im")[0].shape[1] == 2 * B.shape[1] == 224

    eps, kw = (1.0,), dict(protocol="paper", global_candidates="support-0", runner=True)
    rows = accuracy.accuracy_cell("german", 2, eps, ("sm-Laplace", "gl-Laplace"), german_file="cp4im", **kw)
    get_ = lambda rs, lr: next(r for r in rs if r["learner"] == lr and r["metric"] == "test_accuracy")  # noqa: E731
    assert {r["dataset"] for r in rows} == {"german"}
    assert '"german_file": "cp4im"' in get_(rows, "sm-Laplace")["parameters"]
    tr, te = train_test_split(np.arange(len(y)), test_size=0.3, random_state=2)
    est = DPRuleListClassifier(
        epsilon=1.0, mechanism="sm-laplace", gate="confidence", max_rules=5, min_support=0.12, max_width=1,
        candidates="columns", confidence=0.99, n_public=len(tr),
        random_state=np.random.default_rng(accuracy.fit_seed(2, "german", "sm-Laplace", 1.0)),
    ).fit(M.iloc[tr], y[tr])  # fmt: skip
    assert get_(rows, "sm-Laplace")["value"] == pytest.approx(est.score(M.iloc[te], y[te]))
    g = GreedyRuleListClassifier(
        classes=[0, 1], criterion="authors", min_support=0.0, max_rules=6, max_width=1, feature_groups=None
    ).fit(B.iloc[tr], y[tr])
    assert get_(rows, "GreedyRL")["value"] == pytest.approx(g.score(B.iloc[te], y[te]))

    reb = accuracy.accuracy_cell("german", 2, eps, ("sm-Laplace",), german_file="sec-v-a", **kw)
    old = accuracy.accuracy_cell("german", 2, eps, ("sm-Laplace",), **kw)
    assert {r["dataset"] for r in reb} == {"german-sec-v-a"}
    assert [r["value"] for r in reb] == [r["value"] for r in old]
    for bad, match in (
        (dict(dataset="compas", german_file="cp4im", **kw), "german_file chooses"),
        (dict(dataset="german", german_file="cp4im", protocol="paper"), "german_file chooses"),
        (dict(dataset="german", german_file="statlog", **kw), "german_file must be one of"),
    ):
        with pytest.raises(ValueError, match=match):
            accuracy.accuracy_cell(run=0, epsilons=eps, learners=("sm-Laplace",), **bad)


def _literals_in_support(B, lo, hi):
    """Brute-force oracle: every literal of the 0/1 frame ``B`` and its negation whose support is
    in [lo, hi], in the runner's order (column by column, the literal before its negation)."""
    want = {}
    for c in B.columns:
        for pos in (True, False):
            m = (B[c].to_numpy() == 1) == pos
            if lo <= m.mean() <= hi:
                want[c if pos else f"not {c}"] = m
    return want
