"""aces.yml: the project's settings for every tier, validated against schemas/config.schema.json.

The file is read with the same bounded YAML loader as skill frontmatter (no alias bombs, no
unbounded nesting), checked against the schema, whose objects are all closed so a misspelt field
is an error rather than a silently ignored setting, and mapped onto the frozen dataclasses
below. Every problem is a :class:`~aces_ci.errors.ConfigError` naming the file, the line and the
dotted field path (``scan.ignore[0].reason``). API keys are refused outright: a committed key
leaks, so the file may only say *which* model to use; the key comes from the environment.

Relative paths (``scan.baseline``, ``run.cache_dir``) are relative to the directory of aces.yml.
A setting the file leaves out is ``None`` in ``run:`` and ``trial:``: whether aces.yml set it is
part of what was read, because the defaults (and the flags over the file) are applied in one
place, :mod:`aces_ci.config._resolve`. A run reads its aces.yml once: :func:`load_config` keeps
what it parsed by path and file identity, so every verb and path of one process sees one reading.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import ConfigError, ConfigSource
from ..evals import GraderSpec, TaskCommand, grader_from, task_command_from
from ..frozen import FrozenDict, frozen
from ..models import ModelSettings, Price
from ..redact import find_secrets
from ..scan import IgnoreEntry, ScanConfig, Severity
from ..schemas import is_valid_fast, validator
from ..skill import (
    MAX_EXPANDED_NODES,
    MAX_NESTING_DEPTH,
    compose_yaml,
    is_within,
    iter_yaml_nodes,
    load_yaml_mapping,
    read_text,
)
from ..stats import Bands

if TYPE_CHECKING:
    import jsonschema

    from ..skillsv import ValueEstimator

CONFIG_NAMES = ("aces.yml", "aces.yaml")
"""File names looked for in the scanned root when no ``--config`` is given."""

_KEY_FIELD = re.compile(r"(?i)^(?:.*[_-])?(?:api[_-]?key|apikey|key|secret|token|password|passwd|credentials?)$")
_KEY_VALUE = re.compile(r"\bsk-(?:ant-|proj-)?[A-Za-z0-9_-]{16,}")
_KEY_ADVICE = "set ANTHROPIC_API_KEY or OPENAI_API_KEY in the environment (a CI secret) instead"
_MAX_SHOWN = 40
_SCHEMA_TYPES = {
    "integer": "an integer",
    "number": "a number",
    "string": "a string",
    "array": "a list",
    "object": "a mapping",
    "boolean": "true or false",
}


@dataclass(frozen=True)
class RunSettings:
    """``run:`` of aces.yml as written: None where the file is silent (the defaults are applied when resolving).

    Settings of every command that runs rollouts (``rollout``, ``trial``, ``value``, ``ci``).
    """

    model: ModelSettings = field(default_factory=ModelSettings)
    harness: str | None = None
    disclosure: str | None = None
    runs: int | None = None
    seed: int | None = None
    concurrency: int | None = None
    budget_usd: float | None = None
    max_rollouts: int | None = None
    max_wall_s: float | None = None
    cache_dir: Path | None = None
    max_turns: int | None = None
    timeout_s: float | None = None
    temperature: float | None = None
    max_tokens: int | None = None
    prices: Mapping[str, Price] = field(default_factory=FrozenDict)
    """Extra or overriding entries of the price table, keyed by model id (read-only)."""


@dataclass(frozen=True)
class EvalSettings:
    """Tasks and graders the product owns, declared once for every skill (``evals:`` in aces.yml)."""

    tasks: TaskCommand | None = None
    grader: GraderSpec | None = None


@dataclass(frozen=True)
class TrialSettings:
    """``trial:`` of aces.yml as written (None where the file is silent); flags override each field."""

    runs: int | None = None
    """Runs per case and condition; None: ``run.runs`` when aces.yml sets it, else 3."""
    coupling: str | None = None
    mode: str | None = None
    decoys: tuple[Path, ...] = ()
    """Skill directories staged as decoys in group mode and the stress test (relative to aces.yml)."""
    supporting: tuple[Path, ...] = ()
    """Skill directories staged in every condition (prerequisites the skill relies on)."""
    stress: tuple[int, ...] = ()
    target_lift: float | None = None
    """The lift ``--plan`` sizes a design for."""
    cap_tokens: int | None = None
    """Ex-ante cap per rollout, the same in every condition (``--cap-tokens``); None: no cap."""
    cap_usd: float | None = None
    min_recall: float | None = None
    """The trigger trial's recall floor (``--min-recall``): in ``ci`` a skill whose recall is below it fails."""


