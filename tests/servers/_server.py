"""A real HTTP server on 127.0.0.1 that answers model API calls from a script.

One server speaks all three wire formats at once, chosen by path: ``POST /v1/messages`` (Anthropic),
``POST /v1/chat/completions`` and ``POST /v1/responses`` (OpenAI), plus ``GET /v1/models`` (Anthropic
shape when the request carries ``anthropic-version``, OpenAI shape otherwise). It is plain
``http.server`` on HTTP/1.1 with keep-alive and chunked SSE, in a background thread, so the real
``anthropic``/``openai`` SDKs, httpx and the harness CLIs talk to it exactly as to the real service.

Stopping it ends everything it started: hung replies return, idle keep-alive connections are shut
down and handler threads are joined, so a test can never stall the run.
"""

from __future__ import annotations

import contextlib
import json
import random
import socket
import sys
import threading
from collections.abc import Callable, Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any, TypeAlias

from ._replies import REPLY_TYPES, Fault, Hang, Reply, SlowStream, StreamFault, Text, ToolUse
from ._request import DIALECT_BY_PATH, Dialect, ScriptedRequest
from ._wire import Wire
from ._wire_anthropic import AnthropicWire
from ._wire_chat import ChatWire
from ._wire_responses import ResponsesWire

Script: TypeAlias = Sequence[Reply] | Callable[[ScriptedRequest], Reply]
"""Replies consumed in order, or a function of the request that returns the reply."""

WIRES: dict[Dialect, Wire] = {"anthropic": AnthropicWire(), "chat": ChatWire(), "responses": ResponsesWire()}
MAX_BODY_BYTES = 64 * 1024 * 1024
JOIN_TIMEOUT_S = 5.0


class ScriptedServer:
    """Serve scripted replies until stopped; use as a context manager or through the pytest fixtures.

    ``fault_rate`` answers that share of requests (seeded by ``fault_seed``) with a ``Fault`` whose status
    is drawn from ``fault_statuses`` *before* the script is consulted; injected faults do not consume
    script entries, so the script still describes the successful calls in order.
    """

    def __init__(
        self,
        script: Script = (),
        *,
        model_ids: Sequence[str] = ("scripted-model",),
        fault_rate: float = 0.0,
        fault_seed: int = 0,
        fault_statuses: Sequence[int] = (429, 500),
    ) -> None:
        if not 0.0 <= fault_rate <= 1.0:
            raise ValueError(f"fault_rate must be within [0, 1], got {fault_rate}")
        self._script = script if callable(script) else list(script)
        self.model_ids = tuple(model_ids)
        self._fault_rate = fault_rate
        self._fault_rng = random.Random(fault_seed)
        self._fault_statuses = tuple(fault_statuses)
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._requests: list[ScriptedRequest] = []
        self._errors: list[str] = []
        self._replies_used = 0
        self._injected = 0
        self._in_flight = 0
        self._max_in_flight = 0
        self._connections: dict[socket.socket, threading.Thread] = {}
        self._httpd: _HTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle ---------------------------------------------------------------------------------

    def start(self) -> ScriptedServer:
        if self._httpd is not None:
            raise RuntimeError("scripted server already started")
        self._httpd = _HTTPServer(self)
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, name="scripted-server", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving, end hung replies, close every connection and join the threads. Idempotent."""
        httpd, self._httpd = self._httpd, None
        if httpd is None:
            return
        self._stopping.set()
        httpd.shutdown()
        with self._lock:
            connections = dict(self._connections)
        for sock in connections:
            with contextlib.suppress(OSError):  # already closed by the peer
                sock.shutdown(socket.SHUT_RDWR)
        for thread in connections.values():
            thread.join(JOIN_TIMEOUT_S)
        httpd.server_close()
        if self._thread is not None:
            self._thread.join(JOIN_TIMEOUT_S)

    def __enter__(self) -> ScriptedServer:
        return self.start()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()

    # -- what tests read -------------------------------------------------------------------------

    @property
    def port(self) -> int:
        if self._httpd is None:
            raise RuntimeError("scripted server is not running")
        return int(self._httpd.server_address[1])

    @property
    def url(self) -> str:
        """Base URL without ``/v1``: what the anthropic SDK and ``ANTHROPIC_BASE_URL`` expect."""
        return f"http://127.0.0.1:{self.port}"

    @property
    def openai_url(self) -> str:
        """Base URL with ``/v1``: what the openai SDK, Codex and OpenCode expect."""
        return f"{self.url}/v1"

    @property
    def calls(self) -> int:
        """Model requests received so far (injected faults included)."""
        with self._lock:
            return len(self._requests)

    @property
    def requests(self) -> list[ScriptedRequest]:
        """Every model request received, in arrival order (a copy)."""
        with self._lock:
            return list(self._requests)

    @property
    def max_concurrent(self) -> int:
        """The most model requests that were in progress at the same moment."""
        with self._lock:
            return self._max_in_flight

    @property
    def injected_faults(self) -> int:
        with self._lock:
            return self._injected

    @property
    def errors(self) -> list[str]:
        """Problems on the server side: unparseable requests, an exhausted script, a script that raised."""
        with self._lock:
            return list(self._errors)

    # -- what the handler calls --------------------------------------------------------------------

    def _track(self, sock: socket.socket) -> None:
        with self._lock:
            self._connections[sock] = threading.current_thread()

    def _untrack(self, sock: socket.socket) -> None:
        with self._lock:
            self._connections.pop(sock, None)

    def _record_error(self, message: str) -> None:
        with self._lock:
            self._errors.append(message)

    def _admit(
        self, method: str, raw_path: str, headers: dict[str, str], body: dict[str, Any], dialect: Dialect
    ) -> ScriptedRequest:
        with self._lock:
            request = ScriptedRequest.parse(
                len(self._requests), method=method, raw_path=raw_path, headers=headers, body=body, dialect=dialect
            )
            self._requests.append(request)
            self._in_flight += 1
            self._max_in_flight = max(self._max_in_flight, self._in_flight)
            return request

    def _leave(self) -> None:
        with self._lock:
            self._in_flight -= 1

    def _reply_for(self, request: ScriptedRequest) -> Reply:
        """The injected fault, or the script's next reply; script problems become a 400 naming them."""
        with self._lock:
            if self._fault_rate and self._fault_rng.random() < self._fault_rate:
                self._injected += 1
                return Fault(self._fault_rng.choice(self._fault_statuses), message="injected fault")
            if not callable(self._script):
                if self._replies_used >= len(self._script):
                    problem = f"scripted server: script exhausted after {len(self._script)} replies"
                    self._errors.append(problem)
                    return Fault(400, message=problem)
                self._replies_used += 1
                return self._checked(self._script[self._replies_used - 1])
            script = self._script
        try:
            reply: object = script(request)
        except Exception as exc:  # the script is test code: report its failure to the client and the test
            problem = f"scripted server: script raised {type(exc).__name__}: {exc}"
            self._record_error(problem)
            return Fault(400, message=problem)
        with self._lock:
            return self._checked(reply)

    def _checked(self, reply: object) -> Reply:
        """The reply itself, or a 400 naming what the script gave instead (caller holds the lock)."""
        if isinstance(reply, REPLY_TYPES):
            return reply
        problem = f"scripted server: the script returned {reply!r}, which is not a reply"
        self._errors.append(problem)
        return Fault(400, message=problem)

    def _wait(self, seconds: float | None) -> bool:
        """Sleep until ``seconds`` pass or the server stops; True when it is stopping."""
        return self._stopping.wait(seconds)


