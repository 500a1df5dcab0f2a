"""The optional extras, probed in one place.

dpmodels needs numpy, pandas, scikit-learn, SciPy, PyYAML and tqdm; everything else is an extra
that a feature imports when it is used (pyproject's ``[project.optional-dependencies]``). Each one
is named once here, with the module whose import probes it and the one line that installs it:

* :func:`missing` — ``None`` when the extra imports here, else one line: what is absent and how to
  install it (the test suite skips with this line);
* :func:`available` — the same as a bool;
* :func:`require` — the imported module, or an ``ImportError`` naming the feature and the line.

A probe imports the module, with warnings silenced (ART warns that PyTorch is absent): a package
that is installed but fails to import (diffprivlib with a scikit-learn it was not built for) is not
available. Nothing is cached: once imported, a probe is a lookup in ``sys.modules``. The headless browser that renders the HTML pages in the slow
tests is a program, not a module: :func:`browser`.
"""

from __future__ import annotations

import importlib
import os
import shutil
import warnings
from dataclasses import dataclass
from types import ModuleType

__all__ = ["EXTRAS", "Extra", "available", "browser", "missing", "require"]


@dataclass(frozen=True)
class Extra:
    """An optional dependency: its package name, the module imported to probe it, the one line
    that installs it, and the exceptions that mean "installed but not usable here"."""

    package: str
    module: str
    install: str
    broken: tuple[type[Exception], ...] = (ImportError,)


EXTRAS: dict[str, Extra] = {
    "matplotlib": Extra("matplotlib", "matplotlib", "pip install 'dpmodels[plots]'"),
    "pyarrow": Extra("pyarrow", "pyarrow.parquet", "pip install 'dpmodels[parquet]'"),
    "dask": Extra("dask", "dask.dataframe", "pip install 'dpmodels[distributed]'"),
    "distributed": Extra("distributed", "distributed", "pip install 'dpmodels[distributed]'"),
    # diffprivlib 0.6.6 fails to import with scikit-learn >= 1.9 (a TypeError in its tree module)
    "diffprivlib": Extra(
        "diffprivlib",
        "diffprivlib.models",
        "pip install 'dpmodels[diffprivlib]' in a separate environment (it pins scikit-learn < 1.8; "
        "make diffprivlib-env)",
        (ImportError, TypeError),
    ),
    "pydl85": Extra("PyDL8.5", "pydl85", "pip install 'dpmodels[optimal]'"),
    # ART 1.20 imports `packaging` without declaring it: the extra installs both
    "art": Extra(
        "ART (adversarial-robustness-toolbox)",
        "art.attacks.inference.membership_inference",
        "pip install 'dpmodels[attacks]'",
    ),
    "interpret": Extra("interpret-core (DP-EBM)", "interpret.privacy", "pip install 'dpmodels[peers]'"),
    "corels": Extra("corels", "corels", "make corels (GPL-3, built for cross-checks, never bundled)"),
}


def _extra(name: str) -> Extra:
    try:
        return EXTRAS[name]
    except KeyError:
        raise ValueError(f"unknown optional extra {name!r} (known: {', '.join(EXTRAS)})") from None


def _probe(name: str) -> tuple[ModuleType | None, str | None]:
    e = _extra(name)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return importlib.import_module(e.module), None
    except e.broken as exc:
        why = "is not installed" if isinstance(exc, ModuleNotFoundError) else f"does not import ({type(exc).__name__})"
        return None, f"{e.package} {why}: {e.install}"


def missing(name: str) -> str | None:
    """``None`` when the extra ``name`` (a key of :data:`EXTRAS`) imports, else one line saying
    it is absent (or broken) and how to install it."""
    return _probe(name)[1]


def available(name: str) -> bool:
    """Whether the extra ``name`` imports here."""
    return _probe(name)[1] is None


def require(name: str, what: str, alternative: str = "") -> ModuleType:
    """The probing module of the extra ``name``, or an ``ImportError`` saying that ``what`` (the
    feature, e.g. ``"drawing a model"``) needs it and how to install it (then ``alternative``, a
    way to do without, in parentheses)."""
    module = _probe(name)[0]
    if module is None:
        e = _extra(name)
        raise ImportError(f"{what} needs {e.package}: {e.install}" + (f" ({alternative})" if alternative else ""))
    return module


BROWSER_INSTALL = "make browser (installs Debian's chromium)"


def browser() -> str | None:
    """The headless Chromium that renders the HTML pages (slow tests, figures of the docs), or
    ``None``; install it with :data:`BROWSER_INSTALL`."""
    for path in ("/usr/bin/chromium", shutil.which("chromium"), shutil.which("chromium-browser")):
        if path and os.access(path, os.X_OK):
            return path
    return None
