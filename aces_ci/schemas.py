"""Load the JSON Schemas of schemas/ (shipped in the package as aces_ci/_schemas) and validate against them."""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any

import jsonschema


@cache
def load_schema(name: str) -> dict[str, Any]:
    """The schema ``schemas/<name>.schema.json`` as a dict."""
    text = resources.files("aces_ci").joinpath("_schemas", f"{name}.schema.json").read_text(encoding="utf-8")
    schema: dict[str, Any] = json.loads(text)
    return schema


@cache
def validator(name: str) -> jsonschema.protocols.Validator:
    """A Draft 2020-12 validator for the named schema; iterate ``iter_errors`` to get every problem.

    Validators hold no state between calls, so one per schema is built and shared.
    """
    schema = load_schema(name)
    cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    return cls(schema, format_checker=cls.FORMAT_CHECKER)
