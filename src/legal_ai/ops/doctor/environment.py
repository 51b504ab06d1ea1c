"""The doctor's checks of the environment itself: every `LEGAL_AI_*` variable a setting and each
value well-formed (`settings`; read from the process's environment or, with `--env-file`, from
the units' environment file by systemd's rules), and what the worker's unit needs (`worker`:
no token — one there is ignored, not an error)."""

from __future__ import annotations

from collections.abc import Mapping

from pydantic import ValidationError

from ... import config_env
from ...config import Settings
from .finding import Finding, error, info, ok, warn


def settings(
    environ: Mapping[str, str], parsed: config_env.EnvFile | None = None, source: str = ""
) -> tuple[Settings, Finding]:
    """The settings the other checks run with, and the `settings` finding. A malformed value is
    an error and its default stands in, so that the rest is still checked."""
    where = f" in {source}" if source else ""
    unknown = [config_env.unknown_line(n, near) for n, near in config_env.unknown(environ)]
    ignored = [f"{source or 'the file'}, {line}" for line in (parsed.ignored if parsed else [])]
    try:
        found = Settings.from_environ(environ)
        malformed = None
    except ValidationError as exc:
        malformed = config_env.problem(exc, environ)
        found = Settings.from_environ(config_env.without(environ, config_env.bad_fields(exc)))
    if malformed:
        return found, error(
            "settings",
            "; ".join([malformed + where, *unknown, *ignored]),
            "give it what docs/configuration.md says it takes, or remove it (the other checks "
            "ran with its default)",
        )
    if unknown or ignored:
        return found, warn(
            "settings",
            "; ".join([*unknown, *ignored]),
            "rename or remove each (systemd's rules for the file: docs/deployment.md, "
            '"The environment file")',
        )
    count = sum(1 for k in environ if k.upper().startswith(config_env.PREFIX))
    return found, ok("settings", f"{count} LEGAL_AI_* variable(s){where}, each a setting")


def worker(settings: Settings) -> Finding:
    """`legal-ai worker` needs no token: it is the system and ignores the callers' tokens of the
    environment it shares with `legal-ai serve` (cli/common.py: _system_app)."""
    held = [
        variable
        for variable, value in (
            ("LEGAL_AI_CHAIR_TOKEN", settings.chair_token),
            ("LEGAL_AI_AGENT_TOKEN", settings.agent_token),
            ("LEGAL_AI_API_TOKEN", settings.api_token),
        )
        if value
    ]
    if held:
        return info(
            "worker",
            f"legal-ai worker needs no token and ignores {', '.join(held)} here (for "
            "legal-ai serve): it acts as the system, never as the chair or an agent",
        )
    return ok("worker", "legal-ai worker needs no token (it acts as the system)")
