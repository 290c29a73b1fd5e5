"""The scan: find the skills, run every enabled rule on each, apply suppressions, score and gate.

A scan never crashes on what it reads. A rule (or the parser) that raises becomes an ``ACES001``
finding naming the rule and the place in aces-ci's code that failed, and the scan goes on; hits
the rule yielded before it failed are kept. Only unusable *input to the scan itself* stops it:
a missing root, a root without skills, an unknown rule id in aces.yml, an unreadable baseline.
Those are :class:`~aces_ci.errors.InputError` / :class:`~aces_ci.errors.ConfigError` (exit 2).

Order is deterministic: skills by directory, findings by file, line, column, rule and message.
"""

from __future__ import annotations

import difflib
import traceback
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal

from .. import __version__
from ..config import AcesConfig
from ..errors import ConfigError, InputError
from ..gate import overall_verdict, skill_verdict
from ..skill import LOWERCASE_SKILL_FILE, SKILL_FILE, Skill, iter_skill_dirs, load_skill
from ._baseline import apply_baseline, load_baseline
from ._config import ScanConfig
from ._context import ScanContext
from ._finding import Finding, Hit, Location, Severity
from ._registry import Rule, RuleRegistry
from ._result import JudgeResult, ScanResult, SkillReport
from ._score import structural_score
from ._suppress import DirectiveProblem, apply_directives, apply_ignore_list, read_directives
from .rules import default_registry


def _emitted_by_runner(ctx: ScanContext) -> Iterable[Hit]:
    """The runner's own rules have nothing to check per skill: the runner reports them as it works."""
    return ()


INTERNAL_ERROR = Rule(
    id="ACES001",
    name="internal-error",
    family="ACES",
    severity=Severity.WARNING,
    summary="aces-ci failed while checking this skill: a rule or the parser raised an exception.",
    doc=(
        "A bug in aces-ci, not in the skill: one rule (or the skill parser) raised an exception on\n"
        "this skill's content. The scan goes on; findings the rule reported before failing are kept,\n"
        "but the rest of its checks did not run on this skill. The message names the rule, the\n"
        "exception type and the line of aces-ci's code that failed (never the content that\n"
        "triggered it, which may be secret). It costs no score points: the author is not at fault."
    ),
    fix="Report it at https://github.com/aces-ci/aces-ci/issues with the message; meanwhile the rule can be "
    "turned off in aces.yml (scan.rules: {RULE-ID: off}).",
    weight=0,
    check=_emitted_by_runner,
)
SUPPRESSION_WITHOUT_REASON = Rule(
    id="ACES002",
    name="suppression-without-reason",
    family="ACES",
    severity=Severity.NOTE,
    summary="An inline suppression does not say why the finding is safe to ignore.",
    doc=(
        "`<!-- aces-ci: ignore RULE-ID reason -->` takes a reason after the rule ids. Without one,\n"
        "the next reader cannot tell a considered exception from a silenced problem. The\n"
        "suppression still applies; this note reports the missing reason.\n\n"
        "Fails: `<!-- aces-ci: ignore SPEC002 -->`\n"
        "Passes: `<!-- aces-ci: ignore SPEC002 name kept for existing users -->`"
    ),
    fix="Add a short reason after the rule ids in the comment.",
    weight=1,
    check=_emitted_by_runner,
)
INVALID_SUPPRESSION = Rule(
    id="ACES003",
    name="invalid-suppression",
    family="ACES",
    severity=Severity.WARNING,
    summary="An aces-ci comment names an unknown rule or directive, so it suppresses nothing.",
    doc=(
        "An inline `aces-ci:` comment that aces-ci cannot apply: an unknown directive (only\n"
        "`ignore` and `ignore-file` exist), no rule id, a rule name where an id belongs, or an id\n"
        "no rule has (a typo, or a rule removed in this version). The findings it meant to\n"
        "suppress stay active. Unknown ids in aces.yml are a configuration error instead, because\n"
        "the config is owned by the maintainers while skill files are edited by contributors.\n\n"
        "Fails: `<!-- aces-ci: ignore SPEC02 legacy -->`, `<!-- aces-ci: ignore name-format legacy -->`\n"
        "Passes: `<!-- aces-ci: ignore SPEC002 legacy -->`"
    ),
    fix="Use an id that `aces-ci rules` lists, or delete the comment if the finding it silenced is gone.",
    weight=5,
    check=_emitted_by_runner,
)
INTERNAL_RULES = (INTERNAL_ERROR, SUPPRESSION_WITHOUT_REASON, INVALID_SUPPRESSION)
"""Rules the runner emits itself; every registry a scan uses includes them."""


@dataclass(frozen=True)
class _LoadFailure:
    """A skill directory the parser raised on: reported, never dropped."""

    rel_dir: str
    name: str
    """The directory name: the frontmatter could not be read."""
    skill_md: str
    finding: Finding


