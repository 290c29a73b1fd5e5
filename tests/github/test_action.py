"""action.yml and the workflows: their structure, no injection, and the composite's steps run as a runner would.

The emulated runner resolves each step's ``env:`` expressions (``inputs.*``, ``github.action_path``,
``github.token``) the way Actions does, runs its ``run:`` script with bash and the ``GITHUB_*``
variables of a real step, then maps the action's ``outputs:`` from the step outputs file. The one
``uses:`` step (actions/setup-python) is not emulated: this machine's Python stands in for it. The
install step (a real ``pip install`` of this checkout, minutes on a busy runner) runs once per test
run, in the ``action_venv`` fixture; each test's runner runs the steps after it in that venv.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest
import yaml

from aces_ci.github import COMMENT_MARKER
from tests.once import once_per_run, run_root
from tests.servers import ScriptedServer

from .helpers import REPOSITORY, actions_env, event, make_repo, read_outputs
from .server import FORK_TOKEN, GitHubServer

# Hang guard above the install step's own 900 s limit (a busy runner's pip; or another worker's, waited for).
pytestmark = pytest.mark.timeout(1500)
ROOT = Path(__file__).parents[2]
ACTION = yaml.safe_load((ROOT / "action.yml").read_text())
WORKFLOWS = sorted([*(ROOT / ".github" / "workflows").glob("*.yml"), *(ROOT / "examples" / "workflows").glob("*.yml")])
EXPRESSION = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")
PINNED = re.compile(r"^[\w.-]+/[\w./-]+@[0-9a-f]{40}$")
INSTALL_STEP = "Install aces-ci"


def _steps() -> list[dict[str, Any]]:
    steps: list[dict[str, Any]] = ACTION["runs"]["steps"]
    return steps


def test_action_is_a_branded_composite_with_the_contracts_inputs_and_outputs() -> None:
    assert ACTION["runs"]["using"] == "composite"
    assert set(ACTION["branding"]) == {"icon", "color"}
    required = {
        "mode",
        "path",
        "config",
        "provider",
        "model",
        "harness",
        "runs",
        "budget-usd",
        "fail-on-score",
        "fail-on-lift",
        "comment",
        "junit",
        "sarif",
        "github-token",
    }
    assert required <= set(ACTION["inputs"])
    assert ACTION["inputs"]["github-token"]["default"] == "${{ github.token }}"
    outputs = ACTION["outputs"]
    assert {"verdict", "score", "lift", "lift-ci-low", "lift-ci-high", "junit-report", "sarif-report"} <= set(outputs)
    for name, spec in outputs.items():
        assert spec["value"] == f"${{{{ steps.run.outputs.{name} }}}}"


def test_every_input_is_mapped_through_env_and_no_script_interpolates_one() -> None:
    mapped = set()
    for step in _steps():
        assert "${{" not in step.get("run", ""), step.get("name")
        for value in (step.get("env") or {}).values():
            mapped.update(re.findall(r"inputs\.([\w-]+)", str(value)))
        for value in (step.get("with") or {}).values():
            mapped.update(re.findall(r"inputs\.([\w-]+)", str(value)))
    assert mapped == set(ACTION["inputs"])
    uses = [step["uses"] for step in _steps() if "uses" in step]
    assert all(PINNED.match(u) for u in uses), uses


def _jobs_steps(workflow: Mapping[str, Any]) -> Iterator[dict[str, Any]]:
    for job in workflow["jobs"].values():
        yield from job.get("steps", [])


@pytest.mark.parametrize("path", WORKFLOWS, ids=lambda p: p.name)
def test_workflows_are_well_formed_pinned_and_injection_free(path: Path) -> None:
    workflow = yaml.safe_load(path.read_text())
    assert workflow["name"] and workflow["jobs"]
    assert True in workflow or "on" in workflow  # PyYAML reads a bare `on:` key as True
    assert "permissions" in workflow, "least privilege: every workflow states its permissions"
    for step in _jobs_steps(workflow):
        run = step.get("run", "")
        for expression in EXPRESSION.findall(run):
            assert not expression.startswith(("inputs.", "github.event", "github.head_ref")), (path.name, run)
        uses = step.get("uses")
        if uses and not uses.startswith(("./", "aces-ci/aces-ci@")):
            assert PINNED.match(uses), f"{path.name}: {uses} is not pinned to a commit"


def test_example_workflows_cover_the_events_of_the_readme() -> None:
    names = {path.name for path in WORKFLOWS}
    assert {
        "ci.yml",
        "skill-gate.yml",
        "skill-release.yml",
        "skill-rerun.yml",
        "skill-comment.yml",
        "skill-approve.yml",
    } <= names
    comment = yaml.safe_load((ROOT / "examples" / "workflows" / "skill-comment.yml").read_text())
    assert "workflow_run" in comment[True]
    readme = (ROOT / "README.md").read_text()
    for name in ("skill-gate.yml", "skill-release.yml", "skill-rerun.yml", "skill-comment.yml", "skill-approve.yml"):
        assert name in readme


class EmulatedRunner:
    """Runs the composite action's ``run:`` steps as the Actions runner does."""

    def __init__(self, workspace: Path, env: Mapping[str, str], token: str | None) -> None:
        self.workspace = workspace
        self.env = dict(env)
        self.token = token or ""

    def _resolve(self, value: str, inputs: Mapping[str, str]) -> str:
        def one(match: re.Match[str]) -> str:
            expression = match.group(1)
            if expression.startswith("inputs."):
                name = expression.removeprefix("inputs.")
                if name in inputs:
                    return inputs[name]
                return self._resolve(str(ACTION["inputs"][name].get("default", "")), inputs)
            if expression == "github.action_path":
                return str(ROOT)
            if expression == "github.token":
                return self.token
            raise AssertionError(f"unexpected expression {expression}")

        return EXPRESSION.sub(one, value)

    def run(self, inputs: Mapping[str, str]) -> tuple[int, dict[str, str], str]:
        code = 0
        log = []
        for step in _steps():
            if "uses" in step or step.get("name") == INSTALL_STEP:  # installed once per run: action_venv
                continue
            env = {**self.env, **{k: self._resolve(str(v), inputs) for k, v in (step.get("env") or {}).items()}}
            done = subprocess.run(
                ["bash", "-e", "-c", step["run"]],
                cwd=self.workspace,
                env=env,
                capture_output=True,
                text=True,
                timeout=900,
                check=False,
            )
            log.append(done.stdout + done.stderr)
            code = done.returncode
            if code != 0:
                break
        step_outputs = read_outputs(Path(self.env["GITHUB_OUTPUT"]))
        action_outputs = {
            name: EXPRESSION.sub(lambda m: step_outputs.get(m.group(1).rsplit(".", 1)[1], ""), spec["value"])
            for name, spec in ACTION["outputs"].items()
        }
        return code, action_outputs, "\n".join(log)


