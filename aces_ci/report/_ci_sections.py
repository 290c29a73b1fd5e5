"""Markdown sections of the CI comment, each rendered from a result model (compact Markdown tables).

* :func:`scan_table`/:func:`findings_table` — the static tier, every location a link to its line
  at the commit;
* :func:`lift_table`, :func:`cost_table`, :func:`estimand_section` — a skill's paired trial
  (:class:`~aces_ci.report.SkillTrial`);
* :func:`score_vs_lift` — per skill, structural score beside measured lift, with their Spearman
  rank correlation (ACES found ρ ≈ 0: a tidy document is not necessarily a useful one).

Text quoting a skill is escaped for where it lands (:mod:`aces_ci.report._md_escape`: table cell,
``<summary>``), so a ``|`` in a message cannot break a table and no HTML or mention gets through.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence

import numpy as np

from ..scan import Finding, RuleRegistry, ScanResult, Severity, SkillReport
from ._common import by_severity_then_location, find_rule, fix_hint, plural, severity_counts, skill_title
from ._links import SourceLinks
from ._live_model import TRIAL_METRICS, ArmCost, MetricLift, SkillTrial
from ._markdown import _judge_cell
from ._md_escape import cell as _cell
from ._md_escape import html_text
from ._mermaid import NO_VARIATION

MIN_SKILLS_FOR_CORRELATION = 3
"""Below this a rank correlation is not defined in any useful sense."""
FEW_SKILLS = 10
"""Below this the correlation is shown but labelled as too few skills to support a claim."""
_RULES = {"left": ":---", "right": "---:", "center": ":---:"}


def _table(headers: Sequence[str], rows: Sequence[Sequence[str]], align: Sequence[str]) -> str:
    """A Markdown table without padding: GitHub aligns the columns itself, and the comment has a size to keep.

    Padding every cell to its column's widest (a link of 130 characters) more than doubled a scan-only
    comment; the cells are already escaped for Markdown by their callers.
    """
    lines = ["| " + " | ".join(headers) + " |", "|" + "|".join(_RULES.get(a, "---") for a in align) + "|"]
    lines.extend("| " + " | ".join(row) + " |" for row in rows)
    return "\n".join(lines) + "\n"


def _link(text: str, url: str | None) -> str:
    return f"[{text}]({url})" if url else text


def _verdict(verdict: str) -> str:
    return "✅ pass" if verdict == "pass" else "❌ fail"


def scan_table(result: ScanResult, links: SourceLinks | None, changed: Sequence[str] | None = None) -> str:
    """One row per skill: verdict, structural score, judge score, findings by severity, a link to SKILL.md.

    ``changed`` (skill directories relative to the scanned root) marks the skills this change touched. The
    judge-score column appears only when the judge scored a skill: a column of dashes says nothing.
    """
    marked = set(changed or ())
    judged = any(report.judge is not None for report in result.skills)
    rows = []
    for report in result.skills:
        counts = severity_counts(report.findings)
        name = _cell(skill_title(report.skill, report.name), 120)
        url = links.url(report.skill_md) if links else None
        rows.append(
            [
                _link(name, url) + (" ✎" if report.skill in marked else ""),
                _verdict(report.verdict),
                str(report.score.value),
                *([_judge_cell(report.judge)] if judged else []),
                str(counts[Severity.ERROR]),
                str(counts[Severity.WARNING]),
                str(counts[Severity.NOTE]),
            ]
        )
    headers = ("Skill", "Verdict", "Structural score", *(("Judge score",) if judged else ()), "Errors", "Warnings")
    table = _table((*headers, "Notes"), rows, ("left", "left", *("right",) * (len(headers) - 1)))
    if marked:
        table += "\n✎ changed in this change.\n"
    return table


RULES_PAGE = "https://github.com/aces-ci/aces-ci/blob/main/docs/rules.md"
"""Where the built-in rules are documented, one heading per rule (:meth:`aces_ci.scan.Rule.help_uri`)."""


def _finding_row(finding: Finding, registry: RuleRegistry, links: SourceLinks | None, skill: str) -> list[str]:
    """One finding; its location is named from the skill's directory (the block is the skill's), linked in full."""
    prefix = f"{skill}/" if skill not in ("", ".") else ""
    location = str(finding.location)
    where = _cell(location.removeprefix(prefix) if location.startswith(prefix) else location, 200)
    url = links.url(finding.location.path, finding.location.line) if links else None
    rule = find_rule(registry, finding.rule_id)
    help_uri = rule.help_uri() if rule is not None else None
    # a rule documented on the rules page is named plainly: the column's header links the page (one link, not
    # one per row); a rule documented elsewhere keeps its own link
    shared = help_uri is not None and help_uri.startswith(f"{RULES_PAGE}#")
    rule_cell = _link(_cell(finding.rule_id, 40), None if shared else help_uri)
    return [
        _link(where, url),
        rule_cell,
        _cell(f"{finding.severity.value}: {finding.message}", 500),
        _cell(fix_hint(finding, registry) or "", 300),
    ]


def findings_table(
    report: SkillReport, registry: RuleRegistry, links: SourceLinks | None, max_chars: int
) -> tuple[str, int]:
    """A collapsed block of the skill's active findings, worst first, within ``max_chars``.

    The skill's verdict reasons are not repeated here: the comment's gate criteria above state them, in the
    same words (:func:`aces_ci.scan.skill_checks`). Returns the Markdown and how many findings did not fit.
    """
    findings = by_severity_then_location(report.active_findings)
    title = html_text(skill_title(report.skill, report.name), 120)
    head = f"<details>\n<summary><b>{title}</b>: {_verdict(report.verdict)}, {plural(len(findings), 'finding')}"
    head += "</summary>\n\n"
    close = "\n</details>\n\n"
    rows = [_finding_row(finding, registry, links, report.skill) for finding in findings]
    # the size is known only once rendered (cells vary in length):
    # drop rows from the end (worst findings come first) until the block fits.
    while True:
        left = len(findings) - len(rows)
        body = _table(("Location", f"[Rule]({RULES_PAGE})", "Message", "Fix"), rows, ("left",) * 4) if rows else ""
        note = f"\n_{plural(left, 'more finding')} not shown here; the full report lists them._\n" if left else ""
        if len(head) + len(body) + len(note) + len(close) <= max_chars or not rows:
            break
        excess = len(head) + len(body) + len(note) + len(close) - max_chars
        average = max(len(body) // max(len(rows), 1), 1)
        rows = rows[: max(len(rows) - max(excess // average, 1), 0)]
    return head + body + note + close, left


_FULL_HASH = re.compile(r"\b[0-9a-f]{40}\b")
_SENTENCE_END = re.compile(r"(?<=\.) ")


def short_hashes(text: str) -> str:
    """``text`` with each full 40-character commit hash cut to 12 characters, as ``git log --oneline`` would show
    it: a contrast against a base commit names it in the headline, the chart and the estimand, and the full hash
    (kept in the JSON and the ``lift-contrast`` output) made each mention 28 characters longer."""
    return _FULL_HASH.sub(lambda match: match.group(0)[:12], text)


def fmt_lift(value: float) -> str:
    """A lift with its sign: ``+0.120``, ``-0.050``."""
    return f"{value:+.3f}"


def fmt_interval(ci: tuple[float, float]) -> str:
    return f"[{ci[0]:+.3f}, {ci[1]:+.3f}]"


def metric_lifts(trial: SkillTrial) -> list[tuple[str, MetricLift]]:
    """The metrics that apply to this trial, in table order (known metrics first, then any others)."""
    names = [m for m in TRIAL_METRICS if m in trial.lift] + sorted(m for m in trial.lift if m not in TRIAL_METRICS)
    return [(name, lift) for name in names if (lift := trial.lift[name]) is not None]


COINCIDE = "outcome = accuracy"
"""The one row (and bar) of outcome and accuracy when they coincide (:func:`shown_lifts`)."""


def _figures(lift: MetricLift) -> tuple[object, ...]:
    """What a lift table row and chart bar show of a lift."""
    return (lift.delta, lift.ci, lift.se, lift.with_mean, lift.without_mean, lift.n_cases, lift.runs_per_arm, lift.mde)


def shown_lifts(trial: SkillTrial) -> list[tuple[str, MetricLift]]:
    """:func:`metric_lifts`, with outcome and accuracy as one entry named :data:`COINCIDE` when goal accuracy does
    not apply to the cases: outcome is then accuracy alone, and two identical rows and bars said nothing more."""
    lifts = metric_lifts(trial)
    named = dict(lifts)
    outcome, accuracy = named.get("outcome"), named.get("accuracy")
    if outcome is None or accuracy is None or trial.lift.get("goal_accuracy") is not None:
        return lifts
    if _figures(outcome) != _figures(accuracy):
        return lifts
    return [(COINCIDE, lift) if name == "outcome" else (name, lift) for name, lift in lifts if name != "accuracy"]


def lift_table(trial: SkillTrial, confidence: float) -> str:
    """Per metric: lift, its interval, both arms' means, n cases, runs per arm, the smallest detectable lift."""
    level = f"{round(confidence * 100)}% interval"
    lifts = shown_lifts(trial)
    rows = [
        [
            name.replace("_", " "),
            fmt_lift(lift.delta),
            fmt_interval(lift.ci) + ("" if lift.se is not None else f" ({NO_VARIATION})"),
            f"{lift.with_mean:.3f}",
            f"{lift.without_mean:.3f}",
            str(lift.n_cases),
            str(lift.runs_per_arm),
            "—" if lift.mde is None else f"{lift.mde:.3f}",
        ]
        for name, lift in lifts
    ]
    missing = sorted(name.replace("_", " ") for name, lift in trial.lift.items() if lift is None)
    headers = ("Metric", "Lift", level, "With", "Control", "Cases", "Runs/arm", "Detectable lift")
    table = _table(headers, rows, ("left", "right", "right", "right", "right", "right", "right", "right"))
    if missing and not rows:  # nothing scored at all: an outage (the gate's criteria say why), not "not applicable"
        table += f"\nNo metric has a measured pair of rollouts: {', '.join(missing)}.\n"
    elif missing:
        table += f"\nNot applicable to this skill's cases: {', '.join(missing)}.\n"
    if any(name == COINCIDE for name, _ in lifts):
        table += "\nOutcome and accuracy coincide: with no goal accuracy, outcome is accuracy alone.\n"
    if trial.discordance is not None:
        d = trial.discordance
        table += (
            f"\nPaired discordance (per case, under this protocol; not a measure of harm): "
            f"{d.gains} gains, {d.regressions} regressions, {d.ties} ties.\n"
        )
    return table


