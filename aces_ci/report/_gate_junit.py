"""The gate's criteria as one JUnit test suite: one testcase per criterion, its figures as properties.

CI test-report tools (mikepenz, EnricoMi, dorny, Jenkins) then show "lift.composite of
skills/pdf-tools failed: upper bound −0.14 ≤ fail band −0.10" as a failed test, with the lift,
its interval, n and runs beside it. A ``warn`` criterion (an underpowered lift, a SkillSV closure
that does not hold) passes, with its message in ``system-out``; a ``skipped`` one is skipped.

The suite is appended to the scan's JUnit document (:func:`append_gate_suite`), whose totals are
then recomputed, so one file carries both the per-rule cases and the gate's decision.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from ..safe_text import one_line, printable
from ._junit import HOSTNAME, _ant_timestamp

GATE_SUITE = "aces-ci gate"
_MESSAGE_LIMIT = 500


class Criterion(Protocol):
    """One thing the gate checked (the shape of :class:`aces_ci.gate.GateCriterion`)."""

    @property
    def name(self) -> str:
        """``scan.errors``, ``scan.score``, ``lift.composite``, ``skillsv.closure``."""
        ...

    @property
    def subject(self) -> str:
        """The skill directory it is about, or ``repository``."""
        ...

    @property
    def status(self) -> str:
        """``pass``, ``warn``, ``fail``, ``error`` (the measurement could not be made) or ``skipped``."""
        ...

    @property
    def message(self) -> str: ...
    @property
    def properties(self) -> Sequence[tuple[str, str]]:
        """The figures: name, value."""
        ...

    @property
    def file(self) -> str | None: ...
    @property
    def line(self) -> int | None: ...
    @property
    def failure_type(self) -> str:
        """``NegativeSkillLift``, ``ScanErrors``… (the ``type`` of the JUnit failure)."""
        ...


@dataclass(frozen=True)
class JunitCriterion:
    """A :class:`Criterion` a report builds itself (a trial's or a trigger trial's verdict per skill), for the
    reports below ``aces_ci.gate``, which cannot use :class:`aces_ci.gate.GateCriterion`."""

    name: str
    subject: str
    status: str
    message: str
    properties: tuple[tuple[str, str], ...]
    file: str | None
    line: int | None
    failure_type: str


def _classname(subject: str) -> str:
    path = subject.strip("/")
    return printable(path.replace("/", ".") if path not in ("", ".") else "repository")


def gate_suite(criteria: Sequence[Criterion], *, generated_at: str, index: int = 0) -> ET.Element:
    """The ``<testsuite>`` of the gate's criteria."""
    suite = ET.Element("testsuite")
    failures = errors = skipped = 0
    for criterion in criteria:
        case = ET.SubElement(
            suite,
            "testcase",
            {"name": printable(criterion.name), "classname": _classname(criterion.subject), "time": "0"},
        )
        if criterion.file:
            case.set("file", printable(criterion.file))
            case.set("line", str(criterion.line or 1))
        if criterion.properties:
            holder = ET.SubElement(case, "properties")
            for name, value in criterion.properties:
                ET.SubElement(holder, "property", {"name": printable(name), "value": printable(value)})
        message = printable(criterion.message)
        if criterion.status == "fail":
            failures += 1
            failure = ET.SubElement(
                case,
                "failure",
                {"type": criterion.failure_type or "GateFailed", "message": one_line(message, _MESSAGE_LIMIT)},
            )
            failure.text = message
        elif criterion.status == "error":  # the measurement could not be made (infrastructure): JUnit's <error>
            errors += 1
            error = ET.SubElement(
                case,
                "error",
                {"type": criterion.failure_type or "InfrastructureError", "message": one_line(message, _MESSAGE_LIMIT)},
            )
            error.text = message
        elif criterion.status == "skipped":
            skipped += 1
            ET.SubElement(case, "skipped", {"message": one_line(message, _MESSAGE_LIMIT)})
        else:
            out = ET.SubElement(case, "system-out")
            out.text = f"{criterion.status}: {message}"
    suite.attrib.update(
        {
            "name": GATE_SUITE,
            "tests": str(len(criteria)),
            "failures": str(failures),
            "errors": str(errors),
            "skipped": str(skipped),
            "time": "0",
            "timestamp": _ant_timestamp(generated_at),
            "hostname": HOSTNAME,
            "id": str(index),
            "package": "aces-ci.gate",
        }
    )
    return suite


def append_gate_suite(junit_xml: str | None, criteria: Sequence[Criterion], *, generated_at: str) -> str:
    """``junit_xml`` (a ``<testsuites>`` document, or None for a new one) with the gate's suite appended."""
    root = ET.fromstring(junit_xml.encode("utf-8")) if junit_xml else ET.Element("testsuites", {"name": "aces-ci"})
    suites = root.findall("testsuite")
    root.append(gate_suite(criteria, generated_at=generated_at, index=len(suites)))
    for total in ("tests", "failures", "errors", "skipped"):
        root.set(total, str(sum(int(s.get(total, "0")) for s in root.findall("testsuite"))))
    root.set("time", root.get("time", "0"))
    ET.indent(root, space="  ")
    return ET.tostring(root, encoding="unicode", xml_declaration=True) + "\n"
