"""What a judge is shown of a rollout: bounded, redacted excerpts of the answer, the files and the calls.

A judge prompt must fit any model's context and must not carry a secret to another API, so every
section has a character budget, long text is cut in the middle (the start says what was asked,
the end what came of it), and everything passes through :func:`aces_ci.redact.redact_text`
(trajectories are redacted already; files the agent wrote are not). The sections are wrapped in
tags the system prompt calls data, so text inside them cannot pose as instructions.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..redact import redact_text
from ..skill import looks_binary
from ._actions import Action
from ._types import Artifacts

ANSWER_CHARS = 4000
FILE_CHARS = 1500
FILES_CHARS = 6000
MAX_FILES = 20
HISTORY_CHARS = 8000
CALL_CHARS = 240
RESULT_CHARS = 240


def middle_cut(text: str, limit: int) -> str:
    """``text`` within ``limit`` characters: its first two thirds and last third, the cut marked."""
    if len(text) <= limit:
        return text
    head = (limit * 2) // 3
    tail = limit - head
    return f"{text[:head]}\n[… {len(text) - limit:,} characters cut …]\n{text[-tail:]}"


def tagged(tag: str, body: str) -> str:
    return f"<{tag}>\n{body}\n</{tag}>"


def answer_section(final_answer: str | None) -> str:
    body = "(the agent gave no final answer)" if final_answer is None else middle_cut(final_answer, ANSWER_CHARS)
    return tagged("final_answer", redact_text(body))


def files_section(artifacts: Artifacts) -> str:
    """The files the agent left, each with the start of its text (binary files by size only)."""
    if not artifacts:
        return tagged("files_written", "(no files)")
    parts: list[str] = []
    budget = FILES_CHARS
    for path in sorted(artifacts)[:MAX_FILES]:
        data = artifacts[path]
        if data is None:
            parts.append(f"--- {path} (content not kept)")
            continue
        if looks_binary(data[:8192]):
            parts.append(f"--- {path} (binary, {len(data):,} bytes)")
            continue
        text = data.decode("utf-8", errors="replace")
        shown = middle_cut(text, min(FILE_CHARS, max(budget, 200)))
        budget -= len(shown)
        parts.append(f"--- {path} ({len(data):,} bytes)\n{shown}")
    if len(artifacts) > MAX_FILES:
        parts.append(f"(and {len(artifacts) - MAX_FILES} more files)")
    return tagged("files_written", redact_text("\n".join(parts)))


def _call_line(action: Action) -> str:
    if action.kind == "shell":
        what = f"shell: {action.command or ''}"
    elif action.paths:
        what = f"{action.name}: {', '.join(action.paths)}"
    else:
        shown = ", ".join(f"{k}={v!r}" for k, v in list(action.arguments.items())[:3])
        what = f"{action.name}({shown})"
    result = (action.result or "").strip().replace("\n", " ⏎ ")
    status = "FAILED → " if action.failed else "→ "
    return f"[step {action.step_id}] {what[:CALL_CHARS]}  {status}{result[:RESULT_CHARS]}"


def history_section(actions: Sequence[Action]) -> str:
    """One line per tool call, in order: what was called and the start of what came back."""
    if not actions:
        return tagged("tool_calls", "(the agent made no tool calls)")
    body = "\n".join(_call_line(action) for action in actions)
    return tagged("tool_calls", redact_text(middle_cut(body, HISTORY_CHARS)))
