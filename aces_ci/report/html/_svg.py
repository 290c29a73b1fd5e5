"""The pictures, as inline SVG drawn here: the lift forest plot, the value-vs-cost map, the pruning curves.

No chart library and no script: each chart is a few ``<rect>``, ``<line>`` and ``<text>``
elements with CSS classes (the colours follow light and dark mode). Labels come from results, so
every one passes through :func:`~aces_ci.report.html._escape.text`; coordinates are numbers we
compute. Each chart has a ``<title>`` for screen readers and a table beside it in the page that
holds the same numbers.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from ._escape import number, text

WIDTH = 760
ROW = 26


@dataclass(frozen=True)
class Scale:
    """A linear map from a data range onto a pixel range."""

    lo: float
    hi: float
    start: float
    end: float

    def __call__(self, value: float) -> float:
        span = self.hi - self.lo or 1.0
        return round(self.start + (value - self.lo) / span * (self.end - self.start), 1)


def _frame(kind: str, title: str, height: float) -> str:
    """A chart's opening tag and its title (escaped: a title names skills and metrics from the pull request)."""
    return (
        f'<svg class="{kind}" role="img" viewBox="0 0 {WIDTH} {height}" width="{WIDTH}" height="{height}">'
        f"<title>{text(title, 200)}</title>"
    )


def _interval_row(y: float, label: str, low: float, high: float, point: float, *, point_class: str) -> str:
    """One row of an interval chart at height ``y``: its label (escaped, capped), the interval, the estimate."""
    return (
        f'<g class="row"><text x="4" y="{y + 4}">{text(label, 60)}</text>'
        f'<line class="ci" x1="{low}" y1="{y}" x2="{high}" y2="{y}"/>'
        f'<circle class="{point_class}" cx="{point}" cy="{y}" r="5"/></g>'
    )


@dataclass(frozen=True)
class ForestRow:
    """One line of the forest plot: a label (already plain text), the point and its interval."""

    label: str
    delta: float
    low: float
    high: float
    aa: bool = False
    """The A/A noise floor (the same skill against itself), drawn in grey."""


def _extent(rows: Sequence[ForestRow], pass_band: float | None, fail_band: float | None) -> float:
    bands = [abs(b) for b in (pass_band, fail_band) if b is not None]
    reach = max(bands + [max(abs(r.low), abs(r.high)) for r in rows])
    return min(1.0, max(0.2, math.ceil(reach * 11) / 10))


def forest(
    title: str,
    rows: Sequence[ForestRow],
    pass_band: float | None,
    fail_band: float | None,
    fail_label: str = "fail ≤",
) -> str:
    """Each metric's lift with its interval against the gate's bands (fail band red, pass band green; a result
    without bands, such as a rerun record, draws none). ``fail_label`` names the red band's edge: a compression's
    is its acceptance tolerance, not a gate's fail band."""
    extent = _extent(rows, pass_band, fail_band)
    left, right, top = 330, WIDTH - 20, 18
    x = Scale(-extent, extent, left, right)
    bottom = top + ROW * len(rows)
    height = bottom + 26
    parts = [_frame("forest", title, height)]
    if fail_band is not None:
        parts.append(
            f'<rect class="band-fail" x="{left}" y="{top}" width="{x(fail_band) - left}" height="{bottom - top}"/>'
            f'<text x="{x(fail_band)}" y="{top - 4}" text-anchor="end">{fail_label} '
            f"{number(fail_band, 2, signed=True)}</text>"
        )
    if pass_band is not None:
        parts.append(
            f'<rect class="band-pass" x="{x(pass_band)}" y="{top}" width="{right - x(pass_band)}" '
            f'height="{bottom - top}"/><text x="{x(pass_band)}" y="{top - 4}">pass ≥ '
            f"{number(pass_band, 2, signed=True)}</text>"
        )
    parts.append(
        f'<line class="zero" x1="{x(0)}" y1="{top}" x2="{x(0)}" y2="{bottom}"/>'
        f'<line class="axis" x1="{left}" y1="{bottom}" x2="{right}" y2="{bottom}"/>'
    )
    for tick in (-extent, 0.0, extent):
        parts.append(
            f'<text x="{x(tick)}" y="{bottom + 14}" text-anchor="middle">{number(tick, 2, signed=True)}</text>'
        )
    for i, row in enumerate(rows):
        point = "pt-aa" if row.aa else "pt"
        parts.append(
            _interval_row(top + ROW * i + ROW / 2, row.label, x(row.low), x(row.high), x(row.delta), point_class=point)
        )
    parts.append("</svg>")
    return "".join(parts)


@dataclass(frozen=True)
class MapPoint:
    """One unit on the value-vs-cost map: its id, decision and both estimates with their intervals."""

    label: str
    decision: str
    cost: float
    value: float
    cost_ci: tuple[float, float] | None
    value_ci: tuple[float, float] | None


def _span(values: Sequence[float]) -> tuple[float, float]:
    lo, hi = min([*values, 0.0]), max([*values, 0.0])
    pad = (hi - lo) * 0.08 or 0.05
    return lo - pad, hi + pad


LABELLED = frozenset({"delete", "compress"})
"""Decisions whose units the map names beside their point (the ones to act on); every point has a tooltip."""