@dataclass(frozen=True)
class ValueSettings:
    """How ``aces-ci value`` decides (``value:`` in aces.yml)."""

    margin: float = 0.05
    """δ: net effects an equivalence test puts inside ±δ are negligible. 0.05 is the gate's pass band: an
    effect smaller than what counts as a lift for a whole skill is not worth a unit's context
    (``skillsv.DEFAULT_MARGIN``)."""
    estimator: ValueEstimator = "interaction"
    """Where net effects come from: ``interaction`` (a unit-plus-pairwise model fitted on every scored
    coalition, checked against held-out chains) or ``chain`` (the chains alone). BENCHMARKS.md, round four."""
    adaptive: bool = False
    """With a ``--max-rollouts`` budget and the interaction model: look at half the budget and pay the second
    half only while a unit is undecided (``skillsv._adaptive``)."""


def _value_settings(data: dict[str, Any]) -> ValueSettings:
    """``value:`` (the schema has checked its keys, types and the estimator's two names)."""
    defaults = ValueSettings()
    return ValueSettings(
        margin=float(data.get("margin", defaults.margin)),
        estimator="chain" if data.get("estimator") == "chain" else "interaction",
        adaptive=bool(data.get("adaptive", defaults.adaptive)),
    )


@dataclass(frozen=True)
class CompressSettings:
    """How ``aces-ci compress`` accepts a shorter skill (``compress:`` in aces.yml)."""

    tolerance: float = -0.05
    """A candidate is accepted only when its held-out Δ's interval has its lower bound above this: the loss a
    compression may risk (the gate's pass band, negated)."""


def _compress_settings(data: dict[str, Any]) -> CompressSettings:
    """``compress:`` (the schema has checked its keys and range)."""
    return CompressSettings(tolerance=float(data.get("tolerance", CompressSettings().tolerance)))


@dataclass(frozen=True)
class AcesConfig:
    path: Path | None = None
    """Where the config was read from; None when defaults are used."""
    scan: ScanConfig = field(default_factory=ScanConfig)
    judge: ModelSettings = field(default_factory=ModelSettings)
    run: RunSettings = field(default_factory=RunSettings)
    evals: EvalSettings = field(default_factory=EvalSettings)
    trial: TrialSettings = field(default_factory=TrialSettings)
    gate: Bands = field(default_factory=Bands)
    """How a lift becomes a verdict (``gate:``): the one :class:`aces_ci.stats.Bands` the trial, its result and
    ``aces-ci ci`` carry."""
    value: ValueSettings = field(default_factory=ValueSettings)
    compress: CompressSettings = field(default_factory=CompressSettings)
    field_lines: dict[str, int] = field(default_factory=dict)
    """Line of each field in aces.yml by dotted path (``scan.rules.SPEC001``, ``scan.ignore[0].rule``),
    so checks made after loading (unknown rule ids) can point at the line."""

    @property
    def source(self) -> ConfigSource:
        """Where these settings were written, for errors found after loading."""
        return ConfigSource(self.path, self.field_lines)


def _entry_exists(path: Path) -> bool:
    """Whether anything, a dangling symlink included, sits at ``path``."""
    return path.exists() or path.is_symlink()


def find_config(start_dir: Path) -> Path | None:
    """The aces.yml (or aces.yaml) of the scanned root, if there is one.

    Any entry by that name counts, not only a regular file: a directory, FIFO or dangling link
    called aces.yml must stop the scan with a config error, not be skipped so that the gate
    silently runs on defaults the author never chose.
    """
    found = [start_dir / name for name in CONFIG_NAMES if _entry_exists(start_dir / name)]
    if len(found) > 1:
        raise ConfigError(f"both {CONFIG_NAMES[0]} and {CONFIG_NAMES[1]} exist; keep one", path=str(start_dir))
    return found[0] if found else None


