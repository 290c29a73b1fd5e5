"""``aces-ci rollout``: run a skill's eval cases on a live agent and show what happened.

The smallest live experiment: one case in one arm, or, with ``--arm both --all-cases --runs N``,
a small paired batch. It prints each rollout's status, why it ended, its score, tokens, cost
and whether it came from the cache, plus per-arm success counts. It makes no claim about lift:
estimates with intervals are the ``trial`` verb's job.

The arms are a thin mapping onto the engine's conditions: arm ``with`` is the condition ``with``
(the skill staged), ``without`` the condition ``without`` (it is not, and the baseline guard
proves no copy is), and run *i* is replicate *i*. The score is the ``expected_output`` metric of
:class:`~aces_ci.grading.ExpectedOutputGrader`.

Exit codes: 0 every rollout that ran completed (a budget cap may have left some unrun: the summary
says which); 2 bad input (missing skill, unknown case id, bad flags, a leaked baseline); 3 a
rollout ended as an infrastructure error, or its grading failed, or the circuit breaker stopped the batch
after consecutive infrastructure errors (the summary says so and lists what was not run).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TextIO

from tabulate import tabulate

from ..agents import ModelClients, RolloutRequest, SkillSet, baseline_guard, create_harness, render_skill_dir
from ..atomic import write_output
from ..config import RunConfig, find_project, resolve_run
from ..engine import RolloutBatch, RolloutCache, RolloutEngine, RolloutRecord, auto_progress, paired_schedule
from ..errors import EXIT_PASS, EXIT_RUNTIME_ERROR, InputError
from ..evals import EvalCase, load_evals, load_fixtures
from ..grading import EXPECTED_OUTPUT, ExpectedOutputGrader, MetricGrade
from ..models import ConcurrencyLimiter
from ..redact import environment_secrets, redacted_json
from ..skill import RenderedSkill
from ._run_options import add_run_options, run_flags

SUCCESS_SCORE = 0.5
"""A scored rollout at or above this counts as a success in the per-arm counts (ACES pass threshold)."""
ARMS = ("with", "without")
"""The verb's arms, each the engine condition of the same name, ``with`` launched first in each pair."""


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "rollout",
        help="run eval cases of one skill on a live agent and print what happened",
        description="Run eval cases of the skill in SKILL_DIR with the skill (arm 'with'), without it "
        "('without'), or both, and print each rollout's outcome. --trajectory writes the ATIF trajectory: "
        "one JSON document for one rollout, JSON Lines (one document per rollout) for several.",
    )
    parser.add_argument("skill_dir", type=Path, metavar="SKILL_DIR", help="folder holding SKILL.md and evals/")
    cases = parser.add_mutually_exclusive_group(required=True)
    cases.add_argument("--case", action="append", metavar="ID", help="eval case id (repeat for several)")
    cases.add_argument("--all-cases", action="store_true", help="every case of the skill's dataset")
    parser.add_argument("--arm", choices=("with", "without", "both"), default="with", help="default: with")
    parser.add_argument("--trajectory", metavar="FILE", help="write the ATIF trajectory to FILE, or '-' for stdout")
    add_run_options(parser)
    parser.set_defaults(run=run)


def _cases(args: argparse.Namespace, skill_dir: Path, repo_root: Path) -> list[EvalCase]:
    evals = load_evals(skill_dir, repo_root)
    if evals is None:
        raise InputError("the skill has no evaluation dataset (evals/evals.json)", path=str(skill_dir / "evals"))
    if not evals.parsed or not evals.cases:
        first = evals.problems[0] if evals.problems else None
        detail = f": {first.message}" if first else ""
        raise InputError(f"no usable eval cases{detail}", path=evals.rel, line=first.line if first else None)
    if args.all_cases:
        return list(evals.cases)
    by_id = {case.id: case for case in evals.cases}
    unknown = [case_id for case_id in args.case if case_id not in by_id]
    if unknown:
        known = ", ".join(sorted(by_id)[:20])
        raise InputError(f"no case with id {', '.join(map(repr, unknown))}; cases: {known}", path=evals.rel)
    return [by_id[case_id] for case_id in dict.fromkeys(args.case)]


def build_requests(
    target: RenderedSkill,
    cases: Sequence[EvalCase],
    fixtures: dict[str, dict[str, bytes]],
    arms: Sequence[str],
    options: RunConfig,
) -> list[RolloutRequest]:
    """Case × run × arm, the arms of each (case, run) adjacent; ``without`` stages no skill."""
    skill_sets = {
        "with": SkillSet(skills=(target,), target=target.name),
        "without": SkillSet(skills=(), target=target.name),
    }
    return [
        RolloutRequest(
            case=case,
            skills=skill_sets[arm],
            condition=arm,
            harness=options.harness,
            model=options.model,
            seed=options.seed,
            replicate=run_index,
            fixtures=fixtures[case.id],
        )
        for case in cases
        for run_index in range(options.runs)
        for arm in arms
    ]


async def _execute(requests: list[RolloutRequest], target: RenderedSkill, options: RunConfig) -> RolloutBatch:
    # Model calls in flight never exceed rollouts in flight: the endpoint cap follows --concurrency.
    clients = ModelClients(prices=options.prices, seed=options.seed, limiter=ConcurrencyLimiter(options.concurrency))
    try:
        if options.harness.name == "builtin":
            clients.get(options.model)  # a missing key or an unknown provider is a config error: say so now
        engine = RolloutEngine(
            create_harness(options.harness, clients=clients),
            concurrency=options.concurrency,
            cache=RolloutCache(options.cache_dir) if options.cache_dir is not None else None,
            journal=options.journal,
            budget=options.budget,
            progress=auto_progress(sys.stderr),
            schedule=paired_schedule(ARMS),
            guard=baseline_guard([target]),
            keep_workspaces=options.keep_workspaces,
        )
        async with engine:
            return await engine.run(requests, grader=ExpectedOutputGrader())
    finally:
        await clients.aclose()


