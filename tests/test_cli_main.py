"""The command line's last line of defence: exit codes for what no verb handles."""

from __future__ import annotations

import subprocess
import sys

from aces_ci import cli
from aces_ci.commands import rules


def test_unknown_verb_is_a_usage_error(capsys):
    assert cli.main(["no-such-verb"]) == 2
    assert "invalid choice" in capsys.readouterr().err


def test_version_exits_zero(capsys):
    assert cli.main(["--version"]) == 0
    assert "aces-ci" in capsys.readouterr().out


def test_internal_error_exits_3_without_leaking_secrets(monkeypatch, capsys):
    token = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"

    def explode(args):
        raise RuntimeError(f"unexpected state while holding {token}")

    monkeypatch.setattr(rules, "run", explode)
    assert cli.main(["rules"]) == 3
    err = capsys.readouterr().err
    assert "internal error" in err and "RuntimeError" in err
    assert token not in err


def test_closed_pipe_is_quiet():
    proc = subprocess.run(
        f"{sys.executable} -m aces_ci.cli rules | head -1",
        shell=True,
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.stdout.startswith("id")
    assert "Traceback" not in proc.stderr


def test_ctrl_c_exits_130_and_says_a_rerun_resumes(monkeypatch, capsys):
    def interrupted(args):
        raise KeyboardInterrupt

    monkeypatch.setattr(rules, "run", interrupted)
    assert cli.main(["rules"]) == 130
    assert "run the same command again to resume" in capsys.readouterr().err
