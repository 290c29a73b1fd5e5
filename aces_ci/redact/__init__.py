"""Find secrets and mask them before anything is written, printed or reported: the one redactor.

Two users ask the same question, "is this a secret?": the SEC001 scan rule (a credential committed
in a skill) and every writer of ours (trajectories, cache entries, journal records, reports, log
lines, error messages). The answer lives here once, in a room that imports nothing of ours.

* :mod:`._detectors` — the credential formats, each with the literal marks its matches contain;
* :mod:`._special` — private-key blocks, secret-named assignments, ``.netrc`` entries;
* :mod:`._policy` — when a look-alike is left alone, and the reason a report gives;
* :mod:`._find` — one screened pass over a text: find, explain, mask;
* :mod:`._walk` — every string of a JSON-like value;
* :mod:`._environment` — secrets of our environment, and environments without them;
* :mod:`._logging` — log records masked before any handler sees them;
* :mod:`._output` — the last gates: JSON written to disk, and stdout/stderr of the command line.
"""

from ._detectors import KINDS, Kind
from ._environment import environment_secrets, is_secret_name, safe_environment
from ._find import (
    MIN_EXTRA_SECRET_LENGTH,
    LeftAlone,
    SecretMatch,
    SecretScan,
    excerpt,
    find_secrets,
    redact_text,
    redacted_lines,
    safe_prefix,
    scan_text,
    trim_partial_tokens,
)
from ._logging import RedactingFilter, get_logger
from ._output import RedactingStream, command_writer, redacted_json, redacted_stdio
from ._walk import redact_obj

__all__ = [
    "KINDS",
    "MIN_EXTRA_SECRET_LENGTH",
    "Kind",
    "LeftAlone",
    "RedactingFilter",
    "RedactingStream",
    "SecretMatch",
    "SecretScan",
    "command_writer",
    "environment_secrets",
    "excerpt",
    "find_secrets",
    "get_logger",
    "is_secret_name",
    "redact_obj",
    "redact_text",
    "redacted_json",
    "redacted_lines",
    "redacted_stdio",
    "safe_environment",
    "safe_prefix",
    "scan_text",
    "trim_partial_tokens",
]
