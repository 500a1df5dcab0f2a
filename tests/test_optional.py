"""The optional-extra probes (dpmodels._optional): one line with the install command when absent."""

import importlib.util
import tomllib
from pathlib import Path

import pytest

from dpmodels import _optional
from dpmodels._optional import EXTRAS, Extra, available, missing, require

PYPROJECT = Path(__file__).resolve().parents[1] / "pyproject.toml"


def test_an_absent_extra_is_one_line_with_its_install_command(monkeypatch):
    monkeypatch.setitem(EXTRAS, "nowhere", Extra("nowhere-pkg", "dpmodels_no_such_module", "pip install nowhere-pkg"))
    assert not available("nowhere")
    why = missing("nowhere")
    assert why == "nowhere-pkg is not installed: pip install nowhere-pkg"
    with pytest.raises(ImportError, match=r"^drawing needs nowhere-pkg: pip install nowhere-pkg \(or do X\)$"):
        require("nowhere", "drawing", "or do X")


def test_an_installed_extra_that_fails_to_import_is_not_available(monkeypatch):
    """diffprivlib with a scikit-learn it was not built for raises a TypeError on import."""

    def broken(name):
        raise TypeError("built against another scikit-learn")

    monkeypatch.setitem(EXTRAS, "broken", Extra("broken-pkg", "broken_mod", "pip install broken-pkg", (TypeError,)))
    monkeypatch.setattr(_optional.importlib, "import_module", broken)
    assert missing("broken") == "broken-pkg does not import (TypeError): pip install broken-pkg"


def test_a_present_extra_returns_its_module():
    present = importlib.util.find_spec("matplotlib") is not None
    assert available("matplotlib") == present
    if present:
        assert require("matplotlib", "x").__name__ == "matplotlib"


def test_an_unknown_extra_is_refused():
    with pytest.raises(ValueError, match="unknown optional extra 'numpyy'"):
        missing("numpyy")


def test_every_pip_hint_names_an_extra_of_pyproject():
    declared = tomllib.loads(PYPROJECT.read_text())["project"]["optional-dependencies"]
    for name, e in EXTRAS.items():
        if "pip install" not in e.install:
            continue
        extra = e.install.split("dpmodels[", 1)[1].split("]", 1)[0]
        assert extra in declared, (name, extra)
