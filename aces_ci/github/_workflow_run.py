"""The fork-safe commenter: a ``workflow_run`` job posts the comment a fork's pull-request run prepared.

A fork's ``pull_request`` run has a read-only token and no secrets, so it cannot comment. It
uploads its reports as an artifact instead; a second workflow, triggered by ``workflow_run``, runs
in the base repository with a write token, downloads the artifact and calls ``aces-ci ci
--results DIR``. That job never runs the fork's code and trusts nothing from the artifact but
data: the scan JSON is validated against its schema and the comment is re-rendered from it (so the
fork cannot post markup of its own), and the pull request is found from the event — the head
repository, branch and commit GitHub reports — not from a number in the artifact.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..errors import EXIT_PASS, EXIT_RUNTIME_ERROR, InputError
from ..gate import decide, scan_criteria
from ..report import SourceLinks, read_scan_result
from ..scan import default_registry
from ._body import CommentInputs, marker_for, render_comment
from ._context import GitHubContext
from ._kept import earlier_trials
from ._publish import outputs, say, write_step_outputs
from ._rest import GitHubClient, GitHubError
from ._sticky import upsert_comment

RESULT_FILE = "results.json"


def _run_payload(context: GitHubContext) -> Mapping[str, Any]:
    run = context.payload.get("workflow_run")
    if not isinstance(run, Mapping) or not isinstance(run.get("head_sha"), str):
        raise InputError("workflow_run payload has no head_sha", path=str(context.event_path), field="workflow_run")
    return run


def find_pull_request(client: GitHubClient, repository: str, run: Mapping[str, Any]) -> int | None:
    """The open pull request whose head is the run's commit, from the event's own fields."""
    head_sha = run["head_sha"]
    for pr in run.get("pull_requests") or []:
        if isinstance(pr, Mapping) and isinstance(pr.get("number"), int):
            head = pr.get("head")
            if isinstance(head, Mapping) and head.get("sha") == head_sha:
                return int(pr["number"])
    owner = (
        run.get("head_repository", {}).get("owner", {}).get("login")
        if isinstance(run.get("head_repository"), Mapping)
        else None
    )
    branch = run.get("head_branch")
    if not isinstance(owner, str) or not isinstance(branch, str):
        return None
    for pr in client.paginate(f"/repos/{repository}/pulls", {"state": "open", "head": f"{owner}:{branch}"}):
        if isinstance(pr, Mapping) and pr.get("head", {}).get("sha") == head_sha:
            return int(pr["number"])
    return None


def post_prepared_comment(context: GitHubContext, results: Path | None, path: Path, comment_key: str | None) -> int:
    """Post (or update) the comment of the pull request the triggering run scanned.

    ``results`` is the pull request run's downloaded reports (``--results``), ``path`` the scanned folder's place
    in the repository (ci's PATH), ``comment_key`` the sticky comment's key."""
    if results is None:
        raise InputError(
            "workflow_run needs --results DIR: the downloaded reports of the pull request's run", field="--results"
        )
    run = _run_payload(context)
    result = read_scan_result(results / RESULT_FILE, inside=results)
    if context.token is None:
        raise InputError("workflow_run commenter needs GITHUB_TOKEN (pull-requests: write)", field="GITHUB_TOKEN")
    registry = default_registry()
    decision = decide(scan_criteria(result))
    prefix = path.as_posix().strip("/") if path.as_posix() not in (".", "") else ""
    links = SourceLinks(context.server_url, context.repository, run["head_sha"], prefix)
    marker = marker_for(comment_key)
    write_step_outputs(context, {k: v for k, v in outputs(decision, work="comment").items() if k != "comment-url"})
    try:
        with GitHubClient(context.api_url, context.token) as client:
            number = find_pull_request(client, context.repository, run)
            if number is None:
                say(f"no open pull request has head {run['head_sha'][:12]}: nothing to comment on")
                return EXIT_PASS
            earlier = earlier_trials(client, context.repository, number, marker)
            body = render_comment(
                CommentInputs(
                    decision=decision,
                    registry=registry,
                    scan=result,
                    links=links,
                    reason=f"pull request #{number}: static scan (posted by the workflow_run commenter)",
                    full_report_url=run.get("html_url") if isinstance(run.get("html_url"), str) else None,
                    marker=marker,
                    commit=run["head_sha"],
                    kept=earlier.kept,
                    notes=earlier.ignored,
                )
            )
            outcome = upsert_comment(client, context.repository, number, body, marker)
    except GitHubError as exc:
        say(f"the pull request's comment could not be posted: {exc}")
        return EXIT_RUNTIME_ERROR
    say(f"PR #{number} comment {outcome.action}: {outcome.url or outcome.reason}")
    write_step_outputs(context, {"comment-url": outcome.url or ""})
    return EXIT_PASS
