"""``aces_ci.app.scan``: the scan ``aces-ci scan`` and ``aces-ci ci`` both call, from a resolved config."""

from __future__ import annotations

from pathlib import Path

import pytest

from aces_ci import app
from aces_ci.config import ScanFlags, find_project, resolve_scan
from aces_ci.scan import default_registry

SKILL = (
    "---\nname: {name}\ndescription: Use when the user asks for {name}; it does {name} well.\n---\n\n"
    "# {name}\n\nDo it.\n"
)


def _skill(root: Path, name: str) -> Path:
    folder = root / name
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(SKILL.format(name=name))
    return folder


def test_a_path_below_an_aces_yml_is_scanned_from_that_root_and_restricted_to_the_path(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()  # the repository's root: aces.yml is looked for up to here
    (tmp_path / "aces.yml").write_text("scan:\n  min_score: 10\n")
    _skill(tmp_path / "skills", "alpha")
    _skill(tmp_path / "other", "beta")
    flags = ScanFlags(path=tmp_path / "skills", jobs=1, cache_dir=None)
    project = find_project(flags.path, None)
    outcome = app.scan(resolve_scan(project.config, flags), default_registry(), project)
    assert outcome.root == tmp_path.resolve()
    assert [report.skill for report in outcome.result.skills] == ["skills/alpha"]
    assert outcome.cache is None
    assert outcome.notes == ()


def test_the_cache_is_kept_at_the_scanned_root_and_reused(tmp_path: Path) -> None:
    _skill(tmp_path, "alpha")
    flags = ScanFlags(path=tmp_path, jobs=1)
    project = find_project(tmp_path, None)
    first = app.scan(resolve_scan(project.config, flags), default_registry(), project)
    assert first.cache is not None and first.cache.directory == (tmp_path / ".aces-cache" / "scan").resolve()
    again = app.scan(resolve_scan(project.config, flags), default_registry(), project)
    assert again.cache is not None and again.cache.stats.hits == 1


def test_an_untrusted_checkout_skips_the_judge_with_a_note(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "aces.yml").write_text("judge:\n  provider: anthropic\n  model: m\n")
    _skill(tmp_path, "alpha")
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    monkeypatch.setenv("GITHUB_EVENT_NAME", "pull_request_target")
    project = find_project(tmp_path, None)
    flags = ScanFlags(path=tmp_path, jobs=1, cache_dir=None, judge="insist")
    outcome = app.scan(resolve_scan(project.config, flags), default_registry(), project)
    assert len(outcome.notes) == 1 and outcome.notes[0].startswith("LLM judge skipped:")
    assert all(report.judge is None for report in outcome.result.skills)
