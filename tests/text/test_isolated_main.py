"""A reading child does not import again what the process's main script imported: the fork
server imports it once (text/isolated.py `main_imports`). Before Python 3.13 multiprocessing never
preloads `__main__` in the fork server, and every child runs the main script again before its
target; for `legal-ai`'s console script that imported the whole application, 0.7 s a file."""

from __future__ import annotations

import os
import runpy
import subprocess
import sys
import types
from pathlib import Path

import legal_ai
from legal_ai.text import clock, isolated

SRC = Path(legal_ai.__file__).resolve().parents[1]

# A module whose every import is written down: the main script below imports it at its top.
WITNESS = """
import os
with open(os.environ["WITNESS_LOG"], "a", encoding="utf-8") as log:
    log.write(f"{os.getpid()}\\n")
"""

MAIN = """
import witness
from legal_ai.text import isolated

if __name__ == "__main__":
    import sys
    from pathlib import Path
    for name in sys.argv[1:]:
        print(isolated.read(Path(name)).text)
"""


def test_children_find_the_main_scripts_imports_imported(tmp_path):
    (tmp_path / "witness.py").write_text(WITNESS, encoding="utf-8")
    script = tmp_path / "reader.py"
    script.write_text(MAIN, encoding="utf-8")
    files = []
    for i, word in enumerate(("שלום", "ערר", "החלטה")):
        files.append(tmp_path / f"{i}.txt")
        files[-1].write_text(word, encoding="utf-8")
    log = tmp_path / "imports.log"
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(tmp_path), str(SRC)]),
        "WITNESS_LOG": str(log),
    }
    done = subprocess.run(
        [sys.executable, str(script), *map(str, files)],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["שלום", "ערר", "החלטה"]  # each read by a child
    importers = log.read_text(encoding="utf-8").split()
    # The script's own process and the fork server, once each; not once more per file.
    assert len(importers) == len(set(importers)) == 2, importers


def test_a_module_the_fork_server_would_find_elsewhere_is_left_to_the_child(tmp_path):
    """The fork server's search path starts at the working folder; a file there named as a
    module the script imported from elsewhere is not what the script imported. The fork server
    leaves it alone, and each child imports the script's own (its search path is the script's)."""
    own, work = tmp_path / "own", tmp_path / "work"
    own.mkdir(), work.mkdir()
    (own / "witness.py").write_text(WITNESS, encoding="utf-8")
    (work / "witness.py").write_text(WITNESS.replace("{os.getpid()}", "SHADOW"), encoding="utf-8")
    script = own / "reader.py"
    script.write_text(MAIN, encoding="utf-8")
    files = [work / f"{i}.txt" for i in range(2)]
    for path in files:
        path.write_text("ערר", encoding="utf-8")
    log = tmp_path / "imports.log"
    done = subprocess.run(
        [sys.executable, str(script), *map(str, files)],
        cwd=work,
        env={**os.environ, "PYTHONPATH": str(SRC), "WITNESS_LOG": str(log)},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["ערר", "ערר"]
    importers = log.read_text(encoding="utf-8").split()
    assert "SHADOW" not in importers and len(importers) == 3  # the script's process, each child


def test_the_console_scripts_import_is_preloaded():
    script = Path(sys.executable).parent / "legal-ai"
    main = types.ModuleType("__main__")
    main.__file__ = str(script)
    vars(main).update(runpy.run_path(str(script), run_name="__mp_main__"))
    assert "legal_ai.cli" in isolated.main_imports(main)


def test_mains_a_child_leaves_alone_preload_nothing():
    main = types.ModuleType("__main__")
    main.parse_day, main.os, main.limit = clock.parse_day, os, 3
    assert isolated.main_imports(main) == []  # `python -c`: no file
    main.__file__ = "/srv/legal-ai/venv/bin/legal-ai"
    assert isolated.main_imports(main) == ["legal_ai.text.clock", "os"]
    main.__spec__ = types.SimpleNamespace(name="pytest.__main__")  # python -m pytest
    assert isolated.main_imports(main) == []
    main.__spec__ = types.SimpleNamespace(name="bench.isolation")  # python -m bench.isolation
    assert isolated.main_imports(main) == ["legal_ai.text.clock", "os"]
    assert isolated.main_imports(None) == []


def test_a_working_folder_that_is_gone_shadows_nothing(tmp_path):
    gone = tmp_path / "gone"
    gone.mkdir()
    probe = (
        "import os, sys, types\n"
        "from legal_ai.text import isolated\n"
        "os.rmdir(os.getcwd())\n"
        "main = types.ModuleType('__main__')\n"
        "main.__file__, main.os = '/srv/legal-ai/venv/bin/legal-ai', os\n"
        "print(isolated.main_imports(main))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe],
        cwd=gone,
        env={**os.environ, "PYTHONPATH": str(SRC)},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "['os']"
