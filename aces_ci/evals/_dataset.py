"""The cases a trial runs: evals.json, the author's EVAL.md and the product's task command, merged.

:func:`load_dataset` is strict where :func:`~aces_ci.evals.load_evals` is lenient. The scan
reports every problem of a dataset as a finding and carries on; a trial must not spend money on
a dataset it misreads, so any problem stops it with an :class:`~aces_ci.errors.InputError`
(exit 2) naming the file, the line and the JSON pointer of the value to fix
(``skills/x/evals/evals.json:14 (/evals/3/expected_output): must be a string or null``). Only
an ignored second dataset file is a note rather than an error.

Sources, and how they combine:

* **evals.json** (or ``.jsonl``/``.yaml``/``.yml``): the dataset, in any dialect.
* **the task command** (BYOT, ``tasks`` in evals.json or given by the caller from aces.yml; not
  both): its cases join the dataset's. A case id used by both is an error: neither side is the
  author's statement of intent, so neither may silently win.
* **evals/EVAL.md**: the author's intent, which *outranks* both. An EVAL.md case **replaces**
  every dataset or task case with the **same id**, or with the **same prompt** once both are
  normalised (case, whitespace and edge punctuation folded). The replacement is whole: no field
  of the replaced case is inherited, so what EVAL.md says is exactly what runs. It takes the
  position of the first case it replaces (reruns keep their order); EVAL.md cases that replace
  nothing follow the dataset's cases. The ``## Behaviors`` of EVAL.md are appended (without
  repeats) to the assertions of every case that should trigger the skill, from whichever source.

Every case keeps its provenance (:class:`CaseSource`): where it was written, and which cases it
replaced, so a report can say why a seeded case did not run.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Literal

from ..errors import InputError
from ..skill import ParseProblem, is_within, read_text
from ._canonical import DRAFT_KEY, canonicalise
from ._document import Document
from ._eval_md import EVAL_MD, parse_eval_md
from ._fixtures import EVALS_DIR
from ._loader import load_evals
from ._model import EvalCase, EvalSet
from ._normalise import normalise
from ._owned import GraderSpec, TaskCommand
from ._tasks import run_task_command

SourceKind = Literal["dataset", "eval-md", "tasks"]
NOTE_CODES = frozenset({"ignored-dataset"})
"""Loader problems that do not stop a trial: they are reported as notes."""
_SHOWN_PATH = re.compile(r"^\$[^:]*: ")


class NoCases(InputError):
    """No source gave the skill a single case: no dataset file, no EVAL.md, no task command, or all of them empty.

    Its own class because a caller that walks many skills (``aces-ci ci``) reports such a skill
    as unmeasured and goes on, while any other problem of a dataset stops it like the trial.
    """

    def __init__(self, message: str, *, path: str, sources: tuple[str, ...]) -> None:
        super().__init__(message, path=path)
        self.sources = sources
        """The files (and the task command) that were read and held no case; empty when there was none."""


@dataclass(frozen=True)
class CaseSource:
    """Where one case of a :class:`Dataset` came from."""

    kind: SourceKind
    file: str
    """Repository-relative file (evals.json, EVAL.md), or the task command as typed."""
    line: int | None = None
    pointer: str | None = None
    """JSON pointer inside evals.json or inside the task command's output; None for EVAL.md."""
    supersedes: tuple[str, ...] = ()
    """Ids of the dataset or task cases an EVAL.md case replaced."""
    behaviors_added: int = 0
    """Assertions appended from EVAL.md's ``## Behaviors``."""


@dataclass(frozen=True)
class Dataset:
    """The cases of one skill, ready to run, with the provenance of each."""

    skill_name: str
    cases: tuple[EvalCase, ...]
    sources: Mapping[str, CaseSource]
    """By case id."""
    grader: GraderSpec | None = None
    """The product's own grader (BYOG), when the dataset or the caller names one."""
    notes: tuple[str, ...] = ()
    """Problems that did not stop loading (an ignored second dataset file)."""
    files: tuple[str, ...] = field(default_factory=tuple)
    """Repository-relative paths of the files read."""


def _repo_rel(path: Path, repo_root: Path) -> str:
    try:
        return path.relative_to(repo_root).as_posix()
    except ValueError:
        return path.as_posix()


