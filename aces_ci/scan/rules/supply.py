"""SEC, supply chain and opaque content: what a skill ships that nobody can read, and what it installs unpinned.

A reviewer reads text. An archive or a compiled binary inside a skill is content they cannot
review (SEC015 lists each with its size and whether the skill unpacks it); an install without a
version (SEC016) runs whatever the registry serves on the day; the EICAR test string (SEC017)
makes antivirus software quarantine the skill wherever it is copied.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import PurePosixPath

from ...redact import excerpt
from ...skill import Resource
from .._context import ScanContext
from .._finding import Hit, Severity
from .._registry import Rule, define
from ._code import CodePiece, code_pieces
from ._shell import Command, unquote
from .secflow import parsed_commands

RULES: list[Rule] = []

_ARCHIVE_SUFFIXES = (
    ".zip", ".tar", ".tgz", ".tar.gz", ".gz", ".bz2", ".tbz2", ".xz", ".txz", ".7z", ".rar", ".zst", ".whl",
    ".jar", ".egg", ".deb", ".rpm", ".apk", ".dmg", ".pkg", ".msi", ".nupkg", ".crx", ".xpi",
)  # fmt: skip
_BINARY_SUFFIXES = (".exe", ".dll", ".so", ".dylib", ".bin", ".elf", ".o", ".a", ".pyc", ".class", ".wasm", ".node")
_MEDIA_SUFFIXES = (
    ".png", ".jpg", ".jpeg", ".gif", ".webp", ".ico", ".bmp", ".tiff", ".pdf", ".ttf", ".otf", ".woff", ".woff2",
    ".mp3", ".mp4", ".wav", ".ogg", ".mov", ".webm", ".docx", ".xlsx", ".pptx", ".odt", ".psd", ".sqlite", ".db",
)  # fmt: skip
_EXECUTABLE_MAGIC = (b"\x7fELF", b"MZ", b"\xcf\xfa\xed\xfe", b"\xce\xfa\xed\xfe", b"\xfe\xed\xfa\xcf", b"\0asm")
_UNPACKERS = re.compile(
    r"\b(?:tar|bsdtar|unzip|7z|7za|gunzip|bunzip2|unxz|zstd|unrar|jar|extractall|extract|unpack_archive"
    r"|ZipFile|tarfile\.open|dpkg|rpm|installer|hdiutil|pip\s+install|npm\s+install)\b"
)


def _size(size: int) -> str:
    if size < 1024:
        return f"{size} B"
    if size < 1024 * 1024:
        return f"{size / 1024:.1f} KiB"
    return f"{size / 1024 / 1024:.1f} MiB"


def _is_executable_binary(ctx: ScanContext, resource: Resource) -> bool:
    """A compiled program: by suffix, or by its first bytes (ELF, PE, Mach-O, WebAssembly) when not text."""
    name = resource.rel.lower()
    if name.endswith(_BINARY_SUFFIXES):
        return True
    if name.endswith(_MEDIA_SUFFIXES + _ARCHIVE_SUFFIXES):
        return False
    read = ctx.inputs.read(resource)
    # Only a regular file the bounded reader read and found binary is opened again: a FIFO, a device or an
    # unreadable file never is (opening a FIFO would wait for a writer forever).
    if read is None or read.text is not None or not any(p.code == "binary" for p in read.problems):
        return False
    try:
        fd = os.open(resource.path, os.O_RDONLY | os.O_NONBLOCK)
        try:
            head = os.read(fd, 4)
        finally:
            os.close(fd)
    except OSError:
        return False
    return head.startswith(_EXECUTABLE_MAGIC)


def _unpacked_at(ctx: ScanContext, name: str) -> tuple[CodePiece, int] | None:
    """The first code line that names ``name`` beside an unpacking tool, and its piece."""
    pattern = re.compile(rf"(?<![\w.-]){re.escape(name)}(?![\w-])")
    for piece in code_pieces(ctx):
        if name not in piece.text:
            continue
        for number, line in enumerate(piece.text.split("\n"), start=1):
            if pattern.search(line) and _UNPACKERS.search(line):
                return piece, number
    return None


@define(
    RULES,
    id="SEC015",
    name="opaque-content",
    severity=Severity.WARNING,
    summary="The skill ships an archive or a compiled binary: content a reviewer cannot read.",
    fix="Ship the source files instead (or fetch a pinned, checksummed release); keep only what the skill needs.",
)
def opaque_content(ctx: ScanContext) -> Iterator[Hit]:
    """An archive or a binary passes review unread, and the agent can unpack and run it.

    Each archive (``.zip``, ``.tar.gz``, ``.whl``, ``.jar``, ``.deb``…) and each compiled program
    (``.exe``, ``.so``, ``.dylib``, ``.wasm``, ``.pyc``, or a file starting with an ELF, PE,
    Mach-O or WebAssembly header) is listed with its size. An archive the skill's code unpacks
    (``tar``, ``unzip``, ``extractall``… naming it in a script or code block) is a warning and names
    where; one that is only shipped is a note. A compiled program is a warning. Images, fonts,
    documents and other media are data and not listed.

    PASS: ``scripts/build.sh`` and the component sources it copies.
    FAIL: ``scripts/components.tar.gz`` (19.5 KiB), unpacked by ``tar -xzf`` in ``scripts/init.sh``.
    """
    for resource in ctx.skill.resources:
        name = resource.rel.lower()
        location = ctx.in_skill(resource.rel)
        if name.endswith(_ARCHIVE_SUFFIXES):
            base = PurePosixPath(resource.rel).name
            unpacked = _unpacked_at(ctx, base)
            if unpacked is None:
                yield Hit(
                    f"ships the archive '{base}' ({_size(resource.size)}): its content is not reviewed",
                    location,
                    severity=Severity.NOTE,
                )
                continue
            piece, line = unpacked
            where = piece.location(ctx, line)
            lines = ctx.inputs.redacted_lines(piece.file_text)
            file_line = piece.file_line(line)
            yield Hit(
                f"ships the archive '{base}' ({_size(resource.size)}) and unpacks it ({where}): "
                "its content is installed without review",
                location,
                evidence=excerpt(lines[file_line - 1]) if 0 < file_line <= len(lines) else None,
            )
        elif _is_executable_binary(ctx, resource):
            yield Hit(
                f"ships the compiled program '{PurePosixPath(resource.rel).name}' ({_size(resource.size)}): "
                "what it does cannot be reviewed",
                location,
            )


# ---------------------------------------------------------------------------------------- SEC016

_PIP_OPTIONS_WITH_VALUE = frozenset(
    {"-r", "--requirement", "-c", "--constraint", "-e", "--editable", "-t", "--target", "-i", "--index-url"}
    | {"--extra-index-url", "-f", "--find-links", "--prefix", "--root", "--python", "-p", "--platform"}
    | {"--python-version", "--implementation", "--abi", "--trusted-host", "--cache-dir", "--src", "--upgrade-strategy"}
)
_TOOLING = frozenset({"pip", "setuptools", "wheel", "uv", "pipx", "npm", "pnpm", "yarn", "corepack"})
_PINNED_PIP = re.compile(r"===?|@\s*\S|\.whl$|^(?:\.|/|~|https?://|git\+|file:)|\$")


def _pip_specs(args: list[str]) -> list[str]:
    """The package specs of a ``pip install`` argument list (after ``install``)."""
    specs: list[str] = []
    skip = False
    for arg in args:
        if skip:
            skip = False
            continue
        if arg in _PIP_OPTIONS_WITH_VALUE:
            skip = True
            continue
        if arg.startswith("-"):
            continue
        specs.append(arg)
    return specs


def _unpinned_npm(spec: str) -> bool:
    name = spec[1:] if spec.startswith("@") else spec
    return "@" not in name and not spec.startswith((".", "/", "$", "http", "git", "file:"))


def _unpinned(command: Command) -> tuple[str, list[str]]:
    """The installer (``pip`` for ``python -m pip`` and ``uv pip``) and the packages it takes without a version."""
    args = [unquote(word) for word in command.args]
    program = command.program
    if program in ("python", "python3") and args[:2] == ["-m", "pip"]:
        return "pip", _unpinned_packages("pip", args[2:])
    if program == "uv" and args[:1] == ["pip"]:
        return "pip", _unpinned_packages("pip", args[1:])
    if program == "uv" and args[:2] == ["tool", "install"]:
        return "uv tool", _unpinned_packages("pipx", ["install", *args[2:]])
    return program, _unpinned_packages(program, args)


def _unpinned_packages(program: str, args: list[str]) -> list[str]:
    """The packages ``program args`` installs or runs without naming a version."""
    if program in ("pip", "pip3") and args[:1] == ["install"]:
        specs = _pip_specs(args[1:])
        return [spec for spec in specs if not _PINNED_PIP.search(spec) and spec.split("[")[0].lower() not in _TOOLING]
    if (program == "pipx" and args[:1] in (["install"], ["run"])) or program == "uvx":
        rest = args if program == "uvx" else args[1:]
        specs = [arg for arg in rest if not arg.startswith("-")][:1]
        return [spec for spec in specs if not _PINNED_PIP.search(spec) and spec.lower() not in _TOOLING]
    if program in ("npx", "bunx", "pnpx"):
        specs = [arg for arg in args if not arg.startswith("-")][:1]
        return [spec for spec in specs if _unpinned_npm(spec) and spec not in _TOOLING]
    if (
        program in ("npm", "pnpm", "yarn")
        and args[:1] in (["install"], ["i"], ["add"], ["global"])
        and ("-g" in args or "--global" in args or args[:1] == ["global"])
    ):
        specs = [arg for arg in args[1:] if not arg.startswith("-") and arg != "add"]
        return [spec for spec in specs if _unpinned_npm(spec) and spec not in _TOOLING]
    return []


_REQUIREMENT_NAME = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)(\[[^\]]*\])?\s*(.*)$")


def _requirements_hits(ctx: ScanContext, resource: Resource, text: str) -> Iterator[Hit]:
    unpinned: list[tuple[int, str]] = []
    total = 0
    for number, raw in enumerate(text.split("\n"), start=1):
        line = raw.split(" #", 1)[0].strip()
        if not line or line.startswith(("#", "-")):
            continue
        match = _REQUIREMENT_NAME.match(line)
        if match is None:
            continue  # a URL or a path: pinned by what it names
        if match[1].lower() in _TOOLING:
            continue
        total += 1
        if not re.match(r"^(?:===?|@)", match[3].split(";")[0].strip()):
            unpinned.append((number, match[1]))
    if not unpinned:
        return
    names = ", ".join(name for _, name in unpinned[:5]) + (
        f" and {len(unpinned) - 5} more" if len(unpinned) > 5 else ""
    )
    first = unpinned[0][0]
    lines = ctx.inputs.redacted_lines(text)
    yield Hit(
        f"{len(unpinned)} of {total} requirements are not pinned to one version (==): {names}",
        ctx.in_skill(resource.rel, first),
        evidence=excerpt(lines[first - 1]),
    )


@define(
    RULES,
    id="SEC016",
    name="unpinned-install",
    severity=Severity.NOTE,
    summary="A script or requirements file installs packages without pinning a version (pip install x, npx x).",
    fix="Pin each package: `pip install pypdf==5.1.0`, `npx prettier@3.3.3`, `pypdf==5.1.0` in requirements.txt.",
)
def unpinned_install(ctx: ScanContext) -> Iterator[Hit]:
    """An unpinned install runs whatever the registry serves that day: a hijacked release reaches every user.

    In bundled shell scripts: ``pip``/``uv pip``/``python -m pip install`` of a name without
    ``==`` (a path, URL, wheel or ``@`` reference counts as pinned), ``pipx install``/``pipx run``
    and ``uvx`` without a version, ``npx``/``bunx`` without ``@version``, and global ``npm``/
    ``pnpm``/``yarn`` installs without ``@version`` (a project install is pinned by its lockfile).
    ``pip``, ``setuptools`` and ``wheel`` themselves are tooling and not reported. In
    ``requirements*.txt`` files: each requirement without ``==``, ``===`` or ``@`` (a range such as
    ``>=1.2`` is not a pin), reported once per file with the names. A note: pinning is advice, not
    an attack; SKILL.md's own install instructions are not checked.

    PASS: ``pip install pypdf==5.1.0`` in ``scripts/setup.sh``; ``pypdf==5.1.0`` in requirements.txt.
    FAIL: ``pip install pypdf`` in ``scripts/setup.sh``; ``npx create-foo my-app``.
    """
    for piece in code_pieces(ctx):
        if not piece.is_script or piece.language != "shell":
            continue
        if not re.search(r"\b(?:pip3?|uv|uvx|pipx|npx|bunx|pnpx|npm|pnpm|yarn)\b", piece.text):
            continue
        lines = ctx.inputs.redacted_lines(piece.file_text)
        for command in parsed_commands(ctx, piece):
            tool, names = _unpinned(command)
            if names:
                yield Hit(
                    f"{tool} installs {', '.join(repr(name) for name in names[:5])} without a version",
                    piece.location(ctx, command.line),
                    evidence=excerpt(lines[command.line - 1]) if 0 < command.line <= len(lines) else None,
                )
    for resource in ctx.skill.resources:
        name = PurePosixPath(resource.rel).name.lower()
        if name.startswith("requirements") and name.endswith((".txt", ".in")) and resource.kind != "eval":
            text = ctx.inputs.text(resource)
            if text is not None:
                yield from _requirements_hits(ctx, resource, text)


# ---------------------------------------------------------------------------------------- SEC017

EICAR = "X5O!P%@AP[4\\PZX54(P^)7CC)7}$" + "EICAR-STANDARD-ANTIVIRUS" + "-TEST-FILE!$H+H*"
"""The antivirus test file's 68 characters, assembled so this module is not itself flagged."""


