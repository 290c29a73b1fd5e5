"""Links from a report to the lines it talks about: GitHub blob URLs pinned to the commit.

A link names the commit (not the branch), so a comment written today still points at the line it
meant after the branch moves on. Paths in results are relative to the scanned root; ``prefix`` is
that root's place in the repository (``""`` when the repository itself was scanned).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from urllib.parse import quote


@dataclass(frozen=True)
class SourceLinks:
    server_url: str
    """``https://github.com`` (or an Enterprise server)."""
    repository: str
    """``owner/name``."""
    sha: str
    prefix: str = ""
    """Repository-relative directory of the scanned root, POSIX, no trailing slash; ``""`` for the top."""

    def under(self, folder: str) -> SourceLinks:
        """These links with their paths starting at ``folder`` (repository-relative; ``.`` or ``""`` the top): for a
        result that names its files from a skill's folder."""
        return replace(self, prefix="" if folder in ("", ".") else folder)

    def path(self, path: str) -> str:
        """``path`` (relative to the scanned root) relative to the repository."""
        clean = path.lstrip("/")
        prefix = self.prefix.strip("/")
        return f"{prefix}/{clean}" if prefix and prefix != "." else clean

    def scanned(self, path: str) -> str:
        """A repository-relative ``path`` relative to the scanned root (``.`` for the root itself): the inverse of
        :meth:`path`, for results that name skills from the repository (trials) shown beside the scan's.
        A path outside the scanned root is returned as it is."""
        prefix = self.prefix.strip("/")
        clean = path.strip("/")
        if not prefix or prefix == ".":
            return clean or "."
        if clean == prefix:
            return "."
        return clean[len(prefix) + 1 :] if clean.startswith(prefix + "/") else clean

    def url(self, path: str, line: int | None = None, end_line: int | None = None) -> str:
        """The blob URL of ``path`` at the commit, anchored at ``line`` (or ``line``–``end_line``)."""
        base = f"{self.server_url.rstrip('/')}/{self.repository}/blob/{self.sha}/{quote(self.path(path))}"
        if line is None:
            return base
        if end_line is not None and end_line > line:
            return f"{base}#L{line}-L{end_line}"
        return f"{base}#L{line}"
