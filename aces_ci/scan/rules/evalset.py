"""EVAL: can the skill's evaluation dataset support a Skill Lift claim?

The live tier runs each case of ``evals/evals.json`` with and without the skill. These rules
check, without running anything, that the dataset exists, reads, fits the schema, and holds
enough well-formed cases, including negative ones, for a lift to mean something. Every finding
points at a line of the dataset file (``evals/evals.json``, or the ``.jsonl``/``.yaml`` variant
the skill uses).

The dataset loader (:func:`aces_ci.evals.load_evals`) records each problem with a stable code;
:data:`ROUTES` sends each code to one rule, and EVAL002 reports every code not routed elsewhere,
so a problem the loader finds can never go unreported.
"""

from __future__ import annotations

from collections.abc import Iterator

from ...evals import DRAFT_KEY, EVAL_MD, MATCH_INVALID, SCHEMA_VIOLATION, UNKNOWN_KEY, EvalSet
from ...redact import safe_prefix
from ...skill import ParseProblem
from .._context import ScanContext
from .._finding import Hit, Location, Severity
from .._registry import Rule, define

RULES: list[Rule] = []

DATASET = "evals/evals.json"
"""Where the agentskills.io convention puts the dataset; findings about a missing one point here."""
AUTHOR_CASES = f"evals/{EVAL_MD}"
"""The author's cases in prose, which trials read as a dataset of their own (:func:`aces_ci.evals.load_dataset`)."""

ROUTES: dict[str, str] = {
    SCHEMA_VIOLATION: "EVAL003",
    MATCH_INVALID: "EVAL003",
    UNKNOWN_KEY: "EVAL003",
    "fixture-missing": "EVAL008",
    "fixture-escapes": "EVAL008",
    "ignored-dataset": "EVAL010",
}
"""Loader problem code → the rule that reports it; every other code is EVAL002's."""
READ_RULE_ID = "EVAL002"

_MAX_SHOWN = 60

_CLAUSE_DATASET = "agentskills.io, evaluating skills: test cases live in evals/evals.json"
_CLAUSE_SCHEMA = "aces-ci schemas/evals.schema.json (agentskills.io, skill-creator and ACES dialects)"
_CLAUSE_LIFT = "ACES paired trials: Skill Lift is a mean over cases"
_CLAUSE_NEGATIVE = "ACES: negative cases (the skill should not activate) measure trigger precision"


def _shown(text: str) -> str:
    return repr(text if len(text) <= _MAX_SHOWN else safe_prefix(text, _MAX_SHOWN) + "…")


def _dataset(ctx: ScanContext) -> EvalSet | None:
    """The skill's dataset: loaded and schema-checked once per skill, shared by every EVAL rule."""
    return ctx.inputs.evalset()


def _at(ctx: ScanContext, evalset: EvalSet, line: int | None) -> Location:
    return ctx.in_skill(f"evals/{evalset.path.name}", line)


def _problems_of(evalset: EvalSet, rule_id: str) -> Iterator[ParseProblem]:
    for problem in evalset.problems:
        if ROUTES.get(problem.code, READ_RULE_ID) == rule_id:
            yield problem


def _usable(ctx: ScanContext) -> EvalSet | None:
    """The dataset when it could be parsed; rules about its content say nothing about an unreadable one."""
    evalset = _dataset(ctx)
    return evalset if evalset is not None and evalset.parsed else None


@define(
    RULES,
    id="EVAL001",
    name="evals-missing",
    severity=Severity.WARNING,
    summary="The skill has no evaluation dataset (evals/evals.json), so no live evidence about it is possible.",
    fix="Add evals/evals.json with at least three realistic prompts, one of them a prompt the skill should NOT "
    'handle: {"skill_name": ..., "evals": [{"id": 1, "prompt": ..., "expected_output": ...}]}.',
)
def evals_missing(ctx: ScanContext) -> Iterator[Hit]:
    """A static scan can say a skill is well formed; only paired live trials say whether it helps.

    Those trials need the author's own tasks: without a dataset the skill can never show a lift, and
    a regression after a model update goes unnoticed. Also read: ``evals/evals.jsonl``,
    ``evals/evals.yaml`` and ``evals/evals.yml``; ``evals/EVAL.md`` alone is a dataset too, since
    trials run its cases (the other EVAL rules check the JSON/YAML dataset only).

    PASS: ``skills/pdf-forms/evals/evals.json`` with a handful of cases, or ``evals/EVAL.md``.

    FAIL: ``skills/pdf-forms/`` with SKILL.md and scripts but no ``evals/`` dataset.

    The finding points at SKILL.md's first line, a file that exists (an annotation or a SARIF result on a
    missing file has nowhere to appear); its message names the path where the dataset belongs.
    """
    if _dataset(ctx) is None and ctx.skill.resource(AUTHOR_CASES) is None:
        yield Hit(
            f"no evaluation dataset: add {ctx.in_skill(DATASET).path} so the skill's effect on an agent can be "
            "measured",
            ctx.at(1),
            clause=_CLAUSE_DATASET,
        )


