"""Read-only mappings for the fields of frozen types: a ``FrozenDict`` is built once and never changes.

A frozen dataclass stops ``result.trajectory = …`` but not ``result.trajectory["steps"].append(…)``,
and many of ours are shared: one cached rollout result is read by every grader of both arms, one
scan config by every skill's scan. So their mapping fields hold a :class:`FrozenDict` behind a
``Mapping`` annotation (mypy refuses writes; the object refuses them at run time too).

Why not ``types.MappingProxyType``: these values cross process boundaries (the scan's worker pool
pickles its config and results) and are written as JSON, and a proxy does neither. A ``FrozenDict``
is a ``dict`` to ``json``, ``pickle``, ``copy`` and ``isinstance(…, dict)`` checks alike.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, NoReturn, TypeVar

K = TypeVar("K")
V = TypeVar("V")


class FrozenDict(dict[K, V]):
    """A ``dict`` whose content is fixed when it is built; every method that would change it raises TypeError."""

    __slots__ = ()

    def _refuse(self) -> NoReturn:
        raise TypeError(f"a {type(self).__name__} is read-only: build a new mapping instead")

    # ``|=`` is not refused here: ``dict.__ior__`` merges in C, and typeshed's signature cannot be
    # overridden to raise. A ``Mapping`` annotation has no ``|=``, so mypy refuses it in our code.

    def __setitem__(self, key: K, value: V) -> NoReturn:
        self._refuse()

    def __delitem__(self, key: K) -> NoReturn:
        self._refuse()

    def clear(self) -> NoReturn:
        self._refuse()

    def pop(self, *args: Any) -> NoReturn:
        self._refuse()

    def popitem(self) -> NoReturn:
        self._refuse()

    def setdefault(self, *args: Any) -> NoReturn:
        self._refuse()

    def update(self, *args: Any, **kwargs: Any) -> NoReturn:
        self._refuse()

    def __reduce__(self) -> tuple[type[FrozenDict[K, V]], tuple[dict[K, V]]]:
        """Pickled (and copied) as the plain dict it holds: item-by-item restoring would call ``__setitem__``."""
        return type(self), (dict(self),)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({dict.__repr__(self)})"


def frozen(items: Mapping[K, V] | Iterable[tuple[K, V]]) -> FrozenDict[K, V]:
    """``items`` as a :class:`FrozenDict` (itself when it already is one: nothing to copy)."""
    return items if isinstance(items, FrozenDict) else FrozenDict(items)


def deep_frozen(value: Any) -> Any:
    """``value`` with every dict in it a :class:`FrozenDict` and every list a :class:`FrozenList`, recursively.

    For JSON-shaped documents (a trajectory): what was a dict is still a dict to ``json`` and
    ``isinstance``, what was a list is still a list. What this function built is returned as it is
    (one ``isinstance``, no walk): it cannot have changed since, so rebuilding a frozen type around
    it (``dataclasses.replace``) costs nothing.
    """
    if isinstance(value, _DeepFrozenDict | FrozenList):
        return value
    if isinstance(value, dict):
        return _DeepFrozenDict((key, deep_frozen(item)) for key, item in value.items())
    if isinstance(value, list):
        return FrozenList(deep_frozen(item) for item in value)
    return value


class FrozenList(list[V]):
    """A ``list`` whose content is fixed when it is built; only :func:`deep_frozen` builds one."""

    __slots__ = ()

    def _refuse(self) -> NoReturn:
        raise TypeError(f"a {type(self).__name__} is read-only: build a new list instead")

    def __setitem__(self, *args: Any) -> NoReturn:
        self._refuse()

    def __delitem__(self, *args: Any) -> NoReturn:
        self._refuse()

    def append(self, *args: Any) -> NoReturn:
        self._refuse()

    def extend(self, *args: Any) -> NoReturn:
        self._refuse()

    def insert(self, *args: Any) -> NoReturn:
        self._refuse()

    def remove(self, *args: Any) -> NoReturn:
        self._refuse()

    def pop(self, *args: Any) -> NoReturn:
        self._refuse()

    def clear(self) -> NoReturn:
        self._refuse()

    def sort(self, *args: Any, **kwargs: Any) -> NoReturn:
        self._refuse()

    def reverse(self) -> NoReturn:
        self._refuse()

    def __reduce__(self) -> tuple[type[FrozenList[V]], tuple[list[V]]]:
        return type(self), (list(self),)


class _DeepFrozenDict(FrozenDict[K, V]):
    """A :class:`FrozenDict` built by :func:`deep_frozen`: everything inside it is frozen too."""

    __slots__ = ()
