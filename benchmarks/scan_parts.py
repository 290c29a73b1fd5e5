"""The parts of a cold scan, each against the implementation it replaced, interleaved in one process.

A whole cold scan on a shared, loaded machine swings by a factor of two between runs; the parts
are short enough to alternate many times, so each pair below is measured under the same load.
On the registry-shaped corpus (benchmarks/corpus.py), per skill, best of ``--repeat`` rounds:

* frontmatter: ``split_frontmatter`` with the default loader (libyaml, screened) and with PyYAML
  alone (``forced_yaml_loader("python")``, the previous loader);
* dataset schema check: ``schema_problems`` (jsonschema-rs vouches, jsonschema words) and
  jsonschema alone, over every ``evals/evals.json``;
* SPEC009's suggestion for every unknown frontmatter key: memoised, and ``difflib`` every time;
* SEC004's phrase search over every text file: tried where a first word starts, against the full
  patterns' ``finditer`` (the code before), and lowering non-ASCII text where that is exact, against
  lowering ASCII text only, after checking all three find the same phrases;
* for scale: ``parse_markdown`` of every body (unchanged) and ``skills-ref`` validating each skill.

Usage::

    .venv/bin/python benchmarks/scan_parts.py [--skills 300] [--seed 20260901] [--repeat 7] [--corpus DIR]

``--corpus DIR`` times the parts on a tree of skills of your own (e.g. real registry skills) instead.
"""

from __future__ import annotations

import argparse
import difflib
import json
import os
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from corpus import generate_corpus, skill_files  # the sibling module: a script's own directory is on sys.path
from skills_ref.validator import validate

from aces_ci.evals import parse_json, schema_problems
from aces_ci.scan.rules import sec, spec
from aces_ci.schemas import validator
from aces_ci.skill import forced_yaml_loader, parse_markdown, split_frontmatter


def _jsonschema_only(data: object) -> int:
    return sum(1 for _ in validator("evals").iter_errors(data))


def _suggest_uncached(key: str) -> str | None:
    candidates = [*spec.SPEC_KEYS, *spec.HARNESS_EXTENSION_KEYS]
    close = difflib.get_close_matches(key.lower().replace("_", "-"), candidates, n=1, cutoff=0.75)
    return close[0] if close else None


def _phrases_full_scan(text: str) -> list[tuple[int, int, object]]:
    """SEC004's phrase search as it was: every pattern's ``finditer`` over the whole text."""
    lowered = text.lower() if text.isascii() else None
    found: list[tuple[int, int, object]] = []
    for phrases in sec._INJECTION_PHRASES:
        matches = phrases.any_case.finditer(text) if lowered is None else phrases.lower_case.finditer(lowered)
        found.extend((match.start(), match.end(), phrases.severity) for match in matches)
    return found


def _phrases_ascii_lowered(text: str) -> list[tuple[int, int, object]]:
    """SEC004's first-word search lowering ASCII text only (every other text took the IGNORECASE pass)."""
    lowered = text.lower() if text.isascii() else None
    found: list[tuple[int, int, object]] = []
    for phrases in sec._INJECTION_PHRASES:
        if lowered is None:
            matches = sec._phrase_matches(phrases.any_case, phrases.any_case_first, text)
        else:
            matches = sec._phrase_matches(phrases.lower_case, phrases.lower_case_first, lowered)
        found.extend((start, end, phrases.severity) for start, end in matches)
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--skills", type=int, default=300)
    parser.add_argument("--seed", type=int, default=20260901)
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--corpus", type=Path, help="time the parts on this tree of skills instead of a generated one")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="aces-bench-parts-") as tmp:
        root = args.corpus or Path(tmp)
        if args.corpus is None:
            generate_corpus(root, args.skills, args.seed)
        files = skill_files(root)
        skill_dirs = [path.parent for path in files]
        texts = [path.read_text() for path in files]
        evals = [d / "evals" / "evals.json" for d in skill_dirs]
        documents = [parse_json(path.read_text()) for path in evals if path.is_file()]
        fronts = [split_frontmatter(text)[0] for text in texts]
        bodies = [split_frontmatter(text)[1] for text in texts]
        unknown = [key for front in fronts for key in front.data or {} if key not in spec.SPEC_KEYS]
        all_texts = [path.read_text(errors="replace") for path in sorted(root.rglob("*")) if path.is_file()]
        phrases = [sec._injection_phrases(text) for text in all_texts]
        if phrases != [_phrases_full_scan(text) for text in all_texts] or phrases != [
            _phrases_ascii_lowered(text) for text in all_texts
        ]:
            raise SystemExit("the SEC004 phrase searches differ")

        def python_frontmatter() -> None:
            with forced_yaml_loader("python"):
                for text in texts:
                    split_frontmatter(text)

        def memoised_suggestions() -> None:
            spec._suggest_key.cache_clear()  # cold: one scan's worth of distinct keys, computed once each
            for key in unknown:
                spec._suggest_key(key)

        pairs: list[tuple[str, Callable[[], object], Callable[[], object]]] = [
            ("frontmatter", lambda: [split_frontmatter(text) for text in texts], python_frontmatter),
            (
                "dataset schema check",
                lambda: [schema_problems(document) for document in documents],
                lambda: [_jsonschema_only(document.data) for document in documents],
            ),
            ("SPEC009 suggestions", memoised_suggestions, lambda: [_suggest_uncached(key) for key in unknown]),
            (
                "SEC004 phrase search",
                lambda: [sec._injection_phrases(text) for text in all_texts],
                lambda: [_phrases_full_scan(text) for text in all_texts],
            ),
            (
                "SEC004 lowering non-ASCII",
                lambda: [sec._injection_phrases(text) for text in all_texts],
                lambda: [_phrases_ascii_lowered(text) for text in all_texts],
            ),
        ]
        scale: list[tuple[str, Callable[[], object]]] = [
            ("parse_markdown of the bodies", lambda: [parse_markdown(body) for body in bodies]),
            ("skills-ref validate", lambda: [validate(path) for path in skill_dirs]),
        ]
        best: dict[str, float] = {}

        def timed(name: str, work: Callable[[], object]) -> None:
            start = time.perf_counter()
            work()
            best[name] = min(best.get(name, float("inf")), time.perf_counter() - start)

        for _ in range(args.repeat):
            for name, new, old in pairs:
                timed(f"{name}: now", new)
                timed(f"{name}: before", old)
            for name, work in scale:
                timed(name, work)
        print(
            f"{len(skill_dirs)} skills ({len(documents)} datasets, {len(unknown)} unknown keys); best of "
            f"{args.repeat} interleaved rounds; load average {os.getloadavg()[0]:.1f}"
        )
        per_skill = 1000 / len(skill_dirs)
        for name, _, _ in pairs:
            now, before = best[f"{name}: now"], best[f"{name}: before"]
            print(
                f"  {name:28} now {now * per_skill:7.3f} ms/skill, before {before * per_skill:7.3f}: "
                f"{before / now:5.1f}x faster"
            )
        for name, _ in scale:
            print(f"  {name:28}     {best[name] * per_skill:7.3f} ms/skill")
        print(json.dumps({name: round(seconds * per_skill, 4) for name, seconds in best.items()}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
