"""SPEC: the agentskills.io frontmatter contract, checked under the ``strict`` or ``lenient`` profile.

``strict`` enforces the specification text (agentskills/agentskills ``docs/specification.mdx``):
six known keys, an ASCII name equal to the directory name, string-only metadata. ``lenient`` (the
default) follows what harnesses really load: documented harness extension keys pass with a note
naming the harness, and the spec-text details that the reference validator ``skills-ref`` or the
client-implementation guidance relax become warnings instead of errors.

Each rule checks one field, so each finding carries one fix. Frontmatter values come from YAML
and may be of any type (list, int, None, date, nested mapping): every rule checks the type before
it looks inside a value. When the frontmatter could not be parsed at all, these rules stay silent
and the PARSE family reports why.
"""

from __future__ import annotations

import datetime
import difflib
import functools
import re
import unicodedata
from collections.abc import Iterator
from typing import Any

from .._context import ScanContext
from .._finding import Hit, Severity
from .._registry import Rule, define
from .codex_metadata import PATH as CODEX_METADATA_PATH
from .codex_metadata import codex_metadata_problems

RULES: list[Rule] = []

SPEC_KEYS = ("name", "description", "license", "compatibility", "metadata", "allowed-tools")
"""The only top-level keys of the specification, in its order."""

HARNESS_EXTENSION_KEYS: dict[str, str] = {
    "when_to_use": "Claude Code",
    "argument-hint": "Claude Code",
    "arguments": "Claude Code",
    "disable-model-invocation": "Claude Code",
    "user-invocable": "Claude Code",
    "disallowed-tools": "Claude Code",
    "model": "Claude Code",
    "effort": "Claude Code",
    "context": "Claude Code",
    "agent": "Claude Code",
    "background": "Claude Code",
    "hooks": "Claude Code",
    "paths": "Claude Code",
    "shell": "Claude Code",
}
"""Documented harness keys outside the spec, and the harness that reads each.

Source: the frontmatter reference of code.claude.com/docs/en/skills (2026: ``when_to_use``,
``arguments``, ``disallowed-tools`` and ``background`` joined the earlier keys; ``allowed-tools``
is a spec key that Claude Code also reads as a comma-separated string or a YAML list). Codex keeps
its extras in ``agents/openai.yaml`` (SPEC015) and OpenCode ignores unknown keys, so neither adds
frontmatter keys.
"""

ALLOWED_TOOLS_LENIENT_HOSTS = "Claude Code"
"""Hosts documented to accept ``allowed-tools`` as a comma-separated string or a YAML list."""

NAME_MAX_CHARS = 64
DESCRIPTION_MAX_CHARS = 1024
COMPATIBILITY_MAX_CHARS = 500
RESERVED_NAME_WORDS = ("anthropic", "claude")

_ASCII_NAME = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
_TOOL_TOKEN = re.compile(r"[A-Za-z0-9_*][A-Za-z0-9_.*-]*(?:\(.*\))?", re.DOTALL)
_EXCERPT_CHARS = 60

_SPEC = "agentskills.io specification"
_CLAUSE_NAME = f"{_SPEC}: name (1-64 characters: a-z, 0-9 and single hyphens)"
_CLAUSE_NAME_DIR = f"{_SPEC}: name must match the parent directory"
_CLAUSE_NAME_DIR_LENIENT = f"{_CLAUSE_NAME_DIR}; agentskills.io client guidance: warn on a mismatch and load anyway"
_CLAUSE_DESCRIPTION = f"{_SPEC}: description (required, 1-1024 characters)"
_CLAUSE_KEYS = f"{_SPEC}: frontmatter fields ({', '.join(SPEC_KEYS)})"
_CLAUSE_COMPATIBILITY = f"{_SPEC}: compatibility (1-500 characters)"
_CLAUSE_METADATA = f"{_SPEC}: metadata (a map from string keys to string values)"
_CLAUSE_ALLOWED_TOOLS = f"{_SPEC}: allowed-tools (a space-separated string, experimental)"
_CLAUSE_ALLOWED_TOOLS_LENIENT = (
    f"{_CLAUSE_ALLOWED_TOOLS}; Claude Code skills reference: allowed-tools (space- or comma-separated, or a YAML list)"
)
_CLAUSE_LICENSE = f"{_SPEC}: license (a license name or a bundled file)"
_CLAUSE_RESERVED = "Anthropic skill upload rules: name must not contain 'anthropic' or 'claude'"
_CLAUSE_ANGLE = "anthropics/skills skill-creator quick_validate.py: description must not contain '<' or '>'"


def _is_strict(ctx: ScanContext) -> bool:
    return ctx.config.profile == "strict"


