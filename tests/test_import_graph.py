"""The package's import graph: layers in the order of the data flow, no upward import, no cycle.

Every module of ``src/dpmodels`` is parsed with :mod:`ast` (imports inside functions and under
``TYPE_CHECKING`` included: a lazy import is still a dependency) and each import is mapped to the
module it names (``from pkg import sub`` names ``pkg.sub`` when that is a module). The implicit
import of a module's parent packages is not an edge.

A module's layer is the entry of :data:`LAYERS` naming the longest prefix of its dotted path (a
top-level package, or one of its modules placed on its own). A module may import its own layer
and the layers below, never a layer above; modules never import each other in a cycle, within a
layer or not. A module under no entry fails the test: a new top-level package gets its line here.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = "dpmodels"
SRC = Path(__file__).resolve().parents[1] / "src"

# In the order of the data flow, lowest first. Keys are dotted paths below ``dpmodels`` ("" is the
# package's own __init__); the longest matching key places a module.
LAYERS: list[tuple[str, tuple[str, ...]]] = [
    (
        "foundations",
        ("", "privacy", "_params", "validation", "_format", "_binary", "_paths", "_optional", "_compiled", "guards"),
    ),
    ("data", ("data",)),
    ("learners", ("rulelist", "tree", "gam")),
    ("learner table", ("catalog",)),
    ("compositions", ("model_selection", "pipeline", "io", "export")),
    ("audit", ("audit",)),
    ("experiments", ("experiments",)),
    ("cli", ("cli", "__main__")),
]


# --------------------------------------------------------------------------- the graph
def modules(src: Path, package: str) -> dict[str, tuple[Path, bool]]:
    """Dotted module name -> (file, is a package's __init__)."""
    out = {}
    for path in sorted((src / package).rglob("*.py")):
        parts = list(path.relative_to(src).with_suffix("").parts)
        is_pkg = parts[-1] == "__init__"
        out[".".join(parts[:-1] if is_pkg else parts)] = (path, is_pkg)
    return out


def _deepest(name: str, mods) -> str | None:
    while name not in mods:
        if "." not in name:
            return None
        name = name.rsplit(".", 1)[0]
    return name


def imports(name: str, mods, package: str) -> list[tuple[str, int]]:
    """``(imported module, line)`` for every import of ``name`` that names a module of ``package``."""
    path, is_pkg = mods[name]
    here = name if is_pkg else name.rsplit(".", 1)[0]
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            found += [(a.name, node.lineno) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = here.split(".")
                base = base[: len(base) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            for a in node.names:
                sub = f"{target}.{a.name}"
                found.append((sub if sub in mods else target, node.lineno))
    out = []
    for target, line in found:
        if target.split(".")[0] != package:
            continue
        mod = _deepest(target, mods)
        if mod is not None and mod != name:
            out.append((mod, line))
    return out


def graph(src: Path = SRC, package: str = PACKAGE) -> tuple[dict, dict]:
    """``(edges, files)``: module -> {imported module: first line}, and module -> file."""
    mods = modules(src, package)
    edges: dict[str, dict[str, int]] = {m: {} for m in mods}
    for m in mods:
        for target, line in imports(m, mods, package):
            edges[m].setdefault(target, line)
    return edges, {m: p for m, (p, _) in mods.items()}


# --------------------------------------------------------------------------- the checks
def layer_of(module: str, package: str = PACKAGE, layers=LAYERS) -> int | None:
    rel = module[len(package) + 1 :] if module != package else ""
    best, best_len = None, -1
    for i, (_, keys) in enumerate(layers):
        for key in keys:
            if (rel == key or (key and rel.startswith(key + "."))) and len(key) > best_len:
                best, best_len = i, len(key)
    return best


def _where(files, module, line) -> str:
    path = files[module]
    rel = path.relative_to(path.parents[len(module.split(".")) - (0 if path.stem == "__init__" else 1)])
    return f"{rel.as_posix()}:{line}"


def unplaced(edges, package: str = PACKAGE, layers=LAYERS) -> list[str]:
    return sorted(m for m in edges if layer_of(m, package, layers) is None)


def upward_imports(edges, files, package: str = PACKAGE, layers=LAYERS) -> list[str]:
    """One line per import of a higher layer."""
    out = []
    for m, targets in sorted(edges.items()):
        lm = layer_of(m, package, layers)
        for t, line in sorted(targets.items()):
            lt = layer_of(t, package, layers)
            if lm is not None and lt is not None and lt > lm:
                out.append(
                    f"{_where(files, m, line)}: {m} imports {t}, but layer {layers[lm][0]!r} may not import "
                    f"layer {layers[lt][0]!r} (above it in the data flow)"
                )
    return out


def cycles(edges) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []
    counter = 0
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(sorted(edges.get(w, ())))))
                elif w in on_stack:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    found.append(sorted(comp))
    return sorted(found)


def cycle_path(comp: list[str], edges) -> list[str]:
    """One cycle through the component's first module (breadth-first, shortest)."""
    start, members = comp[0], set(comp)
    prev: dict[str, str] = {}
    queue = [start]
    for v in queue:
        for w in sorted(edges[v]):
            if w == start:
                path = [v]
                while path[-1] != start:
                    path.append(prev[path[-1]])
                return [start] + path[::-1][1:] + [start] if len(path) > 1 else [start, start]
            if w in members and w not in prev:
                prev[w] = v
                queue.append(w)
    return comp


def describe_cycle(comp, edges, files) -> str:
    path = cycle_path(comp, edges)
    steps = [f"{_where(files, a, edges[a][b])}: {a} imports {b}" for a, b in zip(path, path[1:])]
    return f"import cycle between {', '.join(comp)}:\n    " + "\n    ".join(steps)


# --------------------------------------------------------------------------- the package
@pytest.fixture(scope="module")
def package_graph():
    return graph()


def test_every_module_has_a_layer(package_graph):
    edges, _ = package_graph
    missing = unplaced(edges)
    assert not missing, (
        f"modules under no entry of LAYERS (tests/test_import_graph.py): {missing}; add their "
        "top-level package to the layer it belongs to in the data flow"
    )


def test_no_upward_import(package_graph):
    edges, files = package_graph
    bad = upward_imports(edges, files)
    assert not bad, "imports running up the layers:\n" + "\n".join(bad)


def test_no_import_cycle(package_graph):
    edges, files = package_graph
    found = cycles(edges)
    assert not found, "\n".join(describe_cycle(c, edges, files) for c in found)


def test_the_graph_sees_lazy_and_relative_imports(package_graph):
    """A sample of known edges: top-level, relative, inside a function."""
    edges, _ = package_graph
    assert "dpmodels.data.rules" in edges["dpmodels.rulelist.candidates"]  # from ..data.rules import
    assert "dpmodels.data.binarize_stream" in edges["dpmodels.data.binarize"]  # inside Binarizer.fit
    assert "dpmodels.cli.fit" in edges["dpmodels.cli"]  # from . import audit, fit, ...


# --------------------------------------------------------------------------- the checker itself
def _write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)


