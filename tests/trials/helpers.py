"""Building blocks of trial tests: skill repositories on disk, a model with a planted skill effect, CLI flags."""

from __future__ import annotations

import hashlib
import json
import subprocess
from collections.abc import Callable, Sequence
from pathlib import Path

import xmlschema

from aces_ci.schemas import validator
from tests.engine.helpers import MARKER, write_skill
from tests.servers import Reply, ScriptedRequest, ScriptedServer, Text, model_flags


def cases_json(name: str, count: int, expected: str = "42") -> str:
    """An evals.json of ``count`` cases asking for the secret number, each worded its own way."""
    evals = [
        {
            "id": f"case-{i:02d}",
            "prompt": f"Question {i}: what is the secret project number?",
            "expected_output": expected,
        }
        for i in range(count)
    ]
    return json.dumps({"skill_name": name, "evals": evals})


def repo_with_skill(root: Path, name: str = "marker", cases: int = 6, body: str | None = None) -> Path:
    """A git repository ``root`` holding ``skills/<name>`` with ``cases`` eval cases; returns the skill directory."""
    root.mkdir(parents=True, exist_ok=True)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    options = {"body": body} if body is not None else {}
    return write_skill(root / "skills", name, evals=cases_json(name, cases), **options)


def commit(repo: Path, message: str) -> None:
    subprocess.run(["git", "-C", str(repo), "add", "-A"], check=True)
    subprocess.run(
        ["git", "-C", str(repo), "-c", "user.email=t@example.com", "-c", "user.name=t", "commit", "-qm", message],
        check=True,
    )


def draw(req: ScriptedRequest) -> float:
    """A uniform draw in [0, 1) fixed by the prompt and the sampling seed the agent sent: the run's randomness."""
    seed = req.json.get("seed")
    digest = hashlib.sha256(f"{req.last_user_text}|{seed}".encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


def planted_accuracy(p_with: float, p_without: float, marker: str = MARKER) -> Callable[[ScriptedRequest], Reply]:
    """A model that answers right with probability ``p_with`` when ``marker`` is in its context, else ``p_without``.

    Under preload disclosure the skill body is in the system prompt, so the answer is one plain reply.
    """

    def script(req: ScriptedRequest) -> Reply:
        p = p_with if marker in req.all_text else p_without
        return Text("42" if draw(req) < p else "I do not know")

    return script


def run_flags(server: ScriptedServer, tmp_path: Path, *flags: str) -> list[str]:
    return [
        *model_flags(server),
        "--disclosure",
        "preload",
        "--cache-dir",
        str(tmp_path / "cache"),
        "--concurrency",
        "4",
        *flags,
    ]


def reports(tmp_path: Path) -> list[str]:
    return [
        "--json",
        str(tmp_path / "trial.json"),
        "--markdown",
        str(tmp_path / "trial.md"),
        "--junit",
        str(tmp_path / "trial.xml"),
    ]


JUNIT_XSD = Path(__file__).resolve().parents[1] / "report" / "junit.xsd"


def valid_reports(tmp_path: Path) -> dict:
    """The ``reports(tmp_path)`` JSON, after checking it against its schema and the JUnit file against JUnit's."""
    data: dict = json.loads((tmp_path / "trial.json").read_text())
    assert [e.message for e in validator("trial-result").iter_errors(data)] == []
    assert xmlschema.XMLSchema(str(JUNIT_XSD)).is_valid(str(tmp_path / "trial.xml"))
    return data


def skill_result(tmp_path: Path, index: int = 0) -> dict:
    return json.loads((tmp_path / "trial.json").read_text())["skills"][index]


def words(text: str, first: Sequence[str]) -> bool:
    """Whether some line of ``text`` starts with these words (table rows compared without their padding)."""
    return any(line.split()[: len(first)] == list(first) for line in text.splitlines())
