"""The release baselines: per skill, the lift its last release measured, with what it was measured on.

A release stores, for every skill it trialled, the gated metric's lift and interval, each case's
lift (what a later rerun pairs its cases with), and the record of "what": provider, model id,
harness and disclosure, aces-ci's version (the built-in harness's version), seed, coupling and
runs. A scheduled rerun reads it back and reports now against then. Skills a release did not
trial keep the entry of the release that last did. The file is ``baseline.json`` on the results
branch (:mod:`aces_ci.github._results_branch`), valid against ``schemas/baseline.schema.json``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from ..errors import InputError
from ..schemas import validator
from ..stats import CaseLift, case_lifts
from ..trials import SkillTrialResult, TrialResult

BASELINE_SCHEMA_VERSION = 1
BASELINE_FILE = "baseline.json"


@dataclass(frozen=True)
class Agent:
    """What ran the cases: the "what changed" of a rerun."""

    provider: str
    model: str
    harness: str
    disclosure: str
    tool_version: str
    """aces-ci's version."""
    harness_version: str | None = None
    """The harness build (a CLI's ``--version`` and the adapter's); None in records written before it was kept."""

    @classmethod
    def of(cls, result: TrialResult) -> Agent:
        version = result.harness_version
        return cls(result.provider, result.model, result.harness, result.disclosure, result.tool_version, version)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Agent:
        """Read back what :meth:`to_dict` wrote (a record without ``harness_version`` predates it)."""
        return cls(
            data["provider"],
            data["model"],
            data["harness"],
            data["disclosure"],
            data["tool_version"],
            data.get("harness_version"),
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "provider": self.provider,
            "model": self.model,
            "harness": self.harness,
            "harness_version": self.harness_version,
            "disclosure": self.disclosure,
            "tool_version": self.tool_version,
        }

    def describe(self) -> str:
        harness = self.harness if self.harness_version is None else f"{self.harness} {self.harness_version}"
        return f"{self.provider}/{self.model} on {harness} ({self.disclosure}), aces-ci {self.tool_version}"


@dataclass(frozen=True)
class SkillBaseline:
    """One skill's lift as its last release measured it."""

    skill: str
    release: str
    commit: str
    measured_at: str
    agent: Agent
    metric: str
    delta: float
    ci: tuple[float, float]
    n_cases: int
    runs_per_arm: int
    verdict: str
    seed: int
    coupling: str
    cases: tuple[CaseLift, ...]


@dataclass(frozen=True)
class Baselines:
    """Every skill's latest release baseline, keyed by skill directory (relative to the repository root)."""

    skills: Mapping[str, SkillBaseline] = field(default_factory=dict)
    updated_at: str | None = None

    def updated(self, result: TrialResult, release: str, commit: str) -> Baselines:
        """These baselines with the skills ``result`` measured replaced by this release's figures."""
        merged = dict(self.skills)
        agent = Agent.of(result)
        for skill in result.skills:
            lift = skill.lift.get(result.gate_metric)
            if lift is None:
                continue
            merged[skill.skill] = SkillBaseline(
                skill=skill.skill,
                release=release,
                commit=commit,
                measured_at=result.generated_at,
                agent=agent,
                metric=result.gate_metric,
                delta=lift.delta,
                ci=lift.ci,
                n_cases=lift.n_cases,
                runs_per_arm=lift.runs_per_arm,
                verdict=skill.verdict,
                seed=result.seed,
                coupling=result.coupling,
                cases=tuple(skill_case_lifts(skill)),
            )
        return replace(self, skills=merged, updated_at=result.generated_at)


def skill_case_lifts(skill: SkillTrialResult) -> list[CaseLift]:
    """Each case's lift of the gated metric in the skill's primary contrast: what two trials are paired on."""
    return case_lifts(
        [row.case for row in skill.cases],
        [row.with_scores for row in skill.cases],
        [row.control_scores for row in skill.cases],
    )


def baselines_to_dict(baselines: Baselines) -> dict[str, Any]:
    """The JSON of ``baseline.json`` (``schemas/baseline.schema.json``)."""
    skills = {}
    for name, b in sorted(baselines.skills.items()):
        skills[name] = {
            "release": b.release,
            "commit": b.commit,
            "measured_at": b.measured_at,
            "agent": b.agent.to_dict(),
            "metric": b.metric,
            "lift": {"delta": b.delta, "ci": list(b.ci), "n_cases": b.n_cases, "runs_per_arm": b.runs_per_arm},
            "verdict": b.verdict,
            "seed": b.seed,
            "coupling": b.coupling,
            "cases": [{"case": c.case, "lift": c.lift} for c in b.cases],
        }
    return {"schema_version": BASELINE_SCHEMA_VERSION, "updated_at": baselines.updated_at, "skills": skills}


def baselines_from_dict(data: Any, source: str) -> Baselines:
    """Read ``baseline.json`` back; anything not valid against its schema is an input error naming ``source``."""
    problems = sorted(validator("baseline").iter_errors(data), key=lambda e: list(e.absolute_path))
    if problems:
        first = problems[0]
        pointer = "/" + "/".join(str(p) for p in first.absolute_path)
        raise InputError(f"not an aces-ci baseline file: {first.message} at {pointer}", path=source)
    skills = {}
    for name, raw in data["skills"].items():
        agent = raw["agent"]
        lift = raw["lift"]
        skills[name] = SkillBaseline(
            skill=name,
            release=raw["release"],
            commit=raw["commit"],
            measured_at=raw["measured_at"],
            agent=Agent.from_dict(agent),
            metric=raw["metric"],
            delta=float(lift["delta"]),
            ci=(float(lift["ci"][0]), float(lift["ci"][1])),
            n_cases=int(lift["n_cases"]),
            runs_per_arm=int(lift["runs_per_arm"]),
            verdict=raw["verdict"],
            seed=int(raw["seed"]),
            coupling=raw["coupling"],
            cases=tuple(CaseLift(c["case"], None if c["lift"] is None else float(c["lift"])) for c in raw["cases"]),
        )
    return Baselines(skills, data["updated_at"])


def parse_baselines(raw: bytes, source: str) -> Baselines:
    """``baseline.json``'s bytes as :class:`Baselines`."""
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise InputError(f"baseline file is not JSON: {exc}", path=source) from None
    return baselines_from_dict(data, source)
