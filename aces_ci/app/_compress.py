"""``aces-ci compress`` as the application runs it: value, build candidates, verify them on held-out cases.

One scorer serves the whole loop — the live agent through one rollout engine (one cache, one
journal, one ``--budget-usd``) or a Python oracle — and one score store under the cache root:

1. the cases are split, seeded, into an **attribution** split and a disjoint **held-out** split;
2. the skill is valued on the attribution split (SkillSV, as ``aces-ci value`` values it), or its
   decisions are read from ``--values``;
3. the **pruned** candidate cuts the ``delete``/``negligible`` units and what requires them; the
   **edited** candidate is an editor model's rewrite from the value report, parsed back into a
   skill, refused with the reason and asked again (at most ``editor_attempts`` answers) when it is
   not a valid skill, breaks a reference (a new static-scan finding) or misses ``--keep-tokens``;
4. each candidate and the original are scored on the held-out cases with the same seeds, ``runs``
   seeds per case, and judged (:func:`aces_ci.compress.judge`).

Every score is stored as it arrives and every editor answer is kept under the cache root, so an
unchanged rerun calls no model and a killed run resumes paying only for what it had not finished
(the engine's journal holds the rollouts of a batch cut short). The editor's dollars are charged to
the engine's budget, so ``--budget-usd`` covers the loop; a budget stop leaves later candidates
``unverified`` and says so.
"""

from __future__ import annotations

import asyncio
import dataclasses
import hashlib
import json
import shutil
import tempfile
from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..agents import ModelClients
from ..atomic import write_atomic
from ..compress import (
    EDITOR_PROTOCOL,
    SYSTEM,
    Candidate,
    CandidateKind,
    CompressCost,
    CompressResult,
    InvalidEdit,
    Judgement,
    UnitRow,
    Verdict,
    contrast,
    editor_prompt,
    judge,
    parse_edit,
    prune,
    tree_diff,
    unit_changes,
)
from ..config import Project, ValueConfig, ValueFlags, find_project, resolve_value
from ..errors import ConfigError, InfraError, InputError
from ..evals import find_datasets
from ..models import LOCAL_MODEL_ID, PROVIDERS, Message, ModelRequest, ModelSpec, Provider
from ..scan import ScanConfig, scan_repo
from ..skill import files_digest
from ..skillsv import (
    CompiledSkill,
    EvaluationStore,
    LiveScorer,
    PythonScorer,
    RenderingOracle,
    ScoreRequest,
    ScoreSettings,
    SkillScorer,
    Task,
    ValueSettings,
    compile_skill,
    decision_line,
    decision_summary,
    load_tasks,
    plan_valuation,
    render,
    split_panels,
    store_key,
    tree_tokens,
    valuate,
)
from ._inputs import relative
from ._value_live import STORE_DIR, LivePanel, live_panel, live_session

EDITOR_DIR = "compress-editor"
"""The editor's answers, one file per prompt, inside the cache root (beside the score store)."""


@dataclass(frozen=True)
class CompressConfig:
    """Everything ``compress`` runs with: the valuation's config and what the verification adds."""

    value: ValueConfig
    """The valuation and its scorer (live runs are one rollout per coalition score: runs go to verification)."""
    runs: int
    """Seeds per held-out case and version, for every oracle."""
    held_out: float
    """The share of the cases held out for verification."""
    tolerance: float
    keep_tokens: float | None = None
    editor: ModelSpec | None = None
    editor_attempts: int = 3
    values_file: Path | None = None


@dataclass(frozen=True)
class EditorFlags:
    """The editor model a caller named (``--editor-provider``, ``--editor-model``, …); no provider: no editor."""

    provider: str | None = None
    model: str | None = None
    base_url: str | None = None
    max_tokens: int = 4096
    """The editor answers with whole files: room for a SKILL.md."""


@dataclass(frozen=True)
class CompressFlags:
    """What a caller gave ``aces-ci compress`` beyond the valuation's flags."""

    value: ValueFlags
    held_out: float = 0.5
    tolerance: float | None = None
    """None: aces.yml ``compress.tolerance``, else −0.05."""
    keep_tokens: float | None = None
    editor: EditorFlags = EditorFlags()
    editor_attempts: int = 3
    values_file: Path | None = None


