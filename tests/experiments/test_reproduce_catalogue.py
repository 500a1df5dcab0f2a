"""The static catalogue of reproduce ids against the registry, and `reproduce --list` from it."""

import io
import subprocess
import sys

from dpmodels.cli.reproduce import list_ids
from dpmodels.experiments.catalogue import CATALOGUE, list_lines
from dpmodels.experiments.registry import all_experiments


def test_catalogue_names_every_registered_id_and_its_module():
    exps = {e.id: e for e in all_experiments()}
    assert set(CATALOGUE) == set(exps), (
        f"missing from catalogue.py: {sorted(set(exps) - set(CATALOGUE))}; "
        f"not registered: {sorted(set(CATALOGUE) - set(exps))}"
    )
    for eid, e in exps.items():
        c = CATALOGUE[eid]
        assert (c.paper, c.kind) == (e.paper, e.kind), eid
        assert f"dpmodels.experiments.{c.module}" == e.module, eid


def test_list_lines_fit_120_characters():
    lines = list_lines()
    assert len(lines) == len(CATALOGUE) + 1
    assert max(len(line) for line in lines) <= 120
    out = io.StringIO()
    list_ids(out)
    assert all(len(line) <= 120 for line in out.getvalue().splitlines())


def test_list_imports_no_experiment_module():
    code = (
        "import sys; from dpmodels.cli import main; main(['reproduce', '--list']); "
        "bad = [m for m in sys.modules if m.startswith(('dpmodels.experiments.paper_', 'dpmodels.experiments.library'))]; "
        "print('LOADED', bad)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip().endswith("LOADED []"), out[-300:]


def test_get_loads_only_the_named_module():
    code = (
        "import sys; from dpmodels.experiments.registry import get; get('003-toy'); "
        "print(sorted(m for m in sys.modules if m.startswith('dpmodels.experiments.paper_')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert "paper_003.toy" in out and "paper_000" not in out and "paper_002" not in out, out
