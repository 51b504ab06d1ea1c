"""/learning's one plain sentence (issue 37 item 9): whether her edits to our drafts shrink, by
the order the finals were learned (when each was captured, not its decision date), percentages
with their sign on the right — no statistics jargon."""

from helpers import text_of
from legal_ai.web.desk.learning import trend_said


def final(n: int, change: float, decided: str) -> dict:
    return {
        "id": n,
        "captured_at": f"2026-01-{n:02d}T10:00:00+00:00",
        "change_percent": change,
        "decided_on": decided,
    }


def test_the_trend_in_one_sentence_by_the_order_learned():
    # Listed by decision date (the oldest decision learned last): the sentence goes by learning.
    finals = [
        final(4, 20.0, "2020-01-01"),
        final(1, 60.0, "2025-01-01"),
        final(2, 50.0, "2025-02-01"),
        final(3, 30.0, "2025-03-01"),
    ]
    said = trend_said(finals)
    assert text_of(str(said)) == (
        "השינויים שלך בטיוטות שלנו הולכים וקטנים: ב־2 ההחלטות האחרונות שלמדנו שינית בממוצע "
        "כ־25% מהנוסח, לעומת כ־55% ב־2 הראשונות."
    )
    assert "<bdi>25%</bdi>" in str(said)
    grown = [final(1, 20.0, "x"), final(2, 20.0, "x"), final(3, 50.0, "x"), final(4, 60.0, "x")]
    assert "אינם קטנים — הם גדלו" in text_of(str(trend_said(grown)))
    same = [final(n, 40.0, "x") for n in range(1, 5)]
    assert "נשארו בערך כשהיו" in text_of(str(trend_said(same)))
    early = text_of(str(trend_said(same[:1])))
    assert early == (
        "עוד מוקדם לומר אם השינויים שלך בטיוטות שלנו הולכים וקטנים: עד עכשיו הושוו לטיוטה "
        "החלטה אחת, ונדרשות לפחות 4."
    )
    for jargon in ("קאפה", "דלתא", "kappa"):
        assert jargon not in early
