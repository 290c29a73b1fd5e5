"""The vocabulary of one rollout: what is asked of a harness and what comes back.

A rollout is "give this rendered skill set to this agent, run this case, return what happened
and what it cost". Trials and SkillSV both reduce to it, so these types are the contract between
agents/ (who runs a rollout) and engine/ (who schedules, caches and journals them).

A request names its *condition* — a free label such as ``with``, ``without``, ``base``,
``metadata-only`` or a SkillSV coalition id — and its *replicate*, and both are part of its cache
key: an A/A control (the same staged content under two labels, or twice under one) is two
rollouts, never one cached answer. The engine knows nothing of what a condition means; the
caller's staging guard and grader do.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, get_args

from ..errors import InputError
from ..evals import EvalCase
from ..frozen import deep_frozen
from ..models import ModelSpec, Usage
from ..skill import FileMap, RenderedSkill, files_digest, is_safe_name
from ._artifacts import NO_ARTIFACTS, WorkspaceArtifacts

HarnessName = Literal["builtin", "claude-code", "codex", "opencode"]
HARNESSES: tuple[str, ...] = get_args(HarnessName)
"""Every harness name, in one place: the config schema's enum is tested against it."""
Disclosure = Literal["on-demand", "preload"]
DISCLOSURES: tuple[str, ...] = get_args(Disclosure)
SkillEventVia = Literal["skill_tool", "file_read", "shell_read", "preloaded", "script_run"]
SKILL_EVENT_VIAS: tuple[str, ...] = get_args(SkillEventVia)
RolloutStatus = Literal["completed", "infra_error"]
"""``completed``: the agent ran to an end (good or bad). ``infra_error``: not the skill's fault."""
EndReason = Literal[
    "final_answer",
    "no_answer",
    "max_turns",
    "max_tokens",
    "reply_too_large",
    "timeout",
    "model_error",
    "retries_exhausted",
    "harness_error",
    "staging_error",
]
"""How a rollout ended. The agent's own ends (a ``completed`` rollout): it answered, stopped without an
answer, ran out of turns or tokens, or its model's reply passed a size cap. Ends that are not the
skill's doing (``infra_error``): the rollout's timeout, the model API failed or kept failing, the
harness crashed, or its workspace could not be staged. Stored in every cached and journaled result."""


def _digest(payload: Any) -> str:
    canonical = json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class SkillSet:
    """What one condition stages: maybe the skill under test, plus any supporting skills and decoys."""

    skills: tuple[RenderedSkill, ...]
    target: str
    """Name of the skill under test, in every condition: whether the condition stages it or not."""

    def __post_init__(self) -> None:
        if not isinstance(self.target, str) or not is_safe_name(self.target):
            raise InputError(f"the skill under test needs a usable name, got {self.target!r}", field="skills.target")

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


MAX_CONDITION_CHARS = 200


@dataclass(frozen=True)
class RolloutRequest:
    """One rollout to run; frozen and hashable, so a caller can key its own tables by request."""

    case: EvalCase
    skills: SkillSet
    condition: str
    """Free label of what is staged (``with``, ``without``, ``base``, a coalition id…); part of the key."""
    harness: HarnessSpec
    model: ModelSpec
    seed: int = 0
    replicate: int = 0
    """Index of this repetition of (case, condition); part of the key, and of the model's seed."""
    fixtures: Mapping[str, bytes] = field(default_factory=FileMap)
    """Workspace files of the case (path relative to the workspace → content); frozen to a FileMap."""

    def __post_init__(self) -> None:
        condition = self.condition
        if (
            not isinstance(condition, str)
            or not condition
            or condition != condition.strip()
            or len(condition) > MAX_CONDITION_CHARS
            or not condition.isprintable()
        ):
            raise InputError(
                f"a condition is a printable label of 1 to {MAX_CONDITION_CHARS} characters without surrounding "
                f"spaces, got {condition!r}",
                field="condition",
            )
        if isinstance(self.replicate, bool) or not isinstance(self.replicate, int) or self.replicate < 0:
            raise InputError(f"replicate must be a whole number ≥ 0, got {self.replicate!r}", field="replicate")
        if isinstance(self.seed, bool) or not isinstance(self.seed, int):
            raise InputError(f"seed must be a whole number, got {self.seed!r}", field="seed")
        object.__setattr__(self, "fixtures", FileMap.of(self.fixtures))

    def identity(self) -> dict[str, str | int]:
        """What a reader joins a trajectory or a journal line back to: case, condition, replicate, seed."""
        return {
            "case": self.case.id,
            "condition": self.condition,
            "replicate": self.replicate,
            "seed": self.seed,
            "target": self.skills.target,
        }

    def cache_key(self, harness_identity: str) -> str:
        """Content address of this rollout: same inputs, same key, in every process and every release.

        ``harness_identity`` is :meth:`Harness.cache_identity`. Concurrency, timeouts and budgets are
        left out: they do not change what the agent sees. A change here re-keys every paid rollout,
        so ``tests/agents/test_cache_key.py`` pins the key of one fixed request.
        """
        return _digest(
            {
                "v": 2,
                "case": {"id": self.case.id, "prompt": self.case.prompt},
                "skills": self.skills.digest,
                "target": self.skills.target,
                "condition": self.condition,
                "replicate": self.replicate,
                "harness": {
                    "name": self.harness.name,
                    "identity": harness_identity,
                    "disclosure": self.harness.disclosure,
                    "max_turns": self.harness.max_turns,
                    "max_total_tokens": self.harness.max_total_tokens,
                },
                "model": self.model.cache_identity(),
                "seed": self.seed,
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
    """What one rollout did, ungraded: this is what the cache and the journal keep."""

    key: str
    """The request's cache key."""
    status: RolloutStatus
    end_reason: EndReason
    final_answer: str | None
    trajectory: Mapping[str, Any]
    """ATIF-v1.7 document (see schemas/atif.schema.json), secrets redacted; read-only all the way down
    (:func:`~aces_ci.frozen.deep_frozen`), because one cached result is read by every grader of both arms."""
    usage: Usage
    duration_s: float
    skill_events: tuple[SkillEvent, ...] = ()
    error: str | None = None
    artifacts: WorkspaceArtifacts = NO_ARTIFACTS
    """Files the agent wrote or changed in its workspace, captured before the workspace was removed."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "trajectory", deep_frozen(self.trajectory))