def yaml_kind(value: object) -> str:
    """How a YAML value reads to a person: 'a list', 'an integer', 'null'..."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, datetime.date):
        return "a date"
    if isinstance(value, list | tuple):
        return "a list"
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, bytes):
        return "binary data"
    return f"a {type(value).__name__} value"


def _excerpt(text: str, limit: int = _EXCERPT_CHARS) -> str:
    """``text`` on one line, cut to ``limit`` characters, for messages."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def _is_blank(value: object) -> bool:
    return value is None or (isinstance(value, str) and not value.strip())


def _nested_key_line(ctx: ScanContext, parent: str, key: object) -> int:
    """The line of ``key`` inside the block mapping under top-level key ``parent``.

    YAML composes only top-level key lines; for a nested key we scan the indented lines that follow
    ``parent:`` in SKILL.md. Flow mappings (``metadata: {a: b}``) fall back to the parent's line.
    """
    front = ctx.skill.frontmatter
    parent_line = front.line_of(parent)
    lines = (ctx.skill.skill_md.text or "").split("\n")
    last = front.end_line - 1 if front.end_line else len(lines)
    wanted = str(key)
    for number in range(parent_line + 1, min(last, len(lines)) + 1):
        text = lines[number - 1]
        stripped = text.lstrip()
        if not stripped or stripped.startswith("#"):
            continue
        if stripped == text:
            break  # back at column 0: the parent's block is over
        if stripped.split(":", 1)[0].strip().strip("'\"") == wanted:
            return number
    return parent_line


def _name_defects(name: str) -> tuple[list[str], bool]:
    """What keeps ``name`` from matching the spec regex, and whether only non-ASCII letters do.

    The second value is True when ``skills-ref`` (which accepts Unicode lowercase letters and
    digits) would accept the name although the spec text's ``a-z 0-9`` does not.
    """
    defects: list[str] = []
    upper = sorted({ch for ch in name if ch != ch.lower()})
    if upper:
        defects.append(f"uppercase letters ({', '.join(repr(ch) for ch in upper)})")
    invalid = sorted({ch for ch in name if not (ch.isalnum() or ch == "-")})
    if invalid:
        defects.append(f"characters other than letters, digits and '-' ({', '.join(repr(ch) for ch in invalid)})")
    if name.startswith("-") or name.endswith("-"):
        defects.append("a leading or trailing hyphen")
    if "--" in name:
        defects.append("consecutive hyphens")
    structural = bool(defects)
    non_ascii = sorted({ch for ch in name if ch.isalnum() and not ch.isascii() and ch == ch.lower()})
    if non_ascii:
        defects.append(f"non-ASCII characters ({', '.join(repr(ch) for ch in non_ascii)})")
    normalized = unicodedata.normalize("NFKC", name)
    unicode_only = not structural and bool(non_ascii) and normalized == normalized.lower()
    return defects, unicode_only


def _required_field(ctx: ScanContext, key: str, clause: str) -> Iterator[Hit]:
    """A required frontmatter field that is absent (reported at the fence) or blank (at its line)."""
    data = ctx.skill.frontmatter.data
    if data is None:
        return
    front = ctx.skill.frontmatter
    if key not in data:
        yield Hit(f"frontmatter has no '{key}' field", ctx.at(front.start_line), clause=clause)
    elif _is_blank(data[key]):
        yield Hit(f"'{key}' is empty", ctx.at(front.line_of(key)), clause=clause)


@define(
    RULES,
    id="SPEC001",
    name="name-missing",
    severity=Severity.ERROR,
    summary="The frontmatter has no 'name', or it is empty.",
    fix="Add `name: <directory-name>` to the frontmatter: lowercase letters, digits and hyphens.",
)
def name_missing(ctx: ScanContext) -> Iterator[Hit]:
    """Every skill needs a ``name``: harnesses index skills by it and the slash command uses it.

    The specification makes ``name`` required; ``skills-ref`` and skill-creator's validator reject a
    skill without one (Claude Code alone falls back to the directory name).

    PASS::

        name: pdf-forms

    FAIL::

        description: Fill PDF forms. Use when the user uploads a PDF form.
    """
    yield from _required_field(ctx, "name", _CLAUSE_NAME)


