"""The body of the sticky comment (and of the job summary): the gate's decision first, then the evidence.

Order, most important first, so that a cut (GitHub takes 65,536 characters) only ever drops the
tail: marker, verdict line, why this work ran (and what did not, e.g. trials on a fork), the
failed and warned criteria, which figure the ``lift`` output carries (when several are shown), per
skill the headline and the lift table with its chart, power and cost, scan score
vs lift, SkillSV's closure and low-value units with the pruning curve, the scan table, the
failing skills' findings, the estimand statements, and a footer. Each section is added only if
it fits; what was left out is named, with a link to the run whose artifacts hold the full report.

A run with trials also embeds a hidden digest of its trial sections; a later run of the same pull
request without trials shows them again in their place, marked with the commit they measured
(:mod:`aces_ci.github._kept`). The digest's room is set aside before any section is placed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from .. import __version__
from ..gate import GateCriterion, GateDecision
from ..report import (
    SkillTrial,
    SkillValue,
    SourceLinks,
    TrialReport,
    case_table,
    cost_table,
    estimand_section,
    findings_table,
    headline,
    lift_chart,
    lift_table,
    markdown_cell,
    markdown_code,
    markdown_html_text,
    markdown_link_url,
    pruning_chart,
    render_trigger_markdown,
    scan_table,
    score_vs_lift,
    short_hashes,
    shown_lifts,
    skill_title,
    value_markdown,
)
from ..scan import RuleRegistry, ScanResult
from ._kept import KeptTrials, keep_trials
from ._sticky import COMMENT_LIMIT

if TYPE_CHECKING:  # the history loads the statistics (numpy): only a rerun's comment needs it
    from ..trials import TriggerTrial
    from ._history import SkillChange

COMMENT_MARKER = "<!-- aces-ci:ci -->"
_RESERVE = 900
"""Characters kept for the omission note, the footer, and the binding and signature lines the comment gets when
posted (:func:`~aces_ci.github.upsert_comment`)."""
_LISTED_CRITERIA = 20


def marker_for(key: str | None) -> str:
    """The hidden marker of our comment; a ``key`` keeps several aces-ci comments apart (one per matrix job)."""
    if not key:
        return COMMENT_MARKER
    safe = "".join(ch for ch in key if ch.isalnum() or ch in "-_.")[:60]
    return f"<!-- aces-ci:ci:{safe} -->"


@dataclass(frozen=True)
class CommentInputs:
    """Everything a comment shows; the result models come from their tiers, the decision from the gate."""

    decision: GateDecision
    registry: RuleRegistry
    scan: ScanResult | None = None
    links: SourceLinks | None = None
    reason: str = ""
    """Why this work ran for this event (the plan's reason)."""
    notes: tuple[str, ...] = ()
    """What did not run and why; always shown."""
    changed: tuple[str, ...] | None = None
    """Skill directories relative to the scanned root that this change touched; None when unknown."""
    trials: TrialReport | None = None
    trials_title: str = "Paired trials"
    more_trials: Sequence[tuple[str, TrialReport]] = field(default_factory=tuple)
    """Further trials of the same run, each under its own heading (a pull request's with-vs-without)."""
    history: Sequence[SkillChange] = field(default_factory=tuple)
    """A rerun's lifts now against the last release's baselines."""
    trend: str = ""
    """A rerun's lifts beside the last stored reruns' (Markdown of :func:`aces_ci.github.trend_section`)."""
    values: Sequence[SkillValue] = field(default_factory=tuple)
    compressions: Sequence[str] = field(default_factory=tuple)
    """``mode: compress``'s proposal per skill, as Markdown already escaped
    (:func:`aces_ci.report.render_compress_comment`)."""
    triggers: TriggerTrial | None = None
    """The trigger trial of the changed skills: one line per skill, the confusion pairs collapsed."""
    full_report_url: str | None = None
    marker: str = COMMENT_MARKER
    commit: str | None = None
    kept: KeptTrials | None = None
    """Trials an earlier run of this pull request measured, shown (marked with their commit) when this run has
    none of its own (:mod:`aces_ci.github._kept`)."""
    lift: tuple[float, float, float] | None = None
    """The step's ``lift`` output (estimate, interval low, high), when a trial measured one."""
    lift_contrast: str = ""
    """What :attr:`lift` compares (the ``lift-contrast`` output)."""
    artifacts_url: str | None = None
    """Where the run's artifacts are (the HTML report among them), when ci wrote one."""
    keep_digest: bool = True
    """Embed the hidden digest of the trial sections; only a pull request's comment is read again by a later run
    (a release's or a schedule's summary carried 2.5 KB nobody reads)."""


def output_number(value: float) -> str:
    """A lift as the step outputs write it, and as the comment quotes them: the same characters."""
    return f"{value:.6g}"


def _headline(decision: GateDecision) -> str:
    failed, warned = len(decision.with_status("fail")), len(decision.with_status("warn"))
    if decision.verdict == "fail":
        extra = f", {warned} warning{'s' if warned != 1 else ''}" if warned else ""
        return f"### ❌ aces-ci: gate failed ({failed} criteri{'on' if failed == 1 else 'a'} failed{extra})"
    if decision.verdict == "error":
        errors = len(decision.with_status("error"))
        return (
            f"### 🛑 aces-ci: infrastructure error — {errors} measurement{'s' if errors != 1 else ''} the gate needs "
            "could not be made; rerun the job to retry (completed rollouts are cached)"
        )
    if decision.verdict == "warn":
        return f"### ⚠️ aces-ci: gate passed with {warned} warning{'s' if warned != 1 else ''}"
    return f"### ✅ aces-ci: gate passed ({len(decision.criteria)} criteria checked)"


def _titles(inputs: CommentInputs) -> dict[str, str]:
    """Each skill directory the comment names, as it heads the skill (:func:`~aces_ci.report.skill_title`)."""
    named: list[tuple[str, str]] = [(r.skill, r.name) for r in inputs.scan.skills] if inputs.scan else []
    reports = ([inputs.trials] if inputs.trials is not None else []) + [r for _, r in inputs.more_trials]
    named += [(t.skill, t.name) for report in reports for t in report.skills]
    named += [(v.skill, v.name) for v in inputs.values]
    return {skill: skill_title(skill, name) for skill, name in named}


def _criterion_line(
    criterion: GateCriterion, links: SourceLinks | None, titles: Mapping[str, str], *, scanned: bool = False
) -> str:
    """One failed or warned criterion. With ``scanned`` (the comment's scan table and findings link each skill and
    finding) a scan criterion names its skill without a link, and its locations from the skill's directory."""
    icon = {"fail": "❌", "error": "🛑"}.get(criterion.status, "⚠️")
    subject = markdown_cell(titles.get(criterion.subject, criterion.subject), 120)
    message = criterion.message
    if scanned and criterion.name.startswith("scan."):
        if criterion.subject not in ("", "."):
            message = message.replace(f" at {criterion.subject}/", " at ")
    elif links is not None and criterion.file:
        subject = f"[{subject}]({links.url(criterion.file, criterion.line)})"
    return f"- {icon} {markdown_code(criterion.name, 60)} {subject}: {markdown_cell(message, 600)}\n"


def _criteria(
    decision: GateDecision, links: SourceLinks | None, titles: Mapping[str, str], *, scanned: bool = False
) -> str:
    listed = [*decision.with_status("fail"), *decision.with_status("error"), *decision.with_status("warn")]
    if not listed:
        return ""
    lines = "".join(_criterion_line(c, links, titles, scanned=scanned) for c in listed[:_LISTED_CRITERIA])
    if len(listed) > _LISTED_CRITERIA:
        lines += f"- … and {len(listed) - _LISTED_CRITERIA} more in the JUnit report\n"
    return lines + "\n"


def _lift_output_line(inputs: CommentInputs) -> str:
    """Which figure the ``lift`` output carries, quoted as written, when the comment shows more than one.

    One trial of one skill: the output is its headline's lift, said once. Several skills (a release's
    repository mean, or the skill whose interval sits lowest) or several contrasts (a labelled pull request):
    the line names the one a workflow reading the outputs gets.
    """
    trials = inputs.trials
    if inputs.lift is None or trials is None:
        return ""
    measured = [t for t in trials.skills if t.lift.get(trials.bands.metric) is not None]
    if len(measured) <= 1 and not inputs.more_trials:
        return ""
    delta, low, high = (output_number(x) for x in inputs.lift)
    level = round(trials.confidence * 100)
    contrast = f": {markdown_cell(short_hashes(inputs.lift_contrast), 300)}" if inputs.lift_contrast else ""
    return f"Step output `lift` = {delta} ({level}% CI {low} … {high}){contrast}.\n\n"


def _settle_line(trial: SkillTrial) -> str:
    """For an underpowered verdict: the more cases, or the more runs, that would likely settle it."""
    settle = trial.settle
    if settle is None:
        return ""
    return f"To settle it: {markdown_cell(settle.advice or settle.reason, 400)}.\n\n"


def _trial_sections(inputs: CommentInputs) -> list[str]:
    sections = []
    shown: set[tuple[str, tuple[tuple[str, str | None], ...]]] = set()
    if inputs.trials is not None:
        sections += _one_trial(inputs, inputs.trials_title, inputs.trials, shown, score_vs=True)
    for title, report in inputs.more_trials:
        sections += _one_trial(inputs, title, report, shown, score_vs=False)
    return sections


def _one_trial(
    inputs: CommentInputs,
    title: str,
    trials: TrialReport,
    shown: set[tuple[str, tuple[tuple[str, str | None], ...]]],
    *,
    score_vs: bool,
) -> list[str]:
    """One trial's headlines, then each skill's verdict and details: every verdict and settle plan is the one the
    trial reached (:func:`aces_ci.stats.verdict`), printed, never judged again here."""
    bands = trials.bands
    sections = [
        f"#### {markdown_cell(title, 80)}: {markdown_cell(trials.model, 80)} on {markdown_cell(trials.harness, 40)}\n\n"
    ]
    headlines = []
    for trial in trials.skills:
        label = "no lift" if trial.lift.get(bands.metric) is None else trial.verdict
        headlines.append(f"- {headline(trial, bands.metric, trials.confidence, label)}\n")
    sections.append("".join(headlines) + "\n")
    for trial in trials.skills:
        lifts = shown_lifts(trial)
        title = skill_title(trial.skill, trial.name)
        gated = trial.lift.get(bands.metric)
        verdict = ""
        if gated is not None:
            power = "" if gated.mde is None else f" Smallest lift this design detects: {gated.mde:.3f}."
            verdict = (
                f"**{trial.verdict}** on {bands.metric}: {markdown_cell(trial.verdict_reason, 600)}.{power}\n\n"
                + _settle_line(trial)
            )
        chart = lift_chart(
            lifts,
            title=f"{title}, {short_hashes(trial.contrast)}: lift per metric",
            confidence=trials.confidence,
            pass_band=bands.pass_band,
            fail_band=bands.fail_band,
        )
        # a second contrast of the same cases (a labelled pull request's) does not repeat their prompts
        prompts = (trial.skill, tuple((c.case, c.prompt) for c in trial.cases))
        # the skill is named, its contrast not: the headline above says it
        named = f"**{markdown_cell(title, 120)}**"
        lead = f"{named}: {verdict}" if verdict else f"{named}\n\n"
        sections.append(
            f"{lead}{case_table(trial, prompts=prompts not in shown)}"
            f"<details>\n<summary>Every metric, chart and cost of {markdown_html_text(title, 120)}</summary>\n\n"
            f"{lift_table(trial, trials.confidence)}\n{chart}\n{cost_table(trial.cost)}\n</details>\n\n"
        )
        shown.add(prompts)
    if score_vs and inputs.scan is not None and len(trials.skills) > 1:
        sections.append(
            "#### Structural score vs measured lift\n\n"
            + score_vs_lift(inputs.scan, trials.skills, bands.metric)
            + "\n"
        )
    return sections


def _history_sections(inputs: CommentInputs) -> list[str]:
    trend = [inputs.trend] if inputs.trend else []
    if not inputs.history:
        return trend
    from ._history import history_section

    confidence = inputs.trials.confidence if inputs.trials is not None else 0.95
    return [history_section(inputs.history, confidence), *trend]


def _value_sections(inputs: CommentInputs) -> list[str]:
    sections = []
    for value in inputs.values:
        title = skill_title(value.skill, value.name)
        chart, notes = pruning_chart(value.pruning, title=f"{title}: pruning curve (held-out)")
        extra = "".join(f"_{markdown_cell(note, 300)}._\n" for note in notes)
        sections.append(
            f"#### SkillSV: {markdown_cell(title, 120)}\n\n{value_markdown(value, inputs.links)}\n{chart}{extra}\n"
        )
    return sections


def _footer(inputs: CommentInputs) -> str:
    commit = f" at {inputs.commit[:12]}" if inputs.commit else ""
    url = markdown_link_url(inputs.full_report_url)
    report = f" · [full report]({url})" if url else ""
    artifacts = markdown_link_url(inputs.artifacts_url)
    html = f" · [HTML report]({artifacts})" if artifacts else ""
    return f"<sub>aces-ci {__version__}{commit}{report}{html}</sub>\n"


def render_comment(inputs: CommentInputs, *, limit: int = COMMENT_LIMIT) -> str:
    """The comment body, at most ``limit`` characters, starting with the marker."""
    budget = limit - _RESERVE
    head = f"{inputs.marker}\n{_headline(inputs.decision)}\n\n"
    if inputs.reason:
        head += f"{markdown_cell(inputs.reason, 400)}\n\n"
    head += "".join(f"> {markdown_cell(note, 1000)}\n>\n" for note in inputs.notes)
    head += "\n" if inputs.notes else ""
    criteria = _criteria(inputs.decision, inputs.links, _titles(inputs), scanned=inputs.scan is not None)
    pieces = [head, criteria, _lift_output_line(inputs)]
    trials = _trial_sections(inputs)
    triggers = [render_trigger_markdown(inputs.triggers) + "\n"] if inputs.triggers is not None else []
    kept = _kept(inputs, trials, triggers)
    if kept is not None:
        budget -= len(kept.digest())
    if not trials and inputs.kept is not None:
        trials = [inputs.kept.section(inputs.commit)]
    optional = [*_history_sections(inputs), *trials, *triggers, *_value_sections(inputs), *inputs.compressions]
    scan = inputs.scan
    if scan is not None:
        optional.append("#### Static scan\n\n" + scan_table(scan, inputs.links, inputs.changed) + "\n")
    left_out = 0
    used = sum(len(p) for p in pieces)
    for section in optional:
        if used + len(section) <= budget:
            pieces.append(section)
            used += len(section)
        else:
            left_out += 1
    findings_left = 0
    if scan is not None:
        blocks, findings_left = _findings_blocks(inputs, scan, budget - used)
        pieces += blocks
        used += sum(len(block) for block in blocks)
    if scan is not None or inputs.trials is not None:
        estimand = _estimand(inputs)
        if estimand and used + len(estimand) <= budget:
            pieces.append(estimand + "\n")
        elif estimand:
            left_out += 1
    if left_out or findings_left:
        url = markdown_link_url(inputs.full_report_url)
        where = f" [the full report]({url})" if url else " the JSON and SARIF reports"
        parts = ([f"{left_out} section(s)"] if left_out else []) + (
            [f"{findings_left} finding(s)"] if findings_left else []
        )
        pieces.append(
            f"_Cut to stay within GitHub's {limit:,}-character comment limit: {' and '.join(parts)} "
            f"not shown; see{where}._\n\n"
        )
    pieces.append(_footer(inputs))
    if kept is not None:
        pieces.append(kept.digest())
    return "".join(pieces)


def _findings_blocks(inputs: CommentInputs, scan: ScanResult, room: int) -> tuple[list[str], int]:
    """The failing skills' findings tables that fit in ``room`` characters, and how many findings were left out."""
    blocks: list[str] = []
    left_out = 0
    for report in scan.skills:
        if report.verdict != "fail":
            continue
        if room < 800:
            left_out += len(report.active_findings)
            continue
        block, missing = findings_table(report, inputs.registry, inputs.links, room)
        blocks.append(block)
        room -= len(block)
        left_out += missing
    return blocks, left_out


def _estimand(inputs: CommentInputs) -> str:
    reports = ([inputs.trials] if inputs.trials is not None else []) + [r for _, r in inputs.more_trials]
    return estimand_section([skill for report in reports for skill in report.skills])


def _kept(inputs: CommentInputs, trials: Sequence[str], triggers: Sequence[str]) -> KeptTrials | None:
    """What the next comment of this pull request carries: this run's trial sections (and its trigger trial's,
    paid by the same label), else the earlier run's."""
    if not inputs.keep_digest:
        return None
    if not trials:
        return inputs.kept
    lift_criteria = [c for c in inputs.decision.criteria if not c.name.startswith("scan.")]
    failed = [c for c in lift_criteria if c.status in ("fail", "error", "warn")][:_LISTED_CRITERIA]
    criteria = "".join(_criterion_line(c, inputs.links, _titles(inputs)) for c in failed)
    estimand = _estimand(inputs)
    sections = [criteria + "\n" if criteria else "", *trials, *triggers, estimand + "\n" if estimand else ""]
    return keep_trials(inputs.commit, inputs.decision.verdict, [s for s in sections if s], inputs.full_report_url)
