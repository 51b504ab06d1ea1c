"""The office's day (issue 32, "Done when"): docs/deployment.md's script, the one `bash` block of
"The office's day", extracted as it stands and run here — the wheel installed into a fresh
venv by the venv's own pip, the environment file from deploy/env.example with fresh tokens and
an unquoted Hebrew value, the three units of deploy/ installed and started (the embedded
database legal-ai-db, serve, the worker), `legal-ai doctor --env-file` clean, `/readyz` 200, the
database stopped and started under the running services (`/readyz` 503 during, 200 after, the
worker's pid the same), `db backup` and its proof `db restore --check`, `/metrics` scraped with
its token (`legal_ai_database_up 1`), and the upgrade to the next release's wheel. Then what
the day left: the environment file read by systemd's rules, the venv at the next version, the
two backups, and the worker's `database_lost` / `database_back` lines from the restart.

systemd is not running here (a container) and a test writes nothing outside its temporary
folder, so:
- the script's paths point into that folder (its variables, whose defaults are the server's:
  the units are installed with the paths written in, as the script does for any host);
- `sudo`, `systemctl` and `systemd-run` are bash functions sourced before it
  (tests/systemd_standin.sh, unit facts by tests/systemd_standin.py) that do what systemd would
  as far as the day relies on it: `systemctl start UNIT` runs the installed unit's ExecStart with
  the environment systemd gives it (its Environment= lines, then its EnvironmentFile= read by
  legal_ai.config_env.parse_env_file, systemd's rules) in the background (Type=forking: the
  start command waited for, the main pid from PIDFile=), making StateDirectory= and
  RuntimeDirectory= first; `stop` sends KillSignal and waits (TimeoutStopSec=, then SIGKILL),
  stopping first what requires the unit (RequiredBy= once enabled) unless
  --job-mode=ignore-dependencies; `restart` both; `systemd-run -p EnvironmentFile=F CMD` runs
  CMD with that environment; `sudo -u USER` runs as this user and refuses any other. Not
  replaced, because there is nothing to stand in with: the sandbox (Protect*, Private*,
  ReadWritePaths: not applied), cgroups, Restart=, the journal (each unit's output in a file),
  and the service user (SERVICE_USER is this test's user; the units are installed with it).
The upgrade: the day starts at this tree's release and upgrades to this tree rebuilt as the
next version (wheels.build_bumped_wheel: the same code, no new migration, so `db migrate`
applies nothing). Starting at 0.1.0 would not be the day the docs describe: 0.1.0 has no
`--version`, no `doctor --env-file`, no `/readyz` and no `legal-ai-db` unit. The upgrade with
migrations, 0.1.0's wheel to this one, is tests/test_wheel.py's."""

from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

import legal_ai
from legal_ai.config_env import parse_env_file
from wheels import ROOT, build_bumped_wheel, build_wheel, clean_env, next_version

pytestmark = pytest.mark.slow

HEADING = "## The office's day"
BASH = re.compile(r"```bash\n(.*?)```", re.S)
STANDIN = ROOT / "tests" / "systemd_standin.sh"
UNITS = ("legal-ai-serve", "legal-ai-worker", "legal-ai-db")  # stopped in this order
CHAIR = 'עו"ד נועה כהן'


def day_script() -> str:
    """The one bash block of docs/deployment.md's "The office's day"."""
    doc = (ROOT / "docs" / "deployment.md").read_text(encoding="utf-8")
    start = doc.index(f"\n{HEADING}\n")
    end = doc.find("\n## ", start + 1)
    blocks = BASH.findall(doc[start : end if end > 0 else len(doc)])
    assert len(blocks) == 1, "the day is one script"
    return blocks[0]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def stop(pid: int, sig: int, group: bool, seconds: float) -> None:
    """`sig` to `pid` (or its process group), SIGKILL after `seconds`."""
    for signum, wait in ((sig, seconds), (signal.SIGKILL, 10)):
        if not alive(pid):
            return
        try:
            os.killpg(pid, signum) if group else os.kill(pid, signum)
        except ProcessLookupError:
            return
        deadline = time.monotonic() + wait
        while alive(pid) and time.monotonic() < deadline:
            time.sleep(0.1)


def test_script_defaults_name_this_release():
    script = day_script()
    version = legal_ai.__version__
    assert f"WHEEL=${{WHEEL:-legal_ai-{version}-py3-none-any.whl}}" in script
    assert f"legal_ai-{next_version(version)}-py3-none-any.whl" in script
    assert script.splitlines()[0] == "#!/usr/bin/env bash" and "set -euo pipefail" in script