COUNTED_METRICS = frozenset({"accuracy", "goal_accuracy", "outcome"})
"""Metrics whose runs score 0 or 1 (outcome: both parts binary), shown as counts when the means are whole counts."""


def _count(mean: float, runs: int) -> str | None:
    """``k/N`` when ``mean`` is exactly k successes of N scored runs, else None."""
    k = mean * runs
    return f"{round(k)}/{runs}" if runs > 0 and abs(k - round(k)) < 1e-6 else None


def _ratio(treated: float, control: float) -> str:
    return "—" if control <= 0 else f"×{treated / control:.2f}"


def cost_ratio(costs: Sequence[ArmCost]) -> str:
    """The cost line: tokens, turns and dollars per rollout of the first arm against the second, as ratios.

    Arm labels are ours (``with``, ``without``, ``aa``) or a git ref; the caller escapes the line.
    """
    if len(costs) < 2 or costs[0].rollouts == 0 or costs[1].rollouts == 0:
        return ""
    a, b = costs[0], costs[1]
    tokens = _ratio((a.input_tokens + a.output_tokens) / a.rollouts, (b.input_tokens + b.output_tokens) / b.rollouts)
    turns = _ratio(a.turns / a.rollouts, b.turns / b.rollouts)
    dollars = "" if a.usd is None or b.usd is None else f", dollars {_ratio(a.usd / a.rollouts, b.usd / b.rollouts)}"
    return f"cost {a.arm} vs {b.arm} per rollout: tokens {tokens}, turns {turns}{dollars}"