@define(
    RULES,
    id="SPEC002",
    name="name-format",
    severity=Severity.ERROR,
    summary="The 'name' is not 1-64 lowercase ASCII letters, digits and single hyphens.",
    fix="Write the name in kebab-case, e.g. `name: pdf-forms`: a-z, 0-9 and single hyphens, at most 64 characters.",
)
def name_format(ctx: ScanContext) -> Iterator[Hit]:
    """The name must match ``^[a-z0-9]+(-[a-z0-9]+)*$`` and be at most 64 characters.

    Digits are allowed anywhere (``name: 3d-print``, ``name: ec2``). Validators disagree on
    non-ASCII letters: the spec text says ``a-z``, skill-creator and OpenCode use an ASCII regex,
    while ``skills-ref`` accepts any Unicode lowercase letter. The name is judged after NFKC
    normalisation, as ``skills-ref`` does, so a decomposed ``café`` (``e`` + combining accent, as
    macOS file names write it) is the composed one. A name that only fails by its non-ASCII letters
    (``café``) is an error under ``strict`` and a warning under ``lenient``; so is one that only
    normalisation makes valid (fullwidth ``ｐｄｆ``). A non-string value (``name: 2024``,
    ``name: [a, b]``) is always an error.

    Sources: agentskills.io specification (``name``); ``skills-ref`` 0.1.1
    ``validator._validate_name`` (NFKC, then lowercase, hyphen and ``isalnum`` checks).

    PASS::

        name: pdf-forms

    FAIL::

        name: PDF_Forms
    """
    data = ctx.skill.frontmatter.data
    if data is None or _is_blank(data.get("name")):
        return
    name = data["name"]
    where = ctx.at(ctx.skill.frontmatter.line_of("name"))
    if not isinstance(name, str):
        yield Hit(f"'name' must be a string, found {yaml_kind(name)}", where, clause=_CLAUSE_NAME)
        return
    # Judged as skills-ref judges it: NFKC-normalised, so a decomposed 'café' (e + U+0301) is the
    # composed one and a fullwidth 'ｐｄｆ' is 'pdf'.
    normalized = unicodedata.normalize("NFKC", name)
    if len(normalized) > NAME_MAX_CHARS:
        yield Hit(
            f"name '{_excerpt(name)}' is {len(normalized)} characters; the limit is {NAME_MAX_CHARS}",
            where,
            clause=_CLAUSE_NAME,
        )
    if _ASCII_NAME.fullmatch(name):
        return
    if _ASCII_NAME.fullmatch(normalized):
        yield Hit(
            f"name '{_excerpt(name)}' is written with compatibility characters: Unicode normalisation (NFKC) "
            f"makes it '{normalized}', as skills-ref reads it; write it that way",
            where,
            clause=_CLAUSE_NAME,
            severity=None if _is_strict(ctx) else Severity.WARNING,
        )
        return
    defects, unicode_only = _name_defects(normalized)
    message = f"name '{_excerpt(name)}' may use only a-z, 0-9 and single hyphens; it has {'; '.join(defects)}"
    if unicode_only and not _is_strict(ctx):
        yield Hit(
            message + " (skills-ref accepts them; skill-creator and OpenCode do not)",
            where,
            clause=_CLAUSE_NAME,
            severity=Severity.WARNING,
        )
    else:
        yield Hit(message, where, clause=_CLAUSE_NAME)


@define(
    RULES,
    id="SPEC003",
    name="name-directory-mismatch",
    severity=Severity.ERROR,
    summary="The 'name' differs from the skill's directory name.",
    fix="Rename the directory or change `name:` so the two are identical.",
)
def name_directory_mismatch(ctx: ScanContext) -> Iterator[Hit]:
    """The spec requires ``name`` to equal the name of the directory holding SKILL.md.

    Harnesses that find skills by directory and those that index them by name then agree on which
    skill is which. Both sides are NFKC-normalised first, as ``skills-ref`` does. The client guidance
    tells harnesses to warn and load the skill anyway, so under ``lenient`` this is a warning.

    PASS: ``skills/pdf-forms/SKILL.md`` with ``name: pdf-forms``.

    FAIL: ``skills/pdf/SKILL.md`` with ``name: pdf-forms``.
    """
    data = ctx.skill.frontmatter.data
    if data is None:
        return
    name = data.get("name")
    if not isinstance(name, str) or not name.strip():
        return
    directory = ctx.skill.dir_name
    if unicodedata.normalize("NFKC", name) == unicodedata.normalize("NFKC", directory):
        return
    message = f"name '{_excerpt(name)}' does not match its directory '{directory}'"
    if name.casefold() == directory.casefold():
        message += " (they differ only in letter case, which matters on case-sensitive file systems)"
    where = ctx.at(ctx.skill.frontmatter.line_of("name"))
    if _is_strict(ctx):
        yield Hit(message, where, clause=_CLAUSE_NAME_DIR)
    else:
        yield Hit(message, where, clause=_CLAUSE_NAME_DIR_LENIENT, severity=Severity.WARNING)