@pytest.fixture(scope="session")
def action_venv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The install step (a real ``pip install`` of the action's checkout), once per test run: workers share it."""
    return once_per_run(run_root(tmp_path_factory), "runner-temp", _install) / "aces-ci-venv"


def _install(runner_temp: Path) -> None:
    env = {
        **os.environ,
        "ACES_CI_VENV": str(runner_temp / "aces-ci-venv"),
        "ACES_ACTION_PATH": str(ROOT),
        "ACES_VERSION": "",
        "ACES_PYTHON": sys.executable,
    }
    step = next(s for s in _steps() if s.get("name") == INSTALL_STEP)
    done = subprocess.run(
        ["bash", "-e", "-c", step["run"]], env=env, capture_output=True, text=True, timeout=900, check=False
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "aces-ci 0.1.0" in done.stdout


def _runner(
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    venv: Path,
    *,
    event_name: str,
    payload: str,
    api_url: str,
    token: str | None,
) -> tuple[EmulatedRunner, Path]:
    repo = make_repo(tmp_path, broken=True)
    _, summary = actions_env(
        monkeypatch, tmp_path, event_name, event(tmp_path, payload, repo), api_url=api_url, token=token, sha=repo.head
    )
    env = {
        **os.environ,
        "ACES_CI_VENV": str(venv),
        "RUNNER_TEMP": str(venv.parent),
        "GITHUB_WORKSPACE": str(repo.root),
        "ACES_PYTHON": sys.executable,
    }
    env.pop("GITHUB_TOKEN", None)
    return EmulatedRunner(repo.root, env, token), summary


@pytest.mark.slow  # the Action's install step, shared by the run
def test_composite_steps_on_a_push_produce_the_outputs(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, action_venv: Path
) -> None:
    runner, summary = _runner(
        monkeypatch,
        tmp_path,
        action_venv,
        event_name="push",
        payload="push.json",
        api_url="http://127.0.0.1:9",
        token=None,
    )

    code, outputs, log = runner.run({"mode": "auto", "fail-on-score": "60"})

    assert code == 1, log
    assert outputs["verdict"] == "fail" and outputs["work"] == "scan"
    assert outputs["score"].isdigit()
    assert (outputs["lift"], outputs["lift-ci-low"], outputs["lift-ci-high"]) == ("", "", "")
    assert outputs["junit-report"] == "aces-reports/junit.xml"
    assert (runner.workspace / outputs["junit-report"]).is_file()
    assert (runner.workspace / outputs["sarif-report"]).is_file()
    assert "::error file=skills/broken-skill/SKILL.md" in log
    assert COMMENT_MARKER in summary.read_text()


@pytest.mark.slow  # the Action's install step, shared by the run
def test_composite_steps_on_a_fork_pr_fall_back_to_the_summary(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, action_venv: Path, github: GitHubServer
) -> None:
    runner, summary = _runner(
        monkeypatch,
        tmp_path,
        action_venv,
        event_name="pull_request",
        payload="pull_request_fork.json",
        api_url=github.url,
        token=FORK_TOKEN,
    )

    code, outputs, log = runner.run({"junit": "", "check-run": "false"})

    assert code == 1, log
    assert outputs["junit-report"] == "" and outputs["comment-url"] == ""
    assert github.state.comments.get(8, []) == []
    assert any(r.path == f"/repos/{REPOSITORY}/issues/8/comments" for r in github.state.requests)
    text = summary.read_text()
    # The result is written first (before any comment call); the note on the refused comment follows it.
    assert COMMENT_MARKER in text and "> The PR comment could not be posted" in text
    assert text.index(COMMENT_MARKER) < text.index("> The PR comment could not be posted")
    assert FORK_TOKEN not in log


@pytest.mark.slow  # the Action's install step, shared by the run
def test_bad_boolean_input_is_an_input_error(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, action_venv: Path
) -> None:
    runner, _ = _runner(
        monkeypatch,
        tmp_path,
        action_venv,
        event_name="push",
        payload="push.json",
        api_url="http://127.0.0.1:9",
        token=None,
    )

    code, _, log = runner.run({"comment": "yes"})

    assert code == 2
    assert "input 'comment' must be true or false" in log


@pytest.mark.slow  # the Action's install step, shared by the run
def test_hostile_input_values_stay_data(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, action_venv: Path) -> None:
    runner, _ = _runner(
        monkeypatch,
        tmp_path,
        action_venv,
        event_name="push",
        payload="push.json",
        api_url="http://127.0.0.1:9",
        token=None,
    )
    marker = tmp_path / "pwned"

    code, _, log = runner.run({"comment-key": f"$(touch {marker})", "path": "."})

    assert code == 1, log
    assert not marker.exists()


@pytest.mark.slow  # the Action's install step, shared by the run
def test_composite_steps_on_a_release_tag_gate_on_the_lift_and_output_it(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, action_venv: Path, scripted_server: Callable[..., ScriptedServer]
) -> None:
    from tests.engine.helpers import write_skill
    from tests.trials.helpers import cases_json, commit, planted_accuracy

    server = scripted_server(planted_accuracy(0.0, 1.0))  # a harmful skill
    root = tmp_path / "repo"
    subprocess.run(["git", "init", "-q", "-b", "main", str(root)], check=True)
    write_skill(root / "skills", "marker", evals=cases_json("marker", 8))
    (root / "aces.yml").write_text(
        f"run:\n  provider: openai\n  base_url: {server.openai_url}\n  model: scripted-model\n  disclosure: preload\n"
    )
    commit(root, "first release")
    subprocess.run(["git", "-C", str(root), "tag", "v1.0.0"], check=True)
    sha = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], check=True, capture_output=True, text=True)
    _, summary = actions_env(
        monkeypatch, tmp_path, "push", event(tmp_path, "push_tag.json"), sha=sha.stdout.strip(), ref="refs/tags/v1.0.0"
    )
    env = {**os.environ, "ACES_CI_VENV": str(action_venv), "GITHUB_WORKSPACE": str(root), "CI": "true"}
    env.pop("OPENAI_API_KEY", None)
    runner = EmulatedRunner(root, env, None)

    # The server plants an accuracy effect; the gate reads that metric (the composite of a scripted
    # agent has no spread across cases, so at 8 cases its honest interval is too wide to fail).
    code, outputs, log = runner.run({"runs": "2", "results-branch": "", "lift-metric": "accuracy"})

    assert code == 1, log
    assert (outputs["work"], outputs["verdict"]) == ("release", "fail")
    assert float(outputs["lift-ci-high"]) <= -0.10
    assert (root / outputs["trial-report"]).is_file()
    assert 'type="NegativeSkillLift"' in (root / outputs["junit-report"]).read_text()
    assert "Paired trials: scripted-model" in summary.read_text()
