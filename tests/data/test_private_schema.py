"""The DP schema draft (``dpmodels schema draft --epsilon``; docs/privacy.md, "DP schema draft").

Fast tests: the threshold's bound, the plan and its checks before anything is spent, the sources
and the ledger travelling into a fit (library and command line). Slow tests: an empirical audit of
the draft on a neighbouring pair, with a planted control (a category list without a calibrated
threshold) that the audit flags.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from _extras import need
from dpmodels.data.private_schema import (
    bounds_from_noisy_histogram,
    draft_private_schema,
    log_bin_edges,
)
from dpmodels.privacy import BudgetAccountant, PrivacyLeakWarning
from dpmodels.privacy.mechanisms import histogram_threshold, thresholded_histogram
from dpmodels.tree import PrivaTreeClassifier


def table(n=400, seed=0):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(
        {
            "age": rng.integers(18, 90, n),
            "job": rng.choice(["a", "b", "c"], n),
            "id": [f"p{i}" for i in range(n)],
        }
    )
    y = pd.Series(rng.integers(0, 2, n), name="y")
    return X, y


# ------------------------------------------------------------------ the mechanism
@pytest.mark.parametrize("eps", [0.01, 0.1, 1.0, 5.0])
@pytest.mark.parametrize("delta", [1e-9, 1e-6, 1e-2, 0.3])
def test_the_threshold_is_the_smallest_that_hides_a_one_record_key_up_to_delta(eps, delta):
    tau = histogram_threshold(eps, delta)
    a = math.exp(-eps)
    tail = lambda k: a**k / (1 + a)  # noqa: E731 - P[Z >= k] of two-sided geometric noise, k >= 1
    assert tau >= 2 and tail(tau - 1) <= delta
    assert tau == 2 or tail(tau - 2) > delta


def test_a_thresholded_histogram_needs_delta_and_records_it():
    from dpmodels.privacy import PrivacyLedger

    with pytest.raises(ValueError, match="0 < delta < 1"):
        thresholded_histogram({"a": 5}, 1.0, 0.0, np.random.default_rng(0))
    led = PrivacyLedger(1.0, 1e-3)
    keys = thresholded_histogram({"a": 10_000, "b": 1}, 1.0, 1e-3, np.random.default_rng(0), ledger=led, what="t")
    assert keys == ["a"]  # seeded: a key of 10 000 records clears τ = 8, one of 1 record almost never
    (row,) = led.rows
    assert row.delta == 1e-3 and row.epsilon == 1.0 and row.sensitivity == 1.0


def test_a_category_dtype_is_a_declaration_and_is_not_released():
    X, y = table()
    X["job"] = X["job"].astype(pd.CategoricalDtype(["a", "b", "c", "d"]))
    ps = draft_private_schema(X, y, epsilon=2.0, delta=1e-6, random_state=0)
    assert ps.categories["job"] == ["a", "b", "c", "d"] and ps.source("column job") == "user"
    assert not any("'job'" in r.what for r in ps.ledger.rows)


def test_log_bins_cover_the_range_with_a_fixed_relative_width():
    e = log_bin_edges(-1e6, 1e6, 4)
    assert e[0] == -1e6 and e[-1] == 1e6 and np.all(np.diff(e) > 0) and 0.0 in e
    pos = e[(e > 1) & (e < 1e6)]
    assert np.allclose(pos[1:] / pos[:-1], 2**0.25)
    assert log_bin_edges(0, 100, 1)[0] == 0 and log_bin_edges(0, 100, 1)[-1] == 100


def test_bounds_read_from_a_noisy_histogram_are_post_processing():
    edges = np.array([0.0, 1.0, 2.0, 4.0, 8.0])
    # only bins 1 and 2 clear the threshold ln(4 / 0.1) / 1 = 3.7: the bounds lie within them
    lo, hi = bounds_from_noisy_histogram(np.array([1, 50, 50, 3]), edges, 1.0, (0.01, 0.99))
    assert 1.0 <= lo < 1.1 and 3.9 < hi <= 4.0
    # nothing clears it: within the highest bin
    lo, hi = bounds_from_noisy_histogram(np.array([0, 2, 1, 0]), edges, 1.0)
    assert 1.0 <= lo < hi <= 2.0


# ------------------------------------------------------------------ the draft
def test_a_draft_marks_every_value_dp_and_keeps_within_its_budget():
    X, y = table()
    ps = draft_private_schema(X, y, epsilon=2.0, delta=1e-6, random_state=0)
    assert ps.kinds == {"age": "numerical", "job": "categorical", "id": "drop"}
    assert ps.categories == {"job": ["a", "b", "c"]} and ps.classes == [0, 1]
    lo, hi = ps.bounds["age"]
    assert 8 < lo <= 18 and 89 <= hi <= 128  # within the bins of a factor 2 around 18 and 89
    led = ps.ledger
    assert led.is_private and led.epsilon_spent <= 2.0 + 1e-12 and led.delta_spent <= 1e-6
    # one part per release the declarations leave: the label set, then each column's kind and values
    assert len(led.rows) == 1 + 2 * 3
    assert all(r.delta == 0 for r in led.rows if "histogram" not in r.mechanism)
    params = ps.estimator_params()
    from dpmodels.validation import source_of

    assert source_of(params["classes"]) == "dp" and source_of(params["bounds"]["age"]) == "dp"


def test_declared_inputs_are_not_released():
    X, y = table()
    ps = draft_private_schema(
        X, y, epsilon=1.0, delta=1e-6, classes=[0, 1], kinds={"id": "drop", "age": "numerical"}, random_state=0
    )
    whats = [r.what for r in ps.ledger.rows]
    assert not any("label set" in w or "'id'" in w or "kind of column 'age'" in w for w in whats)
    assert ps.source("classes") == "user" and ps.source("column age") == "dp"


@pytest.mark.parametrize(
    "kw, match",
    [
        ({"epsilon": 0.0}, "epsilon"),
        ({"delta": 0.0}, "delta > 0"),
        ({"kinds": {"nope": "drop"}}, "not a column"),
        ({"kinds": {"age": "text"}}, "must be one of"),
        ({"search_range": (5, 5)}, "search_range"),
        ({"bounds_quantiles": (0.5, 0.2)}, "bounds_quantiles"),
        ({"classes": [1]}, "at least 2"),
        ({"classes": [0, 1], "regression": True}, "regression"),
    ],
)
def test_bad_input_is_refused_before_anything_is_spent(kw, match):
    X, y = table(50)
    acc = BudgetAccountant(10.0, 1e-3)
    args = {"epsilon": 1.0, "delta": 1e-6, "accountant": acc, **kw}
    with pytest.raises(ValueError, match=match):
        draft_private_schema(X, y, **args)
    assert acc.epsilon_spent == 0 and acc.ledger.rows == []


def test_a_fit_with_the_draft_is_private_and_charged_draft_plus_fit():
    X, y = table()
    ps = draft_private_schema(X, y, epsilon=2.0, delta=1e-6, random_state=0)
    assert ps.drop == ["id"]
    est = PrivaTreeClassifier(epsilon=1.0, max_depth=2, **ps.estimator_params())
    est.fit(ps.attach(X), y)
    led = est.privacy_ledger_
    assert led.is_private and led.epsilon == pytest.approx(3.0) and led.epsilon_spent == pytest.approx(3.0)
    assert any(r.what.startswith("schema draft: categories of column 'job'") for r in led.rows)
    # the same values without the draft's ledger prove nothing: a leak row names each
    with pytest.warns(PrivacyLeakWarning, match="draft ledger was not merged"):
        bare = PrivaTreeClassifier(epsilon=1.0, max_depth=2, **ps.estimator_params()).fit(X.drop(columns=ps.drop), y)
    assert not bare.privacy_ledger_.is_private


def test_a_draft_under_an_accountant_is_charged_once_with_its_fits():
    X, y = table()
    acc = BudgetAccountant(1.5, 1e-6)
    ps = draft_private_schema(X, y, epsilon=0.5, delta=1e-6, accountant=acc, random_state=0)
    est = PrivaTreeClassifier(epsilon=1.0, max_depth=2, accountant=acc, **ps.estimator_params())
    est.fit(X.drop(columns=ps.drop), y)
    assert est.privacy_ledger_ is acc.ledger and acc.ledger.is_private
    assert acc.epsilon_spent == pytest.approx(1.5)


# ------------------------------------------------------------------ the command line
def run_cli(*args):
    cmd = [sys.executable, "-m", "dpmodels.cli", *map(str, args)]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=300)


def test_schema_draft_epsilon_then_fit(tmp_path, capsys):
    from dpmodels.cli import main

    X, y = table(300)
    X.loc[0, "job"] = "secret-job"
    p = tmp_path / "d.csv"
    X.assign(y=y).to_csv(p, index=False)
    s = tmp_path / "s.yaml"
    r = run_cli("schema", "draft", p, "--label", "y", "--epsilon", "2", "--random-state", "0", "--out", s)
    assert r.returncode == 0, r.stderr  # the command itself, in a subprocess
    text = s.read_text()
    assert "source: dp" in text and "source: data" not in text and "draft:" in text
    assert "secret-job" not in text and "job: {kind: categorical, categories: [a, b, c], source: dp}" in text
    m = tmp_path / "m.json"
    assert main(["fit", "--data", str(p), "--schema", str(s), "--model", "privatree", "--out", str(m)]) == 0
    doc = json.loads(m.read_text())
    assert doc["privacy"]["is_private"] and doc["privacy"]["epsilon"] == pytest.approx(3.0)  # draft 2 + fit 1
    assert doc["schema"]["classes_source"] == "dp" and doc["schema"]["columns"]["age"]["source"] == "dp"
    assert "draft" in doc["schema"]
    capsys.readouterr()
    # bad input: one line, exit 2, before anything is read or spent
    for bad, msg in (
        (["--epsilon", "0"], "epsilon"),
        (["--epsilon", "1", "--delta", "0"], "delta > 0"),
        (["--epsilon", "1", "--search-range", "3:1"], "LO < HI"),
        (["--delta", "1e-6"], "add --epsilon"),
    ):
        with pytest.raises(SystemExit) if "search" in bad[-2] else _nothing():
            assert main(["schema", "draft", str(p), "--label", "y", *bad]) == 2
        err = capsys.readouterr().err
        assert msg in err and len(err.strip().splitlines()) == 1, err
    # dp values without their draft block are refused
    cut = tmp_path / "cut.yaml"
    cut.write_text(text.split("draft:")[0])
    assert main(["fit", "--data", str(p), "--schema", str(cut), "--model", "privatree"]) == 2
    err = capsys.readouterr().err
    assert "draft's ledger" in err and len(err.strip().splitlines()) == 1


class _nothing:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def test_a_dp_draft_through_a_model_file_and_a_holdout_stays_charged(tmp_path, capsys):
    from dpmodels.cli import main

    X, y = table(300)
    p = tmp_path / "d.csv"
    X.assign(y=y).to_csv(p, index=False)
    s, m, m2 = tmp_path / "s.yaml", tmp_path / "m.json", tmp_path / "m2.json"
    assert main(["schema", "draft", str(p), "--label", "y", "--epsilon", "0.5", "--out", str(s)]) == 0
    base = ["fit", "--data", str(p), "--model", "dp-rulelist", "--holdout", "0.2"]
    assert main([*base, "--schema", str(s), "--out", str(m)]) == 0
    assert main([*base, "--schema", str(m), "--out", str(m2)]) == 0
    capsys.readouterr()
    for f in (m, m2):
        priv = json.loads(f.read_text())["privacy"]
        assert priv["is_private"] and priv["epsilon"] == pytest.approx(1.5)


# ------------------------------------------------------------------ audits (slow)
def _secret_released(runs, delta, seed, threshold=None, monkeypatch=None):
    """How often the one-record category and an out-of-range age show up in drafts of D and D'."""
    X, y = table(200, seed=1)
    X2 = pd.concat([X, pd.DataFrame([{"age": 5000, "job": "secret", "id": "z"}])], ignore_index=True)
    y2 = pd.concat([y, pd.Series([1], name="y")], ignore_index=True)
    if threshold is not None:
        import dpmodels.privacy.mechanisms as mech

        monkeypatch.setattr(mech, "histogram_threshold", lambda e, d: threshold)
    rng = np.random.default_rng(seed)
    kw = dict(epsilon=1.0, delta=delta, classes=[0, 1], kinds={"age": "numerical", "job": "categorical", "id": "drop"})
    out = []
    for A, b in ((X, y), (X2, y2)):
        cat = big = 0
        for _ in range(runs):
            ps = draft_private_schema(A, b, random_state=rng, **kw)
            cat += "secret" in ps.categories.get("job", [])
            big += ps.bounds["age"][1] > 200
        out.append((cat, big))
    return out


