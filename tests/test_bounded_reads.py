"""Files a pull request controls are read through one bounded reader: regular files only, a cap, no escaping link.

The attack: ``scan.baseline: /dev/zero`` (or a committed ``.aces-baseline.json -> /dev/zero``) used to
be read to gigabytes of memory. The memory tests run the CLI in a child process whose address
space is capped, so an unbounded read fails with MemoryError instead of exiting 2 with the
message; no assertion depends on how fast the machine is.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from aces_ci.engine import RolloutCache
from aces_ci.errors import InputError
from aces_ci.evals import load_evals
from aces_ci.report import read_scan_result
from aces_ci.skill import read_bounded, read_text
from tests.evals.helpers import write_skill

SKILL = "---\nname: tidy\ndescription: Tidies a notes file when the user asks to tidy it.\n---\n\n# Tidy\n\nTidy it.\n"
ADDRESS_SPACE_CAP = 768 * 1024 * 1024
"""Several times what ``aces-ci scan`` needs to refuse a baseline, far below what reading /dev/zero would take."""


def _repo(root: Path, config: str = "") -> Path:
    skill = root / "skills" / "tidy"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text(SKILL)
    if config:
        (root / "aces.yml").write_text(config)
    return root


def _scan_capped(*argv: str) -> subprocess.CompletedProcess[str]:
    """``aces-ci scan`` in a child whose address space is capped: an unbounded read cannot hide there."""
    program = (
        "import resource, sys\n"
        f"resource.setrlimit(resource.RLIMIT_AS, ({ADDRESS_SPACE_CAP}, {ADDRESS_SPACE_CAP}))\n"
        "from aces_ci.cli import main\n"
        "sys.exit(main(sys.argv[1:]))\n"
    )
    return subprocess.run(
        [sys.executable, "-c", program, "scan", "--no-cache", *argv],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def test_a_configured_dev_zero_baseline_exits_2_with_bounded_memory(tmp_path: Path) -> None:
    root = _repo(tmp_path, "scan:\n  baseline: /dev/zero\n")
    done = _scan_capped(str(root))
    assert done.returncode == 2, done.stderr
    assert "/dev/zero: baseline is unusable: not a regular file (a character device)" in done.stderr
    assert "only regular files up to 64 MiB are read" in done.stderr
    assert "Traceback" not in done.stderr


def test_a_committed_baseline_link_to_dev_zero_exits_2_with_bounded_memory(tmp_path: Path) -> None:
    root = _repo(tmp_path, "scan:\n  baseline: .aces-baseline.json\n")
    (root / ".aces-baseline.json").symlink_to("/dev/zero")
    done = _scan_capped(str(root))
    assert done.returncode == 2, done.stderr
    assert f"{root}/.aces-baseline.json: baseline leads outside the repository" in done.stderr
    assert "Traceback" not in done.stderr


def test_a_baseline_fifo_on_the_command_line_is_refused_without_waiting_for_a_writer(tmp_path: Path) -> None:
    root = _repo(tmp_path / "repo")
    fifo = tmp_path / "baseline.json"
    os.mkfifo(fifo)
    done = _scan_capped(str(root), "--baseline", str(fifo))
    assert done.returncode == 2, done.stderr
    assert f"{fifo}: baseline is unusable: not a regular file (a FIFO)" in done.stderr


def test_a_committed_baseline_linking_to_a_valid_file_outside_the_repository_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from aces_ci.cli import main

    root = _repo(tmp_path / "repo", "scan:\n  baseline: accepted.json\n")
    outside = tmp_path / "elsewhere.json"
    outside.write_text(json.dumps({"schema_version": 1, "tool": "aces-ci", "entries": []}))
    (root / "accepted.json").symlink_to(outside)
    assert main(["scan", str(root), "--no-cache", "-q"]) == 2
    assert f"{root}/accepted.json: baseline leads outside the repository" in capsys.readouterr().err
    # The same file named on the command line is the operator's choice: read.
    assert main(["scan", str(root), "--no-cache", "-q", "--baseline", str(outside)]) == 0


def test_an_oversized_baseline_is_refused_by_reading_one_byte_past_the_cap(tmp_path: Path) -> None:
    big = tmp_path / "big.json"
    big.write_bytes(b" " * 1025)
    with pytest.raises(InputError, match=r"big.json: baseline is larger than the 1 KiB limit"):
        read_bounded(big, what="baseline", max_bytes=1024)
    big.write_bytes(b" " * 1024)
    assert len(read_bounded(big, what="baseline", max_bytes=1024)) == 1024


def test_aces_yml_linking_outside_the_repository_is_not_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from aces_ci.cli import main

    secret = tmp_path / "runner-secret.yml"
    secret.write_text("scan:\n  min_score: 10\n")
    root = _repo(tmp_path / "repo")
    (root / ".git").mkdir()
    (root / "aces.yml").symlink_to(secret)
    assert main(["scan", str(root), "--no-cache", "-q"]) == 2
    assert f"{root}/aces.yml: config file is a link leading outside the repository" in capsys.readouterr().err


def test_an_evals_link_escaping_the_skill_and_a_fifo_are_refused_naming_the_file(tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere.json"
    outside.write_text(json.dumps({"skill_name": "x", "evals": []}))
    skill_dir = write_skill(tmp_path / "a", {})
    (skill_dir / "evals").mkdir()
    (skill_dir / "evals" / "evals.json").symlink_to(outside)
    evalset = load_evals(skill_dir, tmp_path / "a")
    assert evalset is not None and not evalset.parsed
    assert [p.code for p in evalset.problems] == ["dataset-escapes"]
    assert evalset.rel == "skills/demo/evals/evals.json", "the problem is reported against the file"

    fifo_skill = write_skill(tmp_path / "b", {})
    (fifo_skill / "evals").mkdir()
    os.mkfifo(fifo_skill / "evals" / "evals.json")
    fifo_set = load_evals(fifo_skill, tmp_path / "b")
    assert fifo_set is not None and not fifo_set.parsed
    assert any(p.code == "not-a-file" for p in fifo_set.problems)


def test_read_text_never_reads_a_device_and_reads_at_most_the_cap(tmp_path: Path) -> None:
    link = tmp_path / "SKILL.md"
    link.symlink_to("/dev/zero")
    device = read_text(link, "SKILL.md")
    assert device.text is None and [p.code for p in device.problems] == ["not-a-file"]
    big = tmp_path / "big.md"
    big.write_text("a" * 5000)
    capped = read_text(big, "big.md", max_bytes=100)
    assert capped.truncated and capped.text == "a" * 100


def test_a_forks_results_file_linking_out_of_the_downloaded_folder_is_refused(tmp_path: Path) -> None:
    results = tmp_path / "results"
    results.mkdir()
    (results / "results.json").symlink_to("/dev/zero")
    with pytest.raises(InputError, match="scan result leads outside the repository"):
        read_scan_result(results / "results.json", inside=results)
    (results / "results.json").unlink()
    os.mkfifo(results / "results.json")
    with pytest.raises(InputError, match=r"results.json: scan result is unusable: not a regular file \(a FIFO\)"):
        read_scan_result(results / "results.json", inside=results)


def test_a_rollout_cache_entry_that_is_a_device_is_a_miss(tmp_path: Path) -> None:
    cache = RolloutCache(tmp_path)
    key = "ab" * 32
    path = cache.path_for(key)
    path.parent.mkdir(parents=True)
    path.symlink_to("/dev/zero")
    assert cache.get(key) is None
