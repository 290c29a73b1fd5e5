"""Read an ATIF trajectory as the list of things the agent did: one :class:`Action` per tool call.

Every harness reports through the same builder, but tools are named differently (Claude Code
``Read``/``Bash``/``Write``, Codex ``shell``/``file_change``, OpenCode ``read``/``bash``/``write``,
the built-in ``read_file``/``run``/``write_file``). Reads, shells and skill tools are classified
by :func:`aces_ci.agents.tool_kind`, the same rule that finds skill events, so a metric and the
skill-event detector never disagree about what a call was; writes are recognised here. A call's
result is joined by ``source_call_id``, and it failed when the harness marked it ``is_error``
(every harness does). Malformed steps are skipped: a crashed harness's trajectory must still grade.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from ..agents import tool_kind

ActionKind = Literal["skill", "read", "write", "shell", "other"]

WRITE_TOOLS = frozenset(
    {
        "write",
        "write_file",
        "writefile",
        "create_file",
        "edit",
        "edit_file",
        "multiedit",
        "str_replace",
        "str_replace_editor",
        "apply_patch",
        "notebookedit",
        "file_change",
        "patch",
    }
)
_PATH_KEYS = ("path", "file_path", "filePath", "filename", "file", "target_file", "absolute_path", "notebook_path")
_COMMAND_KEYS = ("command", "cmd", "script", "commands")
_CONTENT_KEYS = ("content", "contents", "text", "new_string", "new_str", "patch", "input")


@dataclass(frozen=True)
class Action:
    """One tool call and its result."""

    index: int
    """Position among all calls of the trajectory, from 0: the order the agent acted in."""
    step_id: int
    kind: ActionKind
    name: str
    arguments: Mapping[str, Any]
    command: str | None = None
    """The shell command text, for shell calls."""
    paths: tuple[str, ...] = ()
    """Paths named in the arguments (read and write tools; Codex file changes)."""
    written: str | None = None
    """The text a write call wrote or inserted, when the arguments carry it."""
    result: str | None = None
    failed: bool = False

    @property
    def text(self) -> str:
        """Everything the call names, for pattern checks: command, paths and written text."""
        parts = [self.command or "", *self.paths, self.written or ""]
        return "\n".join(part for part in parts if part)


def _base_name(function_name: str) -> str:
    name = function_name.casefold()
    for sep in ("__", ".", ":"):
        name = name.rsplit(sep, 1)[-1]
    return name


def _kind(function_name: str) -> ActionKind:
    kind = tool_kind(function_name)
    if kind == "other" and _base_name(function_name) in WRITE_TOOLS:
        return "write"
    return kind


def _command(arguments: Mapping[str, Any]) -> str | None:
    for key in _COMMAND_KEYS:
        value = arguments.get(key)
        if isinstance(value, str):
            return value
        if isinstance(value, list) and all(isinstance(v, str) for v in value):
            return " ".join(value)
    return None


def _paths(arguments: Mapping[str, Any]) -> tuple[str, ...]:
    found = [value for key in _PATH_KEYS if isinstance(value := arguments.get(key), str) and value]
    changes = arguments.get("changes")
    if isinstance(changes, list):  # Codex file_change: [{"path": ..., "kind": ...}]
        found += [c["path"] for c in changes if isinstance(c, Mapping) and isinstance(c.get("path"), str)]
    return tuple(dict.fromkeys(found))


def _written(arguments: Mapping[str, Any]) -> str | None:
    for key in _CONTENT_KEYS:
        value = arguments.get(key)
        if isinstance(value, str):
            return value
    return None


def _results(step: Mapping[str, Any]) -> dict[str, tuple[str, bool]]:
    observation = step.get("observation")
    results = observation.get("results") if isinstance(observation, Mapping) else None
    joined: dict[str, tuple[str, bool]] = {}
    for result in results if isinstance(results, list) else []:
        if not isinstance(result, Mapping) or not isinstance(result.get("source_call_id"), str):
            continue
        content = result.get("content")
        extra = result.get("extra")
        failed = isinstance(extra, Mapping) and extra.get("is_error") is True
        joined[result["source_call_id"]] = (content if isinstance(content, str) else "", failed)
    return joined


def _agent_steps(trajectory: Mapping[str, Any]) -> Iterator[Mapping[str, Any]]:
    steps = trajectory.get("steps")
    for step in steps if isinstance(steps, list) else []:
        if isinstance(step, Mapping) and step.get("source") == "agent" and isinstance(step.get("step_id"), int):
            yield step


def actions_of(trajectory: Mapping[str, Any]) -> list[Action]:
    """Every tool call of the trajectory's agent steps, in order, with its result."""
    actions: list[Action] = []
    for step in _agent_steps(trajectory):
        calls = step.get("tool_calls")
        results = _results(step)
        for call in calls if isinstance(calls, list) else []:
            if not isinstance(call, Mapping) or not isinstance(call.get("function_name"), str):
                continue
            arguments = call.get("arguments")
            arguments = arguments if isinstance(arguments, Mapping) else {}
            name = call["function_name"]
            kind = _kind(name)
            result, failed = results.get(str(call.get("tool_call_id")), (None, False))
            actions.append(
                Action(
                    index=len(actions),
                    step_id=step["step_id"],
                    kind=kind,
                    name=name,
                    arguments=arguments,
                    command=_command(arguments) if kind == "shell" else None,
                    paths=_paths(arguments) if kind in ("read", "write") else (),
                    written=_written(arguments) if kind == "write" else None,
                    result=result,
                    failed=failed,
                )
            )
    return actions


def agent_messages(trajectory: Mapping[str, Any]) -> list[tuple[int, str]]:
    """(step id, text) of every non-empty agent message: what the agent said, as opposed to did."""
    return [
        (step["step_id"], step["message"])
        for step in _agent_steps(trajectory)
        if isinstance(step.get("message"), str) and step["message"].strip()
    ]


def agent_turns(trajectory: Mapping[str, Any]) -> int:
    """The number of agent steps: a harness that reports no model calls still shows its turns."""
    return sum(1 for _ in _agent_steps(trajectory))
