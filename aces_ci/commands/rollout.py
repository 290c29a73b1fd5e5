"""``aces-ci rollout``: run a skill's eval cases on a live agent and show what happened.

The smallest live experiment: one case in one arm, or, with ``--arm both --all-cases --runs N``,
a small paired batch. It prints each rollout's status, why it ended, its score, tokens, cost
and whether it came from the cache, plus per-arm success counts. It makes no claim about lift:
estimates with intervals are the ``trial`` verb's job.

The batch is :func:`aces_ci.app.rollout`'s (the arms are the engine's conditions of the same name);
:func:`aces_ci.report.render_rollout_text` prints it.

Exit codes: 0 every rollout that ran completed (a budget cap may have left some unrun: the summary
says which); 2 bad input (missing skill, unknown case id, bad flags, a leaked baseline); 3 a
rollout ended as an infrastructure error, or its grading failed, or the circuit breaker stopped the batch
after consecutive infrastructure errors (the summary says so and lists what was not run).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .. import app
from ..atomic import write_output
from ..config import find_project, resolve_run
from ..errors import EXIT_PASS, EXIT_RUNTIME_ERROR
from ..report import render_rollout_text, trajectory_text
from ._run_options import add_run_options, run_flags


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


def _write_trajectories(destination: str, text: str) -> None:
    if destination == "-":
        sys.stdout.write(text)
        sys.stdout.flush()
        return
    write_output(Path(destination), text, "trajectory")


def run(args: argparse.Namespace) -> int:
    skill_dir = args.skill_dir.resolve()
    project = find_project(skill_dir, args.config)
    options = resolve_run(project.config, run_flags(args, args.cache_dir, args.no_cache))
    arms = app.ARMS if args.arm == "both" else (args.arm,)
    batch = app.rollout(skill_dir, project, options, case_ids=None if args.all_cases else args.case, arms=arms)
    # The summary first: a trajectory file that cannot be written must not hide what the rollouts cost and did.
    render_rollout_text(batch, arms, options, sys.stderr if args.trajectory == "-" else sys.stdout)
    if args.trajectory is not None:
        _write_trajectories(args.trajectory, trajectory_text(batch.records))
    # A budget stop is not an outage: what ran is reported; a failure of what ran, or the breaker, is exit 3.
    failed = batch.infra_errors or batch.grader_errors or batch.stopped_by == "circuit_breaker"
    return EXIT_RUNTIME_ERROR if failed else EXIT_PASS
