"""The OpenML "tabular benchmark" datasets of paper 002 (Table IV) and MNIST 0 vs 1.

Fifteen of the 23 OpenML files and ``mnist01.npz`` ship with the package (≈ 7 MB, under
``dpmodels/data/_bundled/openml``; provenance, checksums and per-file quirks in the
``PROVENANCE.md`` beside them). The other eight (albert, Bioresponse, jannis, MiniBooNE,
road-safety, covertype ×2, Higgs) are too large to bundle; :func:`load_openml` reads them from a
local folder (``data_dir=`` or the ``DPMODELS_DATA_DIR`` environment variable) or, only when asked
with ``download=True``, from OpenML through :func:`sklearn.datasets.fetch_openml`. Without either
it raises :class:`DatasetUnavailable` (a ``FileNotFoundError``) with a one-line reason, so an
experiment can skip the dataset and say why. Nothing is downloaded by default.

Conventions (as paper 002's code, ``np.unique(y, return_inverse=True)``): the label is the last
column and the label value that sorts first becomes 0. ``X`` is a :class:`pandas.DataFrame`;
numerical columns are float64; the categorical columns of the ``"cat"`` versions are pandas
``category`` columns whose categories are **declared from the documented schema** (the one-hot
columns of compas-two-years and eye_movements are {0, 1}, credit-card ``x2`` (sex) is {0, 1},
electricity ``day`` is the weekday code 0–6), never read from the rows. For a file whose
categorical semantics are not documented here (the unbundled albert, road-safety, covertype
"cat"), the categories come from the data: the columns are listed in
``X.attrs["categories_from_data"]`` and a learner given them must treat that as a leak.

Numerical bounds are *not* part of the benchmark; see ``dpmodels.experiments.paper_002`` for the
policy the experiments follow.
"""

from __future__ import annotations

import functools
import gzip
import hashlib
import io
import os
import warnings
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import numpy as np
import pandas as pd

__all__ = [
    "OPENML_DATASETS",
    "availability",
    "DatasetUnavailable",
    "OpenMLDataset",
    "list_openml",
    "load_openml",
    "load_mnist01",
    "openml_info",
]

_PACKAGE = "dpmodels.data"
_DIR = ("_bundled", "openml")
DATA_DIR_ENV = "DPMODELS_DATA_DIR"


class DatasetUnavailable(FileNotFoundError):
    """A dataset that is neither bundled, nor in the data folder, nor allowed to be downloaded."""


@dataclass(frozen=True)
class OpenMLDataset:
    """One row of paper 002's Table IV (after the paper drops rows with NaN)."""

    name: str
    version: str  # "num" (suite 337) or "cat" (suite 334)
    openml_id: int
    rows: int
    features: int
    n_categorical: int
    bundled: bool
    sha256: str | None = None  # of the uncompressed CSV (bundled, or the real file behind an LFS pointer)
    categories: tuple = ()  # (column, (values...)) declared from the documented schema

    @property
    def key(self) -> tuple[str, str]:
        return (self.name, self.version)

    @property
    def relpath(self) -> str:
        return f"clf_{self.version}/{self.name}.csv.gz"


_BIN = (0, 1)
_COMPAS_CAT = tuple(
    (c, _BIN)
    for c in ("sex", "age_cat_25-45", "age_cat_Greaterthan45", "age_cat_Lessthan25",
              "race_African-American", "race_Caucasian", "c_charge_degree_F", "c_charge_degree_M")
)  # fmt: skip

