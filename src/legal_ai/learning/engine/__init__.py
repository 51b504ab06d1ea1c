"""The model engine: the language models configured per role and the recorder of their calls
(models), the daily token budgets (budgets) and what the calls cost (costs), and the learning
stage's job queue with its run reports (jobs, job_report).

The face below is what the rest of the package may import from this room; its other modules
are its own."""

from . import budgets, costs, jobs
from .jobs import Stages, run
from .models import (
    Lease,
    configured,
    key_missing,
    left_to_the_worker,
    principle_panel,
    public_url,
    single_model,
)

__all__ = [
    "budgets",
    "configured",
    "costs",
    "jobs",
    "key_missing",
    "Lease",
    "left_to_the_worker",
    "principle_panel",
    "public_url",
    "run",
    "single_model",
    "Stages",
]
