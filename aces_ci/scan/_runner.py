"""The scan: find the skills, run every enabled rule on each, apply suppressions, score and gate.

Per skill, in discovery order: if a result cache is given and the skill's key (its files, the
rules, the settings: :mod:`aces_ci.scan._fingerprint`) matches a stored entry, the stored rule
findings are replayed. This process first looks at every skill with ``lstat`` alone (the entry's
stat index: an unchanged skill costs its ``lstat`` calls and one read of its entry, and is replayed
here; in a fresh clone, where every stat moved, git's index vouches for the files git checked out:
:mod:`aces_ci.scan._git_index`); only the skills that changed go to the workers, so a push that
touches one skill starts no worker. A skill that is not replayed is fingerprinted (reading only
the files whose stat moved), and if its key still matches it is replayed; otherwise the skill is
loaded and every enabled rule runs on it, sharing one :class:`~aces_ci.scan._inputs.SkillInputs`, and the findings are
stored for next time when they can be replayed faithfully. Inline suppressions are then applied
to either. That per-skill work runs in this process or in worker processes
(:mod:`aces_ci.scan._pool`); the results are the same.
Repository rules (:mod:`aces_ci.scan._repo_rules`) run once, here, over every skill's SKILL.md,
and join the findings of the skill each belongs to; they are never cached.
Last, in this process: aces.yml ignores, the baseline, the structural score and the gate.

A scan never crashes on what it reads. A rule (or the parser) that raises becomes an ``ACES001``
finding naming the rule and the place in aces-ci's code that failed, and the scan goes on; hits
the rule yielded before it failed are kept. Only unusable *input to the scan itself* stops it:
a missing root, a root without skills, an unknown rule id in aces.yml, an unreadable baseline.
Those are :class:`~aces_ci.errors.InputError` / :class:`~aces_ci.errors.ConfigError` (exit 2).

Order is deterministic: skills by directory, findings by file, line, column, rule and message.
"""

from __future__ import annotations

import contextlib
import dataclasses
import difflib
import os
from collections.abc import Generator, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from .. import __version__
from ..errors import ConfigError, InputError
from ..redact import redact_text
from ..skill import LOWERCASE_SKILL_FILE, SKILL_FILE, Skill, iter_skill_dirs, load_skill
from ._baseline import Baseline, apply_baseline, count_stale, load_baseline
from ._config import IgnoreEntry, ScanConfig
from ._context import ScanContext
from ._finding import Finding, FindingRow, Hit, Location, Severity, Suppression, finding_from_row, finding_to_row
from ._finding_rows import ReportFindings, report_order
from ._fingerprint import (
    KnownStats,
    SkillFingerprint,
    repository_digest,
    scan_digest,
    scan_environment,
    skill_fingerprint,
)
from ._git_index import GitWitness
from ._inputs import ScanMemo, SkillInputs
from ._internal_rules import (
    INTERNAL_ERROR,
    INTERNAL_RULES,
    INVALID_SUPPRESSION,
    SUPPRESSION_WITHOUT_REASON,
    internal_error,
)
from ._listing import ListedSkill
from ._pool import plan_workers, run_in_workers
from ._registry import Rule, RuleRegistry
from ._repo_rules import REPOSITORY_CHECKS, RepositoryStore, is_repository_rule, listed_skill, repository_findings
from ._result import JudgeResult, ScanResult, SkillReport
from ._result_cache import CachedSkill, CacheUse, ResultCache, StoredEntry
from ._score import ScoreMemo
from ._shard import Shard, entries_in_shard
from ._suppress import DirectiveProblem, apply_directives, apply_ignore_list, read_directives
from ._verdict import overall_verdict, skill_verdict
from .rules import default_registry

if TYPE_CHECKING:
    from ..models import ModelSettings


def _with_internal_rules(registry: RuleRegistry) -> RuleRegistry:
    if all(rule.id in registry for rule in INTERNAL_RULES):
        return registry
    return RuleRegistry([*registry, *(rule for rule in INTERNAL_RULES if rule.id not in registry)])


