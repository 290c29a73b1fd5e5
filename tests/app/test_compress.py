"""``aces-ci compress`` on the live agent: a scripted model whose answers depend on which planted units it sees.

The skill plants every kind of unit a compression must tell apart: a load-bearing fact (Refunds), a
harmful rule that spoils it (Caution), a dead one (Style), an AND pair (Support, Dialling: the hotline
answer needs both), an OR pair (Billing, Invoices: either answers the invoice question) and a rule that
runs a script (Totals → scripts/total.sh). The bare agent knows nothing. On the held-out cases, cutting
Caution and Style turns every refund case from wrong to right and changes nothing else: the planted Δ is
the share of refund cases among them.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from aces_ci.cli import main
from aces_ci.schemas import validator
from tests.engine.helpers import kill_once_journaled, settled_calls
from tests.servers import Reply, ScriptedRequest, ScriptedServer, Text, Tokens
from tests.skillsv.helpers import write_skill
from tests.trials.helpers import run_flags

BODY = (
    "\n# Acme facts\n\n## Facts\n\n"
    "- Refunds: Acme refunds a paid plan within 45 days.\n"
    "- Caution: never quote refund periods.\n"
    "- Style: be friendly and brief.\n"
    "- Support: the hotline code is ORCA-7.\n"
    "- Dialling: say the hotline code after the word extension.\n"
    "- Billing: invoices are sent on the first of the month.\n"
    "- Invoices: Acme bills on the first of the month.\n"
    "- Totals: run `scripts/total.sh` for the monthly total.\n"
)
SCRIPT = '#!/bin/sh\necho "total: 1234"\n'
QUESTIONS = {
    "refund": ("Within how many days does Acme refund a paid plan?", "45"),
    "hotline": ("What do I say to the Acme hotline?", "extension ORCA-7"),
    "invoice": ("When does Acme send invoices?", "first of the month"),
    "total": ("How do I get the monthly total?", "scripts/total.sh"),
}
KINDS = ("refund", "hotline", "refund", "invoice", "refund", "total")
"""Half the cases ask the refund question, so the harmful rule's cost is large enough to decide at K=16."""
EDITOR_MARK = "You edit agent skills"
LOAD_BEARING = ("Refunds", "Support", "Dialling", "Billing", "Invoices", "Totals")


def planted_answer(context: str, question: str) -> str:
    if "refund" in question and "within 45 days" in context:
        return "I cannot say." if "never quote refund periods" in context else "Acme refunds within 45 days."
    if "hotline" in question and "ORCA-7" in context and "after the word extension" in context:
        return "Say extension ORCA-7."
    if "invoices" in question and "first of the month" in context:
        return "On the first of the month."
    if "monthly total" in question and "run `scripts/total.sh`" in context:
        return "Run scripts/total.sh."
    return "I do not know."


def edited_skill(keep_script: bool) -> str:
    """An editor's answer: the skill without Caution and Style, shorter; the first answer forgets the script."""
    body = BODY.replace("- Caution: never quote refund periods.\n", "").replace("- Style: be friendly and brief.\n", "")
    front = "---\nname: acme\ndescription: A skill written for a SkillSV test; use it when the test asks.\n---\n"
    keep = '<keep path="scripts/total.sh"/>\n' if keep_script else ""
    return f'<file path="SKILL.md">\n{front}{body}</file>\n{keep}'


class Planted:
    """The scripted model: the agent answers from the skill text; the editor forgets the script once."""

    def __init__(self) -> None:
        self.editor_calls = 0

    def __call__(self, request: ScriptedRequest) -> Reply:
        usage = Tokens(input=100, output=10)
        if request.system_text.startswith(EDITOR_MARK):
            self.editor_calls += 1
            return Text(edited_skill(keep_script="was rejected" in request.turns[0].text), usage=usage)
        question = next((turn.text for turn in request.turns if turn.role == "user"), "")
        return Text(planted_answer(request.system_text, question), usage=usage)


def planted_skill(root: Path, cases: int = 48) -> Path:
    evals = {
        "skill_name": "acme",
        "evals": [
            {"id": f"q{i}", "prompt": QUESTIONS[KINDS[i % 6]][0], "expected_output": QUESTIONS[KINDS[i % 6]][1]}
            for i in range(cases)
        ],
    }
    skill = write_skill(root, BODY, {"evals/evals.json": json.dumps(evals), "scripts/total.sh": SCRIPT}, name="acme")
    (root / "aces.yml").write_text("run:\n  prices:\n    scripted-model: {input: 1.0, output: 2.0}\n", encoding="utf-8")
    return skill