# Table IV of paper 002; checksums from PROVENANCE.md (bundled files: uncompressed bytes; LFS files:
# the sha256 of the real CSV the Hugging Face pointer names). OpenML ids of the bundled files are from
# the benchmark's dataset card; those of the eight unbundled ones are the benchmark's suite ids and
# are not verified here (no network).
OPENML_DATASETS: dict[tuple[str, str], OpenMLDataset] = {
    d.key: d
    for d in [
        OpenMLDataset("Bioresponse", "num", 45019, 3_434, 419, 0, False),
        OpenMLDataset(
            "Diabetes130US",
            "num",
            45022,
            71_090,
            7,
            0,
            True,
            "9be384ad7edbb9a98b509adb9cc08578e63bd87545b05d97d5147aa15b71385a",
        ),
        OpenMLDataset(
            "Higgs",
            "num",
            44129,
            940_160,
            24,
            0,
            False,
            "fc6eeaa6806da38dd272537c2d1d3646e1615c7e234f4eeea8920a4a7b719f24",
        ),
        OpenMLDataset(
            "MagicTelescope",
            "num",
            44125,
            13_376,
            10,
            0,
            True,
            "67d05a42c20136481420e4df91722e6057a71e992b2fa83e6099a693e3d3d26e",
        ),
        OpenMLDataset(
            "MiniBooNE",
            "num",
            44128,
            72_998,
            50,
            0,
            False,
            "3f080afdc4b5fc29e29156bef893546a430e7ee8e89298416a46ccc92577279e",
        ),
        OpenMLDataset(
            "bank-marketing",
            "num",
            44126,
            10_578,
            7,
            0,
            True,
            "3433fecd416ce949692442882669881746e8a6b24b904a5f808cdcb196443e7e",
        ),
        OpenMLDataset(
            "california",
            "num",
            45028,
            20_634,
            8,
            0,
            True,
            "0aeeed42d3a451767b44c8f8af6973eb9874a58c5bbe5a3732fb526f926a35be",
        ),
        OpenMLDataset(
            "covertype",
            "num",
            44121,
            566_602,
            10,
            0,
            False,
            "9d5a30a42f555ef8789f6511a2be15297335364336529bba28fb31d281f9068a",
        ),
        OpenMLDataset(
            "credit",
            "num",
            44089,
            16_714,
            10,
            0,
            True,
            "22a759296600c39a56884dafd84eb346be018c537ff096adc8c2ae7e0520f2a9",
        ),
        OpenMLDataset(
            "default-of-credit-card-clients",
            "num",
            45020,
            13_272,
            20,
            0,
            True,
            "186ec333a9d81da4f62d66ff5ea17e1fa8dcf14b0e95be94fe95c04af3502c5f",
        ),
        OpenMLDataset(
            "electricity",
            "num",
            44120,
            38_474,
            7,
            0,
            True,
            "d6005007c4b1f7ba88cf91cb1f231969cce3e49c98d445338c0ab0342ead5d7e",
        ),
        OpenMLDataset(
            "eye_movements",
            "num",
            44130,
            7_608,
            20,
            0,
            True,
            "46b2b7749acc21a3838b55e21df1838916b2da128fe80d05b7cbff987f3f8135",
        ),
        OpenMLDataset(
            "heloc",
            "num",
            45026,
            10_000,
            22,
            0,
            True,
            "656c893ddc6447de22786db47ce79530ac607c772b326f396bb11768ef25cd91",
        ),
        OpenMLDataset(
            "house_16H",
            "num",
            44123,
            13_488,
            16,
            0,
            True,
            "5e266b8534c894c805a40c413da05e02ac989a7b6d6a6b8bbeb6ca6c48e1d09c",
        ),
        OpenMLDataset(
            "jannis",
            "num",
            45021,
            57_580,
            54,
            0,
            False,
            "2ec0a6d60f4fc6025eb8b1ad678f196d8c662982486f8a7dd91ee6a129e28b80",
        ),
        OpenMLDataset(
            "pol", "num", 44122, 10_082, 26, 0, True, "29b47a780c3b4b746dbd2f93648cfc2b20a97649fe82b2fe9ffae64e08de75b1"
        ),
        OpenMLDataset("albert", "cat", 45035, 58_252, 31, 10, False),
        OpenMLDataset(
            "compas-two-years",
            "cat",
            45039,
            4_966,
            11,
            8,
            True,
            "7e0bcef09ae633ad81e26b0a8f8f96dbc4ac3c29b9da0760d38ef2a75adde8d8",
            _COMPAS_CAT,
        ),
        OpenMLDataset(
            "covertype",
            "cat",
            44159,
            423_680,
            54,
            44,
            False,
            "716928e78f3af7947d20867ab7159f8f19e9a65d10bb681b676e6f2719fb9ece",
        ),
        OpenMLDataset(
            "default-of-credit-card-clients",
            "cat",
            45036,
            13_272,
            21,
            1,
            True,
            "aaf9145c5b555e7f6e69624ee10d12af9b2efc9843cec827c23d3a54bf1cd390",
            (("x2", _BIN),),
        ),
        OpenMLDataset(
            "electricity",
            "cat",
            44156,
            38_474,
            8,
            1,
            True,
            "4e01fc2d1d28064ea5334e31f522c62201a77c1f0b75c346fe8a31944bee6588",
            (("day", tuple(range(7))),),
        ),
        OpenMLDataset(
            "eye_movements",
            "cat",
            44157,
            7_608,
            23,
            3,
            True,
            "030ea93e3d3d0d2620541ed2cf9f1e5fb0e0272b6914ece1228e4fa9596ba14d",
            tuple((c, _BIN) for c in ("P1stFixation", "P2stFixation", "nextWordRegress")),
        ),
        OpenMLDataset(
            "road-safety",
            "cat",
            45038,
            111_762,
            32,
            3,
            False,
            "c10d2cc6d04f8586a57a68ec5093c9420776ce08536a7fbe63c36fea15e586be",
        ),
    ]
}

