"""The compress result as JSON (``schemas/compress.schema.json``)."""

from __future__ import annotations

from typing import Any

from .. import __version__
from ._result import Candidate, CompressResult
from ._verify import Contrast

COMPRESS_SCHEMA_VERSION = 1


def _contrast(found: Contrast | None) -> dict[str, Any] | None:
    if found is None:
        return None
    return {
        "delta": found.delta,
        "ci": list(found.ci) if found.ci is not None else None,
        "n_cases": found.n_cases,
        "runs": found.runs,
        "original_mean": found.original_mean,
        "candidate_mean": found.candidate_mean,
        "mde": found.mde,
        "method": found.method,
        "coupling": "shared-seed",
    }


def _candidate(candidate: Candidate, original_tokens: int) -> dict[str, Any]:
    return {
        "kind": candidate.kind,
        "verdict": candidate.judgement.verdict,
        "reason": candidate.judgement.reason,
        "tokens": candidate.tokens,
        "tokens_kept": candidate.tokens / original_tokens if original_tokens else None,
        "files": sorted(candidate.files),
        "changes": [
            {
                "unit": change.unit,
                "file": change.file,
                "lines": list(change.lines),
                "change": change.change,
                "decision": change.decision,
                "because_of": change.because_of,
            }
            for change in candidate.changes
        ],
        "contrast": _contrast(candidate.contrast),
        "new_findings": list(candidate.new_findings),
        "attempts": candidate.attempts,
        "rejected_answers": list(candidate.rejected_answers),
        "diff": candidate.diff,
    }


def compress_json(result: CompressResult) -> dict[str, Any]:
    return {
        "schema_version": COMPRESS_SCHEMA_VERSION,
        "tool": {"name": "aces-ci", "version": __version__},
        "skill": result.skill,
        "skill_dir": result.skill_dir,
        "oracle": result.oracle,
        "seed": result.seed,
        "runs": result.runs,
        "tolerance": result.tolerance,
        "original_tokens": result.original_tokens,
        "panel": {"attribution": list(result.attribution), "held_out": list(result.held_out)},
        "values_from": result.values_from,
        "decisions": dict(result.decisions),
        "decision_line": result.decision_line,
        "editor": result.editor,
        "candidates": [_candidate(candidate, result.original_tokens) for candidate in result.candidates],
        "accepted": result.accepted,
        "stopped_by": result.stopped_by,
        "cost": {
            "rollouts": result.cost.rollouts,
            "cost_usd": result.cost.cost_usd,
            "editor_calls": result.cost.editor_calls,
            "editor_cost_usd": result.cost.editor_cost_usd,
        },
        "notes": list(result.notes),
    }