@define(
    RULES,
    id=READ_RULE_ID,
    name="evals-unreadable",
    severity=Severity.ERROR,
    summary="The evaluation dataset cannot be read: invalid JSON/YAML, binary, too large, or refused.",
    fix="Fix the file at the reported line; `python -m json.tool evals/evals.json` shows JSON syntax errors.",
)
def evals_unreadable(ctx: ScanContext) -> Iterator[Hit]:
    """A dataset that does not parse runs no case at all, and a partly readable one silently runs fewer.

    Reported: syntax errors (with line and column), invalid UTF-8, NUL bytes, files over 2 MiB,
    nesting over 32 levels, YAML alias bombs, ``NaN``/``Infinity``, unpaired surrogate escapes,
    duplicate keys (the parser keeps only the last value), more than 5,000 cases, and a dataset
    that is a symlink leading outside the skill.

    PASS::

        {"skill_name": "pdf-forms", "evals": [{"id": 1, "prompt": "Fill form.pdf"}]}

    FAIL (a trailing comma, line 1)::

        {"skill_name": "pdf-forms", "evals": [{"id": 1, "prompt": "Fill form.pdf"},]}
    """
    evalset = _dataset(ctx)
    if evalset is None:
        return
    for problem in _problems_of(evalset, READ_RULE_ID):
        yield Hit(problem.message, _at(ctx, evalset, problem.line), clause="JSON (RFC 8259) / YAML 1.1")


@define(
    RULES,
    id="EVAL003",
    name="evals-schema",
    severity=Severity.ERROR,
    summary="The evaluation dataset does not fit the dataset schema (a field is missing, mistyped, doubled or "
    "unknown).",
    fix="Fix the field at the reported JSON path; see schemas/evals.schema.json for every accepted field.",
)
def evals_schema(ctx: ScanContext) -> Iterator[Hit]:
    """Harnesses drop or misread cases that do not fit the format: a case without ``prompt`` cannot
    run, an ``id`` of ``true`` means nothing, and ``prompt`` beside its ACES alias ``question`` leaves
    one of the two ignored. A key no dialect defines (``expected_outptu``) is an error with the key
    it most likely meant, since the case would otherwise be scored against nothing. The message
    names the JSON path, e.g. ``$.evals[2].prompt``. A
    reference the case's ``match`` cannot use is reported here too: a ``regex`` that does not
    compile, a ``numeric`` reference without a number, a ``tolerance`` on another mode.

    PASS::

        {"id": "fill-w9", "prompt": "Fill in w9.pdf", "assertions": ["reads SKILL.md first"]}

    FAIL::

        {"id": "fill-w9", "prompt": 42, "assertions": "reads SKILL.md first", "expectations": []}
    """
    evalset = _dataset(ctx)
    if evalset is None:
        return
    for problem in _problems_of(evalset, "EVAL003"):
        yield Hit(problem.message, _at(ctx, evalset, problem.line), clause=_CLAUSE_SCHEMA)


@define(
    RULES,
    id="EVAL004",
    name="evals-too-few",
    severity=Severity.WARNING,
    summary="The dataset has fewer cases than the minimum (3 by default): a lift from so few supports no claim.",
    fix="Add cases until the dataset has at least `scan.min_eval_cases` (aces.yml); vary the phrasing and inputs.",
)
def evals_too_few(ctx: ScanContext) -> Iterator[Hit]:
    """Skill Lift is a mean over paired cases, and live runs are noisy (about ±0.05 per run in
    SkillEvaluator's experience). From one or two cases no interval excludes zero, so neither a
    gain nor a regression can be claimed. The minimum is ``min_eval_cases`` in aces.yml.

    PASS: five cases, four the skill should handle and one it should not.

    FAIL: a single case.
    """
    evalset = _usable(ctx)
    minimum = ctx.config.min_eval_cases
    if evalset is None or len(evalset.cases) >= minimum:
        return
    count = len(evalset.cases)
    yield Hit(
        f"{count} usable case{'s' if count != 1 else ''}; at least {minimum} are needed before a lift "
        "on this skill means anything",
        _at(ctx, evalset, evalset.cases_line),
        clause=f"{_CLAUSE_LIFT} (min_eval_cases: {minimum})",
    )


