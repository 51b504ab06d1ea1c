"""The MCP server (`legal-ai mcp`, stdio) for the AI writing agents: the seven search tools,
the writer's brief (approved knowledge only) and the chair-feedback / curator tools.

Thin: typed, described parameters; each tool calls `App.tool(...)`; an `AppError` becomes an MCP
tool error with its one-line message. The App (database, model) is opened on the first call, so
the server answers `initialize` and `tools/list` at once. It opens the store without migrating
(`App(..., migrate=False)`): it may run with an agent-only database login (docs/deployment.md),
and a database with migrations pending is refused with what to run, never migrated.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from .app import App
from .auth import agent, agent_tokens
from .config import Settings
from .errors import AppError
from .knowledge import brief, contrastive, curator, exemplars, templates
from .learning import canonical, copy_policy, feedback, lessons, principle_review
from .paging import Page

Query = Annotated[
    str, Field(description="What to look for, in Hebrew or English (at most 2000 characters).")
]
Limit = Annotated[int, Field(description="How many hits to return (1-100).", ge=1, le=100)]
Mode = Annotated[str, Field(description="hybrid (default), semantic or lexical.")]
DateFrom = Annotated[
    str | None, Field(description="Only items decided on or after this date (YYYY-MM-DD).")
]
DateTo = Annotated[
    str | None, Field(description="Only items decided on or before this date (YYYY-MM-DD).")
]
PracticeArea = Annotated[
    str | None, Field(description="e.g. planning, betterment_levy, compensation.")
]

INSTRUCTIONS = (
    "Search tools of an Israeli planning-and-building appeals committee. Each tool searches one "
    "corpus only. Every hit carries provenance (doc_id, case number, page, chunk id, character "
    "span, snippet, supporting quote); cite from the snippet or quote, never from memory. "
    "Digests are pointers to rulings and are never citable."
)


def mcp_principal(settings: Settings):
    """Whoever calls over MCP is a writing agent, never the chair: the agent named by the first
    LEGAL_AI_AGENT_TOKEN entry in the server's environment, else `mcp`. The chair's token, even
    when present, gives an MCP caller nothing more."""
    names = list(agent_tokens(settings).values())
    return agent(names[0] if names else "mcp")


# The paging of the list tools (paging.py): at most 500 rows a call.
PageLimit = Annotated[
    int, Field(ge=1, le=500, description="At most this many (a page; default 100).")
]
PageOffset = Annotated[
    int, Field(ge=0, le=10**9, description="Skip this many (the answer's page.next_offset).")
]


def build_server(settings: Settings | None = None, *, app_for_call: Any = None):
    """An MCPServer with the seven tools, bound to a lazily opened App — or, served over HTTP
    (web/remote.py), to `app_for_call()`: the web app's App acting for the caller."""
    from mcp.server import MCPServer
    from mcp.server.mcpserver.exceptions import ToolError

    server = MCPServer("legal-ai", instructions=INSTRUCTIONS)
    state: dict[str, Any] = {}

    def run(function: Any, **arguments: Any) -> dict:
        """`function(app, **arguments)` on the lazily opened App; AppError → tool error."""
        try:
            if app_for_call is not None:
                return function(app_for_call(), **arguments)
            if "app" not in state:
                config = settings or Settings()
                # An agent-only login may not migrate: the store is checked, never written on
                # opening (pending migrations: a one-line error naming `legal-ai db migrate`).
                state["app"] = App(
                    config, principal=mcp_principal(config), surface="mcp", migrate=False
                )
            return function(state["app"], **arguments)
        except AppError as exc:
            raise ToolError(str(exc)) from exc

    def call(tool: str, **arguments: Any) -> dict:
        return run(lambda app, **kw: app.tool(tool, **kw), **arguments)

    @server.tool(
        description="Search the chair's signed final decisions (style corpus) within one practice area."
    )
    def search_decisions(
        query: Query,
        practice_area: Annotated[
            str, Field(description="Required: planning, betterment_levy, compensation, ...")
        ],
        date_from: DateFrom = None,
        date_to: DateTo = None,
        limit: Limit = 10,
        mode: Mode = "hybrid",
    ) -> dict:
        return call(
            "search_decisions",
            query=query,
            practice_area=practice_area,
            date_from=date_from,
            date_to=date_to,
            limit=limit,
            mode=mode,
        )

    @server.tool(description="Search the documents of one case (pleadings, protocols, exhibits).")
    def search_case_documents(
        query: Query,
        case_number: Annotated[
            str, Field(description="The case number in full, e.g. ערר (מרכז) 1042/23.")
        ],
        limit: Limit = 10,
        mode: Mode = "hybrid",
    ) -> dict:
        return call(
            "search_case_documents", query=query, case_number=case_number, limit=limit, mode=mode
        )

    @server.tool(
        description="Find other cases like a given case (by its documents) or like a text; one hit per case."
    )
    def find_similar_cases(
        case_number: Annotated[
            str | None, Field(description="A case whose documents are the example.")
        ] = None,
        text: Annotated[
            str | None, Field(description="Or: a text describing the situation.")
        ] = None,
        practice_area: PracticeArea = None,
        limit: Limit = 5,
    ) -> dict:
        return call(
            "find_similar_cases",
            case_number=case_number,
            text=text,
            practice_area=practice_area,
            limit=limit,
        )

    @server.tool(
        description="Search external authoritative sources: court rulings and legislation, with approved principles."
    )
    def search_precedent_library(
        query: Query,
        court: Annotated[str | None, Field(description="Only rulings of this court.")] = None,
        practice_area: PracticeArea = None,
        date_from: DateFrom = None,
        date_to: DateTo = None,
        limit: Limit = 10,
        mode: Mode = "hybrid",
    ) -> dict:
        return call(
            "search_precedent_library",
            query=query,
            court=court,
            practice_area=practice_area,
            date_from=date_from,
            date_to=date_to,
            limit=limit,
            mode=mode,
        )

    @server.tool(description="Search the committee's own past decisions (internal corpus).")
    def search_internal_decisions(
        query: Query,
        practice_area: PracticeArea = None,
        date_from: DateFrom = None,
        date_to: DateTo = None,
        limit: Limit = 10,
        mode: Mode = "hybrid",
    ) -> dict:
        return call(
            "search_internal_decisions",
            query=query,
            practice_area=practice_area,
            date_from=date_from,
            date_to=date_to,
            limit=limit,
            mode=mode,
        )

    @server.tool(
        description="Search the citations the chair attached to her cases (not the external library)."
    )
    def precedent_search_library(
        query: Query,
        case_number: Annotated[
            str | None, Field(description="Only citations attached to this case.")
        ] = None,
        limit: Limit = 10,
        mode: Mode = "hybrid",
    ) -> dict:
        return call(
            "precedent_search_library", query=query, case_number=case_number, limit=limit, mode=mode
        )

    @server.tool(
        description="Search digests (summaries pointing at rulings). Pointers only: never cite a digest."
    )
    def search_digests(
        query: Query, practice_area: PracticeArea = None, limit: Limit = 10, mode: Mode = "hybrid"
    ) -> dict:
        return call(
            "search_digests", query=query, practice_area=practice_area, limit=limit, mode=mode
        )

    _knowledge_tools(server, run)
    return server


