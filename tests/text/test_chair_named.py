"""text/blocks.chair_named: the committee chair a decision names — in its header's "בפני:" line
(the one marked יו"ר when several are listed) or beside "יו"ר" in its signature — and None when
it names none or what stands there is not a name (never guessed)."""

import pytest

from legal_ai.text.blocks import chair_named

SIGNED = 'ניתנה היום, 20 באפריל 2025.\nרותם לוי, עו"ד (דמות בדויה)\nיו"ר ועדת הערר'


@pytest.mark.parametrize(
    ("header", "signature", "named"),
    [
        ('ועדת הערר\nבפני: עו"ד מיכל שחר, יו"ר ועדת הערר\nהעוררים: א', "", 'עו"ד מיכל שחר'),
        ("בפני:\nמר דן כהן – חבר\nעו״ד מיכל שחר – יו״ר\n\nהעוררים", "", 'עו"ד מיכל שחר'),
        ("לפני: נועה ברק; דן כהן", "", "נועה ברק"),
        ("ועדת הערר", SIGNED, "רותם לוי"),
        ("ועדת הערר", 'ניתנה היום 1.1.2025\nנועה ברק, יו"ר', "נועה ברק"),
        ('בפני: עו"ד מיכל שחר, יו"ר', SIGNED, 'עו"ד מיכל שחר'),  # the header first
        ("בפני: 12345", "ניתנה היום", None),
        ("ועדת הערר", "ניתנה היום, 20 באפריל 2025.", None),
        ("ועדת הערר", 'יו"ר ועדת הערר', None),
    ],
)
def test_the_chair_a_decision_names(header, signature, named):
    assert chair_named({"header": header, "signature": signature}) == named
