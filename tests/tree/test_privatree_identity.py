"""Same seed, same model: digests of models fitted by the code *before* the fixed-cost work on
PrivaTree and the Binarizer (and before the learners' noise draws moved behind
:mod:`dpmodels.privacy.mechanisms`), pinned here.

Each digest is the SHA-256 of the canonical JSON of everything a fit releases: the tree (structure,
thresholds, category subsets, noisy counts, labels), the ledger rows, the budget shares and the n
estimate (PrivaTree); the tree and the ledger (BDPT, the regressor); the Binarizer's saved form
(thresholds, columns, ledger) and its output. A change of a draw, of its order, of the budget
arithmetic or of a ledger row changes the digest. The digests were printed by
``python tests/tree/test_privatree_identity.py`` on the branch point and pasted below; a deliberate change
of law or of random-stream order must come with exact-law tests and new digests, never silently.
"""

from __future__ import annotations

import hashlib
import json
import warnings

import numpy as np
import pandas as pd
import pytest

from dpmodels.data import Binarizer
from dpmodels.privacy import PrivacyLeakWarning
from dpmodels.tree import PrivaTreeClassifier
from dpmodels.tree.baselines import BDPTClassifier
from dpmodels.tree.privatree.regressor import PrivaTreeRegressor


def _digest(obj) -> str:
    s = json.dumps(obj, sort_keys=True, default=repr, allow_nan=True)
    return hashlib.sha256(s.encode()).hexdigest()[:20]


def _numeric(n, seed, m=24):
    """The benchmark's data (benchmarks/bench_privatree.py) at other sizes and seeds."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, m))
    y = (X[:, 0] + X[:, 1] * X[:, 2] - 0.5 * X[:, 3] + rng.normal(size=n) > 0).astype(np.int64)
    return X, y


def _mixed(n, seed, k=2):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({f"x{i}": rng.normal(size=n) for i in range(3)})
    X["c"] = rng.choice(["a", "b", "c", "d", "other"], size=n)  # "other" is outside the declared list
    X["k"] = rng.integers(0, 3, size=n)
    score = X.x0 + (X.c == "a") - 0.5 * X.k + rng.normal(size=n) * 0.5
    labels = ["no", "yes", "maybe"][:k]
    y = np.array(labels)[np.clip(np.floor(score + 1).astype(int), 0, k - 1)]
    return X, y, labels


def _edges(n, seed):
    """Integer features on integer bounds with values on the public grid's cell edges, as adult's
    hours-per-week: 50 on [1, 99] is the first value of cell 1024 (49·2048/98), 17 + 73 = 90 the
    bound (tests/tree/test_privatree_grid_edges.py)."""
    rng = np.random.default_rng(seed)
    hours = np.where(rng.random(n) < 0.3, 50, rng.integers(1, 100, n))
    age = rng.integers(17, 91, n)
    X = pd.DataFrame({"age": age, "hours": hours, "c": rng.choice(["a", "b", "c"], size=n)})
    y = ((hours >= 50) ^ (rng.random(n) < 0.2) | (age > 60)).astype(np.int64)
    return X, y


EDGES = dict(bounds={"age": (17, 90), "hours": (1, 99)}, categories={"c": ["a", "b", "c"]}, classes=[0, 1])


MIXED = dict(
    epsilon=1.0,
    max_depth=3,
    split_criterion="error",  # the default until issue 24: these pins keep the "error" law bit-identical
    bounds={"x0": (-3, 3), "x1": (-3, 3), "x2": (-2, 2)},
    categories={"c": ["a", "b", "c", "d"], "k": [0, 1, 2]},
)


def _privatree(X, y, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)
        m = PrivaTreeClassifier(**kw).fit(X, y)
    return {
        "tree": m.tree_.to_dict(),
        "ledger": m.privacy_ledger_.to_dict(),
        "budget": m.budget_,
        "n": m.n_estimate_,
    }


def _edge_cases():
    """Paper 002 as published on values on cell edges (issue 27: 4 rows of 002-fig1 moved when the
    cells were computed as (x − lo)·(G/span)); the library's default law on the same data."""
    params = {"published": dict(variant="published", n_public=3000), "default": {}}
    return {
        f"privatree-edges-{name}": lambda kw=kw: _privatree(
            *_edges(3000, 7), **EDGES, **kw, epsilon=1.0, max_depth=4, random_state=30
        )
        for name, kw in params.items()
    }


