"""Repository-level rules: checks that need every skill at once (the host's listing, sibling collisions).

A per-skill rule sees one skill; its findings are cached per skill and can come from a worker
process. A repository rule's verdict on one skill depends on the others (a sibling's long
description pushes this one out of the listing), so it cannot be cached with the skill. The seam:

* A repository rule is an ordinary :class:`~aces_ci.scan.Rule` in the registry (so aces.yml can
  change its severity or turn it off, inline comments can suppress it, ``aces-ci rules`` documents
  it) whose ``check`` yields nothing per skill; its :data:`REPOSITORY_CHECKS` entry is what runs.
* The runner calls :func:`repository_findings` once per scan, in its own process, over **every**
  skill of the scan (with ``within``, the skills of that folder), whether the per-skill findings
  were computed or replayed from the result cache. It reads only each SKILL.md's frontmatter
  (what a host lists), and a replayed skill's listing comes from its cache entry. The rules read
  nothing else, so with a cache their findings over the same listings (same rules, settings and
  aces-ci code) are replayed from the previous scan: an unchanged repository runs none of them.
* Each finding belongs to one skill (a pair's finding to the first of the two, in directory order)
  and is reported with that skill's findings; with ``--shard i/n`` every shard computes the rules over
  all skills and keeps the findings of its own skills, so merged shards report each finding once.
"""

from __future__ import annotations

import hashlib
import inspect
import json
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar, cast

from ..redact import redact_text
from ..skill import LOWERCASE_SKILL_FILE, SKILL_FILE, is_within, load_skill, read_text, split_frontmatter
from ._config import ScanConfig
from ._context import ScanContext
from ._finding import Finding, Hit, Severity
from ._finding_rows import RuleFixes
from ._inputs import SkillInputs
from ._internal_rules import INTERNAL_ERROR, internal_error
from ._listing import ListedSkill
from ._registry import SEVERITY_POINTS, Rule, RuleRegistry
from ._result_cache import ResultCache
from ._suppress import apply_directives, read_directives


@dataclass(frozen=True)
class RepoContext:
    """What a repository rule receives: every skill of the scan as a host would list it, and the settings."""

    skills: tuple[ListedSkill, ...]
    """In discovery order (sorted by directory)."""
    config: ScanConfig
    _memo: dict[Hashable, object] = field(default_factory=dict, compare=False, repr=False)

    def cached(self, key: Hashable, compute: Callable[[], T]) -> T:
        """What several rules derive from the same skills (a host's listing), computed once per scan."""
        if key not in self._memo:
            self._memo[key] = compute()
        return cast(T, self._memo[key])


@dataclass(frozen=True)
class RepoHit:
    """A repository rule's hit, and the skill (its directory) it is reported under."""

    skill: str
    hit: Hit


T = TypeVar("T")
_MARKER = "aces-ci"
"""Every inline directive starts with it (:mod:`aces_ci.scan._suppress`)."""
RepoCheckFn = Callable[[RepoContext], Iterable[RepoHit]]
REPOSITORY_CHECKS: dict[str, RepoCheckFn] = {}
"""Rule id → the check that runs over all skills; filled by :func:`define_repository`."""


def runs_over_the_repository(ctx: ScanContext) -> Iterable[Hit]:
    """A repository rule has nothing to say about one skill alone: its check runs once over all skills."""
    return ()


def define_repository(
    rules: list[Rule], *, id: str, name: str, severity: Severity, summary: str, fix: str
) -> Callable[[RepoCheckFn], RepoCheckFn]:
    """Decorator: a repository rule, documented by the check's docstring like any other rule."""

    def wrap(fn: RepoCheckFn) -> RepoCheckFn:
        doc = inspect.cleandoc(fn.__doc__ or "")
        if not doc:
            raise ValueError(f"rule {id} has no docstring")
        family = "".join(ch for ch in id if ch.isalpha())
        weight = SEVERITY_POINTS[severity]
        rules.append(Rule(id, name, family, severity, summary, doc, fix, weight, runs_over_the_repository))
        REPOSITORY_CHECKS[id] = fn
        return fn

    return wrap


def is_repository_rule(rule: Rule) -> bool:
    return rule.check is runs_over_the_repository


def listed_skill(skill_dir: Path, root: Path, rel_dir: str) -> ListedSkill | None:
    """The name and description a host would list for the skill, from SKILL.md alone; None when unreadable."""
    md_name = SKILL_FILE if (skill_dir / SKILL_FILE).exists() else LOWERCASE_SKILL_FILE
    skill_md = md_name if rel_dir == "." else f"{rel_dir}/{md_name}"
    md_path = skill_dir / md_name
    if md_path.is_symlink() and not is_within(md_path, root):
        return None  # never read: its text would reach the findings (load_skill refuses it the same way)
    text_file = read_text(md_path, skill_md)
    if text_file.text is None:
        return None
    return listed_from_text(text_file.text, rel_dir, skill_md, skill_dir.name)


