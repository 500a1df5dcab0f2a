"""Generated result pages: the committed pages equal what their data generate, an edited number is caught,
and the coverage table's counts come from its statuses."""

import json
import shutil
from pathlib import Path

import pytest

from dpmodels.cli import main
from dpmodels.experiments import pages
from dpmodels.experiments.coverage import ITEMS, STATUSES, counts, coverage_markdown
from dpmodels.experiments.registry import row

DOCS = Path(__file__).resolve().parents[2] / "docs"


def test_committed_pages_and_coverage_match_their_data():
    assert pages.check(DOCS) == []


@pytest.fixture
def docs_copy(tmp_path):
    out, docs = tmp_path / "out", tmp_path / "docs"
    (docs / "results").mkdir(parents=True)
    shutil.copyfile(DOCS / "results.md", docs / "results.md")
    assert main(["reproduce", "000-alg3-example", "--out", str(out), "--report", str(docs), "--no-progress"]) == 0
    return docs


def test_a_regenerated_page_passes_and_keeps_the_hand_written_tail(docs_copy):
    page = docs_copy / "results" / "000-alg3-example.md"
    page.write_text(page.read_text() + "\nWhy: hand-written analysis.\n")
    assert pages.check(docs_copy) == []
    pages.write_page("000-alg3-example", docs_copy.parent / "out", docs_copy)
    assert page.read_text().rstrip().endswith("Why: hand-written analysis.")
    assert pages.check(docs_copy) == []


def test_an_edited_number_fails_the_check(docs_copy):
    page = docs_copy / "results" / "000-alg3-example.md"
    text = page.read_text()
    assert "| 33 |" in text
    page.write_text(text.replace("| 33 |", "| 34 |"))
    problems = pages.check(docs_copy)
    assert len(problems) == 1 and "000-alg3-example.md" in problems[0]


def test_refresh_rewrites_a_block_from_its_committed_rows_and_keeps_the_tail(docs_copy):
    page = docs_copy / "results" / "000-alg3-example.md"
    page.write_text(page.read_text().replace("| 33 |", "| 34 |") + "\nWhy: hand-written analysis.\n")
    assert pages.check(docs_copy) != []
    assert pages.main([str(docs_copy), "--refresh", "000-alg3-example"]) == 0
    assert pages.check(docs_copy) == [] and page.read_text().rstrip().endswith("Why: hand-written analysis.")
    with pytest.raises(ValueError, match="no committed page"):
        pages.refresh("000-fig1", docs_copy)


def test_an_edited_row_file_fails_the_check(docs_copy):
    import gzip

    rows = docs_copy / "results" / "data" / "000-alg3-example.csv.gz"
    text = gzip.decompress(rows.read_bytes()).decode()
    rows.write_bytes(gzip.compress(text.replace(",T,33", ",T,34").encode()))
    assert any("000-alg3-example" in p for p in pages.check(docs_copy))


def test_an_edited_coverage_status_or_count_fails_the_check(docs_copy):
    front = docs_copy / "results.md"
    text = front.read_text()
    front.write_text(text.replace("**20 agree**", "**22 agree**", 1))
    assert any("coverage" in p for p in pages.check(docs_copy))
    assert pages.main([str(docs_copy), "--refresh", "coverage"]) == 0 and pages.check(docs_copy) == []


def test_the_front_page_lists_the_pages_it_has_and_a_new_page_joins_the_list(docs_copy):
    front = docs_copy / "results.md"
    text = front.read_text()  # the fixture's run wrote one page into a copy of the front page
    assert "Generated pages: 1 of" in text and "[000-alg3-example](results/000-alg3-example.md)" in text
    assert "`000-fig1` (" in text  # the copy has no page for it: listed with its cost
    front.write_text(text.replace("Generated pages: 1 of", "Generated pages: 2 of"))
    assert any("list of pages" in p for p in pages.check(docs_copy))
    assert pages.main([str(docs_copy), "--refresh", "index"]) == 0 and pages.check(docs_copy) == []


