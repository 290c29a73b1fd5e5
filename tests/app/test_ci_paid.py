"""The paid paths of ``aces-ci ci`` as a workflow runs them: recorded events, a local GitHub server, a scripted model.

Release (tag push), a labelled pull request (same repository), a schedule and a
workflow_dispatch each run real trials against a scripted OpenAI-compatible server whose accuracy
with the skill in context is planted; baselines go to a results branch on a local bare ``origin``.
Assertions are what a user sees: exit codes, the comment or job summary, the outputs file, the
JUnit failure, the baseline file on the branch.
"""

from __future__ import annotations

import json
import subprocess
import sys
import xml.etree.ElementTree as ET
from collections.abc import Callable
from pathlib import Path

import pytest
import xmlschema
import yaml

from aces_ci import __version__
from aces_ci.cli import main
from aces_ci.engine import DEFAULT_BREAKER_AFTER
from aces_ci.github import COMMENT_MARKER
from aces_ci.schemas import validator
from tests.engine.helpers import MARKER_BODY, write_skill
from tests.github.helpers import actions_env, event, read_outputs
from tests.github.server import WRITE_TOKEN, GitHubServer
from tests.servers import Fault, ScriptedRequest, ScriptedServer, Text, model_flags
from tests.trials.helpers import cases_json, commit, draw

Server = Callable[..., ScriptedServer]
JUNIT_XSD = xmlschema.XMLSchema(Path(__file__).parents[1] / "report" / "junit.xsd")
PLAIN_BODY = "# Answering\n\nBe brief and polite when you answer questions."


@pytest.fixture(autouse=True)
def _no_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CI", "true")
    for key in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY"):
        monkeypatch.delenv(key, raising=False)


class Planted:
    """A model answering right with probability ``p_with`` when the skill's marker is in context, else ``p_without``;
    the probabilities can change between runs (a model update)."""

    def __init__(self, p_with: float, p_without: float) -> None:
        self.p_with, self.p_without = p_with, p_without

    def __call__(self, req: ScriptedRequest) -> Text:
        p = self.p_with if "ZEBRA-MARKER" in req.all_text else self.p_without
        return Text("42" if draw(req) < p else "I do not know")


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True).stdout.strip()


def _repo(tmp_path: Path, body: str = MARKER_BODY, cases: int = 12) -> tuple[Path, Path]:
    """A skills repository with one skill and a bare ``origin`` (where the results branch goes)."""
    root, origin = tmp_path / "repo", tmp_path / "origin.git"
    subprocess.run(["git", "init", "-q", "--bare", str(origin)], check=True)
    root.mkdir()
    subprocess.run(["git", "init", "-q", "-b", "main", str(root)], check=True)
    write_skill(root / "skills", "marker", body=body, evals=cases_json("marker", cases))
    commit(root, "first")
    _git(root, "remote", "add", "origin", str(origin))
    return root, origin


def _tag(root: Path, tag: str) -> str:
    _git(root, "tag", tag)
    return _git(root, "rev-parse", "HEAD")


def _ci(root: Path, server: ScriptedServer, *extra: str, model: str = "scripted-model") -> int:
    reports = root.parent / "reports"
    return main(
        [
            *("ci", str(root), "--reports", str(reports), "--no-cache", "--jobs", "1"),
            *model_flags(server, model=model),
            "--disclosure",
            "preload",
            *("--runs", "2", "--rollout-cache", str(root.parent / "rollouts"), "--concurrency", "4"),
            # The planted effect is on accuracy; the composite also holds skill efficiency, whose time ratio
            # follows the runner's load, so the gate reads accuracy to keep every verdict here exact.
            *("--lift-metric", "accuracy"),
            *extra,
        ]
    )


def _origin_file(origin: Path, path: str) -> str | None:
    done = subprocess.run(
        ["git", "--git-dir", str(origin), "show", f"aces-results:{path}"], capture_output=True, text=True, check=False
    )
    return done.stdout if done.returncode == 0 else None


def _testcases(junit: Path) -> dict[str, ET.Element]:
    JUNIT_XSD.validate(str(junit))
    return {case.get("name", ""): case for case in ET.parse(junit).iter("testcase") if case.get("classname") != ""}


def _properties(case: ET.Element) -> dict[str, str]:
    return {p.get("name", ""): p.get("value", "") for p in case.iter("property")}


def _fresh(files: tuple[Path, Path]) -> tuple[Path, Path]:
    """Empty the runner's output and summary files: a new job of the same workflow starts with its own."""
    for path in files:
        path.write_text("")
    return files


def _release(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, root: Path, tag: str, payload: str = "push_tag.json"
) -> tuple[Path, Path]:
    """A tag push (or, with ``release.json``, a published release) of ``tag`` at the repository's HEAD."""
    sha = _tag(root, tag)
    name = "release" if payload == "release.json" else "push"
    return actions_env(monkeypatch, tmp_path, name, event(tmp_path, payload), sha=sha, ref=f"refs/tags/{tag}")


