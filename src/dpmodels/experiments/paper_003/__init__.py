"""Paper 003 (reconstruction attacks on interpretable models): the index of its ids.

Run any of them with ``dpmodels reproduce ID`` (``--quick`` for a reduced size); the registry
(:mod:`dpmodels.experiments.registry`) imports every module of this package and each module
registers its own ids.

==================  ==========================================================  =====================
id                  what it reproduces                                          module
==================  ==========================================================  =====================
003-toy             Tables I–VII, Fig. 1, Rule List 1: the worked examples      :mod:`.toy`
003-fig2            Fig. 2: Dist_G of optimal (DL8.5) vs greedy trees           :mod:`.reconstruction`
003-fig3            Fig. 3: Dist_G of optimal vs greedy rule lists              :mod:`.reconstruction`
003-fig4            Fig. 4: per-record entropy reduction ratio                  :mod:`.reconstruction`
003-fig5            Fig. 5 (App. A): tree size and Dist_G vs maximum depth      :mod:`.reconstruction`
003-fig6            Fig. 6 (App. A): rule-list length and Dist_G vs length      :mod:`.reconstruction`
003-fig7            Fig. 7 (App. A): Dist_G vs the minimum support              :mod:`.reconstruction`
003-fig5-certified  Fig. 5 and 4a on Adult, DL8.5 given the paper's hour        :mod:`.reconstruction`
003-dp              beyond the paper: Dist_G of DP rule lists and PrivaTrees    :mod:`.dp`
==================  ==========================================================  =====================

003-fig3 … 003-fig7 draw from 003-fig2's grid (one set of fits).
003-fig5-certified runs the grid's Adult tree cells again with DL8.5 given the paper's hour per fit
(Sec. V-A), in its own folder, for Fig. 5 and Fig. 4a from certified fits.

The grid's ids are registered by :mod:`.reconstruction` (which describes the protocol) from modules
with one job each: :mod:`.protocol` (datasets, splits, support counts, sizes), :mod:`.fits` (the
cells: fit one learner on one split and measure its Dist_G), :mod:`.frames` (tidy rows to seed
means), :mod:`.figures`, :mod:`.uncertainty` (seed bootstraps, the "at a given accuracy" pairing),
:mod:`.statements` (the paper's statements and one check each) and :mod:`.tables`.
"""
