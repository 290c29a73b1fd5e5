"""The Dockerfile: slim, non-root, and its build step run for real outside Docker (no engine here), once per run."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.once import once_per_run, run_root

ROOT = Path(__file__).parents[1]


def _instructions() -> list[tuple[str, str]]:
    lines = []
    for raw in (ROOT / "Dockerfile").read_text().replace("\\\n", " ").splitlines():
        line = raw.strip()
        if line and not line.startswith("#"):
            word, _, rest = line.partition(" ")
            lines.append((word.upper(), rest.strip()))
    return lines


def test_image_is_slim_non_root_and_runs_the_cli() -> None:
    instructions = _instructions()
    assert instructions[0] == ("FROM", "python:3.11-slim")
    users = [rest for word, rest in instructions if word == "USER"]
    assert users and users[-1] not in ("root", "0")
    assert ("ENTRYPOINT", '["aces-ci"]') in instructions
    assert not any(word == "ADD" for word, _ in instructions)
    copied = [rest.split()[0] for word, rest in instructions if word == "COPY"]
    for source in copied:
        assert (ROOT / source).exists(), source


@pytest.fixture(scope="session")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The image's build step run for real into a temporary prefix, once per test run (workers share it).

    The folder holds ``venv/`` (the prefix) and ``stdout.txt``, what the build printed.
    """
    return once_per_run(run_root(tmp_path_factory), "docker-build", _build)


def _build(folder: Path) -> None:
    env = {
        **os.environ,
        "ACES_SOURCE": str(ROOT),
        "ACES_PREFIX": str(folder / "venv"),
        "ACES_SKIP_USER": "1",
        "ACES_PYTHON": sys.executable,
    }
    done = subprocess.run(
        ["bash", str(ROOT / "scripts" / "docker-build.sh")],
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    (folder / "stdout.txt").write_text(done.stdout, encoding="utf-8")


# One test, so no second worker ever waits for this build. Hang guard over the build's 900 s and the scan's 300 s.
@pytest.mark.slow
@pytest.mark.timeout(1500)
def test_build_step_installs_a_working_cli_and_nothing_to_install_with(built: Path) -> None:
    assert "aces-ci 0.1.0" in (built / "stdout.txt").read_text(encoding="utf-8")
    assert not (built / "venv" / "bin" / "pip").exists()  # nothing to install with at run time
    example = ROOT / "examples" / "skill-repo" / "skills" / "acme-support"
    scan = subprocess.run(
        [str(built / "venv" / "bin" / "aces-ci"), "scan", str(example), "--no-cache", "-q"],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert scan.returncode in (0, 1), scan.stderr
