"""The HTML report: one self-contained page rendered from result JSON documents only.

``aces-ci report RESULT.json… --html report.html`` (and ``scan --html``) read scan, trial, trigger-trial, value,
compress and rerun results (:func:`read_documents`, validated against their schemas), render them
(:func:`render_html`) and write the page (:func:`write_html`). Because the page is rendered from
the JSON alone, it can be re-rendered later from a run's artifact. The modules, each with one job:
``_documents`` (recognise and validate), ``_escape`` (untrusted text into HTML), ``_shell`` (page,
CSS, policy, script), ``_svg`` (charts), and one per part: ``_trial``, ``_value``, ``_scan``,
``_rerun`` (``_triggers`` for a trigger trial, ``_compress`` for a compress result, ``_value_document`` for the
skill line by line), assembled by ``_page``.
"""

from __future__ import annotations

from pathlib import Path

from ...atomic import write_output
from ...redact import environment_secrets, redact_text
from ._documents import KINDS, MAX_RESULT_BYTES, ResultDocument, document_from, kind_of, read_documents
from ._page import render_html


def write_html(path: Path, documents: list[ResultDocument]) -> None:
    """Render ``documents`` and write the page to ``path`` atomically; known secrets are redacted on the way out."""
    write_output(path, redact_text(render_html(documents), environment_secrets()), "HTML report")


__all__ = [
    "KINDS",
    "MAX_RESULT_BYTES",
    "ResultDocument",
    "document_from",
    "kind_of",
    "read_documents",
    "render_html",
    "write_html",
]
