"""SCRIPT: the scripts a skill bundles parse, can be started the way SKILL.md starts them, and are used.

A script the agent runs is code it did not write and cannot easily debug: a syntax error surfaces
as a confusing traceback in the middle of a task, a missing executable bit as "permission
denied". These checks never import or run a script: Python is compiled with ``compile()`` and
shell is parsed with ``bash -n``, which reads commands without executing them.

A file counts as a script when it is a Resource of kind ``script`` (under ``scripts/`` or with a
script suffix at the top) and is code: a known code suffix, or a ``#!`` line. A ``README.md`` or
``requirements.txt`` inside ``scripts/`` is not code and is left alone.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Literal

from ...redact import excerpt, redact_text
from ...skill import Resource, TextFile
from .._context import ScanContext
from .._finding import Hit, Severity
from .._registry import Rule, define
from .ref import skill_script_runs

RULES: list[Rule] = []

BASH_TIMEOUT_S = 10.0
"""``bash -n`` on any real script takes milliseconds; past this something is wrong, not the script."""

Language = Literal["python", "shell", "other"]
"""``shell``: what ``bash -n`` can parse (sh, bash, dash). ``other``: code we do not parse (JS, zsh…)."""

_LANGUAGE_BY_SUFFIX: dict[str, Language] = {
    ".py": "python",
    ".sh": "shell",
    ".bash": "shell",
    **dict.fromkeys(
        (".zsh", ".ksh", ".fish", ".js", ".mjs", ".cjs", ".ts", ".rb", ".pl", ".ps1", ".php", ".lua", ".r"),
        "other",
    ),
}
_SHELL_INTERPRETERS = frozenset({"sh", "bash", "dash"})
_BASH_LINE = re.compile(r"^bash: line (\d+): ")
_WHERE_DETECTED = re.compile(r" \((?:detected at )?line \d+\)")
"""Python's "(detected at line 12)": the finding has the line; the message stays stable for baselines."""
_CLAUSE_SCRIPTS = "agentskills.io: scripts/ holds executable code the agent runs"


@dataclass(frozen=True)
class _Script:
    resource: Resource
    file: TextFile
    text: str
    language: Language


def _interpreter(text: str) -> str | None:
    """The program named by a ``#!`` line (``env``'s argument when it is ``/usr/bin/env``)."""
    if not text.startswith("#!"):
        return None
    words = [word for word in text[2:].split("\n", 1)[0].split() if not word.startswith("-")]
    if not words:
        return None
    program = PurePosixPath(words[0]).name
    if program == "env" and len(words) > 1:
        program = PurePosixPath(words[1]).name
    return program


def _language(resource: Resource, text: str) -> Language | None:
    suffix = PurePosixPath(resource.rel).suffix.lower()
    if suffix in _LANGUAGE_BY_SUFFIX:
        return _LANGUAGE_BY_SUFFIX[suffix]
    program = _interpreter(text)
    if program is None:
        return None
    if program.startswith("python"):
        return "python"
    return "shell" if program in _SHELL_INTERPRETERS else "other"


def _find_scripts(ctx: ScanContext) -> list[_Script]:
    scripts = []
    for resource in ctx.skill.resources:
        if resource.kind != "script":
            continue
        read = ctx.inputs.read(resource)
        if read is None or read.text is None:
            continue
        language = _language(resource, read.text)
        if language is not None:
            scripts.append(_Script(resource, read, read.text, language))
    return scripts


def _scripts(ctx: ScanContext) -> list[_Script]:
    """The code files among the skill's scripts, read safely; binaries and non-code are skipped."""
    return ctx.inputs.cached((_find_scripts,), lambda: _find_scripts(ctx))


def _evidence(ctx: ScanContext, script: _Script, line: int | None) -> str | None:
    if line is None:
        return None
    lines = ctx.inputs.redacted_lines(script.text)
    return excerpt(lines[line - 1]) if 0 < line <= len(lines) else None


