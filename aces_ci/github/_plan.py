"""What a workflow run should do, decided from its event: the one place that maps events to work.

=============================================  ============  =======================================
event                                          work          compared against
=============================================  ============  =======================================
push to a branch                               ``scan``      the push's ``before`` commit
pull_request (same repository or fork)         ``scan``      the pull request's base commit
pull_request ``labeled`` with the trial label  ``trial``     the base branch's version (same-repo only)
pull_request_target (any repository)           ``scan``      the pull request's base commit (no judge)
issue_comment ``/aces trial <sha>`` on a PR    ``approval``  the base branch's version (a writer's approval)
push of a tag, ``release``                     ``release``   the previous release tag
``schedule``, ``workflow_dispatch``            ``rerun``     the stored baseline of the last release
``workflow_run`` of a pull request             ``comment``   (posts the comment the PR run prepared)
=============================================  ============  =======================================

Paid work (trials, SkillSV, reruns: anything that calls a model with our keys) never runs for a
fork's pull request: GitHub gives fork code no secrets, and it must not get ours. Such a run is
planned as a scan with a note saying why, instead of failing. Nor under ``pull_request_target``,
whatever repository the pull request comes from: that event holds our secrets while the workflow
may have checked out the pull request's code (:mod:`aces_ci.github._trust`). A fork's change gets
trials only through a maintainer's ``/aces trial <sha>`` comment (:mod:`aces_ci.github._approval`).
The ``mode`` of the action (or ``--mode``) overrides the event's choice, within the same rules.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from ..config import CI_MODES, DEFAULT_TRIAL_LABEL, CiMode
from ._approval import approval_comment
from ._context import GitHubContext, PullRequest

Work = Literal["scan", "trial", "value", "compress", "release", "rerun", "approval", "comment", "nothing"]
Mode = CiMode
MODES = CI_MODES
PAID_WORK: frozenset[Work] = frozenset({"trial", "value", "compress", "release", "rerun", "approval"})
"""Work that calls a model with the repository's keys."""

ZERO_SHA = "0" * 40
_PR_EVENTS = ("pull_request", "pull_request_target")


@dataclass(frozen=True)
class Plan:
    """The work chosen for this run and why, in words the run's log and comment repeat."""

    work: Work
    reason: str
    base: str | None = None
    """The commit or tag the changes are measured from; None means "all skills"."""
    head: str | None = None
    pull_request: PullRequest | None = None
    notes: tuple[str, ...] = ()

    @property
    def paid(self) -> bool:
        return self.work in PAID_WORK


def _fork_note(pr: PullRequest, wanted: str) -> str:
    head = pr.head_repository or "a deleted fork"
    return (
        f"{wanted} not run: pull request #{pr.number} comes from {head}, and fork code never gets this "
        "repository's secrets. The static scan ran instead; a maintainer can run the trials on a branch "
        "of this repository."
    )


_WANTED: dict[Work, str] = {"value": "SkillSV valuation", "compress": "Compression"}
"""What a note calls the paid work a pull request asked for (anything else: paired trials)."""


def _target_note(pr: PullRequest, wanted: Work) -> str:
    what = _WANTED.get(wanted, "Paired trials")
    return (
        f"{what} not run: pull request #{pr.number} arrived as `pull_request_target`, which holds this "
        "repository's secrets whatever code the workflow checked out; aces-ci runs no model under it. "
        "A maintainer can approve trials with the comment `/aces trial <head sha>`."
    )


def _pull_request_plan(context: GitHubContext, pr: PullRequest, trial_label: str, mode: Mode) -> Plan:
    labelled = context.added_label == trial_label
    wanted: Work | None = None
    if mode in ("trial", "value", "compress", "rerun"):
        wanted = "trial" if mode == "rerun" else mode
    elif mode == "auto" and labelled:
        wanted = "trial"
    base, head = pr.base_sha, pr.head_sha or context.sha
    if context.event_name == "pull_request_target":
        refused = (_target_note(pr, wanted),) if wanted is not None else ()
        return Plan(
            "scan", f"pull request #{pr.number} (pull_request_target): static scan only", base, head, pr, refused
        )
    if wanted is not None and pr.is_fork:
        what = _WANTED.get(wanted, "Paired trials")
        return Plan(
            "scan", f"pull request #{pr.number} from a fork: static scan only", base, head, pr, (_fork_note(pr, what),)
        )
    if wanted is not None:
        why = f"label '{trial_label}' added" if labelled and mode == "auto" else f"mode '{mode}'"
        what = {
            "value": "SkillSV of the changed skills",
            "compress": "a shorter version of each changed skill, proposed (never committed)",
        }.get(wanted, "this version against the base branch's")
        return Plan(wanted, f"pull request #{pr.number}: {why}; {what}", base, head, pr)
    notes: tuple[str, ...] = ()
    if trial_label in pr.labels and mode == "auto":
        notes = (f"Trials run when the label '{trial_label}' is added; remove and re-add it to run them again.",)
    return Plan("scan", f"pull request #{pr.number}: static scan", base, head, pr, notes)


def plan_run(context: GitHubContext, *, mode: Mode = "auto", trial_label: str = DEFAULT_TRIAL_LABEL) -> Plan:
    """The work for this run's event (and ``mode``), never paid work for fork code."""
    event = context.event_name
    pr = context.pull_request
    if event in _PR_EVENTS and pr is not None:
        return _pull_request_plan(context, pr, trial_label, mode)
    if event == "issue_comment":
        comment = approval_comment(context)
        if comment is None:
            return Plan("nothing", "issue_comment: not an `/aces` command on a pull request")
        return Plan("approval", f"`/aces {comment.verb}` by {comment.author} on pull request #{comment.number}")
    if event == "workflow_run":
        run = context.payload.get("workflow_run")
        triggering = run.get("event") if isinstance(run, dict) else None
        if triggering in _PR_EVENTS:
            return Plan("comment", "workflow_run of a pull request run: post the comment it prepared")
        return Plan("nothing", f"workflow_run of a '{triggering}' run: only pull request runs need a comment")
    if mode == "scan":
        return Plan("scan", f"{event}: mode 'scan'", _push_base(context), context.sha)
    if mode in ("trial", "value", "compress", "rerun"):
        return Plan(mode, f"{event}: mode '{mode}'", None, context.sha)
    tag = context.tag
    if event == "release" or (event == "push" and tag is not None):
        return Plan(
            "release",
            f"release {tag}: paired trials and SkillSV of the skills changed since the previous release tag",
            None,
            tag or context.sha,
        )
    if event in ("schedule", "workflow_dispatch"):
        return Plan(
            "rerun",
            f"{event}: rerun the trials against the configured model and compare with the last release's baseline",
            None,
            context.sha,
        )
    if event == "push":
        if context.payload.get("deleted") is True:
            return Plan("nothing", f"push deleted {context.ref}: nothing to check")
        return Plan("scan", f"push to {context.ref or 'a branch'}: static scan", _push_base(context), context.sha)
    return Plan("scan", f"{event}: static scan", None, context.sha)


def _push_base(context: GitHubContext) -> str | None:
    before = context.payload.get("before")
    if isinstance(before, str) and before and before != ZERO_SHA:
        return before
    return None
