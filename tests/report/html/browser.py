"""Headless Chromium driven over the DevTools protocol on a pipe, to open a report and watch what it does.

``--remote-debugging-pipe`` makes Chromium read commands on fd 3 and answer on fd 4, each message
JSON ended by a NUL byte: no port, no websocket library. A :class:`Browser` opens one page, records
every network request, console message, uncaught exception and dialog, and can evaluate script
and take a screenshot. Host resolution is trapped too (``--host-resolver-rules``), so even a
request the recorder missed could not reach anything. Every wait is bounded by a generous timeout;
the tests assert on what happened, never on how fast.
"""

from __future__ import annotations

import base64
import fcntl
import json
import os
import select
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--host-resolver-rules=MAP * ~NOTFOUND",
    "--remote-debugging-pipe",
)


@dataclass
class PageLog:
    """What a page did: requests (their URLs), console messages, exceptions, dialogs."""

    requests: list[str] = field(default_factory=list)
    blocked: dict[str, str] = field(default_factory=dict)
    """URL → why the browser stopped the request before it left (``csp``, …)."""
    _ids: dict[str, str] = field(default_factory=dict)
    console: list[tuple[str, str]] = field(default_factory=list)
    exceptions: list[str] = field(default_factory=list)
    dialogs: list[str] = field(default_factory=list)
    loaded: bool = False

    def errors(self) -> list[str]:
        return [text for level, text in self.console if level in ("error", "assert")] + self.exceptions


def _high(fd: int) -> int:
    """``fd`` moved to a descriptor number of at least 10 (the old one closed)."""
    moved = fcntl.fcntl(fd, fcntl.F_DUPFD, 10)
    os.close(fd)
    return moved


