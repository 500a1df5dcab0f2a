"""The seeds of the experiments' fits: functions of what a fit is, never of where it runs.

A cell's fits draw their noise from seeds derived from the cell's names and numbers (dataset,
learner, ε, repeat, fold, …), so a result does not depend on the rest of the grid, on the order
cells run in, or on the worker that runs them. One derivation, :func:`derive_seed`: the CRC-32 of
the parts' text joined by ``|``. Two widths are in use and both are kept, so that every committed
result is reproduced bit for bit:

* 31 bits (the default) — an ``int`` seed that every library accepts (papers 002 and 003,
  the library comparisons);
* 32 bits, one name at a time — the entries of paper 000's entropy lists
  ``[2024, run, crc(name), …]`` for :func:`numpy.random.default_rng` (:func:`fit_entropy`).

Research seeds only: a seeded fit is reproducible, hence not private (dpmodels.privacy.verdict).
"""

from __future__ import annotations

import zlib

__all__ = ["derive_seed", "epsilon_key", "fit_entropy"]


def derive_seed(*parts, bits: int = 31) -> int:
    """The CRC-32 of ``"|".join(str(p) for p in parts)`` (UTF-8), kept to its low ``bits`` bits
    (31: a non-negative int32; 32: the whole checksum)."""
    if not 1 <= int(bits) <= 32:
        raise ValueError(f"bits must be in 1..32, got {bits!r}")
    return zlib.crc32("|".join(map(str, parts)).encode()) & ((1 << int(bits)) - 1)


def epsilon_key(epsilon) -> str:
    """ε as the text seeds are derived from (12 significant digits: 1, 1.0 and 1.000 agree)."""
    return f"{float(epsilon):.12g}"


def fit_entropy(run, *names) -> list[int]:
    """Paper 000's entropy list of one fit, ``[2024, run, crc(name) for each name]`` (whole
    32-bit checksums, one per name), for :func:`numpy.random.default_rng`."""
    return [2024, int(run), *(derive_seed(x, bits=32) for x in names)]
