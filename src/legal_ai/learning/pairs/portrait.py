"""The chair's measured portrait (the desk's /training/portrait): figures read from her signed
finals in the style corpus, each with its unit and the number of finals it rests on, and nothing
said until there are MIN_FINALS of them.

- sentences: words per sentence (median, and the middle half's range), the share of long
  sentences (more than LONG_SENTENCE words), words per paragraph (median);
- openings: the two words that most often open her paragraphs (a paragraph's number dropped),
  each with how many paragraphs and how many finals;
- transitions: the phrases she moves on with — the methodology's transition phrases and common
  connectives (CONNECTIVES) — each per 1,000 words and in how many finals;
- register: the first person singular and the committee's "we" per 1,000 words, the mean word
  length in letters, the share of function words (learning/pairs/stylometry.FUNCTION_WORDS);
- blocks: each body block's share of a decision's words (held_out.chair_ratios: the measure the
  writer's brief reads when the methodology sets no golden ratios).

Her paragraphs are those of MIN_PARAGRAPH_WORDS words or more that end a sentence (headings,
the header's lines and the signature are not); sentences shorter than MIN_SENTENCE_WORDS are
not counted. Pure: the caller reads
the finals (one read) and the profile."""

from __future__ import annotations

import re
import statistics
from collections import Counter

from ...text.hebrew import tokens
from ...text.sentences import sentence_spans
from .stylometry import FUNCTION_WORDS

MIN_FINALS = 3  # "your usual" rests on at least three of her finals (held_out.MIN_USUAL)
MIN_SENTENCE_WORDS = 4
MIN_PARAGRAPH_WORDS = 6  # and ending a sentence: a heading, the header's lines and the
#                          signature's date are not her paragraphs
LONG_SENTENCE = 40
TOP = 6
CONNECTIVES = (
    "לפיכך",
    "לאור האמור",
    "נוכח האמור",
    "אשר על כן",
    "יחד עם זאת",
    "עם זאת",
    "זאת ועוד",
    "כמו כן",
    "בנוסף",
    "מכאן",
    "משכך",
    "אולם",
    "לכן",
    "ואולם",
    "למעלה מן הצורך",
    "נקדים ונאמר",
)
FIRST_SINGULAR = ("אני", "לטעמי", "סבורני", "לדעתי", "אינני")
FIRST_PLURAL = ("אנו", "אנחנו", "לטעמנו", "לדעתנו", "סבורים", "מצאנו", "שוכנענו", "לפנינו")
_NUMBERING = re.compile(r"^\s*(?:\(?\d{1,3}[.)]|[א-ת][.)]|[-–•*])\s*")
_PARAGRAPH = re.compile(r"\n\s*\n|\n(?=\s*\d{1,3}\.\s)")


def _paragraphs(text: str) -> list[str]:
    out = []
    for raw in _PARAGRAPH.split(text):
        para = _NUMBERING.sub("", " ".join(raw.split()))
        if len(para.split()) >= MIN_PARAGRAPH_WORDS and para.endswith((".", ":", ";")):
            out.append(para)
    return out


def _phrase_count(words: list[str], phrase: list[str]) -> int:
    """Occurrences of `phrase` in `words`, its first word also with a leading ו (and)."""
    if not phrase:
        return 0
    n, first = len(phrase), phrase[0]
    rest = phrase[1:]
    return sum(
        1
        for i in range(len(words) - n + 1)
        if words[i] in (first, "ו" + first) and words[i + 1 : i + n] == rest
    )


def _quartiles(values: list[int]) -> tuple[float, float]:
    if len(values) < 4:
        return float(min(values)), float(max(values))
    q = statistics.quantiles(values, n=4)
    return q[0], q[2]


def measure(finals: list[str], transition_phrases: list[str]) -> dict:
    """Her figures over `finals` (their texts): {finals, enough, words, sentences,
    paragraphs, openings, transitions, register}; `enough` False (and no figures) under
    MIN_FINALS."""
    out: dict = {"finals": len(finals), "enough": len(finals) >= MIN_FINALS}
    if not out["enough"]:
        return out
    sentence_words: list[int] = []
    paragraph_words: list[int] = []
    openings: Counter = Counter()
    opening_finals: dict[str, set[int]] = {}
    all_words = 0
    letters = 0
    function = 0
    first_singular = first_plural = 0
    phrases = list(dict.fromkeys([*transition_phrases, *CONNECTIVES]))
    keyed = {p: tokens(p) for p in phrases}
    uses: Counter = Counter()
    phrase_finals: dict[str, set[int]] = {}
    function_words = set(FUNCTION_WORDS)
    for n, text in enumerate(finals):
        words = tokens(text)
        all_words += len(words)
        letters += sum(len(w) for w in words)
        function += sum(1 for w in words if w in function_words)
        first_singular += sum(1 for w in words if w in FIRST_SINGULAR)
        first_plural += sum(1 for w in words if w in FIRST_PLURAL)
        for phrase, key in keyed.items():
            found = _phrase_count(words, key)
            if found:
                uses[phrase] += found
                phrase_finals.setdefault(phrase, set()).add(n)
        for para in _paragraphs(text):
            paragraph_words.append(len(para.split()))
            opening = " ".join(para.split()[:2])
            openings[opening] += 1
            opening_finals.setdefault(opening, set()).add(n)
            for a, b in sentence_spans(para):
                count = len(para[a:b].split())
                if count >= MIN_SENTENCE_WORDS:
                    sentence_words.append(count)
    per_k = 1000 / max(all_words, 1)
    low, high = _quartiles(sentence_words) if sentence_words else (0.0, 0.0)
    out.update(
        words=all_words,
        sentences={
            "count": len(sentence_words),
            "median": statistics.median(sentence_words) if sentence_words else None,
            "low": low,
            "high": high,
            "long_share": (
                sum(1 for c in sentence_words if c > LONG_SENTENCE) / len(sentence_words)
                if sentence_words
                else None
            ),
        },
        paragraphs={
            "count": len(paragraph_words),
            "median": statistics.median(paragraph_words) if paragraph_words else None,
        },
        openings=[
            {"text": text, "paragraphs": count, "finals": len(opening_finals[text])}
            for text, count in openings.most_common()
            if len(opening_finals[text]) >= 2
        ][:TOP],
        transitions=[
            {
                "text": phrase,
                "per_thousand": uses[phrase] * per_k,
                "finals": len(phrase_finals[phrase]),
                "adopted": phrase in transition_phrases,
            }
            for phrase, _ in uses.most_common(TOP * 2)
        ][: TOP * 2],
        register={
            "first_singular": first_singular * per_k,
            "first_plural": first_plural * per_k,
            "word_length": letters / max(all_words, 1),
            "function_share": function / max(all_words, 1),
        },
    )
    return out
