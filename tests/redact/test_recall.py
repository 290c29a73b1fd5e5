"""Recall over a generated corpus: at least 98% of realistic secrets of every family are masked.

The corpus is drawn from the documented formats (tests/redact/samples.py), four per kind, each
in a context of its own (an assignment, JSON, YAML, prose, code, a URL). A secret counts as
caught when no 12-character piece of it survives redaction; ``benchmarks/secret_detection.py``
reports the same figure beside detect-secrets' and the false positives of both.
"""

from __future__ import annotations

from aces_ci.redact import find_secrets, redact_text
from tests.redact.samples import MAKERS, Sample, generate

CORPUS = generate(4, seed=20260902)


def survives(sample: Sample) -> bool:
    redacted = redact_text(sample.text)
    pieces = [sample.secret[i : i + 12] for i in range(0, max(1, len(sample.secret) - 11), 4)]
    return any(piece in redacted for piece in pieces)


def test_the_corpus_is_large_and_covers_every_family() -> None:
    assert len(CORPUS) >= 100
    assert {sample.kind for sample in CORPUS} == set(MAKERS)


def test_recall_is_at_least_98_percent() -> None:
    missed = [sample for sample in CORPUS if survives(sample)]
    assert len(missed) <= 0.02 * len(CORPUS), [(s.kind, s.text[:80]) for s in missed]


def test_found_secrets_are_named_by_their_family() -> None:
    misnamed = [s for s in CORPUS if s.kind not in {m.kind for m in find_secrets(s.text)}]
    assert len(misnamed) <= 0.02 * len(CORPUS), [(s.kind, [m.kind for m in find_secrets(s.text)]) for s in misnamed]