def value_cost_map(title: str, points: Sequence[MapPoint]) -> str:
    """Content value (up) against context cost (right) per unit, with both intervals as whiskers."""
    xs = [p.cost for p in points] + [v for p in points if p.cost_ci for v in p.cost_ci]
    ys = [p.value for p in points] + [v for p in points if p.value_ci for v in p.value_ci]
    width, height = WIDTH, 420
    x = Scale(*_span(xs), 60, width - 20)
    y = Scale(*_span(ys), height - 40, 10)
    parts = [
        f'<svg class="value-map" role="img" viewBox="0 0 {width} {height}" width="{width}" height="{height}">',
        f"<title>{text(title, 200)}</title>",
        f'<line class="zero" x1="{x(0)}" y1="10" x2="{x(0)}" y2="{height - 40}"/>',
        f'<line class="zero" x1="60" y1="{y(0)}" x2="{width - 20}" y2="{y(0)}"/>',
        f'<text x="{width / 2}" y="{height - 8}" text-anchor="middle">context cost (score lost to the unit\'s '
        "tokens) →</text>",
        f'<text x="12" y="{height / 2}" transform="rotate(-90 12 {height / 2})" text-anchor="middle">'
        "content value →</text>",
    ]
    for p in points:
        cx, cy = x(p.cost), y(p.value)
        if p.cost_ci:
            parts.append(f'<line class="whisker" x1="{x(p.cost_ci[0])}" y1="{cy}" x2="{x(p.cost_ci[1])}" y2="{cy}"/>')
        if p.value_ci:
            parts.append(f'<line class="whisker" x1="{cx}" y1="{y(p.value_ci[0])}" x2="{cx}" y2="{y(p.value_ci[1])}"/>')
        parts.append(
            f'<circle class="pt v-{text(p.decision, 20)}" cx="{cx}" cy="{cy}" r="4">'
            f"<title>{text(p.label, 80)} ({text(p.decision, 20)})</title></circle>"
        )
        if p.decision in LABELLED:
            parts.append(f'<text x="{cx + 5}" y="{cy - 5}">{text(p.label, 12)}</text>')
    parts.append("</svg>")
    return "".join(parts)


@dataclass(frozen=True)
class Curve:
    """One pruning curve: held-out score after removing each share of the units, and its AUC."""

    method: str
    removed: Sequence[float]
    scores: Sequence[float]
    auc: float


def curves(title: str, lines: Sequence[Curve]) -> str:
    """Held-out score as units are removed in each method's order, one polyline per method, AUC in the legend."""
    width, height = WIDTH, 300
    xs = [v for c in lines for v in c.removed] or [0.0]
    ys = [v for c in lines for v in c.scores] or [0.0]
    x = Scale(min(xs), max(xs) or 1.0, 60, width - 180)
    y = Scale(min([*ys, 0.0]), max([*ys, 1.0]), height - 40, 10)
    parts = [
        f'<svg class="pruning" role="img" viewBox="0 0 {width} {height}" width="{width}" height="{height}">',
        f"<title>{text(title, 200)}</title>",
        f'<line class="axis" x1="60" y1="{height - 40}" x2="{width - 180}" y2="{height - 40}"/>',
        f'<line class="axis" x1="60" y1="10" x2="60" y2="{height - 40}"/>',
        f'<text x="{(width - 120) / 2}" y="{height - 10}" text-anchor="middle">share of units removed →</text>',
        f'<text x="54" y="{y(max([*ys, 1.0]))}" text-anchor="end">{number(max([*ys, 1.0]), 2)}</text>',
        f'<text x="54" y="{height - 40}" text-anchor="end">{number(min([*ys, 0.0]), 2)}</text>',
    ]
    for i, c in enumerate(lines):
        kind = text(c.method, 20)
        points = " ".join(f"{x(a)},{y(b)}" for a, b in zip(c.removed, c.scores, strict=False))
        parts.append(f'<polyline class="c-{kind}" points="{points}"/>')
        parts.append(
            f'<rect class="k-{kind}" x="{width - 170}" y="{14 + 18 * i}" width="12" height="8"/>'
            f'<text x="{width - 152}" y="{22 + 18 * i}">{kind} AUC {number(c.auc, 3)}</text>'
        )
    parts.append("</svg>")
    return "".join(parts)


@dataclass(frozen=True)
class RateRow:
    """One share on the trigger chart: a label (plain text), the share and its interval, recall or false trigger."""

    label: str
    value: float
    low: float
    high: float
    kind: str
    """``recall`` (drawn blue) or ``false`` (the false-trigger rate, drawn purple)."""


def rates(title: str, rows: Sequence[RateRow], floor: float | None) -> str:
    """Shares on a 0–1 axis with their intervals; with ``--min-recall``, the recall that passes shaded green."""
    left, right, top = 330, WIDTH - 20, 18
    x = Scale(0.0, 1.0, left, right)
    bottom = top + ROW * len(rows)
    height = bottom + 26
    parts = [_frame("rates", title, height)]
    if floor is not None:
        parts.append(
            f'<rect class="band-pass" x="{x(floor)}" y="{top}" width="{right - x(floor)}" height="{bottom - top}"/>'
            f'<text x="{x(floor)}" y="{top - 4}">recall ≥ {number(floor, 2)}</text>'
        )
    parts.append(f'<line class="axis" x1="{left}" y1="{bottom}" x2="{right}" y2="{bottom}"/>')
    for tick in (0.0, 0.5, 1.0):
        parts.append(f'<text x="{x(tick)}" y="{bottom + 14}" text-anchor="middle">{number(tick, 1)}</text>')
    for i, row in enumerate(rows):
        point = "arm-with" if row.kind == "recall" else "arm-ctl"
        parts.append(
            _interval_row(top + ROW * i + ROW / 2, row.label, x(row.low), x(row.high), x(row.value), point_class=point)
        )
    parts.append("</svg>")
    return "".join(parts)