def _stop(problems: Iterable[ParseProblem], file: str) -> None:
    """Raise for the first problem (in line order), saying how many more there are."""
    ordered = sorted(problems, key=lambda p: p.line or 0)
    if not ordered:
        return
    first = ordered[0]
    message = _SHOWN_PATH.sub("", first.message) if first.pointer is not None else first.message
    if len(ordered) > 1:
        more = len(ordered) - 1
        message += f" (and {more} more problem{'s' if more > 1 else ''}; `aces-ci scan` lists the dataset's)"
    raise InputError(message, path=first.path or file, line=first.line, field=first.pointer)


def _dataset_cases(evalset: EvalSet | None) -> tuple[list[EvalCase], list[str]]:
    """The usable cases of evals.json and the notes to show; raises on any other problem."""
    if evalset is None:
        return [], []
    notes = [p.message for p in evalset.problems if p.code in NOTE_CODES]
    _stop((p for p in evalset.problems if p.code not in NOTE_CODES), evalset.rel)
    return list(evalset.cases), notes


def _eval_md_cases(skill_dir: Path, repo_root: Path, skill_name: str) -> tuple[list[EvalCase], tuple[str, ...], str]:
    """EVAL.md's cases and behaviours, and its path; raises on any problem of the file."""
    misplaced = skill_dir / EVAL_MD
    if misplaced.exists():
        raise InputError(
            f"{EVAL_MD} at the skill root is staged with the skill, so the agent could read its expected answers: "
            f"move it to {EVALS_DIR}/{EVAL_MD}",
            path=_repo_rel(misplaced, repo_root),
        )
    path = skill_dir / EVALS_DIR / EVAL_MD
    rel = _repo_rel(path, repo_root)
    if not path.exists() and not path.is_symlink():
        return [], (), rel
    if not is_within(path, skill_dir / EVALS_DIR):
        raise InputError(f"{EVAL_MD} is a link leading outside {EVALS_DIR}/: not read", path=rel)
    text_file = read_text(path, rel)
    _stop(text_file.problems, rel)
    if text_file.text is None or text_file.truncated:
        raise InputError(f"{EVAL_MD} cannot be read as text (binary, or over the size limit)", path=rel)
    parsed = parse_eval_md(text_file.text)
    _stop(parsed.problems, rel)
    document = Document({"skill_name": skill_name, "evals": list(parsed.items)}, parsed.lines)
    canonical = canonicalise(document, skill_dir, rel)
    _stop((replace(p, pointer=None) for p in canonical.problems), rel)
    return [replace(case, pointer=None) for case in canonical.cases], parsed.behaviors, rel


def _task_cases(command: TaskCommand, skill_dir: Path, skill_name: str) -> list[tuple[EvalCase, CaseSource]]:
    """The task command's cases; a bad one stops the run, naming its output line and pointer."""
    output = run_task_command(command, skill_dir, skill_name)
    if output.problems:
        first = sorted(output.problems, key=lambda p: p.line or 0)[0]
        message = _SHOWN_PATH.sub("", first.message) if first.pointer is not None else first.message
        line = f" at output line {first.line}" if first.line else ""
        more = len(output.problems) - 1
        extra = f" (and {more} more problem{'s' if more > 1 else ''})" if more else ""
        raise InputError(
            f"the task command `{command.label}` printed a bad case{line}: {message}{extra}",
            path=command.declared_in or None,
            field=first.pointer or "tasks",
        )
    # The line of a task case is a line of the command's output, not of any file: it is not kept.
    return [(case, CaseSource("tasks", command.label, None, case.pointer)) for case in output.cases]


def _duplicates(entries: list[tuple[EvalCase, CaseSource]]) -> None:
    seen: dict[str, CaseSource] = {}
    for case, source in entries:
        earlier = seen.get(case.id)
        if earlier is not None:
            where = f"{earlier.file}" + (f":{earlier.line}" if earlier.line else "")
            raise InputError(
                f"case id {case.id!r} is used again (first in {where}); every case needs its own id",
                path=source.file,
                line=source.line,
                field=source.pointer,
            )
        seen[case.id] = source


