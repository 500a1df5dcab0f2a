"""The adapter that runs the authors' PrivaTree code from a user-given checkout."""

import os

import numpy as np
import pytest

from dpmodels.experiments.paper_002 import authors


def test_missing_checkout_is_a_one_line_error(monkeypatch):
    monkeypatch.delenv(authors.AUTHORS_PRIVATREE_ENV, raising=False)
    with pytest.raises(authors.AuthorsCodeUnavailable, match="not given"):
        authors.authors_checkout()


def test_a_directory_without_the_package_is_refused(tmp_path):
    with pytest.raises(authors.AuthorsCodeUnavailable, match="no privatree/privatree.py"):
        authors.authors_checkout(tmp_path)


def test_the_environment_variable_names_the_checkout(tmp_path, monkeypatch):
    (tmp_path / "privatree").mkdir()
    (tmp_path / "privatree" / "privatree.py").write_text("")
    monkeypatch.setenv(authors.AUTHORS_PRIVATREE_ENV, str(tmp_path))
    assert authors.authors_checkout() == tmp_path.resolve()


@pytest.mark.skipif(not os.environ.get(authors.AUTHORS_PRIVATREE_ENV), reason="no checkout of the authors' code given")
def test_the_authors_tree_fits_and_predicts():
    pytest.importorskip("diffprivlib")
    rng = np.random.default_rng(0)
    X = rng.uniform(0, 1, size=(400, 3))
    y = (X[:, 0] > 0.5).astype(int)
    clf = authors.authors_privatree_classifier(
        max_depth=2, epsilon=100.0, feature_range=[(0.0, 1.0)] * 3, random_state=0
    )
    clf.fit(X, y)
    assert (clf.predict(X) == y).mean() > 0.9
