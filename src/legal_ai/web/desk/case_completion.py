"""A case number as she types it on a desk form, completed against her cases (docs/desk.md,
"Case numbers"): the number in its one spelling when a case has it; else the one case whose
number/year she wrote ("8092/24") and whose proceeding and district it does not contradict;
several such: none, and the form names them. What it cannot complete is left as typed, for the
service to take (a new case's full number) or refuse. The upload forms, the new-lesson form and
the search form (search_form._case_number) complete through it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ...errors import InvalidInput
from ...retrieval import choices
from ...text.case_numbers import case_id, normalize_case_number


@dataclass(frozen=True)
class Completed:
    """`number`: the case's number to use (completed, or as typed); `completed`: it names an
    existing case other than as typed; `several`: the cases it may name when more than one;
    `known`: `number` is one of her cases; `alike`: when none fits, the cases with its
    number/year in another proceeding or district (to offer)."""

    number: str
    completed: bool = False
    several: list[str] = field(default_factory=list)
    known: bool = False
    alike: list[str] = field(default_factory=list)  # none fits: her cases of that number/year


class SeveralCases(InvalidInput):
    """A number/year several of her cases have: refused, naming them (`several`, their full
    numbers), for the form to offer."""

    def __init__(self, typed: str, several: list[str]) -> None:
        super().__init__(
            f"case number {typed} names several cases ({', '.join(several)}); "
            "write the full number",
            code="case.ambiguous_number",
            field="case_number",
        )
        self.several = several


def complete(conn: Any, typed: str) -> Completed:
    typed = (typed or "").strip()
    if not typed:
        return Completed(typed)
    spelled = normalize_case_number(typed)
    named = case_id(typed)
    if named is None:
        return Completed(typed)
    same = [
        c
        for c in choices.cases_ending(conn, named.number)
        if (found := case_id(c)) is not None and found.number == named.number
    ]
    if spelled in same:
        return Completed(spelled, known=True)
    fitting = [
        c
        for c in same
        if (found := case_id(c)) is not None
        and named.proceeding in (None, found.proceeding)
        and named.district in (None, found.district)
    ]
    if len(fitting) == 1:
        return Completed(fitting[0], completed=True, known=True)
    if len(fitting) > 1:
        return Completed(typed, several=fitting)
    return Completed(typed, alike=same)