def _unknown_rule_error(rule_id: str, field: str, settings: ScanConfig, registry: RuleRegistry) -> ConfigError:
    close = difflib.get_close_matches(rule_id.upper(), [rule.id for rule in registry], n=3, cutoff=0.6)
    hint = f"; did you mean {', '.join(close)}?" if close else "; `aces-ci rules` lists every rule id"
    return settings.source.error(f"unknown rule id '{rule_id}'{hint}", field)


def check_rule_ids(settings: ScanConfig, registry: RuleRegistry) -> None:
    """Every rule id aces.yml names must exist: a typo would silently keep a rule on."""
    for rule_id in settings.severity:
        if rule_id not in registry:
            raise _unknown_rule_error(rule_id, f"scan.rules.{rule_id}", settings, registry)
    for index, entry in enumerate(settings.ignore):
        if entry.rule not in registry:
            raise _unknown_rule_error(entry.rule, f"scan.ignore[{index}].rule", settings, registry)


def _resolve_root(root: Path) -> Path:
    if root.is_file() and root.name in (SKILL_FILE, LOWERCASE_SKILL_FILE):
        root = root.parent
    if not root.exists():
        raise InputError("path does not exist", path=str(root))
    if not root.is_dir():
        raise InputError("not a directory: give a repository, a skill directory or a SKILL.md", path=str(root))
    return root.resolve()


def _load_baseline(path: Path, root: Path) -> Baseline:
    """The baseline; one written inside the scanned repository must not lead out of it through a link.

    A path lying (by its written name) in the repository is a committed file, which a pull request
    controls: a link to ``/dev/zero`` or to a file elsewhere is refused. A path outside it was chosen
    by whoever runs the scan (``--baseline /tmp/accepted.json``); only the kind and size limits apply.
    """
    written = Path(os.path.abspath(path))
    return load_baseline(path, inside=root if written.is_relative_to(root) else None)


Overrides = dict[str, Severity | Literal["off"]]
"""aces.yml's ``scan.rules``, keyed by upper-case rule id."""
EnabledRules = tuple[tuple[Rule, Severity | None], ...]
"""Each rule that runs, with the severity aces.yml forces on its findings (None: the rule's own)."""


def _severity_overrides(config: ScanConfig) -> Overrides:
    return {rule_id.upper(): level for rule_id, level in config.severity.items()}


def _enabled_rules(registry: RuleRegistry, overrides: Overrides) -> EnabledRules:
    """Each rule that is not ``off``, with the severity aces.yml forces on its findings (if any)."""
    enabled = []
    for rule in registry:
        level = overrides.get(rule.id)
        if level != "off":
            enabled.append((rule, level if isinstance(level, Severity) else None))
    return tuple(enabled)


@dataclass(frozen=True)
class _ScanJob:
    """Everything the per-skill work needs; built once per scan and handed to each worker process."""

    root: Path
    registry: RuleRegistry
    enabled: EnabledRules
    config: ScanConfig
    cache: ResultCache | None
    scan_key: str | None
    """The scan-wide part of every cache key; None when the cache is off for this scan."""
    within: Path | None = None
    """Only skills under this directory of ``root`` are scanned (paths stay relative to ``root``)."""
    fixes: Mapping[str, str | None] = dataclasses.field(default_factory=dict)
    """Each rule's fix by id: cache entries leave it out (:data:`~aces_ci.scan._result_cache.RuleFixes`)."""
    git: GitWitness | None = None
    """Git's index of ``root``, asked when a file's stat moved (a fresh clone): :mod:`aces_ci.scan._git_index`."""


