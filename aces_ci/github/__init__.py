"""GitHub: the run's context, what to do for its event, and where results go (comment, annotations, outputs).

* :class:`GitHubContext` reads the standard Actions environment and the event payload;
  :func:`plan_run` turns the event into the :class:`Plan` of work (never paid work for forks);
  :func:`change_set` / :func:`release_change_set` tell which skills a change touched.
* :func:`code_trust` tells whether the checked-out tree may run anything with our secrets
  (never under ``pull_request_target`` or for a fork's code); :func:`approval_comment`,
  :func:`writer_role` and :func:`pull_request_now` check a maintainer's ``/aces trial <sha>``;
  :func:`pinned_tree` unpacks the approved commit's files as data (:func:`fetch_pull_head`).
* :class:`GitHubClient` is the REST client (retries on 5xx and rate limits, Link pagination);
  :func:`upsert_comment` keeps one sticky comment per pull request; :func:`create_check_run`
  publishes an optional check run.
* :func:`annotate` prints ``::error file=…,line=…::`` annotations within GitHub's caps;
  :func:`write_outputs` and :func:`append_step_summary` write the runner's environment files.
* :func:`publish_result` sends one run's results where they go (sticky comment or job summary,
  outputs, optional check run), failing soft where permissions are the cause (:mod:`._publish`);
  :func:`post_prepared_comment` is the ``workflow_run`` commenter's whole job (:mod:`._workflow_run`).
* :func:`render_comment` assembles the comment body from the result models and the gate's decision;
  :class:`KeptTrials` (:func:`earlier_trials`, :func:`read_kept`) carries a labelled run's trial
  sections in a hidden digest of the comment, so a later scan-only push shows them again, marked stale.
* Release baselines and history: :class:`ResultsBranch` keeps files on a branch of the repository
  (``aces-results``); :class:`Baselines` is each skill's last release lift (``baseline.json``);
  :func:`compare` sets a rerun against them (:class:`SkillChange`, :func:`change_criteria`,
  :func:`history_section`); each rerun is kept as ``reruns/<utc-date>-<run id>.json``
  (:func:`rerun_to_dict`, :func:`parse_rerun`) and a later one shows their trend
  (:func:`trend_section`). These load the statistics (numpy), so they import on first use.
"""

import importlib
from typing import TYPE_CHECKING, Any

from ..config import DEFAULT_RESULTS_BRANCH, DEFAULT_TRIAL_LABEL
from ._approval import (
    REPLY_MARKER,
    TRIAL_VERB,
    USAGE,
    ApprovalComment,
    PullRequestNow,
    approval_comment,
    pull_request_now,
    refusal,
    reply,
    writer_role,
)
from ._body import COMMENT_MARKER, CommentInputs, marker_for, output_number, render_comment
from ._changes import ChangeSet, change_set, release_change_set, skills_touched
from ._checks import CheckRunResult, create_check_run
from ._commands import (
    PER_JOB_CAP,
    PER_STEP_CAP,
    Annotation,
    AnnotationOutcome,
    annotate,
    escape_data,
    escape_property,
    one_line_log,
)
from ._context import GitHubContext, PullRequest, read_payload
from ._files import STEP_SUMMARY_LIMIT, append_step_summary, fit_summary, output_block, write_outputs
from ._kept import (
    KEPT_DIGEST_LIMIT,
    KEPT_MARKDOWN_LIMIT,
    EarlierTrials,
    KeptTrials,
    earlier_trials,
    keep_trials,
    read_kept,
)
from ._pinned import fetch_pull_head, has_commit, pinned_tree
from ._plan import MODES, PAID_WORK, Mode, Plan, Work, plan_run
from ._publish import (
    Published,
    exit_code_after_publishing,
    finding_annotations,
    outputs,
    publish_check_run,
    publish_comment,
    publish_result,
    say,
    summary_note,
    write_step_outputs,
    write_summary,
)
from ._rest import GitHubClient, GitHubError, GitHubRateLimited, RetryPolicy, next_link
from ._results_branch import MAX_STORED_BYTES, Reader, ResultsBranch, ResultsBranchError, Stored
from ._sticky import (
    COMMENT_LIMIT,
    DEFAULT_BOT_LOGIN,
    SIGNING_KEY_ENV,
    CommentResult,
    CommentSearch,
    find_comment,
    seal,
    search_comments,
    signing_key,
    upsert_comment,
)
from ._trust import CodeTrust, actions_trust, checked_out_commit, code_trust
from ._workflow_run import find_pull_request, post_prepared_comment

