"""Work shared by a whole test run is done once, however many workers ask for it, and its failure is shared too."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.once import once_per_run, run_root

ROOT = Path(__file__).resolve().parents[1]
ASK = """
import sys, time
from pathlib import Path
from tests.once import once_per_run, run_root

def build(folder):
    with open(sys.argv[2], "a") as log:
        log.write("built\\n")
    time.sleep(1.0)  # long enough for the other worker to be waiting on the lock
    (folder / "result").write_text("the venv")

print(once_per_run(Path(sys.argv[1]), "install", build))
"""


def test_two_workers_asking_at_once_build_once_and_share_the_folder(tmp_path: Path) -> None:
    log = tmp_path / "builds.log"
    workers = [
        subprocess.Popen(
            [sys.executable, "-c", ASK, str(tmp_path), str(log)], cwd=ROOT, stdout=subprocess.PIPE, text=True
        )
        for _ in range(2)
    ]
    folders = {worker.communicate(timeout=120)[0].strip() for worker in workers}
    assert [worker.returncode for worker in workers] == [0, 0]
    assert log.read_text().splitlines() == ["built"]
    assert folders == {str(tmp_path / "install")}
    assert (tmp_path / "install" / "result").read_text() == "the venv"


def test_a_failed_build_fails_every_later_asker_with_its_message_without_building_again(tmp_path: Path) -> None:
    def broken(folder: Path) -> None:
        raise AssertionError("pip install exited 1: no matching distribution")

    with pytest.raises(AssertionError):
        once_per_run(tmp_path, "install", broken)
    built: list[Path] = []
    with pytest.raises(pytest.fail.Exception, match=r"install, built once for this run, failed: .*exited 1: no match"):
        once_per_run(tmp_path, "install", built.append)
    assert built == []


def test_a_build_cut_short_leaves_nothing_behind_and_the_next_asker_builds_afresh(tmp_path: Path) -> None:
    (tmp_path / "install").mkdir()
    (tmp_path / "install" / "half-written").write_text("a worker killed mid-install left this")
    built: list[Path] = []
    folder = once_per_run(tmp_path, "install", built.append)
    assert built == [folder] and not (folder / "half-written").exists()
    assert once_per_run(tmp_path, "install", built.append) == folder and len(built) == 1


def test_the_run_root_is_shared_by_the_xdist_workers_and_is_this_run_s_own_without_them(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    base = tmp_path_factory.getbasetemp()  # under xdist: <the run's folder>/popen-gwN
    monkeypatch.setenv("PYTEST_XDIST_WORKER", "gw1")
    assert run_root(tmp_path_factory) == base.parent
    monkeypatch.delenv("PYTEST_XDIST_WORKER")
    assert run_root(tmp_path_factory) == base  # one process: the run's own folder, never one shared across runs
