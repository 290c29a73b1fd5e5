"""Suppressions written by the skill's author: inline comments and the config ``ignore:`` list.

Inline, in Markdown (SKILL.md body or any other ``.md`` file of the skill)::

    <!-- aces-ci: ignore SPEC002,STRUCT004 the name predates the spec -->
    <!-- aces-ci: ignore-file REF001 generated file, links checked upstream -->

and in SKILL.md's YAML frontmatter::

    name: Legacy_Tool  # aces-ci: ignore SPEC002 kept for existing users

``ignore`` covers the comment's own lines and the next non-blank line after it — and when that line
opens a fenced code block, the whole block through its closing fence, since a directive cannot sit
inside the block it means; ``ignore-file`` covers the whole file. Comments inside code blocks are
examples, not directives. A directive without a reason still suppresses, but is itself reported (the runner turns each
:class:`DirectiveProblem` into a finding), and so is a directive naming an unknown rule: an
inline comment sits in a file contributors edit, so a typo there must not fail the whole run the
way a typo in aces.yml does. Findings of the runner's own ``ACES`` rules are never suppressed
inline: a directive cannot silence the report about itself.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from ..skill import Skill, html_comments, is_within
from ._config import IgnoreEntry
from ._finding import Finding
from ._inputs import SkillInputs
from ._registry import RuleRegistry

if TYPE_CHECKING:
    import pathspec

INTERNAL_FAMILY = "ACES"
"""Rules emitted by the runner itself (crashes, suppression problems): not suppressible inline."""

_MARKER = "aces-ci"
"""Every directive contains it: a file without it needs no further parsing."""
_DIRECTIVE = re.compile(r"\s*aces-ci\s*:\s*(?P<verb>\S*)(?P<rest>.*)", re.DOTALL)
_YAML_DIRECTIVE = re.compile(r"(?:^|\s)#\s*(?P<body>aces-ci\s*:.*)$")
_ID_LIST = re.compile(r"\s*(?P<ids>[^\s,]+(?:\s*,\s*[^\s,]+)*)(?P<reason>.*)", re.DOTALL)
_RULE_ID_SHAPE = re.compile(r"[A-Za-z]+[0-9]+")
_REASON_LEAD = " \t\n-–—:;"
_FENCE_OPENERS = ("```", "~~~")
_VERBS = ("ignore", "ignore-file")


@dataclass(frozen=True)
class Directive:
    """One inline suppression: which rules, where, and why."""

    path: str
    """Repository-relative path of the file holding the comment."""
    line: int
    """Line where the comment starts."""
    rule_ids: tuple[str, ...]
    """Known rule ids, as the registry spells them."""
    reason: str
    lines: frozenset[int] | None
    """Lines covered; None for ``ignore-file`` (the whole file)."""

    def covers(self, finding: Finding) -> bool:
        if finding.rule_id not in self.rule_ids or finding.location.path != self.path:
            return False
        if self.lines is None:
            return True
        return finding.location.line is not None and finding.location.line in self.lines


@dataclass(frozen=True)
class DirectiveProblem:
    """A directive that lacks a reason or cannot be understood; the runner reports it."""

    kind: Literal["no-reason", "invalid"]
    path: str
    line: int
    message: str


@dataclass(frozen=True)
class _Comment:
    """A comment that may hold a directive: its text and the file lines it spans."""

    text: str
    first_line: int
    last_line: int


def _family_of(rule_id: str) -> str:
    """The family of a rule id, spelled as :func:`aces_ci.scan.define` derives it."""
    return "".join(ch for ch in rule_id if ch.isalpha())


def _next_non_blank(lines: Sequence[str], after_line: int) -> int | None:
    """The first non-blank 1-based line after ``after_line``, if any."""
    for index in range(after_line, len(lines)):
        if lines[index].strip():
            return index + 1
    return None


@dataclass(frozen=True)
class _CodeBlocks:
    """A Markdown file's code blocks as its parser read them: every line inside one (a comment there is an
    example), and each fenced block's closing line by its opening line (a directive above a fence covers it)."""

    lines: frozenset[int] = frozenset()
    fence_ends: Mapping[int, int] = field(default_factory=dict)