def _merge(
    entries: list[tuple[EvalCase, CaseSource]], eval_md: list[EvalCase], eval_md_file: str
) -> list[tuple[EvalCase, CaseSource]]:
    """The rules of the module docstring: EVAL.md cases replace by id or normalised prompt, in place."""
    by_id = {case.id: case for case in eval_md}
    by_prompt = {normalise(case.prompt): case.id for case in reversed(eval_md)}
    replaced: dict[str, list[str]] = {case.id: [] for case in eval_md}
    order: list[tuple[EvalCase, CaseSource] | str] = []
    for case, source in entries:
        owner = case.id if case.id in by_id else by_prompt.get(normalise(case.prompt))
        if owner is None:
            order.append((case, source))
            continue
        if not replaced[owner]:
            order.append(owner)
        replaced[owner].append(case.id)
    order.extend(case.id for case in eval_md if not replaced[case.id])
    merged: list[tuple[EvalCase, CaseSource]] = []
    for item in order:
        if isinstance(item, str):
            case = by_id[item]
            merged.append((case, CaseSource("eval-md", eval_md_file, case.line, supersedes=tuple(replaced[item]))))
        else:
            merged.append(item)
    return merged


def _refuse_drafts(entries: list[tuple[EvalCase, CaseSource]]) -> None:
    """A scaffolded case still marked ``_fill_in`` would run a draft prompt against an unwritten reference."""
    for case, source in entries:
        if case.draft is not None:
            raise InputError(
                f"case {case.id!r} is still a draft from `aces-ci init`: {case.draft} "
                f"(delete {DRAFT_KEY} once the case is written)",
                path=source.file,
                line=source.line,
                field=f"{source.pointer}/{DRAFT_KEY}" if source.pointer else DRAFT_KEY,
            )


def _with_behaviors(case: EvalCase, source: CaseSource, behaviors: tuple[str, ...]) -> tuple[EvalCase, CaseSource]:
    if case.should_trigger is not True:
        return case, source
    added = tuple(b for b in behaviors if b not in case.assertions)
    if not added:
        return case, source
    return replace(case, assertions=(*case.assertions, *added)), replace(source, behaviors_added=len(added))


def load_dataset(
    skill_dir: Path,
    repo_root: Path,
    *,
    tasks: TaskCommand | None = None,
    grader: GraderSpec | None = None,
    dataset: Path | None = None,
) -> Dataset:
    """Every case of the skill in ``skill_dir``, merged by the rules of the module docstring.

    ``dataset`` names the file to read instead of the skill's own ``evals/`` (``trial --evals``;
    EVAL.md still comes from the skill's ``evals/``). ``tasks`` and ``grader`` come from the caller
    (aces.yml); naming one that evals.json also declares is an error. Raises
    :class:`~aces_ci.errors.InputError` on any problem of any source, on a dataset with no case at
    all, and :class:`~aces_ci.errors.InfraError` when the task command hangs past its timeout.
    """
    skill_dir = skill_dir.resolve()
    repo_root = repo_root.resolve()
    evalset = load_evals(skill_dir, repo_root, dataset)
    dataset_cases, notes = _dataset_cases(evalset)
    skill_name = (evalset.skill_name if evalset else None) or skill_dir.name
    files = [evalset.rel] if evalset else []
    for name, given, declared in (
        ("tasks", tasks, evalset.tasks if evalset else None),
        ("grader", grader, evalset.grader if evalset else None),
    ):
        if given is not None and declared is not None and evalset is not None:
            raise InputError(
                f"{name} is declared both here and in {given.declared_in or 'the configuration'}: keep one",
                path=evalset.rel,
                field=name,
            )
    task_command = tasks or (evalset.tasks if evalset else None)
    rel = evalset.rel if evalset else ""
    entries = [(case, CaseSource("dataset", rel, case.line, case.pointer)) for case in dataset_cases]
    if task_command is not None:
        entries += _task_cases(task_command, skill_dir, skill_name)
    _duplicates(entries)
    eval_md, behaviors, eval_md_file = _eval_md_cases(skill_dir, repo_root, skill_name)
    if eval_md:
        files.append(eval_md_file)
        entries = _merge(entries, eval_md, eval_md_file)
    entries = [_with_behaviors(case, source, behaviors) for case, source in entries]
    _refuse_drafts(entries)
    if not entries:
        where = evalset.rel if evalset else _repo_rel(skill_dir / EVALS_DIR, repo_root)
        read = [*files, eval_md_file] if (skill_dir / EVALS_DIR / EVAL_MD).is_file() else files
        if task_command is not None:
            read.append(f"the task command `{task_command.label}`")
        message = "no evaluation cases: add evals/evals.json (`aces-ci init` scaffolds one)"
        raise NoCases(message, path=where, sources=tuple(read))
    return Dataset(
        skill_name=skill_name,
        cases=tuple(case for case, _ in entries),
        sources={case.id: source for case, source in entries},
        grader=grader or (evalset.grader if evalset else None),
        notes=tuple(notes),
        files=tuple(files),
    )