@pytest.mark.slow
def test_audit_of_the_draft_on_a_neighbouring_pair_with_a_planted_control(monkeypatch):
    """ε = 1 for the whole draft (0.5 per column), δ = 0.05: the category of one record appears in
    at most ≈ δ of the drafts of D', and no event certifies more than the claimed (ε, δ). A planted
    category list released at a threshold of 1 (no δ calibration) is flagged."""
    from dpmodels.audit import clopper_pearson, epsilon_lower_bound

    runs, delta = 2000, 0.05
    (c1, b1), (c2, b2) = _secret_released(runs, delta, seed=0)
    assert c1 == 0  # D has no such category (an empty noisy bin may still raise the bounds: b1 > 0)
    assert clopper_pearson(c2, runs)[0] <= delta  # a one-record category: probability <= δ
    for k1, k2 in ((c1, c2), (b1, b2)):
        assert epsilon_lower_bound(k1, runs, k2, runs, delta=delta) <= 1.0
    (c1, _), (c2, _) = _secret_released(400, delta, seed=1, threshold=1, monkeypatch=monkeypatch)
    assert epsilon_lower_bound(c1, 400, c2, 400, delta=delta) > 1.0  # the planted leak is flagged


def test_a_dp_drafted_schema_with_parquet_data_is_refused_before_anything_is_spent(tmp_path, capsys):
    need("pyarrow")
    from dpmodels.cli import main

    X, y = table(200)
    csv, pq, s = tmp_path / "d.csv", tmp_path / "d.parquet", tmp_path / "s.yaml"
    X.assign(y=y).to_csv(csv, index=False)
    X.assign(y=y).to_parquet(pq)
    assert main(["schema", "draft", str(csv), "--label", "y", "--epsilon", "2", "--out", str(s)]) == 0
    capsys.readouterr()
    assert main(["fit", "--data", str(pq), "--schema", str(s), "--model", "privatree"]) == 2
    err = capsys.readouterr().err
    assert "not yet supported with Parquet" in err and len(err.strip().splitlines()) == 1
