"""The ledger's totals, kept between calls (:meth:`PrivacyLedger._charged`), are always the exact
sums over its current rows: after appends, leaks, replaced, inserted and removed rows, a new list,
and in copies of a ledger that go on spending on their own."""

from __future__ import annotations

import copy
import dataclasses
import math

import numpy as np

from dpmodels.privacy.ledger import PrivacyLedger


def _fresh(led):
    charged = [r for r in led.rows if r.composition != "leak"]
    return math.fsum(r.epsilon for r in charged), math.fsum(r.delta for r in charged)


def _check(*ledgers):
    for led in ledgers:
        assert (led.epsilon_spent, led.delta_spent) == _fresh(led)


def test_totals_follow_every_change_of_the_rows():
    rng = np.random.default_rng(0)
    a = PrivacyLedger(100.0, 0.5)
    for i in range(6):
        a.spend(f"r{i}", "m", float(rng.uniform(0.01, 1)), float(rng.uniform(0, 1e-3)))
        _check(a)
    b, c = copy.copy(a), copy.deepcopy(a)
    a.spend("a", "m", 0.3)
    b.spend("b", "m", 0.7, 1e-4)
    b.record_leak("a public input", warn=False)
    c.rows.append(dataclasses.replace(c.rows[0], what="appended by hand"))
    _check(a, b, c)
    a.rows[0] = dataclasses.replace(a.rows[0], epsilon=2.5)
    _check(a)
    del a.rows[2]
    _check(a)
    a.rows[:0] = [c.rows[-1], c.rows[1]]
    _check(a)
    b.rows = list(reversed(b.rows))
    _check(b)
    a.rows = []
    _check(a)
    assert a.epsilon_spent == 0.0 and b.epsilon_spent > 0.0
