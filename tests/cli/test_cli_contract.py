"""The command-line contract (DESIGN §10, issue 20): every command and sub-command of `legal-ai`,
found by walking the Typer app itself, prints the `--help` recorded in tests/cli/data/cli_help.json,
and the JSON keys §10 promises are still the ones it names. Pure: no database, no server; the
help is rendered in-process, at a fixed width, without colour.

The snapshot is the contract, not a cache: regenerate it only for a deliberate CLI change, and
say so in the commit and in DESIGN §10 / the README (a refactor must leave it byte-identical):

    .venv/bin/python tests/cli/test_cli_contract.py --write
"""

from __future__ import annotations

import difflib
import json
import os
import re
import sys
import typing
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from legal_ai.evaluation.harness import EvalReport
from legal_ai.ingest.pipeline import IngestAnswer
from legal_ai.learning.checks.citation_states import SEVERITY
from legal_ai.learning.checks.copy_policy import DraftCheck
from legal_ai.learning.engine.job_report import LearningRun
from legal_ai.learning.lessons.panel_stats import PanelStats
from legal_ai.learning.pairs.drafts import DraftAdded
from legal_ai.learning.pairs.finals import FinalUploaded, History
from legal_ai.learning.principles.extraction import ExtractReport
from legal_ai.learning.principles.review import PrincipleList
from legal_ai.learning.principles.synthesis import SynthesisReport
from legal_ai.ops.health import Health
from legal_ai.ops.scheduler import JobList
from legal_ai.ops.upkeep import AppReindex
from legal_ai.retrieval.contract import SearchAnswer
from legal_ai.text.treatment import KINDS

SNAPSHOT = Path(__file__).parent / "data" / "cli_help.json"
PROG = "legal-ai"
WIDTH = 100
DESIGN = Path(__file__).resolve().parents[3] / "shared" / "DESIGN.md"  # ../shared beside the clone

# DESIGN §10's `--json` keys, command by command (the row whose first cell names the command).
# Extend, never rename: a key dropped from DESIGN, or a row renamed, fails below.
# A table: one command a row reads better than the formatter's one key a line.
# fmt: off
JSON_KEYS: dict[str, list[str]] = {
    "ingest": ["ingested", "unchanged", "unsearchable", "doc_id", "missing", "failed", "path",
               "error"],
    "search": ["hits", "dropped_by_cap"],
    "health": ["unsearchable", "stale_embeddings", "missing_embeddings", "isolation", "checked",
               "leaks"],
    "reindex": ["reembedded"],
    "draft add": ["case_number", "pair_status", "blocks"],
    "final upload": ["case_number", "pair_status", "case_law_id", "citations", "linked", "missing",
                     "history_row"],
    "learning history": ["rows", "case_number", "captured_at", "anti_pattern_total",
                         "ratio_deviation", "change_percent", "lesson_pool_size"],
    "learning run": ["cases", "proposed", "auto_approved", "needs_chair", "rejected", "pending",
                     "case_number", "reason", "model_calls"],
    "learning panel-stats": ["items", "agreement", "kappa", "ac1", "coverage", "reversal_rate"],
    "principles extract": ["candidates", "approved", "pending_review", "rejected", "linked",
                           "capped", "dropped_quotes"],
    "principles list": ["principles", "id", "term", "rule_text", "supporting_quote", "page",
                        "votes", "score", "review_status", "occurrences"],
    "principles synthesize": ["attempted", "accepted", "abstained", "drift_rejected"],
    "jobs list": ["jobs", "name", "schedule", "next_run", "last_run", "last_outcome"],
    "draft check": ["citations", "text", "ref", "status", "problems", "verified", "doc_id",
                    "treatment", "kind", "by", "confirmed"],
}
# fmt: on


def _root_command():
    """The click command behind the public Typer app `legal_ai.cli.app` (what `main()` runs)."""
    import typer

    from legal_ai.cli import app

    return app, typer.main.get_command(app)


def command_paths() -> list[tuple[str, ...]]:
    """Every command path, sub-commands recursively, read from the app itself (never listed by
    hand): () for `legal-ai`, ("db", "url") for `legal-ai db url`, hidden ones included."""
    import typer

    _, root = _root_command()
    found: list[tuple[str, ...]] = []

    def walk(command, path: tuple[str, ...], ctx) -> None:
        found.append(path)
        if not hasattr(command, "list_commands"):  # a leaf command, not a group
            return
        for name in command.list_commands(ctx):
            sub = command.get_command(ctx, name)
            walk(sub, (*path, name), typer.Context(sub, info_name=name, parent=ctx))

    walk(root, (), typer.Context(root, info_name=PROG))
    return found


