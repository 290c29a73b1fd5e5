"""``aces-ci trial --triggers``: print and write the trigger trial of each SKILL_DIR (:func:`aces_ci.app.triggers`).

The listing the agent sees is the repository's: every skill under the project root, as the chosen
host (``--host``) would list them. A query dataset with any problem stops the trial before a model
call (exit 2, naming file, line and JSON pointer): a misread dataset must not cost money.

``--min-recall X`` gates each skill's trigger recall with the trial's bands logic on its interval:
pass when the lower bound reaches X, fail when the upper bound stays below it, underpowered when
the interval straddles X (a warning, or a failure with aces.yml ``gate.underpowered: fail``).

``--against REF`` lists each skill under trial as it was at REF (read from git's objects, as the
task trial's ``--against`` reads it; its siblings as they are now), runs the same queries with the
same seed, and reports recall now against then with the interval of the change, paired on the
query: did a description edit help the agent find the skill?

``--json`` (``schemas/trigger-result.schema.json``), ``--markdown`` and ``--junit`` write the
reports of :mod:`aces_ci.report._trigger_report`, secrets redacted.
"""

from __future__ import annotations

import argparse
import sys
from datetime import UTC, datetime

from ..atomic import write_output
from ..config import TrialConfig, TrialReports
from ..errors import EXIT_GATE_FAILED, EXIT_PASS
from ..redact import environment_secrets, redact_text
from ..report import change_text, render_trigger_json, render_trigger_junit, render_trigger_markdown
from ..trials import Rate, TriggerTrial


def recall_floor(text: str) -> float:
    """``--min-recall``: a share in (0, 1]."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not 0 < value <= 1:
        raise argparse.ArgumentTypeError(f"a recall lies in (0, 1], got {value}")
    return value


def _shown(rate: Rate) -> str:
    if rate.value is None or rate.interval is None:
        return "n=0"
    low, high = rate.interval
    return f"{rate.value:.2f} [{low:.2f}, {high:.2f}] n={rate.n}"


def render_text(trial: TriggerTrial) -> str:
    lines = [f"trigger trial as {trial.host} lists the skills, {trial.runs} run(s) per query"]
    for skill in trial.skills:
        taken = ", ".join(f"{redact_text(taker)} ×{count}" for taker, count in skill.confusion) or "-"
        lines.append(
            f"{redact_text(skill.skill)}: recall {_shown(skill.recall)}; false triggers {_shown(skill.false_trigger)}; "
            f"should-trigger queries taken by: {taken}"
        )
        if skill.contrast is not None:
            lines.append(f"  {redact_text(skill.contrast.ref)}: {change_text(skill.contrast)}")
    usage = trial.usage
    lines.append(f"{usage.model_calls} model calls, {usage.prompt_tokens + usage.completion_tokens:,} tokens")
    return "\n".join(lines) + "\n"


def _write_reports(reports: TrialReports, trial: TriggerTrial) -> None:
    secrets = environment_secrets()
    if reports.json:
        write_output(reports.json, redact_text(render_trigger_json(trial), secrets), "trigger trial's JSON")
    if reports.markdown:
        write_output(reports.markdown, redact_text(render_trigger_markdown(trial), secrets), "Markdown report")
    if reports.junit:
        generated_at = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        junit = render_trigger_junit(trial, generated_at)
        write_output(reports.junit, redact_text(junit, secrets), "JUnit report")


def run_triggers(trial: TriggerTrial, config: TrialConfig, *, quiet: bool) -> int:
    """Print (unless ``quiet``) and write the reports of a measured trigger trial; its exit code."""
    if not quiet:
        sys.stdout.write(render_text(trial))
    _write_reports(config.reports, trial)
    code = EXIT_PASS
    for skill in trial.skills:
        if skill.verdict is None:
            continue
        shown = redact_text(skill.skill)
        print(f"aces-ci: {shown}: trigger recall {skill.verdict} against {config.triggers.min_recall}", file=sys.stderr)
        code = EXIT_GATE_FAILED if trial.failing(skill) else code
    return code
