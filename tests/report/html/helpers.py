"""Render fixture results the way ``aces-ci report`` does: through the schema check, then the page."""

from __future__ import annotations

import json
from typing import Any

from aces_ci.report.html import document_from, render_html
from tests.report.html.dom import Node, parse


def render(*documents: tuple[str, dict[str, Any]]) -> str:
    """The page of ``(source, data)`` pairs, each validated first, exactly as the verb reads files."""
    return render_html([document_from(data, source) for source, data in documents])


def dom(*documents: tuple[str, dict[str, Any]]) -> Node:
    return parse(render(*documents))


def page_data(root: Node) -> dict[str, Any]:
    """The page's machine-readable headline (its ``application/json`` script)."""
    data: dict[str, Any] = json.loads(root.one("script", id="aces-data").text())
    return data
