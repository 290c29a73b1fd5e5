"""DISC rules: the listing each host builds from the repository's skills, and siblings claiming the same requests."""

from __future__ import annotations

import dataclasses
import json
import os
import random
import time
from collections import Counter
from pathlib import Path

import pytest

from aces_ci.scan import (
    DEFAULT_CACHE_DIR,
    HOST_PROFILES,
    ListedSkill,
    ResultCache,
    ScanConfig,
    ScanResult,
    Severity,
    Shard,
    _repo_rules,
    build_listing,
    scan_repo,
)
from aces_ci.scan._siblings import MIN_OVERLAP, MIN_SHARED_TERMS, VOCABULARY_SHARE, claim_terms, collisions, overlap
from aces_ci.scan.rules import default_registry

REGISTRY = default_registry()
CLAUDE_CODE, CODEX = ({profile.name: profile for profile in HOST_PROFILES}[name] for name in ("Claude Code", "Codex"))
CSV = "Use when the user wants to convert a CSV file to a chart or plot spreadsheet columns."
PLOT = "Use when asked to plot CSV columns as a chart or convert spreadsheet data to a graph."
# Distinct skills, in the style of real repositories: they share vocabulary, not claims.
DISTINCT = {
    "pdf-tools": "Use this skill whenever the user wants to merge, split or watermark PDF files, or fill PDF forms.",
    "docx-writer": "Use when the user asks for a Word document (.docx): letters, memos, tracked changes.",
    "slide-maker": "Use when building a slide deck or pitch presentation (.pptx) from notes or an outline.",
    "sheet-formulas": "Use when editing Excel workbooks: formulas, pivot tables, conditional formatting of cells.",
    "brand-style": "Applies the brand colours and typography. Use when an artifact must follow the brand guide.",
    "mcp-server": "Use when building an MCP server in Python or TypeScript that wraps an external API as tools.",
}


def write_skill(root: Path, name: str, description: str, body: str = "# Demo\n\nDo the work.\n") -> None:
    skill_dir = root / "skills" / name
    skill_dir.mkdir(parents=True, exist_ok=True)
    (skill_dir / "SKILL.md").write_text(f"---\nname: {name}\ndescription: {description}\n---\n\n{body}")


def disc(result: ScanResult, rule_id: str) -> list[tuple[str, str, str]]:
    """(skill, location, message) of every active finding of ``rule_id``."""
    return [
        (report.skill, str(finding.location), finding.message)
        for report in result.skills
        for finding in report.findings
        if finding.rule_id == rule_id and finding.active
    ]


def listed(name: str, description: str, when_to_use: str = "") -> ListedSkill:
    return ListedSkill(f"skills/{name}", f"skills/{name}/SKILL.md", name, description, 3, when_to_use)


def test_two_siblings_claiming_the_same_requests_are_one_finding_naming_both_files_and_lines(tmp_path: Path) -> None:
    write_skill(tmp_path, "csv-charts", CSV)
    write_skill(tmp_path, "plot-data", PLOT)
    for name, description in DISTINCT.items():
        write_skill(tmp_path, name, description)
    found = disc(scan_repo(tmp_path, ScanConfig(), REGISTRY), "DISC003")
    assert len(found) == 1
    skill, location, message = found[0]
    assert (skill, location) == ("skills/csv-charts", "skills/csv-charts/SKILL.md:3")
    assert "skills/plot-data/SKILL.md:3 (plot-data)" in message
    assert "chart" in message and "csv" in message


def test_distinct_skills_sharing_vocabulary_are_not_reported() -> None:
    assert list(collisions(list(DISTINCT.values()))) == []


def test_a_repository_wide_sentence_is_vocabulary_not_a_claim() -> None:
    scoped = "Only activate in MSBuild build context."
    texts = [
        f"{scoped} Use when {topic}."
        for topic in (
            "tuning parallel builds",
            "reading binary logs of a build",
            "migrating legacy project files",
            "fixing incremental rebuilds",
            "organising Directory.Build.props",
            "tracking generated files",
        )
    ]
    assert list(collisions(texts)) == []


