"""The import rule of DESIGN.md §2, checked (docs/architecture.md).

Walks the syntax tree of every module under src/legal_ai — imports at the top, inside functions
and under `TYPE_CHECKING` alike — and reports:

- circles: modules that reach themselves through imports (none allowed);
- arrows that point up: an import of a module of a higher layer, or sideways against the order of
  the use cases (retrieval → ingest → evaluation → learning → knowledge → ops: each may import
  the ones before it);
- the composition root (`legal_ai.app`) imported by anything but the interfaces;
- a project module imported inside a function (that only dodges a circle: allowed inside a
  function are third-party packages alone, the heavy optional SDKs);
- `.execute(` outside store/ (the leg builders of retrieval/legs.py excepted: they compose the
  search queries of every corpus and run them through the store's connection);
- a room's insides reached from outside it: a room is a sub-package of a use case (learning/pairs,
  learning/lessons, ...), and a module outside it may import only its face — the names its
  `__init__` lists in `__all__` (`from legal_ai.learning.pairs import finals`, never
  `from legal_ai.learning.pairs.finals import upload_final` nor a name the face does not list);
- an interface (cli/, web/, mcp_*.py, demo) importing store/: interfaces reach the data through
  the use cases (the database's administration too: ops/database.py).

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
            "upload_names",
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
    ("operations", ("ops",)),
    ("composition", ("app",)),
    (
        "interfaces",
        (
            "cli",
            "web",
            "mcp_server",
            "mcp_knowledge",
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
# Rooms are the sub-packages of these (each with a face: its __init__'s __all__).
USE_CASES = ("retrieval", "ingest", "evaluation", "learning", "knowledge", "ops")


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
        # (target, line, inside a function, (package, name) of a `from package import name`)
        self.edges: list[tuple[str, int, bool, tuple[str, str] | None]] = []
        self.executes: list[int] = []

    def visit_FunctionDef(self, node):
        self.depth += 1
        self.generic_visit(node)
        self.depth -= 1

    visit_AsyncFunctionDef = visit_FunctionDef

    def _add(self, name: str, line: int, via: tuple[str, str] | None = None):
        target = resolve(name, self.known)
        if target and target != self.module:
            self.edges.append((target, line, self.depth > 0, via))

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
            self._add(f"{name}.{alias.name}", node.lineno, (name, alias.name))

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


def rooms(known: dict[str, Path]) -> dict[str, set[str]]:
    """Each room (a sub-package of a use case) and its face: the names of its `__all__`."""
    out = {}
    for module, path in known.items():
        parts = module.split(".")
        if len(parts) == 3 and parts[1] in USE_CASES and path.name == "__init__.py":
            out[module] = face_of(path)
    return out


def face_of(init: Path) -> set[str]:
    for node in ast.parse(init.read_text(encoding="utf-8")).body:
        if isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets):
                return {ast.literal_eval(elt) for elt in node.value.elts}
    return set()


def room_of(module: str, faces: dict[str, set[str]]) -> str | None:
    parts = module.split(".")
    room = ".".join(parts[:3])
    return room if room in faces else None


def past_the_face(source: str, target: str, via, faces: dict[str, set[str]]) -> str | None:
    """Why importing `target` from `source` reaches past a room's face (None when it does not)."""
    room = room_of(target, faces)
    if room is None or room_of(source, faces) == room:
        return None
    if via and via[0] == room:
        if via[1] in faces[room]:
            return None
        return f"imports {via[1]} from {room}, which its face (__all__) does not list"
    if target == room:  # the room itself: `from legal_ai.learning import pairs`
        return None
    return f"imports {target} past the face of {room} (import what its __all__ lists)"


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
    faces = rooms(known)
    graph: dict[str, set[str]] = defaultdict(set)
    problems = []
    for room, face in sorted(faces.items()):
        if not face:
            where = known[room].relative_to(root.parent)
            problems.append(f"{where}: a room without a face (list what others may use in __all__)")
    for module, path in known.items():
        graph[module]
        visitor = Imports(module, path.name == "__init__.py", known)
        visitor.visit(ast.parse(path.read_text(encoding="utf-8"), str(path)))
        where = path.relative_to(root.parent)
        for target, line, inside, via in visitor.edges:
            graph[module].add(target)
            if inside:
                problems.append(f"{where}:{line}: imports {target} inside a function")
            breach = past_the_face(module, target, via, faces)
            if breach:
                problems.append(f"{where}:{line}: {breach}")
            if not allowed(module, target):
                problems.append(
                    f"{where}:{line}: {layer_of(module)} imports {target} ({layer_of(target)})"
                )
        if visitor.executes and not module.startswith(SQL_ALLOWED):
            lines = ", ".join(map(str, visitor.executes))
            problems.append(f"{where}:{lines}: runs SQL outside store/")
    for component in strongly_connected(graph):
        problems.append(f"circle of {len(component)} modules: {' '.join(component)}")
    for edge in sorted(interface_store_imports(graph)):
        problems.append(
            f"{edge}: an interface imports store/ directly (reach the data through a use case)"
        )
    return problems, graph


def interface_store_imports(graph: dict[str, set[str]]) -> set[str]:
    """`module: store module` for every interface module that imports store/ directly."""
    return {
        f"{module}: {target}"
        for module, targets in graph.items()
        if layer_of(module) == "interfaces"
        for target in targets
        if target == f"{PACKAGE}.store" or target.startswith(f"{PACKAGE}.store.")
    }


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
