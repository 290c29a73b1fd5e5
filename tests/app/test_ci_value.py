"""SkillSV in ``aces-ci ci``: a release's valuation after its trials, ``mode: value``, forks and the budget split.

The model is the scripted server of the live valuation's tests (``tests/skillsv/acme.py``):
it answers from the staged skill only, by rules that plant a game — the refund fact (spoiled by a
caution unit), the hotline code and its dialling rule (an AND pair), a dead style unit. Real HTTP
to it and to a local GitHub REST server; assertions are what a user reads: the comment or job
summary, the annotations, the JUnit file, the outputs and the value reports. (A fork's pull request
in ``mode: value`` is in ``test_ci_paid.py``'s fork test: zero model calls.)
"""

from __future__ import annotations

import json
import subprocess
import sys
import xml.etree.ElementTree as ET
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml

from aces_ci.cli import main
from aces_ci.github import COMMENT_MARKER
from aces_ci.schemas import validator
from tests.github.helpers import actions_env, event, git, read_outputs
from tests.github.server import WRITE_TOKEN, GitHubServer
from tests.report.html.dom import parse
from tests.servers import ScriptedServer, model_flags
from tests.skillsv.acme import BODY, QUESTIONS, planted_model
from tests.skillsv.helpers import write_skill

SKILL_MD = "skills/acme/SKILL.md"


@pytest.fixture
def server(scripted_server: Callable[..., ScriptedServer], monkeypatch: pytest.MonkeyPatch) -> ScriptedServer:
    monkeypatch.setenv("CI", "true")
    return scripted_server(planted_model)


def _cases(count: int) -> str:
    kinds = list(QUESTIONS)
    return json.dumps(
        {
            "skill_name": "acme",
            "evals": [
                {"id": f"q{i}", "prompt": QUESTIONS[kinds[i % 2]][0], "expected_output": QUESTIONS[kinds[i % 2]][1]}
                for i in range(count)
            ],
        }
    )


def _repo(tmp_path: Path, cases: int = 8) -> Path:
    """A skills repository under git with the planted skill and its dataset, priced for the scripted model."""
    root = tmp_path / "repo"
    write_skill(root / "skills", BODY, {"evals/evals.json": _cases(cases)}, name="acme")
    (root / "aces.yml").write_text("run:\n  prices:\n    scripted-model: {input: 1.0, output: 2.0}\n")
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "first")
    return root


def _ci(root: Path, server: ScriptedServer, *extra: str) -> int:
    reports = root.parent / "reports"
    return main(
        [
            *("ci", str(root), "--reports", str(reports), "--no-cache", "--jobs", "1", "--results-branch", ""),
            *model_flags(server),
            *("--disclosure", "preload", "--runs", "2", "--concurrency", "4"),
            *("--lift-metric", "accuracy"),  # the planted effect; the composite's efficiency follows the runner's load
            *("--rollout-cache", str(root.parent / "rollouts")),
            *extra,
        ]
    )


def _release(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, root: Path, tag: str = "v1.0.0") -> tuple[Path, Path]:
    git(root, "tag", tag)
    sha = git(root, "rev-parse", "HEAD")
    output, summary = actions_env(
        monkeypatch, tmp_path, "push", event(tmp_path, "push_tag.json"), sha=sha, ref=f"refs/tags/{tag}"
    )
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-secret")
    return output, summary


def _gate_case(junit: Path, name: str) -> ET.Element:
    return next(case for case in ET.parse(junit).iter("testcase") if case.get("name") == name)


