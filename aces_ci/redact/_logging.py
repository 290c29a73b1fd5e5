"""Log records pass through the redactor before any handler formats them.

A retry warning quotes the provider's error, an error quotes a URL with a key in its query: the
message, its arguments and the formatted traceback of every record our loggers emit are masked.
Each module of ours gets its logger from :func:`get_logger`, which puts the filter on that logger
(filters of a parent logger do not see records of its children).
"""

from __future__ import annotations

import logging

from ._find import redact_text

__all__ = ["RedactingFilter", "get_logger"]


class RedactingFilter(logging.Filter):
    """Replaces a record's message (with its arguments merged in) and traceback by their redacted text."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.msg = redact_text(record.getMessage())
        record.args = None
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = redact_text(record.exc_text)
        if record.stack_info:
            record.stack_info = redact_text(record.stack_info)
        return True


_FILTER = RedactingFilter()


def get_logger(name: str) -> logging.Logger:
    """``logging.getLogger(name)`` with the redacting filter attached (once)."""
    logger = logging.getLogger(name)
    if _FILTER not in logger.filters:
        logger.addFilter(_FILTER)
    return logger