def test_a_description_past_claude_codes_cap_is_cut_and_the_lost_words_named(tmp_path: Path) -> None:
    tail = "Trigger on quarterly ledger reconciliation requests."
    write_skill(tmp_path, "invoices", "Use when reviewing invoices. " + "Check each line item carefully. " * 50 + tail)
    found = disc(scan_repo(tmp_path, ScanConfig(), REGISTRY), "DISC001")
    (claude,) = [message for _, _, message in found if message.startswith("Claude Code")]
    assert "it would show 1,536 of this description's" in claude
    assert "reconciliation requests." in claude


def test_when_to_use_counts_against_claude_codes_cap() -> None:
    listing = build_listing(CLAUDE_CODE, [listed("a", "x" * 1000, when_to_use="y" * 600)])
    (entry,) = listing.entries
    assert entry.cut and len(entry.shown) == 1536


def test_an_overflowing_repository_lists_its_last_skills_by_name_only_on_claude_code(tmp_path: Path) -> None:
    for index in range(30):
        write_skill(tmp_path, f"skill-{index:02d}", f"Use when handling case {index}. " + "Detail words here. " * 20)
    found = disc(scan_repo(tmp_path, ScanConfig(), REGISTRY), "DISC002")
    dropped = sorted(skill for skill, _, message in found if message.startswith("Claude Code"))
    assert dropped, "30 descriptions of ~400 characters overflow 8,000 characters"
    # The repository's order stands in for usage: the skills past the budget are the last ones.
    assert dropped == [f"skills/skill-{index:02d}" for index in range(30 - len(dropped), 30)]
    assert "list this skill by name only" in found[0][2]


def test_codex_shortens_long_descriptions_evenly_within_its_budget() -> None:
    skills = [listed(f"s{index:02d}", f"Use when {index}. " + "word " * 400) for index in range(20)]
    skills.append(listed("short", "Use when tiny."))
    listing = build_listing(CODEX, skills)
    lengths = {len(entry.shown) for entry in listing.entries[:-1]}
    assert max(lengths) - min(lengths) <= 1 and max(lengths) < 2000
    assert listing.entries[-1].shown == "Use when tiny." and not listing.entries[-1].cut
    used = sum(
        len(f"- {e.skill.name}: {e.shown} (file: /home/user/.agents/skills/{e.skill.skill_md})\n".encode())
        for e in listing.entries
    )
    assert used / 4 <= CODEX.budget + len(skills)  # each line rounds up to a whole token


def test_codex_omits_skills_when_even_the_names_overflow() -> None:
    skills = [listed(f"skill-number-{index:04d}", "Use when needed.") for index in range(600)]
    entries = build_listing(CODEX, skills).entries
    assert all(not entry.shown for entry in entries)
    omitted = [entry.omitted for entry in entries]
    assert any(omitted) and omitted == sorted(omitted), "the first skills are kept, the rest omitted"


def test_repository_rules_run_over_every_skill_when_per_skill_results_come_from_the_cache(tmp_path: Path) -> None:
    write_skill(tmp_path, "csv-charts", CSV)
    write_skill(tmp_path, "plot-data", PLOT)
    cache = ResultCache(tmp_path / DEFAULT_CACHE_DIR)
    first = scan_repo(tmp_path, ScanConfig(), REGISTRY, cache=cache)
    second_cache = ResultCache(tmp_path / DEFAULT_CACHE_DIR)
    second = scan_repo(tmp_path, ScanConfig(), REGISTRY, cache=second_cache)
    assert second_cache.stats.hits == 2
    assert disc(second, "DISC003") == disc(first, "DISC003") and len(disc(first, "DISC003")) == 1
    # A sibling's edit changes the other skill's finding although its own files (and cache entry) did not change.
    write_skill(tmp_path, "plot-data", "Use for Excel workbooks (.xlsx) with formulas and pivot tables, not CSV.")
    third = scan_repo(tmp_path, ScanConfig(), REGISTRY, cache=ResultCache(tmp_path / DEFAULT_CACHE_DIR))
    assert disc(third, "DISC003") == []


