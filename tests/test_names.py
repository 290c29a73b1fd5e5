"""Names that live in two places — the code and the JSON Schemas users read — are the same names."""

from __future__ import annotations

from typing import Any, get_args

from aces_ci.agents import DISCLOSURES, HARNESSES, OMISSIONS, SKILL_EVENT_VIAS, RolloutStatus
from aces_ci.engine import CACHE_VERSION, JOURNAL_VERSION
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


def test_stored_rollout_names_match_the_rollout_store_schema() -> None:
    store = load_schema("rollout-store")
    result = store["$defs"]["result"]["properties"]
    assert result["status"]["enum"] == list(get_args(RolloutStatus))
    assert result["skill_events"]["items"]["properties"]["via"]["enum"] == list(SKILL_EVENT_VIAS)
    assert store["$defs"]["artifact"]["properties"]["omitted"]["enum"] == list(OMISSIONS)
    assert (
        store["$defs"]["rollout_identity"]["properties"]
        == load_schema("atif")["$defs"]["rollout_identity"]["properties"]
    )
    assert store["$defs"]["journal_line"]["properties"]["v"]["const"] == JOURNAL_VERSION
    assert store["$defs"]["cache_entry"]["properties"]["version"]["const"] == CACHE_VERSION
