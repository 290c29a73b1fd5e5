"""The vocabulary of one rollout: what is asked of a harness and what comes back.

A rollout is "give this rendered skill set to this agent, run this case, return what happened
and what it cost". Trials and SkillSV both reduce to it, so these types are the contract between
agents/ (who runs a rollout) and engine/ (who schedules, caches and journals them).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, get_args

from ..evals import EvalCase
from ..models import ModelSpec, Usage
from ..skill import RenderedSkill, files_digest

HarnessName = Literal["builtin", "claude-code", "codex", "opencode"]
HARNESSES: tuple[str, ...] = get_args(HarnessName)
"""Every harness name, in one place: the config schema's enum is tested against it."""
Disclosure = Literal["on-demand", "preload"]
DISCLOSURES: tuple[str, ...] = get_args(Disclosure)
SkillEventVia = Literal["skill_tool", "file_read", "shell_read", "preloaded", "script_run"]
SKILL_EVENT_VIAS: tuple[str, ...] = get_args(SkillEventVia)
Arm = Literal["with", "without"]
RolloutStatus = Literal["completed", "infra_error"]
"""``completed``: the agent ran to an end (good or bad). ``infra_error``: not the skill's fault."""


def _digest(payload: Any) -> str:
    canonical = json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class SkillSet:
    """What one arm stages: the target skill (or not), plus supporting skills and decoys shared by both arms."""

    skills: tuple[RenderedSkill, ...]
    target: str | None
    """Name of the target skill when this arm includes it; None for the baseline arm."""

    @property
    def digest(self) -> str:
        return _digest(sorted((s.name, s.digest) for s in self.skills))


@dataclass(frozen=True)
class HarnessSpec:
    name: HarnessName
    disclosure: Disclosure = "on-demand"
    max_turns: int = 20
    max_total_tokens: int = 200_000
    """Stop a rollout once prompt+completion tokens over all calls exceed this."""
    timeout_s: float = 300.0


@dataclass(frozen=True)
class RolloutRequest:
    case: EvalCase
    skills: SkillSet
    arm: Arm
    harness: HarnessSpec
    model: ModelSpec
    seed: int = 0
    run_index: int = 0
    fixtures: Mapping[str, bytes] = field(default_factory=dict)
    """Workspace files of the case (path relative to the workspace → content)."""

    def cache_key(self, harness_version: str) -> str:
        """Content address of this rollout: same inputs, same key, in every process.

        Concurrency, timeouts and budgets are left out: they do not change what the agent sees.
        """
        return _digest(
            {
                "v": 1,
                "case": {"id": self.case.id, "prompt": self.case.prompt},
                "skills": self.skills.digest,
                "target": self.skills.target,
                "arm": self.arm,
                "harness": {
                    "name": self.harness.name,
                    "version": harness_version,
                    "disclosure": self.harness.disclosure,
                    "max_turns": self.harness.max_turns,
                    "max_total_tokens": self.harness.max_total_tokens,
                },
                "model": self.model.cache_identity(),
                "seed": self.seed,
                "run": self.run_index,
                "fixtures": files_digest(self.fixtures),
            }
        )


@dataclass(frozen=True)
class SkillEvent:
    """The agent touched a skill: loaded it, read one of its files, or ran one of its scripts."""

    step_id: int
    skill: str
    via: SkillEventVia
    path: str | None = None


@dataclass(frozen=True)
class RolloutResult:
    key: str
    """The request's cache key."""
    status: RolloutStatus
    end_reason: str
    """``final_answer``, ``max_turns``, ``max_tokens``, ``timeout``, ``harness_error``, ``retries_exhausted``…"""
    final_answer: str | None
    trajectory: dict[str, Any]
    """ATIF-v1.7 document (see schemas/atif.schema.json), secrets redacted."""
    usage: Usage
    duration_s: float
    skill_events: tuple[SkillEvent, ...] = ()
    error: str | None = None
    score: float | None = None
    """0–1 from the case's scorer; None when not scored (infra errors are never scored)."""
