"""Skipping on an absent optional extra, with the line that installs it (:mod:`dpmodels._optional`)."""

import importlib

import pytest

from dpmodels._optional import BROWSER_INSTALL, EXTRAS, browser, missing

__all__ = ["BROWSER_INSTALL", "browser", "need"]


def need(extra: str):
    """The probing module of the optional ``extra`` (a key of ``dpmodels._optional.EXTRAS``), or a
    skip of the calling test (of its whole module when called at import) saying what to install."""
    __tracebackhide__ = True  # the skip is reported at the caller's line
    why = missing(extra)
    if why is not None:
        pytest.skip(why, allow_module_level=True)
    return importlib.import_module(EXTRAS[extra].module)
