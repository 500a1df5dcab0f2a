"""Runners for the poisoning-robustness experiments of paper 002 (Fig. 3 / Tables III, VIII; Fig. 4).

Each runner computes a tidy DataFrame with :mod:`dpmodels.audit.poisoning`, writes it as CSV into
``output_dir`` and, when matplotlib is installed (optional extra ``dpmodels[plots]``), a PNG.
The DP logistic-regression baseline needs the ``dpmodels[diffprivlib]`` extra; without it that
method is skipped with a warning.

    >>> from dpmodels.experiments.poisoning import run_guarantee, run_backdoor
    >>> df = run_guarantee("out/")            # doctest: +SKIP
    >>> df = run_backdoor("out/")             # doctest: +SKIP
"""

from __future__ import annotations

import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from dpmodels.audit.poisoning import backdoor_experiment, guarantee_experiment

__all__ = ["run_guarantee", "run_backdoor", "guarantee_table", "DEFAULT_DATASETS"]

# Bundled UCI datasets of paper 002's Table VIII (nursery is left out: the raw file is 5-class,
# the paper's OpenML version is binary). Table III's OpenML numerical datasets are not bundled.
DEFAULT_DATASETS = ("adult", "compas", "mushroom", "breast-w", "diabetes", "vote")
TABLE_FRACTIONS = (0.001, 0.005, 0.01)


def _has_diffprivlib() -> bool:
    try:
        import diffprivlib.models  # noqa: F401
    except Exception:  # noqa: BLE001 - ImportError, or diffprivlib broken by a newer sklearn
        return False
    return True


def _pyplot():
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        warnings.warn("matplotlib is not installed (pip install 'dpmodels[plots]'): no PNG written",
                      stacklevel=3)
        return None
    return plt


def _label(method, eps):
    names = {"privatree": "PrivaTree", "dp_logreg": "DP logistic regression", "dpa": "DPA (1000 trees)",
             "tree": "decision tree", "bdpt": "BDPT", "dpgdf": "DPGDF", "diffprivlib_tree": "diffprivlib tree"}
    n = names.get(method, method)
    return n if not np.isfinite(eps) else f"{n} ε={eps:g}"


