"""A maintainer's approval of a fork's pull request for paid trials: the ``/aces trial <sha>`` comment.

A fork's pull request never gets our keys on its own events (:mod:`aces_ci.github._trust`). A
maintainer who has read the change can approve *that* change for trials by commenting

    /aces trial 0123456789abcdef0123456789abcdef01234567

on the pull request, with the full SHA of the head commit they reviewed. The ``issue_comment``
event runs the workflow of the default branch, with its secrets; what makes it safe:

* **who**: the commenter's permission is asked of the API (``GET /repos/{o}/{r}/collaborators/
  {user}/permission``: ``admin``, ``maintain`` or ``write``), never read from the comment's text or
  its ``author_association``;
* **what**: the pull request's head is asked of the API too, and must still be the pinned commit; a
  head that moved since (a push after the review) is refused, so nobody gets an unreviewed commit
  measured by pushing after an approval. The trial then measures the pinned commit, whatever the
  pull request's ref holds by the time it is fetched;
* **how**: everything that runs is the base's — its aces.yml, task and grader commands, and its
  workflow and action — and the fork's files are only read, as git objects of the pinned commit
  (:mod:`aces_ci.app._ci_approved`).

Only the first line of a comment is read; a comment not starting with ``/aces`` is not for us and
gets no reply (every comment on every issue triggers the workflow). Every refusal is a reply
comment saying why and what to do instead.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ._context import GitHubContext, PullRequest
from ._rest import GitHubClient, GitHubError

COMMAND = "/aces"
TRIAL_VERB = "trial"
WRITE_ROLES = frozenset({"admin", "maintain", "write"})
REPLY_MARKER = "<!-- aces-ci:approval -->"
_SHA = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")
_LOGIN = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})(?:\[bot\])?")
USAGE = f"`{COMMAND} {TRIAL_VERB} <full SHA of the pull request's head commit>`"


@dataclass(frozen=True)
class ApprovalComment:
    """An ``/aces`` command commented on a pull request, as the event payload gives it (nothing verified yet)."""

    number: int
    """The pull request's number."""
    author: str
    """The commenter's login (its permission is asked of the API)."""
    verb: str
    """The word after ``/aces`` (``trial``), lower-cased; empty when there is none."""
    sha: str | None
    """The pinned head commit when the argument is a full commit SHA; None otherwise."""

    @property
    def mention(self) -> str:
        """``@login`` for the reply when the login looks like one, else a neutral word."""
        return f"@{self.author}" if _LOGIN.fullmatch(self.author) else "The commenter"


def approval_comment(context: GitHubContext) -> ApprovalComment | None:
    """The ``/aces`` command of an ``issue_comment`` ``created`` event on a pull request; None for any other."""
    payload = context.payload
    if context.event_name != "issue_comment" or context.action != "created":
        return None
    issue, comment = payload.get("issue"), payload.get("comment")
    if not isinstance(issue, Mapping) or not isinstance(comment, Mapping) or "pull_request" not in issue:
        return None
    number, body, user = issue.get("number"), comment.get("body"), comment.get("user")
    login = user.get("login") if isinstance(user, Mapping) else None
    if not isinstance(number, int) or not isinstance(body, str) or not isinstance(login, str):
        return None
    first = body.lstrip().split("\n", 1)[0].strip()
    words = first.split()
    if not words or words[0].lower() != COMMAND:
        return None
    verb = words[1].lower() if len(words) > 1 else ""
    argument = words[2].lower() if len(words) == 3 else ""
    return ApprovalComment(number, login, verb, argument if _SHA.fullmatch(argument) else None)


def writer_role(client: GitHubClient, repository: str, login: str) -> str | None:
    """The commenter's role when it may write to ``repository`` (admin, maintain, write), else None.

    Asked of the API; a user GitHub does not know as a collaborator (404) has none. Any other failure
    raises :class:`~aces_ci.github.GitHubError`: an approval that cannot be checked is not given.
    """
    if not _LOGIN.fullmatch(login):
        return None
    response = client.request("GET", f"/repos/{repository}/collaborators/{login}/permission")
    if response.status_code == 404:
        return None
    if response.status_code != 200:
        raise client.error("GET", f"/repos/{repository}/collaborators/{login}/permission", response)
    data = response.json()
    if not isinstance(data, Mapping):
        return None
    for key in ("role_name", "permission"):
        role = data.get(key)
        if isinstance(role, str) and role in WRITE_ROLES:
            return role
    return None


@dataclass(frozen=True)
class PullRequestNow:
    """The pull request as the API tells it now (not as the event payload remembered it)."""

    pull_request: PullRequest
    open: bool


def pull_request_now(client: GitHubClient, repository: str, number: int) -> PullRequestNow:
    """``GET /repos/{o}/{r}/pulls/{n}``: its head and base commits, repositories and state."""
    data: Any = client.json("GET", f"/repos/{repository}/pulls/{number}", expect=(200,))
    pr = PullRequest.from_payload({"pull_request": data}) if isinstance(data, Mapping) else None
    if pr is None or not pr.head_sha or not pr.base_sha:
        raise GitHubError(f"GitHub API GET /repos/{repository}/pulls/{number}: no head and base commit in the answer")
    return PullRequestNow(pr, data.get("state") == "open")


def reply(client: GitHubClient, repository: str, number: int, text: str) -> str | None:
    """Post ``text`` as a new comment on the pull request (a refusal or an acknowledgement); its URL."""
    created = client.json("POST", f"/repos/{repository}/issues/{number}/comments", json={"body": _body(text)})
    url = created.get("html_url") if isinstance(created, Mapping) else None
    return url if isinstance(url, str) else None


def _body(text: str) -> str:
    return f"{REPLY_MARKER}\n{text}\n"


def refusal(comment: ApprovalComment, reason: str) -> str:
    """A refusal's words: who, why, and what would work."""
    return f"{comment.mention}: aces-ci did not run the trial. {reason}"