@dataclass(frozen=True)
class _SkillScan:
    """One skill's findings as the runner gathers them, computed here, in a worker, or read from the cache."""

    rel_dir: str
    name: str
    skill_md: str
    findings: Sequence[Finding]
    """The rules' findings with inline suppressions applied and directive problems added (a replayed
    skill without inline directives: its entry's rows, :class:`~aces_ci.scan._finding_rows.FindingRows`)."""
    cache_use: CacheUse
    listed: ListedSkill | None = None
    """A replayed skill's listing as its cache entry kept it (the repository rules then do not read it)."""
    no_directives: bool = False
    """Known from the replayed key: no Markdown file of the skill mentions aces-ci, so none suppresses."""

    def __reduce__(self) -> tuple[Any, ...]:
        """Travel from a worker process as plain rows (:func:`finding_to_row`)."""
        rows = tuple(finding_to_row(finding) for finding in self.findings)
        return (_unpacked_scan, (self.rel_dir, self.name, self.skill_md, rows, self.cache_use))


def _unpacked_scan(
    rel_dir: str, name: str, skill_md: str, rows: tuple[FindingRow, ...], cache_use: CacheUse
) -> _SkillScan:
    findings = tuple(finding for row in rows if (finding := finding_from_row(row, rel_dir)) is not None)
    if len(findings) != len(rows):
        raise RuntimeError("a worker process sent a finding that does not decode")
    return _SkillScan(rel_dir, name, skill_md, findings, cache_use)


def _finding(rule: Rule, hit: Hit, skill: Skill, forced: Severity | None) -> Finding:
    """The rule's hit as a finding; its message is redacted like its evidence.

    Messages quote frontmatter values (``name 'ghp_…' may use only a-z…``), and every report and
    the result cache take the message as it is here.
    """
    return Finding(
        rule.id,
        forced or hit.severity or rule.severity,
        redact_text(hit.message),
        hit.location,
        skill.rel_dir,
        evidence=hit.evidence,
        clause=hit.clause,
        fix=rule.fix,
        suppressed=None if hit.waived is None else Suppression("policy", redact_text(hit.waived)),
    )


def _run_rules(skill: Skill, rules: EnabledRules, config: ScanConfig, inputs: SkillInputs) -> list[Finding]:
    context = ScanContext(skill, config, inputs)
    findings: list[Finding] = []
    for rule, forced in rules:
        try:
            for hit in rule.check(context):
                findings.append(_finding(rule, hit, skill, forced))
        except Exception as exc:
            findings.append(internal_error(f"rule {rule.id} ({rule.name})", exc, skill.rel_dir, skill.skill_md.rel))
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
        message = redact_text(problem.message)
        findings.append(Finding(rule.id, severity, message, location, skill.rel_dir, fix=rule.fix))
    return findings


def _with_directives(skill: Skill, raw: Sequence[Finding], job: _ScanJob, inputs: SkillInputs) -> tuple[Finding, ...]:
    """The rules' findings with the skill's inline suppressions applied, plus the directives' own problems."""
    directives, problems = read_directives(skill, {f.location.path for f in raw}, job.registry, inputs)
    findings = apply_directives(raw, directives)
    findings.extend(_directive_findings(problems, skill, _severity_overrides(job.config)))
    return tuple(findings)


def _rel_dir(skill_dir: Path, root: Path) -> str:
    """``skill_dir`` relative to ``root`` (which holds it; both resolved), POSIX separators, '.' for the root."""
    top, path = os.fspath(root), os.fspath(skill_dir)
    return "." if path == top else path[len(top) + 1 :].replace(os.sep, "/")


def _load_failure(job: _ScanJob, skill_dir: Path, exc: Exception) -> _SkillScan:
    """A skill directory the parser raised on: reported under its directory name, never dropped."""
    rel_dir = _rel_dir(skill_dir, job.root)
    name = SKILL_FILE if (skill_dir / SKILL_FILE).exists() else LOWERCASE_SKILL_FILE
    skill_md = name if rel_dir == "." else f"{rel_dir}/{name}"
    finding = internal_error("the skill parser", exc, rel_dir, skill_md)
    return _SkillScan(rel_dir, skill_dir.name, skill_md, (finding,), "not-cacheable")


