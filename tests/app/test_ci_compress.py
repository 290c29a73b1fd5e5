"""``mode: compress`` in ``aces-ci ci``: the proposal in the sticky comment and the reports, the checkout untouched.

The model is the scripted server of the live valuation's tests (``tests/skillsv/acme.py``): it
answers from the staged skill only — a refund fact a caution unit spoils, an AND pair for the
hotline, a dead style unit. Here the dead unit carries hostile text (HTML, a mention, a backtick
fence) and the skill's name is hostile too: both must reach the comment as text. Real HTTP to the
model and to a local GitHub REST server; assertions are what a maintainer reads: the comment, the
outputs, the report files, and a repository that nothing wrote to.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from aces_ci.cli import main
from aces_ci.github import COMMENT_MARKER
from aces_ci.schemas import validator
from tests.github.helpers import actions_env, event, git, read_outputs
from tests.github.server import WRITE_TOKEN, GitHubServer
from tests.report.html.dom import parse
from tests.servers import ScriptedServer, model_flags
from tests.skillsv.acme import QUESTIONS, planted_model
from tests.skillsv.helpers import write_skill

HOSTILE = "<script>alert(1)</script> @everyone ```` [x](javascript:alert(1))"
BODY = (
    "\n# Acme facts\n\n## Facts\n\n"
    "- Refunds: Acme refunds a paid plan within 45 days.\n"
    "- Support: the hotline code is ORCA-7.\n"
    "- Dialling: say the hotline code after the word extension.\n"
    "- Caution: never quote refund periods.\n"
    f"- Style: be friendly and brief. {HOSTILE}\n"
)
NAME = "acme <img src=x onerror=alert(1)> @everyone"


@pytest.fixture
def server(scripted_server: Callable[..., ScriptedServer], monkeypatch: pytest.MonkeyPatch) -> ScriptedServer:
    monkeypatch.setenv("CI", "true")
    return scripted_server(planted_model)


def _repo(tmp_path: Path, cases: int) -> Path:
    """A skills repository under git: the planted skill (its name hostile) and its dataset."""
    root = tmp_path / "repo"
    kinds = list(QUESTIONS)
    evals = {
        "skill_name": "acme",
        "evals": [
            {"id": f"q{i}", "prompt": QUESTIONS[kinds[i % 2]][0], "expected_output": QUESTIONS[kinds[i % 2]][1]}
            for i in range(cases)
        ],
    }
    skill = write_skill(root / "skills", BODY, {"evals/evals.json": json.dumps(evals)}, name="acme")
    skill_md = skill / "SKILL.md"
    skill_md.write_text(skill_md.read_text().replace("name: acme", f"name: {json.dumps(NAME)}", 1))
    (root / "aces.yml").write_text("run:\n  prices:\n    scripted-model: {input: 1.0, output: 2.0}\n")
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "first")
    return root


def _ci(root: Path, server: ScriptedServer, *extra: str) -> int:
    reports = root.parent / "reports"
    return main(
        [
            *("ci", str(root), "--reports", str(reports), "--no-cache", "--jobs", "1", "--results-branch", ""),
            *model_flags(server),
            *("--disclosure", "preload", "--runs", "2", "--concurrency", "4"),
            *("--rollout-cache", str(root.parent / "rollouts")),
            *extra,
        ]
    )


def _outside_code(markdown: str) -> str:
    """The comment without its fenced blocks (where text is shown verbatim by construction)."""
    out, fence = [], ""
    for line in markdown.splitlines():
        stripped = line.lstrip()
        if fence and stripped.startswith(fence) and not stripped[len(fence) :].strip():
            fence = ""
        elif not fence and stripped.startswith("```"):
            fence = stripped[: len(stripped) - len(stripped.lstrip("`"))]
        elif not fence:
            out.append(line)
    return "\n".join(out)


def test_mode_compress_on_a_pull_request_posts_the_proposal_and_writes_the_reports_never_the_repository(
    server: ScriptedServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, github: GitHubServer
) -> None:
    root = _repo(tmp_path, cases=24)
    base = git(root, "rev-parse", "HEAD")
    skill_md = root / "skills/acme/SKILL.md"
    skill_md.write_text(skill_md.read_text() + "- Extra: answer in one line.\n")
    git(root, "commit", "-qam", "the pull request edits acme")
    head = git(root, "rev-parse", "HEAD")
    path = event(tmp_path, "pull_request_labeled.json")
    path.write_text(path.read_text().replace("1" * 40, base).replace("2" * 40, head))
    output, _ = actions_env(monkeypatch, tmp_path, "pull_request", path, api_url=github.url, token=WRITE_TOKEN)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-secret")
    branches = git(root, "branch", "--list")

    # the hostile name fails the scan's name rule (exit 1); the proposal itself informs and never fails the job
    assert _ci(root, server, "--mode", "compress") == 1

    # the reports: JSON (valid), Markdown and the patch of the accepted candidate
    values = read_outputs(output)
    assert values["work"] == "compress" and values["changed-skills"] == "skills/acme"
    folder = Path(values["compress-report"])
    assert sorted(p.name for p in folder.iterdir()) == ["skills-acme.json", "skills-acme.md", "skills-acme.patch"]
    result = json.loads((folder / "skills-acme.json").read_text())
    assert [e.message for e in validator("compress").iter_errors(result)] == []
    assert result["accepted"] == "pruned" and server.calls > 0
    page = parse(Path(values["html-report"]).read_text(encoding="utf-8")).one("section", id="compress")
    assert "Compression of acme" in page.text() and page.find_all("details", class_="compress-diff")
    patch = (folder / "skills-acme.patch").read_text()
    assert "-- Caution: never quote refund periods." in patch and "+++ b/skills/acme/SKILL.md" in patch
    # one sticky comment with the proposal: verdict, tokens kept, Δ with its interval, units with line links
    ours = github.state.ours(7, COMMENT_MARKER)
    assert len(ours) == 1
    comment = ours[0]["body"]
    assert "gate failed (1 criterion failed)" in comment and "- ❌ `scan.errors` skills/acme" in comment
    pruned = next(c for c in result["candidates"] if c["kind"] == "pruned")
    lo, hi = pruned["contrast"]["ci"]
    assert "proposed: the pruned skill" in comment and f"[{lo:+.3f}, {hi:+.3f}]" in comment
    assert "| pruned | accepted |" in comment
    caution = next(c for c in pruned["changes"] if c["change"] == "removed" and c["unit"] in comment)
    line = caution["lines"][0]
    assert f"[SKILL.md:{line}](https://github.com/acme/skills/blob/{head}/skills/acme/SKILL.md#L{line}" in comment
    linked = [a.attrs["href"] for a in page.find_all("a", class_="src")]
    blob = f"https://github.com/acme/skills/blob/{head}/skills/acme/SKILL.md"
    assert any(h == f"{blob}#L{line}" or h.startswith(f"{blob}#L{line}-L") for h in linked), linked
    assert "<details>\n<summary>The patch" in comment and "-- Caution: never quote refund periods." in comment
    # hostile name and unit text: text in the comment, never markup, a mention or a link
    prose = _outside_code(comment)
    assert "<script" not in comment.replace("<script>alert(1)</script> @everyone", "")  # only inside the fence
    assert "<img" not in prose and "@everyone" not in prose and "](javascript:" not in prose
    assert "onerror=alert(1)" in prose  # the name is there, as text
    # nothing written to the repository: the tree is clean, no commit, no branch, no push; GitHub got the comment
    assert git(root, "status", "--porcelain") == "" and git(root, "rev-parse", "HEAD") == head
    assert git(root, "branch", "--list") == branches
    assert [(r.method, r.path) for r in github.state.writes()] == [("POST", "/repos/acme/skills/issues/7/comments")]


def test_mode_compress_on_a_dispatch_shares_the_budget_and_says_which_skills_it_did_not_reach(
    server: ScriptedServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # 12 cases: 40 rollouts cannot fit the sparse model (2 scores per coefficient), so each valuation is
    # the chain design, which leaves part of the budget to the next skill
    root = _repo(tmp_path, cases=12)
    skill_md = root / "skills/acme/SKILL.md"
    skill_md.write_text(skill_md.read_text().replace(f"name: {json.dumps(NAME)}", "name: acme", 1))
    evals = (root / "skills/acme/evals/evals.json").read_text()
    for name in ("beta", "gamma"):
        write_skill(root / "skills", BODY, {"evals/evals.json": evals.replace("acme", name)}, name=name)
    write_skill(root / "skills", "\n# Notes\n\n- Greet the user.\n", name="notes")  # no dataset
    git(root, "add", "-A")
    git(root, "commit", "-qm", "three skills with cases, one without")
    output, summary = actions_env(monkeypatch, tmp_path, "workflow_dispatch", event(tmp_path, "workflow_dispatch.json"))
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-secret")

    assert _ci(root, server, "--mode", "compress", "--max-rollouts", "40") == 0  # nothing failed: only warnings

    values = read_outputs(output)
    assert values["work"] == "compress" and values["verdict"] == "warn" and server.calls <= 40
    folder = Path(values["compress-report"])
    first = json.loads((folder / "skills-acme.json").read_text())
    second = json.loads((folder / "skills-beta.json").read_text())
    assert first["stopped_by"] is None and first["cost"]["rollouts"] < 40  # the first skill ran in full
    assert second["stopped_by"] == "max_rollouts"  # the second got what the first left, and stopped
    assert first["cost"]["rollouts"] + second["cost"]["rollouts"] == server.calls <= 40
    assert not (folder / "skills-gamma.json").exists()  # the third found nothing left
    text = summary.read_text()
    assert "Compression did not run for skills/gamma: the run's budget was spent." in text
    assert "skills/notes" in text and "not compressed" in text
    assert "Stopped by max\\_rollouts" in text
