"""A learner never samples noise itself: every random draw of the learners and of the data layer
goes through :mod:`dpmodels.privacy` (mechanisms, selection, quantiles), where each mechanism is
written, tested and audited once (docs/privacy.md).

Checked on the source with :mod:`ast`: in the modules of the data and learner layers, no call of a
sampling method on any object (``rng.laplace(...)``, ``np.random.normal(...)``,
``random_state.integers(...)``), and nothing from :mod:`dpmodels.privacy.samplers` but
``check_random_state`` (turning ``random_state`` into a generator that is handed to a mechanism).
"""

from __future__ import annotations

import ast

import pytest

from test_import_graph import SRC, modules

# the layers that must not draw: the data layer and every learner package
SCOPE = (
    "dpmodels.data",
    "dpmodels.rulelist",
    "dpmodels.tree",
    "dpmodels.gam",
    "dpmodels._binary",
    "dpmodels.validation",
)
SAMPLING = {
    "beta", "binomial", "choice", "exponential", "gamma", "geometric", "gumbel", "integers", "laplace",
    "logistic", "multinomial", "normal", "permutation", "permuted", "poisson", "random", "shuffle",
    "standard_exponential", "standard_gumbel", "standard_normal", "uniform",
}  # fmt: skip
# (module, line text fragment) -> why the call is not a noise draw
ALLOWED = {
    ("dpmodels.tree.baselines.diffprivlib", "random_state.integers(0, 2**31 - 1)"): (
        "the seed handed to diffprivlib (a peer, measured as published), not a draw of this library"
    ),
}


def _in_scope(name: str) -> bool:
    return any(name == s or name.startswith(s + ".") for s in SCOPE)


def violations(src=SRC, package="dpmodels") -> list[str]:
    out = []
    mods = modules(src, package)
    for name, (path, _) in sorted(mods.items()):
        if not _in_scope(name):
            continue
        text = path.read_text(encoding="utf-8")
        lines = text.splitlines()
        for node in ast.walk(ast.parse(text)):
            where = f"{path.relative_to(src).as_posix()}:{getattr(node, 'lineno', 0)}"
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in SAMPLING:
                line = lines[node.lineno - 1]
                if any(m == name and frag in line for (m, frag) in ALLOWED):
                    continue
                out.append(f"{where}: .{node.func.attr}(...) draws randomness in a learner; use dpmodels.privacy")
            elif isinstance(node, ast.ImportFrom) and (node.module or "").endswith("samplers"):
                bad = [a.name for a in node.names if a.name != "check_random_state"]
                if bad:
                    out.append(
                        f"{where}: imports {bad} from privacy.samplers; draw through dpmodels.privacy.mechanisms"
                    )
            elif (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and node.value.id == "samplers"
                and node.attr != "check_random_state"
            ):
                out.append(f"{where}: samplers.{node.attr} used in a learner; draw through dpmodels.privacy.mechanisms")
    return out


def test_learners_draw_no_noise_themselves():
    bad = violations()
    assert not bad, "\n".join(bad)


def test_allowed_calls_still_exist():
    """Every allow-list entry names a call that is there (a stale entry would hide a new one)."""
    mods = modules(SRC, "dpmodels")
    for m, frag in ALLOWED:
        assert frag in mods[m][0].read_text(encoding="utf-8"), (m, frag)


@pytest.mark.parametrize(
    "code, found",
    [
        ("def f(rng):\n    return rng.laplace(0, 1)\n", ".laplace(...)"),
        ("import numpy as np\nx = np.random.normal(size=3)\n", ".normal(...)"),
        ("from ...privacy.samplers import sample_geometric\n", "imports ['sample_geometric']"),
        ("from ...privacy import samplers\ny = samplers.sample_dlap(1.0)\n", "samplers.sample_dlap"),
        ("from ...privacy.samplers import check_random_state\n", None),
    ],
)
def test_checker_flags_planted_draws(tmp_path, code, found):
    (tmp_path / "dpmodels" / "tree").mkdir(parents=True)
    (tmp_path / "dpmodels" / "__init__.py").write_text("")
    (tmp_path / "dpmodels" / "tree" / "__init__.py").write_text("")
    (tmp_path / "dpmodels" / "tree" / "planted.py").write_text(code)
    bad = violations(tmp_path)
    assert (found is None and not bad) or (len(bad) == 1 and found in bad[0] and "tree/planted.py" in bad[0])
