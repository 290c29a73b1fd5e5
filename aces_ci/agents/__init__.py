"""Harnesses that run one case in one staged workspace and return an ATIF trajectory."""

from ._types import (
    Arm,
    Disclosure,
    HarnessName,
    HarnessSpec,
    ModelSpec,
    Provider,
    RenderedSkill,
    RolloutRequest,
    RolloutResult,
    RolloutStatus,
    SkillEvent,
    SkillSet,
    Usage,
    files_digest,
)

__all__ = [
    "Arm",
    "Disclosure",
    "HarnessName",
    "HarnessSpec",
    "ModelSpec",
    "Provider",
    "RenderedSkill",
    "RolloutRequest",
    "RolloutResult",
    "RolloutStatus",
    "SkillEvent",
    "SkillSet",
    "Usage",
    "files_digest",
]
