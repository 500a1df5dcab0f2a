"""The command line reads a CSV in batches (issue 23 #6, issue 26 "Large CSVs"): parse and
prediction one batch of text at a time. Batches change nothing: the parsed frame, the leak rows,
the first error, the fitted model (same seed) and the predictions equal those of a whole-file read."""

import json

import numpy as np
import pandas as pd
import pytest

import dpmodels.cli._common as common
from dpmodels.cli import build_parser, main
from dpmodels.cli.fit import _declarations, _fill_defaults, _load_fit_data
from dpmodels.cli.schema import UsageError

N = 103  # batches of 7 rows: 15 batches, the last one short


def _csv(path, n=N, seed=0):
    rng = np.random.default_rng(seed)
    df = pd.DataFrame(
        {
            "age": rng.integers(18, 90, n).astype(str),
            "job": rng.choice(["a", "b", "c", "x"], n),  # x: outside the declared list
            "free": rng.choice(["1", "2.5", "3"], n),  # undeclared: its kind is read (a leak)
            "y": rng.choice(["0", "1.0", "1"], n),
        }
    )
    df.to_csv(path, index=False)
    return df


def _batches(monkeypatch, rows):
    monkeypatch.setattr(common, "csv_batch_rows", lambda n_columns: rows)


def _load(path, *extra):
    args = build_parser().parse_args(
        ["fit", "--data", str(path), "--label", "y", "--model", "privatree", "--classes", "0", "1", *extra]
    )
    _fill_defaults(args)
    X, y, _, leaks = _load_fit_data(args, _declarations(args))
    return X, y, leaks


def test_batches_parse_like_the_whole_file(tmp_path, monkeypatch):
    _csv(tmp_path / "d.csv")
    opts = ("--categories", "job=a,b,c", "--bounds", "age=20:80")
    _batches(monkeypatch, 10**6)
    X1, y1, leaks1 = _load(tmp_path / "d.csv", *opts)
    _batches(monkeypatch, 7)
    X2, y2, leaks2 = _load(tmp_path / "d.csv", *opts)
    pd.testing.assert_frame_equal(X1, X2)
    pd.testing.assert_series_equal(y1, y2)
    assert leaks1 == leaks2 and any("free" in w for w, _ in leaks2)
    assert X2["age"].dtype == np.float64 and X2["free"].dtype == np.float64  # typed, not text


def test_batches_raise_the_error_of_the_whole_file(tmp_path, monkeypatch):
    df = _csv(tmp_path / "d.csv")
    df.loc[3, "free"] = "oops"  # undeclared: categorical then, no error
    df.loc[2, "job"] = "a"
    df.loc[90, "age"] = "n/a"  # a later batch, but the first column in the parse order
    df.loc[1, "y"] = "2"  # a label outside the set is the learner's refusal, not a parse error
    df.to_csv(tmp_path / "d.csv", index=False)
    msgs = []
    for rows in (10**6, 7):
        _batches(monkeypatch, rows)
        with pytest.raises(UsageError) as e:
            _load(tmp_path / "d.csv", "--categories", "job=a,b,c", "--bounds", "age=20:80", "--integer", "age")
        msgs.append(str(e.value))
    assert msgs[0] == msgs[1] and "'age'" in msgs[0]


def test_fit_and_predict_in_batches_equal_the_whole_read(tmp_path, monkeypatch, capsys):
    _csv(tmp_path / "d.csv")
    fit = ["fit", "--data", str(tmp_path / "d.csv"), "--label", "y", "--model", "dp-rulelist"]
    fit += ["--classes", "0", "1", "--categories", "job=a,b,c", "--bounds", "age=18:90", "free=1:3"]
    fit += ["--random-state", "0", "--quiet"]
    outs = []
    for rows in (10**6, 7):
        _batches(monkeypatch, rows)
        model = tmp_path / f"m{rows}.json"
        assert main([*fit, "--out", str(model)]) == 0
        assert main(["predict", str(model), str(tmp_path / "d.csv"), "--proba", "--id", "job"]) == 0
        printed = capsys.readouterr().out
        pred = tmp_path / f"p{rows}.csv"
        assert main(["predict", str(model), str(tmp_path / "d.csv"), "--out", str(pred)]) == 0
        doc = json.loads(model.read_text())
        outs.append((doc["model"], doc["privacy"], printed.split("model written")[0], pred.read_text()))
    assert outs[0] == outs[1]
    assert len(outs[1][3].splitlines()) == N + 1  # one header, every row once


def test_predict_to_a_file_leaves_nothing_when_a_later_batch_fails(tmp_path, monkeypatch):
    df = _csv(tmp_path / "d.csv")
    fit = ["fit", "--data", str(tmp_path / "d.csv"), "--label", "y", "--model", "privatree"]
    fit += ["--classes", "0", "1", "--categories", "job=a,b,c", "--bounds", "age=18:90", "free=1:3", "--quiet"]
    assert main([*fit, "--out", str(tmp_path / "m.json")]) == 0
    df.loc[N - 1, "age"] = "n/a"
    df.to_csv(tmp_path / "bad.csv", index=False)
    _batches(monkeypatch, 7)
    assert main(["predict", str(tmp_path / "m.json"), str(tmp_path / "bad.csv"), "--out", str(tmp_path / "p.csv")]) == 2
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.csv", "d.csv", "m.json"]


def test_the_batch_size_follows_the_memory_limit_and_the_header_only(tmp_path, capsys):
    from dpmodels.guards import limits

    with limits(max_memory="64M"):
        assert common.csv_batch_rows(4) == 64 * 2**20 // 16 // (128 * 4)
    with limits(max_memory="1M"):
        assert common.csv_batch_rows(50) == 1024  # the floor
    with limits(max_memory=None):
        assert common.csv_batch_rows(4) == 2**18
    _csv(tmp_path / "d.csv")
    fit = ["fit", "--data", str(tmp_path / "d.csv"), "--label", "y", "--model", "privatree", "--classes", "0", "1"]
    fit += ["--categories", "job=a,b,c", "--bounds", "age=18:90", "free=1:3", "--quiet", "--max-memory", "1M"]
    assert main([*fit, "--out", str(tmp_path / "m.json")]) == 0
    capsys.readouterr()
    predict = ["predict", str(tmp_path / "m.json"), str(tmp_path / "d.csv")]
    assert main([*predict, "--max-memory", "1M"]) == 0
    assert len(capsys.readouterr().out.splitlines()) == N + 1
    assert main([*predict, "--max-memory", "lots"]) == 2
    assert "--max-memory" in capsys.readouterr().err
