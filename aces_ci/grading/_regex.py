"""Regular expressions a dataset supplies, searched within a time limit: a hostile pattern cannot stall grading.

``match: regex`` references and ``/…/`` outcome assertions come from the pull request's dataset.
Python's ``re`` backtracks, so ``^(a+)+$`` against thirty ``a`` and a ``!`` runs for ages, holding
the GIL (``re`` never releases it) and with it the event loop every other rollout's grading and
model calls share. Two engines keep that from happening, and both give Python ``re``'s answer:

1. **RE2** (``google-re2``), linear in the text, decides when it reads the pattern as ``re`` does.
   RE2 refuses backreferences, lookaround, ``\\Z``, ``(?x)`` and the like (those go to 2), and
   where the two engines read the same syntax differently the pattern or text goes to 2 as well:
   ``\\d \\w \\s \\b`` and ``(?i)`` are Unicode-aware in ``re`` and ASCII in RE2 (RE2 decides
   only when pattern and text are ASCII without the control characters ``re`` counts as space);
   ``$`` also matches before a final newline in ``re`` (RE2 decides only when the text does not
   end with one); ``[[:alpha:]]`` and ``x{,3}`` are a class and a repeat in one and literals in
   the other (always 2).
2. **A worker process** runs ``re.search`` itself, the event loop awaiting it, under
   :data:`REGEX_TIME_LIMIT_S` of its own (counted from the moment the worker has the text, so a
   slow start on a busy runner never counts against the pattern); past it the worker is killed and
   the search is undecided. One worker per search: a slow pattern never queues another behind it.

A search that is undecided — the pattern does not compile, or the worker ran out of time — is
``None`` with its reason, which the metric reports as ``could_not_grade``.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import json
import re
import sys
import warnings
from dataclasses import dataclass
from typing import Any

import re2

REGEX_TIME_LIMIT_S = 2.0
"""Seconds of matching one dataset regex may take in the worker; far above any honest pattern's need."""
WORKER_START_GUARD_S = 120.0
"""How long a worker may take to start (a hang guard for a starved machine, not a limit on the pattern)."""
_WORKER = (
    "import json, re, sys\n"
    "sys.stdout.write('ready\\n'); sys.stdout.flush()\n"
    "job = json.loads(sys.stdin.buffer.read())\n"
    "sys.stdout.write('1' if re.search(job['pattern'], job['text']) else '0'); sys.stdout.flush()\n"
)
_NOT_IN_RE2 = frozenset({"GROUPREF", "GROUPREF_EXISTS", "ASSERT", "ASSERT_NOT", "ATOMIC_GROUP", "POSSESSIVE_REPEAT"})
_CLASS_AT = frozenset({"AT_BOUNDARY", "AT_NON_BOUNDARY"})
_NOT_SPACE_IN_RE2 = frozenset("\x0b\x1c\x1d\x1e\x1f")
"""ASCII characters ``re`` counts as ``\\s`` and RE2 does not."""
_RE_PARSER: Any = importlib.import_module("re._parser")
"""The parser ``re`` itself uses (no stub in typeshed): RE2 is consulted on the pattern as ``re`` reads it."""
_RE2_OPTIONS = re2.Options()
_RE2_OPTIONS.log_errors = False  # a refused pattern is expected here, not worth a line on stderr


@dataclass(frozen=True)
class RegexSearch:
    """Whether the pattern occurs in the text; ``found=None`` when that could not be decided, ``why`` says so."""

    found: bool | None
    why: str = ""


def _features(items: Any, into: set[str]) -> None:
    """Collect what in a parsed ``re`` pattern RE2 reads differently or not at all."""
    for op, arg in items:
        name = str(op)
        if name in _NOT_IN_RE2:
            into.add("unsupported")
        elif name == "CATEGORY":
            into.add("classes")
        elif name == "AT":
            if str(arg) in _CLASS_AT:
                into.add("classes")
            elif str(arg) == "AT_END":
                into.add("end")
        elif name == "IN":
            _features(arg, into)
        elif name == "SUBPATTERN":
            if arg[1] & re.IGNORECASE:
                into.add("ignorecase")
            _features(arg[3], into)
        elif name in ("MAX_REPEAT", "MIN_REPEAT"):
            _features(arg[2], into)
        elif name == "BRANCH":
            for branch in arg[1]:
                _features(branch, into)


def _plain_ascii(text: str) -> bool:
    return text.isascii() and _NOT_SPACE_IN_RE2.isdisjoint(text)


def re2_agrees(pattern: str, text: str) -> bool:
    """Whether RE2 answers as Python ``re`` would for this pattern and this text (module docstring)."""
    if "[:" in pattern or "{," in pattern:
        return False
    parsed = _RE_PARSER.parse(pattern)
    found: set[str] = set()
    _features(parsed, found)
    if parsed.state.flags & re.IGNORECASE:
        found.add("ignorecase")
    if "unsupported" in found or ("end" in found and text.endswith("\n")):
        return False
    return not ({"classes", "ignorecase"} & found) or (_plain_ascii(pattern) and _plain_ascii(text))


async def _in_worker(pattern: str, text: str, time_limit_s: float) -> RegexSearch:
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-I",
        "-S",
        "-c",
        _WORKER,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL,
    )
    assert process.stdin is not None and process.stdout is not None  # both were asked for as pipes
    try:
        ready = await asyncio.wait_for(process.stdout.readline(), WORKER_START_GUARD_S)
        if ready != b"ready\n":
            return RegexSearch(None, "the regex worker did not start")
        process.stdin.write(json.dumps({"pattern": pattern, "text": text}).encode("ascii"))
        await asyncio.wait_for(process.stdin.drain(), WORKER_START_GUARD_S)
        process.stdin.close()
        try:
            answer = await asyncio.wait_for(process.stdout.read(), time_limit_s)
        except TimeoutError:
            return RegexSearch(
                None, f"the regex did not finish within {time_limit_s:g} s (catastrophic backtracking): stopped"
            )
    finally:
        with contextlib.suppress(ProcessLookupError):
            process.kill()
        await process.wait()
    if answer not in (b"0", b"1"):
        return RegexSearch(None, "the regex worker failed")
    return RegexSearch(answer == b"1")


async def search(pattern: str, text: str, *, time_limit_s: float = REGEX_TIME_LIMIT_S) -> RegexSearch:
    """Python ``re.search(pattern, text) is not None``, decided in linear time or within ``time_limit_s``."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)  # "possible nested set": a reading RE2 leaves to re
            re.compile(pattern)
    except (re.error, RecursionError, OverflowError) as exc:
        return RegexSearch(None, f"the regex does not compile ({exc})")
    if re2_agrees(pattern, text):
        try:
            return RegexSearch(re2.compile(pattern, _RE2_OPTIONS).search(text) is not None)
        except (re2.error, UnicodeEncodeError):
            pass  # RE2 refuses the pattern (or a lone surrogate in the text): Python's engine decides
    return await _in_worker(pattern, text, time_limit_s)
