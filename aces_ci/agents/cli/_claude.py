"""Claude Code (``claude -p --output-format stream-json --verbose``) as a harness.

Skills are staged in ``<home>/.claude/skills/``, the user-level folder: the agent's working
directory then holds only the case's files, and the ``init`` event lists the staged skills under
``skills``. Claude Code's bundled skills are switched off (``CLAUDE_CODE_DISABLE_BUNDLED_SKILLS``):
they change with every release and would sit in both arms of a trial as noise.

Tools run without permission prompts (``--permission-mode bypassPermissions``): there is nobody
to answer one, and a denied read would look like a skill the agent ignored. Claude Code refuses
that mode as root unless ``IS_SANDBOX=1``, which is set because the throwaway workspace is the
sandbox the flag asks about — CI containers commonly run as root.
"""

from __future__ import annotations

from pathlib import Path

from ...models import Provider
from .._atif import TrajectoryBuilder
from .._harness import Workspace
from .._types import HarnessName, RolloutRequest
from ._base import CliHarness, Invocation
from ._claude_events import ClaudeEvents
from ._env import base_environment
from ._stream import EventStream


class ClaudeCodeHarness(CliHarness):
    name: HarnessName = "claude-code"
    display_name = "Claude Code"
    command = "claude"
    providers: tuple[Provider, ...] = ("anthropic",)
    not_applied = ("temperature", "seed")

    def skill_root(self, workspace_root: Path, home: Path) -> Path:
        return home / ".claude" / "skills"

    def invocation(self, request: RolloutRequest, workspace: Workspace, key_env: str, key: str) -> Invocation:
        model = request.model
        env = base_environment(workspace.home)
        env[key_env] = key
        if model.base_url:
            env["ANTHROPIC_BASE_URL"] = model.base_url
        env.update(
            {
                "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
                "CLAUDE_CODE_DISABLE_BUNDLED_SKILLS": "1",
                "DISABLE_AUTOUPDATER": "1",
                "CLAUDE_CODE_MAX_RETRIES": str(self.api_retries),
                "CLAUDE_CODE_MAX_OUTPUT_TOKENS": str(model.max_tokens),
                "IS_SANDBOX": "1",
            }
        )
        argv = [
            str(self.executable),
            "-p",
            "--output-format",
            "stream-json",
            "--verbose",
            "--permission-mode",
            "bypassPermissions",
            "--model",
            model.model,
            "--max-turns",
            str(request.harness.max_turns),
        ]
        return Invocation(argv, env)

    def events(self, builder: TrajectoryBuilder) -> EventStream:
        return ClaudeEvents(builder)
