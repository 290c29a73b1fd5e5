"""``aces-ci ci``: one command for a workflow step; it reads the GitHub event and does the right work.

* push / pull_request → the static scan (+ the LLM judge when aces.yml configures it and its key
  is set), the gate, annotations, the sticky PR comment (or the job summary on a fork), JUnit /
  SARIF / JSON / Markdown reports and the step outputs;
* a release or tag push → paired trials of the skills changed since the previous release tag,
  gated on each lift's interval, stored as the baselines on the results branch when the release
  passes, then SkillSV's valuation of their units on what the trials left of the budget; a
  same-repository pull request labelled with the trial label → its version of each
  changed skill against the base branch's, and with against without; a schedule or
  workflow_dispatch → a rerun of every skill's trial compared with the last release's baselines
  (:mod:`aces_ci.app._ci_paid`). Each also runs the static scan, so one comment shows both. With
  ``--shard i/n`` a release or rerun runs only shard i of its trial and writes its part; the merge job's
  ``--trial-parts`` replays the trial over every part, then gates and publishes (:mod:`aces_ci.app._ci_shard`);
* ``mode: value`` → SkillSV's valuation on the live agent of a same-repository pull request's
  changed skills, or of every skill under the path (:mod:`aces_ci.app._ci_value`);
* ``mode: compress`` → a shorter version of the same skills, verified on held-out cases and proposed
  in the comment and ``<reports>/compress/`` (JSON, Markdown, patch), never committed; a proposal
  informs and never fails the job (:mod:`aces_ci.app._ci_compress`);
* a fork's pull request never gets paid work (its code runs without secrets): it is scanned, and
  the comment says why the trials did not run; nor does ``pull_request_target`` or any checkout of a
  fork's head, and there the LLM judge is off too and the model keys are withheld
  (:mod:`aces_ci.app._ci_trust`);
* an ``/aces trial <sha>`` comment by a writer on a fork's pull request → the approved trial of the
  pinned commit, with the base's settings and the fork's files as data
  (:mod:`aces_ci.app._ci_approved`);
* workflow_run of a pull request run → the fork-safe commenter: re-renders the comment from the
  scan JSON the pull request's run uploaded and posts it with this run's write token
  (:func:`aces_ci.github.post_prepared_comment`).

This module parses the flags into a frozen :class:`aces_ci.config.CiConfig` and calls
:func:`aces_ci.app.ci`, which does the work; the reports (JSON, JUnit, SARIF, the comment as
Markdown, and one HTML page of everything measured) go to ``--reports``.

Exit codes are the contract's: 0 pass (warnings included), 1 gate failed (a scan criterion, a
lift whose interval lies at or below the fail band, a rerun's regression), 2 input or
configuration error, 3 GitHub or model API failure — including a gated measurement that could not
be made (verdict ``error``: a skill with no measured pair, or more than a tenth of its rollouts
lost to infrastructure; :func:`aces_ci.gate.infra_criterion`), from which nothing is stored.
Reports, outputs and the job summary are written before any comment or check-run call: a GitHub
failure there costs the comment only, and turns a passing gate's 0 into 3 (a failed gate keeps its 1).
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from .. import app
from ..config import (
    CI_MODES,
    DEFAULT_RESULTS_BRANCH,
    DEFAULT_TRIAL_LABEL,
    CiConfig,
    CiReports,
    GateFlags,
    GitHubOutput,
    given,
)
from ..github import GitHubContext
from ..scan import Shard
from ._run_options import _DOLLARS, _number, add_run_options, band, run_flags
from ._scan_options import min_score, scan_flags, worker_count

DEFAULT_REPORTS = Path("aces-reports")
DEFAULT_VALUE_HOLDOUT = 0.25
"""Share of each valued skill's cases held out for SkillSV's pruning test (the comment's pruning chart)."""
_SHARE = _number(float, 0)
_REPORT_FILES = {
    "json": "results.json",
    "junit": "junit.xml",
    "sarif": "results.sarif",
    "markdown": "comment.md",
    "html": "report.html",
}
"""Each report's flag and its file in ``--reports`` when the flag is not given."""


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "ci",
        help="GitHub Actions entry point: pick the work from the event, gate, comment, annotate, write outputs",
        description="Read the GitHub Actions environment (GITHUB_EVENT_NAME, GITHUB_EVENT_PATH, GITHUB_REPOSITORY, "
        "GITHUB_SHA, GITHUB_API_URL, GITHUB_TOKEN, GITHUB_OUTPUT, GITHUB_STEP_SUMMARY) and do the work its event "
        "calls for.",
    )
    parser.add_argument("path", nargs="?", default=Path("."), type=Path, metavar="PATH", help="skills repository")
    parser.add_argument("--mode", choices=CI_MODES, default="auto", help="override the event's choice (default: auto)")
    parser.add_argument(
        "--trial-label", default=DEFAULT_TRIAL_LABEL, metavar="LABEL", help="PR label that asks for trials"
    )
    parser.add_argument("--config", type=Path, metavar="FILE", help="aces.yml to use (default: PATH/aces.yml)")
    parser.add_argument("--profile", choices=("strict", "lenient"), help="frontmatter profile (overrides aces.yml)")
    parser.add_argument("--min-score", type=min_score, metavar="N", help="gate's minimum structural score, 0-100")
    parser.add_argument("--baseline", type=Path, metavar="FILE", help="suppress the findings accepted in FILE")
    parser.add_argument("--judge", action=argparse.BooleanOptionalAction, default=None, help="LLM judge (as in scan)")
    parser.add_argument("--jobs", type=worker_count, default=None, metavar="N", help="scan worker processes")
    parser.add_argument(
        "--shard",
        type=Shard.parse,
        metavar="I/N",
        help="a matrix job: scan only shard I of N; on a release or rerun, run shard I of the trial and write its "
        "part to --reports (merged by --trial-parts)",
    )
    parser.add_argument("--no-cache", action="store_true", help="read and write no scan result cache")
    parser.add_argument("--cache-dir", type=Path, metavar="DIR", help="scan result cache directory")
    reports = parser.add_argument_group("reports (an empty value turns one off)")
    reports.add_argument("--reports", type=Path, default=DEFAULT_REPORTS, metavar="DIR", help="default report folder")
    for name, default in _REPORT_FILES.items():
        reports.add_argument(f"--{name}", metavar="FILE", help=f"default: DIR/{default}")
    github = parser.add_argument_group("GitHub")
    github.add_argument("--comment", action=argparse.BooleanOptionalAction, default=True, help="sticky PR comment")
    github.add_argument("--comment-key", metavar="KEY", help="keep one comment per KEY (e.g. per matrix job)")
    github.add_argument("--annotations", action=argparse.BooleanOptionalAction, default=True, help="::error lines")
    github.add_argument("--check-run", action="store_true", help="also publish a check run (needs checks: write)")
    github.add_argument("--report-url", metavar="URL", help="where the full report is (default: the run's page)")
    github.add_argument("--results", type=Path, metavar="DIR", help="workflow_run: the PR run's downloaded reports")
    gate = parser.add_argument_group("gate bands for trials (override aces.yml gate:)")
    gate.add_argument("--lift-metric", metavar="METRIC", help="metric the lift gate reads (default: outcome)")
    gate.add_argument("--pass-band", type=band, metavar="X", help="pass when the lift's lower bound >= X (+0.05)")
    gate.add_argument("--fail-band", type=band, metavar="X", help="fail when the lift's upper bound <= X (-0.10)")
    add_run_options(
        parser,
        title="run settings for trials (override aces.yml run:)",
        without=("--config", "--cache-dir", "--no-cache"),
    )
    trials = parser.add_argument_group("trial results")
    trials.add_argument("--rollout-cache", type=Path, metavar="DIR", help="rollout cache (default: aces.yml run:)")
    trials.add_argument("--no-rollout-cache", action="store_true", help="neither read nor write the rollout cache")
    trials.add_argument(
        "--trial-parts",
        nargs="+",
        type=Path,
        default=(),
        metavar="PART.json",
        help="the merge job of a sharded release or rerun: replay the trial over every `ci --shard` part, then gate, "
        "report, comment and store as an unsharded run",
    )
    value = parser.add_argument_group("SkillSV on a release and in mode value")
    value.add_argument(
        "--value",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="value the released skills' units after their trials (default: on)",
    )
    value.add_argument(
        "--value-budget-usd",
        type=_DOLLARS,
        metavar="X",
        help="at most X dollars for SkillSV (it only ever gets what the trials left of --budget-usd)",
    )
    value.add_argument(
        "--value-holdout",
        type=_holdout,
        default=DEFAULT_VALUE_HOLDOUT,
        metavar="SHARE",
        help="share of each skill's cases held out for the pruning test (default: %(default)s; 0: no curve)",
    )
    trials.add_argument(
        "--results-branch",
        default=DEFAULT_RESULTS_BRANCH,
        metavar="BRANCH",
        help="branch of origin keeping release baselines and rerun records ('' turns it off; default: %(default)s)",
    )
    parser.set_defaults(run=run)


