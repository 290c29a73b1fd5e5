"""``aces-ci value``'s text: the plan before anything is spent, then what to do with each unit, and why.

:func:`render_value_plan` prints the design and its cost (scores, rollouts) before a valuation pays for
anything; :func:`render_value_text` prints a :class:`~aces_ci.skillsv.ValueReport` decisions first —
the units to cut, compress and settle — then the anchors, the per-case scores, every unit's net
effect, content value and context cost with its interval, the pruning test and the cost. A valuation
that completed no chain says so and prints nothing that reads like a finding.
"""

from __future__ import annotations

from typing import TextIO

from tabulate import tabulate

from ..safe_text import inline
from ..skillsv import (
    CompiledSkill,
    Estimate,
    Plan,
    UnitValue,
    Valuation,
    ValueReport,
    ValueSettings,
    decision_line,
    decision_summary,
    look_level,
    resolution_line,
)
from ._common import plural


def render_value_plan(game: CompiledSkill, plan: Plan | None, settings: ValueSettings, runs: int, out: TextIO) -> None:
    """The design (``plan``; None: exact) and its cost at ``runs`` rollouts a score, before anything is spent."""
    if plan is None:
        out.write(f"plan for {inline(game.name)}: exact enumeration of every feasible coalition on every case\n")
        return
    design = plan.settings
    operators = "+".join(f"ρ_{op}" for op in design.operators)
    rollouts = plan.scores * runs
    out.write(
        f"plan for {inline(game.name)}: K={design.orders} orders × {design.window} cases a window, {operators}: "
        f"{plan.scores:,} coalition scores = up to {rollouts:,} rollouts ({runs} a score; scores already in the "
        "cache are free)"
    )
    if settings.holdout:
        out.write(", plus the pruning test on the held-out cases")
    cap = f"; --budget-usd ${design.max_usd:g} caps the dollars" if design.max_usd is not None else ""
    out.write(f"; dollars are counted as the rollouts are priced{cap}\n")
    if plan.notes:
        out.write(f"sized to the budget of {design.budget_scores:,} scores: {'; '.join(plan.notes)}\n")


def _shown(estimate: Estimate | None, signed: bool = True) -> str:
    if estimate is None:
        return "-"
    text = f"{estimate.value:+.3f}" if signed else f"{estimate.value:.3f}"
    if estimate.ci is not None:
        text += (
            f" [{estimate.ci.lo:+.3f}, {estimate.ci.hi:+.3f}]"
            if signed
            else f" [{estimate.ci.lo:.3f}, {estimate.ci.hi:.3f}]"
        )
    return text


def _paid(report: ValueReport) -> str:
    """Rollouts paid in every session and what this run added; what the cache and the journal served."""
    sessions = report.sessions
    if sessions is None:
        return f"{report.paid_now:,} rollouts paid"
    return (
        f"{report.paid:,} rollouts paid in every session ({report.paid_now:,} by this run, {sessions.earlier:,} by "
        f"earlier ones per the journal; {sessions.reused:,} served from the rollout cache or journal this run)"
    )


def _header(report: ValueReport, out: TextIO) -> None:
    game, valuation, settings = report.game, report.valuation, report.settings
    estimator = settings.estimator
    operators = "+".join(estimator.operators)
    method = (
        "exact enumeration"
        if valuation.method == "exact"
        else (
            f"K={estimator.orders} b={min(estimator.window, report.attribution_tasks)} "
            f"τ={estimator.tolerance if estimator.tolerance is not None else 'off'} "
            f"{valuation.pooling or estimator.pooling}"
            f"{_model_text(valuation, estimator.sample_share)}"
        )
    )
    out.write(
        f"SkillSV values of {inline(game.name)} · oracle {inline(report.oracle)} · μ {estimator.distribution} · "
        f"{method} · {operators} · seed {estimator.seed}\n"
    )
    held = report.held_out.tasks if report.held_out else 0
    judge = f" · judge {inline(settings.score.judge)}" if settings.score.judge else ""  # model names: aces.yml's
    out.write(f"score of a case: {inline(settings.score.definition)}{judge}\n")
    out.write(f"cases: {report.attribution_tasks} for attribution, {held} held out for the pruning test\n\n")


def _model_text(valuation: Valuation, sample_share: float) -> str:
    """`` + interaction model`` and, under a budget, that most scores were sampled half-coalitions (K and b
    then describe only the chains' small share)."""
    if valuation.estimator != "interaction":
        return ""
    if sample_share <= 0:
        return " + interaction model"
    return f" + interaction model on sampled half-coalitions ({sample_share:.0%} of the scores)"


