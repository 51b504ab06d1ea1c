"""Benchmark (issue 31 item 4): what reading an upload in a child process of its own costs.

The same files are read in this process (`extract.extract`, the peer) and in a bounded child
(`isolated.run`) started each of the three ways multiprocessing knows: `forkserver` (the
default: children forked from a server that imported the readers once), `spawn` (a fresh
interpreter a file) and `fork` (a copy of this process); and, by the forkserver, in a process
run as `legal-ai`'s console script runs (`as_console_script_s`: a script whose top imports
`legal_ai.cli`, which every child runs again before it reads; text/isolated.py `main_imports`).
The files: a fixture final as Word
writes it (tests/word_docs.as_word: footnotes, tracked changes, a table), its plain-text version,
and a 1.7 KB-style numbering bomb (a list starting at 440,000,000 in hebrew2) that is refused.
Per method and file: the median seconds of a reading over `--repeat` runs (the forkserver's
start is paid once, before the timed runs, and reported apart), and the median overhead over
the peer. Prints one JSON object.

    .venv/bin/python bench/isolation.py [--repeat 20]

No database.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from legal_ai.errors import AppError  # noqa: E402
from legal_ai.text import extract, isolated  # noqa: E402
from word_docs import NAMESPACES, as_word, p, word_docx  # noqa: E402

BOMB = (
    f'<w:numbering {NAMESPACES}><w:abstractNum w:abstractNumId="0"><w:lvl w:ilvl="0">'
    '<w:start w:val="440000000"/><w:numFmt w:val="hebrew2"/><w:lvlText w:val="%1."/></w:lvl>'
    '</w:abstractNum><w:num w:numId="1"><w:abstractNumId w:val="0"/></w:num></w:numbering>'
)


def files(folder: Path) -> dict[str, Path]:
    text = (ROOT / "tests/fixtures/decisions/arar-8815-25.final.txt").read_text(encoding="utf-8")
    word = as_word(text, [])
    made = {
        "docx": word_docx(folder / "final.docx", word.body, footnotes=word.footnotes),
        "txt": folder / "final.txt",
        "bomb": word_docx(
            folder / "bomb.docx",
            [p("פסקה", num=(1, 0))],
            numbering=True,
            parts={"word/numbering.xml": BOMB.encode()},
        ),
    }
    made["txt"].write_text(text, encoding="utf-8")
    return made


def in_process(path: Path) -> None:
    try:
        extract.extract(path)
    except AppError:
        pass


def timed(call, repeat: int) -> float:
    runs = []
    for _ in range(repeat):
        began = time.perf_counter()
        call()
        runs.append(time.perf_counter() - began)
    return statistics.median(runs)


# A process as `legal-ai` runs: its main script imports the application at its top, as the
# console script pip writes does (`from legal_ai.cli import main`).
CONSOLE = """
import json, statistics, sys, time
from pathlib import Path
from legal_ai.cli import main
from legal_ai.text import isolated

if __name__ == "__main__":
    path, repeat = Path(sys.argv[1]), int(sys.argv[2])
    isolated.run(path)  # the fork server starts
    runs = []
    for _ in range(repeat):
        began = time.perf_counter()
        isolated.run(path)
        runs.append(time.perf_counter() - began)
    print(json.dumps(statistics.median(runs)))
"""


def as_console_script(folder: Path, path: Path, repeat: int) -> float:
    """The median seconds of reading `path` by the forkserver in a process run as the console
    script runs."""
    script = folder / "console.py"
    script.write_text(CONSOLE, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, str(script), str(path), str(repeat)],
        capture_output=True,
        text=True,
        check=True,
        timeout=600,
    )
    return float(done.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args()
    report: dict = {"repeat": args.repeat, "files": {}}
    with tempfile.TemporaryDirectory() as tmp:
        made = files(Path(tmp))
        began = time.perf_counter()
        isolated.run(made["txt"])  # the fork server starts (once per process)
        report["forkserver_start_s"] = round(time.perf_counter() - began, 3)
        for name, path in made.items():
            peer = timed(lambda path=path: in_process(path), args.repeat)
            row = {"bytes": path.stat().st_size, "in_process_s": round(peer, 4)}
            for method in ("forkserver", "spawn", "fork"):
                seconds = timed(
                    lambda m=method, path=path: isolated.run(path, method=m), args.repeat
                )
                row[f"{method}_s"] = round(seconds, 4)
                row[f"{method}_overhead_s"] = round(seconds - peer, 4)
            console = as_console_script(Path(tmp), path, args.repeat)
            row["as_console_script_s"] = round(console, 4)
            row["as_console_script_overhead_s"] = round(console - peer, 4)
            outcome = isolated.run(path)
            row["refused"] = str(outcome.error) if outcome.error else None
            if outcome.peak_rss is not None and outcome.start_rss is not None:
                row["child_rss_growth_mb"] = round(
                    (outcome.peak_rss - outcome.start_rss) / 2**20, 1
                )
            report["files"][name] = row
    print(json.dumps(report, ensure_ascii=False, indent=1))


if __name__ == "__main__":
    main()
