"""What a legal-ai archive may hold: the schema its migrations make, and data.

Before anything of an archive is restored (`legal-ai db restore`, `--check`, the nightly proof),
its table of contents is compared with the schema the migrations produce: on a scratch server
(store/scratch_server.py) a new database is migrated up to the archive's own schema version (the
versions in its `schema_migrations` data) and dumped schema-only; then every entry of the
archive but its data, privileges and comments — tables with their columns, defaults and CHECK
constraints, functions, procedures, triggers, event triggers, rules, policies, constraints,
indexes, views, types, schemas, extensions … — must be an entry of that reference with the same
type, schema and name and the same definition, as pg_restore prints both (`--no-owner`: the
owner is not compared). The first that is not is refused in one line naming it (InvalidInput:
the file is not what `legal-ai db backup` makes of a legal-ai database), nothing restored.

The definitions are read from pg_restore's SQL output, split at its per-entry headers
(`-- Name: …; Type: …; Schema: …; Owner: …`); a definition that carries such a header in its
text is caught because the headers then outnumber the entries asked for.

Not compared: privileges (ACL, DEFAULT ACL) and comments, which run nothing; the data entries'
rows. Checked only for archives of PostgreSQL 18, the scratch server's version: another server
version may print a definition differently, which would be refused (named), not let through.
"""

from __future__ import annotations

import hashlib
import re
import tempfile
from pathlib import Path

from ..errors import InvalidInput, StoreError
from .migrations import available, migrate
from .pg_programs import one_line, run, split
from .scratch_server import ScratchServer

# Entries that run nothing when restored (privileges, comments) or are rows (checked as data).
NOT_COMPARED = {"TABLE DATA", "SEQUENCE SET", "ACL", "DEFAULT ACL", "COMMENT"}
REFERENCE_DATABASE = "reference"
# A line of `pg_restore --list`: "ID; CATALOG OID DESCRIPTION SCHEMA NAME OWNER", where the
# description is one or more upper-case words ("TABLE DATA", "COMMENT") and the schema is "-"
# for objects outside any schema.
TOC_LINE = re.compile(r"^\d+; \d+ \d+ (?P<desc>[A-Z]+(?: [A-Z]+)*) (?P<rest>(?:- |[a-z_\"]).*)$")
_HEADER = re.compile(
    r"^--\n-- (?:Data for )?Name: (?P<name>.*?); Type: (?P<type>[A-Z ]+); "
    r"Schema: (?P<schema>[^;\n]*); Owner: [^;\n]*(?:; Tablespace: [^\n]*)?\n--\n",
    re.MULTILINE,
)
_SETUP = re.compile(  # what pg_restore sets before the next entry, printed after this one
    r"(?:\n(?:SET default_tablespace = '[^'\n]*';|SET default_table_access_method = \w+;)\s*)+\Z"
)
_DUMP_END = "\n--\n-- PostgreSQL database dump complete\n--\n"

Key = tuple[str, str, str]  # (type, schema, name) as pg_restore prints them


def check(file: Path, entries: list[tuple[str, str, str]], server: ScratchServer) -> dict:
    """Refuse `file` (its table of contents `entries`) unless every entry but its data,
    privileges and comments is one the migrations make, with the same definition; nothing is
    restored. Returns {"objects": entries compared, "version": the archive's schema version}."""
    env = split(server.url("postgres"))[1]
    version = schema_version(file, entries, env)
    known = [m.version for m in available()]
    if version > max(known):
        raise InvalidInput(
            f"{file.name} is a backup of schema version {version}, newer than this legal-ai "
            f"knows ({max(known)}): restore it with the release that made it"
        )
    found = definitions(file, entries, env)
    reference = _reference(server, version)
    for key, text in found:
        if key not in reference and practice_area_index(key, text):
            continue
        if key not in reference:
            raise InvalidInput(
                f"{file.name} holds {_named(key)}, which the migrations do not make: refused, "
                "nothing restored (a legal-ai backup holds only its migrations' schema and data)"
            )
        if text not in reference[key]:
            raise InvalidInput(
                f"{file.name} holds {_named(key)} with a definition the migrations do not "
                "make: refused, nothing restored (a legal-ai backup holds only its migrations' "
                "schema and data)"
            )
    return {"objects": len(found), "version": version}


# The one kind of object a live database holds that its migrations did not make: a practice
# area's own HNSW index (migration 0052), made by `practice_area_indexes()` for the areas its
# data hold. Let through only in exactly the form that function makes, its name the md5 of its
# embedder and area: an index of no other shape, table or expression passes.
_AREA_INDEX = re.compile(
    r"CREATE INDEX (?P<name>(?P<table>document_chunks_(?:style|case)|case_law_chunks_"
    r"(?:external|internal))_area_(?P<digest>[0-9a-f]{12})) ON public\.(?P=table) USING hnsw"
    r" \(\(\(embedding\)::public\.vector\(\d{1,5}\)\) public\.vector_cosine_ops\)"
    r" WHERE \(\(embedder = '(?P<embedder>(?:[^'\\]|'')*)'::text\)"
    r" AND \(practice_area = '(?P<area>(?:[^'\\]|'')*)'::text\)\);"
)