def test_checker_flags_a_planted_upward_import_and_cycle(tmp_path):
    _write(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/low/__init__.py": "",
            "pkg/low/a.py": "def f():\n    from ..high import b\n",  # lazy, upward
            "pkg/low/c.py": "from . import d\n",
            "pkg/low/d.py": "import pkg.low.c\n",  # cycle c <-> d
            "pkg/high/__init__.py": "",
            "pkg/high/b.py": "from pkg.low import c\n",  # downward: fine
            "pkg/new/__init__.py": "",
        },
    )
    layers = [("low", ("", "low")), ("high", ("high",))]
    edges, files = graph(tmp_path, "pkg")
    up = upward_imports(edges, files, "pkg", layers)
    assert up == [
        "pkg/low/a.py:2: pkg.low.a imports pkg.high.b, but layer 'low' may not import layer 'high' "
        "(above it in the data flow)"
    ]
    found = cycles(edges)
    assert found == [["pkg.low.c", "pkg.low.d"]]
    text = describe_cycle(found[0], edges, files)
    assert (
        "pkg/low/c.py:1: pkg.low.c imports pkg.low.d" in text and "pkg/low/d.py:1: pkg.low.d imports pkg.low.c" in text
    )
    assert unplaced(edges, "pkg", layers) == ["pkg.new"]
    # a module placed on its own above its package's layer
    assert layer_of("pkg.low.a", "pkg", [*layers, ("top", ("low.a",))]) == 2