MNIST01_SHA256 = "f99b47ee5271e72b5a85f371ecbb08a7fc488d4d09118cf5b6dc37047506f525"


def list_openml(version: str | None = None, bundled: bool | None = None) -> list[tuple[str, str]]:
    """``(name, version)`` of Table IV's OpenML datasets, in the paper's order."""
    return [
        k
        for k, d in OPENML_DATASETS.items()
        if (version is None or d.version == version) and (bundled is None or d.bundled == bundled)
    ]


def openml_info(name: str, version: str = "num") -> OpenMLDataset:
    """The Table IV record of a dataset (ValueError for an unknown name/version)."""
    if version not in ("num", "cat"):
        raise ValueError(f"version must be 'num' or 'cat', got {version!r}")
    try:
        return OPENML_DATASETS[(name, version)]
    except KeyError:
        names = sorted({f"{n} ({v})" for n, v in OPENML_DATASETS})
        raise ValueError(f"unknown OpenML dataset {name!r} (version {version!r}); known: {', '.join(names)}") from None


def _bundle():
    ref = resources.files(_PACKAGE)
    for part in _DIR:
        ref = ref.joinpath(part)
    return ref


def _read_bundled(info: OpenMLDataset) -> bytes:
    with _bundle().joinpath(f"clf_{info.version}").joinpath(f"{info.name}.csv.gz").open("rb") as fh:
        return gzip.decompress(fh.read())


def _local_candidates(root: Path, info: OpenMLDataset):
    for sub in (f"clf_{info.version}", ""):
        for stem in (info.name, f"{info.name}-{info.version}", f"{info.name}_{info.version}"):
            for ext in (".csv.gz", ".csv"):
                yield (root / sub / f"{stem}{ext}") if sub else (root / f"{stem}{ext}")


def _read_local(root: Path, info: OpenMLDataset) -> bytes | None:
    for path in _local_candidates(root, info):
        if path.is_file():
            raw = path.read_bytes()
            if path.suffix == ".gz":
                raw = gzip.decompress(raw)
            if info.sha256 and hashlib.sha256(raw).hexdigest() != info.sha256:
                warnings.warn(
                    f"{path}: sha256 differs from the benchmark file recorded in PROVENANCE.md; "
                    "results may not be comparable with the paper",
                    UserWarning,
                    stacklevel=4,
                )
            return raw
    return None


def _frame_from_csv(raw: bytes, info: OpenMLDataset, source: str):
    df = pd.read_csv(io.BytesIO(raw))
    if df.shape[1] != info.features + 1:
        raise ValueError(
            f"{source}: expected {info.features} features + the label column (Table IV), got {df.shape[1]} columns"
        )
    label = df.columns[-1]
    return df.drop(columns=label), df[label], source


def _frame_from_openml(info: OpenMLDataset, data_home):
    from sklearn.datasets import fetch_openml

    bunch = fetch_openml(data_id=info.openml_id, as_frame=True, data_home=data_home, parser="auto")
    X, y = bunch.data, bunch.target
    if X.shape[1] != info.features:
        raise ValueError(f"OpenML {info.openml_id}: expected {info.features} features, got {X.shape[1]}")
    keep = X.notna().all(axis=1).to_numpy() & y.notna().to_numpy()  # the paper drops NaN rows
    return X.loc[keep].reset_index(drop=True), y.loc[keep].reset_index(drop=True), f"OpenML {info.openml_id}"


@functools.lru_cache(maxsize=8)
def _load_cached(name, version, data_dir, download, data_home):
    info = openml_info(name, version)
    if info.bundled:
        X, y, source = _frame_from_csv(_read_bundled(info), info, f"bundled {info.relpath}")
    else:
        raw = _read_local(Path(data_dir), info) if data_dir else None
        if raw is not None:
            X, y, source = _frame_from_csv(raw, info, f"{data_dir}/{info.name}")
        elif download:
            X, y, source = _frame_from_openml(info, data_home)
        else:
            where = f"no {info.relpath} under {data_dir}" if data_dir else "no data folder given"
            raise DatasetUnavailable(
                f"{name} ({version}) is not bundled ({where}); pass --data-dir / data_dir= with "
                f"the benchmark CSV, or allow download (OpenML id {info.openml_id})"
            )
    return _finish(X, y, info, source)