class Browser:
    """One headless Chromium with one page, spoken to over the DevTools pipe."""

    def __init__(self, executable: Path, *, timeout: float = 120.0) -> None:
        self.timeout = timeout
        self._profile = tempfile.TemporaryDirectory()
        to_child_r, self._to_child = os.pipe()
        self._from_child, from_child_w = os.pipe()
        # Above 9, so that putting one end on fd 3 or 4 never overwrites the other before it is placed.
        to_child_r, from_child_w = (_high(fd) for fd in (to_child_r, from_child_w))
        # bash (dash refuses descriptors above 9) puts the pipe ends on fds 3 and 4, where the flag looks.
        command = f'exec "$0" "$@" 3<&{to_child_r} 4>&{from_child_w}'
        self._process = subprocess.Popen(
            ["bash", "-c", command, str(executable), *FLAGS, f"--user-data-dir={self._profile.name}", "about:blank"],
            pass_fds=(to_child_r, from_child_w),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        os.close(to_child_r)
        os.close(from_child_w)
        self._buffer = b""
        self._next_id = 0
        self.log = PageLog()
        self._session = ""
        target = self.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        self._session = self.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for domain in ("Network", "Runtime", "Log", "Page"):
            self.call(f"{domain}.enable")

    def _send(self, message: dict[str, Any]) -> None:
        os.write(self._to_child, json.dumps(message).encode() + b"\0")

    def _receive(self, deadline: float) -> dict[str, Any]:
        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self._from_child], [], [], left)[0]:
                raise TimeoutError("Chromium did not answer over the DevTools pipe")
            chunk = os.read(self._from_child, 1 << 20)
            if not chunk:
                raise ConnectionError("Chromium closed the DevTools pipe")
            self._buffer += chunk
        raw, self._buffer = self._buffer.split(b"\0", 1)
        message: dict[str, Any] = json.loads(raw)
        self._record(message)
        return message

    def _record(self, message: dict[str, Any]) -> None:
        method, params = message.get("method"), message.get("params", {})
        if method == "Network.requestWillBeSent":
            self.log.requests.append(params["request"]["url"])
            self.log._ids[params["requestId"]] = params["request"]["url"]
        elif method == "Network.loadingFailed" and params.get("blockedReason"):
            self.log.blocked[self.log._ids.get(params["requestId"], "?")] = params["blockedReason"]
        elif method == "Runtime.consoleAPICalled":
            words = " ".join(str(a.get("value", a.get("description", ""))) for a in params.get("args", []))
            self.log.console.append((params.get("type", ""), words))
        elif method == "Log.entryAdded":
            entry = params["entry"]
            self.log.console.append((entry.get("level", ""), entry.get("text", "")))
        elif method == "Runtime.exceptionThrown":
            self.log.exceptions.append(json.dumps(params.get("exceptionDetails", {}))[:500])
        elif method == "Page.javascriptDialogOpening":
            self.log.dialogs.append(params.get("message", ""))
            self._send(
                {
                    "id": -1,
                    "method": "Page.handleJavaScriptDialog",
                    "params": {"accept": True},
                    "sessionId": self._session,
                }
            )
        elif method == "Page.loadEventFired":
            self.log.loaded = True

    def call(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        """Send one command (to the page once attached) and return its result."""
        self._next_id += 1
        message: dict[str, Any] = {"id": self._next_id, "method": method, "params": params or {}}
        if self._session:
            message["sessionId"] = self._session
        self._send(message)
        deadline = time.monotonic() + self.timeout
        while True:
            answer = self._receive(deadline)
            if answer.get("id") == self._next_id:
                if "error" in answer:
                    raise RuntimeError(f"{method}: {answer['error']}")
                result: dict[str, Any] = answer.get("result", {})
                return result

    def open(self, url: str) -> PageLog:
        """Navigate to ``url`` and wait for its load event (and a moment for late requests); a fresh log."""
        self.log = PageLog()
        self.call("Page.navigate", {"url": url})
        deadline = time.monotonic() + self.timeout
        while not self.log.loaded:
            self._receive(deadline)
        self.evaluate("new Promise(function (done) { requestAnimationFrame(function () { setTimeout(done, 50); }); })")
        return self.log

    def evaluate(self, expression: str) -> Any:
        """The value of ``expression`` in the page (promises awaited)."""
        result = self.call("Runtime.evaluate", {"expression": expression, "returnByValue": True, "awaitPromise": True})
        if "exceptionDetails" in result:
            raise RuntimeError(json.dumps(result["exceptionDetails"])[:500])
        return result["result"].get("value")

    def screenshot(
        self, path: Path, width: int = 1280, *, selector: str | None = None, max_height: int = 16000
    ) -> None:
        """A PNG of the whole page at ``width`` pixels, or of the element ``selector`` picks (its first
        ``max_height`` pixels)."""
        height = int(self.evaluate("document.documentElement.scrollHeight"))
        self.call(
            "Emulation.setDeviceMetricsOverride",
            {"width": width, "height": min(height, 16000), "deviceScaleFactor": 1, "mobile": False},
        )
        params: dict[str, object] = {"format": "png", "captureBeyondViewport": True}
        if selector is not None:
            box = self.evaluate(
                f"(() => {{ const r = document.querySelector({json.dumps(selector)}).getBoundingClientRect();"
                " return [r.left + scrollX, r.top + scrollY, r.width, r.height]; })()"
            )
            left, top, wide, high = (float(v) for v in box)
            params["clip"] = {"x": left, "y": top, "width": wide, "height": min(high, max_height), "scale": 1}
        shot = self.call("Page.captureScreenshot", params)
        path.write_bytes(base64.b64decode(shot["data"]))

    def close(self) -> None:
        try:
            self._send({"id": 0, "method": "Browser.close"})
            self._process.wait(timeout=30)
        except (OSError, subprocess.TimeoutExpired):
            self._process.kill()
            self._process.wait(timeout=30)
        finally:
            os.close(self._to_child)
            os.close(self._from_child)
            self._profile.cleanup()

    def __enter__(self) -> Browser:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
