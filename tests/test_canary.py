"""The canary test: a credential of every detected family goes in everywhere, and none comes out.

A canary of each family (tests/redact/samples.py: generated from the documented formats, never a
real credential) is written into a skill's SKILL.md, an eval case's prompt, a fixture file and
the scripted model's replies, and a secret-named environment variable holds an opaque value
the model repeats. Then, as a user runs them: ``aces-ci scan`` with every report format,
``aces-ci rollout`` on the built-in harness (both arms, cache, journal, trajectory file) and on
one real CLI harness (Claude Code) against the scripted server. Every file written under the
test's directory (reports, caches, journal, trajectories, workspaces left behind, the temp dir),
everything printed (stdout and stderr, at the file-descriptor level) and every log record are
then searched: not one canary, not even a 12-character piece of one.

The CLI part skips on a developer machine without the CLIs (``scripts/install-harness-clis.sh``
and ``ACES_CLI_BIN``) and fails under ``CI=true``.
"""

from __future__ import annotations

import json
import logging
import os
import re
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from aces_ci.agents.cli import find_cli
from aces_ci.cli import main
from aces_ci.scan.rules import default_registry
from tests.redact.samples import one_of_each
from tests.servers import ScriptedRequest, Text, ToolUse, model_flags
from tests.servers.fixtures import ServerFactory

CANARIES = one_of_each(seed=20260903)
ENV_SECRET = "opaque-self-hosted-credential-7Hq2"
"""The value of a secret-named variable: it has no shape of its own, only its name marks it."""
CANARY_TEXT = "\n".join(sample.text for sample in CANARIES) + f"\nand the deploy credential {ENV_SECRET}\n"
IN_CI = os.environ.get("CI", "").strip().lower() in ("true", "1")


def pieces(secret: str) -> list[str]:
    """The secret and every 12-character piece of it (every 4th offset): a partial leak is a leak."""
    return [secret] + [secret[i : i + 12] for i in range(0, max(1, len(secret) - 11), 4)]


def _documentation() -> str:
    """Every rule's text: where a format's fixed parts (``https://hooks.slack.com/``, ``PRIVATE KEY``) are shown."""
    return "\n".join(f"{rule.summary}\n{rule.doc}\n{rule.fix}" for rule in default_registry())


_DOCS = _documentation()
NEEDLES = sorted(
    piece
    for piece in {piece for sample in CANARIES for piece in pieces(sample.secret)} | set(pieces(ENV_SECRET))
    if piece not in _DOCS  # a fixed prefix the documentation names is no leak; the random parts are
)


def leaks(text: str) -> list[str]:
    return [needle for needle in NEEDLES if needle in text]


def every_file(*roots: Path) -> Iterator[Path]:
    for root in roots:
        for path in sorted(root.rglob("*")):
            if path.is_file() and not path.is_symlink():
                yield path


def assert_no_canary(roots: list[Path], printed: str, logged: str) -> int:
    """Search everything; returns how many files were searched (so an empty search cannot pass)."""
    found = {"printed": leaks(printed), "logged": leaks(logged)}
    count = 0
    for path in every_file(*roots):
        count += 1
        text = path.read_bytes().decode("utf-8", "replace")
        hit = leaks(text) + leaks(text.replace("\\n", "\n").replace("\\/", "/"))
        if hit:
            found[str(path)] = hit
    assert not any(found.values()), {where: hit[:3] for where, hit in found.items() if hit}
    return count


