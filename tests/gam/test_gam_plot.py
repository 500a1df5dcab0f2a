"""Pictures of additive models. Set DPMODELS_WRITE_FIGURES=1 to (re)write the README's figure
docs/figures/dp-gam-adult.png from this code."""

import os
import warnings
from pathlib import Path

import pytest

from _extras import need

need("matplotlib")
import matplotlib  # noqa: E402

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from dpmodels.data import dataset_schema, load_dataset  # noqa: E402
from dpmodels.gam import DPAdditiveClassifier, plot_model  # noqa: E402
from dpmodels.gam.plot import save_model_figure  # noqa: E402

FIGURES = Path(__file__).resolve().parents[2] / "docs" / "figures"


def test_readme_figure(tmp_path):
    """A DP additive model of Adult at ε = 1 (unseeded: the header says proven DP), every public
    input declared; written to docs/figures/ when DPMODELS_WRITE_FIGURES=1."""
    out = FIGURES if os.environ.get("DPMODELS_WRITE_FIGURES") == "1" else tmp_path
    X, y = load_dataset("adult", binarized=False)
    s = dataset_schema("adult")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # every public input declared: no leak warning
        est = DPAdditiveClassifier(epsilon=1.0, **s.fit_params()).fit(X, y)
    p = save_model_figure(est, out / "dp-gam-adult.png", max_features=11)
    assert p.stat().st_size > 20_000
    assert "proven DP" in est.header()[1]


def test_panels_and_errors(tmp_path):
    from test_gam import _fit

    est, _, _ = _fit(classes=[0, 1, 2], max_rounds=1)
    fig = plot_model(est, features=["colour", "age"])
    try:
        titles = [ax.get_title() for ax in fig.axes]
        assert titles[:3] == ["colour", "age", "term importance"]
        assert fig.get_suptitle().startswith("DPAdditiveClassifier(")
    finally:
        plt.close(fig)
    with pytest.raises(ValueError, match="not a feature"):
        plot_model(est, features=["nope"])
    with pytest.raises(TypeError, match="dpmodels.gam"):
        plot_model(object())


def test_readme_example_runs_as_written():
    """The README's additive-model block, executed as written (printing silenced)."""
    import re

    text = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    section = text.split("### An additive model: one shape function per column", 1)[1].split("\n### ", 1)[0]
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    ns: dict = {"print": lambda *a: None}
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no leak warning: every public input declared
        exec(code, ns)
    gam = ns["gam"]
    assert gam.privacy_ledger_.is_private and gam.privacy_ledger_.epsilon_spent == pytest.approx(1.0)
    plt.close("all")
