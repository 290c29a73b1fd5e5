"""``aces-ci trial --triggers``: the trigger trial of each SKILL_DIR over its ``evals/eval_queries.json``.

The listing the agent sees is the repository's: every skill under the project root, as the chosen
host (``--host``) would list them (:mod:`aces_ci.scan`'s listing, the one DISC001/DISC002 check). A
query dataset with any problem stops the trial before a model call (exit 2, naming file, line and
JSON pointer): a misread dataset must not cost money.

``--min-recall X`` gates each skill's trigger recall with the trial's bands logic on its interval:
pass when the lower bound reaches X, fail when the upper bound stays below it, underpowered when
the interval straddles X (a warning, or a failure with aces.yml ``gate.underpowered: fail``).

``--against REF`` lists each skill under trial as it was at REF (read from git's objects, as the
task trial's ``--against`` reads it; its siblings as they are now), runs the same queries with the
same seed, and reports recall now against then with the interval of the change, paired on the
query: did a description edit help the agent find the skill?

``--json`` (``schemas/trigger-result.schema.json``), ``--markdown`` and ``--junit`` write the
reports of :mod:`aces_ci.report._trigger_report`, secrets redacted.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from datetime import UTC, datetime
from pathlib import Path

from ..atomic import write_output
from ..config import Project
from ..errors import EXIT_GATE_FAILED, EXIT_PASS, InputError
from ..evals import load_trigger_queries
from ..models import create_client
from ..redact import environment_secrets, redact_text
from ..report import change_text, render_trigger_junit, render_trigger_markdown
from ..scan import HOST_PROFILES, HostListing, ListedSkill, build_listing, listed_from_text, listed_skill
from ..skill import SKILL_FILE, iter_skill_dirs
from ..trials import (
    Rate,
    SkillTriggers,
    TriggerQuestion,
    TriggerTrial,
    gate_recall,
    recall_contrast,
    repository_of,
    resolve_commit,
    run_trigger_trial,
    skill_at_ref,
)
from ._run_options import RunOptions

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


def recall_floor(text: str) -> float:
    """``--min-recall``: a share in (0, 1]."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not 0 < value <= 1:
        raise argparse.ArgumentTypeError(f"a recall lies in (0, 1], got {value}")
    return value


def _shown(rate: Rate) -> str:
    if rate.value is None or rate.interval is None:
        return "n=0"
    low, high = rate.interval
    return f"{rate.value:.2f} [{low:.2f}, {high:.2f}] n={rate.n}"


def render_text(trial: TriggerTrial) -> str:
    lines = [f"trigger trial as {trial.host} lists the skills, {trial.runs} run(s) per query"]
    for skill in trial.skills:
        taken = ", ".join(f"{redact_text(taker)} ×{count}" for taker, count in skill.confusion) or "-"
        lines.append(
            f"{redact_text(skill.skill)}: recall {_shown(skill.recall)}; false triggers {_shown(skill.false_trigger)}; "
            f"should-trigger queries taken by: {taken}"
        )
        if skill.contrast is not None:
            lines.append(f"  {redact_text(skill.contrast.ref)}: {change_text(skill.contrast)}")
    usage = trial.usage
    lines.append(f"{usage.model_calls} model calls, {usage.prompt_tokens + usage.completion_tokens:,} tokens")
    return "\n".join(lines) + "\n"


def _rate_json(rate: Rate) -> dict[str, object]:
    return {"value": rate.value, "interval": list(rate.interval) if rate.interval else None, "n": rate.n}


def _contrast_json(skill: SkillTriggers) -> dict[str, object] | None:
    if skill.contrast is None:
        return None
    change = skill.contrast.change
    return {
        "recall_then": _rate_json(skill.contrast.then),
        "change": {
            "delta": change.delta,
            "interval": list(change.ci) if change.ci else None,
            "n": change.n_cases,
            "label": change.label,
            "method": change.method,
        },
    }


def render_json(trial: TriggerTrial) -> str:
    """The result as ``schemas/trigger-result.schema.json`` describes it."""
    contrast = next((skill.contrast for skill in trial.skills if skill.contrast is not None), None)
    document = {
        "host": trial.host,
        "runs": trial.runs,
        "min_recall": trial.min_recall,
        "against": None if contrast is None else {"ref": contrast.ref, "commit": contrast.commit},
        "skills": [
            {
                "skill": skill.skill,
                "recall": _rate_json(skill.recall),
                "false_trigger": _rate_json(skill.false_trigger),
                "confusion": [{"taken_by": taker, "count": count} for taker, count in skill.confusion],
                "verdict": skill.verdict,
                "against": _contrast_json(skill),
            }
            for skill in trial.skills
        ],
        "tokens": trial.usage.prompt_tokens + trial.usage.completion_tokens,
        "model_calls": trial.usage.model_calls,
    }
    return json.dumps(document, indent=2) + "\n"


async def _measure(
    options: RunOptions, listing: HostListing, questions: list[TriggerQuestion], runs: int
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


def _write_reports(args: argparse.Namespace, trial: TriggerTrial) -> None:
    secrets = environment_secrets()
    if args.json:
        write_output(Path(args.json), redact_text(render_json(trial), secrets), "trigger trial's JSON")
    if args.markdown:
        write_output(Path(args.markdown), redact_text(render_trigger_markdown(trial), secrets), "Markdown report")
    if args.junit:
        generated_at = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        junit = render_trigger_junit(trial, generated_at)
        write_output(Path(args.junit), redact_text(junit, secrets), "JUnit report")


def measure_triggers(
    skill_dirs: list[Path],
    project: Project,
    options: RunOptions,
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


def run_triggers(args: argparse.Namespace, project: Project, options: RunOptions, runs: int) -> int:
    """Measure, print (unless ``--quiet``) and write the reports; model failures surface as exit 3."""
    skill_dirs = list(args.skill_dirs)
    trial = measure_triggers(skill_dirs, project, options, runs=runs, host=args.host, against=args.against)
    if args.min_recall is not None:
        trial = gate_recall(trial, args.min_recall, project.config.gate.underpowered_fails)
    if not args.quiet:
        sys.stdout.write(render_text(trial))
    _write_reports(args, trial)
    code = EXIT_PASS
    for skill in trial.skills:
        if skill.verdict is None:
            continue
        shown = redact_text(skill.skill)
        print(f"aces-ci: {shown}: trigger recall {skill.verdict} against {args.min_recall}", file=sys.stderr)
        code = EXIT_GATE_FAILED if trial.failing(skill) else code
    return code
