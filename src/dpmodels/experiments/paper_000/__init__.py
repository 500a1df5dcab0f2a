"""Paper 000 (differentially private greedy rule lists): the index of its ids.

Run any of them with ``dpmodels reproduce ID`` (``--quick`` for a reduced size); the registry
(:mod:`dpmodels.experiments.registry`) imports every module of this package and each module
registers its own ids.

============  ==========================================================  =====================
id            what it reproduces                                          module
============  ==========================================================  =====================
000-fig1      Fig. 1: noise amplitude, smooth vs global sensitivity       :mod:`.accuracy`
000-fig2      Fig. 2: noisy counts vs noisy Gini vs GreedyRL on COMPAS    :mod:`.accuracy`
000-fig3      Fig. 3: the same on German and Adult                        :mod:`.accuracy`
000-fig4      Fig. 4: test accuracy vs ε of every DP mechanism            :mod:`.accuracy`
000-table1    Table I: standard error of the mean test accuracy           :mod:`.accuracy`
000-fig2-paper  Fig. 2 under the paper's protocol (§V-A data and rules)   :mod:`.accuracy`
000-fig3-paper  Fig. 3 under the paper's protocol                         :mod:`.accuracy`
000-fig4-paper  Fig. 4 under the paper's protocol and calibration         :mod:`.accuracy`
000-table1-paper  Table I under the paper's protocol                      :mod:`.accuracy`
000-table2    Table II: distributional-overfitting vulnerability V        :mod:`.attacks`
000-table3    Table III: feature-importance overlap I_k on Adult          :mod:`.attacks`
000-table2-paper  Table II under the paper's protocol (§V-A data and rules)  :mod:`.attacks`
000-table3-paper  Table III under the paper's protocol                    :mod:`.attacks`
000-table2-script  Table II as the authors' script ran it (columns, split)  :mod:`.scripts`
000-table3-script  Table III as the authors' script ran it (k = 5, ties)   :mod:`.scripts`
000-fig2-script  Fig. 2 as the authors' script ran it (whole file, support 0)  :mod:`.fig23_script`
000-fig3-script  Fig. 3 as the authors' script ran it                    :mod:`.fig23_script`
000-fig6      Fig. 6: membership-inference ROC curves (000-mia's cells)   :mod:`.attacks`
000-mia       beyond the paper: membership inference on every learner     :mod:`.attacks`
000-raw       beyond the paper: raw files through the DP Binarizer        :mod:`.protocol`
000-k-sweep   Sec. V-D: the sweep of K (no figure in the paper)           :mod:`.extras`
000-label-only  App. C: label-only membership inference ("sub-par")       :mod:`.extras`
000-theorem41  Theorem IV.1: closed-form smooth sensitivity vs brute force  :mod:`.theory`
000-alg3-example  Alg. 3's worked example: printed T = 7 vs the formula's 33  :mod:`.theory`
============  ==========================================================  =====================

The ``-script`` ids run Tables II and III (:mod:`.scripts`) and Fig. 2 and 3
(:mod:`.fig23_script`) as the authors' public scripts did, where those differ from the paper's
stated protocol. The ``-paper`` ids and the two ids of
:mod:`.extras` run the paper protocol
(:mod:`dpmodels.data.paper_protocols`): the authors' public COMPAS and Adult files and rule mining,
German rebuilt from Sec. V-A.

Helpers: :mod:`.batch` (many DP fits on one split sharing their noise-independent counts) and
:mod:`.protocol` (the paper's λ, the learner table and Table II's published values, and the
cells of ``000-raw``).
"""
