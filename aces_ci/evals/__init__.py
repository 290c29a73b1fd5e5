"""Evaluation datasets: evals.json in its dialects, canonicalised into EvalCase objects."""

from ._model import EvalCase, EvalSet

__all__ = ["EvalCase", "EvalSet"]
