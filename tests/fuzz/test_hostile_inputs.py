"""Named hostile inputs: each must be scanned without a crash or a hang, and reported by the right rule."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from aces_ci.scan import ResultCache, ScanConfig, load_baseline, scan_repo, write_baseline

from ._scan import BODY, FRONT, REGISTRY, findings_of, rule_ids, scan, skill_dir

pytestmark = pytest.mark.timeout(120)


def write_skill_md(root: Path, data: bytes) -> Path:
    path = skill_dir(root) / "SKILL.md"
    path.write_bytes(data)
    return path


def test_invalid_utf8_is_reported_at_its_line(tmp_path: Path) -> None:
    write_skill_md(tmp_path, (FRONT + BODY).encode() + b"caf\xe9 \xff\xfe\n")
    (finding,) = [f for f in findings_of(tmp_path) if f.rule_id == "PARSE002"]
    assert finding.location.line == 8


def test_a_binary_skill_md_is_unreadable(tmp_path: Path) -> None:
    write_skill_md(tmp_path, b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)) * 8)
    assert "PARSE001" in rule_ids(tmp_path)


def test_random_bytes_without_nul_are_still_reported(tmp_path: Path) -> None:
    write_skill_md(tmp_path, bytes((n * 37 + 11) % 255 + 1 for n in range(4096)))
    assert {"PARSE002", "PARSE005"} <= rule_ids(tmp_path)


def test_a_10_mb_skill_md_is_truncated_and_reported(tmp_path: Path) -> None:
    line = b"Run the formatter on the file the user names, then check the output for errors.\n"
    write_skill_md(tmp_path, (FRONT + BODY).encode() + line * (10 * 1024 * 1024 // len(line)))
    assert {"PARSE003", "STRUCT001"} <= rule_ids(tmp_path)


@pytest.mark.timeout(60)
def test_a_flood_of_unclosed_comments_is_scanned_in_linear_time(tmp_path: Path) -> None:
    front = FRONT.replace("---\nname", "---\n# aces-ci: ignor misspelt\nname", 1)
    flood = "<!-- aces-ci: ignore SPEC001 never closed\n" * 60_000
    write_skill_md(tmp_path, (front + BODY + flood).encode())
    assert "ACES003" in rule_ids(tmp_path), "the frontmatter directive is still read"


def test_binary_and_huge_resources_do_not_stop_the_scan(tmp_path: Path) -> None:
    path = write_skill_md(tmp_path, (FRONT + BODY + "See [the table](references/table.md).\n").encode())
    (path.parent / "references").mkdir()
    (path.parent / "references" / "table.md").write_bytes(b"\x00\x01\x02" * 1000)
    (path.parent / "assets").mkdir()
    (path.parent / "assets" / "big.md").write_bytes(b"# Big\n" + b"x" * (5 * 1024 * 1024))
    findings_of(tmp_path)


@pytest.mark.parametrize(
    "frontmatter",
    [
        pytest.param("name: " + "[" * 5000 + "]" * 5000, id="deep-flow-sequence"),
        pytest.param("name: " + "{a: " * 3000 + "x" + "}" * 3000, id="deep-flow-mapping"),
        pytest.param("".join("  " * i + f"k{i}:\n" for i in range(300)) + "  " * 300 + "v", id="deep-block"),
        pytest.param(
            'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n'
            + "".join(f"{c}: &{c} [{', '.join([f'*{p}'] * 9)}]\n" for p, c in zip("abcdefgh", "bcdefghi", strict=True)),
            id="billion-laughs",
        ),
        pytest.param("name: &a [*a]", id="recursive-sequence-anchor"),
        pytest.param("metadata: &m {self: *m}", id="recursive-mapping-anchor"),
    ],
)
def test_hostile_yaml_is_refused_as_too_complex(tmp_path: Path, frontmatter: str) -> None:
    write_skill_md(tmp_path, f"---\n{frontmatter}\n---\n{BODY}".encode())
    assert "PARSE010" in rule_ids(tmp_path)


def test_a_symlink_loop_as_skill_md_is_unreadable(tmp_path: Path) -> None:
    directory = skill_dir(tmp_path)
    (directory / "SKILL.md").symlink_to("SKILL.md")
    assert "PARSE001" in rule_ids(tmp_path)


def test_symlink_loops_and_a_link_to_etc_are_escapes(tmp_path: Path) -> None:
    path = write_skill_md(tmp_path, (FRONT + BODY + "Read references/passwd for users.\n").encode())
    references = path.parent / "references"
    references.mkdir()
    (references / "passwd").symlink_to("/etc/passwd")
    (references / "etc").symlink_to("/etc")
    (references / "loop-a").symlink_to("loop-b")
    (references / "loop-b").symlink_to("loop-a")
    escapes = sorted(f.location.path.rsplit("/", 1)[1] for f in findings_of(tmp_path) if f.rule_id == "REF004")
    assert escapes == ["etc", "loop-a", "loop-b", "passwd"]


def test_a_fifo_as_skill_md_does_not_block(tmp_path: Path) -> None:
    os.mkfifo(skill_dir(tmp_path) / "SKILL.md")
    assert "PARSE001" in rule_ids(tmp_path)


def test_fifos_among_resources_do_not_block(tmp_path: Path) -> None:
    path = write_skill_md(
        tmp_path, (FRONT + BODY + "Run `scripts/pipe.sh`, read [notes](references/notes.md).\n").encode()
    )
    for rel in ("scripts/pipe.sh", "references/notes.md", "evals/evals.json"):
        (path.parent / rel).parent.mkdir(exist_ok=True)
        os.mkfifo(path.parent / rel)
    assert "EVAL002" in rule_ids(tmp_path)


def test_an_unreadable_skill_md(tmp_path: Path) -> None:
    """chmod 000 stops every user but root; a dangling symlink stops root too."""
    path = write_skill_md(tmp_path, (FRONT + BODY).encode())
    path.chmod(0)
    try:
        found = rule_ids(tmp_path)
    finally:
        path.chmod(0o644)
    if os.geteuid() == 0:
        assert "PARSE001" not in found, "root reads it: the content is checked as usual"
    else:
        assert "PARSE001" in found
    path.unlink()
    path.symlink_to("missing-target.md")
    assert "PARSE001" in rule_ids(tmp_path)


def test_unreadable_evals_and_scripts(tmp_path: Path) -> None:
    path = write_skill_md(tmp_path, (FRONT + BODY).encode())
    (path.parent / "evals").mkdir()
    (path.parent / "evals" / "evals.json").symlink_to("nowhere.json")
    assert "EVAL002" in rule_ids(tmp_path)


@pytest.mark.parametrize(
    "content",
    [
        pytest.param(b"\xff\xfe{\x00", id="utf16-bytes"),
        pytest.param(b"[" * 100_000, id="deep-json"),
        pytest.param(json.dumps({"evals": [{"id": [1], "prompt": {"a": None}}] * 3}).encode(), id="wrong-types"),
        pytest.param(b'{"evals": ' + b"1e999999" + b"}", id="huge-number"),
        pytest.param(b'{"a": 1, "a": 2}', id="duplicate-keys"),
    ],
)
def test_hostile_evals_json_is_reported(tmp_path: Path, content: bytes) -> None:
    path = write_skill_md(tmp_path, (FRONT + BODY).encode())
    (path.parent / "evals").mkdir()
    (path.parent / "evals" / "evals.json").write_bytes(content)
    assert rule_ids(tmp_path) & {"EVAL002", "EVAL003"}


def test_file_names_that_are_not_utf8_survive_reports_and_baselines(tmp_path: Path) -> None:
    path = write_skill_md(tmp_path, (FRONT + BODY).encode())
    scripts = os.fsencode(path.parent / "scripts")
    os.mkdir(scripts)
    with open(os.path.join(scripts, b"caf\xe9.sh"), "wb") as handle:
        handle.write(b"if then fi\n")
    result = scan(tmp_path)
    findings = [f for report in result.skills for f in report.findings]
    baseline = tmp_path / "baseline.json"
    assert any("\udce9" in f.location.path for f in findings), "the script is reported under its real name"
    write_baseline(findings, baseline)
    entries = load_baseline(baseline).entries
    assert sorted(e.fingerprint for e in entries) == sorted(f.fingerprint for f in findings)


def test_a_fifo_or_directory_in_place_of_a_cache_entry_is_a_miss(tmp_path: Path) -> None:
    write_skill_md(tmp_path, (FRONT + BODY).encode())
    cache_dir = tmp_path / "cache"
    first = scan_repo(tmp_path, ScanConfig(), REGISTRY, cache=ResultCache(cache_dir))
    (entry,) = cache_dir.glob("*.json")
    entry.unlink()
    os.mkfifo(entry)
    cache = ResultCache(cache_dir)
    again = scan_repo(tmp_path, ScanConfig(), REGISTRY, cache=cache)
    assert (cache.stats.hits, again.skills) == (0, first.skills)
    entry.unlink()
    entry.mkdir()
    cache = ResultCache(cache_dir)
    assert scan_repo(tmp_path, ScanConfig(), REGISTRY, cache=cache).skills == first.skills
    assert (cache.stats.hits, cache.stats.not_stored) == (0, 1), "a directory cannot be replaced by an entry"
