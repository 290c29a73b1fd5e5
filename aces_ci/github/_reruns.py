"""Every rerun kept on the results branch, and the trend of the last few per skill.

A scheduled rerun answers "has the model update changed what this skill is worth?" against the
last release. One answer is a point; a series of them shows drift building up over model updates
before any single rerun is a regression. So each rerun commits
``reruns/<utc-date>-<run id>.json`` (``schemas/rerun.schema.json``) next to the release records:
per skill the gated lift now with its interval, each case's lift, the baseline it was compared
with and the interval of the change, and the agent it ran on. A later rerun reads the last
:data:`TREND_RERUNS` of them and :func:`trend_section` lays their lifts beside its own, each with
its interval and the model it was measured on, and says what such a row is not: a test. Only the
change interval against the release (:func:`aces_ci.github.change_criteria`) flags a regression.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..errors import InputError
from ..report import fmt_interval, fmt_lift, markdown_cell
from ..schemas import validator
from ..trials import TrialResult
from ._baselines import Agent, skill_case_lifts
from ._history import SkillChange

RERUN_SCHEMA_VERSION = 1
RERUNS_DIR = "reruns"
TREND_RERUNS = 4
"""Earlier reruns shown beside this one: enough to see a drift, few enough to stay a small table."""
_NAME = re.compile(r"^(\d{4}-\d{2}-\d{2})-([A-Za-z0-9_.-]{1,40})\.json$")


@dataclass(frozen=True)
class RerunPoint:
    """One skill's gated lift in one rerun."""

    delta: float
    ci: tuple[float, float]
    n_cases: int


@dataclass(frozen=True)
class RerunRecord:
    """What one stored rerun measured (the parts the trend shows)."""

    path: str
    run_id: str | None
    measured_at: str
    metric: str
    agent: Agent
    lifts: Mapping[str, RerunPoint]
    """Per skill (repository-relative); a skill without a lift that run is absent."""


def rerun_path(measured_at: str, run_id: str | None) -> str:
    """``reruns/<utc-date>-<run id>.json``; without a run id (a local run) the time of day stands in for it."""
    date, _, time = measured_at.partition("T")
    ident = run_id if run_id and _NAME.match(f"{date}-{run_id}.json") else re.sub(r"\D", "", time)[:6] or "local"
    return f"{RERUNS_DIR}/{date}-{ident}.json"


def rerun_to_dict(
    result: TrialResult, changes: Sequence[SkillChange], run_id: str | None, commit: str | None
) -> dict[str, Any]:
    """The rerun's record (``schemas/rerun.schema.json``); ``changes`` is its comparison with the baselines
    (empty when there were none to compare with)."""
    compared = {item.skill: item for item in changes}
    skills: dict[str, Any] = {}
    for trial in result.skills:
        lift = trial.lift.get(result.gate_metric)
        item = compared.get(trial.skill)
        base = item.baseline if item is not None else None
        change = item.change if item is not None else None
        skills[trial.skill] = {
            "skill_md": trial.skill_md,
            "lift": None
            if lift is None
            else {"delta": lift.delta, "ci": list(lift.ci), "n_cases": lift.n_cases, "runs_per_arm": lift.runs_per_arm},
            "cases": [{"case": c.case, "lift": c.lift} for c in skill_case_lifts(trial)],
            "baseline": None if base is None else {"release": base.release, "delta": base.delta, "ci": list(base.ci)},
            "change": None
            if change is None or change.delta is None or change.ci is None
            else {"delta": change.delta, "ci": list(change.ci), "n_cases": change.n_cases, "label": change.label},
            "edited": item.edited if item is not None else False,
            "note": item.note if item is not None else "no release baseline to compare with",
        }
    agent = Agent.of(result)
    return {
        "schema_version": RERUN_SCHEMA_VERSION,
        "run_id": run_id,
        "commit": commit,
        "measured_at": result.generated_at,
        "metric": result.gate_metric,
        "confidence": result.confidence,
        "agent": agent.to_dict(),
        "seed": result.seed,
        "skills": skills,
    }