def repository_root(start_dir: Path) -> Path | None:
    """The enclosing version-control work tree (the nearest directory holding ``.git``), if any."""
    for candidate in (start_dir, *start_dir.parents):
        if (candidate / ".git").exists():
            return candidate
    return None


@dataclass(frozen=True)
class Project:
    """Where a command runs: the repository around the path it was given, and the settings that apply.

    Every verb finds its ``aces.yml`` the same way, so ``aces-ci scan skills/foo`` and ``aces-ci
    rollout skills/foo`` can never read different files: ``--config`` when given, else the nearest
    aces.yml from the path up to the repository root (the enclosing git work tree; without one,
    only the path itself is looked at, so a stray file above an unrelated folder is never read).
    """

    root: Path
    """The repository root (absolute): the git work tree, else the directory of aces.yml, else the path."""
    config: AcesConfig
    config_dir: Path | None
    """The directory of the aces.yml in use; None when defaults apply."""


def find_project(path: Path, config_file: Path | None = None) -> Project:
    """The :class:`Project` of ``path`` (a directory, or a file inside one)."""
    start = (path.parent if path.is_file() else path).resolve()
    repo = repository_root(start)
    if config_file is not None:
        config = load_config(config_file, start)
    else:
        found = None
        for candidate in (start, *start.parents):
            found = find_config(candidate)
            if found is not None or candidate == repo or repo is None:
                break
        if found is not None and not is_within(found, repo or found.parent):
            # A committed aces.yml is the pull request's: as a link it could read any file of the runner.
            raise ConfigError("config file is a link leading outside the repository: not read", path=str(found))
        config = load_config(found, start) if found is not None else AcesConfig()
    config_dir = config.path.resolve().parent if config.path is not None else None
    return Project(root=repo or config_dir or start, config=config, config_dir=config_dir)


def _dotted(parts: Iterator[str | int] | tuple[str | int, ...]) -> str:
    text = ""
    for part in parts:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text


def _read(path: Path) -> str:
    """The text of aces.yml, read within the skill reader's bounds; ConfigError when it cannot be read."""
    where = str(path)
    if not _entry_exists(path):
        raise ConfigError("config file not found", path=where)
    text_file = read_text(path, where)
    if text_file.text is None or any(p.code != "bom" for p in text_file.problems):
        problem = next(p for p in text_file.problems if p.code != "bom")
        raise ConfigError(f"cannot read config: {problem.message}", path=where, line=problem.line)
    return text_file.text


def _parse_mapping(text: str, path: Path) -> tuple[dict[str, Any], dict[str, int]]:
    """The text as a bounded YAML mapping plus the line of every field."""
    where = str(path)
    data, _, problems = load_yaml_mapping(text, first_line=1)
    if problems and problems[0].code == "frontmatter-empty":
        return {}, {}
    wording = {
        "not-mapping": "aces.yml must be a mapping of sections (scan, judge, run, evals, trial, gate)",
        "frontmatter-too-large": "config file is larger than 64 KiB: not read",
    }
    if problems:
        problem = problems[0]
        message = wording.get(problem.code, problem.message.replace("frontmatter refused: ", "refused: "))
        raise ConfigError(message, path=where, line=problem.line)
    return (data or {}), _field_lines(text, path)


def _field_lines(text: str, path: Path) -> dict[str, int]:
    """The line of every key and list item by dotted path; a key repeated at any depth is an error.

    The text was just loaded within bounds, so composing it again and walking it cannot run away.
    """
    composed = compose_yaml(text)
    lines: dict[str, int] = {}
    if composed is None:
        return lines
    for visit in iter_yaml_nodes(composed.root, max_values=MAX_EXPANDED_NODES, max_depth=MAX_NESTING_DEPTH):
        if not visit.path:
            continue
        dotted = _dotted(visit.path)
        if visit.key is None:  # a list item: its first line
            lines.setdefault(dotted, visit.line)
        elif dotted in lines:
            raise ConfigError(
                f"'{visit.path[-1]}' appears twice (first at line {lines[dotted]}); YAML would keep only the last",
                path=str(path),
                line=visit.line,
                field=dotted,
            )
        else:
            lines[dotted] = visit.line
    return lines