@define(
    RULES,
    id="SPEC004",
    name="name-reserved-word",
    severity=Severity.WARNING,
    summary="The 'name' contains a word reserved by Anthropic ('anthropic' or 'claude').",
    fix="Choose a name without 'anthropic' or 'claude', e.g. describe what the skill does instead.",
)
def name_reserved_word(ctx: ScanContext) -> Iterator[Hit]:
    """Anthropic's skill upload (Claude API, claude.ai) rejects names containing ``anthropic`` or ``claude``.

    Other harnesses load such a skill, so this is a warning: the skill will not travel to Claude's API.

    PASS::

        name: code-review

    FAIL::

        name: claude-code-review
    """
    data = ctx.skill.frontmatter.data
    if data is None:
        return
    name = data.get("name")
    if not isinstance(name, str):
        return
    lowered = name.lower()
    for word in RESERVED_NAME_WORDS:
        if word in lowered:
            yield Hit(
                f"name '{_excerpt(name)}' contains the reserved word '{word}': Anthropic's API rejects it",
                ctx.at(ctx.skill.frontmatter.line_of("name")),
                clause=_CLAUSE_RESERVED,
            )


@define(
    RULES,
    id="SPEC005",
    name="description-missing",
    severity=Severity.ERROR,
    summary="The frontmatter has no 'description', or it is empty.",
    fix="Add `description:` saying what the skill does and when to use it (at most 1024 characters).",
)
def description_missing(ctx: ScanContext) -> Iterator[Hit]:
    """The description is all a model sees before it decides to load a skill.

    Without one the skill is never chosen (most harnesses also refuse to load it).

    PASS::

        description: Fill PDF forms. Use when the user provides a PDF form to complete.

    FAIL::

        description: ""
    """
    yield from _required_field(ctx, "description", _CLAUSE_DESCRIPTION)


@define(
    RULES,
    id="SPEC006",
    name="description-type",
    severity=Severity.ERROR,
    summary="The 'description' is not a string (a list, number, date or mapping).",
    fix="Write the description as one string; quote it, or use a folded block (`description: >`) for long text.",
)
def description_type(ctx: ScanContext) -> Iterator[Hit]:
    """YAML turns some unquoted text into other types: ``2024-05-01`` is a date, ``- item`` a list.

    Harnesses expect a string and drop or reject anything else.

    PASS::

        description: "2024 tax rules: fill Form 1040. Use when the user asks about US tax returns."

    FAIL::

        description:
          - fills forms
          - extracts text
    """
    data = ctx.skill.frontmatter.data
    if data is None:
        return
    value = data.get("description")
    if value is None or isinstance(value, str):
        return
    yield Hit(
        f"'description' must be a string, found {yaml_kind(value)}",
        ctx.at(ctx.skill.frontmatter.line_of("description")),
        clause=_CLAUSE_DESCRIPTION,
    )


@define(
    RULES,
    id="SPEC007",
    name="description-too-long",
    severity=Severity.ERROR,
    summary="The 'description' is longer than 1024 characters.",
    fix="Shorten the description to what the skill does and when to use it; move detail into the body.",
)
def description_too_long(ctx: ScanContext) -> Iterator[Hit]:
    """Every installed skill's description is loaded into the model's context at startup.

    The spec caps it at 1024 characters so a long skill list stays affordable.

    PASS: a two-sentence description.

    FAIL: a description that pastes the whole usage guide (1,300 characters).
    """
    data = ctx.skill.frontmatter.data
    if data is None:
        return
    value = data.get("description")
    if isinstance(value, str) and len(value) > DESCRIPTION_MAX_CHARS:
        yield Hit(
            f"description is {len(value):,} characters; the limit is {DESCRIPTION_MAX_CHARS:,}",
            ctx.at(ctx.skill.frontmatter.line_of("description")),
            clause=_CLAUSE_DESCRIPTION,
        )


@define(
    RULES,
    id="SPEC008",
    name="description-angle-brackets",
    severity=Severity.WARNING,
    summary="The 'description' contains '<' or '>'.",
    fix="Remove '<' and '>' from the description; write placeholders as FILE or 'the file' instead of <file>.",
)
def description_angle_brackets(ctx: ScanContext) -> Iterator[Hit]:
    """Descriptions are embedded in XML-like prompts (``<available_skills>``); angle brackets can break them.

    skill-creator's ``quick_validate.py`` rejects any ``<`` or ``>`` in a description.

    PASS::

        description: Convert FILE to PDF. Use when the user asks for a PDF.

    FAIL::

        description: Convert <file> to PDF. Use when the user asks for a PDF.
    """
    data = ctx.skill.frontmatter.data
    if data is None:
        return
    value = data.get("description")
    if not isinstance(value, str):
        return
    index = next((i for i, ch in enumerate(value) if ch in "<>"), None)
    if index is None:
        return
    around = _excerpt(value[max(0, index - 20) : index + 20])
    yield Hit(
        f"description contains '{value[index]}' (near '{around}')",
        ctx.at(ctx.skill.frontmatter.line_of("description")),
        evidence=around,
        clause=_CLAUSE_ANGLE,
    )