def _scan_skill(
    job: _ScanJob, skill_dir: Path, rel_dir: str, memo: ScanMemo, fingerprint: SkillFingerprint | None
) -> _SkillScan:
    """Load one skill and run every enabled rule on it; store the findings when they can be replayed."""
    try:
        skill = load_skill(skill_dir, job.root)
    except Exception as exc:
        return _load_failure(job, skill_dir, exc)
    inputs = SkillInputs(skill, memo)
    raw = _run_rules(skill, job.enabled, job.config, inputs)
    findings = _with_directives(skill, raw, job, inputs)
    cache_use: CacheUse = "off"
    if job.cache is not None and job.scan_key is not None:
        repeatable = inputs.repeatable and not any(f.rule_id == INTERNAL_ERROR.id for f in raw)
        # Read before the check below, so that the listing too is of the bytes the key names.
        listed = listed_skill(skill_dir, job.root, rel_dir) if fingerprint is not None and repeatable else None
        # Keyed by the bytes read before the scan: only valid if nothing changed while it ran.
        if fingerprint is None or not repeatable or _fingerprint(job, skill_dir, rel_dir) != fingerprint:
            cache_use = "not-cacheable"
        else:
            entry = CachedSkill(_reported_name(skill), skill.skill_md.rel, tuple(raw), listed)
            stored = job.cache.store(skill.rel_dir, fingerprint.digest, entry, fingerprint.stats)
            cache_use = "stored" if stored else "not-stored"
    return _SkillScan(skill.rel_dir, _reported_name(skill), skill.skill_md.rel, findings, cache_use)


def _reported_name(skill: Skill) -> str:
    """The skill's name as reports show it: a credential pasted into ``name:`` is masked."""
    return redact_text(skill.name)


def _fingerprint(
    job: _ScanJob, skill_dir: Path, rel_dir: str, known: KnownStats | None = None, *, read_changed: bool = True
) -> SkillFingerprint | None:
    """The skill's cache key; with ``known``, files whose stat still holds are not read (the scan's own
    check that nothing changed while it ran passes no ``known``: it reads every file)."""
    if job.cache is None or job.scan_key is None:
        return None
    return skill_fingerprint(
        skill_dir, rel_dir, job.scan_key, job.cache.directory, known, read_changed=read_changed, git=job.git
    )


def _replayed(
    job: _ScanJob, skill_dir: Path, rel_dir: str, fingerprint: SkillFingerprint, entry: CachedSkill
) -> _SkillScan | None:
    """A cache hit as a scan result; None when its inline suppressions cannot be read (scan it instead)."""
    findings = entry.findings
    if fingerprint.has_directives:
        try:
            skill = load_skill(skill_dir, job.root)
        except Exception:
            return None
        findings = _with_directives(skill, entry.findings, job, SkillInputs(skill))
    quiet = not fingerprint.has_directives
    return _SkillScan(rel_dir, entry.name, entry.skill_md, findings, "hit", entry.listed, quiet)


def _process_skill(job: _ScanJob, skill_dir: Path, memo: ScanMemo) -> _SkillScan:
    """One skill, start to end: reuse its cached findings if its key matches, else scan it."""
    rel_dir = _rel_dir(skill_dir, job.root)
    stored = job.cache.read(rel_dir) if job.cache is not None else None
    fingerprint = _fingerprint(job, skill_dir, rel_dir, None if stored is None else stored.known)
    if fingerprint is not None and stored is not None:
        entry = stored.for_key(fingerprint.digest, job.fixes)
        replayed = None if entry is None else _replayed(job, skill_dir, rel_dir, fingerprint, entry)
        if replayed is not None:
            # Touched (a checkout, ``touch``) but not changed: only the touched files were read. Their
            # new stats go into the entry, as git refreshes its index, so the next scan reads none.
            if job.cache is not None and fingerprint.stats != stored.known.files:
                job.cache.refresh_stats(stored, fingerprint.stats)
            return replayed
        # The new findings are stored under a key from the bytes alone, never from a stat index that
        # may be damaged: the skill is being read in full anyway.
        fingerprint = _fingerprint(job, skill_dir, rel_dir)
    return _scan_skill(job, skill_dir, rel_dir, memo, fingerprint)


