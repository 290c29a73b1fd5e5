"""``mode: compress`` inside ``aces-ci ci``: a shorter version of each changed skill, proposed in the comment.

Each skill with an eval dataset (the pull request's changed skills, else every skill under the
path) is compressed exactly as ``aces-ci compress SKILL_DIR`` compresses it (:func:`aces_ci.app.compress`
with the verb's defaults, ``ci``'s run flags and aces.yml's ``compress.tolerance``): valued on an
attribution split, pruned, verified against the original on the held-out split. Every skill's
run gets what the ones before it left of the run's budget (``--budget-usd``, ``--max-rollouts``,
aces.yml ``run:``); a skill reached when nothing is left is not compressed, and the run says so.

**Nothing is written to the repository.** The proposal goes to the sticky comment (tokens kept,
Δ with its interval, the verdict, the units removed with file:line links, the patch folded and
bounded) and to ``<reports>/compress/``: one JSON (``schemas/compress.schema.json``), one Markdown
section and, when a candidate was accepted, one ``.patch`` per skill, which a maintainer applies by
hand. No commit, no push.

**Exit codes.** A proposal informs; it never gates. A skill whose candidates were rejected, were
underpowered or found nothing to cut still passes (the gate blocks on a measured harm, not on a
missing compression); a skill without cases, or whose dataset has a problem, is a warning; an
oracle or editor API that failed is an ``error`` criterion (verdict ``error``, exit 3), as in
``mode: value``: scores are cached, so rerunning the job pays only for what was lost.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from ..atomic import write_output
from ..compress import CompressResult, compress_json
from ..config import CiConfig, Project, ValueFlags, resolve_run
from ..errors import InfraError, InputError
from ..gate import GateCriterion
from ..github import ChangeSet, Plan, change_set, say
from ..redact import environment_secrets, redact_text
from ..report import SourceLinks, render_compress_comment, render_compress_markdown
from ._ci_outcome import PaidOutcome, with_dataset
from ._compress import CompressFlags, compress, compress_request

COMPRESS_REPORTS = "compress"
"""The folder of per-skill compress reports inside ``--reports``."""


@dataclass(frozen=True)
class CompressBudget:
    """What the compressions may still spend: None is "no cap"."""

    usd: float | None
    rollouts: int | None

    @property
    def spent(self) -> bool:
        return (self.usd is not None and self.usd <= 0) or (self.rollouts is not None and self.rollouts <= 0)

    def after(self, result: CompressResult) -> CompressBudget:
        """What is left once ``result``'s valuation, editor answers and verification are paid for."""
        cost = result.cost
        return CompressBudget(
            None if self.usd is None else max(self.usd - cost.cost_usd - cost.editor_cost_usd, 0.0),
            None if self.rollouts is None else max(self.rollouts - cost.rollouts, 0),
        )


@dataclass(frozen=True)
class CompressOutcome:
    """What ``mode: compress`` did: the paid outcome the gate, reports and outputs read, and the comment's sections."""

    paid: PaidOutcome
    sections: tuple[str, ...] = ()
    """One Markdown section per compressed skill (:func:`aces_ci.report.render_compress_comment`)."""


def _criterion(skill: str, status: str, message: str, kind: str) -> GateCriterion:
    skill_md = f"{skill}/SKILL.md" if skill not in ("", ".") else "SKILL.md"
    return GateCriterion("compress", skill, status, message, (), skill_md, 1, kind)  # type: ignore[arg-type]


def _file_stem(skill: str) -> str:
    return skill.replace("/", "-") if skill not in ("", ".") else "skill"


