"""The incremental result cache: unchanged skills are replayed, anything a finding depends on re-scans them."""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from aces_ci.scan import (
    DEFAULT_CACHE_DIR,
    Hit,
    IgnoreEntry,
    ResultCache,
    Rule,
    RuleRegistry,
    ScanConfig,
    ScanContext,
    ScanResult,
    Severity,
    define,
    scan_repo,
)
from aces_ci.scan.rules import default_registry, script

REGISTRY = default_registry()
FRONT = "---\nname: {name}\ndescription: Formats {name} files. Use when the user asks to format one.\n---\n"
BODY = "# Demo\n\nRun the formatter on the file the user names.\n"


def write_skill(root: Path, name: str, body: str = BODY, files: dict[str, str] | None = None) -> Path:
    skill_dir = root / "skills" / name
    skill_dir.mkdir(parents=True, exist_ok=True)
    (skill_dir / "SKILL.md").write_text(FRONT.format(name=name) + body)
    for rel, text in (files or {}).items():
        (skill_dir / rel).parent.mkdir(parents=True, exist_ok=True)
        (skill_dir / rel).write_text(text)
    return skill_dir


def three_skills(root: Path) -> None:
    write_skill(root, "alpha")
    write_skill(root, "beta", BODY + "See [the guide](references/guide.md).\n")
    write_skill(root, "gamma", BODY, {"scripts/check.sh": "#!/bin/bash\nif true; then\n", "notes.md": "Notes.\n"})


def scan(root: Path, cache: ResultCache | None, **settings: object) -> ScanResult:
    return scan_repo(root, ScanConfig(**settings), REGISTRY, cache=cache)  # type: ignore[arg-type]


def cached_scan(root: Path, **settings: object) -> tuple[ScanResult, ResultCache]:
    cache = ResultCache(root / DEFAULT_CACHE_DIR)
    return scan(root, cache, **settings), cache


def comparable(result: ScanResult) -> ScanResult:
    return dataclasses.replace(result, generated_at="")


def rules_of(result: ScanResult, skill: str) -> list[str]:
    (report,) = [report for report in result.skills if report.skill == skill]
    return [finding.rule_id for finding in report.findings]


def test_a_second_scan_replays_every_skill_with_the_same_result(tmp_path: Path) -> None:
    three_skills(tmp_path)
    first, cache = cached_scan(tmp_path)
    assert (cache.stats.hits, cache.stats.stored) == (0, 3)
    second, cache = cached_scan(tmp_path)
    assert (cache.stats.hits, cache.stats.stored) == (3, 0)
    assert comparable(second) == comparable(first) == comparable(scan(tmp_path, None))


def test_editing_one_file_rescans_only_that_skill(tmp_path: Path) -> None:
    three_skills(tmp_path)
    cached_scan(tmp_path)
    (tmp_path / "skills" / "beta" / "references").mkdir()
    (tmp_path / "skills" / "beta" / "references" / "guide.md").write_text("# Guide\n")
    result, cache = cached_scan(tmp_path)
    assert (cache.stats.hits, cache.stats.stored) == (2, 1)
    assert "REF001" not in rules_of(result, "skills/beta"), "the link now resolves"


def test_a_file_outside_skill_md_counts_too(tmp_path: Path) -> None:
    three_skills(tmp_path)
    cached_scan(tmp_path)
    (tmp_path / "skills" / "gamma" / "scripts" / "check.sh").write_text("#!/bin/bash\nif true; then echo; fi\n")
    result, cache = cached_scan(tmp_path)
    assert (cache.stats.hits, cache.stats.stored) == (2, 1)
    assert "SCRIPT002" not in rules_of(result, "skills/gamma")


def test_an_empty_new_folder_rescans_the_skill(tmp_path: Path) -> None:
    """A mention is only checked under a folder the skill has: creating the folder changes the findings."""
    write_skill(tmp_path, "alpha", BODY + "Fill in `forms/w9.md` first.\n")
    first, _ = cached_scan(tmp_path)
    assert "REF002" not in rules_of(first, "skills/alpha")
    (tmp_path / "skills" / "alpha" / "forms").mkdir()
    second, cache = cached_scan(tmp_path)
    assert cache.stats.hits == 0
    assert "REF002" in rules_of(second, "skills/alpha")


@pytest.mark.skipif(os.name == "nt", reason="file modes carry no executable bit on Windows")
def test_a_mode_change_rescans_the_skill(tmp_path: Path) -> None:
    skill_dir = write_skill(tmp_path, "alpha", BODY + "Run `./scripts/go.sh`.\n", {"scripts/go.sh": "#!/bin/sh\n"})
    first, _ = cached_scan(tmp_path)
    assert "SCRIPT003" in rules_of(first, "skills/alpha")
    (skill_dir / "scripts" / "go.sh").chmod(0o755)
    second, cache = cached_scan(tmp_path)
    assert cache.stats.hits == 0
    assert "SCRIPT003" not in rules_of(second, "skills/alpha")


