"""The learning loop (DESIGN §7), in rooms, each a sub-package whose `__init__` is its face:

- pairs/: our drafts and the chair's finals, their alignment and held-out style distance;
- lessons/: lessons distilled from a pair, the style panel, the chair's gate and feedback;
- principles/: legal principles extracted by a panel, culled, reviewed, made canonical;
- library/: one identity per ruling, the citation graph's links, treatment, missing precedents;
- arrival/: what a decision gets on arrival: upkeep, metadata and its enrichment, re-keying;
- checks/: the copy and citation checks on a draft and the cite-check report;
- methodology/: the chair's methodology profiles and a decision read by its blocks;
- engine/: the language models of each role, their budgets and costs, the learning job queue.

Shared by every room, here: the closed vocabularies (vocabulary.py), the one pattern of what the
chair decides (gate.py) and the bounds on what an agent may add (agent_bounds.py). A room imports
another only through its face, and the rooms form one direction: engine, methodology and library
first; checks; lessons; principles; arrival; pairs (docs/architecture.md).
"""
