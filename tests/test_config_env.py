"""The settings' environment (issue 32 item 6): an environment file read by systemd's rules for
EnvironmentFile= (systemd.exec(5): comments, quoting, escapes, continuation; no `export`, no
`$NAME` expansion), a `LEGAL_AI_*` variable that is no setting named with the nearest real one,
an empty value unset for every setting, a malformed one said in one line. Pure: no database."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from pydantic import ValidationError

from legal_ai.config import Settings, env_names
from legal_ai.config_env import parse_env_file, problem, read, service_environ, unknown
from legal_ai.errors import InvalidInput

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("A=plain", "plain"),
        ("  A =  blanks around  \n", "blanks around"),  # leading and trailing blanks dropped
        ('A=עו"ד נועה כהן', 'עו"ד נועה כהן'),  # Hebrew, a quote inside, blanks: as written
        ("A=x # not a comment", "x # not a comment"),  # `#` starts a comment only a line
        ("A='verbatim \\ $HOME \"q\"'", 'verbatim \\ $HOME "q"'),
        ('A="esc \\" \\\\ \\$ \\` kept \\n"', 'esc " \\ $ ` kept \\n'),
        ('A="two\nlines"', "two\nlines"),  # a quoted value spans lines
        ("A=joined \\\nline", "joined line"),  # a backslash at the end continues the line
        ("A=back\\slash", "backslash"),  # unquoted: a backslash keeps what follows
        ("A=\"a\" 'b' c", "abc"),  # quoted parts and a run, joined
        ("A=it's", "it's"),  # a quote inside an unquoted run is a character
        ("A=", ""),
        ("A=1\nA=2", "2"),  # the last assignment wins
        ("A=x\r\n", "x"),  # CRLF
    ],
)
def test_values_by_systemds_rules(text, value):
    parsed = parse_env_file(text)
    assert parsed.values == {"A": value} and parsed.ignored == []


def test_comments_and_lines_systemd_drops():
    parsed = parse_env_file(
        "# a comment\n; another\n   # indented\nexport B=1\nno assignment\n2X=3\nC=ok\n"
    )
    assert parsed.values == {"C": "ok"}
    assert [line.split(":")[0] for line in parsed.ignored] == ["line 4", "line 5", "line 6"]
    assert "without `export`" in parsed.ignored[0] and "no `=`" in parsed.ignored[1]


def test_env_example_parses_clean_and_names_only_settings():
    """The shipped file as systemd reads it, and filled in (every commented line uncommented):
    nothing dropped, no variable that is no setting (provider keys aside)."""
    text = (ROOT / "deploy" / "env.example").read_text(encoding="utf-8")
    assert parse_env_file(text).values == {} and parse_env_file(text).ignored == []
    filled = "\n".join(
        line[2:] if re.match(r"# [A-Z_]+=", line) else line
        for line in text.splitlines()
        if line.strip()
    )
    parsed = parse_env_file(filled)
    assert parsed.ignored == [] and "LEGAL_AI_COMMITTEE_CHAIR" in parsed.values
    assert unknown(parsed.values) == []
    assert "," in parsed.values["LEGAL_AI_STYLE_PANEL"]


def test_service_environ_takes_the_file_not_the_shell(tmp_path):
    path = tmp_path / "env"
    path.write_text("LEGAL_AI_BACKUP_KEEP=5\nLEGAL_AI_COMMITTEE_CHAIR=עו\"ד א' ב\n", "utf-8")
    shell = {
        "PATH": "/bin",
        "LEGAL_AI_HOME": "/x",
        "RRF_K": "9",
        "OPENAI_API_KEY": "k",
        "PGHOST": "h",
    }
    environ, parsed = service_environ(path, shell)
    assert environ == {
        "PATH": "/bin",
        "LEGAL_AI_BACKUP_KEEP": "5",
        "LEGAL_AI_COMMITTEE_CHAIR": "עו\"ד א' ב",
    }
    settings = Settings.from_environ(environ)
    assert settings.backup_keep == 5 and settings.rrf_k == Settings.model_fields["rrf_k"].default


def test_unknown_variables_name_the_nearest_setting():
    environ = {
        "LEGAL_AI_BACKUP_KEPE": "3",
        "LEGAL_AI_DATABSE_URL": "x",
        "LEGAL_AI_ZZZZZZZZZZZZ": "1",
        "LEGAL_AI_HOME": "/x",  # a setting
        "legal_ai_backup_dir": "/b",  # read case-insensitively: a setting
        "RRF_K": "3",  # an unprefixed setting
        "LEGAL_AI_TEST_DB": "t",  # the test suite's own
        "OTHER": "1",
    }
    assert unknown(environ) == [
        ("LEGAL_AI_BACKUP_KEPE", "LEGAL_AI_BACKUP_KEEP"),
        ("LEGAL_AI_DATABSE_URL", "LEGAL_AI_DATABASE_URL"),
        ("LEGAL_AI_ZZZZZZZZZZZZ", None),
    ]


def test_empty_is_unset_for_every_setting():
    """Every setting given as an empty variable reads as its default (LEGAL_AI_BACKUP_DIR= is
    no backup folder, not the working directory)."""
    empty = {names[0]: "" for names in env_names().values()}
    got, default = Settings.from_environ(empty), Settings.from_environ({})
    assert got == default and got.backup_dir is None


def test_a_malformed_setting_is_one_line():
    with pytest.raises(InvalidInput) as caught:
        read({"LEGAL_AI_BACKUP_KEEP": "abc", "LEGAL_AI_OCR_DPI": "9999"})
    line = str(caught.value)
    assert "\n" not in line and caught.value.exit_code == 2
    assert "LEGAL_AI_BACKUP_KEEP='abc': expects a whole number" in line
    assert "LEGAL_AI_OCR_DPI='9999': expects less than or equal to 600" in line
    with pytest.raises(ValidationError) as raw:
        Settings.from_environ({"MULTIMODAL_ENABLED": "perhaps"})
    assert "MULTIMODAL_ENABLED='perhaps': expects true or false" in problem(
        raw.value, {"MULTIMODAL_ENABLED": "perhaps"}
    )
