"""``aces-ci report … --html/--markdown`` and ``scan --html``: files in, one page out, bad input named (exit 2)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from aces_ci.cli import main
from tests.report.html.dom import parse
from tests.report.html.fixtures import (
    rerun_doc,
    scan_doc,
    trial_doc,
    trial_skill,
    trigger_doc,
    value_doc,
    value_doc_at_the_bound,
    with_full_transcripts,
)
from tests.report.html.helpers import page_data


def _write(path: Path, data: object) -> Path:
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_report_renders_every_kind_of_result_into_one_page(tmp_path: Path) -> None:
    files = [
        _write(tmp_path / "trial.json", trial_doc()),
        _write(tmp_path / "value.json", value_doc(60)),
        _write(tmp_path / "scan.json", scan_doc()),
        _write(tmp_path / "rerun.json", rerun_doc("2026-10-01T00:00:00Z", "m", 0.3)),
    ]
    out = tmp_path / "out" / "report.html"
    assert main(["report", *map(str, files), "--html", str(out)]) == 0
    root = parse(out.read_text(encoding="utf-8"))
    assert [s.attrs["id"] for s in root.find_all("section")] == [
        "verdict",
        "lift",
        "cases",
        "triggers",
        "skillsv",
        "compress",
        "cost",
        "scan",
    ]
    assert page_data(root)["sources"] == [str(f) for f in files]
    assert [p.name for p in out.parent.iterdir()] == ["report.html"]  # written atomically, no temporary left


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ("{not json", "result is not valid JSON"),
        (json.dumps({"hello": "world"}), "not an aces-ci result"),
        (json.dumps(dict(trial_doc([trial_skill("s", "s", "pass", 0.9, 0.1)]), verdict="maybe")), "(verdict)"),
        (json.dumps(dict(value_doc(3), units="none")), "(units)"),
    ],
)
def test_a_bad_result_exits_2_naming_the_file_and_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str, expected: str
) -> None:
    good = _write(tmp_path / "good.json", scan_doc())
    bad = tmp_path / "bad.json"
    bad.write_text(content, encoding="utf-8")
    out = tmp_path / "report.html"
    assert main(["report", str(good), str(bad), "--html", str(out)]) == 2
    err = capsys.readouterr().err
    assert str(bad) in err and expected in err
    assert not out.exists()


def test_a_missing_file_and_a_missing_flag_are_input_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["report", str(tmp_path / "nope.json"), "--html", str(tmp_path / "r.html")]) == 2
    assert "nope.json" in capsys.readouterr().err
    assert main(["report", str(_write(tmp_path / "scan.json", scan_doc()))]) == 2
    assert "--html FILE, --markdown FILE" in capsys.readouterr().err


def test_markdown_renders_scan_and_trigger_results_and_refuses_a_trial_naming_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    scan, trigger = _write(tmp_path / "scan.json", scan_doc()), _write(tmp_path / "trigger.json", trigger_doc())
    out = tmp_path / "report.md"
    assert main(["report", str(scan), str(trigger), "--markdown", str(out)]) == 0
    markdown = out.read_text(encoding="utf-8")
    assert "#### Trigger trial: the skills as claude-code lists them, against `v1.0.0` (0123abcd0123)" in markdown
    assert "- `skills/pdf-tools`: recall 0.92 (11/12 queries) [0.62, 0.99]" in markdown
    assert "skills/evil" in markdown and "<script>" not in markdown  # the hostile taker is escaped
    assert markdown.index("skills/clean") < markdown.index("#### Trigger trial")  # in the order given
    trial = _write(tmp_path / "trial.json", trial_doc())
    out.unlink()
    assert main(["report", str(trigger), str(trial), "--markdown", str(out), "--html", str(tmp_path / "r.html")]) == 2
    err = capsys.readouterr().err
    assert str(trial) in err and "use --html" in err
    assert not out.exists() and not (tmp_path / "r.html").exists()  # nothing written


def test_scan_html_writes_the_page_of_its_own_result(tmp_path: Path) -> None:
    skill = tmp_path / "repo" / "demo"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text(
        "---\nname: demo\ndescription: Fills PDF forms <img src=x onerror=alert(1)>. Use when asked to.\n---\n# Demo\n",
        encoding="utf-8",
    )
    out = tmp_path / "scan.html"
    main(
        ["scan", str(tmp_path / "repo"), "--no-cache", "-q", "--json", str(tmp_path / "scan.json"), "--html", str(out)]
    )
    root = parse(out.read_text(encoding="utf-8"))
    result = json.loads((tmp_path / "scan.json").read_text(encoding="utf-8"))
    (machine,) = page_data(root)["skills"]
    assert (machine["skill"], machine["verdict"], machine["score"]) == (
        "demo",
        result["skills"][0]["verdict"],
        result["skills"][0]["score"]["value"],
    )
    assert root.find_all("img") == [] and "SPEC008" in root.one("section", id="scan").text()


def test_a_sixty_unit_skill_with_200_rollouts_makes_a_report_under_2_mb(tmp_path: Path) -> None:
    """The issue's budget at its worst: 34 cases × 3 runs × 2 arms (204 rollouts) with 2,000-character answers and
    every transcript at every cap (fitted into the result's budget), and SkillSV of a 60-unit skill whose documents
    hold all the text a value JSON may keep."""
    skill = trial_skill("skills/pdf-tools", "pdf-tools", "pass", 0.8, 0.4, cases=34, answer_chars=2000)
    with_full_transcripts(skill)
    trial = trial_doc([skill])
    value = value_doc_at_the_bound(60)
    files = [_write(tmp_path / "trial.json", trial), _write(tmp_path / "value.json", value)]
    out = tmp_path / "report.html"
    assert main(["report", *map(str, files), "--html", str(out)]) == 0
    assert sum(2 * len(c["with_scores"]) for c in trial["skills"][0]["cases"]) >= 200
    size = out.stat().st_size
    kept = sum(len(d["text"] or "") for d in value["documents"])
    assert kept > 390_000 and 1_000_000 < size < 2 * 1024 * 1024, size  # everything is in it, still under 2 MB


def test_a_nan_in_a_result_is_an_input_error_naming_the_field(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = json.dumps(trial_doc()).replace('"wall_s": 135.0', '"wall_s": NaN', 1)
    assert "NaN" in text
    bad = tmp_path / "nan.json"
    bad.write_text(text, encoding="utf-8")
    assert main(["report", str(bad), "--html", str(tmp_path / "r.html")]) == 2
    err = capsys.readouterr().err
    assert "nan.json" in err and "wall_s" in err and "NaN or infinity" in err


def test_results_are_read_bounded_a_device_or_an_oversized_file_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    assert main(["report", "/dev/zero", "--html", str(tmp_path / "r.html")]) == 2
    assert "/dev/zero" in capsys.readouterr().err
    monkeypatch.setattr("aces_ci.report.html._documents.MAX_RESULT_BYTES", 1000)
    big = _write(tmp_path / "big.json", scan_doc())
    assert big.stat().st_size > 1000
    assert main(["report", str(big), "--html", str(tmp_path / "r.html")]) == 2
    assert "big.json" in capsys.readouterr().err and not (tmp_path / "r.html").exists()
