"""The one Hebrew catalog (catalog.py) against what raises: every code given in src/ (a raise
site's `code=`, a class's `code = ...`, a code chosen in a function) and every rule a migration's
RAISE names (CONSTRAINT) has its entry, and no entry is left that nothing raises."""

import ast
import re
from pathlib import Path

from legal_ai import catalog, errors

SRC = Path(errors.__file__).resolve().parent
MIGRATIONS = SRC / "store" / "migrations"
_CODE = re.compile(r"^[a-z_]+(\.[a-z_]+)*$")


def _strings(node: ast.AST) -> list[str]:
    """The string constants a value may be (a conditional's branches too)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, ast.IfExp):
        return _strings(node.body) + _strings(node.orelse)
    if isinstance(node, ast.BoolOp):  # code or "request.refused"
        return [s for value in node.values for s in _strings(value)]
    return []


def codes_in_src() -> set[str]:
    found: set[str] = set()
    for path in SRC.rglob("*.py"):
        if path.name == "catalog.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.keyword) and node.arg == "code":
                found.update(_strings(node.value))
            elif isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == "code" for t in node.targets
            ):
                found.update(_strings(node.value))
            elif isinstance(node, ast.Assign) and isinstance(node.value, ast.Dict):
                if any(isinstance(t, ast.Name) and t.id.endswith("CODES") for t in node.targets):
                    for value in node.value.values:  # a table of codes (web/errors.HTTP_CODES)
                        found.update(_strings(value))
            elif isinstance(node, ast.FunctionDef):  # a default: def f(..., code="file.type")
                args = node.args
                for arg, default in zip(args.args[::-1], args.defaults[::-1], strict=False):
                    if arg.arg == "code":
                        found.update(_strings(default))
    return {code for code in found if _CODE.match(code)}


def rules_in_migrations() -> set[str]:
    text = "\n".join(p.read_text(encoding="utf-8") for p in MIGRATIONS.glob("*.sql"))
    return set(re.findall(r"CONSTRAINT = '(\w+)'", text))


def test_every_code_raised_has_hebrew():
    raised = codes_in_src()
    assert len(raised) > 60
    assert sorted(raised - set(catalog.PYTHON)) == []


def test_every_rule_of_the_gates_has_hebrew_and_every_entry_is_used():
    rules = rules_in_migrations()
    assert len(rules) >= 80
    assert sorted(rules ^ set(catalog.GATES)) == []
    unused = set(catalog.PYTHON) - codes_in_src() - {"gate.refused"}
    assert sorted(unused) == []
    latin = {w for e in catalog.CATALOG.values() for w in re.findall(r"[A-Za-z]+", e.hebrew)}
    # the file kinds she knows by name, and the program that reads the old ones
    assert latin <= {"DOCX", "DOC", "RTF", "ODT", "HTML", "PDF", "UTF", "Word", "LibreOffice", "a"}


def test_a_gate_code_comes_from_the_rule_the_database_named():
    class Diag:
        constraint_name = "lesson_veto_chair"

    class Refusal(Exception):
        diag = Diag()

    assert errors.gate_code(Refusal()) == "gate.lesson_veto_chair"
    Diag.constraint_name = "lessons_status_check"  # a table's own CHECK: no rule of ours
    assert errors.gate_code(Refusal()) == "gate.refused"
    refused = errors.InvalidInput("the query is empty", code="query.empty")
    assert catalog.of(refused) == ("query.empty", "query", "השאילתה ריקה: כתבי מה לחפש")
    assert catalog.of(errors.NotFound("no case 3"))[0] == "not_found"
    assert errors.TooLarge("over").field == "file"


def test_the_api_docs_list_every_code():
    page = (SRC.parents[1] / "docs" / "api.md").read_text(encoding="utf-8")
    listed = set(re.findall(r"^\| `([a-z_.]+)` \|", page, re.M))
    assert sorted(listed ^ set(catalog.PYTHON)) == []
    # each row says what the catalog says: the field and the Hebrew
    rows = re.findall(r"^\| `([a-z_.]+)` \| *([^|]*?) *\| *(.*?) *\|$", page, re.M)
    said = {code: (field.strip("`") or None, hebrew) for code, field, hebrew in rows}
    differ = [
        code
        for code, entry in catalog.PYTHON.items()
        if said.get(code) != (entry.field, entry.hebrew)
    ]
    assert differ == []
