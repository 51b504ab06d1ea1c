"""Dead code is a check (scripts/check runs vulture with [tool.vulture] of pyproject.toml): src/
defines nothing that nothing uses, and the check finds a function nobody calls while a route,
a command and a name in the whitelist pass."""

import subprocess
import sys
from pathlib import Path

from vulture import Vulture

ROOT = Path(__file__).resolve().parent.parent


def test_src_has_no_dead_code():
    found = subprocess.run(
        [sys.executable, "-m", "vulture"], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    dead = [line for line in found.stdout.splitlines() if line.startswith("src/")]
    assert dead == []


def test_a_function_nobody_calls_is_found(tmp_path):
    (tmp_path / "mod.py").write_text(
        "import typer\napp = typer.Typer()\n\n"
        "def used():\n    return 1\n\n"
        "def forgotten():\n    return 2\n\n"
        "@app.command()\ndef serve():\n    return used()\n\n"
        "def read_by_a_template():\n    return 3\n",
        encoding="utf-8",
    )
    (tmp_path / "whitelist.py").write_text("_.read_by_a_template\n", encoding="utf-8")
    scan = Vulture(ignore_decorators=["@app.command"])
    scan.scavenge([str(tmp_path / "mod.py"), str(tmp_path / "whitelist.py")])
    unused = {item.name for item in scan.get_unused_code(min_confidence=60)}
    assert unused == {"forgotten"}
