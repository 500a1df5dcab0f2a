"""Studies of this library's own choices, beyond the three papers: the index of their ids.

Run them with ``dpmodels reproduce ID``; the registry imports every module of this package.

=======================  ==========================================================  ===========================
id                       what it measures                                            module
=======================  ==========================================================  ===========================
lib-proba                predict_proba from noisy counts: raw shares vs shrinkage    :mod:`.proba_shrinkage`
lib-multiclass           rule lists over K classes (nursery, wine): accuracy         :mod:`.multiclass`
lib-regression           PrivaTreeRegressor vs sklearn / diffprivlib: held-out R²    :mod:`.regression`
lib-search               depth choice: 2 private tuners, public proxies, vs default  :mod:`.private_search`
lib-peers                beside DP-EBM, diffprivlib: accuracy, AUC, Brier, R², CPU   :mod:`.peers`
lib-privatree-default    PrivaTree's default vs the error / Gini criteria: AUC       :mod:`.privatree_default`
lib-privatree-regressor  PrivaTreeRegressor's default vs its former law: R²          :mod:`.privatree_default`
=======================  ==========================================================  ===========================
"""
