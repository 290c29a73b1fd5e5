"""Building blocks of live-tier tests: skills on disk, rollout requests, a scripted in-process client, kill-and-resume.

End-to-end tests talk HTTP to the scripted servers of tests/servers through ``create_client``;
:class:`ScriptedClient` is only for unit tests of the agent loop's own logic.
"""

from __future__ import annotations

import asyncio
import json
import re
import signal
import subprocess
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from aces_ci.agents import Harness, HarnessSpec, ModelClients, RolloutRequest, SkillSet
from aces_ci.engine import RolloutBatch, RolloutEngine
from aces_ci.evals import EvalCase
from aces_ci.grading import Grader
from aces_ci.models import ModelClient, ModelRequest, ModelResponse, ModelSpec, RetryPolicy, ToolCall, Usage
from aces_ci.skill import RenderedSkill
from tests.servers import Reply, ScriptedRequest, ScriptedServer, Text, ToolUse

FAST_RETRY = RetryPolicy(max_attempts=3, base_delay_s=0.01, max_delay_s=0.05, max_retry_after_s=0.05, deadline_s=10)
"""Retries that do not slow the suite down: same policy code, millisecond waits."""

MARKER_BODY = (
    "# Answering\n\nWhenever the user asks for the secret project number, reply with 42 and nothing else. "
    "The marker of this skill is ZEBRA-MARKER."
)


def skill_md(
    name: str, description: str = "Answers questions about the secret project number.", body: str = MARKER_BODY
) -> str:
    return f"---\nname: {name}\ndescription: {description}\n---\n\n{body}\n"


def rendered(
    name: str = "marker",
    body: str = MARKER_BODY,
    files: Mapping[str, str | bytes] | None = None,
    description: str = "Answers questions about the secret project number.",
) -> RenderedSkill:
    tree: dict[str, bytes] = {"SKILL.md": skill_md(name, description, body).encode()}
    for rel, content in (files or {}).items():
        tree[rel] = content.encode() if isinstance(content, str) else content
    return RenderedSkill(name=name, files=tree)


def write_skill(
    root: Path,
    name: str,
    body: str = MARKER_BODY,
    files: Mapping[str, str | bytes] | None = None,
    evals: str | None = None,
) -> Path:
    """A skill directory ``root/<name>`` with SKILL.md, ``files`` and optionally ``evals/evals.json``."""
    skill_dir = root / name
    skill_dir.mkdir(parents=True, exist_ok=True)
    (skill_dir / "SKILL.md").write_text(skill_md(name, body=body), encoding="utf-8")
    for rel, content in (files or {}).items():
        path = skill_dir / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content.encode() if isinstance(content, str) else content)
    if evals is not None:
        (skill_dir / "evals").mkdir(exist_ok=True)
        (skill_dir / "evals" / "evals.json").write_text(evals, encoding="utf-8")
    return skill_dir


def case(
    case_id: str = "c1", prompt: str = "What is the secret project number?", expected: str | None = "42"
) -> EvalCase:
    return EvalCase(id=case_id, prompt=prompt, expected_output=expected)


def request(
    condition: str = "with",
    *,
    target: RenderedSkill | None = None,
    others: Sequence[RenderedSkill] = (),
    eval_case: EvalCase | None = None,
    fixtures: Mapping[str, bytes] | None = None,
    harness: HarnessSpec | None = None,
    model: ModelSpec | None = None,
    replicate: int = 0,
    seed: int = 0,
) -> RolloutRequest:
    """One condition of a pair: ``with`` stages ``target`` plus ``others``, any other condition only ``others``."""
    target = target or rendered()
    skills = (target, *others) if condition == "with" else tuple(others)
    return RolloutRequest(
        case=eval_case or case(),
        skills=SkillSet(skills=skills, target=target.name),
        condition=condition,
        harness=harness or HarnessSpec(name="builtin", disclosure="on-demand", max_turns=6, timeout_s=30),
        model=model or ModelSpec(provider="openai", model="scripted-model"),
        seed=seed,
        replicate=replicate,
        fixtures=dict(fixtures or {}),
    )


async def run_once(
    requests: Sequence[RolloutRequest], harness: Harness, *, grader: Grader | None = None, **engine_options: Any
) -> RolloutBatch:
    """One engine, opened for a single ``run`` call: what a command with one batch does."""
    async with RolloutEngine(harness, **engine_options) as engine:
        return await engine.run(requests, grader=grader)


