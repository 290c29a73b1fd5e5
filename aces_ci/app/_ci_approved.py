"""``aces-ci ci`` on an ``/aces trial <sha>`` comment: the maintainer-approved trial of a pull request's commit.

The checks (:mod:`aces_ci.github._approval`), in order, each refusal a reply comment saying why:

1. the workflow checked out the event's own commit (``GITHUB_SHA``, the default branch's head: the
   base), else it is a configuration error (exit 2) — the fork's code must never be the work tree;
2. the commenter may write to the repository, as the API says;
3. the command is ``/aces trial`` with a full commit SHA;
4. the pull request is open and its head, as the API says now, is that SHA.

Then the approved commit is fetched as git objects and its tree unpacked as data
(:func:`aces_ci.github.pinned_tree`); what is measured is that tree, whatever the pull request's
ref holds by then. The trial is the labelled pull request's (:class:`aces_ci.app._ci_paid.PaidRun`:
this version against the base's, via ``--against <base sha>``, and with against without), with
everything that runs taken from the base: its aces.yml (model, budget, gate, task and grader
commands), this workflow and its action. The fork's evals files are cases, read as data; a skill
whose evals.json declares its own task or grader command is not trialled (a warning says why),
since that command would run outside the harness's sandbox. The static scan of the same tree
(no judge) and the trials go to the pull request's sticky comment.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from pathlib import Path

from ..config import CiConfig, find_project, repository_root, resolve_bands, resolve_scan
from ..errors import EXIT_PASS, ConfigError, InputError
from ..evals import load_evals
from ..gate import GateCriterion, decide, scan_criteria
from ..github import (
    TRIAL_VERB,
    USAGE,
    ApprovalComment,
    GitHubClient,
    GitHubContext,
    Plan,
    PullRequest,
    approval_comment,
    checked_out_commit,
    exit_code_after_publishing,
    fetch_pull_head,
    has_commit,
    marker_for,
    outputs,
    pinned_tree,
    publish_result,
    pull_request_now,
    refusal,
    render_comment,
    reply,
    say,
    write_step_outputs,
    writer_role,
)
from ..report import SourceLinks
from ..scan import default_registry, scan_repo
from ..stats import Bands
from ._ci_outcome import no_lift
from ._ci_paid import PaidRun
from ._ci_results import (
    Shown,
    comment_inputs,
    scan_relative,
    skill_dirs,
    write_html_report,
    write_markdown,
    write_reports,
)

_SHOWN_VERB = re.compile(r"[a-z0-9-]{1,20}")
OWN_COMMANDS = (
    "its evals declare their own task or grader command, and a pull request's commands never run in an "
    "approved trial (name the command in this repository's aces.yml instead)"
)


@dataclass(frozen=True)
class Approved:
    """An approval that passed every check: who gave it and the pull request as the API tells it now."""

    role: str
    pull_request: PullRequest
    commit: str
    """The pinned commit: the pull request's head when the API was asked."""


def run_approved(context: GitHubContext, config: CiConfig, plan: Plan) -> int:
    """Check the approval, then trial the pinned commit, or reply why not (exit 0: a refusal is no failure)."""
    comment = approval_comment(context)
    if comment is None:
        raise InputError("the event is not an /aces comment on a pull request", path=str(context.event_path))
    if context.token is None:
        raise ConfigError(
            "an /aces comment needs GITHUB_TOKEN: the commenter's permission and the pull request's head are asked "
            "of the API, and the answer is a comment",
            field="GITHUB_TOKEN",
        )
    top = repository_root(config.path.resolve())
    checkout = checked_out_commit(top) if top is not None else None
    if top is None or checkout is None or checkout != context.sha:
        raise ConfigError(
            f"the approval workflow must check out the base: the event's commit {context.sha[:12] or '(none)'} "
            f"(actions/checkout without `ref:`), not {checkout[:12] if checkout else 'no git checkout'}; "
            "the pull request's files are read from git objects, never checked out",
            field="actions/checkout",
        )
    with GitHubClient(context.api_url, context.token) as client:
        checked = _approved(client, context, comment)
        if isinstance(checked, str):
            return _refuse(client, context, comment, checked)
        fetch_pull_head(top, comment.number)
        pinned = checked.commit
        if not has_commit(top, pinned):
            gone = (
                f"The approved commit `{pinned[:12]}` is not in pull request #{comment.number}'s history any more "
                "(was it force-pushed?). Review its head and approve that."
            )
            return _refuse(client, context, comment, gone)
        say(f"approved by {comment.author} ({checked.role}): trials of {pinned[:12]} with this repository's aces.yml")
        reason = (
            f"`/aces trial` by {comment.author} ({checked.role}) on pull request #{comment.number}: the approved "
            f"commit {pinned[:12]} against the base branch's version, with this repository's aces.yml and "
            "commands; the pull request's files were read as data"
        )
        pr = checked.pull_request
        approved = replace(plan, work="trial", reason=reason, base=pr.base_sha, head=pinned, pull_request=pr)
        return _trial(client, context, config, approved, top)