class _HTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False
    request_queue_size = 128

    def __init__(self, owner: ScriptedServer) -> None:
        self.owner = owner
        super().__init__(("127.0.0.1", 0), _Handler)

    def handle_error(self, request: Any, client_address: Any) -> None:
        """Record a handler crash on the server (tests read ``errors``) instead of printing to stderr."""
        exc = sys.exc_info()[1]
        if isinstance(exc, ConnectionError):
            return  # the client went away: its own side reports that, the server did nothing wrong
        self.owner._record_error(f"scripted server: handler failed: {type(exc).__name__}: {exc}")


class _Disconnected(Exception):
    """The client went away while we were writing."""


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True
    """Headers and body go out in separate writes; with Nagle on, each reply would wait for a delayed ACK."""
    server: _HTTPServer

    def log_message(self, format: str, *args: Any) -> None:
        """Silence per-request logging: the request log on the server object is what tests read."""

    def setup(self) -> None:
        super().setup()
        self.server.owner._track(self.connection)

    def finish(self) -> None:
        try:
            super().finish()
        except OSError:
            pass  # the peer reset the connection; nothing left to flush
        finally:
            self.server.owner._untrack(self.connection)

    # -- routing ---------------------------------------------------------------------------------

    def do_GET(self) -> None:
        path = self.path.partition("?")[0]
        wire = WIRES["anthropic"] if self.headers.get("anthropic-version") else WIRES["chat"]
        if path != "/v1/models":
            self._send_json(404, wire.error_body(404, None, f"scripted server: no route GET {path}"))
            return
        self._send_json(200, wire.models_body(self.server.owner.model_ids))

    def do_POST(self) -> None:
        owner = self.server.owner
        path = self.path.partition("?")[0]
        raw = self._read_body()
        if raw is None:
            return  # already answered 413
        dialect = DIALECT_BY_PATH.get(path)
        if dialect is None:
            problem = f"scripted server: no route POST {path}"
            owner._record_error(problem)
            self._send_json(404, WIRES["chat"].error_body(404, None, problem))
            return
        wire = WIRES[dialect]
        try:
            body: object = json.loads(raw or b"{}")
        except ValueError:  # invalid JSON or invalid UTF-8
            body = None
        if not isinstance(body, dict):
            problem = f"scripted server: request body of POST {path} is not a JSON object"
            owner._record_error(problem)
            self._send_json(400, wire.error_body(400, None, problem))
            return
        request = owner._admit("POST", self.path, dict(self.headers.items()), body, dialect)
        try:
            self._answer(owner._reply_for(request), wire, request)
        except _Disconnected:
            self.close_connection = True
        finally:
            owner._leave()

    # -- replies -----------------------------------------------------------------------------------

    def _answer(self, reply: Reply, wire: Wire, request: ScriptedRequest) -> None:
        owner = self.server.owner
        if isinstance(reply, Text | ToolUse):
            if request.stream:
                self._send_events(wire.reply_events(reply, request), delay_s=0.0)
            else:
                self._send_json(200, wire.reply_body(reply, request))
        elif isinstance(reply, SlowStream):
            if request.stream:
                self._send_events(wire.reply_events(reply.reply, request), delay_s=reply.delay_s)
            elif owner._wait(reply.delay_s):
                self._hang_up()  # the server is stopping
            else:
                self._send_json(200, wire.reply_body(reply.reply, request))
        elif isinstance(reply, Fault):
            self._send_fault(reply, wire)
        elif isinstance(reply, StreamFault):
            if request.stream:
                self._send_events(wire.fault_events(reply, request), delay_s=0.0)
            else:
                self._send_json(200, wire.fault_body(reply))
        elif isinstance(reply, Hang):
            owner._wait(reply.seconds)
            self._hang_up()
        else:  # Drop
            self._hang_up()

    def _send_fault(self, fault: Fault, wire: Wire) -> None:
        message = fault.message or f"scripted fault {fault.status}"
        body: dict[str, Any] | str = (
            wire.error_body(fault.status, fault.error_type, message)
            if fault.body is None
            else fault.body
            if isinstance(fault.body, str)
            else dict(fault.body)
        )
        headers = dict(fault.headers)
        if fault.retry_after is not None:
            headers["retry-after"] = str(fault.retry_after)
        if fault.retry_after_ms is not None:
            headers["retry-after-ms"] = str(fault.retry_after_ms)
        self._send_json(fault.status, body, headers)

    def _hang_up(self) -> None:
        self.close_connection = True
        with contextlib.suppress(OSError):  # already gone
            self.connection.shutdown(socket.SHUT_RDWR)

    # -- HTTP plumbing -----------------------------------------------------------------------------

    def _read_body(self) -> bytes | None:
        """The request body (Content-Length or chunked); None after answering 413 for an oversized one."""
        if self.headers.get("transfer-encoding", "").lower() == "chunked":
            parts: list[bytes] = []
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass  # trailers
                    return b"".join(parts)
                parts.append(self.rfile.read(size))
                self.rfile.readline()
        length = int(self.headers.get("content-length") or 0)
        if length > MAX_BODY_BYTES:
            self.close_connection = True
            self._send_json(413, {"error": {"message": "scripted server: request body too large"}})
            return None
        return self.rfile.read(length) if length else b""

    def _request_id_headers(self) -> dict[str, str]:
        """Both SDKs' request-id headers (``request-id`` for Anthropic, ``x-request-id`` for OpenAI)."""
        request_id = f"req_scripted_{self.server.owner.calls:06d}"
        return {"request-id": request_id, "x-request-id": request_id}

    def _send_json(self, status: int, body: dict[str, Any] | str, headers: dict[str, str] | None = None) -> None:
        data = body.encode() if isinstance(body, str) else json.dumps(body).encode()
        try:
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            for name, value in {**self._request_id_headers(), **(headers or {})}.items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(data)
        except OSError as exc:
            raise _Disconnected from exc

    def _send_events(self, events: list[bytes], delay_s: float) -> None:
        owner = self.server.owner
        try:
            self.send_response(200)
            self.send_header("content-type", "text/event-stream")
            self.send_header("cache-control", "no-cache")
            self.send_header("transfer-encoding", "chunked")
            for name, value in self._request_id_headers().items():
                self.send_header(name, value)
            self.end_headers()
            for event in events:
                if delay_s and owner._wait(delay_s):
                    self._hang_up()
                    return
                self.wfile.write(b"%X\r\n%s\r\n" % (len(event), event))
            self.wfile.write(b"0\r\n\r\n")
        except OSError as exc:
            raise _Disconnected from exc
