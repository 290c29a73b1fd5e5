"""``aces-ci init``: a dataset scaffolded from the skill, accepted by the scan, refused by trials until finished."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from aces_ci.cli import main
from aces_ci.errors import InputError
from aces_ci.evals import DRAFT_KEY, load_dataset
from aces_ci.schemas import validator

EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "skill-repo" / "skills"
GOOD_SKILLS = ("csv-insights", "release-notes", "acme-support")
ALL_SKILLS = (*GOOD_SKILLS, "log-cleaner", "todo-extractor", "pdf-merger", "report-builder", "deploy-helper")


def copied(tmp_path: Path, name: str, *, keep_evals: bool = False) -> Path:
    target = tmp_path / "repo" / "skills" / name
    shutil.copytree(EXAMPLES / name, target, symlinks=True)
    if not keep_evals:
        shutil.rmtree(target / "evals", ignore_errors=True)
        for fixture in (EXAMPLES / name / "evals" / "files").glob("*"):
            (target / "evals" / "files").mkdir(parents=True, exist_ok=True)
            shutil.copy(fixture, target / "evals" / "files" / fixture.name)
    (tmp_path / "repo" / ".git").mkdir(exist_ok=True)
    return target


def scaffold(tmp_path: Path, name: str, capsys: pytest.CaptureFixture[str]) -> dict:
    skill_dir = copied(tmp_path, name)
    assert main(["init", str(skill_dir)]) == 0
    assert "should not" in capsys.readouterr().out
    return json.loads((skill_dir / "evals" / "evals.json").read_text())


@pytest.mark.parametrize("name", ALL_SKILLS)
def test_the_scaffold_fits_the_schema_and_has_a_negative_case_and_no_invented_answer(tmp_path, capsys, name):
    document = scaffold(tmp_path, name, capsys)
    assert list(validator("evals").iter_errors(document)) == []
    cases = document["evals"]
    ids = [case["id"] for case in cases]
    assert len(ids) == len(set(ids)) and ids[0] == "purpose" and ids[-1] == "not-for-this-skill"
    assert any(case["should_trigger"] is False for case in cases)
    assert all(case["expected_output"] is None and case[DRAFT_KEY] for case in cases)


def test_cases_come_from_the_description_and_the_sections(tmp_path, capsys):
    cases = {case["id"]: case for case in scaffold(tmp_path, "csv-insights", capsys)["evals"]}
    assert cases["purpose"]["prompt"].startswith("Profile a CSV file with a bundled script")
    assert cases["when-1"]["prompt"] == (
        "The user shares a CSV export and asks what is in it, how clean it is, or for quick statistics."
    )
    steps = cases["section-steps"]
    assert steps["prompt"] == "Run the profiler on the file the user named"
    assert steps["expected_script"] == "scripts/summarize_csv.py"
    assert steps["assertions"] == [
        "runs scripts/summarize_csv.py",
        "reads SKILL.md before running scripts/summarize_csv.py",
    ]
    assert cases["section-when-the-script-fails"]["assertions"] == [
        "follows the 'When the script fails' section of SKILL.md"
    ]


@pytest.mark.parametrize("name", ALL_SKILLS)
def test_the_scan_fails_an_init_draft_as_the_trial_refuses_it(tmp_path, capsys, name):
    skill_dir = copied(tmp_path, name)
    assert main(["init", str(skill_dir)]) == 0
    report = tmp_path / "scan.json"
    assert main(["scan", str(skill_dir), "--json", str(report), "--jobs", "1"]) == 1
    cases = json.loads((skill_dir / "evals" / "evals.json").read_text())["evals"]
    findings = [f for skill in json.loads(report.read_text())["skills"] for f in skill["findings"]]
    eval_findings = [(f["rule_id"], f["severity"]) for f in findings if f["rule_id"].startswith("EVAL")]
    drafts = [severity for rule, severity in eval_findings if rule == "EVAL011"]
    assert drafts == ["error"] * len(cases), "one error per case still marked _fill_in"
    assert {rule for rule, _ in eval_findings} <= {"EVAL009", "EVAL011"}  # the unwritten references and drafts


def test_an_existing_dataset_is_never_overwritten(tmp_path, capsys):
    skill_dir = copied(tmp_path, "csv-insights", keep_evals=True)
    before = (skill_dir / "evals" / "evals.json").read_bytes()
    assert main(["init", str(skill_dir)]) == 2
    assert "never overwrites" in capsys.readouterr().err
    assert (skill_dir / "evals" / "evals.json").read_bytes() == before
    (skill_dir / "evals" / "evals.json").unlink()
    (skill_dir / "evals" / "evals.yaml").write_text("[]\n")
    assert main(["init", str(skill_dir)]) == 2
    assert not (skill_dir / "evals" / "evals.json").exists()


def test_stdout_prints_without_writing(tmp_path, capsys):
    skill_dir = copied(tmp_path, "acme-support")
    assert main(["init", str(skill_dir), "--stdout"]) == 0
    assert json.loads(capsys.readouterr().out)["skill_name"] == "acme-support"
    assert not (skill_dir / "evals" / "evals.json").exists()


def test_a_folder_without_skill_md_is_an_input_error(tmp_path, capsys):
    assert main(["init", str(tmp_path)]) == 2
    assert "no SKILL.md here" in capsys.readouterr().err


def test_a_trial_refuses_drafts_until_the_author_finishes_them(tmp_path, capsys):
    skill_dir = copied(tmp_path, "acme-support")
    assert main(["init", str(skill_dir)]) == 0
    path = skill_dir / "evals" / "evals.json"
    with pytest.raises(InputError, match="still a draft from `aces-ci init`") as caught:
        load_dataset(skill_dir, tmp_path / "repo")
    assert caught.value.field == f"/evals/0/{DRAFT_KEY}"
    document = json.loads(path.read_text())
    for case in document["evals"]:
        case.pop(DRAFT_KEY)
        case["expected_output"] = "Paris" if case["should_trigger"] is False else "12"
    path.write_text(json.dumps(document, indent=2))
    dataset = load_dataset(skill_dir, tmp_path / "repo")
    assert len(dataset.cases) == len(document["evals"])
