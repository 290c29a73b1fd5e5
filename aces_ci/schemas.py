"""Load the JSON Schemas of schemas/ (shipped in the package as aces_ci/_schemas) and validate against them."""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
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
    import jsonschema  # imported by the first check that needs problems worded, not by every command

    schema = load_schema(name)
    cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    return cls(schema, format_checker=cls.FORMAT_CHECKER)


_SPACE_ONLY_TO_PYTHON = ("\\u001c", "\\u001d", "\\u001e", "\\u001f")


@cache
def _compiled(name: str) -> Any:
    """jsonschema-rs's compiled validator for the named schema, built once."""
    import jsonschema_rs  # by the first validation, not by every command (a scan without evals needs none)

    return jsonschema_rs.validator_for(load_schema(name))


def is_valid_fast(name: str, instance: Any) -> bool:
    """Whether the compiled validator vouches that ``instance`` is valid against the named schema.

    True is a verdict (every check of :func:`validator` would pass: tested differentially in
    ``tests/evals/test_schema.py``); False only means "ask :func:`validator`", which words the
    problems. Values JSON cannot hold (a YAML date, a set) make jsonschema-rs raise: False then too.
    """
    try:
        if not _compiled(name).is_valid(instance):
            return False
        encoded = json.dumps(instance)
    except Exception:
        return False
    # Python's \s counts U+001C..U+001F as space, Rust's does not: a string of them passes the
    # schema's "\S" (not blank) pattern there and fails it here. Such a dataset takes the slow path.
    return not any(escape in encoded for escape in _SPACE_ONLY_TO_PYTHON)
