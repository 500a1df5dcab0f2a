"""Pictures and text of a fitted model, apart from the models (as scikit-learn's ``_export``).

* :func:`plot_model` — a matplotlib figure: a ``plot_tree``-style drawing of a tree, or one row
  per rule with a bar of its class counts for a rule list; the privacy header is the title.
* :func:`save_model_figure` — the same into a ``.png`` / ``.svg`` file (what
  ``dpmodels show MODEL.json --plot FILE`` writes).
* :func:`export_graphviz` — Graphviz DOT text (no dependency; render with ``dot``).
* :func:`export_text` — the text printing (header and model) of any of the accepted objects.

Every function takes a fitted dpmodels estimator (tree or rule list), a scikit-learn ``Pipeline``
ending in one (e.g. ``Binarizer`` + ``DPRuleListClassifier``), a model read from a file
(:func:`dpmodels.io.load_model`), or a bare ``Tree`` / ``RuleList``. They draw the released model
only: post-processing, no data and no privacy budget. What is drawn matches the text printing: a
leaf's or rule's ``P`` is what ``predict_proba`` returns for its records and its id is what
``apply`` returns.
"""

from ._common import resolve as _resolve
from ._graphviz import export_graphviz
from ._plot import FIGURE_FORMATS, plot_model, save_model_figure

__all__ = ["plot_model", "save_model_figure", "export_graphviz", "export_text", "FIGURE_FORMATS"]


def export_text(model, **kw) -> str:
    """The header (learner, privacy status, n, classes) and the model as text, as ``str(model)``
    prints a fitted estimator; ``kw`` go to :meth:`Tree.to_text` / :meth:`RuleList.to_text`
    (e.g. ``prune=True``, ``merge=True``)."""
    shown = _resolve(model)
    return shown.model.to_text(header=shown.header, **{**shown.print_kw, **kw})
