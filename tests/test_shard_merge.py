"""``scan --shard i/n`` splits skills deterministically; ``merge`` rebuilds one report and one verdict."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from aces_ci.cli import main
from aces_ci.errors import ConfigError
from aces_ci.scan import Shard

from .report_tools import SARIF_SCHEMA, require

SKILL = (
    "---\nname: {name}\ndescription: Does {name} things. Use when the user asks for {name}.\n---\n\n"
    "# {title}\n\n1. Step.\n"
)


def _repo(tmp_path: Path, names: list[str], broken: str | None = None) -> Path:
    for name in names:
        folder = tmp_path / "skills" / name
        folder.mkdir(parents=True)
        text = SKILL.format(name=name, title=name.title())
        if name == broken:
            text = text.replace(f"name: {name}", "name: Not_Valid")
        (folder / "SKILL.md").write_text(text)
    return tmp_path


def _scan(repo: Path, out: Path, *extra: str) -> int:
    return main(["scan", str(repo), "--no-cache", "--jobs", "1", "-q", "--json", str(out), *extra])


def test_shard_parsing() -> None:
    assert Shard.parse("2/4") == Shard(2, 4)
    assert Shard(1, 3).select(["a", "b", "c", "d", "e"]) == ["a", "d"]
    for bad in ("0/3", "4/3", "x", "1/0"):
        with pytest.raises(ConfigError):
            Shard.parse(bad)


def test_shards_partition_the_skills_and_merge_back(tmp_path: Path) -> None:
    names = [f"skill-{i:02d}" for i in range(7)]
    repo = _repo(tmp_path / "repo", names, broken="skill-03")
    whole = tmp_path / "whole.json"
    assert _scan(repo, whole) == 1
    parts = [tmp_path / f"shard-{i}.json" for i in (1, 2, 3)]
    codes = [_scan(repo, part, "--shard", f"{i}/3") for i, part in enumerate(parts, start=1)]
    assert codes.count(1) == 1  # only the shard holding the broken skill fails
    skills = [sorted(s["skill"] for s in json.loads(p.read_text())["skills"]) for p in parts]
    assert sorted(skill for part in skills for skill in part) == [f"skills/{n}" for n in names]
    assert [len(s) for s in skills] == [3, 2, 2]
    merged = tmp_path / "merged.json"
    sarif = tmp_path / "merged.sarif"

    page = tmp_path / "merged.html"
    merge = ["merge", *map(str, reversed(parts)), "--json", str(merged), "--sarif", str(sarif), "--html", str(page)]
    assert main(merge) == 1

    a, b = json.loads(whole.read_text()), json.loads(merged.read_text())
    for data in (a, b):
        data.pop("generated_at")
    assert a == b
    schema = json.loads(require(SARIF_SCHEMA, "SARIF 2.1.0 schema (npm)").read_text())
    assert list(jsonschema.Draft4Validator(schema).iter_errors(json.loads(sarif.read_text()))) == []
    html = page.read_text()  # the merged page holds every shard's skills
    assert all(f"skills/{name}" in html for name in names)


def test_merge_refuses_a_missing_or_repeated_shard(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = _repo(tmp_path / "repo", ["a-one", "b-two", "c-three"])
    parts = [tmp_path / f"s{i}.json" for i in (1, 2, 3)]
    for i, part in enumerate(parts, start=1):
        _scan(repo, part, "--shard", f"{i}/3")

    assert main(["merge", str(parts[0]), str(parts[1])]) == 2
    assert "shards missing: 3/3" in capsys.readouterr().err
    assert main(["merge", str(parts[0]), str(parts[0]), str(parts[1]), str(parts[2])]) == 2
    assert "given twice" in capsys.readouterr().err


def test_an_empty_shard_passes_and_a_baseline_is_not_counted_stale_in_other_shards(tmp_path: Path) -> None:
    repo = _repo(tmp_path / "repo", ["a-one", "b-two"], broken="b-two")
    baseline = tmp_path / "baseline.json"
    assert main(["scan", str(repo), "--no-cache", "-q", "--write-baseline", str(baseline)]) == 0
    parts = [tmp_path / f"s{i}.json" for i in (1, 2, 3)]
    codes = [_scan(repo, part, "--shard", f"{i}/3", "--baseline", str(baseline)) for i, part in enumerate(parts, 1)]
    assert codes == [0, 0, 0]
    assert json.loads(parts[2].read_text())["skills"] == []
    assert [json.loads(p.read_text())["stale_baseline_entries"] for p in parts] == [0, 0, 0]
    merged = tmp_path / "m.json"
    assert main(["merge", *map(str, parts), "--json", str(merged)]) == 0
    assert json.loads(merged.read_text())["stale_baseline_entries"] == 0


def test_write_baseline_needs_every_skill(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = _repo(tmp_path / "repo", ["a-one"])
    assert main(["scan", str(repo), "--shard", "1/2", "--write-baseline", str(tmp_path / "b.json")]) == 2
    assert "without --shard" in capsys.readouterr().err
