"""How an item that arrived as an upload (the desk's forms, the API's and MCP's upload) names its
source: `upload:<the file's name as sent>` in its source_path — never the temporary path the
server saved it under, which is gone once it is read — and the name a person is shown or a
download is given: the file's own name, without that label (a colon is no part of a file name
on the chair's computer)."""

from __future__ import annotations

from pathlib import PurePath

PREFIX = "upload:"


def source(name: str) -> str:
    """The source_path of an upload named `name` (its safe name: web/uploads.py)."""
    return PREFIX + name


def is_upload(source_path: str | None) -> bool:
    """Whether `source_path` names an upload (there is no file on the server to read again)."""
    return bool(source_path) and str(source_path).startswith(PREFIX)


def file_name(source_path: str | None) -> str:
    """The file's own name: an upload's as it was sent, a path's last part ("" for none)."""
    if not source_path:
        return ""
    return PurePath(str(source_path).removeprefix(PREFIX)).name
