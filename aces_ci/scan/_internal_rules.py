"""The runner's own rules (family ACES): what it reports about itself rather than about a skill.

A scan never crashes on what it reads: a rule (or the parser) that raises becomes an ``ACES001``
finding naming the rule, the exception type and the line of aces-ci's code that failed, and the
scan goes on. Broken inline suppressions become ``ACES002`` and ``ACES003``. These rules have no
check of their own; every registry a scan uses includes them (:data:`INTERNAL_RULES`).
"""

from __future__ import annotations

import traceback
from collections.abc import Iterable
from pathlib import Path

from ._context import ScanContext
from ._finding import Finding, Hit, Location, Severity
from ._registry import Rule


def _emitted_by_runner(ctx: ScanContext) -> Iterable[Hit]:
    """The runner's own rules have nothing to check per skill: the runner reports them as it works."""
    return ()


INTERNAL_ERROR = Rule(
    id="ACES001",
    name="internal-error",
    family="ACES",
    severity=Severity.WARNING,
    summary="aces-ci failed while checking this skill: a rule or the parser raised an exception.",
    doc=(
        "A bug in aces-ci, not in the skill: one rule (or the skill parser) raised an exception on\n"
        "this skill's content. The scan goes on; findings the rule reported before failing are kept,\n"
        "but the rest of its checks did not run on this skill. The message names the rule, the\n"
        "exception type and the line of aces-ci's code that failed (never the content that\n"
        "triggered it, which may be secret). It costs no score points: the author is not at fault."
    ),
    fix="Report it at https://github.com/aces-ci/aces-ci/issues with the message; meanwhile the rule can be "
    "turned off in aces.yml (scan.rules: {RULE-ID: off}).",
    weight=0,
    check=_emitted_by_runner,
)
SUPPRESSION_WITHOUT_REASON = Rule(
    id="ACES002",
    name="suppression-without-reason",
    family="ACES",
    severity=Severity.NOTE,
    summary="An inline suppression does not say why the finding is safe to ignore.",
    doc=(
        "`<!-- aces-ci: ignore RULE-ID reason -->` takes a reason after the rule ids. Without one,\n"
        "the next reader cannot tell a considered exception from a silenced problem. The\n"
        "suppression still applies; this note reports the missing reason.\n\n"
        "Fails: `<!-- aces-ci: ignore SPEC002 -->`\n"
        "Passes: `<!-- aces-ci: ignore SPEC002 name kept for existing users -->`"
    ),
    fix="Add a short reason after the rule ids in the comment.",
    weight=1,
    check=_emitted_by_runner,
)
INVALID_SUPPRESSION = Rule(
    id="ACES003",
    name="invalid-suppression",
    family="ACES",
    severity=Severity.WARNING,
    summary="An aces-ci comment names an unknown rule or directive, so it suppresses nothing.",
    doc=(
        "An inline `aces-ci:` comment that aces-ci cannot apply: an unknown directive (only\n"
        "`ignore` and `ignore-file` exist), no rule id, a rule name where an id belongs, or an id\n"
        "no rule has (a typo, or a rule removed in this version). The findings it meant to\n"
        "suppress stay active. Unknown ids in aces.yml are a configuration error instead, because\n"
        "the config is owned by the maintainers while skill files are edited by contributors.\n\n"
        "Fails: `<!-- aces-ci: ignore SPEC02 legacy -->`, `<!-- aces-ci: ignore name-format legacy -->`\n"
        "Passes: `<!-- aces-ci: ignore SPEC002 legacy -->`"
    ),
    fix="Use an id that `aces-ci rules` lists, or delete the comment if the finding it silenced is gone.",
    weight=5,
    check=_emitted_by_runner,
)
INTERNAL_RULES = (INTERNAL_ERROR, SUPPRESSION_WITHOUT_REASON, INVALID_SUPPRESSION)
"""Rules the runner emits itself; every registry a scan uses includes them."""


def _frame_text(frame: traceback.FrameSummary, package_dir: Path) -> str:
    path = Path(frame.filename).resolve()
    if path.is_relative_to(package_dir):
        shown = path.relative_to(package_dir.parent).as_posix()
    else:
        shown = "/".join(path.parts[-2:])  # a library or a test: its package and module are enough
    return f"{shown}:{frame.lineno}"


def _failure_site(exc: BaseException) -> str:
    """Where aces-ci's code failed: its innermost frame, plus the library frame that raised, if any."""
    # The first frame is the runner's own, where the exception was caught: not where it went wrong.
    frames = traceback.extract_tb(exc.__traceback__)[1:]
    if not frames:
        return "an unknown location"
    package_dir = Path(__file__).resolve().parents[1]
    ours = [frame for frame in frames if Path(frame.filename).resolve().is_relative_to(package_dir)]
    innermost = frames[-1]
    if not ours or ours[-1] is innermost:
        return _frame_text(innermost, package_dir)
    return f"{_frame_text(ours[-1], package_dir)} (inside {_frame_text(innermost, package_dir)})"


def internal_error(what: str, exc: Exception, skill_rel_dir: str, skill_md: str) -> Finding:
    """The ACES001 finding for ``exc``, raised by ``what`` and caught by the function that calls this.

    The exception's own text may quote the skill's content (a secret, say): only its type is named.
    """
    message = (
        f"{what} raised {type(exc).__name__} at {_failure_site(exc)}; "
        "its checks on this skill are incomplete. This is an aces-ci bug: please report it"
    )
    rule = INTERNAL_ERROR
    return Finding(rule.id, rule.severity, message, Location(skill_md), skill_rel_dir, fix=rule.fix)
