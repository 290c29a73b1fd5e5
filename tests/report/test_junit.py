"""The JUnit report: valid against a strict XSD, and working around each junit-xml quirk."""

from __future__ import annotations

import warnings
import xml.etree.ElementTree as ET
from dataclasses import replace
from pathlib import Path

import junit_xml
import pytest
import xmlschema

from aces_ci.report import render_junit
from aces_ci.scan import Severity, StructuralScore

from .builders import (
    HOSTILE_MESSAGE,
    PDF,
    UNI,
    build_registry,
    clean_report,
    finding,
    pdf_report,
    sample_result,
    unicode_report,
)

REGISTRY = build_registry()
SCHEMA = xmlschema.XMLSchema(Path(__file__).with_name("junit.xsd"))


def _parse(xml: str) -> ET.Element:
    SCHEMA.validate(xml)
    return ET.fromstring(xml.encode("utf-8"))


def _suite(root: ET.Element, skill: str) -> ET.Element:
    suite = root.find(f"testsuite[@name='{skill}']")
    assert suite is not None, skill
    return suite


def _case(suite: ET.Element, name: str) -> ET.Element:
    case = suite.find(f"testcase[@name='{name}']")
    assert case is not None, name
    return case


def _properties(element: ET.Element) -> dict[str, str]:
    return {p.get("name", ""): p.get("value", "") for p in element.findall("properties/property")}


def test_one_suite_per_skill_one_case_per_family_plus_the_score_gate() -> None:
    root = _parse(render_junit(sample_result(), REGISTRY))

    assert [s.get("name") for s in root.findall("testsuite")] == [PDF, "skills/clean", UNI]
    clean = _suite(root, "skills/clean")
    assert [c.get("name") for c in clean.findall("testcase")] == ["REF", "SEC", "SPEC", "STRUCT", "structural-score"]
    assert {c.get("classname") for c in clean.findall("testcase")} == {"skills.clean"}
    assert clean.get("failures") == "0"


def test_family_with_errors_or_warnings_fails_naming_the_worst_rule_and_listing_every_finding() -> None:
    pdf = _suite(_parse(render_junit(sample_result(), REGISTRY)), PDF)
    failure = _case(pdf, "STRUCT").find("failure")

    assert failure is not None
    assert failure.get("type") == "STRUCT001"
    assert (
        failure.get("message")
        == "1 finding in STRUCT (0 errors, 1 warning); worst STRUCT001: body has 812 lines (max 500)"
    )
    assert (
        failure.text == f"{PDF}/SKILL.md:1 STRUCT001 body has 812 lines (max 500)\n    fix: Move detail to references/."
    )
    ref = _case(pdf, "REF").find("failure")
    assert ref is not None
    assert ref.text is not None
    assert ref.text.startswith(f"{PDF}/SKILL.md:14 REF001 link `a|b` to <script>x</script> is broken\nsecond line")
    assert "\n" not in (ref.get("message") or "")


def test_worst_rule_is_the_error_even_when_a_warning_comes_first_in_the_file() -> None:
    md = f"{PDF}/SKILL.md"
    report = replace(
        pdf_report(),
        findings=(
            finding("SPEC002", Severity.WARNING, "first but mild", md, 1, skill=PDF),
            finding("SPEC001", Severity.ERROR, "later but fatal", md, 30, skill=PDF),
        ),
    )
    spec = _case(_suite(_parse(render_junit(sample_result(report), REGISTRY)), PDF), "SPEC")
    failure = spec.find("failure")

    assert failure is not None
    assert failure.get("type") == "SPEC001"
    assert (spec.get("file"), spec.get("line")) == (md, "1")
    assert failure.text is not None
    assert failure.text.splitlines()[0] == f"{md}:1 SPEC002 first but mild"


