"""When the in-memory learners run their compiled kernels (numba) instead of their numpy code.

Both give the same models, bit for bit (the kernels do the numpy code's arithmetic in its order,
and every random draw and transcendental function stays in numpy); the choice is one of speed
only. The kernels save about 4 ms of a PrivaTree fit at n = 10³ (docs/benchmarks.md), but the
first one a process runs pays numba's import and start-up, about 0.35 s of CPU (the kernels
themselves are compiled once per machine and cached on disk). So, by default (``auto``):

* the first fit of a process runs on numpy — a one-shot fit (a CLI command, a script's single
  fit) costs what it did without numba;
* every later fit (a loop of fits: a search, an experiment, a notebook) runs the kernels, and so
  does every fit once numba is loaded anyway (a partitioned fit loads it).

``DPMODELS_KERNELS=numba`` runs them always, ``DPMODELS_KERNELS=numpy`` never. A "fit" here is one
:func:`one_fit` scope (a PrivaTree fit), or one call of a compiled-capable routine outside any.
"""

from __future__ import annotations

import contextlib
import contextvars
import os
import sys
from collections.abc import Iterator

__all__ = ["ENV", "use_compiled", "one_fit"]

ENV = "DPMODELS_KERNELS"
_MODES = ("auto", "numba", "numpy")
_fits = 0  # fits (or calls outside a fit) decided so far in this process
_current: contextvars.ContextVar[bool | None] = contextvars.ContextVar("dpmodels_compiled", default=None)


def _decide() -> bool:
    global _fits
    mode = os.environ.get(ENV, "auto").strip().lower() or "auto"
    if mode not in _MODES:
        raise ValueError(f"{ENV} must be one of {', '.join(_MODES)}, got {mode!r}")
    first = _fits == 0
    _fits += 1
    if mode != "auto":
        return mode == "numba"
    return "numba" in sys.modules or not first


def use_compiled() -> bool:
    """Whether the current fit runs the compiled kernels (module docstring)."""
    decided = _current.get()
    return _decide() if decided is None else decided


@contextlib.contextmanager
def one_fit() -> Iterator[bool]:
    """Decide once for a whole fit (every kernel of the fit takes the same path)."""
    token = _current.set(_decide())
    try:
        yield bool(_current.get())
    finally:
        _current.reset(token)