def _not_checked(ctx: ScanContext, script: _Script) -> Hit:
    return Hit(
        "only the first part of this large file was read: syntax not checked",
        ctx.in_skill(script.resource.rel),
        severity=Severity.NOTE,
    )


@define(
    RULES,
    id="SCRIPT001",
    name="python-syntax",
    severity=Severity.ERROR,
    summary="A bundled Python script does not compile.",
    fix="Fix the syntax error (run `python -m py_compile <file>` locally to reproduce it).",
)
def python_syntax(ctx: ScanContext) -> Iterator[Hit]:
    """A Python script with a syntax error fails the moment the agent runs it, every time.

    The file is compiled with the running interpreter's ``compile()``, never imported or executed,
    and the error is reported at the line Python names. Python 2 code (``print "x"``) fails here
    too, as it would on any current machine.

    PASS: ``print("done")``.
    FAIL: ``def main(:`` reported at its line with Python's own message.
    """
    for script in _scripts(ctx):
        if script.language != "python":
            continue
        if script.file.truncated:
            yield _not_checked(ctx, script)
            continue
        try:
            # Invalid escape sequences raise SyntaxWarning while compiling: not ours to print.
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                compile(script.text, script.resource.rel, "exec", dont_inherit=True)
        except SyntaxError as exc:  # IndentationError and TabError included
            line = exc.lineno
            yield Hit(
                f"Python syntax error: {redact_text(_WHERE_DETECTED.sub('', exc.msg))}",
                ctx.in_skill(script.resource.rel, line),
                evidence=_evidence(ctx, script, line),
                clause=_CLAUSE_SCRIPTS,
            )
        except (RecursionError, MemoryError):
            yield Hit(
                "Python cannot compile this file: expressions are nested too deeply",
                ctx.in_skill(script.resource.rel),
                clause=_CLAUSE_SCRIPTS,
            )
        except ValueError as exc:
            yield Hit(
                f"Python cannot compile this file: {redact_text(str(exc))}",
                ctx.in_skill(script.resource.rel),
                clause=_CLAUSE_SCRIPTS,
            )


def _bash_n(bash: str, script: bytes) -> subprocess.CompletedProcess[bytes]:
    """``bash -n`` over ``script`` on stdin, in an environment with nothing bash would source."""
    return subprocess.run(
        ["bash", "--noprofile", "--norc", "-n"],  # argv[0] "bash": messages read "bash: line N: …"
        executable=bash,
        input=script,
        capture_output=True,
        timeout=BASH_TIMEOUT_S,
        env={"PATH": os.environ.get("PATH", os.defpath), "LC_ALL": "C"},
        check=False,
    )


def _checked_syntax(ctx: ScanContext, bash: str, script: _Script) -> subprocess.CompletedProcess[bytes]:
    """``bash -n``'s verdict on a script, run once per distinct content in a scan.

    Skills often carry copies of one helper script; the verdict depends only on the bytes fed to
    bash (and on which bash), so it is shared across the skills of the scan by the sha256 of those
    bytes. A timeout or a failure to start bash raises and is not remembered.
    """
    data = script.text.encode("utf-8")
    key = ("bash -n", bash, hashlib.sha256(data).hexdigest())
    return ctx.inputs.scan_memo.cached(key, lambda: _bash_n(bash, data))


def _bash_error(stderr: str, line_count: int) -> tuple[str, int | None]:
    """Bash's first complaint without its ``bash: line N:`` prefix, and N.

    "Unexpected end of file" is reported one line past the end; the last line is where to look.
    """
    for raw in stderr.splitlines():
        match = _BASH_LINE.match(raw)
        if match:
            line = max(1, min(int(match[1]), line_count))
            return raw[match.end() :].strip(), line
    first = stderr.strip().splitlines()
    return (first[0] if first else "bash -n reported an error"), None