def _write_trajectories(destination: str, records: Sequence[RolloutRecord]) -> None:
    secrets = environment_secrets()
    if len(records) == 1:
        text = redacted_json(records[0].result.trajectory, secrets, indent=2, ensure_ascii=False) + "\n"
    else:
        text = "".join(redacted_json(r.result.trajectory, secrets, ensure_ascii=False) + "\n" for r in records)
    if destination == "-":
        sys.stdout.write(text)
        sys.stdout.flush()
        return
    write_output(Path(destination), text, "trajectory")


def _grade(record: RolloutRecord) -> MetricGrade | None:
    return record.grades.get(EXPECTED_OUTPUT) if record.grades is not None else None


def _score_text(grade: MetricGrade | None) -> str:
    if grade is None or grade.status in ("not_applicable", "could_not_grade"):
        return "-"
    return "error" if grade.value is None else f"{grade.value:.2f}"


def _where(request: RolloutRequest) -> str:
    return f"case={request.case.id} arm={request.condition} run={request.replicate}"


def _summary(batch: RolloutBatch, arms: Sequence[str], options: RunConfig, out: TextIO) -> None:
    model = options.model
    count = len(batch.records) + len(batch.not_run)
    out.write(
        f"{count} rollout{'' if count == 1 else 's'} · provider {model.provider} · model {model.model} · "
        f"harness {options.harness.name} · disclosure {options.harness.disclosure}\n"
    )
    rows: list[list[Any]] = []
    for record in batch.records:
        result = record.result
        tokens = result.usage.prompt_tokens + result.usage.completion_tokens
        rows.append(
            [
                record.request.case.id,
                record.request.replicate,
                record.request.condition,
                result.status,
                result.end_reason,
                _score_text(_grade(record)),
                f"{tokens:,}",
                f"${result.usage.cost_usd:.4f}",
                {"cache": "hit", "journal": "resumed", "session": "reused", "run": "miss"}[record.source],
            ]
        )
    headers = ["case", "run", "arm", "status", "ended by", "score", "tokens", "cost", "cache"]
    out.write(tabulate(rows, headers=headers, tablefmt="simple", disable_numparse=True) + "\n")
    for record in batch.infra_errors:
        out.write(f"infra error: {_where(record.request)}: {record.result.error}\n")
    for record in batch.grader_errors:
        reasons = "; ".join(f"{g.metric}: {g.reason}" for g in record.grades.errors) if record.grades else ""
        out.write(f"grading failed (the rollout is kept): {_where(record.request)}: {reasons}\n")
    for record in batch.records:
        if record.workspace is not None:
            out.write(f"workspace kept: {_where(record.request)}: {record.workspace}\n")
    for arm in arms:
        records = batch.for_condition(arm)
        scored = [r for r in records if r.value(EXPECTED_OUTPUT) is not None]
        successes = sum(1 for r in scored if (r.value(EXPECTED_OUTPUT) or 0.0) >= SUCCESS_SCORE)
        infra = sum(1 for r in records if r.result.status == "infra_error")
        unscored = len(records) - len(scored) - infra
        not_run = sum(1 for n in batch.not_run if n.request.condition == arm)
        out.write(
            f"arm {arm}: {successes}/{len(scored)} scored rollouts succeeded (score ≥ {SUCCESS_SCORE:g}); "
            f"{infra} infra errors, {unscored} without a score, {not_run} not run\n"
        )
    if batch.not_run:
        listed = ", ".join(_where(n.request) for n in batch.not_run)
        stop = batch.breaker if batch.breaker is not None else f"budget stop ({batch.stopped_by} reached)"
        out.write(f"{stop}: {len(batch.records)} of {count} rollouts finished; not run: {listed}\n")
    spent = batch.usage
    out.write(
        f"spent now: {spent.prompt_tokens + spent.completion_tokens:,} tokens, ${spent.cost_usd:.4f} "
        f"over {spent.model_calls} model calls\n"
    )


def run(args: argparse.Namespace) -> int:
    skill_dir = args.skill_dir.resolve()
    target = render_skill_dir(skill_dir)
    project = find_project(skill_dir, args.config)
    repo_root = project.root
    options = resolve_run(project.config, run_flags(args, args.cache_dir, args.no_cache))
    cases = _cases(args, skill_dir, repo_root)
    fixtures = {case.id: load_fixtures(skill_dir, case) for case in cases}
    arms = ARMS if args.arm == "both" else (args.arm,)
    requests = build_requests(target, cases, fixtures, arms, options)
    batch = asyncio.run(_execute(requests, target, options))
    # The summary first: a trajectory file that cannot be written must not hide what the rollouts cost and did.
    _summary(batch, arms, options, sys.stderr if args.trajectory == "-" else sys.stdout)
    if args.trajectory is not None:
        _write_trajectories(args.trajectory, batch.records)
    # A budget stop is not an outage: what ran is reported; a failure of what ran, or the breaker, is exit 3.
    failed = batch.infra_errors or batch.grader_errors or batch.stopped_by == "circuit_breaker"
    return EXIT_RUNTIME_ERROR if failed else EXIT_PASS