def parse_rerun(raw: bytes, path: str) -> RerunRecord:
    """A stored rerun read back; anything not valid against its schema is an input error naming ``path``."""
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise InputError(f"rerun record is not JSON: {exc}", path=path) from None
    problems = sorted(validator("rerun").iter_errors(data), key=lambda e: list(e.absolute_path))
    if problems:
        pointer = "/" + "/".join(str(p) for p in problems[0].absolute_path)
        raise InputError(f"not an aces-ci rerun record: {problems[0].message} at {pointer}", path=path)
    agent = data["agent"]
    lifts = {
        name: RerunPoint(
            float(s["lift"]["delta"]), (float(s["lift"]["ci"][0]), float(s["lift"]["ci"][1])), int(s["lift"]["n_cases"])
        )
        for name, s in data["skills"].items()
        if s["lift"] is not None
    }
    return RerunRecord(
        path,
        data["run_id"],
        data["measured_at"],
        data["metric"],
        Agent.from_dict(agent),
        lifts,
    )


def latest_reruns(names: Sequence[str], count: int = TREND_RERUNS) -> list[str]:
    """The newest ``count`` rerun files among ``names`` (paths under :data:`RERUNS_DIR`), oldest first.

    Ordered by the date in the name, then by run id (numeric when it is a number, as GitHub's are).
    """

    def key(path: str) -> tuple[str, int, str]:
        found = _NAME.match(path.rpartition("/")[2])
        assert found is not None
        ident = found.group(2)
        return found.group(1), int(ident) if ident.isdigit() else -1, ident

    ours = [n for n in names if n.startswith(f"{RERUNS_DIR}/") and _NAME.match(n.rpartition("/")[2])]
    return sorted(ours, key=key)[-count:] if count > 0 else []


def trend_section(
    earlier: Sequence[RerunRecord],
    result: TrialResult,
    run_id: str | None,
    skills: Sequence[str],
    shown: Callable[[str], str] = str,
) -> str:
    """The gated lift of ``skills`` in the last stored reruns and now, each with its interval and model;
    ``shown`` names a skill as the comment's other tables do."""
    from tabulate import tabulate  # as the comment's other tables, on first use

    same = [r for r in earlier if r.metric == result.gate_metric]
    if not same or not skills:
        return ""
    now_lifts = {s.skill: s.lift.get(result.gate_metric) for s in result.skills}
    level = f"{round(result.confidence * 100)}%"
    headers = ["Skill", *(f"{r.measured_at[:10]} ({markdown_cell(r.run_id or 'local', 20)})" for r in same), "now"]
    rows = []
    for skill in skills:
        cells = [markdown_cell(shown(skill), 120)]
        for record in same:
            point = record.lifts.get(skill)
            cells.append("—" if point is None else f"{fmt_lift(point.delta)} {fmt_interval(point.ci)}")
        lift = now_lifts.get(skill)
        cells.append("—" if lift is None else f"{fmt_lift(lift.delta)} {fmt_interval(lift.ci)}")
        rows.append(cells)
    runs = [(r.run_id or r.measured_at[:10], r.agent) for r in same] + [(run_id or "this run", Agent.of(result))]
    models = "; ".join(f"{markdown_cell(run, 20)}: {markdown_cell(f'{a.provider}/{a.model}', 80)}" for run, a in runs)
    return (
        f"#### {result.gate_metric} lift in the last reruns\n\n"
        + tabulate(rows, headers=headers, tablefmt="github", disable_numparse=True)
        + f"\n\nEach cell is that rerun's lift with its {level} interval (the records are `{RERUNS_DIR}/` on the "
        f"results branch). Models: {models}. Reruns draw independent runs, so a row shows drift only as far as "
        "the intervals allow; it is not a test — only the change against the last release flags a regression.\n\n"
    )
