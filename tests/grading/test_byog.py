"""Bring your own grader: a command or python:MODULE:FUNC, its contract both ways, and every way it can fail."""

from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path

from aces_ci.evals import GraderSpec
from aces_ci.grading import METRICS, grade_metrics, run_byog
from aces_ci.schemas import validator
from tests.grading.helpers import ANTHROPIC_KEY, Rollout, load, positive

GRADER = textwrap.dedent(
    """
    import json, pathlib, sys
    document = json.load(sys.stdin)
    report = pathlib.Path(document["artifacts_dir"], "report.md").read_text()
    steps = json.loads(pathlib.Path(document["trajectory_path"]).read_text())["steps"]
    pathlib.Path("seen-input.json").write_text(json.dumps(document))
    print(json.dumps({
        "metrics": {
            "report_quality": {"value": 0.8 if "## Fixes" in report else 0.1, "reason": f"{len(steps)} steps"},
            "accuracy": {"status": "not_applicable", "reason": "the product grades accuracy elsewhere"},
        },
        "cost_usd": 0.002,
    }))
    """
)


def command_grader(tmp_path: Path, script: str, metrics=("report_quality", "accuracy"), timeout_s=30.0) -> GraderSpec:
    (tmp_path / "grade.py").write_text(script)
    return GraderSpec(tuple(metrics), argv=(sys.executable, "grade.py"), timeout_s=timeout_s, cwd=tmp_path)


def rollout():
    case = positive(expected_output="Fixes listed", assertions=("loads the skill",))
    return Rollout(case, [load("builtin")], artifacts={"report.md": b"# Notes\n## Fixes\n- one\n"}).build()


async def test_a_command_grader_reads_files_and_trajectory_and_returns_grades(tmp_path):
    spec = command_grader(tmp_path, GRADER)
    grades = await run_byog(spec, rollout())
    quality = grades["report_quality"]
    assert (quality.status, quality.value, quality.reason) == ("graded", 0.8, "3 steps")
    assert quality.grader == f"byog:{spec.label}" and quality.cost.usd == 0.002
    assert grades["accuracy"].status == "not_applicable" and grades["accuracy"].cost.usd == 0.0
    seen = json.loads((tmp_path / "seen-input.json").read_text())
    assert list(validator("grader-input").iter_errors(seen)) == []
    assert seen["artifacts"] == ["report.md"] and seen["metrics"] == ["report_quality", "accuracy"]
    assert not Path(seen["artifacts_dir"]).exists()  # the temporary folder is gone afterwards


async def test_its_metric_replaces_the_built_in_one_and_custom_ones_follow_the_six(tmp_path):
    grades = await grade_metrics(rollout(), grader=command_grader(tmp_path, GRADER))
    assert list(grades.metrics)[-1] == "report_quality"
    assert grades.metrics["accuracy"].grader.startswith("byog:")
    assert grades.metrics["accuracy"].status == "not_applicable"
    six = [grades.value(name) for name in METRICS if grades.value(name) is not None]
    assert grades.composite == round(sum(six) / len(six), 6)  # a custom metric never enters the composite
    assert list(validator("grade").iter_errors(grades.to_dict())) == []


async def failing(tmp_path: Path, script: str, **kwargs: object) -> dict[str, str]:
    grades = await run_byog(command_grader(tmp_path, script, **kwargs), rollout())  # type: ignore[arg-type]
    assert all(g.status == "grader_error" and g.value is None for g in grades.values())
    return {name: g.reason for name, g in grades.items()}


async def test_every_way_a_command_grader_fails_is_a_grader_error_with_its_reason(tmp_path):
    secret = ANTHROPIC_KEY
    crash = f"import sys\nprint('auth {secret}', file=sys.stderr)\nsys.exit(3)\n"
    reasons = await failing(tmp_path, crash)
    assert "exited with status 3" in reasons["accuracy"] and secret not in reasons["accuracy"]
    assert "did not print one JSON object" in (await failing(tmp_path, "print('looks good to me')"))["accuracy"]
    bad_value = "import json\nprint(json.dumps({'metrics': {'accuracy': {'value': 7}}}))"
    assert "grader-output.schema.json (at /metrics/accuracy)" in (await failing(tmp_path, bad_value))["accuracy"]
    extra = "import json\nprint(json.dumps({'metrics': {'bleu': {'value': 1}}}))"
    assert "did not declare: bleu" in (await failing(tmp_path, extra))["accuracy"]
    hang = "import time\ntime.sleep(30)"
    assert "still running after 0.5 s" in (await failing(tmp_path, hang, timeout_s=0.5))["accuracy"]


