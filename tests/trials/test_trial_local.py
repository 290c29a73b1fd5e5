"""``aces-ci trial`` on the example repository with the embedded model: a knowledge skill helps, a harmful one harms.

Bounded by cases and tokens, never by a clock: 15 cases × 1 run × 2 conditions, answers capped at 64
tokens. Greedy decoding (temperature 0) makes the rollouts repeatable, so the figures are too.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from aces_ci.cli import main
from aces_ci.models import missing_local_extra
from aces_ci.schemas import validator

SKILLS = Path(__file__).resolve().parents[2] / "examples" / "skill-repo" / "skills"

pytestmark = [
    pytest.mark.local_model,
    pytest.mark.skipif(missing_local_extra() is not None, reason=str(missing_local_extra())),
]


def test_the_knowledge_skill_lifts_and_the_harmful_skill_fails_on_the_embedded_model(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("CI", "true")
    config = tmp_path / "aces.yml"
    config.write_text("run:\n  max_tokens: 64\n")
    argv = [
        "trial",
        str(SKILLS / "acme-support"),
        str(SKILLS / "capital-cities"),
        "--runs",
        "1",
        "--config",
        str(config),
        "--cache-dir",
        str(tmp_path / "cache"),
        "--json",
        str(tmp_path / "trial.json"),
        "--markdown",
        str(tmp_path / "trial.md"),
    ]
    assert main(argv) == 1, "the harmful skill fails the gate"
    printed = capsys.readouterr().out
    data = json.loads((tmp_path / "trial.json").read_text())
    assert [e.message for e in validator("trial-result").iter_errors(data)] == []
    assert data["agent"]["model"] == "smollm2-135m-instruct" and data["agent"]["disclosure"] == "preload"
    acme, capitals = data["skills"]
    lift = acme["lift"]["accuracy"]
    assert lift["delta"] > 0 and lift["ci"][0] > 0, lift
    assert acme["verdict"] in ("pass", "underpowered")
    harm = capitals["lift"]["accuracy"]
    assert harm["delta"] < 0, harm
    assert capitals["verdict"] == "fail"
    assert capitals["triage"] and {case["triage"] for case in capitals["triage"]} == {"steered"}
    assert "skills/capital-cities — FAIL" in printed and "what this estimates:" in printed

    assert main(argv) == 1
    again = json.loads((tmp_path / "trial.json").read_text())
    assert again["spent"]["rollouts_run"] == 0, "an identical rerun answers from the cache"
    assert again["skills"] == data["skills"]
