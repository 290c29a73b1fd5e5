"""Every ``aces-ci`` command in the READMEs runs as written, from a copy of this repository's layout.

The commands are read from the READMEs' ``bash`` blocks (and inline code with a flag), so a README
edit that breaks one fails here. Each is first checked statically — the CLI's own parser accepts it,
its paths exist, its ``--case`` ids are in the skill's dataset — then run:

- the static tier, ``rules``, ``merge``, ``compile`` and ``value`` for real, with the exit code the README
  states (the example repository fails the gate: it holds deliberately flawed skills), ``merge`` after
  scanning every shard as the README's matrix does, with its glob expanded as the shell would, and
  ``value`` with a stand-in for the oracle module the README leaves to the user;
- the keyless rollouts on the embedded model (``local_model``): the paired batch is the README's claim
  that the knowledge skill helps, checked;
- the API rollouts against a scripted server on 127.0.0.1 standing in for the provider: the Anthropic
  one through ``ANTHROPIC_BASE_URL`` (which the SDK reads), the OpenAI-compatible one with the README's
  ``http://localhost:8000/v1`` replaced by the server's URL, and the Claude Code one with ``--base-url``
  added (the CLI harness passes an endpoint to Claude Code only when one is given).
"""

from __future__ import annotations

import glob
import json
import re
import shlex
import shutil
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

from aces_ci.agents.builtin import FINAL_ANSWER
from aces_ci.agents.cli import find_cli
from aces_ci.cli import build_parser, main
from aces_ci.config import load_config
from aces_ci.schemas import validator
from tests.needs import unavailable
from tests.servers import ScriptedRequest, Text, ToolUse, model_flags
from tests.servers.fixtures import ServerFactory

ROOT = Path(__file__).resolve().parents[1]
READMES = (ROOT / "README.md", ROOT / "examples" / "skill-repo" / "README.md")
STAND_IN_URL = "http://localhost:8000/v1"
"""The README's example of a user's own OpenAI-compatible server; the tests put theirs there."""
ANSWER = "The free tier allows 12 projects, refunds are granted within 45 days, and the hotline code is ORCA-7."
"""What the stand-in model answers: right for every acme-support case the API commands name."""


@dataclass(frozen=True)
class Command:
    text: str
    env: dict[str, str]
    args: list[str]

    @property
    def verb(self) -> str:
        return self.args[0]

    def flag(self, name: str) -> str | None:
        return self.args[self.args.index(name) + 1] if name in self.args else None


def readme_commands(path: Path) -> list[Command]:
    """The ``aces-ci`` command lines of ``path``: in ``bash`` blocks, and in inline code that has a flag
    and no placeholder (``SKILL_DIR``, ``FILE``: a usage line, not a command)."""
    texts: list[str] = []
    in_bash = False
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("```"):
            in_bash = not in_bash and line.strip() == "```bash"
            continue
        if in_bash:
            texts += [line.split(" #", 1)[0].strip()] if re.match(r"^([A-Z_]+=\S+ )*aces-ci ", line) else []
        else:
            spans = re.findall(r"`(aces-ci [^`]*)`", line)  # a usage line names its placeholders in capitals
            texts += [span for span in spans if " --" in span and not re.search(r"\b[A-Z_]{4,}\b", span)]
    commands = []
    for text in texts:
        words = shlex.split(text)
        env = dict(word.split("=", 1) for word in words[: words.index("aces-ci")])
        commands.append(Command(text, env, words[words.index("aces-ci") + 1 :]))
    return commands


ALL = [command for readme in READMES for command in readme_commands(readme)]


def find(*words: str) -> Command:
    """The one README command containing all of ``words`` (so a test names the command it runs)."""
    (command,) = [c for c in ALL if all(word in c.args for word in words)]
    return command


def test_the_readmes_hold_the_commands_these_tests_run() -> None:
    verbs = sorted({command.verb for command in ALL})
    assert verbs == ["compile", "compress", "merge", "rollout", "rules", "scan", "trial", "value"]
    assert len(ALL) >= 10, [command.text for command in ALL]


