"""The MCP server (`legal-ai mcp`, stdio) for the AI writing agents: the seven search tools,
the writer's brief (approved knowledge only) and the chair-feedback / curator tools. The search
tools are here; the others are registered by mcp_knowledge.py.

Thin: typed, described parameters; each tool calls `App.tool(...)`; an `AppError` becomes an MCP
tool error with its one-line message. The App (database, model) is opened on the first call, so
the server answers `initialize` and `tools/list` at once. It opens the store without migrating
(`App(..., migrate=False)`): it may run with an agent-only database login (docs/deployment.md),
and a database with migrations pending is refused with what to run, never migrated.
"""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal

from pydantic import Field

from .app import App
from .auth import agent, agent_tokens
from .config import Settings
from .errors import AppError, CapReached, Scrubber
from .mcp_knowledge import knowledge_tools
from .retrieval.arguments import SEMANTIC_QUERY_CHARS

Query = Annotated[
    str,
    Field(
        description="What to look for, in Hebrew or English (at most 20,000 characters: a long"
        f" text is searched by every word and by the meaning of its first {SEMANTIC_QUERY_CHARS}"
        " characters)."
    ),
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
    "Digests are pointers to rulings and are never citable. Before handing a draft over, run "
    "check_draft and mend every citation whose status is not found."
)


def mcp_principal(settings: Settings):
    """Whoever calls over MCP is a writing agent, never the chair: the agent named by the first
    LEGAL_AI_AGENT_TOKEN entry in the server's environment, else `mcp`. The chair's token, even
    when present, gives an MCP caller nothing more."""
    names = list(agent_tokens(settings).values())
    return agent(names[0] if names else "mcp")


def build_server(settings: Settings | None = None, *, app_for_call: Any = None):
    """An MCPServer with the seven tools, bound to a lazily opened App — or, served over HTTP
    (web/remote.py), to `app_for_call()`: the web app's App acting for the caller."""
    from mcp.server import MCPServer
    from mcp.server.mcpserver.exceptions import ToolError

    server = MCPServer("legal-ai", instructions=INSTRUCTIONS)
    state: dict[str, Any] = {}
    # What an error may say to the agent: no path, login, role, database or address (the one
    # Scrubber, as the HTTP API's errors).
    scrub = Scrubber.of(settings) if settings is not None else Scrubber()

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
        except CapReached as exc:  # an agent's cap: the same JSON as HTTP's 429
            raise ToolError(json.dumps(exc.as_json(), ensure_ascii=False)) from exc
        except AppError as exc:  # the message, then its code (catalog.py): "... [code: x]"
            raise ToolError(scrub(f"{exc} [code: {exc.code}]")) from exc

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
        description="Find other cases like a given case (by its documents) or like a text; one hit per"
        " case, within one practice area: the given case's own, or practice_area (required with a text)."
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
        description="Search external authoritative sources: court rulings and legislation, "
        "with approved principles (one the chair has not confirmed has term 'הצעת הפאנל' and "
        "`unconfirmed` true: the panel's proposal, not a binding rule)."
    )
    def search_precedent_library(
        query: Query,
        court: Annotated[str | None, Field(description="Only rulings of this court.")] = None,
        practice_area: PracticeArea = None,
        date_from: DateFrom = None,
        date_to: DateTo = None,
        doc_type: Annotated[
            Literal["ruling", "legislation"] | None,
            Field(description="Only rulings, or only the sections of laws."),
        ] = None,
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
            doc_type=doc_type,
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

    knowledge_tools(server, run)
    return server


EMBEDDED_CAVEAT = (
    "warning: the MCP server uses the embedded database, whose own login is a superuser that "
    "any local user of this machine can reach: the gates bind what the agents do through these "
    "tools, not what a shell on this machine does. On the office's server give the MCP server "
    "an agent-only login: LEGAL_AI_DATABASE_URL (docs/deployment.md, docs/security.md)"
)


def caveat(settings: Settings) -> str | None:
    """What `legal-ai mcp` says first on stderr, when anything (the embedded database)."""
    return EMBEDDED_CAVEAT if not settings.database_url else None


def serve(settings: Settings | None = None) -> None:
    """Serve the tools over stdio until the client disconnects."""
    build_server(settings).run("stdio")
