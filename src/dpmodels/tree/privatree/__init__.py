"""PrivaTree: the ε-DP decision tree of paper 002 with corrected accounting.

Modules, in the order a fit uses them (the way scikit-learn separates TreeBuilder, Splitter and
Criterion): :mod:`.fitting` (the one fit driver of both learners, over two count backends: records
in memory, or partitioned input through :mod:`.streaming` and its compiled :mod:`.kernels`),
:mod:`.labels` (what a record counts: class counts, or the regressor's exact label sums),
:mod:`.budget` (Eq. 7–10 and the n estimate), :mod:`.grid` (private quantiles and the candidate
grid), :mod:`.histograms` (exact level counts in memory), :mod:`.criteria` (error, Gini),
:mod:`.splitter` (one private split per node), :mod:`.builder` (the released structure, leaves,
the released tree) and :mod:`.estimator` (:class:`PrivaTreeClassifier`, parameters and public
inputs); :mod:`.regressor` (:class:`PrivaTreeRegressor`: the same grid and regions, a bounded SSE
criterion, noisy leaf counts and sums).
"""

from .budget import leaf_epsilon_for_error
from .estimator import PrivaTreeClassifier
from .regressor import PrivaTreeRegressor

__all__ = ["PrivaTreeClassifier", "PrivaTreeRegressor", "leaf_epsilon_for_error"]
