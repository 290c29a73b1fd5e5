"""The value report as JSON (``schemas/skillsv-value.schema.json``)."""

from __future__ import annotations

from typing import Any

from ._compile import report_header, unit_json
from ._decisions import decision_line, decision_summary
from ._model import CompiledSkill, Unit
from ._result import CUT_DECISIONS, Estimate, UnitValue
from ._units import decoded_text
from ._valuate import ValueReport

VALUE_SCHEMA_VERSION = 3
"""3: ``documents``, the text of the files the units cover, so a report can show each unit's value beside
its lines. 2: decisions with a margin δ (``negligible`` added, ``settings.resolution`` became ``margin``), a
``decisions`` summary, ``measured``, each unresolved unit's ``scores_to_decide``, and the chains a failed
rollout left out (``chains.left_out``, ``failure``). Readers accept 2 (no ``documents``) as well."""

MAX_DOCUMENT_CHARS = 100_000
"""Characters of one file's text the value JSON keeps; a longer file is cut at a line end, and says so."""

MAX_DOCUMENTS_CHARS = 400_000
"""Characters of all files' text together: a skill's documents never make its value JSON heavy."""


def _estimate(estimate: Estimate | None) -> dict[str, Any] | None:
    if estimate is None:
        return None
    ci = [estimate.ci.lo, estimate.ci.hi] if estimate.ci is not None else None
    return {"value": estimate.value, "ci": ci, "n": estimate.n}


def _value(estimate: Estimate | None) -> float | None:
    return None if estimate is None else estimate.value


def _ci(estimate: Estimate | None) -> list[float] | None:
    if estimate is None or estimate.ci is None:
        return None
    return [estimate.ci.lo, estimate.ci.hi]


def _covered_files(game: CompiledSkill) -> list[str]:
    """Every file a unit (or a composite's member) covers, SKILL.md first, then in path order."""
    files: set[str] = set()
    stack: list[Unit] = list(game.players)
    while stack:
        unit = stack.pop()
        files.update(span.file for span in unit.spans)
        stack.extend(unit.members)
    return sorted(files, key=lambda file: (file != game.skill_file, file))


def _cut(text: str, limit: int) -> tuple[str, bool]:
    """``text`` up to ``limit`` characters, cut after the last whole line that fits (inside the first line when
    even that does not fit); whether anything was cut."""
    if len(text) <= limit:
        return text, False
    head = text[:limit]
    end = head.rfind("\n")
    return (head[: end + 1] if end >= 0 else head), True


def _line_count(text: str) -> int:
    return text.count("\n") + (0 if text.endswith("\n") or not text else 1)


def documents_json(game: CompiledSkill) -> list[dict[str, Any]]:
    """The text of each file the units cover, as the units read it, bounded by :data:`MAX_DOCUMENT_CHARS` per
    file and :data:`MAX_DOCUMENTS_CHARS` in all (``truncated``, ``shown_lines`` of ``lines``); a binary file,
    or one not in the staged source, keeps no text."""
    left = MAX_DOCUMENTS_CHARS
    out = []
    for file in _covered_files(game):
        data = game.source.get(file)
        decoded = None if data is None else decoded_text(data)
        if decoded is None:
            out.append(
                {
                    "file": file,
                    "binary": data is not None,
                    "bytes": 0 if data is None else len(data),
                    "lines": 0,
                    "shown_lines": 0,
                    "truncated": False,
                    "text": None,
                }
            )
            continue
        kept, truncated = _cut(decoded, min(MAX_DOCUMENT_CHARS, left))
        left -= len(kept)
        out.append(
            {
                "file": file,
                "binary": False,
                "bytes": len(data or b""),
                "lines": _line_count(decoded),
                "shown_lines": _line_count(kept),
                "truncated": truncated,
                "text": kept,
            }
        )
    return out


def low_value_units(report: ValueReport) -> list[UnitValue]:
    """Units the valuation says to cut (delete, negligible) or compress, lowest net effect first: what a PR
    comment lists. None when no chain measured a unit."""
    if not report.valuation.measured:
        return []
    chosen = [unit for unit in report.valuation.units if unit.decision in (*CUT_DECISIONS, "compress")]
    return sorted(chosen, key=lambda unit: _value(unit.net_effect) or 0.0)


def _decisions(report: ValueReport) -> dict[str, Any] | None:
    """The decisions grouped, with the sentence the text report leads with; None when nothing was measured."""
    valuation = report.valuation
    if not valuation.measured:
        return None
    summary = decision_summary(report.game, valuation)
    return {
        "margin": valuation.margin,
        "summary": decision_line(summary, valuation.margin, report.settings.score.runs),
        "delete": list(summary.delete),
        "negligible": list(summary.negligible),
        "compress": list(summary.compress),
        "keep": list(summary.keep),
        "unresolved": list(summary.unresolved),
        "cut_tokens": summary.cut_tokens,
        "scores_to_decide": summary.scores_to_decide,
        "resolution": None
        if summary.half_width is None
        else {
            "half_width": summary.half_width,
            "negligible_within": summary.negligible_within(valuation.margin),
        },
    }


