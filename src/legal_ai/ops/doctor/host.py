"""The doctor's checks of this machine and its settings: the tokens, the programs legal-ai runs
(Tesseract with its languages, pdftotext, LibreOffice if installed, hspell; Chromium is not one), the disk under the data
folder and the newest backup."""

from __future__ import annotations

import shutil
import time
from pathlib import Path

from ...auth import agent_tokens, metrics_token
from ...config import Settings
from ...errors import InvalidInput
from ...text import ocr, office
from .finding import Finding, error, info, ok, warn

MIN_TOKEN = 24  # characters; secrets.token_urlsafe(32) gives 43
NEW_TOKEN = "make one with: python3 -c 'import secrets; print(secrets.token_urlsafe(32))'"
GB = 1024**3
PGDUMP_MAGIC = b"PGDMP"  # the first bytes of a pg_dump custom-format archive


def tokens(settings: Settings) -> Finding:
    """The chair's, the agents' and the metrics scraper's tokens: set, distinct, not short."""
    try:
        agents = agent_tokens(settings)  # token -> agent name; refuses the chair's among them
        scraper = metrics_token(settings)  # refuses one that is also the chair's or an agent's
    except InvalidInput as exc:
        return error("tokens", str(exc), "set each token to a different secret; " + NEW_TOKEN)
    entries = [e for e in (settings.agent_token or "").split(",") if e.strip()]
    given = len(entries) + (1 if settings.api_token else 0)
    chair = settings.chair_token
    if not chair and not agents:
        return error(
            "tokens",
            "no token set: `legal-ai serve` refuses to start, no agent reaches the API or /mcp",
            "set LEGAL_AI_AGENT_TOKEN (name=token,...) and LEGAL_AI_CHAIR_TOKEN; " + NEW_TOKEN,
        )
    if len(agents) < given:
        return error(
            "tokens",
            "two agents share one token: their requests cannot be told apart",
            "give each agent in LEGAL_AI_AGENT_TOKEN (and LEGAL_AI_API_TOKEN) its own token",
        )
    short = [f"agent {name}" for token, name in agents.items() if len(token) < MIN_TOKEN]
    if chair and len(chair) < MIN_TOKEN:
        short.insert(0, "the chair's")
    if scraper and len(scraper) < MIN_TOKEN:
        short.append("the metrics token")
    if short:
        return warn(
            "tokens",
            f"short (under {MIN_TOKEN} characters): {', '.join(short)}",
            "use longer tokens; " + NEW_TOKEN,
        )
    names = ", ".join(sorted(set(agents.values())))
    if not chair:
        return warn(
            "tokens",
            f"agents ({names}) set; LEGAL_AI_CHAIR_TOKEN is not: the chair works through the "
            "desk only, and no script or API call can act as her",
            "set LEGAL_AI_CHAIR_TOKEN if she (or a script of hers) uses the API",
        )
    if not agents:
        return warn(
            "tokens",
            "the chair's token set; no agent token: no agent reaches the API or /mcp",
            "set LEGAL_AI_AGENT_TOKEN (name=token,...) for the writing agents",
        )
    return ok("tokens", f"the chair's and {len(agents)} agent token(s) ({names}) set, all distinct")


def tesseract(settings: Settings) -> Finding:
    problem = ocr.problem(settings)  # Tesseract, poppler's renderers, the languages' data
    if problem:
        return error("tesseract", problem, ocr.INSTALL)
    return ok("tesseract", f"{ocr.engine(settings)}: scanned PDFs are read")


def pdftotext() -> Finding:
    found = shutil.which("pdftotext")
    if found is None:
        return error(
            "pdftotext",
            "poppler's pdftotext is not on PATH: no PDF can be read",
            "apt-get install poppler-utils (or `make install`)",
        )
    return ok("pdftotext", found)


def libreoffice() -> Finding:
    """Optional: .doc, .rtf and .odt are read through it, refused without it."""
    problem = office.problem()
    if problem:
        return info("office", problem)
    return ok("office", f"{office.soffice()}: .doc, .rtf and .odt are read (converted to DOCX)")