def test_notes_and_suppressed_findings_do_not_fail_but_are_shown() -> None:
    root = _parse(render_junit(sample_result(), REGISTRY))
    uni = _suite(root, UNI)
    struct = _case(uni, "STRUCT")
    ref = _case(uni, "REF")
    sec = _case(_suite(root, PDF), "SEC")

    assert struct.find("failure") is None
    assert ref.find("failure") is None
    assert sec.find("failure") is None
    assert "[suppressed by inline: test fixture, not a real key]" in (sec.findtext("system-out") or "")
    assert uni.get("failures") == "0"


def test_cases_carry_file_and_line_of_their_first_finding_for_annotations() -> None:
    pdf = _suite(_parse(render_junit(sample_result(), REGISTRY)), PDF)

    assert (_case(pdf, "SPEC").get("file"), _case(pdf, "SPEC").get("line")) == (f"{PDF}/SKILL.md", "2")
    assert (_case(pdf, "REF").get("file"), _case(pdf, "REF").get("line")) == (f"{PDF}/SKILL.md", "14")
    # a finding about the whole file is annotated on its first line
    assert _case(pdf, "STRUCT").get("line") == "1"


def test_score_gate_fails_below_min_score_and_passes_at_it() -> None:
    pdf = _suite(_parse(render_junit(sample_result(), REGISTRY)), PDF)
    failure = _case(pdf, "structural-score").find("failure")

    assert failure is not None
    assert failure.get("message") == "structural score 62 is below the minimum 70"
    assert failure.text is not None
    assert "-15 SPEC001 name-format (1 finding): 1 error finding" in failure.text
    assert _properties(_case(pdf, "structural-score")) == {"score": "62", "min_score": "70"}

    at_threshold = replace(clean_report(), score=StructuralScore(70))
    clean = _suite(_parse(render_junit(sample_result(at_threshold), REGISTRY)), "skills/clean")
    assert _case(clean, "structural-score").find("failure") is None


def test_judge_case_passes_with_its_score_or_is_skipped_when_it_could_not_score() -> None:
    root = _parse(render_junit(sample_result(), REGISTRY))

    scored = _case(_suite(root, PDF), "judge-rubric")
    assert _properties(scored)["score"] == "81.5"
    assert scored.find("failure") is None
    unscored = _case(_suite(root, UNI), "judge-rubric")
    skipped = unscored.find("skipped")
    assert skipped is not None
    assert skipped.get("message") == "judge could not score: judge API returned 503"
    assert _suite(root, "skills/clean").find("testcase[@name='judge-rubric']") is None


def test_failed_skill_is_never_all_green_even_when_no_family_or_score_case_fails() -> None:
    report = replace(clean_report(), verdict="fail", reasons=("gate policy: evals.json missing",))
    suite = _suite(_parse(render_junit(sample_result(report), REGISTRY)), "skills/clean")
    verdict = _case(suite, "verdict").find("failure")

    assert verdict is not None
    assert verdict.get("message") == "gate policy: evals.json missing"
    assert suite.get("failures") == "1"
    # when another case already fails, no extra verdict case doubles the count
    assert _suite(_parse(render_junit(sample_result(), REGISTRY)), PDF).find("testcase[@name='verdict']") is None


# junit-xml quirks, one test each


def test_quirk_root_lacks_skipped_total() -> None:
    root = _parse(render_junit(sample_result(), REGISTRY))

    assert root.get("skipped") == "1"
    assert root.get("failures") == "4"
    assert root.get("tests") == str(sum(int(s.get("tests", "0")) for s in root.findall("testsuite")))


def test_quirk_failure_without_message_would_not_be_counted() -> None:
    md = f"{PDF}/SKILL.md"
    silent = replace(
        pdf_report(), findings=(finding("SPEC001", Severity.ERROR, "", md, 3, skill=PDF),), score=StructuralScore(85)
    )
    root = _parse(render_junit(sample_result(silent), REGISTRY))
    spec = _case(_suite(root, PDF), "SPEC")

    assert spec.find("failure") is not None
    assert root.get("failures") == "1"
    assert _suite(root, PDF).get("failures") == "1"


