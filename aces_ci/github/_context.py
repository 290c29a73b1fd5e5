"""The GitHub Actions context of a run, read from the standard environment and the event payload.

Everything comes from what the runner sets for every step — ``GITHUB_EVENT_NAME``,
``GITHUB_EVENT_PATH`` (the webhook payload as JSON), ``GITHUB_REPOSITORY``, ``GITHUB_SHA``,
``GITHUB_REF``, ``GITHUB_HEAD_REF``/``GITHUB_BASE_REF``, ``GITHUB_API_URL``, ``GITHUB_SERVER_URL``,
``GITHUB_TOKEN`` (mapped by the action), ``GITHUB_OUTPUT``, ``GITHUB_STEP_SUMMARY``, ``GITHUB_RUN_ID``
— so that a test, or a user on a laptop, reproduces a run by setting the same variables, and
``GITHUB_API_URL`` lets a local server stand in for api.github.com.

The token is kept out of ``repr`` and never printed; :meth:`GitHubContext.secrets` hands it to
the redactor so it is masked wherever it might be echoed.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import ConfigError, InputError
from ..report import read_json_file

MAX_EVENT_BYTES = 32 * 1024 * 1024
"""A webhook payload is at most 25 MB; anything larger is not one."""
DEFAULT_API_URL = "https://api.github.com"
DEFAULT_SERVER_URL = "https://github.com"
TAG_PREFIX = "refs/tags/"
BRANCH_PREFIX = "refs/heads/"


def _text(data: Mapping[str, Any], *keys: str) -> str | None:
    """The string at ``data[k1][k2]…``, None when any step is missing or not the right type."""
    value: Any = data
    for key in keys:
        if not isinstance(value, Mapping):
            return None
        value = value.get(key)
    return value if isinstance(value, str) and value else None


def _number(data: Mapping[str, Any], *keys: str) -> int | None:
    value: Any = data
    for key in keys:
        if not isinstance(value, Mapping):
            return None
        value = value.get(key)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


@dataclass(frozen=True)
class PullRequest:
    """The pull request an event is about, as far as the payload tells."""

    number: int
    head_sha: str | None
    base_sha: str | None
    head_ref: str | None
    base_ref: str | None
    head_repository: str | None
    """``owner/name`` of the head repository; None when the fork was deleted."""
    base_repository: str | None
    labels: tuple[str, ...] = ()

    @property
    def is_fork(self) -> bool:
        """Whether the head lives in another repository: its code runs without our secrets."""
        return self.head_repository is None or self.head_repository != self.base_repository

    @classmethod
    def from_payload(cls, payload: Mapping[str, Any]) -> PullRequest | None:
        raw = payload.get("pull_request")
        if not isinstance(raw, Mapping):
            return None
        number = _number(raw, "number") or _number(payload, "number")
        if number is None:
            return None
        labels = raw.get("labels")
        names = tuple(
            label["name"]
            for label in (labels if isinstance(labels, list) else [])
            if isinstance(label, Mapping) and isinstance(label.get("name"), str)
        )
        return cls(
            number=number,
            head_sha=_text(raw, "head", "sha"),
            base_sha=_text(raw, "base", "sha"),
            head_ref=_text(raw, "head", "ref"),
            base_ref=_text(raw, "base", "ref"),
            head_repository=_text(raw, "head", "repo", "full_name"),
            base_repository=_text(raw, "base", "repo", "full_name"),
            labels=names,
        )


@dataclass(frozen=True)
class GitHubContext:
    """One step's view of its workflow run."""

    event_name: str
    payload: Mapping[str, Any]
    repository: str
    """``owner/name``."""
    sha: str
    ref: str
    api_url: str = DEFAULT_API_URL
    server_url: str = DEFAULT_SERVER_URL
    token: str | None = field(default=None, repr=False)
    output_path: Path | None = None
    summary_path: Path | None = None
    run_id: str | None = None
    head_ref: str | None = None
    base_ref: str | None = None
    workspace: Path | None = None
    event_path: Path | None = None

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> GitHubContext:
        """The context of the current step; a missing or unreadable payload is an input error (exit 2)."""
        event_name = env.get("GITHUB_EVENT_NAME", "").strip()
        if not event_name:
            raise ConfigError(
                "GITHUB_EVENT_NAME is not set: `aces-ci ci` reads the GitHub Actions environment; "
                "outside Actions set GITHUB_EVENT_NAME and GITHUB_EVENT_PATH, or run `aces-ci scan`",
                field="GITHUB_EVENT_NAME",
            )
        event_path = Path(env["GITHUB_EVENT_PATH"]) if env.get("GITHUB_EVENT_PATH") else None
        payload = read_payload(event_path) if event_path is not None else {}
        repository = env.get("GITHUB_REPOSITORY", "").strip() or (_text(payload, "repository", "full_name") or "")
        if repository.count("/") != 1 or repository.startswith("/") or repository.endswith("/"):
            raise ConfigError(f"GITHUB_REPOSITORY must be owner/name; got {repository!r}", field="GITHUB_REPOSITORY")
        return cls(
            event_name=event_name,
            payload=payload,
            repository=repository,
            sha=env.get("GITHUB_SHA", "").strip() or (_text(payload, "after") or ""),
            ref=env.get("GITHUB_REF", "").strip() or (_text(payload, "ref") or ""),
            api_url=(env.get("GITHUB_API_URL", "").strip() or DEFAULT_API_URL).rstrip("/"),
            server_url=(env.get("GITHUB_SERVER_URL", "").strip() or DEFAULT_SERVER_URL).rstrip("/"),
            token=env.get("GITHUB_TOKEN", "").strip() or None,
            output_path=Path(env["GITHUB_OUTPUT"]) if env.get("GITHUB_OUTPUT") else None,
            summary_path=Path(env["GITHUB_STEP_SUMMARY"]) if env.get("GITHUB_STEP_SUMMARY") else None,
            run_id=env.get("GITHUB_RUN_ID", "").strip() or None,
            head_ref=env.get("GITHUB_HEAD_REF", "").strip() or None,
            base_ref=env.get("GITHUB_BASE_REF", "").strip() or None,
            workspace=Path(env["GITHUB_WORKSPACE"]) if env.get("GITHUB_WORKSPACE") else None,
            event_path=event_path,
        )

    @property
    def owner(self) -> str:
        return self.repository.split("/", 1)[0]

    @property
    def name(self) -> str:
        return self.repository.split("/", 1)[1]

    @property
    def action(self) -> str | None:
        """The payload's ``action`` (``opened``, ``labeled``, ``published``…)."""
        return _text(self.payload, "action")

    @property
    def tag(self) -> str | None:
        """The tag this run is for: a tag push's ref, or a release's tag."""
        if self.ref.startswith(TAG_PREFIX):
            return self.ref[len(TAG_PREFIX) :]
        return _text(self.payload, "release", "tag_name")

    @property
    def pull_request(self) -> PullRequest | None:
        return PullRequest.from_payload(self.payload)

    @property
    def added_label(self) -> str | None:
        """The label a ``labeled`` event added."""
        return _text(self.payload, "label", "name") if self.action == "labeled" else None

    @property
    def run_url(self) -> str | None:
        """The run's page, where its artifacts (the full reports) are listed."""
        if self.run_id is None:
            return None
        return f"{self.server_url}/{self.repository}/actions/runs/{self.run_id}"

    @property
    def head_sha(self) -> str:
        """The commit the code under test is at: a pull request's head, else ``GITHUB_SHA``.

        On ``pull_request`` events ``GITHUB_SHA`` is the temporary merge commit, which has no
        blob pages that stay valid; links point at the head commit instead.
        """
        pr = self.pull_request
        if pr is not None and pr.head_sha:
            return pr.head_sha
        return self.sha

    def secrets(self) -> tuple[str, ...]:
        """Values to mask wherever text leaves this process."""
        return (self.token,) if self.token else ()


def read_payload(path: Path) -> dict[str, Any]:
    """The event payload file as a JSON object; anything else is an input error naming the file."""
    data = read_json_file(path, "event payload (GITHUB_EVENT_PATH)", MAX_EVENT_BYTES)
    if not isinstance(data, dict):
        raise InputError("event payload must be a JSON object", path=str(path))
    return data
