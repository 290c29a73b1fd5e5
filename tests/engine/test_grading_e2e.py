"""Grading what the agent left behind, and grading again without paying for the agent again.

The built-in harness talks real HTTP to a scripted server whose "agent" writes a report into its
workspace and then answers. The workspace is gone by the time grading runs; the grader reads the
report from the rollout's captured artifacts, today from the run, later from the cache or journal.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from aces_ci.agents import HarnessSpec, RolloutRequest, create_harness
from aces_ci.engine import RolloutBatch, RolloutCache, RolloutEngine
from aces_ci.grading import Grader, Grades, GradingInput, MetricGrade
from aces_ci.schemas import validator
from tests.engine.helpers import case, fast_clients, openai_model, request
from tests.servers import ScriptedRequest, ScriptedServer, ToolUse

Server = Callable[..., ScriptedServer]
SPEC = HarnessSpec(name="builtin", disclosure="on-demand", max_turns=4, timeout_s=30)
REPORT = "# Totals\n\nprojects: 12\ntotal: 42\n"


def writes_a_report(req: ScriptedRequest) -> ToolUse:
    if not req.tool_results:
        return ToolUse("write_file", {"path": "out/report.md", "content": REPORT})
    return ToolUse("final_answer", {"answer": "the report is in out/report.md"})


class ReportTotal:
    """Goal accuracy of a file-producing task: does out/report.md state the right total?"""

    name = "report-total"
    metrics: tuple[str, ...] = ("report_total",)

    async def grade(self, rollout: GradingInput) -> Grades:
        text = rollout.artifacts.text("out/report.md")
        if text is None:
            grade = MetricGrade.could_not_grade("report_total", "the agent wrote no out/report.md")
        else:
            grade = MetricGrade.graded("report_total", 1.0 if "total: 42" in text.splitlines() else 0.0)
        return Grades(self.name, (grade,))


class ReportLines:
    """A grader written after the rollouts were paid for."""

    name = "report-lines"
    metrics: tuple[str, ...] = ("report_has_heading", "report_lines")

    async def grade(self, rollout: GradingInput) -> Grades:
        text = rollout.artifacts.text("out/report.md") or ""
        return Grades(
            self.name,
            (
                MetricGrade.graded("report_has_heading", 1.0 if text.startswith("# ") else 0.0),
                MetricGrade.graded("report_lines", min(1.0, len(text.splitlines()) / 10)),
            ),
        )


def requests(server: ScriptedServer) -> list[RolloutRequest]:
    model = openai_model(server.openai_url)
    return [
        request("with", harness=SPEC, model=model, eval_case=case(f"report-{i}"), fixtures={"data.csv": b"a,b\n"})
        for i in range(3)
    ]


async def run_with(
    server: ScriptedServer, grader: Grader, tmp_path: Path, *, cache: bool = True, journal: bool = False
) -> RolloutBatch:
    clients = fast_clients()
    try:
        engine = RolloutEngine(
            create_harness(SPEC, clients=clients),
            cache=RolloutCache(tmp_path / "cache") if cache else None,
            journal=tmp_path / "journal.jsonl" if journal else None,
            workspace_dir=tmp_path / "workspaces",
        )
        async with engine:
            return await engine.run(requests(server), grader=grader)
    finally:
        await clients.aclose()


async def test_a_grader_reads_the_file_the_agent_wrote_after_its_workspace_is_gone(
    scripted_server: Server, tmp_path: Path
) -> None:
    server = scripted_server(writes_a_report)
    (tmp_path / "workspaces").mkdir()
    batch = await run_with(server, ReportTotal(), tmp_path)
    assert server.calls == 6 and not list((tmp_path / "workspaces").iterdir())
    assert [r.value("report_total") for r in batch.records] == [1.0, 1.0, 1.0]
    artifacts = batch.records[0].result.artifacts
    assert [a.path for a in artifacts.files] == ["out/report.md"]  # data.csv and the skill were staged, untouched
    assert artifacts.text("out/report.md") == REPORT


async def test_regrading_a_cached_batch_with_another_grader_makes_no_model_call(
    scripted_server: Server, tmp_path: Path
) -> None:
    server = scripted_server(writes_a_report)
    (tmp_path / "workspaces").mkdir()
    await run_with(server, ReportTotal(), tmp_path)
    paid = server.calls
    regraded = await run_with(server, ReportLines(), tmp_path)
    assert server.calls == paid
    assert [r.source for r in regraded.records] == ["cache"] * 3
    assert [(r.value("report_has_heading"), r.value("report_lines")) for r in regraded.records] == [(1.0, 0.4)] * 3
    assert regraded.usage.model_calls == 0
    entries = [json.loads(p.read_text()) for p in (tmp_path / "cache").rglob("*.json")]
    assert len(entries) == 3 and all(e["result"]["artifacts"]["files"][0]["text"] == REPORT for e in entries)
    assert not [e.message for entry in entries for e in validator("rollout-store").iter_errors(entry)]


async def test_regrading_from_the_journal_alone_makes_no_model_call(scripted_server: Server, tmp_path: Path) -> None:
    server = scripted_server(writes_a_report)
    (tmp_path / "workspaces").mkdir()
    await run_with(server, ReportTotal(), tmp_path, cache=False, journal=True)
    paid = server.calls
    regraded = await run_with(server, ReportLines(), tmp_path, cache=False, journal=True)
    assert server.calls == paid and [r.source for r in regraded.records] == ["journal"] * 3
    assert [r.value("report_has_heading") for r in regraded.records] == [1.0] * 3


async def test_one_engine_grades_one_batch_with_two_graders_and_pays_once(
    scripted_server: Server, tmp_path: Path
) -> None:
    server = scripted_server(writes_a_report)
    clients = fast_clients()
    try:
        async with RolloutEngine(create_harness(SPEC, clients=clients)) as engine:
            first = await engine.run(requests(server), grader=ReportTotal())
            second = await engine.run(requests(server), grader=ReportLines())
    finally:
        await clients.aclose()
    assert server.calls == 6 and [r.source for r in second.records] == ["session"] * 3
    assert first.records[0].grades is not None and first.records[0].grades.grader == "report-total"
    assert second.records[0].grades is not None and second.records[0].grades.grader == "report-lines"