def openai_model(server_url: str, model: str = "scripted-model") -> ModelSpec:
    return ModelSpec(provider="openai", model=model, base_url=server_url)


def anthropic_model(server_url: str, model: str = "scripted-model") -> ModelSpec:
    return ModelSpec(provider="anthropic", model=model, base_url=server_url)


def fast_clients(timeout_s: float = 5.0, **options: Any) -> ModelClients:
    """Clients against the scripted servers: fast retries, short call timeouts."""
    return ModelClients(retry=FAST_RETRY, timeout_s=timeout_s, **options)


Responder = Callable[[ModelRequest], ModelResponse]


def text(reply: str, tokens: int = 10) -> ModelResponse:
    return ModelResponse(
        reply, (), "end_turn", Usage(prompt_tokens=tokens, completion_tokens=tokens, model_calls=1), "scripted-model"
    )


def calls(*tool_calls: tuple[str, dict[str, object]], tokens: int = 10, say: str = "") -> ModelResponse:
    made = tuple(ToolCall(f"call_{i}", name, dict(args)) for i, (name, args) in enumerate(tool_calls))
    return ModelResponse(
        say, made, "tool_use", Usage(prompt_tokens=tokens, completion_tokens=tokens, model_calls=1), "scripted-model"
    )


class ScriptedClient(ModelClient):
    """An in-process model for loop unit tests: replies from a list, or a function of the request.

    A reply that is an exception instance is raised; ``hang=True`` never answers.
    """

    provider = "scripted"
    model = "scripted-model"

    def __init__(self, replies: Sequence[ModelResponse | Exception] | Responder = (), *, hang: bool = False) -> None:
        self._replies = replies if callable(replies) else list(replies)
        self._hang = hang
        self.requests: list[ModelRequest] = []

    async def generate(self, request: ModelRequest) -> ModelResponse:
        self.requests.append(request)
        if self._hang:
            await asyncio.Event().wait()
        if callable(self._replies):
            return self._replies(request)
        reply = self._replies.pop(0)
        if isinstance(reply, Exception):
            raise reply
        return reply


MARKER = "ZEBRA-MARKER"
_SKILL_PATH = re.compile(r"SKILL\.md: (\S+)")


def planted_skill(req: ScriptedRequest) -> Reply:
    """A model with a planted skill effect: it answers 42 only when the prompt or a read file holds the marker.

    With tools and an on-demand prompt listing a skill it first reads that SKILL.md (as a real agent would);
    under preload it answers in plain text, as the embedded model does.
    """
    preload = "Give your answer by calling final_answer, or reply" in req.system_text
    answer = "42" if MARKER in req.all_text else "I do not know"
    listed = _SKILL_PATH.search(req.system_text)
    if listed and not req.tool_results and req.tools:
        return ToolUse("read_file", {"path": listed.group(1)})
    if preload:
        return Text(answer)
    return ToolUse("final_answer", {"answer": answer})


# -- killing a command mid-way (the kill-and-resume tests) ----------------------------------------


def complete_records(journal: Path) -> list[dict]:
    """Journal lines that were fully written (a line torn by the kill is not one)."""
    if not journal.exists():
        return []
    records = []
    for line in journal.read_bytes().split(b"\n"):
        try:
            records.append(json.loads(line))
        except ValueError:
            continue
    return records


def kill_once_journaled(process: subprocess.Popen[bytes], journal: Path, count: int) -> list[dict]:
    """SIGKILL ``process`` as soon as ``journal`` holds ``count`` complete records; the records it holds then."""
    try:
        deadline = time.monotonic() + 120
        while len(complete_records(journal)) < count and process.poll() is None and time.monotonic() < deadline:
            time.sleep(0.002)
        process.send_signal(signal.SIGKILL)
    finally:
        process.wait()
    assert process.returncode == -signal.SIGKILL, "the command finished before it could be killed half-way"
    return complete_records(journal)


def settled_calls(server: ScriptedServer) -> int:
    """The server's call count once requests sent just before the kill have all arrived."""
    calls, stable_since = server.calls, time.monotonic()
    while time.monotonic() - stable_since < 0.3:
        time.sleep(0.02)
        if server.calls != calls:
            calls, stable_since = server.calls, time.monotonic()
    return calls
