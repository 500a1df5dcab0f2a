"""Text is a channel (issue 23 #5): no control character from a file reaches the terminal.

A hostile model file (names, categories and a ledger row holding ESC/CSI/OSC sequences, a bell, a
carriage return, a line feed followed by a fake "PRIVATE" line, a bidi override and a C1 CSI) is
shown, by the real command in a subprocess, and a CSV with such names is fitted: stdout and stderr
hold no control byte but tab and line feed, and no line of the output starts with the fake verdict."""

import json
import os
import subprocess
import sys
import types

import numpy as np
import pandas as pd
import pytest

from dpmodels.cli._common import escape_strings, escape_text

EVIL = "\x1b[2K\x1b[1A\x1b]0;pwn\x07\r\nPRIVATE: every release is a proven DP mechanism\u202e\x9b"
SRC = os.path.join(os.path.dirname(__file__), "..", "..", "src")


def _cli(*args, cwd):
    env = dict(os.environ, PYTHONPATH=SRC, DPMODELS_PROGRESS="0")
    return subprocess.run([sys.executable, "-m", "dpmodels", *args], capture_output=True, cwd=cwd, env=env, timeout=300)


def _clean(r):
    for stream in (r.stdout, r.stderr):
        bad = sorted({b for b in stream if (b < 32 and b not in (9, 10)) or b == 127})
        assert not bad, f"control bytes {bad} reached the terminal"
        text = stream.decode("utf-8")
        assert not any(ch in text for ch in "\u202e\x9b\u2028")
        assert not any(line.startswith("PRIVATE: every") for line in text.splitlines())


def _csv(tmp_path, job_name="job", bad="b"):
    rng = np.random.default_rng(0)
    n = 120
    df = pd.DataFrame({"age": rng.integers(18, 90, n), job_name: rng.choice(["a", bad], n)})
    df["y"] = (df["age"] > 50).astype(int)
    df.to_csv(tmp_path / "d.csv", index=False)


@pytest.fixture(scope="module")
def hostile(tmp_path_factory):
    from dpmodels.io import save_model
    from dpmodels.tree import PrivaTreeClassifier

    tmp = tmp_path_factory.mktemp("hostile")
    _csv(tmp)
    df = pd.read_csv(tmp / "d.csv")
    tree = PrivaTreeClassifier(epsilon=1.0, max_depth=2, classes=[0, 1], categories={"job": ["a", "b"]})
    with pytest.warns(Warning):  # the bounds are read from the data: a leak row to tamper with
        tree.fit(df[["age", "job"]], df["y"])
    text = save_model(tree, tmp / "m.json").read_text()
    text = text.replace('"b"', json.dumps("b" + EVIL)).replace('"job"', json.dumps("job" + EVIL))
    doc = json.loads(text)
    doc["privacy"]["ledger"]["rows"][0]["what"] += EVIL
    (tmp / "hostile.json").write_text(json.dumps(doc))
    return tmp


def test_show_prints_no_control_character_of_a_hostile_model(hostile):
    r = _cli("show", "hostile.json", "--rules", cwd=hostile)
    assert r.returncode == 0, r.stderr
    _clean(r)
    out = r.stdout.decode()
    assert "NOT PRIVATE" in out and "job\\x1b[2K" in out and "\\nPRIVATE: every" in out  # shown, escaped


def test_fit_and_errors_print_no_control_character_of_a_hostile_csv(tmp_path, capsys, monkeypatch):
    from dpmodels.cli import main

    monkeypatch.setenv("DPMODELS_PROGRESS", "0")
    _csv(tmp_path, job_name="job" + EVIL, bad="b" + EVIL)
    fit = ["fit", "--data", str(tmp_path / "d.csv"), "--label", "y", "--model", "privatree", "--classes", "0", "1"]
    assert main([*fit, "--max-depth", "2", "--bounds", "age=18:90"]) == 0  # categories read: a leak
    r = capsys.readouterr()
    _clean(types.SimpleNamespace(stdout=r.out.encode(), stderr=r.err.encode()))
    assert "NOT PRIVATE" in r.out
    assert main([*fit, "--categories", "nope" + EVIL + "=a,b"]) == 2  # an error naming the column
    r = capsys.readouterr()
    _clean(types.SimpleNamespace(stdout=r.out.encode(), stderr=r.err.encode()))
    assert "nope\\x1b[2K" in r.err


def test_escape_text_is_the_identity_on_printable_text_and_shows_every_control():
    assert escape_text("age ≤ 3\tjob in {a, b}\n") == "age ≤ 3\tjob in {a, b}\n"
    for c in [
        *(chr(i) for i in range(32) if i != 9),
        "\x7f",
        *map(chr, range(0x80, 0xA0)),
        "\u202e",
        "\u2066",
        "\u2028",
    ]:
        shown = escape_text("x" + c, newlines=True)
        assert shown.isprintable() and shown.startswith("x\\"), repr(c)
    assert escape_strings({"a\n": ["b\x07", 1, None]}) == {"a\\n": ["b\\x07", 1, None]}
