"""find_similar_cases keeps to one practice area (03 §5, issue 34 item 3): the given case's own,
or the practice_area a text must come with — like search_decisions. A planning case's similar
cases never include a betterment-levy case, however alike their words."""

import json

import pytest

from helpers import run, write
from legal_ai.errors import InvalidInput

pytestmark = pytest.mark.db

SHED = "ערר על סירוב להקלה בקו בניין צדדי למחסן בחצר ועל היטל השבחה בגין התכנית."
PLANNING = ("ערר (מרכז) 501/25", "ערר (מרכז) 502/25")
LEVY = ("ערר (מרכז) 601/25", "ערר (מרכז) 602/25")


def seed(app, tmp_path) -> None:
    # the same words in every case: only the practice area tells them apart
    for n, case in enumerate(PLANNING + LEVY):
        area = "planning" if case in PLANNING else "betterment_levy"
        path = write(tmp_path / f"case-{n}.txt", f"{SHED} תיק {n}.")
        meta = {"case_number": case, "practice_area": area}
        assert app.ingest([path], "case", meta=meta).ingested == 1


def test_a_planning_case_finds_only_planning_cases(app, tmp_path):
    seed(app, tmp_path)
    by_case = app.tool("find_similar_cases", case_number=PLANNING[0], limit=10)
    assert [h["case_number"] for h in by_case["hits"]] == [PLANNING[1]]
    by_levy = app.tool("find_similar_cases", case_number=LEVY[0], limit=10)
    assert [h["case_number"] for h in by_levy["hits"]] == [LEVY[1]]
    # a text comes with its practice area; the hits keep to it
    by_text = app.tool("find_similar_cases", text=SHED, practice_area="planning", limit=10)
    assert {h["case_number"] for h in by_text["hits"]} == set(PLANNING)


def test_the_practice_area_is_required_with_a_text_and_the_cases_own(app, tmp_path, cli_env):
    seed(app, tmp_path)
    with pytest.raises(InvalidInput, match="by text needs practice_area"):
        app.tool("find_similar_cases", text=SHED)
    with pytest.raises(InvalidInput, match="by text needs practice_area"):
        app.tool("find_similar_cases", text=SHED, practice_area="\u200b ")
    # a case given with another practice area than its own is refused, naming the field
    with pytest.raises(InvalidInput, match="practice_area 'betterment_levy' is not the case's"):
        app.tool("find_similar_cases", case_number=PLANNING[0], practice_area="betterment_levy")
    same = app.tool("find_similar_cases", case_number=PLANNING[0], practice_area="planning")
    assert [h["case_number"] for h in same["hits"]] == [PLANNING[1]]
    # the CLI: one line naming the field, non-zero exit
    failed = run(cli_env, "similar", "--text", "מחסן", check=False)
    assert failed.returncode != 0 and "practice_area" in failed.stderr
    assert len(failed.stderr.strip().splitlines()) == 1
    found = json.loads(run(cli_env, "similar", "--case-number", LEVY[1], "--json").stdout)
    assert [h["case_number"] for h in found["hits"]] == [LEVY[0]]