@define(
    RULES,
    id="SCRIPT002",
    name="shell-syntax",
    severity=Severity.ERROR,
    summary="A bundled shell script does not parse (bash -n).",
    fix="Fix the syntax error (run `bash -n <file>` locally to reproduce it).",
)
def shell_syntax(ctx: ScanContext) -> Iterator[Hit]:
    """A shell script that does not parse stops at the broken line, often after doing half its work.

    Each ``.sh``/``.bash`` file, and each file whose ``#!`` names sh, bash or dash, is fed to
    ``bash -n`` on stdin with an empty environment: bash reads every command and runs none. When
    bash is not installed the check is skipped with a note, once per skill.

    PASS: ``if [ -f "$1" ]; then echo ok; fi``.
    FAIL: ``if [ -f "$1" ]; then echo ok`` (no ``fi``), reported at the line bash names.
    """
    bash = shutil.which("bash")
    for script in _scripts(ctx):
        if script.language != "shell":
            continue
        location = ctx.in_skill(script.resource.rel)
        if bash is None:
            yield Hit("bash is not installed here: shell syntax not checked", location, severity=Severity.NOTE)
            return
        if script.file.truncated:
            yield _not_checked(ctx, script)
            continue
        try:
            result = _checked_syntax(ctx, bash, script)
        except subprocess.TimeoutExpired:
            ctx.inputs.not_repeatable("bash -n timed out")
            yield Hit(
                f"bash -n did not finish within {BASH_TIMEOUT_S:g} s: shell syntax not checked",
                location,
                severity=Severity.NOTE,
            )
            continue
        except OSError as exc:
            ctx.inputs.not_repeatable("bash could not be started")
            yield Hit(
                f"bash could not be started ({exc.strerror}): shell syntax not checked",
                location,
                severity=Severity.NOTE,
            )
            return
        if result.returncode == 0:
            continue
        last_line = script.text.rstrip("\n").count("\n") + 1
        message, line = _bash_error(result.stderr.decode("utf-8", errors="replace"), last_line)
        yield Hit(
            f"bash -n: {redact_text(message)}",
            ctx.in_skill(script.resource.rel, line),
            evidence=_evidence(ctx, script, line),
            clause=_CLAUSE_SCRIPTS,
        )


def _run_directly(ctx: ScanContext) -> set[str]:
    return {run.path for run in skill_script_runs(ctx) if run.direct}


@define(
    RULES,
    id="SCRIPT003",
    name="shebang-not-executable",
    severity=Severity.WARNING,
    summary="A script has a #! line but no executable bit.",
    fix="Set the bit and commit it: `chmod +x <file>` then `git add --chmod=+x <file>`.",
)
def shebang_not_executable(ctx: ScanContext) -> Iterator[Hit]:
    """A ``#!`` line says "run me as a program"; without the executable bit that fails with "permission denied".

    It is a warning when SKILL.md runs the script directly (``./scripts/x.sh``), a note when it only
    runs it through an interpreter (``bash scripts/x.sh``), where the bit does not matter yet.
    Skipped on Windows, whose file modes carry no executable bit.

    PASS: ``scripts/setup.sh`` starts with ``#!/usr/bin/env bash`` and is mode 755.
    FAIL: the same file at mode 644 while SKILL.md says ``./scripts/setup.sh``.
    """
    if os.name == "nt":
        return
    direct = _run_directly(ctx)
    for script in _scripts(ctx):
        if not script.text.startswith("#!") or script.resource.executable:
            continue
        rel = script.resource.rel
        run_directly = rel in direct
        yield Hit(
            "script has a #! line but is not executable"
            + (": SKILL.md runs it directly, which fails with 'permission denied'" if run_directly else ""),
            ctx.in_skill(rel, 1),
            evidence=_evidence(ctx, script, 1),
            severity=None if run_directly else Severity.NOTE,
        )


