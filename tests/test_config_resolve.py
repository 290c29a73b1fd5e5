"""One resolved config per run: flag over aces.yml over default, setting by setting, as a table.

Each row names a setting, what a flag gives, what aces.yml writes, and the default; the three
tests read every row three ways (flag given with aces.yml set, only aces.yml, neither), so a
setting whose precedence breaks fails on its own row.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

import pytest

from aces_ci.config import (
    NOT_GIVEN,
    AcesConfig,
    GateFlags,
    JudgeFlags,
    RunFlags,
    ScanFlags,
    ScanRunConfig,
    TrialConfig,
    TrialFlags,
    ValueConfig,
    ValueFlags,
    load_config,
    resolve_bands,
    resolve_run,
    resolve_scan,
    resolve_trial,
    resolve_value,
)
from aces_ci.errors import ConfigError, InputError
from aces_ci.models import LOCAL_MODEL_ID


@dataclass(frozen=True)
class Row:
    """One setting: the flags that give it, the aces.yml that writes it, how to read it off the resolved config."""

    name: str
    flags: TrialFlags
    yml: str
    read: Callable[[TrialConfig], object]
    flagged: object
    written: object
    default: object


def _run(**given: object) -> TrialFlags:
    return TrialFlags(run=RunFlags(**given))  # type: ignore[arg-type]


ROWS = [
    Row("provider", _run(provider="openai", model="m"), "run:\n  provider: anthropic\n  model: m\n",
        lambda c: c.run.model.provider, "openai", "anthropic", "local"),
    Row("model", _run(model="flag-model"), "run:\n  model: yml-model\n",
        lambda c: c.run.model.model, "flag-model", "yml-model", LOCAL_MODEL_ID),
    Row("base_url", _run(base_url="http://flag/v1"), "run:\n  base_url: http://yml/v1\n",
        lambda c: c.run.model.base_url, "http://flag/v1", "http://yml/v1", None),
    Row("harness", _run(harness="codex"), "run:\n  harness: claude-code\n",
        lambda c: c.run.harness.name, "codex", "claude-code", "builtin"),
    Row("disclosure", _run(disclosure="preload"), "run:\n  disclosure: on-demand\n",
        lambda c: c.run.harness.disclosure, "preload", "on-demand", "preload"),
    Row("runs (trial)", _run(runs=5), "run:\n  runs: 2\n", lambda c: c.design.runs, 5, 2, 3),
    Row("trial.runs", _run(runs=5), "trial:\n  runs: 4\nrun:\n  runs: 2\n", lambda c: c.design.runs, 5, 4, 3),
    Row("runs (rollouts)", _run(runs=5), "run:\n  runs: 2\n", lambda c: c.run.runs, 5, 2, 1),
    Row("seed", _run(seed=9), "run:\n  seed: 7\n", lambda c: (c.run.seed, c.design.seed), (9, 9), (7, 7), (0, 0)),
    Row("concurrency", _run(concurrency=8), "run:\n  concurrency: 2\n", lambda c: c.run.concurrency, 8, 2, 4),
    Row("max_turns", _run(max_turns=9), "run:\n  max_turns: 30\n", lambda c: c.run.harness.max_turns, 9, 30, 20),
    Row("timeout_s", _run(timeout_s=10.0), "run:\n  timeout_s: 120\n",
        lambda c: c.run.harness.timeout_s, 10.0, 120.0, 300.0),
    Row("budget_usd", _run(budget_usd=2.0), "run:\n  budget_usd: 5\n", lambda c: c.run.budget.max_usd, 2.0, 5.0, None),
    Row("budget_usd off", _run(budget_usd=None), "run:\n  budget_usd: 5\n",
        lambda c: c.run.budget.max_usd, None, 5.0, None),
    Row("max_rollouts", _run(max_rollouts=10), "run:\n  max_rollouts: 200\n",
        lambda c: c.run.budget.max_rollouts, 10, 200, None),
    Row("max_wall_s", _run(max_wall_s=30.0), "run:\n  max_wall_s: 3600\n",
        lambda c: c.run.budget.max_wall_s, 30.0, 3600.0, None),
    Row("cache_dir", _run(cache_dir=Path("/flag/cache")), "run:\n  cache_dir: /yml/cache\n",
        lambda c: c.run.cache_dir, Path("/flag/cache"), Path("/yml/cache"), Path(".aces-cache")),
    Row("no cache", _run(cache_dir=None), "run:\n  cache_dir: /yml/cache\n",
        lambda c: c.run.cache_dir, None, Path("/yml/cache"), Path(".aces-cache")),
    Row("coupling", TrialFlags(coupling="independent"), "trial:\n  coupling: shared-seed\n",
        lambda c: c.design.coupling, "independent", "shared-seed", "independent"),
    Row("mode", TrialFlags(mode="isolation"), "trial:\n  mode: group\n",
        lambda c: c.design.mode, "isolation", "group", "isolation"),
    Row("stress", TrialFlags(stress=(1, 5)), "trial:\n  stress: [2]\n", lambda c: c.design.stress, (1, 5), (2,), ()),
    Row("cap_tokens", TrialFlags(cap_tokens=100), "trial:\n  cap_tokens: 200\n",
        lambda c: c.design.budget_cap and c.design.budget_cap.tokens, 100, 200, None),
    Row("cap_usd replaces both caps", TrialFlags(cap_usd=0.5), "trial:\n  cap_tokens: 200\n",
        lambda c: c.design.budget_cap and (c.design.budget_cap.tokens, c.design.budget_cap.dollars),
        (None, 0.5), (200, None), None),
    Row("lift_metric", TrialFlags(lift_metric="accuracy"), "gate:\n  metric: composite\n",
        lambda c: c.gate.metric, "accuracy", "composite", "outcome"),
    Row("pass_band", TrialFlags(pass_band=0.2), "gate:\n  pass_band: 0.1\n",
        lambda c: c.gate.pass_band, 0.2, 0.1, 0.05),
    Row("fail_band", TrialFlags(fail_band=-0.3), "gate:\n  fail_band: -0.2\n",
        lambda c: c.gate.fail_band, -0.3, -0.2, -0.1),
    Row("decoys", TrialFlags(decoys=(Path("/flag/d"),)), "trial:\n  decoys: [/yml/d]\n",
        lambda c: c.decoys, (Path("/flag/d"),), (Path("/yml/d"),), None),
    Row("decoys: the repository's", TrialFlags(decoys=None), "trial:\n  decoys: [/yml/d]\n",
        lambda c: c.decoys, None, (Path("/yml/d"),), None),
    Row("supporting", TrialFlags(supporting=(Path("/flag/s"),)), "trial:\n  supporting: [/yml/s]\n",
        lambda c: c.supporting, (Path("/flag/s"),), (Path("/yml/s"),), ()),
    Row("target_lift", TrialFlags(target_lift=0.3), "trial:\n  target_lift: 0.2\n",
        lambda c: c.target_lift, 0.3, 0.2, 0.1),
    Row("min_recall", TrialFlags(min_recall=0.9), "trial:\n  min_recall: 0.7\n",
        lambda c: c.triggers.min_recall, 0.9, 0.7, None),
    Row("judge", TrialFlags(judge=JudgeFlags(provider="openai", model="flag-judge")),
        "judge:\n  provider: anthropic\n  model: yml-judge\n",
        lambda c: c.judge and (c.judge.provider, c.judge.model), ("openai", "flag-judge"),
        ("anthropic", "yml-judge"), None),
    Row("no judge", TrialFlags(judge=JudgeFlags(off=True)), "judge:\n  provider: anthropic\n  model: yml-judge\n",
        lambda c: c.judge and c.judge.model, None, "yml-judge", None),
]  # fmt: skip


def _config(tmp_path: Path, text: str | None) -> AcesConfig:
    if text is None:
        return AcesConfig()
    (tmp_path / "aces.yml").write_text(text)
    return load_config(None, tmp_path)


@pytest.mark.parametrize("row", ROWS, ids=[row.name for row in ROWS])
def test_a_given_flag_wins_over_aces_yml(row: Row, tmp_path: Path) -> None:
    assert row.read(resolve_trial(_config(tmp_path, row.yml), row.flags)) == row.flagged


@pytest.mark.parametrize("row", ROWS, ids=[row.name for row in ROWS])
def test_aces_yml_wins_over_the_default(row: Row, tmp_path: Path) -> None:
    assert row.read(resolve_trial(_config(tmp_path, row.yml), TrialFlags())) == row.written


@pytest.mark.parametrize("row", ROWS, ids=[row.name for row in ROWS])
def test_with_neither_the_default_applies(row: Row) -> None:
    assert row.read(resolve_trial(AcesConfig(), TrialFlags())) == row.default


@dataclass(frozen=True)
class ValueRow:
    """One setting of a valuation, as :class:`Row` is one of a trial."""

    name: str
    flags: ValueFlags
    yml: str
    read: Callable[[ValueConfig], object]
    flagged: object
    written: object
    default: object


VALUE_ROWS = [
    ValueRow("margin", ValueFlags(margin=0.1), "value:\n  margin: 0.02\n", lambda c: c.rules.margin, 0.1, 0.02, 0.05),
    ValueRow("runs per score", ValueFlags(run=RunFlags(runs=5)), "run:\n  runs: 2\n",
             lambda c: c.runs_per_score, 5, 2, 1),
    ValueRow("seed", ValueFlags(run=RunFlags(seed=9)), "run:\n  seed: 7\n", lambda c: c.estimator.seed, 9, 7, 0),
    ValueRow("rollouts → scores", ValueFlags(run=RunFlags(max_rollouts=10)), "run:\n  max_rollouts: 40\n",
             lambda c: c.estimator.budget_scores, 10, 40, None),
]  # fmt: skip


@pytest.mark.parametrize("row", VALUE_ROWS, ids=[row.name for row in VALUE_ROWS])
def test_a_valuation_reads_each_setting_flag_then_aces_yml_then_default(row: ValueRow, tmp_path: Path) -> None:
    skill = tmp_path / "skill"
    assert row.read(resolve_value(_config(tmp_path, row.yml), row.flags, skill)) == row.flagged
    assert row.read(resolve_value(_config(tmp_path, row.yml), ValueFlags(), skill)) == row.written
    assert row.read(resolve_value(AcesConfig(), ValueFlags(), skill)) == row.default


@dataclass(frozen=True)
class ScanRow:
    """One setting of a scan, as :class:`Row` is one of a trial."""

    name: str
    flags: ScanFlags
    yml: str
    read: Callable[[ScanRunConfig], object]
    flagged: object
    written: object
    default: object


SCAN_ROWS = [
    ScanRow("profile", ScanFlags(profile="lenient"), "scan:\n  profile: strict\n",
            lambda c: c.settings.profile, "lenient", "strict", "lenient"),
    ScanRow("min_score", ScanFlags(min_score=90), "scan:\n  min_score: 60\n",
            lambda c: c.settings.min_score, 90, 60, 70),
    ScanRow("baseline", ScanFlags(baseline=Path("/flag/base.json")), "scan:\n  baseline: /yml/base.json\n",
            lambda c: c.settings.baseline, Path("/flag/base.json"), Path("/yml/base.json"), None),
    ScanRow("judge", ScanFlags(judge="off"), "judge:\n  provider: anthropic\n  model: yml-judge\n",
            lambda c: (c.judge_wish, c.judge.model), ("off", "yml-judge"), ("when-configured", "yml-judge"),
            ("when-configured", None)),
]  # fmt: skip


@pytest.mark.parametrize("row", SCAN_ROWS, ids=[row.name for row in SCAN_ROWS])
def test_a_scan_reads_each_setting_flag_then_aces_yml_then_default(row: ScanRow, tmp_path: Path) -> None:
    assert row.read(resolve_scan(_config(tmp_path, row.yml), row.flags)) == row.flagged
    assert row.read(resolve_scan(_config(tmp_path, row.yml), ScanFlags())) == row.written
    assert row.read(resolve_scan(AcesConfig(), ScanFlags())) == row.default


def test_a_configured_baseline_not_yet_written_is_not_applied_when_writing_it(tmp_path: Path) -> None:
    config = _config(tmp_path, "scan:\n  baseline: accepted.json\n")
    assert resolve_scan(config, ScanFlags()).settings.baseline == tmp_path / "accepted.json"
    assert resolve_scan(config, ScanFlags(write_baseline=tmp_path / "accepted.json")).settings.baseline is None
    (tmp_path / "accepted.json").write_text("{}")
    written = resolve_scan(config, ScanFlags(write_baseline=tmp_path / "accepted.json"))
    assert written.settings.baseline == tmp_path / "accepted.json"


def test_ci_gate_flags_win_over_aces_yml_bands_which_win_over_the_defaults(tmp_path: Path) -> None:
    config = _config(tmp_path, "gate:\n  pass_band: 0.1\n  fail_band: -0.2\n  metric: composite\n")
    flagged = resolve_bands(config, GateFlags(lift_metric="accuracy", pass_band=0.2, fail_band=-0.3))
    assert (flagged.pass_band, flagged.fail_band, flagged.metric) == (0.2, -0.3, "accuracy")
    written = resolve_bands(config, GateFlags())
    assert (written.pass_band, written.fail_band, written.metric) == (0.1, -0.2, "composite")
    default = resolve_bands(AcesConfig(), GateFlags())
    assert (default.pass_band, default.fail_band, default.metric) == (0.05, -0.1, "outcome")
    with pytest.raises(ConfigError) as crossed:
        resolve_bands(AcesConfig(), GateFlags(pass_band=-0.2, fail_band=0.1))
    assert crossed.value.field == "gate.lift"


def test_a_valuation_cache_sits_beside_the_skill_unless_set_and_never_inside_it(tmp_path: Path) -> None:
    skill = tmp_path / "skill"
    assert resolve_value(AcesConfig(), ValueFlags(), skill).cache_root == (tmp_path / ".aces-cache").resolve()
    assert resolve_value(AcesConfig(), ValueFlags(run=RunFlags(cache_dir=None)), skill).cache_root is None
    with pytest.raises(ConfigError, match="cannot live inside the skill"):
        resolve_value(AcesConfig(), ValueFlags(run=RunFlags(cache_dir=skill / "cache")), skill)


def test_not_given_is_not_none(tmp_path: Path) -> None:
    """None is a value a caller gives ("no cap"); NOT_GIVEN leaves the setting to aces.yml."""
    config = _config(tmp_path, "run:\n  budget_usd: 5\n")
    assert resolve_run(config, RunFlags(budget_usd=NOT_GIVEN)).budget.max_usd == 5.0
    assert resolve_run(config, RunFlags(budget_usd=None)).budget.max_usd is None


def test_closed_sets_from_aces_yml_are_checked_and_named_by_field(tmp_path: Path) -> None:
    config = replace(AcesConfig(), path=tmp_path / "aces.yml", field_lines={"trial.mode": 3})
    config = replace(config, trial=replace(config.trial, mode="grouped"))
    with pytest.raises(ConfigError, match=r"aces\.yml:3 \(trial\.mode\): 'grouped' is not one of isolation, group"):
        resolve_trial(config, TrialFlags())


def test_crossed_bands_from_flags_are_refused() -> None:
    with pytest.raises(InputError, match="must be below the pass band"):
        resolve_trial(AcesConfig(), TrialFlags(pass_band=0.0, fail_band=0.1))
