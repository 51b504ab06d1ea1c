"""The MCP server's tools beyond search (mcp_server.py builds the server and holds the seven
search tools): the writer's brief and its parts (checklist, lessons, block exemplars, templates,
contrastive pairs), the copy policy on a draft, the chair's feedback, the curator's findings,
the principles' lists and a ruling's later history (treatment, cited_by: read only — the chair
confirms a treatment on the desk, no tool does). Each tool calls a use case through the server's `run`."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from .knowledge import brief, contrastive, curator, exemplars, templates
from .learning.checks import copy_policy
from .learning.lessons import feedback, lessons
from .learning.library import treatment
from .learning.principles import canonical
from .learning.principles import review as principle_review
from .paging import Page

# The paging of the list tools (paging.py): at most 500 rows a call.
PageLimit = Annotated[
    int, Field(ge=1, le=500, description="At most this many (a page; default 100).")
]
PageOffset = Annotated[
    int, Field(ge=0, le=10**9, description="Skip this many (the answer's page.next_offset).")
]
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


def knowledge_tools(server: Any, run: Any) -> None:
    """The writer's brief and its parts, the copy policy on a draft, the chair-feedback and
    curator tools and the principles' lists, registered on `server`; each calls `run(function,
    **arguments)` (mcp_server.build_server's: the lazily opened App, AppError -> tool error)."""

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
        "and every citation checked against the library by its whole case number (found, "
        "ambiguous = several rulings fit it, say its district; not_in_library = a missing "
        "precedent, quote_not_found = a quotation its text does not hold; name_mismatch = the "
        "parties are not the ruling's; pinpoint_not_found = no such paragraph or page; "
        "section_not_found / law_not_in_library; lookup_failed = could not be checked, with why), "
        "each with its problems, what was verified, and the passage of the ruling that best "
        "supports its sentence (attention: weak support). The draft is not stored. Run it before "
        "handing a draft over and mend every problem; when the text is a registered draft "
        "version, `report` names the cite-check report kept of it."
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
        "עיקרון once the chair approved or confirmed it; until then 'הצעת הפאנל' with "
        "`unconfirmed` true — never cite one as binding), rule, verbatim supporting quote and "
        "page, the panel's votes and score, "
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

    @server.tool(
        description="What became of a ruling or committee decision of the library: `treatment` "
        "(the latest petition or appeal against it the chair has not rejected: kind set_aside | "
        "upheld | partly_set_aside | returned | unknown, `by` the later ruling, the operative "
        "words read, `confirmed` true only once the chair confirmed it — a rule's reading "
        "until then, never a fact), every such reading (`treatments`) and `cited_by` (the "
        "later decisions that cite it, each with the sentence around the citation). Give "
        "doc_id or case_number."
    )
    def get_ruling_history(
        doc_id: Annotated[
            str | None, Field(max_length=500, description="The ruling's doc_id (from a hit).")
        ] = None,
        case_number: Annotated[
            str | None,
            Field(
                max_length=200,
                description="Or its case number in full, e.g. ערר (תל אביב) 1212/19.",
            ),
        ] = None,
    ) -> dict:
        return run(treatment.history, doc_id=doc_id, case_number=case_number)
