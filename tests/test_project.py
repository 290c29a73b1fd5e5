"""Every verb finds the same aces.yml: the nearest one from the path up to the repository root."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from aces_ci.cli import main
from aces_ci.config import find_project
from tests.engine.helpers import write_skill


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A repository (``.git``) with one aces.yml at its root and a skill two folders down."""
    (tmp_path / ".git").mkdir()
    write_skill(tmp_path / "skills", "marker")
    return tmp_path


def test_the_nearest_aces_yml_up_to_the_repository_root_is_found(repo: Path) -> None:
    (repo / "aces.yml").write_text("scan:\n  min_score: 91\n")
    project = find_project(repo / "skills" / "marker")
    assert (project.root, project.config_dir, project.config.scan.min_score) == (repo, repo, 91)
    (repo / "skills" / "aces.yml").write_text("scan:\n  min_score: 55\n")
    nearer = find_project(repo / "skills" / "marker" / "SKILL.md")
    assert (nearer.root, nearer.config_dir, nearer.config.scan.min_score) == (repo, repo / "skills", 55)


def test_nothing_above_the_repository_root_is_read(tmp_path: Path) -> None:
    (tmp_path / "aces.yml").write_text("scan:\n  min_score: 91\n")
    inner = tmp_path / "checkout"
    (inner / ".git").mkdir(parents=True)
    project = find_project(inner)
    assert (project.root, project.config_dir, project.config.scan.min_score) == (inner, None, 70)


def test_outside_a_repository_only_the_path_itself_is_looked_at(tmp_path: Path) -> None:
    (tmp_path / "aces.yml").write_text("scan:\n  min_score: 91\n")
    skill = write_skill(tmp_path / "skills", "marker")
    assert find_project(skill).config.scan.min_score == 70
    assert find_project(tmp_path).config.scan.min_score == 91


def test_scan_and_rollout_of_one_skill_read_the_same_aces_yml(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (repo / "aces.yml").write_text("scan:\n  min_score: 70\nbogus: 1\n")
    skill = repo / "skills" / "marker"
    assert main(["scan", str(skill)]) == 2
    scan_error = capsys.readouterr().err
    assert main(["rollout", str(skill), "--all-cases"]) == 2
    rollout_error = capsys.readouterr().err
    where = f"{repo / 'aces.yml'}:3 (bogus): unknown field 'bogus'"
    assert where in scan_error and where in rollout_error


def test_a_scan_of_one_skill_reads_the_patterns_of_the_repository_aces_yml(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Patterns in aces.yml are relative to its folder: scanning a sub-folder reports repository paths."""
    (repo / "aces.yml").write_text(
        "scan:\n  ignore:\n    - {rule: EVAL001, paths: ['skills/marker/'], reason: 'evals live elsewhere'}\n"
    )
    skill = repo / "skills" / "marker"
    out = repo / "scan.json"
    main(["scan", str(skill), "--json", str(out), "--no-cache"])
    capsys.readouterr()
    result = json.loads(out.read_text())
    (report,) = result["skills"]
    assert report["skill"] == "skills/marker"
    assert report["findings"] and all(f["path"].startswith("skills/marker/") for f in report["findings"])
    (missing_evals,) = (f for f in report["findings"] if f["rule_id"] == "EVAL001")
    assert missing_evals["suppressed"]["kind"] == "config"


def test_a_scan_never_writes_its_cache_inside_a_lone_skill(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    skill = write_skill(tmp_path / "skills", "marker")
    main(["scan", str(skill), "-q"])
    assert not (skill / ".aces-cache").exists()
    assert any((tmp_path / "xdg" / "aces-ci" / "scan").iterdir())
    main(["scan", str(tmp_path / "skills"), "-q"])
    assert (tmp_path / "skills" / ".aces-cache" / "scan").is_dir()