def _editor_spec(flags: EditorFlags) -> ModelSpec | None:
    if flags.provider is None:
        if flags.model or flags.base_url:
            raise ConfigError("an editor needs its provider: pass --editor-provider", field="--editor-provider")
        return None
    if flags.provider not in PROVIDERS:
        raise ConfigError(f"unknown editor provider {flags.provider!r}", field="--editor-provider")
    model = flags.model or (LOCAL_MODEL_ID if flags.provider == "local" else None)
    if not model:
        raise ConfigError(
            f"editor provider {flags.provider} needs a model id: pass --editor-model", field="--editor-model"
        )
    provider: Provider = (
        "local" if flags.provider == "local" else "anthropic" if flags.provider == "anthropic" else "openai"
    )
    return ModelSpec(provider=provider, model=model, base_url=flags.base_url, max_tokens=flags.max_tokens)


def compress_request(
    skill: Path, flags: CompressFlags, config_file: Path | None = None
) -> tuple[Path, Project, CompressConfig]:
    """The skill (resolved), its project and the config ``compress`` runs with; ConfigError before anything runs.

    The valuation scores each coalition with one rollout per case (its chains resample the cases); ``--runs``
    is the number of seeds each held-out case gets in verification, for the live agent and a Python oracle alike.
    """
    skill_dir = skill.resolve()
    project = find_project(skill_dir, config_file)
    run_flags = flags.value.run
    runs_given = run_flags.runs
    value_flags = dataclasses.replace(flags.value, run=dataclasses.replace(run_flags, runs=1), holdout=0.0)
    config = resolve_value(project.config, value_flags, skill_dir)
    runs = runs_given if isinstance(runs_given, int) else project.config.run.runs or 1
    if not 0 < flags.held_out < 1:
        raise ConfigError(
            f"--held-out is a share of the cases between 0 and 1, got {flags.held_out}", field="--held-out"
        )
    if flags.keep_tokens is not None and not 0 < flags.keep_tokens <= 1:
        raise ConfigError(
            f"--keep-tokens is a share of the tokens in (0, 1], got {flags.keep_tokens}", field="--keep-tokens"
        )
    tolerance = flags.tolerance if flags.tolerance is not None else project.config.compress.tolerance
    if not -1 <= tolerance <= 0:
        raise ConfigError(f"--tolerance is a loss in [-1, 0], got {tolerance}", field="--tolerance")
    return (
        skill_dir,
        project,
        CompressConfig(
            value=config,
            runs=runs,
            held_out=flags.held_out,
            tolerance=tolerance,
            keep_tokens=flags.keep_tokens,
            editor=_editor_spec(flags.editor),
            editor_attempts=flags.editor_attempts,
            values_file=flags.values_file,
        ),
    )


@dataclass
class _Spend:
    rollouts: int = 0
    cost_usd: float = 0.0
    editor_calls: int = 0
    editor_cost_usd: float = 0.0
    stopped_by: str | None = None


def _seeds(seed: int, runs: int) -> list[int]:
    """``runs`` distinct verification seeds, a pure function of the run's seed."""
    out = []
    for run in range(runs):
        digest = hashlib.sha256(f"aces-compress:{seed}:{run}".encode()).digest()
        out.append(int.from_bytes(digest[:4], "big") & 0x7FFFFFFF)
    return out


def _tasks(skill_dir: Path, project: Project, config: ValueConfig) -> tuple[list[Task], LivePanel | None]:
    if config.oracle == "live":
        panel = live_panel(skill_dir, project, config.evals, config.metric, config.judge)
        return list(panel.tasks), panel
    evals = config.evals
    if evals is None:
        found = find_datasets(skill_dir)
        if not found:
            raise InputError("no --evals given and the skill has no evals/evals.json", path=str(skill_dir))
        evals = found[0]
    return load_tasks(evals), None


def _scorer(config: ValueConfig, panel: LivePanel | None, skill_dir: Path) -> AbstractContextManager[SkillScorer]:
    if panel is None or config.run is None:
        return nullcontext(PythonScorer(config.oracle_spec))
    return live_session(config.run, skill_dir, config.cache_root, panel)


