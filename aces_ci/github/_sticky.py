"""The sticky pull-request comment: one comment per pull request, updated in place on every run.

Our comment is the first one whose body holds the hidden marker *and* whose author is us: the
token's own login when ``GET /user`` tells it (a personal token), else ``github-actions[bot]``
(the workflow token, which may not read ``/user``). The author check keeps anyone else's comment
that quotes the marker from being taken for ours. Comments are listed with pagination, so a
pull request with hundreds of comments still finds it; then it is ``PATCH``\\ ed, else ``POST``\\ ed.

A fork's pull request runs with a read-only token: GitHub answers the write with 403 ("Resource
not accessible by integration"). That is not a failure of the gate: the body goes to the job
summary instead, with a sentence saying why, and the outcome says so.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from ._rest import GitHubClient, GitHubError

DEFAULT_BOT_LOGIN = "github-actions[bot]"
COMMENT_LIMIT = 65536
"""Characters GitHub accepts in one comment body."""
_PERMISSION_STATUSES = (401, 403, 404)

CommentAction = Literal["created", "updated", "unchanged", "refused"]


@dataclass(frozen=True)
class CommentResult:
    action: CommentAction
    url: str | None = None
    reason: str = ""
    """Why the comment was refused, in GitHub's words."""


def _login(comment: Mapping[str, Any]) -> str | None:
    user = comment.get("user")
    login = user.get("login") if isinstance(user, Mapping) else None
    return login if isinstance(login, str) else None


def author_login(client: GitHubClient) -> str:
    """Who our comments are by: the token's user when it may say, else the Actions bot."""
    response = client.request("GET", "/user")
    if response.status_code == 200:
        body = response.json()
        if isinstance(body, Mapping) and isinstance(body.get("login"), str):
            return str(body["login"])
    return DEFAULT_BOT_LOGIN


def find_comment(
    client: GitHubClient, repository: str, number: int, marker: str, login: str
) -> Mapping[str, Any] | None:
    """Our earlier comment on the pull request, if any (paginated over all its comments)."""
    for comment in client.paginate(f"/repos/{repository}/issues/{number}/comments"):
        if not isinstance(comment, Mapping):
            continue
        body = comment.get("body")
        if isinstance(body, str) and marker in body and _login(comment) == login:
            return comment
    return None


def upsert_comment(client: GitHubClient, repository: str, number: int, body: str, marker: str) -> CommentResult:
    """Create or update our comment on pull request ``number``; ``refused`` when the token may not write."""
    if marker not in body:
        raise ValueError("the comment body must hold its marker, or the next run cannot find it")
    if len(body) > COMMENT_LIMIT:
        raise ValueError(f"comment body has {len(body)} characters; GitHub accepts {COMMENT_LIMIT}")
    try:
        existing = find_comment(client, repository, number, marker, author_login(client))
    except GitHubError as exc:
        if exc.denied:
            return CommentResult("refused", reason=str(exc))
        raise
    action: CommentAction
    if existing is not None:
        if existing.get("body") == body:
            return CommentResult("unchanged", _url(existing))
        method, url, expected, action = "PATCH", f"/repos/{repository}/issues/comments/{existing['id']}", 200, "updated"
    else:
        method, url, expected, action = "POST", f"/repos/{repository}/issues/{number}/comments", 201, "created"
    response = client.request(method, url, json={"body": body})
    if response.status_code in _PERMISSION_STATUSES:
        return CommentResult("refused", reason=str(client.error(method, url, response)))
    if response.status_code != expected:
        raise client.error(method, url, response)
    data = response.json()
    return CommentResult(action, _url(data) if isinstance(data, Mapping) else None)


def _url(comment: Mapping[str, Any]) -> str | None:
    url = comment.get("html_url")
    return url if isinstance(url, str) else None