def run_guarantee(
    output_dir,
    *,
    datasets=DEFAULT_DATASETS,
    methods=("privatree", "dp_logreg", "dpa", "tree"),
    epsilons=(0.01, 0.1),
    fractions=tuple(np.round(np.linspace(0.0, 0.01, 11), 4)),
    n_splits=20,
    cv="shuffle",
    dpa_n_estimators=1000,
    max_depth=4,
    random_state=0,
    plot=True,
    verbose=False,
):
    """Guaranteed accuracy vs fraction poisoned (paper 002, Fig. 3 and Tables III / VIII).

    Runs :func:`dpmodels.audit.poisoning.guarantee_experiment` on each bundled dataset (raw, typed
    features, ``dpmodels.data.load_dataset(name, binarized=False)``) and writes
    ``poisoning_guarantee.csv`` (+ ``.png``). Fractions must include those of the table
    (0.1 %, 0.5 %, 1 %) for :func:`guarantee_table`.
    """
    from dpmodels.data import load_dataset

    out = Path(output_dir)
    out.mkdir(parents=True, exist_ok=True)
    methods = tuple(methods)
    if "dp_logreg" in methods and not _has_diffprivlib():
        warnings.warn("diffprivlib is not usable here: DP logistic regression skipped "
                      "(pip install 'dpmodels[diffprivlib]')", stacklevel=2)
        methods = tuple(m for m in methods if m != "dp_logreg")
    frames = []
    for name in datasets:
        X, y = load_dataset(name, binarized=False)
        t0 = time.perf_counter()
        df = guarantee_experiment(
            X, np.asarray(y), dataset=name, methods=methods, epsilons=epsilons, fractions=fractions,
            max_depth=max_depth, dpa_n_estimators=dpa_n_estimators, n_splits=n_splits, cv=cv,
            random_state=random_state,
        )
        df["n_rows"] = len(X)
        frames.append(df)
        if verbose:
            print(f"{name}: {time.perf_counter() - t0:.1f} s", flush=True)
    res = pd.concat(frames, ignore_index=True)
    res.to_csv(out / "poisoning_guarantee.csv", index=False)
    if plot:
        plt = _pyplot()
        if plt is not None:
            names = list(dict.fromkeys(res["dataset"]))
            ncol = min(3, len(names))
            nrow = -(-len(names) // ncol)
            fig, axes = plt.subplots(nrow, ncol, figsize=(4.2 * ncol, 3.3 * nrow), squeeze=False)
            for ax, name in zip(axes.ravel(), names):
                d = res[(res["dataset"] == name) & res["guarantee"].notna()]
                for (m, e), g in d.groupby(["method", "epsilon"], dropna=False, sort=False):
                    ax.plot(100 * g["fraction"], g["guarantee"], marker=".", label=_label(m, e))
                ax.set_title(name)
                ax.set_xlabel("poisoned records (% of training set)")
                ax.set_ylabel("guaranteed accuracy")
                ax.set_ylim(0, 1)
            for ax in axes.ravel()[len(names):]:
                ax.axis("off")
            axes.ravel()[0].legend(fontsize=7)
            fig.tight_layout()
            fig.savefig(out / "poisoning_guarantee.png", dpi=120)
            plt.close(fig)
    return res


def guarantee_table(res, fractions=TABLE_FRACTIONS):
    """Paper layout (Table III / VIII): one row per dataset × method × ε, columns accuracy and the
    guarantee at each fraction (NaN guarantee where ⌊fraction·n_train⌋ = 0, as the paper's '-')."""
    rows = []
    keys = ["dataset", "method", "epsilon"]
    for k, g in res.groupby(keys, dropna=False, sort=False):
        r = dict(zip(keys, k))
        r["accuracy"] = g["accuracy"].iloc[0]
        r["accuracy_se"] = g["accuracy_se"].iloc[0]
        for f in fractions:
            row = g[np.isclose(g["fraction"], f)]
            v = row["guarantee"].iloc[0] if len(row) else np.nan
            if len(row) and row["n_poisoned"].iloc[0] == 0:
                v = np.nan
            r[f"{100 * f:g}%"] = v
        rows.append(r)
    return pd.DataFrame(rows)


def run_backdoor(
    output_dir,
    *,
    method="privatree",
    epsilons=(0.01, 0.1, 1.0),
    n_poisoned=(0, 1, 2, 3, 5, 10, 20, 30),
    n_splits=20,
    max_depth=4,
    random_state=0,
    plot=True,
):
    """Backdoor ASR vs poisoned count on digits 0 vs 1 (paper 002, Fig. 4; MNIST is offline-
    unavailable). Writes ``poisoning_backdoor.csv`` (+ ``.png``)."""
    out = Path(output_dir)
    out.mkdir(parents=True, exist_ok=True)
    res = backdoor_experiment(method=method, epsilons=epsilons, n_poisoned=n_poisoned,
                              n_splits=n_splits, max_depth=max_depth, random_state=random_state)
    res.to_csv(out / "poisoning_backdoor.csv", index=False)
    if plot:
        plt = _pyplot()
        if plt is not None:
            from dpmodels.audit.poisoning import apply_trigger, load_digits_01

            fig, (ax0, ax) = plt.subplots(1, 2, figsize=(9, 3.5), gridspec_kw={"width_ratios": [1, 2.4]})
            X, y = load_digits_01()
            ax0.imshow(apply_trigger(X[y == 0][:1]).reshape(8, 8), cmap="gray_r")
            ax0.set_title("a 0 with the trigger, labelled 1", fontsize=9)
            ax0.axis("off")
            for (m, e), g in res.groupby(["method", "epsilon"], dropna=False, sort=False):
                line = ax.errorbar(g["n_poisoned"], g["asr"], yerr=g["asr_se"], marker="o", ms=3,
                                   capsize=2, label=_label(m, e))
                if g["asr_bound"].notna().any():
                    ax.plot(g["n_poisoned"], g["asr_bound"], ls="--", color=line[0].get_color(),
                            label=f"bound (Cor. 3) ε={e:g}")
            ax.set_xlabel("poisoned records")
            ax.set_ylabel("attack success rate")
            ax.set_ylim(-0.02, 1.02)
            ax.legend(fontsize=7)
            fig.tight_layout()
            fig.savefig(out / "poisoning_backdoor.png", dpi=120)
            plt.close(fig)
    return res
