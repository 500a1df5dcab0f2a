"""What the exact grid cells changed in the committed results: old vs new cells on the bundled data.

``privacy.quantiles.grid_histogram`` computed a value's cell as ``(clip(x) − lo)·(G/(hi − lo))``,
which rounds twice; it now computes the exact cell (``grid_cell_index``). The DP Binarizer (in
memory and on partitions), ``jointexp_quantiles`` and the additive models' quantile bins read
these histograms. A result can change only where a value of its data lies on a moved edge, so:

1. (data only, seconds) every value of every bounded numerical column of the data the committed
   results grid, with the bounds and grid size they use: how many values change cell —
   000-raw and lib-peers' DP rule list (adult, compas, german with the documented schema bounds;
   credit-default and electricity with lib-peers' declared bounds), lib-multiclass (wine, G =
   4096), and paper 002's authors'-code knob with this library's grid quantiles (credit, G = 2048,
   bounds = each training fold's min / max, 3 × 5 folds);
2. (``--fits``, ≈ 3 CPU-min) where values move, the fits themselves under the old and the new
   cells in one process (the old formula patched into ``data.binarize``): lib-peers' adult DP
   rule-list cells (10 splits × 4 ε, every row) and 000-raw's adult Binarizer fits (100 runs × 3 ε
   × 8 learners: the released thresholds and the state of the generator the learner draws from
   next), then 000-raw's rows of every run where a threshold moved::

    python benchmarks/grid_edge_moves.py [--fits]
"""

from __future__ import annotations

import argparse
import contextlib
import warnings

import numpy as np
import pandas as pd

from dpmodels.privacy.quantiles import _check_bounds, grid_cell_index


def old_cells(x, lo, hi, G):
    """The cells before the fix: two roundings."""
    x = np.asarray(x, dtype=float)
    if hi == lo:
        return np.zeros(x.size, dtype=np.int64)
    return np.minimum(((np.clip(x, lo, hi) - lo) * (G / (hi - lo))).astype(np.int64), G - 1)


def old_histogram(x, bounds, G):
    lo, hi = _check_bounds(bounds)
    return np.bincount(old_cells(np.asarray(x, dtype=float).ravel(), lo, hi, G), minlength=G)


@contextlib.contextmanager
def old_grid():
    from dpmodels.data import binarize

    new = binarize.grid_histogram
    binarize.grid_histogram = old_histogram
    try:
        yield
    finally:
        binarize.grid_histogram = new


def moved(tag, X, bounds, G) -> int:
    total = 0
    for c, (lo, hi) in bounds.items():
        x = pd.to_numeric(X[c], errors="coerce").to_numpy(dtype=float)
        x = x[~np.isnan(x)]
        lo, hi = float(lo), float(hi)
        if not lo < hi:
            continue
        m = old_cells(x, lo, hi, G) != grid_cell_index(x, (lo, hi), G)
        if m.any():
            vals, cnt = np.unique(x[m], return_counts=True)
            print(f"  {tag}: {c} on [{lo:g}, {hi:g}]: " + ", ".join(f"{v:g} × {k}" for v, k in zip(vals, cnt)))
        total += int(m.sum())
    print(f"{tag}: {len(bounds)} bounded columns, G = {G}: {total} values change cell")
    return total


def data_only() -> None:
    from dpmodels.data import dataset_schema, load_dataset
    from dpmodels.experiments.library import peers
    from dpmodels.experiments.library.multiclass import wine_raw
    from dpmodels.experiments.paper_002.authors_tables import _authors_fold_inputs
    from dpmodels.experiments.paper_002.data import _kfold, _ordinal, load_002
    from dpmodels.tree.privatree.grid import GRID

    for ds in ("compas", "german", "adult"):
        X, _ = load_dataset(ds, binarized=False)
        moved(f"{ds} (000-raw, lib-peers)", X, dict(dataset_schema(ds).fit_params()["bounds"] or {}), 4096)
    for ds in ("credit-default", "electricity"):
        X, _, spec = peers.load_task(ds)
        moved(f"{ds} (lib-peers)", X, spec["bounds"], 4096)
    X, _, _, bw = wine_raw()
    moved("wine (lib-multiclass)", X, bw, 4096)
    X, y, meta = load_002("credit", "num")
    A = _ordinal(X, meta)
    cat = np.array([c in meta["categories"] for c in X.columns])
    total = 0
    for rep in range(3):
        for tr, _ in _kfold(y, 5, rep):
            fr, _ = _authors_fold_inputs(A, tr, cat)
            for j in np.flatnonzero(~cat):
                lo, hi = (float(v) for v in fr[j])
                if lo < hi:
                    total += int((old_cells(A[tr, j], lo, hi, GRID) != grid_cell_index(A[tr, j], (lo, hi), GRID)).sum())
    print(f"credit (002 authors' code, our grid quantiles): 3 × 5 folds, G = {GRID}: {total} values change cell")


