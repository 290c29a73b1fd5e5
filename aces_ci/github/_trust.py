"""Whose code this run checked out, and so whether anything may run from it with our secrets.

A workflow's secrets belong to the repository; a pull request's files belong to its author. Two
situations put the author's files in reach of the secrets:

* ``pull_request_target`` runs in the base repository, with its secrets and a write token, for any
  pull request, a fork's included; a workflow that checks out the pull request's head hands that
  code the secrets. aces-ci cannot know what else the workflow did with the checkout, so under this
  event it never trusts the tree, whatever commit is checked out (a base checkout would only scan
  the base, which says nothing about the pull request).
* a **fork's** pull request on any other event (``pull_request``: GitHub normally withholds secrets,
  but a private repository may send them to forks), or any event whose checked-out commit is a
  fork pull request's head — or, for ``workflow_run``, the head of a run from a fork (the commenter
  pattern gone wrong: a workflow that checks out ``workflow_run.head_sha``).

An untrusted tree gets the static scan only: no LLM judge, no model, no task or grader command,
no paid work — so no endpoint its aces.yml names (``judge.base_url``, ``run.base_url``, provider
settings) is ever contacted, and the model keys are removed from the process's environment for the
rest of the run besides (:func:`aces_ci.commands.ci.run`). The comment says what was skipped and why.
``aces-ci scan`` asks :func:`actions_trust` before its judge runs, so a workflow that calls the scan
directly gets the same rule.
"""

from __future__ import annotations

import subprocess
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from ..errors import ConfigError, InputError
from ._context import GitHubContext

GIT_TIMEOUT_S = 30.0


@dataclass(frozen=True)
class CodeTrust:
    """Whether the checked-out tree may run anything with this repository's secrets, and why not."""

    trusted: bool
    reason: str = ""
    """Why the tree is not trusted, in words the comment repeats; empty when trusted."""

    @property
    def note(self) -> str:
        """The comment's sentence about what did not run."""
        if self.trusted:
            return ""
        return (
            f"{self.reason} So aces-ci ran the static scan only: no LLM judge, no model, no task or grader "
            "command, and no endpoint from the checked-out aces.yml was contacted; the model keys were withheld. "
            "A maintainer can run the paid trials with the comment `/aces trial <head sha>` (see the README's "
            "Trust model)."
        )


def checked_out_commit(path: Path) -> str | None:
    """The commit the work tree holding ``path`` has checked out; None outside git (or when git cannot tell)."""
    start = path if path.is_dir() else path.parent
    try:
        done = subprocess.run(
            ["git", "-C", str(start), "rev-parse", "--verify", "--quiet", "HEAD^{commit}"],
            capture_output=True,
            text=True,
            timeout=GIT_TIMEOUT_S,
            check=False,
            stdin=subprocess.DEVNULL,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    sha = done.stdout.strip()
    return sha if done.returncode == 0 and sha else None


def code_trust(context: GitHubContext, checked_out: str | None) -> CodeTrust:
    """The rules of the module docstring for this run's event and checked-out commit."""
    pr = context.pull_request
    fork_run = _fork_run_head(context)
    if fork_run is not None and checked_out == fork_run[0]:
        return CodeTrust(
            False, f"The checked-out commit {checked_out[:12]} is the head of a workflow run from {fork_run[1]}."
        )
    if context.event_name == "pull_request_target":
        whose = ""
        if pr is not None and checked_out is not None and checked_out == pr.head_sha:
            whose = f" The checked-out commit {checked_out[:12]} is the pull request's head."
        return CodeTrust(
            False,
            "This run is a `pull_request_target` event: it holds this repository's secrets while the "
            f"checked-out code may be the pull request's.{whose}",
        )
    if pr is None or not pr.is_fork:
        return CodeTrust(True)
    head = pr.head_repository or "a deleted fork"
    if context.event_name == "pull_request":
        return CodeTrust(False, f"Pull request #{pr.number} comes from {head}: its files are not trusted with keys.")
    if checked_out is not None and checked_out == pr.head_sha:
        return CodeTrust(
            False,
            f"The checked-out commit {checked_out[:12]} is the head of pull request #{pr.number} from {head}.",
        )
    return CodeTrust(True)


def _fork_run_head(context: GitHubContext) -> tuple[str, str] | None:
    """A ``workflow_run`` event's head commit and repository when that repository is not this one."""
    run = context.payload.get("workflow_run") if context.event_name == "workflow_run" else None
    if not isinstance(run, Mapping):
        return None
    sha, repo = run.get("head_sha"), run.get("head_repository")
    name = repo.get("full_name") if isinstance(repo, Mapping) else None
    if not isinstance(sha, str) or name == context.repository:
        return None
    return sha, name if isinstance(name, str) else "a deleted fork"


def actions_trust(environ: Mapping[str, str], path: Path) -> CodeTrust:
    """The trust of ``path``'s checkout when this process runs in a GitHub Actions step; trusted elsewhere.

    An Actions event that cannot be read is not trusted: whose code this is cannot be told.
    """
    if environ.get("GITHUB_ACTIONS") != "true" or not environ.get("GITHUB_EVENT_NAME", "").strip():
        return CodeTrust(True)
    try:
        context = GitHubContext.from_env(environ)
    except (ConfigError, InputError) as exc:
        return CodeTrust(False, f"The GitHub Actions event cannot be read ({exc}), so whose code this is is unknown.")
    return code_trust(context, checked_out_commit(path.resolve()))
