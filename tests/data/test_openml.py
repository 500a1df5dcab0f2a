"""The bundled OpenML benchmark files and MNIST 0/1: checksums, Table IV shapes, the loaders."""

import gzip
import hashlib
from importlib import resources

import numpy as np
import pandas as pd
import pytest

from dpmodels.data import DatasetUnavailable, list_openml, load_mnist01, load_openml
from dpmodels.data.openml import MNIST01_SHA256, OPENML_DATASETS, availability, openml_info

BUNDLE = resources.files("dpmodels.data").joinpath("_bundled").joinpath("openml")
PROVENANCE = BUNDLE.joinpath("PROVENANCE.md").read_text(encoding="utf-8")
BUNDLED = list_openml(bundled=True)


def test_fifteen_files_bundled_eight_not():
    assert len(BUNDLED) == 15 and len(list_openml(bundled=False)) == 8
    assert len(OPENML_DATASETS) == 23


@pytest.mark.parametrize("name, version", BUNDLED)
def test_bundled_sha256_matches_provenance(name, version):
    info = openml_info(name, version)
    raw = gzip.decompress(BUNDLE.joinpath(f"clf_{version}").joinpath(f"{name}.csv.gz").read_bytes())
    digest = hashlib.sha256(raw).hexdigest()
    assert digest == info.sha256
    assert digest in PROVENANCE  # the checksum recorded next to the file


def test_mnist_sha256_matches_provenance():
    digest = hashlib.sha256(BUNDLE.joinpath("mnist01.npz").read_bytes()).hexdigest()
    assert digest == MNIST01_SHA256 and digest in PROVENANCE


@pytest.mark.parametrize("name, version", BUNDLED)
def test_shapes_balance_and_categories_match_table_iv(name, version):
    info = openml_info(name, version)
    X, y = load_openml(name, version)
    assert X.shape == (info.rows, info.features)
    assert y.mean() == 0.5 and set(y.unique()) == {0, 1}  # every benchmark file is balanced
    cats = [c for c in X.columns if isinstance(X[c].dtype, pd.CategoricalDtype)]
    assert len(cats) == info.n_categorical
    for c, vals in info.categories:  # declared from the documented schema, every value inside it
        assert list(X[c].cat.categories) == list(vals) and X[c].notna().all()
    assert X.attrs["categories_from_data"] == []


def test_label_mapping_follows_np_unique():
    X, y = load_openml("electricity", "num")
    assert y.attrs["classes"] == ["DOWN", "UP"]
    X, y = load_openml("bank-marketing", "num")
    assert y.attrs["classes"] == ["1", "2"]


def test_unbundled_without_data_raises_clearly(monkeypatch):
    monkeypatch.delenv("DPMODELS_DATA_DIR", raising=False)
    with pytest.raises(DatasetUnavailable, match="not bundled"):
        load_openml("Higgs", "num")
    ok, why = availability("Higgs", "num")
    assert not ok and "not bundled" in why
    with pytest.raises(ValueError, match="unknown OpenML dataset"):
        load_openml("nope")
    with pytest.raises(ValueError, match="version"):
        load_openml("pol", "both")


def _write_fake(path, n_features, n_rows=40, categorical=None, gz=False):
    rng = np.random.default_rng(0)
    df = pd.DataFrame(rng.normal(size=(n_rows, n_features)), columns=[f"V{i}" for i in range(n_features)])
    for c in categorical or []:
        df[c] = rng.choice(["a", "b", "c"], n_rows)
    df["target"] = rng.choice(["s", "b"], n_rows)
    path.parent.mkdir(parents=True, exist_ok=True)
    data = df.to_csv(index=False).encode()
    path.write_bytes(gzip.compress(data) if gz else data)
    return df


def test_unbundled_from_a_data_folder(tmp_path):
    df = _write_fake(tmp_path / "clf_num" / "Higgs.csv", 24)
    with pytest.warns(UserWarning, match="sha256"):  # not the benchmark file: flagged, still loaded
        X, y = load_openml("Higgs", "num", data_dir=tmp_path)
    assert X.shape == (40, 24) and y.attrs["classes"] == ["b", "s"]
    assert (y == (df["target"] == "s").astype(int)).all()
    assert availability("Higgs", "num", data_dir=tmp_path)[0]


def test_unbundled_categorical_file_records_categories_from_data(tmp_path):
    _write_fake(tmp_path / "road-safety-cat.csv.gz", 29, categorical=["C1", "C2", "C3"], gz=True)
    with pytest.warns(UserWarning):
        X, y = load_openml("road-safety", "cat", data_dir=tmp_path)
    assert X.attrs["categories_from_data"] == ["C1", "C2", "C3"]
    assert list(X["C1"].cat.categories) == ["a", "b", "c"]


def test_wrong_width_is_an_error(tmp_path):
    _write_fake(tmp_path / "jannis.csv", 10)
    with pytest.raises(ValueError, match="expected 54 features"):
        load_openml("jannis", "num", data_dir=tmp_path)


def test_download_goes_through_fetch_openml(monkeypatch, tmp_path):
    import sklearn.datasets

    calls = {}

    class Bunch:
        data = pd.DataFrame(np.arange(20 * 419, dtype=float).reshape(20, 419))
        target = pd.Series(["0", "1"] * 10)

    def fake_fetch(**kw):
        calls.update(kw)
        return Bunch()

    monkeypatch.setattr(sklearn.datasets, "fetch_openml", fake_fetch)
    X, y = load_openml("Bioresponse", "num", download=True, data_home=tmp_path)
    assert calls["data_id"] == 45019 and X.shape == (20, 419) and y.sum() == 10


def test_mnist01():
    X, y = load_mnist01()
    assert X.shape == (14_780, 784) and X.max() == 255 and y.sum() == 6_742 + 1_135
    Xt, yt = load_mnist01("test")
    assert Xt.shape == (2_115, 784) and (yt == 0).sum() == 980
    with pytest.raises(ValueError):
        load_mnist01("val")
