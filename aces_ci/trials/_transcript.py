"""A rollout's ATIF trajectory cut down to a transcript the trial result can carry (issue 19).

The HTML report opens each case's rollouts side by side; the trial JSON is all it reads, so the
JSON keeps, for the first run of each arm, every step's role and text, its tool calls (name and
arguments), what the tools answered and the skill touches the engine detected — each string
redacted (again: the engine redacted the trajectory, and an environment secret may be set only
now) and cut. Caps bound one transcript; :func:`fit_transcripts` bounds the whole result, so a
trial of hundreds of rollouts still renders as a report of a few megabytes at most.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping, Sequence
from typing import Any

from ..agents import RolloutResult, SkillEvent
from ..redact import environment_secrets, redact_text, safe_prefix
from ._result import CaseRow, SkillTrialResult, Transcript, TranscriptCall, TranscriptStep

MAX_STEPS = 40
"""Steps kept per transcript; the rest are counted, not kept."""
TEXT_CHARS = 1500
"""Characters of a step's message kept (a system prompt with the skill catalogue is the long one)."""
ARGUMENT_CHARS = 400
RESULT_CHARS = 1000
RESULT_BUDGET_CHARS = 600_000
"""Characters of transcript text one trial result keeps in all: 200 rollouts' worth at a few kB each."""

_EVENT_WORDS = {
    "skill_tool": "skill load",
    "preloaded": "skill preloaded",
    "file_read": "skill file read",
    "shell_read": "skill file read",
    "script_run": "script run",
}


def _cut(value: str, limit: int, secrets: Sequence[str]) -> str:
    """``value`` redacted (detected secrets and ``secrets``' values), then cut to ``limit`` characters, saying how
    many were left out."""
    clean = redact_text(value, secrets)
    if len(clean) <= limit:
        return clean
    kept = safe_prefix(clean, limit)
    return f"{kept}… [{len(clean) - len(kept)} more characters]"


def _arguments(raw: Any, secrets: Sequence[str]) -> str:
    if isinstance(raw, str):
        return _cut(raw, ARGUMENT_CHARS, secrets)
    try:
        encoded = json.dumps(raw, ensure_ascii=False, sort_keys=True, default=str)
    except (TypeError, ValueError):
        encoded = str(raw)
    return _cut(encoded, ARGUMENT_CHARS, secrets)


def _event_words(event: SkillEvent) -> str:
    where = f"{event.skill}/{event.path}" if event.path else event.skill
    return f"{_EVENT_WORDS.get(event.via, event.via)} {where}"


def _calls(step: Mapping[str, Any], secrets: Sequence[str]) -> tuple[TranscriptCall, ...]:
    calls = step.get("tool_calls") or ()
    return tuple(
        TranscriptCall(_cut(str(c.get("function_name", "?")), 100, secrets), _arguments(c.get("arguments"), secrets))
        for c in calls
        if isinstance(c, Mapping)
    )


def _results(step: Mapping[str, Any], secrets: Sequence[str]) -> tuple[str, ...]:
    observation = step.get("observation")
    results = observation.get("results", ()) if isinstance(observation, Mapping) else ()
    return tuple(_cut(str(r.get("content", "")), RESULT_CHARS, secrets) for r in results if isinstance(r, Mapping))


def _step(step: Mapping[str, Any], events: Sequence[SkillEvent], secrets: Sequence[str]) -> TranscriptStep:
    source = step.get("source")
    return TranscriptStep(
        source=source if source in ("system", "user", "agent") else "agent",
        text=_cut(str(step.get("message") or ""), TEXT_CHARS, secrets),
        calls=_calls(step, secrets),
        results=_results(step, secrets),
        skill_events=tuple(_cut(_event_words(e), 300, secrets) for e in events),
    )


def transcript_of(result: RolloutResult) -> Transcript:
    """The first :data:`MAX_STEPS` steps of ``result``'s trajectory, every string redacted and cut."""
    secrets = environment_secrets()
    steps = [s for s in result.trajectory.get("steps", ()) if isinstance(s, Mapping)]
    by_step: dict[int, list[SkillEvent]] = {}
    for event in result.skill_events:
        by_step.setdefault(event.step_id, []).append(event)
    kept = tuple(_step(s, by_step.get(int(s.get("step_id", 0) or 0), ()), secrets) for s in steps[:MAX_STEPS])
    omitted = len(steps) - len(kept)
    note = f"{omitted} later step(s) not kept (the transcript keeps {MAX_STEPS})" if omitted else None
    if result.status == "infra_error":
        error = f"infrastructure error {result.end_reason}: {_cut(result.error or '', 300, secrets)}"
        note = error if note is None else f"{note}; {error}"
    return Transcript(kept, omitted, note)


def transcript_chars(transcript: Transcript) -> int:
    """The characters a transcript adds to the result: what :data:`RESULT_BUDGET_CHARS` counts."""
    total = len(transcript.note or "")
    for step in transcript.steps:
        total += len(step.text) + sum(len(r) for r in step.results) + sum(len(e) for e in step.skill_events)
        total += sum(len(c.name) + len(c.arguments) for c in step.calls)
    return total


class _Budget:
    """What is left of the result's transcript budget; a transcript that does not fit keeps no steps."""

    def __init__(self, chars: int) -> None:
        self.left = chars

    def fit(self, transcript: Transcript | None) -> Transcript | None:
        if transcript is None:
            return None
        size = transcript_chars(transcript)
        if size <= self.left:
            self.left -= size
            return transcript
        self.left = 0
        return Transcript(
            (),
            len(transcript.steps) + transcript.omitted_steps,
            "not kept: the trial result's transcript budget was spent on earlier cases",
        )


def fit_transcripts(
    skills: Sequence[SkillTrialResult], budget_chars: int = RESULT_BUDGET_CHARS
) -> tuple[SkillTrialResult, ...]:
    """``skills`` with transcripts kept in case order while they fit in ``budget_chars``; later ones say why not."""
    budget = _Budget(budget_chars)
    fitted = []
    for skill in skills:
        cases: list[CaseRow] = [
            dataclasses.replace(
                case,
                with_transcript=budget.fit(case.with_transcript),
                control_transcript=budget.fit(case.control_transcript),
            )
            for case in skill.cases
        ]
        fitted.append(dataclasses.replace(skill, cases=tuple(cases)))
    return tuple(fitted)
