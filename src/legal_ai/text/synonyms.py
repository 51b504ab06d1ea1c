"""Query-side expansion with the committee's vocabulary: colloquial or alternative terms are
joined by the statute's own words (the lexical leg only; the semantic leg reads the query as is).
Matching is on normalized tokens, so prefixes and spelling variants of the phrase count."""

from __future__ import annotations

from .hebrew import prefix_variants, tokens

# (what people say, what the law says) -- both directions are listed where both are used.
SYNONYMS: tuple[tuple[str, str], ...] = (
    ("מס השבחה", "היטל השבחה"),
    ("תוספת בנייה", "הרחבה היתר"),
    ("תוספת בניה", "הרחבה היתר"),
    ("חריגת בנייה", "סטייה ניכרת בלא היתר"),
    ("חריגת בניה", "סטיה ניכרת בלא היתר"),
    ("בנייה לא חוקית", "בלא היתר"),
    ("טאבו", "רישום מקרקעין"),
    ("תבע", "תכנית מפורטת"),
    ("ירידת ערך", "פיצויים נפגעו"),
    ("שמאי מכריע", "שמאי מכריע"),
    ("אישור בנייה", "היתר"),
    ("צו הריסה", "הריסה"),
    ("שימוש לא חוקי", "שימוש חורג"),
    ("ועדה מחוזית", "הועדה המחוזית"),
    ("הקלה", "הקלה"),
)
# Each colloquial phrase's tokens, made once.
_PHRASES = {said: tokens(said) for said, _ in SYNONYMS}


def _matches(at: dict[str, set[int]], phrase: list[str]) -> bool:
    """Whether the query holds the phrase's tokens in a row: `at` maps each of the query's
    token forms (each token with its prefix-less variants) to the positions it stands at."""
    return any(
        all(start + i in at.get(word, ()) for i, word in enumerate(phrase[1:], 1))
        for start in at.get(phrase[0], ())
    )


def expand_query(text: str) -> str:
    """The query with the statute's wording added for every colloquial phrase it contains.
    The query's token forms are indexed once by position for all the phrases, so a phrase is
    looked for only where its first word stands (a pasted page of 5,000 characters tried every
    position for every phrase: ~15 ms of the search's time)."""
    where: dict[str, set[int]] = {}
    for position, token in enumerate(tokens(text)):
        where.setdefault(token, set()).add(position)
    at: dict[str, set[int]] = {}
    for token, positions in where.items():  # each distinct token's forms made once
        for form in (token, *prefix_variants(token, min_stem=2)):
            at[form] = at.get(form, set()) | positions
    added = [law for said, law in SYNONYMS if law != said and _matches(at, _PHRASES[said])]
    return " ".join([text, *added]) if added else text
