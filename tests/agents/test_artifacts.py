"""What an agent left in its workspace: captured bounded, binary-safe, secret-free, never through a symlink."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from aces_ci.agents import ArtifactLimits, capture_artifacts, stage_workspace
from aces_ci.agents.builtin import BuiltinHarness
from tests.engine.helpers import ScriptedClient, request

SECRET = "sk-proj-Q8zR2mX0vT4nWb7Yc9LkP3sH6dJ1fG5aE"


def staged_workspace(tmp_path: Path, fixtures: dict[str, bytes]):  # type: ignore[no-untyped-def]
    return stage_workspace(request("with", fixtures=fixtures), BuiltinHarness(lambda _s: ScriptedClient()), tmp_path)


def test_only_what_the_agent_wrote_changed_or_removed_is_captured(tmp_path: Path) -> None:
    fixtures = {"data/in.csv": b"a,b\n", "notes.md": b"keep me", "old.txt": b"remove me"}
    with staged_workspace(tmp_path, fixtures) as ws:
        assert set(ws.staged) == {"data/in.csv", "notes.md", "old.txt", ".agents/skills/marker/SKILL.md"}
        (ws.root / "out").mkdir()
        (ws.root / "out" / "report.md").write_text("total: 42\n")
        (ws.root / "data" / "in.csv").write_bytes(b"a,b\n1,2\n")  # changed
        (ws.root / "notes.md").write_bytes(b"keep me")  # rewritten with the same bytes: unchanged
        (ws.root / "old.txt").unlink()
        (ws.root / "out" / "chart.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\xff")
        (ws.root / "empty-dir").mkdir()
        (ws.root / "zz.txt").write_text("last")
        (ws.root / "answer.txt").write_text("42")
        captured = capture_artifacts(ws.root, ws.staged)
    assert [(a.path, a.size, a.omitted) for a in captured.files] == [
        ("answer.txt", 2, None),
        ("data/in.csv", 8, None),
        ("out/chart.png", 10, None),
        ("out/report.md", 10, None),
        ("zz.txt", 4, None),
    ]
    assert captured.text("out/report.md") == "total: 42\n" and captured.text("./out/report.md") == "total: 42\n"
    chart = captured.file("out/chart.png")
    assert chart is not None and chart.content == b"\x89PNG\r\n\x1a\n\x00\xff" and chart.text is None
    assert captured.deleted == ("old.txt",) and not captured.truncated
    assert captured.file("notes.md") is None and captured.text("absent.txt") is None


def test_the_caps_bound_a_capture_and_say_what_was_left_out(tmp_path: Path) -> None:
    root = tmp_path / "work"
    root.mkdir()
    (root / "a-big.bin").write_bytes(b"x" * 101)
    for name in ("b.txt", "c.txt", "d.txt"):
        (root / name).write_bytes(b"y" * 40)
    (root / "e.txt").write_text("never listed")
    limits = ArtifactLimits(max_file_bytes=100, max_total_bytes=90, max_files=4)
    captured = capture_artifacts(root, {}, limits)
    assert [(a.path, a.omitted, a.content is not None) for a in captured.files] == [
        ("a-big.bin", "too_large", False),
        ("b.txt", None, True),
        ("c.txt", None, True),
        ("d.txt", "over_total", False),
    ]
    assert captured.truncated and captured.limits == limits


def test_a_symlink_is_listed_never_followed(tmp_path: Path) -> None:
    outside = tmp_path / "shadow"
    outside.write_text(f"root:{SECRET}")
    (outside.parent / "secrets").mkdir()
    root = tmp_path / "work"
    root.mkdir()
    (root / "leak.txt").symlink_to(outside)
    (root / "leak-dir").symlink_to(outside.parent / "secrets", target_is_directory=True)
    captured = capture_artifacts(root, {})
    assert [(a.path, a.omitted, a.content) for a in captured.files] == [
        ("leak-dir", "symlink", None),
        ("leak.txt", "symlink", None),
    ]


def test_a_fifo_is_listed_never_read(tmp_path: Path) -> None:
    root = tmp_path / "work"
    root.mkdir()
    os.mkfifo(root / "pipe")
    assert [(a.path, a.omitted) for a in capture_artifacts(root, {}).files] == [("pipe", "special_file")]


def test_secrets_never_reach_a_capture(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    literal = "hunter2-but-longer-than-eight"
    root = tmp_path / "work"
    root.mkdir()
    (root / "env.txt").write_text(f"OPENAI_API_KEY={SECRET}\npassword {literal}\n")
    (root / "blob.bin").write_bytes(b"\x00\xff" + SECRET.encode() + b"\x00")
    (root / "other.bin").write_bytes(b"\x00\xff" + literal.encode())
    captured = capture_artifacts(root, {}, secrets=(literal,))
    text = captured.file("env.txt")
    assert text is not None and text.redacted and text.text is not None
    assert SECRET not in text.text and literal not in text.text and "[REDACTED" in text.text
    assert [(a.path, a.omitted) for a in captured.files if a.omitted] == [
        ("blob.bin", "holds_secret"),
        ("other.bin", "holds_secret"),
    ]


@pytest.mark.parametrize("field", ["max_file_bytes", "max_total_bytes", "max_files"])
def test_impossible_limits_are_refused(field: str) -> None:
    with pytest.raises(ValueError, match=field):
        ArtifactLimits(**{field: -1})
