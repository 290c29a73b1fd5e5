"""Find, in an ATIF trajectory, every moment the agent touched a staged skill.

Harnesses load skills in different ways: Claude Code calls a ``Skill`` tool, OpenCode a ``skill``
tool, Codex and most others simply read ``<skill>/SKILL.md`` with a read tool or a shell command,
and an agent that follows a skill usually runs its scripts. All of these leave tool calls in the
trajectory; this module turns them into :class:`SkillEvent` records. Every step is examined: an
agent often lists files or runs an unrelated command before it reaches for a skill.

A ``path`` on an event is the touched file relative to the skill directory (``SKILL.md``,
``scripts/fill.py``), so events compare across rollouts whose temporary directories differ.
"""

from __future__ import annotations

import posixpath
import re
import shlex
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from ..skill import SKILL_FILE
from ._types import SkillEvent, SkillEventVia

SKILL_TOOLS = frozenset({"skill", "activate_skill", "load_skill", "use_skill"})
"""Tools whose call *is* the loading of a skill (Claude Code ``Skill``, OpenCode ``skill``)."""
READ_TOOLS = frozenset({"read", "read_file", "readfile", "view", "view_file", "open_file", "cat"})
SHELL_TOOLS = frozenset(
    {
        "bash",
        "shell",
        "sh",
        "run",
        "exec",
        "exec_command",
        "execute",
        "execute_command",
        "run_command",
        "run_shell_command",
        "shell_command",
        "local_shell",
        "terminal",
        "command",
    }
)
_SKILL_ARG_KEYS = ("skill", "name", "skill_name")
_PATH_ARG_KEYS = ("path", "file_path", "filePath", "filename", "file", "target_file", "absolute_path")
_COMMAND_ARG_KEYS = ("command", "cmd", "script", "commands")

VIEWERS = frozenset(
    {
        "cat",
        "head",
        "tail",
        "less",
        "more",
        "sed",
        "awk",
        "nl",
        "bat",
        "batcat",
        "grep",
        "egrep",
        "fgrep",
        "rg",
        "tac",
        "view",
        "strings",
        "od",
        "xxd",
        "hexdump",
    }
)
"""Commands that put a file's content in front of the agent."""
_SHELLS = frozenset({"bash", "sh", "zsh", "dash", "ksh"})
_INTERPRETERS = _SHELLS | frozenset({"node", "ruby", "perl", "deno", "bun", "pwsh", "php", "rscript", "source", "."})
_WRAPPERS = frozenset({"sudo", "nohup", "time", "command", "exec", "nice", "stdbuf"})
_PY_RE = re.compile(r"^(python|pypy)(\d+(\.\d+)?)?$")
_ASSIGNMENT_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
_SEPARATORS = frozenset({";", "&&", "||", "|", "&", "|&", "(", ")", ";;"})
_MAX_NESTING = 4
"""``bash -c "sh -c '…'"`` deeper than this is not followed."""


@dataclass(frozen=True)
class _StagedSkill:
    name: str
    dir: str
    """Normalised directory path, absolute when it could be resolved."""
    parts: tuple[str, ...]


class _SkillIndex:
    """Maps a path the agent wrote to (skill, path inside the skill)."""

    def __init__(self, skill_dirs: Mapping[str, str], workspace_root: str | None, home: str | None) -> None:
        self.workspace_root = posixpath.normpath(workspace_root) if workspace_root else None
        self.home = posixpath.normpath(home) if home else None
        skills = []
        for name, directory in skill_dirs.items():
            norm = self.resolve(str(directory), self.workspace_root) or posixpath.normpath(str(directory))
            skills.append(_StagedSkill(name, norm, tuple(p for p in norm.split("/") if p)))
        # Longest directory first: a skill nested inside another's folder is the more specific answer.
        self.skills = sorted(skills, key=lambda s: len(s.parts), reverse=True)
        self.by_name = {s.name.casefold(): s.name for s in skills}

    def resolve(self, path: str, cwd: str | None) -> str | None:
        """``path`` made absolute and normalised, or None when it is relative and ``cwd`` is unknown."""
        if path == "~" or path.startswith("~/"):
            return posixpath.normpath(self.home + path[1:]) if self.home else None
        if posixpath.isabs(path):
            return posixpath.normpath(path)
        return posixpath.normpath(posixpath.join(cwd, path)) if cwd else None

    def locate(self, raw: str, cwd: str | None) -> tuple[str, str] | None:
        """(skill name, path relative to its directory) for a file of a staged skill, else None."""
        if not raw or "\x00" in raw or any(ch in raw for ch in "*?$`"):
            return None
        absolute = self.resolve(raw, cwd or self.workspace_root)
        if absolute is not None:
            for skill in self.skills:
                if absolute.startswith(skill.dir + "/"):
                    return skill.name, absolute[len(skill.dir) + 1 :]
            if posixpath.isabs(raw) or raw.startswith("~"):
                return None
        # A relative path we could not anchor: match it against the tail of each skill's directory,
        # so ".agents/skills/pdf/SKILL.md" and "pdf/SKILL.md" both find the skill staged at …/pdf.
        parts = [p for p in posixpath.normpath(raw).split("/") if p and p != "."]
        for skill in self.skills:
            for size in range(len(skill.parts), 0, -1):
                if len(parts) > size and tuple(parts[:size]) == skill.parts[-size:]:
                    return skill.name, "/".join(parts[size:])
        return None

    def skill_named(self, value: str) -> str | None:
        """The staged skill a Skill-tool argument names (``plugin:name`` namespaces are dropped)."""
        cleaned = value.strip().lstrip("/$").rsplit(":", 1)[-1].strip()
        return self.by_name.get(cleaned.casefold())


