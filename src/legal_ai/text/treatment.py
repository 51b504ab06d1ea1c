"""What a later ruling says became of the rulings it names: pure rules over its
text, no database (learning/library/treatment.py stores and links what they read; docs/verification.md
"Treatment" lists them).

A ruling whose proceeding attacks another (`ATTACKS`: a petition, עת"מ, against a committee's
decision; an appeal, עע"מ, against a petition's judgment; ...) names the decision it attacks
either in its operative words ("העתירה מתקבלת. החלטת ועדת הערר בערר (תל אביב) 1212/19 מבוטלת")
or in a sentence that says so ("עתירה נגד החלטת ועדת הערר בערר (ת"א) 1212/19"); only a
citation of a lower proceeding (`ATTACKS[...]["lower"]`) is taken for it. The outcome is read
from the operative words: the last sentence where the proceeding's own subject (העתירה, הערעור,
הבקשה — after prefix letters: ולכן העתירה, שהערעור) is accepted or dismissed, and the sentences
right after it (the operative paragraph). In that window:

- `returned`: the matter sent back (מוחזר / יוחזר / מחזירים ... לוועדה, לוועדת הערר, לדיון);
- `partly_set_aside`: accepted in part (מתקבלת בחלקה, מתקבל חלקית, באופן חלקי);
- `set_aside`: accepted (העתירה מתקבלת, דין הערעור להתקבל) or the decision cancelled
  (מבוטלת, בטלה, אנו מבטלים);
- `upheld`: dismissed (העתירה נדחית, הערעור נדחה, דין העתירה להידחות) or left standing
  (נותרת על כנה, עומדת בעינה);
- `unknown`: no operative words, or words both ways (accepted and dismissed).

Every other ruling the later one names is `cited`, with the sentence around its first citation.
Quote marks are folded first (״ is "), so gershayim of any kind read alike."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal, get_args

from .case_numbers import COURT_SPELLINGS
from .citations import Citation
from .hebrew import PREFIX_CLASS, fold_quotes
from .sentences import sentence_spans

# What a ruling's operative words say of the decision it attacks (DESIGN §10: a citation's
# `treatment.kind`); KINDS is read from it.
Kind = Literal["set_aside", "upheld", "partly_set_aside", "returned", "unknown"]
KINDS: tuple[Kind, ...] = get_args(Kind)
SENTENCE_MAX = 400  # characters of a sentence kept around a citation
WINDOW_SENTENCES = 4  # the operative sentence and the three after it
WINDOW_MAX = 600  # characters of the operative words kept

# A proceeding that attacks another: its own subject (what is accepted or dismissed) and the
# proceedings it attacks.
ATTACKS: dict[str, dict] = {
    'עת"מ': {"subject": ("עתירה",), "lower": ("ערר", "ערר מנהלי")},
    'בג"ץ': {"subject": ("עתירה",), "lower": ("ערר", "ערר מנהלי")},
    'עע"מ': {"subject": ("ערעור",), "lower": ('עת"מ',)},
    'עמ"נ': {"subject": ("ערעור",), "lower": ("ערר",)},
    'ע"א': {"subject": ("ערעור",), "lower": ('ת"א', 'ה"פ')},
    'בר"מ': {"subject": ("בקשה", "ערעור", "בקשת רשות הערעור"), "lower": ('עת"מ', 'עמ"נ')},
    'רע"א': {"subject": ("בקשה", "ערעור", "בקשת רשות הערעור"), "lower": ('ת"א', 'ה"פ', 'בש"א')},
}

_P = PREFIX_CLASS
_START = r"(?<![א-ת\"'])"  # a word's start (prefix letters are matched explicitly)
_ACCEPTED = r"(?:מתקבלת|מתקבל|מתקבלים|מתקבלות)"
_DISMISSED = r"(?:נדחית|נדחה|נדחים|נדחות)"
_PART = r"(?:\s+(?:בחלקה|בחלקו|בחלקם|חלקית|באופן\s+חלקי))"
_CANCELLED = re.compile(
    _START + rf"{_P}?(?:מבוטלת|מבוטל|מבוטלים|מבוטלות|בטלה|מתבטלת|מבטלים|מבטלת|ביטול\s+החלטת)"
    r"(?![א-ת])"
)
_STANDS = re.compile(
    _START + r"(?:נותרת|נותר|נותרים|נותרות|תיוותר|ייוותר|יוותר|תעמוד|יעמוד|עומדת|עומד)\s+"
    r"(?:על\s+כנה|על\s+כנו|על\s+כנם|על\s+כנן|בעינה|בעינו|בעינם)"
)
_PART_CANCELLED = re.compile(r"(?:מבוטלת|מבוטל|מבוטלים|מבוטלות)" + _PART)
_RETURNED = re.compile(
    _START + rf"{_P}?(?:מוחזר|מוחזרת|מוחזרים|מוחזרות|יוחזר|תוחזר|יוחזרו|הוחזר|מחזירים|מחזירה|"
    r"נחזיר|להחזיר|להשיב|מושב|יושב|תושב)(?![א-ת])[^.\n]{0,60}?"
    rf"{_START}{_P}?(?:לוועדה|לועדה|לוועדת|לועדת|לוועדות|לבית\s+המשפט|לבית\s+הדין|לדיון|"
    r"לבחינה|לשם\s+(?:בחינה|דיון))"
)
# A sentence that says what the proceeding attacks.
_ATTACK = re.compile(
    rf"{_START}{_P}{{0,2}}(?:עתירה|ערעור|בקשה|בקשת\s+רשות\s+(?:ה)?ערעור|עתירתו|עתירתם|ערעורו|"
    r"ערעורם)(?![א-ת])[^.\n]{0,120}?"
    rf"{_START}{_P}?(?:נגד|כנגד|על|מופנית|מופנה|תוקפת|תוקף)(?![א-ת])[^.\n]{{0,40}}?"
    rf"{_START}{_P}?(?:החלטת|החלטה|החלטתה|החלטתו|פסק\s+(?:ה)?דין|פסק\s+דינו|פסק\s+דינה)"
    rf"|{_START}(?:נשוא|מושא)\s+{_P}?(?:העתירה|הערעור|הבקשה)"
)


def _subject(words: tuple[str, ...]) -> str:
    alternatives = "|".join(w.replace(" ", r"\s+") for w in sorted(words, key=len, reverse=True))
    return rf"{_START}{_P}{{0,2}}ה(?:{alternatives})(?![א-ת])"


def _phrases(subject: str) -> dict[str, re.Pattern]:
    """The subject's own outcome phrases: accepted, dismissed, accepted in part."""
    gap = r"[^.\n]{0,40}?\s"  # "העתירה נגד המשיבה 2 נדחית"
    return {
        "partly": re.compile(rf"{subject}{gap}(?:{_ACCEPTED}|התקבלה|התקבל){_PART}"),
        "accepted": re.compile(
            rf"{subject}{gap}{_ACCEPTED}(?![א-ת])"
            rf"|דין\s+{subject}\s+להתקבל|{_START}{_P}?(?:מקבלים|מקבלת|מקבל)\s+את\s+{subject}"
            rf"|על\s+קבלת\s+{subject}"
        ),
        "dismissed": re.compile(
            rf"{subject}{gap}{_DISMISSED}(?![א-ת])"
            rf"|דין\s+{subject}\s+(?:להידחות|להדחות)"
            rf"|{_START}{_P}?(?:דוחים|דוחה)\s+את\s+{subject}|על\s+דחיית\s+{subject}"
        ),
    }