def _values_from_file(path: Path, game: CompiledSkill) -> dict[str, str]:
    """Per unit, the decision a value JSON holds; InputError when it is not this version of the skill."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise InputError(f"cannot read the value report: {exc}", path=str(path), field="--values") from None
    units = data.get("units") if isinstance(data, dict) else None
    if not isinstance(units, list) or data.get("skill") != game.name:
        raise InputError(f"not a value report of skill {game.name!r}", path=str(path), field="--values")
    decisions: dict[str, str] = {}
    for unit in units:
        if not isinstance(unit, dict) or not isinstance(unit.get("id"), str):
            raise InputError("a unit without an id", path=str(path), field="--values")
        if unit["id"] not in game.player_ids:
            raise InputError(
                f"unit {unit['id']!r} is not a unit of the skill as it is now: value it again",
                path=str(path),
                field="--values",
            )
        player = game.player(unit["id"])
        if unit.get("file") != player.file or list(unit.get("lines") or []) != list(player.lines):
            raise InputError(
                f"unit {unit['id']} sits at {player.file}:{player.lines[0]} now, not where the report says: "
                "value it again",
                path=str(path),
                field="--values",
            )
        if isinstance(unit.get("decision"), str):
            decisions[unit["id"]] = unit["decision"]
    return decisions


class _Verifier:
    """Scores trees on the held-out cases, ``seeds`` per case, through the store; counts what it paid."""

    def __init__(
        self, scorer: SkillScorer, store: EvaluationStore | None, name: str, held: Sequence[Task], seeds: list[int]
    ) -> None:
        self.scorer, self.store, self.name, self.held, self.seeds = scorer, store, name, held, seeds

    def scores(self, files: Mapping[str, bytes], spend: _Spend) -> list[list[float | None]]:
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


def _findings(files: Mapping[str, bytes], name: str, settings: ScanConfig) -> list[str]:
    """The active static-scan findings of a staged tree, as ``RULE: message`` (no line: lines move)."""
    with tempfile.TemporaryDirectory(prefix="aces-compress-") as folder:
        root = Path(folder)
        for path, data in files.items():
            target = root / name / path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
        result = scan_repo(root, settings)
    return [f"{f.rule_id}: {f.message}" for report in result.skills for f in report.active_findings]


def _new_findings(before: Sequence[str], after: Sequence[str]) -> tuple[str, ...]:
    left = list(before)
    new = []
    for finding in after:
        if finding in left:
            left.remove(finding)
        else:
            new.append(finding)
    return tuple(new)


def _rows(game: CompiledSkill, report_units: Mapping[str, Any], decisions: Mapping[str, str]) -> list[UnitRow]:
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


class _Editor:
    """Asks the editor model for a rewrite; every answer is kept on disk by what was asked."""

    def __init__(self, spec: ModelSpec, config: CompressConfig, cache: Path | None, charge: Callable[[float], None]):
        self.spec, self.config, self.cache, self.charge = spec, config, cache, charge

    def _path(self, prompt: str) -> Path | None:
        if self.cache is None:
            return None
        identity = json.dumps(
            [EDITOR_PROTOCOL, self.spec.cache_identity(), SYSTEM, prompt], sort_keys=True, default=str
        )
        return self.cache / EDITOR_DIR / f"{hashlib.sha256(identity.encode()).hexdigest()}.json"

    def answer(self, prompt: str, spend: _Spend) -> str:
        path = self._path(prompt)
        if path is not None and path.is_file():
            try:
                kept = json.loads(path.read_text(encoding="utf-8"))
                if isinstance(kept, dict) and isinstance(kept.get("text"), str):
                    return str(kept["text"])
            except (OSError, UnicodeDecodeError, json.JSONDecodeError):
                pass  # a torn or foreign file: ask again
        run = self.config.value.run
        clients = ModelClients(prices=run.prices if run is not None else None, seed=self.config.value.estimator.seed)

        async def ask() -> tuple[str, float]:
            try:
                client = clients.get(self.spec)
                request = ModelRequest(
                    system=SYSTEM,
                    messages=(Message("user", prompt),),
                    max_tokens=self.spec.max_tokens,
                    temperature=self.spec.temperature,
                    seed=self.config.value.estimator.seed,
                )
                response = await client.generate(request)
                return response.text, response.usage.cost_usd
            finally:
                await clients.aclose()

        text, cost = asyncio.run(ask())
        spend.editor_calls += 1
        spend.editor_cost_usd += cost
        self.charge(cost)
        if path is not None:
            write_atomic(path, json.dumps({"model": f"{self.spec.provider}/{self.spec.model}", "text": text}).encode())
        return text


def _edited(
    editor: _Editor,
    *,
    game: CompiledSkill,
    original: Mapping[str, bytes],
    rows: Sequence[UnitRow],
    baseline: Sequence[str],
    spend: _Spend,
    budget_left: Callable[[], bool],
    scan_settings: ScanConfig,
) -> tuple[dict[str, bytes] | None, int, tuple[str, ...], tuple[str, ...]]:
    """(a valid tree or None, answers asked, why each invalid one was refused, the last one's new findings)."""
    config = editor.config
    rejected: list[str] = []
    findings: tuple[str, ...] = ()
    original_tokens = tree_tokens(original)
    for attempt in range(1, config.editor_attempts + 1):
        if not budget_left():
            spend.stopped_by = spend.stopped_by or "budget_usd"
            return None, attempt - 1, tuple(rejected), findings
        prompt = editor_prompt(original, rows, keep_tokens=config.keep_tokens, rejected=rejected)
        answer = editor.answer(prompt, spend)
        try:
            tree = parse_edit(answer, original)
            findings = _new_findings(baseline, _findings(tree, game.name, scan_settings))
            if findings:
                raise InvalidEdit(f"its static scan has a new finding: {findings[0]}")
            share = tree_tokens(tree) / original_tokens if original_tokens else 1.0
            if config.keep_tokens is not None and share > config.keep_tokens:
                raise InvalidEdit(f"it keeps {share:.0%} of the tokens, above the target {config.keep_tokens:.0%}")
            if tree == dict(original):
                raise InvalidEdit("it changes nothing")
            return tree, attempt, tuple(rejected), ()
        except InvalidEdit as exc:
            rejected.append(str(exc))
    return None, config.editor_attempts, tuple(rejected), findings


def compress(skill_dir: Path, project: Project, config: CompressConfig) -> CompressResult:
    """Run the whole loop for the skill in ``skill_dir`` (resolved); InputError/ConfigError before anything is paid."""
    scan_settings = project.config.scan
    game = compile_skill(skill_dir)
    original = render(game, game.player_ids, "del")
    tasks, panel = _tasks(skill_dir, project, config.value)
    seed = config.value.estimator.seed
    attribution, held = split_panels(tasks, config.held_out, seed)
    if not held or (config.values_file is None and not attribution):
        raise InputError(
            f"{len(tasks)} case(s) cannot be split into attribution and held-out cases: compress needs at least 2",
            path=str(skill_dir),
        )
    decisions_from_file = _values_from_file(config.values_file, game) if config.values_file is not None else None
    value = config.value
    settings = ValueSettings(
        estimator=value.estimator,
        score=panel.score if panel is not None else ScoreSettings(),
        rules=value.rules,
        values_from=value.values_from,
        adaptive=value.adaptive,
    )
    plan = plan_valuation(game, attribution, settings) if decisions_from_file is None else None
    root = value.cache_root
    store = EvaluationStore(root / STORE_DIR) if root is not None else None
    spend = _Spend()
    notes: list[str] = []
    try:
        with _scorer(value, panel, skill_dir) as scorer:
            meter = scorer.engine.meter if isinstance(scorer, LiveScorer) else None
            report_units: dict[str, Any] = {}
            if decisions_from_file is None:
                report = valuate(game, attribution, RenderingOracle(game, scorer, store), settings, plan)
                valuation = report.valuation
                spend.rollouts += report.paid_now
                spend.cost_usd += valuation.cost.cost_usd
                if valuation.stopped_by == "oracle_error":
                    raise InfraError(f"the oracle failed during the valuation: {valuation.error}")
                if not valuation.measured:
                    if valuation.stopped_by is None:
                        raise InfraError("the valuation measured nothing: no chain completed")
                    spend.stopped_by = valuation.stopped_by
                elif valuation.stopped_by is not None:
                    spend.stopped_by = valuation.stopped_by
                decisions: dict[str, str] = {unit.unit: unit.decision for unit in valuation.units}
                report_units = {unit.unit: unit for unit in valuation.units}
                line = decision_line(decision_summary(game, valuation), valuation.margin)
            else:
                decisions = decisions_from_file
                line = f"decisions read from {config.values_file}"
                notes.append(
                    "decisions read from --values: the held-out cases are disjoint from the attribution split "
                    "only if that valuation was run on it"
                )
            baseline = _findings(original, game.name, scan_settings)
            verifier = _Verifier(scorer, store, game.name, held, _seeds(seed, config.runs))
            built: list[tuple[CandidateKind, dict[str, bytes] | None, dict[str, Any]]] = []
            pruning = prune(game, decisions)
            if pruning.removed:
                because = {r.unit: r.because_of for r in pruning.removed if r.because_of is not None}
                built.append(("pruned", dict(pruning.files), {"because": because}))
            else:
                notes.append(
                    "the valuation allows no cut: no unit is delete or negligible, so there is no pruned candidate"
                )
            if config.editor is not None:
                charge = meter.spend if meter is not None else (lambda _usd: None)
                left = (lambda: meter.exhausted() is None) if meter is not None else (lambda: True)
                editor = _Editor(config.editor, config, root, charge)
                rows = _rows(game, report_units, decisions)
                tree, attempts, rejected, findings = _edited(
                    editor,
                    game=game,
                    original=original,
                    rows=rows,
                    baseline=baseline,
                    spend=spend,
                    budget_left=left,
                    scan_settings=scan_settings,
                )
                built.append(("edited", tree, {"attempts": attempts, "rejected": rejected, "findings": findings}))
            candidates: list[Candidate] = []
            base_scores: list[list[float | None]] | None = None
            prefix = relative(skill_dir, project.root)
            for kind, tree, extra in built:
                if tree is None:
                    reason = (
                        f"no valid answer in {extra['attempts']} attempt(s): {extra['rejected'][-1]}"
                        if extra["rejected"]
                        else "the budget ran out before the editor answered"
                    )
                    verdict: Verdict = "rejected" if extra["rejected"] else "unverified"
                    candidates.append(
                        Candidate(
                            kind,
                            {},
                            0,
                            (),
                            None,
                            Judgement(verdict, reason),
                            tuple(extra["findings"]),
                            extra["attempts"],
                            tuple(extra["rejected"]),
                        )
                    )
                    continue
                new = _new_findings(baseline, _findings(tree, game.name, scan_settings))
                found = None
                if not new:
                    if base_scores is None:
                        base_scores = verifier.scores(original, spend)
                    found = contrast([t.id for t in held], base_scores, verifier.scores(tree, spend))
                judgement = judge(found, config.tolerance, new)
                candidates.append(
                    Candidate(
                        kind,
                        tree,
                        tree_tokens(tree),
                        unit_changes(game, tree, decisions, extra.get("because")),
                        found,
                        judgement,
                        new,
                        extra.get("attempts", 0),
                        tuple(extra.get("rejected", ())),
                        tree_diff(original, tree, prefix),
                    )
                )
    finally:
        if store is not None:
            store.close()
    accepted = [c for c in candidates if c.judgement.verdict == "accepted"]
    chosen = min(accepted, key=lambda c: c.tokens).kind if accepted else None
    identity = scorer.identity
    return CompressResult(
        skill=game.name,
        skill_dir=prefix,
        original_tokens=tree_tokens(original),
        oracle=identity,
        seed=seed,
        runs=config.runs,
        tolerance=config.tolerance,
        attribution=tuple(t.id for t in attribution) if decisions_from_file is None else (),
        held_out=tuple(t.id for t in held),
        values_from="valued" if decisions_from_file is None else "file",
        decisions=decisions,
        decision_line=line,
        candidates=tuple(candidates),
        accepted=chosen,
        editor=f"{config.editor.provider}/{config.editor.model}" if config.editor is not None else None,
        cost=CompressCost(spend.rollouts, spend.cost_usd, spend.editor_calls, spend.editor_cost_usd),
        stopped_by=spend.stopped_by,
        notes=tuple(notes),
    )


def write_proposal(result: CompressResult, skill_dir: Path, out: Path) -> Path | None:
    """The accepted candidate as a whole skill folder at ``out`` (the original's other files, such as evals/, kept).

    Only the original's paths are written or removed; ``out`` must not exist or be empty, and lie outside
    the skill. None when nothing was accepted (nothing is written).
    """
    proposal = result.proposal
    if proposal is None:
        return None
    out = out.resolve()
    if out == skill_dir or skill_dir in out.parents:
        raise InputError("--out cannot lie inside the skill it compresses", path=str(out), field="--out")
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise InputError("--out must be a new or empty folder", path=str(out), field="--out")
    out.parent.mkdir(parents=True, exist_ok=True)
    if out.exists():
        out.rmdir()
    shutil.copytree(skill_dir, out, symlinks=True)
    game_files = compile_skill(skill_dir).source
    for path in game_files:
        target = out / path
        if path in proposal.files:
            target.write_bytes(proposal.files[path])
        elif target.is_file() or target.is_symlink():
            target.unlink()
    return out
