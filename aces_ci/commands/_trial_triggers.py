"""``aces-ci trial --triggers``: the trigger trial of each SKILL_DIR over its ``evals/eval_queries.json``.

The listing the agent sees is the repository's: every skill under the project root, as the chosen
host (``--host``) would list them (:mod:`aces_ci.scan`'s listing, the one DISC001/DISC002 check). A
query dataset with any problem stops the trial before a model call (exit 2, naming file, line and
JSON pointer): a misread dataset must not cost money.

``--min-recall X`` gates each skill's trigger recall with the trial's bands logic on its interval:
pass when the lower bound reaches X, fail when the upper bound stays below it, underpowered when
the interval straddles X (a warning, or a failure with aces.yml ``gate.underpowered: fail``).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path

from ..atomic import write_output
from ..config import Project
from ..errors import EXIT_GATE_FAILED, EXIT_PASS, InputError
from ..evals import load_trigger_queries
from ..models import create_client
from ..redact import redact_text
from ..scan import HOST_PROFILES, HostListing, build_listing, listed_skill
from ..skill import iter_skill_dirs
from ..trials import Rate, TriggerQuestion, TriggerTrial, run_trigger_trial
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


def recall_verdict(rate: Rate, floor: float) -> str:
    """``pass``, ``fail`` or ``underpowered`` for a recall interval against ``floor``; ``unmeasured`` with n = 0."""
    if rate.interval is None:
        return "unmeasured"
    low, high = rate.interval
    if low >= floor:
        return "pass"
    if high < floor:
        return "fail"
    return "underpowered"


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
    usage = trial.usage
    lines.append(f"{usage.model_calls} model calls, {usage.prompt_tokens + usage.completion_tokens:,} tokens")
    return "\n".join(lines) + "\n"


def _rate_json(rate: Rate) -> dict[str, object]:
    return {"value": rate.value, "interval": list(rate.interval) if rate.interval else None, "n": rate.n}


def render_json(trial: TriggerTrial) -> str:
    document = {
        "host": trial.host,
        "runs": trial.runs,
        "skills": [
            {
                "skill": skill.skill,
                "recall": _rate_json(skill.recall),
                "false_trigger": _rate_json(skill.false_trigger),
                "confusion": [{"taken_by": taker, "count": count} for taker, count in skill.confusion],
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


def run_triggers(args: argparse.Namespace, project: Project, options: RunOptions, runs: int) -> int:
    """Measure, print (unless ``--quiet``) and write ``--json``; model failures surface as exit 3."""
    root = project.root.resolve()
    questions = _questions(list(args.skill_dirs), root)
    exclude = project.config.scan.exclude
    listed = [found for d in iter_skill_dirs(root, exclude) if (found := listed_skill(d, root, _rel(d, root)))]
    listing = build_listing(HOSTS[args.host], listed)
    trial = asyncio.run(_measure(options, listing, questions, runs))
    if not args.quiet:
        sys.stdout.write(render_text(trial))
    if args.json:
        write_output(Path(args.json), render_json(trial), "trigger trial's JSON")
    if args.min_recall is None:
        return EXIT_PASS
    failing = ("fail", "underpowered") if project.config.gate.underpowered == "fail" else ("fail",)
    code = EXIT_PASS
    for skill in trial.skills:
        verdict = recall_verdict(skill.recall, args.min_recall)
        shown = redact_text(skill.skill)
        print(f"aces-ci: {shown}: trigger recall {verdict} against {args.min_recall}", file=sys.stderr)
        code = EXIT_GATE_FAILED if verdict in failing else code
    return code