def _code_blocks(skill_text_lines: Sequence[str], blocks: Iterable[tuple[int, str]]) -> _CodeBlocks:
    """The code blocks, given (first line, content) of each block."""
    covered: set[int] = set()
    fence_ends: dict[int, int] = {}
    for first, content in blocks:
        content_lines = content.count("\n")
        opener = skill_text_lines[first - 1].lstrip() if 0 < first <= len(skill_text_lines) else ""
        # A fence adds its opening and closing lines; indented code is only its content.
        if opener.startswith(_FENCE_OPENERS):
            last = first + content_lines + 1
            fence_ends[first] = last
        else:
            last = first + content_lines - 1
        covered.update(range(first, last + 1))
    return _CodeBlocks(frozenset(covered), fence_ends)


def _markdown_comments(text: str, first_line: int, code_lines: frozenset[int]) -> list[_Comment]:
    """HTML comments mentioning aces-ci outside code."""
    return [
        _Comment(comment.inner, comment.line, comment.line + comment.inner.count("\n"))
        for comment in html_comments(text, first_line)
        if _MARKER in comment.inner and comment.line not in code_lines
    ]


def _frontmatter_comments(lines: Sequence[str], first: int, last: int) -> list[_Comment]:
    comments = []
    for number in range(first, last + 1):
        match = _YAML_DIRECTIVE.search(lines[number - 1])
        if match:
            comments.append(_Comment(match.group("body"), number, number))
    return comments


def _unknown_id_message(token: str, registry: RuleRegistry) -> str:
    by_name = {rule.name: rule.id for rule in registry}
    if token.lower() in by_name:
        return f"'{token}' is a rule name; suppressions take rule ids: write {by_name[token.lower()]}"
    ids = [rule.id for rule in registry]
    close = difflib.get_close_matches(token.upper(), ids, n=3, cutoff=0.6)
    hint = f"; did you mean {', '.join(close)}?" if close else "; `aces-ci rules` lists them"
    if _RULE_ID_SHAPE.fullmatch(token):
        return f"unknown rule id '{token}' in suppression{hint}"
    return f"suppression names no rule id ('{token}' is not one){hint}"


def _parse_comment(
    comment: _Comment, path: str, lines: Sequence[str], code: _CodeBlocks, registry: RuleRegistry
) -> tuple[Directive | None, list[DirectiveProblem]]:
    match = _DIRECTIVE.fullmatch(comment.text)
    if match is None:
        return None, []
    verb = match.group("verb").lower()
    where = (path, comment.first_line)
    if verb not in _VERBS:
        message = f"unknown aces-ci directive '{match.group('verb')}': use 'ignore' or 'ignore-file'"
        return None, [DirectiveProblem("invalid", *where, message)]
    listing = _ID_LIST.fullmatch(match.group("rest"))
    if listing is None:
        message = f"'aces-ci: {verb}' names no rule: write <!-- aces-ci: {verb} RULE-ID reason -->"
        return None, [DirectiveProblem("invalid", *where, message)]
    problems: list[DirectiveProblem] = []
    rule_ids: list[str] = []
    for token in re.split(r"\s*,\s*", listing.group("ids")):
        if token in registry:
            rule_ids.append(registry.get(token).id)
        else:
            problems.append(DirectiveProblem("invalid", *where, _unknown_id_message(token, registry)))
    if not rule_ids:
        return None, problems
    reason = " ".join(listing.group("reason").split()).strip(_REASON_LEAD)
    if not reason:
        message = (
            f"suppression of {', '.join(rule_ids)} gives no reason: say why ignoring it is safe, "
            f"e.g. <!-- aces-ci: {verb} {rule_ids[0]} generated by our docs tool -->"
        )
        problems.append(DirectiveProblem("no-reason", *where, message))
    covered: frozenset[int] | None = None
    if verb == "ignore":
        span = set(range(comment.first_line, comment.last_line + 1))
        following = _next_non_blank(lines, comment.last_line)
        if following is not None:
            span.update(range(following, code.fence_ends.get(following, following) + 1))
        covered = frozenset(span)
    return Directive(path, comment.first_line, tuple(rule_ids), reason, covered), problems


