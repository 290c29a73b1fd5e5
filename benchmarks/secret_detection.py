"""Secret detection: our redactor against detect-secrets, and against our own redactor before this change.

Three questions decide whether a library would serve better than our own patterns:

* **recall** on a generated corpus of realistic secrets of every family we claim
  (tests/redact/samples.py: documented formats, seeded, never real credentials), each in a
  context of its own. Ours: caught when no 12-character piece of the secret survives
  ``redact_text``. detect-secrets: caught when a reported value covers the secret (contains it,
  or is a piece of it at least 12 characters long), with its default plugins and filters, each
  text scanned as a file (``scan_file``: ``scan_line`` skips the filters and reports thousands of
  high-entropy words).
* **false positives** on text without real secrets: the example repository (less its one planted
  AWS key, counted apart), the skills of the throughput corpus (benchmarks/corpus.py, less their
  planted ``fake-secret`` lines), random text in the fuzz tests' alphabet, and this repository's
  own source and documentation (code full of ``token`` and ``secret`` names, fake keys in docs).
  Every reported value there is counted; for ours, so are the look-alikes the policy left alone,
  apart (they are reported suppressed, never masked).
* **milliseconds per MB** of the same corpus text (the throughput corpus and the source), best of
  ``--repeat``: ours, ours before this change (``--baseline-ref``, loaded from git), and
  detect-secrets (``scan_file`` over the same texts written to files, so its figure includes
  reading them; a single run, it is slow).

Usage (detect-secrets comes with the ``dev`` extra; aces-ci itself does not depend on it)::

    .venv/bin/python benchmarks/secret_detection.py [--per-kind 20] [--seed 20260904] [--skills 400] [--repeat 3]
"""

from __future__ import annotations

import argparse
import importlib.util
import random
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterable
from pathlib import Path
from types import ModuleType

# The sample generator lives with the tests; this script runs from a checkout, so put its root on the path.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from corpus import generate_corpus  # the sibling module: a script's own directory is on sys.path
from detect_secrets.core.scan import scan_file
from detect_secrets.settings import default_settings

from aces_ci.redact import find_secrets, redact_text, scan_text
from tests.redact.samples import Sample, generate

ROOT = Path(__file__).resolve().parent.parent
PLANTED_IN_EXAMPLE = "AKIAQ3ZL7TNRW5XK2M4P"
"""The AWS key id the example repository plants on purpose (deploy-helper): a true positive."""
FUZZ_ALPHABET = list("#*-_`[]()<>!:/.\\ \n\t|~=aZ09\u202e\u200b\ufeffé")
"""tests/fuzz/test_random_inputs.py's Markdown alphabet; random code points are mixed in as there."""


def pieces(secret: str) -> list[str]:
    return [secret[i : i + 12] for i in range(0, max(1, len(secret) - 11), 4)]


def ours_catches(sample: Sample) -> bool:
    redacted = redact_text(sample.text)
    return not any(piece in redacted for piece in pieces(sample.secret))