def _stop_reason(valuation: Valuation) -> str:
    return {
        "max_evaluations": "--max-evaluations",
        "budget_usd": "--budget-usd",
        "max_rollouts": "--max-rollouts",
        "max_wall": "--max-wall",
        "oracle_error": "an oracle failure",
    }.get(valuation.stopped_by or "", valuation.stopped_by or "")


def _need(unit: UnitValue, runs: int) -> str:
    """`` (~2,600 more rollouts, likely 1,300–5,200)``: the forecast and the middle 80% of simulated runs, in
    rollouts (the scores times ``runs``, the rollouts a score is the mean of)."""
    if not unit.scores_to_decide:
        return ""
    span = ""
    if unit.scores_range is not None:
        low, high = unit.scores_range
        span = f", likely {low * runs:,}–{high * runs:,}" if high is not None else f", likely {low * runs:,} or more"
    return f" (~{unit.scores_to_decide * runs:,} more rollouts{span})"


def _decisions_text(report: ValueReport, out: TextIO) -> None:
    """What to do, first: the decision sentence, then the units to cut, compress and settle."""
    game, valuation = report.game, report.valuation
    summary = decision_summary(game, valuation)
    runs = report.settings.score.runs
    out.write(f"decisions (δ = {valuation.margin:g}): {decision_line(summary, valuation.margin, runs)}\n")
    by_id = {unit.unit: unit for unit in valuation.units}
    for label, ids in (("cut", summary.cut), ("compress", summary.compress), ("unresolved", summary.unresolved)):
        for unit_id in ids:
            unit, player = by_id[unit_id], game.player(unit_id)
            need = _need(unit, runs)
            out.write(
                f"  {label:<10} {inline(player.file)}:{player.lines[0]}  {unit_id}  {_shown(unit.net_effect)}  "
                f"{inline(unit.reason)}{need}\n"
            )
    if summary.cut:  # an equivalence test is only as good as the value it reads (BENCHMARKS.md, round ten)
        out.write("  before cutting: `aces-ci compress` scores the cut skill against the original on held-out cases\n")
    resolution = resolution_line(summary, valuation.margin)
    if resolution is not None:
        out.write(f"  {resolution}\n")
    out.write("\n")


def render_value_text(report: ValueReport, out: TextIO) -> None:
    """The report for a terminal, what to do first (see the module docstring)."""
    game, valuation = report.game, report.valuation
    _header(report, out)
    if not valuation.measured:
        _nothing_measured(report, out)
        return
    _decisions_text(report, out)
    anchors = valuation.anchors
    out.write(
        f"anchors (ρ_del): V(∅) {_shown(anchors['empty'], False)} · V({{m}}) {_shown(anchors['trigger_only'], False)}"
        f" · V(N) {_shown(anchors['full'], False)}\n"
        f"trigger value θ_m {_shown(valuation.trigger_value)} · content lift Λ = V(N) − V({{m}}) "
        f"{_shown(valuation.content_lift)}\n"
    )
    if report.closure_is_check:  # without truncation Σφ = the window means of Λ by construction
        out.write(
            f"sum of net effects {_shown(valuation.sum_values)} · closure Σφ/Λ "
            f"{_shown(valuation.closure_ratio, False)} (truncation can break it)\n"
        )
    _cases_text(valuation, out)
    out.write("\n")
    rows = []
    ordered = sorted(valuation.units, key=lambda u: -(u.net_effect.value if u.net_effect else float("-inf")))
    for unit in ordered:
        player = game.player(unit.unit)
        rows.append(
            [
                unit.unit,
                f"{inline(player.file)}:{player.lines[0]}",
                f"{player.tokens:,}",
                _shown(unit.net_effect),
                _shown(unit.content_value),
                _shown(unit.context_cost),
                unit.decision,
                inline(player.preview[:40]),
            ]
        )
    headers = ["unit", "where", "tokens", "net effect [95% CI]", "content value", "context cost", "decision", "preview"]
    out.write(tabulate(rows, headers=headers, disable_numparse=True) + "\n")
    if valuation.interactions:
        _interactions_text(valuation, out)
    if valuation.groups:
        out.write("\nby section and folder (sums of net effects):\n")
        for group in valuation.groups:
            out.write(f"  {inline(group.label)}: {_shown(group.net_effect)} over {plural(len(group.units), 'unit')}\n")
    _cost_text(report, out)
    if report.held_out is not None:
        block = report.held_out
        out.write(
            f"\npruning test on {block.tasks} held-out cases (V(N) {block.full:.3f} → V({{m}}) "
            f"{block.trigger_only:.3f}); AUC, higher keeps more score while removing units:\n"
        )
        for curve in block.curves:
            out.write(f"  {curve.method}: {curve.auc:.3f}\n")
    if report.fitted:
        out.write(f"\ndesign sized to the budget: {'; '.join(report.fitted)}\n")
    if report.decided_first is not None:
        _adaptive_text(report, out)
    if valuation.left_out:
        out.write(
            f"\n{valuation.left_out} chain(s) left out: a score they needed failed twice "
            f"({inline(valuation.failure or 'no message')}); "
            "the values come from the other chains, and a rerun retries it\n"
        )
    elif valuation.failure:
        out.write(f"\na failed score was retried and then scored ({inline(valuation.failure)})\n")
    if valuation.stopped_by is not None:
        out.write(
            f"\nSTOPPED by {_stop_reason(valuation)} after {valuation.chains}/{valuation.chains_planned} chains: the "
            "values above come from the completed chains only and their intervals are wider. Every score is "
            "cached: a rerun resumes.\n"
        )
        if valuation.error:
            out.write(f"  {inline(valuation.error)}\n")