@dataclass(frozen=True)
class Operative:
    """The operative words of a ruling: their span and what they say (`KINDS`)."""

    kind: Kind
    start: int
    end: int
    text: str


@dataclass(frozen=True)
class Reading:
    """What a later ruling says of a ruling it names: `attacked` (with the outcome's `kind`) or
    `cited` (kind None), the words read (`sentence`, at start..end of the later ruling)."""

    citation: Citation
    relation: str
    kind: Kind | None
    sentence: str
    start: int
    end: int


def court_of(proceeding: str | None) -> str | None:
    """A proceeding's canonical spelling (`עתמ` → `עת"מ`), None when unknown."""
    if not proceeding:
        return None
    folded = fold_quotes(proceeding.strip())
    return COURT_SPELLINGS.get(folded)


def kind_of(words: str, subject: tuple[str, ...] = ("עתירה", "ערעור", "בקשה")) -> Kind:
    """The outcome that operative words say (the module's rules), for a proceeding whose own
    subject is one of `subject`."""
    words = fold_quotes(words)
    phrases = _phrases(_subject(subject))
    if _RETURNED.search(words):
        return "returned"
    if phrases["partly"].search(words) or _PART_CANCELLED.search(words):
        return "partly_set_aside"
    accepted = bool(phrases["accepted"].search(words) or _CANCELLED.search(words))
    dismissed = bool(phrases["dismissed"].search(words) or _STANDS.search(words))
    if accepted and not dismissed:
        return "set_aside"
    if dismissed and not accepted:
        return "upheld"
    return "unknown"