@functools.lru_cache(maxsize=4096)
def _suggest_key(key: str) -> str | None:
    """The known key ``key`` is probably a misspelling of; computed once per distinct key in a process.

    ``difflib`` compares the key with every known key, and a registry's skills repeat the same few
    custom keys (``version``, ``author``, ``tags``) thousands of times.
    """
    candidates = [*SPEC_KEYS, *HARNESS_EXTENSION_KEYS]
    close = difflib.get_close_matches(key.lower().replace("_", "-"), candidates, n=1, cutoff=0.75)
    return close[0] if close else None


@define(
    RULES,
    id="SPEC009",
    name="unknown-key",
    severity=Severity.WARNING,
    summary="The frontmatter has a key that neither the spec nor a known harness defines.",
    fix="Fix the key's spelling, or move custom data under `metadata:` (string keys and string values).",
)
def unknown_key(ctx: ScanContext) -> Iterator[Hit]:
    """Unknown keys are ignored by lenient harnesses and rejected by ``skills-ref`` and skill-creator.

    A typo (``descripton``) silently drops a field; custom data such as ``version`` or ``author``
    belongs under ``metadata``. Under ``strict`` this is an error, under ``lenient`` a warning.

    PASS::

        metadata:
          version: "1.2"

    FAIL::

        version: 1.2
    """
    data = ctx.skill.frontmatter.data
    if data is None:
        return
    severity = Severity.ERROR if _is_strict(ctx) else None
    for key in data:
        if key in SPEC_KEYS or key in HARNESS_EXTENSION_KEYS:
            continue
        suggestion = _suggest_key(key)
        hint = f" (did you mean '{suggestion}'?)" if suggestion else "; custom fields belong under 'metadata'"
        yield Hit(
            f"unknown frontmatter key '{_excerpt(key)}'{hint}",
            ctx.at(ctx.skill.frontmatter.line_of(key)),
            clause=_CLAUSE_KEYS,
            severity=severity,
        )


@define(
    RULES,
    id="SPEC010",
    name="harness-extension-key",
    severity=Severity.NOTE,
    summary="The frontmatter uses a key that one harness defines but the spec does not.",
    fix="Keep the key only if the skill targets that harness; for portable skills, remove it.",
)
def harness_extension_key(ctx: ScanContext) -> Iterator[Hit]:
    """Claude Code documents extra keys (``model``, ``context``, ``user-invocable``...).

    Claude Code acts on them, OpenCode ignores them, and strict validators (``skills-ref``,
    skill-creator's ``quick_validate.py``) reject the skill. Under ``lenient`` each is a note naming
    the harness; under ``strict`` (the spec text) each is an error.

    Known Claude Code keys: ``when_to_use``, ``argument-hint``, ``arguments``,
    ``disable-model-invocation``, ``user-invocable``, ``disallowed-tools``, ``model``, ``effort``,
    ``context``, ``agent``, ``background``, ``hooks``, ``paths``, ``shell``. Source: the frontmatter
    reference of code.claude.com/docs/en/skills.

    PASS (lenient, with a note)::

        disable-model-invocation: true

    FAIL (strict)::

        disable-model-invocation: true
    """
    data = ctx.skill.frontmatter.data
    if data is None:
        return
    strict = _is_strict(ctx)
    for key in data:
        harness = HARNESS_EXTENSION_KEYS.get(key)
        if harness is None:
            continue
        if strict:
            message = f"'{key}' is a {harness} extension, not a field of the agentskills.io specification"
        else:
            message = f"'{key}' is a {harness} extension: {harness} reads it, other harnesses ignore it"
        yield Hit(
            message,
            ctx.at(ctx.skill.frontmatter.line_of(key)),
            clause=f"{_CLAUSE_KEYS}; {harness} frontmatter reference: {key}",
            severity=Severity.ERROR if strict else None,
        )


@define(
    RULES,
    id="SPEC011",
    name="compatibility-invalid",
    severity=Severity.ERROR,
    summary="The 'compatibility' field is not a string of 1-500 characters.",
    fix="Write compatibility as one short string, e.g. `compatibility: Requires Python 3.11+ and network access`.",
)
def compatibility_invalid(ctx: ScanContext) -> Iterator[Hit]:
    """``compatibility`` states environment needs in 1-500 characters of plain text.

    A mapping or list (``compatibility: {python: 3.11}``) breaks validators that expect a string.

    PASS::

        compatibility: Needs git and Python 3.11 or later

    FAIL::

        compatibility:
          python: "3.11"
    """
    data = ctx.skill.frontmatter.data
    if data is None or "compatibility" not in data:
        return
    value = data["compatibility"]
    where = ctx.at(ctx.skill.frontmatter.line_of("compatibility"))
    if _is_blank(value):
        yield Hit(
            "'compatibility' is empty: state the requirements or remove the key", where, clause=_CLAUSE_COMPATIBILITY
        )
    elif not isinstance(value, str):
        yield Hit(f"'compatibility' must be a string, found {yaml_kind(value)}", where, clause=_CLAUSE_COMPATIBILITY)
    elif len(value) > COMPATIBILITY_MAX_CHARS:
        yield Hit(
            f"compatibility is {len(value):,} characters; the limit is {COMPATIBILITY_MAX_CHARS}",
            where,
            clause=_CLAUSE_COMPATIBILITY,
        )