def test_coverage_counts_come_from_the_statuses():
    c = counts()
    assert sum(c.values()) == len(ITEMS) == 26
    assert [it.num for it in ITEMS] == list(range(1, 27))
    assert all(it.status in STATUSES for it in ITEMS)
    md = coverage_markdown()
    for status, n in c.items():
        assert f"**{n} {status}**" in md
    rows = [line for line in md.splitlines() if line.startswith("| ") and line[2].isdigit()]
    assert len(rows) == 26 and max(len(r) for r in rows) <= 300
    assert all((DOCS / "results" / it.page).exists() for it in ITEMS)


def test_report_folder_is_checked_before_anything_runs(tmp_path, capsys):
    code = main(["reproduce", "000-alg3-example", "--out", str(tmp_path), "--report", str(tmp_path / "nope")])
    assert code == 2 and "--report" in capsys.readouterr().err
    assert not (tmp_path / "000-alg3-example").exists()


def test_new_ids_agree_where_the_paper_is_right():
    import pandas as pd

    from dpmodels.experiments.paper_000.theory import _theorem41_agreement, alg3_cell, theorem41_cell
    from dpmodels.experiments.paper_002.corollaries import _agreement, corollary2_cell, corollary3_cell

    assert _theorem41_agreement(pd.DataFrame(theorem41_cell(0.1, 5))).startswith("agrees")
    assert pd.DataFrame(alg3_cell(0.1, 0.98, 0)).query("metric == 'T'")["value"].item() == 33
    assert _agreement(pd.DataFrame(corollary2_cell() + corollary3_cell())).startswith("agrees")


def _fig4_grid(rng, datasets, seeds, learners, scale=1.0, ahead=0.0):
    """Random tidy rows shaped as 000-fig4's grid: per (dataset, seed), GreedyRL's test accuracy,
    then each learner's test accuracy and rule count at 40 ε from 0.01 to 100 (values
    ``scale·U(0, 1)``, plus ``ahead`` for the smooth ``sm-*`` mechanisms)."""
    import numpy as np
    import pandas as pd

    rows = []

    def add(ds, lr, eps, seed, metric, value):
        rows.append(dict(dataset=ds, learner=lr, parameters="{}", epsilon=eps, delta=0.0, seed=seed,
                         metric=metric, value=value, fit_seconds=0.1))  # fmt: skip

    for ds in datasets:
        for seed in range(seeds):
            add(ds, "GreedyRL", np.inf, seed, "test_accuracy", rng.random())
            for lr in learners:
                shift = ahead if lr.startswith("sm") else 0.0
                for eps in np.logspace(-2, 2, 40):
                    for metric in ("test_accuracy", "n_rules"):
                        add(ds, lr, eps, seed, metric, rng.random() * scale + shift)
    return pd.DataFrame(rows)


def test_fig4_page_commits_the_table_columns_and_draws_the_same_table(tmp_path):
    """000-fig4's page keeps the test-accuracy rows at the ε its table shows (and GreedyRL's) out of
    the whole grid; its table from the committed rows, after the CSV round trip, is the run's."""
    import numpy as np

    from dpmodels.experiments.registry import ROW_FIELDS, get

    df = _fig4_grid(np.random.default_rng(0), ("german", "compas"), 3, ("sm-Laplace", "gl-Laplace"))
    exp = get("000-fig4")
    kept = exp.page_rows(df)
    assert len(kept) < len(df) / 10 and set(kept.metric) == {"test_accuracy"}
    path = tmp_path / "rows.csv.gz"
    kept[list(ROW_FIELDS)].to_csv(path, index=False, float_format="%.10g")
    assert exp.table(pages.read_rows(path)) == exp.table(df)