def operative(text: str, proceeding: str | None) -> Operative | None:
    """The operative words of a ruling of `proceeding` (one of `ATTACKS`): the last sentence
    where its subject is accepted or dismissed (or the matter is sent back), with the operative
    sentences right before it and the sentences after it (at most
    WINDOW_SENTENCES, WINDOW_MAX characters); None when it has none, or its proceeding attacks
    nothing."""
    rules = ATTACKS.get(court_of(proceeding) or "")
    if rules is None:
        return None
    folded = fold_quotes(text)
    phrases = _phrases(_subject(rules["subject"]))
    spans = sentence_spans(folded)
    says = [
        any(p.search(folded[a:b]) for p in phrases.values()) or bool(_RETURNED.search(folded[a:b]))
        for a, b in spans
    ]
    if not any(says):
        return None
    last = max(i for i, said in enumerate(says) if said)
    first = last
    while first > 0 and says[first - 1]:  # the operative sentences right before it too
        first -= 1
    start = spans[first][0]
    end = spans[last][1]
    for _, b in spans[last + 1 : last + WINDOW_SENTENCES]:
        if b - start > WINDOW_MAX:
            break
        end = b
    words = folded[start:end]
    return Operative(kind_of(words, rules["subject"]), start, end, text[start:end])


def _sentence_around(text: str, spans: list[tuple[int, int]], at: int) -> tuple[int, int]:
    for a, b in spans:
        if a <= at < b:
            if b - a > SENTENCE_MAX:
                a = max(a, at - SENTENCE_MAX // 2)
                b = min(b, a + SENTENCE_MAX)
            return a, b
    return max(0, at - SENTENCE_MAX // 2), min(len(text), at + SENTENCE_MAX // 2)


def read(text: str, proceeding: str | None, citations: list[Citation]) -> list[Reading]:
    """What a ruling of `proceeding` with this `text` says of each ruling it cites (its
    `citations`, from text/citations.extract, its own case number left out): one Reading per
    ref, `attacked` for the decision it attacks (in its operative words, else in a sentence
    saying what it attacks; a citation of a lower proceeding only), `cited` for the others."""
    folded = fold_quotes(text)
    spans = sentence_spans(folded)
    rules = ATTACKS.get(court_of(proceeding) or "")
    found = operative(text, proceeding) if rules else None
    attacked: set[str] = set()
    if rules is not None:
        lower = [c for c in citations if c.kind == "ruling" and court_of(c.court) in rules["lower"]]
        if found is not None:
            attacked = {c.ref for c in lower if found.start <= c.start < found.end}
        if not attacked:
            sentences = [(a, b) for a, b in spans if _ATTACK.search(folded[a:b])]
            attacked = {c.ref for c in lower for a, b in sentences if a <= c.start < b}
    out: list[Reading] = []
    seen: set[str] = set()
    for citation in citations:
        if citation.kind not in ("ruling", "reporter") or citation.ref in seen:
            continue
        seen.add(citation.ref)
        if citation.ref in attacked:
            if found is not None:
                out.append(
                    Reading(citation, "attacked", found.kind, found.text, found.start, found.end)
                )
                continue
            a, b = _sentence_around(folded, spans, citation.start)
            out.append(Reading(citation, "attacked", "unknown", text[a:b].strip(), a, b))
            continue
        a, b = _sentence_around(folded, spans, citation.start)
        out.append(Reading(citation, "cited", None, text[a:b].strip(), a, b))
    return out