def _unchanged(job: _ScanJob, skill_dir: Path) -> _SkillScan | None:
    """The skill's stored findings if ``lstat`` alone shows it unchanged since they were stored, else None.

    Reads the skill's cache entry and ``lstat``s its files; reads no file of the skill unless its
    Markdown carries inline suppressions, which are applied afresh.
    """
    if job.cache is None or job.scan_key is None:
        return None
    rel_dir = _rel_dir(skill_dir, job.root)
    stored: StoredEntry | None = job.cache.read(rel_dir)
    if stored is None or not stored.known.files:
        return None
    fingerprint = _fingerprint(job, skill_dir, rel_dir, stored.known, read_changed=False)
    entry = None if fingerprint is None else stored.for_key(fingerprint.digest, job.fixes)
    if fingerprint is None or entry is None:
        return None
    return _replayed(job, skill_dir, rel_dir, fingerprint, entry)


_worker_job: list[tuple[_ScanJob, ScanMemo]] = []
"""In a worker process: the scan it serves and its scan-wide memo (set once by :func:`_start_worker`)."""


def _start_worker(job: _ScanJob) -> None:
    _worker_job[:] = [(job, ScanMemo())]


def _worker_batch(skill_dirs: list[Path]) -> list[_SkillScan]:
    job, memo = _worker_job[0]
    return [_process_skill(job, skill_dir, memo) for skill_dir in skill_dirs]


Looked = list[tuple[Path, "_SkillScan | None"]]
"""Each chosen skill directory, with its replayed scan when ``lstat`` showed it unchanged."""


def _look(job: _ScanJob, chosen: Iterable[Path]) -> Looked:
    """With a cache, replay here every skill ``lstat`` shows unchanged; the others are left for :func:`_process_all`."""
    if job.cache is None or job.scan_key is None:
        return [(skill_dir, None) for skill_dir in chosen]
    return [(skill_dir, _unchanged(job, skill_dir)) for skill_dir in chosen]


def _process_all(job: _ScanJob, jobs: int, looked: Looked) -> Generator[_SkillScan, None, None]:
    """Every looked-at skill, in discovery order: the replayed as they are, the others here or in up to ``jobs``
    workers, planned (and started) for the work there really is."""
    changed = _scan_found(job, (skill_dir for skill_dir, replayed in looked if replayed is None), jobs)
    with contextlib.closing(changed):
        for _, replayed in looked:
            yield next(changed) if replayed is None else replayed


def _scan_found(job: _ScanJob, skill_dirs: Iterable[Path], jobs: int) -> Generator[_SkillScan, None, None]:
    workers, pending = plan_workers(skill_dirs, jobs)
    if workers == 1:
        memo = ScanMemo()
        return (_process_skill(job, skill_dir, memo) for skill_dir in pending)
    return run_in_workers(_worker_batch, pending, workers, _start_worker, (job,))


def _no_skills(job: _ScanJob) -> InputError:
    exclude = job.config.exclude
    excluded = f" (excluding {', '.join(exclude)})" if exclude else ""
    return InputError(
        f"no skills found{excluded}: a skill is a directory holding SKILL.md, e.g. skills/<name>/SKILL.md",
        path=str(job.within or job.root),
    )


def _skill_report(
    scanned: _SkillScan, findings: Sequence[Finding], scores: ScoreMemo, min_score: int, judged: JudgeResult | None
) -> SkillReport:
    """The skill's report from its findings in report order (a ``ReportFindings`` stays rows: score and
    verdict read counts and the errors alone)."""
    score = scores.score(findings)
    verdict, reasons = skill_verdict(findings, score, min_score)
    kept = findings if isinstance(findings, ReportFindings) else tuple(findings)
    return SkillReport(scanned.rel_dir, scanned.name, scanned.skill_md, kept, score, verdict, reasons, judged)


