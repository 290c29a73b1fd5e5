"""The embedded local model: SmolLM2-135M-Instruct served by llama.cpp's OpenAI-compatible server.

``pip install 'aces-ci[local]'`` brings ``xllamacpp``, a prebuilt wheel of llama.cpp with its HTTP server
(no compiler, seconds to install); the weights are fetched once into a cache (:mod:`._weights`). The
server runs as a child process (:mod:`._local_serve`) in its own process group (so a Ctrl-C in the
terminal reaches us, not it, and we stop it in order), on 127.0.0.1 and a port the kernel picks.

Lifetime: :class:`LocalModelManager` starts one server on first use and stops it when the last client
releases it; rollouts of a run share it. As a safety net for abrupt exits, live servers are also
stopped at interpreter exit (``atexit``, which Ctrl-C reaches) and on SIGTERM; a SIGKILL of this
process cannot be caught, so the child also exits by itself once its parent is gone.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import functools
import importlib.metadata
import importlib.util
import os
import selectors
import signal
import subprocess
import sys
import tempfile
import threading
import time
import weakref
from pathlib import Path
from types import FrameType, TracebackType
from typing import IO

import httpx

from ..errors import ConfigError, InfraError
from ..redact import redact_text, safe_environment, trim_partial_tokens
from ._base import ModelClient, ModelRequest, ModelResponse
from ._weights import SMOLLM2_135M, local_weights

LOCAL_MODEL_ID = "smollm2-135m-instruct"
"""The model id the embedded server answers to."""
RUNTIME_PACKAGE = "xllamacpp"
INSTALL_HINT = "pip install 'aces-ci[local]'"
LOCAL_THREADS = 2
"""Threads of the embedded server. Fixed, not the machine's core count: llama.cpp splits its sums by thread,
so another count can change an answer at temperature 0 (1 thread against 2 changed 1 answer in 14 of the
example's prompts, see BENCHMARKS.md). It is part of the rollout cache key."""
SERVER_ENVIRONMENT = {"OMP_WAIT_POLICY": "PASSIVE"}
"""Set for the server: idle OpenMP threads sleep instead of spinning. With spinning threads, generation
on a busy 2-core runner was 5-15x slower (each thread waits for a core held by the other's spinning;
BENCHMARKS.md), which is how local-model calls used to time out under load."""
_SERVE_SCRIPT = Path(__file__).with_name("_local_serve.py")
_READY = "READY "
_LOG_TAIL_CHARS = 2000


def missing_local_extra() -> str | None:
    """Why the embedded model cannot run here (naming the install command), or None when it can.

    Only the runtime is checked: the weights are fetched on first use when they are not cached yet.
    """
    if importlib.util.find_spec(RUNTIME_PACKAGE) is None:
        return f"the embedded local model needs {RUNTIME_PACKAGE}: run {INSTALL_HINT}"
    return None


def local_runtime_identity() -> dict[str, str]:
    """What, besides the prompt, decides the embedded model's answers: part of every local rollout's cache key.

    A new llama.cpp build, another thread count or other weights may answer differently even at
    temperature 0, so rollouts cached under one are not replayed for the other.
    """
    return {"runtime": _runtime_version(), "threads": str(LOCAL_THREADS), "weights_sha256": SMOLLM2_135M.sha256}


@functools.cache
def _runtime_version() -> str:
    try:
        return f"{RUNTIME_PACKAGE} {importlib.metadata.version(RUNTIME_PACKAGE)}"
    except importlib.metadata.PackageNotFoundError:
        return f"{RUNTIME_PACKAGE} not installed"


class LocalModelServer:
    """One llama.cpp server child process (:mod:`._local_serve`).

    ``start``/``stop`` block; ``async with`` runs them in a worker thread. ``model_path`` defaults to
    the embedded model's weights, fetched on first use. ``reuse_prompt_prefix`` keeps the previous
    prompt's computation for the next one with the same start: faster, but an answer may then depend on
    the request before it, so aces-ci's own server never sets it (the runtime benchmark does).
    """

    def __init__(
        self,
        model_path: Path | None = None,
        *,
        n_ctx: int = 4096,
        n_threads: int = LOCAL_THREADS,
        startup_timeout_s: float = 120.0,
        reuse_prompt_prefix: bool = False,
    ) -> None:
        self.model_path = model_path
        self.n_ctx = n_ctx
        self.n_threads = n_threads
        self.reuse_prompt_prefix = reuse_prompt_prefix
        self.startup_timeout_s = startup_timeout_s
        self.log_path: Path | None = None
        self._process: subprocess.Popen[bytes] | None = None
        self._base_url = ""
        _install_exit_handlers()

    @property
    def base_url(self) -> str:
        """The OpenAI-compatible base URL (with ``/v1``)."""
        if self._process is None:
            raise InfraError("the local model server is not running")
        return self._base_url

    @property
    def pid(self) -> int | None:
        return self._process.pid if self._process is not None else None

    def start(self) -> None:
        if self._process is not None:
            return
        if self.model_path is not None and not self.model_path.is_file():
            raise ConfigError(f"model file not found: {self.model_path}", path=str(self.model_path))
        reason = missing_local_extra()
        if reason is not None:
            raise ConfigError(reason, field="provider")
        model_path = self.model_path or local_weights()
        with tempfile.NamedTemporaryFile(prefix="aces-local-model-", suffix=".log", delete=False) as log:
            self.log_path = Path(log.name)
            command = [
                sys.executable,
                str(_SERVE_SCRIPT),
                "--model",
                str(model_path),
                "--alias",
                LOCAL_MODEL_ID,
                "--n-ctx",
                str(self.n_ctx),
                "--threads",
                str(self.n_threads),
                *(["--reuse-prompt-prefix"] if self.reuse_prompt_prefix else []),
            ]
            # Keys and tokens are nothing the model server needs; keep them out of its environment and log.
            environment = {**safe_environment(), **SERVER_ENVIRONMENT}
            process = self._process = subprocess.Popen(
                command,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=log,
                env=environment,
                start_new_session=True,
            )
        _LIVE_SERVERS.add(self)
        _install_exit_handlers()
        try:
            self._base_url = self._wait_until_ready(process)
        except BaseException:
            self._terminate(keep_log=True)
            raise

    def _wait_until_ready(self, process: subprocess.Popen[bytes]) -> str:
        """The base URL the child announces, once it answers; the deadline only guards against a hang."""
        deadline = time.monotonic() + self.startup_timeout_s
        assert process.stdout is not None
        line = _read_line(process.stdout, deadline)
        if not line.startswith(_READY):
            if process.poll() is None and time.monotonic() >= deadline:
                raise InfraError(
                    f"the local model server did not start within {self.startup_timeout_s:g} s; "
                    f"its log is {self.log_path}"
                )
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(timeout=10)
            raise InfraError(
                f"the local model server exited with code {process.poll()} while starting; "
                f"its log is {self.log_path}:\n{self._log_tail()}"
            )
        base_url = line[len(_READY) :].strip().rstrip("/") + "/v1"
        with httpx.Client(timeout=10.0) as http:
            while time.monotonic() < deadline:
                with contextlib.suppress(httpx.TransportError):
                    if http.get(f"{base_url}/models").status_code == 200:
                        return base_url
                time.sleep(0.1)
        raise InfraError(
            f"the local model server did not answer within {self.startup_timeout_s:g} s; its log is {self.log_path}"
        )

    def _log_tail(self) -> str:
        if self.log_path is None:
            return ""
        try:
            text = self.log_path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return ""
        if len(text) <= _LOG_TAIL_CHARS:
            return redact_text(text)
        # Drop the token the cut went through (half a secret escapes detection), then redact the rest.
        return redact_text(trim_partial_tokens("", text[-_LOG_TAIL_CHARS:])[1])

    def stop(self) -> None:
        """Stop the server's whole process group and remove its log. Idempotent."""
        self._terminate(keep_log=False)

    def _terminate(self, *, keep_log: bool) -> None:
        process, self._process = self._process, None
        _LIVE_SERVERS.discard(self)
        if process is None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            process.wait()
        if process.stdout is not None:
            process.stdout.close()
        if not keep_log and self.log_path is not None:
            with contextlib.suppress(OSError):
                self.log_path.unlink()

    async def __aenter__(self) -> LocalModelServer:
        await asyncio.to_thread(self.start)
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await asyncio.to_thread(self.stop)


def _read_line(stream: IO[bytes], deadline: float) -> str:
    """One line from ``stream`` (the child's stdout), or what came before EOF or the deadline."""
    data = b""
    with selectors.DefaultSelector() as selector:
        selector.register(stream, selectors.EVENT_READ)
        while not data.endswith(b"\n"):
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not selector.select(timeout=remaining):
                break
            chunk = os.read(stream.fileno(), 4096)
            if not chunk:
                break
            data += chunk
    return data.decode("utf-8", errors="replace")


class LocalModelManager:
    """Shares one :class:`LocalModelServer` among clients.

    The first ``acquire`` starts it, the last ``release`` stops it.
    Thread-safe and independent of any event loop, so separate ``asyncio.run`` calls can share it.
    """

    def __init__(self, server_factory: type[LocalModelServer] = LocalModelServer) -> None:
        self._factory = server_factory
        self._lock = threading.Lock()
        self._server: LocalModelServer | None = None
        self._users = 0

    @property
    def users(self) -> int:
        with self._lock:
            return self._users

    def acquire(self) -> str:
        """Start the server if needed and return its base URL (blocking)."""
        with self._lock:
            if self._server is None:
                server = self._factory()
                server.start()
                self._server = server
            self._users += 1
            return self._server.base_url

    def release(self) -> None:
        with self._lock:
            if self._users == 0:
                return
            self._users -= 1
            if self._users == 0 and self._server is not None:
                server, self._server = self._server, None
                server.stop()


DEFAULT_LOCAL_MODELS = LocalModelManager()
"""The process's manager, used by ``create_client`` unless the caller passes its own."""


class LocalModelClient(ModelClient):
    """The embedded model behind the OpenAI-compatible client; the server starts on the first call."""

    provider = "local"
    model = LOCAL_MODEL_ID

    def __init__(self, manager: LocalModelManager, *, timeout_s: float = 120.0) -> None:
        self._manager = manager
        self._timeout_s = timeout_s
        self._inner: ModelClient | None = None
        self._starting = asyncio.Lock()
        _install_exit_handlers()

    async def generate(self, request: ModelRequest) -> ModelResponse:
        return await (await self._client()).generate(request)

    async def _client(self) -> ModelClient:
        async with self._starting:
            if self._inner is None:
                from ._openai import OpenAIChatClient

                base_url = await asyncio.to_thread(self._manager.acquire)
                self._inner = OpenAIChatClient(
                    LOCAL_MODEL_ID, api_key="local", base_url=base_url, timeout_s=self._timeout_s, provider="local"
                )
            return self._inner

    async def aclose(self) -> None:
        inner, self._inner = self._inner, None
        if inner is not None:
            await inner.aclose()
            await asyncio.to_thread(self._manager.release)


# -- safety net for abrupt exits ----------------------------------------------------------------------

_LIVE_SERVERS: weakref.WeakSet[LocalModelServer] = weakref.WeakSet()
_installed: set[str] = set()
_install_lock = threading.Lock()


def _stop_live_servers() -> None:
    for server in list(_LIVE_SERVERS):
        server.stop()


def _install_exit_handlers() -> None:
    """Register the atexit hook once, and a SIGTERM handler that chains to the previous one.

    Signal handlers can only be set from the main thread; servers often start in a worker thread, so
    this is also called when clients and servers are *created*, which happens on the main thread.
    """
    with _install_lock:
        if "atexit" not in _installed:
            _installed.add("atexit")
            atexit.register(_stop_live_servers)
        if "sigterm" in _installed or threading.current_thread() is not threading.main_thread():
            return
        _installed.add("sigterm")
    previous = signal.getsignal(signal.SIGTERM)
    if previous is signal.SIG_IGN or previous is None:
        return

    def on_sigterm(signum: int, frame: FrameType | None) -> None:
        _stop_live_servers()
        if callable(previous):
            previous(signum, frame)
            return
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGTERM)

    signal.signal(signal.SIGTERM, on_sigterm)
