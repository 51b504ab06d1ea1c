"""The /api route tables, one APIRouter per concern; each handler parses, calls the same service
as the CLI on the App acting for who authenticated (web/deps.py), and returns its answer.

- health: /healthz, /readyz, and /openapi.json (included only with LEGAL_AI_API_SCHEMA=true)
- learning: a case's draft and final upload, promote, curator findings, the figures, lessons
- methodology: the profiles, their versions, diff, edit and restore
- feedback: the chair's feedback and its weekly summary
- principles: legal principles and canonical principles
- voice: exemplary cases and their voice documents
- enrichment: proposals for internal decisions
- citations: citations several rulings fit, and the chair's pick
- treatments: a ruling's later history (treatment, cited_by) and the chair's confirmation
- knowledge: what the writer reads (exemplars, templates, contrastive, brief, checklist)
- jobs: the scheduled jobs and the reminders
- search: `legal-ai search --json` over HTTP

`API` is the order `create_app` adds them in (the order the routes are matched in), each with
`include`."""

from fastapi import APIRouter, FastAPI
from fastapi.routing import APIRoute

from . import (
    citations,
    enrichment,
    feedback,
    health,
    jobs,
    knowledge,
    learning,
    methodology,
    principles,
    search,
    treatments,
    voice,
)

API = (
    learning.router,
    methodology.router,
    feedback.router,
    principles.router,
    voice.router,
    enrichment.router,
    citations.router,
    treatments.router,
    knowledge.router,
    jobs.router,
    search.router,
)

__all__ = ["API", "health", "include"]


def include(api: FastAPI, router: APIRouter) -> None:
    """Add `router`'s routes to `api` one by one, listed in `api.routes` (FastAPI's
    `include_router` keeps a router as one entry there in its newer releases, and whatever walks
    `api.routes` would miss them). The route objects are the router's own, built once when its
    module was imported, not rebuilt per app: `api.add_api_route` analyses every handler's
    parameters again (~1.5 ms a route, ~100 ms of an app's 200 on this machine). Our routes
    keep nothing of the app they serve (it is reached through `request.app`), the routers add
    no prefix or dependency of their own, and nothing here overrides a dependency."""
    for route in router.routes:
        if not isinstance(route, APIRoute):
            raise TypeError(f"{route!r}: the route tables hold API routes only")
        api.router.routes.append(route)
