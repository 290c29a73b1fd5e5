"""An immutable file tree in memory: path → bytes, hashable, its content digest computed once.

A rendered skill and a rollout's fixtures are both such trees, and both are parts of a rollout
request, which callers use as a dictionary key (the same request graded once, a trial's replicates
counted by request). A plain ``dict`` is neither hashable nor safe from a later edit that would
change what a cached rollout means, so these trees are :class:`FileMap` objects. Hashing one, and
its :attr:`~FileMap.digest` (part of every rollout's cache key), are computed on first use and kept:
a batch hashes the same few trees thousands of times.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Iterator, Mapping


def _digest_of(files: Mapping[str, bytes]) -> str:
    pairs = sorted((path, hashlib.sha256(data).hexdigest()) for path, data in files.items())
    return hashlib.sha256(json.dumps(pairs, separators=(",", ":"), ensure_ascii=False).encode("utf-8")).hexdigest()


def files_digest(files: Mapping[str, bytes]) -> str:
    """sha256 over sorted (path, sha256(content)) pairs: identical trees hash identically."""
    if isinstance(files, FileMap):
        return files.digest
    return _digest_of(files)


class FileMap(Mapping[str, bytes]):
    """A read-only ``{path: bytes}`` that can be hashed; equal to any mapping with the same items."""

    __slots__ = ("_data", "_digest", "_hash")

    def __init__(self, files: Mapping[str, bytes] | Iterable[tuple[str, bytes]] = ()) -> None:
        data = dict(files)
        for path, content in data.items():
            if not isinstance(path, str) or not isinstance(content, bytes):
                raise TypeError(f"a file map holds str paths and bytes, got {path!r}: {type(content).__name__}")
        self._data = data
        self._hash: int | None = None
        self._digest: str | None = None

    @classmethod
    def of(cls, files: Mapping[str, bytes]) -> FileMap:
        """``files`` itself when it already is a :class:`FileMap`, else a frozen copy."""
        return files if isinstance(files, FileMap) else cls(files)

    def __getitem__(self, path: str) -> bytes:
        return self._data[path]

    def __iter__(self) -> Iterator[str]:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)

    def __contains__(self, path: object) -> bool:
        return path in self._data

    def __hash__(self) -> int:
        if self._hash is None:
            self._hash = hash(frozenset(self._data.items()))
        return self._hash

    def __eq__(self, other: object) -> bool:
        if isinstance(other, FileMap):
            return self is other or (len(self._data) == len(other._data) and self._data == other._data)
        if isinstance(other, Mapping):
            return self._data == dict(other.items())
        return NotImplemented

    def __repr__(self) -> str:
        return f"FileMap({sorted(self._data)!r})"

    @property
    def digest(self) -> str:
        """:func:`files_digest` of this tree, computed once."""
        if self._digest is None:
            self._digest = _digest_of(self._data)
        return self._digest
