"""scan_repo: rules run on every skill, crashes become findings, and bad roots are input errors."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from aces_ci.errors import EXIT_INPUT_ERROR, ConfigError, ConfigSource, InputError
from aces_ci.scan import Hit, IgnoreEntry, Rule, RuleRegistry, ScanConfig, ScanContext, Severity, define, scan_repo

from .helpers import make_skill

RULES: list[Rule] = []


@define(RULES, id="TEST001", name="mentions-todo", severity=Severity.WARNING, summary="TODO left", fix="Finish it.")
def _todo(ctx: ScanContext):
    """Flags every line of SKILL.md that says TODO."""
    for number, line in enumerate(ctx.skill.skill_md.lines, start=1):
        if "TODO" in line:
            yield Hit("TODO left in the instructions", ctx.at(number))


@define(RULES, id="TEST002", name="says-broken", severity=Severity.ERROR, summary="broken", fix="Fix it.")
def _broken(ctx: ScanContext):
    """Flags a skill whose body says BROKEN."""
    if "BROKEN" in ctx.skill.body.text:
        yield Hit("the skill says it is broken", ctx.at(1), severity=None)


@define(RULES, id="TEST003", name="crashes", severity=Severity.NOTE, summary="crashes on CRASH", fix="n/a")
def _crashes(ctx: ScanContext):
    """Yields one hit, then raises on skills that say CRASH, quoting a secret in the exception."""
    if "CRASH" in ctx.skill.body.text:
        yield Hit("seen before the crash", ctx.at(2))
        raise ValueError("sk-ant-api03-secretsecretsecret")


def registry() -> RuleRegistry:
    return RuleRegistry(RULES)


def config(**scan: object) -> ScanConfig:
    return ScanConfig(**scan)  # type: ignore[arg-type]


SKILL = "---\nname: {name}\ndescription: Does a thing.\n---\n# Title\n\n{body}\n"


def write(root: Path, name: str, body: str, parent: str = "skills") -> None:
    make_skill(root, SKILL.format(name=name, body=body), name=name, parent=parent)


def test_hits_become_findings_with_the_rule_identity(tmp_path: Path) -> None:
    write(tmp_path, "alpha", "Step one. TODO")
    result = scan_repo(tmp_path, config(), registry())
    (report,) = result.skills
    (finding,) = report.findings
    assert (finding.rule_id, finding.severity, finding.fix) == ("TEST001", Severity.WARNING, "Finish it.")
    assert str(finding.location) == "skills/alpha/SKILL.md:7"
    assert finding.skill == "skills/alpha"
    assert report.score.value == 95
    assert report.verdict == "pass"
    assert result.verdict == "pass"


def test_an_error_finding_fails_the_skill_and_the_repo(tmp_path: Path) -> None:
    write(tmp_path, "alpha", "fine")
    write(tmp_path, "beta", "BROKEN")
    result = scan_repo(tmp_path, config(), registry())
    verdicts = {report.skill: report.verdict for report in result.skills}
    assert verdicts == {"skills/alpha": "pass", "skills/beta": "fail"}
    assert result.verdict == "fail"
    beta = result.skills[1]
    assert beta.reasons == ("1 error finding: TEST002 at skills/beta/SKILL.md:1",)


def test_a_low_score_fails_even_without_errors(tmp_path: Path) -> None:
    write(tmp_path, "alpha", "TODO")
    result = scan_repo(tmp_path, config(min_score=96), registry())
    assert result.skills[0].verdict == "fail"
    assert result.skills[0].reasons == ("structural score 95 is below the minimum 96",)
    assert result.min_score == 96


def test_severity_overrides_and_off(tmp_path: Path) -> None:
    write(tmp_path, "alpha", "TODO BROKEN")
    result = scan_repo(tmp_path, config(severity={"test001": Severity.ERROR, "TEST002": "off"}), registry())
    findings = result.skills[0].findings
    assert [(f.rule_id, f.severity) for f in findings] == [("TEST001", Severity.ERROR)]
    assert "TEST002" not in result.rules
    assert result.verdict == "fail"


def test_a_crashing_rule_becomes_a_finding_and_the_scan_goes_on(tmp_path: Path) -> None:
    write(tmp_path, "alpha", "CRASH and TODO")
    write(tmp_path, "beta", "TODO")
    result = scan_repo(tmp_path, config(), registry())
    alpha, beta = result.skills
    by_rule = {f.rule_id: f for f in alpha.findings}
    assert set(by_rule) == {"ACES001", "TEST001", "TEST003"}, "hits before the crash and other rules are kept"
    crash = by_rule["ACES001"]
    assert crash.severity == Severity.WARNING
    assert "rule TEST003 (crashes) raised ValueError at scan/test_runner.py:" in crash.message
    assert "sk-ant" not in crash.message, "the exception text may quote secrets: never reported"
    assert [f.rule_id for f in beta.findings] == ["TEST001"]
    assert alpha.score.value == 94, "a crash is aces-ci's bug: it costs the author no points"


def test_a_parser_crash_is_reported_not_raised(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(tmp_path, "alpha", "fine")
    write(tmp_path, "beta", "fine")
    from aces_ci.scan import _runner

    real_load = _runner.load_skill

    def load_or_fail(skill_dir: Path, root: Path):
        if skill_dir.name == "beta":
            raise RecursionError("parser bug")
        return real_load(skill_dir, root)

    monkeypatch.setattr(_runner, "load_skill", load_or_fail)
    result = scan_repo(tmp_path, config(), registry())
    beta = result.skills[1]
    assert (beta.skill, beta.name, beta.skill_md) == ("skills/beta", "beta", "skills/beta/SKILL.md")
    assert [f.rule_id for f in beta.findings] == ["ACES001"]
    assert "the skill parser raised RecursionError" in beta.findings[0].message


def test_missing_root_and_root_without_skills_are_input_errors(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="path does not exist") as missing:
        scan_repo(tmp_path / "nope", config(), registry())
    assert missing.value.exit_code == EXIT_INPUT_ERROR
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "README.md").write_text("# not a skill\n")
    with pytest.raises(InputError, match="no skills found"):
        scan_repo(tmp_path, config(), registry())
    with pytest.raises(InputError, match="not a directory"):
        scan_repo(tmp_path / "docs" / "README.md", config(), registry())


def test_exclude_patterns_skip_skills_and_an_all_excluded_repo_is_an_error(tmp_path: Path) -> None:
    write(tmp_path, "alpha", "fine")
    write(tmp_path, "old", "BROKEN", parent="legacy")
    result = scan_repo(tmp_path, config(exclude=("legacy/",)), registry())
    assert [r.skill for r in result.skills] == ["skills/alpha"]
    with pytest.raises(InputError, match=r"no skills found \(excluding skills/, legacy/\)"):
        scan_repo(tmp_path, config(exclude=("skills/", "legacy/")), registry())


def test_a_skill_md_path_scans_that_skill(tmp_path: Path) -> None:
    write(tmp_path, "alpha", "TODO")
    result = scan_repo(tmp_path / "skills" / "alpha" / "SKILL.md", config(), registry())
    assert [(r.skill, r.name) for r in result.skills] == [(".", "alpha")]
    assert result.skills[0].findings[0].location.path == "SKILL.md"


def test_order_is_deterministic(tmp_path: Path) -> None:
    for name in ("zeta", "alpha", "mid"):
        write(tmp_path, name, "TODO\n\nBROKEN\n\nTODO")
    first = scan_repo(tmp_path, config(), registry())
    second = scan_repo(tmp_path, config(), registry())
    assert [r.skill for r in first.skills] == ["skills/alpha", "skills/mid", "skills/zeta"]
    assert replace(first, generated_at="") == replace(second, generated_at="")
    lines = [(f.location.line, f.rule_id) for f in first.skills[0].findings]
    assert lines == sorted(lines, key=lambda pair: (pair[0] or 0, pair[1]))


def test_the_result_lists_every_rule_that_ran_including_the_runners_own(tmp_path: Path) -> None:
    write(tmp_path, "alpha", "fine")
    result = scan_repo(tmp_path, config(), registry())
    assert result.rules == ("ACES001", "ACES002", "ACES003", "TEST001", "TEST002", "TEST003")
    assert result.generated_at.endswith("Z")


def test_unknown_rule_ids_in_the_config_are_config_errors_with_a_suggestion(tmp_path: Path) -> None:
    write(tmp_path, "alpha", "fine")
    typo = ScanConfig(
        severity={"TEST01": "off"},
        source=ConfigSource(tmp_path / "aces.yml", {"scan.rules.TEST01": 4}),
    )
    with pytest.raises(ConfigError) as error:
        scan_repo(tmp_path, typo, registry())
    assert str(error.value).startswith(
        f"{tmp_path / 'aces.yml'}:4 (scan.rules.TEST01): unknown rule id 'TEST01'; did you mean TEST001, "
    )
    ignored = ScanConfig(ignore=(IgnoreEntry("NOPE123", (), "why"),))
    with pytest.raises(ConfigError, match=r"scan.ignore\[0\].rule.*unknown rule id 'NOPE123'"):
        scan_repo(tmp_path, ignored, registry())


def test_a_credential_in_the_name_field_is_masked_in_messages_and_the_reported_name(tmp_path: Path) -> None:
    from aces_ci.scan.rules import default_registry

    token = "ghp_" + "R7xK2mQ9vL4pW8nZ3tY6bH1cF5dJ0sA2eG7u"
    make_skill(
        tmp_path,
        f"---\nname: {token}\ndescription: Fills PDF forms. Use when the user asks to fill one.\n---\n# Demo\n\nRun.\n",
    )

    result = scan_repo(tmp_path, ScanConfig(), default_registry(), jobs=1)

    [report] = result.skills
    assert token not in report.name
    spec = [f for f in report.findings if f.rule_id in ("SPEC002", "SPEC003")]
    assert spec, "the name still draws its naming findings"
    assert all(token not in f.message and "[REDACTED:github-token]" in f.message for f in spec)