@pytest.mark.parametrize("payload", ["push_tag.json", "release.json"])
def test_a_release_with_a_harmful_skill_fails_with_a_junit_failure_naming_metric_and_interval(
    scripted_server: Server,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    payload: str,
) -> None:
    server = scripted_server(Planted(0.0, 1.0))  # the skill steers the agent away from the right answer
    root, origin = _repo(tmp_path, cases=8)
    output, summary = _release(tmp_path, monkeypatch, root, "v1.2.0", payload)

    assert _ci(root, server) == 1

    values = read_outputs(output)
    assert (values["work"], values["verdict"]) == ("release", "fail")
    assert float(values["lift-ci-high"]) <= -0.10 and float(values["lift"]) < 0
    # the lift output is the headline's number, and says which contrast it is
    assert values["lift-contrast"] == "accuracy, with marker vs without marker, skills/marker"
    low, high = 100 * float(values["lift-ci-low"]), 100 * float(values["lift-ci-high"])
    headline = f"{100 * float(values['lift']):+.0f} pp, 95% CI {low:+.0f} … {high:+.0f}, **fail**"
    assert headline in summary.read_text()
    junit = tmp_path / "reports" / "junit.xml"
    case = _testcases(junit)["lift.accuracy"]
    failure = case.find("failure")
    assert failure is not None and failure.get("type") == "NegativeSkillLift"
    message = failure.get("message", "")
    assert "accuracy lift -" in message and "95% interval [" in message
    assert "lies at or below the fail band -0.10" in message
    readme = " ".join((Path(__file__).parents[2] / "README.md").read_text().split())
    assert f"`{message}`" in readme, "the README quotes the failure this release produces"
    props = _properties(case)
    assert float(props["ci_high"]) == pytest.approx(float(values["lift-ci-high"]), abs=1e-5)
    text = summary.read_text()
    assert "❌ aces-ci: gate failed" in text and "Paired trials: scripted-model on builtin" in text
    assert "#### SkillSV: skills/marker" in text  # the release's valuation, after its trials
    assert "| outcome = accuracy |" in text and "Turns/rollout" in text
    # one skill, 8 cases, trials and SkillSV: 6.3 KB (9.1 KB with outcome and accuracy as two identical rows and bars,
    # a contrast line repeating the headline, six per-axis chart colours and a pull request's hidden digest of the
    # trials, which no later run of a release reads)
    assert "aces-ci:kept-trials" not in text
    assert len(text.encode()) < 7 * 1024, len(text.encode())  # the lift table and the per-arm cost table
    out = capsys.readouterr().out
    assert "::error file=skills/marker/SKILL.md,line=1,title=lift.accuracy (skills/marker)::fail" in out
    # The blocked release's record is kept, but it does not become the baseline.
    assert _origin_file(origin, "releases/v1.2.0.json") is not None
    assert _origin_file(origin, "baseline.json") is None
    assert json.loads(Path(values["trial-report"]).read_text())["verdict"] == "fail"


