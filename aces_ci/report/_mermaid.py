"""Mermaid charts for the PR comment: lift per metric with its interval, and SkillSV's pruning curves.

GitHub renders fenced ``mermaid`` blocks. Mermaid's ``xychart-beta`` has bars and lines but no
error bars, so an interval is drawn as a *floating bar*: the bars of one category overlap and are
drawn in order, each from the bottom of the plot, so a bar up to the upper bound, a thin dark bar
around the point estimate and a bar in the background colour up to the lower bound leave exactly
[lower, upper] visible with a tick at the estimate. Flat lines mark zero and the gate's pass and
fail bands. The chart's background is set explicitly, so the masking bar matches it in GitHub's
dark theme too. ``xychart-beta`` has no legend, so each chart is followed by a line naming its
colours.

Labels are reduced to characters Mermaid's grammar accepts inside quotes (a skill name with a
quote or a bracket must not break the chart).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from ._live_model import MetricLift, PruningCurve
from ._md_escape import mermaid_label as label

BACKGROUND = "#ffffff"
INTERVAL = "#4c78a8"
ESTIMATE = "#1b2a41"
ZERO = "#888888"
PASS_BAND = "#54a24b"
FAIL_BAND = "#e45756"
CURVE_COLOURS = ("#4c78a8", "#f58518", "#9d9d9d", "#b279a2", "#72b7b2")
_COLOUR_NAMES = {
    "#4c78a8": "blue",
    "#f58518": "orange",
    "#9d9d9d": "grey",
    "#b279a2": "purple",
    "#72b7b2": "teal",
    PASS_BAND: "green",
    FAIL_BAND: "red",
    ZERO: "grey",
}
_TICK_FRACTION = 0.012
"""Half-height of the estimate's tick, as a share of the y range."""


def _number(value: float) -> str:
    text = f"{value:.4f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def _series(values: Sequence[float]) -> str:
    return "[" + ", ".join(_number(v) for v in values) + "]"


def _init(palette: Sequence[str]) -> str:
    """The chart's theme: the ``base`` theme draws the xy chart's title, labels and axes in ``primaryTextColor``,
    so one dark text colour (not six per-axis ones) keeps them legible on the white background in dark mode."""
    colours = ", ".join(palette)
    return (
        '%%{init: {"theme": "base", "themeVariables": {"primaryTextColor": "#222", "xyChart": {'
        f'"backgroundColor": "{BACKGROUND}", "plotColorPalette": "{colours}"'
        "}}}}%%"
    )


def _axis_range(values: Sequence[float], step: float = 0.1) -> tuple[float, float]:
    low, high = min(values), max(values)
    span = max(high - low, step)
    low, high = low - 0.1 * span, high + 0.1 * span
    return math.floor(low / step) * step, math.ceil(high / step) * step


NO_VARIATION = "no variation observed: bound is distribution-free"
"""The label of a lift whose cases all showed the same difference: its interval is the distribution-free bound."""