def value_json(report: ValueReport) -> dict[str, Any]:
    game, valuation, settings = report.game, report.valuation, report.settings
    estimator = settings.estimator
    values = {unit.unit: unit for unit in valuation.units}
    units = []
    for player in game.players:
        out = unit_json(player)
        unit = values.get(player.id)
        if unit is not None:
            out.update(
                {
                    "net_effect": _value(unit.net_effect),
                    "ci": _ci(unit.net_effect),
                    "content_value": _value(unit.content_value),
                    "content_value_ci": _ci(unit.content_value),
                    "context_cost": _value(unit.context_cost),
                    "context_cost_ci": _ci(unit.context_cost),
                    "samples": unit.net_effect.n if unit.net_effect else 0,
                    "zeroed_by_truncation": unit.zeroed_by_truncation,
                    "decision": unit.decision,
                    "reason": unit.reason,
                    "scores_to_decide": unit.scores_to_decide,
                    "scores_to_decide_range": list(unit.scores_range) if unit.scores_range else None,
                }
            )
        units.append(out)
    held_out = None
    if report.held_out is not None:
        block = report.held_out
        total = _value(valuation.sum_values)
        held_out = {
            "tasks": block.tasks,
            "full": block.full,
            "trigger_only": block.trigger_only,
            "content_lift": block.content_lift,
            "closure_ratio": total / block.content_lift
            if total is not None and abs(block.content_lift) > 1e-12
            else None,
            "closure_loo": block.closure_loo,
            "closure_loo_sum": sum(block.closure_loo.values()),
            "curves": [
                {
                    "method": curve.method,
                    "ranking": list(curve.ranking),
                    "removed": list(curve.removed),
                    "scores": list(curve.scores),
                    "auc": curve.auc,
                }
                for curve in block.curves
            ],
        }
    cost = valuation.cost
    pruning = report.pruning_cost
    return {
        **report_header(game, VALUE_SCHEMA_VERSION),
        "oracle": report.oracle,
        "method": valuation.method,
        "order_distribution": estimator.distribution,
        "settings": {
            "orders": estimator.orders,
            "window": estimator.window,
            "tolerance": estimator.tolerance,
            "gate_hits": estimator.gate_hits,
            "operators": list(estimator.operators),
            "seed": estimator.seed,
            "pooling": valuation.pooling or estimator.pooling,
            "estimator": valuation.estimator,
            "fallback": list(valuation.fallback),
            "adaptive": settings.adaptive,
            "second_look_scores": report.second_look_scores,
            "first_look_decided": report.decided_first,
            "antithetic": estimator.antithetic,
            "stratified": estimator.stratified,
            "windows": estimator.windows,
            "pairs_per_window": estimator.pairs_per_window,
            "reuse": estimator.reuse,
            "panel_anchors": estimator.panel_anchors,
            "max_evaluations": estimator.max_evaluations,
            "budget_usd": estimator.max_usd,
            "budget_scores": estimator.budget_scores,
            "sample_share": estimator.sample_share,
            "fitted_to_budget": list(report.fitted),
            "margin": valuation.margin,
            "bootstrap": settings.bootstrap,
            "holdout": settings.holdout,
            "score": {
                "metric": settings.score.metric,
                "definition": settings.score.definition,
                "judge": settings.score.judge,
                "runs": settings.score.runs,
            },
        },
        "panel": {"attribution": report.attribution_tasks, "held_out": report.held_out.tasks if report.held_out else 0},
        "units": units,
        "documents": documents_json(game),
        "groups": [
            {
                "label": group.label,
                "file": group.file,
                "line": group.line,
                "units": list(group.units),
                "net_effect": _value(group.net_effect),
                "ci": _ci(group.net_effect),
            }
            for group in valuation.groups
        ],
        "requirements": [
            {
                "unit": requirement.unit,
                "removed": list(requirement.removed),
                "net_effect": _value(requirement.net_effect),
                "ci": _ci(requirement.net_effect),
            }
            for requirement in valuation.requirements
        ],
        "interactions": [
            {
                "units": list(pair.units),
                "effect": pair.effect.value,
                "ci": _ci(pair.effect),
            }
            for pair in valuation.interactions
        ],
        "trigger_value": _estimate(valuation.trigger_value),
        "anchors": {name: _estimate(value) for name, value in valuation.anchors.items()},
        "content_lift": _estimate(valuation.content_lift),
        "sum_values": _estimate(valuation.sum_values),
        "closure_ratio": _estimate(valuation.closure_ratio),
        "chains": {
            "completed": valuation.chains,
            "planned": valuation.chains_planned,
            "truncation_rate": valuation.truncation_rate,
            "left_out": valuation.left_out,
        },
        "rollouts": {
            "spent": report.paid,
            "this_run": report.paid_now,
            "earlier_sessions": report.sessions.earlier if report.sessions is not None else 0,
            "reused": report.sessions.reused if report.sessions is not None else 0,
            "valuation": cost.rollouts,
            "pruning_test": pruning.rollouts if pruning else 0,
            "evaluations": cost.evaluations,
            "requested": cost.requested,
            "full_audit": cost.full_audit,
            "cost_usd": cost.cost_usd + (pruning.cost_usd if pruning else 0.0),
            "served_from_cache": cost.served,
        },
        "stopped_by": valuation.stopped_by,
        "error": valuation.error,
        "failure": valuation.failure,
        "measured": valuation.measured,
        "decisions": _decisions(report),
        "cases": [
            {"id": case.case, "empty": case.empty, "trigger_only": case.trigger_only, "full": case.full}
            for case in valuation.cases
        ],
        "low_value": [
            {
                "id": unit.unit,
                "file": game.player(unit.unit).file,
                "line": game.player(unit.unit).lines[0],
                "decision": unit.decision,
                "net_effect": _value(unit.net_effect),
            }
            for unit in low_value_units(report)
        ],
        "held_out": held_out,
    }