@define(
    RULES,
    id="SCRIPT004",
    name="executable-without-shebang",
    severity=Severity.WARNING,
    summary="A script is executable but has no #! line, so the system cannot tell how to run it.",
    fix="Add a #! line naming the interpreter (e.g. `#!/usr/bin/env python3`) or clear the executable bit.",
)
def executable_without_shebang(ctx: ScanContext) -> Iterator[Hit]:
    """Run directly, an executable file without ``#!`` is handed to ``/bin/sh`` by most shells.

    A Python or JavaScript file run that way fails with shell errors far from the real cause. A
    byte-order mark before ``#!`` has the same effect: the kernel looks for ``#!`` in the first two
    bytes and finds the mark. A warning when SKILL.md runs the script directly, a note when it runs
    it through an interpreter (``python scripts/x.py``), where nothing breaks yet. Helper modules
    (``__init__.py``, ``_util.py``) are never run and are skipped, and so is Windows, whose file
    modes carry no executable bit.

    PASS: ``scripts/fill.py`` is mode 755 and starts with ``#!/usr/bin/env python3``.
    FAIL: ``scripts/fill.py`` is mode 755, starts with ``import sys``, and SKILL.md runs ``./scripts/fill.py``.
    """
    if os.name == "nt":
        return
    direct = _run_directly(ctx)
    for script in _scripts(ctx):
        if not script.resource.executable or PurePosixPath(script.resource.rel).name.startswith("_"):
            continue
        has_bom = any(problem.code == "bom" for problem in script.file.problems)
        if script.text.startswith("#!") and not has_bom:
            continue
        message = (
            "script is executable but a byte-order mark hides its #! line from the system"
            if script.text.startswith("#!")
            else "script is executable but has no #! line: run directly, it is handed to /bin/sh"
        )
        run_directly = script.resource.rel in direct
        yield Hit(
            message + (" (SKILL.md runs it directly)" if run_directly else ""),
            ctx.in_skill(script.resource.rel, 1),
            evidence=_evidence(ctx, script, 1),
            severity=None if run_directly else Severity.NOTE,
        )


def _names_of(rel: str) -> list[str]:
    """How text may name a script: path, path without suffix, file name, dotted module path."""
    path = PurePosixPath(rel)
    bare = str(path.with_suffix(""))
    return [rel, bare, path.name, bare.replace("/", ".")]


def _count(text: str, pattern: re.Pattern[str]) -> int:
    return sum(1 for _ in pattern.finditer(text))


@define(
    RULES,
    id="SCRIPT005",
    name="unreferenced-script",
    severity=Severity.NOTE,
    summary="A bundled script is never mentioned in SKILL.md, its references or the other scripts.",
    fix="Say in SKILL.md when and how to run the script, or delete it.",
)
def unreferenced_script(ctx: ScanContext) -> Iterator[Hit]:
    """The agent learns about a script only from the text it reads; an unmentioned script is dead weight.

    A script counts as referenced when SKILL.md or a Markdown file of the skill names it (by path,
    path without suffix, file name, or module path such as ``scripts.report``), or when another
    script names its module (``import helpers``, ``from .helpers import x``, ``source helpers.sh``):
    helper modules are used through their callers. Files whose name starts with ``_``
    (``__init__.py``, ``_common.sh``) are helpers by convention and skipped.

    PASS: SKILL.md says ``Run `python scripts/fill.py <pdf>` to fill the form.``
    FAIL: ``scripts/old_fill.py`` is named nowhere in the skill.
    """
    scripts = _scripts(ctx)
    documents = [ctx.skill.skill_md.text or ""]
    for resource in ctx.skill.resources:
        if resource.rel.lower().endswith((".md", ".markdown", ".mdx")):
            text = ctx.inputs.text(resource)
            if text is not None:
                documents.append(text)
    all_documents = "\n".join(documents)
    all_scripts = "\n".join(script.text for script in scripts)
    for script in scripts:
        path = PurePosixPath(script.resource.rel)
        if path.name.startswith("_"):
            continue
        names = "|".join(re.escape(name) for name in _names_of(script.resource.rel))
        if re.search(rf"(?<![\w.-])(?:{names})(?![\w-])", all_documents):
            continue
        module = re.compile(rf"(?<![\w-]){re.escape(path.stem)}(?![\w-])")
        if _count(all_scripts, module) > _count(script.text, module):  # named outside itself
            continue
        yield Hit(
            "script is never mentioned in SKILL.md, its references or another script: "
            "the agent will not know to run it",
            ctx.in_skill(script.resource.rel),
        )