def _arranged(
    scanned: _SkillScan, across: Sequence[Finding], ignore: Sequence[IgnoreEntry], final: bool
) -> Sequence[Finding]:
    """The skill's findings and its repository findings, aces.yml's ignores applied, in report order.

    With nothing left to apply (no ignores; final: no baseline or judge to come) the order is only
    promised (:class:`~aces_ci.scan._finding_rows.ReportFindings`): a replayed skill's rows are not
    built into findings unless a report reads them.
    """
    if final and not ignore:
        return ReportFindings((scanned.findings, across))
    return sorted(apply_ignore_list([*scanned.findings, *across], ignore), key=report_order)


def _judge_all(job: _ScanJob, scans: Sequence[_SkillScan], judge: ModelSettings) -> dict[str, JudgeResult]:
    """The LLM-judge rubric of every skill that loaded; the skills are read again (the rules may have run elsewhere)."""
    skills = []
    for scanned in scans:
        try:
            skills.append(load_skill(job.root / scanned.rel_dir, job.root))
        except Exception:
            continue  # the parser failed on it: already reported as ACES001, nothing to judge
    if not skills:
        return {}
    # Imported only when asked for: a plain scan never loads the model SDKs.
    from ._judge import run_judge

    return run_judge(skills, judge)


def _repository_store(
    cache: ResultCache | None,
    enabled: EnabledRules,
    config: ScanConfig,
    fixes: Mapping[str, str | None],
    environment: Mapping[str, object] | None,
) -> RepositoryStore | None:
    """Where the repository rules' findings are kept, when a cache is in use and their code can be keyed."""
    if cache is None:
        return None
    repo_rules = [pair for pair in enabled if is_repository_rule(pair[0])]
    rules_key = repository_digest(repo_rules, config, REPOSITORY_CHECKS, environment) if repo_rules else None
    return None if rules_key is None else RepositoryStore(cache, rules_key, fixes)


