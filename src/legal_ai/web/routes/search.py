"""Search over HTTP (docs/api.md): `GET /api/search` takes `legal-ai search`'s
parameters and answers its `--json`; `POST /api/search` takes the same as a JSON body, for a
query too long for an address (a request line of over 16 KB is refused by the server before it
reaches us, and a Hebrew letter is six characters of it: a 5,000-character query is ~30 KB)."""

from fastapi import APIRouter

from ...retrieval.tools import corpus_tool
from ..deps import Acting
from .bodies import Body

router = APIRouter()


@router.get("/api/search")
def search(
    view: Acting,
    query: str,
    corpus: str,
    practice_area: str | None = None,
    case_number: str | None = None,
    court: str | None = None,
    date_from: str | None = None,
    date_to: str | None = None,
    doc_type: str | None = None,
    limit: int = 10,
    mode: str = "hybrid",
) -> dict:
    """`legal-ai search --json`: the corpus's tool, its filters, the same JSON."""
    given = {
        "practice_area": practice_area,
        "case_number": case_number,
        "court": court,
        "date_from": date_from,
        "date_to": date_to,
        "doc_type": doc_type,
    }
    tool, filters = corpus_tool(corpus, given)
    return view.tool(tool, query=query, limit=limit, mode=mode, **filters)


class SearchBody(Body):
    query: str
    corpus: str
    practice_area: str | None = None
    case_number: str | None = None
    court: str | None = None
    date_from: str | None = None
    date_to: str | None = None
    doc_type: str | None = None
    limit: int = 10
    mode: str = "hybrid"


@router.post("/api/search")
def search_by_body(view: Acting, body: SearchBody) -> dict:
    """`GET /api/search`'s parameters as a JSON body (a long query)."""
    return search(view, **body.model_dump())
