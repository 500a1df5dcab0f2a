"""Paper 000's Tables II and III as the authors' scripts ran them (``paper_000.scripts``).

Oracles: NumPy's own argsort with its SIMD sorts disabled (the scalar introsort the authors' NumPy
ran), NumPy's ``default_rng(seed).permutation`` (the authors' split), the column names the
scripts' filter keeps (by hand), and sortedness / permutation properties (hypothesis).
"""

import json
import os
import platform
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpmodels.data.paper_protocols import paper_000_features, table2_script_columns
from dpmodels.experiments.paper_000 import scripts

SRC = str(Path(scripts.__file__).resolve().parents[3])

# draws with many ties (the case that matters), of every size around the partition threshold
_CHECK = """
import json, sys
import numpy as np
from numpy._core._multiarray_umath import __cpu_features__ as f
from dpmodels.experiments.paper_000.scripts import introsort_argsort
if f.get("X86_V3") or f.get("X86_V4") or f.get("AVX512_SKX"):
    print(json.dumps({"disabled": False})); sys.exit()
rng = np.random.default_rng(3)
bad = []
for n in list(range(1, 40)) + [100, 257]:
    for t in range(4):
        x = [rng.integers(0, 3, n).astype(float), np.where(rng.random(n) < 0.8, 0.0, rng.random(n)),
             rng.random(n), np.arange(n, 0, -1, dtype=float)][t % 4]
        if not (np.argsort(x) == introsort_argsort(x)).all():
            bad.append(n)
print(json.dumps({"disabled": True, "bad": bad}))
"""


@pytest.mark.skipif(platform.machine() not in ("x86_64", "AMD64"), reason="NumPy's x86 SIMD sorts are what is disabled")
def test_introsort_argsort_equals_numpys_scalar_argsort():
    """NumPy's default argsort with its AVX2 / AVX-512 sorts switched off runs the scalar
    introsort, whose tie order the authors' NumPy produced: the emulation returns the same
    permutation, ties included."""
    env = dict(os.environ, PYTHONPATH=SRC, NPY_DISABLE_CPU_FEATURES="X86_V3 X86_V4 AVX512_ICL AVX512_SKX")
    out = subprocess.run([sys.executable, "-c", _CHECK], env=env, capture_output=True, text=True, timeout=300)
    if out.returncode != 0 or not out.stdout.strip():
        pytest.skip(f"NumPy's SIMD dispatch could not be disabled here: {out.stderr.strip()[-200:]}")
    res = json.loads(out.stdout.strip().splitlines()[-1])
    if not res["disabled"]:
        pytest.skip("this NumPy build ignores NPY_DISABLE_CPU_FEATURES for its sorts")
    assert res["bad"] == []


def test_introsort_is_not_the_stable_order_on_ties():
    """Twenty values, sixteen of them tied at 0 (Table III's case): the tie order differs from the
    stable one, so the top-k sets differ; a hand-checked case of the scalar introsort."""
    x = np.array([0.0] * 16 + [0.01, 0.002, 0.0, 0.03])
    order = scripts.introsort_argsort(x)
    assert list(order[::-1][:3]) == [19, 16, 17]  # the three positive values first
    assert list(order[::-1][:7]) == [19, 16, 17, 8, 1, 2, 3]
    assert list(np.argsort(x, kind="stable")[::-1][:7]) == [19, 16, 17, 18, 15, 14, 13]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from([0.0, 0.0, 0.0, 0.5, 1.0, -0.25, float("nan")]), min_size=0, max_size=80))
def test_introsort_argsort_sorts(values):
    x = np.array(values, dtype=float)
    order = scripts.introsort_argsort(x)
    assert sorted(order.tolist()) == list(range(len(x)))
    s = x[order]
    finite = s[~np.isnan(s)]
    assert np.all(np.diff(finite) >= 0)
    assert not np.isnan(s[: len(finite)]).any()  # NaN last, as NumPy sorts them


def test_script_split_is_the_authors_permutation():
    for n, run in ((10, 0), (7214, 3), (101, 99)):
        tr, te = scripts.script_split(n, run)
        perm = np.random.default_rng(run).permutation(n)
        assert len(tr) == int(0.7 * n)
        assert np.array_equal(np.r_[tr, te], perm)


def test_table2_script_columns_drop_by_the_letters_of_the_file_name():
    A, _ = table2_script_columns("adult")
    full, _ = paper_000_features("adult")  # the Fig. 4 runner's columns: gender and age dropped
    assert "age_high" not in A and "age_low" not in A
    assert {"gender_Female", "gender_Male"} <= set(A.columns)
    assert A.shape[1] == 22 and set(full.columns) <= set(A.columns)
    C, y = table2_script_columns("compas")
    assert C.shape == (7214, 27) and len(y) == 7214
    assert any(c.startswith("Race") for c in C.columns) and "Gender=Male" in C.columns
    with pytest.raises(ValueError, match="german"):
        table2_script_columns("german")