def headline_parts(trial: SkillTrial, metric: str, confidence: float) -> tuple[str, str]:
    """(arms, size) of the headline: "accuracy 1/7 → 6/7", "+71 pp, 95% CI +26 … +100".

    Binary metrics whose means are whole counts of the scored runs read as counts; others as means.
    Every number is the result's own ``lift[metric]``, so the headline equals the JSON.
    """
    lift = trial.lift.get(metric)
    name = metric.replace("_", " ")
    if lift is None:
        return f"no {name} lift", "no case was scored in both arms"
    level = f"{round(confidence * 100)}% CI"
    runs = lift.n_cases * lift.runs_per_arm
    before, after = _count(lift.without_mean, runs), _count(lift.with_mean, runs)
    low, high = lift.ci
    if metric in COUNTED_METRICS and before is not None and after is not None:
        return f"{name} {before} → {after}", f"{100 * lift.delta:+.0f} pp, {level} {100 * low:+.0f} … {100 * high:+.0f}"
    size = f"{lift.delta:+.3f}, {level} {low:+.3f} … {high:+.3f}"
    return f"{name} {lift.without_mean:.3f} → {lift.with_mean:.3f}", size


def headline(trial: SkillTrial, metric: str, confidence: float, verdict: str) -> str:
    """The Markdown headline of one skill: arms, lift and interval, verdict, cost ratio; PR-derived text escaped."""
    arms, size = headline_parts(trial, metric, confidence)
    title = _cell(skill_title(trial.skill, trial.name), 120)
    cost = cost_ratio(trial.cost)
    contrast = _cell(short_hashes(trial.contrast), 120)
    return f"**{title}** ({contrast}): {_cell(arms, 120)}, {size}, **{_cell(verdict, 40)}**" + (
        f"; {_cell(cost, 200)}" if cost else ""
    )