def test_quirk_no_per_testcase_properties() -> None:
    pdf = _suite(_parse(render_junit(sample_result(), REGISTRY)), PDF)

    assert _properties(_case(pdf, "STRUCT")) == {
        "findings.error": "0",
        "findings.warning": "1",
        "findings.note": "1",
        "findings.suppressed": "0",
        "rules": "STRUCT001,STRUCT002",
    }
    assert _properties(pdf)["structural_score"] == "62"


def test_quirk_deprecated_to_xml_string_is_not_used() -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        render_junit(sample_result(), REGISTRY)

    assert [w for w in caught if issubclass(w.category, DeprecationWarning) and "to_xml" in str(w.message)] == []


@pytest.mark.parametrize("hostile", [HOSTILE_MESSAGE, "nul\x00 bell\x07 vt\x0b lone \udcff done"])
def test_quirk_illegal_xml_characters_are_shown_not_deleted(hostile: str) -> None:
    md = f"{UNI}/SKILL.md"
    report = replace(
        unicode_report(), findings=(finding("REF001", Severity.WARNING, hostile, md, 2, skill=UNI, evidence=hostile),)
    )

    xml = render_junit(sample_result(report), REGISTRY)

    failure = _case(_suite(_parse(xml), UNI), "REF").find("failure")
    assert failure is not None
    assert failure.text is not None
    if hostile == HOSTILE_MESSAGE:
        assert "bad \\x1b[31mred\\x1b[0m text\\x00 with \\u202eevil\\u202c and \\x85 and \\ufffe end" in failure.text
    else:
        assert "nul\\x00 bell\\x07 vt\\x0b lone \\udcff done" in failure.text
    xml.encode("utf-8")  # no lone surrogate survived into the document


def test_quirk_hostname_timestamp_and_time_that_the_strict_schema_requires() -> None:
    result = replace(sample_result(), generated_at="2026-01-31T10:30:00+01:00")
    root = _parse(render_junit(result, REGISTRY))
    first = root.findall("testsuite")[0]

    assert first.get("id") == "0"
    assert first.get("hostname") == "localhost"
    assert first.get("timestamp") == "2026-01-31T09:30:00"
    assert all(case.get("time") == "0" for case in root.iter("testcase"))


def test_missing_generation_time_still_yields_a_valid_timestamp() -> None:
    _parse(render_junit(replace(sample_result(), generated_at=""), REGISTRY))


def test_empty_scan_is_a_valid_document() -> None:
    root = _parse(render_junit(replace(sample_result(), skills=()), REGISTRY))

    assert (root.get("tests"), root.get("failures"), root.get("skipped")) == ("0", "0", "0")


def test_rule_unknown_to_the_registry_gets_a_family_case_of_its_own() -> None:
    odd = finding(
        "LEGACY009", Severity.ERROR, "from an older version", "skills/clean/SKILL.md", 1, skill="skills/clean"
    )
    report = replace(clean_report(), findings=(odd,), verdict="fail")
    suite = _suite(_parse(render_junit(sample_result(report), REGISTRY)), "skills/clean")

    failure = _case(suite, "LEGACY").find("failure")
    assert failure is not None
    assert failure.get("type") == "LEGACY009"


def test_root_skill_uses_its_name_as_suite_and_classname() -> None:
    """A lone skill scanned as the root ("."): its suite is named for it, as its classname is, never "."."""
    report = replace(clean_report(), skill=".", name="solo", skill_md="SKILL.md")
    suite = _suite(_parse(render_junit(sample_result(report), REGISTRY)), "solo")

    assert {c.get("classname") for c in suite.findall("testcase")} == {"solo"}


def test_the_schema_is_strict_enough_to_reject_plain_junit_xml_output() -> None:
    case = junit_xml.TestCase("SPEC", classname="skills.demo")
    plain = junit_xml.to_xml_report_string([junit_xml.TestSuite("skills/demo", [case])], prettyprint=False)

    reasons = [str(error.reason) for error in SCHEMA.iter_errors(plain)]

    assert any("skipped" in reason for reason in reasons)
    assert any("hostname" in reason for reason in reasons)
    assert any("time" in reason for reason in reasons)