@contextmanager
def _plain_fixed_width() -> Iterator[None]:
    """Typer's rich help at WIDTH columns and without ANSI codes, whatever the environment
    (TERMINAL_WIDTH, FORCE_COLOR and GITHUB_ACTIONS are read once, when typer is imported)."""
    try:
        from typer import rich_utils
    except ImportError:  # typer without rich: plain click help, COLUMNS is enough
        yield
        return
    pinned = {"MAX_WIDTH": WIDTH, "FORCE_TERMINAL": False, "COLOR_SYSTEM": None}
    saved = {name: getattr(rich_utils, name) for name in pinned if hasattr(rich_utils, name)}
    try:
        for name in saved:
            setattr(rich_utils, name, pinned[name])
        yield
    finally:
        for name, value in saved.items():
            setattr(rich_utils, name, value)


_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def help_texts() -> dict[str, str]:
    """`legal-ai ... --help` of every command path, keyed by the command as typed."""
    from typer.testing import CliRunner

    _, root = _root_command()  # built once: CliRunner.invoke would build it for every path
    env = {"COLUMNS": str(WIDTH), "LINES": "50", "NO_COLOR": "1", "TERM": "dumb"}
    texts: dict[str, str] = {}
    with _plain_fixed_width():
        for path in command_paths():
            key = " ".join((PROG, *path))
            with CliRunner().isolation(env=env) as (_, _, output):
                try:
                    root.main(args=[*path, "--help"], prog_name=PROG)
                    code = 0
                except SystemExit as exit_:
                    code = exit_.code or 0
                sys.stdout.flush()
                text = output.getvalue().decode("utf-8")
            if code != 0:
                raise AssertionError(f"`{key} --help` exited {code}:\n{text}")
            texts[key] = _ANSI.sub("", text)
    return texts


def _load_snapshot() -> dict[str, str]:
    return json.loads(SNAPSHOT.read_text(encoding="utf-8"))


def test_every_command_path_is_the_recorded_one():
    current = {" ".join((PROG, *path)) for path in command_paths()}
    recorded = set(_load_snapshot())
    assert current == recorded, (
        f"commands added: {sorted(current - recorded)}; gone: {sorted(recorded - current)}"
        " (a deliberate change: regenerate with `python tests/cli/test_cli_contract.py --write`)"
    )


def test_every_help_text_is_the_recorded_one():
    current, recorded = help_texts(), _load_snapshot()
    for key in sorted(set(current) & set(recorded)):
        if current[key] != recorded[key]:
            diff = "".join(
                difflib.unified_diff(
                    recorded[key].splitlines(keepends=True),
                    current[key].splitlines(keepends=True),
                    fromfile=f"{key} --help (recorded)",
                    tofile=f"{key} --help (now)",
                )
            )
            changed = [k for k in sorted(set(current) & set(recorded)) if current[k] != recorded[k]]
            pytest.fail(
                f"`{key} --help` changed ({len(changed)} command(s) differ: {changed}):\n{diff}"
                "(a deliberate change: regenerate with `python tests/cli/test_cli_contract.py --write`)",
                pytrace=False,
            )


def test_the_json_commands_exist_and_take_json():
    recorded = _load_snapshot()
    for command in JSON_KEYS:
        key = f"{PROG} {command}"
        assert key in recorded, f"DESIGN §10's `{key}` is no command"
        assert "--json" in recorded[key], f"`{key}` has no --json option"


def _section_10_rows() -> list[list[str]]:
    """The cells of each row of DESIGN §10's table (a `\\|` inside a cell is not a border)."""
    if not DESIGN.is_file():
        message = f"DESIGN.md not present: {DESIGN} (../shared beside the clone)"
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI: {message}", pytrace=False)
        pytest.skip(message)
    text = DESIGN.read_text(encoding="utf-8")
    start = text.index("## 10. Command-line contract")
    end = text.find("\n## ", start + 1)
    lines = text[start : end if end > 0 else None].splitlines()
    return [
        [cell.strip() for cell in re.split(r"(?<!\\)\|", line)[1:-1]]
        for line in lines
        if line.startswith("|")
    ]