def canary_skill(repo: Path) -> Path:
    skill = repo / "skills" / "canary"
    (skill / "evals" / "files").mkdir(parents=True)
    (skill / "SKILL.md").write_text(
        "---\nname: canary\ndescription: Deploys the billing service. Use when the user asks to deploy billing.\n"
        "---\n\n# Deploy billing\n\nThe deploy uses these settings:\n\n" + CANARY_TEXT,
        encoding="utf-8",
    )
    (skill / "evals" / "files" / "notes.txt").write_text(CANARY_TEXT, encoding="utf-8")
    evals = {
        "skill_name": "canary",
        "evals": [
            {
                "id": "deploy",
                "prompt": "Deploy billing with these settings:\n" + CANARY_TEXT,
                "expected_output": "42",
                "files": ["evals/files/notes.txt"],
            }
        ],
    }
    (skill / "evals" / "evals.json").write_text(json.dumps(evals, indent=2), encoding="utf-8")
    return skill


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> dict[str, Path]:
    """A repository with the canary skill, an output folder, and a temp dir of the test's own."""
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    skill = canary_skill(repo)
    temp = tmp_path / "tmp"
    temp.mkdir()
    monkeypatch.setenv("TMPDIR", str(temp))
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    monkeypatch.setenv("CI", "true")
    monkeypatch.setenv("DEPLOY_TOKEN", ENV_SECRET)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    caplog.set_level(logging.INFO)
    caplog.set_level(logging.DEBUG, logger="aces_ci")
    return {"repo": repo, "skill": skill, "out": tmp_path / "out", "tmp": temp}


def agent(req: ScriptedRequest) -> ToolUse | Text:
    """A built-in-harness agent that reads the fixture, writes the canaries into a file and repeats them."""
    if not req.tool_results:
        return ToolUse("list_files", {"path": "."})
    if len(req.tool_results) == 1:
        listed = re.search(r"\S*notes\.txt", req.tool_results[0])
        return ToolUse("read_file", {"path": listed.group() if listed else "notes.txt"})
    if len(req.tool_results) == 2:
        return ToolUse("write_file", {"path": "report.txt", "content": "Settings used:\n" + CANARY_TEXT})
    return ToolUse("final_answer", {"answer": "42. I used:\n" + CANARY_TEXT})


def test_the_canaries_are_real_detections() -> None:
    # The test means something only if every canary is a secret the redactor knows.
    assert len(CANARIES) >= 35
    from aces_ci.redact import redact_text

    masked = redact_text(CANARY_TEXT, [ENV_SECRET])
    assert leaks(masked) == []


def test_scan_with_every_report_format_prints_and_writes_no_canary(
    world: dict[str, Path], capfd: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture
) -> None:
    out = world["out"]
    argv = [
        "scan",
        str(world["repo"]),
        "--verbose",
        "--json",
        str(out / "scan.json"),
        "--sarif",
        str(out / "scan.sarif"),
        "--junit",
        str(out / "scan.xml"),
        "--markdown",
        str(out / "summary.md"),
        "--cache-dir",
        str(out / "scan-cache"),
    ]
    assert main(argv) == 1  # the canaries are hard-coded credentials: the gate fails
    main([*argv[:-2], "--write-baseline", str(out / "baseline.json"), "--cache-dir", str(out / "scan-cache")])
    assert main(argv) == 1  # a warm run replays the cached findings
    printed = "".join(capfd.readouterr())
    assert "[REDACTED:" in printed and "SEC001" in printed
    report = json.loads((out / "scan.json").read_text(encoding="utf-8"))
    kinds = {m.group(1) for m in re.finditer(r"\[REDACTED:([a-z-]+)\]", json.dumps(report))}
    assert {sample.kind for sample in CANARIES} <= kinds | {"secret"}, {s.kind for s in CANARIES} - kinds
    files = assert_no_canary([out, world["tmp"]], printed, caplog.text)
    assert files >= 6