AppealType = Annotated[
    str,
    Field(
        description="permit, change_of_use, plan, betterment_levy, compensation_197 or procedural."
    ),
]
Outcome = Annotated[
    str | None, Field(description="accepted, rejected, partially_accepted or remanded.")
]
CaseNumber = Annotated[
    str | None, Field(description="The case number in full, e.g. ערר (מרכז) 1042/23.")
]


def _knowledge_tools(server: Any, run: Any) -> None:
    @server.tool(
        description="The content checklist for a decision of this appeal type and outcome."
    )
    def get_content_checklist(appeal_type: AppealType, outcome: Outcome = None) -> dict:
        return run(brief.content_checklist, appeal_type=appeal_type, outcome=outcome)

    @server.tool(description="The lessons the chair approved for this appeal type and outcome.")
    def get_lessons_for_outcome(appeal_type: AppealType, outcome: Outcome = None) -> dict:
        return run(brief.lessons_for_outcome, appeal_type=appeal_type, outcome=outcome)

    @server.tool(
        description="The writing brief, approved knowledge only, each part with its provenance: "
        "channel A (the chair's methodology: block order, ratios, discussion rules, phrases, "
        "anti-patterns, voice), channel B (her block exemplars, templates, contrastive pairs), "
        "channel C (voice documents she approved), the checklist and approved lessons; within a "
        "size budget (`budget` says what was cut)."
    )
    def get_writing_brief(
        appeal_type: AppealType,
        outcome: Outcome = None,
        case_number: Annotated[
            str | None,
            Field(
                description="The case being written (its own "
                "paragraphs are never served), e.g. ערר (מרכז) 1042/23."
            ),
        ] = None,
        max_chars: Annotated[
            int | None,
            Field(
                ge=2000,
                le=500000,
                description="Size budget of the brief in characters (default 40000).",
            ),
        ] = None,
    ) -> dict:
        return run(
            brief.writing_brief,
            appeal_type=appeal_type,
            outcome=outcome,
            case=case_number,
            max_chars=max_chars,
        )

    @server.tool(
        description="The chair's own paragraphs of one block (e.g. opening, hearing, discussion) "
        "from her finals of this appeal type (and outcome), best matching the query or the case's "
        "documents, at most one or two per final, never from the case being written; each with "
        "provenance (case number, doc_id, character span). `note` says what filter was relaxed."
    )
    def get_block_exemplars(
        block: Annotated[str, Field(description="One of the 12 blocks, e.g. discussion.")],
        appeal_type: AppealType,
        outcome: Outcome = None,
        case_number: Annotated[
            str | None,
            Field(
                description="The case being written: none of "
                "its paragraphs; its documents make the query without one."
            ),
        ] = None,
        query: Annotated[
            str | None, Field(description="What the paragraph should be about.")
        ] = None,
        limit: Annotated[int, Field(ge=1, le=50, description="How many paragraphs.")] = 5,
    ) -> dict:
        return run(
            exemplars.get_block_exemplars,
            block=block,
            appeal_type=appeal_type,
            outcome=outcome,
            case=case_number,
            query=query,
            limit=limit,
        )

    @server.tool(
        description="Templates: passages the chair repeats nearly verbatim across her finals "
        "(openings, the hearing formula, closings and costs, signature), with slots ({date}, "
        "{case_number}, {number}, {name}, {text}), support (how many finals) and examples."
    )
    def get_templates(
        block: Annotated[str | None, Field(description="Only this block.")] = None,
        appeal_type: Annotated[
            str | None, Field(description="Only templates of her finals of this appeal type.")
        ] = None,
    ) -> dict:

        return run(templates.get_templates, block=block, appeal_type=appeal_type)

    @server.tool(
        description="Contrastive pairs: where the chair rewrote our drafts in one block, as (our "
        "wording -> her wording) with the word diff, style only (differences of substance — "
        "numbers, citations, facts, outcome — are dropped), most changed first, each with "
        "provenance (case number, block, spans). Write like the right side, not the left."
    )
    def get_contrastive_examples(
        block: Annotated[str, Field(description="One of the 12 blocks, e.g. discussion.")],
        appeal_type: Annotated[
            str | None, Field(description="Only pairs of this appeal type.")
        ] = None,
        k: Annotated[int, Field(ge=1, le=50, description="How many examples.")] = 5,
    ) -> dict:

        return run(contrastive.get_contrastive_examples, block=block, appeal_type=appeal_type, k=k)

    @server.tool(
        description="The copy policy on a draft before it goes to the chair: every passage "
        "copied from another case's decision, as template (formulaic: allowed), analysis "
        "(generalize and adapt it) or substance (a holding, facts, parties, numbers or "
        "citations not in this case's file: never copy it), each with its source case and span; "
        "and every citation checked against the library (found, not_in_library = a missing "
        "precedent, quote_not_found = a quotation its text does not hold). The draft is not stored."
    )
    def check_draft(
        case_number: Annotated[
            str, Field(description="The case the draft is for, e.g. ערר (מרכז) 1042/23.")
        ],
        text: Annotated[
            str,
            Field(
                max_length=200_000,
                description="The draft's full text "
                "(blocks separated by blank lines, as in the file).",
            ),
        ],
    ) -> dict:

        return run(copy_policy.check_draft_text, case=case_number, text=text)

    @server.tool(
        description="Record the chair's feedback on a draft (one category, optional block)."
    )
    def record_chair_feedback(
        category: Annotated[
            str,
            Field(
                description="missing_content, wrong_tone, wrong_structure, factual_error, style or other."
            ),
        ],
        text: Annotated[str, Field(description="What was wrong, in the chair's words.")],
        case_number: CaseNumber = None,
        block: Annotated[
            str | None, Field(description="One of the 12 blocks, e.g. discussion.")
        ] = None,
    ) -> dict:
        return run(feedback.record, category=category, text=text, case=case_number, block=block)

    @server.tool(description="The chair's feedback, newest first.")
    def list_chair_feedback(
        case_number: CaseNumber = None,
        category: Annotated[str | None, Field(description="Only this category.")] = None,
        limit: Annotated[int, Field(ge=1, le=500, description="At most this many.")] = 50,
        offset: Annotated[
            int,
            Field(ge=0, le=10**9, description="Skip this many (the answer's page.next_offset)."),
        ] = 0,
    ) -> dict:
        return run(
            feedback.list_feedback, case=case_number, category=category, limit=limit, offset=offset
        )

    @server.tool(
        description="Store 3-5 curator findings for a case, each starting with its tag: [סגנון], "
        "[מבנה], [לקסיקון משפטי] or [טבלאי]. They become proposed lessons (retry-safe)."
    )
    def record_curator_findings(
        case_number: Annotated[str, Field(description="The case number in full.")],
        findings: Annotated[list[str], Field(description="3 to 5 tagged findings.")],
    ) -> dict:
        return run(lessons.record_curator_findings, case=case_number, findings=findings)

    @server.tool(
        description="The curator's findings: how many per tag ([סגנון], [מבנה], [לקסיקון משפטי], "
        "[טבלאי]) and per final, and the chair's acceptance rate (approved / decided by her)."
    )
    def get_curator_stats() -> dict:
        return run(curator.stats)

    @server.tool(
        description="Legal principles (עקרונות משפטיים) with their term (הלכה / כלל פרשני / "
        "עיקרון), rule, verbatim supporting quote and page, the panel's votes and score, "
        "occurrences and corroboration, and who approved it (`approved_by`: chair, panel 3/3, "
        "panel 2/3 · 0.91). Only `approved` ones may be relied on, and a panel's approval only "
        "once the chair confirmed it (`confirmed`)."
    )
    def list_principles(
        status: Annotated[
            str | None,
            Field(
                description="pending_review | approved | to_confirm (the panel's approvals the "
                "chair has not confirmed) | rejected | vetoed; default every status"
            ),
        ] = None,
        limit: PageLimit = 100,
        offset: PageOffset = 0,
    ) -> dict:
        return run(principle_review.list_principles, status=status, page=Page(limit, offset))

    @server.tool(
        description="Canonical principles (one per principle across rulings of one corpus): "
        "statement, status (only `approved` statements are the chair's), occurrences."
    )
    def list_canonical_principles(
        status: Annotated[
            str | None,
            Field(description="pending_synthesis | pending_review | approved | rejected"),
        ] = None,
        limit: PageLimit = 100,
        offset: PageOffset = 0,
    ) -> dict:
        return run(canonical.list_canonicals, status=status, page=Page(limit, offset))

    @server.tool(
        description="One canonical principle: its occurrences (term, quote, page, votes) and "
        "every version of its statement."
    )
    def get_canonical_principle(
        canonical_id: Annotated[int, Field(ge=1, description="The canonical principle's id.")],
    ) -> dict:
        return run(canonical.show, canonical_id=canonical_id)


def serve(settings: Settings | None = None) -> None:
    """Serve the tools over stdio until the client disconnects."""
    build_server(settings).run("stdio")
