"""An optional check run: the verdict as a named check on the commit, with findings as line annotations.

Workflow-command annotations are capped at 10 per level per step; the Checks API takes 50
annotations per request and any number of requests, so a check run can carry every finding. It
needs ``checks: write``; without it GitHub answers 403 and the run says so and goes on (the
comment and the job summary still carry the result).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from ._commands import Annotation
from ._rest import GitHubClient, GitHubError

ANNOTATIONS_PER_REQUEST = 50
SUMMARY_LIMIT = 65535
"""Characters the Checks API accepts in ``output.summary``."""
_LEVELS = {"error": "failure", "warning": "warning", "notice": "notice"}

Conclusion = Literal["success", "failure", "neutral"]


@dataclass(frozen=True)
class CheckRunResult:
    created: bool
    url: str | None = None
    annotations: int = 0
    reason: str = ""


def _annotation(annotation: Annotation) -> dict[str, Any] | None:
    if not annotation.path:
        return None
    line = annotation.line or 1
    entry: dict[str, Any] = {
        "path": annotation.path,
        "start_line": line,
        "end_line": line,
        "annotation_level": _LEVELS[annotation.level],
        "message": annotation.message[:64000],
    }
    if annotation.title:
        entry["title"] = annotation.title[:255]
    return entry


def create_check_run(
    client: GitHubClient,
    repository: str,
    head_sha: str,
    *,
    name: str,
    conclusion: Conclusion,
    title: str,
    summary: str,
    annotations: Sequence[Annotation],
) -> CheckRunResult:
    """Create a completed check run carrying every annotation that names a file (in batches of 50)."""
    entries = [entry for entry in (_annotation(a) for a in annotations) if entry is not None]
    batches = [entries[i : i + ANNOTATIONS_PER_REQUEST] for i in range(0, len(entries), ANNOTATIONS_PER_REQUEST)]
    output = {"title": title[:255], "summary": summary[:SUMMARY_LIMIT], "annotations": batches[0] if batches else []}
    body = {"name": name, "head_sha": head_sha, "status": "completed", "conclusion": conclusion, "output": output}
    url = f"/repos/{repository}/check-runs"
    response = client.request("POST", url, json=body)
    if response.status_code in (401, 403, 404):
        return CheckRunResult(False, reason=str(client.error("POST", url, response)))
    if response.status_code != 201:
        raise client.error("POST", url, response)
    created = response.json()
    if not isinstance(created, dict) or not isinstance(created.get("id"), int):
        raise GitHubError(f"GitHub API POST {url} returned HTTP 201 without a check run id", status=201)
    run_url = f"/repos/{repository}/check-runs/{created['id']}"
    for batch in batches[1:]:
        client.json("PATCH", run_url, json={"output": {**output, "annotations": batch}}, expect=(200,))
    html_url = created.get("html_url")
    return CheckRunResult(True, html_url if isinstance(html_url, str) else None, len(entries))