if TYPE_CHECKING:
    from ._baselines import (
        BASELINE_FILE,
        Agent,
        Baselines,
        SkillBaseline,
        baselines_from_dict,
        baselines_to_dict,
        parse_baselines,
    )
    from ._history import SkillChange, change_criteria, compare, history_section
    from ._reruns import (
        RERUNS_DIR,
        TREND_RERUNS,
        RerunPoint,
        RerunRecord,
        latest_reruns,
        parse_rerun,
        rerun_path,
        rerun_to_dict,
        trend_section,
    )

_LAZY = {
    **dict.fromkeys(
        (
            "BASELINE_FILE",
            "Agent",
            "Baselines",
            "SkillBaseline",
            "baselines_from_dict",
            "baselines_to_dict",
            "parse_baselines",
        ),
        "._baselines",
    ),
    **dict.fromkeys(("SkillChange", "change_criteria", "compare", "history_section"), "._history"),
    **dict.fromkeys(
        (
            "RERUNS_DIR",
            "TREND_RERUNS",
            "RerunPoint",
            "RerunRecord",
            "latest_reruns",
            "parse_rerun",
            "rerun_path",
            "rerun_to_dict",
            "trend_section",
        ),
        "._reruns",
    ),
}
"""Names whose modules import the statistics (numpy), and where each lives."""


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name], __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "BASELINE_FILE",
    "COMMENT_LIMIT",
    "COMMENT_MARKER",
    "DEFAULT_BOT_LOGIN",
    "DEFAULT_RESULTS_BRANCH",
    "DEFAULT_TRIAL_LABEL",
    "KEPT_DIGEST_LIMIT",
    "KEPT_MARKDOWN_LIMIT",
    "MAX_STORED_BYTES",
    "MODES",
    "PAID_WORK",
    "PER_JOB_CAP",
    "PER_STEP_CAP",
    "REPLY_MARKER",
    "RERUNS_DIR",
    "SIGNING_KEY_ENV",
    "STEP_SUMMARY_LIMIT",
    "TREND_RERUNS",
    "TRIAL_VERB",
    "USAGE",
    "Agent",
    "Annotation",
    "AnnotationOutcome",
    "ApprovalComment",
    "Baselines",
    "ChangeSet",
    "CheckRunResult",
    "CodeTrust",
    "CommentInputs",
    "CommentResult",
    "CommentSearch",
    "EarlierTrials",
    "GitHubClient",
    "GitHubContext",
    "GitHubError",
    "GitHubRateLimited",
    "KeptTrials",
    "Mode",
    "Plan",
    "Published",
    "PullRequest",
    "PullRequestNow",
    "Reader",
    "RerunPoint",
    "RerunRecord",
    "ResultsBranch",
    "ResultsBranchError",
    "RetryPolicy",
    "SkillBaseline",
    "SkillChange",
    "Stored",
    "Work",
    "actions_trust",
    "annotate",
    "append_step_summary",
    "approval_comment",
    "baselines_from_dict",
    "baselines_to_dict",
    "change_criteria",
    "change_set",
    "checked_out_commit",
    "code_trust",
    "compare",
    "create_check_run",
    "earlier_trials",
    "escape_data",
    "escape_property",
    "exit_code_after_publishing",
    "fetch_pull_head",
    "find_comment",
    "find_pull_request",
    "finding_annotations",
    "fit_summary",
    "has_commit",
    "history_section",
    "keep_trials",
    "latest_reruns",
    "marker_for",
    "next_link",
    "one_line_log",
    "output_block",
    "output_number",
    "outputs",
    "parse_baselines",
    "parse_rerun",
    "pinned_tree",
    "plan_run",
    "post_prepared_comment",
    "publish_check_run",
    "publish_comment",
    "publish_result",
    "pull_request_now",
    "read_kept",
    "read_payload",
    "refusal",
    "release_change_set",
    "render_comment",
    "reply",
    "rerun_path",
    "rerun_to_dict",
    "say",
    "seal",
    "search_comments",
    "signing_key",
    "skills_touched",
    "summary_note",
    "trend_section",
    "upsert_comment",
    "write_outputs",
    "write_step_outputs",
    "write_summary",
    "writer_role",
]