def _with_internal_rules(registry: RuleRegistry) -> RuleRegistry:
    if all(rule.id in registry for rule in INTERNAL_RULES):
        return registry
    return RuleRegistry([*registry, *(rule for rule in INTERNAL_RULES if rule.id not in registry)])


def _unknown_rule_error(rule_id: str, field: str, config: AcesConfig, registry: RuleRegistry) -> ConfigError:
    close = difflib.get_close_matches(rule_id.upper(), [rule.id for rule in registry], n=3, cutoff=0.6)
    hint = f"; did you mean {', '.join(close)}?" if close else "; `aces-ci rules` lists every rule id"
    return ConfigError(
        f"unknown rule id '{rule_id}'{hint}",
        path=str(config.path) if config.path else None,
        line=config.field_lines.get(field),
        field=field,
    )


def check_rule_ids(config: AcesConfig, registry: RuleRegistry) -> None:
    """Every rule id aces.yml names must exist: a typo would silently keep a rule on."""
    for rule_id in config.scan.severity:
        if rule_id not in registry:
            raise _unknown_rule_error(rule_id, f"scan.rules.{rule_id}", config, registry)
    for index, entry in enumerate(config.scan.ignore):
        if entry.rule not in registry:
            raise _unknown_rule_error(entry.rule, f"scan.ignore[{index}].rule", config, registry)


def _resolve_root(root: Path) -> Path:
    if root.is_file() and root.name in (SKILL_FILE, LOWERCASE_SKILL_FILE):
        root = root.parent
    if not root.exists():
        raise InputError("path does not exist", path=str(root))
    if not root.is_dir():
        raise InputError("not a directory: give a repository, a skill directory or a SKILL.md", path=str(root))
    return root.resolve()


def _frame_text(frame: traceback.FrameSummary, package_dir: Path) -> str:
    path = Path(frame.filename).resolve()
    if path.is_relative_to(package_dir):
        shown = path.relative_to(package_dir.parent).as_posix()
    else:
        shown = "/".join(path.parts[-2:])  # a library or a test: its package and module are enough
    return f"{shown}:{frame.lineno}"


def _failure_site(exc: BaseException) -> str:
    """Where aces-ci's code failed: its innermost frame, plus the library frame that raised, if any."""
    # The first frame is the runner's own, where the exception was caught: not where it went wrong.
    frames = traceback.extract_tb(exc.__traceback__)[1:]
    if not frames:
        return "an unknown location"
    package_dir = Path(__file__).resolve().parents[1]
    ours = [frame for frame in frames if Path(frame.filename).resolve().is_relative_to(package_dir)]
    innermost = frames[-1]
    if not ours or ours[-1] is innermost:
        return _frame_text(innermost, package_dir)
    return f"{_frame_text(ours[-1], package_dir)} (inside {_frame_text(innermost, package_dir)})"


def _internal_error(what: str, exc: Exception, skill_rel_dir: str, skill_md: str) -> Finding:
    # The exception's own text may quote the skill's content (a secret, say): name its type only.
    message = (
        f"{what} raised {type(exc).__name__} at {_failure_site(exc)}; "
        "its checks on this skill are incomplete. This is an aces-ci bug: please report it"
    )
    rule = INTERNAL_ERROR
    return Finding(rule.id, rule.severity, message, Location(skill_md), skill_rel_dir, fix=rule.fix)


def _load_skills(root: Path, exclude: Sequence[str]) -> list[Skill | _LoadFailure]:
    loaded: list[Skill | _LoadFailure] = []
    for skill_dir in iter_skill_dirs(root, exclude):
        try:
            loaded.append(load_skill(skill_dir, root))
        except Exception as exc:
            rel_dir = skill_dir.relative_to(root).as_posix() or "."
            name = SKILL_FILE if (skill_dir / SKILL_FILE).exists() else LOWERCASE_SKILL_FILE
            skill_md = name if rel_dir == "." else f"{rel_dir}/{name}"
            finding = _internal_error("the skill parser", exc, rel_dir, skill_md)
            loaded.append(_LoadFailure(rel_dir, skill_dir.name, skill_md, finding))
    if not loaded:
        excluded = f" (excluding {', '.join(exclude)})" if exclude else ""
        raise InputError(
            f"no skills found{excluded}: a skill is a directory holding SKILL.md, e.g. skills/<name>/SKILL.md",
            path=str(root),
        )
    return loaded


Overrides = dict[str, Severity | Literal["off"]]
"""aces.yml's ``scan.rules``, keyed by upper-case rule id."""


def _severity_overrides(config: ScanConfig) -> Overrides:
    return {rule_id.upper(): level for rule_id, level in config.severity.items()}


def _enabled_rules(registry: RuleRegistry, overrides: Overrides) -> list[tuple[Rule, Severity | None]]:
    """Each rule that is not ``off``, with the severity aces.yml forces on its findings (if any)."""
    enabled = []
    for rule in registry:
        level = overrides.get(rule.id)
        if level != "off":
            enabled.append((rule, level if isinstance(level, Severity) else None))
    return enabled


