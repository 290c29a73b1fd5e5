"""A skill compiled as the application does it: SkillSV's structured game, with no model run.

``aces-ci compile`` prints what this returns (:func:`aces_ci.report.render_compile_text`) and writes
it as JSON (:func:`aces_ci.skillsv.compiled_json`); ``value`` compiles the same way before it scores.
"""

from __future__ import annotations

import os
from pathlib import Path

from ..skillsv import CompiledSkill, compile_skill


def compile(skill_dir: str | os.PathLike[str]) -> CompiledSkill:
    """The game G = (N, D, H) of the skill in ``skill_dir``: its units, their dependency edges and the repaired
    hierarchy; InputError when the skill cannot be read or staged. Deterministic: no model runs."""
    return compile_skill(Path(skill_dir))
