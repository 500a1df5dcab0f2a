"""When the in-memory learners run their compiled kernels (numba) instead of their numpy code.

Both give the same models, bit for bit (the kernels do the numpy code's arithmetic in its order,
and every random draw and transcendental function stays in numpy); the choice is one of speed
only. The kernels save about 5 ms of CPU per PrivaTree fit at n = 10³ (docs/benchmarks.md), but
the first fit of a process that runs them pays numba's import and start-up once, about 0.35 s of
CPU (the kernels themselves are compiled once per machine and cached on disk). By default
(``auto``) a process runs its first :data:`SWITCH_AFTER` fits on numpy and the later ones on the
kernels — the rule of renting skis until the rent paid equals the price: ~64 fits' savings pay for
the start-up, so whatever the number of fits, a process spends at most about twice what the better
of the two choices would have cost it, and a process with a few fits (a CLI command, a script, a
cross-validation) never pays the start-up.

``DPMODELS_KERNELS=numba`` runs the kernels from the first fit (long loops of fits: searches,
experiments, benchmarks of the steady state), ``DPMODELS_KERNELS=numpy`` never. A "fit" is one
:func:`one_fit` scope (a PrivaTree fit), or one call of a compiled-capable routine outside any.
"""

from __future__ import annotations

import contextlib
import contextvars
import os
from collections.abc import Iterator

__all__ = ["ENV", "SWITCH_AFTER", "use_compiled", "one_fit"]

ENV = "DPMODELS_KERNELS"
_MODES = ("auto", "numba", "numpy")
SWITCH_AFTER = 64  # numpy fits before auto switches: ~0.35 s start-up / ~5 ms saved per fit
_fits = 0  # fits (or calls outside a fit) decided so far in this process
_current: contextvars.ContextVar[bool | None] = contextvars.ContextVar("dpmodels_compiled", default=None)


def _decide() -> bool:
    global _fits
    mode = os.environ.get(ENV, "auto").strip().lower() or "auto"
    if mode not in _MODES:
        raise ValueError(f"{ENV} must be one of {', '.join(_MODES)}, got {mode!r}")
    done = _fits
    _fits += 1
    if mode != "auto":
        return mode == "numba"
    return done >= SWITCH_AFTER


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