MAX_CASE_ROWS = 30
"""Cases the per-case table lists; the JSON report has every one."""


def _arm(scores: Sequence[float | None], answer: str | None, escape: Callable[[str, int], str]) -> str:
    scored = [s for s in scores if s is not None]
    if not scored:
        figure = "no score"
    elif all(s in (0.0, 1.0) for s in scored):
        figure = f"{round(sum(scored))}/{len(scored)}"
    else:
        figure = f"{sum(scored) / len(scored):.2f}"
    return figure + ("" if answer is None else f" · {escape(answer, 200)}")


def case_rows(trial: SkillTrial, escape: Callable[[str, int], str]) -> tuple[list[list[str]], int]:
    """Per case, at most :data:`MAX_CASE_ROWS`: id, prompt, each arm's run scores and first answer, every PR-derived
    string cut and passed through ``escape`` (a Markdown cell's, or a terminal line's); and how many were left out.

    The comment and ``aces-ci trial``'s text build their per-case table from these rows, so both cut the same way.
    """
    cases = list(trial.cases)
    rows = [
        [
            escape(c.case, 80),
            escape(c.prompt or "", 200),
            _arm(c.with_scores, c.with_answer, escape),
            _arm(c.control_scores, c.control_answer, escape),
        ]
        for c in cases[:MAX_CASE_ROWS]
    ]
    return rows, max(0, len(cases) - MAX_CASE_ROWS)


CASE_HEADERS = ("Case", "Prompt", "With: score · answer", "Control: score · answer")


def case_table(trial: SkillTrial, *, prompts: bool = True) -> str:
    """Collapsed: per case the prompt and each arm's first answer (cut, redacted, escaped) with its run scores.

    ``prompts=False``: the same cases' prompts are in a table above (another contrast of the same skill), so the
    column is left out and the summary says where they are.
    """
    rows, left_out = case_rows(trial, _cell)
    if not rows:
        return ""
    more = f"\n_{plural(left_out, 'more case')} in the JSON report._\n" if left_out else ""
    headers: Sequence[str] = CASE_HEADERS
    what = "prompt, answers and scores"
    if not prompts:
        rows = [[row[0], *row[2:]] for row in rows]
        headers = (CASE_HEADERS[0], *CASE_HEADERS[2:])
        what = "answers and scores (prompts as above)"
    table = _table(headers, rows, ("left",) * len(headers))
    return (
        f"<details>\n<summary>Per case: {what} ({plural(len(trial.cases), 'case')})</summary>\n\n"
        f"{table}{more}\n</details>\n\n"
    )


def _per_rollout(total: float, rollouts: int) -> str:
    return "—" if rollouts == 0 else f"{total / rollouts:.1f}"


