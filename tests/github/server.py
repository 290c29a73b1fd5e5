"""A local GitHub REST server for the tests: real HTTP on 127.0.0.1, GitHub's response shapes.

It keeps issue comments and check runs in memory and answers as api.github.com does:
``Link: <…>; rel="next"`` pagination (default 30 per page, ``per_page`` up to 100), 201 on create,
200 on update, 403 ``Resource not accessible by integration`` when the token is a fork's read-only
token, 403 on ``GET /user`` for the workflow token (an installation token may not read it); a
collaborator's permission and a pull request's current head, from what the test put in the state. Faults
are queued per test: the next requests get 5xx, a secondary-rate-limit 403 with ``Retry-After``,
a 429, or a primary-rate-limit 403 with ``x-ratelimit-remaining: 0``.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

BOT = {"login": "github-actions[bot]", "type": "Bot", "id": 41898282}
WRITE_TOKEN = "ghs_testWriteToken0123456789abcdefABCDEF"
FORK_TOKEN = "ghs_testForkReadOnly0123456789abcdefABCD"
PAT_TOKEN = "ghp_testPersonalToken0123456789abcdefABCD"


@dataclass
class Fault:
    status: int
    headers: dict[str, str] = field(default_factory=dict)
    body: Any = field(default_factory=dict)
    raw: bytes | None = None
    """Sent as is instead of ``body`` as JSON (an HTML page from a proxy)."""
    only: str | None = None
    """A regular expression on ``"METHOD /path"``: the fault waits for a request it matches (``POST .*``)."""


def server_error(status: int = 502) -> Fault:
    return Fault(status, {}, {"message": "Server Error"})


def secondary_rate_limit(retry_after: str = "1") -> Fault:
    return Fault(
        403,
        {"Retry-After": retry_after},
        {
            "message": "You have exceeded a secondary rate limit. Please wait a few minutes before you try again.",
            "documentation_url": "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api",
        },
    )


def html_page(status: int = 200) -> Fault:
    """What a captive portal or a misconfigured proxy answers: a 200 with an HTML page."""
    page = b"<!DOCTYPE html>\n<html><head><title>Sign in</title></head><body>Please sign in</body></html>\n"
    return Fault(status, {"Content-Type": "text/html; charset=utf-8"}, raw=page)


def too_many_requests(retry_after: str = "1") -> Fault:
    return Fault(429, {"Retry-After": retry_after}, {"message": "Too Many Requests"})


def primary_rate_limit(reset_epoch: int) -> Fault:
    return Fault(
        403,
        {"x-ratelimit-remaining": "0", "x-ratelimit-reset": str(reset_epoch), "x-ratelimit-limit": "1000"},
        {"message": "API rate limit exceeded for installation ID 1."},
    )


@dataclass
class Recorded:
    method: str
    path: str
    query: dict[str, list[str]]
    authorization: str | None
    body: Any


class GitHubState:
    def __init__(self, repository: str) -> None:
        self.repository = repository
        self.comments: dict[int, list[dict[str, Any]]] = {}
        self.check_runs: list[dict[str, Any]] = []
        self.pulls: list[dict[str, Any]] = []
        self.pull_details: dict[int, dict[str, Any]] = {}
        """``GET /repos/{o}/{r}/pulls/{n}``: each pull request as the API tells it now."""
        self.permissions: dict[str, str] = {}
        """``GET /repos/{o}/{r}/collaborators/{user}/permission``: each collaborator's role; others get 404."""
        self.faults: list[Fault] = []
        self.requests: list[Recorded] = []
        self.next_id = 1000
        self.lock = threading.Lock()
        self.base_url = ""

    def add_comment(self, number: int, body: str, user: dict[str, Any] | None = None) -> dict[str, Any]:
        self.next_id += 1
        comment = {
            "id": self.next_id,
            "body": body,
            "user": user or {"login": "octocat", "type": "User", "id": 1},
            "html_url": f"https://github.com/{self.repository}/pull/{number}#issuecomment-{self.next_id}",
            "created_at": "2026-01-31T09:30:00Z",
        }
        self.comments.setdefault(number, []).append(comment)
        return comment

    def ours(self, number: int, marker: str) -> list[dict[str, Any]]:
        return [c for c in self.comments.get(number, []) if marker in c["body"] and c["user"]["login"] == BOT["login"]]

    def writes(self) -> list[Recorded]:
        return [r for r in self.requests if r.method in ("POST", "PATCH", "DELETE")]


