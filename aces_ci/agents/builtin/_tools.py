"""The built-in agent's tools, and the fence that keeps them inside the rollout's workspace.

Five tools, the least an agent needs to use a skill the way real harnesses do: look around
(``list_files``), read a SKILL.md or a reference (``read_file``), write an output (``write_file``),
run a skill's script (``run``), and finish (``final_answer``). Reads may reach the workspace and
the staged skill directories; writes only the workspace. ``..`` is refused outright, absolute
paths must lie inside those roots, and every path is resolved so a symlink cannot lead out.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from ...models import INVALID_ARGUMENTS_KEY, ToolSpec
from ...redact import safe_prefix
from ...skill import looks_binary
from .._harness import Workspace
from ._sandbox import SandboxLimits, describe, run_command, sandbox_env

FINAL_ANSWER = "final_answer"
MAX_READ_BYTES = 256 * 1024
MAX_WRITE_BYTES = 1024 * 1024
MAX_LISTED = 300

TOOL_SPECS: tuple[ToolSpec, ...] = (
    ToolSpec(
        "list_files",
        "List files and folders under a directory of the workspace (recursively, folders end in '/').",
        {
            "type": "object",
            "properties": {"path": {"type": "string", "description": "Directory; '.' is the workspace."}},
        },
    ),
    ToolSpec(
        "read_file",
        "Read a text file: a file of the workspace, or a skill's SKILL.md and its other files.",
        {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
    ),
    ToolSpec(
        "write_file",
        "Create or overwrite a file in the workspace with the given text.",
        {
            "type": "object",
            "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
            "required": ["path", "content"],
        },
    ),
    ToolSpec(
        "run",
        "Run a shell command (for example a skill's script) in the workspace; returns its exit code and output.",
        {"type": "object", "properties": {"command": {"type": "string"}}, "required": ["command"]},
    ),
    ToolSpec(
        FINAL_ANSWER,
        "Give your final answer to the task. Call this exactly once, when you are done.",
        {"type": "object", "properties": {"answer": {"type": "string"}}, "required": ["answer"]},
    ),
)


class ToolError(Exception):
    """A tool call the agent got wrong; the message goes back to the model as an error result."""


@dataclass(frozen=True)
class ToolOutput:
    content: str
    is_error: bool = False


def _within(path: Path, roots: Sequence[Path]) -> bool:
    return any(path == root or path.is_relative_to(root) for root in roots)


class PathFence:
    """Resolves the paths an agent writes into real paths inside its allowed directories."""

    def __init__(self, workdir: Path, read_roots: Sequence[Path], write_roots: Sequence[Path]) -> None:
        self.workdir = workdir.resolve()
        self.read_roots = tuple(r.resolve() for r in read_roots)
        self.write_roots = tuple(r.resolve() for r in write_roots)

    def resolve(self, raw: str, *, write: bool = False) -> Path:
        if not isinstance(raw, str) or not raw.strip():
            raise ToolError("a path is required")
        if "\x00" in raw:
            raise ToolError("the path contains a NUL character")
        pure = PurePosixPath(raw)
        if ".." in pure.parts:
            raise ToolError(f"'..' is not allowed in paths: {raw}")
        roots = self.write_roots if write else self.read_roots
        candidate = Path(pure) if pure.is_absolute() else self.workdir / pure
        if not _within(candidate, roots):
            raise ToolError(f"{raw} is outside the workspace{'' if write else ' and the skills'}")
        try:
            real = candidate.resolve(strict=False)
        except (OSError, RuntimeError) as exc:
            raise ToolError(f"cannot resolve {raw}: {exc}") from exc
        if not _within(real, roots):
            raise ToolError(f"{raw} leads outside the workspace through a symlink")
        return real

    def shown(self, path: Path) -> str:
        """How a path is shown to the agent: relative to its working directory when inside it."""
        if path.is_relative_to(self.workdir):
            return path.relative_to(self.workdir).as_posix()
        return str(path)


class WorkspaceTools:
    """Executes the agent's tool calls against one staged workspace."""

    def __init__(self, workspace: Workspace, limits: SandboxLimits) -> None:
        self.workspace = workspace
        self.limits = limits
        skill_dirs = list(workspace.skill_dirs.values())
        self.fence = PathFence(workspace.root, [workspace.root, *skill_dirs], [workspace.root])
        self.env = sandbox_env(workspace.home, workspace.root)

    async def call(self, name: str, arguments: Mapping[str, Any], *, time_left_s: float) -> ToolOutput:
        """Run one tool call; every failure becomes an error result, never an exception."""
        try:
            if INVALID_ARGUMENTS_KEY in arguments:
                raise ToolError(f"the arguments are not a JSON object: {arguments[INVALID_ARGUMENTS_KEY]!r:.200}")
            if name == "list_files":
                return ToolOutput(self.list_files(_text_arg(arguments, "path", default=".")))
            if name == "read_file":
                return ToolOutput(self.read_file(_text_arg(arguments, "path")))
            if name == "write_file":
                return ToolOutput(self.write_file(_text_arg(arguments, "path"), _text_arg(arguments, "content")))
            if name == "run":
                return await self.run(_text_arg(arguments, "command"), time_left_s)
            raise ToolError(f"unknown tool {name!r}; available: {', '.join(t.name for t in TOOL_SPECS)}")
        except ToolError as exc:
            return ToolOutput(f"error: {exc}", is_error=True)
        except (OSError, ValueError) as exc:
            return ToolOutput(f"error: {type(exc).__name__}: {exc}", is_error=True)

    def list_files(self, raw: str) -> str:
        base = self.fence.resolve(raw)
        if not base.is_dir():
            raise ToolError(f"{raw} is not a directory")
        entries: list[str] = []
        for dirpath, dirnames, filenames in os.walk(base, followlinks=False):
            here = Path(dirpath)
            dirnames.sort()
            names = [f"{d}/" for d in dirnames] + sorted(filenames)
            for name in sorted(names):
                rel = (here / name).relative_to(base).as_posix() + ("/" if name.endswith("/") else "")
                entries.append(rel)
                if len(entries) >= MAX_LISTED:
                    entries.append(f"[… listing stopped at {MAX_LISTED} entries]")
                    return "\n".join(entries)
        return "\n".join(entries) if entries else "(empty directory)"

    def read_file(self, raw: str) -> str:
        path = self.fence.resolve(raw)
        try:
            st = path.stat()
        except FileNotFoundError as exc:
            raise ToolError(f"no such file: {raw}") from exc
        if stat.S_ISDIR(st.st_mode):
            raise ToolError(f"{raw} is a directory; use list_files")
        if not stat.S_ISREG(st.st_mode):
            raise ToolError(f"{raw} is not a regular file")
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        with os.fdopen(fd, "rb") as handle:
            data = handle.read(MAX_READ_BYTES + 1)
        if looks_binary(data):
            return f"[binary file, {st.st_size:,} bytes: not shown]"
        text = data.decode("utf-8", errors="replace")
        if len(data) > MAX_READ_BYTES:
            text = safe_prefix(data[:MAX_READ_BYTES].decode("utf-8", errors="replace"), MAX_READ_BYTES)
            text += f"\n[… truncated: the file has {st.st_size:,} bytes, {MAX_READ_BYTES:,} shown]"
        return text

    def write_file(self, raw: str, content: str) -> str:
        data = content.encode("utf-8")
        if len(data) > MAX_WRITE_BYTES:
            raise ToolError(f"content is {len(data):,} bytes; the limit is {MAX_WRITE_BYTES:,}")
        path = self.fence.resolve(raw, write=True)
        if path.is_dir():
            raise ToolError(f"{raw} is a directory")
        path.parent.mkdir(parents=True, exist_ok=True)
        # Re-check after mkdir: a parent created through a racing symlink must not take us outside.
        self.fence.resolve(str(path), write=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0), 0o644)
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        return f"wrote {len(data):,} bytes to {self.fence.shown(path)}"

    async def run(self, command: str, time_left_s: float) -> ToolOutput:
        if not command.strip():
            raise ToolError("the command is empty")
        wall = max(0.1, min(self.limits.timeout_s, time_left_s))
        result = await run_command(command, cwd=self.workspace.root, env=self.env, limits=self.limits, timeout_s=wall)
        return ToolOutput(describe(result, wall), is_error=result.timed_out or result.exit_code != 0)


def _text_arg(arguments: Mapping[str, Any], key: str, default: str | None = None) -> str:
    value = arguments.get(key, default)
    if value is None:
        raise ToolError(f"missing argument {key!r}")
    if not isinstance(value, str):
        raise ToolError(f"argument {key!r} must be a string, got {type(value).__name__}")
    return value
