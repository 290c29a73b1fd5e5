"""The secret values of our own environment, so no trajectory, journal or cache can carry them.

Shape-based redaction (:mod:`aces_ci.redact`) catches keys that look like keys; a key for a
self-hosted endpoint may look like anything. Every value of a variable whose *name* marks it as
secret is therefore masked literally as well.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping

from ..redact import MIN_EXTRA_SECRET_LENGTH

_SECRET_NAME = re.compile(r"(?i)(api[_-]?key|apikey|token|secret|password|passwd|credential|private[_-]?key)")


def is_secret_name(name: str) -> bool:
    """Whether an environment variable's name marks its value as secret (``GITHUB_TOKEN``, ``*_API_KEY``…)."""
    return _SECRET_NAME.search(name) is not None


def environment_secrets(environ: Mapping[str, str] | None = None) -> tuple[str, ...]:
    """Values of secret-named variables (``*_API_KEY``, ``*_TOKEN``, ``*SECRET*``…), longest first."""
    env = os.environ if environ is None else environ
    values = {
        value
        for name, value in env.items()
        if is_secret_name(name) and len(value.strip()) >= MIN_EXTRA_SECRET_LENGTH
    }
    return tuple(sorted(values, key=len, reverse=True))
