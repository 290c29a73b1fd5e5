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

import dataclasses
import json
import shutil
from collections.abc import Mapping, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from pathlib import Path

from ..compress import (
    Candidate,
    CandidateKind,
    CompressCost,
    CompressResult,
    Judgement,
    contrast,
    judge,
    prune,
    tree_diff,
    unit_changes,
)
from ..config import Project, ValueConfig, ValueFlags, find_project, resolve_value
from ..errors import ConfigError, InfraError, InputError
from ..evals import find_datasets
from ..models import LOCAL_MODEL_ID, PROVIDERS, ModelSpec, Provider
from ..scan import ScanConfig
from ..skillsv import (
    CompiledSkill,
    EvaluationStore,
    LiveScorer,
    PythonScorer,
    RenderingOracle,
    ScoreSettings,
    SkillScorer,
    Task,
    UnitValue,
    ValueSettings,
    compile_skill,
    decision_line,
    decision_summary,
    load_tasks,
    plan_valuation,
    render,
    split_panels,
    tree_tokens,
    valuate,
)
from ._compress_editor import Edit, Editor, edited, unit_rows
from ._compress_score import Spend, Verifier, new_findings, scan_findings, verification_seeds
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


@dataclass(frozen=True)
class _Decided:
    """The SkillSV decisions the candidates are built from, and what the editor is shown of the values."""

    decisions: dict[str, str]
    units: Mapping[str, UnitValue]
    """Per unit id, its values (empty when the decisions were read from a file)."""
    line: str
    notes: tuple[str, ...] = ()


def _valued(
    game: CompiledSkill, attribution: Sequence[Task], oracle: RenderingOracle, settings: ValueSettings, spend: Spend
) -> _Decided:
    """Value the skill on the attribution cases; InfraError when the oracle failed or nothing was measured."""
    report = valuate(game, attribution, oracle, settings, plan_valuation(game, attribution, settings))
    valuation = report.valuation
    spend.rollouts += report.paid_now
    spend.cost_usd += valuation.cost.cost_usd
    if valuation.stopped_by == "oracle_error":
        raise InfraError(f"the oracle failed during the valuation: {valuation.error}")
    if not valuation.measured and valuation.stopped_by is None:
        raise InfraError("the valuation measured nothing: no chain completed")
    spend.stopped_by = valuation.stopped_by
    return _Decided(
        {unit.unit: unit.decision for unit in valuation.units},
        {unit.unit: unit for unit in valuation.units},
        decision_line(decision_summary(game, valuation), valuation.margin, report.settings.score.runs),
    )


def _from_file(path: Path, game: CompiledSkill) -> _Decided:
    note = (
        "decisions read from --values: the held-out cases are disjoint from the attribution split only if that "
        "valuation was run on it"
    )
    return _Decided(_values_from_file(path, game), {}, f"decisions read from {path.name}", (note,))


@dataclass(frozen=True)
class _Built:
    """A candidate before verification: its tree (None: the editor gave no valid one) and how it came about."""

    kind: CandidateKind
    tree: dict[str, bytes] | None
    because: Mapping[str, str]
    edit: Edit | None = None


def _unbuilt(built: _Built) -> Candidate:
    """An edited candidate without a valid answer: refused with the last reason, or unverified on a budget stop."""
    edit = built.edit or Edit(None, 0, ())
    if edit.rejected:
        judgement = Judgement("rejected", f"no valid answer in {edit.attempts} attempt(s): {edit.rejected[-1]}")
    else:
        judgement = Judgement("unverified", "the budget ran out before the editor answered")
    return Candidate(built.kind, {}, 0, (), None, judgement, edit.findings, edit.attempts, edit.rejected)


def _proposed(candidates: Sequence[Candidate]) -> CandidateKind | None:
    """The shortest accepted candidate's kind, or None."""
    accepted = [c for c in candidates if c.judgement.verdict == "accepted"]
    return min(accepted, key=lambda c: c.tokens).kind if accepted else None