@pytest.mark.parametrize(
    ("before", "after"),
    [
        pytest.param({}, {"profile": "strict"}, id="profile"),
        pytest.param({}, {"max_body_lines": 2}, id="body-limit"),
        pytest.param({}, {"min_eval_cases": 9}, id="eval-minimum"),
        pytest.param({}, {"severity": {"SPEC003": Severity.NOTE}}, id="severity-override"),
        pytest.param({}, {"severity": {"STRUCT003": "off"}}, id="rule-off"),
    ],
)
def test_settings_the_rules_read_rescan_everything(
    tmp_path: Path, before: dict[str, object], after: dict[str, object]
) -> None:
    three_skills(tmp_path)
    cached_scan(tmp_path, **before)
    result, cache = cached_scan(tmp_path, **after)
    assert (cache.stats.hits, cache.stats.stored) == (0, 3)
    assert comparable(result) == comparable(scan(tmp_path, None, **after))


def test_another_libyaml_rescans_everything(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Frontmatter is composed by libyaml where it is installed: a new libyaml is a new parser."""
    three_skills(tmp_path)
    cached_scan(tmp_path)
    monkeypatch.setattr("aces_ci.scan._fingerprint.LIBYAML_VERSION", "9.9.9-test")
    _, cache = cached_scan(tmp_path)
    assert (cache.stats.hits, cache.stats.stored) == (0, 3)
    monkeypatch.undo()
    _, cache = cached_scan(tmp_path)
    assert (cache.stats.hits, cache.stats.stored) == (0, 3)  # the entries were rewritten under the other key


def test_what_is_applied_after_the_rules_does_not_rescan_but_still_applies(tmp_path: Path) -> None:
    three_skills(tmp_path)
    cached_scan(tmp_path)
    ignore = (IgnoreEntry("REF001", ("skills/beta/**",), "guide is generated"),)
    result, cache = cached_scan(tmp_path, ignore=ignore, min_score=100)
    assert cache.stats.hits == 3
    (beta,) = [report for report in result.skills if report.skill == "skills/beta"]
    (ref,) = [finding for finding in beta.findings if finding.rule_id == "REF001"]
    assert ref.suppressed is not None and ref.suppressed.kind == "config"
    assert comparable(result) == comparable(scan(tmp_path, None, ignore=ignore, min_score=100))


def test_inline_suppressions_apply_to_replayed_findings(tmp_path: Path) -> None:
    body = BODY + "<!-- aces-ci: ignore REF001 the guide is generated -->\nSee [the guide](references/guide.md).\n"
    write_skill(tmp_path, "alpha", body)
    first, _ = cached_scan(tmp_path)
    second, cache = cached_scan(tmp_path)
    assert cache.stats.hits == 1
    (ref,) = [f for f in second.skills[0].findings if f.rule_id == "REF001"]
    assert ref.suppressed is not None and ref.suppressed.kind == "inline"
    assert comparable(second) == comparable(first)


def test_a_skill_whose_placeholder_secret_the_rule_waives_is_replayed(tmp_path: Path) -> None:
    """SEC001 reports a secret-shaped placeholder as waived by its own policy: that is a rule's output, so cached.

    (Seen on real registry skills: 20 of 300 were re-scanned on every push for this.)
    """
    write_skill(tmp_path, "alpha", BODY + "```bash\nexport API_TOKEN=your-token-here\n```\n")
    first, cache = cached_scan(tmp_path)
    (waived,) = [f for f in first.skills[0].findings if f.rule_id == "SEC001"]
    assert waived.suppressed is not None and waived.suppressed.kind == "policy"
    assert cache.stats.stored == 1
    second, cache = cached_scan(tmp_path)
    assert (cache.stats.hits, cache.stats.stored) == (1, 0)
    assert comparable(second) == comparable(first)


def test_a_symlinked_skill_is_never_cached_so_its_target_is_always_read(tmp_path: Path) -> None:
    """A link target outside the skill can change while every file of the skill stays the same."""
    shared = tmp_path / "shared" / "notes.md"
    shared.parent.mkdir()
    shared.write_text("Nothing to see.\n")
    skill_dir = write_skill(tmp_path, "alpha")
    (skill_dir / "references").mkdir()
    (skill_dir / "references" / "notes.md").symlink_to(shared)
    cached_scan(tmp_path)
    shared.write_text('api_key = "q8Zr2LmX0vT4nWb7Yc9Q"\n')
    result, cache = cached_scan(tmp_path)
    assert (cache.stats.hits, cache.stats.not_cacheable) == (0, 1)
    assert "SEC001" in rules_of(result, "skills/alpha")


def test_damaged_entries_are_misses_and_are_rewritten(tmp_path: Path) -> None:
    three_skills(tmp_path)
    expected = comparable(cached_scan(tmp_path)[0])
    entries = sorted((tmp_path / DEFAULT_CACHE_DIR).glob("*.json"))
    assert len(entries) == 3
    entries[0].write_bytes(b"\x00\xff not json")
    entries[1].write_text(entries[1].read_text()[:40])
    document = json.loads(entries[2].read_text())
    document["findings"] = [["SPEC001", "fatal", "?", "x", 0, None, None, None, None]]
    entries[2].write_text(json.dumps(document))
    result, cache = cached_scan(tmp_path)
    assert (cache.stats.hits, cache.stats.stored) == (0, 3)
    assert comparable(result) == expected
    assert cached_scan(tmp_path)[1].stats.hits == 3, "the entries were written again"


def test_an_unwritable_cache_never_fails_the_scan(tmp_path: Path) -> None:
    three_skills(tmp_path)
    blocked = tmp_path / "not-a-directory"
    blocked.write_text("a file where the cache directory should be\n")
    cache = ResultCache(blocked / "scan")
    result = scan(tmp_path, cache)
    assert (cache.stats.stored, cache.stats.not_stored) == (0, 3)
    assert comparable(result) == comparable(scan(tmp_path, None))


def test_the_cache_directory_is_ignored_by_git_and_not_part_of_a_root_skill(tmp_path: Path) -> None:
    (tmp_path / "SKILL.md").write_text(FRONT.format(name=tmp_path.name) + BODY)
    first, _ = cached_scan(tmp_path)
    cache_dir = tmp_path / DEFAULT_CACHE_DIR
    assert (cache_dir / ".gitignore").read_text().splitlines()[-1] == "*"
    assert (cache_dir / "CACHEDIR.TAG").read_text().startswith("Signature: 8a477f597d28d172789f06886806bc55")
    second, cache = cached_scan(tmp_path)
    assert cache.stats.hits == 1, "writing the cache did not change the skill it sits in"
    assert not [f for f in second.skills[0].findings if ".aces-cache" in f.location.path]
    assert comparable(second) == comparable(first)


def test_a_repository_that_is_itself_a_skill_with_git_metadata_is_scanned_every_time(tmp_path: Path) -> None:
    (tmp_path / "SKILL.md").write_text(FRONT.format(name=tmp_path.name) + BODY)
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    cached_scan(tmp_path)
    assert cached_scan(tmp_path)[1].stats.not_cacheable == 1


TEST_RULES: list[Rule] = []


@define(TEST_RULES, id="TEST001", name="crashes", severity=Severity.NOTE, summary="crashes", fix="n/a")
def _crashes(ctx: ScanContext):
    """Raises on every skill: an internal error that may not happen next time."""
    raise RuntimeError("flaky")
    yield  # a generator, as checks are


@define(TEST_RULES, id="TEST002", name="touches", severity=Severity.NOTE, summary="edits", fix="n/a")
def _touches(ctx: ScanContext):
    """Appends to a file of the skill while the scan runs, as a concurrent editor would."""
    with (ctx.skill.dir / "log.txt").open("a") as handle:
        handle.write("scanned\n")
    yield Hit("saw the skill", ctx.at(1))


def test_crashes_and_files_changed_during_the_scan_are_not_cached(tmp_path: Path) -> None:
    three_skills(tmp_path)
    for rule in TEST_RULES:
        cache = ResultCache(tmp_path / DEFAULT_CACHE_DIR)
        scan_repo(tmp_path, ScanConfig(), RuleRegistry([rule]), cache=cache)
        assert (cache.stats.stored, cache.stats.not_cacheable) == (0, 3), rule.id
    assert not list((tmp_path / DEFAULT_CACHE_DIR).glob("*.json"))


def _closure_rule(word: str) -> Rule:
    rules: list[Rule] = []

    @define(rules, id="TEST003", name="says-word", severity=Severity.NOTE, summary="word", fix="n/a")
    def check(ctx: ScanContext):
        """Flags a word chosen when the rule was built: state no source file shows."""
        if word in ctx.skill.body.text:
            yield Hit(f"says {word}", ctx.at(1))

    return rules[0]


def test_a_rule_whose_code_no_file_pins_down_turns_the_cache_off(tmp_path: Path) -> None:
    three_skills(tmp_path)
    cache = ResultCache(tmp_path / DEFAULT_CACHE_DIR)
    scan_repo(tmp_path, ScanConfig(), RuleRegistry([_closure_rule("formatter")]), cache=cache)
    assert dataclasses.astuple(cache.stats) == (0, 0, 0, 0)
    assert not (tmp_path / DEFAULT_CACHE_DIR).exists()


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
def test_a_bash_timeout_is_reported_but_never_replayed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def too_slow(bash: str, data: bytes) -> subprocess.CompletedProcess[bytes]:
        raise subprocess.TimeoutExpired(["bash", "-n"], script.BASH_TIMEOUT_S)

    three_skills(tmp_path)
    monkeypatch.setattr(script, "_bash_n", too_slow)
    result, cache = cached_scan(tmp_path)
    (note,) = [f for f in result.skills[2].findings if f.rule_id == "SCRIPT002"]
    assert "did not finish" in note.message
    assert (cache.stats.stored, cache.stats.not_cacheable) == (2, 1)
    monkeypatch.undo()
    result, cache = cached_scan(tmp_path)
    assert cache.stats.hits == 2
    (error,) = [f for f in result.skills[2].findings if f.rule_id == "SCRIPT002"]
    assert error.message.startswith("bash -n: ")
