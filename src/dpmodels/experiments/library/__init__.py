"""Studies of this library's own choices, beyond the three papers: the index of their ids.

Run them with ``dpmodels reproduce ID``; the registry imports every module of this package.

==============  ==========================================================  =======================
id              what it measures                                            module
==============  ==========================================================  =======================
lib-proba       predict_proba from noisy counts: raw shares vs shrinkage    :mod:`.proba_shrinkage`
lib-multiclass  rule lists over K classes (nursery, wine): accuracy         :mod:`.multiclass`
lib-regression  PrivaTreeRegressor vs sklearn / diffprivlib: held-out R²    :mod:`.regression`
lib-search      depth choice: 2 private tuners, public proxies, vs default  :mod:`.private_search`
lib-privatree-  PrivaTree's default vs the error and Gini criteria: acc,    :mod:`.privatree_default`
default         AUC, Brier on 5 datasets × 4 ε × 10 paired splits
lib-privatree-  PrivaTreeRegressor's default vs its former law: held-out    :mod:`.privatree_default`
regressor       R² on Adult → hours_per_week and diabetes
==============  ==========================================================  =======================
"""
