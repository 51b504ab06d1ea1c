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


def _matches(forms: list[set[str]], phrase: list[str]) -> bool:
    """Whether the query's token forms (each token with its prefix-less variants) hold the
    phrase's tokens in a row."""
    for start in range(len(forms) - len(phrase) + 1):
        if all(phrase[i] in forms[start + i] for i in range(len(phrase))):
            return True
    return False


def expand_query(text: str) -> str:
    """The query with the statute's wording added for every colloquial phrase it contains.
    The query's token forms are made once for all the phrases (a pasted page of 5,000
    characters made them once per phrase: 30 ms of the search's time)."""
    forms = [{t, *prefix_variants(t, min_stem=2)} for t in tokens(text)]
    added = [law for said, law in SYNONYMS if law != said and _matches(forms, _PHRASES[said])]
    return " ".join([text, *added]) if added else text
