"""PARSE: what the skill parser could not read, as findings.

The parser (``aces_ci.skill``) never raises on bad input; it records a :class:`ParseProblem` with a
stable ``code`` on the SKILL.md file, on its frontmatter, or on the package as a whole. This
module routes every (place, code) pair to exactly one rule through :data:`ROUTES`, so each class of
problem has its own id, severity and fix. A code the table does not know yet is still reported,
by PARSE015, so a parser change can never make a problem disappear from the report.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Literal

from ...skill import ParseProblem, Skill
from .._context import ScanContext
from .._finding import Hit, Location, Severity
from .._registry import Rule, define

RULES: list[Rule] = []

ProblemPlace = Literal["skill-md", "frontmatter", "package"]
"""Where the parser recorded a problem: ``skill.skill_md``, ``skill.frontmatter`` or ``skill`` itself."""

ROUTES: dict[tuple[ProblemPlace, str], str] = {
    ("skill-md", "unreadable"): "PARSE001",
    ("skill-md", "not-a-file"): "PARSE001",
    ("skill-md", "binary"): "PARSE001",
    ("skill-md", "invalid-utf8"): "PARSE002",
    ("skill-md", "too-large"): "PARSE003",
    ("skill-md", "bom"): "PARSE004",
    ("frontmatter", "frontmatter-missing"): "PARSE005",
    ("frontmatter", "frontmatter-not-first"): "PARSE006",
    ("frontmatter", "frontmatter-unclosed"): "PARSE007",
    ("frontmatter", "frontmatter-empty"): "PARSE008",
    ("frontmatter", "yaml-syntax"): "PARSE009",
    ("frontmatter", "yaml-bomb"): "PARSE010",
    ("frontmatter", "frontmatter-too-large"): "PARSE010",
    ("frontmatter", "duplicate-key"): "PARSE011",
    ("frontmatter", "not-mapping"): "PARSE012",
    ("package", "lowercase-skill-md"): "PARSE013",
    ("package", "too-many-files"): "PARSE014",
    ("package", "unreadable"): "PARSE014",
    ("package", "symlink-leaves-skill"): "PARSE016",
    ("package", "dangling-symlink"): "PARSE016",
    ("package", "symlinked-directory"): "PARSE016",
    ("package", "special-file"): "PARSE016",
    ("package", "too-large-to-stage"): "PARSE016",
}
"""The one rule that reports each problem code in each place."""

UNROUTED_RULE_ID = "PARSE015"
_MAX_MESSAGE_CHARS = 300

_SPEC_FILE = "agentskills.io specification: SKILL.md is YAML frontmatter followed by Markdown"
_YAML = "YAML 1.1 as loaded by PyYAML's safe loader"


def located_problems(skill: Skill) -> Iterator[tuple[ProblemPlace, ParseProblem]]:
    """Every problem the parser recorded on ``skill``, with the place it was recorded."""
    for problem in skill.skill_md.problems:
        yield "skill-md", problem
    for problem in skill.frontmatter.problems:
        yield "frontmatter", problem
    for problem in skill.problems:
        yield "package", problem


def safe_message(message: str) -> str:
    """The parser's message without YAML source snippets, on one line.

    PyYAML error texts quote the offending frontmatter line indented under the summary; that line
    may hold a secret, so only the unindented summary lines are kept.
    """
    summary = [line.strip() for line in message.split("\n") if line.strip() and not line[:1].isspace()]
    text = "; ".join(summary) or "unreadable input"
    return text if len(text) <= _MAX_MESSAGE_CHARS else text[: _MAX_MESSAGE_CHARS - 1] + "…"


def _routed_hits(ctx: ScanContext, rule_id: str, clause: str) -> Iterator[Hit]:
    for place, problem in located_problems(ctx.skill):
        if ROUTES.get((place, problem.code)) == rule_id:
            where = Location(problem.path, problem.line) if problem.path else ctx.at(problem.line)
            yield Hit(safe_message(problem.message), where, clause=clause)


@define(
    RULES,
    id="PARSE001",
    name="skill-md-unreadable",
    severity=Severity.ERROR,
    summary="SKILL.md cannot be read as text: it is binary, not a regular file, or unreadable.",
    fix="Make SKILL.md a regular UTF-8 text file (no NUL bytes) that the CI user can read.",
)
def skill_md_unreadable(ctx: ScanContext) -> Iterator[Hit]:
    """A SKILL.md that is binary (holds NUL bytes), a FIFO or directory, or unreadable (permissions,
    a dangling symlink) gives harnesses nothing to load: no other rule can check it either.

    PASS: a UTF-8 text SKILL.md.

    FAIL: a PNG saved as SKILL.md, or a SKILL.md symlink to a missing file.
    """
    yield from _routed_hits(ctx, "PARSE001", _SPEC_FILE)


@define(
    RULES,
    id="PARSE002",
    name="invalid-utf8",
    severity=Severity.WARNING,
    summary="SKILL.md is not valid UTF-8; bad bytes were replaced before checking.",
    fix="Re-save SKILL.md as UTF-8 (e.g. `iconv -f latin1 -t utf-8`).",
)
def invalid_utf8(ctx: ScanContext) -> Iterator[Hit]:
    """Harnesses read SKILL.md as UTF-8; Latin-1 or Windows-1252 bytes become garbage or a load error.

    The scan replaces the bad bytes and goes on, pointing at the line of the first one.

    PASS: ``café`` saved as UTF-8 (``63 61 66 c3 a9``).

    FAIL: ``café`` saved as Latin-1 (``63 61 66 e9``).
    """
    yield from _routed_hits(ctx, "PARSE002", "agentskills.io specification: SKILL.md is UTF-8 text")


@define(
    RULES,
    id="PARSE003",
    name="skill-md-truncated",
    severity=Severity.WARNING,
    summary="SKILL.md is larger than the read limit; only its beginning was checked.",
    fix="Shrink SKILL.md: move large content into files under references/ or assets/.",
)
def skill_md_truncated(ctx: ScanContext) -> Iterator[Hit]:
    """Files over the read cap (2 MiB) are only partly read, so findings past the cap are missed.

    A SKILL.md that large is far beyond any context budget anyway.

    PASS: a SKILL.md of a few KiB.

    FAIL: a 5 MiB SKILL.md with an embedded data dump.
    """
    yield from _routed_hits(ctx, "PARSE003", "agentskills.io specification: progressive disclosure")


@define(
    RULES,
    id="PARSE004",
    name="byte-order-mark",
    severity=Severity.NOTE,
    summary="SKILL.md starts with a UTF-8 byte-order mark.",
    fix="Save SKILL.md as UTF-8 without BOM, so '---' is the very first thing in the file.",
)
def byte_order_mark(ctx: ScanContext) -> Iterator[Hit]:
    """A BOM before the opening ``---`` hides the frontmatter from parsers that do not strip it.

    The scan strips it and goes on; some harnesses will not.

    PASS: a file whose first bytes are ``2d 2d 2d`` (``---``).

    FAIL: a file whose first bytes are ``ef bb bf 2d 2d 2d``.
    """
    yield from _routed_hits(ctx, "PARSE004", _SPEC_FILE)


@define(
    RULES,
    id="PARSE005",
    name="frontmatter-missing",
    severity=Severity.ERROR,
    summary="SKILL.md has no YAML frontmatter.",
    fix="Start SKILL.md with a frontmatter block: '---', `name:`, `description:`, '---'.",
)
def frontmatter_missing(ctx: ScanContext) -> Iterator[Hit]:
    """Without frontmatter the skill has no name or description, so no harness can list or choose it.

    PASS::

        ---
        name: pdf-forms
        description: Fill PDF forms. Use when the user uploads a PDF form.
        ---

    FAIL: a SKILL.md that starts with ``# PDF forms``.
    """
    yield from _routed_hits(ctx, "PARSE005", _SPEC_FILE)


@define(
    RULES,
    id="PARSE006",
    name="frontmatter-not-first",
    severity=Severity.ERROR,
    summary="The frontmatter block does not start on the first line of SKILL.md.",
    fix="Delete the blank lines or text above the opening '---'.",
)
def frontmatter_not_first(ctx: ScanContext) -> Iterator[Hit]:
    """Frontmatter is only recognised when ``---`` is the very first line; after a blank line it is body text.

    PASS: ``---`` on line 1.

    FAIL: an empty line 1 and ``---`` on line 2.
    """
    yield from _routed_hits(ctx, "PARSE006", _SPEC_FILE)


@define(
    RULES,
    id="PARSE007",
    name="frontmatter-unclosed",
    severity=Severity.ERROR,
    summary="The frontmatter opened with '---' is never closed.",
    fix="Add a closing '---' line after the last frontmatter field.",
)
def frontmatter_unclosed(ctx: ScanContext) -> Iterator[Hit]:
    """Without the closing fence the whole file would be YAML: there is no body and no usable metadata.

    PASS: ``---``, the fields, ``---``, then the body.

    FAIL: ``---``, the fields, then the body with no closing ``---``.
    """
    yield from _routed_hits(ctx, "PARSE007", _SPEC_FILE)


@define(
    RULES,
    id="PARSE008",
    name="frontmatter-empty",
    severity=Severity.ERROR,
    summary="The frontmatter block is empty.",
    fix="Fill the frontmatter with at least `name:` and `description:`.",
)
def frontmatter_empty(ctx: ScanContext) -> Iterator[Hit]:
    """An empty block (``---`` directly followed by ``---``) gives the skill no name and no description.

    PASS: a block with ``name`` and ``description``.

    FAIL: two ``---`` lines with nothing (or only comments) between them.
    """
    yield from _routed_hits(ctx, "PARSE008", _SPEC_FILE)


@define(
    RULES,
    id="PARSE009",
    name="yaml-syntax",
    severity=Severity.ERROR,
    summary="The frontmatter is not valid YAML.",
    fix="Fix the YAML at the reported line; quote values containing ': ' or starting with a special character.",
)
def yaml_syntax(ctx: ScanContext) -> Iterator[Hit]:
    """Harnesses drop a skill whose frontmatter does not parse. The usual cause is an unquoted
    description containing ``: `` or starting with ``[``, ``{``, ``*``, ``&``, ``!`` or ``%``.

    PASS::

        description: "Convert files: PDF, DOCX. Use when the user asks for a conversion."

    FAIL::

        description: Convert files: PDF, DOCX. Use when the user asks for a conversion.
    """
    yield from _routed_hits(ctx, "PARSE009", _YAML)


@define(
    RULES,
    id="PARSE010",
    name="yaml-too-complex",
    severity=Severity.ERROR,
    summary="The frontmatter was refused: too large, nested too deeply, or an alias bomb.",
    fix="Keep frontmatter to a few flat fields; remove YAML anchors/aliases and move long content into the body.",
)
def yaml_too_complex(ctx: ScanContext) -> Iterator[Hit]:
    """Frontmatter is a handful of short fields. A block over 64 KiB, nesting over 50 levels, or
    anchors that expand to more than 10,000 values (a "billion laughs" bomb) is refused unparsed,
    because loading it could stall or crash whatever reads it.

    PASS: ``name``, ``description`` and a small ``metadata`` map.

    FAIL::

        a: &a [x, x, x, x, x, x, x, x, x]
        b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]
        c: [*b, *b, *b, *b, *b, *b, *b, *b, *b]
    """
    yield from _routed_hits(ctx, "PARSE010", _YAML)


@define(
    RULES,
    id="PARSE011",
    name="duplicate-key",
    severity=Severity.ERROR,
    summary="A frontmatter key appears twice; YAML silently keeps only the last value.",
    fix="Delete one of the two entries, keeping the value you mean.",
)
def duplicate_key(ctx: ScanContext) -> Iterator[Hit]:
    """Loaders differ on duplicate keys: PyYAML keeps the last value, strict loaders refuse the
    document. Either way one of the two values is lost without a word.

    PASS: each key once.

    FAIL::

        description: Fill PDF forms.
        description: Use when the user uploads a PDF form.
    """
    yield from _routed_hits(ctx, "PARSE011", f"{_YAML}; YAML 1.2: mapping keys are unique")


@define(
    RULES,
    id="PARSE012",
    name="frontmatter-not-mapping",
    severity=Severity.ERROR,
    summary="The frontmatter is a list or a single value instead of 'key: value' fields.",
    fix="Write the frontmatter as 'key: value' lines: `name: ...` and `description: ...`.",
)
def frontmatter_not_mapping(ctx: ScanContext) -> Iterator[Hit]:
    """The frontmatter must be a mapping of field names to values; a list or a bare string has no fields.

    PASS: ``name: pdf-forms``.

    FAIL: ``- name: pdf-forms`` (a list holding a mapping).
    """
    yield from _routed_hits(ctx, "PARSE012", _SPEC_FILE)


@define(
    RULES,
    id="PARSE013",
    name="lowercase-skill-md",
    severity=Severity.ERROR,
    summary="The skill file is named 'skill.md' instead of 'SKILL.md'.",
    fix="Rename the file to SKILL.md (`git mv skill.md SKILL.md`).",
)
def lowercase_skill_md(ctx: ScanContext) -> Iterator[Hit]:
    """The spec names the file ``SKILL.md``. ``skills-ref`` falls back to ``skill.md``, but
    skill-creator's validator and harnesses on case-sensitive file systems do not find it, and
    aces-ci's live tier stages only ``SKILL.md``: an error, so a skill the scan accepts always stages.

    PASS: ``skills/pdf-forms/SKILL.md``.

    FAIL: ``skills/pdf-forms/skill.md``.
    """
    yield from _routed_hits(ctx, "PARSE013", "agentskills.io specification: a skill directory contains SKILL.md")


@define(
    RULES,
    id="PARSE014",
    name="file-listing-incomplete",
    severity=Severity.ERROR,
    summary="Some files of the skill could not be listed (too many files, or unreadable entries).",
    fix="Remove generated or vendored files from the skill directory, or fix the entries' permissions.",
)
def file_listing_incomplete(ctx: ScanContext) -> Iterator[Hit]:
    """Rules about scripts, references and secrets only see listed files; a skill with more than
    2,000 files or with entries the scan cannot stat is checked incompletely, and the live tier,
    which stages exactly the listed files, refuses it: an error, so a skill the scan accepts stages.

    PASS: a skill directory with SKILL.md, a few scripts and references.

    FAIL: a skill directory holding a vendored ``node_modules``-like tree of thousands of files.
    """
    yield from _routed_hits(ctx, "PARSE014", "aces-ci scan limits: every file of a skill is listed and checked")


@define(
    RULES,
    id=UNROUTED_RULE_ID,
    name="unclassified-parse-problem",
    severity=Severity.WARNING,
    summary="The parser reported a problem that no PARSE rule classifies yet.",
    fix="Fix the problem the message names; please also report it to aces-ci so it gets its own rule.",
)
def unclassified_parse_problem(ctx: ScanContext) -> Iterator[Hit]:
    """A safety net: a problem code missing from the routing table is reported here instead of vanishing.

    PASS: every parser problem has a dedicated rule (the usual case).

    FAIL: a newer parser records a problem code this version of the rules does not route.
    """
    for place, problem in located_problems(ctx.skill):
        if (place, problem.code) not in ROUTES:
            yield Hit(
                f"{place} problem '{problem.code}': {safe_message(problem.message)}",
                ctx.at(problem.line),
                clause="aces-ci parser",
            )


@define(
    RULES,
    id="PARSE016",
    name="not-stageable",
    severity=Severity.ERROR,
    summary="The skill cannot be copied faithfully into a rollout workspace, so no live trial can run it.",
    fix="Replace symlinks that leave the skill and symlinked folders with real files, remove special files, "
    "and keep the skill under 32 MB.",
)
def not_stageable(ctx: ScanContext) -> Iterator[Hit]:
    """Trials and SkillSV copy the skill into a fresh workspace per rollout, reading it exactly as this
    scan lists it. Whatever would make that copy refuse or differ from the skill on disk is an error
    here, so a skill the scan accepts always stages: a symlink leaving the skill (its target would not
    travel with an installed skill), a dangling symlink, a symlinked folder, a FIFO or device, more than
    32 MB in total. (More than 2,000 files is PARSE014; a lowercase ``skill.md``, which is not staged
    either, is PARSE013.)
    ``evals/`` is never staged, so nothing in it is checked here.

    PASS: a skill of regular files and folders, symlinks only to files inside it.

    FAIL: ``references/shared.md -> ../../common/shared.md``, or ``assets/`` as a symlinked folder.
    """
    yield from _routed_hits(ctx, "PARSE016", "aces-ci live tier: every rollout stages the skill as the scan reads it")