class _Handler(BaseHTTPRequestHandler):
    state: GitHubState

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _send(self, status: int, body: Any, headers: dict[str, str] | None = None, raw: bytes | None = None) -> None:
        payload = json.dumps(body).encode() if raw is None else raw
        headers = dict(headers or {})
        self.send_response(status)
        self.send_header("Content-Type", headers.pop("Content-Type", "application/json; charset=utf-8"))
        self.send_header("Content-Length", str(len(payload)))
        for name, value in headers.items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(payload)

    def _handle(self) -> None:
        state = self.state
        parts = urlsplit(self.path)
        query = parse_qs(parts.query)
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        body = json.loads(raw) if raw else None
        auth = self.headers.get("Authorization")
        with state.lock:
            state.requests.append(Recorded(self.command, parts.path, query, auth, body))
            fault = next(
                (f for f in state.faults if f.only is None or re.fullmatch(f.only, f"{self.command} {parts.path}")),
                None,
            )
            if fault is not None:
                state.faults.remove(fault)
        if fault is not None:
            self._send(fault.status, fault.body, fault.headers, fault.raw)
            return
        token = auth.removeprefix("Bearer ") if auth else None
        if token not in (WRITE_TOKEN, FORK_TOKEN, PAT_TOKEN):
            self._send(401, {"message": "Bad credentials"})
            return
        self._route(parts.path, query, body, token)

    def _route(self, path: str, query: dict[str, list[str]], body: Any, token: str | None) -> None:
        state = self.state
        repo = re.escape(state.repository)
        if path == "/user":
            if token == PAT_TOKEN:
                self._send(200, {"login": "release-bot", "type": "User"})
            else:
                self._send(403, {"message": "Resource not accessible by integration"})
            return
        if match := re.fullmatch(rf"/repos/{repo}/issues/(\d+)/comments", path):
            number = int(match.group(1))
            if self.command == "GET":
                self._list(path, query, state.comments.get(number, []))
                return
            if self.command == "POST":
                if token == FORK_TOKEN:
                    self._forbidden()
                    return
                user = {"login": "release-bot", "type": "User"} if token == PAT_TOKEN else BOT
                with state.lock:
                    created = state.add_comment(number, body["body"], dict(user))
                self._send(201, created)
                return
        if (match := re.fullmatch(rf"/repos/{repo}/issues/comments/(\d+)", path)) and self.command == "PATCH":
            self._edit_comment(int(match.group(1)), body, token)
            return
        if path == f"/repos/{state.repository}/check-runs" and self.command == "POST":
            if token == FORK_TOKEN:
                self._forbidden()
                return
            run = {"id": len(state.check_runs) + 1, "html_url": "https://github.com/checks/1", **body}
            state.check_runs.append(run)
            self._send(201, run)
            return
        if match := re.fullmatch(rf"/repos/{repo}/check-runs/(\d+)", path):
            run = state.check_runs[int(match.group(1)) - 1]
            run.setdefault("more_annotations", []).extend(body["output"]["annotations"])
            self._send(200, run)
            return
        if (match := re.fullmatch(rf"/repos/{repo}/collaborators/([^/]+)/permission", path)) and self.command == "GET":
            role = state.permissions.get(match.group(1))
            if role is None:
                self._send(404, {"message": "Not Found"})
            else:
                permission = {"maintain": "write", "triage": "read"}.get(role, role)
                self._send(200, {"permission": permission, "role_name": role, "user": {"login": match.group(1)}})
            return
        if (match := re.fullmatch(rf"/repos/{repo}/pulls/(\d+)", path)) and self.command == "GET":
            pull = state.pull_details.get(int(match.group(1)))
            self._send(200, pull) if pull is not None else self._send(404, {"message": "Not Found"})
            return
        if path == f"/repos/{state.repository}/pulls" and self.command == "GET":
            head = query.get("head", [""])[0]
            matching = [p for p in state.pulls if f"{p['head']['repo']['owner']['login']}:{p['head']['ref']}" == head]
            self._list(path, query, matching)
            return
        self._send(404, {"message": "Not Found", "documentation_url": "https://docs.github.com/rest"})

    def _edit_comment(self, comment_id: int, body: Any, token: str | None) -> None:
        if token == FORK_TOKEN:
            self._forbidden()
            return
        for comments in self.state.comments.values():
            for comment in comments:
                if comment["id"] == comment_id:
                    comment["body"] = body["body"]
                    self._send(200, comment)
                    return
        self._send(404, {"message": "Not Found"})

    def _forbidden(self) -> None:
        self._send(
            403,
            {
                "message": "Resource not accessible by integration",
                "documentation_url": "https://docs.github.com/rest/issues/comments#create-an-issue-comment",
            },
        )

    def _list(self, path: str, query: dict[str, list[str]], items: list[dict[str, Any]]) -> None:
        per_page = min(int(query.get("per_page", ["30"])[0]), 100)
        page = int(query.get("page", ["1"])[0])
        chunk = items[(page - 1) * per_page : page * per_page]
        last = max(1, -(-len(items) // per_page))
        links = []
        extra = "".join(f"&{k}={v[0]}" for k, v in query.items() if k not in ("per_page", "page"))
        if page < last:
            links.append(f'<{self.state.base_url}{path}?per_page={per_page}&page={page + 1}{extra}>; rel="next"')
            links.append(f'<{self.state.base_url}{path}?per_page={per_page}&page={last}{extra}>; rel="last"')
        self._send(200, chunk, {"Link": ", ".join(links)} if links else {})

    def do_GET(self) -> None:
        self._handle()

    def do_POST(self) -> None:
        self._handle()

    def do_PATCH(self) -> None:
        self._handle()


class GitHubServer:
    def __init__(self, repository: str = "acme/skills") -> None:
        self.state = GitHubState(repository)
        handler = type("Handler", (_Handler,), {"state": self.state})
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        self.state.base_url = self.url
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def __enter__(self) -> GitHubServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=10)


def running_server(repository: str = "acme/skills") -> Iterator[GitHubServer]:
    with GitHubServer(repository) as server:
        yield server
