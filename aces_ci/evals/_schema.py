"""Check a parsed dataset against schemas/evals.schema.json and say what is wrong, where, in plain words.

The schema's top level is a ``oneOf`` over the dataset shapes. A raw ``oneOf`` failure says only
"not valid under any of the given schemas", so the shape the author evidently meant (an object
with ``evals``, one with ``cases``, or a list) is picked from the document, and the errors of that
branch are reported. Messages are built from the schema, never from the offending value: a
dataset's prompts may hold text that must not be copied into a CI log.
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import islice
from typing import TYPE_CHECKING

from ..schemas import is_valid_fast, validator
from ..skill import ParseProblem
from ._document import Document, format_path, json_pointer, json_type

if TYPE_CHECKING:
    from jsonschema import ValidationError

SCHEMA_VIOLATION = "schema-violation"
MAX_SCHEMA_PROBLEMS = 50
"""One broken field repeated in a thousand cases is one mistake, not a thousand findings."""

_EVALS_BRANCH, _CASES_BRANCH, _LIST_BRANCH = 0, 1, 2
_PATTERN_WORDS = {
    "\\S": "must not be blank",
    "^[A-Za-z0-9._-]+$": "may hold only letters, digits, '.', '_' and '-'",
}
"""The schema's patterns in words; a regular expression is no error message."""


def _intended_branch(data: object) -> int | None:
    """Index of the top-level ``oneOf`` branch that matches the document's evident shape."""
    if isinstance(data, list):
        return _LIST_BRANCH
    if isinstance(data, dict):
        return _CASES_BRANCH if "cases" in data and "evals" not in data else _EVALS_BRANCH
    return None


def _expected_types(types: object) -> str:
    names = [types] if isinstance(types, str) else list(types) if isinstance(types, list) else []
    words = {"null": "null", "array": "a list", "object": "an object", "integer": "an integer"}
    spelled = [words.get(str(name), f"a {name}") for name in names]
    return " or ".join(spelled) if spelled else "another type"


def describe(error: ValidationError) -> str:
    """What the schema wanted, without quoting the value that broke it."""
    kind, wanted, schema = error.validator, error.validator_value, error.schema
    described = schema.get("description") if isinstance(schema, dict) else None
    if kind == "type":
        return f"must be {_expected_types(wanted)}, found {json_type(error.instance)}"
    if kind == "required":
        return error.message.replace(" is a required property", " is required")
    if kind == "minLength":
        return "must not be empty" if wanted == 1 else f"must be at least {wanted} characters long"
    if kind == "maxLength":
        return f"must be at most {wanted} characters long"
    if kind == "pattern":
        return _PATTERN_WORDS.get(str(wanted), f"must match the pattern {wanted}")
    if kind == "enum" and isinstance(wanted, list):
        return "must be one of " + ", ".join(str(choice) for choice in wanted)
    if kind in ("minimum", "exclusiveMinimum", "maximum", "exclusiveMaximum", "minItems"):
        words = {
            "minimum": "at least",
            "exclusiveMinimum": "more than",
            "maximum": "at most",
            "exclusiveMaximum": "less than",
            "minItems": "a list of at least",
        }
        return f"must be {words[str(kind)]} {wanted}" + (" item(s)" if kind == "minItems" else "")
    if kind == "uniqueItems":
        return "must not repeat an item"
    if kind in ("not", "anyOf", "oneOf", "allOf") and described:
        return str(described)
    return f"breaks the schema rule '{kind}'"


def _leaf_errors(error: ValidationError, branch: int | None) -> list[ValidationError]:
    """The errors worth reporting for one error of the root ``oneOf``."""
    if error.validator != "oneOf" or error.path or branch is None:
        return [error]
    chosen = [sub for sub in error.context or () if sub.relative_schema_path[0] == branch]
    return chosen or [error]


def _root_shape_message(data: object) -> str:
    return (
        "a dataset must be an object with an 'evals' list (agentskills.io, skill-creator), an object "
        f"with a 'cases' list (ACES), or a list of cases; found {json_type(data)}"
    )


def _problems(document: Document) -> Iterator[tuple[int, str, ParseProblem]]:
    branch = _intended_branch(document.data)
    for error in validator("evals").iter_errors(document.data):
        for leaf in _leaf_errors(error, branch):
            path = tuple(leaf.absolute_path)
            message = describe(leaf) if branch is not None else _root_shape_message(document.data)
            line = document.line_of(path)
            shown = format_path(path)
            problem = ParseProblem(SCHEMA_VIOLATION, f"{shown}: {message}", line, pointer=json_pointer(path))
            yield line or 0, shown, problem


def schema_problems(document: Document) -> list[ParseProblem]:
    """Schema violations of a parsed dataset in file order, each naming its JSON path and line.

    At most :data:`MAX_SCHEMA_PROBLEMS` are listed, then one line saying more exist. Most datasets
    are valid, and the compiled validator says so in microseconds; only a dataset it does not vouch
    for is walked by ``jsonschema``, whose errors carry the paths and keywords the messages need.
    """
    if is_valid_fast("evals", document.data):
        return []
    found = sorted(islice(_problems(document), MAX_SCHEMA_PROBLEMS + 1), key=lambda item: (item[0], item[1]))
    problems = [problem for _, _, problem in found[:MAX_SCHEMA_PROBLEMS]]
    if len(found) > MAX_SCHEMA_PROBLEMS:
        problems.append(
            ParseProblem(SCHEMA_VIOLATION, "more schema violations follow; fix these first", problems[-1].line)
        )
    return problems