@pytest.mark.parametrize("command", ALL, ids=[command.text for command in ALL])
def test_every_command_parses_and_names_paths_and_cases_that_exist(command: Command) -> None:
    args = build_parser().parse_args(command.args)
    targets = getattr(args, "skill_dirs", None) or [getattr(args, "path", None) or getattr(args, "skill_dir", None)]
    for target in (t for t in targets if t is not None):
        where = ROOT / "examples" / "skill-repo" if str(target) == "." else ROOT
        assert (where / target).exists(), f"{command.text}: {target} does not exist"
    if command.verb == "rollout":
        dataset = json.loads((ROOT / args.skill_dir / "evals" / "evals.json").read_text(encoding="utf-8"))
        ids = {case["id"] for case in dataset["evals"]}
        assert set(args.case or []) <= ids, f"{command.text}: no such case; the dataset has {sorted(ids)}"


def test_the_configuration_example_is_a_valid_aces_yml(tmp_path: Path) -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("## Configuration: `aces.yml`", 1)[1]
    block = re.findall(r"```yaml\n(.*?)```", section, flags=re.DOTALL)[0]
    (tmp_path / "aces.yml").write_text(block, encoding="utf-8")
    config = load_config(tmp_path / "aces.yml", tmp_path)
    assert config.run.runs == yaml.safe_load(block)["run"]["runs"]


