"""The sticky pull-request comment: one comment per pull request, updated in place on every run.

Our comment is the first one that (1) is by us: the token's own login when ``GET /user`` tells it
(a personal token), else ``github-actions[bot]`` (the workflow token, which may not read
``/user``); (2) *starts* with the hidden marker followed by the binding line
``<!-- aces-ci:for owner/name#N -->`` naming this repository and pull request; and (3) when the
workflow sets ``ACES_CI_SIGNING_KEY`` (a repository secret), ends with a valid signature
``<!-- aces-ci:sig v1 HMAC -->``: HMAC-SHA256 under that key of the repository, the number and
the whole body before it. Every workflow of a repository posts as ``github-actions[bot]``, so the
author alone does not tell our comment from one another workflow posts carrying our marker (a bot
that echoes a pull request's text); the binding stops a comment copied from another pull request,
and only the key makes a forged comment impossible (see ARCHITECTURE.md, "The sticky comment").
A comment by us that carries the marker but fails (2) or (3) is never edited, and its kept trials
are never read: the caller gets a note naming it. Comments are listed with pagination, so a pull
request with hundreds of comments still finds ours; then it is ``PATCH``\\ ed, else ``POST``\\ ed.

A fork's pull request runs with a read-only token: GitHub answers the write with 403 ("Resource
not accessible by integration"). That is not a failure of the gate: the body goes to the job
summary instead, with a sentence saying why, and the outcome says so.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from ._rest import GitHubClient, GitHubError

DEFAULT_BOT_LOGIN = "github-actions[bot]"
COMMENT_LIMIT = 65536
"""Characters GitHub accepts in one comment body."""
_PERMISSION_STATUSES = (401, 403, 404)
SIGNING_KEY_ENV = "ACES_CI_SIGNING_KEY"
"""The environment variable holding the key that signs our comments (a repository secret; optional)."""
_SIGNATURE = re.compile(r"\n<!-- aces-ci:sig v1 ([0-9a-f]{64}) -->\n?\Z")

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


def signing_key(env: Mapping[str, str] | None = None) -> bytes | None:
    """The comment-signing key from the environment, None when the workflow sets none (or on a fork's run)."""
    value = (os.environ if env is None else env).get(SIGNING_KEY_ENV, "")
    return value.encode() if value.strip() else None


def binding(repository: str, number: int) -> str:
    """The line after the marker that ties a comment to its repository and pull request."""
    return f"<!-- aces-ci:for {repository}#{number} -->"


def _mac(key: bytes, repository: str, number: int, body: str) -> str:
    message = f"{repository}\n{number}\n{body}".encode("utf-8", errors="surrogatepass")
    return hmac.new(key, message, hashlib.sha256).hexdigest()


def seal(body: str, marker: str, repository: str, number: int, key: bytes | None) -> str:
    """``body`` (which starts with ``marker``) bound to this pull request, and signed when there is a key."""
    rest = body[len(marker) :].removeprefix("\n") if body.startswith(marker) else body
    sealed = f"{marker}\n{binding(repository, number)}\n{rest}"
    if key is None:
        return sealed
    sealed = sealed if sealed.endswith("\n") else sealed + "\n"
    return f"{sealed}<!-- aces-ci:sig v1 {_mac(key, repository, number, sealed)} -->\n"


def unsealed_reason(body: str, marker: str, repository: str, number: int, key: bytes | None) -> str | None:
    """Why ``body`` is not a comment of ours for this pull request; None when it is."""
    body = body.replace("\r\n", "\n")
    if not body.startswith(f"{marker}\n{binding(repository, number)}\n"):
        return f"it does not start with aces-ci's marker bound to {repository}#{number}"
    if key is None:
        return None
    signed = _SIGNATURE.search(body)
    if signed is None:
        return f"it carries no signature, and this workflow signs its comments ({SIGNING_KEY_ENV})"
    if not hmac.compare_digest(signed.group(1), _mac(key, repository, number, body[: signed.start() + 1])):
        return f"its signature does not verify with this repository's {SIGNING_KEY_ENV}"
    return None


@dataclass(frozen=True)
class CommentSearch:
    """What the pull request's comments hold for us: our comment, and the ones that only look like it."""

    ours: Mapping[str, Any] | None
    ignored: tuple[str, ...] = ()
    """One sentence per comment by our author that carries the marker but is not ours (never edited nor read)."""


def search_comments(
    client: GitHubClient, repository: str, number: int, marker: str, login: str, *, key: bytes | None = None
) -> CommentSearch:
    """Our earlier comment on the pull request, if any (paginated over all its comments), and the impostors."""
    ours: Mapping[str, Any] | None = None
    ignored: list[str] = []
    for comment in client.paginate(f"/repos/{repository}/issues/{number}/comments"):
        if not isinstance(comment, Mapping) or not isinstance(comment.get("id"), int):
            continue
        body = comment.get("body")
        if not isinstance(body, str) or marker not in body or _login(comment) != login:
            continue
        reason = unsealed_reason(body, marker, repository, number, key)
        if reason is None and ours is None:
            ours = comment
        elif reason is not None:
            ignored.append(
                f"Comment {comment['id']} by {login} carries aces-ci's marker but is not taken for aces-ci's own "
                f"({reason}): it is left as it is, and any trials it shows are not carried."
            )
    return CommentSearch(ours, tuple(ignored))


def find_comment(
    client: GitHubClient, repository: str, number: int, marker: str, login: str, *, key: bytes | None = None
) -> Mapping[str, Any] | None:
    """Our earlier comment on the pull request, if any."""
    return search_comments(client, repository, number, marker, login, key=key).ours


def upsert_comment(client: GitHubClient, repository: str, number: int, body: str, marker: str) -> CommentResult:
    """Create or update our comment on pull request ``number``; ``refused`` when the token may not write.

    ``body`` starts with ``marker``; what is posted is it :func:`seal`\\ ed (bound, and signed with the
    key of :func:`signing_key` when the workflow sets one). A comment that only looks like ours is
    never edited: a new one is posted instead.
    """
    if not body.startswith(marker):
        raise ValueError("the comment body must start with its marker, or the next run cannot find it")
    key = signing_key()
    body = seal(body, marker, repository, number, key)
    if len(body) > COMMENT_LIMIT:
        raise ValueError(f"comment body has {len(body)} characters; GitHub accepts {COMMENT_LIMIT}")
    try:
        existing = find_comment(client, repository, number, marker, author_login(client), key=key)
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
