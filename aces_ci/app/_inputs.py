"""What a trial reads before it runs anything: the skills, their cases, decoys and the ``--against`` version.

Every problem here is the user's to fix and stops the trial before a rollout is paid for
(:class:`~aces_ci.errors.InputError`, exit 2): a folder that is not a skill, two skills with one
name, a dataset with a problem (evals.json, EVAL.md, the task command's output or the grader
declaration, named by file, line and JSON pointer: :func:`aces_ci.evals.load_dataset`), an
``--evals`` file that is not there, a ref git does not know, a skill that did not exist at that
ref, a decoy that cannot be staged when it was asked for by path. Decoys found by listing the
repository are different: a flawed one is left out with a note, since nobody asked for it by name.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..agents import render_skill_dir
from ..config import EvalSettings, Project
from ..errors import InputError
from ..evals import Dataset, load_dataset, load_fixtures
from ..skill import RenderedSkill, iter_skill_dirs
from ..trials import SkillUnderTrial, TrialDesign, plan_skill, skill_at_ref, working_commit


@dataclass(frozen=True)
class SkillSources:
    """Where the other skills of a trial come from (the resolved :class:`~aces_ci.config.TrialConfig`'s), and the
    datasets already read."""

    decoys: tuple[Path, ...] | None
    """Decoy skill directories; None: the repository's other skills."""
    supporting: tuple[Path, ...]
    evals: Path | None
    read: Mapping[Path, Dataset] = field(default_factory=dict)
    """Datasets the caller already read with :func:`load_cases` (by resolved skill directory), so they are not
    read again: ``aces-ci ci`` reads them to choose the skills it can trial, and a task command runs once."""


def relative(path: Path, root: Path) -> str:
    """``path`` as the result names it: relative to the repository root (``.`` for the root itself, as the scan
    names it; the reports head such a skill by its name), or absolute outside the repository."""
    try:
        rel = path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return path.resolve().as_posix()
    return rel or "."


def load_cases(skill_dir: Path, repo_root: Path, evals: Path | None, owned: EvalSettings | None = None) -> Dataset:
    """The skill's dataset (evals.json, EVAL.md, the task command; its BYOG grader); any problem stops the trial."""
    if evals is not None and not evals.is_file():
        raise InputError("no such evals file", path=str(evals), field="--evals")
    owned = owned or EvalSettings()
    return load_dataset(skill_dir, repo_root, tasks=owned.tasks, grader=owned.grader, dataset=evals)


def _eval_source(dataset: Dataset) -> str:
    """The files (and task command) the cases came from, as the report names them."""
    kinds = {source.kind: source.file for source in dataset.sources.values()}
    parts = list(dataset.files)
    if "tasks" in kinds:
        parts.append(f"the task command `{kinds['tasks']}`")
    return " + ".join(parts) or "the task command"


def _rendered(paths: Sequence[Path], what: str) -> tuple[RenderedSkill, ...]:
    skills = []
    for path in paths:
        try:
            skills.append(render_skill_dir(path))
        except InputError as exc:
            raise InputError(f"{what} {path} cannot be staged: {exc}", path=str(path)) from None
    return tuple(skills)


def repository_decoys(
    project: Project, skill_dirs: Sequence[Path], exclude: Sequence[Path]
) -> tuple[tuple[RenderedSkill, ...], tuple[str, ...]]:
    """Every other skill of the repository that can be staged, and a note for each one that cannot.

    Outside a repository (no git work tree, no aces.yml) the project is the skill folder itself;
    its neighbours, the skills in the folder that holds it, are then its decoys.
    """
    excluded = {path.resolve() for path in exclude}
    root = project.root
    if any(root.resolve() == d.resolve() for d in skill_dirs):
        root = root.resolve().parent
    decoys, notes = [], []
    for directory in iter_skill_dirs(root, project.config.scan.exclude):
        if directory.resolve() in excluded:
            continue
        try:
            decoys.append(render_skill_dir(directory))
        except InputError as exc:
            notes.append(f"decoy {relative(directory, root)} left out: it cannot be staged ({exc})")
    return tuple(decoys), tuple(notes)


def skills_under_trial(
    skill_dirs: Sequence[Path], project: Project, design: TrialDesign, sources: SkillSources
) -> list[SkillUnderTrial]:
    """Every skill of the command, planned under ``design``; InputError on the first problem."""
    if sources.evals is not None and len(skill_dirs) > 1:
        raise InputError("--evals names one dataset, so it takes exactly one SKILL_DIR", field="--evals")
    rendered = [(path, render_skill_dir(path)) for path in skill_dirs]
    names: dict[str, Path] = {}
    for path, skill in rendered:
        if skill.name in names:
            raise InputError(f"{path} and {names[skill.name]} are both skill {skill.name!r}", path=str(path))
        names[skill.name] = path
    supporting = _rendered(sources.supporting, "supporting skill")
    wants_decoys = design.mode == "group" or bool(design.stress)
    decoys: tuple[RenderedSkill, ...] = ()
    decoy_notes: tuple[str, ...] = ()
    if wants_decoys:
        if sources.decoys is None:
            decoys, decoy_notes = repository_decoys(project, skill_dirs, sources.supporting)
        else:
            decoys = _rendered(sources.decoys, "decoy")
    out = []
    for path, skill in rendered:
        dataset = sources.read.get(path.resolve())
        if dataset is None:
            dataset = load_cases(path, project.root, sources.evals, project.config.evals)
        cases = dataset.cases
        fixtures = {case.id: load_fixtures(path, case) for case in cases}
        base, against, against_commit = None, None, None
        if design.against is not None:
            at_ref = skill_at_ref(path, design.against, skill.name)
            base, against, against_commit = at_ref.skill, f"{at_ref.ref} ({at_ref.commit[:12]})", at_ref.commit
        plan = plan_skill(skill, design, supporting=supporting, decoys=decoys, base=base)
        out.append(
            SkillUnderTrial(
                plan=plan,
                cases=tuple(cases),
                fixtures=fixtures,
                path=relative(path, project.root),
                eval_source=_eval_source(dataset),
                against=against,
                notes=(*dataset.notes, *decoy_notes),
                grader=dataset.grader,
                against_commit=against_commit,
                commit=working_commit(path),
            )
        )
    return out