def test_table2_script_cell_runs_the_scripts_greedy_and_sm_laplace():
    rows = scripts.table2_script_cell("compas", 0, epsilons=(10.0,), n_permutations=0)
    learners = {r["learner"] for r in rows}
    assert learners == {"GreedyRL (script)", "GreedyRL (paper protocol)", "sm-laplace (confidence)"}
    script = [r for r in rows if r["learner"] == "GreedyRL (script)"]
    p = json.loads(script[0]["parameters"])
    assert p["max_rules"] == 6 and p["min_support"] == 0.0 and p["criterion"] == "authors" and p["columns"] == 27
    acc = {r["learner"]: r["value"] for r in rows if r["metric"] == "accuracy"}
    assert all(0.5 < a < 0.75 for a in acc.values())
    with pytest.raises(ValueError, match="German"):
        scripts.table2_script_cells(datasets=("german",))


def test_scripts_greedy_has_k_rules_before_the_default():
    """The authors' class stops at max_length rules before the default (the DP classes at
    max_length − 1): the script's GreedyRL is max_rules = K + 1 here."""
    from dpmodels.rulelist import GreedyRuleListClassifier

    B, y = table2_script_columns("compas")
    g = GreedyRuleListClassifier(classes=[0, 1], **scripts.SCRIPT_GREEDY).fit(B, y)
    assert len(g.rule_list_.rules) <= scripts.K_RULES
    assert scripts.SCRIPT_GREEDY["max_rules"] == scripts.K_RULES + 1


def test_table3_script_cell_and_ids():
    from dpmodels.experiments.registry import Size, get

    rows = scripts.table3_script_cell(0, epsilons=(10.0,), learners=("sm-laplace (C = 0.98)",))
    ik = {r["metric"]: r["value"] for r in rows if r["learner"] == "sm-laplace (C = 0.98)"}
    assert {"I_5 (script ties)", "I_5 (stable ties)", "I_7 (script ties)", "I_7 (stable ties)"} <= set(ik)
    assert all(
        0.0 <= ik[m] <= 1.0 and abs(ik[m] * int(m[2]) - round(ik[m] * int(m[2]))) < 1e-9 for m in ik if m[0] == "I"
    )
    p = json.loads(next(r["parameters"] for r in rows if r["learner"] == "sm-laplace (C = 0.98)"))
    assert p["confidence"] == 0.98 and p["rules"] == 582
    size = Size(quick=True, runs=1)
    assert len(get("000-table3-script").cells(size)) == 1
    assert len(get("000-table2-script").cells(size)) == 2
    with pytest.raises(ValueError, match="unknown learners"):
        scripts.table3_script_cells(learners=("gl-gaussian",))


def test_authors_vulnerability_equals_the_brute_force_formula():
    """Their V: τ(y) = ½ Σ_r |#{M=1, y, r}/|M=1| − #{M=0, y, r}/|M=0||, V = ½(1 + Σ_y P[y] τ(y)),
    P[y] the pooled class rate; computed here by loops over rules and labels."""
    from dpmodels.rulelist import GreedyRuleListClassifier

    B, y = table2_script_columns("compas")
    y = np.asarray(y)
    tr, te = scripts.script_split(len(y), 1)
    g = GreedyRuleListClassifier(max_rules=4, min_support=0.05, classes=[0, 1]).fit(B.iloc[tr], y[tr])
    r_in, r_out = g.apply(B.iloc[tr]), g.apply(B.iloc[te])
    pooled = np.r_[y[tr], y[te]]
    v = 0.0
    for label in (0, 1):
        tau = 0.0
        for r in range(len(g.rule_list_.rules) + 1):
            a = sum(1 for i in range(len(tr)) if r_in[i] == r and y[tr][i] == label) / len(tr)
            b = sum(1 for i in range(len(te)) if r_out[i] == r and y[te][i] == label) / len(te)
            tau += abs(a - b) / 2
        v += (pooled == label).mean() * tau
    assert scripts.authors_vulnerability(g, B.iloc[tr], y[tr], B.iloc[te], y[te]) == pytest.approx(0.5 * (1 + v))


def test_table3_one_noise_stream_variant_reuses_the_scripts_seed():
    """The script's sm-Laplace passes no seed: every run restarts the stream seeded 42; the other
    learners draw fresh noise per (run, learner, ε)."""
    name = "sm-laplace (C = 0.98, one noise stream)"
    assert name in scripts.T3_LEARNERS
    assert {scripts._noise_seed(name, r, e) for r in range(5) for e in (1.0, 10.0)} == {42}
    other = "sm-laplace (C = 0.98)"
    assert len({str(scripts._noise_seed(other, r, 1.0)) for r in range(5)}) == 5
