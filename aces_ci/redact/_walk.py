"""Redact every string of a JSON-like value: trajectories, cache entries, journal records, report documents."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any, TypeVar, cast

from ._find import literal_set, redact_with

__all__ = ["redact_obj"]

JsonLike = TypeVar("JsonLike")
_FINISHED = object()
"""What :func:`redact_obj` gets from a container's exhausted child iterator."""


@dataclass
class _Frame:
    """A container being copied by :func:`redact_obj`: its children still to visit and those done."""

    source: dict[Any, Any] | list[Any] | tuple[Any, ...]
    pending: Iterator[Any]
    keys: list[Any]
    done: list[Any]

    def build(self) -> dict[Any, Any] | list[Any] | tuple[Any, ...]:
        if isinstance(self.source, dict):
            return dict(zip(self.keys, self.done, strict=True))
        return tuple(self.done) if isinstance(self.source, tuple) else self.done


class _MemoRedactor:
    """Redacts the strings of one :func:`redact_obj` call, each distinct string once.

    A trajectory repeats many strings (keys such as ``step_id``, sources, tool names, the model
    name); the memo makes the second and later copies a dictionary lookup.
    """

    def __init__(self, extra_secrets: Iterable[str]) -> None:
        self._literals = literal_set(extra_secrets)
        self._done: dict[str, str] = {}

    def __call__(self, text: str) -> str:
        redacted = self._done.get(text)
        if redacted is None:
            redacted = self._done[text] = redact_with(text, self._literals)
        return redacted


def _redacted_keys(mapping: dict[Any, Any], redact: _MemoRedactor) -> list[Any]:
    """Redacted keys, made unique again (``#2``, ``#3``) so masking two keys never drops a value."""
    keys: list[Any] = []
    for key in mapping:
        new = redact(key) if isinstance(key, str) else key
        if new != key:
            candidate, count = new, 1
            while candidate in keys or candidate in mapping:
                count += 1
                candidate = f"{new} #{count}"
            new = candidate
        keys.append(new)
    return keys


def redact_obj(obj: JsonLike, extra_secrets: Iterable[str] = ()) -> JsonLike:
    """A copy of a JSON-like value (dicts, lists, tuples, scalars) with every string redacted.

    Keys are redacted too. Other objects are kept as they are. The walk is iterative, so nesting
    depth cannot exhaust the stack, and a container that contains itself is cut at the repeat
    with the string ``[CIRCULAR]`` instead of looping forever.
    """
    redact = _MemoRedactor(extra_secrets)

    def open_frame(container: dict[Any, Any] | list[Any] | tuple[Any, ...]) -> _Frame:
        if isinstance(container, dict):
            return _Frame(container, iter(container.values()), _redacted_keys(container, redact), [])
        return _Frame(container, iter(container), [], [])

    if not isinstance(obj, dict | list | tuple):
        return cast(JsonLike, redact(obj) if isinstance(obj, str) else obj)
    stack = [open_frame(obj)]
    on_path = {id(obj)}
    while True:
        frame = stack[-1]
        child = next(frame.pending, _FINISHED)
        if child is _FINISHED:
            stack.pop()
            on_path.discard(id(frame.source))
            built = frame.build()
            if not stack:
                return cast(JsonLike, built)
            stack[-1].done.append(built)
        elif isinstance(child, str):
            frame.done.append(redact(child))
        elif isinstance(child, dict | list | tuple):
            if id(child) in on_path:
                frame.done.append("[CIRCULAR]")
            else:
                on_path.add(id(child))
                stack.append(open_frame(child))
        else:
            frame.done.append(child)
