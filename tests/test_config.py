"""aces.yml: found or given, validated with messages naming file, line and field, mapped onto dataclasses."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from aces_ci.config import AcesConfig, ModelSettings, Price, RunSettings, load_config
from aces_ci.errors import EXIT_INPUT_ERROR, ConfigError
from aces_ci.scan import IgnoreEntry, ScanConfig, Severity
from aces_ci.schemas import load_schema

pytestmark = pytest.mark.usefixtures("each_yaml_loader")

FULL = """\
scan:
  profile: strict
  min_score: 80
  exclude: [vendor/, "**/drafts/"]
  ignore:
    - rule: SPEC002
      paths: [skills/legacy/]
      reason: "name predates the spec"
  baseline: ci/baseline.json
  rules:
    SEC003: off
    struct001: error
  min_eval_cases: 5
  max_body_lines: 400
  max_body_tokens: 4000
judge:
  provider: anthropic
  model: claude-haiku-4-5
run:
  provider: openai
  model: gpt-4.1-mini
  base_url: http://127.0.0.1:8080/v1
  harness: codex
  disclosure: preload
  runs: 3
  seed: 7
  concurrency: 2
  budget_usd: 5
  max_rollouts: 200
  max_wall_s: 3600
  cache_dir: .cache/aces
  max_turns: 30
  timeout_s: 120
  temperature: 0.2
  max_tokens: 2048
  prices:
    gpt-4.1-mini: {input: 0.4, output: 1.6, cache_read: 0.1}