def _approved(client: GitHubClient, context: GitHubContext, comment: ApprovalComment) -> Approved | str:
    """The approval when every check passes, else the reason it is refused."""
    role = writer_role(client, context.repository, comment.author)
    if role is None:
        return (
            f"Only a user with write access to {context.repository} (admin, maintain or write, as GitHub's API "
            "reports it) can approve trials: they run on this repository's model keys and budget."
        )
    if comment.verb != TRIAL_VERB:
        shown = f"`/aces {comment.verb}`" if _SHOWN_VERB.fullmatch(comment.verb) else "That command"
        return f"{shown} is not a command aces-ci knows. Approve the trials with {USAGE}."
    if comment.sha is None:
        return (
            f"Pin the commit you reviewed: {USAGE}. The full SHA makes sure that a push after your review is "
            "never measured in its place."
        )
    now = pull_request_now(client, context.repository, comment.number)
    if not now.open:
        return f"Pull request #{comment.number} is not open."
    head = now.pull_request.head_sha or ""
    if head != comment.sha:
        return (
            f"The pull request's head is `{head[:12]}`, not the approved `{comment.sha[:12]}`: it moved since "
            f"(or the SHA is not its head). Review the new commits, then approve them with `/aces trial {head}`."
        )
    return Approved(role, now.pull_request, head)


def _refuse(client: GitHubClient, context: GitHubContext, comment: ApprovalComment, reason: str) -> int:
    url = reply(client, context.repository, comment.number, refusal(comment, reason))
    say(f"approval refused: {reason} (reply: {url or 'posted'})")
    write_step_outputs(context, outputs(None, work="approval") | {"verdict": "skipped"})
    return EXIT_PASS


def _declares_commands(skill: Path, tree: Path) -> bool:
    """Whether the skill's own evals.json names a task or grader command (BYOT/BYOG)."""
    evalset = load_evals(skill, tree)
    return evalset is not None and (evalset.tasks is not None or evalset.grader is not None)


def _own_commands(skills: tuple[str, ...], bands: Bands) -> tuple[GateCriterion, ...]:
    return tuple(no_lift(bands)(skill, OWN_COMMANDS) for skill in skills)


def _trial(client: GitHubClient, context: GitHubContext, ci: CiConfig, plan: Plan, top: Path) -> int:
    """Scan and trial the approved commit's tree; the sticky comment, the reports and the outputs."""
    pr, pinned = plan.pull_request, plan.head or ""
    assert pr is not None and plan.base is not None
    scanned = ci.path.resolve()
    prefix = "" if scanned == top.resolve() else scanned.relative_to(top.resolve()).as_posix()
    base_project = find_project(scanned, ci.config_file)
    bands = resolve_bands(base_project.config, ci.gate)
    config = resolve_scan(base_project.config, ci.scan)
    with pinned_tree(top, pinned) as tree:
        scan_root = tree / prefix if prefix else tree
        if not scan_root.is_dir():
            raise InputError(f"{prefix} does not exist at the approved commit {pinned[:12]}", path=prefix)
        registry = default_registry()
        result = scan_repo(scan_root, config.settings, registry, judge=None, jobs=1, cache=None)
        links = SourceLinks(context.server_url, context.repository, pinned, prefix)
        dirs = skill_dirs(result, links)
        own = tuple(d for d in dirs if _declares_commands(tree / d, tree))
        # The base's settings; the fork's tree, as data.
        paid = PaidRun(ci, context, plan, replace(base_project, root=tree), tree, links=links)
        outcome = paid.run([d for d in dirs if d not in own], bands)
        outcome = replace(outcome, criteria=(*_own_commands(own, bands), *outcome.criteria))
    decision = decide(scan_criteria(result), scan_relative(outcome.criteria, links))
    shown = Shown(
        registry=registry,
        links=links,
        reason=plan.reason,
        marker=marker_for(ci.github.comment_key),
        commit=pinned,
        full_report_url=ci.github.report_url or context.run_url,
        artifacts_url=f"{context.run_url}#artifacts" if context.run_url and ci.reports.html else None,
    )
    changed = tuple(links.scanned(s) for s in outcome.changes.skills) if outcome.changes.known else None
    body = render_comment(
        comment_inputs(shown, decision, result=result, notes=outcome.notes, changed=changed, outcome=outcome)
    )
    # As on every other path: reports, outputs and the summary are written before the comment call, so a
    # GitHub failure costs the comment, never the results.
    paths = write_reports(ci.reports, result, registry, decision) | write_markdown(ci.reports, body)
    paths |= dict(outcome.reports)
    paths |= write_html_report(ci.reports, result, paths, links, outcome.skill_reports)
    scores = [report.score.value for report in result.skills]
    values = outputs(
        decision,
        work="approval",
        score=min(scores) if scores else None,
        reports=paths,
        changed=outcome.changes.skills,
        lift=outcome.lift,
        lift_contrast=outcome.lift_contrast,
    )
    failed = publish_result(
        context,
        client,
        pr.number,
        body,
        shown.marker,
        values=values,
        full_report=shown.full_report_url,
        want_comment=ci.github.comment,
    )
    say(f"gate: {decision.verdict} (approved trial of {pinned[:12]})")
    return exit_code_after_publishing(decision, failed)
