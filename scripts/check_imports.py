"""The import rule of DESIGN.md §2, checked (issue 20 item 5).

Walks the syntax tree of every module under src/legal_ai — imports at the top, inside functions
and under `TYPE_CHECKING` alike — and reports:

- circles: modules that reach themselves through imports (none allowed);
- arrows that point up: an import of a module of a higher layer, or sideways against the order of
  the use cases (retrieval → ingest → evaluation → learning → knowledge: each may import the ones
  before it);
- the composition root (`legal_ai.app`) imported by anything but the interfaces;
- a project module imported inside a function (that only dodges a circle: allowed inside a
  function are third-party packages alone, the heavy optional SDKs);
- `.execute(` outside store/ (the leg builders of retrieval/legs.py excepted: they compose the
  search queries of every corpus and run them through the store's connection).

`python scripts/check_imports.py` prints each finding and exits 1 when there is one;
`--graph` prints the layer of every module and what it imports.
"""

from __future__ import annotations

import ast
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent / "src"
PACKAGE = "legal_ai"

# Layers, lowest first. A module belongs to the first prefix it matches.
LAYERS: list[tuple[str, tuple[str, ...]]] = [
    (
        "ground",
        (
            "config",
            "config_checks",
            "config_env",
            "errors",
            "catalog",
            "corpora",
            "vocabulary",
            "paging",
            "display",
            "logs",
            "metrics",
            "progress",
        ),
    ),
    ("text", ("text",)),
    ("adapters", ("store", "providers")),
    ("session", ("auth", "accounts", "telemetry", "context", "jobqueue")),
    ("retrieval", ("retrieval",)),
    ("ingest", ("ingest",)),
    ("evaluation", ("evaluation",)),
    ("learning", ("learning",)),
    ("knowledge", ("knowledge",)),
    ("composition", ("app",)),
    (
        "interfaces",
        (
            "cli",
            "web",
            "mcp_server",
            "mcp_knowledge",
            "ops",
            "demo",
            "demo_enricher",
            "__main__",
            "__init__",
        ),
    ),
]
RANK = {name: rank for rank, (name, _) in enumerate(LAYERS)}
INTERFACES = RANK["interfaces"]
# SQL may run here: the store, and the leg builders (documented in docs/architecture.md).
SQL_ALLOWED = ("legal_ai.store", "legal_ai.retrieval.legs")


def layer_of(module: str) -> str:
    rest = module.split(".")[1:] or ["__init__"]
    for name, prefixes in LAYERS:
        if rest[0] in prefixes:
            return name
    raise SystemExit(f"{module}: no layer — add it to LAYERS in scripts/check_imports.py")


def modules(root: Path = ROOT) -> dict[str, Path]:
    found = {}
    for path in sorted((root / PACKAGE).rglob("*.py")):
        parts = list(path.relative_to(root).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join(parts)] = path
    return found


def resolve(name: str, known: dict[str, Path]) -> str | None:
    """The deepest project module `name` names (a symbol's module for `from a.b import c`)."""
    while name:
        if name in known:
            return name
        name = name.rpartition(".")[0]
    return None


class Imports(ast.NodeVisitor):
    def __init__(self, module: str, is_package: bool, known: dict[str, Path]):
        self.module, self.known = module, known
        self.base = module if is_package else module.rpartition(".")[0]
        self.depth = 0
        self.edges: list[tuple[str, int, bool]] = []  # (target, line, inside a function)
        self.executes: list[int] = []

    def visit_FunctionDef(self, node):
        self.depth += 1
        self.generic_visit(node)
        self.depth -= 1

    visit_AsyncFunctionDef = visit_FunctionDef

    def _add(self, name: str, line: int):
        target = resolve(name, self.known)
        if target and target != self.module:
            self.edges.append((target, line, self.depth > 0))

    def visit_Import(self, node):
        for alias in node.names:
            if alias.name.split(".")[0] == PACKAGE:
                self._add(alias.name, node.lineno)

    def visit_ImportFrom(self, node):
        if node.level:
            base = self.base
            for _ in range(node.level - 1):
                base = base.rpartition(".")[0]
            name = f"{base}.{node.module}" if node.module else base
        elif (node.module or "").split(".")[0] == PACKAGE:
            name = node.module
        else:
            return
        for alias in node.names:
            self._add(f"{name}.{alias.name}", node.lineno)

    def visit_Call(self, node):
        if isinstance(node.func, ast.Attribute) and node.func.attr in ("execute", "executemany"):
            self.executes.append(node.lineno)
        self.generic_visit(node)


def allowed(source: str, target: str) -> bool:
    if target == PACKAGE:  # the package's own __init__ (the version)
        return True
    src, dst = RANK[layer_of(source)], RANK[layer_of(target)]
    if layer_of(target) == "composition":
        return src == INTERFACES
    return dst <= src


def strongly_connected(graph: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's algorithm, iterative; components of more than one module."""
    index, low, on_stack, stack, out = {}, {}, set(), [], []
    counter = 0
    for start in graph:
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        out.append(sorted(component))
    return out


def findings(root: Path = ROOT) -> tuple[list[str], dict[str, set[str]]]:
    """Every finding (one line each) and the import graph of the package under `root`."""
    known = modules(root)
    graph: dict[str, set[str]] = defaultdict(set)
    problems = []
    for module, path in known.items():
        graph[module]
        visitor = Imports(module, path.name == "__init__.py", known)
        visitor.visit(ast.parse(path.read_text(encoding="utf-8"), str(path)))
        where = path.relative_to(root.parent)
        for target, line, inside in visitor.edges:
            graph[module].add(target)
            if inside:
                problems.append(f"{where}:{line}: imports {target} inside a function")
            if not allowed(module, target):
                problems.append(
                    f"{where}:{line}: {layer_of(module)} imports {target} ({layer_of(target)})"
                )
        if visitor.executes and not module.startswith(SQL_ALLOWED):
            lines = ", ".join(map(str, visitor.executes))
            problems.append(f"{where}:{lines}: runs SQL outside store/")
    for component in strongly_connected(graph):
        problems.append(f"circle of {len(component)} modules: {' '.join(component)}")
    return problems, graph


def main(argv: list[str]) -> int:
    problems, graph = findings()
    if "--graph" in argv:
        for module in sorted(graph):
            print(f"{layer_of(module):12} {module}: {' '.join(sorted(graph[module]))}")
        return 0
    for problem in problems:
        print(problem)
    if problems:
        print(f"{len(problems)} import-rule findings (DESIGN.md §2; docs/architecture.md)")
        return 1
    print(f"imports: {len(graph)} modules, one direction, no circle")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