def test_fig4_paper_page_commits_the_paired_test_and_draws_the_same_tables(tmp_path):
    """000-fig4-paper's page keeps 000-fig4's table rows plus one summary row per (dataset, smooth,
    global, ε ≥ 0.1) of the paired test its second table draws; both tables from the committed
    rows, after the CSV round trip, are the run's, and a changed summary row changes the table."""
    import numpy as np

    from dpmodels.experiments.paper_000.accuracy import PAIRED_METRIC
    from dpmodels.experiments.registry import ROW_FIELDS, get

    learners = ("sm-Laplace", "sm-Cauchy", "gl-Laplace", "gl-Gaussian")
    # the smooth mechanisms' values shifted up by 0.05
    df = _fig4_grid(np.random.default_rng(1), ("german", "adult"), 6, learners, scale=0.1, ahead=0.05)
    exp = get("000-fig4-paper")
    kept = exp.page_rows(df)
    paired = kept[kept.metric == PAIRED_METRIC]
    # 2 datasets × 2 smooth × 2 global × the grid ε ≥ 0.1
    assert len(paired) == 2 * 2 * 2 * int((np.logspace(-2, 2, 40) >= 0.1).sum())
    assert len(kept) < len(df) / 5 and (paired["runs"] == 6).all()
    path = tmp_path / "rows.csv.gz"
    kept[list(ROW_FIELDS) + list(exp.page_columns)].to_csv(path, index=False, float_format="%.10g")
    committed = pages.read_rows(path)
    table = exp.table(df)
    assert "Smooth minus global mechanisms" in table and exp.table(committed) == table
    # the committed summary is what the table reads: an edited difference shows
    edited = committed.copy()
    i = edited.index[edited.metric == PAIRED_METRIC][0]
    edited.loc[i, "value"] = -1.0
    assert exp.table(edited) != table


def test_a_table_row_with_an_unescaped_bar_fails_the_check(docs_copy):
    assert pages.broken_tables("| a | b |\n|---|---|\n| median \\|ρ\\| | 1 |\n\n| c |\n|---|\n") == []
    assert pages.broken_tables("| a | b |\n|---|---|\n| median |ρ| | 1 |\n") == [3]
    page = docs_copy / "results" / "000-alg3-example.md"  # its hand-written tail is checked too
    page.write_text(page.read_text() + "\n| a | b |\n|---|---|\n| median |ρ| .62 | — |\n")
    problems = pages.check(docs_copy)
    assert len(problems) == 1 and "000-alg3-example.md" in problems[0] and "cell count" in problems[0]


def _toy_cell(seed):
    return [row("toy", "L", dict(k=seed), 1.0, 0.0, seed, "accuracy", 0.5 + seed / 10)]


def test_an_id_drawn_from_another_ids_cells_shares_its_committed_rows(tmp_path, monkeypatch):
    from dpmodels.experiments import registry

    def table(df):
        return f"| rows | mean |\n|---|---|\n| {len(df)} | {df['value'].mean():.3f} |"

    src = registry.Experiment(
        "zz-src", "000", "table", "toy source", "a table",
        cells=lambda size: [registry.Cell(f"s{s}", _toy_cell, dict(seed=s)) for s in range(3)], table=table,
    )  # fmt: skip
    shared = registry.Experiment(
        "zz-shared", "000", "table", "toy on the source's cells", "a table", source="zz-src", table=table
    )
    for exp in (src, shared):
        monkeypatch.setitem(registry._REGISTRY, exp.id, exp)
    out, docs = tmp_path / "out", tmp_path / "docs"
    (docs / "results" / "data").mkdir(parents=True)
    (docs / "results" / "data" / "zz-shared.csv.gz").write_bytes(b"a copy committed before")
    args = ["--out", str(out), "--report", str(docs), "--no-progress"]
    assert main(["reproduce", "zz-src", "zz-shared", *args]) == 0
    data = docs / "results" / "data"
    assert sorted(p.name for p in data.glob("*.csv.gz")) == ["zz-src.csv.gz"]  # once, the copy gone
    assert json.loads((data / "zz-shared.json").read_text())["rows"] == "zz-src.csv.gz"
    page = (docs / "results" / "zz-shared.md").read_text()
    assert "Rows: [`data/zz-src.csv.gz`](data/zz-src.csv.gz)" in page and "| 3 | 0.600 |" in page
    assert pages.check(docs) == []
    # an edited shared row fails both pages; a rows file no page names is reported
    rows = pages.read_rows(data / "zz-src.csv.gz")
    rows.loc[0, "value"] = 0.9
    rows.to_csv(data / "zz-src.csv.gz", index=False)
    assert sorted(p.split(":")[0].rsplit("/", 1)[1] for p in pages.check(docs)) == ["zz-shared.md", "zz-src.md"]
    (data / "zz-stale.csv.gz").write_bytes((data / "zz-src.csv.gz").read_bytes())
    assert any("zz-stale.csv.gz: no page reads it" in p for p in pages.check(docs))
