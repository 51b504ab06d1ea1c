"""What a systemd unit runs, for the stand-ins of tests/systemd_standin.sh (tests/test_office_day.py
runs docs/deployment.md's day where systemd is not running). Prints bash assignments that the
stand-in `eval`s:

    python systemd_standin.py unit FILE          # a unit file's [Service] and [Install]
    python systemd_standin.py run [-p K=V]...     # systemd-run's transient service

The environment is built as systemd.exec(5) builds a system service's: its default PATH and
the locale, the user's HOME, USER, LOGNAME and SHELL when `User=` is set, then each
`Environment=` line (quoted words, `%t` the runtime directory's root), then each
`EnvironmentFile=` read by legal_ai.config_env.parse_env_file (systemd's rules for that file;
its values win). `STANDIN_STATE_ROOT` and `STANDIN_RUNTIME_ROOT` stand for /var/lib and /run
(StateDirectory=, RuntimeDirectory=, %S, %t)."""

from __future__ import annotations

import os
import pwd
import shlex
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from legal_ai.config_env import parse_env_file

# systemd's default PATH for system services (merged /usr), and its stop timeout.
DEFAULT_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
DEFAULT_STOP_S = 90
# What the stand-ins implement; a unit using anything else of [Service] fails loudly rather
# than running differently from systemd (the sandbox is listed: it is not applied here).
UNSANDBOXED = {
    "UMask", "MemoryMax", "NoNewPrivileges", "PrivateTmp", "PrivateDevices", "PrivateUsers",
    "ProtectSystem", "ReadWritePaths", "ProtectHome", "ProtectKernelTunables",
    "ProtectKernelModules", "ProtectKernelLogs", "ProtectControlGroups", "ProtectClock",
    "ProtectHostname", "ProtectProc", "RestrictAddressFamilies", "RestrictNamespaces",
    "RestrictRealtime", "RestrictSUIDSGID", "LockPersonality", "RemoveIPC",
    "CapabilityBoundingSet", "AmbientCapabilities", "SystemCallArchitectures",
    "SystemCallFilter", "SystemCallErrorNumber", "Restart", "RestartSec",
    "TimeoutStartSec", "StateDirectoryMode", "RuntimeDirectoryMode",
}  # fmt: skip
HANDLED = {
    "User", "Group", "Type", "ExecStart", "PIDFile", "KillSignal", "KillMode",
    "TimeoutStopSec", "Environment", "EnvironmentFile", "StateDirectory", "RuntimeDirectory",
}  # fmt: skip


def sections(text: str) -> dict[str, list[tuple[str, str]]]:
    """A unit file's sections, each a list of (key, value) in order (keys may repeat)."""
    found: dict[str, list[tuple[str, str]]] = {}
    current = None
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line[0] in "#;":
            continue
        if line.startswith("[") and line.endswith("]"):
            current = found.setdefault(line[1:-1], [])
            continue
        key, _, value = line.partition("=")
        assert current is not None and _, f"not a unit file's line: {raw!r}"
        current.append((key.strip(), value.strip()))
    return found


def roots() -> dict[str, str]:
    return {
        "%S": os.environ["STANDIN_STATE_ROOT"],
        "%t": os.environ["STANDIN_RUNTIME_ROOT"],
        "%%": "%",
    }


def specifiers(value: str) -> str:
    for spec, meaning in roots().items():
        value = value.replace(spec, meaning)
    assert "%" not in value, f"a specifier the stand-in does not know: {value!r}"
    return value


def environment(pairs: list[tuple[str, str]]) -> dict[str, str]:
    """The environment systemd gives a service of these [Service] settings."""
    env = {"PATH": DEFAULT_PATH, "LANG": os.environ.get("LANG") or "C.UTF-8"}
    users = [value for key, value in pairs if key == "User"]
    if users:
        user = pwd.getpwnam(users[-1])
        env.update(HOME=user.pw_dir, USER=user.pw_name, LOGNAME=user.pw_name, SHELL=user.pw_shell)
    for key, value in pairs:
        if key == "Environment":
            for word in shlex.split(value):
                name, _, val = word.partition("=")
                env[name] = specifiers(val)
    for key, value in pairs:
        if key == "EnvironmentFile":
            optional, path = value.startswith("-"), Path(value.removeprefix("-"))
            if optional and not path.exists():
                continue
            parsed = parse_env_file(path.read_text(encoding="utf-8"))
            env.update(parsed.values)
    return env


def seconds(value: str) -> int:
    for suffix, factor in (("min", 60), ("s", 1), ("", 1)):
        if value.endswith(suffix) and value[: len(value) - len(suffix)].isdigit():
            return int(value[: len(value) - len(suffix)]) * factor
    raise AssertionError(f"a time span the stand-in does not read: {value!r}")


def bash(name: str, value) -> str:
    if isinstance(value, list):
        return f"{name}=({' '.join(shlex.quote(v) for v in value)})"
    return f"{name}={shlex.quote(str(value))}"


def check_user(pairs: list[tuple[str, str]]) -> None:
    """The stand-ins run everything as this process's user: a unit for another fails."""
    me = pwd.getpwuid(os.getuid()).pw_name
    for key, value in pairs:
        if key in ("User", "Group") and value != me:
            sys.exit(f"stand-in: {key}={value} but this runs as {me} (set SERVICE_USER={me})")


def unit(path: Path) -> list[str]:
    parsed = sections(path.read_text(encoding="utf-8"))
    service, install = parsed.get("Service", []), parsed.get("Install", [])
    unknown = {key for key, _ in service} - HANDLED - UNSANDBOXED
    assert not unknown, f"{path.name}: settings the stand-in does not implement: {unknown}"
    check_user(service)
    last = {key: value for key, value in service}
    argv = shlex.split(last["ExecStart"])
    assert argv[0].startswith("/"), "ExecStart names an absolute path (no -, @, + prefixes)"
    dirs = [
        str(Path(root) / name)
        for key, root in (("StateDirectory", "%S"), ("RuntimeDirectory", "%t"))
        for name in last.get(key, "").split()
        for root in [roots()[root]]
    ]
    required_by = [v for key, value in install if key == "RequiredBy" for v in value.split()]
    return [
        bash("TYPE", last.get("Type", "simple")),
        bash("PIDFILE", specifiers(last.get("PIDFile", ""))),
        bash("KILL_SIGNAL", last.get("KillSignal", "SIGTERM").removeprefix("SIG")),
        bash("KILL_MODE", last.get("KillMode", "control-group")),
        bash("STOP_TIMEOUT", seconds(last.get("TimeoutStopSec", str(DEFAULT_STOP_S)))),
        bash("DIRS", dirs),
        bash("REQUIRED_BY", [name.removesuffix(".service") for name in required_by]),
        bash("ARGV", argv),
        bash("ENVIRON", [f"{k}={v}" for k, v in environment(service).items()]),
    ]


def run(args: list[str]) -> list[str]:
    """systemd-run's transient service: its -p properties (User from --uid)."""
    pairs = []
    while args:
        flag, value, *args = args
        assert flag == "-p", flag
        key, _, val = value.partition("=")
        pairs.append((key, val))
    check_user(pairs)
    return [bash("ENVIRON", [f"{k}={v}" for k, v in environment(pairs).items()])]


def main(argv: list[str]) -> None:
    what, *rest = argv
    lines = unit(Path(rest[0])) if what == "unit" else run(rest)
    print("\n".join(lines))


if __name__ == "__main__":
    main(sys.argv[1:])
