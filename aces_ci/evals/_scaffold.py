"""Scaffold an evaluation dataset from a skill: the structure and what can be derived, never invented facts.

``aces-ci init`` writes what it returns. The cases come from the skill's own text:

* ``purpose``: the first sentence of the description turned into a request ("Profiles a CSV
  file…" → "Profile a CSV file…");
* ``when-1`` … ``when-3``: one per condition the description names after "Use when …" (a new
  condition starts at "or when" / "or if" / ";");
* ``section-<heading>`` (up to four): one per H2 section of SKILL.md that has content, prompted
  with that section's first sentence;
* ``not-for-this-skill``: a request the skill must not handle (``should_trigger: false``), so
  trigger precision can be measured from the first run.

What the skill's text determines is filled in: the skill name, ``should_trigger``, and, for a
case whose text names one of the skill's scripts, ``expected_script`` with the process
assertions "runs <script>" and "reads SKILL.md before running <script>" (decided by rule). A
section case without a script asks a judge whether the agent "follows the '<heading>' section".
What only the author knows is not guessed: ``expected_output`` is ``null`` and every case carries
``_fill_in`` saying what to write. The scan fails each such case (EVAL011, an error; EVAL009 warns
about the missing references) and a trial refuses it, so a draft passes neither tier and a draft
prompt is never paid for.
"""

from __future__ import annotations

import posixpath
import re
from typing import Any

from ..skill import Section, Skill
from ._canonical import DRAFT_KEY

NEGATIVE_ID = "not-for-this-skill"
NEGATIVE_PROMPT = "Write a haiku about autumn leaves."
MAX_TRIGGERS = 3
MAX_SECTIONS = 4
_TRIGGER = re.compile(
    r"\b(?:use|invoke|trigger|load)(?: (?:this|it|this skill))? (?:when|whenever|if|for)\b[:,]?\s*", re.IGNORECASE
)
_NEW_CONDITION = re.compile(r",?\s+or\s+(?:when|whenever|if)\s+|;\s*", re.IGNORECASE)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9`\"'(])")
_LIST_MARK = re.compile(r"^\s*(?:[-*+]|\d{1,3}[.)])\s+")
_SLUG = re.compile(r"[^a-z0-9]+")
_FILL_PURPOSE = (
    "prompt: rewrite as a request a user would send, with a concrete input; "
    "expected_output: what a correct answer must contain (or add outcome assertions)"
)
_FILL_NEGATIVE = (
    "prompt: replace with a near-miss request that sounds like this skill's work but is not; "
    "expected_output: the right answer without the skill"
)

_IRREGULAR = {"does": "do", "has": "have", "is": "be", "goes": "go"}


def _imperative(sentence: str) -> str:
    """``Profiles a CSV file`` → ``Profile a CSV file``: third person to a request, first word only."""
    first, _, rest = sentence.partition(" ")
    lower = first.lower()
    if lower in _IRREGULAR:
        verb = _IRREGULAR[lower]
    elif lower.endswith("ies") and len(lower) > 4:
        verb = lower[:-3] + "y"
    elif lower.endswith(("sses", "shes", "ches", "xes", "zes")):
        verb = lower[:-2]
    elif lower.endswith("s") and not lower.endswith("ss") and len(lower) > 3:
        verb = lower[:-1]
    else:
        return sentence
    verb = verb.capitalize() if first[:1].isupper() else verb
    return f"{verb} {rest}".strip()


def _sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE_END.split(" ".join(text.split())) if s.strip()]


def _triggers(description: str) -> tuple[list[str], list[str]]:
    """The description's sentences before its trigger clause, and the triggers it lists."""
    match = _TRIGGER.search(description)
    if match is None:
        return _sentences(description), []
    what = _sentences(description[: match.start()])
    clause = _sentences(description[match.end() :])
    first = clause[0].rstrip(".") if clause else ""
    # A list of objects ("asks what is in it, how clean it is, or for statistics") stays one trigger;
    # a new condition ("…, or when a log directory fills the disk") starts another.
    parts = [p.strip() for p in _NEW_CONDITION.split(first) if p.strip()]
    return what, parts[:MAX_TRIGGERS]


def _slug(text: str) -> str:
    return _SLUG.sub("-", text.casefold()).strip("-")[:48] or "section"


def _section_lines(skill: Skill, section: Section) -> list[str]:
    lines = skill.body.text.split("\n")
    start = section.heading.line - skill.body.first_line + 1
    end = section.end_line - skill.body.first_line + 1
    return lines[start:end]


def _first_sentence(lines: list[str]) -> str | None:
    in_fence = False
    for raw in lines:
        stripped = raw.strip()
        if stripped.startswith(("```", "~~~")):
            in_fence = not in_fence
            continue
        if in_fence or not stripped or stripped.startswith(("#", "|", "<!--", ">")):
            continue
        text = _LIST_MARK.sub("", stripped)
        sentences = _sentences(text)
        if sentences:
            return sentences[0].rstrip(":").strip()
    return None