def _skill_md_comments(skill: Skill) -> tuple[list[_Comment], list[str], _CodeBlocks]:
    text = skill.skill_md.text or ""
    if _MARKER not in text:
        return [], [], _CodeBlocks()
    lines = text.split("\n")
    comments: list[_Comment] = []
    front = skill.frontmatter
    if front.present and front.end_line > front.start_line:
        comments.extend(_frontmatter_comments(lines, front.start_line + 1, front.end_line - 1))
    body = skill.body
    code = _code_blocks(lines, ((block.line, block.content) for block in body.code_blocks))
    comments.extend(_markdown_comments(body.text, body.first_line, code.lines))
    return comments, lines, code


def _other_markdown_comments(inputs: SkillInputs, rel_path: str) -> tuple[list[_Comment], list[str], _CodeBlocks]:
    """Comments of a Markdown file of the skill other than SKILL.md; none if it is unsafe to read."""
    skill = inputs.skill
    prefix = "" if skill.rel_dir in ("", ".") else skill.rel_dir + "/"
    resource = skill.resource(rel_path.removeprefix(prefix))
    if resource is None or not resource.rel.lower().endswith(".md") or not is_within(resource.path, skill.dir):
        return [], [], _CodeBlocks()
    text = inputs.text(resource)
    if text is None or _MARKER not in text:
        return [], [], _CodeBlocks()
    lines = text.split("\n")
    doc = inputs.markdown(text)
    code = _code_blocks(lines, ((block.line, block.content) for block in doc.code_blocks))
    return _markdown_comments(text, 1, code.lines), lines, code


def read_directives(
    skill: Skill,
    paths_with_findings: Iterable[str],
    registry: RuleRegistry,
    inputs: SkillInputs | None = None,
) -> tuple[list[Directive], list[DirectiveProblem]]:
    """Every directive in SKILL.md, and in the skill's other Markdown files that have findings.

    SKILL.md is always read, so a broken directive there is always reported; other files are
    only read when there is something in them a directive could suppress. ``inputs``, the
    rules' memo of the skill, saves reading and parsing those files again.
    """
    inputs = inputs if inputs is not None else SkillInputs(skill)
    directives: list[Directive] = []
    problems: list[DirectiveProblem] = []
    skill_md_path = skill.skill_md.rel
    other_paths = sorted({path for path in paths_with_findings if path != skill_md_path})
    sources = [(skill_md_path, *_skill_md_comments(skill))]
    sources.extend((path, *_other_markdown_comments(inputs, path)) for path in other_paths)
    for path, comments, lines, code in sources:
        for comment in comments:
            directive, found = _parse_comment(comment, path, lines, code, registry)
            problems.extend(found)
            if directive is not None:
                directives.append(directive)
    return directives, problems


def _inline_suppressed(finding: Finding, directives: Sequence[Directive]) -> Finding:
    if not finding.active or _family_of(finding.rule_id) == INTERNAL_FAMILY:
        return finding
    directive = next((d for d in directives if d.covers(finding)), None)
    return finding if directive is None else finding.suppress("inline", directive.reason)


def apply_directives(findings: Iterable[Finding], directives: Sequence[Directive]) -> list[Finding]:
    """Mark findings covered by an inline directive as suppressed (``kind="inline"``)."""
    return [_inline_suppressed(finding, directives) for finding in findings]


def _path_spec(paths: Sequence[str]) -> pathspec.PathSpec[Any] | None:
    if not paths:
        return None
    import pathspec  # here, not at the top: only aces.yml ignores with paths need it

    return pathspec.PathSpec.from_lines("gitignore", paths)


def apply_ignore_list(findings: Iterable[Finding], entries: Sequence[IgnoreEntry]) -> list[Finding]:
    """Mark findings matched by an aces.yml ``ignore:`` entry as suppressed (``kind="config"``)."""
    compiled = [(entry.rule.upper(), entry.reason, _path_spec(entry.paths)) for entry in entries]

    def suppressed(finding: Finding) -> Finding:
        if not finding.active:
            return finding
        for rule_id, reason, spec in compiled:
            if rule_id == finding.rule_id and (spec is None or spec.match_file(finding.location.path)):
                return finding.suppress("config", reason)
        return finding

    return [suppressed(finding) for finding in findings]