def lift_chart(
    lifts: Sequence[tuple[str, MetricLift]], *, title: str, confidence: float, pass_band: float, fail_band: float
) -> str:
    """A Mermaid ``xychart-beta`` of each metric's lift interval with a tick at the estimate.

    ``pass_band`` and ``fail_band`` are the gate's (:class:`aces_ci.stats.Bands`), drawn as lines.
    Returns the chart source followed by its colour key (Markdown), or ``""`` for no metrics. A
    metric with no observed variation (no standard error: its interval is the distribution-free
    bound, often ±0.4) is listed below the chart instead of drawn, so its bar does not dwarf the rest.
    """
    free = [name.replace("_", " ") for name, metric in lifts if metric.se is None]
    unbounded = (
        f"_Not drawn: {', '.join(free)} — {NO_VARIATION}; its wide interval would dwarf the others._\n" if free else ""
    )
    lifts = [(name, metric) for name, metric in lifts if metric.se is not None]
    if not lifts:
        return unbounded
    lows = [metric.ci[0] for _, metric in lifts]
    highs = [metric.ci[1] for _, metric in lifts]
    bottom, top = _axis_range([*lows, *highs, 0.0, pass_band, fail_band])
    tick = _TICK_FRACTION * (top - bottom)
    deltas = [metric.delta for _, metric in lifts]
    tick_top = [min(d + tick, h) for d, h in zip(deltas, highs, strict=True)]
    tick_bottom = [max(d - tick, lo) for d, lo in zip(deltas, lows, strict=True)]
    palette = (INTERVAL, ESTIMATE, INTERVAL, BACKGROUND, ZERO, PASS_BAND, FAIL_BAND)
    flat = len(lifts)
    categories = ", ".join(f'"{label(name.replace("_", " "), 24)}"' for name, _ in lifts)
    lines = [
        _init(palette),
        "xychart-beta",
        f'    title "{label(title, 80)}"',
        f"    x-axis [{categories}]",
        f'    y-axis "lift, {round(confidence * 100)}% interval" {_number(bottom)} --> {_number(top)}',
        f"    bar {_series(highs)}",
        f"    bar {_series(tick_top)}",
        f"    bar {_series(tick_bottom)}",
        f"    bar {_series(lows)}",
        f"    line {_series([0.0] * flat)}",
        f"    line {_series([pass_band] * flat)}",
        f"    line {_series([fail_band] * flat)}",
    ]
    key = (
        f"_Bars: the {round(confidence * 100)}% interval of each metric's lift, the dark tick at the estimate; "
        f"lines: zero (grey), pass band {_number(pass_band):s} (green), "
        f"fail band {_number(fail_band):s} (red)._"
    )
    return "```mermaid\n" + "\n".join(lines) + "\n```\n\n" + key + "\n" + (f"\n{unbounded}" if unbounded else "")


def pruning_chart(curves: Sequence[PruningCurve], *, title: str) -> tuple[str, tuple[str, ...]]:
    """A Mermaid line chart of held-out score against units removed, one line per ranking method.

    Curves are drawn on the first curve's grid of removal counts; a curve that covers it only in
    part is interpolated inside its own range and left out beyond it (named in the returned notes,
    never extrapolated). Returns the Markdown (chart plus colour key) and those notes.
    """
    usable = [c for c in curves if len(c.removed) >= 2 and len(c.removed) == len(c.score)]
    if not usable:
        return "", ()
    grid = [int(x) for x in usable[0].removed]
    drawn: list[tuple[PruningCurve, list[float]]] = []
    notes = []
    for curve in usable:
        xs = np.asarray(curve.removed, dtype=float)
        ys = np.asarray(curve.score, dtype=float)
        if xs[0] > grid[0] or xs[-1] < grid[-1]:
            notes.append(f"{curve.method} covers {int(xs[0])}–{int(xs[-1])} units removed only; not drawn")
            continue
        drawn.append((curve, [float(v) for v in np.interp(grid, xs, ys)]))
    palette = CURVE_COLOURS[: len(drawn)]
    scores = [v for _, values in drawn for v in values]
    bottom, top = _axis_range(scores, 0.05)
    lines = [
        _init(palette),
        "xychart-beta",
        f'    title "{label(title, 80)}"',
        '    x-axis "units removed (lowest value first)" [' + ", ".join(f'"{x}"' for x in grid) + "]",
        f'    y-axis "held-out score" {_number(bottom)} --> {_number(top)}',
        *(f"    line {_series(values)}" for _, values in drawn),
    ]
    key = "_Lines: " + ", ".join(
        f"{curve.method} (AUC {curve.auc:.3f}, {_COLOUR_NAMES.get(colour, colour)})"
        for (curve, _), colour in zip(drawn, palette, strict=True)
    )
    text = "```mermaid\n" + "\n".join(lines) + "\n```\n\n" + key + "._\n"
    return text, tuple(notes)