def _walk(value: Any, prefix: tuple[str | int, ...]) -> Iterator[tuple[tuple[str | int, ...], Any]]:
    yield prefix, value
    if isinstance(value, dict):
        for key, child in value.items():
            yield from _walk(child, (*prefix, str(key)))
    elif isinstance(value, list):
        for index, child in enumerate(value):
            yield from _walk(child, (*prefix, index))


def _refuse_keys(data: dict[str, Any], path: Path, lines: dict[str, int]) -> None:
    """No API key may be written in the file, under any field name; the value is never echoed.

    A credential pasted as a key (``scan.rules.<token>``) is refused here too, pointing at the
    mapping that holds it: the later "unknown field" or "not a rule id" messages would quote it.
    """
    for parts, value in _walk(data, ()):
        dotted = _dotted(parts)
        is_model_id = len(parts) == 3 and parts[:2] == ("run", "prices")
        name = parts[-1] if parts else ""
        if isinstance(name, str) and find_secrets(name):
            holder = _dotted(parts[:-1])
            raise ConfigError(
                f"a key of this mapping looks like a credential, which must not be committed; {_KEY_ADVICE}",
                path=str(path),
                line=lines.get(dotted),
                field=holder or None,
            )
        if isinstance(name, str) and not is_model_id and _KEY_FIELD.match(name):
            raise ConfigError(
                f"API keys and secrets are not accepted in the config file; {_KEY_ADVICE}",
                path=str(path),
                line=lines.get(dotted),
                field=dotted,
            )
        if isinstance(value, str) and (_KEY_VALUE.search(value) or find_secrets(value)):
            raise ConfigError(
                f"this value looks like an API key, which must not be committed; {_KEY_ADVICE}",
                path=str(path),
                line=lines.get(dotted),
                field=dotted,
            )


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= _MAX_SHOWN else text[: _MAX_SHOWN - 1] + "…"


def _json_type(value: Any) -> str:
    names = {bool: "a boolean", int: "an integer", float: "a number", str: "a string", list: "a list"}
    if value is None:
        return "nothing (null)"
    if isinstance(value, dict):
        return "a mapping"
    return names.get(type(value), type(value).__name__)


def _explain(error: jsonschema.ValidationError) -> tuple[tuple[str | int, ...], str]:
    """The field path and a plain-language message for one schema violation."""
    parts = tuple(error.absolute_path)
    kind, expected, value = error.validator, error.validator_value, error.instance
    if "propertyNames" in error.schema_path:
        # The error is about a key: point at the key itself, not at the mapping holding it.
        key = str(value)
        if kind == "minLength":
            return parts, "keys must not be empty"
        return (*parts, key), f"'{key}' is not a rule id (rule ids look like SPEC001)"
    if kind == "additionalProperties" and isinstance(value, dict) and isinstance(error.schema, dict):
        allowed = sorted(error.schema.get("properties", {}))
        extra = sorted(str(key) for key in value if key not in allowed)[0]
        close = difflib.get_close_matches(extra, allowed, n=1)
        hint = f"; did you mean '{close[0]}'?" if close else f"; allowed here: {', '.join(allowed)}"
        return (*parts, extra), f"unknown field '{extra}'{hint}"
    if kind == "required" and isinstance(value, dict) and isinstance(expected, list):
        missing = next(str(name) for name in expected if name not in value)
        return parts, f"missing required field '{missing}'"
    if kind == "enum" and isinstance(expected, list):
        return parts, f"must be one of {', '.join(str(choice) for choice in expected)}; got {_shown(value)}"
    if kind == "type":
        wanted = _SCHEMA_TYPES.get(str(expected), str(expected))
        return parts, f"must be {wanted}; got {_json_type(value)}"
    if kind in ("minimum", "exclusiveMinimum", "maximum"):
        relation = {"minimum": "at least", "exclusiveMinimum": "greater than", "maximum": "at most"}[kind]
        return parts, f"must be {relation} {expected}; got {_shown(value)}"
    if kind == "minLength":
        return parts, "must not be empty"
    if kind == "pattern" and parts and parts[-1] == "reason":
        return parts, "must give a reason (why is ignoring this rule safe?)"
    if kind == "pattern" and parts and parts[-1] == "base_url":
        return parts, f"must be an http(s) URL; got {_shown(value)}"
    if kind == "pattern" and parts and parts[-1] == "rule":
        return parts, f"{_shown(value)} is not a rule id (rule ids look like SPEC001)"
    return parts, error.message