def test_the_office_day_runs_as_written(tmp_path_factory):
    started = time.monotonic()
    script = day_script()
    version, upcoming = legal_ai.__version__, next_version(legal_ai.__version__)
    root = tmp_path_factory.mktemp("day")  # short: the server's socket lives under it
    upload = root / "upload"  # what was copied to the server: the wheels, the lock, deploy/
    upload.mkdir()
    for wheel in (
        build_wheel(ROOT, tmp_path_factory.mktemp("dist")),
        build_bumped_wheel(upcoming, tmp_path_factory.mktemp("bump"), root / "next"),
    ):
        shutil.copy2(wheel, upload)
    shutil.copy2(ROOT / "requirements.lock", upload)
    shutil.copytree(ROOT / "deploy", upload / "deploy")
    built = time.monotonic() - started

    standin, state_root, units = root / "standin", root / "var" / "lib", root / "etc" / "systemd"
    for folder in (standin, state_root, units / "system", root / "run"):
        folder.mkdir(parents=True)
    paths = {
        "SERVICE_USER": subprocess.run(
            ["id", "-un"], capture_output=True, text=True
        ).stdout.strip(),
        "SRV": root / "srv" / "legal-ai",
        "ETC": root / "etc" / "legal-ai",
        "UNIT_DIR": units / "system",
        "DATA": state_root / "legal-ai",
        "BACKUPS": root / "srv" / "backups" / "legal-ai",
        "PORT": free_port(),
        "NEXT_WHEEL": f"legal_ai-{upcoming}-py3-none-any.whl",
        "STANDIN_DIR": standin,
        "STANDIN_CWD": root,
        "STANDIN_PYTHON": sys.executable,
        "STANDIN_HELPER": ROOT / "tests" / "systemd_standin.py",
        "STANDIN_STATE_ROOT": state_root,
        "STANDIN_RUNTIME_ROOT": root / "run",
    }
    # The venv's pip as the script calls it, told (as a pip.conf could) not to byte-compile
    # the ~5,300 files it installs ahead: each process of the day compiles what it imports, once
    # (pip install: 28 s of CPU -> 15 s). `PIP_NO_COMPILE=0` is pip's spelling of --no-compile:
    # its boolean settings read the variable as the option's value, and that option's is False.
    env = clean_env(PIP_NO_COMPILE="0", **{name: str(value) for name, value in paths.items()})
    day = root / "day.sh"
    day.write_text(f"source {STANDIN}\n{script}", encoding="utf-8")
    pgdata = paths["DATA"] / "pgdata"
    try:
        done = subprocess.run(
            ["bash", str(day)],
            cwd=upload,
            env=env,
            capture_output=True,
            text=True,
            timeout=600,
            start_new_session=True,
        )
        running = {
            unit: (standin / f"{unit}.pid").is_file()
            and alive(int((standin / f"{unit}.pid").read_text()))
            for unit in UNITS
        }
    finally:
        for unit in UNITS:  # what the day left running, as systemctl stop would
            pid_file = standin / f"{unit}.pid"
            if pid_file.is_file():
                pid = int(pid_file.read_text())
                db = unit == "legal-ai-db"
                stop(pid, signal.SIGINT if db else signal.SIGTERM, not db, 120)
        postmaster = pgdata / "postmaster.pid"
        if postmaster.is_file():  # a database the day started some other way
            stop(int(postmaster.read_text().splitlines()[0]), signal.SIGINT, False, 60)
    took = time.monotonic() - started
    logs = "".join(
        f"\n--- {log.name}\n{log.read_text(errors='replace')[-3000:]}"
        for log in sorted(standin.glob("*.log"))
    )
    assert done.returncode == 0, f"{done.stdout[-4000:]}\n{done.stderr[-4000:]}{logs}"
    out = done.stdout
    steps = [line for line in out.splitlines() if line.startswith("== ")]
    assert [s.split()[1] for s in steps] == [f"{n}." for n in range(1, 10)] + ["the"], steps
    assert f"== the day is done: {upcoming} running" in out
    assert "FAILED" not in done.stderr
    assert running == dict.fromkeys(UNITS, True), "the three units ran to the end of the day"
    assert not postmaster.exists(), "the database stopped cleanly"
    # The worker met the outage of step 6 and waited it out (its JSON log lines).
    worker_log = (standin / "legal-ai-worker.log").read_text(encoding="utf-8")
    events = re.findall(r'"event": "(database_lost|database_back)"', worker_log)
    assert events == ["database_lost", "database_back"], worker_log[-3000:]
    assert "Traceback" not in worker_log

    # What the day left: the file as the units read it, the venv at the next release, the
    # backups it proved and took before the upgrade.
    env_file = parse_env_file((paths["ETC"] / "env").read_text(encoding="utf-8"))
    assert env_file.ignored == []
    values = env_file.values
    assert values["LEGAL_AI_COMMITTEE_CHAIR"] == CHAIR  # unquoted Hebrew, as written
    tokens = [values[f"LEGAL_AI_{n}_TOKEN"] for n in ("CHAIR", "METRICS")]
    tokens.append(values["LEGAL_AI_AGENT_TOKEN"].removeprefix("writer="))
    assert len(set(tokens)) == 3 and all(len(t) >= 32 for t in tokens)
    assert values["LEGAL_AI_HOME"] == str(paths["DATA"])
    installed = subprocess.run(
        [paths["SRV"] / ".venv" / "bin" / "legal-ai", "--version"],
        env=clean_env(),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert installed.stdout == f"legal-ai {upcoming}\n"
    backups = sorted(p.name for p in paths["BACKUPS"].glob("*.backup"))
    assert len(backups) == 2 and f"legal-ai-before-{upcoming}.backup" in backups
    assert f"legal-ai {version}" not in installed.stdout
    print(f"\nthe office's day: {took:.0f} s ({built:.0f} s building the two wheels)")
