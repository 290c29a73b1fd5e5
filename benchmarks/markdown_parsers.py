"""markdown-it-py against faster Markdown parsers that keep source positions: speed, and hostile input.

The scan's body parse (``aces_ci.skill.parse_markdown``, on markdown-it-py) is most of a cold scan.
This measures, on the bodies and reference files of the registry-shaped corpus (benchmarks/corpus.py):

* parse time per line: ``parse_markdown`` (markdown-it-py and what the scan derives from its tokens),
  markdown-it-py's own ``parse``, markdown-it-pyrs (a Rust port of markdown-it, ``tree()`` with byte
  ranges) and pyromark (pulldown-cmark, events with byte ranges), each where installed;
* robustness on random Markdown-shaped documents (seeded): how many make each parser raise, and
  whether a Rust panic arrives as ``BaseException`` (which ``except Exception`` does not catch);
* deep nesting (``>`` repeated), run in a child process so that a crash is seen as a crash.

The alternatives are not dependencies of aces-ci; install them to compare
(``pip install markdown-it-pyrs pyromark``). Usage::

    .venv/bin/python benchmarks/markdown_parsers.py [--skills 200] [--seed 20260901] [--random 3000]
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import os
import random
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from corpus import generate_corpus  # the sibling module: a script's own directory is on sys.path
from markdown_it import MarkdownIt

from aces_ci.skill import parse_markdown, split_frontmatter

_PIECES = ["[", "]", "(", ")", "`", "*", "_", "!", "<", ">", "#", "-", "1.", "|", "\\", "&amp;", "\n", "  ", "a", "b"]


def _parsers() -> dict[str, Callable[[str], Any]]:
    reference = MarkdownIt("commonmark", {"maxNesting": 40}).enable("table")
    parsers: dict[str, Callable[[str], Any]] = {
        "parse_markdown (markdown-it-py)": parse_markdown,
        "markdown-it-py parse only": reference.parse,
    }
    try:
        pyrs = importlib.import_module("markdown_it_pyrs").MarkdownIt("commonmark").enable("table")
        parsers["markdown-it-pyrs tree"] = pyrs.tree
    except ImportError:
        print("markdown-it-pyrs not installed: skipped")
    try:
        pyromark = importlib.import_module("pyromark")
        tables = pyromark.Options.ENABLE_TABLES
        parsers["pyromark events"] = lambda text: pyromark.events(text, options=tables)
    except ImportError:
        print("pyromark not installed: skipped")
    return parsers


def _texts(root: Path) -> list[str]:
    texts = [split_frontmatter(path.read_text())[1] for path in sorted(root.glob("skills/*/SKILL.md"))]
    return texts + [path.read_text() for path in sorted(root.glob("skills/*/references/*.md"))]


def _speed(parsers: dict[str, Callable[[str], Any]], texts: list[str], repeat: int) -> None:
    lines = sum(text.count("\n") + 1 for text in texts)
    print(f"\n{len(texts)} documents, {lines:,} lines; best of {repeat}; load average {os.getloadavg()[0]:.1f}")
    baseline = None
    for name, parse in parsers.items():
        best = float("inf")
        for _ in range(repeat):
            start = time.perf_counter()
            for text in texts:
                parse(text)
            best = min(best, time.perf_counter() - start)
        baseline = baseline or best
        print(f"  {name:34} {best * 1e6 / lines:8.3f} µs/line  {baseline / best:7.1f}x parse_markdown")


@contextlib.contextmanager
def _quiet_stderr() -> Iterator[None]:
    """A Rust panic prints its message and backtrace on file descriptor 2: keep the table readable."""
    saved = os.dup(2)
    with open(os.devnull, "w") as devnull:
        os.dup2(devnull.fileno(), 2)
        try:
            yield
        finally:
            os.dup2(saved, 2)
            os.close(saved)


def _robustness(parsers: dict[str, Callable[[str], Any]], count: int, seed: int) -> None:
    rng = random.Random(seed)
    documents = ["[`", *("".join(rng.choice(_PIECES) for _ in range(rng.randint(1, 60))) for _ in range(count))]
    print(f"\n{len(documents):,} random documents (seed {seed}, and the two characters '[`'):")
    for name, parse in parsers.items():
        failures: dict[str, int] = {}
        with _quiet_stderr():
            for text in documents:
                try:
                    parse(text)
                except BaseException as exc:  # a Rust panic is a BaseException: counted, not propagated
                    kind = f"{type(exc).__name__}{'' if isinstance(exc, Exception) else ' (BaseException)'}"
                    failures[kind] = failures.get(kind, 0) + 1
        shown = ", ".join(f"{kind}: {number}" for kind, number in failures.items()) or "none"
        print(f"  {name:34} failures: {shown}")


_NESTED = """
import importlib, sys
name, depth = sys.argv[1], int(sys.argv[2])
text = ">" * depth + " x\\n"
if name == "markdown-it-pyrs tree":
    importlib.import_module("markdown_it_pyrs").MarkdownIt("commonmark").tree(text)
elif name == "pyromark events":
    importlib.import_module("pyromark").events(text)
else:
    from aces_ci.skill import parse_markdown
    parse_markdown(text)
"""


def _nesting(parsers: dict[str, Callable[[str], Any]], depth: int) -> None:
    print(f"\n{depth:,} nested '>' in a child process:")
    for name in parsers:
        if name == "markdown-it-py parse only":
            continue
        done = subprocess.run(
            [sys.executable, "-c", _NESTED, name, str(depth)], capture_output=True, text=True, timeout=600, check=False
        )
        outcome = "ok" if done.returncode == 0 else f"exit {done.returncode}"
        if done.returncode < 0:
            outcome = f"killed by signal {-done.returncode} (crash)"
        elif done.returncode > 0:
            outcome += f": {done.stderr.strip().splitlines()[-1][:100]}"
        print(f"  {name:34} {outcome}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--skills", type=int, default=200)
    parser.add_argument("--seed", type=int, default=20260901)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--random", type=int, default=3000, help="random documents for the robustness count")
    parser.add_argument("--depth", type=int, default=50_000, help="nested block quotes for the crash test")
    args = parser.parse_args(argv)
    parsers = _parsers()
    with tempfile.TemporaryDirectory(prefix="aces-bench-md-") as tmp:
        generate_corpus(Path(tmp), args.skills, args.seed)
        _speed(parsers, _texts(Path(tmp)), args.repeat)
    _robustness(parsers, args.random, args.seed)
    _nesting(parsers, args.depth)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
