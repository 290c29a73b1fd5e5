"""The PR comment's compression section: the patch folded, bounded, and never able to close its own fence."""

from __future__ import annotations

from aces_ci.compress import Candidate, CompressCost, CompressResult, Judgement, UnitChange
from aces_ci.report import SourceLinks, render_compress_comment

LINKS = SourceLinks("https://github.com", "acme/skills", "a" * 40, "skills/acme")


def _result(diff: str, accepted: bool = True) -> CompressResult:
    pruned = Candidate(
        kind="pruned",
        files={"SKILL.md": b"x"},
        tokens=80,
        changes=(UnitChange("u4", "SKILL.md", (13, 13), "removed", "delete"),),
        contrast=None,
        judgement=Judgement("accepted" if accepted else "underpowered", "the test says so"),
        diff=diff,
    )
    return CompressResult(
        skill="acme",
        skill_dir="skills/acme",
        original_tokens=100,
        oracle="python:x",
        seed=0,
        runs=1,
        tolerance=-0.05,
        attribution=("a",),
        held_out=("b",),
        values_from="valued",
        decisions={"u4": "delete"},
        decision_line="cut 1 unit",
        candidates=(pruned,),
        accepted="pruned" if accepted else None,
        editor=None,
        cost=CompressCost(0, 0.0, 0, 0.0),
    )


def test_a_long_patch_is_cut_at_a_line_and_says_where_the_whole_one_is() -> None:
    diff = "--- a/skills/acme/SKILL.md\n+++ b/skills/acme/SKILL.md\n" + "".join(f"-line {i}\n" for i in range(2000))
    section = render_compress_comment(_result(diff), LINKS, "compress/skills-acme.patch", patch_chars=1000)
    assert len(section) < 3000 and "-line 10\n" in section and "-line 1999" not in section
    assert "more lines: the whole patch is `compress/skills-acme.patch` in the reports" in section
    assert "[SKILL.md:13](https://github.com/acme/skills/blob/" + "a" * 40 + "/skills/acme/SKILL.md#L13)" in section
    assert "apply `compress/skills-acme.patch` from the run's reports" in section


def test_a_patch_holding_backtick_fences_and_html_stays_inside_its_code_block() -> None:
    hostile = "-```\n-</details>\n-<img src=x onerror=alert(1)>\n-``````\n"
    section = render_compress_comment(_result(hostile), LINKS, "p.patch")
    fence = "```````"  # one backtick longer than the longest run in the patch
    opened = section.index(fence + "diff\n")
    closed = section.index("\n" + fence + "\n", opened)
    assert section[opened:closed].count("</details>") == 1  # the patch's own, inside the fence
    assert section[closed:].count("</details>") == 1 and "<img" not in section[closed:]


def test_no_proposal_shows_no_patch() -> None:
    section = render_compress_comment(_result("-x\n", accepted=False), LINKS, "p.patch")
    assert "nothing accepted: pruned underpowered" in section and "<details>" not in section