ToolKind = Literal["skill", "read", "shell", "other"]


def tool_kind(function_name: str) -> ToolKind:
    """What a tool call does, by its name, the same way for skill-event detection and for grading."""
    name = function_name.casefold()
    # MCP-style names ("mcp__fs__read_file", "functions.bash"): the last segment is the tool.
    for sep in ("__", ".", ":"):
        name = name.rsplit(sep, 1)[-1]
    if name in SKILL_TOOLS:
        return "skill"
    if name in READ_TOOLS:
        return "read"
    if name in SHELL_TOOLS:
        return "shell"
    return "other"


def _tokens(command: str) -> list[str]:
    """Shell words and operators of ``command``; bad quoting degrades to a rougher split, never an error."""
    text = command.replace("\r", "").replace("\n", " ; ")
    for attempt in (text, text + '"', text + "'", text.replace('"', " ").replace("'", " ")):
        lexer = shlex.shlex(attempt, posix=True, punctuation_chars=True)
        lexer.whitespace_split = True
        lexer.commenters = ""
        try:
            return list(lexer)
        except ValueError:
            continue
    return text.split()


def _simple_commands(tokens: Iterable[str]) -> Iterator[list[str]]:
    current: list[str] = []
    for token in tokens:
        if token in _SEPARATORS:
            if current:
                yield current
            current = []
        else:
            current.append(token)
    if current:
        yield current


def _strip_prefixes(words: list[str]) -> list[str]:
    """Drop ``VAR=value`` assignments and wrappers such as ``sudo``, ``env``, ``timeout 30``."""
    i = 0
    while i < len(words):
        word = words[i]
        base = posixpath.basename(word)
        if _ASSIGNMENT_RE.match(word):
            i += 1
        elif base in _WRAPPERS or base == "env":
            i += 1
            while i < len(words) and words[i].startswith("-"):
                i += 1
        elif base == "timeout":
            i += 1
            while i < len(words) and words[i].startswith("-"):
                i += 1
            i += 1  # the duration
        else:
            break
    return words[i:]


def _inline_script(words: list[str]) -> str | None:
    """The script of ``bash -c "…"`` / ``sh -lc '…'``, or None when ``words`` is not a shell given one."""
    if not words or posixpath.basename(words[0]).casefold() not in _SHELLS:
        return None
    for i, option in enumerate(words[1:], start=1):
        if not option.startswith("-") or option.startswith("--"):
            return None
        if "c" in option[1:]:
            return words[i + 1] if i + 1 < len(words) else None
    return None


def shell_commands(command: str) -> list[list[str]]:
    """Every simple command of ``command`` as its words, the way skill events read commands.

    Operators split commands; ``VAR=value`` prefixes and wrappers (``sudo``, ``env``, ``timeout 30``)
    are dropped; ``bash -c "…"`` (how Codex wraps every command) is followed into its script, up to
    :data:`_MAX_NESTING` levels. Bad quoting degrades to a rougher split, never an error.
    """
    found: list[list[str]] = []
    pending = [(command, 0)]
    while pending:
        text, depth = pending.pop(0)
        for raw in _simple_commands(_tokens(text)):
            words = _strip_prefixes(raw)
            inner = _inline_script(words)
            if inner is not None and depth < _MAX_NESTING:
                pending.append((inner, depth + 1))
            elif words:
                found.append(words)
    return found