def hspell(settings: Settings) -> Finding:
    uses = "hspell" in settings.analyzer
    found = shutil.which("hspell")  # as text/morphology finds it (read now, not its cache)
    if found:
        return ok("hspell", found)
    if not uses:
        return info("hspell", f"not installed; analyzer {settings.analyzer} does not use it")
    return warn(
        "hspell",
        f"not installed: analyzer {settings.analyzer} falls back to its rules without lemmas",
        "apt-get install hspell (or `make install`), then `legal-ai reindex`",
    )


def chromium() -> Finding:
    return info(
        "chromium", "not needed to run legal-ai: only the desk's browser tests use it (make test)"
    )


def _existing(path: Path) -> Path:
    path = path.expanduser().absolute()
    while not path.exists() and path != path.parent:
        path = path.parent
    return path


def disk(settings: Settings) -> Finding:
    """Free space on the file system of the data folder (the embedded database lives there)."""
    where = _existing(settings.home)
    free = shutil.disk_usage(where).free / GB
    text = f"{free:.1f} GB free under {where}"
    if free < settings.disk_error_gb:
        return error(
            "disk",
            f"{text} (below LEGAL_AI_DISK_ERROR_GB={settings.disk_error_gb:g})",
            "free space or move LEGAL_AI_HOME to a larger disk: the database stops when full",
        )
    if free < settings.disk_warn_gb:
        return warn(
            "disk",
            f"{text} (below LEGAL_AI_DISK_WARN_GB={settings.disk_warn_gb:g})",
            "free space, or move LEGAL_AI_HOME to a larger disk",
        )
    return ok("disk", text)


def newest_backup(folder: Path) -> Path | None:
    """The newest pg_dump archive (custom format) in `folder`, by modification time; a backup
    still being written (`.NAME.*.partial`) is not one."""
    newest: tuple[float, Path] | None = None
    for path in folder.iterdir():
        if path.name.startswith(".") or not path.is_file():
            continue
        try:
            with path.open("rb") as f:
                if f.read(len(PGDUMP_MAGIC)) != PGDUMP_MAGIC:
                    continue
            when = path.stat().st_mtime
        except OSError:
            continue
        if newest is None or when > newest[0]:
            newest = (when, path)
    return newest[1] if newest else None


def backup(settings: Settings, now: float | None = None) -> Finding:
    folder = settings.backup_dir
    how = "`legal-ai db backup DIR/legal-ai-$(date +%F).backup`"
    if folder is None:
        return warn(
            "backup",
            "no backup folder set: the last backup's age is unknown",
            f"set LEGAL_AI_BACKUP_DIR to the folder backups go to, and take one: {how}",
        )
    folder = folder.expanduser()
    if not folder.is_dir():
        return warn("backup", f"{folder} is not a folder", f"create it and take a backup: {how}")
    try:
        newest = newest_backup(folder)
    except OSError as exc:
        return warn("backup", f"{folder} cannot be read: {exc.strerror}", "let this user read it")
    if newest is None:
        return warn("backup", f"no backup in {folder}", f"take one: {how}")
    hours = ((time.time() if now is None else now) - newest.stat().st_mtime) / 3600
    text = f"the newest, {newest.name}, is {_age(hours)} old"
    if hours > settings.backup_max_age_hours:
        return warn(
            "backup",
            f"{text} (over LEGAL_AI_BACKUP_MAX_AGE_HOURS={settings.backup_max_age_hours:g})",
            f"take one now ({how}) and check what stopped the schedule",
        )
    return ok("backup", text)


def _age(hours: float) -> str:
    if hours < 1:
        return f"{max(0, round(hours * 60))} min"
    if hours < 48:
        return f"{hours:.0f} h"
    return f"{hours / 24:.0f} days"


def host_checks(settings: Settings) -> list[Finding]:
    """tesseract, pdftotext, office, hspell, chromium, disk, backup (programs on this process's
    PATH)."""
    return [
        tesseract(settings),
        pdftotext(),
        libreoffice(),
        hspell(settings),
        chromium(),
        disk(settings),
        backup(settings),
    ]
