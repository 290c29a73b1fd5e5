"""The whole scan finds the same whether libyaml or PyYAML composes the YAML.

libyaml composes frontmatter, YAML datasets and aces.yml by default; PyYAML alone is the reference
(what the scan did before). Here every finding (rule, message, file, line) of a scan with the
default loader must equal that of a scan with the reference, on the example repository, on skills
written to hit every place where the two parsers are known to differ, and on generated frontmatter.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from aces_ci.scan import ScanConfig, scan_repo
from aces_ci.scan.rules import default_registry
from aces_ci.skill import LIBYAML_VERSION, forced_yaml_loader

pytestmark = pytest.mark.skipif(LIBYAML_VERSION is None, reason="PyYAML was built without libyaml")

REGISTRY = default_registry()
EXAMPLE_REPO = Path(__file__).resolve().parents[2] / "examples" / "skill-repo"
BODY = "# Demo\n\nRun `scripts/run.py` on the file the user names.\n"

FRONTMATTERS = {
    "plain": "name: plain\ndescription: Formats files. Use when asked to format.\n",
    "tab-after-colon": "name: tab-after-colon\ndescription:\tFormats files. Use when asked.\n",
    "tab-indent": "name: tab-indent\nmetadata:\n\tauthor: me\n",
    "bare-tag": "name: bare-tag\ndescription: ! Formats files\n",
    "python-tag": "name: !!python/object/apply:os.system ['echo pwned']\n",
    "int-tag": "name: !!int not-a-number\ndescription: d\n",
    "block-header-comment": "name: block-header-comment\ndescription: |# note\n  Formats files.\n",
    "inner-bom": "name: inner-bom\ndescription: \ufeffFormats files.\n",
    "empty-values": "name: empty-values\ndescription:\nlicense:\nmetadata:\n  author:\n",
    "empty-item": "name: empty-item\ntags:\n  -\n  - b\n",
    "duplicate": "name: duplicate\ndescription: one\ndescription: two\n",
    "anchors": "name: anchors\nmetadata: &m {a: '1'}\ncompatibility: *m\n",
    "merge": "name: merge\nbase: &b {x: 1}\nmetadata:\n  <<: *b\n  y: '2'\n",
    "bomb": "a: &a [x, x, x, x, x, x, x, x, x]\n"
    + "".join(f"{c}: &{c} [" + ", ".join([f"*{p}"] * 9) + "]\n" for p, c in zip("abcdefgh", "bcdefghi", strict=True)),
    "deep": "name: deep\nmetadata: " + "[" * 400 + "]" * 400 + "\n",
    "control": "name: control\ndescription: bad \x1f char\n",
    "unclosed-flow": "name: unclosed-flow\ntags: [a, b\n",
    "not-mapping": "- name\n- description\n",
    "folded": "name: folded\ndescription: >\n  Formats files.\n  Use when asked.\n",
    "unicode": "name: unicodé\ndescription: \u2028Formats\x85 files.\n",
}
DATASETS = {
    "plain": "skill_name: demo\nevals:\n  - id: 1\n    prompt: Format it.\n    expected_output: done\n",
    "tabs": "evals:\n\t- id: 1\n",
    "empty-items": "evals:\n  -\n  - id: 2\n    prompt:\n",
    "duplicate": "evals:\n  - id: 1\n    prompt: a\n    prompt: b\n",
    "date": "evals:\n  - id: 1\n    prompt: p\n    when: 2024-13-45\n",
    "bad-tag": "evals:\n  - id: !!int x\n",
}


def _findings(root: Path) -> list[tuple[str, str, str, str, int | None]]:
    result = scan_repo(root, ScanConfig(), REGISTRY)
    return [
        (s.skill, f.rule_id, f.message, f.location.path, f.location.line) for s in result.skills for f in s.findings
    ]


def _same_with_both_loaders(root: Path) -> list[tuple[str, str, str, str, int | None]]:
    default = _findings(root)
    with forced_yaml_loader("python"):
        reference = _findings(root)
    assert default == reference
    return default


def test_the_example_repository(tmp_path: Path) -> None:
    shutil.copytree(EXAMPLE_REPO, tmp_path / "repo")
    assert _same_with_both_loaders(tmp_path / "repo")


def test_frontmatter_and_datasets_where_the_parsers_differ(tmp_path: Path) -> None:
    for name, front in FRONTMATTERS.items():
        skill = tmp_path / "skills" / f"fm-{name}"
        skill.mkdir(parents=True)
        (skill / "SKILL.md").write_text(f"---\n{front}---\n{BODY}", encoding="utf-8")
    for name, dataset in DATASETS.items():
        skill = tmp_path / "skills" / f"ds-{name}"
        (skill / "evals").mkdir(parents=True)
        (skill / "SKILL.md").write_text(f"---\n{FRONTMATTERS['plain']}---\n{BODY}")
        (skill / "evals" / "evals.yaml").write_text(dataset)
    findings = _same_with_both_loaders(tmp_path)
    rules = {rule for _, rule, _, _, _ in findings}
    assert {"PARSE009", "PARSE010", "PARSE011", "PARSE012", "SPEC009"} <= rules  # the skills were hostile


_PIECES = st.sampled_from(
    ["name: x\n", "description: d\n", "a: ", "- ", "  ", "\t", "!", "! ", "&a ", "*a", "|#", ">", "\ufeff",
     "[", "]", "{", "}", ",", ":", "\n", "'", '"', "#c", "? ", "~", "é", "\u2028", "2024-01-02", "!!str "]
)  # fmt: skip


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(_PIECES, min_size=1, max_size=25).map("".join))
def test_generated_frontmatter(tmp_path_factory: pytest.TempPathFactory, front: str) -> None:
    root = tmp_path_factory.mktemp("generated")
    (root / "skills" / "gen").mkdir(parents=True)
    (root / "skills" / "gen" / "SKILL.md").write_text(f"---\n{front}\n---\n{BODY}", encoding="utf-8")
    _same_with_both_loaders(root)