class CompressRun:
    """Compresses skills one after another within one :class:`CompressBudget`, writing only to the reports folder."""

    def __init__(self, config: CiConfig, plan: Plan, project: Project, top: Path, links: SourceLinks) -> None:
        self.config, self.plan, self.project, self.top, self.links = config, plan, project, top, links
        self.folder = config.reports.folder / COMPRESS_REPORTS

    def _changes(self, skill_dirs: Sequence[str]) -> ChangeSet:
        if self.plan.base is not None:
            return change_set(self.top, self.plan.base, self.plan.head, skill_dirs)
        changes = change_set(None, None, None, skill_dirs)
        return dataclasses.replace(changes, reason="every skill is compressed")

    def _flags(self, budget: CompressBudget) -> CompressFlags:
        """``aces-ci compress``'s defaults with ci's run flags, its rollout cache and what is left of the budget."""
        cache = resolve_run(self.project.config, self.config.run).cache_dir
        run = dataclasses.replace(
            self.config.run,
            cache_dir=cache.resolve() if cache else None,
            journal=None,
            budget_usd=budget.usd,
            max_rollouts=budget.rollouts,
        )
        return CompressFlags(value=ValueFlags(run=run))

    def _skill_links(self, skill: str) -> SourceLinks:
        """Links whose prefix is the skill's folder: a compress result names its files from the skill."""
        return self.links.under(skill)

    def _write(self, skill: str, result: CompressResult) -> tuple[str, str, Path]:
        """The skill's JSON, Markdown and (with a proposal) patch in the reports folder; its comment section, the
        patch's file name and the JSON's path."""
        secrets = environment_secrets()
        stem = _file_stem(skill)
        links = self._skill_links(skill)
        text = json.dumps(compress_json(result), indent=2) + "\n"
        report = self.folder / f"{stem}.json"
        write_output(report, redact_text(text, secrets).encode(), "compress report")
        patch = f"{COMPRESS_REPORTS}/{stem}.patch"
        adopt = f"`{stem}.patch` beside this file"
        markdown = redact_text(render_compress_markdown(result, links, adopt), secrets)
        write_output(self.folder / f"{stem}.md", markdown.encode(), "compress Markdown")
        if result.proposal is not None:
            write_output(self.folder / f"{stem}.patch", result.proposal.diff.encode(), "compress patch")
        return redact_text(render_compress_comment(result, links, patch), secrets), patch, report

    def run(self, skill_dirs: Sequence[str]) -> CompressOutcome:
        """Compress the changed skills (``skill_dirs``: every scanned skill, repository-relative)."""
        changes = self._changes(skill_dirs)
        trialable = with_dataset(changes.skills, self.top, self.project)
        criteria = [
            *trialable.missing(lambda skill, found: _criterion(skill, "warn", f"{found}: not compressed", "NoDataset")),
            *(
                _criterion(skill, "warn", f"could not be compressed: {error}", "NoCompression")
                for skill, error in trialable.broken
            ),
        ]
        notes: list[str] = []
        sections: list[str] = []
        written: dict[Path, str] = {}
        options = resolve_run(self.project.config, self.config.run)
        budget = CompressBudget(options.budget.max_usd, options.budget.max_rollouts)
        paths = list(trialable.paths)
        if not paths:
            notes.append(f"No skill to compress ({changes.reason}; {len(criteria)} skill(s) without an eval dataset).")
        for index, path in enumerate(paths):
            skill = path.resolve().relative_to(self.top.resolve()).as_posix() or "."
            if budget.spent:
                missed = [p.resolve().relative_to(self.top.resolve()).as_posix() or "." for p in paths[index:]]
                message = "not compressed: the compressions before it spent the run's budget (raise --budget-usd)"
                criteria += [_criterion(name, "skipped", message, "BudgetSpent") for name in missed]
                notes.append(f"Compression did not run for {', '.join(missed)}: the run's budget was spent.")
                break
            try:
                skill_dir, project, config = compress_request(path, self._flags(budget), self.config.config_file)
                result = compress(skill_dir, project, config)
            except InputError as error:
                criteria.append(_criterion(skill, "warn", f"could not be compressed: {error}", "NoCompression"))
                continue
            except InfraError as error:
                message = (
                    f"infrastructure error: compression stopped ({redact_text(str(error), environment_secrets())}). "
                    "To retry, rerun the job: scored coalitions and completed rollouts are cached and not paid again"
                )
                criteria.append(_criterion(skill, "error", message, "InfrastructureError"))
                continue
            budget = budget.after(result)
            section, patch, report = self._write(skill, result)
            sections.append(section)
            written[report] = skill
            proposal = result.proposal
            say(
                f"compress {skill}: "
                + (f"{proposal.kind} proposed, patch in {patch}" if proposal is not None else "nothing accepted")
            )
        reports = {"compress": self.folder if written else None}
        paid = PaidOutcome(changes, tuple(criteria), None, notes=tuple(notes), reports=reports, skill_reports=written)
        return CompressOutcome(paid, tuple(sections))
