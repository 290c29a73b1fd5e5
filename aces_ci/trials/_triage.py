"""Negative-lift triage: did the with-condition fail to produce a score, or did the skill steer the agent wrong?

ACES finds negative Skill Lift in two classes in the traces, and only the second should change
the skill: either the with-skill rollouts failed to produce a score (they hit a turn or token
limit, timed out, gave no answer, their grading failed), or they finished with a worse answer
(the skill steered the agent the wrong way). For each case whose with-condition did worse than
its control beyond what its runs' spread allows, this module reads the trajectories and says
which, with the evidence a skill author checks first: how each with-run ended, whether and at
which step the skill was loaded, and the start of every run's answer in both conditions.
"""

from __future__ import annotations

from .. import stats
from ..engine import RolloutRecord
from ..redact import redact_text, safe_prefix
from ._result import TriageCase, TriageClass
from ._table import LOADING_VIAS, RunTable, score_rows

ANSWER_CHARS = 160
"""How much of an answer the evidence quotes."""


def _shown(answer: str | None) -> str:
    if answer is None:
        return "no final answer"
    text = " ".join(redact_text(answer).split())
    cut = safe_prefix(text, ANSWER_CHARS)
    return repr(cut + ("…" if len(cut) < len(text) else ""))


def _no_score(record: RolloutRecord, metric_missing: bool) -> str | None:
    """Why this with-run produced no usable score, or None when it finished with a gradable answer."""
    result = record.result
    if result.status != "completed":
        return f"ended as an infrastructure error ({result.end_reason})"
    if result.end_reason != "final_answer":
        return f"stopped by {result.end_reason} before answering"
    if result.final_answer is None:
        return "finished without a final answer"
    if metric_missing:
        return "its grading gave no score"
    return None


def _loaded(record: RolloutRecord, skill: str) -> str:
    steps = [
        f"step {e.step_id} ({e.via})" for e in record.result.skill_events if e.skill == skill and e.via in LOADING_VIAS
    ]
    return f"loaded the skill at {', '.join(steps)}" if steps else "never loaded the skill"


def _answers(records: list[RolloutRecord]) -> list[str | None]:
    return sorted((None if (a := r.result.final_answer) is None else " ".join(a.split()) for r in records), key=str)


def triage_cases(table: RunTable, treatment: str, control: str, metric: str, skill: str) -> tuple[TriageCase, ...]:
    """One entry per case whose ``treatment`` runs did worse than run noise explains, or mostly gave no score.

    A case whose runs all scored enters only when its mean is below the control's by more than the
    runs' spread allows (:func:`aces_ci.stats.beyond_run_noise`, the same test discordance counts
    with), and never when both conditions gave the same answers: a grader that scored one string two
    ways measured itself, not the skill. Every run of both conditions is listed as evidence.
    """
    with_rows, control_rows = score_rows(table, treatment, control, metric)
    scores = stats.paired_scores(with_rows, control_rows, "independent", table.case_ids)
    usable = scores.usable()
    noise = stats.beyond_run_noise(scores)
    beyond = dict(zip((c for c, ok in zip(table.case_ids, usable, strict=True) if ok), noise.beyond, strict=True))
    out: list[TriageCase] = []
    for case, w_row, c_row in zip(table.case_ids, with_rows, control_rows, strict=True):
        c_scores = [v for v in c_row if v is not None]
        if not c_scores:
            continue
        control_mean = sum(c_scores) / len(c_scores)
        w_scores = [v for v in w_row if v is not None]
        with_mean = sum(w_scores) / len(w_scores) if w_scores else None
        records = [r for i in range(table.replicates) if (r := table.get(case, treatment, i)) is not None]
        partners = [r for i in range(table.replicates) if (r := table.get(case, control, i)) is not None]
        if not records:
            continue
        evidence: list[str] = []
        failed = 0
        for record, value in zip(records, (w_row[r.request.replicate] for r in records), strict=True):
            why = _no_score(record, value is None)
            label = f"{treatment} run {record.request.replicate}"
            if why is not None:
                failed += 1
                evidence.append(f"{label}: {why}")
            else:
                answer = _shown(record.result.final_answer)
                evidence.append(f"{label}: {_loaded(record, skill)}; answered {answer} (score {value:g})")
        # A case whose with-runs mostly gave no score failed to score; otherwise the answers were worse.
        no_score = with_mean is None or failed * 2 > len(records)
        worse = with_mean is not None and with_mean < control_mean and beyond.get(case, False)
        if not no_score and (not worse or _answers(records) == _answers(partners)):
            continue
        for partner in partners:
            value = c_row[partner.request.replicate]
            score = "" if value is None else f" (score {value:g})"
            evidence.append(
                f"{control} run {partner.request.replicate}: answered {_shown(partner.result.final_answer)}{score}"
            )
        triage: TriageClass = "no_score" if no_score else "steered"
        out.append(TriageCase(case, triage, with_mean, control_mean, tuple(evidence)))
    return tuple(out)
