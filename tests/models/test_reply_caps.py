"""A model answering with megabytes: read to a cap, stored to a cap, and the rollout says so.

The scripted server answers every call with a 10 MB text. Before the caps, twelve such rollouts
wrote 241 MB of cache and as much journal; now the body is read to 4 MiB, the kept text is at most
``max_tokens`` × 32 bytes, and the rollout ends ``completed`` / ``reply_too_large``, graded on the
kept part.
"""

from __future__ import annotations

import gzip
import http.server
import json
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from aces_ci.cli import main
from aces_ci.models import Message as ModelMessage
from aces_ci.models import ModelRequest, ModelSpec, create_client
from tests.engine.helpers import write_skill
from tests.servers import ScriptedServer, Text, ToolUse, model_flags

Server = Callable[..., ScriptedServer]
HUGE = 10_000_000
EVALS = json.dumps({"skill_name": "tidy", "evals": [{"id": "one", "prompt": "Say hi.", "expected_output": "hi"}]})
STORED_BOUND = 512 * 1024
"""Far above the 32 KiB a 1,024-token reply may keep, far below the 10 MB the server sends."""


@pytest.fixture(autouse=True)
def _quiet_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CI", "true")
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)


def _bytes_under(folder: Path) -> int:
    return sum(path.stat().st_size for path in folder.rglob("*") if path.is_file())


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_a_10_mb_reply_is_stored_bounded_and_ends_reply_too_large(
    scripted_server: Server, tmp_path: Path, provider: str, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / ".git").mkdir()
    skill_dir = write_skill(tmp_path / "skills", "tidy", evals=EVALS)
    server = scripted_server(lambda _request: Text("hi " + "y" * HUGE))
    cache, journal, trajectory = tmp_path / "cache", tmp_path / "journal.jsonl", tmp_path / "trajectory.json"
    code = main(
        [
            "rollout",
            str(skill_dir),
            "--case",
            "one",
            *model_flags(server, provider),
            "--cache-dir",
            str(cache),
            "--journal",
            str(journal),
            "--trajectory",
            str(trajectory),
        ]
    )
    out, err = capsys.readouterr()
    assert code == 0, err
    assert any(line.split()[3:5] == ["completed", "reply_too_large"] for line in out.splitlines()), out
    assert 0 < _bytes_under(cache) < STORED_BOUND
    assert 0 < journal.stat().st_size < STORED_BOUND
    assert 0 < trajectory.stat().st_size < STORED_BOUND
    stored = json.loads(trajectory.read_text())
    assert stored["extra"]["end_reason"] == "reply_too_large"


async def test_the_text_budget_follows_max_tokens_and_drops_cut_tool_calls(scripted_server: Server) -> None:
    big_call = ToolUse("write_file", {"path": "a", "content": "q" * 5000})
    server = scripted_server([Text("z" * 5000), big_call, Text("ok")])
    client = create_client(ModelSpec("openai", "scripted-model", base_url=server.openai_url))
    request = ModelRequest(system="s", messages=(ModelMessage("user", "go"),), max_tokens=100)
    try:
        cut = await client.generate(request)
        assert (cut.stop_reason, len(cut.text)) == ("reply_too_large", 100 * 32)
        cut_call = await client.generate(request)
        assert (cut_call.stop_reason, cut_call.tool_calls) == ("reply_too_large", ())
        whole = await client.generate(request)
        assert (whole.stop_reason, whole.text) == ("end_turn", "ok")
    finally:
        await client.aclose()


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
async def test_the_transport_stops_reading_at_its_cap(scripted_server: Server, provider: str) -> None:
    """The provider client alone (no size policy above it) still never holds more than the body cap."""
    from aces_ci.models import AnthropicClient, OpenAIChatClient
    from aces_ci.models._reply import MAX_REPLY_BODY_BYTES

    server = scripted_server(lambda _request: Text("hi " + "y" * HUGE))
    client = (
        OpenAIChatClient("scripted-model", api_key="k", base_url=server.openai_url)
        if provider == "openai"
        else AnthropicClient("scripted-model", api_key="k", base_url=server.url)
    )
    try:
        reply = await client.generate(ModelRequest(system="s", messages=(ModelMessage("user", "go"),)))
    finally:
        await client.aclose()
    assert reply.stop_reason == "reply_too_large"
    assert len(reply.text) < MAX_REPLY_BODY_BYTES
    if provider == "openai":  # a cut JSON body still yields the answer as far as it was read
        assert reply.text.startswith("hi yyy") and len(reply.text) > MAX_REPLY_BODY_BYTES // 2


class _GzipBomb(http.server.BaseHTTPRequestHandler):
    """Answers every POST with 256 MB of spaces gzipped to about 250 KB, unasked (the client wants identity)."""

    body = gzip.compress(b" " * (256 * 1024 * 1024), compresslevel=9)

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length", "0")))
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Encoding", "gzip")
        self.send_header("Content-Length", str(len(self.body)))
        self.end_headers()
        self.wfile.write(self.body)

    def log_message(self, format: str, *args: object) -> None:
        """Quiet: the test asserts on the client's answer."""


async def test_a_compressed_reply_is_capped_on_the_wire_before_it_can_expand() -> None:
    from aces_ci.models import OpenAIChatClient

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _GzipBomb)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    client = OpenAIChatClient("m", api_key="k", base_url=f"http://127.0.0.1:{server.server_address[1]}/v1")
    try:
        reply = await client.generate(ModelRequest(system="s", messages=(ModelMessage("user", "go"),)))
    finally:
        await client.aclose()
        server.shutdown()
        server.server_close()
    assert (reply.stop_reason, reply.text) == ("reply_too_large", "")
