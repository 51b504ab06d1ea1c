"""The library's links: one identity per ruling and the citation graph's links to it (links), what
became of a ruling in later rulings (treatment), and a missing precedent's ruling uploaded
(precedents), and what the library holds by kind and year (holdings).

The face below is what the rest of the package may import from this room; its other modules
are its own."""

from . import holdings, links, precedents, treatment
from .links import link_library, match
from .treatment import Treatment, treatment_for

__all__ = [
    "holdings",
    "link_library",
    "links",
    "match",
    "precedents",
    "treatment",
    "Treatment",
    "treatment_for",
]
