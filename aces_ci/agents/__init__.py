"""Harnesses that run one case in one staged workspace and return an ATIF trajectory."""

from ._atif import TrajectoryBuilder
from ._factory import ModelClients, create_harness
from ._harness import Harness, HarnessOutcome, Workspace
from ._render import render_skill_dir
from ._skill_events import detect_skill_events
from ._types import (
    DISCLOSURES,
    HARNESSES,
    SKILL_EVENT_VIAS,
    Arm,
    Disclosure,
    HarnessName,
    HarnessSpec,
    RolloutRequest,
    RolloutResult,
    RolloutStatus,
    SkillEvent,
    SkillEventVia,
    SkillSet,
)
from ._workspace import MIN_GUARDED_BODY_CHARS, check_baseline, plan_arm, plan_workspace, stage_workspace

__all__ = [
    "DISCLOSURES",
    "HARNESSES",
    "MIN_GUARDED_BODY_CHARS",
    "SKILL_EVENT_VIAS",
    "Arm",
    "Disclosure",
    "Harness",
    "HarnessName",
    "HarnessOutcome",
    "HarnessSpec",
    "ModelClients",
    "RolloutRequest",
    "RolloutResult",
    "RolloutStatus",
    "SkillEvent",
    "SkillEventVia",
    "SkillSet",
    "TrajectoryBuilder",
    "Workspace",
    "check_baseline",
    "create_harness",
    "detect_skill_events",
    "plan_arm",
    "plan_workspace",
    "render_skill_dir",
    "stage_workspace",
]