def _written_value(ctx: ScanContext, line: int, key: str) -> str | None:
    """The value of ``key: value`` on ``line`` of SKILL.md as written (comment dropped), or None."""
    lines = (ctx.skill.skill_md.text or "").split("\n")
    if not 0 < line <= len(lines):
        return None
    written_key, colon, rest = lines[line - 1].strip().partition(":")
    if not colon or written_key.strip().strip("'\"") != key:
        return None
    written = rest.split(" #", 1)[0].strip()
    return written or None


def _quote_hint(ctx: ScanContext, line: int, key: str, value: object) -> str:
    """``quote it (version: "1.10"; YAML reads 1.10 as 1.1)``: the fix, and what unquoted YAML made of the value."""
    written = _written_value(ctx, line, key)
    shown = written if written is not None and '"' not in written else str(value)
    hint = f'quote it ({_excerpt(key)}: "{_excerpt(shown)}")'
    if written is not None and written != str(value):
        hint += f"; YAML reads {_excerpt(written)} as {_excerpt(str(value))}"
    return hint


def _metadata_entry_hits(ctx: ScanContext, metadata: dict[Any, Any]) -> Iterator[Hit]:
    strict = _is_strict(ctx)
    coercible = None if strict else Severity.WARNING
    for key, value in metadata.items():
        line = _nested_key_line(ctx, "metadata", key)
        where = ctx.at(line)
        label = _excerpt(str(key))
        if not isinstance(key, str):
            yield Hit(
                f"metadata key '{label}' is {yaml_kind(key)}; keys must be strings (quote it)",
                where,
                clause=_CLAUSE_METADATA,
                severity=coercible,
            )
        if isinstance(value, str):
            continue
        if isinstance(value, list | tuple | dict):
            yield Hit(
                f"metadata '{label}' is {yaml_kind(value)}; values must be strings "
                "(nested values break strict harnesses)",
                where,
                clause=_CLAUSE_METADATA,
            )
        elif value is None:
            yield Hit(
                f"metadata '{label}' has no value (null): write a string or remove the entry",
                where,
                clause=_CLAUSE_METADATA,
                severity=coercible,
            )
        else:
            yield Hit(
                f"metadata '{label}' is {yaml_kind(value)} ({_excerpt(str(value))}), not a string: "
                f"{_quote_hint(ctx, line, str(key), value)}; skills-ref converts it with str(), strict harnesses "
                "reject it",
                where,
                clause=_CLAUSE_METADATA,
                severity=coercible,
            )


@define(
    RULES,
    id="SPEC012",
    name="metadata-invalid",
    severity=Severity.ERROR,
    summary="The 'metadata' field is not a mapping of string keys to string values.",
    fix='Quote every metadata value so it stays a string, e.g. `version: "1.0"`; join lists into one string.',
)
def metadata_invalid(ctx: ScanContext) -> Iterator[Hit]:
    """The spec defines ``metadata`` as a map from string to string.

    Lists and nested mappings break strict harnesses (see aws/agent-toolkit-for-aws issue #44), so
    they are always errors. Scalars that YAML reads as numbers, booleans, dates or null
    (``version: 1.0`` is a float; ``version: 1.10`` even becomes 1.1) are converted by ``skills-ref``
    but rejected by stricter loaders, as the 2026 specification's "string to string" says: an
    error under ``strict``, a warning under ``lenient``; the message gives the quoted line.

    Source: agentskills.io specification, ``metadata`` (a map from string keys to string values).

    PASS::

        metadata:
          version: "1.0"
          author: Jane Doe <jane@example.com>

    FAIL::

        metadata:
          tags: [pdf, forms]
    """
    data = ctx.skill.frontmatter.data
    if data is None or "metadata" not in data:
        return
    metadata = data["metadata"]
    where = ctx.at(ctx.skill.frontmatter.line_of("metadata"))
    if metadata is None:
        yield Hit(
            "'metadata' is empty (null): add entries or remove the key",
            where,
            clause=_CLAUSE_METADATA,
            severity=None if _is_strict(ctx) else Severity.WARNING,
        )
    elif not isinstance(metadata, dict):
        yield Hit(
            f"'metadata' must be a mapping of strings to strings, found {yaml_kind(metadata)}",
            where,
            clause=_CLAUSE_METADATA,
        )
    else:
        yield from _metadata_entry_hits(ctx, metadata)


