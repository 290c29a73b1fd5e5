"""``aces-ci compress``'s logic: a shorter skill from SkillSV's decisions, verified on cases the valuation never saw.

The paper's Section 4.3 ("Lossless Skill Compression") in code, with the check its Table 3 shows
is needed: the **pruned** candidate cuts what the evidence allows (:func:`prune`), the **edited**
candidate is an editor model's rewrite from the value report (:func:`editor_prompt`,
:func:`parse_edit`), and each is judged against the original on the held-out cases
(:func:`contrast`, :func:`judge`). The application (``app/_compress.py``) runs the valuation, the
editor and the scoring through one engine; this room only decides.
"""

from ._editor import EDITOR_PROTOCOL, SYSTEM, InvalidEdit, UnitRow, editor_prompt, parse_edit
from ._json import COMPRESS_SCHEMA_VERSION, compress_json
from ._prune import Pruning, Removal, prune
from ._result import (
    Candidate,
    CandidateKind,
    CompressCost,
    CompressResult,
    UnitChange,
    changed_units,
    tree_diff,
    unit_changes,
)
from ._verify import DEFAULT_TOLERANCE, Contrast, Judgement, Verdict, contrast, judge

__all__ = [
    "COMPRESS_SCHEMA_VERSION",
    "DEFAULT_TOLERANCE",
    "EDITOR_PROTOCOL",
    "SYSTEM",
    "Candidate",
    "CandidateKind",
    "CompressCost",
    "CompressResult",
    "Contrast",
    "InvalidEdit",
    "Judgement",
    "Pruning",
    "Removal",
    "UnitChange",
    "UnitRow",
    "Verdict",
    "changed_units",
    "compress_json",
    "contrast",
    "editor_prompt",
    "judge",
    "parse_edit",
    "prune",
    "tree_diff",
    "unit_changes",
]
