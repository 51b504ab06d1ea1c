"""The held-out trend's two Ns (issue 34 item 6; 07 §0.7): beside the lesson pool's size (the
approved lessons), the specification's N — the discussion rules, folded lessons and transition
phrases of the `universal` methodology when the row was written (migration 0042's trigger). It
follows her methodology edits and promote, no writer can set it, and both Ns are in the history
row, the endpoint's JSON, the desk's plot (its axis saying what it counts) and its table."""

import xml.etree.ElementTree as ET

import psycopg
import pytest

import factories
from helpers import AGENT, text_of, write
from legal_ai.auth import CHAIR
from legal_ai.learning.lessons import lessons
from legal_ai.learning.methodology import profiles as methodology
from legal_ai.learning.pairs import dashboard, drafts, finals
from legal_ai.store import drafts_lessons as learning_store
from legal_ai.store import style_history
from legal_ai.web.desk import labels

pytestmark = pytest.mark.db

SVG = "{http://www.w3.org/2000/svg}"


def universal_n(app) -> int:
    profile = methodology.show(app, "universal")["profile"]
    return sum(
        len(profile.get(k) or []) for k in ("discussion_rules", "lessons", "transition_phrases")
    )


def upload_general(app, tmp_path, record) -> dict:
    """A pair of a case with no appeal type (promote folds its lessons into `universal`)."""
    slug = factories.slug(record["case_number"])
    drafts.add_draft(
        app,
        record["case_number"],
        write(tmp_path / f"{slug}.draft.txt", record["draft_text"]),
        outcome=record["outcome"],
        practice_area=record["practice_area"],
    )
    final = write(tmp_path / f"{slug}.final.txt", record["final_text"])
    return finals.upload_final(app, record["case_number"], final)["history_row"]


def measured_again(app, first: dict) -> dict:
    """Another history row of the same pair, written as the upload writes it (held_out.analyze
    counts the lesson pool; the database sets the N from the profile as it stands now)."""
    row = {k: first[k] for k in style_history.HISTORY_COLUMNS}
    with app.store.transaction() as conn:
        row["lesson_pool_size"] = learning_store.lesson_pool_size(conn)
        return style_history.append_history(conn, row)


def test_the_specifications_n_follows_her_edits_and_promote(app, tmp_path):
    chair = app.acting_as(CHAIR)
    start = universal_n(app)
    record = factories.records()[0]
    first = upload_general(app, tmp_path, record)
    assert first["methodology_size"] == start and first["lesson_pool_size"] == 0
    parts = first["metrics"]["methodology_size"]
    assert (
        parts["discussion_rules"] + parts["folded_lessons"] + parts["transition_phrases"] == start
    )
    assert parts["version"] == methodology.show(app, "universal")["version"]

    # Her edit adds a discussion rule: N + 1 (the pool of approved lessons does not move).
    rules = methodology.show(app, "universal")["profile"]["discussion_rules"]
    methodology.edit(chair, "universal", {"discussion_rules": [*rules, "להכריע בכל טענה בנפרד"]})
    row = measured_again(app, first)
    assert (row["methodology_size"], row["lesson_pool_size"]) == (start + 1, 0)
    assert row["metrics"]["methodology_size"]["discussion_rules"] == parts["discussion_rules"] + 1

    # ... and a transition phrase: N + 2.
    phrases = methodology.show(app, "universal")["profile"]["transition_phrases"]
    methodology.edit(chair, "universal", {"transition_phrases": [*phrases, "ועוד זאת,"]})
    assert measured_again(app, first)["methodology_size"] == start + 2

    # Promote folds a lesson of the case into universal: N + 3, and the pool counts it too.
    lesson = lessons.propose(app, record["case_number"], "structure", "הרקע העובדתי לפני הטענות")
    promoted = lessons.promote(chair, record["case_number"], [lesson["id"]])
    assert promoted["appeal_type"] == "universal"
    row = measured_again(app, first)
    assert (row["methodology_size"], row["lesson_pool_size"]) == (start + 3, 1)
    assert row["metrics"]["methodology_size"]["folded_lessons"] == parts["folded_lessons"] + 1

    # A veto takes the lesson out of the methodology: N goes back down.
    lessons.review(chair, lesson["id"], "veto")
    assert measured_again(app, first)["methodology_size"] == start + 2
    assert universal_n(app) == start + 2


def test_no_writer_sets_the_n(app, tmp_path):
    """The N is the database's count: a value given with the row is replaced, and the row,
    once written, is not rewritten (append-only)."""
    first = upload_general(app, tmp_path, factories.records()[0])
    row = {k: first[k] for k in style_history.HISTORY_COLUMNS}
    with app.store.transaction() as conn:
        given = conn.execute(
            "INSERT INTO style_distance_history (pair_id, case_number, final_version,"
            " anti_pattern_total, final_anti_pattern_total, change_percent, word_edit_distance,"
            " profile_finals, lesson_pool_size, held_out, metrics, methodology_size)"
            " VALUES (%(pair_id)s, %(case_number)s, 1, 0, 0, 1.0, 1, 0, 0, true, '{}', 999)"
            " RETURNING methodology_size",
            row,
        ).fetchone()
    assert given["methodology_size"] == universal_n(app)
    with pytest.raises(psycopg.errors.InsufficientPrivilege), app.store.transaction() as conn:
        conn.execute("UPDATE style_distance_history SET methodology_size = 999")


def test_both_ns_in_the_endpoint_the_plot_and_the_page(app, chair, client, tmp_path):
    records = factories.records()[:2]
    upload_general(app, tmp_path, records[0])
    rules = methodology.show(app, "universal")["profile"]["discussion_rules"]
    methodology.edit(
        app.acting_as(CHAIR), "universal", {"discussion_rules": [*rules, "כלל חדש לדיון"]}
    )
    upload_general(app, tmp_path, records[1])
    start = universal_n(app) - 1

    rows = client.get(
        "/api/learning/style-distance-history", headers={"Authorization": f"Bearer {AGENT}"}
    ).json()["rows"]
    assert [(r["lesson_pool_size"], r["methodology_size"]) for r in rows] == [
        (0, start),
        (0, start + 1),
    ]

    figures = dashboard.figures(app)
    assert [f["methodology_size"] for f in figures["finals"]] == [start, start + 1]
    svg = dashboard.plot_svg(app, figures)
    root = ET.fromstring(svg)
    group = next(g for g in root.iter(f"{SVG}g") if g.get("id") == "methodology_size")
    assert sum(1 for _ in group.iter(f"{SVG}use")) == 2  # one marker per history row
    texts = [t.text for t in root.iter(f"{SVG}text")]
    # The N axis says in words what it counts (two lines, each laid out right to left).
    for line in dashboard.N_AXIS.split("\n"):
        shown = next(t for t in root.iter(f"{SVG}text") if t.text == line)
        assert shown.get("direction") == "rtl"
    assert "מאגר הלקחים" in texts

    page = chair.get("/learning")
    assert page.status_code == 200
    table = text_of(page.text.split('class="figures"')[1].split("</table>")[0])
    assert f"<th>{labels.TREND['methodology_size']}</th>" in table
    assert f"<th>{labels.TREND['lesson_pool_size']}</th>" in table
    cells = [r.split("</td>")[-3:-1] for r in table.split("<tr>")[2:]]
    assert [[c.removeprefix("<td>") for c in pair] for pair in cells] == [
        ["0", str(start)],
        ["0", str(start + 1)],
    ]
