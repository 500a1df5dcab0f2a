"""Differentially private additive models: explainable boosting on public bins.

* :class:`DPAdditiveClassifier` (binary and K classes) and :class:`DPAdditiveRegressor`: one shape
  function per feature, fitted by one noisy histogram pass and a few cyclic rounds of noisy
  gradient sums (:mod:`dpmodels.gam.estimator`; proofs in docs/privacy.md, "Additive models").
* :class:`AdditiveModel`: the released model (bins → scores), printing and JSON.
* :func:`plot_model`: one panel per shape function and the term importances (matplotlib).
"""

from .estimator import DPAdditiveClassifier, DPAdditiveRegressor
from .model import AdditiveModel

__all__ = ["DPAdditiveClassifier", "DPAdditiveRegressor", "AdditiveModel", "plot_model"]


def plot_model(model, *args, **kwargs):
    """Draw the shape functions of a fitted additive model (:func:`dpmodels.gam.plot.plot_model`)."""
    from .plot import plot_model as _plot

    return _plot(model, *args, **kwargs)