def cost_table(costs: Sequence[ArmCost]) -> str:
    """Per arm: rollouts, tokens (in/out/cached), turns and wall time per rollout, dollars."""
    rows = [
        [
            _cell(cost.arm, 60),
            str(cost.rollouts),
            f"{cost.input_tokens:,}",
            f"{cost.output_tokens:,}",
            f"{cost.cached_tokens:,}",
            _per_rollout(cost.turns, cost.rollouts),
            _per_rollout(cost.wall_s, cost.rollouts),
            "unpriced" if cost.usd is None else f"${cost.usd:.4f}",
        ]
        for cost in costs
    ]
    headers = (
        "Arm",
        "Rollouts",
        "Input tokens",
        "Output tokens",
        "Cached tokens",
        "Turns/rollout",
        "Wall s/rollout",
        "Cost",
    )
    return _table(headers, rows, ("left",) + ("right",) * 7)


def estimand_section(trials: Sequence[SkillTrial]) -> str:
    """The estimand of each skill's trial, in a collapsed block: what exactly the numbers estimate."""
    if not trials:
        return ""
    parts, said = [], set[str]()
    for t in trials:
        # a sentence an earlier statement made in the same words (a second contrast of the same cases) is not
        # repeated: only what differs, typically what is compared, is said again
        sentences = _SENTENCE_END.split(short_hashes(t.estimand))
        new = [sentence for sentence in sentences if sentence not in said]
        said.update(sentences)
        text = " ".join(new) + (" The rest as above." if len(new) < len(sentences) else "")
        title = _cell(skill_title(t.skill, t.name), 120)
        parts.append(f"**{title}** ({_cell(short_hashes(t.contrast), 200)}): {_cell(text, 4000)}\n")
    return "<details>\n<summary>What these numbers estimate</summary>\n\n" + "\n".join(parts) + "\n</details>\n"


def _ranks(values: Sequence[float]) -> np.ndarray:
    """Ranks 1..n, ties sharing their average rank."""
    data = np.asarray(values, dtype=float)
    order = np.argsort(data, kind="mergesort")
    ranks = np.empty(len(data), dtype=float)
    ranks[order] = np.arange(1, len(data) + 1, dtype=float)
    for value in np.unique(data):
        tied = data == value
        ranks[tied] = ranks[tied].mean()
    return ranks


def spearman(x: Sequence[float], y: Sequence[float]) -> float | None:
    """Spearman's rank correlation (ties averaged); None when undefined (too few points, or a constant)."""
    if len(x) != len(y) or len(x) < MIN_SKILLS_FOR_CORRELATION:
        return None
    rx, ry = _ranks(x), _ranks(y)
    if float(np.std(rx)) == 0.0 or float(np.std(ry)) == 0.0:
        return None
    return float(np.corrcoef(rx, ry)[0, 1])


def score_vs_lift(scan: ScanResult, trials: Sequence[SkillTrial], metric: str) -> str:
    """Per skill with a trial: structural score beside its lift on ``metric``, and their rank correlation."""
    reports: Mapping[str, SkillReport] = {report.skill: report for report in scan.skills}
    rows, scores, lifts = [], [], []
    for trial in trials:
        report = reports.get(trial.skill)
        lift = trial.lift.get(metric)
        if report is None or lift is None:
            continue
        rows.append(
            [
                _cell(skill_title(trial.skill, trial.name), 120),
                str(report.score.value),
                _judge_cell(report.judge),
                fmt_lift(lift.delta),
                fmt_interval(lift.ci),
            ]
        )
        scores.append(float(report.score.value))
        lifts.append(lift.delta)
    if not rows:
        return ""
    headers = ("Skill", "Structural score", "Judge score", f"Lift ({metric})", "Interval")
    table = _table(headers, rows, ("left", "right", "right", "right", "right"))
    rho = spearman(scores, lifts)
    if rho is None:
        note = (
            f"Rank correlation of structural score and lift: not defined for these {plural(len(rows), 'skill')} "
            f"(needs at least {MIN_SKILLS_FOR_CORRELATION} skills with different scores and lifts)."
        )
    else:
        note = (
            f"Spearman rank correlation of structural score and lift: ρ = {rho:+.2f} over {plural(len(rows), 'skill')}"
        )
        note += (
            f"; with fewer than {FEW_SKILLS} skills this describes these skills only and supports no general claim."
            if len(rows) < FEW_SKILLS
            else "."
        )
    return table + "\n" + note + "\n"
