"""The secrets of our own environment, and environments for child processes with none of them.

Shape-based detection catches keys that look like keys; a key for a self-hosted endpoint may look
like anything. So every value of a variable whose *name* marks it as secret is masked literally
wherever we write (:func:`environment_secrets`), and so is every value the detectors recognise
(``HTTPS_PROXY=http://user:pass@proxy``, a token under an innocent name). A child process that
needs none of them (the local model server, a harness CLI) gets :func:`safe_environment`.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping

from ._find import MIN_EXTRA_SECRET_LENGTH, find_secrets

__all__ = ["environment_secrets", "is_secret_name", "safe_environment"]

_SECRET_NAME = re.compile(
    r"(?i)(api[_-]?key|apikey|token|secret|password|passwd|passphrase|credential|private[_-]?key"
    r"|access[_-]?key|_auth\b|connection[_-]?string)"
)


def is_secret_name(name: str) -> bool:
    """Whether an environment variable's name marks its value as secret (``GITHUB_TOKEN``, ``*_API_KEY``…)."""
    return _SECRET_NAME.search(name) is not None


def _holds_secret(name: str, value: str) -> bool:
    return is_secret_name(name) or bool(find_secrets(value))


def environment_secrets(environ: Mapping[str, str] | None = None) -> tuple[str, ...]:
    """Values to mask literally: those of secret-named variables and those holding a detected secret.

    Longest first, each at least :data:`MIN_EXTRA_SECRET_LENGTH` characters (shorter ones would
    mask ordinary words).
    """
    env = os.environ if environ is None else environ
    values = {
        value
        for name, value in env.items()
        if len(value.strip()) >= MIN_EXTRA_SECRET_LENGTH and _holds_secret(name, value)
    }
    return tuple(sorted(values, key=len, reverse=True))


def safe_environment(environ: Mapping[str, str] | None = None, *, keep: Iterable[str] = ()) -> dict[str, str]:
    """``environ`` (default: ours) without secret-named variables or values holding a detected secret.

    ``keep`` names variables passed on whatever they hold: the one API key a harness CLI needs,
    or a proxy it must go through.
    """
    env = os.environ if environ is None else environ
    kept = frozenset(keep)
    return {name: value for name, value in env.items() if name in kept or not _holds_secret(name, value)}
