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

``--json`` (``schemas/trigger-result.schema.json``), ``--markdown``, ``--junit`` and ``--html`` write the
reports of :mod:`aces_ci.report._trigger_report`, secrets redacted; the terminal's lines and every report but
JUnit are rendered from the JSON document, so ``aces-ci report`` renders a saved one the same way.
"""

from __future__ import annotations

import argparse
import sys

from ..config import TrialConfig
from ..errors import EXIT_GATE_FAILED, EXIT_PASS
from ..redact import redact_text
from ..report import trigger_document, trigger_text, write_trigger_reports
from ..trials import TriggerTrial


def recall_floor(text: str) -> float:
    """``--min-recall``: a share in (0, 1]."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not 0 < value <= 1:
        raise argparse.ArgumentTypeError(f"a recall lies in (0, 1], got {value}")
    return value


def run_triggers(trial: TriggerTrial, config: TrialConfig, *, quiet: bool) -> int:
    """Print (unless ``quiet``) and write the reports of a measured trigger trial; its exit code."""
    if not quiet:
        sys.stdout.write(redact_text(trigger_text(trigger_document(trial))))
    write_trigger_reports(trial, config.reports)
    code = EXIT_PASS
    for skill in trial.skills:
        if skill.verdict is None:
            continue
        shown = redact_text(skill.skill)
        print(f"aces-ci: {shown}: trigger recall {skill.verdict} against {config.triggers.min_recall}", file=sys.stderr)
        code = EXIT_GATE_FAILED if trial.failing(skill) else code
    return code
