"""The adapter that runs the authors' PrivaTree code from a user-given checkout."""

import os

import numpy as np
import pandas as pd
import pytest

from _extras import need
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
    need("diffprivlib")
    rng = np.random.default_rng(0)
    X = rng.uniform(0, 1, size=(400, 3))
    y = (X[:, 0] > 0.5).astype(int)
    clf = authors.authors_privatree_classifier(
        max_depth=2, epsilon=100.0, feature_range=[(0.0, 1.0)] * 3, random_state=0
    )
    clf.fit(X, y)
    assert (clf.predict(X) == y).mean() > 0.9


def _fake_checkout(root, text="x = 1\n"):
    (root / "privatree").mkdir(exist_ok=True)
    (root / "privatree" / "privatree.py").write_text(text)
    return root


def test_002_authors_is_skipped_with_the_reason_without_a_checkout(monkeypatch):
    from dpmodels.experiments.registry import Size, Skip, get

    monkeypatch.delenv(authors.AUTHORS_PRIVATREE_ENV, raising=False)
    items = get("002-authors").cells(Size(quick=True))
    assert len(items) == 1 and isinstance(items[0], Skip)
    assert authors.AUTHORS_PRIVATREE_ENV in items[0].reason


def test_002_authors_cells_are_keyed_by_the_code_not_the_path(tmp_path, monkeypatch):
    from dpmodels.experiments.registry import Cell, Size, get

    def uids(root):
        monkeypatch.setenv(authors.AUTHORS_PRIVATREE_ENV, str(root))
        cells = [c for c in get("002-authors").cells(Size(quick=True)) if isinstance(c, Cell)]
        assert cells and all(c.requires == "diffprivlib" for c in cells)  # run by the side environment
        assert {c.kwargs["dataset"] for c in cells} == {"adult", "digits01"}
        return [c.uid for c in cells]

    a, b, c = (tmp_path / n for n in "abc")
    for p in (a, b, c):
        p.mkdir()
    _fake_checkout(a), _fake_checkout(b), _fake_checkout(c, "x = 2\n")
    assert authors.checkout_digest(a) == authors.checkout_digest(b) != authors.checkout_digest(c)
    assert uids(a) == uids(b)  # same code elsewhere: the same cells (results are reused)
    assert set(uids(a)).isdisjoint(uids(c))  # other code: other cells


def test_a_cell_refuses_a_checkout_with_other_code(tmp_path, monkeypatch):
    from dpmodels.experiments.paper_002.authors_runs import authors_mnist_cell, authors_tabular_cell

    monkeypatch.setenv(authors.AUTHORS_PRIVATREE_ENV, str(_fake_checkout(tmp_path)))
    with pytest.raises(authors.AuthorsCodeUnavailable, match="planned with"):
        authors_tabular_cell("adult", "uci", 0, (0.1,), code="0" * 12)
    with pytest.raises(authors.AuthorsCodeUnavailable, match="planned with"):
        authors_mnist_cell("digits01", 0, (0.1,), code="0" * 12)


@pytest.mark.skipif(not os.environ.get(authors.AUTHORS_PRIVATREE_ENV), reason="no checkout of the authors' code given")
def test_002_authors_quick_runs_both_learners_on_the_same_splits(tmp_path):
    """Side environment with a checkout: the quick id fits the authors' PrivaTree and ours on the
    same splits and writes the paired table."""
    need("diffprivlib")
    from dpmodels.experiments import run
    from dpmodels.experiments.registry import Size

    res = run.reproduce(["002-authors"], Size(quick=True), out=tmp_path, progress=False, log=lambda *a: None)
    df = pd.read_parquet(tmp_path / "002-authors" / "results.parquet")
    acc = df[df.metric == "test_accuracy"]
    assert set(acc.learner) == {"PrivaTree (authors)", "PrivaTree (published)"}
    per = acc.groupby(["dataset", "epsilon", "seed"]).learner.nunique()
    assert (per == 2).all()  # paired: both learners on every split
    assert acc.value.between(0, 1).all() and res
    table = (tmp_path / "002-authors" / "table.md").read_text()
    assert "authors − ours (paired)" in table and authors.checkout_digest() in table
