"""Suite-wide fixtures.

An unseeded fit draws its noise from the operating system's entropy (``secrets.randbits``, in
:func:`dpmodels.privacy.samplers.check_random_state`), as a private release must. A default-suite
test that asserts on such a fit's outcome would then pass or fail by chance (one did, under load).
Here every default-suite test gets that "OS entropy" from a stream seeded by the test's own id:
the code under test runs its unseeded path unchanged (the fitted files still say PRIVATE, no seed
is recorded), successive draws in one test still differ, and a test's outcome is the same on every
run, alone or beside others (``-n 2``). The slow suite's statistical audits keep true entropy.
Subprocesses (CLI tests) are not covered: they fix their entropy themselves where they assert on
a noisy outcome (``tests/test_cli_audit.py``).
"""

import random
import secrets

import pytest

from dpmodels.experiments.seeds import derive_seed


@pytest.fixture(autouse=True)
def _reproducible_entropy(request, monkeypatch):
    if request.node.get_closest_marker("slow") is not None:
        yield
        return
    stream = random.Random(derive_seed(request.node.nodeid, bits=32))
    monkeypatch.setattr(secrets, "randbits", stream.getrandbits)
    yield
