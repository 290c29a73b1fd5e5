"""Where a live verb's reports go: each file a trial or a valuation was asked to write, secrets redacted.

A trial writes its JSON (``schemas/trial-result.schema.json``), Markdown, JUnit and HTML; a valuation
its JSON (``schemas/skillsv-value.schema.json``) and HTML. The HTML page is rendered from the same JSON
through the schema check ``aces-ci report`` applies to files, so the page and the file cannot disagree;
a page written without ``--json`` names the verb as its source.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..atomic import write_output
from ..config import TrialReports
from ..redact import environment_secrets, redact_text
from ..skillsv import ValueReport, value_json
from ..trials import TrialResult
from ._trial_json import trial_result_to_dict
from ._trial_junit import render_trial_junit
from ._trial_markdown import render_trial_markdown
from ._write import json_bytes
from .html import document_from, write_html


def _write_page(path: Path, data: dict[str, Any], source: Path | None, verb: str) -> None:
    write_html(path, [document_from(data, str(source or verb))])


def write_trial_reports(result: TrialResult, reports: TrialReports) -> None:
    """Every report ``reports`` names (None: not asked for)."""
    secrets = environment_secrets()
    data = trial_result_to_dict(result)
    if reports.json is not None:
        write_output(reports.json, json_bytes(data), "JSON report")
    if reports.markdown is not None:
        write_output(reports.markdown, redact_text(render_trial_markdown(result), secrets), "Markdown report")
    if reports.junit is not None:
        write_output(reports.junit, redact_text(render_trial_junit(result), secrets), "JUnit report")
    if reports.html is not None:
        _write_page(reports.html, data, reports.json, "trial")


def write_value_reports(report: ValueReport, json: Path | None, html: Path | None) -> None:
    """The value report's JSON to ``json`` and its page to ``html`` (None: not asked for)."""
    data = value_json(report)
    if json is not None:
        write_output(json, json_bytes(data), "value report")
    if html is not None:
        _write_page(html, data, json, "value")