def _holdout(text: str) -> float:
    share = _SHARE(text)
    if share >= 1:
        raise argparse.ArgumentTypeError(f"a held-out share lies in [0, 1), got {share}")
    return float(share)


def _report_path(args: argparse.Namespace, name: str) -> Path | None:
    value: str | None = getattr(args, name)
    if value is None:
        return Path(args.reports) / _REPORT_FILES[name]
    return Path(value) if value else None


def ci_config(args: argparse.Namespace) -> CiConfig:
    """The typed, frozen config of this run from its flags: nothing below ``commands/`` sees the Namespace."""
    reports = CiReports(args.reports, **{name: _report_path(args, name) for name in _REPORT_FILES})
    return CiConfig(
        path=args.path,
        mode=args.mode,
        trial_label=args.trial_label,
        config_file=args.config,
        scan=scan_flags(args),
        reports=reports,
        github=GitHubOutput(args.comment, args.comment_key, args.annotations, args.check_run, args.report_url),
        gate=GateFlags(given(args.lift_metric or None), given(args.pass_band), given(args.fail_band)),
        run=run_flags(args, args.rollout_cache, args.no_rollout_cache),
        results=args.results,
        value=args.value,
        value_budget_usd=args.value_budget_usd,
        value_holdout=args.value_holdout,
        results_branch=args.results_branch,
        trial_parts=tuple(args.trial_parts),
    )


def run(args: argparse.Namespace) -> int:
    return app.ci(GitHubContext.from_env(os.environ), ci_config(args)).exit_code