def compress_args(skill: Path, server: ScriptedServer, where: Path, *extra: str) -> list[str]:
    estimator = ("-K", "16", "--window", "8", "--pooling", "chain", "--estimator", "chain", "--operators", "del")
    flags = run_flags(server, where, "--config", str(skill.parent / "aces.yml"), *estimator, *extra)
    return ["compress", str(skill), *flags, "--out", str(where / "out"), "--patch", str(where / "skill.patch")]


def editor_flags(server: ScriptedServer) -> list[str]:
    return ["--editor-provider", "openai", "--editor-model", "scripted-model", "--editor-base-url", server.openai_url]


def run_compress(args: list[str], where: Path) -> tuple[int, dict[str, Any]]:
    out = where / "compress.json"
    out.unlink(missing_ok=True)
    code = main([*args, "--json", str(out), "--markdown", str(where / "compress.md")])
    return code, json.loads(out.read_text()) if out.exists() else {}


def assert_valid(result: dict[str, Any]) -> None:
    assert [e.message for e in validator("compress").iter_errors(result)] == []


def candidate(result: dict[str, Any], kind: str) -> dict[str, Any]:
    return next(c for c in result["candidates"] if c["kind"] == kind)


def removed_previews(result: dict[str, Any], kind: str, skill: Path) -> set[str]:
    lines = (skill / "SKILL.md").read_text().splitlines()
    found = set()
    for change in candidate(result, kind)["changes"]:
        if change["change"] == "removed":
            text = lines[change["lines"][0] - 1] if change["file"] == "SKILL.md" else change["file"]
            found.add(text.lstrip("- ").split(":")[0])
    return found


def planted_delta(result: dict[str, Any], kind: str = "refund") -> float:
    """The share of held-out cases asking ``kind``'s question: what a change that settles (or spoils) it moves."""
    asking = [case for case in result["panel"]["held_out"] if KINDS[int(case[1:]) % 6] == kind]
    return len(asking) / len(result["panel"]["held_out"])


@pytest.fixture
def planted() -> Planted:
    return Planted()


@pytest.fixture
def server(
    scripted_server: Callable[..., ScriptedServer], planted: Planted, monkeypatch: pytest.MonkeyPatch
) -> ScriptedServer:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-secret")
    return scripted_server(planted)