def scan_repo(
    root: Path,
    settings: ScanConfig | None = None,
    registry: RuleRegistry | None = None,
    *,
    judge: ModelSettings | None = None,
    jobs: int = 1,
    cache: ResultCache | None = None,
    within: Path | None = None,
    shard: Shard | None = None,
) -> ScanResult:
    """Scan every skill under ``root`` and gate the result.

    ``registry`` defaults to every built-in rule; the runner's own ``ACES`` rules are always
    added. ``judge`` names the model of the LLM-judge rubric, which then runs (reported beside the
    score, never in it); ``aces-ci scan`` decides whether it can run here (:func:`judge_unavailable`).
    ``jobs`` above 1 scans in up to that many worker processes (results are identical to a scan in
    this process); where workers must be spawned rather than forked (see :mod:`aces_ci.scan._pool`),
    a script calling this needs the usual ``if __name__ == "__main__":`` guard. With ``cache``, a
    skill whose files, rules and settings are unchanged since a previous scan is not scanned
    again; its stored findings are replayed, and suppressions, the baseline and the gate are
    applied to them afresh. ``within`` (a directory, or a SKILL.md, inside ``root``) scans only the
    skills there, reported with paths relative to ``root``: the repository whose aces.yml applies.
    With ``shard``, only that shard's skills are scanned (:mod:`aces_ci.scan._shard`); a shard with
    no skills is an empty, passing result.
    """
    if jobs < 1:
        raise ConfigError(f"jobs must be at least 1, got {jobs}", field="jobs")
    registry = _with_internal_rules(default_registry() if registry is None else registry)
    scan_config = settings if settings is not None else ScanConfig()
    check_rule_ids(scan_config, registry)
    root = _resolve_root(root)
    if within is not None:
        within = _resolve_root(within)
        if not within.is_relative_to(root):
            raise InputError(f"not inside the scanned repository {root}", path=str(within))
    baseline = _load_baseline(scan_config.baseline, root) if scan_config.baseline is not None else None
    enabled = _enabled_rules(registry, _severity_overrides(scan_config))
    # Repository rules run once below, over every skill; the per-skill work (and its cache key) leaves them out.
    per_skill = tuple(pair for pair in enabled if not is_repository_rule(pair[0]))
    environment = scan_environment() if cache is not None else None
    scan_key = scan_digest(per_skill, scan_config, environment) if cache is not None else None
    fixes = {rule.id: rule.fix for rule in registry}
    git = GitWitness(root) if scan_key is not None else None
    job = _ScanJob(root, registry, per_skill, scan_config, cache, scan_key, within, fixes, git)
    scans: list[_SkillScan] = []
    findings_by_skill: dict[str, Sequence[Finding]] = {}
    scores = ScoreMemo(registry)
    reports: dict[str, SkillReport] = {}
    # Without a baseline or a judge, a skill's report is final as soon as its findings arrive: it is
    # built while the workers still scan later skills.
    final_early = baseline is None and judge is None
    all_dirs = list(iter_skill_dirs(root, scan_config.exclude, within=within))
    chosen = shard.select(all_dirs) if shard is not None else all_dirs
    looked = _look(job, chosen)
    replayed = [scanned for _, scanned in looked if scanned is not None]
    # Over all skills, cached or not, in every shard; each shard reports the findings of its own skills.
    # A replayed skill's listing comes from its entry: an unchanged repository reads no SKILL.md here.
    across = repository_findings(
        root,
        [(d, _rel_dir(d, root)) for d in all_dirs],
        enabled,
        scan_config,
        registry,
        known={scanned.rel_dir: scanned.listed for scanned in replayed if scanned.listed is not None},
        no_directives=frozenset(scanned.rel_dir for scanned in replayed if scanned.no_directives),
        stored=_repository_store(cache, enabled, scan_config, fixes, environment),
    )
    with contextlib.closing(_process_all(job, jobs, looked)) as arriving:
        for scanned in arriving:
            scans.append(scanned)
            found = _arranged(scanned, across.get(scanned.rel_dir, ()), scan_config.ignore, final_early)
            if final_early:
                reports[scanned.rel_dir] = _skill_report(scanned, found, scores, scan_config.min_score, None)
            else:
                findings_by_skill[scanned.rel_dir] = found
    if not scans and not (shard is not None and all_dirs):
        raise _no_skills(job)
    stale = 0
    if not final_early:
        if baseline is not None:
            # In discovery order: with more findings of one fingerprint than entries, the first are accepted.
            findings_by_skill = {rel: apply_baseline(found, baseline) for rel, found in findings_by_skill.items()}
            stale = count_stale(baseline, (f for found in findings_by_skill.values() for f in found))
            if shard is not None:
                # Entries of other shards' skills are theirs to count, not stale here.
                rel_all = [_rel_dir(d, root) for d in all_dirs]
                paths = (e.path for e in baseline.entries)
                mine = entries_in_shard(paths, rel_all, findings_by_skill, shard.index == 1)
                stale -= len(baseline.entries) - mine
        judged = _judge_all(job, scans, judge) if judge is not None else {}
        for scanned in scans:
            found = findings_by_skill[scanned.rel_dir]
            judge_result = judged.get(scanned.rel_dir)
            reports[scanned.rel_dir] = _skill_report(scanned, found, scores, scan_config.min_score, judge_result)
    if cache is not None:
        cache.stats.record(scanned.cache_use for scanned in scans)
    ordered = sorted(reports.values(), key=lambda report: report.skill)
    return ScanResult(
        tool_version=__version__,
        root=root.as_posix(),
        profile=scan_config.profile,
        min_score=scan_config.min_score,
        skills=tuple(ordered),
        verdict=overall_verdict(ordered),
        rules=tuple(sorted(rule.id for rule, _ in enabled)),
        generated_at=datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z"),
        baseline=None if scan_config.baseline is None else str(scan_config.baseline),
        stale_baseline_entries=stale,
        shard=shard,
    )
