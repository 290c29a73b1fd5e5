"""``ci --shard i/n`` on a paid path, and its merge job ``ci --trial-parts``: a release's trial over a workflow matrix.

On a push or pull request ``ci --shard`` shards the static scan (``aces-ci merge`` joins it). On an
event whose plan runs one paired trial — a release, a scheduled or dispatched rerun, ``mode:
trial`` without a base — the trial is where the time goes, so the shard job runs shard i's
(skill, case) units of that trial instead (:func:`aces_ci.app.trial_part`: the same partition,
identity and part file as ``trial --shard``), writes the part to ``--reports`` as
``trial-part-<i>-of-<n>.json`` (and the ``trial-part`` output), and stops: no gate, report,
comment, baseline or trigger trial, since one shard's cases are not the trial. Its skills are the
whole repository's (the scan that chooses them is not sharded here); each shard gets the run's
whole budget, as a ``trial --shard`` does.

The merge job runs ``aces-ci ci --trial-parts part-*.json`` with the shards' flags minus
``--shard``: it resolves its config as ``ci`` does, scans, and where the unsharded run would trial
it replays the trial over the parts (:func:`aces_ci.app.merge_trial`: every shard once, one
identity, else exit 2 naming the file). Everything after that is the unsharded run's code — the
gate, the reports, the comment, the release's baselines or the rerun's record, then the trigger
trial and a release's SkillSV valuation, run in the merge job alone on what the shards left of the
budget.

Refused, saying why: a labelled pull request with a base (its version contrast is a second trial
on what the first left of the budget, which parts of one trial cannot carry) and ``mode: value``
(SkillSV is sharded by ``aces-ci value``, not by ``ci``).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from ..atomic import write_atomic
from ..config import CiConfig, find_project, resolve_bands, resolve_scan
from ..errors import EXIT_PASS, ConfigError, InputError
from ..github import GitHubContext, Plan, say, write_step_outputs
from ..redact import redacted_json
from ..scan import Shard, default_registry
from ..trials import TrialPart, part_to_dict
from ._ci_paid import PaidRun
from ._ci_results import links_for, skill_dirs
from ._merge_trial import read_part
from ._scan import scan
from ._trial_part import shard_ending, trial_part

CI_INVOCATION = ("ci",)
"""What a ci shard records as its part's command line: the merge job resolves its own config, and
``aces-ci merge`` tells these parts from ``trial --shard``'s by it."""


def part_name(shard: Shard) -> str:
    return f"trial-part-{shard.index}-of-{shard.count}.json"


def check_shardable(plan: Plan, flag: str) -> None:
    """Refuse the paid paths a trial part cannot carry; ``flag`` is the one that asked (``--shard``,
    ``--trial-parts``)."""
    if not plan.paid:
        raise ConfigError(
            f"{flag} merges the trial of a sharded paid run, and this event's work is a scan ({plan.reason}); a "
            "sharded scan is merged by `aces-ci merge shard-*.json`",
            field=flag,
        )
    if plan.work == "value":
        raise ConfigError(
            "mode value is SkillSV alone, which `ci` does not shard: run it unsharded, or shard it with "
            "`aces-ci value --shard`",
            field=flag,
        )
    if plan.work == "trial" and plan.base is not None:
        raise ConfigError(
            "a labelled pull request's trials are not sharded: its version contrast against the base branch is a "
            "second trial on what the first left of the budget, which the parts of one trial cannot carry. Run the "
            "labelled pull request's `ci` unsharded",
            field=flag,
        )


def read_ci_parts(paths: Sequence[Path]) -> list[tuple[Path, TrialPart]]:
    """The parts ``ci --shard`` wrote; a ``trial --shard`` part is refused, naming the file."""
    parts = [(path, read_part(path)) for path in paths]
    for path, part in parts:
        if part.invocation[:1] != CI_INVOCATION:
            raise InputError(
                "a part of `aces-ci trial --shard`, not of `aces-ci ci --shard`: merge it with `aces-ci merge`",
                path=str(path),
            )
    return parts


def run_shard(context: GitHubContext, config: CiConfig, plan: Plan, shard: Shard) -> int:
    """Run shard ``shard`` of the trial ``plan`` calls for and write its part; the exit code (0, or 3 when
    rollouts of the shard were lost to infrastructure: rerun it, its cache makes it pay only those)."""
    check_shardable(plan, "--shard")
    project = find_project(config.path, config.config_file)
    bands = resolve_bands(project.config, config.gate)
    scanning = scan(resolve_scan(project.config, replace(config.scan, shard=None)), default_registry(), project)
    links, repo = links_for(context, scanning.root)
    paid = PaidRun(config, context, plan, project, repo or scanning.root.resolve(), links=links)
    changes = paid.changes(skill_dirs(scanning.result, links))
    paths, _ = paid.trialled(changes, bands)
    if not paths:
        say(f"shard {shard}: no skill to trial ({changes.reason}); no part written, and the merge job trials none")
        write_step_outputs(context, {"work": plan.work, "trial-part": ""})
        return EXIT_PASS
    part = trial_part(paths, project, paid.shard_config(bands), shard, CI_INVOCATION)
    out = config.reports.folder / part_name(shard)
    write_atomic(out, redacted_json(part_to_dict(part), ensure_ascii=False).encode("utf-8"))
    write_step_outputs(context, {"work": plan.work, "trial-part": str(out)})
    say(
        f"shard {part.shard} of the {plan.work}'s trial: {len(part.units)} (skill, case) unit(s), "
        f"{len(part.records)} rollout(s) ({part.spent.rollouts_run} run, {part.spent.rollouts_reused} reused); "
        f"part written to {out}. The merge job (`aces-ci ci --trial-parts …`) gates, reports and comments."
    )
    said, code = shard_ending(part)
    for line in said:
        print(f"aces-ci: {line}", file=sys.stderr)
    return code
