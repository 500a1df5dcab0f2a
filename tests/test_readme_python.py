"""The README's Python blocks that stand alone, run as written (each in a fresh namespace, in a
temporary directory). The others continue an earlier block or name the reader's own files; the
list below says which, so a new block is either run here or named as not standalone."""

import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"


def python_blocks() -> list[str]:
    return re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.S)


def _first_line(block: str) -> str:
    return block.strip().splitlines()[0]


# blocks that need an earlier block's names or the reader's data (first lines)
NOT_STANDALONE = {
    "from dpmodels.data import dataset_schema",  # continues the first block (load_dataset)
    "from dpmodels.export import save_model_figure",  # draws the tree of the block before
    "from dpmodels.data import Binarizer",  # the schema of the Adult block, or a Parquet source
    "from dpmodels.audit import membership_inference",  # X_aux: the attacker's own data
    "from dpmodels.model_selection import PrivateSearch",  # the Adult block's X, y, schema
    "from dpmodels.data import dataset_schema, load_dataset",  # the Adult block's X, y, schema
    "from dpmodels.data import ParquetSource",  # the reader's Parquet files
}
STANDALONE = ["from sklearn.model_selection import train_test_split", "from dpmodels.data import load_dataset"]


def test_every_block_is_classified():
    firsts = [_first_line(b) for b in python_blocks()]
    assert set(firsts) <= NOT_STANDALONE | set(STANDALONE), set(firsts) - NOT_STANDALONE - set(STANDALONE)
    assert all(f in firsts for f in STANDALONE)


@pytest.mark.parametrize("first", STANDALONE)
def test_standalone_block_runs_as_written(first, tmp_path, monkeypatch, capsys):
    (block,) = [b for b in python_blocks() if _first_line(b) == first]
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("DPMODELS_PROGRESS", "0")
    ns: dict = {}
    exec(compile(block, f"README block {first!r}", "exec"), ns)
    clf = ns["clf"]
    X = ns.get("Xte", ns.get("X"))
    proba = clf.predict_proba(X)
    assert (clf.classes_[proba.argmax(axis=1)] == clf.predict(X)).all()
    if "certificate_" in block:
        assert clf.certificate_.optimal and clf.certificate_.gap == 0.0 and clf.certificate_.n_rules == 10
