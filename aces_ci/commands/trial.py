"""``aces-ci trial``: paired trials of one or more skills on a live agent, with a verdict read off each interval.

``aces-ci trial SKILL_DIR… [--evals PATH] [--against REF] [--runs N] [--seed S] [--mode isolation|group]
[--control aa] [--metadata-only] [--sequential] [--plan]`` plus the run flags of ``rollout`` and
``--json --markdown --junit``. Each skill's cases run with it and without it (or against its
version at REF), ``--runs`` times per case and condition; the lift of every metric comes with
its case-clustered interval, n, runs, coupling and smallest detectable effect, and the verdict
reads the gated metric's interval against the bands of aces.yml ``gate:``.

Exit codes:

* 0 — every skill ``pass`` or ``neutral``; ``underpowered`` is 0 too, with a warning on stderr,
  because "this design could not tell" is not evidence of harm (aces.yml ``gate.underpowered:
  fail`` makes it 1). ``--plan`` is 0 once it printed a plan.
* 1 — a skill fails: its interval lies at or below the fail band.
* 2 — bad input or configuration, before anything is paid for (a missing skill or dataset, a bad
  ref, a skill absent at the ref, a leaked baseline, a bad flag); ``--plan`` with no pilot.
* 3 — no skill fails, but some rollouts ended as infrastructure errors or their grading failed:
  the verdicts use the rest, and a rerun retries exactly those (completed rollouts come from the
  cache). A budget stop is not an error: the report says what ran and what did not. The circuit breaker
  (consecutive infrastructure errors, :mod:`aces_ci.engine._breaker`) is one: exit 3, the rest not run.

An identical rerun with the same cache makes zero model calls.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import math
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Literal, cast

from ..agents import ModelClients
from ..atomic import write_output
from ..config import AcesConfig, Project, find_project
from ..errors import EXIT_GATE_FAILED, EXIT_PASS, EXIT_RUNTIME_ERROR, InputError
from ..models import ConcurrencyLimiter, ModelSpec
from ..redact import environment_secrets, redact_text
from ..report import render_trial_junit, render_trial_markdown, render_trial_text, write_trial_json
from ..stats import Bands, BudgetCap, Coupling
from ..trials import (
    DEFAULT_RUNS,
    TRIAL_METRICS,
    Mode,
    RunSetup,
    SkillUnderTrial,
    TrialDesign,
    TrialResult,
    TrialRunner,
    trial_grader,
)
from ._run_options import RunOptions, add_run_options, resolve_run_options
from ._trial_engine import open_engine
from ._trial_inputs import SkillSources, skills_under_trial
from ._trial_judge import add_judge_options, configured_judge, judge_priced, open_judge
from ._trial_plan import run_plan
from ._trial_triggers import HOSTS, recall_floor, run_triggers


def _band(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not -1 <= value <= 1:
        raise argparse.ArgumentTypeError(f"a lift band lies in [-1, 1], got {value}")
    return value


def _positive(parse: Callable[[str], float]) -> Callable[[str], Any]:
    """An argparse type: a finite number above 0."""

    def convert(text: str) -> Any:
        try:
            value = parse(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
        if not math.isfinite(value) or value <= 0:
            raise argparse.ArgumentTypeError(f"must be above 0, got {text}")
        return value

    return convert


def _stress(text: str) -> tuple[int, ...]:
    try:
        levels = tuple(int(part) for part in text.split(",") if part.strip())
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"--stress takes numbers separated by commas, e.g. 1,5,20; got {text!r}"
        ) from None
    if not levels:
        raise argparse.ArgumentTypeError("--stress needs at least one number of visible decoys")
    return levels


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "trial",
        help="measure each skill's lift on a live agent: with it against without it (or an earlier version)",
        description="Run each skill's eval cases with and without the skill (or against its version at a git "
        "ref), several runs per case, and report every metric's lift with its interval; the verdict reads the "
        "interval against the gate's bands (aces.yml gate:).",
    )
    parser.add_argument("skill_dirs", nargs="+", type=Path, metavar="SKILL_DIR", help="folder holding SKILL.md")
    protocol = parser.add_argument_group("protocol (override aces.yml trial:)")
    protocol.add_argument("--evals", type=Path, metavar="PATH", help="dataset to use instead of SKILL_DIR/evals/")
    protocol.add_argument(
        "--against", metavar="REF", help="control: the skill as it was at git ref REF (--triggers: its description)"
    )
    protocol.add_argument("--mode", choices=("isolation", "group"), help="group: decoys in every condition")
    protocol.add_argument("--coupling", choices=("independent", "shared-seed"), help="how conditions share seeds")
    protocol.add_argument(
        "--decoys", nargs="*", type=Path, metavar="PATH", help="decoy skills (none given: the repository's others)"
    )
    protocol.add_argument("--support", nargs="+", type=Path, metavar="PATH", help="skills staged in every condition")
    protocol.add_argument("--control", choices=("aa",), help="aa: add an A/A control (the noise floor)")
    protocol.add_argument("--metadata-only", action="store_true", help="split the lift into presence and content")
    protocol.add_argument("--stress", type=_stress, metavar="N,N,…", help="routing stress test at N visible decoys")
    protocol.add_argument("--sequential", action="store_true", help="add runs until the verdict is settled")
    protocol.add_argument(
        "--cap-tokens", type=_positive(int), metavar="N", help="ex-ante cap per rollout (tokens in + out), both arms"
    )
    protocol.add_argument("--cap-usd", type=_positive(float), metavar="X", help="ex-ante cap per rollout in dollars")
    protocol.add_argument("--plan", action="store_true", help="from cached runs, size a design; run nothing")
    protocol.add_argument(
        "--triggers",
        action="store_true",
        help="trigger trial: each query of evals/eval_queries.json runs to the agent's first decision only",
    )
    protocol.add_argument(
        "--host", choices=tuple(HOSTS), default="claude-code", help="--triggers: list the skills as this host does"
    )
    protocol.add_argument(
        "--min-recall", type=recall_floor, metavar="X", help="--triggers: fail a skill whose recall stays below X"
    )
    protocol.add_argument("--target-lift", type=_band, metavar="X", help="the lift --plan sizes a design for")
    gate = parser.add_argument_group("gate (override aces.yml gate:)")
    gate.add_argument("--lift-metric", choices=TRIAL_METRICS, help="metric the verdict reads (default: outcome)")
    gate.add_argument("--pass-band", type=_band, metavar="X", help="pass when the lift's lower bound >= X (+0.05)")
    gate.add_argument("--fail-band", type=_band, metavar="X", help="fail when the lift's upper bound <= X (-0.10)")
    reports = parser.add_argument_group("reports")
    reports.add_argument(
        "--json", metavar="FILE", help="write the result (schemas/trial-result.schema.json; --triggers: trigger-result)"
    )
    reports.add_argument("--markdown", metavar="FILE", help="write the Markdown report")
    reports.add_argument("--junit", metavar="FILE", help="write JUnit XML (one testcase per skill)")
    reports.add_argument("--quiet", action="store_true", help="do not print the report on stdout")
    add_run_options(parser)
    add_judge_options(parser)
    parser.set_defaults(run=run)


def _runs(args: argparse.Namespace, config: AcesConfig) -> int:
    if args.runs is not None:
        return int(args.runs)
    if config.trial.runs is not None:
        return config.trial.runs
    return config.run.runs if "run.runs" in config.field_lines else DEFAULT_RUNS


def _design(args: argparse.Namespace, config: AcesConfig, options: RunOptions) -> TrialDesign:
    trial = config.trial
    return TrialDesign(
        runs=_runs(args, config),
        seed=options.seed,
        coupling=cast(Coupling, args.coupling or trial.coupling),
        mode=cast(Mode, args.mode or trial.mode),
        against=args.against,
        aa=args.control == "aa",
        metadata_only=bool(args.metadata_only),
        stress=args.stress if args.stress is not None else trial.stress,
        sequential=bool(args.sequential),
        budget_cap=_budget_cap(args, config),
    )


def _budget_cap(args: argparse.Namespace, config: AcesConfig) -> BudgetCap | None:
    """The ex-ante cap per rollout: the flags, else aces.yml ``trial.cap_tokens/cap_usd`` (any flag replaces both).

    ``aces-ci ci`` hands its own namespace, which has no cap flags: aces.yml decides there.
    """
    flag_tokens, flag_dollars = getattr(args, "cap_tokens", None), getattr(args, "cap_usd", None)
    if flag_tokens is not None or flag_dollars is not None:
        tokens, dollars = flag_tokens, flag_dollars
    else:
        tokens, dollars = config.trial.cap_tokens, config.trial.cap_usd
    return None if tokens is None and dollars is None else BudgetCap(dollars=dollars, tokens=tokens)


def _gate(args: argparse.Namespace, config: AcesConfig) -> Bands:
    gate = config.gate
    pass_band = gate.pass_band if args.pass_band is None else args.pass_band
    fail_band = gate.fail_band if args.fail_band is None else args.fail_band
    if fail_band >= pass_band:
        raise InputError(
            f"the fail band ({fail_band:g}) must be below the pass band ({pass_band:g})", field="--fail-band"
        )
    return dataclasses.replace(gate, pass_band=pass_band, fail_band=fail_band, metric=args.lift_metric or gate.metric)


def _sources(args: argparse.Namespace, config: AcesConfig) -> SkillSources:
    decoys: tuple[Path, ...] | None
    if args.decoys:
        decoys = tuple(args.decoys)
    elif args.decoys is None and config.trial.decoys:
        decoys = config.trial.decoys
    else:
        decoys = None
    supporting = tuple(args.support) if args.support else config.trial.supporting
    return SkillSources(decoys=decoys, supporting=supporting, evals=args.evals)


def _priced(options: RunOptions, judge: ModelSpec | None = None) -> bool:
    agent = options.model.provider == "local" or options.prices.lookup(options.model.model) is not None
    return agent and judge_priced(judge, options)


async def _trial(
    options: RunOptions,
    design: TrialDesign,
    gate: Bands,
    skills: list[SkillUnderTrial],
    judge_spec: ModelSpec | None,
) -> TrialResult:
    # Model calls in flight never exceed rollouts in flight: the endpoint cap follows --concurrency.
    limiter = ConcurrencyLimiter(options.concurrency)
    clients = ModelClients(prices=options.prices, seed=options.seed, limiter=limiter)
    judge = open_judge(judge_spec, options, limiter)  # a judge that cannot be built is a config error: say so now
    try:
        if options.harness.name == "builtin":
            clients.get(options.model)  # a missing key or an unknown provider is a config error: say so now
        grader = trial_grader(judge, {s.plan.skill.name: s.grader for s in skills})
        async with open_engine(options, skills, clients, options.budget) as engine:
            setup = RunSetup(options.harness, options.model, _priced(options, judge_spec), judge_spec)
            return await TrialRunner(engine, design, gate, setup, grader).run(skills)
    finally:
        await clients.aclose()
        if judge is not None:
            await judge.aclose()


FROM_CONFIG: Literal["aces.yml"] = "aces.yml"
"""``measure(judge=...)``: the judge aces.yml ``judge:`` names (none when it names none)."""


def measure(
    skill_dirs: Sequence[Path],
    project: Project,
    *,
    options: RunOptions,
    design: TrialDesign,
    gate: Bands,
    sources: SkillSources,
    judge: ModelSpec | Literal["aces.yml"] | None = FROM_CONFIG,
) -> TrialResult:
    """Run the trials of ``skill_dirs`` and return their result: the verb without its printing.

    What ``aces-ci ci`` calls for a release, a labelled pull request or a schedule: the design
    carries ``against`` (the base ref or the previous release tag), ``gate`` the bands of aces.yml,
    ``judge`` the judge model (by default the one aces.yml names, as ``aces-ci trial`` does).
    Raises :class:`~aces_ci.errors.InputError` for any input problem before a rollout runs.
    """
    judge_spec = configured_judge(project.config) if judge == FROM_CONFIG else judge
    cap = design.budget_cap
    if cap is not None and cap.dollars is not None and not _priced(options):
        raise InputError(
            f"--cap-usd needs the model's price, and {options.model.model} is not in the price table: add it under "
            "run.prices in aces.yml, or cap tokens with --cap-tokens",
            field="--cap-usd",
        )
    skills = skills_under_trial(skill_dirs, project, design, sources)
    return asyncio.run(_trial(options, design, gate, skills, judge_spec))


def _write_reports(args: argparse.Namespace, result: TrialResult) -> None:
    secrets = environment_secrets()
    if args.json is not None:
        write_trial_json(result, args.json)
    if args.markdown is not None:
        write_output(Path(args.markdown), redact_text(render_trial_markdown(result), secrets), "Markdown report")
    if args.junit is not None:
        write_output(Path(args.junit), redact_text(render_trial_junit(result), secrets), "JUnit report")


def exit_code(result: TrialResult) -> int:
    """The contract of the module docstring."""
    if result.verdict == "fail":
        return EXIT_GATE_FAILED
    if result.infra_errors or result.stopped_by == "circuit_breaker":
        return EXIT_RUNTIME_ERROR
    return EXIT_PASS


def run(args: argparse.Namespace) -> int:
    project = find_project(args.skill_dirs[0].resolve(), args.config)
    config = project.config
    options = resolve_run_options(args, config)
    design = _design(args, config, options)
    gate = _gate(args, config)
    sources = _sources(args, config)
    if args.triggers:
        return run_triggers(args, project, options, _runs(args, config))
    judge = configured_judge(config, args)
    if args.plan:
        skills = skills_under_trial(args.skill_dirs, project, design, sources)
        target = args.target_lift if args.target_lift is not None else config.trial.target_lift
        return run_plan(
            args, options, design, gate, skills, target_lift=target, priced=_priced(options, judge), judge=judge
        )
    result = measure(args.skill_dirs, project, options=options, design=design, gate=gate, sources=sources, judge=judge)
    if not args.quiet:
        sys.stdout.write(render_trial_text(result))
        sys.stdout.flush()
    _write_reports(args, result)
    for skill in result.skills:
        if skill.verdict == "underpowered":
            what = (
                "fails the gate (gate.underpowered: fail)"
                if result.bands.underpowered_fails
                else "passes with a warning"
            )
            print(
                f"aces-ci: warning: {skill.skill} is underpowered and {what}: {skill.verdict_reason}", file=sys.stderr
            )
    if result.infra_errors:
        print(
            f"aces-ci: {result.infra_errors} rollout(s) ended as infrastructure errors or could not be graded; "
            "rerun to retry them (finished rollouts come from the cache)",
            file=sys.stderr,
        )
    return exit_code(result)
