"""Rendering a skill for staging, with the user-facing error the rollout commands report.

The reading itself is :func:`aces_ci.skill.read_skill_tree`, the same walk the scan lists a skill
with; this room only turns its refusal into an :class:`~aces_ci.errors.InputError` (exit 2).
"""

from __future__ import annotations

from pathlib import Path

from ..errors import InputError
from ..skill import RenderedSkill, RenderError, read_skill_tree


def render_skill_dir(path: Path, name: str | None = None) -> RenderedSkill:
    """The skill at ``path`` as it will be staged; :class:`InputError` names the file that prevents it."""
    try:
        return read_skill_tree(path, name)
    except RenderError as exc:
        raise InputError(str(exc), path=exc.path, field=exc.field) from None