def split_tool_list(text: str) -> tuple[list[str], bool, str | None]:
    """Split an ``allowed-tools`` string into tool tokens, respecting parentheses.

    ``Bash(git diff *)`` is one token although it holds spaces. Returns the tokens, whether commas
    were used as separators, and a description of unbalanced parentheses (None when balanced).
    """
    tokens: list[str] = []
    current: list[str] = []
    depth = 0
    used_commas = False
    imbalance: str | None = None
    for ch in text:
        if ch == "(":
            depth += 1
        elif ch == ")":
            if depth == 0:
                imbalance = imbalance or "a ')' has no matching '('"
            else:
                depth -= 1
        if depth == 0 and (ch.isspace() or ch == ","):
            used_commas = used_commas or ch == ","
            if current:
                tokens.append("".join(current))
                current = []
            continue
        current.append(ch)
    if current:
        tokens.append("".join(current))
    if depth > 0:
        imbalance = imbalance or "a '(' is never closed"
    return tokens, used_commas, imbalance


def _host_format_hit(ctx: ScanContext, what: str, fixed: str, line: int) -> Hit:
    """Commas or a YAML list in ``allowed-tools``: against the spec (``strict``), a host's format (``lenient``)."""
    suggestion = f"(write 'allowed-tools: {_excerpt(fixed)}')"
    if _is_strict(ctx):
        message = f"allowed-tools {what}; the spec wants one space-separated string {suggestion}"
        return Hit(
            message,
            ctx.at(line),
            evidence=f"allowed-tools: {fixed}",
            clause=_CLAUSE_ALLOWED_TOOLS,
            severity=Severity.ERROR,
        )
    message = (
        f"allowed-tools {what}: {ALLOWED_TOOLS_LENIENT_HOSTS} reads it, the spec and other hosts want one "
        f"space-separated string {suggestion}"
    )
    return Hit(
        message,
        ctx.at(line),
        evidence=f"allowed-tools: {fixed}",
        clause=_CLAUSE_ALLOWED_TOOLS_LENIENT,
        severity=Severity.NOTE,
    )


def _tool_string_hits(ctx: ScanContext, text: str, where_line: int) -> Iterator[Hit]:
    where = ctx.at(where_line)
    tokens, used_commas, imbalance = split_tool_list(text)
    if imbalance:
        yield Hit(
            f"allowed-tools has unbalanced parentheses: {imbalance} in '{_excerpt(text)}'",
            where,
            clause=_CLAUSE_ALLOWED_TOOLS,
            severity=Severity.ERROR,
        )
        return
    if used_commas:
        yield _host_format_hit(ctx, "separates tools with commas", " ".join(tokens), where_line)
    for token in tokens:
        if not _TOOL_TOKEN.fullmatch(token):
            yield Hit(
                f"allowed-tools entry '{_excerpt(token)}' is not a tool name such as Read, Bash(git:*) "
                "or mcp__server__tool",
                where,
                clause=_CLAUSE_ALLOWED_TOOLS,
            )


@define(
    RULES,
    id="SPEC013",
    name="allowed-tools-invalid",
    severity=Severity.WARNING,
    summary="The 'allowed-tools' field is not a space-separated string of tool names.",
    fix="Write one space-separated string, e.g. `allowed-tools: Read Grep Bash(git:*)`, with balanced parentheses.",
)
def allowed_tools_invalid(ctx: ScanContext) -> Iterator[Hit]:
    """``allowed-tools`` (experimental in the spec) pre-approves tools as one space-separated string.

    Tokens look like ``Read``, ``Bash(git:*)``, ``Bash(git diff *)`` or ``mcp__server__tool``.
    Unbalanced parentheses swallow the following tools (error). The 2026 specification says it
    plainly: a space-separated string. Claude Code's skills reference also accepts commas and a
    YAML list, which 14% of the skills using the field write; other hosts split on spaces. So a
    list or commas are an error under ``strict`` and a note naming Claude Code under ``lenient``,
    with the fixed string in the message. A value of another type is an error; an empty value is
    a note.

    Sources: agentskills.io specification, ``allowed-tools``; code.claude.com/docs/en/skills,
    frontmatter reference (``allowed-tools``: space- or comma-separated string, or a YAML list).

    PASS::

        allowed-tools: Read Grep Bash(git:*)

    FAIL::

        allowed-tools: Read, Grep, Bash(git:*
    """
    data = ctx.skill.frontmatter.data
    if data is None or "allowed-tools" not in data:
        return
    value = data["allowed-tools"]
    line = ctx.skill.frontmatter.line_of("allowed-tools")
    where = ctx.at(line)
    if _is_blank(value):
        yield Hit(
            "'allowed-tools' is empty: it pre-approves nothing; remove the key",
            where,
            clause=_CLAUSE_ALLOWED_TOOLS,
            severity=Severity.NOTE,
        )
    elif isinstance(value, str):
        yield from _tool_string_hits(ctx, value, line)
    elif isinstance(value, list):
        odd = [item for item in value if not isinstance(item, str)]
        if odd:
            yield Hit(
                f"allowed-tools list holds {yaml_kind(odd[0])} where a tool name belongs",
                where,
                clause=_CLAUSE_ALLOWED_TOOLS,
                severity=Severity.ERROR,
            )
            return
        joined = " ".join(value)
        yield _host_format_hit(ctx, "is a YAML list", joined, line)
        yield from _tool_string_hits(ctx, joined, line)
    else:
        yield Hit(
            f"'allowed-tools' must be a space-separated string, found {yaml_kind(value)}",
            where,
            clause=_CLAUSE_ALLOWED_TOOLS,
            severity=Severity.ERROR,
        )