def _validate(data: dict[str, Any], path: Path, lines: dict[str, int]) -> None:
    if is_valid_fast("config", data):  # jsonschema (and its import) only for a file with problems to word
        return
    errors = []
    for error in validator("config").iter_errors(data):
        parts, message = _explain(error)
        dotted = _dotted(parts)
        errors.append((lines.get(dotted, 0), dotted, message))
    if not errors:
        return
    errors.sort()
    line, dotted, message = errors[0]
    also = "".join(f"\n  also {path}" + (f":{ln}" if ln else "") + f" ({fld}): {msg}" for ln, fld, msg in errors[1:])
    raise ConfigError(message + also, path=str(path), line=line or None, field=dotted or None)


def _stringify_keys(value: Any) -> Any:
    """YAML allows ``1: x`` or ``null: x``; JSON Schema checks string keys, so compare their text."""
    if isinstance(value, dict):
        return {str(key): _stringify_keys(child) for key, child in value.items()}
    if isinstance(value, list):
        return [_stringify_keys(child) for child in value]
    return value


def _read_off_as_off(data: dict[str, Any]) -> None:
    """YAML 1.1 reads a bare ``off`` as false; under ``scan.rules`` the user meant the word."""
    scan = data.get("scan")
    rules = scan.get("rules") if isinstance(scan, dict) else None
    if isinstance(rules, dict):
        for rule_id, level in rules.items():
            if level is False:
                rules[rule_id] = "off"


def _scan_config(raw: dict[str, Any], base: Path, source: ConfigSource) -> ScanConfig:
    values: dict[str, Any] = {"source": source} | {
        key: raw[key]
        for key in ("profile", "min_score", "min_eval_cases", "max_body_lines", "max_body_tokens")
        if key in raw
    }
    if "exclude" in raw:
        values["exclude"] = tuple(raw["exclude"])
    if "ignore" in raw:
        values["ignore"] = tuple(
            IgnoreEntry(entry["rule"], tuple(entry.get("paths", ())), " ".join(entry["reason"].split()))
            for entry in raw["ignore"]
        )
    if "baseline" in raw:
        values["baseline"] = base / raw["baseline"]
    if "rules" in raw:
        values["severity"] = {
            rule_id: ("off" if level == "off" else Severity(level)) for rule_id, level in raw["rules"].items()
        }
    return ScanConfig(**values)


def _model_settings(raw: dict[str, Any]) -> ModelSettings:
    return ModelSettings(raw.get("provider"), raw.get("model"), raw.get("base_url"))


def _run_settings(raw: dict[str, Any], base: Path) -> RunSettings:
    values: dict[str, Any] = {
        key: raw[key]
        for key in ("harness", "disclosure", "runs", "seed", "concurrency", "max_rollouts", "max_turns", "max_tokens")
        if key in raw
    }
    values.update(
        {key: float(raw[key]) for key in ("budget_usd", "max_wall_s", "timeout_s", "temperature") if key in raw}
    )
    if "cache_dir" in raw:
        values["cache_dir"] = base / raw["cache_dir"]
    if "prices" in raw:
        values["prices"] = frozen(
            {
                model_id: Price(
                    float(price["input"]),
                    float(price["output"]),
                    float(price["cache_read"]) if "cache_read" in price else None,
                    float(price["cache_write"]) if "cache_write" in price else None,
                )
                for model_id, price in raw["prices"].items()
            }
        )
    return RunSettings(model=_model_settings(raw), **values)


