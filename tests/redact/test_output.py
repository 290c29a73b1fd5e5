"""The redactor at the edges: streams, JSON documents, log records and child-process environments."""

from __future__ import annotations

import io
import json
import logging
import sys
from pathlib import Path

import pytest

from aces_ci.cli import main
from aces_ci.redact import (
    RedactingStream,
    command_writer,
    environment_secrets,
    get_logger,
    redacted_json,
    redacted_stdio,
    safe_environment,
)

GITHUB = "gh" + "p_" + "Zq7Lm2Xv9Tb4Nw8Rc1Yk6Hd3Fs5Gj0Pa1QeW"
BODY = "MIIEowIBAAKCAQEAx9Kq2Lm8Zp0qW7rT5vB2nC4yH6jF1gA9sD3eR8tY0uI2oP4a\n" * 3
PEM = "-----BEGIN RSA " + "PRIVATE KEY-----\n" + BODY + "-----END RSA " + "PRIVATE KEY-----\n"


def test_a_stream_redacts_whole_lines_even_when_a_secret_arrives_in_pieces() -> None:
    target = io.StringIO()
    stream = RedactingStream(target, extra_secrets=["self-hosted-key-123"])
    for piece in ("token ", GITHUB[:9], GITHUB[9:], " and self-hosted-", "key-123\n", "tail"):
        stream.write(piece)
    assert target.getvalue() == "token [REDACTED:github-token] and [REDACTED:secret]\n"
    stream.flush()
    assert target.getvalue().endswith("\ntail")


def test_a_private_key_printed_at_once_is_masked_whole() -> None:
    target = io.StringIO()
    RedactingStream(target).write(PEM)
    assert "MIIE" not in target.getvalue() and "[REDACTED:private-key]" in target.getvalue()


def test_redacted_stdio_covers_print_and_restores_the_streams(capsys: pytest.CaptureFixture[str]) -> None:
    before = sys.stdout
    with redacted_stdio():
        print(f"out {GITHUB}")
        print(f"err {GITHUB}", file=sys.stderr)
    assert sys.stdout is before
    out, err = capsys.readouterr()
    assert (out, err) == ("out [REDACTED:github-token]\n", "err [REDACTED:github-token]\n")


def test_argparse_errors_are_redacted_too(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rollout", ".", "--case", "x", "--provider", GITHUB]) == 2
    out, err = capsys.readouterr()
    assert GITHUB not in out + err and "[REDACTED:github-token]" in err


def test_json_documents_are_redacted_before_encoding_and_stay_valid() -> None:
    document = {"trajectory": {"steps": [{"message": PEM}]}, GITHUB: ["self-hosted-key-123"]}
    text = redacted_json(document, ["self-hosted-key-123"], indent=2)
    loaded = json.loads(text)
    assert loaded == {
        "trajectory": {"steps": [{"message": "[REDACTED:private-key]\n"}]},
        "[REDACTED:github-token]": ["[REDACTED:secret]"],
    }


def test_log_records_are_redacted_with_their_arguments_and_tracebacks(caplog: pytest.LogCaptureFixture) -> None:
    logger = get_logger("aces_ci.test_redact_logging")
    with caplog.at_level(logging.WARNING):
        try:
            raise ValueError(f"provider said: bad key {GITHUB}")
        except ValueError:
            logger.warning("retrying after %s", GITHUB, exc_info=True)
    text = caplog.text
    assert GITHUB not in text and "retrying after [REDACTED:github-token]" in text
    assert "ValueError: provider said: bad key [REDACTED:github-token]" in text


def test_environments_for_child_processes_leave_every_secret_behind() -> None:
    source = {
        "PATH": "/usr/bin",
        "GITHUB_TOKEN": "anything-at-all-1234",
        "INNOCENT_NAME": GITHUB,
        "HTTPS_PROXY": "http://user:Tq8vLz2mKp4X@proxy:3128",
        "LANG": "C.UTF-8",
    }
    assert safe_environment(source) == {"PATH": "/usr/bin", "LANG": "C.UTF-8"}
    assert "HTTPS_PROXY" in safe_environment(source, keep=["HTTPS_PROXY"])
    assert set(environment_secrets(source)) == {
        "anything-at-all-1234",
        GITHUB,
        "http://user:Tq8vLz2mKp4X@proxy:3128",
    }


def test_cuts_never_split_a_secret() -> None:
    from aces_ci.redact import redact_text, safe_prefix, trim_partial_tokens

    text = "x" * 30 + " " + GITHUB + " and more text after it"
    cut = safe_prefix(text, 40)  # the limit falls inside the token
    assert cut == "x" * 30 + " " and GITHUB[:9] not in redact_text(cut)
    assert safe_prefix(text, 10) == "x" * 10 and safe_prefix(text, 1000) == text
    head, tail = trim_partial_tokens("output: " + GITHUB[:20], GITHUB[20:] + " done")
    assert (head, tail) == ("output: ", " done")


def test_no_line_on_stdout_reads_as_a_workflow_command_but_our_own_annotations(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with redacted_stdio():
        print("::stop-commands::tok")
        print(f"  ::add-mask::x\n##[warning]forged {GITHUB}")
        sys.stdout.write("a partial line")
        command_writer(sys.stdout)(f"::warning file=a.md::ours {GITHUB}\n")
    out = capsys.readouterr().out.splitlines()
    assert out == [
        "» ::stop-commands::tok",
        "  » ::add-mask::x",
        "» ##[warning]forged [REDACTED:github-token]",
        "a partial line",
        "::warning file=a.md::ours [REDACTED:github-token]",
    ]


def test_a_skill_named_like_a_workflow_command_cannot_issue_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    skill = tmp_path / "::stop-commands::tok"
    skill.mkdir()
    (skill / "SKILL.md").write_text('---\nname: "::warning::pwned"\ndescription: d\n---\n# ::error::x\n\nbody\n')

    main(["scan", str(skill)])  # a lone skill's report is headed by its name

    out, err = capsys.readouterr()
    assert "::warning::pwned" in out  # shown, as text
    assert not [line for line in (out + err).splitlines() if line.lstrip().startswith(("::", "##["))]