def test_rollout_on_the_builtin_harness_prints_and_writes_no_canary(
    world: dict[str, Path],
    scripted_server: ServerFactory,
    capfd: pytest.CaptureFixture[str],
    caplog: pytest.LogCaptureFixture,
) -> None:
    server = scripted_server(agent)
    out = world["out"]
    argv = [
        "rollout",
        str(world["skill"]),
        "--all-cases",
        "--arm",
        "both",
        *model_flags(server),
        "--cache-dir",
        str(out / "rollout-cache"),
        "--journal",
        str(out / "journal.jsonl"),
        "--trajectory",
        str(out / "trajectories.jsonl"),
    ]
    assert main(argv) == 0
    assert main([*argv[:-2], "--trajectory", "-"]) == 0  # from the cache, trajectories on stdout
    printed = "".join(capfd.readouterr())
    # The agent really saw and repeated the canaries: the server got them, the outputs hold markers.
    assert any(CANARIES[0].secret in call.all_text for call in server.requests)
    trajectories = (out / "trajectories.jsonl").read_text(encoding="utf-8")
    assert trajectories.count("[REDACTED:") >= 3 * len(CANARIES)
    assert assert_no_canary([out, world["tmp"]], printed, caplog.text) >= 3


def test_rollout_on_a_real_cli_harness_prints_and_writes_no_canary(
    world: dict[str, Path],
    scripted_server: ServerFactory,
    capfd: pytest.CaptureFixture[str],
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    if find_cli("claude") is None:
        message = "Claude Code is not installed: run scripts/install-harness-clis.sh and export ACES_CLI_BIN"
        if IN_CI:
            pytest.fail(message)
        pytest.skip(message)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-" + "ant-api03-" + "Kx7Qm2" * 15)
    server = scripted_server(lambda _req: Text("42. I used:\n" + CANARY_TEXT))
    out = world["out"]
    argv = [
        "rollout",
        str(world["skill"]),
        "--case",
        "deploy",
        "--harness",
        "claude-code",
        *model_flags(server, "anthropic"),
        "--timeout",
        "120",
        "--cache-dir",
        str(out / "rollout-cache"),
        "--journal",
        str(out / "journal.jsonl"),
        "--trajectory",
        str(out / "trajectory.json"),
    ]
    assert main(argv) == 0, "".join(capfd.readouterr())
    printed = "".join(capfd.readouterr())
    trajectory = json.loads((out / "trajectory.json").read_text(encoding="utf-8"))
    assert trajectory["agent"]["name"] == "claude-code"
    assert "[REDACTED:" in json.dumps(trajectory)
    assert server.calls >= 1
    assert assert_no_canary([out, world["tmp"]], printed, caplog.text) >= 3


def steered_agent(req: ScriptedRequest) -> ToolUse | Text:
    """With the canary skill in context the agent repeats the canaries instead of answering: a negative lift,
    so the trial's triage quotes its answers."""
    if "billing service" in req.system_text:
        return ToolUse("final_answer", {"answer": "I used:\n" + CANARY_TEXT})
    return ToolUse("final_answer", {"answer": "42"})


def test_trial_with_every_report_format_prints_and_writes_no_canary(
    world: dict[str, Path],
    scripted_server: ServerFactory,
    capfd: pytest.CaptureFixture[str],
    caplog: pytest.LogCaptureFixture,
) -> None:
    server = scripted_server(steered_agent)
    out = world["out"]
    argv = [
        "trial",
        str(world["skill"]),
        "--runs",
        "2",
        "--control",
        "aa",
        "--metadata-only",
        *model_flags(server),
        "--cache-dir",
        str(out / "trial-cache"),
        "--journal",
        str(out / "trial-journal.jsonl"),
        "--json",
        str(out / "trial.json"),
        "--markdown",
        str(out / "trial.md"),
        "--junit",
        str(out / "trial.xml"),
    ]
    assert main(argv) in (0, 1)
    assert main([*argv, "--plan", "--target-lift", "0.2"]) in (0, 2)
    printed = "".join(capfd.readouterr())
    report = json.loads((out / "trial.json").read_text(encoding="utf-8"))
    evidence = " ".join(e for case in report["skills"][0]["triage"] for e in case["evidence"])
    assert "[REDACTED:" in evidence, "the triage quotes the answers, redacted"
    assert assert_no_canary([out, world["tmp"]], printed, caplog.text) >= 4