def _peers_rows():
    from dpmodels.experiments.library import peers

    return [
        {k: v for k, v in r.items() if k != "fit_seconds"}
        for s in range(10)
        for r in peers.fit_cell("adult", "DP rule list", s)
    ]


def _raw_binarizers():
    """000-raw's adult Binarizer fits, seeded as ``paper_000.protocol.pipeline_cell`` seeds them."""
    from sklearn.model_selection import train_test_split

    from dpmodels.data import Binarizer, dataset_schema, load_dataset
    from dpmodels.experiments.paper_000.protocol import LEARNERS
    from dpmodels.privacy import BudgetAccountant

    X, y = load_dataset("adult", binarized=False)
    schema = dataset_schema("adult")
    cats = {c: list(v) for c, v in schema.categories.items()}
    bounds = {c: tuple(float(b) for b in v) for c, v in schema.bounds.items()}
    out = {}
    for run in range(100):
        Xtr, _, _, _ = train_test_split(X, y, test_size=0.3, random_state=run)
        ss = np.random.SeedSequence([run, 2024])
        for eps in (0.1, 1.0, 10.0):
            for name in LEARNERS:
                rng = np.random.default_rng(ss.spawn(1)[0])
                b = Binarizer(
                    categories=cats,
                    n_bins=3,
                    epsilon=0.2 * eps,
                    bounds=bounds,
                    accountant=BudgetAccountant(eps, 1.0 / len(Xtr) ** 2),
                    random_state=rng,
                ).fit(Xtr)
                cuts = {c: v.tolist() for c, v in b.cut_points_.items()}
                out[(run, eps, name)] = (cuts, rng.random())
    return out


def _raw_rows(run):
    """000-raw's rows of adult run ``run`` at ε = 0.1 (``pipeline_cell`` spawns one seed per (ε,
    learner) in order, ε = 0.1 first, as in the full grid)."""
    from dpmodels.experiments.paper_000.protocol import LEARNERS, pipeline_cell

    return [
        {k: v for k, v in r.items() if k != "fit_seconds"}
        for r in pipeline_cell("adult", run, (0.1,), tuple(LEARNERS), data="raw")
    ]


def fits() -> None:
    with old_grid():
        before = _peers_rows()
    after = _peers_rows()
    print(f"lib-peers, adult, DP rule list: {sum(a == b for a, b in zip(before, after))} of {len(after)} rows equal")
    with old_grid():
        before = _raw_binarizers()
    after = _raw_binarizers()
    diff = [k for k in after if after[k][0] != before[k][0]]
    state = sum(after[k][1] == before[k][1] for k in after)
    print(
        f"000-raw, adult: {len(diff)} of {len(after)} Binarizer fits release other thresholds; "
        f"the learner's generator is in the same state after {state} of them"
    )
    for k in diff:
        moves = {c: (before[k][0][c], after[k][0][c]) for c in after[k][0] if after[k][0][c] != before[k][0][c]}
        print(f"  run {k[0]}, ε = {k[1]}, {k[2]}: {moves}")
    for run, eps in sorted({(k[0], k[1]) for k in diff}):
        if eps != 0.1:
            print(f"  run {run}, ε = {eps}: not rechecked (pipeline_cell would need the earlier ε)")
            continue
        with old_grid():
            before_rows = _raw_rows(run)
        after_rows = _raw_rows(run)
        print(
            f"  000-raw run {run}, ε = 0.1: {sum(a == b for a, b in zip(before_rows, after_rows))} "
            f"of {len(after_rows)} rows (GreedyRL and 8 learners, accuracy and n_rules) equal"
        )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--fits", action="store_true", help="also refit where values move (≈ 3 CPU-min)")
    args = ap.parse_args()
    warnings.simplefilter("ignore")
    data_only()
    if args.fits:
        fits()


if __name__ == "__main__":
    main()