def _eval_settings(raw: dict[str, Any], path: Path) -> EvalSettings:
    """``evals:`` of aces.yml; its commands run beside aces.yml, so a relative program is the repository's."""
    base = path.parent.resolve()
    tasks = task_command_from(raw.get("tasks"), str(path), cwd=base)
    grader = grader_from(raw.get("grader"), base, str(path))
    # Only aces.yml may name variables a command gets: a dataset's own command (a skill's evals.json) cannot.
    return EvalSettings(
        tasks=replace(tasks, pass_env=_env_names(raw["tasks"])) if tasks is not None else None,
        grader=replace(grader, pass_env=_env_names(raw["grader"])) if grader is not None else None,
    )


def _env_names(command: dict[str, Any]) -> tuple[str, ...]:
    """``env:`` of a command in aces.yml (the schema checked each name): variables passed on though secret."""
    return tuple(dict.fromkeys(command.get("env", ())))


def _trial_settings(raw: dict[str, Any], base: Path) -> TrialSettings:
    values: dict[str, Any] = {key: raw[key] for key in ("runs", "coupling", "mode", "cap_tokens") if key in raw}
    for key in ("decoys", "supporting"):
        if key in raw:
            values[key] = tuple(base / entry for entry in raw[key])
    if "stress" in raw:
        values["stress"] = tuple(raw["stress"])
    for key in ("target_lift", "cap_usd", "min_recall"):
        if key in raw:
            values[key] = float(raw[key])
    return TrialSettings(**values)


def _gate_settings(raw: dict[str, Any], path: Path, lines: dict[str, int]) -> Bands:
    values: dict[str, Any] = {key: float(raw[key]) for key in ("pass_band", "fail_band", "alpha") if key in raw}
    if "metric" in raw:
        values["metric"] = raw["metric"]
    if "underpowered" in raw:
        values["underpowered_fails"] = raw["underpowered"] == "fail"
    try:
        return Bands(**values)
    except ValueError as error:
        field_name = next(
            (f"gate.{key}" for key in ("fail_band", "pass_band", "alpha") if f"gate.{key}" in lines), "gate"
        )
        raise ConfigError(str(error), path=str(path), line=lines.get(field_name), field=field_name) from None


_PARSED: dict[tuple[Path, Path, str], AcesConfig] = {}
"""Configs parsed in this process, by (path as given, resolved path, text): what :func:`load_config` hands back
instead of parsing and validating the same file again. Keyed by the text itself, not the file's timestamps: a
file rewritten within one timestamp tick must never be answered by its earlier reading."""
_PARSED_KEPT = 8


def load_config(path: Path | None, start_dir: Path) -> AcesConfig:
    """Read ``path``, or the aces.yml of ``start_dir`` when None; defaults when there is neither.

    The parsed config is kept for the process: ``ci`` reads the project's settings from its scan, its trials,
    its trigger trial and its valuations, and each gets the one reading (the text is compared, never trusted
    from a timestamp).
    """
    if path is None:
        path = find_config(start_dir)
        if path is None:
            return AcesConfig()
    text = _read(path)
    key = (path, path.resolve(), text)
    if key not in _PARSED:
        if len(_PARSED) >= _PARSED_KEPT:
            _PARSED.pop(next(iter(_PARSED)))
        _PARSED[key] = _parsed(text, path)
    return _PARSED[key]


def _parsed(text: str, path: Path) -> AcesConfig:
    """The settings ``text`` (the content of ``path``) declares, validated; ConfigError names file, line and field."""
    data, lines = _parse_mapping(text, path)
    data = _stringify_keys(data)
    _read_off_as_off(data)
    _refuse_keys(data, path, lines)
    _validate(data, path, lines)
    base = path.parent
    source = ConfigSource(path, lines)
    return AcesConfig(
        path=path,
        scan=_scan_config(data.get("scan", {}), base, source),
        judge=_model_settings(data.get("judge", {})),
        run=_run_settings(data.get("run", {}), base),
        evals=_eval_settings(data.get("evals", {}), path),
        trial=_trial_settings(data.get("trial", {}), base),
        gate=_gate_settings(data.get("gate", {}), path, lines),
        value=_value_settings(data.get("value", {})),
        compress=_compress_settings(data.get("compress", {})),
        field_lines=lines,
    )