def _finish(X: pd.DataFrame, y: pd.Series, info: OpenMLDataset, source: str):
    X = X.copy()
    declared = dict(info.categories)
    from_data = []
    for c in X.columns:
        if c in declared:
            X[c] = pd.Categorical(X[c].astype(np.int64), categories=list(declared[c]))
        elif isinstance(X[c].dtype, pd.CategoricalDtype) or not pd.api.types.is_numeric_dtype(X[c]):
            # not bundled and undocumented here: the categories come from the rows
            vals = sorted(pd.unique(X[c].dropna()).tolist(), key=str)
            X[c] = pd.Categorical(X[c], categories=vals)
            from_data.append(str(c))
        else:
            X[c] = X[c].astype(np.float64)
    classes, codes = np.unique(np.asarray(y).astype(str) if y.dtype == object else np.asarray(y), return_inverse=True)
    if classes.size != 2:
        raise ValueError(f"{info.name}: expected a binary label, found {classes.size} values")
    y = pd.Series(codes.astype(np.int64), name=str(y.name) if y.name is not None else "label")
    y.attrs["classes"] = [str(c) for c in classes]
    X.attrs.update(
        dataset=info.name,
        version=info.version,
        openml_id=info.openml_id,
        source=source,
        categorical=[str(c) for c in X.columns if isinstance(X[c].dtype, pd.CategoricalDtype)],
        categories_from_data=from_data,
    )
    return X, y


def load_openml(name: str, version: str = "num", *, data_dir=None, download: bool = False, data_home=None):
    """``(X, y)`` of one of paper 002's OpenML benchmark datasets (Table IV).

    Parameters
    ----------
    name, version : a dataset of :data:`OPENML_DATASETS`; ``version`` "num" (numerical-only,
        suite 337) or "cat" (numerical and categorical, suite 334).
    data_dir : folder holding unbundled files as ``clf_{version}/{name}.csv[.gz]`` (the Hugging
        Face layout) or ``{name}.csv[.gz]``; default: ``$DPMODELS_DATA_DIR``. Checked against the
        recorded sha256 where known (a warning on mismatch).
    download : fetch an unbundled dataset from OpenML (``sklearn.datasets.fetch_openml``) when it is
        not in ``data_dir``. Never the default.

    Raises :class:`DatasetUnavailable` when an unbundled dataset is neither local nor downloadable.
    Returns fresh copies (the parsed frames are cached).
    """
    if data_dir is None:
        data_dir = os.environ.get(DATA_DIR_ENV) or None
    X, y = _load_cached(
        name,
        version,
        None if data_dir is None else str(data_dir),
        bool(download),
        None if data_home is None else str(data_home),
    )
    X2, y2 = X.copy(), y.copy()
    X2.attrs, y2.attrs = dict(X.attrs), dict(y.attrs)
    return X2, y2


@functools.lru_cache(maxsize=1)
def _mnist_arrays():
    with _bundle().joinpath("mnist01.npz").open("rb") as fh:
        raw = fh.read()
    with np.load(io.BytesIO(raw)) as z:
        return {k: z[k] for k in ("x_train", "y_train", "x_test", "y_test")}


def load_mnist01(split: str = "all"):
    """MNIST digits 0 and 1: ``X`` (n, 784) float64 grey levels 0–255 and ``y`` in {0, 1}.

    ``split="all"`` concatenates the canonical train (12,665) and test (2,115) images, the 14,780
    rows paper 002 takes from OpenML 554 before its own stratified splits; ``"train"`` / ``"test"``
    give the canonical halves.
    """
    a = _mnist_arrays()
    if split == "train":
        xs, ys = [a["x_train"]], [a["y_train"]]
    elif split == "test":
        xs, ys = [a["x_test"]], [a["y_test"]]
    elif split == "all":
        xs, ys = [a["x_train"], a["x_test"]], [a["y_train"], a["y_test"]]
    else:
        raise ValueError(f"split must be 'all', 'train' or 'test', got {split!r}")
    X = np.concatenate([x.reshape(len(x), -1) for x in xs]).astype(np.float64)
    y = np.concatenate(ys).astype(np.int64)
    return X, y


def availability(name: str, version: str = "num", *, data_dir=None, download: bool = False) -> tuple[bool, str]:
    """``(True, where)`` if :func:`load_openml` can load the dataset here, else ``(False, why)``.

    Checks only the file system (bundled copy, ``data_dir`` / ``$DPMODELS_DATA_DIR``); with
    ``download=True`` an unbundled dataset counts as available (the fetch itself may still fail).
    """
    info = openml_info(name, version)
    if info.bundled:
        return True, "bundled"
    if data_dir is None:
        data_dir = os.environ.get(DATA_DIR_ENV) or None
    if data_dir is not None:
        for path in _local_candidates(Path(data_dir), info):
            if path.is_file():
                return True, str(path)
    if download:
        return True, f"OpenML {info.openml_id} (download)"
    where = f"not in {data_dir}" if data_dir else "no --data-dir"
    return False, f"not bundled ({info.rows:,} rows), {where}, download not allowed"
