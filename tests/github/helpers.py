"""A skills repository under git, recorded event payloads adapted to it, and the Actions environment of a step."""

from __future__ import annotations

import json
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.test_cli_scan import BROKEN_SKILL, CLEAN_EVALS, CLEAN_SKILL

EVENTS = Path(__file__).with_name("events")
REPOSITORY = "acme/skills"
RECORDED_BASE = "1111111111111111111111111111111111111111"
RECORDED_HEAD = "2222222222222222222222222222222222222222"

CLEAN, EVALS, BROKEN = CLEAN_SKILL, CLEAN_EVALS, BROKEN_SKILL


def git(repo: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-C", str(repo), "-c", "user.email=ci@example.invalid", "-c", "user.name=ci", *args],
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout.strip()


@dataclass
class SkillRepo:
    root: Path
    base: str
    head: str


def make_repo(tmp_path: Path, *, broken: bool) -> SkillRepo:
    """A repository whose base commit has the clean skill and whose head edits it (and adds the broken one)."""
    root = tmp_path / "repo"
    clean = root / "skills" / "csv-summary"
    (clean / "evals").mkdir(parents=True)
    (clean / "SKILL.md").write_text(CLEAN)
    (clean / "evals" / "evals.json").write_text(json.dumps(EVALS))
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "base")
    base = git(root, "rev-parse", "HEAD")
    (clean / "SKILL.md").write_text(CLEAN + "\nKeep the reply short.\n")
    if broken:
        other = root / "skills" / "broken-skill"
        other.mkdir(parents=True)
        (other / "SKILL.md").write_text(BROKEN)
    git(root, "add", "-A")
    git(root, "commit", "-qm", "head")
    return SkillRepo(root, base, git(root, "rev-parse", "HEAD"))


def event(tmp_path: Path, name: str, repo: SkillRepo | None = None) -> Path:
    """The recorded payload ``name``, with its commits replaced by the test repository's."""
    text = (EVENTS / name).read_text()
    if repo is not None:
        text = text.replace(RECORDED_BASE, repo.base).replace(RECORDED_HEAD, repo.head)
    path = tmp_path / f"event-{name}"
    path.write_text(text)
    return path


def payload(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((EVENTS / name).read_text())
    return data


def actions_env(
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    event_name: str,
    event_path: Path,
    *,
    api_url: str = "http://127.0.0.1:9",
    token: str | None = None,
    sha: str = RECORDED_HEAD,
    ref: str = "refs/heads/main",
) -> tuple[Path, Path]:
    """Set the variables the runner sets for a step; returns the output and summary files."""
    output, summary = tmp_path / "github_output", tmp_path / "step_summary"
    output.touch()
    summary.touch()
    values = {
        "GITHUB_ACTIONS": "true",
        "GITHUB_EVENT_NAME": event_name,
        "GITHUB_EVENT_PATH": str(event_path),
        "GITHUB_REPOSITORY": REPOSITORY,
        "GITHUB_SHA": sha,
        "GITHUB_REF": ref,
        "GITHUB_API_URL": api_url,
        "GITHUB_SERVER_URL": "https://github.com",
        "GITHUB_OUTPUT": str(output),
        "GITHUB_STEP_SUMMARY": str(summary),
        "GITHUB_RUN_ID": "42",
    }
    for key, value in values.items():
        monkeypatch.setenv(key, value)
    if token is None:
        monkeypatch.delenv("GITHUB_TOKEN", raising=False)
    else:
        monkeypatch.setenv("GITHUB_TOKEN", token)
    for key in ("GITHUB_HEAD_REF", "GITHUB_BASE_REF", "GITHUB_WORKSPACE", "ANTHROPIC_API_KEY", "OPENAI_API_KEY"):
        monkeypatch.delenv(key, raising=False)
    return output, summary


def read_outputs(path: Path) -> dict[str, str]:
    """Parse a ``$GITHUB_OUTPUT`` file as the runner does (``name=value`` and ``name<<DELIM`` blocks)."""
    values: dict[str, str] = {}
    lines = path.read_text().split("\n")
    index = 0
    while index < len(lines):
        line = lines[index]
        index += 1
        if not line:
            continue
        if "<<" in line and ("=" not in line or line.index("<<") < line.index("=")):
            name, delimiter = line.split("<<", 1)
            block = []
            while lines[index] != delimiter:
                block.append(lines[index])
                index += 1
            index += 1
            values[name] = "\n".join(block)
        else:
            name, value = line.split("=", 1)
            values[name] = value
    return values
