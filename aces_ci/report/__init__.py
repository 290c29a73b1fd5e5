"""Reports, each rendered from a result model: the scan's (:class:`aces_ci.scan.ScanResult`) and the live tier's.

``render_text`` for terminals and logs, ``scan_result_to_dict``/``write_json`` for machines
(``schemas/scan-result.schema.json``; ``read_scan_result`` reads it back), ``render_junit`` for
test-report tools (``append_gate_suite`` adds the gate's criteria), ``render_sarif``/``write_sarif``
for GitHub code scanning and ``render_markdown`` for the PR comment and job summary.
Renderers that describe rules take the :class:`aces_ci.scan.RuleRegistry` the scan ran with.

The CI comment's sections (``scan_table``, ``lift_table``, ``cost_table``, ``lift_chart``,
``pruning_chart``, ``low_value_units``, ``value_markdown``, ``score_vs_lift``, ``estimand_section``) render
the live tier's results through the Protocols of :mod:`aces_ci.report._live_model` (``TrialReport``,
``SkillTrial``, ``MetricLift``, ``ArmCost``, ``SkillValue``, ``UnitValue``, ``UnitPair``, ``ValuePrecision``,
``PruningCurve``).
Those sections compute with numpy, so they load on first use: ``aces-ci scan`` starts without it.

The trial verb's own reports render :class:`aces_ci.trials.TrialResult` and load on first use
too: ``render_trial_text``, ``trial_result_to_dict``/``write_trial_json``
(``schemas/trial-result.schema.json``), ``render_trial_markdown``, ``render_trial_junit``, and the
plan's ``render_plan_text``/``plan_to_dict``/``write_plan_json``; ``render_rollout_text``,
``render_compile_text`` and ``render_value_plan``/``render_value_text`` print the other live verbs' results;
``write_trial_reports``/``write_value_reports`` write every file a trial or a valuation was asked for.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from ._common import by_severity_then_location, skill_title
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
    Settling,
    SkillTrial,
    SkillValue,
    TrialReport,
    UnitPair,
    UnitValue,
    ValuePrecision,
)
from ._load import read_json_file, read_scan_result, scan_result_from_dict
from ._markdown import MARKER, render_markdown
from ._md_escape import cell as markdown_cell
from ._md_escape import code_span as markdown_code
from ._md_escape import html_text as markdown_html_text
from ._md_escape import link_url as markdown_link_url
from ._sarif import render_sarif, write_sarif
from ._text import render_text
from ._write import json_bytes

if TYPE_CHECKING:
    from ._ci_sections import (
        case_table,
        cost_ratio,
        cost_table,
        estimand_section,
        findings_table,
        fmt_interval,
        fmt_lift,
        headline,
        headline_parts,
        lift_table,
        metric_lifts,
        scan_table,
        score_vs_lift,
        short_hashes,
        shown_lifts,
        spearman,
    )
    from ._compile_text import hierarchy_text, render_compile_text
    from ._compress import COMPRESS_MARKER, render_compress_comment, render_compress_markdown, render_compress_text
    from ._live_files import write_trial_reports, write_value_reports
    from ._mermaid import lift_chart, pruning_chart
    from ._rollout_text import SUCCESS_SCORE, render_rollout_text, trajectory_text
    from ._trial_json import TRIAL_SCHEMA_VERSION, trial_result_to_dict, write_trial_json
    from ._trial_junit import render_trial_junit
    from ._trial_markdown import TRIAL_MARKER, render_trial_markdown
    from ._trial_plan import PLAN_SCHEMA_VERSION, plan_to_dict, render_plan_text, write_plan_json
    from ._trial_text import render_trial_text, trial_warnings
    from ._trigger_markdown import trigger_markdown, trigger_text
    from ._trigger_report import (
        render_trigger_json,
        render_trigger_junit,
        render_trigger_markdown,
        trigger_document,
        write_trigger_reports,
    )
    from ._value_markdown import low_value_units, value_markdown
    from ._value_part import is_value_part, read_value_part, write_value_part
    from ._value_text import render_value_plan, render_value_text

_LAZY = {
    **dict.fromkeys(
        (
            "cost_table",
            "estimand_section",
            "findings_table",
            "fmt_interval",
            "fmt_lift",
            "case_table",
            "cost_ratio",
            "headline",
            "headline_parts",
            "hierarchy_text",
            "lift_table",
            "metric_lifts",
            "scan_table",
            "score_vs_lift",
            "short_hashes",
            "shown_lifts",
            "spearman",
            "trajectory_text",
            "trial_warnings",
        ),
        "._ci_sections",
    ),
    **dict.fromkeys(("lift_chart", "pruning_chart"), "._mermaid"),
    **dict.fromkeys(("low_value_units", "value_markdown"), "._value_markdown"),
    **dict.fromkeys(("TRIAL_SCHEMA_VERSION", "trial_result_to_dict", "write_trial_json"), "._trial_json"),
    **dict.fromkeys(("render_trial_junit",), "._trial_junit"),
    **dict.fromkeys(("TRIAL_MARKER", "render_trial_markdown"), "._trial_markdown"),
    **dict.fromkeys(("PLAN_SCHEMA_VERSION", "plan_to_dict", "render_plan_text", "write_plan_json"), "._trial_plan"),
    **dict.fromkeys(("render_trial_text", "trial_warnings"), "._trial_text"),
    **dict.fromkeys(
        (
            "render_trigger_json",
            "render_trigger_junit",
            "render_trigger_markdown",
            "trigger_document",
            "write_trigger_reports",
        ),
        "._trigger_report",
    ),
    **dict.fromkeys(("trigger_markdown", "trigger_text"), "._trigger_markdown"),
    **dict.fromkeys(("hierarchy_text", "render_compile_text"), "._compile_text"),
    **dict.fromkeys(
        ("COMPRESS_MARKER", "render_compress_comment", "render_compress_markdown", "render_compress_text"), "._compress"
    ),
    **dict.fromkeys(("write_trial_reports", "write_value_reports"), "._live_files"),
    **dict.fromkeys(("SUCCESS_SCORE", "render_rollout_text", "trajectory_text"), "._rollout_text"),
    **dict.fromkeys(("render_value_plan", "render_value_text"), "._value_text"),
    **dict.fromkeys(("is_value_part", "read_value_part", "write_value_part"), "._value_part"),
}
"""Names whose modules import numpy or the live tier (its sections; the trial's, rollout's, compile's and value's
reports), and where each lives."""


def __getattr__(name: str) -> Any:
    """Import the live tier's sections (and numpy) only when someone asks for them."""
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name], __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "COMPRESS_MARKER",
    "GATE_SUITE",
    "MARKER",
    "PLAN_SCHEMA_VERSION",
    "SCHEMA_VERSION",
    "SUCCESS_SCORE",
    "TRIAL_MARKER",
    "TRIAL_METRICS",
    "TRIAL_SCHEMA_VERSION",
    "ArmCost",
    "Criterion",
    "Discordance",
    "MetricLift",
    "PruningCurve",
    "Settling",
    "SkillTrial",
    "SkillValue",
    "SourceLinks",
    "TrialReport",
    "UnitPair",
    "UnitValue",
    "ValuePrecision",
    "append_gate_suite",
    "by_severity_then_location",
    "case_table",
    "cost_ratio",
    "cost_table",
    "estimand_section",
    "findings_table",
    "fmt_interval",
    "fmt_lift",
    "gate_suite",
    "headline",
    "headline_parts",
    "hierarchy_text",
    "is_value_part",
    "json_bytes",
    "lift_chart",
    "lift_table",
    "low_value_units",
    "markdown_cell",
    "markdown_code",
    "markdown_html_text",
    "markdown_link_url",
    "metric_lifts",
    "plan_to_dict",
    "pruning_chart",
    "read_json_file",
    "read_scan_result",
    "read_value_part",
    "render_compile_text",
    "render_compress_comment",
    "render_compress_markdown",
    "render_compress_text",
    "render_junit",
    "render_markdown",
    "render_plan_text",
    "render_rollout_text",
    "render_sarif",
    "render_text",
    "render_trial_junit",
    "render_trial_markdown",
    "render_trial_text",
    "render_trigger_json",
    "render_trigger_junit",
    "render_trigger_markdown",
    "render_value_plan",
    "render_value_text",
    "scan_result_from_dict",
    "scan_result_to_dict",
    "scan_table",
    "score_vs_lift",
    "short_hashes",
    "shown_lifts",
    "skill_title",
    "spearman",
    "trajectory_text",
    "trial_result_to_dict",
    "trial_warnings",
    "trigger_document",
    "trigger_markdown",
    "trigger_text",
    "value_markdown",
    "write_json",
    "write_plan_json",
    "write_sarif",
    "write_trial_json",
    "write_trial_reports",
    "write_trigger_reports",
    "write_value_part",
    "write_value_reports",
]