def test_a_warm_scan_lists_unchanged_skills_from_their_cache_entries_without_reading_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_skill(tmp_path, "csv-charts", CSV)
    write_skill(tmp_path, "plot-data", PLOT)
    long_ago = time.time() - 3600
    for skill_md in tmp_path.glob("skills/*/SKILL.md"):
        os.utime(skill_md, (long_ago, long_ago))  # not racily clean: the stat alone shows them unchanged
    first = scan_repo(tmp_path, ScanConfig(), REGISTRY, cache=ResultCache(tmp_path / DEFAULT_CACHE_DIR))

    def no_read(*args: object) -> object:
        raise AssertionError("an unchanged skill's SKILL.md was read for the repository rules")

    monkeypatch.setattr(_repo_rules, "listed_skill", no_read)
    monkeypatch.setattr(_repo_rules, "read_text", no_read)
    second = scan_repo(tmp_path, ScanConfig(), REGISTRY, cache=ResultCache(tmp_path / DEFAULT_CACHE_DIR))
    assert disc(second, "DISC003") == disc(first, "DISC003") and len(disc(first, "DISC003")) == 1
    assert dataclasses.replace(second, generated_at="") == dataclasses.replace(first, generated_at="")


def test_unchanged_listings_replay_the_repository_findings_and_any_change_of_them_or_the_settings_reruns_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_skill(tmp_path, "csv-charts", CSV)
    write_skill(tmp_path, "plot-data", PLOT)

    def scan(config: ScanConfig | None = None) -> ScanResult:
        result = scan_repo(tmp_path, config or ScanConfig(), REGISTRY, cache=ResultCache(tmp_path / DEFAULT_CACHE_DIR))
        return dataclasses.replace(result, generated_at="")

    cold = scan()
    run_checks = _repo_rules._run_checks
    runs: list[int] = []

    def counted(*args: object) -> object:
        runs.append(1)
        return run_checks(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(_repo_rules, "_run_checks", counted)
    assert scan() == cold and runs == []
    raised = scan(ScanConfig(severity={"DISC003": Severity.ERROR}))
    assert runs == [1]
    assert [f.severity for r in raised.skills for f in r.findings if f.rule_id == "DISC003"] == [Severity.ERROR]
    (tmp_path / DEFAULT_CACHE_DIR / "repository-rules.entry").write_text('{"format": 4, "key": "damaged"')
    assert scan() == cold and runs == [1, 1]
    write_skill(tmp_path, "plot-data", "Use for Excel workbooks (.xlsx) with formulas and pivot tables, not CSV.")
    assert disc(scan(), "DISC003") == [] and runs == [1, 1, 1]


def test_a_listing_redaction_would_alter_is_read_again_not_replayed(tmp_path: Path) -> None:
    """An entry is stored redacted: a description with a secret-shaped token would come back masked, shorter."""
    token = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    write_skill(tmp_path, "csv-charts", f"{CSV} Token {token} is an example.")
    write_skill(tmp_path, "plot-data", PLOT)
    cold = scan_repo(tmp_path, ScanConfig(), REGISTRY)
    scan_repo(tmp_path, ScanConfig(), REGISTRY, cache=ResultCache(tmp_path / DEFAULT_CACHE_DIR))
    entries = [json.loads(path.read_text()) for path in (tmp_path / DEFAULT_CACHE_DIR).glob("*.json")]
    assert {entry["rel_dir"]: entry["listed"] is None for entry in entries} == {
        "skills/csv-charts": True,
        "skills/plot-data": False,
    }
    cache = ResultCache(tmp_path / DEFAULT_CACHE_DIR)
    warm = scan_repo(tmp_path, ScanConfig(), REGISTRY, cache=cache)
    assert cache.stats.hits == 2
    assert dataclasses.replace(warm, generated_at="") == dataclasses.replace(cold, generated_at="")


def test_each_shard_reports_the_findings_of_its_own_skills_so_merged_shards_report_each_once(tmp_path: Path) -> None:
    write_skill(tmp_path, "csv-charts", CSV)
    write_skill(tmp_path, "plot-data", PLOT)
    for name, description in DISTINCT.items():
        write_skill(tmp_path, name, description)
    whole = disc(scan_repo(tmp_path, ScanConfig(), REGISTRY), "DISC003")
    parts = [disc(scan_repo(tmp_path, ScanConfig(), REGISTRY, shard=Shard(i, 3)), "DISC003") for i in (1, 2, 3)]
    assert sorted(finding for part in parts for finding in part) == sorted(whole)
    assert sum(1 for part in parts if part) == 1


def test_inline_comments_and_aces_yml_govern_repository_rules_like_any_rule(tmp_path: Path) -> None:
    write_skill(
        tmp_path, "csv-charts", CSV, "<!-- aces-ci: ignore-file DISC003 plot-data is being retired -->\n# Demo\n"
    )
    write_skill(tmp_path, "plot-data", PLOT)
    result = scan_repo(tmp_path, ScanConfig(), REGISTRY)
    (finding,) = [f for report in result.skills for f in report.findings if f.rule_id == "DISC003"]
    assert finding.suppressed is not None and finding.suppressed.kind == "inline"
    off = scan_repo(tmp_path, ScanConfig(severity={"DISC003": "off"}), REGISTRY)
    assert "DISC003" not in off.rules and not disc(off, "DISC003")
    write_skill(tmp_path, "csv-charts", CSV)
    raised = scan_repo(tmp_path, ScanConfig(severity={"DISC003": Severity.ERROR}), REGISTRY)
    assert [f.severity for r in raised.skills for f in r.findings if f.rule_id == "DISC003"] == [Severity.ERROR]


def test_a_skill_md_linked_from_outside_the_repository_is_never_read_into_a_finding(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "SKILL.md").write_text(f"---\nname: plot-data\ndescription: {PLOT} PRIVATE-WORDS\n---\n")
    repo = tmp_path / "repo"
    write_skill(repo, "csv-charts", CSV)
    (repo / "skills" / "plot-data").mkdir(parents=True)
    (repo / "skills" / "plot-data" / "SKILL.md").symlink_to(outside / "SKILL.md")
    result = scan_repo(repo, ScanConfig(), REGISTRY)
    assert disc(result, "DISC003") == []
    assert "PRIVATE-WORDS" not in repr(result)


def test_sibling_collisions_found_through_shared_terms_are_every_pair_a_full_comparison_finds() -> None:
    """DISC003 compares a skill only with the later skills sharing a term; no colliding pair may be missed."""
    rng = random.Random(20)
    words = [f"{rng.choice('bcdfgklmnprst')}{rng.choice('aeiou')}{rng.choice('bcdfgklmnprst')}{n}x" for n in range(40)]
    texts = [f"Use when the user asks to {' '.join(rng.sample(words, rng.randint(3, 9)))}." for _ in range(120)]
    terms = [claim_terms(text) for text in texts]
    frequency = Counter(term for found in terms for term in found)
    assert max(frequency.values()) <= len(texts) * VOCABULARY_SHARE, "no term is the repository's vocabulary here"
    every_pair = [
        (i, j)
        for i in range(len(terms))
        for j in range(i + 1, len(terms))
        if len(terms[i] & terms[j]) >= MIN_SHARED_TERMS and overlap(terms[i], terms[j]) >= MIN_OVERLAP
    ]
    assert len(every_pair) > 10
    assert [(found.first, found.second) for found in collisions(texts)] == every_pair
