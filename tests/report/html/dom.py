"""A small DOM built with the standard library's ``html.parser``: enough to assert on a report's structure.

Text is unescaped as a browser would (``&lt;`` reads ``<``), so a test can say "this hostile
string is on the page as text" and "no ``<img>`` element came from it" separately.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from html.parser import HTMLParser

VOID = frozenset({"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"})


@dataclass
class Node:
    tag: str
    attrs: dict[str, str] = field(default_factory=dict)
    children: list[Node | str] = field(default_factory=list)

    def text(self) -> str:
        return "".join(c if isinstance(c, str) else c.text() for c in self.children)

    def walk(self) -> Iterator[Node]:
        yield self
        for child in self.children:
            if isinstance(child, Node):
                yield from child.walk()

    def find_all(self, tag: str | None = None, **attrs: str) -> list[Node]:
        """Elements of ``tag`` (any when None) whose attributes hold these values; ``class_`` matches one class."""
        wanted = {k.rstrip("_"): v for k, v in attrs.items()}
        found = []
        for node in self.walk():
            if tag is not None and node.tag != tag:
                continue
            if all(
                (v in node.attrs.get("class", "").split()) if k == "class" else node.attrs.get(k) == v
                for k, v in wanted.items()
            ):
                found.append(node)
        return found

    def one(self, tag: str | None = None, **attrs: str) -> Node:
        (node,) = self.find_all(tag, **attrs)
        return node


class _Builder(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root = Node("#document")
        self.stack = [self.root]

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        node = Node(tag, {k: v or "" for k, v in attrs})
        self.stack[-1].children.append(node)
        if tag not in VOID:
            self.stack.append(node)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.stack[-1].children.append(Node(tag, {k: v or "" for k, v in attrs}))

    def handle_endtag(self, tag: str) -> None:
        for depth in range(len(self.stack) - 1, 0, -1):
            if self.stack[depth].tag == tag:
                del self.stack[depth:]
                return

    def handle_data(self, data: str) -> None:
        self.stack[-1].children.append(data)


def parse(document: str) -> Node:
    builder = _Builder()
    builder.feed(document)
    builder.close()
    return builder.root
