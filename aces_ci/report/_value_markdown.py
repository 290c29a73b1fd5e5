"""SkillSV's part of the CI comment: what to do with each unit, and what more evidence would settle.

An author reads a valuation for decisions, so the section leads with them (cut, compress, keep, and the
unresolved units with the rollouts that would settle them), then says what this run's precision could
tell apart, lists the units to cut or compress with links to their lines, the interactions the model is
sure of, and — folded — each unresolved unit with its own forecast. Everything quoting the skill (ids,
paths, previews) is escaped for the cell or span it lands in.
"""

from __future__ import annotations

from collections.abc import Sequence

from ._ci_sections import _table
from ._ci_sections import fmt_interval as _interval
from ._ci_sections import fmt_lift as _signed
from ._common import plural
from ._links import SourceLinks
from ._live_model import SkillValue, UnitPair, UnitValue, ValuePrecision
from ._md_escape import cell as _cell
from ._md_escape import code_span

LOW_VALUE_DECISIONS = ("delete", "negligible", "compress")
"""What SkillSV's table lists: units to cut (harmful, or worth less than the margin) or to compress."""
CUT_DECISIONS = ("delete", "negligible")
UNRESOLVED_SHOWN = 12
"""Unresolved units the folded table lists (the most expensive to settle last); the rest are counted."""
PAIRS_SHOWN = 5
VERIFY_CUTS = (
    "_A cut is the valuation's call on its attribution cases; `aces-ci compress` scores the cut skill against "
    "the original on held-out cases before you apply it._"
)
"""Said under the units to cut: an equivalence test is only as good as the value it reads, and a pair the
model pruned can bias a value toward δ (BENCHMARKS.md, round ten), so a cut is checked before it lands."""


def _where(unit: UnitValue, links: SourceLinks | None) -> str:
    """``skills/x/SKILL.md:14-18`` as a link to those lines at the commit (escaped for a table cell)."""
    start, end = unit.lines
    where = _cell(f"{unit.file}:{start}" + (f"-{end}" if end > start else ""), 200)
    url = links.url(unit.file, start, end) if links else None
    return f"[{where}]({url})" if url else where


def settle_forecast(units: Sequence[UnitValue]) -> tuple[int, int, int | None] | None:
    """More rollouts that would settle every unresolved unit: (point, low, high) — the costliest unit's forecast
    (more rollouts inform every unit at once) and the largest low and high ends of the units' ranges (None
    above: past what the forecast simulated); None when no unresolved unit has a forecast."""
    open_units = [u for u in units if u.decision == "unresolved" and u.rollouts_to_decide]
    if not open_units:
        return None
    point = max(u.rollouts_to_decide or 0 for u in open_units)
    ranges = [u.rollouts_range for u in open_units if u.rollouts_range is not None]
    if not ranges:
        return point, point, point
    low = max(r[0] for r in ranges)
    high = None if any(r[1] is None for r in ranges) else max(r[1] or 0 for r in ranges)
    return point, low, high


def _settle(point: int, low: int, high: int | None, *, covered: int, bare: int, why: str) -> str:
    """``about 2,600 more rollouts would settle them, likely 1,300–5,200`` — or ``… would settle 3 of them, likely
    …; 2 without a forecast, see each one's reason`` when ``bare`` units have none: more rollouts are not
    promised to settle those (one held for the units that require it waits on a decision about them)."""
    if high is None:
        span = f", likely {low:,} or more"
    elif (low, high) != (point, point):
        span = f", likely {low:,}–{high:,}"
    else:
        span = ""
    if not bare:
        return f"about {point:,} more rollouts would settle them{span}"
    rest = f"; {bare} without a forecast" + (f", {why}" if why else "")
    return f"about {point:,} more rollouts would settle {covered} of them{span}{rest}"