def listed_from_text(text: str, rel_dir: str, skill_md: str, fallback_name: str) -> ListedSkill:
    """The name and description a host would list from SKILL.md's ``text`` (also an earlier version's)."""
    front, _, _ = split_frontmatter(text)
    data = front.data or {}
    name, description, when = data.get("name"), data.get("description"), data.get("when_to_use")
    return ListedSkill(
        rel_dir=rel_dir,
        skill_md=skill_md,
        name=name.strip() if isinstance(name, str) and name.strip() else fallback_name,
        description=" ".join(description.split()) if isinstance(description, str) else "",
        description_line=front.line_of("description"),
        when_to_use=" ".join(when.split()) if isinstance(when, str) else "",
    )


def repository_findings(
    root: Path,
    skills: Sequence[tuple[Path, str]],
    rules: Sequence[tuple[Rule, Severity | None]],
    config: ScanConfig,
    registry: RuleRegistry,
    *,
    known: Mapping[str, ListedSkill] | None = None,
    no_directives: frozenset[str] = frozenset(),
    stored: RepositoryStore | None = None,
) -> dict[str, Sequence[Finding]]:
    """Run every enabled repository rule once over ``skills`` (directory, rel_dir); findings by skill directory.

    Inline suppressions of the skill a finding belongs to apply to it as to any finding; a rule that
    raises becomes an ACES001 finding on the first skill, like a per-skill rule that raises.
    ``known`` holds listings already at hand by rel_dir (a replayed skill's, from its cache entry:
    computed from the same bytes), which are not read again; ``no_directives`` names skills known to
    hold no inline directive (their replayed key says so), whose SKILL.md is not read for one.
    With ``stored``, the findings of a previous scan over the very same listings are replayed (the
    rules read nothing but the listings and the settings, which with the rules' code make the key).
    """
    repo_rules = [(rule, forced) for rule, forced in rules if is_repository_rule(rule)]
    if not repo_rules or not skills:
        return {}
    known = known or {}
    listed = tuple(
        found
        for skill_dir, rel in skills
        if (found := known.get(rel) or listed_skill(skill_dir, root, rel)) is not None
    )
    context = RepoContext(listed, config)
    md_of = {skill.rel_dir: skill.skill_md for skill in listed}
    first_rel = skills[0][1]
    first_md = md_of.get(first_rel, first_rel)
    key = stored.key_for(listed) if stored is not None else ""
    by_skill: Mapping[str, Sequence[Finding]] | None = None
    if stored is not None:
        by_skill = stored.cache.load_repository(key, stored.fixes)
    if by_skill is None:
        by_skill = _run_checks(context, repo_rules, first_rel, first_md)
        failed = any(f.rule_id == INTERNAL_ERROR.id for found in by_skill.values() for f in found)
        if stored is not None and not failed:
            stored.cache.store_repository(key, by_skill)
    dirs = {rel: skill_dir for skill_dir, rel in skills}
    return {
        rel: found if rel in no_directives else _inline_suppressed(dirs[rel], root, found, registry)
        for rel, found in by_skill.items()
    }


@dataclass(frozen=True)
class RepositoryStore:
    """Where the repository rules' findings are kept between scans, and the part of their key the rules make."""

    cache: ResultCache
    rules_key: str
    """:func:`~aces_ci.scan._fingerprint.repository_digest` of the enabled repository rules and the settings."""
    fixes: RuleFixes

    def key_for(self, listed: Sequence[ListedSkill]) -> str:
        """The key over the rules and every listing, in order: any skill's name, description or line changes it."""
        rows = [[s.rel_dir, s.skill_md, s.name, s.description, s.description_line, s.when_to_use] for s in listed]
        material = json.dumps([self.rules_key, rows], ensure_ascii=True).encode("ascii")
        return hashlib.sha256(material).hexdigest()


def _run_checks(
    context: RepoContext, repo_rules: Sequence[tuple[Rule, Severity | None]], first_rel: str, first_md: str
) -> dict[str, list[Finding]]:
    by_skill: dict[str, list[Finding]] = {}
    for rule, forced in repo_rules:
        try:
            for repo_hit in REPOSITORY_CHECKS[rule.id](context):
                hit = repo_hit.hit
                finding = Finding(
                    rule.id,
                    forced or hit.severity or rule.severity,
                    redact_text(hit.message),
                    hit.location,
                    repo_hit.skill,
                    evidence=hit.evidence,
                    clause=hit.clause,
                    fix=rule.fix,
                )
                by_skill.setdefault(repo_hit.skill, []).append(finding)
        except Exception as exc:
            failure = internal_error(f"rule {rule.id} ({rule.name})", exc, first_rel, first_md)
            by_skill.setdefault(first_rel, []).append(failure)
    return by_skill


def _inline_suppressed(
    skill_dir: Path, root: Path, findings: Sequence[Finding], registry: RuleRegistry
) -> Sequence[Finding]:
    """The skill's inline directives applied (their own problems are reported by the skill's per-skill pass).

    Repository findings are all in SKILL.md, so only a SKILL.md that mentions aces-ci can hold a
    directive for them; any other skill is not parsed again (a full parse is most of a cold scan).
    """
    paths = {finding.location.path for finding in findings}
    texts = [read_text(root / path, path).text or "" for path in paths]
    if not any(_MARKER in text for text in texts):
        return findings
    try:
        skill = load_skill(skill_dir, root)
        directives, _ = read_directives(skill, {f.location.path for f in findings}, registry, SkillInputs(skill))
    except Exception:
        return findings  # the parser failed on the skill: already an ACES001 of its own
    return apply_directives(findings, directives)
