"""The authors' public PrivaTree code as a measuring instrument (paper 002).

Paper 002's printed numbers were produced by its authors' public implementation, not by the
text. Where our rebuild of "PrivaTree as published" and the paper disagree, the question is
whether the authors' own code reproduces the paper. This module loads that code from a checkout
the user provides and fits it; nothing of it is copied into dpmodels.

The checkout is a directory holding the authors' ``privatree/`` package (the repository
``tudelft-cda-lab/PrivaTree`` at some commit). Its path comes from the ``path=`` argument or the
``DPMODELS_AUTHORS_PRIVATREE`` environment variable. The authors' package imports diffprivlib,
so it runs only where diffprivlib imports (the side environment of ``make diffprivlib-env``).

Nothing here is a private release: the authors' code reads bounds and categories from the data
when they are not given and is fitted only for comparison with the paper's numbers.
"""

from __future__ import annotations

import hashlib
import importlib
import os
import sys
from pathlib import Path
from types import ModuleType

from ..._optional import available, missing

AUTHORS_PRIVATREE_ENV = "DPMODELS_AUTHORS_PRIVATREE"

_LOADED: dict[Path, ModuleType] = {}


class AuthorsCodeUnavailable(RuntimeError):
    """The authors' checkout is not given, not found, or cannot be imported here."""


def authors_checkout(path: str | os.PathLike[str] | None = None) -> Path:
    """The checkout directory: ``path`` or ``$DPMODELS_AUTHORS_PRIVATREE``, validated."""
    raw = path if path is not None else os.environ.get(AUTHORS_PRIVATREE_ENV)
    if not raw:
        raise AuthorsCodeUnavailable(
            f"the authors' PrivaTree checkout is not given: pass path= or set {AUTHORS_PRIVATREE_ENV}"
        )
    root = Path(raw).expanduser().resolve()
    if not (root / "privatree" / "privatree.py").is_file():
        raise AuthorsCodeUnavailable(
            f"{root} is not a checkout of the authors' PrivaTree (no privatree/privatree.py in it)"
        )
    return root


# checkout_digest of the public commits of tudelft-cda-lab/PrivaTree (measured on extracted checkouts)
KNOWN_DIGESTS = {
    "05dbddc8d039": "563786e (2023-05, initial)",
    "fda729d28d6a": "2aff7a0 (2023-10, 'More experiments'; 1acf25c has the same code)",
    "048eea0e62bb": "f2922ff (2023-12, 'Fix privacy leaks'; c3d33ae has the same code)",
}


def checkout_digest(path: str | os.PathLike[str] | None = None) -> str:
    """A digest of the checkout's code (the ``privatree/*.py`` files, by name and content): names
    the authors' commit in cell keys without depending on where the checkout lies."""
    root = authors_checkout(path)
    h = hashlib.sha1()
    for f in sorted((root / "privatree").glob("*.py")):
        h.update(f.name.encode() + b"\0" + f.read_bytes() + b"\0")
    return h.hexdigest()[:12]


def load_authors_privatree(path: str | os.PathLike[str] | None = None) -> ModuleType:
    """Import the authors' ``privatree.privatree`` module from the checkout.

    The checkout's root goes to the front of ``sys.path`` only while importing; one checkout per
    process (the package name ``privatree`` is global to the interpreter).
    """
    root = authors_checkout(path)
    if root in _LOADED:
        return _LOADED[root]
    if _LOADED:
        other = next(iter(_LOADED))
        raise AuthorsCodeUnavailable(f"another checkout of the authors' code is loaded in this process ({other})")
    if not available("diffprivlib"):
        raise AuthorsCodeUnavailable(f"the authors' PrivaTree imports diffprivlib: {missing('diffprivlib')}")
    sys.path.insert(0, str(root))
    try:
        module = importlib.import_module("privatree.privatree")
    except Exception as exc:
        raise AuthorsCodeUnavailable(f"importing the authors' code from {root} failed: {exc}") from exc
    finally:
        sys.path.remove(str(root))
    if not str(getattr(module, "__file__", "")).startswith(str(root)):
        raise AuthorsCodeUnavailable(f"'privatree' resolved to {module.__file__}, not to the checkout {root}")
    _LOADED[root] = module
    return module


def authors_privatree_classifier(path: str | os.PathLike[str] | None = None, **params):
    """An unfitted ``PrivaTreeClassifier`` of the authors' code with ``params`` (their names)."""
    return load_authors_privatree(path).PrivaTreeClassifier(**params)
