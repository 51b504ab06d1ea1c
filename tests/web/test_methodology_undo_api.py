"""The methodology's steps and a step back (undo) over the API and the command line, as on the
desk: the chair's token steps back one change at a time; a stale version is refused with
nothing written; an agent's token is refused before anything changes."""

import json

import pytest
from fastapi.testclient import TestClient

from helpers import register_chair_token, run
from legal_ai.learning.methodology import profiles as methodology
from legal_ai.web.app import create_app

pytestmark = pytest.mark.db

AGENT, CHAIR = "agent-tok-undo", "chair-tok-undo"
KIND = "permit"


def auth(token: str) -> dict:
    return {"Authorization": f"Bearer {token}"}


@pytest.fixture
def client(app, tmp_path):
    settings = app.settings.model_copy(
        update={"home": tmp_path / "home", "agent_token": f"writer={AGENT}", "chair_token": CHAIR}
    )
    with TestClient(create_app(settings, legal=app), raise_server_exceptions=False) as c:
        yield c


def _changes(client, *lists):
    for voice in lists:
        saved = client.post(
            f"/api/methodology/{KIND}",
            headers=auth(CHAIR),
            json={"changes": {"voice_invariants": voice}},
        )
        assert saved.status_code == 200, saved.text
    return saved.json()["version"]


def test_steps_and_undo_over_http(app, client):
    start = client.get(f"/api/methodology/{KIND}", headers=auth(CHAIR)).json()
    current = _changes(client, ["א"], ["א", "ב"])
    steps = client.get(f"/api/methodology/{KIND}/steps", headers=auth(AGENT)).json()
    assert steps["current"] == current and steps["undo_to"] == current - 1
    assert steps["steps"][0]["profile"]["voice_invariants"] == ["א", "ב"]
    assert steps["steps"][0]["before"]["voice_invariants"] == ["א"]

    # an agent, even naming the chair in the body: 403, nothing written
    refused = client.post(
        f"/api/methodology/{KIND}/undo", headers=auth(AGENT), json={"version": current}
    )
    assert refused.status_code == 403, refused.text
    assert methodology.show(app, KIND)["version"] == current

    back = client.post(
        f"/api/methodology/{KIND}/undo", headers=auth(CHAIR), json={"version": current}
    )
    assert back.status_code == 200, back.text
    assert back.json()["profile"]["voice_invariants"] == ["א"]
    # a second tab still showing the older version: refused, nothing written
    stale = client.post(
        f"/api/methodology/{KIND}/undo", headers=auth(CHAIR), json={"version": current}
    )
    assert stale.status_code == 400 and "meanwhile" in stale.json()["error"]
    assert methodology.show(app, KIND)["version"] == current + 1
    again = client.post(
        f"/api/methodology/{KIND}/undo", headers=auth(CHAIR), json={"version": current + 1}
    )
    assert again.status_code == 200  # on back, never forth
    assert again.json()["profile"].get("voice_invariants") == start["profile"].get(
        "voice_invariants"
    )
    for bad in ({"version": 0}, {"version": "x"}, {}, {"version": current, "actor": "chair"}):
        answer = client.post(f"/api/methodology/{KIND}/undo", headers=auth(CHAIR), json=bad)
        assert answer.status_code == 400, (bad, answer.text)
        assert answer.json()["code"] == "request.invalid" and answer.json()["message_he"]
    assert methodology.show(app, KIND)["version"] == current + 2


def test_steps_and_undo_on_the_command_line(app, client, cli_env):
    current = _changes(client, ["ג"], ["ג", "ד"])
    listed = json.loads(run(cli_env, "methodology", "steps", KIND, "--json").stdout)
    assert listed["current"] == current and listed["undo_to"] == current - 1
    said = run(cli_env, "methodology", "steps", KIND).stdout
    assert f"a step back restores version {current - 1}" in said
    # without the chair's registered token the CLI does not act as her
    refused = run(cli_env, "methodology", "undo", KIND, "--version", current, check=False)
    assert refused.returncode != 0 and len(refused.stderr.strip().splitlines()) == 1
    assert methodology.show(app, KIND)["version"] == current
    hers = {**cli_env, "LEGAL_AI_CHAIR_TOKEN": register_chair_token(app, "her-undo-token")}
    done = run(hers, "methodology", "undo", KIND, "--version", current)
    assert f"version {current + 1} (one step back)" in done.stdout
    assert methodology.show(app, KIND)["profile"]["voice_invariants"] == ["ג"]
    stale = run(hers, "methodology", "undo", KIND, "--version", current, check=False)
    assert stale.returncode != 0 and "meanwhile" in stale.stderr
    assert methodology.show(app, KIND)["version"] == current + 1
