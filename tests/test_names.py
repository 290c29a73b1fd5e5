"""Names that live in two places — the code and the JSON Schemas users read — are the same names."""

from __future__ import annotations

from typing import Any

from aces_ci.agents import DISCLOSURES, HARNESSES, SKILL_EVENT_VIAS
from aces_ci.models import PROVIDERS
from aces_ci.scan import Severity
from aces_ci.schemas import load_schema


def enum_at(schema: dict[str, Any], *path: str) -> list[str]:
    node: Any = schema
    for key in path:
        node = node[key]
    return list(node["enum"])


def test_provider_harness_and_disclosure_names_match_the_config_schema() -> None:
    config = load_schema("config")
    assert enum_at(config, "$defs", "provider") == list(PROVIDERS)
    assert enum_at(config, "$defs", "run", "properties", "harness") == list(HARNESSES)
    assert enum_at(config, "$defs", "run", "properties", "disclosure") == list(DISCLOSURES)
    assert enum_at(config, "$defs", "level") == ["off", *reversed([s.value for s in Severity])]


def test_skill_event_kinds_match_the_trajectory_schema() -> None:
    atif = load_schema("atif")
    found = []

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            if "via" in node and isinstance(node["via"], dict) and "enum" in node["via"]:
                found.append(node["via"]["enum"])
            for child in node.values():
                walk(child)
        elif isinstance(node, list):
            for child in node:
                walk(child)

    walk(atif)
    assert found == [list(SKILL_EVENT_VIAS)]