def test_design_still_names_the_json_keys():
    rows = _section_10_rows()
    for command, keys in JSON_KEYS.items():
        cells = next((c for c in rows if c[0].startswith(f"`legal-ai {command}")), None)
        assert cells is not None, f"DESIGN §10 has no row for `legal-ai {command}`"
        json_cell = cells[-1]
        missing = [k for k in keys if f'"{k}"' not in json_cell]
        assert not missing, f"DESIGN §10's `legal-ai {command}` no longer names {missing}"


def test_a_citations_states_and_treatments_are_designs():
    """`draft check --json`: the states a citation's `status` takes and the kinds of its
    `treatment` are the ones DESIGN §10 lists (each a `Literal` the code is checked against)."""
    cell = next(c for c in _section_10_rows() if c[0].startswith("`legal-ai draft check"))[-1]
    states = cell[cell.index("`status` ∈") : cell.index("; `treatment`")]
    assert set(re.findall(r"`(\w+)`", states)) - {"status"} == set(SEVERITY)
    kinds = cell[cell.index('{"kind":') : cell.index('"by"')]
    assert set(re.findall(r'"(\w+)"', kinds)) - {"kind"} == set(KINDS)


# The answers typed as TypedDicts (docs/development.md, "JSON contracts").
TYPED = {
    "ingest": IngestAnswer,
    "search": SearchAnswer,
    "reindex": AppReindex,
    "learning run": LearningRun,
    "learning panel-stats": PanelStats,
    "principles extract": ExtractReport,
    "principles synthesize": SynthesisReport,
    "draft add": DraftAdded,
    "final upload": FinalUploaded,
    "learning history": History,
    "principles list": PrincipleList,
    "jobs list": JobList,
    "health": Health,
    "draft check": DraftCheck,
}


def _typed_keys(hint) -> set[str]:
    """Every key a TypedDict names, its nested TypedDicts' (in lists, dicts, unions, and a
    generic one's, `Listing[Row]`: its own and its rows') too."""
    keys: set[str] = set()
    if typing.is_typeddict(typing.get_origin(hint)):
        keys |= _typed_keys(typing.get_origin(hint))
    if typing.is_typeddict(hint):
        for key, inner in typing.get_type_hints(hint).items():
            keys |= {key} | _typed_keys(inner)
    for arg in typing.get_args(hint):
        keys |= _typed_keys(arg)
    return keys


@pytest.mark.parametrize("command", sorted(TYPED))
def test_a_typed_answer_names_designs_keys(command):
    """A key DESIGN §10 names is a key of the answer's type, so a rename fails mypy first."""
    missing = set(JSON_KEYS[command]) - _typed_keys(TYPED[command])
    assert not missing, f"`legal-ai {command} --json`'s type lacks {sorted(missing)}"


def test_evals_answer_is_typed_as_the_cli_reference_names_it():
    """`legal-ai eval --json` (DESIGN §10: "as in §6", whose keys docs/cli.md spells out): every
    key its row names is a key of `EvalReport` — but the modes' and the latencies' own names,
    which are the keys of its dicts."""
    cli_md = Path(__file__).resolve().parents[2] / "docs" / "cli.md"
    row = next(
        line
        for line in cli_md.read_text(encoding="utf-8").splitlines()
        if line.startswith("| `legal-ai eval --corpus")
    )
    named = set(re.findall(r'"([\w@+]+)"', row.split(" | ")[-1])) - {"hybrid", "k10", "k100"}
    assert named and not named - _typed_keys(EvalReport), sorted(named - _typed_keys(EvalReport))


if __name__ == "__main__":
    if sys.argv[1:] != ["--write"]:
        sys.exit(f"usage: {sys.argv[0]} --write   (records the CLI help of the imported legal_ai)")
    import legal_ai

    texts = help_texts()
    SNAPSHOT.parent.mkdir(parents=True, exist_ok=True)
    SNAPSHOT.write_text(
        json.dumps(dict(sorted(texts.items())), ensure_ascii=False, indent=2) + "\n",
        encoding="utf-8",
    )
    print(f"wrote {len(texts)} commands of {legal_ai.__file__} to {SNAPSHOT}")