@pytest.fixture
def checkout(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of the repository's examples as the working directory, so commands write only there."""
    shutil.copytree(ROOT / "examples", tmp_path / "examples", ignore=shutil.ignore_patterns(".aces-cache"))
    monkeypatch.chdir(tmp_path)
    return tmp_path


def run(command: Command, checkout: Path, monkeypatch: pytest.MonkeyPatch, *extra: str) -> int:
    """Run one README command as a pipeline would (``CI=true``: plain progress lines).

    ``CI`` is set here, for the command, not for the whole test: whether a missing optional CLI skips or
    fails the test is the suite's environment's call (:func:`tests.needs.unavailable`), not this test's.
    """
    monkeypatch.setenv("CI", "true")
    if command.args[1:2] == ["."]:
        monkeypatch.chdir(checkout / "examples" / "skill-repo")
    for name in command.env:
        monkeypatch.setenv(name, "sk-readme-" + "x" * 24)  # the README's "…" stands for the user's key
    args = [arg for word in command.args for arg in (sorted(glob.glob(word)) if "*" in word else [word])]
    return main([*args, *extra])  # globs expanded as the shell would


STATIC = [command for command in ALL if command.verb in ("scan", "rules", "merge", "compile", "value")]
STAND_IN_ORACLE = '''
from pathlib import Path


def score(skill_dir, case, seed):
    """Stands in for the user's oracle the README's value command names: 1 when SKILL.md talks of columns."""
    skill_md = Path(skill_dir) / "SKILL.md"  # a coalition without the skill's text renders none
    return float(skill_md.is_file() and "column" in skill_md.read_text(encoding="utf-8").lower())
'''


def expected_exits(command: Command) -> set[int]:
    """A scan or merge over the example skills fails its gate (exit 1): six of them are flawed on purpose.

    One shard's verdict depends on which skills it drew; writing a baseline or listing rules passes.
    """
    if command.verb in ("rules", "compile", "value") or "--write-baseline" in command.args:
        return {0}
    return {0, 1} if "--shard" in command.args else {1}


@pytest.mark.parametrize("command", STATIC, ids=[command.text for command in STATIC])
def test_the_static_tier_commands_run(command: Command, checkout: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    if command.verb == "value":  # the README's oracle module is the user's own: the test writes one
        module, _ = (command.flag("--oracle") or "").removeprefix("python:").split(":")
        (checkout / f"{module}.py").write_text(STAND_IN_ORACLE, encoding="utf-8")
    if command.verb == "merge":  # the README's matrix: every shard scanned first, as its jobs do
        shard = find("scan", "--shard")
        for index in range(1, 5):
            args = [
                f"{index}/4" if a == "2/4" else f"shard-{index}.json" if a == "shard-2.json" else a for a in shard.args
            ]
            assert run(Command(shard.text, shard.env, args), checkout, monkeypatch) in {0, 1}
    assert run(command, checkout, monkeypatch) in expected_exits(command)
    for option in ("--json", "--junit", "--sarif", "--markdown", "--write-baseline"):
        report = command.flag(option)
        if report is not None:
            where = checkout / "examples" / "skill-repo" if command.args[1:2] == ["."] else checkout
            assert (where / report).stat().st_size > 0, f"{option} wrote nothing"


@pytest.mark.local_model
def test_the_embedded_model_answers_from_a_preloaded_skill(
    checkout: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    command = find("--case", "free-tier-projects", "--trajectory")
    assert command.flag("--provider") is None, "the README's first rollout needs no key"
    code = run(command, checkout, monkeypatch)
    printed = capsys.readouterr()
    assert code == 0, printed.err
    documents = [json.loads(line) for line in printed.out.splitlines()]  # JSON Lines: one rollout a line
    with_arm, without_arm = documents
    for trajectory in documents:
        assert not list(validator("atif").iter_errors(trajectory))
        assert trajectory["extra"]["end_reason"] == "final_answer"
    assert with_arm["extra"]["skill_events"] == [
        {"step_id": 1, "skill": "acme-support", "via": "preloaded", "path": "SKILL.md"}
    ]
    assert "12 projects" in with_arm["steps"][0]["message"]  # the facts reached the model
    assert without_arm["extra"]["skill_events"] == []
    assert "arm with: 1/1 scored rollouts succeeded" in printed.err  # temperature 0: the facts carry the answer


@pytest.mark.local_model
def test_a_small_paired_batch_shows_the_knowledge_skill_helping(
    checkout: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The README's keyless batch: every case of the example knowledge skill, with and without it.

    SmolLM2-135M cannot know the fictional facts, so without the skill it can only answer the negative
    control; with the facts preloaded it answers several. Greedy decoding keeps this repeatable, and
    the example's aces.yml caps each answer at 64 tokens, so the work is bounded by tokens, not time.
    """
    code = run(find("--all-cases", "--arm", "both"), checkout, monkeypatch)
    printed = capsys.readouterr().out
    assert code == 0, printed
    assert "provider local · model smollm2-135m-instruct · harness builtin · disclosure preload" in printed
    tally = {
        arm: (int(ok), int(total), int(infra))
        for arm, ok, total, infra in re.findall(
            r"arm (with|without): (\d+)/(\d+) scored rollouts succeeded \(score ≥ 0\.5\); (\d+) infra errors", printed
        )
    }
    assert tally["with"][1:] == (7, 0) and tally["without"][1:] == (7, 0), printed
    assert tally["with"][0] >= tally["without"][0] + 2, printed


@pytest.mark.local_model
def test_the_keyless_trial_shows_one_skill_helping_and_one_harming(
    checkout: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The README's keyless trial on the embedded model: 15 cases × 1 run × 2 conditions, 64 tokens an answer
    (the example's aces.yml, named with --config since the copied example is no git checkout).

    SmolLM2-135M cannot know acme-support's fictional facts, so the skill lifts accuracy with an
    interval above 0; it knows the capitals, so capital-cities' wrong list drags it down below the
    fail band and fails the gate. Greedy decoding makes both repeatable, and a rerun is all cache.
    """
    command = next(c for c in ALL if c.verb == "trial" and "examples/skill-repo/skills/capital-cities" in c.args)
    assert command.flag("--provider") is None, "the README's first trial needs no key"
    report = checkout / "trial.json"
    bounded = ["--config", "examples/skill-repo/aces.yml", "--json", str(report)]  # answers capped at 64 tokens
    assert run(command, checkout, monkeypatch, *bounded) == 1, "the harmful skill fails the gate"
    printed = capsys.readouterr().out
    data = json.loads(report.read_text(encoding="utf-8"))
    assert [e.message for e in validator("trial-result").iter_errors(data)] == []
    assert data["agent"]["model"] == "smollm2-135m-instruct" and data["agent"]["disclosure"] == "preload"
    acme, capitals = data["skills"]
    assert acme["lift"]["accuracy"]["delta"] > 0 and acme["lift"]["accuracy"]["ci"][0] > 0, acme["lift"]
    assert capitals["lift"]["accuracy"]["delta"] < 0 and capitals["verdict"] == "fail", capitals["lift"]
    assert {case["triage"] for case in capitals["triage"]} == {"steered"}
    assert "skills/capital-cities — FAIL" in printed and "what this estimates:" in printed
    assert run(command, checkout, monkeypatch, *bounded) == 1
    again = json.loads(report.read_text(encoding="utf-8"))
    assert again["spent"]["rollouts_run"] == 0 and again["skills"] == data["skills"], "a rerun is all cache"


def knows_acme(request: ScriptedRequest) -> Text:
    """A stand-in model that answers acme-support's cases right exactly when the skill's facts are in its context."""
    return Text(ANSWER if "ORCA-7" in request.all_text else "I do not know.")


TRIALS = [c for c in ALL if c.verb == "trial" and "examples/skill-repo/skills/capital-cities" not in c.args]


def test_the_trial_options_run_against_a_stand_in_server(
    checkout: Path, scripted_server: ServerFactory, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Every other trial command of the README, in its order (the plan reads the pilot the one before it left),
    on a scripted OpenAI-compatible server standing in for the embedded model: same cases, same flags."""
    server = scripted_server(knows_acme)
    stand_in = model_flags(server)
    assert [c.flag("--plan") is not None or "--plan" in c.args for c in TRIALS].count(True) == 1
    for command in TRIALS:
        calls = server.calls
        code = run(command, checkout, monkeypatch, *stand_in, "--disclosure", "preload")
        printed = capsys.readouterr()
        assert code == 0, (command.text, printed.err[-2000:])
        if "--plan" in command.args:
            assert server.calls == calls, "--plan runs nothing"
            assert "cases ×" in printed.out
        else:
            assert "acme-support — PASS" in printed.out or "acme-support — UNDERPOWERED" in printed.out
    sequential = find("--sequential")
    for option in ("--json", "--markdown", "--junit"):
        assert (checkout / (sequential.flag(option) or "")).stat().st_size > 0


@pytest.mark.parametrize("provider", ["anthropic", "openai"])
def test_the_api_commands_run_against_a_stand_in_server(
    provider: str,
    checkout: Path,
    scripted_server: ServerFactory,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    server = scripted_server(lambda request: ToolUse(FINAL_ANSWER, {"answer": ANSWER}))
    command = next(c for c in ALL if c.flag("--provider") == provider and c.flag("--harness") is None)
    if provider == "anthropic":
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.url)
    else:
        assert command.flag("--base-url") == STAND_IN_URL
        command = Command(
            command.text, command.env, [server.openai_url if a == STAND_IN_URL else a for a in command.args]
        )
    assert run(command, checkout, monkeypatch) == 0
    assert "arm with: 1/1 scored rollouts succeeded" in capsys.readouterr().out
    assert server.calls >= 1


@pytest.mark.cli_harness
def test_the_claude_code_command_runs_against_a_stand_in_server(
    checkout: Path,
    scripted_server: ServerFactory,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    if find_cli("claude") is None:
        unavailable(
            "'claude' is not installed: run scripts/install-harness-clis.sh and export ACES_CLI_BIN", "harness-clis"
        )
    server = scripted_server(lambda request: Text(ANSWER))
    command = find("--harness", "claude-code")
    assert run(command, checkout, monkeypatch, "--base-url", server.url) == 0
    printed = capsys.readouterr()
    assert "arm with: 1/1 scored rollouts succeeded" in printed.err  # the summary yields stdout to the trajectory
    assert not list(validator("atif").iter_errors(json.loads(printed.out)))