def _cases():
    """name -> zero-argument function returning the released content of one fit."""
    c = {}
    for n in (300, 1000, 5000):
        for seed in (0, 1, 2):
            c[f"privatree-numeric-n{n}-s{seed}"] = lambda n=n, seed=seed: _privatree(
                *_numeric(n, seed),
                epsilon=1.0,
                max_depth=4,
                split_criterion="error",
                bounds=(-6.0, 6.0),
                classes=[0, 1],
                random_state=seed,
            )
    c["privatree-numeric-public-n"] = lambda: _privatree(
        *_numeric(2000, 5),
        max_depth=5,
        split_criterion="error",
        bounds=(-6.0, 6.0),
        classes=[0, 1],
        n_public=2000,
        random_state=5,
    )
    c["privatree-numeric-leaks"] = lambda: _privatree(
        *_numeric(800, 6, m=5), max_depth=4, split_criterion="error", random_state=6
    )
    # the default law since issue 24 (split_criterion="error-gini", max_depth="auto"), declared n
    # and its DP estimate
    for n, seed in ((300, 0), (5000, 1)):
        c[f"privatree-default-numeric-n{n}-s{seed}"] = lambda n=n, seed=seed: _privatree(
            *_numeric(n, seed), bounds=(-6.0, 6.0), classes=[0, 1], random_state=seed
        )
    c["privatree-default-numeric-public-n"] = lambda: _privatree(
        *_numeric(2000, 5), bounds=(-6.0, 6.0), classes=[0, 1], n_public=2000, random_state=5
    )
    for k in (2, 3):
        c[f"privatree-default-mixed-k{k}"] = lambda k=k: _privatree(
            *_mixed(1500, 0, k)[:2],
            **{key: v for key, v in MIXED.items() if key != "max_depth"},
            classes=_mixed(1500, 0, k)[2],
            random_state=0,
        )
    settings = {
        "default": {},
        "pf-exp-gini": dict(
            leaf_labels="permute-and-flip", split_selection="exponential", split_criterion="gini", max_depth=4
        ),
        "histogram": dict(split_selection="histogram", n_public=2000),
        "published": dict(variant="published"),
        "published-star": dict(variant="published*"),
        "ovr-public": dict(one_vs_rest=True, category_order="public", max_bins=4),
        "ovr-histogram": dict(one_vs_rest=True, split_selection="histogram"),
        "shares": dict(budget_shares=(0.2, 0.5, 0.3), max_bins=16),
        "depth0": dict(max_depth=0),
    }
    for k in (2, 3):
        for name, params in settings.items():
            for seed in (0, 3):

                def fit(k=k, params=params, seed=seed):
                    X, y, labels = _mixed(1500, seed, k)
                    return _privatree(X, y, **{**MIXED, **params}, classes=labels, random_state=seed)

                c[f"privatree-mixed-k{k}-{name}-s{seed}"] = fit

    c.update(_edge_cases())

    def bdpt(seed, **kw):
        X, y, labels = _mixed(1200, seed)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", PrivacyLeakWarning)
            m = BDPTClassifier(
                epsilon=1.0,
                max_depth=4,
                bounds=MIXED["bounds"],
                categories=MIXED["categories"],
                classes=labels,
                random_state=seed,
                **kw,
            ).fit(X, y)
        return {"tree": m.tree_.to_dict(), "ledger": m.privacy_ledger_.to_dict()}

    for seed in (0, 1):
        c[f"bdpt-s{seed}"] = lambda seed=seed: bdpt(seed)
    c["bdpt-merge5"] = lambda: bdpt(2, numeric_binning="merge5")

    def regressor(seed):
        X, _, _ = _mixed(1500, seed)
        y = X.x0.to_numpy() * 2 + (X.c == "b") + np.random.default_rng(seed).normal(size=len(X))
        m = PrivaTreeRegressor(
            epsilon=1.0,
            max_depth=3,
            bounds=MIXED["bounds"],
            label_bounds=(-8, 8),
            categories=MIXED["categories"],
            random_state=seed,
        ).fit(X, y)
        return {"tree": m.tree_.to_dict(), "ledger": m.privacy_ledger_.to_dict()}

    for seed in (0, 1):
        c[f"regressor-s{seed}"] = lambda seed=seed: regressor(seed)

    def binarizer(seed, **kw):
        X, _, _ = _mixed(3000, seed)
        b = Binarizer(epsilon=0.5, bounds=MIXED["bounds"], categories=MIXED["categories"], random_state=seed, **kw).fit(
            X
        )
        out = b.transform(X)
        return {"saved": b.to_dict(), "out": hashlib.sha256(np.ascontiguousarray(out).tobytes()).hexdigest()}

    for seed in (0, 1, 2):
        c[f"binarizer-s{seed}"] = lambda seed=seed: binarizer(seed)
    c["binarizer-onehot-5bins"] = lambda: binarizer(4, n_bins=5, encoding="onehot")
    return c