def test_a_results_branch_that_cannot_be_pushed_warns_and_the_release_still_gets_its_verdict(
    scripted_server: Server, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The trial already happened: a workflow without push rights loses the stored copy, not the gate."""
    server = scripted_server(Planted(0.9, 0.2))
    root, _ = _repo(tmp_path)
    _git(root, "remote", "remove", "origin")
    output, summary = _release(tmp_path, monkeypatch, root, "v1.0.0")

    assert _ci(root, server) == 0
    assert read_outputs(output)["verdict"] == "pass"
    # The cause is the missing remote, not the token's permissions: the warning says so.
    not_stored = "The results of v1.0.0 were not stored on branch aces-results (the checkout has no "
    assert not_stored + "\\`origin\\` remote to push to)" in summary.read_text()  # Markdown escapes backticks
    annotation = "::warning title=aces-ci%3A baseline not stored::" + not_stored + "`origin` remote to push to)"
    assert annotation in capsys.readouterr().out


def test_release_stores_the_baseline_and_reruns_flag_a_regression_only_when_the_interval_says_so(
    scripted_server: Server, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    model = Planted(0.9, 0.2)
    server = scripted_server(model)
    root, origin = _repo(tmp_path)
    output, summary = _release(tmp_path, monkeypatch, root, "v1.0.0")

    assert _ci(root, server) == 0

    released = read_outputs(output)
    assert (released["work"], released["verdict"]) == ("release", "pass")
    # the release's valuation is kept for good beside its trial record (the run's artifact expires)
    (valuation,) = sorted(Path(released["value-report"]).glob("*.json"))
    assert _origin_file(origin, f"releases/v1.0.0/value/{valuation.name}") == valuation.read_text()
    assert "The results of v1.0.0 (its trials and 1 SkillSV valuation) are stored on branch" in summary.read_text()
    raw = _origin_file(origin, "baseline.json")
    assert raw is not None
    stored = json.loads(raw)
    assert list(validator("baseline").iter_errors(stored)) == []
    entry = stored["skills"]["skills/marker"]
    assert entry["release"] == "v1.0.0" and entry["agent"]["model"] == "scripted-model"
    trial = json.loads(Path(released["trial-report"]).read_text())
    assert entry["agent"]["harness_version"] == trial["agent"]["harness_version"]
    assert trial["agent"]["harness_version"].startswith(f"{__version__}+loop"), "the built-in loop's build is kept"
    assert entry["lift"]["delta"] == pytest.approx(float(released["lift"]), abs=1e-5)
    assert len(entry["cases"]) == 12
    assert "are stored on branch aces-results" in summary.read_text()

    # A schedule on the same model: a fresh seed, the same behaviour — no regression.
    output, summary = _fresh(
        actions_env(
            monkeypatch, tmp_path, "schedule", event(tmp_path, "schedule.json"), sha=_git(root, "rev-parse", "HEAD")
        )
    )
    monkeypatch.setenv("GITHUB_RUN_ID", "1001")
    calls = server.calls
    assert _ci(root, server) == 0
    assert server.calls > calls, "a rerun draws new runs, it does not replay the release's"
    same = _properties(_testcases(tmp_path / "reports" / "junit.xml")["rerun.regression"])
    assert float(same["change_ci_low"]) <= 0.0 <= float(same["change_ci_high"])
    assert read_outputs(output)["work"] == "rerun"
    text = summary.read_text()
    assert "accuracy lift now vs the last release" in text and "no detectable change" in text
    assert "edited since" not in text and "cannot be told" not in text
    first = json.loads(Path(read_outputs(output)["trial-report"]).read_text())
    first_path = f"reruns/{first['generated_at'][:10]}-1001.json"
    assert f"This rerun is stored on branch aces-results as {first_path}" in text
    assert "lift in the last reruns" not in text, "no earlier rerun yet: no trend"
    record = json.loads(_origin_file(origin, first_path) or "null")
    assert list(validator("rerun").iter_errors(record)) == []
    kept = record["skills"]["skills/marker"]
    assert kept["baseline"]["release"] == "v1.0.0" and kept["change"]["label"] == "no detectable change"
    assert kept["lift"]["delta"] == pytest.approx(first["skills"][0]["lift"]["accuracy"]["delta"], abs=1e-9)
    assert (record["run_id"], record["agent"]["model"], len(kept["cases"])) == ("1001", "scripted-model", 12)

    # The model is updated and the skill stops helping: the interval of the change lies below zero.
    model.p_with = 0.2
    skill_md = root / "skills" / "marker" / "SKILL.md"
    skill_md.write_text(skill_md.read_text() + "\nAnswer in one line.\n")
    commit(root, "a small edit since the release")
    output, summary = _fresh(
        actions_env(
            monkeypatch,
            tmp_path,
            "workflow_dispatch",
            event(tmp_path, "workflow_dispatch.json"),
            sha=_git(root, "rev-parse", "HEAD"),
        )
    )
    monkeypatch.setenv("GITHUB_RUN_ID", "1002")
    assert _ci(root, server, model="scripted-model-2") == 1
    case = _testcases(tmp_path / "reports" / "junit.xml")["rerun.regression"]
    failure = case.find("failure")
    assert failure is not None and failure.get("type") == "LiftRegression"
    props = _properties(case)
    assert float(props["change_ci_high"]) < 0.0
    assert (props["model_then"], props["model_now"]) == ("scripted-model", "scripted-model-2")
    text = summary.read_text()
    assert "| regression |" in text
    assert "skill edited since v1.0.0; model openai/scripted-model → openai/scripted-model-2" in text
    assert "**underpowered** on accuracy" in text and "To settle it: " in text and "cases in all" in text
    assert read_outputs(output)["verdict"] == "fail"
    # The trend: the stored rerun beside this one, each lift with its interval and its model.
    trend = text[text.index("#### accuracy lift in the last reruns") :]
    row = next(line for line in trend.splitlines() if line.startswith("| skills/marker"))
    assert row.count("[") == 2, "both reruns' lifts, each with its interval"
    assert f"{first['generated_at'][:10]} (1001)" in trend and "| now" in trend
    assert "1001: openai/scripted-model; 1002: openai/scripted-model-2" in trend and "it is not a test" in trend
    second = json.loads(Path(read_outputs(output)["trial-report"]).read_text())
    assert _origin_file(origin, f"reruns/{second['generated_at'][:10]}-1002.json") is not None
    assert _origin_file(origin, first_path) is not None, "history accumulates"


def test_a_labelled_pull_request_measures_its_version_against_the_base_and_with_against_without(
    scripted_server: Server, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, github: GitHubServer
) -> None:
    server = scripted_server(Planted(0.9, 0.1))
    root, _ = _repo(tmp_path, body=PLAIN_BODY, cases=10)
    base = _git(root, "rev-parse", "HEAD")
    write_skill(root / "skills", "marker", body=MARKER_BODY)  # the change teaches the skill the answer
    commit(root, "the skill now knows the number")
    head = _git(root, "rev-parse", "HEAD")
    path = event(tmp_path, "pull_request_labeled.json")
    path.write_text(path.read_text().replace("1" * 40, base).replace("2" * 40, head))
    output, _ = actions_env(monkeypatch, tmp_path, "pull_request", path, api_url=github.url, token=WRITE_TOKEN)

    assert _ci(root, server) == 0

    values = read_outputs(output)
    assert (values["work"], values["verdict"]) == ("trial", "pass")
    assert float(values["lift-ci-low"]) > 0, "the output lift is the version lift: this change helped"
    ours = github.state.ours(7, COMMENT_MARKER)
    assert len(ours) == 1
    body = ours[0]["body"]
    assert "This version vs the base branch's: scripted-model" in body
    assert "With vs without the skill: scripted-model" in body
    # two contrasts of 10 cases, with the hidden digest: 12.5 KB (15.2 KB with each case's prompt in both contrasts,
    # the estimand's shared sentences said twice, outcome and accuracy as twin rows and the full base hash ×6)
    assert len(body.encode()) < 13.5 * 1024, len(body.encode())
    assert f"vs marker at {base[:12]}" in body and base not in body  # the base branch's version, short hash in text
    cases = _testcases(tmp_path / "reports" / "junit.xml")
    assert {"lift.accuracy", "version-lift.accuracy"} <= set(cases)
    assert Path(values["trial-report"]).is_file() and Path(values["trial-without-report"]).is_file()
    page = Path(values["html-report"]).read_text()
    for source in (values["json-report"], values["trial-report"], values["trial-without-report"]):
        assert f"<code>{source}</code>" in page, "the HTML report holds the scan and both trials"
    assert "#artifacts)" in body, "the comment links the run's artifacts, where the page is"


def test_the_two_trials_of_a_pull_request_share_one_budget(
    scripted_server: Server, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    server = scripted_server(Planted(0.9, 0.1))
    root, _ = _repo(tmp_path, body=PLAIN_BODY, cases=10)
    base = _git(root, "rev-parse", "HEAD")
    write_skill(root / "skills", "marker", body=MARKER_BODY)
    commit(root, "the skill now knows the number")
    path = event(tmp_path, "pull_request_labeled.json")
    path.write_text(path.read_text().replace("1" * 40, base).replace("2" * 40, _git(root, "rev-parse", "HEAD")))
    output, _ = actions_env(monkeypatch, tmp_path, "pull_request", path)

    _ci(root, server, "--max-rollouts", "50")

    values = read_outputs(output)
    presence = json.loads(Path(values["trial-without-report"]).read_text())
    version = json.loads(Path(values["trial-report"]).read_text())
    assert presence["spent"]["rollouts_run"] == 40  # 10 cases x 2 runs x (with, without)
    assert version["spent"]["rollouts_run"] == 10, "the second trial gets only what the budget left"
    assert version["spent"]["rollouts_reused"] >= 20, "its with-condition comes from the rollout cache"
    assert version["stopped_by"] is not None
    assert server.calls == 50


@pytest.mark.parametrize(("mode", "what"), [("trial", "Paired trials"), ("value", "SkillSV valuation")])
def test_a_labelled_fork_pull_request_never_calls_the_model_and_says_why(
    scripted_server: Server, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, mode: str, what: str
) -> None:
    server = scripted_server(Planted(0.9, 0.1))
    root, _ = _repo(tmp_path, cases=4)
    head = _git(root, "rev-parse", "HEAD")
    path = event(tmp_path, "pull_request_fork_labeled.json")
    path.write_text(path.read_text().replace("1" * 40, head).replace("2" * 40, head))
    output, summary = actions_env(monkeypatch, tmp_path, "pull_request", path)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-for-forks")  # even with a key in reach

    assert _ci(root, server, "--mode", mode) == 0

    assert server.calls == 0
    assert read_outputs(output)["work"] == "scan"
    assert f"{what} not run" in summary.read_text()
    assert "fork code never gets this repository's secrets" in summary.read_text()
    assert not (tmp_path / "reports" / "value").exists()


def test_a_changed_skill_without_evals_warns_instead_of_passing_silently(
    scripted_server: Server, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    server = scripted_server(Planted(0.9, 0.2))
    root, _ = _repo(tmp_path, cases=6)
    write_skill(root / "skills", "notes", body=PLAIN_BODY)  # no evals/
    commit(root, "a skill without a dataset")
    output, summary = _release(tmp_path, monkeypatch, root, "v2.0.0")

    assert _ci(root, server, "--results-branch", "") == 0

    assert read_outputs(output)["verdict"] == "warn"
    assert "skills/notes" in summary.read_text() and "lift was not measured" in summary.read_text()


def _aces_step(path: Path) -> dict[str, object]:
    workflow = yaml.safe_load(path.read_text())
    steps = [step for job in workflow["jobs"].values() for step in job["steps"]]
    step: dict[str, object] = next(s for s in steps if str(s.get("uses", "")).startswith("aces-ci/aces-ci@"))
    return step


def test_the_example_workflows_give_each_paid_path_what_it_needs() -> None:
    examples = Path(__file__).parents[2] / "examples" / "workflows"
    gate = yaml.safe_load((examples / "skill-gate.yml").read_text())
    assert "labeled" in gate[True]["pull_request"]["types"], "the trial label arrives as a `labeled` event"
    gate_step = _aces_step(examples / "skill-gate.yml")
    assert gate_step["with"]["mode"] == "auto" and "ANTHROPIC_API_KEY" in gate_step["env"]  # type: ignore[index]
    release = yaml.safe_load((examples / "skill-release.yml").read_text())
    assert release[True]["push"]["tags"] and release["permissions"]["contents"] == "write"  # the results branch
    checkout = release["jobs"]["trials"]["steps"][0]
    assert checkout["with"]["fetch-depth"] == 0, "the previous release tag must be in the clone"
    rerun = yaml.safe_load((examples / "skill-rerun.yml").read_text())
    assert {"schedule", "workflow_dispatch"} <= set(rerun[True])
    assert _aces_step(examples / "skill-rerun.yml")["with"]["mode"] == "rerun"  # type: ignore[index]
    assert rerun["permissions"]["contents"] == "write", "a rerun stores its record on the results branch"
    action = yaml.safe_load((Path(__file__).parents[2] / "action.yml").read_text())
    assert action["inputs"]["results-branch"]["default"] == "aces-results"
    assert {"trial-report", "trial-without-report", "html-report"} <= set(action["outputs"])
    assert action["inputs"]["html"]["default"] == "aces-reports/report.html"
    for workflow in ("skill-gate.yml", "skill-release.yml", "skill-rerun.yml", "skill-value.yml"):
        upload = [
            s
            for s in yaml.safe_load((examples / workflow).read_text())["jobs"].popitem()[1]["steps"]
            if "upload-artifact" in s.get("uses", "")
        ]
        assert upload and upload[0]["with"]["path"] == "aces-reports/", f"{workflow} uploads report.html"


def test_a_release_of_a_skills_folder_names_its_skills_as_the_scan_does(
    scripted_server: Server, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    server = scripted_server(Planted(0.0, 1.0))
    root, _ = _repo(tmp_path, cases=8)
    write_skill(root / "skills", "second", body=MARKER_BODY, evals=cases_json("second", 8))
    commit(root, "a second skill")
    _, summary = _release(tmp_path, monkeypatch, root, "v1.0.0")

    assert _ci(root / "skills", server, "--results-branch", "") == 1  # path: skills (the scan's root)

    out = capsys.readouterr().out
    assert "::error file=skills/marker/SKILL.md,line=1,title=lift.accuracy (marker)::fail" in out
    assert "::warning file=skills/marker/SKILL.md,line=8,title=skillsv.delete (marker)::SkillSV: unit u1" in out
    assert "skills/skills/" not in out
    text = summary.read_text()
    scan_rows = [line for line in text[text.index("#### Static scan") :].splitlines() if line.startswith("| [")]
    assert [row.split("]")[0] for row in scan_rows] == ["| [marker", "| [second"]
    assert "- **marker** (with marker vs without marker)" in text and "- **second** (" in text
    versus = text[text.index("#### Structural score vs measured lift") :].split("####")[1]
    assert [line.split("|")[1].strip() for line in versus.splitlines() if line.startswith("| ")][1:] == [
        "marker",
        "second",
    ], "every trialled skill has its row beside its scan score"
    assert "over 2 skills" in versus or "not defined for these 2 skills" in versus
    assert "**skills/marker**" not in text and "| skills/marker" not in text, "no table names it from the repository"


def _pull_request_event(tmp_path: Path, name: str, base: str, head: str) -> Path:
    path = event(tmp_path, name)
    path.write_text(path.read_text().replace("1" * 40, base).replace("2" * 40, head))
    return path


def test_a_later_push_keeps_the_labelled_runs_trials_in_the_comment_marked_with_their_commit(
    scripted_server: Server, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, github: GitHubServer
) -> None:
    server = scripted_server(Planted(0.9, 0.1))
    root, _ = _repo(tmp_path, body=PLAIN_BODY, cases=10)
    base = _git(root, "rev-parse", "HEAD")
    write_skill(root / "skills", "marker", body=MARKER_BODY)
    commit(root, "the skill now knows the number")
    measured = _git(root, "rev-parse", "HEAD")
    labelled = _pull_request_event(tmp_path, "pull_request_labeled.json", base, measured)
    actions_env(monkeypatch, tmp_path, "pull_request", labelled, api_url=github.url, token=WRITE_TOKEN)
    assert _ci(root, server) == 0
    trial_body = github.state.ours(7, COMMENT_MARKER)[0]["body"]
    lift_table = next(line for line in trial_body.splitlines() if line.startswith("| outcome = accuracy"))

    # A push to the pull request (no label added): the scan only, no model call.
    skill_md = root / "skills" / "marker" / "SKILL.md"
    skill_md.write_text(skill_md.read_text() + "\nAnswer in one line.\n")
    commit(root, "a push after the trials")
    head = _git(root, "rev-parse", "HEAD")
    for _ in range(2):  # and again: the digest is carried from comment to comment
        pushed = _pull_request_event(tmp_path, "pull_request.json", base, head)
        output, _ = _fresh(
            actions_env(monkeypatch, tmp_path, "pull_request", pushed, api_url=github.url, token=WRITE_TOKEN)
        )
        calls = server.calls
        assert _ci(root, server) == 0
        assert server.calls == calls, "a push to a labelled pull request calls no model"
        assert read_outputs(output)["work"] == "scan"

        ours = github.state.ours(7, COMMENT_MARKER)
        assert len(ours) == 1, "still one sticky comment"
        body = ours[0]["body"]
        assert len(body) <= 65536
        assert f"Paired trials measured at `{measured[:12]}` — stale: the pull request changed since" in body
        assert f"not of this head (`{head[:12]}`)" in body and "they do not gate this run" in body
        assert "This version vs the base branch's: scripted-model" in body
        assert "With vs without the skill: scripted-model" in body
        assert lift_table in body, "the lift table is shown as the trial run rendered it"
        assert "What these numbers estimate" in body
        assert "#### Static scan" in body and f"at {head[:12]}" in body  # this run's scan, at the new head
        assert "<!-- aces-ci:kept-trials v1 " in body


TASKS_FOR_ONE_SKILL = """\
import json, os
if os.environ["ACES_SKILL_NAME"] == "tasked":
    for i in range(6):
        prompt = f"Task {i}: the secret project number?"
        print(json.dumps({"id": f"task-{i}", "prompt": prompt, "expected_output": "42"}))
"""


def _eval_md(count: int) -> str:
    cases = [
        f"## Case md-{i}\n\nPrompt: Asked by the author ({i}): the secret project number?\nExpected: 42\n"
        for i in range(count)
    ]
    return "# What this skill is for\n\n" + "\n".join(cases)


def test_a_release_trials_every_skill_the_trial_verb_can_read_and_warns_only_for_the_one_with_no_case(
    scripted_server: Server, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    server = scripted_server(Planted(1.0, 0.0))
    root, _ = _repo(tmp_path, cases=6)
    write_skill(root / "skills", "authored", files={"evals/EVAL.md": _eval_md(6)})  # EVAL.md, no evals.json
    write_skill(root / "skills", "tasked")  # its cases come from aces.yml's task command only
    write_skill(root / "skills", "notes", body=PLAIN_BODY)  # nothing gives it a case
    (root / "tools").mkdir()
    (root / "tools" / "cases.py").write_text(TASKS_FOR_ONE_SKILL)
    command = json.dumps([sys.executable, "tools/cases.py"])
    (root / "aces.yml").write_text(f"evals:\n  tasks: {{command: {command}}}\n")
    commit(root, "skills whose cases come from EVAL.md and from the task command")
    output, summary = _release(tmp_path, monkeypatch, root, "v1.0.0")

    assert _ci(root, server, "--results-branch", "", "--no-value") == 0

    values = read_outputs(output)
    assert (values["work"], values["verdict"]) == ("release", "warn")
    trial = json.loads(Path(values["trial-report"]).read_text())
    assert list(validator("trial-result").iter_errors(trial)) == []
    trialled = {skill["skill"]: skill for skill in trial["skills"]}
    assert sorted(trialled) == ["skills/authored", "skills/marker", "skills/tasked"]
    assert trialled["skills/authored"]["eval_source"] == "skills/authored/evals/EVAL.md"
    assert "task command" in trialled["skills/tasked"]["eval_source"]
    assert all(trialled[name]["lift"]["accuracy"]["n_cases"] == 6 for name in trialled)
    junit = tmp_path / "reports" / "junit.xml"
    JUNIT_XSD.validate(str(junit))
    lifts = {
        case.get("classname"): case for case in ET.parse(junit).iter("testcase") if case.get("name") == "lift.accuracy"
    }
    verdicts = {skill: _properties(case).get("verdict") for skill, case in lifts.items()}
    assert verdicts == {
        "skills.authored": "pass",
        "skills.marker": "pass",
        "skills.tasked": "pass",
        "skills.notes": None,
    }
    assert "this skill's lift was not measured" in lifts["skills.notes"].findtext("system-out", "")
    out = capsys.readouterr().out
    no_lift = [line for line in out.splitlines() if "lift was not measured" in line]
    assert len(no_lift) == 1 and "title=lift.accuracy (skills/notes)" in no_lift[0]
    assert "no eval case in the task command" in no_lift[0], "the warning says what was read for the skill"
    text = summary.read_text()
    assert "skills/authored" in text and "skills/tasked" in text


# --- A dead model API: infrastructure is never a pass ----------------------------------------------------------

DEAD = "the upstream model service is down"


def _dead(req: ScriptedRequest) -> Fault:
    """Every model call answers 500: a dead API (the client's retries and the circuit breaker meet it)."""
    return Fault(500, message=DEAD)


def _bounded(server: ScriptedServer, rollouts: int) -> None:
    """A dead API costs one retry cycle per rollout in flight, then one call per rollout until the breaker trips
    (concurrency 4, 6 attempts, 5 errors in a row) — never six attempts for every rollout of the design."""
    assert server.calls <= 4 * 6 + DEFAULT_BREAKER_AFTER + 4 < 6 * rollouts


def _says_infrastructure(text: str, planned: int) -> None:
    assert "🛑 aces-ci: infrastructure error" in text and "rerun the job" in text
    assert f"of {planned} rollouts lost" in text, "how many rollouts the outage cost"
    assert "not run because the circuit breaker tripped" in text
    assert "first error: retries\\_exhausted" in text and DEAD in text, "the first error's reason (Markdown-escaped)"
    assert "Not applicable to this skill's cases" not in text
    assert "gate passed" not in text


def _results_branch(origin: Path) -> str:
    return _git(origin, "ls-remote", "--heads", str(origin), "aces-results") if origin.exists() else ""


def test_a_dead_model_api_on_a_release_is_exit_3_verdict_error_and_stores_nothing(
    scripted_server: Server, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    server = scripted_server(_dead)
    root, origin = _repo(tmp_path, cases=6)
    output, summary = _release(tmp_path, monkeypatch, root, "v1.0.0")

    assert _ci(root, server) == 3

    values = read_outputs(output)
    assert (values["work"], values["verdict"]) == ("release", "error")
    assert values["lift"] == "", "no pair was measured: no lift, never a 0"
    _bounded(server, 24)
    assert _origin_file(origin, "baseline.json") is None and _origin_file(origin, "releases/v1.0.0.json") is None
    assert _results_branch(origin) == "", "nothing was pushed to the results branch"
    text = " ".join(summary.read_text().split())
    _says_infrastructure(text, 24)
    assert "Nothing from this run is stored on branch aces-results" in text
    assert "SkillSV valuation did not run: the trials could not be measured (infrastructure)" in text
    assert "no unit is clearly low-value" not in text and "the metric does not apply" not in text
    case = _testcases(tmp_path / "reports" / "junit.xml")["lift.accuracy"]
    error = case.find("error")
    assert error is not None and error.get("type") == "InfrastructureError"
    assert _properties(case)["lost"] == "24"
    trial = json.loads(Path(values["trial-report"]).read_text())
    assert trial["stopped_by"] == "circuit_breaker"
    assert any("circuit breaker tripped after 5 consecutive" in note for note in trial["notes"])
    out = capsys.readouterr().out
    assert "::error file=skills/marker/SKILL.md,line=1,title=lift.accuracy (skills/marker)::infrastructure" in out


def test_a_dead_model_api_on_a_labelled_pull_request_comments_infrastructure_and_exits_3(
    scripted_server: Server, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, github: GitHubServer
) -> None:
    server = scripted_server(_dead)
    root, _ = _repo(tmp_path, body=PLAIN_BODY, cases=4)
    base = _git(root, "rev-parse", "HEAD")
    write_skill(root / "skills", "marker", body=MARKER_BODY)
    commit(root, "the skill now knows the number")
    labelled = _pull_request_event(tmp_path, "pull_request_labeled.json", base, _git(root, "rev-parse", "HEAD"))
    output, _ = actions_env(monkeypatch, tmp_path, "pull_request", labelled, api_url=github.url, token=WRITE_TOKEN)

    assert _ci(root, server) == 3

    values = read_outputs(output)
    assert (values["work"], values["verdict"]) == ("trial", "error")
    body = " ".join(github.state.ours(7, COMMENT_MARKER)[0]["body"].split())
    _says_infrastructure(body, 16)
    assert "This version was not compared with the base branch's" in body, "no second trial against the outage"
    _bounded(server, 16)
    # The next push (scan only) still shows what the labelled run found: an outage, not a lift.
    pushed = _pull_request_event(tmp_path, "pull_request.json", base, _git(root, "rev-parse", "HEAD"))
    _fresh(actions_env(monkeypatch, tmp_path, "pull_request", pushed, api_url=github.url, token=WRITE_TOKEN))
    assert _ci(root, server) == 0
    assert "That run's gate: **error**" in github.state.ours(7, COMMENT_MARKER)[0]["body"]


def test_a_dead_model_api_on_a_scheduled_rerun_is_exit_3_and_stores_no_rerun_record(
    scripted_server: Server, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    server = scripted_server(_dead)
    root, origin = _repo(tmp_path, cases=4)
    output, summary = actions_env(
        monkeypatch, tmp_path, "schedule", event(tmp_path, "schedule.json"), sha=_git(root, "rev-parse", "HEAD")
    )
    monkeypatch.setenv("GITHUB_RUN_ID", "2001")

    assert _ci(root, server) == 3

    assert (read_outputs(output)["work"], read_outputs(output)["verdict"]) == ("rerun", "error")
    assert _results_branch(origin) == "", "no rerun record from an outage"
    text = " ".join(summary.read_text().split())
    _says_infrastructure(text, 16)
    assert "This rerun is stored" not in text and "Nothing from this run is stored" in text


def test_a_dead_model_api_in_mode_value_is_an_infrastructure_error_not_an_empty_valuation(
    scripted_server: Server, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    server = scripted_server(_dead)
    root, _ = _repo(tmp_path, cases=4)
    output, summary = actions_env(
        monkeypatch,
        tmp_path,
        "workflow_dispatch",
        event(tmp_path, "workflow_dispatch.json"),
        sha=_git(root, "rev-parse", "HEAD"),
    )

    assert _ci(root, server, "--mode", "value") == 3

    assert (read_outputs(output)["work"], read_outputs(output)["verdict"]) == ("value", "error")
    text = " ".join(summary.read_text().split())
    assert "🛑 aces-ci: infrastructure error" in text and "SkillSV's oracle failed after 0/" in text
    assert DEAD in text and "rerun the job" in text
    _bounded(server, 16)  # the valuation stops at its first batch with a failed rollout
    assert "no unit is clearly low-value" not in text.lower()
    case = _testcases(tmp_path / "reports" / "junit.xml")["skillsv.value"]
    assert case.find("error") is not None


class PartlyDown(Planted):
    """The planted model, except that every call about the given cases answers 500 (a partial outage)."""

    def __init__(self, p_with: float, p_without: float, down: tuple[str, ...] = ()) -> None:
        super().__init__(p_with, p_without)
        self.down = down

    def __call__(self, req: ScriptedRequest) -> Text | Fault:  # type: ignore[override]
        if any(case in req.all_text for case in self.down):
            return Fault(500, message=DEAD)
        return super().__call__(req)


def test_a_rerun_that_lost_over_a_tenth_of_its_rollouts_is_an_error_not_a_regression(
    scripted_server: Server, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    model = PartlyDown(0.9, 0.2)
    server = scripted_server(model)
    root, origin = _repo(tmp_path, cases=12)
    _release(tmp_path, monkeypatch, root, "v1.0.0")
    assert _ci(root, server, "--no-value") == 0
    baseline = _origin_file(origin, "baseline.json")

    # The skill stops helping, and the API fails every call about two of the twelve cases: 8 of 48 rollouts lost.
    model.p_with, model.down = 0.2, ("Question 0:", "Question 6:")
    output, summary = _fresh(
        actions_env(
            monkeypatch, tmp_path, "schedule", event(tmp_path, "schedule.json"), sha=_git(root, "rev-parse", "HEAD")
        )
    )
    monkeypatch.setenv("GITHUB_RUN_ID", "3001")
    # One rollout at a time: the lost rollouts then end in launch order, case by case, never five in a row
    # (with four at once, the slow failing ones could finish back to back and trip the circuit breaker).
    assert _ci(root, server, "--concurrency", "1") == 3

    assert read_outputs(output)["verdict"] == "error"
    cases = _testcases(tmp_path / "reports" / "junit.xml")
    lift = cases["lift.accuracy"].find("error")
    assert lift is not None and "8 of 48 rollouts lost" in lift.get("message", "")
    assert "does not gate: more than 10% of the design was lost" in (lift.text or ""), "the lift from what ran"
    regression = cases["rerun.regression"]
    assert regression.find("failure") is None and regression.find("skipped") is not None
    assert "not compared: the lift now is an infrastructure error" in regression.find("skipped").get("message", "")
    assert _origin_file(origin, "baseline.json") == baseline and _origin_file(origin, "reruns") is None
    assert "Nothing from this run is stored" in " ".join(summary.read_text().split())


def _headline_of(skill: dict[str, object], confidence: float) -> str:
    """The headline's arms and size, computed from the trial JSON as a reader would check them by hand."""
    lift = skill["lift"]["accuracy"]  # type: ignore[index]
    runs = lift["n_cases"] * lift["runs_per_arm"]
    before, after = round(lift["without_mean"] * runs), round(lift["with_mean"] * runs)
    low, high = (100 * bound for bound in lift["ci"])
    level = round(confidence * 100)
    size = f"{100 * lift['delta']:+.0f} pp, {level}% CI {low:+.0f} … {high:+.0f}"
    return f"accuracy {before}/{runs} → {after}/{runs}, {size}"


def _assert_says_only_what_it_has(body: str) -> None:
    """No section that has nothing to say: no SkillSV compile jargon, no table without rows, no empty heading."""
    assert "contraction" not in body and "hierarchy repair" not in body
    lines = body.splitlines()
    for index, line in enumerate(lines[:-1]):
        if line.startswith("|---") or line.startswith("|:--") or line.startswith("| ---"):
            assert lines[index + 1].startswith("|"), f"a table with no rows after line {index}: {lines[index - 1]}"
        if line.startswith("#### "):
            following = next((later for later in lines[index + 1 :] if later.strip()), "")
            assert not following.startswith("#"), f"an empty section: {line}"


def test_a_release_comment_leads_with_headlines_equal_to_the_json_and_quotes_the_lift_output(
    scripted_server: Server, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Golden: a release of two skills. The `lift` output is a repository-level figure (or the lowest interval):
    the comment quotes it character for character, with its contrast; each headline is the JSON's numbers."""
    server = scripted_server(Planted(0.9, 0.2))
    root, _ = _repo(tmp_path, cases=10)
    write_skill(root / "skills", "second", body=MARKER_BODY, evals=cases_json("second", 10))
    commit(root, "a second skill")
    output, summary = _release(tmp_path, monkeypatch, root, "v2.0.0")

    assert _ci(root, server, "--results-branch", "") in (0, 1)

    values = read_outputs(output)
    body = summary.read_text()
    trial = json.loads(Path(values["trial-report"]).read_text())
    for skill in trial["skills"]:
        assert _headline_of(skill, trial["confidence"]) in body, skill["skill"]
    quoted = f"Step output `lift` = {values['lift']} ({round(100 * trial['confidence'])}% CI "
    assert f"{quoted}{values['lift-ci-low']} … {values['lift-ci-high']}): {values['lift-contrast']}." in body
    repository = trial.get("repository") or {}
    if values["lift-contrast"].endswith("repository mean over 2 skills"):
        assert float(values["lift"]) == pytest.approx(repository["delta"], abs=1e-5)
    else:  # the skill whose interval sits lowest: its own lift
        lowest = min(trial["skills"], key=lambda s: s["lift"]["accuracy"]["ci"][1])
        assert float(values["lift"]) == pytest.approx(lowest["lift"]["accuracy"]["delta"], abs=1e-5)
        assert lowest["skill"] in values["lift-contrast"]
    assert body.index(quoted) < body.index("#### Paired trials"), "the output's figure is read before the details"
    _assert_says_only_what_it_has(body)
    assert len(body) < 18_000, len(body)  # measured 15-16.5 KB: two skills' or two contrasts' tables and charts


def test_a_labelled_pull_request_comment_states_which_contrast_the_lift_output_carries(
    scripted_server: Server, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, github: GitHubServer
) -> None:
    """Golden: a labelled pull request's two contrasts. The `lift` output is the version lift, its headline leads,
    the comment says so with the output's own characters, and each headline equals its trial JSON."""
    server = scripted_server(Planted(0.9, 0.1))
    root, _ = _repo(tmp_path, body=PLAIN_BODY, cases=10)
    base = _git(root, "rev-parse", "HEAD")
    write_skill(root / "skills", "marker", body=MARKER_BODY)
    commit(root, "the skill now knows the number")
    labelled = _pull_request_event(tmp_path, "pull_request_labeled.json", base, _git(root, "rev-parse", "HEAD"))
    output, _ = actions_env(monkeypatch, tmp_path, "pull_request", labelled, api_url=github.url, token=WRITE_TOKEN)

    assert _ci(root, server) == 0

    values = read_outputs(output)
    (ours,) = github.state.ours(7, COMMENT_MARKER)
    body = ours["body"]
    version = json.loads(Path(values["trial-report"]).read_text())
    presence = json.loads(Path(values["trial-without-report"]).read_text())
    (version_skill,) = version["skills"]
    (presence_skill,) = presence["skills"]
    version_headline = _headline_of(version_skill, version["confidence"])
    assert version_headline in body and _headline_of(presence_skill, presence["confidence"]) in body
    assert float(values["lift"]) == pytest.approx(version_skill["lift"]["accuracy"]["delta"], abs=1e-5)
    assert f"{100 * float(values['lift']):+.0f} pp" in version_headline, "the output is the headline's number"
    assert values["lift-contrast"].startswith("accuracy, with marker vs marker at ")
    line = next(line for line in body.splitlines() if line.startswith("Step output `lift` = "))
    assert line.startswith(f"Step output `lift` = {values['lift']} (95% CI {values['lift-ci-low']} … ")
    assert "with marker vs marker at" in line
    assert body.index(line) < body.index(version_headline) < body.index("With vs without the skill")
    _assert_says_only_what_it_has(body)
    assert len(body) < 18_000, len(body)  # measured 15-16.5 KB: two skills' or two contrasts' tables and charts


def test_a_paid_run_reads_and_parses_aces_yml_once(
    scripted_server: Server, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A release's scan, gate bands, trials and valuation all use the run's one reading of aces.yml."""
    from aces_ci.config import _file

    reads: list[Path] = []
    parses: list[Path] = []
    read, parsed = _file._read, _file._parsed

    def counted_read(path: Path) -> str:
        reads.append(path)
        return read(path)

    def counted_parse(text: str, path: Path) -> object:
        parses.append(path)
        return parsed(text, path)

    monkeypatch.setattr(_file, "_read", counted_read)
    monkeypatch.setattr(_file, "_parsed", counted_parse)
    server = scripted_server(Planted(0.9, 0.1))
    root, _ = _repo(tmp_path, cases=4)
    (root / "aces.yml").write_text("gate:\n  pass_band: 0.05\nvalue:\n  margin: 0.05\n")
    commit(root, "settings")
    output, _ = _release(tmp_path, monkeypatch, root, "v0.1.0")

    assert _ci(root, server, "--max-rollouts", "40", "--value-holdout", "0", "--results-branch", "") in (0, 1)

    values = read_outputs(output)
    assert values["work"] == "release" and Path(values["trial-report"]).is_file(), "the trials ran"
    assert [path.name for path in reads] == ["aces.yml"]
    assert [path.name for path in parses] == ["aces.yml"]
