"""Suite-wide fixtures.

An unseeded fit draws its noise from the operating system's entropy (``secrets.randbits``, in
:func:`dpmodels.privacy.samplers.check_random_state`), as a private release must. A default-suite
test that asserts on such a fit's outcome would then pass or fail by chance (one did, under load).
Here every default-suite test gets that "OS entropy" from a stream seeded by the test's own id:
the code under test runs its unseeded path unchanged (the fitted files still say PRIVATE, no seed
is recorded), successive draws in one test still differ, and a test's outcome is the same on every
run, alone or beside others (``-n 2``). The slow suite's statistical audits keep true entropy.
Subprocesses (CLI tests) are not covered: they fix their entropy themselves where they assert on
a noisy outcome (``tests/cli/test_cli_audit.py``).

The bundled COMPAS data most tests fit on are session fixtures (``compas``, ``compas_raw``,
``compas_schema``), shared by every test of a worker: a test slices or copies them and never
modifies them in place (checked when the session ends).
"""

import random
import secrets

import pandas as pd
import pytest

from dpmodels.data import dataset_schema, load_dataset
from dpmodels.experiments.seeds import derive_seed


@pytest.fixture(autouse=True)
def _reproducible_entropy(request, monkeypatch):
    if request.node.get_closest_marker("slow") is not None:
        yield
        return
    stream = random.Random(derive_seed(request.node.nodeid, bits=32))
    monkeypatch.setattr(secrets, "randbits", stream.getrandbits)
    yield


def _shared(X: pd.DataFrame, y: pd.Series):
    """``(X, y)`` for the whole session, and a check at its end that no test modified them."""
    before = (int(pd.util.hash_pandas_object(X).sum()), int(pd.util.hash_pandas_object(y).sum()), X.shape)
    yield X, y
    after = (int(pd.util.hash_pandas_object(X).sum()), int(pd.util.hash_pandas_object(y).sum()), X.shape)
    assert after == before, "a test modified a shared data fixture in place: copy it first"


@pytest.fixture(scope="session")
def compas():
    """COMPAS, the published 0/1 version: ``(X, y)``, 7,214 × 27 binary columns, y = ``is_recid``."""
    yield from _shared(*load_dataset("compas"))


@pytest.fixture(scope="session")
def compas_raw():
    """COMPAS as ProPublica's filtered file: ``(X, y)``, 6,172 rows × 9 features, y = ``two_year_recid``."""
    yield from _shared(*load_dataset("compas", binarized=False))


@pytest.fixture(scope="session")
def compas_schema():
    """The documented schema of raw COMPAS (declared classes, bounds and categories)."""
    return dataset_schema("compas")