async def test_a_declared_metric_left_out_is_an_error_for_that_metric_only(tmp_path):
    partial = "import json\nprint(json.dumps({'metrics': {'report_quality': {'value': 1}}}))"
    grades = await run_byog(command_grader(tmp_path, partial), rollout())
    assert grades["report_quality"].value == 1.0
    assert grades["accuracy"].status == "grader_error" and "did not return accuracy" in grades["accuracy"].reason


async def test_a_missing_program_is_a_grader_error(tmp_path):
    spec = GraderSpec(("quality",), argv=("./no-such-grader",), cwd=tmp_path)
    grade = (await run_byog(spec, rollout()))["quality"]
    assert grade.status == "grader_error" and "cannot start './no-such-grader'" in grade.reason


PY_GRADER = textwrap.dedent(
    """
    import asyncio

    def grade(document):
        answer = document["final_answer"] or ""
        return {"metrics": {"polite": {"value": 1.0 if "please" in answer else 0.0}}}

    async def grade_async(document):
        await asyncio.sleep(0)
        return {"metrics": {"polite": {"status": "could_not_grade", "reason": "no tone model"}}}

    def broken(document):
        raise KeyError("tone")
    """
)


async def test_python_graders_sync_async_and_broken(tmp_path):
    (tmp_path / "house_grader.py").write_text(PY_GRADER)
    grading = Rollout(positive(), answer="Yes, please.").build()

    def spec(function: str) -> GraderSpec:
        return GraderSpec(("polite",), python=("house_grader", function), cwd=tmp_path, timeout_s=10)

    assert (await run_byog(spec("grade"), grading))["polite"].value == 1.0
    assert (await run_byog(spec("grade_async"), grading))["polite"].status == "could_not_grade"
    broken = (await run_byog(spec("broken"), grading))["polite"]
    assert broken.status == "grader_error" and "raised KeyError" in broken.reason
    missing = (await run_byog(spec("nope"), grading))["polite"]
    assert "has no function nope" in missing.reason
    unknown = GraderSpec(("polite",), python=("no_such_module_here", "grade"), cwd=tmp_path)
    assert "cannot import no_such_module_here" in (await run_byog(unknown, grading))["polite"].reason
    assert str(tmp_path) not in sys.path


SNOOPING_GRADER = textwrap.dedent(
    """
    import os, time

    def grade(document):
        print("a debugging line the grader forgot")  # must not corrupt the answer
        keys = sorted(name for name, value in os.environ.items() if "sk-ant" in value or name.endswith("_API_KEY"))
        return {"metrics": {"snoop": {"value": 1.0 if keys else 0.0, "reason": ",".join(keys) or "none"}}}

    def hang(document):
        time.sleep(600)
    """
)


async def test_a_python_grader_runs_in_its_own_process_without_the_jobs_secrets(tmp_path, monkeypatch):
    """evals.json travels with a pull request: its Python grader must not read the model key of the job running it."""
    monkeypatch.setenv("ANTHROPIC_API_KEY", ANTHROPIC_KEY)
    skill = tmp_path / "skill"
    skill.mkdir()
    (skill / "snoop.py").write_text(SNOOPING_GRADER)
    grade = (await run_byog(GraderSpec(("snoop",), python=("snoop", "grade"), cwd=skill), rollout()))["snoop"]
    assert grade.status == "graded" and grade.value == 0.0, grade.reason
    assert grade.reason == "none"
    assert sorted(p.name for p in skill.iterdir()) == ["snoop.py"]  # no __pycache__ changing the skill's digest
    assert "snoop" not in sys.modules


async def test_a_hung_python_grader_is_stopped_at_its_timeout(tmp_path):
    (tmp_path / "snoop.py").write_text(SNOOPING_GRADER)
    spec = GraderSpec(("snoop",), python=("snoop", "hang"), cwd=tmp_path, timeout_s=1.0)
    grade = (await run_byog(spec, rollout()))["snoop"]
    assert grade.status == "grader_error" and "did not return within 1 s" in grade.reason


async def test_two_skills_with_a_grader_module_of_the_same_name_each_get_their_own(tmp_path):
    grading = Rollout(positive()).build()
    values = []
    for number, value in enumerate((0.25, 0.75)):
        skill = tmp_path / f"skill-{number}"
        skill.mkdir()
        (skill / "grade.py").write_text(f"def grade(d):\n    return {{'metrics': {{'house': {{'value': {value}}}}}}}\n")
        spec = GraderSpec(("house",), python=("grade", "grade"), cwd=skill)
        values.append((await run_byog(spec, grading))["house"].value)
    assert values == [0.25, 0.75]
