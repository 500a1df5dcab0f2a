"""Paper 002 (PrivaTree: DP decision trees, poisoning robustness): the index of its ids.

Run any of them with ``dpmodels reproduce ID`` (``--quick`` for a reduced size); the registry
(:mod:`dpmodels.experiments.registry`) imports every module of this package and each module
registers its own ids.

============  ==========================================================  =====================
id            what it reproduces                                          module
============  ==========================================================  =====================
002-fig1      Fig. 1: accuracy vs ε of DP trees (adult, compas)           :mod:`.accuracy_curves`
002-fig2      Fig. 2: training accuracy vs budget distribution            :mod:`.budget`
002-fig3      Fig. 3: guaranteed accuracy vs poisoned samples             :mod:`.poisoning_curves`
002-fig4      Fig. 4: backdoor attack success vs poisoned samples         :mod:`.backdoor`
002-table2    Table II: test accuracy of DP trees at ε = 0.1              :mod:`.accuracy_tables`
002-table3    Table III: poisoning guarantees on numerical data           :mod:`.guarantees`
002-table4    Table IV: dataset properties, from the loaded data          :mod:`.datasets`
002-table5    Table V: runtimes at ε = 0.1 (002-table2's cells)           :mod:`.accuracy_tables`
002-table6    Table VI: test accuracy at ε = 0.01                         :mod:`.accuracy_tables`
002-table7    Table VII: test accuracy at ε = 1                           :mod:`.accuracy_tables`
002-table8    Table VIII: poisoning guarantees on mixed data              :mod:`.guarantees`
002-corollaries  Corollaries 2 and 3 recomputed at the paper's points    :mod:`.corollaries`
002-uci       beyond: PrivaTree's selections on the UCI rows, 3 × 5 folds :mod:`.variants`
002-reference beyond: the issue's reference protocol (public code's pts)  :mod:`.variants`
002-authors   the authors' public PrivaTree (a given checkout) vs ours     :mod:`.authors_runs`
============  ==========================================================  =====================

Shared by those modules: :mod:`.protocol` (the datasets and their availability, the learners as
the tables name them, the 80/20 splits, fit-and-score). Helper: :mod:`.data` (the bundled UCI data as the paper prepares it, the documented public
bounds, the paper's Tables II/VI/VII as data, the learners of ``002-uci``). :mod:`.authors` and
:mod:`.authors_tables`: the authors' own code (a checkout named by ``DPMODELS_AUTHORS_PRIVATREE``)
as extra series of ``002-table2/6/7/8`` on the same folds, and the agreement test with the paper's
columns (``make reproduce-authors``).
"""
