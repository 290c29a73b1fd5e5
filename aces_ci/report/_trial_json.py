"""The machine-readable trial result (``trial --json``), valid against ``schemas/trial-result.schema.json``.

Other tools read this file (the GitHub room's comment, baselines, a release pipeline), so its
shape is the contract of issue 7: ``skills[]`` each with ``skill``, ``verdict``,
``lift.<metric> = {delta, ci: [lo, hi], n_cases, runs_per_arm, with_mean, without_mean, mde}``
(``null`` where the metric does not apply, with the reason in ``not_applicable``),
``discordance``, ``trigger``, ``cost`` and ``estimand`` — plus everything else the result model
holds, nothing summarised away. Its shape only changes together with ``schema_version``.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..atomic import write_output
from ._write import json_bytes

if TYPE_CHECKING:  # the models are only read here; importing them would load the live tier into a scan
    from ..trials import MetricLiftResult, SkillTrialResult, TrialResult

TRIAL_SCHEMA_VERSION = 1


def _plain(value: Any) -> Any:
    """Dataclasses, mappings and tuples as JSON data (tuples become lists)."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, dict) or hasattr(value, "items"):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


def _lift(lift: MetricLiftResult | None) -> dict[str, Any] | None:
    if lift is None:
        return None
    data: dict[str, Any] = _plain(lift)
    data.pop("metric")
    return data


def _skill(skill: SkillTrialResult) -> dict[str, Any]:
    data: dict[str, Any] = _plain(skill)
    data["lift"] = {metric: _lift(lift) for metric, lift in skill.lift.items()}
    for contrast, raw in zip(data["contrasts"], skill.contrasts, strict=True):
        contrast["lift"] = {metric: _lift(lift) for metric, lift in raw.lift.items()}
    for level, raw_level in zip(data["stress"], skill.stress, strict=True):
        level["lift"] = _lift(raw_level.lift)
    if skill.capped is not None:
        data["capped"]["lift"] = _lift(skill.capped.lift)
    data["cost"] = {"arms": data.pop("cost"), "lift_per_dollar": data.pop("lift_per_dollar")}
    return data


def trial_result_to_dict(result: TrialResult) -> dict[str, Any]:
    """The result as plain JSON data, in the shape the ``trial-result`` schema describes."""
    return {
        "schema_version": TRIAL_SCHEMA_VERSION,
        "tool": {"name": "aces-ci", "version": result.tool_version},
        "generated_at": result.generated_at,
        "verdict": result.verdict,
        "confidence": result.confidence,
        "agent": {
            "provider": result.provider,
            "model": result.model,
            "harness": result.harness,
            "harness_version": result.harness_version,
            "disclosure": result.disclosure,
            "judge": result.judge,
        },
        "protocol": {
            "runs": result.runs,
            "seed": result.seed,
            "coupling": result.coupling,
            "mode": result.mode,
            "sequential": result.sequential,
        },
        "gate": {
            "metric": result.gate_metric,
            "pass_band": result.bands.pass_band,
            "fail_band": result.bands.fail_band,
            "underpowered": "fail" if result.bands.underpowered_fails else "warn",
        },
        "skills": [_skill(skill) for skill in result.skills],
        "repository": _plain(result.repository),
        "spent": _plain(result.spent),
        "stopped_by": result.stopped_by,
        "notes": list(result.notes),
    }


def write_trial_json(result: TrialResult, path: Path | str) -> None:
    """Write the ``trial --json`` report to ``path``."""
    write_output(Path(path), json_bytes(trial_result_to_dict(result)), "JSON report")