@define(
    RULES,
    id="EVAL005",
    name="evals-no-negative",
    severity=Severity.WARNING,
    summary="No case is negative (a prompt the skill should NOT handle), so trigger precision cannot be measured.",
    fix='Add a near-miss prompt the skill must ignore, marked "should_trigger": false (or "expected_skill": null).',
)
def evals_no_negative(ctx: ScanContext) -> Iterator[Hit]:
    """A skill whose description claims too much wins every positive case and still intrudes on
    unrelated work; only prompts where the skill must stay unused reveal that.

    A case is negative when ``should_trigger`` is ``false``, or ``expected_skill`` is ``null`` or
    another skill. A case with neither inherits ``skill_name`` and counts as positive (the
    SkillEvaluator convention), so a negative case has to say so.

    PASS::

        {"id": "unrelated", "prompt": "Write a haiku about autumn", "should_trigger": false}

    FAIL: every case asks for what the skill does.
    """
    evalset = _usable(ctx)
    if evalset is None or not evalset.cases or any(case.should_trigger is False for case in evalset.cases):
        return
    yield Hit(
        f"none of the {len(evalset.cases)} cases is negative: mark a prompt the skill should not handle "
        'with "should_trigger": false',
        _at(ctx, evalset, evalset.cases_line),
        clause=_CLAUSE_NEGATIVE,
    )


@define(
    RULES,
    id="EVAL006",
    name="evals-duplicate-id",
    severity=Severity.ERROR,
    summary="Two cases share an id, so their results are mixed up in reports, caches and comparisons.",
    fix='Give every case its own id; integer 1 and string "1" count as the same id.',
)
def evals_duplicate_id(ctx: ScanContext) -> Iterator[Hit]:
    """Per-case results, the rollout cache and run-to-run comparisons are keyed by case id. Two cases
    with one id overwrite each other's results. Integer ids are read as strings, so ``1`` and
    ``"1"`` collide. The finding points at the second use.

    PASS: ids ``1``, ``2``, ``3``.

    FAIL: ids ``1``, ``2``, ``"1"``.
    """
    evalset = _usable(ctx)
    if evalset is None:
        return
    first_line: dict[str, int | None] = {}
    for case in evalset.cases:
        if case.id not in first_line:
            first_line[case.id] = case.line
            continue
        earlier = first_line[case.id]
        where = f" (first at line {earlier})" if earlier is not None else ""
        yield Hit(
            f"case id {_shown(case.id)} is used again{where}",
            _at(ctx, evalset, case.line),
            clause="SkillEvaluator datasets: case ids are unique",
        )


@define(
    RULES,
    id="EVAL007",
    name="evals-skill-name",
    severity=Severity.WARNING,
    summary="The dataset's skill_name is not the skill's name.",
    fix="Set skill_name to the `name` in SKILL.md's frontmatter.",
)
def evals_skill_name(ctx: ScanContext) -> Iterator[Hit]:
    """``skill_name`` says which skill the cases evaluate. Cases without ``expected_skill`` inherit it,
    so a stale name (after a rename, or a copied dataset) makes every positive case expect a skill
    that does not exist, and activation is scored as failed.

    PASS: ``"skill_name": "pdf-forms"`` in ``skills/pdf-forms/evals/evals.json``.

    FAIL: ``"skill_name": "pdf-filler"`` there.
    """
    evalset = _usable(ctx)
    if evalset is None or evalset.skill_name is None or evalset.skill_name == ctx.skill.name:
        return
    yield Hit(
        f"skill_name is {_shown(evalset.skill_name)} but the skill is named {_shown(ctx.skill.name)}",
        _at(ctx, evalset, evalset.skill_name_line),
        clause="agentskills.io, evaluating skills: skill_name names the skill under test",
    )