def _finding(rule: Rule, hit: Hit, skill: Skill, forced: Severity | None) -> Finding:
    return Finding(
        rule.id,
        forced or hit.severity or rule.severity,
        hit.message,
        hit.location,
        skill.rel_dir,
        evidence=hit.evidence,
        clause=hit.clause,
        fix=rule.fix,
    )


def _run_rules(skill: Skill, rules: Sequence[tuple[Rule, Severity | None]], config: ScanConfig) -> list[Finding]:
    context = ScanContext(skill, config)
    findings: list[Finding] = []
    for rule, forced in rules:
        try:
            for hit in rule.check(context):
                findings.append(_finding(rule, hit, skill, forced))
        except Exception as exc:
            findings.append(_internal_error(f"rule {rule.id} ({rule.name})", exc, skill.rel_dir, skill.skill_md.rel))
    return findings


def _directive_findings(problems: Iterable[DirectiveProblem], skill: Skill, overrides: Overrides) -> list[Finding]:
    findings = []
    for problem in problems:
        rule = SUPPRESSION_WITHOUT_REASON if problem.kind == "no-reason" else INVALID_SUPPRESSION
        level = overrides.get(rule.id)
        if level == "off":
            continue
        severity = level if isinstance(level, Severity) else rule.severity
        location = Location(problem.path, problem.line)
        findings.append(Finding(rule.id, severity, problem.message, location, skill.rel_dir, fix=rule.fix))
    return findings


def _sort_key(finding: Finding) -> tuple[str, int, int, str, str]:
    loc = finding.location
    return (loc.path, loc.line or 0, loc.column or 0, finding.rule_id, finding.message)


def _skill_findings(
    skill: Skill, registry: RuleRegistry, rules: Sequence[tuple[Rule, Severity | None]], config: ScanConfig
) -> list[Finding]:
    """Rule findings plus directive problems, with inline and aces.yml suppressions applied."""
    findings = _run_rules(skill, rules, config)
    directives, problems = read_directives(skill, {f.location.path for f in findings}, registry)
    findings = apply_directives(findings, directives)
    findings.extend(_directive_findings(problems, skill, _severity_overrides(config)))
    findings = apply_ignore_list(findings, config.ignore)
    return sorted(findings, key=_sort_key)


def _skill_report(
    item: Skill | _LoadFailure,
    findings: Sequence[Finding],
    registry: RuleRegistry,
    min_score: int,
    judged: JudgeResult | None,
) -> SkillReport:
    score = structural_score(findings, registry)
    verdict, reasons = skill_verdict(findings, score, min_score)
    skill_md = item.skill_md.rel if isinstance(item, Skill) else item.skill_md
    return SkillReport(item.rel_dir, item.name, skill_md, tuple(findings), score, verdict, reasons, judged)


def scan_repo(
    root: Path, config: AcesConfig, registry: RuleRegistry | None = None, *, judge: bool = False
) -> ScanResult:
    """Scan every skill under ``root`` and gate the result.

    ``registry`` defaults to every built-in rule; the runner's own ``ACES`` rules are always
    added. ``judge`` also runs the LLM-judge rubric (reported beside the score, never in it).
    """
    registry = _with_internal_rules(default_registry() if registry is None else registry)
    check_rule_ids(config, registry)
    root = _resolve_root(root)
    scan_config = config.scan
    baseline = load_baseline(scan_config.baseline) if scan_config.baseline is not None else None
    loaded = _load_skills(root, scan_config.exclude)
    enabled = _enabled_rules(registry, _severity_overrides(scan_config))

    findings_by_skill: dict[str, list[Finding]] = {}
    for item in loaded:
        if isinstance(item, _LoadFailure):
            findings_by_skill[item.rel_dir] = apply_ignore_list([item.finding], scan_config.ignore)
        else:
            findings_by_skill[item.rel_dir] = _skill_findings(item, registry, enabled, scan_config)
    if baseline is not None:
        findings_by_skill = {rel: apply_baseline(found, baseline) for rel, found in findings_by_skill.items()}

    judged: dict[str, JudgeResult] = {}
    skills = [item for item in loaded if isinstance(item, Skill)]
    if judge and skills:
        # Imported only when asked for: a plain scan never loads the model SDKs.
        from ._judge import run_judge

        judged = run_judge(skills, config.judge)

    reports = sorted(
        (
            _skill_report(
                item, findings_by_skill[item.rel_dir], registry, scan_config.min_score, judged.get(item.rel_dir)
            )
            for item in loaded
        ),
        key=lambda report: report.skill,
    )
    return ScanResult(
        tool_version=__version__,
        root=root.as_posix(),
        profile=scan_config.profile,
        min_score=scan_config.min_score,
        skills=tuple(reports),
        verdict=overall_verdict(reports),
        rules=tuple(sorted(rule.id for rule, _ in enabled)),
        generated_at=datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z"),
    )
