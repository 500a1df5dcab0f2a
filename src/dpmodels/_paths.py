"""Checks of file paths given by users, made before any work (no heavy imports here)."""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["check_output_path"]


def check_output_path(path) -> Path:
    """Raise ``ValueError`` unless ``path`` can be written as a file (checked before any fit):
    not a directory, its directory exists and is writable, an existing file is writable."""
    p = Path(path)
    if str(path) == "" or p.name == "":
        raise ValueError(f"output path {str(path)!r} is not a file name")
    if p.is_dir():
        raise ValueError(f"output path {str(p)!r} is a directory; give a file name")
    parent = p.parent if str(p.parent) else Path(".")
    if not parent.exists():
        raise ValueError(f"cannot write {str(p)!r}: directory {str(parent)!r} does not exist")
    if not parent.is_dir():
        raise ValueError(f"cannot write {str(p)!r}: {str(parent)!r} is not a directory")
    if p.exists() and not os.access(p, os.W_OK):
        raise ValueError(f"cannot write {str(p)!r}: the file exists and is not writable")
    if not p.exists() and not os.access(parent, os.W_OK | os.X_OK):
        raise ValueError(f"cannot write {str(p)!r}: directory {str(parent)!r} is not writable")
    return p