class _Detector:
    def __init__(self, index: _SkillIndex) -> None:
        self.index = index
        self.events: list[SkillEvent] = []
        self._seen: set[tuple[int, str, str, str | None]] = set()

    def add(self, step_id: int, skill: str, via: SkillEventVia, path: str | None) -> None:
        key = (step_id, skill, via, path)
        if key not in self._seen:
            self._seen.add(key)
            self.events.append(SkillEvent(step_id=step_id, skill=skill, via=via, path=path))

    def tool_call(self, step_id: int, function_name: str, arguments: Mapping[str, Any]) -> None:
        kind = tool_kind(function_name)
        if kind == "skill":
            for key in _SKILL_ARG_KEYS:
                value = arguments.get(key)
                if isinstance(value, str) and (skill := self.index.skill_named(value)):
                    self.add(step_id, skill, "skill_tool", SKILL_FILE)
                    return
        elif kind == "read":
            for key in _PATH_ARG_KEYS:
                value = arguments.get(key)
                if isinstance(value, str) and (hit := self.index.locate(value, None)):
                    self.add(step_id, hit[0], "file_read", hit[1])
                    return
        elif kind == "shell":
            for key in _COMMAND_ARG_KEYS:
                value = arguments.get(key)
                if isinstance(value, list) and all(isinstance(v, str) for v in value):
                    self.words(step_id, list(value), None, 0)
                    return
                if isinstance(value, str):
                    self.shell(step_id, value, None, 0)
                    return

    def shell(self, step_id: int, command: str, cwd: str | None, depth: int) -> None:
        for words in _simple_commands(_tokens(command)):
            cwd = self.words(step_id, words, cwd, depth)

    def words(self, step_id: int, words: list[str], cwd: str | None, depth: int) -> str | None:
        """Examine one simple command; returns the working directory after it (``cd`` changes it)."""
        words = _strip_prefixes(words)
        if not words:
            return cwd
        base = posixpath.basename(words[0]).casefold()
        args = words[1:]
        if base in ("cd", "pushd"):
            target = next((a for a in args if not a.startswith("-")), None)
            if target is None:
                return self.index.home or cwd
            return self.index.resolve(target, cwd or self.index.workspace_root) or cwd
        for i, arg in enumerate(args):
            if arg == "<" and i + 1 < len(args) and (hit := self.index.locate(args[i + 1], cwd)):
                self.add(step_id, hit[0], "shell_read", hit[1])
        if base == "uv" and args[:1] == ["run"]:
            return self.words(step_id, [a for a in args[1:] if not a.startswith("-")], cwd, depth)
        if base in VIEWERS:
            for arg in _operands(args):
                if hit := self.index.locate(arg, cwd):
                    self.add(step_id, hit[0], "shell_read", hit[1])
        elif base in _INTERPRETERS or _PY_RE.match(base):
            self._interpreter(step_id, base, args, cwd, depth)
        elif "/" in words[0] and (hit := self.index.locate(words[0], cwd)):
            self.add(step_id, hit[0], "script_run", hit[1])
        return cwd

    def _interpreter(self, step_id: int, base: str, args: list[str], cwd: str | None, depth: int) -> None:
        i = 0
        while i < len(args) and args[i].startswith("-") and args[i] != "-":
            option = args[i]
            if base in _SHELLS and option.startswith("-") and "c" in option[1:] and not option.startswith("--"):
                if i + 1 < len(args) and depth < _MAX_NESTING:
                    self.shell(step_id, args[i + 1], cwd, depth + 1)
                return
            if option in ("-c", "-m", "-e", "--eval"):
                return  # inline code or a module: no script file to attribute
            i += 1
        if i < len(args) and (hit := self.index.locate(args[i], cwd)):
            self.add(step_id, hit[0], "script_run", hit[1])


def _operands(args: list[str]) -> Iterator[str]:
    skip_next = False
    for arg in args:
        if skip_next:
            skip_next = False
            continue
        if arg in (">", ">>", ">&", "&>", "<", "<<", "<<<"):
            skip_next = True  # redirection targets are handled (or ignored) separately
            continue
        # Option values ("-n 40") and sed/grep programs rarely look like paths; file names usually do.
        if not arg.startswith("-") and ("/" in arg or "." in arg.strip(".")):
            yield arg


def detect_skill_events(
    trajectory: Mapping[str, Any],
    skill_dirs: Mapping[str, str],
    *,
    workspace_root: str | None = None,
    home: str | None = None,
) -> list[SkillEvent]:
    """Every skill event in ``trajectory``'s agent steps, in step order, without duplicates.

    ``skill_dirs`` maps each staged skill's name to its directory. Paths in tool calls may be
    absolute, ``~/``-relative (resolved against ``home``) or relative to ``workspace_root`` (the
    agent's starting directory); ``cd`` inside one shell command is followed. A relative path that
    cannot be anchored is matched against the trailing components of each skill's directory.
    Malformed steps are skipped: a trajectory from a crashed harness must still be readable.
    """
    detector = _Detector(_SkillIndex(skill_dirs, workspace_root, home))
    steps = trajectory.get("steps")
    if not isinstance(steps, list):
        return []
    for step in steps:
        if not isinstance(step, Mapping) or step.get("source") != "agent":
            continue
        step_id = step.get("step_id")
        calls = step.get("tool_calls")
        if not isinstance(step_id, int) or not isinstance(calls, list):
            continue
        for call in calls:
            if not isinstance(call, Mapping):
                continue
            name, arguments = call.get("function_name"), call.get("arguments")
            if isinstance(name, str) and isinstance(arguments, Mapping):
                detector.tool_call(step_id, name, arguments)
    return detector.events