@define(
    RULES,
    id="EVAL008",
    name="evals-fixture",
    severity=Severity.ERROR,
    summary="A case's fixture file is missing, or lies outside the skill's evals/ directory.",
    fix="Put the file under evals/ (e.g. evals/files/) and list it relative to the skill, "
    'as in "files": ["evals/files/input.csv"].',
)
def evals_fixture(ctx: ScanContext) -> Iterator[Hit]:
    """Fixtures are copied into the workspace of both arms. A missing one makes the case fail for
    reasons that have nothing to do with the skill. One outside ``evals/`` (through ``..``, an
    absolute path or a symlink) would copy the skill's own files, or files from elsewhere on the
    machine, into the without-skill arm. Paths are read relative to the skill (agentskills.io) or to
    ``evals/`` (SkillEvaluator), whichever exists.

    PASS: ``"files": ["evals/files/w9.pdf"]`` with that file present.

    FAIL: ``"files": ["../../secrets.env"]``, or a listed file that does not exist.
    """
    evalset = _dataset(ctx)
    if evalset is None:
        return
    for problem in _problems_of(evalset, "EVAL008"):
        yield Hit(problem.message, _at(ctx, evalset, problem.line), clause="aces-ci: fixtures are staged from evals/")


@define(
    RULES,
    id="EVAL009",
    name="evals-nothing-to-score",
    severity=Severity.WARNING,
    summary="A case has neither expected_output nor assertions: there is nothing to score its answer against.",
    fix="Add an expected_output (what a good answer contains) or assertions (behaviours to check) to the case.",
)
def evals_nothing_to_score(ctx: ScanContext) -> Iterator[Hit]:
    """Graders score an answer against ``expected_output`` and ``assertions``. SkillEvaluator scores
    a case without either as a pass, so both arms "pass" and the case adds no signal, only cost.
    Negative cases are exempt: whether the skill stayed unused is their check.

    PASS: ``{"id": 1, "prompt": "Fill w9.pdf", "expected_output": "w9-filled.pdf with every field set"}``.

    FAIL: ``{"id": 1, "prompt": "Fill w9.pdf"}``.
    """
    evalset = _usable(ctx)
    if evalset is None:
        return
    for case in evalset.cases:
        if case.expected_output is None and not case.assertions and case.should_trigger is not False:
            yield Hit(
                f"case {_shown(case.id)} has neither expected_output nor assertions",
                _at(ctx, evalset, case.line),
                clause="ACES grading: outcome metrics compare the answer with expected_output and assertions",
            )


@define(
    RULES,
    id="EVAL010",
    name="evals-several-datasets",
    severity=Severity.WARNING,
    summary="The skill has more than one dataset file; only the first (evals.json, .jsonl, .yaml, .yml) is read.",
    fix="Merge the cases into one file and delete the others.",
)
def evals_several_datasets(ctx: ScanContext) -> Iterator[Hit]:
    """Datasets are never merged: with ``evals/evals.json`` and ``evals/evals.yaml`` side by side,
    the cases in the YAML file are silently never run.

    PASS: only ``evals/evals.json``.

    FAIL: ``evals/evals.json`` and an older ``evals/evals.yaml``.
    """
    evalset = _dataset(ctx)
    if evalset is None:
        return
    for problem in _problems_of(evalset, "EVAL010"):
        where = Location(problem.path) if problem.path else _at(ctx, evalset, problem.line)
        yield Hit(problem.message, where, clause="aces-ci: one dataset per skill")


@define(
    RULES,
    id="EVAL011",
    name="evals-draft",
    severity=Severity.ERROR,
    summary=f"A case is still a draft from `aces-ci init` (marked {DRAFT_KEY}): a trial refuses to run it.",
    fix=f"Write the case's prompt and expected_output as the {DRAFT_KEY} note asks, then delete {DRAFT_KEY}.",
)
def evals_draft(ctx: ScanContext) -> Iterator[Hit]:
    """``aces-ci init`` scaffolds cases from the skill's own text and marks what only the author can
    write (a real user's phrasing, the expected output) with ``_fill_in``. ``aces-ci trial`` refuses
    such a case, so a scan that passed it would promise a dataset the live tier cannot run.

    PASS: ``{"id": "when-1", "prompt": "Fill in w9.pdf for Acme", "expected_output": "w9-filled.pdf"}``.

    FAIL: ``{"id": "when-1", "prompt": "Fill a PDF form.", "expected_output": null, "_fill_in": "prompt: ..."}``.
    """
    evalset = _usable(ctx)
    if evalset is None:
        return
    for case in evalset.cases:
        if case.draft is not None:
            yield Hit(
                f"case {_shown(case.id)} is still a draft from `aces-ci init`: {_shown(case.draft)}",
                _at(ctx, evalset, case.line),
                clause="aces-ci trial refuses cases marked _fill_in",
            )
