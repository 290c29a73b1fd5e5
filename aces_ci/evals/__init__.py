"""Evaluation datasets: evals.json in its dialects, EVAL.md, task commands (BYOT), canonicalised into EvalCase.

:func:`load_evals` reads one dataset file leniently, for the scan; :func:`load_dataset` merges every
source strictly, for a trial. Grader commands (BYOG) are declared here (:class:`GraderSpec`) and run
by :mod:`aces_ci.grading`.
"""

from ._canonical import DRAFT_KEY, MATCH_INVALID, MAX_CASES, CanonicalSet, canonicalise
from ._dataset import CaseSource, Dataset, NoCases, SourceKind, load_dataset
from ._document import Document, JsonPath, format_path, json_pointer
from ._eval_md import EVAL_MD, EvalMd, parse_eval_md
from ._fixtures import MAX_FIXTURE_BYTES, MAX_FIXTURE_FILES, load_fixtures
from ._json_source import parse_json, parse_jsonl
from ._loader import DATASET_NAMES, find_datasets, load_evals
from ._model import DEFAULT_MATCH, MATCH_MODES, EvalCase, EvalSet, MatchMode, Tolerance
from ._normalise import contains_phrase, normalise
from ._numbers import numbers_in
from ._owned import GraderSpec, TaskCommand, grader_from, parse_python_target, task_command_from
from ._scaffold import scaffold_dataset
from ._schema import SCHEMA_VIOLATION, schema_problems
from ._strict import UNKNOWN_KEY, unknown_key_problems
from ._subprocess import (
    MAX_OUTPUT_BYTES,
    CommandNotRunnable,
    CommandOutput,
    command_environment,
    run_argv,
    tail_for_log,
)
from ._trigger_queries import TRIGGER_QUERIES, TriggerQuery, TriggerSet, load_trigger_queries, parse_trigger_queries
from ._yaml_source import parse_yaml

__all__ = [
    "DATASET_NAMES",
    "DEFAULT_MATCH",
    "DRAFT_KEY",
    "EVAL_MD",
    "MATCH_INVALID",
    "MATCH_MODES",
    "MAX_CASES",
    "MAX_FIXTURE_BYTES",
    "MAX_FIXTURE_FILES",
    "MAX_OUTPUT_BYTES",
    "SCHEMA_VIOLATION",
    "TRIGGER_QUERIES",
    "UNKNOWN_KEY",
    "CanonicalSet",
    "CaseSource",
    "CommandNotRunnable",
    "CommandOutput",
    "Dataset",
    "Document",
    "EvalCase",
    "EvalMd",
    "EvalSet",
    "GraderSpec",
    "JsonPath",
    "MatchMode",
    "NoCases",
    "SourceKind",
    "TaskCommand",
    "Tolerance",
    "TriggerQuery",
    "TriggerSet",
    "canonicalise",
    "command_environment",
    "contains_phrase",
    "find_datasets",
    "format_path",
    "grader_from",
    "json_pointer",
    "load_dataset",
    "load_evals",
    "load_fixtures",
    "load_trigger_queries",
    "normalise",
    "numbers_in",
    "parse_eval_md",
    "parse_json",
    "parse_jsonl",
    "parse_python_target",
    "parse_trigger_queries",
    "parse_yaml",
    "run_argv",
    "scaffold_dataset",
    "schema_problems",
    "tail_for_log",
    "task_command_from",
    "unknown_key_problems",
]
