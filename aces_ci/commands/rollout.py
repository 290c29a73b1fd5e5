"""``aces-ci rollout``: run a skill's eval cases on a live agent and show what happened.

The smallest live experiment: one case in one arm, or, with ``--arm both --all-cases --runs N``,
a small paired batch. It prints each rollout's status, why it ended, its score, tokens, cost
and whether it came from the cache, plus per-arm success counts. It makes no claim about lift:
estimates with intervals are the ``trial`` verb's job.

Exit codes: 0 every rollout completed; 2 bad input (missing skill, unknown case id, bad flags,
a leaked baseline); 3 any rollout ended as an infrastructure error or was left out by a budget cap.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TextIO

from tabulate import tabulate

from ..agents import Arm, ModelClients, RolloutRequest, SkillSet, create_harness, render_skill_dir
from ..atomic import write_output
from ..config import find_project
from ..engine import RolloutBatch, RolloutCache, RolloutRecord, auto_progress, run_rollouts
from ..errors import EXIT_PASS, EXIT_RUNTIME_ERROR, InputError
from ..evals import EvalCase, load_evals, load_fixtures
from ..grading import ExpectedOutputScorer
from ..models import ConcurrencyLimiter
from ..redact import environment_secrets, redacted_json
from ..skill import RenderedSkill
from ._run_options import RunOptions, add_run_options, resolve_run_options

SUCCESS_SCORE = 0.5
"""A scored rollout at or above this counts as a success in the per-arm counts (ACES pass threshold)."""


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
    arms: Sequence[Arm],
    options: RunOptions,
) -> list[RolloutRequest]:
    """Case × run × arm, the arms of each (case, run) adjacent; the baseline arm stages no skill."""
    skill_sets: dict[Arm, SkillSet] = {
        "with": SkillSet(skills=(target,), target=target.name),
        "without": SkillSet(skills=(), target=None),
    }
    return [
        RolloutRequest(
            case=case,
            skills=skill_sets[arm],
            arm=arm,
            harness=options.harness,
            model=options.model,
            seed=options.seed,
            run_index=run_index,
            fixtures=fixtures[case.id],
        )
        for case in cases
        for run_index in range(options.runs)
        for arm in arms
    ]


async def _execute(requests: list[RolloutRequest], target: RenderedSkill, options: RunOptions) -> RolloutBatch:
    # Model calls in flight never exceed rollouts in flight: the endpoint cap follows --concurrency.
    clients = ModelClients(prices=options.prices, seed=options.seed, limiter=ConcurrencyLimiter(options.concurrency))
    try:
        if options.harness.name == "builtin":
            clients.get(options.model)  # a missing key or an unknown provider is a config error: say so now
        harness = create_harness(options.harness, clients=clients)
        return await run_rollouts(
            requests,
            harness,
            scorer=ExpectedOutputScorer(),
            concurrency=options.concurrency,
            cache=RolloutCache(options.cache_dir) if options.cache_dir is not None else None,
            journal=options.journal,
            budget=options.budget,
            progress=auto_progress(sys.stderr),
            baseline_of=lambda _request: target,
            keep_workspaces=options.keep_workspaces,
        )
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


def _score_text(score: float | None) -> str:
    return "-" if score is None else f"{score:.2f}"


def _summary(batch: RolloutBatch, arms: Sequence[Arm], options: RunOptions, out: TextIO) -> None:
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
                record.request.run_index,
                record.request.arm,
                result.status,
                result.end_reason,
                _score_text(result.score),
                f"{tokens:,}",
                f"${result.usage.cost_usd:.4f}",
                {"cache": "hit", "journal": "resumed", "run": "miss"}[record.source],
            ]
        )
    headers = ["case", "run", "arm", "status", "ended by", "score", "tokens", "cost", "cache"]
    out.write(tabulate(rows, headers=headers, tablefmt="simple", disable_numparse=True) + "\n")
    for record in batch.infra_errors:
        out.write(
            f"infra error: case={record.request.case.id} arm={record.request.arm} "
            f"run={record.request.run_index}: {record.result.error}\n"
        )
    for record in batch.records:
        if record.workspace is not None:
            out.write(
                f"workspace kept: case={record.request.case.id} arm={record.request.arm} "
                f"run={record.request.run_index}: {record.workspace}\n"
            )
    for arm in arms:
        records = batch.for_arm(arm)
        scored = [r for r in records if r.result.score is not None]
        successes = sum(1 for r in scored if r.result.score is not None and r.result.score >= SUCCESS_SCORE)
        infra = sum(1 for r in records if r.result.status == "infra_error")
        unscored = len(records) - len(scored) - infra
        not_run = sum(1 for n in batch.not_run if n.request.arm == arm)
        out.write(
            f"arm {arm}: {successes}/{len(scored)} scored rollouts succeeded (score ≥ {SUCCESS_SCORE:g}); "
            f"{infra} infra errors, {unscored} without a score, {not_run} not run\n"
        )
    if batch.not_run:
        listed = ", ".join(
            f"case={n.request.case.id} arm={n.request.arm} run={n.request.run_index}" for n in batch.not_run
        )
        out.write(f"not run ({batch.stopped_by} reached): {listed}\n")
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
    options = resolve_run_options(args, project.config)
    cases = _cases(args, skill_dir, repo_root)
    fixtures = {case.id: load_fixtures(skill_dir, case) for case in cases}
    arms: tuple[Arm, ...] = ("with", "without") if args.arm == "both" else (args.arm,)
    requests = build_requests(target, cases, fixtures, arms, options)
    batch = asyncio.run(_execute(requests, target, options))
    # The summary first: a trajectory file that cannot be written must not hide what the rollouts cost and did.
    _summary(batch, arms, options, sys.stderr if args.trajectory == "-" else sys.stdout)
    if args.trajectory is not None:
        _write_trajectories(args.trajectory, batch.records)
    return EXIT_PASS if batch.all_completed else EXIT_RUNTIME_ERROR