class _Run:
    """One compress run over one scorer: builds the candidates from the decisions and verifies each."""

    def __init__(
        self, game: CompiledSkill, config: CompressConfig, scan_settings: ScanConfig, verifier: Verifier, prefix: str
    ) -> None:
        self.game, self.config, self.scan_settings = game, config, scan_settings
        self.verifier, self.prefix = verifier, prefix
        self.original = render(game, game.player_ids, "del")
        self.baseline = scan_findings(self.original, game.name, scan_settings)
        self._original_scores: list[list[float | None]] | None = None

    def built(self, decided: _Decided, scorer: SkillScorer, spend: Spend, notes: list[str]) -> list[_Built]:
        out: list[_Built] = []
        pruning = prune(self.game, decided.decisions)
        if pruning.removed:
            because = {r.unit: r.because_of for r in pruning.removed if r.because_of is not None}
            out.append(_Built("pruned", dict(pruning.files), because))
        else:
            notes.append("the valuation allows no cut (no unit is delete or negligible): there is no pruned candidate")
        spec = self.config.editor
        if spec is not None:
            meter = scorer.engine.meter if isinstance(scorer, LiveScorer) else None
            run = self.config.value.run
            editor = Editor(
                spec,
                self.config.editor_attempts,
                self.config.keep_tokens,
                run.prices if run is not None else None,
                self.config.value.estimator.seed,
                self.config.value.cache_root,
                meter.spend if meter is not None else (lambda _usd: None),
            )
            edit = edited(
                editor,
                game=self.game,
                original=self.original,
                rows=unit_rows(self.game, decided.units, decided.decisions),
                baseline=self.baseline,
                spend=spend,
                budget_left=(lambda: meter.exhausted() is None) if meter is not None else (lambda: True),
                scan_settings=self.scan_settings,
            )
            out.append(_Built("edited", edit.tree, {}, edit))
        return out

    def verified(self, built: _Built, decisions: Mapping[str, str], spend: Spend) -> Candidate:
        tree = built.tree
        if tree is None:
            return _unbuilt(built)
        new = new_findings(self.baseline, scan_findings(tree, self.game.name, self.scan_settings))
        found = None
        if not new:  # a candidate the scan refuses costs no score
            if self._original_scores is None:
                self._original_scores = self.verifier.scores(self.original, spend)
            held = [task.id for task in self.verifier.held]
            found = contrast(held, self._original_scores, self.verifier.scores(tree, spend))
        edit = built.edit
        return Candidate(
            built.kind,
            tree,
            tree_tokens(tree),
            unit_changes(self.game, tree, decisions, built.because),
            found,
            judge(found, self.config.tolerance, new),
            new,
            edit.attempts if edit is not None else 0,
            edit.rejected if edit is not None else (),
            tree_diff(self.original, tree, self.prefix),
        )


def compress(skill_dir: Path, project: Project, config: CompressConfig) -> CompressResult:
    """Run the whole loop for the skill in ``skill_dir`` (resolved); InputError/ConfigError before anything is paid."""
    game = compile_skill(skill_dir)
    tasks, panel = _tasks(skill_dir, project, config.value)
    seed = config.value.estimator.seed
    attribution, held = split_panels(tasks, config.held_out, seed)
    from_file = _from_file(config.values_file, game) if config.values_file is not None else None
    value = config.value
    settings = ValueSettings(
        estimator=value.estimator,
        score=dataclasses.replace(panel.score if panel is not None else ScoreSettings(), runs=value.runs_per_score),
        rules=value.rules,
        values_from=value.values_from,
        adaptive=value.adaptive,
    )
    store = EvaluationStore(value.cache_root / STORE_DIR) if value.cache_root is not None else None
    spend = Spend()
    try:
        with _scorer(value, panel, skill_dir) as scorer:
            decided = from_file or _valued(game, attribution, RenderingOracle(game, scorer, store), settings, spend)
            verifier = Verifier(scorer, store, game.name, held, verification_seeds(seed, config.runs))
            run = _Run(game, config, project.config.scan, verifier, relative(skill_dir, project.root))
            notes = list(decided.notes)
            candidates = [run.verified(b, decided.decisions, spend) for b in run.built(decided, scorer, spend, notes)]
            identity = scorer.identity
    finally:
        if store is not None:
            store.close()
    return CompressResult(
        skill=game.name,
        skill_dir=run.prefix,
        original_tokens=tree_tokens(run.original),
        oracle=identity,
        seed=seed,
        runs=config.runs,
        tolerance=config.tolerance,
        attribution=tuple(t.id for t in attribution) if from_file is None else (),
        held_out=tuple(t.id for t in held),
        values_from="valued" if from_file is None else "file",
        decisions=decided.decisions,
        decision_line=decided.line,
        candidates=tuple(candidates),
        accepted=_proposed(candidates),
        editor=f"{config.editor.provider}/{config.editor.model}" if config.editor is not None else None,
        cost=CompressCost(spend.rollouts, spend.cost_usd, spend.editor_calls, spend.editor_cost_usd),
        stopped_by=spend.stopped_by,
        notes=tuple(notes),
    )


def check_out(skill_dir: Path, out: Path) -> Path:
    """``out`` resolved, or InputError when it lies inside the skill or holds anything: checked before the run."""
    out = out.resolve()
    if out == skill_dir or skill_dir in out.parents:
        raise InputError("--out cannot lie inside the skill it compresses", path=str(out), field="--out")
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise InputError("--out must be a new or empty folder", path=str(out), field="--out")
    return out


def write_proposal(result: CompressResult, skill_dir: Path, out: Path) -> Path | None:
    """The accepted candidate as a whole skill folder at ``out`` (the original's other files, such as evals/, kept).

    Only the original's paths are written or removed; ``out`` must not exist or be empty, and lie outside
    the skill. None when nothing was accepted (nothing is written).
    """
    proposal = result.proposal
    if proposal is None:
        return None
    out = check_out(skill_dir, out)
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
