"""The trigger trial of each skill over its ``evals/eval_queries.json`` (``aces-ci trial --triggers``, and ``ci``).

The listing the agent sees is the repository's: every skill under the project root, as the chosen
host would list them (:mod:`aces_ci.scan`'s listing, the one DISC001/DISC002 check). A query
dataset with any problem stops the trial before a model call (exit 2, naming file, line and JSON
pointer): a misread dataset must not cost money.

A minimum recall gates each skill's trigger recall with the trial's bands logic on its interval:
pass when the lower bound reaches it, fail when the upper bound stays below it, underpowered when
the interval straddles it (a warning, or a failure with aces.yml ``gate.underpowered: fail``).

``against`` lists each skill under trial as it was at that ref (read from git's objects, as the
task trial's ``--against`` reads it; its siblings as they are now), runs the same queries with the
same seed, and reports recall now against then with the interval of the change, paired on the
query: did a description edit help the agent find the skill?
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from ..config import Project, RunConfig, TriggerOptions
from ..errors import InputError
from ..evals import load_trigger_queries
from ..models import create_client
from ..scan import HOST_PROFILES, HostListing, ListedSkill, build_listing, listed_from_text, listed_skill
from ..skill import SKILL_FILE, iter_skill_dirs
from ..trials import (
    TriggerQuestion,
    TriggerTrial,
    gate_recall,
    recall_contrast,
    repository_of,
    resolve_commit,
    run_trigger_trial,
    skill_at_ref,
)

HOSTS = {profile.name.lower().replace(" ", "-"): profile for profile in HOST_PROFILES}


def _rel(path: Path, root: Path) -> str:
    rel = path.resolve().relative_to(root).as_posix()
    return rel or "."


def _questions(skill_dirs: list[Path], root: Path) -> list[TriggerQuestion]:
    questions: list[TriggerQuestion] = []
    for skill_dir in skill_dirs:
        rel = _rel(skill_dir, root)
        found = load_trigger_queries(skill_dir.resolve(), root)
        if found is None:
            raise InputError("no evals/eval_queries.json: a trigger trial reads its queries there", path=rel)
        if found.problems:
            first = found.problems[0]
            raise InputError(first.message, path=found.rel, line=first.line)
        questions.extend(TriggerQuestion(rel, query) for query in found.queries)
    return questions


async def _measure(
    options: RunConfig, listing: HostListing, questions: list[TriggerQuestion], runs: int
) -> TriggerTrial:
    client = create_client(options.model, prices=options.prices, seed=options.seed)
    try:
        return await run_trigger_trial(client, listing, questions, runs, options.concurrency)
    finally:
        await client.aclose()


def _listing_at(
    ref: str, commit: str, skill_dirs: list[Path], root: Path, listed: list[ListedSkill]
) -> list[ListedSkill]:
    """``listed`` with each skill under trial as it was at ``ref``: its SKILL.md read from git's objects."""
    under_trial = {_rel(skill_dir, root): skill_dir for skill_dir in skill_dirs}
    then: list[ListedSkill] = []
    for skill in listed:
        skill_dir = under_trial.get(skill.rel_dir)
        if skill_dir is None:
            then.append(skill)
            continue
        at_ref = skill_at_ref(skill_dir, commit, skill.name)
        text = at_ref.skill.files[SKILL_FILE].decode("utf-8", errors="replace")
        then.append(listed_from_text(text, skill.rel_dir, skill.skill_md, skill.name))
    return then


def measure_triggers(
    skill_dirs: list[Path],
    project: Project,
    options: RunConfig,
    *,
    runs: int,
    host: str = "claude-code",
    against: str | None = None,
) -> TriggerTrial:
    """The trigger trial of ``skill_dirs`` (with the contrast at ``against``): the verb without its printing.

    What ``aces-ci ci`` calls too. Every input problem (a query file, the ref) is an InputError
    raised before the first model call.
    """
    root = project.root.resolve()
    questions = _questions(skill_dirs, root)
    exclude = project.config.scan.exclude
    listed = [found for d in iter_skill_dirs(root, exclude) if (found := listed_skill(d, root, _rel(d, root)))]
    listed_dirs = {skill.rel_dir for skill in listed}
    missing = [rel for rel in (_rel(d, root) for d in skill_dirs) if rel not in listed_dirs]
    if missing:
        raise InputError(
            "not in the listing the agent would see: excluded by aces.yml scan.exclude, or its SKILL.md is unreadable",
            path=missing[0],
        )
    then_listed = commit = None
    if against is not None:
        commit = resolve_commit(repository_of(root), against)
        then_listed = _listing_at(against, commit, skill_dirs, root, listed)
    trial = asyncio.run(_measure(options, build_listing(HOSTS[host], listed), questions, runs))
    if then_listed is not None and against is not None and commit is not None:
        then = asyncio.run(_measure(options, build_listing(HOSTS[host], then_listed), questions, runs))
        trial = recall_contrast(trial, then, against, commit)
    return trial


def gated_triggers(trial: TriggerTrial, options: TriggerOptions) -> TriggerTrial:
    """``trial`` with each skill's recall gated against ``options.min_recall`` (unchanged without one)."""
    if options.min_recall is None:
        return trial
    return gate_recall(trial, options.min_recall, options.underpowered_fails)