def _interactions_text(valuation: Valuation, out: TextIO) -> None:
    """The pairs the model found, each with what it means for cutting one of them."""
    out.write(
        "\ninteractions (pair terms away from 0 at 5% for all the pairs tested together; sizes read low, shrunk "
        "by the fit):\n"
    )
    for pair in valuation.interactions:
        first, second = pair.units
        meaning = (
            "work together: cutting one takes the pair's share with it"
            if pair.effect.value > 0
            else "overlap: either does much of the other's work"
        )
        out.write(f"  {first} × {second}  {_shown(pair.effect)}  {meaning}\n")


def _adaptive_text(report: ValueReport, out: TextIO) -> None:
    """What adaptive allocation's first look settled, and whether the second half of the budget was paid."""
    first, second = look_level(1), look_level(2)
    out.write(
        f"adaptive allocation: {report.decided_first} of {len(report.valuation.units)} units decided at the first "
        f"look (half the budget, {first:.1%} intervals); "
    )
    if report.second_look_scores:
        out.write(f"the second look paid {report.second_look_scores:,} more scores ({second:.1%} intervals)\n")
    else:
        out.write("the second half of the budget was not paid\n")


_CASES_SHOWN = 30


def _cases_text(valuation: Valuation, out: TextIO) -> None:
    """The whole skill's score per case beside the bare agent's: a unit is credited only where they differ."""
    cases = valuation.cases
    if not cases:
        return
    flat = [c.case for c in cases if c.full is not None and c.empty is not None and abs(c.full - c.empty) < 1e-12]
    if flat:
        more = f" and {len(flat) - 10} more" if len(flat) > 10 else ""
        shown = ", ".join(inline(case) for case in flat[:10]) + more
        out.write(
            f"on {len(flat)} of {len(cases)} cases the whole skill scores as the bare agent does ({shown}): no unit "
            "is credited there, whatever it says\n"
        )
    if len(cases) <= _CASES_SHOWN:
        scores = " · ".join(f"{inline(c.case)} {_score(c.empty)}→{_score(c.full)}" for c in cases)
        out.write(f"per case, bare agent → whole skill: {scores}\n")


def _score(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def _cost_text(report: ValueReport, out: TextIO) -> None:
    valuation = report.valuation
    cost = valuation.cost
    if valuation.method == "estimate":
        out.write(
            f"\ncost: {_paid(report)} (${cost.cost_usd:.4f}); {cost.evaluations:,} coalition scores "
            f"asked of the oracle, {cost.served:,} of them served free from the caches (paid by an earlier run); "
            f"{cost.requested:,} scores used, repeats served by the in-run coalition cache\n"
            f"{valuation.chains}/{valuation.chains_planned} chains completed"
        )
        if valuation.truncation_rate is not None and report.settings.estimator.tolerance is not None:
            out.write(f"; {valuation.truncation_rate:.0%} of intermediate prefixes scored before truncation")
        out.write("\n")
    else:
        out.write(f"\ncost: {_paid(report)} for {cost.evaluations:,} coalition scores (exact)\n")


def _nothing_measured(report: ValueReport, out: TextIO) -> None:
    """No completed chain: say what ran and why it stopped, and nothing that reads like a finding."""
    valuation = report.valuation
    cost = valuation.cost
    why = _stop_reason(valuation) if valuation.stopped_by else "nothing to run"
    out.write(
        f"NO VALUES: the valuation stopped ({why}) before any of its {valuation.chains_planned} chains completed, "
        "so no unit has a value and nothing is concluded about any unit.\n"
        f"What ran: {cost.evaluations:,} coalition scores asked of the oracle, {cost.rollouts:,} rollouts paid, "
        f"${cost.cost_usd:.4f}. Every score is cached: a rerun with a larger budget resumes from them.\n"
    )
    if valuation.error:
        out.write(f"  {inline(valuation.error)}\n")