CASES = _cases()

# printed by this file's __main__ on the branch point (commit 4ee4fe4), before any change
# (the eight *published* digests since: a deliberate change of law of variant="published" / "published*" —
# each feature's histogram has its own bins only, no noise on the padding or the unknown bucket —, tested by
# test_privatree_variants.test_published_histograms_have_each_feature_own_bins_only)
PINNED = {
    "bdpt-merge5": "c30f78d134a85f673a4b",
    "bdpt-s0": "2eee29f5f3f00619ca7a",
    "bdpt-s1": "d5be25050d40197a7e07",
    "binarizer-onehot-5bins": "0fa391b782a1bebfee4e",
    "binarizer-s0": "abcfb752bb793c7e12e6",
    "binarizer-s1": "a7b71417f5d691c383c4",
    "binarizer-s2": "6c32724163ba0bf5b01c",
    "privatree-mixed-k2-default-s0": "fadb271f7f6c4650496f",
    "privatree-mixed-k2-default-s3": "a6bd8b9e01b8af0aa817",
    "privatree-mixed-k2-depth0-s0": "0485df86762aa2bd672b",
    "privatree-mixed-k2-depth0-s3": "6729cb96089ea5b6e97f",
    "privatree-mixed-k2-histogram-s0": "9cfb6fe18d0b0f78e84e",
    "privatree-mixed-k2-histogram-s3": "c3440483da2db496c507",
    "privatree-mixed-k2-ovr-histogram-s0": "d8a3c3b93373b3a2aebb",
    "privatree-mixed-k2-ovr-histogram-s3": "ed2b5345dd31c623b5d2",
    "privatree-mixed-k2-ovr-public-s0": "77b00fdcdb1eccbed007",
    "privatree-mixed-k2-ovr-public-s3": "2768867f20aa670bdf3c",
    "privatree-mixed-k2-pf-exp-gini-s0": "d77c80e90c24f9c2ea7b",
    "privatree-mixed-k2-pf-exp-gini-s3": "5ed17cc73b247aaced35",
    # paper 002 as published, re-pinned 2026-11-25 for a deliberate change of law: the split of least
    # weighted Gini on each feature's own bins, and Algorithm 1's stopping rule (tests/tree/test_privatree_published_gini.py)
    "privatree-mixed-k2-published-s0": "0088796ea983e4ce3384",
    "privatree-mixed-k2-published-s3": "844244ce408bbd1544d8",
    "privatree-mixed-k2-published-star-s0": "40e172486ece8140a0b3",
    "privatree-mixed-k2-published-star-s3": "d47d81d13858ec40cc65",
    "privatree-mixed-k2-shares-s0": "3f190ecac07cef2087b2",
    "privatree-mixed-k2-shares-s3": "167ece3f0b1f720eeb42",
    "privatree-mixed-k3-default-s0": "62200729422085728d0a",
    "privatree-mixed-k3-default-s3": "c1527985edd79291ae86",
    "privatree-mixed-k3-depth0-s0": "70e818add06aa3dab064",
    "privatree-mixed-k3-depth0-s3": "05ab9e4e5c7cd7cf5cae",
    "privatree-mixed-k3-histogram-s0": "af33e2944d27f296d0c6",
    "privatree-mixed-k3-histogram-s3": "a8aaa7e73a134c38129d",
    "privatree-mixed-k3-ovr-histogram-s0": "e87e4e99557c642059ee",
    "privatree-mixed-k3-ovr-histogram-s3": "45cd737cd6fc9956f9b4",
    "privatree-mixed-k3-ovr-public-s0": "dd63ade2aecfae2e7961",
    "privatree-mixed-k3-ovr-public-s3": "3e3af326fc4433270b62",
    "privatree-mixed-k3-pf-exp-gini-s0": "61b829c84bb26e8c4b29",
    "privatree-mixed-k3-pf-exp-gini-s3": "829a869e964c0789e725",
    # (re-pinned 2026-11-25, as the k2 published digests above)
    "privatree-mixed-k3-published-s0": "c5d49745c9a27d4715e3",
    "privatree-mixed-k3-published-s3": "82e608260b23fd3597ef",
    "privatree-mixed-k3-published-star-s0": "67ea071786a48ef1e27a",
    "privatree-mixed-k3-published-star-s3": "b2cf64feb939f3e94e4b",
    "privatree-mixed-k3-shares-s0": "df2fcb2bd670b7109001",
    "privatree-mixed-k3-shares-s3": "f7a21756a479018d62d9",
    "privatree-numeric-leaks": "e26876b55b33acf91c35",
    "privatree-numeric-n1000-s0": "bdb6975c3e523f3392d5",
    "privatree-numeric-n1000-s1": "888677a0fd9be280ddaf",
    "privatree-numeric-n1000-s2": "1df016d1bed459b681bb",
    "privatree-numeric-n300-s0": "89bf3f4759234884fd2c",
    "privatree-numeric-n300-s1": "9b40c0e95626073cba8a",
    "privatree-numeric-n300-s2": "9c5bb8bc6cf882ffc65e",
    "privatree-numeric-n5000-s0": "29665d4a1e51ef9a3669",
    "privatree-numeric-n5000-s1": "ce2b84196f4dd60fad61",
    "privatree-numeric-n5000-s2": "9dc2392e7d8fcd1696b5",
    "privatree-numeric-public-n": "64205288afd17d8ee06a",
    # PrivaTreeRegressor, re-pinned for issue 24 / issue 23 finding 3 (a deliberate change of law): the split
    # utility on the labels' integer grid, exact; the default shares (0.1, 0.7, 0.2)
    "regressor-s0": "b23c6af781cf1c7e23e8",
    "regressor-s1": "f672bc51064b07ca0947",
    # the default law of issue 24 (split_criterion="error-gini" with the public λ rule, max_depth="auto")
    "privatree-default-mixed-k2": "e1be3e69c853040cf086",
    "privatree-default-mixed-k3": "6dc9cf3ca613690ff7cb",
    "privatree-default-numeric-n300-s0": "11657704c244998d324b",
    "privatree-default-numeric-n5000-s1": "28e8519eae40c7696115",
    "privatree-default-numeric-public-n": "1b37df7562e50ebfbcc4",
    # values on the grid's cell edges (issue 27's identity rerun of 002-fig1): printed at 2b2fe82^, the last
    # commit with the exact cells for them (2b2fe82's (x − lo)·(G/span) gave 4f86be42… and 5676d78f…)
    "privatree-edges-default": "8cf653a1f4c27e963398",
    "privatree-edges-published": "ea9d2db5fc0cbd46c717",
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_same_seed_same_model_as_before(name):
    assert _digest(CASES[name]()) == PINNED[name]


def test_the_pins_cover_every_case_and_differ():
    assert set(PINNED) == set(CASES)
    # distinct fits give distinct digests (a digest of nothing would be constant)
    assert len(set(PINNED.values())) == len(PINNED)


if __name__ == "__main__":  # print the table of digests (run on the branch point)
    print("PINNED = {")
    for name in sorted(CASES):
        print(f"    {name!r}: {_digest(CASES[name]())!r},")
    print("}")
