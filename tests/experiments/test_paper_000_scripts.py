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
    with pytest.raises(ValueError, match="covers compas, adult and german"):
        scripts.table2_script_cells(datasets=("credit",))


def test_table2_script_cell_k7_names_its_length():
    rows = scripts.table2_script_cell("compas", 1, epsilons=(10.0,), n_permutations=0, ks=(7,))
    assert {r["learner"] for r in rows} == {"GreedyRL (script), K = 7", "sm-laplace (confidence), K = 7"}
    g = json.loads(next(r["parameters"] for r in rows if r["learner"].startswith("GreedyRL")))
    sm = json.loads(next(r["parameters"] for r in rows if r["learner"].startswith("sm-laplace")))
    assert g["max_rules"] == 8 and sm["max_rules"] == 7
    assert scripts._printed_key("compas", "GreedyRL (script), K = 7") == ("compas", "GreedyRL")
    assert scripts._printed_key("german [cp4im]", "sm-laplace (confidence), K = 5") == ("german", "sm-Laplace")


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
    t2 = get("000-table2-script").cells(
        size
    )  # compas, adult (K = 5, 7), german (CP4IM's candidate from the bundled file: no Skip)
    assert [type(c).__name__ for c in t2] == ["Cell"] * 5 and "cp4im" in t2[-1].kwargs["files"]
    assert [c.kwargs.get("ks") for c in t2[:4]] == [None, (7,), None, (7,)]
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


# ------------------------------------------------------------------ Table II's German candidates
# the attributes the script's filter keeps when the columns carry the UCI attribute names: those
# whose name starts with none of the letters g, e, r, m, a, n, _, c, d, i, t (checked by hand)
_KEPT_BY_LETTERS = {
    "purpose", "savings", "personal_status_sex", "other_debtors", "property", "other_installment_plans",
    "housing", "job", "own_telephone", "foreign_worker",
}  # fmt: skip


def test_german_candidates_columns():
    allc, y = scripts.german_script_columns("sec-v-a, every column")
    assert allc.shape == (1000, 70) and len(y) == 1000 and set(np.unique(y)) == {0, 1}
    assert set(np.unique(allc.to_numpy())) <= {0, 1}
    kept, _ = scripts.german_script_columns("sec-v-a, script filter")
    assert {c.split("=")[0] for c in kept.columns} == _KEPT_BY_LETTERS
    assert set(kept.columns) == {c for c in allc.columns if c.split("=")[0] in _KEPT_BY_LETTERS}
    # one-hot: every categorical attribute's columns sum to 1 in every row; 2-bin quantiles likewise
    for attr in {c.split("=")[0] for c in allc.columns}:
        assert (allc[[c for c in allc.columns if c.split("=")[0] == attr]].sum(axis=1) == 1).all()
    with pytest.raises(ValueError, match="german-credit.txt is not in data_dir"):
        scripts.german_script_columns("cp4im", "/nonexistent-dir")
    with pytest.raises(ValueError, match="unknown German file"):
        scripts.german_script_columns("statlog")


def test_german_cp4im_reads_the_label_first_file(tmp_path):
    rng = np.random.default_rng(0)
    A = rng.integers(0, 2, (1000, 9))
    np.savetxt(tmp_path / "german-credit.txt", A, fmt="%d")
    B, y = scripts.german_script_columns("cp4im", str(tmp_path))
    assert np.array_equal(y, A[:, 0]) and np.array_equal(B.to_numpy(), A[:, 1:]) and B.shape[1] == 8
    np.savetxt(tmp_path / "german-credit.txt", A[:10], fmt="%d")
    with pytest.raises(ValueError, match="expected 1,000 rows"):
        scripts.german_script_columns("cp4im", str(tmp_path))


def test_german_cp4im_without_data_dir_is_the_bundled_file():
    """No data_dir: CP4IM's german-credit.txt is the bundled copy (the "german" loader's source),
    read the same way as a --data-dir copy (label first, 112 0/1 columns)."""
    from dpmodels.data import load_dataset

    B, y = scripts.german_script_columns("cp4im")
    assert B.shape == (1000, 112) and list(B.columns[:2]) == ["c0", "c1"]
    Xl, yl = load_dataset("german", binarized=True)
    assert np.array_equal(B.to_numpy(), Xl.to_numpy()) and np.array_equal(y, np.asarray(yl))
    assert int(y.sum()) == 700  # CP4IM's label 1 is the majority class (700 good credit risks)


def test_german_cells_run_cp4im_from_the_bundled_file_and_run():
    from dpmodels.experiments.registry import Skip

    cells = scripts.table2_script_cells(datasets=("german",), runs=2)
    assert not any(isinstance(c, Skip) for c in cells)
    real = cells
    assert len(real) == 2 and real[0].kwargs["files"][-1] == "cp4im" and "data_dir" not in real[0].kwargs
    assert real[0].kwargs["epsilons"] == (1.0, 10.0)  # German: the script's ε = 10 and ε = 1
    rows = scripts.german_script_cell(0, files=("sec-v-a, every column",), ks=(5,), n_permutations=0)
    learners = {r["learner"] for r in rows}
    assert learners == {"GreedyRL (script), K = 5", "sm-laplace (confidence), K = 5"}
    g = json.loads(next(r["parameters"] for r in rows if r["learner"].startswith("GreedyRL")))
    assert g["max_rules"] == 6 and g["max_width"] == 1 and g["min_support"] == 0.0
    sm = json.loads(next(r["parameters"] for r in rows if r["learner"].startswith("sm-laplace")))
    assert sm["min_support"] == 0.12 and sm["confidence"] == 0.99 and sm["max_rules"] == 5
    acc = [r["value"] for r in rows if r["metric"] == "accuracy"]
    assert all(0.55 < a < 0.8 for a in acc)
    assert {r["dataset"] for r in rows} == {"german [sec-v-a, every column]"}


