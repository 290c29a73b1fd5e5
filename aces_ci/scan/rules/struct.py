"""STRUCT: progressive-disclosure and document-structure guidance for the SKILL.md body and references.

A harness loads a skill in three steps: the description at startup, the body on activation, and
reference files only when the body points the model at them. These rules keep each step cheap
and navigable: a description that says when to use the skill, a body within the spec's size
guidance (500 lines, about 5000 tokens), sections that hold content under a sane heading
hierarchy, and long reference files that open with a table of contents.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ...skill import Heading, MarkdownDoc, Resource, strip_html_comments
from .._context import ScanContext
from .._finding import Hit, Severity
from .._registry import Rule, define

RULES: list[Rule] = []

REFERENCE_TOC_MIN_LINES = 100
"""Reference files longer than this should open with a table of contents (Anthropic's authoring guidance)."""
TOC_WINDOW_LINES = 40
"""A table of contents must start within this many lines of the top to count as "near the top"."""
TOC_MIN_ENTRIES = 3
_MARKDOWN_SUFFIXES = (".md", ".markdown", ".mdx")

_LETTERS_PER_TOKEN = 6
_DIGITS_PER_TOKEN = 3
# One match per estimated token: a run of ASCII letters is cut into chunks of six, a run of digits
# into chunks of three, and every other non-space character stands alone.
_TOKEN_PIECE = re.compile(rf"[A-Za-z]{{1,{_LETTERS_PER_TOKEN}}}|[0-9]{{1,{_DIGITS_PER_TOKEN}}}|[^\sA-Za-z0-9]")

_TRIGGER_WORDING = re.compile(
    r"\b(?:when(?:ever)?|trigger(?:s|ed)?|invoke[sd]?|activate[sd]?"
    r"|use (?:this|it|for|if|on|with|in|during|after|before)"
    r"|used (?:for|when|to|in|during)"
    r"|if (?:the )?(?:user|you)"
    r"|(?:user|you) (?:asks?|wants?|needs?|mentions?|requests?))\b",
    re.IGNORECASE,
)
_TOC_HEADING = re.compile(r"\b(?:contents|table of contents|toc|index|outline|sections)\b", re.IGNORECASE)
_LIST_ITEM = re.compile(r"\s*(?:[-*+]|\d+[.)])\s+(.*)")
_LINK_TEXT = re.compile(r"\[([^\]]*)\]\([^)]*\)")

_CLAUSE_DISCLOSURE = "agentskills.io specification: progressive disclosure"
_CLAUSE_DESCRIPTION = "agentskills.io specification: description should say what the skill does and when to use it"
_CLAUSE_TOC = "Anthropic skill authoring best practices: reference files over 100 lines need a table of contents"
_CLAUSE_HEADINGS = "CommonMark document structure: one H1, heading levels increase one step at a time"
_CLAUSE_SECTIONS = "skill authoring guidance: every section holds instructions"


def estimate_tokens(text: str) -> int:
    """An estimate of the tokens a BPE tokenizer makes of ``text``, without a tokenizer.

    Runs of ASCII letters count one token per six letters (most English words are one token),
    runs of digits one per three digits (tokenizers chunk numbers), and every other non-space
    character (punctuation, symbols, CJK, accented letters, emoji) one token. For English prose
    this lands near the common four-characters-per-token rule; it is an estimate, not a count.
    """
    return len(_TOKEN_PIECE.findall(text))


def _body_is_known(ctx: ScanContext) -> bool:
    """Whether the body was found: SKILL.md is text and its frontmatter block (if any) is closed."""
    front = ctx.skill.frontmatter
    return ctx.skill.skill_md.text is not None and not (front.present and front.end_line == 0)


@define(
    RULES,
    id="STRUCT001",
    name="body-too-long",
    severity=Severity.WARNING,
    summary="The SKILL.md body is longer than the line limit (500 lines by default).",
    fix="Move detail into files under references/ and link them from the body, so it loads only when needed.",
)
def body_too_long(ctx: ScanContext) -> Iterator[Hit]:
    """The whole body enters the model's context each time the skill activates.

    The spec recommends keeping SKILL.md under 500 lines (``max_body_lines`` in aces.yml) and moving
    detail to reference files that load on demand. The finding points at the first line past the limit.

    PASS: a 120-line body that links ``references/api.md`` for the full API.

    FAIL: a 900-line body with the full API inline.
    """
    if not _body_is_known(ctx):
        return
    body = ctx.skill.body
    limit = ctx.config.max_body_lines
    if body.line_count > limit:
        yield Hit(
            f"SKILL.md body is {body.line_count:,} lines; keep it under {limit:,}",
            ctx.at(body.first_line + max(limit, 0)),
            clause=f"{_CLAUSE_DISCLOSURE} (keep SKILL.md under 500 lines)",
        )


@define(
    RULES,
    id="STRUCT002",
    name="body-too-many-tokens",
    severity=Severity.WARNING,
    summary="The SKILL.md body is estimated above the token limit (5000 by default).",
    fix="Cut repetition and move reference material into files under references/ that the body links to.",
)
def body_too_many_tokens(ctx: ScanContext) -> Iterator[Hit]:
    """The spec recommends a body under about 5000 tokens (``max_body_tokens`` in aces.yml).

    Tokens are *estimated* (see :func:`estimate_tokens`: letters, digits and punctuation, no
    tokenizer), so a body near the limit may land on either side of it with a real tokenizer.

    PASS: a focused body of about 1500 words.

    FAIL: a body of 6000 words, or one dominated by large tables and code.
    """
    if not _body_is_known(ctx):
        return
    body = ctx.skill.body
    limit = ctx.config.max_body_tokens
    estimate = estimate_tokens(body.text)
    if estimate > limit:
        yield Hit(
            f"SKILL.md body is about {estimate:,} tokens (estimated); keep it under {limit:,}",
            ctx.at(body.first_line),
            clause=f"{_CLAUSE_DISCLOSURE} (body under 5000 tokens)",
        )


@define(
    RULES,
    id="STRUCT003",
    name="description-no-trigger",
    severity=Severity.WARNING,
    summary="The description says what the skill does but not when to use it.",
    fix="Add when to use it to the description, e.g. 'Use when the user asks to fill or sign a PDF form.'",
)
def description_no_trigger(ctx: ScanContext) -> Iterator[Hit]:
    """A model picks a skill from its description alone, so the description must name the situations.

    The check looks for English trigger wording: "use when", "when the user", "whenever", "use
    for", "use this", "trigger", "invoke", "if the user", "user asks"... A description in another
    language, or one that states its trigger without these words, may be reported; suppress the
    finding with a reason if the wording is deliberate.

    PASS::

        description: Fill PDF forms. Use when the user uploads a PDF form to complete.

    FAIL::

        description: A PDF form filler.
    """
    description = ctx.skill.description
    if description is None or not description.strip() or _TRIGGER_WORDING.search(description):
        return
    yield Hit(
        "description does not say when to use the skill (no wording such as 'Use when…' or 'when the user…')",
        ctx.at(ctx.skill.frontmatter.line_of("description")),
        clause=_CLAUSE_DESCRIPTION,
    )


@define(
    RULES,
    id="STRUCT004",
    name="body-empty",
    severity=Severity.ERROR,
    summary="SKILL.md has frontmatter but no body: activating the skill gives the model no instructions.",
    fix="Write the instructions below the frontmatter: the steps, the scripts or references to use, and examples.",
)
def body_empty(ctx: ScanContext) -> Iterator[Hit]:
    """The body is what the model reads when the skill activates; without it the skill does nothing.

    HTML comments do not count as content. The rule needs a closed frontmatter block to know where
    the body starts; without one the PARSE rules report the file instead.

    PASS: frontmatter followed by ``# PDF forms`` and steps.

    FAIL: frontmatter followed by nothing, or only ``<!-- todo -->``.
    """
    front = ctx.skill.frontmatter
    if ctx.skill.skill_md.text is None or front.end_line == 0:
        return
    if strip_html_comments(ctx.skill.body.text).strip():
        return
    yield Hit(
        "SKILL.md has no body below the frontmatter",
        ctx.at(front.end_line),
        clause=_CLAUSE_DISCLOSURE,
    )


@define(
    RULES,
    id="STRUCT005",
    name="empty-section",
    severity=Severity.WARNING,
    summary="A heading has no content and no subsections.",
    fix="Write the section's content, or delete the heading.",
)
def empty_section(ctx: ScanContext) -> Iterator[Hit]:
    """A heading with nothing under it is a placeholder left behind: it costs tokens and promises
    instructions that are not there.

    PASS::

        ## Examples
        Run `scripts/fill.py form.pdf`.

    FAIL::

        ## Examples

        ## Troubleshooting
    """
    for section in ctx.skill.body.sections:
        if section.content_lines == 0 and not section.has_subsections:
            heading = section.heading
            yield Hit(
                f"section '{heading.text}' (H{heading.level}) has no content",
                ctx.at(heading.line),
                clause=_CLAUSE_SECTIONS,
            )


@define(
    RULES,
    id="STRUCT006",
    name="heading-hierarchy",
    severity=Severity.NOTE,
    summary="Heading levels skip a step (H1 to H3) or the body has more than one H1.",
    fix="Use one H1 for the title and step heading levels down one at a time (H1, H2, H3).",
)
def heading_hierarchy(ctx: ScanContext) -> Iterator[Hit]:
    """Models and people navigate a long body by its outline; a skipped level or a second H1 breaks it.

    PASS::

        # PDF forms
        ## Filling
        ### Checkboxes

    FAIL::

        # PDF forms
        ### Checkboxes
        # Signing
    """
    previous: Heading | None = None
    first_h1: Heading | None = None
    for heading in ctx.skill.body.headings:
        if heading.level == 1:
            if first_h1 is None:
                first_h1 = heading
            else:
                yield Hit(
                    f"second H1 '{heading.text}' (the first is '{first_h1.text}' at line {first_h1.line})",
                    ctx.at(heading.line),
                    clause=_CLAUSE_HEADINGS,
                )
        if previous is not None and heading.level > previous.level + 1:
            yield Hit(
                f"H{heading.level} '{heading.text}' follows H{previous.level} '{previous.text}' "
                f"(line {previous.line}): use H{previous.level + 1}",
                ctx.at(heading.line),
                clause=_CLAUSE_HEADINGS,
            )
        previous = heading


def _plain_item_text(raw: str) -> str:
    """A list item's text without link syntax, emphasis or a trailing colon, lowercased."""
    text = _LINK_TEXT.sub(r"\1", raw)
    return text.strip().strip("*_`").rstrip(":").strip().lower()


def has_table_of_contents(doc: MarkdownDoc) -> bool:
    """Whether ``doc`` has a table of contents starting in its first :data:`TOC_WINDOW_LINES` lines.

    Counted as one: a heading such as "Contents" or "Table of contents"; at least three links to
    in-document anchors (``[Setup](#setup)``); or a list whose items name at least three of the
    document's headings (all of them when it has fewer).
    """
    last_line = doc.first_line + TOC_WINDOW_LINES - 1
    if any(h.line <= last_line and _TOC_HEADING.search(h.text) for h in doc.headings):
        return True
    anchors = sum(
        1 for link in doc.links if link.kind == "link" and link.target.startswith("#") and link.line <= last_line
    )
    if anchors >= TOC_MIN_ENTRIES:
        return True
    heading_texts = {h.text.strip().lower() for h in doc.headings}
    if not heading_texts:
        return False
    needed = min(TOC_MIN_ENTRIES, len(heading_texts))
    named: set[str] = set()
    for line in doc.text.split("\n")[:TOC_WINDOW_LINES]:
        item = _LIST_ITEM.fullmatch(line)
        if item and _plain_item_text(item.group(1)) in heading_texts:
            named.add(_plain_item_text(item.group(1)))
    return len(named) >= needed


def _long_markdown_references(ctx: ScanContext) -> Iterator[tuple[Resource, MarkdownDoc, int]]:
    """Markdown reference files over the TOC threshold, parsed. Symlinks are left to the REF and SEC rules."""
    for resource in ctx.skill.resources:
        if resource.kind != "reference" or resource.is_symlink:
            continue
        if not resource.rel.lower().endswith(_MARKDOWN_SUFFIXES):
            continue
        text = ctx.inputs.text(resource)
        if text is None:
            continue
        line_count = len(text.splitlines())
        if line_count > REFERENCE_TOC_MIN_LINES:
            yield resource, ctx.inputs.markdown(text), line_count


@define(
    RULES,
    id="STRUCT007",
    name="reference-without-toc",
    severity=Severity.WARNING,
    summary="A Markdown file under references/ is over 100 lines long and has no table of contents near the top.",
    fix="Add a short table of contents at the top of the file listing its sections, e.g. '## Contents' with links.",
)
def reference_without_toc(ctx: ScanContext) -> Iterator[Hit]:
    """Agents often preview a long file (its first lines) before reading on; a table of contents at
    the top shows them what the file holds and where, so they read the right part.

    Applies to Markdown files (``.md``, ``.markdown``, ``.mdx``) under ``references/`` longer than
    100 lines. A table of contents counts when it starts in the first 40 lines: a "Contents" heading,
    three or more links to ``#anchors``, or a list naming three or more of the file's headings.

    PASS::

        # API reference
        ## Contents
        - [Authentication](#authentication)
        - [Pagination](#pagination)
        ...

    FAIL: a 300-line ``references/api.md`` that starts straight with its first section.
    """
    for resource, doc, line_count in _long_markdown_references(ctx):
        if has_table_of_contents(doc):
            continue
        yield Hit(
            f"{resource.rel} is {line_count:,} lines with no table of contents in its first {TOC_WINDOW_LINES} lines",
            ctx.in_skill(resource.rel, 1),
            clause=_CLAUSE_TOC,
        )