@define(
    RULES,
    id="SEC017",
    name="eicar-test-string",
    severity=Severity.WARNING,
    summary="A file holds the EICAR antivirus test string: scanners quarantine the skill wherever it is copied.",
    fix="Remove the string; to test a scanner, build it at run time from parts.",
)
def eicar_test_string(ctx: ScanContext) -> Iterator[Hit]:
    """The EICAR string is harmless, but every antivirus engine treats the file holding it as malware.

    A skill carrying it is deleted or quarantined on the machines it is installed on, and a
    malicious package uses it to test whether a scanner is watching. Every text file of the skill
    is searched, ``evals/`` included.

    PASS: a reference that describes the EICAR test file in words.
    FAIL: ``assets/test.txt`` holding the 68-character string.
    """
    texts = [(None, ctx.skill.skill_md.text)] + [(r, ctx.inputs.text(r)) for r in ctx.skill.resources]
    for resource, text in texts:
        if not text or "EICAR-STANDARD" not in text:
            continue
        offset = text.find(EICAR)
        if offset < 0:
            continue
        line = text.count("\n", 0, offset) + 1
        location = ctx.at(line) if resource is None else ctx.in_skill(resource.rel, line)
        yield Hit("the EICAR antivirus test string: antivirus software will quarantine this file", location)
