"""Progress output for terminals and CI logs, and the budget meter's caps."""

from __future__ import annotations

import io

import pytest

from aces_ci.engine import BarProgress, Budget, BudgetMeter, LineProgress, auto_progress
from aces_ci.errors import ConfigError
from tests.engine.helpers import case, request


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_ci_logs_count_on_across_batches_and_show_every_outcome() -> None:
    stream = io.StringIO()
    progress = LineProgress(stream)
    progress.expect(3)
    progress.advance(request("with", eval_case=case("refund")), "done", 1.234)
    progress.advance(request("without", eval_case=case("refund"), replicate=2), "infra_error (timeout)", 300)
    progress.advance(request("with", eval_case=case("hours")), "done", 0.5)
    progress.expect(97)  # the command's next batch
    progress.advance(request("base", eval_case=case("refund")), "cached", 0)
    progress.close()
    assert stream.getvalue().splitlines() == [
        "[1/3] 33%: 1 done (latest: case=refund condition=with replicate=0 done 1.2s)",
        "[2/3] case=refund condition=without replicate=2 infra_error (timeout) 300.0s",
        "[3/3] 100%: 2 done, 1 infra_error (latest: case=hours condition=with replicate=0 done 0.5s)",
        "[  4/100] 4%: 2 done, 1 infra_error, 1 cached (latest: case=refund condition=base replicate=0 cached 0.0s)",
        "rollouts: 4 of 100 finished (2 done, 1 infra_error, 1 cached)",
    ]


def test_a_ci_log_of_hundreds_of_rollouts_stays_short_and_keeps_the_failures() -> None:
    stream = io.StringIO()
    progress = LineProgress(stream)
    progress.expect(592)  # a small valuation
    failed = {100: "infra_error (timeout)", 300: "infra_error (rate_limited)"}
    for i in range(1, 593):
        progress.advance(request("with", eval_case=case(f"q{i}")), failed.get(i, "done"), 1.0)
    progress.close()
    lines = stream.getvalue().splitlines()
    assert len(lines) <= 11 + 2 + 1, "the first rollout and one line per tenth, each failure, the summary"
    assert [line for line in lines if "%:" not in line][:-1] == [
        "[100/592] case=q100 condition=with replicate=0 infra_error (timeout) 1.0s",
        "[300/592] case=q300 condition=with replicate=0 infra_error (rate_limited) 1.0s",
    ]
    assert (
        lines[-2] == "[592/592] 100%: 590 done, 2 infra_error (latest: case=q592 condition=with replicate=0 done 1.0s)"
    )
    assert lines[-1] == "rollouts: 592 of 592 finished (590 done, 2 infra_error)"


def test_after_the_first_failures_a_ci_log_counts_the_rest() -> None:
    stream = io.StringIO()
    progress = LineProgress(stream)
    progress.expect(400)
    for i in range(400):  # the endpoint is down: every rollout fails
        progress.advance(request("with", eval_case=case(f"q{i}")), "infra_error (connection)", 0.1)
    progress.close()
    lines = stream.getvalue().splitlines()
    listed = [line for line in lines if line.endswith("0.1s") or "counted, not listed" in line]
    assert len(listed) == 5 and listed[-1].endswith("(later ones are counted, not listed)")
    assert len(lines) <= 5 + 11 + 1 and lines[-1] == "rollouts: 400 of 400 finished (400 infra_error)"


@pytest.mark.parametrize(
    ("ci", "stream", "expected"),
    [
        ("true", Terminal(), LineProgress),
        ("", Terminal(), BarProgress),
        ("", io.StringIO(), LineProgress),
    ],
)
def test_a_bar_only_on_an_interactive_terminal_outside_ci(
    monkeypatch: pytest.MonkeyPatch, ci: str, stream: io.StringIO, expected: type
) -> None:
    monkeypatch.setenv("CI", ci)
    progress = auto_progress(stream)
    assert isinstance(progress, expected)
    progress.expect(1)
    progress.advance(request("with"), "cached", 0.0)
    progress.expect(1)
    progress.advance(request("with", replicate=1), "cached", 0.0)
    progress.stopped("budget_usd", 3)
    progress.close()
    assert "case=c1" in stream.getvalue()
    assert "stopped by the dollar budget: 3 rollouts not run" in stream.getvalue()


def test_the_meter_reports_the_first_cap_reached() -> None:
    now = [0.0]
    meter = BudgetMeter(Budget(max_rollouts=3, max_usd=1.0, max_wall_s=10), clock=lambda: now[0])
    assert meter.exhausted() is None
    meter.launch()
    meter.spend(1.0)
    assert meter.exhausted() == "budget_usd"
    meter = BudgetMeter(Budget(max_wall_s=10), clock=lambda: now[0])
    now[0] = 9.5
    assert meter.exhausted() is None and meter.wall_left() == pytest.approx(0.5)
    now[0] = 10.0
    assert meter.exhausted() == "max_wall"
    assert BudgetMeter(Budget(max_rollouts=0)).exhausted() == "max_rollouts"


@pytest.mark.parametrize(
    "budget", [{"max_rollouts": -1}, {"max_usd": -0.5}, {"max_usd": float("nan")}, {"max_wall_s": 0}]
)
def test_impossible_budgets_are_config_errors(budget: dict) -> None:
    with pytest.raises(ConfigError):
        Budget(**budget)
