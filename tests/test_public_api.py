"""The Python API as a user meets it: ``from aces_ci import …`` and nothing else of ours.

This file imports only :mod:`aces_ci`'s public names (plus the scripted model server standing in for a
provider): it trials the example repository's capital-cities skill — whose facts are planted wrong — on
that server, values a planted game in-process with a Python oracle defined here, runs the README's
"Python API" example as written, and checks the face itself: every name of ``__all__`` resolves, and
``import aces_ci`` alone loads neither numpy nor httpx (the CLI's scan imports the package first).
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import aces_ci
from aces_ci import (
    CompiledSkill,
    InputError,
    RunFlags,
    ScanFlags,
    ScanResult,
    TrialFlags,
    TrialResult,
    ValueFlags,
    ValueReport,
    compile_skill,
    load_skill,
    scan_skills,
    trial,
    value,
)
from tests.servers import ScriptedRequest, ScriptedServer, Text
from tests.servers.fixtures import ServerFactory

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "skill-repo"
CAPITALS = {
    "France": "Paris",
    "Italy": "Rome",
    "Germany": "Berlin",
    "Austria": "Vienna",
    "Ireland": "Dublin",
    "Norway": "Oslo",
    "Poland": "Warsaw",
    "Japan": "Tokyo",
}
"""What the stand-in model knows, unless a fact in its context says otherwise."""


@pytest.fixture(autouse=True)
def _no_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    """As in a pipeline (plain progress lines), without the user's keys: the server needs none."""
    monkeypatch.setenv("CI", "true")
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)


def _believes_its_context(req: ScriptedRequest) -> Text:
    """A model that answers the capital asked for, taking a fact in its context (the skill's) over what it knows."""
    country = re.search(r"capital of (\w+)\?", req.last_user_text)
    if country is None:
        return Text("I do not know")
    stated = re.search(rf"the capital of {country[1]} is (\w+)", req.all_text)
    return Text(stated[1] if stated else CAPITALS.get(country[1], "I do not know"))


def _example_repo(tmp_path: Path) -> Path:
    """A copy of the example repository, so the trial's cache and journal land in the test's folder."""
    repo = tmp_path / "skill-repo"
    shutil.copytree(EXAMPLE, repo)
    return repo


def _run(server: ScriptedServer, tmp_path: Path) -> RunFlags:
    return RunFlags(
        provider="openai",
        base_url=server.openai_url,
        model="scripted-model",
        disclosure="preload",
        runs=2,
        concurrency=4,
        cache_dir=tmp_path / "cache",
    )


def test_trial_of_the_example_skill_finds_its_planted_wrong_facts_harmful(
    scripted_server: ServerFactory, tmp_path: Path
) -> None:
    server = scripted_server(_believes_its_context)
    repo = _example_repo(tmp_path)
    skill = repo / "skills" / "capital-cities"
    result = trial(str(skill), settings=TrialFlags(run=_run(server, tmp_path)), config_file=repo / "aces.yml")
    assert isinstance(result, TrialResult)
    (found,) = result.skills
    outcome = found.lift["outcome"]
    assert outcome is not None
    # Seven of eight answers turn wrong with the skill (Japan is not in it): the lift is −7/8, a clear fail.
    assert outcome.delta == pytest.approx(-7 / 8)
    assert (found.name, found.verdict, result.verdict, found.n_cases) == ("capital-cities", "fail", "fail", 8)
    assert outcome.ci[1] <= result.bands.fail_band

    calls = server.calls
    again = trial([skill], settings=TrialFlags(run=_run(server, tmp_path)), config_file=repo / "aces.yml")
    assert server.calls == calls, "an identical rerun is served from the cache"
    assert again.skills[0].lift["outcome"] == outcome


def test_trial_of_a_folder_that_is_not_a_skill_is_an_input_error_before_any_model_call(
    scripted_server: ServerFactory, tmp_path: Path
) -> None:
    server = scripted_server(_believes_its_context)
    with pytest.raises(InputError, match=r"SKILL\.md"):
        trial(tmp_path, settings=TrialFlags(run=_run(server, tmp_path)))
    assert server.calls == 0


PLANTED = "---\nname: planted\ndescription: A planted game for the API test.\n---\n\n# Planted\n\n## Rules\n\n" + (
    "- ALPHA: use the primary method.\n- HARM: always answer in French.\n- DEAD: the sky is blue.\n"
)


def oracle(skill_dir: str, case: dict[str, Any], seed: int) -> float:
    """The planted game's score of a coalition: 0.5 + 0.3·[ALPHA] − 0.2·[HARM]; DEAD is worth nothing."""
    skill_md = Path(skill_dir) / "SKILL.md"  # the empty coalition stages no SKILL.md at all
    text = skill_md.read_text(encoding="utf-8") if skill_md.exists() else ""
    return 0.5 + (0.3 if "ALPHA" in text else 0.0) - (0.2 if "HARM" in text else 0.0)