class Files:
    """Texts written to files once, for detect-secrets, which scans files."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.count = 0

    def write(self, text: str, suffix: str = ".txt") -> Path:
        self.count += 1
        path = self.directory / f"text-{self.count:06d}{suffix}"
        path.write_text(text, encoding="utf-8", errors="surrogatepass")
        return path


def detect_secrets_found(path: Path) -> list[tuple[str, str]]:
    """(type, value) of every secret detect-secrets reports in the file."""
    return [(found.type, str(found.secret_value)) for found in scan_file(str(path))]


def detect_secrets_catches(sample: Sample, files: Files) -> bool:
    for _type, value in detect_secrets_found(files.write(sample.text)):
        if sample.secret in value or (len(value) >= 12 and value in sample.secret):
            return True
    return False


def recall(samples: list[Sample], files: Files) -> None:
    ours = {s.kind: 0 for s in samples}
    theirs = dict(ours)
    totals = Counter(s.kind for s in samples)
    for sample in samples:
        ours[sample.kind] += ours_catches(sample)
        theirs[sample.kind] += detect_secrets_catches(sample, files)
    print(f"\n## Recall: {len(samples)} generated secrets, {len(totals)} kinds\n")
    print("| kind | n | ours | detect-secrets |\n|---|---:|---:|---:|")
    for kind, n in totals.items():
        print(f"| {kind} | {n} | {ours[kind]} | {theirs[kind]} |")
    all_ours, all_theirs = sum(ours.values()), sum(theirs.values())
    print(
        f"| **all** | {len(samples)} | **{all_ours} ({all_ours / len(samples):.1%})** "
        f"| **{all_theirs} ({all_theirs / len(samples):.1%})** |"
    )


def text_files(root: Path, suffixes: tuple[str, ...]) -> list[tuple[str, str]]:
    """(path, text) of every readable text file under ``root`` with one of ``suffixes``."""
    texts = []
    for path in sorted(root.rglob("*")):
        if path.is_file() and path.suffix in suffixes and ".venv" not in path.parts and ".git" not in path.parts:
            try:
                texts.append((str(path.relative_to(root)), path.read_text(encoding="utf-8")))
            except (UnicodeDecodeError, OSError):
                continue
    return texts


def fuzz_texts(seed: int, count: int) -> list[str]:
    rng = random.Random(seed)

    def char() -> str:
        return rng.choice(FUZZ_ALPHABET) if rng.random() < 0.7 else chr(rng.randint(0x20, 0x2FFF))

    return [(f"fuzz-{i}.md", "".join(char() for _ in range(rng.randint(0, 600)))) for i in range(count)]


def false_positives(
    name: str, texts: list[tuple[str, str]], files: Files, *, expected: Callable[[str], bool] = lambda _v: False
) -> None:
    """Reported values in ``texts`` that are not expected true positives, for both detectors."""
    ours = left = theirs = 0
    where: list[str] = []
    their_types: Counter[str] = Counter()
    for rel, text in texts:
        scan = scan_text(text)
        for match in scan.secrets:
            if not expected(text[match.start : match.end]):
                ours += 1
                where.append(f"{rel}:{match.line} {match.kind}")
        left += len(scan.left_alone)
        for kind, value in detect_secrets_found(files.write(text, Path(rel).suffix or ".txt")):
            if not expected(value):
                theirs += 1
                their_types[kind] += 1
    size = sum(len(t.encode("utf-8", "surrogatepass")) for _, t in texts) / 1e6
    shown = "; ".join(where[:3]) + (f"; and {len(where) - 3} more" if len(where) > 3 else "")
    print(f"| {name} | {len(texts):,} | {size:.2f} | {ours} {shown} | {left} | {theirs} {dict(their_types) or ''} |")


def baseline_module(ref: str) -> ModuleType | None:
    """The redactor as it was at ``ref`` (one self-contained file then), or None when git has no such file."""
    try:
        source = subprocess.run(
            ["git", "-C", str(ROOT), "show", f"{ref}:aces_ci/redact.py"], check=True, capture_output=True, text=True
        ).stdout
    except (subprocess.CalledProcessError, OSError):
        return None
    path = Path(tempfile.mkdtemp()) / "redact_before.py"
    path.write_text(source, encoding="utf-8")
    spec = importlib.util.spec_from_file_location("redact_before", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["redact_before"] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def best_seconds(work: Callable[[], object], repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        started = time.perf_counter()
        work()
        best = min(best, time.perf_counter() - started)
    return best


def throughput(texts: list[str], repeat: int, before: ModuleType | None, files: Files) -> None:
    size = sum(len(t.encode("utf-8", "surrogatepass")) for t in texts) / 1e6

    def each(fn: Callable[[str], object]) -> Callable[[], None]:
        return lambda: [fn(t) for t in texts] and None

    work: list[tuple[str, Callable[[], object]]] = []
    if before is not None:
        work.append(("before: find_secrets (baseline)", each(before.find_secrets)))
        work.append(("before: redact_text", each(before.redact_text)))
    work.append(("now: find_secrets", each(find_secrets)))
    work.append(("now: scan_text (secrets + left alone, what SEC001 runs)", each(scan_text)))
    work.append(("now: redact_text", each(redact_text)))
    # Interleaved: on a shared machine the load drifts, and each detector should meet the same drift.
    best = {label: float("inf") for label, _ in work}
    for _ in range(repeat):
        for label, fn in work:
            best[label] = min(best[label], best_seconds(fn, 1))
    rows = list(best.items())
    paths = [files.write(text) for text in texts]
    rows.append(("detect-secrets 1.5.0: scan_file", best_seconds(lambda: [detect_secrets_found(p) for p in paths], 1)))
    reference = rows[0][1]
    print(f"\n## Throughput: {len(texts):,} texts, {size:.2f} MB\n")
    print("| detector | ms per MB | × baseline |\n|---|---:|---:|")
    for label, seconds in rows:
        print(f"| {label} | {seconds * 1000 / size:,.1f} | {seconds / reference:.2f}× |")


def main(argv: Iterable[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--per-kind", type=int, default=20)
    parser.add_argument("--seed", type=int, default=20260904)
    parser.add_argument("--skills", type=int, default=400, help="skills of the throughput corpus")
    parser.add_argument("--fuzz", type=int, default=2000, help="random texts in the fuzz alphabet")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--baseline-ref", default="b7a9c50", help="git revision of the redactor before this change")
    args = parser.parse_args(None if argv is None else list(argv))

    with default_settings(), tempfile.TemporaryDirectory() as scratch:
        files = Files(Path(scratch))
        recall(generate(args.per_kind, args.seed), files)
        with tempfile.TemporaryDirectory() as tmp:
            generate_corpus(Path(tmp), args.skills, args.seed)
            corpus = text_files(Path(tmp), (".md", ".py", ".sh", ".json"))
        planted = sum(text.count("sk-proj-") for _, text in corpus)
        corpus_clean = [(rel, "\n".join(ln for ln in t.split("\n") if "sk-proj-" not in ln)) for rel, t in corpus]
        own = text_files(ROOT / "aces_ci", (".py",)) + [(p, t) for p, t in text_files(ROOT, (".md",)) if "/" not in p]
        print("\n## False positives (values reported in text holding no real secret)\n")
        print(
            "| corpus | texts | MB | ours: secrets | ours: left alone (reported suppressed) "
            "| detect-secrets |\n|---|---:|---:|---|---:|---|"
        )
        example = text_files(ROOT / "examples", (".md", ".py", ".sh", ".json", ".yml"))
        false_positives("example repository", example, files, expected=lambda value: PLANTED_IN_EXAMPLE in value)
        false_positives(f"throughput corpus, {args.skills} skills (planted lines removed)", corpus_clean, files)
        false_positives(f"fuzz alphabet, {args.fuzz} texts", fuzz_texts(args.seed, args.fuzz), files)
        false_positives("aces-ci's own source and top-level docs", own, files)
        print(f"\n(The throughput corpus plants {planted} fake OpenAI keys; the timing below includes them.)")
        throughput([t for _, t in corpus + own], args.repeat, baseline_module(args.baseline_ref), files)


if __name__ == "__main__":
    main()
