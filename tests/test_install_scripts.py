"""The optional installers say what they do and fail with a reason, never silently and never half-way.

``scripts/test.sh`` turns an installer's failure into skipped tests with that reason (``tests/needs.py``),
so an installer must (1) keep going past a failed ``apt-get`` (chromium only costs one test) and (2)
exit non-zero, naming npm's failure, when what it exists for could not be installed. Run here with a
fake ``npm`` and ``apt-get`` that fail, on a PATH holding nothing else of the machine's.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _bin(tmp_path: Path, **fakes: str) -> Path:
    """A PATH folder with the few real tools the scripts use and a fake of each named command."""
    folder = tmp_path / "bin"
    folder.mkdir()
    for tool in ("bash", "id", "mkdir", "env", "cat", "tr"):
        found = shutil.which(tool)
        assert found is not None, tool
        (folder / tool).symlink_to(found)
    for name, body in fakes.items():
        script = folder / name
        script.write_text(f"#!{shutil.which('bash')}\n{body}\n")
        script.chmod(0o755)
    return folder


def _run(script: str, folder: Path, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    env = {"PATH": str(folder), "HOME": str(tmp_path)}
    return subprocess.run(
        [str(folder / "bash"), str(ROOT / "scripts" / script), str(tmp_path / "prefix")],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_a_failed_apt_get_and_npm_are_reported_and_the_script_exits_non_zero(tmp_path: Path) -> None:
    npm = 'if [ "$1" = config ]; then exit 0; fi\necho "npm ERR! code SELF_SIGNED_CERT_IN_CHAIN" >&2\nexit 1'
    folder = _bin(tmp_path, npm=npm, node="exit 1", **{"apt-get": 'echo "E: could not resolve mirror" >&2; exit 100'})
    done = _run("install-report-tools.sh", folder, tmp_path)
    assert done.returncode == 1 and done.stdout == ""
    if os.geteuid() == 0:  # only root may run apt-get: then its failure is said, and the script goes on
        assert "apt-get update failed" in done.stderr and "chromium could not be installed" in done.stderr
    assert "SELF_SIGNED_CERT_IN_CHAIN" in done.stderr, "npm's own reason is shown, not hidden behind --silent"
    assert "npm install failed (reason above)" in done.stderr


def test_the_harness_installer_names_npms_failure(tmp_path: Path) -> None:
    npm = 'if [ "$1" = config ]; then exit 0; fi\necho "npm ERR! network request failed" >&2\nexit 1'
    node = 'for a in "$@"; do :; done\nprintf "linux-x64\\nlinux-x64\\nlinux-x64\\n"'
    done = _run("install-harness-clis.sh", _bin(tmp_path, npm=npm, node=node), tmp_path)
    assert done.returncode == 1 and done.stdout == ""
    assert "npm's progress and warnings follow" in done.stderr and "network request failed" in done.stderr
    assert "the CLI harness tests will skip with this reason" in done.stderr
