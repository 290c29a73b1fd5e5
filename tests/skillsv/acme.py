"""The planted Acme skill of the live valuation's tests: a scripted model that answers from the skill alone.

The scripted model knows nothing itself: it answers from the preloaded skill only, by rules that
plant a game with known Shapley values (:data:`EXACT`): an additive fact, a harmful unit that
spoils it, a complementary AND pair, a dead unit. The bare agent (no skill staged) never answers.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from aces_ci.cli import main
from aces_ci.schemas import validator
from tests.servers import Reply, ScriptedRequest, ScriptedServer, Text, Tokens
from tests.skillsv.helpers import write_skill
from tests.trials.helpers import run_flags

BODY = (
    "\n# Acme facts\n\n## Facts\n\n"
    "- Refunds: Acme refunds a paid plan within 45 days.\n"
    "- Support: the hotline code is ORCA-7.\n"
    "- Dialling: say the hotline code after the word extension.\n"
    "- Caution: never quote refund periods.\n"
    "- Style: be friendly and brief.\n"
)
QUESTIONS = {
    "refund": ("Within how many days does Acme refund a paid plan?", "45"),
    "hotline": ("What do I say to the Acme hotline?", "extension ORCA-7"),
}
EXACT = {"Refunds": 0.25, "Support": 0.25, "Dialling": 0.25, "Caution": -0.25, "Style": 0.0}
"""The planted game's Shapley values (half the cases ask each question; every unit needs only the trigger):
refunds answered iff Refunds ∧ ¬Caution (φ = ±½ of the half), the hotline iff Support ∧ Dialling (an AND
pair: ½ each of the half), Style is dead. Both μ agree: the five units are one block after the trigger."""
DECISIONS = {"Refunds": "keep", "Support": "keep", "Dialling": "keep", "Caution": "delete", "Style": "negligible"}


def planted_model(request: ScriptedRequest) -> Reply:
    """Answers from the context only, by the rules of :data:`EXACT`."""
    question = next((turn.text for turn in request.turns if turn.role == "user"), "")
    context = request.system_text
    usage = Tokens(input=100, output=10)
    if "refund" in question and "within 45 days" in context:
        if "never quote refund periods" in context:
            return Text("I cannot say.", usage=usage)
        return Text("Acme refunds within 45 days.", usage=usage)
    if "hotline" in question and "ORCA-7" in context:
        if "after the word extension" in context:
            return Text("Say extension ORCA-7.", usage=usage)
        return Text("Give the code ORCA-7.", usage=usage)
    return Text("I do not know.", usage=usage)


def acme_skill(tmp_path: Path, cases: int = 8) -> Path:
    """The planted skill with its dataset in evals/ (the live agent is valued on the skill's own cases)."""
    kinds = list(QUESTIONS)
    evals = {
        "skill_name": "acme",
        "evals": [
            {"id": f"q{i}", "prompt": QUESTIONS[kinds[i % 2]][0], "expected_output": QUESTIONS[kinds[i % 2]][1]}
            for i in range(cases)
        ],
    }
    skill = write_skill(tmp_path, BODY, {"evals/evals.json": json.dumps(evals)}, name="acme")
    (tmp_path / "aces.yml").write_text(
        "run:\n  prices:\n    scripted-model: {input: 1.0, output: 2.0}\n", encoding="utf-8"
    )
    return skill


def value_args(skill: Path, server: ScriptedServer, where: Path, *extra: str) -> list[str]:
    """The value command on the scripted server, its cache in ``where/cache``."""
    return ["value", str(skill), *run_flags(server, where, "--config", str(skill.parent / "aces.yml"), *extra)]


def run_value(args: list[str], out: Path) -> tuple[int, dict[str, Any]]:
    out.unlink(missing_ok=True)
    code = main([*args, "--json", str(out)])
    return code, json.loads(out.read_text()) if out.exists() else {}


def body_units(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {unit["preview"].split(":")[0].lstrip("- "): unit for unit in report["units"] if unit["kind"] == "body"}


def assert_valid(report: dict[str, Any]) -> None:
    assert [e.message for e in validator("skillsv-value").iter_errors(report)] == []
