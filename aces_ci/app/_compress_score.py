"""Scoring and scanning ``compress``'s candidates: verification seeds, held-out scores through the store, scan findings.

A held-out score is stored under the same key as any SkillSV score (scorer identity, rendered bytes,
case content, seed), so the original's scores serve every candidate, a rerun finds all of them, and
a killed run loses only the batch in flight (whose rollouts the engine's journal holds). A candidate's
scan runs on its tree staged in a temporary folder under the skill's own name, so its findings
compare with the original's message for message (lines move, so they are left out).
"""

from __future__ import annotations

import hashlib
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import InfraError
from ..scan import ScanConfig, scan_repo
from ..skill import files_digest
from ..skillsv import EvaluationStore, ScoreRequest, SkillScorer, Task, store_key


@dataclass
class Spend:
    """What one compress run paid, and the budget cap that stopped it."""

    rollouts: int = 0
    cost_usd: float = 0.0
    editor_calls: int = 0
    editor_cost_usd: float = 0.0
    stopped_by: str | None = None


def verification_seeds(seed: int, runs: int) -> list[int]:
    """``runs`` distinct verification seeds, a pure function of the run's seed."""
    out = []
    for run in range(runs):
        digest = hashlib.sha256(f"aces-compress:{seed}:{run}".encode()).digest()
        out.append(int.from_bytes(digest[:4], "big") & 0x7FFFFFFF)
    return out


class Verifier:
    """Scores trees on the held-out cases, ``seeds`` per case, through the store; counts what it paid."""

    def __init__(
        self, scorer: SkillScorer, store: EvaluationStore | None, name: str, held: Sequence[Task], seeds: list[int]
    ) -> None:
        self.scorer, self.store, self.name, self.held, self.seeds = scorer, store, name, held, seeds

    def scores(self, files: Mapping[str, bytes], spend: Spend) -> list[list[float | None]]:
        digest = files_digest(files)
        table: list[list[float | None]] = [[None] * len(self.seeds) for _ in self.held]
        pending: list[tuple[int, int, ScoreRequest, str]] = []
        for i, task in enumerate(self.held):
            for r, seed in enumerate(self.seeds):
                key = store_key(self.scorer.identity, digest, task, seed)
                stored = self.store.get(key) if self.store is not None else None
                if stored is not None:
                    table[i][r] = stored
                    continue
                request = ScoreRequest(self.name, files, f"skillsv-{digest[:16]}", task, seed, digest)
                pending.append((i, r, request, key))
        if not pending or spend.stopped_by is not None:
            return table
        outcomes = self.scorer.score([request for _, _, request, _ in pending])
        fresh: list[tuple[str, float, Mapping[str, Any]]] = []
        for (i, r, request, key), outcome in zip(pending, outcomes, strict=True):
            spend.rollouts += outcome.rollouts
            spend.cost_usd += outcome.cost_usd
            if outcome.score is not None:
                table[i][r] = outcome.score
                fresh.append((key, outcome.score, {"compress": request.condition, "task": request.task.id}))
            elif outcome.budget_stop:
                spend.stopped_by = outcome.cap or "budget"
            elif outcome.fatal:
                raise InfraError(f"the oracle failed while verifying: {outcome.error}")
        if fresh and self.store is not None:
            self.store.put(fresh)
        return table


def scan_findings(files: Mapping[str, bytes], name: str, settings: ScanConfig) -> list[str]:
    """The active static-scan findings of a staged tree, as ``RULE: message`` (no line: lines move)."""
    with tempfile.TemporaryDirectory(prefix="aces-compress-") as folder:
        root = Path(folder)
        for path, data in files.items():
            target = root / name / path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
        result = scan_repo(root, settings)
    return [f"{f.rule_id}: {f.message}" for report in result.skills for f in report.active_findings]


def new_findings(before: Sequence[str], after: Sequence[str]) -> tuple[str, ...]:
    left = list(before)
    new = []
    for finding in after:
        if finding in left:
            left.remove(finding)
        else:
            new.append(finding)
    return tuple(new)
