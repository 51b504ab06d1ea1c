"""The import rule of DESIGN.md §2 is a check (scripts/check_imports.py, run by scripts/check):
the package passes it, and the check finds each kind of breach in a package made to break it —
rooms reached past their face and interfaces reaching the store directly among them."""

import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location(
    "check_imports", ROOT / "scripts" / "check_imports.py"
)
check_imports = importlib.util.module_from_spec(_spec)
sys.modules["check_imports"] = check_imports
_spec.loader.exec_module(check_imports)


def test_the_package_keeps_the_rule():
    problems, graph = check_imports.findings()
    assert problems == []
    assert "legal_ai.app" in graph and "legal_ai.context" in graph
    below = [m for m in graph if check_imports.layer_of(m) not in ("interfaces", "composition")]
    assert not [m for m in below if "legal_ai.app" in graph[m]]  # nothing below imports the root


def write(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / "legal_ai" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def test_each_breach_is_found(tmp_path):
    write(
        tmp_path,
        {
            "__init__.py": "",
            "config.py": "from .store import db\n",  # ground importing an adapter: up
            "store/__init__.py": "",
            "store/db.py": "def run(conn):\n    return conn.execute('SELECT 1')\n",
            "learning/__init__.py": "",
            "learning/a.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
            "    from ..app import App\n",  # a use case importing the root
            "knowledge/__init__.py": "",
            "knowledge/b.py": "def f():\n    from ..learning import a\n    return a\n",
            "retrieval/__init__.py": "",
            "retrieval/c.py": "from . import d\n",
            "retrieval/d.py": "from . import c\n\n\ndef q(conn):\n    conn.execute('SELECT 2')\n",
            "app.py": "from . import config\n",
        },
    )
    problems, _ = check_imports.findings(tmp_path)
    text = "\n".join(problems)
    assert "config.py:1: ground imports legal_ai.store.db (adapters)" in text
    assert "learning/a.py:3: learning imports legal_ai.app (composition)" in text
    assert "knowledge/b.py:2: imports legal_ai.learning.a inside a function" in text
    assert "retrieval/d.py:5: runs SQL outside store/" in text
    assert "circle of 2 modules: legal_ai.retrieval.c legal_ai.retrieval.d" in text
    assert "store/db.py" not in text  # SQL in store/ is where it belongs
    assert len(problems) == 5, problems


def test_rooms_are_reached_only_through_their_face(tmp_path):
    write(
        tmp_path,
        {
            "__init__.py": "",
            "store/__init__.py": "",
            "store/rows.py": "",
            "learning/__init__.py": "",
            "learning/pairs/__init__.py": "from . import finals\nfrom .finals import upload\n\n"
            '__all__ = ["finals", "upload"]\n',
            "learning/pairs/finals.py": "from .alignment import align\n\n\ndef upload():\n"
            "    return align\n",  # inside its room: any sibling
            "learning/pairs/alignment.py": "def align():\n    return 1\n",
            "learning/lessons/__init__.py": "",  # a room without a face
            "learning/lessons/distill.py": "from ..pairs import finals, upload\n"  # the face
            "from ..pairs.alignment import align\n",  # past it
            "cli/__init__.py": "",
            "cli/learning.py": "from ..learning.pairs import align\n"  # not on the face
            "from ..learning import pairs\n"  # the room itself
            "import legal_ai.learning.pairs.finals\n"  # past it
            "from ..store import rows\n",  # an interface at the store
            "cli/costs.py": "from ..learning.pairs import upload\n",
        },
    )
    problems, _ = check_imports.findings(tmp_path)
    text = "\n".join(problems)
    assert "learning/lessons/__init__.py: a room without a face" in text
    assert (
        "learning/lessons/distill.py:2: imports legal_ai.learning.pairs.alignment past the face "
        "of legal_ai.learning.pairs" in text
    )
    assert (
        "cli/learning.py:1: imports align from legal_ai.learning.pairs, which its face (__all__) "
        "does not list" in text
    )
    assert "cli/learning.py:3: imports legal_ai.learning.pairs.finals past the face" in text
    assert (
        "legal_ai.cli.learning: legal_ai.store.rows: an interface imports store/ directly" in text
    )
    assert "distill.py:1" not in text and "cli/costs.py" not in text and "finals.py" not in text
    assert len(problems) == 5, problems


def test_ops_is_the_last_use_case_and_no_interface_reaches_the_store(tmp_path):
    """ops/ (the worker, the scheduler, backups, `legal-ai db`'s work) reads the store like any
    use case, may import knowledge/, and is imported by the interfaces and the composition root;
    it may not import app.py, nor knowledge/ import it; an interface may not import store/ at
    all — not even its package's face."""
    write(
        tmp_path,
        {
            "__init__.py": "",
            "store/__init__.py": "def url():\n    return ''\n",
            "store/schedule.py": "",
            "knowledge/__init__.py": "",
            "knowledge/brief.py": "from ..ops import upkeep\n",  # a use case before ops: up
            "ops/__init__.py": "",
            "ops/upkeep.py": "from ..store import schedule\nfrom ..knowledge import brief\n",
            "ops/worker.py": "from ..app import App\n",  # below the root
            "app.py": "from .ops import upkeep\n",
            "cli/__init__.py": "",
            "cli/db.py": "from ..ops import upkeep\nfrom ..store import url\n",
        },
    )
    problems, _ = check_imports.findings(tmp_path)
    text = "\n".join(problems)
    assert "knowledge/brief.py:1: knowledge imports legal_ai.ops.upkeep (operations)" in text
    assert "ops/worker.py:1: operations imports legal_ai.app (composition)" in text
    assert "legal_ai.cli.db: legal_ai.store: an interface imports store/ directly" in text
    assert "circle of 2 modules: legal_ai.knowledge.brief legal_ai.ops.upkeep" in text
    assert "ops/upkeep.py" not in text and "app.py:" not in text  # store, knowledge; ops
    assert len(problems) == 4, problems
