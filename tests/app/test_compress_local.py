"""``aces-ci compress`` end to end on the embedded model: the example knowledge skill, keyless.

The work is bounded by tokens and cases, not by a clock: the example's aces.yml caps each answer at 64
tokens, the dataset is cut to three cases (two held out), and the decisions come from a value report
written here (the valuation itself on the embedded model is ``tests/skillsv/test_value_local.py``'s),
so the run is two held-out cases scored for the original and the pruned skill: four rollouts.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from aces_ci.cli import main
from aces_ci.schemas import validator
from tests.skillsv.helpers import example_knowledge_skill

CASES = ("free-tier-projects", "refund-window", "hotline-code")


@pytest.mark.local_model
def test_the_embedded_model_verifies_and_reports_the_pruned_example_skill(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    skill = example_knowledge_skill(tmp_path, CASES)
    compiled = tmp_path / "compiled.json"
    assert main(["compile", str(skill), "--json", str(compiled)]) == 0
    units = json.loads(compiled.read_text())["units"]
    for unit in units:  # the answering instructions judged negligible, every fact kept
        unit["decision"] = "negligible" if unit["preview"].startswith("Reply in one short sentence") else "keep"
    values = tmp_path / "value.json"
    values.write_text(json.dumps({"skill": "acme-support", "units": units}))
    out = tmp_path / "result.json"
    args = ["compress", str(skill), "--config", str(tmp_path / "aces.yml"), "--values", str(values)]
    args += ["--cache-dir", str(tmp_path / "cache"), "--out", str(tmp_path / "out"), "--json", str(out)]
    code = main([*args, "--markdown", str(tmp_path / "c.md")])
    assert code in (0, 1), capsys.readouterr().err
    result = json.loads(out.read_text())
    assert [e.message for e in validator("compress").iter_errors(result)] == []
    assert result["oracle"].startswith("live:local/smollm2-135m-instruct:builtin:accuracy:")
    pruned = result["candidates"][0]
    assert pruned["kind"] == "pruned" and [c["change"] for c in pruned["changes"]] == ["removed"]
    assert pruned["tokens"] < result["original_tokens"]
    assert pruned["contrast"]["n_cases"] == 2 and pruned["verdict"] in ("accepted", "underpowered", "rejected")
    assert (code == 0) == (pruned["verdict"] == "accepted") == (tmp_path / "out" / "SKILL.md").is_file()
    markdown = (tmp_path / "c.md").read_text()
    assert "Compression of acme-support" in markdown and pruned["verdict"] in markdown
    assert result["cost"]["rollouts"] == 4  # two held-out cases, the original and the candidate
    shutil.rmtree(tmp_path / "out", ignore_errors=True)
    assert main([*args, "--markdown", str(tmp_path / "c.md")]) == code
    assert json.loads(out.read_text())["cost"]["rollouts"] == 0  # the rerun calls no model
