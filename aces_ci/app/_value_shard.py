"""One shard of a valuation (``aces-ci value --shard I/N``): the scores the split gives it, and their identity.

The shard prepares exactly what :func:`~aces_ci.app.value` prepares (the compiled skill, the cases,
the plan fitted to the budget), draws the valuation's whole design from the seed
(:func:`~aces_ci.skillsv.shard_design`), and scores only its own share, through the same oracle
and stores as an unsharded run: the score store and, for the live agent, the engine's rollout cache
and journal under the shard's cache root. A shard killed and run again therefore pays only the
scores it had not finished.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from ..config import Project, ValueConfig
from ..errors import ConfigError
from ..skillsv import (
    EvaluationStore,
    LiveScorer,
    RenderingOracle,
    Sessions,
    ValuePart,
    part_identity,
    score_shard,
    shard_design,
    unshardable,
)
from ._value import ValuePlan, _prepared, _scorer
from ._value_live import STORE_DIR


def value_shard(
    skill_dir: Path,
    project: Project,
    config: ValueConfig,
    index: int,
    count: int,
    *,
    on_plan: Callable[[ValuePlan], None] | None = None,
) -> ValuePart:
    """Score shard ``index`` of ``count`` of the valuation ``config`` describes; ConfigError before anything is paid
    when the valuation cannot be split (:func:`~aces_ci.skillsv.unshardable`)."""
    tasks, planned, panel = _prepared(skill_dir, project, config, None)
    reason = unshardable(planned.settings)
    if reason is not None:
        raise ConfigError(f"cannot shard this valuation: {reason}", field="--shard")
    design = shard_design(planned.game, tasks, planned.settings, planned.plan, count)
    if on_plan is not None:
        on_plan(planned)
    root = config.cache_root
    store = EvaluationStore(root / STORE_DIR) if root is not None else None
    owned = design.owned(index)
    try:
        with _scorer(config, panel, skill_dir) as scorer:
            scored = score_shard(RenderingOracle(planned.game, scorer, store), owned)
            oracle = scorer.identity
            live = isinstance(scorer, LiveScorer)
            sessions = Sessions(scorer.earlier_sessions(), scorer.reused) if isinstance(scorer, LiveScorer) else None
    finally:
        if store is not None:
            store.close()
    run = config.run if live else None
    identity = part_identity(
        planned.game,
        tasks,
        planned.settings,
        planned.plan,
        design,
        oracle=oracle,
        model=None if run is None else f"{run.model.provider}/{run.model.model}",
        harness=None if run is None else run.harness.name,
        runs=config.runs_per_score,
    )
    return ValuePart(index, count, identity, len(owned), scored.records, scored.stopped_by, scored.error, sessions)