@define(
    RULES,
    id="SPEC014",
    name="license-invalid",
    severity=Severity.WARNING,
    summary="The 'license' field is empty or not a string.",
    fix="Write the license as one string: an SPDX name (`license: MIT`) or a bundled file (`license: LICENSE.txt`).",
)
def license_invalid(ctx: ScanContext) -> Iterator[Hit]:
    """``license`` names the license or a bundled license file, as a string.

    A mapping or list (``license: {name: MIT}``) is unreadable to registries and harness UIs: an
    error under ``strict``, a warning under ``lenient``. An empty value is a warning.

    PASS::

        license: Apache-2.0

    FAIL::

        license:
          name: MIT
    """
    data = ctx.skill.frontmatter.data
    if data is None or "license" not in data:
        return
    value = data["license"]
    where = ctx.at(ctx.skill.frontmatter.line_of("license"))
    if _is_blank(value):
        yield Hit("'license' is empty: name the license or remove the key", where, clause=_CLAUSE_LICENSE)
    elif not isinstance(value, str):
        yield Hit(
            f"'license' must be a string, found {yaml_kind(value)}",
            where,
            clause=_CLAUSE_LICENSE,
            severity=Severity.ERROR if _is_strict(ctx) else None,
        )


_CLAUSE_CODEX = (
    "Codex skills: agents/openai.yaml (openai/codex skills loader; "
    "openai/skills skill-creator references/openai_yaml.md)"
)


@define(
    RULES,
    id="SPEC015",
    name="codex-metadata-invalid",
    severity=Severity.WARNING,
    summary="The skill's agents/openai.yaml (Codex's interface, dependencies and policy) has a field Codex ignores.",
    fix='Fix the field as the message says, e.g. `brand_color: "#3B82F6"`, icons under `assets/`, strings quoted.',
)
def codex_metadata_invalid(ctx: ScanContext) -> Iterator[Hit]:
    """Codex reads ``agents/openai.yaml`` beside SKILL.md when it is there: how the skill looks in its UI
    (``interface``: display name, short description, icons, brand colour, default prompt), the tools it
    needs (``dependencies.tools``: ``type`` and ``value``, with transport, command or URL) and
    ``policy.allow_implicit_invocation``.

    Codex never refuses the skill over this file; it drops what it cannot use, silently. A value of
    the wrong type drops the **whole file** (its reader is typed); an empty or over-long string, a
    colour that is not ``#RRGGBB``, an icon that is not a file under ``assets/`` or a dependency
    without ``type`` and ``value`` drops that field. Each is a warning in both profiles: the spec
    leaves host files alone, the skill loads, and what the author meant to show does not. A key
    Codex does not read is a note (often a typo). Other files under ``agents/`` are other hosts'.

    Sources: developers.openai.com/codex/skills; openai/codex ``codex-rs/core/src/skills/loader.rs``
    (the typed reader, its limits of 64 and 1,024 characters, ``#RRGGBB``, icons under ``assets/``);
    openai/skills ``skill-creator/references/openai_yaml.md`` (the fields).

    PASS::

        interface:
          display_name: "PDF Forms"
          brand_color: "#3B82F6"
          icon_small: "./assets/icon.png"
        policy:
          allow_implicit_invocation: false

    FAIL::

        interface:
          brand_color: blue
        policy:
          allow_implicit_invocation: "no"
    """
    resource = ctx.skill.resource(CODEX_METADATA_PATH)
    if resource is None:
        return
    text_file = ctx.inputs.read(resource)
    if text_file is None:
        return  # a link out of the repository: REF004 reports it, nothing is read
    if text_file.text is None:
        yield Hit(
            f"{CODEX_METADATA_PATH} is not readable text: Codex ignores it",
            ctx.in_skill(CODEX_METADATA_PATH),
            clause=_CLAUSE_CODEX,
        )
        return
    files = {other.rel for other in ctx.skill.resources}
    for problem in codex_metadata_problems(text_file.text, files.__contains__):
        yield Hit(
            problem.message,
            ctx.in_skill(CODEX_METADATA_PATH, problem.line),
            clause=_CLAUSE_CODEX,
            severity=Severity.NOTE if problem.effect == "unknown-key" else None,
        )
