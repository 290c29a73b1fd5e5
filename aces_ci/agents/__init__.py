"""Harnesses that run one case in one staged workspace and return an ATIF trajectory."""

from ._artifacts import (
    NO_ARTIFACTS,
    OMISSIONS,
    Artifact,
    ArtifactLimits,
    Omission,
    WorkspaceArtifacts,
    capture_artifacts,
)
from ._atif import TrajectoryBuilder
from ._factory import ModelClients, create_harness
from ._harness import Harness, HarnessOutcome, Workspace
from ._render import render_skill_dir
from ._skill_events import ToolKind, detect_skill_events, shell_commands, tool_kind
from ._types import (
    DISCLOSURES,
    HARNESSES,
    MAX_CONDITION_CHARS,
    SKILL_EVENT_VIAS,
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
from ._workspace import (
    MIN_GUARDED_BODY_CHARS,
    StagingGuard,
    StagingPlan,
    baseline_guard,
    check_baseline,
    plan_checked,
    plan_workspace,
    stage_workspace,
)

__all__ = [
    "DISCLOSURES",
    "HARNESSES",
    "MAX_CONDITION_CHARS",
    "MIN_GUARDED_BODY_CHARS",
    "NO_ARTIFACTS",
    "OMISSIONS",
    "SKILL_EVENT_VIAS",
    "Artifact",
    "ArtifactLimits",
    "Disclosure",
    "Harness",
    "HarnessName",
    "HarnessOutcome",
    "HarnessSpec",
    "ModelClients",
    "Omission",
    "RolloutRequest",
    "RolloutResult",
    "RolloutStatus",
    "SkillEvent",
    "SkillEventVia",
    "SkillSet",
    "StagingGuard",
    "StagingPlan",
    "ToolKind",
    "TrajectoryBuilder",
    "Workspace",
    "WorkspaceArtifacts",
    "baseline_guard",
    "capture_artifacts",
    "check_baseline",
    "create_harness",
    "detect_skill_events",
    "plan_checked",
    "plan_workspace",
    "render_skill_dir",
    "shell_commands",
    "stage_workspace",
    "tool_kind",
]
