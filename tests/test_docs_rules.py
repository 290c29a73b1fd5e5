"""docs/rules.md: generated from the rule registry, checked in, and where every finding's link points."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from aces_ci.cli import main
from aces_ci.commands.rules import REGENERATE
from aces_ci.scan.rules import default_registry

PAGE = Path(__file__).resolve().parents[1] / "docs" / "rules.md"


def github_anchor(heading: str) -> str:
    """The anchor GitHub gives a Markdown heading: lower case, punctuation dropped, spaces as hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def test_the_checked_in_page_is_what_the_registry_generates(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rules", "--markdown"]) == 0
    generated = capsys.readouterr().out
    assert PAGE.read_text(encoding="utf-8") == generated, f"docs/rules.md is stale: run `{REGENERATE}`"


def test_every_rule_link_lands_on_its_own_section() -> None:
    text = PAGE.read_text(encoding="utf-8")
    anchors = {github_anchor(line.lstrip("#")) for line in text.splitlines() if line.startswith("#")}
    for rule in default_registry():
        page, _, anchor = rule.help_uri().partition("#")
        assert page.endswith("/docs/rules.md"), rule.help_uri()
        assert anchor in anchors, f"{rule.id}: no heading with anchor #{anchor} in docs/rules.md"
        section = text.split(f"\n### {rule.id}\n", 1)[1].split("\n### ", 1)[0]
        assert rule.summary in section and f"**Fix:** {rule.fix}" in section


def test_markdown_takes_no_rule(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rules", "SPEC002", "--markdown"]) == 2
    assert "--markdown prints every rule" in capsys.readouterr().err
