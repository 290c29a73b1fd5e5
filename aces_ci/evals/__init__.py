"""Evaluation datasets: evals.json in its dialects, canonicalised into EvalCase objects."""

from ._canonical import MAX_CASES
from ._document import Document, JsonPath, format_path
from ._fixtures import MAX_FIXTURE_BYTES, MAX_FIXTURE_FILES, load_fixtures
from ._json_source import parse_json, parse_jsonl
from ._loader import DATASET_NAMES, find_datasets, load_evals
from ._model import EvalCase, EvalSet
from ._schema import SCHEMA_VIOLATION, schema_problems
from ._yaml_source import parse_yaml

__all__ = [
    "DATASET_NAMES",
    "MAX_CASES",
    "MAX_FIXTURE_BYTES",
    "MAX_FIXTURE_FILES",
    "SCHEMA_VIOLATION",
    "Document",
    "EvalCase",
    "EvalSet",
    "JsonPath",
    "find_datasets",
    "format_path",
    "load_evals",
    "load_fixtures",
    "parse_json",
    "parse_jsonl",
    "parse_yaml",
    "schema_problems",
]
