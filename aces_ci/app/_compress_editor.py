"""The edited candidate of ``compress``: asking the editor model, keeping its answers, refusing invalid ones.

The editor is asked at most ``attempts`` times. Each answer is parsed into a skill tree
(:func:`aces_ci.compress.parse_edit`) and checked as a reviewer would — no new static-scan
finding, the token target met, something changed — and an invalid one is refused with the
reason, which the next prompt carries. Every answer is kept on disk under the cache root by what
was asked (the editor, the protocol, the prompt), so a rerun asks nothing and a killed run asks
only what it had not; an answer in which the redactor finds a secret is never kept (it is asked
again). The dollars an answer cost are charged to the run's budget as they are paid.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..agents import ModelClients
from ..atomic import write_atomic
from ..compress import EDITOR_PROTOCOL, SYSTEM, InvalidEdit, UnitRow, editor_prompt, parse_edit
from ..models import Message, ModelRequest, ModelSpec, PriceTable
from ..redact import redact_text
from ..scan import ScanConfig
from ..skillsv import CompiledSkill, tree_tokens
from ._compress_score import Spend, new_findings, scan_findings

EDITOR_DIR = "compress-editor"
"""The editor's answers, one file per prompt, inside the cache root (beside the score store)."""


def unit_rows(game: CompiledSkill, report_units: Mapping[str, Any], decisions: Mapping[str, str]) -> list[UnitRow]:
    """What the editor is shown of each unit: where it is, its decision and its values (None where unmeasured)."""
    rows = []
    for player in game.players:
        unit = report_units.get(player.id)
        rows.append(
            UnitRow(
                unit=player.id,
                file=player.file,
                lines=player.lines,
                tokens=player.tokens,
                decision=decisions.get(player.id, "unvalued"),
                net_effect=unit.net_effect.value if unit is not None and unit.net_effect is not None else None,
                content_value=unit.content_value.value if unit is not None and unit.content_value is not None else None,
                context_cost=unit.context_cost.value if unit is not None and unit.context_cost is not None else None,
                preview=player.preview,
            )
        )
    return rows


@dataclass(frozen=True)
class Editor:
    """The editor model and how it is asked: at most ``attempts`` answers, a token target, its answers' cache."""

    spec: ModelSpec
    attempts: int
    keep_tokens: float | None
    prices: PriceTable | None
    seed: int
    cache: Path | None
    """The cache root (answers in its ``compress-editor/``); None with ``--no-cache``."""
    charge: Callable[[float], None]
    """Adds an answer's dollars to the run's budget."""

    def _path(self, prompt: str) -> Path | None:
        if self.cache is None:
            return None
        identity = json.dumps(
            [EDITOR_PROTOCOL, self.spec.cache_identity(), SYSTEM, prompt], sort_keys=True, default=str
        )
        return self.cache / EDITOR_DIR / f"{hashlib.sha256(identity.encode()).hexdigest()}.json"

    def answer(self, prompt: str, spend: Spend) -> str:
        """The editor's answer to ``prompt``: kept from an earlier run, or asked (and paid) now."""
        path = self._path(prompt)
        if path is not None and path.is_file():
            try:
                kept = json.loads(path.read_text(encoding="utf-8"))
                if isinstance(kept, dict) and isinstance(kept.get("text"), str):
                    return str(kept["text"])
            except (OSError, UnicodeDecodeError, json.JSONDecodeError):
                pass  # a torn or foreign file: ask again
        clients = ModelClients(prices=self.prices, seed=self.seed)

        async def ask() -> tuple[str, float]:
            try:
                request = ModelRequest(
                    system=SYSTEM,
                    messages=(Message("user", prompt),),
                    max_tokens=self.spec.max_tokens,
                    temperature=self.spec.temperature,
                    seed=self.seed,
                )
                response = await clients.get(self.spec).generate(request)
                return response.text, response.usage.cost_usd
            finally:
                await clients.aclose()

        text, cost = asyncio.run(ask())
        spend.editor_calls += 1
        spend.editor_cost_usd += cost
        self.charge(cost)
        if path is not None and redact_text(text) == text:  # an answer quoting a secret is never kept on disk
            write_atomic(path, json.dumps({"model": f"{self.spec.provider}/{self.spec.model}", "text": text}).encode())
        return text


@dataclass(frozen=True)
class Edit:
    """What asking the editor came to."""

    tree: dict[str, bytes] | None
    """The valid skill tree; None when no answer was valid (or the budget ran out first)."""
    attempts: int
    rejected: tuple[str, ...]
    """Why each refused answer was refused, in order."""
    findings: tuple[str, ...] = ()
    """The last refused answer's new scan findings."""


def edited(
    editor: Editor,
    *,
    game: CompiledSkill,
    original: Mapping[str, bytes],
    rows: Sequence[UnitRow],
    baseline: Sequence[str],
    spend: Spend,
    budget_left: Callable[[], bool],
    scan_settings: ScanConfig,
) -> Edit:
    """Ask until an answer is a valid, shorter skill, at most ``editor.attempts`` times."""
    rejected: list[str] = []
    findings: tuple[str, ...] = ()
    original_tokens = tree_tokens(original)
    for attempt in range(1, editor.attempts + 1):
        if not budget_left():
            spend.stopped_by = spend.stopped_by or "budget_usd"
            return Edit(None, attempt - 1, tuple(rejected), findings)
        prompt = editor_prompt(original, rows, keep_tokens=editor.keep_tokens, rejected=rejected)
        answer = editor.answer(prompt, spend)
        try:
            tree = parse_edit(answer, original)
            findings = new_findings(baseline, scan_findings(tree, game.name, scan_settings))
            if findings:
                raise InvalidEdit(f"its static scan has a new finding: {findings[0]}")
            share = tree_tokens(tree) / original_tokens if original_tokens else 1.0
            if editor.keep_tokens is not None and share > editor.keep_tokens:
                raise InvalidEdit(f"it keeps {share:.0%} of the tokens, above the target {editor.keep_tokens:.0%}")
            if tree == dict(original):
                raise InvalidEdit("it changes nothing")
            return Edit(tree, attempt, tuple(rejected))
        except InvalidEdit as exc:
            rejected.append(str(exc))
    return Edit(None, editor.attempts, tuple(rejected), findings)