def decision_counts(units: Sequence[UnitValue]) -> str:
    """``Cut 2 units (212 tokens: 1 harmful, 1 negligible); compress 1; keep 4; 5 unresolved (about 2,600 more
    rollouts would settle them, likely 1,300–5,200).``"""

    def count(*kinds: str) -> int:
        return sum(1 for u in units if u.decision in kinds)

    cut = [u for u in units if u.decision in CUT_DECISIONS]
    parts = []
    if cut:
        kinds = [f"{count('delete')} harmful"] if count("delete") else []
        kinds += [f"{count('negligible')} negligible"] if count("negligible") else []
        tokens = sum(u.tokens for u in cut)
        parts.append(f"Cut {plural(len(cut), 'unit')} ({tokens:,} tokens: {', '.join(kinds)})")
    else:
        parts.append("Cut nothing")
    if count("compress"):
        parts.append(f"compress {count('compress')}")
    parts.append(f"keep {count('keep')}")
    if count("unresolved"):
        forecast = settle_forecast(units)
        bare = [u for u in units if u.decision == "unresolved" and not u.rollouts_to_decide]
        why = "see each one's reason" if any(u.reason for u in bare) else ""
        if forecast is not None:
            need = _settle(*forecast, covered=count("unresolved") - len(bare), bare=len(bare), why=why)
        else:  # every unresolved unit is bare
            need = f"none with a forecast: {why}" if why else "more rollouts would settle them"
        parts.append(f"{count('unresolved')} unresolved ({need})")
    return "; ".join(parts) + "."


def precision_text(half_width: float, negligible_within: float, margin: float) -> str:
    """``Precision: intervals ±0.035 typically — …``: what the run could tell apart, so an unresolved unit reads as
    "too close to call", not "no effect" (the comment and the HTML report say it in the same words)."""
    negligible = (
        f"negligible only within ±{negligible_within:.3f}"
        if negligible_within > 0
        else f"none can be called negligible at this precision (δ = {margin:g})"
    )
    return (
        f"Precision: intervals ±{half_width:.3f} typically — a unit is kept or cut from |net effect| ≈ "
        f"{half_width:.3f}, {negligible}."
    )


def precision_sentence(precision: ValuePrecision | None) -> str:
    """:func:`precision_text` as a paragraph of the comment; empty without intervals."""
    if precision is None:
        return ""
    return precision_text(precision.half_width, precision.negligible_within, precision.margin) + "\n\n"


def forecast_cell(point: int | None, span: tuple[int, int | None] | None) -> str:
    """``~1,800 (900–4,100)``: a unit's more rollouts to decide and the middle 80% of its simulated runs (``…``
    above: past what was simulated); ``—`` without a forecast."""
    if point is None:
        return "—"
    if span is None:
        return f"~{point:,}"
    return f"~{point:,} ({span[0]:,}–{'…' if span[1] is None else f'{span[1]:,}'})"


def _low_value_table(value: SkillValue, links: SourceLinks | None, limit: int) -> str:
    """The units to cut or compress, lowest net effect first, each linked to its lines; empty when there are none."""
    candidates: list[UnitValue] = sorted(
        (u for u in value.units if u.decision in LOW_VALUE_DECISIONS), key=lambda u: (u.net_effect, u.id)
    )
    if not candidates:
        return ""
    rows = [
        [
            _where(unit, links),
            unit.decision,
            _signed(unit.net_effect),
            _interval(unit.ci),
            "—" if unit.context_cost is None else _signed(unit.context_cost),
            str(unit.tokens),
            _cell(unit.preview, 80),
        ]
        for unit in candidates[:limit]
    ]
    headers = ("Unit", "Decision", "Net effect", "Interval", "Context cost", "Tokens", "Preview")
    table = _table(headers, rows, ("left", "left", "right", "right", "right", "right", "left"))
    if len(candidates) > limit:
        table += f"\n_{len(candidates) - limit} more low-value units in the full report._\n"
    if any(u.decision in CUT_DECISIONS for u in candidates):
        table += f"\n{VERIFY_CUTS}\n"
    return table + "\n"


