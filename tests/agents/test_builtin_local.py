"""The keyless default end to end: ``aces-ci rollout`` on the example knowledge skill with the embedded model."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from aces_ci.cli import main
from aces_ci.models import missing_local_extra
from aces_ci.schemas import validator

ACME = Path(__file__).resolve().parents[2] / "examples" / "skill-repo" / "skills" / "acme-support"

pytestmark = [
    pytest.mark.local_model,
    pytest.mark.skipif(missing_local_extra() is not None, reason=str(missing_local_extra())),
    pytest.mark.skipif(not ACME.is_dir(), reason="the example skill repository is not in this checkout"),
]


def test_the_embedded_model_answers_from_a_preloaded_skill(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("CI", "true")
    out = tmp_path / "trajectories.jsonl"
    code = main(
        ["rollout", str(ACME), "--case", "free-tier-projects", "--arm", "both", "--no-cache", "--trajectory", str(out)]
    )
    printed = capsys.readouterr().out
    assert code == 0, printed
    assert "provider local · model smollm2-135m-instruct · harness builtin · disclosure preload" in printed
    with_arm, without_arm = (json.loads(line) for line in out.read_text().splitlines())
    for trajectory in (with_arm, without_arm):
        assert not list(validator("atif").iter_errors(trajectory))
        assert trajectory["extra"]["end_reason"] == "final_answer"
    assert with_arm["extra"]["skill_events"] == [
        {"step_id": 1, "skill": "acme-support", "via": "preloaded", "path": "SKILL.md"}
    ]
    assert "12 projects" in with_arm["steps"][0]["message"]  # the facts reached the model
    assert "arm with: 1/1 scored rollouts succeeded" in printed  # temperature 0: the facts carry the answer


def test_a_small_paired_batch_shows_the_knowledge_skill_helping(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Every case of the example knowledge skill, with and without it, on the embedded model.

    SmolLM2-135M cannot know the fictional facts, so without the skill it can only answer the negative
    control; with the facts preloaded it answers several. Greedy decoding keeps this repeatable.
    """
    monkeypatch.setenv("CI", "true")
    code = main(["rollout", str(ACME), "--all-cases", "--arm", "both", "--no-cache"])
    printed = capsys.readouterr().out
    assert code == 0, printed
    tally = {
        arm: (int(ok), int(total), int(infra))
        for arm, ok, total, infra in re.findall(
            r"arm (with|without): (\d+)/(\d+) scored rollouts succeeded \(score ≥ 0\.5\); (\d+) infra errors", printed
        )
    }
    assert tally["with"][1:] == (7, 0) and tally["without"][1:] == (7, 0), printed
    assert tally["with"][0] >= tally["without"][0] + 2, printed
