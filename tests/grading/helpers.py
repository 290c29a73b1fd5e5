"""Hand-built ATIF trajectories in each harness's own tool vocabulary, and the grading input around them.

Each harness names its tools and stages skills its own way; a grading test builds the trajectory
the harness would have written (through the real :class:`TrajectoryBuilder`) and finds the skill
events with the real detector, so metrics are tested against what they will actually read.
"""

from __future__ import annotations

import itertools
import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from aces_ci.agents import TrajectoryBuilder, detect_skill_events
from aces_ci.agents._atif import ToolCallRecord
from aces_ci.evals import EvalCase
from aces_ci.grading import RolloutFacts, RolloutFigures
from aces_ci.models import Usage
from tests.redact.samples import one_of_each

ANTHROPIC_KEY = next(s.secret for s in one_of_each() if s.kind == "anthropic-api-key")
"""A realistic fake credential the redactor must catch (from the redactor's own sample corpus)."""
TOP = "/work/rollout"
WORK = f"{TOP}/work"
HOME = f"{TOP}/home"
SKILL = "csv-insights"

SKILL_ROOTS = {
    "builtin": f"{WORK}/.agents/skills",
    "claude-code": f"{HOME}/.claude/skills",
    "codex": f"{HOME}/.agents/skills",
    "opencode": f"{HOME}/.config/opencode/skills",
}


def skill_dir(harness: str, name: str = SKILL) -> str:
    return f"{SKILL_ROOTS[harness]}/{name}"


@dataclass(frozen=True)
class Call:
    name: str
    arguments: Mapping[str, Any]
    result: str = ""
    failed: bool = False


# One vocabulary per harness: how it loads a skill, reads a file, runs a command and writes a file.
def load(harness: str, name: str = SKILL) -> Call:
    path = f"{skill_dir(harness, name)}/SKILL.md"
    if harness == "claude-code":
        return Call("Skill", {"skill": name}, f"Launching skill: {name}")
    if harness == "opencode":
        return Call("skill", {"name": name}, f'<skill_content name="{name}">…</skill_content>')
    if harness == "codex":
        return Call("shell", {"command": f"/bin/bash -lc 'cat {path}'"}, "---\nname: x\n---\n# Steps")
    return Call("read_file", {"path": path}, "---\nname: x\n---\n# Steps")


def read(harness: str, path: str, result: str = "") -> Call:
    if harness == "claude-code":
        return Call("Read", {"file_path": path}, result)
    if harness == "opencode":
        return Call("read", {"filePath": path}, result)
    if harness == "codex":
        return Call("shell", {"command": f"/bin/bash -lc 'cat {path}'"}, result)
    return Call("read_file", {"path": path}, result)


def run(harness: str, command: str, result: str = "", *, failed: bool = False) -> Call:
    if harness == "claude-code":
        return Call("Bash", {"command": command}, result, failed)
    if harness == "opencode":
        return Call("bash", {"command": command}, result, failed)
    if harness == "codex":
        return Call("shell", {"command": f"/bin/bash -lc {shlex.quote(command)}"}, result, failed)
    return Call("run", {"command": command}, f"[exit code {1 if failed else 0}]\n{result}", failed)


def write(harness: str, path: str, content: str) -> Call:
    if harness == "claude-code":
        return Call("Write", {"file_path": path, "content": content}, "File created")
    if harness == "opencode":
        return Call("write", {"filePath": path, "content": content}, "Wrote file")
    if harness == "codex":
        return Call("file_change", {"changes": [{"path": path, "kind": "add"}]}, "completed")
    return Call("write_file", {"path": path, "content": content}, f"wrote {len(content)} bytes")


def run_script(harness: str, script: str = "scripts/summarize_csv.py", args: str = "evals/files/orders.csv") -> Call:
    return run(harness, f"python3 {skill_dir(harness)}/{script} {args}", '{"rows": 12}')


HARNESSES = tuple(SKILL_ROOTS)


def trajectory(
    steps: Sequence[Call | Sequence[Call]],
    *,
    answer: str | None = "done",
    harness: str = "builtin",
    prompt: str = "Profile the CSV",
    messages: Sequence[str] = (),
) -> dict[str, Any]:
    """An ATIF document: one agent step per entry (a list is parallel calls in one step), then the answer."""
    builder = TrajectoryBuilder(agent_name=harness, agent_version="test")
    builder.user(prompt)
    ids = itertools.count(1)
    for text in messages:
        builder.agent(text)
    for entry in steps:
        calls = [entry] if isinstance(entry, Call) else list(entry)
        records = [ToolCallRecord(f"call_{next(ids)}", c.name, dict(c.arguments)) for c in calls]
        step = builder.agent("", tool_calls=records)
        for record, call in zip(records, calls, strict=True):
            builder.observe(step, record.tool_call_id, call.result, extra={"is_error": True} if call.failed else None)
    if answer is not None:
        builder.agent(answer)
    return builder.build(usage=Usage(prompt_tokens=100, completion_tokens=20, model_calls=len(steps) + 1))


@dataclass
class Rollout:
    """Builder of a :class:`RolloutFacts` with sensible defaults."""

    case: EvalCase
    steps: Sequence[Call | Sequence[Call]] = ()
    answer: str | None = "done"
    harness: str = "builtin"
    staged: bool = True
    artifacts: Mapping[str, bytes] = field(default_factory=dict)
    figures: RolloutFigures = field(default_factory=lambda: RolloutFigures(1000, 4, 10.0))
    skills: Sequence[str] = (SKILL,)
    skill_files: frozenset[str] = frozenset({"SKILL.md", "scripts/summarize_csv.py", "references/column-types.md"})
    messages: Sequence[str] = ()

    def build(self) -> RolloutFacts:
        doc = trajectory(self.steps, answer=self.answer, harness=self.harness, messages=self.messages)
        dirs = {name: skill_dir(self.harness, name) for name in self.skills} if self.staged else {}
        events = detect_skill_events(doc, dirs, workspace_root=WORK, home=HOME)
        return RolloutFacts(
            case=self.case,
            skill=SKILL,
            skill_staged=self.staged,
            final_answer=self.answer,
            trajectory=doc,
            figures=self.figures,
            skill_events=tuple(events),
            artifacts=self.artifacts,
            workspace_root=WORK,
            skill_files=self.skill_files,
        )


def positive(**fields: Any) -> EvalCase:
    base: dict[str, Any] = {"id": "c1", "prompt": "Profile orders.csv", "should_trigger": True, "expected_skill": SKILL}
    return EvalCase(**{**base, **fields})


def negative(**fields: Any) -> EvalCase:
    base: dict[str, Any] = {"id": "n1", "prompt": "Write SQL", "should_trigger": False, "expected_skill": None}
    return EvalCase(**{**base, **fields})
