"""`dpmodels fit --model dp-gam / dp-gam-regressor`, `show` and `predict`: the classifier's fit in a
subprocess (the installed command); its `show` and `predict`, the regressor and the usage errors in
process (:func:`dpmodels.cli.main`, what the command runs)."""

import json

import numpy as np
import pandas as pd
from test_cli import run_cli

from _extras import need
from dpmodels.cli import main

DECL = ["--bounds", "age=18:80", "--categories", "colour=red,green,blue"]


def _csv(tmp_path):
    rng = np.random.default_rng(0)
    n = 300
    df = pd.DataFrame({"age": rng.integers(18, 80, n), "colour": rng.choice(["red", "green", "blue", "teal"], n)})
    df["hours"] = (20 + 0.3 * df.age + (df.colour == "red") * 5 + rng.normal(0, 3, n)).round(1)
    df["y"] = (df.hours > 38).astype(int)
    p = tmp_path / "d.csv"
    df.to_csv(p, index=False)
    return p, df


def _main(capsys, *args):
    """``(exit code, stdout, stderr)`` of ``dpmodels ARGS`` run in this process."""
    capsys.readouterr()
    code = main(list(args))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_dp_gam_fit_show_predict(tmp_path, capsys):
    data, df = _csv(tmp_path)
    model = tmp_path / "gam.json"
    r = run_cli(
        "fit", "--data", str(data), "--label", "y", "--drop", "hours", "--model", "dp-gam", *DECL,
        "--classes", "0", "1", "--epsilon", "2", "--max-rounds", "1", "--out", str(model),
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    assert "DPAdditiveClassifier(" in r.stdout and "colour (categorical" in r.stdout and "→" in r.stdout
    assert "PRIVATE: every release" in r.stdout and "boosting round 1" in r.stdout
    doc = json.loads(model.read_text())
    assert doc["kind"] == "additive" and doc["privacy"]["is_private"] is True
    assert doc["schema"]["categories"]["colour"] == ["red", "green", "blue"]
    code, shown, err = _main(capsys, "show", str(model))
    assert code == 0, err
    assert shown.splitlines()[0].startswith("DPAdditiveClassifier(") and "unknown" in shown
    code, predicted, err = _main(capsys, "predict", str(model), str(data), "--proba")
    assert code == 0, err
    out = pd.read_csv(pd.io.common.StringIO(predicted))
    assert list(out.columns) == ["prediction", "proba_0", "proba_1"] and len(out) == len(df)
    np.testing.assert_array_equal(out["prediction"], (out["proba_1"] > out["proba_0"]).astype(int))


def test_dp_gam_regressor_and_zcdp(tmp_path, capsys):
    data, df = _csv(tmp_path)
    model = tmp_path / "reg.json"
    rc = main(
        ["fit", "--data", str(data), "--label", "hours", "--drop", "y", "--model", "dp-gam-regressor", *DECL,
         "--label-bounds", "0:100", "--epsilon", "2", "--delta", "1e-6", "--out", str(model)]
    )  # fmt: skip
    out = capsys.readouterr().out
    assert rc == 0
    assert "DPAdditiveRegressor(" in out and "discrete Gaussian (zCDP)" in out
    doc = json.loads(model.read_text())
    assert doc["schema"]["label_bounds"] == [0.0, 100.0] and doc["privacy"]["delta"] == 1e-6
    assert main(["predict", str(model), str(data)]) == 0
    pred = pd.read_csv(pd.io.common.StringIO(capsys.readouterr().out))["prediction"]
    assert len(pred) == len(df) and pred.between(0, 100).all()


def test_dp_gam_bad_options_are_one_line_exit_2(tmp_path, capsys):
    data, _ = _csv(tmp_path)
    for extra, msg in [
        (["--max-depth", "3"], "--max-depth applies to trees"),
        (["--max-bins", "5000"], "--max-bins must be in [2, 1024]"),
        (["--label-bounds", "0:1"], "--label-bounds applies to"),
    ]:
        rc = main(["fit", "--data", str(data), "--label", "y", "--drop", "hours", "--model", "dp-gam", *DECL, *extra])
        cap = capsys.readouterr()
        assert rc == 2, extra
        assert msg in cap.err and len(cap.err.strip().splitlines()) == 1 and cap.out == ""


def test_audit_of_an_additive_model_says_dist_g_does_not_apply(tmp_path, capsys):
    """`dpmodels audit` on a dp-gam file: membership inference and V run, Dist_G is not computed
    (it measures what a record's path reveals; an additive model has none) and says so."""
    data, df = _csv(tmp_path)
    model = tmp_path / "gam.json"
    args = ["--label", "y", "--drop", "hours", "--model", "dp-gam", *DECL, "--classes", "0", "1"]
    train, test = tmp_path / "tr.csv", tmp_path / "te.csv"
    df.iloc[:150].to_csv(train, index=False)
    df.iloc[150:].to_csv(test, index=False)
    assert main(["fit", "--data", str(train), *args, "--epsilon", "2", "--out", str(model)]) == 0
    capsys.readouterr()
    html = tmp_path / "r.html"
    rc = main(
        ["audit", str(model), "--train", str(train), "--test", str(test), "--permutations", "20", "--html", str(html)]
    )
    out = capsys.readouterr().out
    assert rc == 0
    assert "Dist_G is defined for trees and rule lists, not for additive models" in out
    assert "Verdict: strongest attack AUC" in out and "Dist_G n/a" in out
    assert html.stat().st_size > 10_000


def test_parquet_fit_is_the_csv_fit(tmp_path, capsys):
    """`dpmodels fit --data x.parquet --model dp-gam` streams record batches: under the same seed
    the model file holds the same model as the CSV fit's."""
    need("pyarrow")
    data, df = _csv(tmp_path)
    df.to_parquet(tmp_path / "d.parquet", index=False)
    args = ["--label", "y", "--drop", "hours", "--model", "dp-gam", *DECL, "--classes", "0", "1", "--epsilon", "2"]
    args += ["--random-state", "1"]
    assert main(["fit", "--data", str(tmp_path / "d.parquet"), *args, "--out", str(tmp_path / "p.json")]) == 0
    assert "streamed 1 Parquet file(s)" in capsys.readouterr().out
    assert main(["fit", "--data", str(data), *args, "--out", str(tmp_path / "c.json")]) == 0
    p, c = (json.loads((tmp_path / f).read_text())["model"] for f in ("p.json", "c.json"))
    assert p == c
