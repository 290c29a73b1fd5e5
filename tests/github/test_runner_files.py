"""Workflow commands, annotations within GitHub's caps, $GITHUB_OUTPUT and the job summary."""

from __future__ import annotations

from pathlib import Path

from aces_ci.github import (
    Annotation,
    annotate,
    append_step_summary,
    escape_data,
    escape_property,
    fit_summary,
    write_outputs,
)

from .helpers import read_outputs


def test_escaping_follows_the_runner() -> None:
    assert escape_data("50% done\r\nnext") == "50%25 done%0D%0Anext"
    assert escape_property("a:b,c%\n") == "a%3Ab%2Cc%25%0A"


def test_annotation_command_escapes_properties_and_message() -> None:
    line = Annotation("error", "line one\nline two", "skills/a,b/SKILL.md", 3, "SPEC001: name").command()
    assert line == "::error file=skills/a%2Cb/SKILL.md,line=3,title=SPEC001%3A name::line one%0Aline two"


def test_annotations_redact_secrets() -> None:
    key = "AKIA" + "IOSFODNN7EXAMPLF"
    line = Annotation("error", f"key {key} committed", "s/SKILL.md", 1).command()
    assert key not in line and "[REDACTED" in line


def test_caps_per_level_and_the_rest_is_logged() -> None:
    written: list[str] = []
    annotations = [Annotation("error", f"e{i}", "f.md", i + 1) for i in range(14)]
    annotations += [Annotation("warning", f"w{i}", "f.md", i + 1) for i in range(3)]
    annotations += [Annotation("notice", f"n{i}", "f.md", i + 1) for i in range(12)]

    outcome = annotate(annotations, written.append)

    text = "".join(written)
    assert text.count("::error ") == 10 and text.count("::warning ") == 3 and text.count("::notice ") == 10
    assert (outcome.emitted, outcome.logged) == (23, 6)
    assert "6 more finding(s) not annotated" in text
    for i in range(10, 14):
        assert f"error: f.md:{i + 1} e{i}" in text


def test_the_job_cap_holds_too() -> None:
    written: list[str] = []
    outcome = annotate(
        [Annotation("error", f"e{i}", "f.md", 1) for i in range(20)], written.append, per_step=10, per_job=4
    )
    assert (outcome.emitted, outcome.logged) == (4, 16)


def test_outputs_are_multiline_safe(tmp_path: Path) -> None:
    path = tmp_path / "out"
    values = {"verdict": "fail", "changed": "a\nb", "tricky": "x=y\nz<<EOF\nEOF"}

    assert write_outputs(path, values)
    assert write_outputs(path, {"second": "call"})

    assert read_outputs(path) == {**values, "second": "call"}


def test_outputs_without_a_runner_file_are_skipped(tmp_path: Path) -> None:
    assert not write_outputs(None, {"verdict": "pass"})


def test_outputs_mask_the_token(tmp_path: Path) -> None:
    path = tmp_path / "out"
    write_outputs(path, {"url": "https://x/?t=secret-token-value-1234"}, ["secret-token-value-1234"])
    assert "secret-token-value-1234" not in path.read_text()


def test_summary_is_cut_at_a_line_end_under_one_mebibyte(tmp_path: Path) -> None:
    path = tmp_path / "summary"
    markdown = "".join(f"| row {i} | {'é' * 40} |\n" for i in range(30000))  # ~2.5 MB of UTF-8

    append_step_summary(path, markdown, full_report="https://github.com/acme/skills/actions/runs/42")

    data = path.read_bytes()
    assert len(data) <= 1024 * 1024
    text = data.decode("utf-8")
    assert "cut to stay within GitHub's 1 MiB" in text
    assert "actions/runs/42" in text
    body = text.split("\n\n_This summary")[0]
    assert all(line.startswith("| row ") and line.endswith("|") for line in body.splitlines())


def test_a_small_summary_is_unchanged() -> None:
    assert fit_summary("small\n", "note") == "small\n"


def test_a_log_line_past_the_caps_is_one_inert_line() -> None:
    """A finding logged instead of annotated quotes the skill: its line breaks and control characters
    must not start a line of their own (a workflow command) or repaint the log."""
    written: list[str] = []
    hostile = "x\r\n::stop-commands::tok\r::warning::y\x1b[2J"
    annotate([Annotation("error", hostile, "f.md", 1)] * 2, written.append, per_step=1, per_job=1)
    logged = written[-1]
    assert logged.count("\n") == 1 and "\x1b" not in logged and "\r" not in logged
    assert "x ⏎ ::stop-commands::tok ⏎ ::warning::y\\x1b[2J" in logged