def low_value_units(value: SkillValue, links: SourceLinks | None, limit: int = 20) -> str:
    """SkillSV's decisions in one line, then the units to cut or compress, lowest net effect first, linked."""
    return decision_counts(value.units) + "\n\n" + _low_value_table(value, links, limit)


def _pair_line(pair: UnitPair, listed: set[str]) -> str:
    first, second = (code_span(unit, 20) for unit in pair.units)
    meaning = "work together" if pair.effect > 0 else "overlap (either does much of the other's work)"
    mark = [unit for unit in pair.units if unit in listed]
    note = (
        f" — {' and '.join(code_span(u, 20) for u in mark)} listed above: its value includes its share" if mark else ""
    )
    return f"- {first} and {second} {meaning}: {_signed(pair.effect)} {_interval(pair.ci)} when both are in{note}\n"


def interactions(value: SkillValue) -> str:
    """The pairs the model is sure of, those touching a listed unit first (a cut changes what its partner is worth)."""
    if not value.interactions:
        return ""
    listed = {u.id for u in value.units if u.decision in LOW_VALUE_DECISIONS}
    ordered = sorted(value.interactions, key=lambda p: not (set(p.units) & listed))
    lines = "".join(_pair_line(pair, listed) for pair in ordered[:PAIRS_SHOWN])
    more = len(ordered) - PAIRS_SHOWN
    tail = f"- _{more} more in the full report._\n" if more > 0 else ""
    return (
        "Interactions the model is sure of (a Bonferroni test over every pair it tested; sizes read low, shrunk "
        f"toward 0):\n\n{lines}{tail}\n"
    )


def unresolved_units(value: SkillValue, links: SourceLinks | None) -> str:
    """Each unresolved unit with the rollouts that would settle it, cheapest first, folded; a unit no forecast
    covers (one held for the units that require it) shows its reason there instead."""
    waiting = sorted(
        (u for u in value.units if u.decision == "unresolved"),
        key=lambda u: (u.rollouts_to_decide is None, u.rollouts_to_decide or 0, u.id),
    )
    if not waiting:
        return ""
    rows = []
    for unit in waiting[:UNRESOLVED_SHOWN]:
        more = forecast_cell(unit.rollouts_to_decide, unit.rollouts_range)
        if unit.rollouts_to_decide is None and unit.reason:
            more = _cell(unit.reason, 160)
        rows.append([_where(unit, links), _signed(unit.net_effect), _interval(unit.ci), more, _cell(unit.preview, 60)])
    headers = ("Unit", "Net effect", "Interval", "More rollouts to decide (likely)", "Preview")
    table = _table(headers, rows, ("left", "right", "right", "right", "left"))
    if len(waiting) > UNRESOLVED_SHOWN:
        table += f"\n_{len(waiting) - UNRESOLVED_SHOWN} more unresolved units in the full report._\n"
    summary = f"{plural(len(waiting), 'unresolved unit')}: what would settle each"
    return f"<details>\n<summary>{summary}</summary>\n\n{table}\n</details>\n"


def value_markdown(value: SkillValue, links: SourceLinks | None, limit: int = 20) -> str:
    """One skill's SkillSV section below its heading: decisions, precision, what to cut, pairs, what is open."""
    closure = ""
    if value.closure_is_check:
        closure = (
            f", closure ratio Σφ/Λ {value.closure_ratio:.2f}"
            if value.closure_ratio is not None
            else ", closure not checkable (content lift too small)"
        )
    return (
        f"**{decision_counts(value.units)}**\n\n"
        + precision_sentence(value.precision)
        + f"Content lift {value.content_lift:+.3f}{closure}, orders μ = {_cell(value.order_distribution, 20)}.\n\n"
        + _low_value_table(value, links, limit)
        + interactions(value)
        + unresolved_units(value, links)
    )
