"""GitHub: the run's context, what to do for its event, and where results go (comment, annotations, outputs).

* :class:`GitHubContext` reads the standard Actions environment and the event payload;
  :func:`plan_run` turns the event into the :class:`Plan` of work (never paid work for forks);
  :func:`change_set` / :func:`release_change_set` tell which skills a change touched.
* :class:`GitHubClient` is the REST client (retries on 5xx and rate limits, Link pagination);
  :func:`upsert_comment` keeps one sticky comment per pull request; :func:`create_check_run`
  publishes an optional check run.
* :func:`annotate` prints ``::error file=…,line=…::`` annotations within GitHub's caps;
  :func:`write_outputs` and :func:`append_step_summary` write the runner's environment files.
* :func:`render_comment` assembles the comment body from the result models and the gate's decision.
"""

from ._body import COMMENT_MARKER, CommentInputs, marker_for, render_comment
from ._changes import ChangeSet, change_set, release_change_set, skills_touched
from ._checks import CheckRunResult, create_check_run
from ._commands import PER_JOB_CAP, PER_STEP_CAP, Annotation, AnnotationOutcome, annotate, escape_data, escape_property
from ._context import GitHubContext, PullRequest, read_payload
from ._files import STEP_SUMMARY_LIMIT, append_step_summary, fit_summary, output_block, write_outputs
from ._plan import DEFAULT_TRIAL_LABEL, MODES, PAID_WORK, Mode, Plan, Work, plan_run
from ._rest import GitHubClient, GitHubError, RetryPolicy, next_link
from ._sticky import COMMENT_LIMIT, DEFAULT_BOT_LOGIN, CommentResult, find_comment, upsert_comment

__all__ = [
    "COMMENT_LIMIT",
    "COMMENT_MARKER",
    "DEFAULT_BOT_LOGIN",
    "DEFAULT_TRIAL_LABEL",
    "MODES",
    "PAID_WORK",
    "PER_JOB_CAP",
    "PER_STEP_CAP",
    "STEP_SUMMARY_LIMIT",
    "Annotation",
    "AnnotationOutcome",
    "ChangeSet",
    "CheckRunResult",
    "CommentInputs",
    "CommentResult",
    "GitHubClient",
    "GitHubContext",
    "GitHubError",
    "Mode",
    "Plan",
    "PullRequest",
    "RetryPolicy",
    "Work",
    "annotate",
    "append_step_summary",
    "change_set",
    "create_check_run",
    "escape_data",
    "escape_property",
    "find_comment",
    "fit_summary",
    "marker_for",
    "next_link",
    "output_block",
    "plan_run",
    "read_payload",
    "release_change_set",
    "render_comment",
    "skills_touched",
    "upsert_comment",
    "write_outputs",
]
