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


def test_ci_logs_get_one_plain_line_per_rollout_counting_on_across_batches() -> None:
    stream = io.StringIO()
    progress = LineProgress(stream)
    progress.expect(12)
    progress.advance(request("with", eval_case=case("refund")), "done", 1.234)
    progress.advance(request("without", eval_case=case("refund"), replicate=2), "infra_error (timeout)", 300)
    progress.expect(88)  # the command's next batch
    progress.advance(request("base", eval_case=case("refund")), "cached", 0)
    progress.close()
    assert stream.getvalue().splitlines() == [
        "[ 1/12] case=refund condition=with replicate=0 done 1.2s",
        "[ 2/12] case=refund condition=without replicate=2 infra_error (timeout) 300.0s",
        "[  3/100] case=refund condition=base replicate=0 cached 0.0s",
    ]


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
    progress.close()
    assert "case=c1" in stream.getvalue()


def test_the_meter_reports_the_first_cap_reached() -> None:
    now = [0.0]
    meter = BudgetMeter(Budget(max_rollouts=3, max_usd=1.0, max_wall_s=10), clock=lambda: now[0])
    assert meter.exhausted() is None
    meter.launch()
    meter.spend(1.0)
    assert meter.exhausted() == "max_usd"
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