"""


def write(tmp_path: Path, text: str, name: str = "aces.yml") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def error_of(tmp_path: Path, text: str) -> ConfigError:
    path = write(tmp_path, text)
    with pytest.raises(ConfigError) as caught:
        load_config(path, tmp_path)
    assert caught.value.exit_code == EXIT_INPUT_ERROR
    return caught.value


def test_the_schema_is_valid_draft_2020_12_and_closed_everywhere() -> None:
    schema = load_schema("config")
    jsonschema.Draft202012Validator.check_schema(schema)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"

    def objects(node):
        if isinstance(node, dict):
            if node.get("type") == "object":
                yield node
            for child in node.values():
                yield from objects(child)

    for obj in objects(schema):
        assert "additionalProperties" in obj, json.dumps(obj)[:80]


def test_no_file_means_defaults(tmp_path: Path) -> None:
    assert load_config(None, tmp_path) == AcesConfig()


def test_an_empty_or_comment_only_file_means_defaults(tmp_path: Path) -> None:
    config = load_config(write(tmp_path, "# nothing yet\n"), tmp_path)
    assert config == AcesConfig(path=tmp_path / "aces.yml")


def test_the_file_in_the_scanned_root_is_found(tmp_path: Path) -> None:
    write(tmp_path, "scan:\n  min_score: 90\n", "aces.yaml")
    assert load_config(None, tmp_path).scan.min_score == 90
    write(tmp_path, "scan: {}\n")
    with pytest.raises(ConfigError, match=r"both aces\.yml and aces\.yaml exist"):
        load_config(None, tmp_path)


def test_every_section_maps_onto_the_dataclasses(tmp_path: Path) -> None:
    config = load_config(write(tmp_path, FULL), tmp_path)
    assert config.scan == ScanConfig(
        profile="strict",
        min_score=80,
        exclude=("vendor/", "**/drafts/"),
        ignore=(IgnoreEntry("SPEC002", ("skills/legacy/",), "name predates the spec"),),
        baseline=tmp_path / "ci" / "baseline.json",
        severity={"SEC003": "off", "struct001": Severity.ERROR},
        max_body_lines=400,
        max_body_tokens=4000,
        min_eval_cases=5,
    )
    assert config.judge == ModelSettings("anthropic", "claude-haiku-4-5", None)
    assert config.run == RunSettings(
        model=ModelSettings("openai", "gpt-4.1-mini", "http://127.0.0.1:8080/v1"),
        harness="codex",
        disclosure="preload",
        runs=3,
        seed=7,
        concurrency=2,
        budget_usd=5.0,
        max_rollouts=200,
        max_wall_s=3600.0,
        cache_dir=tmp_path / ".cache" / "aces",
        max_turns=30,
        timeout_s=120.0,
        temperature=0.2,
        max_tokens=2048,
        prices={"gpt-4.1-mini": Price(0.4, 1.6, 0.1, None)},
    )
    assert config.field_lines["scan.rules.SEC003"] == 11
    assert config.field_lines["scan.ignore[0].rule"] == 6


def test_a_misspelt_field_names_file_line_field_and_the_fix(tmp_path: Path) -> None:
    error = error_of(tmp_path, "scan:\n  min_score: 70\n  profle: strict\n")
    assert str(error) == f"{tmp_path / 'aces.yml'}:3 (scan.profle): unknown field 'profle'; did you mean 'profile'?"
    assert (error.line, error.field) == (3, "scan.profle")


def test_an_unknown_section_lists_the_allowed_ones(tmp_path: Path) -> None:
    error = error_of(tmp_path, "scan: {}\nreport:\n  x: 1\n")
    assert "unknown field 'report'; allowed here: compress, evals, gate, judge, run, scan, trial" in str(error)
    assert error.line == 2


@pytest.mark.parametrize(
    ("text", "field", "line", "message"),
    [
        ("scan:\n  profile: loose\n", "scan.profile", 2, "must be one of strict, lenient; got 'loose'"),
        ("scan:\n  min_score: 101\n", "scan.min_score", 2, "must be at most 100; got 101"),
        ("scan:\n  min_score: high\n", "scan.min_score", 2, "must be an integer; got a string"),
        ("scan:\n  min_score: true\n", "scan.min_score", 2, "must be an integer; got a boolean"),
        ("scan:\n  rules:\n    SPEC001: fatal\n", "scan.rules.SPEC001", 3, "must be one of off, note, warning, error"),
        ("scan:\n  rules:\n    name-format: off\n", "scan.rules.name-format", 3, "'name-format' is not a rule id"),
        ("scan:\n  ignore:\n    - rule: SPEC001\n", "scan.ignore[0]", 3, "missing required field 'reason'"),
        ("scan:\n  ignore:\n    - {rule: SPEC001, reason: '  '}\n", "scan.ignore[0].reason", 3, "must give a reason"),
        ("run:\n  runs: 0\n", "run.runs", 2, "must be at least 1; got 0"),
        ("run:\n  budget_usd: 0\n", "run.budget_usd", 2, "must be greater than 0; got 0"),
        ("run:\n  harness: cursor\n", "run.harness", 2, "must be one of builtin, claude-code, codex, opencode"),
        ("judge:\n  base_url: localhost:8080\n", "judge.base_url", 2, "must be an http(s) URL"),
        ("run:\n  prices:\n    m: {input: 1}\n", "run.prices.m", 3, "missing required field 'output'"),
        ("scan: [1, 2]\n", "scan", 1, "must be a mapping; got a list"),
    ],
)
def test_schema_violations_name_the_field_and_line(
    tmp_path: Path, text: str, field: str, line: int, message: str
) -> None:
    error = error_of(tmp_path, text)
    assert (error.field, error.line) == (field, line)
    assert message in str(error)


def test_every_violation_is_listed(tmp_path: Path) -> None:
    error = error_of(tmp_path, "scan:\n  min_score: -1\nrun:\n  runs: 0\n")
    text = str(error)
    assert text.startswith(f"{tmp_path / 'aces.yml'}:2 (scan.min_score): must be at least 0")
    assert f"\n  also {tmp_path / 'aces.yml'}:4 (run.runs): must be at least 1" in text


@pytest.mark.parametrize(
    ("text", "field"),
    [
        ("judge:\n  api_key: abc\n", "judge.api_key"),
        ("run:\n  ANTHROPIC_API_KEY: abc\n", "run.ANTHROPIC_API_KEY"),
        ("run:\n  token: abc\n", "run.token"),
        ("secret: abc\n", "secret"),
    ],
)
def test_key_fields_are_refused_with_the_environment_variables_to_use(tmp_path: Path, text: str, field: str) -> None:
    error = error_of(tmp_path, text)
    assert error.field == field
    assert "ANTHROPIC_API_KEY or OPENAI_API_KEY" in str(error)
    assert "abc" not in str(error)


def test_a_key_pasted_into_a_value_is_refused_without_echoing_it(tmp_path: Path) -> None:
    secret = "sk-ant-api03-AbCdEfGhIjKlMnOpQrSt"
    error = error_of(tmp_path, f"judge:\n  model: {secret}\n")
    assert (error.field, error.line) == ("judge.model", 2)
    assert secret not in str(error) and "looks like an API key" in str(error)


def test_max_tokens_and_model_ids_are_not_mistaken_for_keys(tmp_path: Path) -> None:
    config = load_config(
        write(tmp_path, "run:\n  max_tokens: 10\n  prices:\n    token: {input: 1, output: 2}\n"), tmp_path
    )
    assert config.run.max_tokens == 10 and "token" in config.run.prices


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        ("scan:\n  min_score: [\n", 3, "YAML syntax error"),
        ("scan:\n  profile: strict\n  profile: lenient\n", 3, "'profile' appears twice (first at line 2)"),
        ("scan: {}\nscan: {}\n", 2, "key 'scan' appears twice"),
        ("- scan\n", 1, "aces.yml must be a mapping of sections"),
        (
            'a: &a ["x","x","x","x","x","x","x","x","x","x"]\n'
            + "".join(
                f"{c}: &{c} [*{p},*{p},*{p},*{p},*{p},*{p},*{p},*{p},*{p},*{p}]\n"
                for p, c in zip("abcde", "bcdef", strict=True)
            ),
            1,
            "refused: more than 10,000 values",
        ),
    ],
)
def test_unusable_yaml_is_a_config_error_with_a_line(tmp_path: Path, text: str, line: int, message: str) -> None:
    error = error_of(tmp_path, text)
    assert error.line == line
    assert message in str(error)


def test_control_characters_are_named_with_their_line(tmp_path: Path) -> None:
    error = error_of(tmp_path, "scan:\n  profile: strict\x1f\n")
    assert error.line == 2
    assert "control character U+001F" in str(error)


def test_binary_and_missing_files(tmp_path: Path) -> None:
    path = tmp_path / "aces.yml"
    path.write_bytes(b"scan:\x00\x01")
    with pytest.raises(ConfigError, match="cannot read config: file holds NUL bytes"):
        load_config(path, tmp_path)
    with pytest.raises(ConfigError, match="config file not found"):
        load_config(tmp_path / "other.yml", tmp_path)


def test_non_string_keys_are_reported_as_unknown_fields(tmp_path: Path) -> None:
    error = error_of(tmp_path, "scan:\n  1: x\n")
    assert error.field == "scan.1" and "unknown field '1'" in str(error)


def test_the_shipped_example_configs_load() -> None:
    examples = sorted((Path(__file__).resolve().parents[1] / "examples").rglob("aces.yml"))
    assert examples, "the example repository ships an aces.yml"
    for path in examples:
        assert load_config(path, path.parent).path == path


@pytest.mark.parametrize("make", ["directory", "dangling-symlink"])
def test_an_aces_yml_that_is_not_a_file_is_a_config_error_not_silently_skipped(tmp_path: Path, make: str) -> None:
    config_path = tmp_path / "aces.yml"
    if make == "directory":
        config_path.mkdir()
    else:
        config_path.symlink_to(tmp_path / "gone.yml")
    with pytest.raises(ConfigError) as caught:
        load_config(None, tmp_path)
    assert str(config_path) in str(caught.value)
    assert "cannot read config" in str(caught.value)


_GITHUB_TOKEN = "ghp_" + "R7xK2mQ9vL4pW8nZ3tY6bH1cF5dJ0sA2eG7u"


@pytest.mark.parametrize(
    ("text", "field"),
    [
        (f"judge:\n  provider: {_GITHUB_TOKEN}\n", "judge.provider"),
        (f"{_GITHUB_TOKEN}: 1\n", None),
        (f"scan:\n  rules:\n    {_GITHUB_TOKEN}: off\n", "scan.rules"),
    ],
)
def test_a_credential_anywhere_in_aces_yml_is_refused_without_being_echoed(
    tmp_path: Path, text: str, field: str | None
) -> None:
    (tmp_path / "aces.yml").write_text(text, encoding="utf-8")

    with pytest.raises(ConfigError) as caught:
        load_config(None, tmp_path)

    assert _GITHUB_TOKEN[:12] not in str(caught.value)
    assert "must not be committed" in str(caught.value)
    assert caught.value.field == field


def test_tasks_and_a_grader_for_every_skill_are_read_from_evals(tmp_path):
    from aces_ci.config import load_config

    path = tmp_path / "aces.yml"
    path.write_text(
        "evals:\n"
        "  tasks: {command: [python3, tools/cases.py, --all], timeout_s: 30}\n"
        "  grader: {command: 'python:house.grading:grade', metrics: [house_score]}\n"
    )
    settings = load_config(path, tmp_path).evals
    assert settings.tasks is not None and settings.grader is not None
    assert settings.tasks.argv == ("python3", "tools/cases.py", "--all") and settings.tasks.timeout_s == 30
    assert settings.tasks.cwd == tmp_path.resolve() and settings.tasks.declared_in == str(path)
    assert settings.grader.python == ("house.grading", "grade") and settings.grader.metrics == ("house_score",)
    path.write_text("evals:\n  grader: {command: grade.sh, metrics: [x]}\n")
    with pytest.raises(ConfigError) as caught:
        load_config(path, tmp_path)
    assert caught.value.field == "evals.grader.command"


def test_value_margin_is_read_defaulted_and_checked(tmp_path: Path) -> None:
    assert load_config(None, tmp_path).value.margin == 0.05  # the gate's pass band: see ValueSettings
    assert load_config(write(tmp_path, "value:\n  margin: 0.02\n"), tmp_path).value.margin == 0.02
    error = error_of(tmp_path, "value:\n  margin: -0.1\n")
    assert (error.line, error.field) == (2, "value.margin")
    error = error_of(tmp_path, "value:\n  margn: 0.1\n")
    assert "did you mean 'margin'?" in str(error)


def test_value_estimator_is_read_defaulted_and_checked(tmp_path: Path) -> None:
    assert load_config(None, tmp_path).value.estimator == "interaction"  # BENCHMARKS.md, SkillSV round four
    assert load_config(write(tmp_path, "value:\n  estimator: chain\n"), tmp_path).value.estimator == "chain"
    error = error_of(tmp_path, "value:\n  margin: 0.05\n  estimator: regression\n")
    assert (error.line, error.field) == (3, "value.estimator")