def test_table2_agreement_combines_both_uncertainties():
    """z = (ours − printed centre) / √(s.e.² + printed variance / 100 + rounding²), by hand."""
    import pandas as pd

    vals = [0.70, 0.72, 0.71, 0.69]
    rows = [
        dict(dataset="german [x]", learner="GreedyRL (script), K = 7", epsilon=np.inf, seed=i, metric=m, value=v)
        for i, v in enumerate(vals)
        for m in ("accuracy", "vulnerability (authors')")
    ]
    line = [ln for ln in scripts.table2_agreement_lines(pd.DataFrame(rows)) if ln.startswith("| german")][0]
    se2 = np.var(vals, ddof=1) / 4
    z_acc = (np.mean(vals) - 0.711) / np.sqrt(se2 + 5e-4 / 100 + (0.0005 / np.sqrt(3)) ** 2)
    z_v = (np.mean(vals) - 0.524) / np.sqrt(se2 + 3e-5 / 100 + (0.0005 / np.sqrt(3)) ** 2)
    cells = [c.strip() for c in line.strip("|").split("|")]
    assert cells[2] == "∞" and cells[5] == f"{z_acc:+.1f}" and cells[8] == f"{z_v:+.1f}"


def test_table3_agreement_states_its_power():
    """Each Table III row says which printed values it would accept (ours ± 2 combined s.e.) and the
    smallest true difference it detects with 80 % power ((2 + z_.80) combined s.e.), by hand."""
    import pandas as pd

    vals = [0.4, 0.6, 0.2, 0.8, 0.4, 0.6]
    rows = [
        dict(dataset="adult", learner="gl-laplace (support 0)", epsilon=1.0, seed=i, metric=scripts.T3_METRIC, value=v)
        for i, v in enumerate(vals)
    ]
    line = [ln for ln in scripts.table3_agreement_lines(pd.DataFrame(rows)) if ln.startswith("| 1 |")][0]
    comb = np.hypot(np.std(vals, ddof=1) / np.sqrt(len(vals)), np.sqrt(0.04 / 100))
    cells = [c.strip() for c in line.strip("|").split("|")]
    m = np.mean(vals)
    assert cells[4] == f"{comb:.3f}" and cells[5] == f"{(m - 0.316) / comb:+.1f}"
    assert cells[6] == f"{m - 2 * comb:.3f} – {m + 2 * comb:.3f}" and cells[7] == f"{2.8416 * comb:.3f}"


# ---------------------------------------------------------------- Table III's noise streams
def test_table3_noise_streams_share_one_seed_across_runs_and_eps():
    seeds = {
        s: {str(scripts._noise_seed(scripts.stream_learner(s), r, e)) for r in range(4) for e in (1.0, 10.0)}
        for s in range(3)
    }
    assert all(len(v) == 1 for v in seeds.values())
    assert len(set().union(*seeds.values())) == 3
    assert str(scripts._noise_seed("sm-laplace (C = 0.98, one noise stream)", 0, 1.0)) not in set().union(
        *seeds.values()
    )


def test_table3_noise_stream_cells_and_table():
    import pandas as pd

    plain = scripts.table3_script_cells(runs=3)
    streams = scripts.table3_script_cells(runs=3, noise_streams=2, stream_runs=2)
    assert [c.uid for c in plain][2] == [c.uid for c in streams][2]  # run 2 has no streams: same cell
    assert streams[0].kwargs["noise_streams"] == 2 and "noise_streams" not in streams[2].kwargs
    with pytest.raises(ValueError, match="stream_runs"):
        scripts.table3_script_cells(runs=3, noise_streams=2, stream_runs=4)
    rows = scripts.table3_script_cell(0, epsilons=(1.0, 10.0), learners=("gl-laplace (support 0)",), noise_streams=2)
    rows += scripts.table3_script_cell(1, epsilons=(1.0, 10.0), learners=("gl-laplace (support 0)",), noise_streams=2)
    df = pd.DataFrame(rows)
    names = set(df.learner)
    assert {scripts.stream_learner(0), scripts.stream_learner(1)} <= names
    md = scripts.table3_script_markdown(df)
    assert "2 noise streams × 2 runs" in md and "Paired by stream" in md
    # the stream table's centre is the mean of the streams' means, by hand
    m = df[(df.metric == "I_5 (script ties)") & df.learner.str.contains("noise stream") & (df.epsilon == 1.0)]
    centre = m.groupby("learner")["value"].mean().mean()
    assert f"| 1 | {centre:.3f} ± " in md
    # stream rows are not in the main table
    assert not any(ln.startswith("| 1 | sm-laplace (C = 0.98, noise stream") for ln in md.splitlines())


def test_table2_script_id_reads_cp4im_from_data_dir(tmp_path):
    """``--data-dir`` reaches the id: with german-credit.txt there, CP4IM's candidate runs (no Skip)."""
    from dpmodels.experiments.registry import Size, Skip, get

    np.savetxt(tmp_path / "german-credit.txt", np.random.default_rng(1).integers(0, 2, (1000, 5)), fmt="%d")
    cells = get("000-table2-script").cells(Size(quick=True, runs=1, datasets=("german",), data_dir=str(tmp_path)))
    assert not any(isinstance(c, Skip) for c in cells)
    assert cells[0].kwargs["files"][-1] == "cp4im" and cells[0].kwargs["data_dir"] == str(tmp_path)
    rows = cells[0].run()
    assert {r["dataset"] for r in rows} >= {"german [cp4im]"}
