"""A file:line on the page as a link to those lines at the commit, when the run knows its repository.

``ci`` renders the page beside the comment and knows the repository, the commit and where each
result's paths start (the scanned root for a scan, the skill's folder for a valuation or a
compression): it gives each document its :class:`~aces_ci.report._links.SourceLinks`, and every
file:line the page shows opens that line on the repository's host. A page rendered from files
alone (``aces-ci report --html``) cannot know that and shows the same text unlinked. The path is
untrusted (it comes from the skill): the label is escaped as text, the URL percent-encoded by
:meth:`SourceLinks.url` and checked and escaped again by :func:`href`.
"""

from __future__ import annotations

from pathlib import PurePosixPath

from .._links import SourceLinks
from ._escape import href


def linked(label: str, links: SourceLinks | None, path: str, first: int | None = None, last: int | None = None) -> str:
    """``label`` (already escaped HTML) as a link to ``path``'s lines ``first``–``last`` at the commit; unchanged
    without ``links``, or for a path that climbs out with ``..`` (a browser would resolve it to another
    repository on the same host)."""
    if links is None or ".." in PurePosixPath(links.path(path)).parts:
        return label
    url = href(links.url(path, first, last))
    return label if url is None else f'<a class="src" href="{url}" rel="noreferrer">{label}</a>'
