"""A reproducible corpus of skills for throughput benchmarks: many shapes, clean and flawed.

Real skill repositories mix tidy skills with every mistake the rules look for, in sizes from a
ten-line SKILL.md to one well past the 500-line advice, some with scripts, references and
evals. The corpus draws each skill's traits from a seeded ``random.Random``, so the same
``(count, seed, shape)`` always writes byte-identical files and two benchmark runs measure the same work.

Two shapes:

* ``registry`` (the default) is shaped like the skills published in public registries, as read
  from a sample of real SKILL.md files (nothing copied): frontmatter of six to fourteen keys (a
  long description, ``allowed-tools``, ``metadata`` with author, version and tags, harness keys
  such as ``argument-hint`` or ``model``, and often ``version``/``author``/``tags`` at the top
  level, which the spec does not define); bodies of 60 to 700 lines (most near 200) of headings,
  bullet lists with **bold** lead-ins and `inline code`, numbered steps, fenced code in several
  languages, tables, block quotes and links to bundled references and to the web; two to four
  reference files of 40 to 400 lines; scripts of 20 to 80 lines.
* ``synthetic`` is the earlier corpus: short frontmatter, bodies of numbered one-line steps,
  kept so earlier figures can be reproduced.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from aces_ci.skill import iter_skill_dirs

FLAWS = (
    "name-mismatch",
    "name-uppercase",
    "description-missing",
    "description-long",
    "no-trigger",
    "unknown-key",
    "broken-link",
    "no-frontmatter",
    "yaml-syntax",
    "body-too-long",
    "empty-section",
    "shell-syntax-error",
    "fake-secret",
    "few-evals",
)
"""Problems a flawed skill may carry (one to three of them)."""

_VERBS = ("Extract", "Summarise", "Convert", "Validate", "Format", "Analyse", "Generate", "Review")
_OBJECTS = ("invoices", "CSV exports", "release notes", "SQL migrations", "PDF forms", "log files", "API schemas")
_PROSE = (
    "the input file is read first and every field is checked against the expected format before anything "
    "is written; errors are reported with the line number and the original value so the user can fix them"
)
_WORDS = _PROSE.split()


@dataclass
class CorpusStats:
    """What was generated: reported beside the timings so a result can be read in context."""

    skills: int = 0
    clean: int = 0
    files: int = 0
    bytes: int = 0
    flaws: Counter[str] = field(default_factory=Counter)


def _sentence(rng: random.Random, words: int) -> str:
    return " ".join(rng.choice(_WORDS) for _ in range(words)).capitalize() + "."


def _flawed_lines(rng: random.Random, flaws: set[str]) -> list[str]:
    """The lines that end a body carrying the broken-link, empty-section or fake-secret flaws."""
    out = []
    if "broken-link" in flaws:
        out.append("Full field list in [the reference](references/missing-fields.md).")
    if "empty-section" in flaws:
        out += ["", "## Notes", "", "## More notes", _sentence(rng, 8)]
    if "fake-secret" in flaws:
        out += [
            "",
            "```bash",
            'export OPENAI_API_KEY="sk-proj-' + "".join(rng.choices("abcdefXYZ0123456789", k=40)) + '"',
            "```",
        ]
    return out


def _body(rng: random.Random, name: str, lines: int, flaws: set[str], links: list[str]) -> str:
    out = [f"# {name.replace('-', ' ').title()}", "", _sentence(rng, 14), ""]
    sections = ["Prerequisites", "Steps", "Examples", "Troubleshooting", "Limitations"]
    while len(out) < lines:
        out += [f"## {rng.choice(sections)}", ""]
        for _ in range(rng.randint(2, 8)):
            out.append(f"{rng.randint(1, 9)}. {_sentence(rng, rng.randint(6, 18))}")
        out.append("")
        if rng.random() < 0.3:
            out += ["```bash", f"python scripts/run.py --input data.csv --limit {rng.randint(1, 99)}", "```", ""]
    for target in links:
        out.append(f"See [{Path(target).stem}]({target}) for details.")
    return "\n".join(out + _flawed_lines(rng, flaws)) + "\n"


def _name_and_description(
    rng: random.Random, name: str, flaws: set[str], summary: Callable[[str, str], str]
) -> tuple[str, str]:
    """The ``name`` as written (flawed if asked) and a description: ``summary(verb, object)``, then its trigger."""
    shown_name = name.upper() if "name-uppercase" in flaws else name
    if "name-mismatch" in flaws:
        shown_name = name + "-tool"
    verb, obj = rng.choice(_VERBS), rng.choice(_OBJECTS)
    description = summary(verb, obj)
    if "no-trigger" not in flaws:
        description += f" Use when the user asks to {verb.lower()} {obj} or mentions {obj.split()[0]}."
    if "description-long" in flaws:
        description += " " + _sentence(rng, 220)
    return shown_name, description


def _frontmatter(rng: random.Random, name: str, flaws: set[str]) -> str:
    shown_name, description = _name_and_description(
        rng, name, flaws, lambda verb, obj: f"{verb} {obj} into a clean, checked result."
    )
    lines = [f"name: {shown_name}"]
    if "description-missing" not in flaws:
        lines.append(f"description: {json.dumps(description)}")
    if rng.random() < 0.4:
        lines.append("license: Apache-2.0")
    if rng.random() < 0.3:
        lines += ["metadata:", f'  version: "1.{rng.randint(0, 9)}.0"', '  author: "Docs Team <docs@example.com>"']
    if "unknown-key" in flaws:
        lines.append("priority: high")
    if "yaml-syntax" in flaws:
        lines.append("tags: [unclosed, list")
    return "---\n" + "\n".join(lines) + "\n---\n"


def _scripts(rng: random.Random, name: str, flaws: set[str]) -> dict[str, str]:
    """A Python and (often) a shell script; each names its skill, so no two skills share a script's bytes.

    Identical scripts across skills would flatter the scan, which checks each distinct script once.
    """
    files = {
        "scripts/run.py": f'#!/usr/bin/env python3\n"""Process the input of {name}."""\nimport sys\n\n\n'
        "def main() -> int:\n    print(sys.argv[1:])\n    return 0\n\n\nif __name__ == '__main__':\n"
        "    raise SystemExit(main())\n"
    }
    if rng.random() < 0.6 or "shell-syntax-error" in flaws:
        body = f'if [ -z "$1" ]; then\n  echo "usage: {name}/check.sh FILE" >&2\n  exit 2\nfi\nwc -l "$1"\n'
        if "shell-syntax-error" in flaws:
            body = f'if [ -z "$1" ]; then\n  echo "{name}: missing fi"\n'
        files["scripts/check.sh"] = "#!/usr/bin/env bash\nset -euo pipefail\n" + body
    return files


def _evals(rng: random.Random, name: str, flaws: set[str]) -> str:
    count = 1 if "few-evals" in flaws else rng.randint(3, 8)
    cases = [
        {
            "id": index + 1,
            "prompt": f"Please {rng.choice(_VERBS).lower()} the attached {rng.choice(_OBJECTS)}.",
            "expected_output": _sentence(rng, 10),
            "assertions": [_sentence(rng, 6) for _ in range(rng.randint(1, 3))],
        }
        for index in range(count)
    ]
    return json.dumps({"skill_name": name, "evals": cases}, indent=2) + "\n"


def _write(path: Path, text: str, stats: CorpusStats) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    data = text.encode("utf-8")
    path.write_bytes(data)
    stats.files += 1
    stats.bytes += len(data)


def generate_corpus(root: Path, count: int = 2000, seed: int = 20260901, shape: str = "registry") -> CorpusStats:
    """Write ``count`` skills of ``shape`` (``registry`` or ``synthetic``) under ``root/skills/``."""
    if shape == "registry":
        return _registry_corpus(root, count, seed)
    if shape != "synthetic":
        raise ValueError(f"unknown corpus shape {shape!r}")
    return _synthetic_corpus(root, count, seed)


def skill_files(root: Path) -> list[Path]:
    """The SKILL.md (or skill.md) of every skill under ``root``, at any depth, that is a regular file.

    A copied registry (``--corpus``) nests skills under their own folder names and holds SKILL.md
    files that are dangling symlinks; the benchmarks read and edit only the regular ones (the scan
    itself still meets the rest, and reports them).
    """
    found = (
        next(
            (
                path
                for path in (skill_dir / "SKILL.md", skill_dir / "skill.md")
                if path.is_file() and not path.is_symlink()
            ),
            None,
        )
        for skill_dir in iter_skill_dirs(root)
    )
    return sorted(path for path in found if path is not None)


def _synthetic_corpus(root: Path, count: int, seed: int) -> CorpusStats:
    """Write ``count`` skills under ``root/skills/`` and return what was written.

    About 40% of skills are clean; the rest carry one to three :data:`FLAWS`. Bodies range from
    10 to 250 lines (600+ when ``body-too-long``); about half have scripts, references or evals.
    """
    rng = random.Random(seed)
    stats = CorpusStats()
    for index in range(count):
        name = f"{rng.choice(_VERBS).lower()}-{rng.choice(_OBJECTS).split()[0].lower()}-{index:05d}"
        flaws = set() if rng.random() < 0.4 else set(rng.sample(FLAWS, rng.randint(1, 3)))
        skill_dir = root / "skills" / name
        files: dict[str, str] = {}
        links: list[str] = []
        if rng.random() < 0.5:
            for ref_index in range(rng.randint(1, 3)):
                target = f"references/topic-{ref_index}.md"
                files[target] = (
                    f"# Topic {ref_index}\n\n"
                    + "\n\n".join(_sentence(rng, 20) for _ in range(rng.randint(3, 40)))
                    + "\n"
                )
                links.append(target)
        if rng.random() < 0.5 or "shell-syntax-error" in flaws:
            files.update(_scripts(rng, name, flaws))
        if rng.random() < 0.5 or "few-evals" in flaws:
            files["evals/evals.json"] = _evals(rng, name, flaws)
        lines = rng.randint(620, 700) if "body-too-long" in flaws else int(rng.triangular(10, 250, 40))
        front = "" if "no-frontmatter" in flaws else _frontmatter(rng, name, flaws)
        _write_skill(rng, skill_dir, front + _body(rng, name, lines, flaws, links), files, flaws=flaws, stats=stats)
    return stats


def _write_skill(
    rng: random.Random, skill_dir: Path, skill_md: str, files: dict[str, str], *, flaws: set[str], stats: CorpusStats
) -> None:
    """Write one skill; most of its scripts are made executable (the rest are a SCRIPT finding)."""
    _write(skill_dir / "SKILL.md", skill_md, stats)
    for rel, text in files.items():
        _write(skill_dir / rel, text, stats)
        if rel.startswith("scripts/") and rng.random() < 0.8:
            (skill_dir / rel).chmod(0o755)
    stats.skills += 1
    stats.clean += not flaws
    stats.flaws.update(flaws)


# --- the registry shape ---------------------------------------------------------------------------

_TOOLS = ("Read", "Write", "Edit", "Bash", "Glob", "Grep", "WebFetch", "Task", "AskUserQuestion")
_LANGS = ("bash", "python", "json", "yaml", "typescript", "")
_TOPICS = (
    "Overview",
    "When to Use",
    "Prerequisites",
    "Quick Start",
    "Workflow",
    "Configuration",
    "Examples",
    "Best Practices",
    "Troubleshooting",
    "Reference",
    "Output Format",
    "Limitations",
)
_TERMS = ("config.yaml", "--dry-run", "API_TOKEN", "npm test", "git status", "jq", "output.json", "SKILL.md")


def _phrase(rng: random.Random, low: int, high: int) -> str:
    return " ".join(rng.choice(_WORDS) for _ in range(rng.randint(low, high)))


def _rich_line(rng: random.Random) -> str:
    """A sentence with the inline markup real skills use: bold lead-ins, inline code, now and then a link."""
    parts = [_phrase(rng, 4, 12)]
    if rng.random() < 0.5:
        parts.append(f"`{rng.choice(_TERMS)}`")
    if rng.random() < 0.3:
        parts.append(_phrase(rng, 2, 6))
    if rng.random() < 0.08:
        parts.append(f"([docs](https://example.com/{rng.choice(_WORDS)}))")
    return " ".join(parts).capitalize() + "."


def _registry_frontmatter(rng: random.Random, name: str, flaws: set[str]) -> str:
    shown_name, description = _name_and_description(
        rng, name, flaws, lambda verb, obj: f"{verb} {obj} end to end: {_phrase(rng, 12, 40)}."
    )
    lines = [f"name: {shown_name}"]
    if "description-missing" not in flaws:
        lines.append(
            f"description: {json.dumps(description)}" if rng.random() < 0.6 else f"description: >\n  {description}"
        )
    if rng.random() < 0.7:
        lines.append(f"license: {rng.choice(('MIT', 'Apache-2.0', 'Proprietary. LICENSE.txt has complete terms'))}")
    if rng.random() < 0.6:
        tools = rng.sample(_TOOLS, rng.randint(2, 6))
        lines.append(
            "allowed-tools: " + " ".join(tools) if rng.random() < 0.7 else f"allowed-tools: {', '.join(tools)}"
        )
    if rng.random() < 0.6:
        lines += [
            "metadata:",
            '  author: "Docs Team <docs@example.com>"',
            f'  version: "{rng.randint(0, 3)}.{rng.randint(0, 9)}.0"',
        ]
        if rng.random() < 0.5:
            lines.append(f'  category: "{rng.choice(_OBJECTS)}"')
    if rng.random() < 0.35:  # keys the spec does not define, as many published skills carry them
        lines += [f"version: {rng.randint(1, 3)}.{rng.randint(0, 9)}.0", "author: Jane Doe <jane@example.com>"]
    if rng.random() < 0.35:
        tags = rng.sample(_WORDS, rng.randint(2, 5))
        lines += ["tags:", *(f"  - {tag}" for tag in tags)] if rng.random() < 0.5 else [f"tags: [{', '.join(tags)}]"]
    if rng.random() < 0.25:
        lines.append(f'argument-hint: "[{rng.choice(_WORDS)}] [--{rng.choice(_WORDS)}]"')
    if rng.random() < 0.15:
        lines.append("model: sonnet")
    if rng.random() < 0.15:
        lines.append("user-invocable: true")
    if rng.random() < 0.2:
        lines.append("compatibility: Requires Python 3.10+ and network access")
    if "unknown-key" in flaws:
        lines.append("priority: high")
    if "yaml-syntax" in flaws:
        lines.append("tags: [unclosed, list")
    return "---\n" + "\n".join(lines) + "\n---\n"


def _code_block(rng: random.Random, name: str) -> list[str]:
    lang = rng.choice(_LANGS)
    body = []
    for _ in range(rng.randint(3, 18)):
        if lang == "bash":
            body.append(f"python scripts/run.py --input {rng.choice(_TERMS)} --limit {rng.randint(1, 99)}")
        elif lang == "json":
            body.append(f'  "{rng.choice(_WORDS)}": "{_phrase(rng, 1, 4)}",')
        elif lang == "yaml":
            body.append(f"{rng.choice(_WORDS)}: {_phrase(rng, 1, 3)}")
        else:
            body.append(f"{rng.choice(_WORDS)}_{rng.randint(0, 9)} = '{name}'  # {_phrase(rng, 2, 6)}")
    return [f"```{lang}", *body, "```"]


def _registry_body(rng: random.Random, name: str, lines: int, flaws: set[str], links: list[str]) -> str:
    out = [f"# {name.replace('-', ' ').title()}", "", _rich_line(rng) + " " + _rich_line(rng), ""]
    while len(out) < lines:
        out += [f"## {rng.choice(_TOPICS)}", "", _rich_line(rng), ""]
        for _ in range(rng.randint(1, 3)):
            if rng.random() < 0.3:
                out += [f"### {_phrase(rng, 1, 3).title()}", ""]
            kind = rng.random()
            if kind < 0.35:
                out += [f"- **{_phrase(rng, 1, 2).title()}**: {_rich_line(rng)}" for _ in range(rng.randint(3, 9))]
            elif kind < 0.55:
                out += [f"{i}. {_rich_line(rng)}" for i in range(1, rng.randint(3, 8))]
            elif kind < 0.75:
                out += _code_block(rng, name)
            elif kind < 0.85:
                out += ["| Option | Meaning | Default |", "|---|---|---|"]
                out += [
                    f"| `--{rng.choice(_WORDS)}` | {_phrase(rng, 3, 8)} | `{rng.randint(0, 9)}` |"
                    for _ in range(rng.randint(2, 7))
                ]
            elif kind < 0.9:
                out += [f"> **Note:** {_rich_line(rng)}"]
            else:
                out += [" ".join(_rich_line(rng) for _ in range(rng.randint(2, 4)))]
            out.append("")
    if links:
        out += ["## References", ""]
        out += [
            f"- [{Path(target).stem.replace('-', ' ').title()}]({target}): {_phrase(rng, 3, 8)}" for target in links
        ]
    return "\n".join(out + _flawed_lines(rng, flaws)) + "\n"


def _registry_reference(rng: random.Random, name: str, index: int) -> str:
    out = [f"# {name.replace('-', ' ').title()}: topic {index}", ""]
    target = rng.randint(40, 400)
    if target > 100 and rng.random() < 0.6:
        out += [
            "## Contents",
            "",
            *(f"- [{topic}](#{topic.lower().replace(' ', '-')})" for topic in rng.sample(_TOPICS, 4)),
            "",
        ]
    while len(out) < target:
        out += [f"## {rng.choice(_TOPICS)}", "", _rich_line(rng), ""]
        if rng.random() < 0.5:
            out += [f"- {_rich_line(rng)}" for _ in range(rng.randint(2, 6))] + [""]
        else:
            out += [*_code_block(rng, name), ""]
    return "\n".join(out) + "\n"


def _registry_scripts(rng: random.Random, name: str, flaws: set[str]) -> dict[str, str]:
    functions = "".join(
        f'\n\ndef step_{i}(value: str) -> str:\n    """{_phrase(rng, 4, 10)}."""\n    return value.strip()\n'
        for i in range(rng.randint(2, 8))
    )
    files = {
        "scripts/run.py": f'#!/usr/bin/env python3\n"""Process the input of {name}."""\nimport sys\n{functions}\n\n'
        "def main() -> int:\n    print(sys.argv[1:])\n    return 0\n\n\nif __name__ == '__main__':\n"
        "    raise SystemExit(main())\n"
    }
    if rng.random() < 0.6 or "shell-syntax-error" in flaws:
        body = "".join(f'echo "{name}: {_phrase(rng, 2, 6)}"\n' for _ in range(rng.randint(3, 20)))
        body = f'if [ -z "${{1:-}}" ]; then\n  echo "usage: {name}/check.sh FILE" >&2\n  exit 2\nfi\n{body}wc -l "$1"\n'
        if "shell-syntax-error" in flaws:
            body = f'if [ -z "$1" ]; then\n  echo "{name}: missing fi"\n'
        files["scripts/check.sh"] = "#!/usr/bin/env bash\nset -euo pipefail\n" + body
    return files


def _registry_corpus(root: Path, count: int, seed: int) -> CorpusStats:
    rng = random.Random(seed)
    stats = CorpusStats()
    for index in range(count):
        name = f"{rng.choice(_VERBS).lower()}-{rng.choice(_OBJECTS).split()[0].lower()}-{index:05d}"
        flaws = set() if rng.random() < 0.4 else set(rng.sample(FLAWS, rng.randint(1, 3)))
        skill_dir = root / "skills" / name
        files: dict[str, str] = {}
        links: list[str] = []
        if rng.random() < 0.7:
            for ref_index in range(rng.randint(1, 4)):
                target = f"references/{rng.choice(_WORDS)}-{ref_index}.md"
                files[target] = _registry_reference(rng, name, ref_index)
                links.append(target)
        if rng.random() < 0.6 or "shell-syntax-error" in flaws:
            files.update(_registry_scripts(rng, name, flaws))
        if rng.random() < 0.4 or "few-evals" in flaws:
            files["evals/evals.json"] = _evals(rng, name, flaws)
        lines = rng.randint(620, 900) if "body-too-long" in flaws else int(rng.triangular(60, 500, 200))
        front = "" if "no-frontmatter" in flaws else _registry_frontmatter(rng, name, flaws)
        _write_skill(
            rng, skill_dir, front + _registry_body(rng, name, lines, flaws, links), files, flaws=flaws, stats=stats
        )
    return stats