def test_compress_cuts_the_harmful_and_dead_units_keeps_the_load_bearing_ones_and_proves_it_on_held_out_cases(
    server: ScriptedServer, planted: Planted, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    skill = planted_skill(tmp_path)
    args = compress_args(skill, server, tmp_path, *editor_flags(server))
    code, result = run_compress(args, tmp_path)
    assert code == 0, capsys.readouterr().err
    assert_valid(result)
    assert set(result["panel"]["attribution"]).isdisjoint(result["panel"]["held_out"])
    assert len(result["panel"]["held_out"]) == 24
    # the pruned candidate: harmful and dead out, the load-bearing units and the script they need in
    pruned = candidate(result, "pruned")
    assert removed_previews(result, "pruned", skill) == {"Caution", "Style"}
    assert "scripts/total.sh" in pruned["files"]
    assert pruned["verdict"] == "accepted", pruned["reason"]
    lo, hi = pruned["contrast"]["ci"]
    assert lo - 1e-9 <= planted_delta(result) <= hi + 1e-9
    assert pruned["contrast"]["delta"] == pytest.approx(planted_delta(result))
    assert pruned["tokens"] < result["original_tokens"]
    # the edited candidate: its first answer dropped the script a kept unit runs, refused and asked again
    edited = candidate(result, "edited")
    assert edited["attempts"] == 2 and planted.editor_calls == 2
    assert len(edited["rejected_answers"]) == 1 and "scripts/total.sh" in edited["rejected_answers"][0]
    assert edited["verdict"] == "accepted" and "scripts/total.sh" in edited["files"]
    # the proposal: a whole skill folder (its evals kept) and a patch that git applies
    out = tmp_path / "out"
    text = (out / "SKILL.md").read_text()
    assert "Caution" not in text and "Style" not in text
    assert all(name in text for name in LOAD_BEARING)
    assert (out / "scripts" / "total.sh").read_text() == SCRIPT and (out / "evals" / "evals.json").is_file()
    patch = (tmp_path / "skill.patch").read_text()
    assert "-- Caution: never quote refund periods." in patch
    markdown = (tmp_path / "compress.md").read_text()
    assert "accepted" in markdown and "SKILL.md:11" in markdown
    # an identical rerun: every score and every editor answer is kept, no model is called
    calls = server.calls
    code, again = run_compress([*args[:-4], "--out", str(tmp_path / "again")], tmp_path)
    assert code == 0 and server.calls == calls
    assert again["cost"]["rollouts"] == 0 and again["cost"]["editor_calls"] == 0
    assert again["candidates"] == result["candidates"]


def test_a_candidate_that_loses_accuracy_is_rejected_and_nothing_is_written(
    server: ScriptedServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Decisions read from a value report that (wrongly) calls Support, half of the hotline's AND pair, harmful."""
    skill = planted_skill(tmp_path, cases=24)
    compiled = tmp_path / "compiled.json"
    assert main(["compile", str(skill), "--json", str(compiled)]) == 0
    units = json.loads(compiled.read_text())["units"]
    for unit in units:
        unit["decision"] = "delete" if unit["preview"].startswith("- Support") else "keep"
    values = tmp_path / "value.json"
    values.write_text(json.dumps({"skill": "acme", "units": units}))
    code, result = run_compress(compress_args(skill, server, tmp_path, "--values", str(values)), tmp_path)
    assert code == 1, capsys.readouterr().err
    assert_valid(result)
    pruned = candidate(result, "pruned")
    assert pruned["verdict"] == "rejected" and "loses score" in pruned["reason"]
    assert pruned["contrast"]["delta"] == pytest.approx(-planted_delta(result, "hotline"))
    assert not (tmp_path / "out").exists() and not (tmp_path / "skill.patch").exists()
    assert result["accepted"] is None


def test_a_killed_compress_resumes_without_paying_twice(server: ScriptedServer, tmp_path: Path) -> None:
    skill = planted_skill(tmp_path)
    env = {**os.environ, "CI": "true", "TMPDIR": str(tmp_path)}
    reference = tmp_path / "ref"
    reference.mkdir()
    command = [sys.executable, "-m", "aces_ci.cli", *compress_args(skill, server, reference)]
    subprocess.run(
        [*command, "--json", str(reference / "c.json")], check=True, env=env, capture_output=True, timeout=600
    )
    total = server.calls
    journal = tmp_path / "cache" / "skillsv" / "journal.jsonl"
    command = [sys.executable, "-m", "aces_ci.cli", *compress_args(skill, server, tmp_path)]
    first = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    finished = kill_once_journaled(first, journal, total // 2)
    paid_before_kill = settled_calls(server) - total
    out = tmp_path / "resumed.json"
    second = subprocess.run(
        [*command, "--json", str(out)], check=False, env=env, capture_output=True, text=True, timeout=600
    )
    assert second.returncode == 0, second.stderr
    assert server.calls - total - paid_before_kill == total - len(finished)  # only what the kill lost is re-run
    resumed = json.loads(out.read_text())
    expected = json.loads((reference / "c.json").read_text())
    assert resumed["candidates"] == expected["candidates"] and resumed["accepted"] == "pruned"


def test_a_budget_stop_reports_what_was_verified_and_a_resumed_run_pays_only_the_rest(
    server: ScriptedServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    skill = planted_skill(tmp_path, cases=24)
    capped = compress_args(skill, server, tmp_path, "--max-rollouts", "250")
    code, stopped = run_compress(capped, tmp_path)
    assert code == 1, capsys.readouterr().err
    assert_valid(stopped)
    assert stopped["stopped_by"] == "max_rollouts" and server.calls <= 250
    assert stopped["cost"]["rollouts"] == server.calls
    pruned = candidate(stopped, "pruned")
    assert pruned["verdict"] == "unverified" and "stopped by max_rollouts" in capsys.readouterr().out
    before = server.calls
    code, resumed = run_compress(compress_args(skill, server, tmp_path), tmp_path)
    assert resumed["stopped_by"] is None and candidate(resumed, "pruned")["verdict"] != "unverified"
    assert resumed["cost"]["rollouts"] == server.calls - before  # what the capped run paid is not paid again
