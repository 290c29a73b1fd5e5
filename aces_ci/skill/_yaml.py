"""The one bounded YAML loader: SKILL.md frontmatter, YAML datasets and aces.yml all go through here.

Every YAML file aces-ci reads is untrusted, so loading is split in three steps, each bounded:

1. **compose** the text into nodes (:func:`compose_yaml`), which builds no Python values yet;
2. **walk** the nodes (:func:`iter_yaml_nodes`) with every alias expanded, counting values and
   depth and watching for anchors that contain themselves, so an alias bomb or a 10,000-level list
   is refused before anything recurses into it or expands it; the walk yields the line of every
   key and item, which is the line map each caller keeps;
3. **construct** plain values (:func:`construct_yaml`) with PyYAML's safe constructor.

Composing is where the time goes, and libyaml's C parser does it about ten times faster than
PyYAML's pure-Python one. The two are not the same parser, though: libyaml accepts tabs where
PyYAML refuses them, resolves a bare ``!`` tag differently, accepts a block-scalar header glued
to a comment, skips an inner byte-order mark, places empty plain scalars at other lines, and
words its errors differently. So libyaml is used only where it cannot disagree with PyYAML: text
showing any of those (:data:`_DIVERGENT`, :func:`_has_empty_plain_scalar`) is composed by PyYAML,
and so is any text libyaml rejects, so the error (wording and line) is PyYAML's. Everything else
yields the same nodes (tested differentially, ``tests/skill/test_yaml_loaders.py``), so the
findings never depend on whether libyaml is installed; its version is part of the scan's cache
key all the same. Constructing values is PyYAML's Python code either way.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, Literal

import yaml

YamlLoaderName = Literal["libyaml", "python"]

LIBYAML_VERSION: str | None = yaml._yaml.get_version_string() if yaml.__with_libyaml__ else None
"""The libyaml that composes YAML here, None when PyYAML was built without it."""

_DIVERGENT = re.compile(
    r"\t"  # libyaml accepts tabs where PyYAML refuses them
    r"|\ufeff"  # a byte-order mark inside the text: PyYAML refuses some that libyaml skips
    r"|(?<![^\s\[\]{},])!"  # a tag: libyaml resolves the non-specific tag ``!`` as a string, PyYAML as implicit
    r"|[|>][-+0-9]*#"  # a block scalar header glued to a comment: libyaml accepts it, PyYAML does not
)
"""Text where libyaml and PyYAML are known to disagree (found by ``tests/skill/test_yaml_loaders.py``):
such text is composed by PyYAML only. The screen is deliberately coarse: a false alarm costs speed, never
a different finding."""
_loader_override: list[YamlLoaderName] = []


def yaml_loaders() -> tuple[YamlLoaderName, ...]:
    """The loaders this interpreter can use, fastest first."""
    return ("libyaml", "python") if LIBYAML_VERSION is not None else ("python",)


@contextlib.contextmanager
def forced_yaml_loader(name: YamlLoaderName) -> Iterator[None]:
    """Inside the block, compose with ``name``: for tests and benchmarks that compare the two.

    ``"python"`` is the reference (PyYAML's own parser only, as before libyaml was used);
    ``"libyaml"`` is the default path where libyaml is installed (libyaml, screened, PyYAML where
    the two could disagree), and is refused where it is not.
    """
    if name not in yaml_loaders():
        raise ValueError(f"the {name} YAML loader is not available here")
    _loader_override.append(name)
    try:
        yield
    finally:
        _loader_override.pop()


class YamlSyntaxError(Exception):
    """The text is not YAML PyYAML accepts, with what PyYAML said (never the quoted source line).

    ``kind``: ``syntax`` (a parse error), ``control-character`` (a character YAML does not allow,
    named in ``char`` as U+XXXX), ``too-deep`` (nesting past the interpreter's recursion limit).
    """

    def __init__(
        self,
        kind: Literal["syntax", "control-character", "too-deep"],
        *,
        line: int | None = None,
        problem: str | None = None,
        context: str | None = None,
        char: str = "",
        error_type: str = "",
        marked: bool = False,
    ) -> None:
        super().__init__(problem or kind)
        self.kind = kind
        self.line = line
        """1-based within the text, when PyYAML knows it."""
        self.problem = problem
        """PyYAML's problem text (for a control character, its reason)."""
        self.context = context
        self.char = char
        self.error_type = error_type
        """The PyYAML exception's class name."""
        self.marked = marked
        """Whether PyYAML located the fault (a ``MarkedYAMLError``)."""


class YamlRefused(Exception):
    """The node graph is outside the caller's bounds; ``line`` (1-based) is where the walk stopped."""

    def __init__(self, kind: Literal["too-many-values", "too-deep", "recursive-anchor"], line: int):
        super().__init__(kind)
        self.kind = kind
        self.line = line


class YamlValueError(Exception):
    """A composed node cannot become a value (a ``!!python`` tag, a date such as 2024-13-45...).

    ``marked`` errors are PyYAML's (``problem``/``context`` and the ``line``); otherwise Python refused
    the value and ``problem`` is the exception's text.
    """

    def __init__(
        self,
        *,
        marked: bool,
        yaml_error: bool,
        problem: str | None,
        context: str | None,
        line: int | None,
        error_type: str,
        context_line: int | None = None,
    ) -> None:
        super().__init__(problem or error_type)
        self.marked = marked
        self.yaml_error = yaml_error
        """Whether PyYAML raised it (else Python did: ValueError, OverflowError, RecursionError)."""
        self.problem = problem
        self.context = context
        self.line = line
        """1-based line of PyYAML's problem mark, when it has one."""
        self.context_line = context_line
        """1-based line of PyYAML's context mark, when it has one."""
        self.error_type = error_type


@dataclass(frozen=True)
class ComposedYaml:
    """One composed YAML document: its root node and the loader that can construct it."""

    root: yaml.Node
    loader: YamlLoaderName
    _constructor: yaml.SafeLoader

    def key_value(self, node: yaml.ScalarNode) -> Any:
        """A scalar key as YAML reads it (``1:`` is 1, ``on:`` is True); raises :class:`YamlValueError`."""
        return _constructed(lambda: self._constructor.construct_object(node))


def _line(mark: Any) -> int | None:
    return None if mark is None else int(mark.line) + 1


def _syntax_error(exc: yaml.YAMLError, text: str) -> YamlSyntaxError:
    """PyYAML's error as a :class:`YamlSyntaxError`, without the quoted source line it carries."""
    name = type(exc).__name__
    if isinstance(exc, yaml.reader.ReaderError):
        char = exc.character if isinstance(exc.character, str) else chr(exc.character)
        line = text.count("\n", 0, max(0, exc.position)) + 1
        return YamlSyntaxError(
            "control-character", line=line, problem=exc.reason, char=f"U+{ord(char):04X}", error_type=name
        )
    if isinstance(exc, yaml.MarkedYAMLError):
        return YamlSyntaxError(
            "syntax",
            line=_line(exc.problem_mark or exc.context_mark),
            problem=exc.problem,
            context=exc.context,
            error_type=name,
            marked=True,
        )
    return YamlSyntaxError("syntax", error_type=name)


def _compose_with(loader_class: type[yaml.SafeLoader], text: str) -> tuple[yaml.Node | None, yaml.SafeLoader]:
    loader = loader_class(text)  # the reader rejects control characters here already
    try:
        return loader.get_single_node(), loader
    finally:
        loader.dispose()


def _compose_python(text: str) -> tuple[yaml.Node | None, yaml.SafeLoader]:
    try:
        return _compose_with(yaml.SafeLoader, text)
    except RecursionError as exc:
        raise YamlSyntaxError("too-deep", error_type="RecursionError") from exc
    except yaml.YAMLError as exc:
        raise _syntax_error(exc, text) from exc


def _compose_libyaml(text: str) -> tuple[yaml.Node | None, yaml.SafeLoader] | None:
    """libyaml's nodes for ``text``, or None when it refuses the text (PyYAML then says why)."""
    try:
        return _compose_with(yaml.CSafeLoader, text)  # type: ignore[arg-type]
    except (yaml.YAMLError, UnicodeEncodeError):  # a lone surrogate cannot be handed to C as UTF-8
        return None


def _has_empty_plain_scalar(root: yaml.Node | None) -> bool:
    """Whether libyaml composed an empty plain scalar (``key:`` with no value, a bare ``-``).

    libyaml places such an implicit null at another line and column than PyYAML does, and those
    marks become the lines of findings, so a document holding one is composed by PyYAML instead.
    """
    pending = [] if root is None else [root]
    seen: set[int] = set()
    while pending:
        node = pending.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, yaml.ScalarNode):
            if node.value == "" and not node.style:
                return True
        elif isinstance(node, yaml.SequenceNode):
            pending.extend(node.value)
        elif isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                pending.append(key)
                pending.append(value)
    return False


def compose_yaml(text: str) -> ComposedYaml | None:
    """The single document in ``text`` as nodes, None when it holds none (empty, only comments).

    Raises :class:`YamlSyntaxError` for text PyYAML does not accept, always with PyYAML's wording.
    """
    forced = _loader_override[-1] if _loader_override else None
    if forced != "python" and LIBYAML_VERSION is not None and _DIVERGENT.search(text) is None:
        composed = _compose_libyaml(text)
        if composed is None or _has_empty_plain_scalar(composed[0]):
            composed = _compose_python(text)
        root, loader = composed
    else:
        root, loader = _compose_python(text)
    if root is None:
        return None
    name: YamlLoaderName = "libyaml" if isinstance(loader, yaml.CSafeLoader) else "python"
    return ComposedYaml(root, name, loader)


def construct_yaml(composed: ComposedYaml) -> Any:
    """Plain Python values for a composed (and walked) document, by PyYAML's safe constructor."""
    return _constructed(lambda: composed._constructor.construct_document(composed.root))


def _constructed(construct: Callable[[], Any]) -> Any:
    """``construct()``, with every way a hostile value can fail raised as :class:`YamlValueError`."""
    try:
        return construct()
    except yaml.MarkedYAMLError as exc:
        raise YamlValueError(
            marked=True,
            yaml_error=True,
            problem=exc.problem,
            context=exc.context,
            line=_line(exc.problem_mark),
            context_line=_line(exc.context_mark),
            error_type=type(exc).__name__,
        ) from exc
    except yaml.YAMLError as exc:
        raise YamlValueError(
            marked=False, yaml_error=True, problem=None, context=None, line=None, error_type=type(exc).__name__
        ) from exc
    except Exception as exc:
        # An explicit tag on the wrong text (``!!int name``, ``!!binary @``, a date such as 2024-13-45)
        # fails inside PyYAML's constructor with whatever Python raises there.
        raise YamlValueError(
            marked=False, yaml_error=False, problem=str(exc), context=None, line=None, error_type=type(exc).__name__
        ) from exc


YamlPath = tuple[str | int, ...]
"""Keys and item indices from the root to a node."""


@dataclass(frozen=True)
class YamlVisit:
    """One node of the walk: where it is, the node, and (for a mapping value) the node of its key."""

    path: YamlPath
    node: yaml.Node
    key: yaml.Node | None
    """The key node when ``node`` is a mapping value, else None (the root, a list item)."""

    @property
    def line(self) -> int:
        """The line of the key for a mapping value, else of the node itself (1-based)."""
        mark = (self.key if self.key is not None else self.node).start_mark
        return int(mark.line) + 1


def raw_key(node: yaml.Node) -> str:
    """A key as written: a scalar's text, a list or mapping key by its node's repr."""
    return str(node.value) if isinstance(node, yaml.ScalarNode) else repr(node.value)


class _Walk:
    def __init__(self, key_text: Callable[[yaml.Node], str], max_values: int, max_depth: int) -> None:
        self.key_text = key_text
        self.max_values = max_values
        self.max_depth = max_depth
        self.count = 0
        self.open: set[int] = set()

    def enter(self, node: yaml.Node, path: YamlPath) -> None:
        """Count ``node`` and check the bounds before anything descends into it."""
        self.count += 1
        line = int(node.start_mark.line) + 1
        if self.count > self.max_values:
            raise YamlRefused("too-many-values", line)
        if len(path) > self.max_depth:
            raise YamlRefused("too-deep", line)
        if id(node) in self.open:
            raise YamlRefused("recursive-anchor", line)

    def children(self, node: yaml.Node, path: YamlPath) -> Iterator[YamlVisit]:
        self.open.add(id(node))
        if isinstance(node, yaml.MappingNode):
            for key_node, value_node in node.value:
                child = (*path, self.key_text(key_node))
                yield YamlVisit(child, value_node, key_node)  # the caller reads the key before the value is entered
                self.enter(value_node, child)
                yield from self.children(value_node, child)
        elif isinstance(node, yaml.SequenceNode):
            for index, item in enumerate(node.value):
                child = (*path, index)
                self.enter(item, child)
                yield YamlVisit(child, item, None)
                yield from self.children(item, child)
        self.open.discard(id(node))


def iter_yaml_nodes(
    root: yaml.Node, *, max_values: int, max_depth: int, key_text: Callable[[yaml.Node], str] = raw_key
) -> Iterator[YamlVisit]:
    """Every node under ``root`` in document order, aliases expanded, the root first.

    Raises :class:`YamlRefused` as soon as more than ``max_values`` nodes have been entered, a node
    sits more than ``max_depth`` levels down, or an anchor contains itself. A mapping value is
    yielded *before* it is entered, so a caller sees its key (a duplicate, say) even when the value
    is refused; ``key_text`` names each key in the paths.
    """
    walk = _Walk(key_text, max_values, max_depth)
    walk.enter(root, ())
    yield YamlVisit((), root, None)
    yield from walk.children(root, ())
