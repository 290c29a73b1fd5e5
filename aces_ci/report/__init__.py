"""Reports, each rendered from a result model: the scan's (:class:`aces_ci.scan.ScanResult`) and the live tier's.

``render_text`` for terminals and logs, ``scan_result_to_dict``/``write_json`` for machines
(``schemas/scan-result.schema.json``; ``read_scan_result`` reads it back), ``render_junit`` for
test-report tools (``append_gate_suite`` adds the gate's criteria), ``render_sarif``/``write_sarif``
for GitHub code scanning and ``render_markdown`` for the PR comment and job summary.
Renderers that describe rules take the :class:`aces_ci.scan.RuleRegistry` the scan ran with.

The CI comment's sections (``scan_table``, ``lift_table``, ``cost_table``, ``lift_chart``,
``pruning_chart``, ``low_value_units``, ``score_vs_lift``, ``estimand_section``) render the live
tier's results through the Protocols of :mod:`aces_ci.report._live_model` (``TrialReport``,
``SkillTrial``, ``MetricLift``, ``ArmCost``, ``SkillValue``, ``UnitValue``, ``PruningCurve``).
Those sections compute with numpy, so they load on first use: ``aces-ci scan`` starts without it.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from ._common import by_severity_then_location
from ._gate_junit import GATE_SUITE, Criterion, append_gate_suite, gate_suite
from ._json import SCHEMA_VERSION, scan_result_to_dict, write_json
from ._junit import render_junit
from ._links import SourceLinks
from ._live_model import (
    TRIAL_METRICS,
    ArmCost,
    Discordance,
    MetricLift,
    PruningCurve,
    SkillTrial,
    SkillValue,
    TrialReport,
    UnitValue,
)
from ._load import read_json_file, read_scan_result, scan_result_from_dict
from ._markdown import MARKER, render_markdown
from ._markdown import _cell as markdown_cell
from ._sarif import render_sarif, write_sarif
from ._text import render_text
from ._write import json_bytes

if TYPE_CHECKING:
    from ._ci_sections import (
        cost_table,
        estimand_section,
        findings_table,
        fmt_interval,
        fmt_lift,
        lift_table,
        low_value_units,
        metric_lifts,
        scan_table,
        score_vs_lift,
        spearman,
    )
    from ._mermaid import lift_chart, pruning_chart

_LAZY = {
    **dict.fromkeys(
        (
            "cost_table",
            "estimand_section",
            "findings_table",
            "fmt_interval",
            "fmt_lift",
            "lift_table",
            "low_value_units",
            "metric_lifts",
            "scan_table",
            "score_vs_lift",
            "spearman",
        ),
        "._ci_sections",
    ),
    **dict.fromkeys(("lift_chart", "pruning_chart"), "._mermaid"),
}
"""Names whose modules import numpy (the live tier's sections), and the module each lives in."""


def __getattr__(name: str) -> Any:
    """Import the live tier's sections (and numpy) only when someone asks for them."""
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name], __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "GATE_SUITE",
    "MARKER",
    "SCHEMA_VERSION",
    "TRIAL_METRICS",
    "ArmCost",
    "Criterion",
    "Discordance",
    "MetricLift",
    "PruningCurve",
    "SkillTrial",
    "SkillValue",
    "SourceLinks",
    "TrialReport",
    "UnitValue",
    "append_gate_suite",
    "by_severity_then_location",
    "cost_table",
    "estimand_section",
    "findings_table",
    "fmt_interval",
    "fmt_lift",
    "gate_suite",
    "json_bytes",
    "lift_chart",
    "lift_table",
    "low_value_units",
    "markdown_cell",
    "metric_lifts",
    "pruning_chart",
    "read_json_file",
    "read_scan_result",
    "render_junit",
    "render_markdown",
    "render_sarif",
    "render_text",
    "scan_result_from_dict",
    "scan_result_to_dict",
    "scan_table",
    "score_vs_lift",
    "spearman",
    "write_json",
    "write_sarif",
]
