"""The types, checked: mypy over src/legal_ai ([tool.mypy] in pyproject.toml), against a baseline.

Everything below the interfaces (text/, config, errors, store/, providers/, retrieval/, ingest/,
evaluation/, learning/, knowledge/, the session modules) must be clean. The interfaces (cli/,
web/, ops/, mcp_*.py, demo.py, app.py) may still carry the errors listed in
scripts/mypy-baseline.txt — one line per error, without its line number, so that an edit above it
does not change the file — and that list may only shrink:

- an error not in the baseline (or more of one than it lists) fails, and so does any error
  below the interfaces;
- a baseline line mypy no longer reports fails too, until the baseline is rewritten without it:
  `python scripts/check_types.py --write` (it refuses while an error below the interfaces is
  left). Commit the shorter file with the fix.

mypy's cache is .mypy_cache (gitignored): a warm run takes seconds.
"""

from __future__ import annotations

import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BASELINE = ROOT / "scripts" / "mypy-baseline.txt"
# The interfaces (DESIGN.md §2): the only modules the baseline may list.
INTERFACES = re.compile(r"src/legal_ai/(cli/|web/|ops/|mcp_[^/]*\.py|demo\.py|app\.py)")
# `path:line: error: message  [code]` (notes and the summary line are not errors).
ERROR = re.compile(r"^(?P<path>[^:]+):\d+(?::\d+)?: error: (?P<rest>.*)$")


def errors() -> list[str]:
    """mypy's errors as baseline lines: `path: error: message  [code]`."""
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--no-pretty", "--no-error-summary"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode not in (0, 1):  # 2: mypy itself failed (a bad configuration)
        sys.stderr.write(done.stdout + done.stderr)
        raise SystemExit(2)
    found = []
    for line in done.stdout.splitlines():
        match = ERROR.match(line)
        if match:
            found.append(f"{match['path']}: error: {match['rest']}")
    return sorted(found)


def main(argv: list[str]) -> int:
    current = errors()
    below = [e for e in current if not INTERFACES.match(e)]
    if below:
        print("\n".join(below))
        print(
            f"types: {len(below)} error(s) below the interfaces, where none may be "
            "(fix them; the baseline is only for cli/, web/, ops/, mcp_*.py, demo.py, app.py)"
        )
        return 1
    if "--write" in argv:
        BASELINE.write_text("".join(f"{e}\n" for e in current), encoding="utf-8")
        print(f"types: {BASELINE.relative_to(ROOT)} rewritten, {len(current)} error(s)")
        return 0
    listed = Counter(BASELINE.read_text(encoding="utf-8").splitlines())
    found = Counter(current)
    new = found - listed
    gone = listed - found
    if new:
        print("\n".join(sorted(new.elements())))
        print(f"types: {sum(new.values())} new error(s) (fix them; the baseline may only shrink)")
        return 1
    if gone:
        print("\n".join(sorted(gone.elements())))
        print(
            f"types: {sum(gone.values())} baseline error(s) fixed: shrink the baseline with "
            "`python scripts/check_types.py --write` and commit it"
        )
        return 1
    print(f"types: clean below the interfaces; {len(current)} baseline error(s) left above")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