def _scripts_in(skill: Skill, first_line: int, last_line: int) -> list[str]:
    """The skill's scripts that lines ``first_line``…``last_line`` of SKILL.md name, in order."""
    scripts = {r.rel for r in skill.resources if r.kind == "script"}
    found: list[str] = []
    for link in skill.body.links:
        target = posixpath.normpath(link.target.split("#", 1)[0]) if link.target else ""
        if first_line <= link.line <= last_line and target in scripts and target not in found:
            found.append(target)
    for block in skill.body.code_blocks:
        if first_line <= block.line <= last_line:
            found.extend(s for s in sorted(scripts) if s in block.content and s not in found)
    return found


def _script_fields(scripts: list[str]) -> dict[str, Any]:
    if not scripts:
        return {}
    script = scripts[0]
    return {"expected_script": script, "assertions": [f"runs {script}", f"reads SKILL.md before running {script}"]}


def _positive(case_id: str, prompt: str, extra: dict[str, Any], fill_in: str) -> dict[str, Any]:
    case: dict[str, Any] = {"id": case_id, "prompt": prompt, "expected_output": None, "should_trigger": True}
    case.update(extra)
    case[DRAFT_KEY] = fill_in
    return case


def scaffold_dataset(skill: Skill) -> dict[str, Any]:
    """An evals.json document for ``skill`` (module docstring); valid against the dataset schema."""
    description = skill.description or ""
    what, triggers = _triggers(description)
    body_scripts = _scripts_in(skill, 1, 10**9)
    cases: list[dict[str, Any]] = []
    purpose = _imperative(what[0]) if what else f"Use the {skill.name} skill."
    cases.append(_positive("purpose", purpose, _script_fields(body_scripts[:1]), _FILL_PURPOSE))
    for number, trigger in enumerate(triggers, start=1):
        fill_in = f"prompt: write what a user says when {trigger}; " + _FILL_PURPOSE.split("; ", 1)[1]
        cases.append(_positive(f"when-{number}", trigger[:1].upper() + trigger[1:] + ".", {}, fill_in))
    used = {case["id"] for case in cases}
    sections = [s for s in skill.body.sections if s.heading.level == 2 and s.content_lines > 0]
    for section in sections[:MAX_SECTIONS]:
        case_id = f"section-{_slug(section.heading.text)}"
        while case_id in used:
            case_id += "-2"
        used.add(case_id)
        lines = _section_lines(skill, section)
        prompt = _first_sentence(lines) or section.heading.text
        extra = _script_fields(_scripts_in(skill, section.heading.line, section.end_line))
        if not extra:
            extra = {"assertions": [f"follows the '{section.heading.text}' section of SKILL.md"]}
        fill_in = f"prompt: a task that needs the '{section.heading.text}' section; " + _FILL_PURPOSE.split("; ", 1)[1]
        cases.append(_positive(case_id, prompt[:1].upper() + prompt[1:], extra, fill_in))
    cases.append(
        {
            "id": NEGATIVE_ID,
            "prompt": NEGATIVE_PROMPT,
            "expected_output": None,
            "should_trigger": False,
            DRAFT_KEY: _FILL_NEGATIVE,
        }
    )
    return {
        "skill_name": skill.name,
        "_about": (
            f"Scaffolded by `aces-ci init` from {skill.name}/SKILL.md. Prompts are drafts made from the skill's "
            "own sentences; nothing was invented, so expected outputs are left for you. Write the fields each "
            f"case's {DRAFT_KEY} names, then delete {DRAFT_KEY}: a trial refuses cases that still carry it."
        ),
        "evals": cases,
    }
