"""Reports of the static tier, each rendered from the one result model (:class:`aces_ci.scan.ScanResult`).

``render_text`` for terminals and logs, ``scan_result_to_dict``/``write_json`` for machines
(``schemas/scan-result.schema.json``), ``render_junit`` for test-report tools, ``render_sarif``/
``write_sarif`` for GitHub code scanning and ``render_markdown`` for the PR comment and job summary.
Renderers that describe rules take the :class:`aces_ci.scan.RuleRegistry` the scan ran with.
"""

from ._json import SCHEMA_VERSION, scan_result_to_dict, write_json
from ._junit import render_junit
from ._markdown import MARKER, render_markdown
from ._sarif import render_sarif, write_sarif
from ._text import render_text

__all__ = [
    "MARKER",
    "SCHEMA_VERSION",
    "render_junit",
    "render_markdown",
    "render_sarif",
    "render_text",
    "scan_result_to_dict",
    "write_json",
    "write_sarif",
]