def test_a_release_values_its_skills_after_the_trials_and_the_comment_links_the_low_value_units(
    server: ScriptedServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _repo(tmp_path)
    output, summary = _release(tmp_path, monkeypatch, root)

    assert _ci(root, server) == 0

    values = read_outputs(output)
    assert values["work"] == "release" and float(values["lift-ci-low"]) > 0  # the trials ran and gate it
    trial = json.loads(Path(values["trial-report"]).read_text())
    trial_calls = trial["spent"]["rollouts_run"]
    assert trial_calls == 32 and server.calls > trial_calls, "SkillSV ran after the trials, on the same model"
    folder = Path(values["value-report"])
    report = json.loads((folder / "skills-acme.json").read_text())
    assert [e.message for e in validator("skillsv-value").iter_errors(report)] == []
    assert report["rollouts"]["spent"] + trial_calls == server.calls
    assert report["oracle"].startswith("live:openai/scripted-model:builtin:accuracy:")
    caution = next(u for u in report["units"] if u["preview"].startswith("- Caution"))
    assert caution["decision"] == "delete" and caution["ci"][1] < 0  # the planted harmful unit
    body = summary.read_text()
    assert body.strip() == (tmp_path / "reports" / "comment.md").read_text().strip()  # the comment, as a summary
    assert "#### SkillSV: skills/acme" in body and "xychart-beta" in body  # values and the pruning chart
    start = caution["lines"][0]
    assert f"[skills/acme/SKILL.md:{start}](https://github.com/acme/skills/blob/" in body
    assert f"/{SKILL_MD}#L{start})" in body and "Caution: never quote refund periods." in body
    assert "did not run" not in body
    out = capsys.readouterr().out
    assert f"::warning file={SKILL_MD},line={start},title=skillsv.delete (skills/acme)::SkillSV: unit" in out
    assert body.count("**Cut ") == 1  # the decisions lead the SkillSV section
    resolution = report["decisions"]["resolution"]
    assert f"Precision: intervals ±{resolution['half_width']:.3f} typically" in body
    # no truncation: the values add up to the content lift by construction, so no closure "check" is shown or gated
    assert "closure ratio" not in body
    assert report["settings"]["score"]["runs"] == 2  # --runs 2: each score is the mean of two rollouts
    waiting = [u for u in report["units"] if u.get("scores_to_decide")]
    assert waiting, "the planted game leaves a unit open at this budget"
    for unit in waiting:  # forecasts read in rollouts
        assert f"~{unit['scores_to_decide'] * 2:,} (" in body
    assert all(case.get("name") != "skillsv.closure" for case in ET.parse(tmp_path / "reports" / "junit.xml").iter())


def test_mode_value_on_a_labelled_pull_request_values_its_changed_skills_in_the_sticky_comment(
    server: ScriptedServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, github: GitHubServer
) -> None:
    root = _repo(tmp_path, cases=6)
    write_skill(root / "skills", "\n# Notes\n\n- Greet the user.\n", name="notes")  # a skill without a dataset
    git(root, "add", "-A")
    git(root, "commit", "-qm", "base")
    base = git(root, "rev-parse", "HEAD")
    skill_md = root / SKILL_MD
    skill_md.write_text(skill_md.read_text() + "- Extra: answer in one line.\n")
    git(root, "commit", "-qam", "the pull request edits acme")
    path = event(tmp_path, "pull_request_labeled.json")
    path.write_text(path.read_text().replace("1" * 40, base).replace("2" * 40, git(root, "rev-parse", "HEAD")))
    output, _ = actions_env(monkeypatch, tmp_path, "pull_request", path, api_url=github.url, token=WRITE_TOKEN)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-secret")

    assert _ci(root, server, "--mode", "value") == 0

    values = read_outputs(output)
    assert values["work"] == "value" and values["changed-skills"] == "skills/acme"
    assert values["lift"] == "" and "trial-report" not in values  # no trials in mode value
    assert sorted(p.name for p in Path(values["value-report"]).iterdir()) == ["skills-acme.json"]
    ours = github.state.ours(7, COMMENT_MARKER)
    assert len(ours) == 1
    comment = ours[0]["body"]
    assert "#### SkillSV: skills/acme" in comment and "Paired trials" not in comment
    assert "/skills/acme/SKILL.md#L" in comment
    assert "**Cut " in comment and "Content lift " in comment
    page = parse(Path(values["html-report"]).read_text(encoding="utf-8")).one("section", id="skillsv")
    head = git(root, "rev-parse", "HEAD")
    linked = [a.attrs["href"] for a in page.find_all("a", class_="src")]
    assert linked and all(h.startswith(f"https://github.com/acme/skills/blob/{head}/skills/acme/") for h in linked), (
        "the page links the valuation's lines under the skill's folder, at the commit"
    )


def test_mode_value_on_a_dispatch_values_every_skill_and_says_which_have_no_dataset(
    server: ScriptedServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = _repo(tmp_path, cases=4)
    write_skill(root / "skills", "\n# Notes\n\n- Greet the user.\n", name="notes")
    ungraded = json.dumps({"evals": [{"id": "hello", "prompt": "Say hello."}]})  # nothing to grade accuracy on
    write_skill(root / "skills", "\n# Hello\n\n- Say hello back.\n", {"evals/evals.json": ungraded}, name="hello")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "a skill without a dataset, one without references")
    output, summary = actions_env(monkeypatch, tmp_path, "workflow_dispatch", event(tmp_path, "workflow_dispatch.json"))
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-secret")

    assert _ci(root, server, "--mode", "value", "--value-holdout", "0") == 0

    assert read_outputs(output)["verdict"] == "warn"
    text = summary.read_text()
    assert "#### SkillSV: skills/acme" in text and "xychart-beta" not in text  # no held-out panel, no curve
    assert "skills/notes" in text and "its units were not valued" in text
    assert (
        "SkillSV could not value this skill: skills/hello/evals/evals.json:1: case 'hello' cannot be scored on "
        "accuracy (accuracy: it has no expected" in text  # the comment escapes expected_output's underscore
    )
    assert server.calls > 0


def test_a_valuation_reuses_the_dataset_ci_read_so_the_task_command_runs_once_a_skill(
    server: ScriptedServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The product's task command may be slow or costly: ci reads it to choose its skills, and SkillSV uses that."""
    root = _repo(tmp_path, cases=4)
    runs = tmp_path / "task-runs.log"
    (root / "tools").mkdir()
    (root / "tools" / "tasks.py").write_text(
        f"import os\nwith open({str(runs)!r}, 'a') as log:\n    log.write(os.environ['ACES_SKILL_NAME'] + '\\n')\n"
    )  # it gives no case of its own: acme's come from its evals.json
    command = json.dumps([sys.executable, "tools/tasks.py"])
    with (root / "aces.yml").open("a") as config:
        config.write(f"evals:\n  tasks: {{command: {command}}}\n")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "a task command")
    output, _ = actions_env(monkeypatch, tmp_path, "workflow_dispatch", event(tmp_path, "workflow_dispatch.json"))
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-secret")

    assert _ci(root, server, "--mode", "value", "--value-holdout", "0") == 0

    assert read_outputs(output)["value-report"] != ""
    assert runs.read_text().splitlines() == ["acme"]


def test_when_the_trials_spend_the_budget_the_release_says_skillsv_did_not_run(
    server: ScriptedServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = _repo(tmp_path)
    output, summary = _release(tmp_path, monkeypatch, root)

    assert _ci(root, server, "--max-rollouts", "32") == 0  # 8 cases x 2 runs x (with, without)

    assert server.calls == 32, "SkillSV never spends what the trials needed, nor more than the run's budget"
    values = read_outputs(output)
    assert values["value-report"] == ""
    text = summary.read_text()
    assert "SkillSV did not run for skills/acme: the run's budget was spent before them." in text
    case = _gate_case(tmp_path / "reports" / "junit.xml", "skillsv.value")
    skipped = case.find("skipped")
    assert skipped is not None and "spent the run's budget" in skipped.get("message", "")


def test_skillsv_gets_only_what_the_trials_left_and_says_it_stopped(
    server: ScriptedServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = _repo(tmp_path)
    output, summary = _release(tmp_path, monkeypatch, root)

    assert _ci(root, server, "--max-rollouts", "60") == 0

    assert server.calls <= 60
    report = json.loads((Path(read_outputs(output)["value-report"]) / "skills-acme.json").read_text())
    assert report["stopped_by"] == "max_rollouts"
    assert report["rollouts"]["spent"] <= 60 - 32
    # the design was sized down to the 14 scores 28 rollouts pay for, and even then no chain completed:
    # the summary says what ran and concludes nothing
    assert report["settings"]["budget_scores"] == 14 and report["settings"]["fitted_to_budget"]
    assert report["settings"]["sample_share"] == 0.0, "14 scores cannot fit the interaction model: chains only"
    assert report["measured"] is False and report["decisions"] is None
    text = summary.read_text()
    assert "SkillSV of skills/acme stopped at the rollout budget before any of its 4 chains completed" in text
    assert "no unit values and no conclusions" in text
    assert "Content lift" not in text and "low-value" not in text and "#### SkillSV" not in text


def test_no_value_turns_the_release_valuation_off_and_says_so(
    server: ScriptedServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = _repo(tmp_path)
    _, summary = _release(tmp_path, monkeypatch, root)

    assert _ci(root, server, "--no-value") == 0

    assert server.calls == 32
    assert "turned off (--no-value)" in summary.read_text()


def test_the_release_example_workflow_and_the_action_carry_the_value_settings() -> None:
    top = Path(__file__).parents[2]
    action = yaml.safe_load((top / "action.yml").read_text())
    assert {"value", "value-budget-usd", "value-holdout"} <= set(action["inputs"])
    assert "value-report" in action["outputs"]
    run = (top / "scripts" / "action" / "run.sh").read_text()
    assert "--value-budget-usd" in run and "--no-value" in run
    subprocess.run(["bash", "-n", str(top / "scripts" / "action" / "run.sh")], check=True)


def test_a_skill_at_the_repository_root_is_called_by_its_name_in_every_heading(
    server: ScriptedServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # The checkout's folder is named after the repository, not the skill: the frontmatter names it "acme".
    root = write_skill(tmp_path, BODY, {"evals/evals.json": _cases(8)}, name="acme").rename(tmp_path / "checkout")
    (root / "aces.yml").write_text("run:\n  prices:\n    scripted-model: {input: 1.0, output: 2.0}\n")
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "first")
    output, summary = _release(tmp_path, monkeypatch, root)

    assert _ci(root, server, "--pass-band", "0.9") == 0  # a lift short of the band: a warning on SKILL.md

    text = summary.read_text()
    assert "#### SkillSV: acme" in text and 'title "acme: pruning curve (held-out)"' in text
    assert "- **acme** (with acme vs without acme)" in text
    assert 'title "acme, with acme vs without acme: lift per metric"' in text
    assert "| [acme](https://github.com/acme/skills/blob/" in text
    logs = capsys.readouterr()
    assert "SkillSV compile of acme:" in logs.err, "how SkillSV cut it goes to the log, not the comment"
    assert "contractions" not in text
    assert "SkillSV: ." not in text and "**.**" not in text and "[.]" not in text and "checkout" not in text
    out = logs.out
    assert "::warning file=SKILL.md,line=1,title=lift.accuracy (acme)::" in out
    assert "title=SPEC003 (acme)::" in out and "(.)" not in out
    trial = json.loads(Path(read_outputs(output)["trial-report"]).read_text())
    skill = trial["skills"][0]
    assert (skill["skill"], skill["name"], skill["skill_md"]) == (".", "acme", "SKILL.md"), "named as the scan names it"
