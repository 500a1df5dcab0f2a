"""Jupyter shows a fitted model as it prints (header, model, ledger with the verdict); an unfitted one as
scikit-learn does."""

import pytest

from dpmodels.gam import DPAdditiveClassifier
from dpmodels.rulelist import DPRuleListClassifier
from dpmodels.tree import PrivaTreeClassifier, PrivaTreeRegressor


@pytest.fixture(scope="module")
def small(compas_raw, compas_schema):
    """The first 400 rows of raw COMPAS and its schema."""
    X, y = compas_raw
    return X.iloc[:400], y.iloc[:400], compas_schema


def _fits(small, compas):
    X, y, s = small
    Xb, yb = compas
    num = X.select_dtypes("number")
    return [
        PrivaTreeClassifier(epsilon=1.0, random_state=0, **s.fit_params()).fit(X, y),
        DPAdditiveClassifier(epsilon=1.0, random_state=0, **s.fit_params()).fit(X, y),
        DPRuleListClassifier(epsilon=1.0, random_state=0).fit(Xb.iloc[:400], yb.iloc[:400]),
        PrivaTreeRegressor(
            epsilon=1.0,
            random_state=0,
            bounds={k: v for k, v in s.bounds.items() if k != "age"},
            label_bounds=(18, 100),
            n_public=400,
        ).fit(num.drop(columns="age"), num["age"]),
    ]


def test_fitted_models_show_their_text_and_verdict(small, compas):
    for est in _fits(small, compas):
        page = est._repr_html_()
        bundle = est._repr_mimebundle_()
        assert bundle["text/html"] == page and bundle["text/plain"] == repr(est)
        assert page.startswith("<div class='dpmodels'><pre class='dpmodels-model'>")
        assert type(est).__name__ in page and "Privacy ledger" in page
        assert "NOT PRIVATE against whoever knows the seed" in page  # seeded here: the verdict says so


def test_text_is_escaped(small):
    X, y, s = small
    X = X.rename(columns={"age": "<b>age</b>"})
    bounds = {("<b>age</b>" if k == "age" else k): v for k, v in s.bounds.items()}
    est = PrivaTreeClassifier(epsilon=1.0, max_depth=2, random_state=0, classes=s.classes, categories=s.categories,
                              bounds=bounds).fit(X, y)  # fmt: skip
    assert "<b>" not in est._repr_html_()


def test_unfitted_estimators_keep_scikit_learns_diagram():
    est = PrivaTreeClassifier(epsilon=1.0)
    assert "sk-" in est._repr_mimebundle_()["text/html"]  # scikit-learn's estimator diagram
