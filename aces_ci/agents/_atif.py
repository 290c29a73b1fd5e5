"""Build ATIF-v1.7 trajectories (Harbor's Agent Trajectory Interchange Format) step by step.

Every harness, whatever its native event stream, reports through this builder, so one grading
layer reads every rollout. Steps are numbered from 1 in order; tool results attach to the agent
step that made the calls; the skill events we detect ride along in ``extra.skill_events``. The
finished document passes through secret redaction before anyone can write it anywhere.

The builder invents no identifiers: a random id would make two runs of the same rollout differ
and a trajectory impossible to join back to its case. The engine stamps ``session_id``,
``trajectory_id`` (both the rollout's cache key) and ``extra.rollout`` (case, condition,
replicate, seed) on every trajectory it returns.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from typing import Any, Literal

from ..models import Usage
from ..redact import redact_obj
from ._types import SkillEvent

ATIF_VERSION = "ATIF-v1.7"
Source = Literal["system", "user", "agent"]


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


@dataclass(frozen=True)
class ToolCallRecord:
    tool_call_id: str
    function_name: str
    arguments: Mapping[str, Any]


@dataclass(frozen=True)
class StepMetrics:
    prompt_tokens: int | None = None
    """Includes cached tokens (ATIF ≥1.2)."""
    completion_tokens: int | None = None
    cached_tokens: int | None = None
    cost_usd: float | None = None
    extra: Mapping[str, Any] = field(default_factory=dict)
    """E.g. ``cache_creation_input_tokens``."""


class TrajectoryBuilder:
    """Accumulates steps; :meth:`build` returns the ATIF document as a plain dict."""

    def __init__(
        self,
        *,
        agent_name: str,
        agent_version: str,
        model_name: str | None = None,
        tool_definitions: Sequence[Mapping[str, Any]] | None = None,
    ) -> None:
        self._agent: dict[str, Any] = {"name": agent_name, "version": agent_version}
        if model_name:
            self._agent["model_name"] = model_name
        if tool_definitions:
            self._agent["tool_definitions"] = [dict(t) for t in tool_definitions]
        self._steps: list[dict[str, Any]] = []
        self._skill_events: list[SkillEvent] = []

    @property
    def next_step_id(self) -> int:
        return len(self._steps) + 1

    def _add(
        self, source: Source, message: str, timestamp: str | None, extra: Mapping[str, Any] | None
    ) -> dict[str, Any]:
        step: dict[str, Any] = {
            "step_id": self.next_step_id,
            "timestamp": timestamp or now_iso(),
            "source": source,
            "message": message,
        }
        if extra:
            step["extra"] = dict(extra)
        self._steps.append(step)
        return step

    def system(self, message: str, *, timestamp: str | None = None, extra: Mapping[str, Any] | None = None) -> int:
        return int(self._add("system", message, timestamp, extra)["step_id"])

    def user(self, message: str, *, timestamp: str | None = None, extra: Mapping[str, Any] | None = None) -> int:
        return int(self._add("user", message, timestamp, extra)["step_id"])

    def agent(
        self,
        message: str,
        *,
        tool_calls: Iterable[ToolCallRecord] = (),
        reasoning: str | None = None,
        metrics: StepMetrics | None = None,
        model_name: str | None = None,
        timestamp: str | None = None,
        extra: Mapping[str, Any] | None = None,
    ) -> int:
        step = self._add("agent", message, timestamp, extra)
        calls = [
            {"tool_call_id": c.tool_call_id, "function_name": c.function_name, "arguments": dict(c.arguments)}
            for c in tool_calls
        ]
        if calls:
            step["tool_calls"] = calls
        if reasoning:
            step["reasoning_content"] = reasoning
        if model_name:
            step["model_name"] = model_name
        if metrics is not None:
            step["metrics"] = {k: v for k, v in asdict(metrics).items() if v is not None and v != {}}
        return int(step["step_id"])

    def observe(
        self, step_id: int, call_id: str | None, content: str, *, extra: Mapping[str, Any] | None = None
    ) -> None:
        """Attach a tool result to the agent step ``step_id`` that made the call."""
        step = self._steps[step_id - 1]
        if step["source"] != "agent":
            raise ValueError(f"step {step_id} is a {step['source']} step; observations belong to agent steps")
        result: dict[str, Any] = {"content": content}
        if call_id is not None:
            result["source_call_id"] = call_id
        if extra:
            result["extra"] = dict(extra)
        step.setdefault("observation", {"results": []})["results"].append(result)

    def skill_event(self, event: SkillEvent) -> None:
        self._skill_events.append(event)

    @property
    def skill_events(self) -> tuple[SkillEvent, ...]:
        return tuple(self._skill_events)

    @property
    def steps(self) -> list[dict[str, Any]]:
        """The steps so far (read-only use: skill-event detection walks them)."""
        return self._steps

    def build(
        self,
        *,
        usage: Usage,
        notes: str | None = None,
        extra: Mapping[str, Any] | None = None,
        secrets: Iterable[str] = (),
    ) -> dict[str, Any]:
        """The finished ATIF document, with every string redacted of detected secrets and of ``secrets``."""
        final_metrics: dict[str, Any] = {
            "total_prompt_tokens": usage.prompt_tokens,
            "total_completion_tokens": usage.completion_tokens,
            "total_cached_tokens": usage.cache_read_tokens,
            "total_cost_usd": round(usage.cost_usd, 8),
            "total_steps": len(self._steps),
            "extra": {"cache_write_tokens": usage.cache_write_tokens, "model_calls": usage.model_calls},
        }
        root_extra = dict(extra or {})
        root_extra["skill_events"] = [{k: v for k, v in asdict(e).items() if v is not None} for e in self._skill_events]
        # The builder's own agent and steps go in uncopied: redaction returns a copy of every container.
        doc: dict[str, Any] = {
            "schema_version": ATIF_VERSION,
            "agent": self._agent,
            "steps": self._steps,
            "final_metrics": final_metrics,
            "extra": root_extra,
        }
        if notes:
            doc["notes"] = notes
        redacted: dict[str, Any] = redact_obj(doc, extra_secrets=secrets)
        return redacted