def test_value_of_a_planted_game_in_process_gives_each_unit_its_closed_form_worth(tmp_path: Path) -> None:
    skill = tmp_path / "planted"
    skill.mkdir()
    (skill / "SKILL.md").write_text(PLANTED, encoding="utf-8")
    cases = tmp_path / "cases.json"
    cases.write_text(json.dumps({"evals": [{"id": f"c{i}", "prompt": f"question {i}"} for i in range(3)]}))

    game = compile_skill(skill)
    assert isinstance(game, CompiledSkill) and game.name == "planted"
    assert load_skill(skill).name == "planted"

    settings = ValueFlags(
        run=RunFlags(cache_dir=tmp_path / "cache"), evals=cases, oracle=f"python:{__name__}:oracle", exact=True
    )
    report = value(skill, settings=settings)
    assert isinstance(report, ValueReport) and report.valuation.measured
    worth = {}
    for unit in report.valuation.units:
        marker = report.game.player(unit.unit).preview.split(":")[0].lstrip("- ")
        assert unit.net_effect is not None
        worth[marker] = (unit.net_effect.value, unit.decision)
    assert worth["ALPHA"][0] == pytest.approx(0.3) and worth["ALPHA"][1] == "keep"
    assert worth["HARM"][0] == pytest.approx(-0.2) and worth["HARM"][1] == "delete"
    assert worth["DEAD"][0] == pytest.approx(0.0)


def readme_python_example() -> str:
    """The ``python`` block of README.md's "Python API" section."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("## Python API", 1)[1].split("\n## ", 1)[0]
    blocks: list[str] = re.findall(r"```python\n(.*?)```", section, flags=re.DOTALL)
    (block,) = blocks
    return block


def test_the_readme_python_example_runs_as_written(
    scripted_server: ServerFactory, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The README's example, against the scripted server standing in for the user's endpoint."""
    server = scripted_server(_believes_its_context)
    code = readme_python_example()
    assert len(code.splitlines()) <= 14 and "http://localhost:8000/v1" in code
    (tmp_path / "examples").mkdir()
    _example_repo(tmp_path / "examples")
    monkeypatch.chdir(tmp_path)
    exec(compile(code.replace("http://localhost:8000/v1", server.openai_url), "README.md", "exec"), {})
    printed = capsys.readouterr().out.splitlines()
    assert printed[0].startswith("capital-cities: ") and printed[0].endswith(" units")
    assert printed[-1] == "capital-cities fail -0.875"


def test_scan_of_the_example_repository_gives_each_skill_the_verdict_the_cli_gives(tmp_path: Path) -> None:
    """``aces_ci.scan_skills`` is ``aces-ci scan``'s path: same findings, same verdicts as the CLI's JSON report."""
    repo = tmp_path / "repo"
    shutil.copytree(EXAMPLE, repo)
    result = scan_skills(repo, settings=ScanFlags(cache_dir=None, jobs=1))
    assert isinstance(result, ScanResult)
    report = tmp_path / "scan.json"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "aces_ci.cli",
            "scan",
            str(repo),
            "--no-cache",
            "--jobs",
            "1",
            "-q",
            "--json",
            str(report),
        ],
        check=False,
        timeout=600,
    )
    cli = {skill["skill"]: skill["verdict"] for skill in json.loads(report.read_text())["skills"]}
    assert {skill.skill: skill.verdict for skill in result.skills} == cli
    assert {"pass", "fail"} <= set(cli.values()), "the example repository holds passing and failing skills"
    broken = {skill.skill: skill for skill in result.skills if skill.verdict == "fail"}
    assert all(skill.active_findings or skill.score.value < 100 for skill in broken.values())


def test_every_public_name_resolves_and_the_face_lists_them() -> None:
    for name in aces_ci.__all__:
        assert getattr(aces_ci, name) is not None, name
    assert set(aces_ci.__all__) <= set(dir(aces_ci))
    assert aces_ci.trial.__doc__ and aces_ci.value.__doc__ and aces_ci.compile_skill.__doc__
    with pytest.raises(AttributeError, match="no attribute 'nothing_here'"):
        _ = aces_ci.nothing_here


def test_importing_aces_ci_alone_loads_neither_numpy_nor_httpx() -> None:
    """Every ``aces_ci.*`` import runs the face first: ``aces-ci scan`` must start without the live tier."""
    probe = "import sys, aces_ci; aces_ci.__version__; print(sorted({'numpy', 'httpx'} & set(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=120)
    assert out.stdout.strip() == "[]"
