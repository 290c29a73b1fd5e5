"""``aces-ci rollout``'s text: what each rollout of a batch did, and per-arm success counts — no lift, no verdict.

Each rollout's status, why it ended, its score, tokens, cost and whether it came from the cache;
then infrastructure and grading errors, kept workspaces, what a budget stop or the circuit breaker
left unrun, and what the batch spent (estimates with intervals are the trial's reports); and the
batch's ATIF trajectories, redacted, for ``--trajectory``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TextIO

from tabulate import tabulate

from ..agents import RolloutRequest
from ..config import RunConfig
from ..engine import RolloutBatch, RolloutRecord
from ..grading import EXPECTED_OUTPUT, MetricGrade
from ..redact import environment_secrets, redacted_json
from ..safe_text import inline

SUCCESS_SCORE = 0.5
"""A scored rollout at or above this counts as a success in the per-arm counts (ACES pass threshold)."""


def _grade(record: RolloutRecord) -> MetricGrade | None:
    return record.grades.get(EXPECTED_OUTPUT) if record.grades is not None else None


def _score_text(grade: MetricGrade | None) -> str:
    if grade is None or grade.status in ("not_applicable", "could_not_grade"):
        return "-"
    return "error" if grade.value is None else f"{grade.value:.2f}"


def _where(request: RolloutRequest) -> str:
    return f"case={inline(request.case.id)} arm={request.condition} run={request.replicate}"


def render_rollout_text(batch: RolloutBatch, arms: Sequence[str], options: RunConfig, out: TextIO) -> None:
    """Each rollout's row, then errors, kept workspaces, per-arm success counts, what was not run and the spend."""
    model = options.model
    count = len(batch.records) + len(batch.not_run)
    out.write(
        f"{count} rollout{'' if count == 1 else 's'} · provider {model.provider} · model {inline(model.model)} · "
        f"harness {options.harness.name} · disclosure {options.harness.disclosure}\n"
    )
    rows: list[list[Any]] = []
    for record in batch.records:
        result = record.result
        tokens = result.usage.prompt_tokens + result.usage.completion_tokens
        rows.append(
            [
                inline(record.request.case.id),
                record.request.replicate,
                record.request.condition,
                result.status,
                result.end_reason,
                _score_text(_grade(record)),
                f"{tokens:,}",
                f"${result.usage.cost_usd:.4f}",
                {"cache": "hit", "journal": "resumed", "session": "reused", "run": "miss"}[record.source],
            ]
        )
    headers = ["case", "run", "arm", "status", "ended by", "score", "tokens", "cost", "cache"]
    out.write(tabulate(rows, headers=headers, tablefmt="simple", disable_numparse=True) + "\n")
    for record in batch.infra_errors:
        out.write(f"infra error: {_where(record.request)}: {inline(record.result.error or '')}\n")
    for record in batch.grader_errors:
        reasons = "; ".join(f"{g.metric}: {g.reason}" for g in record.grades.errors) if record.grades else ""
        out.write(f"grading failed (the rollout is kept): {_where(record.request)}: {inline(reasons)}\n")
    for record in batch.records:
        if record.workspace is not None:
            out.write(f"workspace kept: {_where(record.request)}: {record.workspace}\n")
    for arm in arms:
        records = batch.for_condition(arm)
        scored = [r for r in records if r.value(EXPECTED_OUTPUT) is not None]
        successes = sum(1 for r in scored if (r.value(EXPECTED_OUTPUT) or 0.0) >= SUCCESS_SCORE)
        infra = sum(1 for r in records if r.result.status == "infra_error")
        unscored = len(records) - len(scored) - infra
        not_run = sum(1 for n in batch.not_run if n.request.condition == arm)
        out.write(
            f"arm {arm}: {successes}/{len(scored)} scored rollouts succeeded (score ≥ {SUCCESS_SCORE:g}); "
            f"{infra} infra errors, {unscored} without a score, {not_run} not run\n"
        )
    if batch.not_run:
        listed = ", ".join(_where(n.request) for n in batch.not_run)
        stop = batch.breaker if batch.breaker is not None else f"budget stop ({batch.stopped_by} reached)"
        out.write(f"{stop}: {len(batch.records)} of {count} rollouts finished; not run: {listed}\n")
    spent = batch.usage
    out.write(
        f"spent now: {spent.prompt_tokens + spent.completion_tokens:,} tokens, ${spent.cost_usd:.4f} "
        f"over {spent.model_calls} model calls\n"
    )


def trajectory_text(records: Sequence[RolloutRecord]) -> str:
    """The ATIF trajectories of ``records``, secrets redacted: one indented JSON document for one rollout, JSON
    Lines (one document a line) for several."""
    secrets = environment_secrets()
    if len(records) == 1:
        return redacted_json(records[0].result.trajectory, secrets, indent=2, ensure_ascii=False) + "\n"
    return "".join(redacted_json(r.result.trajectory, secrets, ensure_ascii=False) + "\n" for r in records)
