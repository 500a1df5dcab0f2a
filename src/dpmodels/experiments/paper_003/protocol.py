"""Paper 003's protocol (Sec. V-A; :mod:`.reconstruction` tells it whole): the datasets and their
per-seed splits, the grid's sizes and the minimum support as a count."""

from __future__ import annotations

import functools
import math

import numpy as np

from ...data import load_dataset

__all__ = ["DATASETS", "SUPPORTS", "DEPTHS", "TREES", "RULE_LISTS", "DL85_TIME_LIMIT", "load_split", "min_count"]

DATASETS = ("adult", "compas")
SUPPORTS = (0.01, 0.02, 0.03, 0.04, 0.05)
DEPTHS = tuple(range(1, 11))
QUICK_SUPPORTS = (0.01, 0.05)
QUICK_DEPTHS = (1, 2, 4)
SEEDS = 5
ADULT_FRACTION = 0.1
TEST_SIZE = 0.2
DL85_TIME_LIMIT = 300.0  # wall-clock seconds per DL8.5 fit (PyDL8.5 measures wall time; the paper: 1 h CPU)
# Address space a DL8.5 fit may add to its process, as a share of physical memory: PyDL8.5's cache grows past
# 12 GB within the time limit at depth >= 9 and support <= 0.03 on Adult 10 %, so two such fits
# in parallel get one worker OOM-killed (and the whole grid with it) on a 24 GiB machine. Under
# the cap the fit fails with MemoryError instead and is recorded as ``out_of_memory``; 0.4 leaves
# room for two workers and the parent process.
DL85_MEMORY_SHARE = 0.4
OPTIMAL_RL_TIME_LIMIT = 600.0
QUANTILES = np.linspace(0.0, 1.0, 101)
Q_METRICS = tuple(f"per_record_q{k}" for k in range(101))

TREES = ("DL8.5", "sklearn_DT")  # (optimal, greedy), the paper's names
RULE_LISTS = ("OptimalRL", "GreedyRL")
OPTIMAL = {"DL8.5", "OptimalRL"}


@functools.lru_cache(maxsize=4)
def _data(dataset):
    return load_dataset(dataset, binarized=True)


@functools.lru_cache(maxsize=16)
def load_split(dataset: str, seed: int):
    """(X_train, X_test, y_train, y_test) of ``seed`` (Adult: that seed's own 10 % subsample)."""
    from sklearn.model_selection import train_test_split
    from sklearn.utils.random import sample_without_replacement

    if dataset not in DATASETS:
        raise ValueError(f"paper 003 uses the datasets {DATASETS}; not {dataset!r}")
    X, y = _data(dataset)
    if dataset == "adult":
        idx = np.sort(sample_without_replacement(len(y), int(ADULT_FRACTION * len(y)), random_state=int(seed)))
        X, y = X.iloc[idx].reset_index(drop=True), y.iloc[idx].reset_index(drop=True)
    return tuple(train_test_split(X, y, test_size=TEST_SIZE, random_state=int(seed)))


ROUNDINGS = ("ceil", "floor")


def min_count(support: float, n: int, rounding: str = "ceil") -> int:
    """m, the minimum number of records per leaf / captured per rule (≥ 1).

    ``"ceil"`` (the grid's default): m = ⌈λ·n⌉, computed as scikit-learn does for a float
    ``min_samples_leaf`` (``ceil(λ * n)`` in floating point), so the two agree exactly.
    ``"floor"``: m = ⌊λ·n⌋ as the authors' scripts compute it for the trees (``int(λ * n)``,
    at least 1) and as their modified CORELS truncates ``λ * n`` to an integer count.
    """
    if rounding not in ROUNDINGS:
        raise ValueError(f"rounding must be one of {ROUNDINGS}, got {rounding!r}")
    if rounding == "floor":
        return max(1, int(support * n))
    return max(1, int(math.ceil(support * n)))


def _rounding_param(rounding):
    """The ``rounding`` key of a row's parameters (absent for the default, so that the default
    grid's rows and cells stay as they were)."""
    return {} if rounding == "ceil" else {"rounding": rounding}


def _datasets(size):
    if size.datasets is None:
        return DATASETS
    bad = [d for d in size.datasets if d not in DATASETS]
    if bad:
        raise ValueError(f"paper 003 uses the datasets {list(DATASETS)}; not {bad}")
    return tuple(d for d in DATASETS if d in size.datasets)


def grid_sizes(size):
    """(depths, supports, seeds) of a run."""
    depths = size.pick(QUICK_DEPTHS, DEPTHS)
    supports = size.pick(QUICK_SUPPORTS, SUPPORTS)
    seeds = size.runs_or(1, SEEDS)
    return depths, supports, seeds