def practice_area_index(key: Key, text: str) -> bool:
    """Whether an archive's entry `key` defined by `text` is a practice area's HNSW index as
    `practice_area_indexes()` makes it (migration 0052)."""
    match = _AREA_INDEX.fullmatch(text.strip())
    if key[0] != "INDEX" or key[1] != "public" or match is None or key[2] != match["name"]:
        return False
    embedder, area = (match[g].replace("''", "'") for g in ("embedder", "area"))
    return hashlib.md5(f"{embedder}/{area}".encode()).hexdigest()[:12] == match["digest"]


def _named(key: Key) -> str:
    kind, schema, name = key
    return f"{kind} {name}" if schema == "-" else f"{kind} {schema}.{name}"


def schema_version(file: Path, entries: list[tuple[str, str, str]], env: dict) -> int:
    """The newest migration recorded in the archive's own `schema_migrations` rows (read from
    the archive, nothing restored)."""
    wanted = [
        line
        for line, desc, rest in entries
        if desc == "TABLE DATA" and rest.split()[:2] == ["public", "schema_migrations"]
    ]
    if len(wanted) != 1:
        raise InvalidInput(
            f"{file.name} holds no record of its migrations (schema_migrations rows): it is not "
            "a backup made by `legal-ai db backup`"
        )
    text = _print(file, wanted, env)
    rows = text.split(" FROM stdin;\n", 1)[-1].split("\n\\.\n", 1)[0]
    try:
        versions = [int(row.split("\t", 1)[0]) for row in rows.splitlines() if row]
    except ValueError:
        versions = []
    if not versions:
        raise InvalidInput(f"{file.name}: its record of migrations (schema_migrations) is empty")
    return max(versions)


def definitions(
    file: Path, entries: list[tuple[str, str, str]], env: dict
) -> list[tuple[Key, str]]:
    """Every entry of the archive but its data, privileges and comments, with its definition as
    pg_restore prints it (owners left out), in the archive's order."""
    wanted = [line for line, desc, _ in entries if desc not in NOT_COMPARED]
    text = _print(file, wanted, env)
    end = text.rfind(_DUMP_END)
    if end >= 0 and text[end + len(_DUMP_END) :].strip().startswith("\\unrestrict"):
        text = text[:end]
    headers = list(_HEADER.finditer(text))
    if len(headers) != len(wanted):
        raise InvalidInput(
            f"{file.name}: its definitions cannot be told apart ({len(headers)} headers for "
            f"{len(wanted)} entries): refused, nothing restored"
        )
    found = []
    for i, header in enumerate(headers):
        stop = headers[i + 1].start() if i + 1 < len(headers) else len(text)
        body = _SETUP.sub("\n", text[header.end() : stop]).strip()
        found.append(((header["type"], header["schema"], header["name"]), body))
    return found


def _print(file: Path, lines: list[str], env: dict) -> str:
    """pg_restore's SQL of the entries `lines` of `file` (to stdout: nothing is restored)."""
    with tempfile.NamedTemporaryFile("w", suffix=".list", encoding="utf-8") as listing:
        listing.write("".join(line + "\n" for line in lines))
        listing.flush()
        done = run(
            "pg_restore", ["--no-owner", f"--use-list={listing.name}", "-f", "-", str(file)], env
        )
    if done.returncode != 0:
        raise InvalidInput(
            f"{file.name} is a damaged or incomplete backup: its contents cannot be read "
            f"({one_line(done.stderr)})"
        )
    return done.stdout


def _reference(server: ScratchServer, version: int) -> dict[Key, list[str]]:
    """The definitions the migrations up to `version` make: a new database on the scratch server
    migrated (as its superuser: the migrations are ours, not the archive's) and dumped."""
    server.create_database(REFERENCE_DATABASE)
    url = server.url(REFERENCE_DATABASE, superuser=True)
    migrate(url, until=version)
    dsn, env = split(url)
    with tempfile.TemporaryDirectory(prefix="legal-ai-reference-") as folder:
        dump = Path(folder) / "reference.backup"
        done = run(
            "pg_dump",
            ["--format=custom", "--schema-only", "--no-password", f"--file={dump}", "-d", dsn],
            env,
        )
        if done.returncode != 0:
            raise StoreError(f"the migrations' schema could not be read: {one_line(done.stderr)}")
        listed = run("pg_restore", ["--list", str(dump)], env)
        lines = [ln for ln in listed.stdout.splitlines() if ln and not ln.startswith(";")]
        entries = []
        for line in lines:
            match = TOC_LINE.match(line)
            if match:
                entries.append((line, match["desc"], match["rest"]))
        made: dict[Key, list[str]] = {}
        for key, text in definitions(dump, entries, env):
            made.setdefault(key, []).append(text)
    return made
