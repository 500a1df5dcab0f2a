"""Trees up to depth 6 are drawn readably: no two boxes overlap (nor the legend a box) and the picture
stays within about 2,000 pixels across at the default 150 dpi."""

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import load_wine

from _extras import need

need("matplotlib")

from dpmodels.data import dataset_schema, load_dataset  # noqa: E402
from dpmodels.export._common import resolve  # noqa: E402
from dpmodels.export._plot import _figure_size, plot_model  # noqa: E402
from dpmodels.tree import PrivaTreeClassifier, PrivaTreeRegressor  # noqa: E402


def _boxes(model):
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    size = _figure_size(resolve(model))
    fig = Figure(figsize=size, layout="constrained")
    FigureCanvasAgg(fig)
    ax = fig.add_subplot(gid="dpmodels-own-figure")
    plot_model(model, ax)
    fig.canvas.draw()
    r = fig.canvas.get_renderer()
    nodes = [t.get_bbox_patch().get_window_extent(r) for t in ax.texts if (t.get_gid() or "").startswith("node-")]
    legend = ax.get_legend().get_window_extent(r)
    return size, nodes, legend


def _overlaps(boxes):
    out = []
    for i in range(len(boxes)):
        for j in range(i + 1, len(boxes)):
            a, b = boxes[i], boxes[j]
            if a.x0 < b.x1 - 0.5 and b.x0 < a.x1 - 0.5 and a.y0 < b.y1 - 0.5 and b.y0 < a.y1 - 0.5:
                out.append((i, j))
    return out


def _trees():
    X, y = load_dataset("compas", binarized=False)
    s = dataset_schema("compas")
    w = load_wine(as_frame=True)
    wb = {c: (float(np.floor(w.data[c].min())), float(np.ceil(w.data[c].max()))) for c in w.data}
    for depth in (2, 4, 6):
        yield (
            f"compas-{depth}",
            PrivaTreeClassifier(epsilon=20.0, max_depth=depth, random_state=0, **s.fit_params()).fit(X, y),
        )
        yield f"wine-{depth}", PrivaTreeClassifier(epsilon=20.0, max_depth=depth, random_state=0, bounds=wb,
                                                   classes=[0, 1, 2]).fit(w.data, w.target)  # fmt: skip
    num = X.select_dtypes("number")
    reg = PrivaTreeRegressor(epsilon=20.0, max_depth=5, random_state=0, label_bounds=(18, 100), n_public=len(X),
                             bounds={k: v for k, v in s.bounds.items() if k != "age"})  # fmt: skip
    yield "compas-regression-5", reg.fit(num.drop(columns="age"), pd.Series(num["age"]))


@pytest.mark.parametrize("name, model", list(_trees()), ids=lambda v: v if isinstance(v, str) else "")
def test_no_box_overlaps_and_the_width_stays_near_2000_pixels(name, model):
    size, nodes, legend = _boxes(model)
    assert len(nodes) == model.tree_.n_nodes
    assert not _overlaps(nodes), name
    assert not any(_overlaps([legend, n]) for n in nodes), name
    assert size[0] * 150 <= 2100, (name, size)
