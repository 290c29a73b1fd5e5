"""A labelled run's trials, kept inside the sticky comment so that a later scan-only push does not erase them.

A pull request's trials (and its trigger trial) run once, when the trial label is added; every
later push runs the scan only and rewrites the one sticky comment. Without this module that rewrite drops the trial
results, and the reviewer loses the one measurement the pull request paid for. So the comment of
a run with trials carries a hidden digest of its trial sections (what it rendered: the lift,
power and cost tables, the charts, the score-vs-lift table, the estimand statements, the failed
and warned lift criteria), and a scan-only run of the same pull request reads our previous
comment (found by marker *and* author, as :func:`~aces_ci.github.upsert_comment` finds it), shows
those sections again under a heading naming the commit they measured — "stale: the pull request
changed since" when the head moved — and embeds the digest again, so it survives any number of
pushes until the next labelled run replaces it. The kept trials never gate the scan-only run.

Why the comment and not the results branch: the trials belong to the pull request and its
reviewer, the comment is where the reviewer looks, and reading it needs only the token that
writes it (a results branch would need ``contents: write`` on every pull request run).

Format: ``<!-- aces-ci:kept-trials v1 BASE64 -->``, where BASE64 is the zlib-compressed JSON of
``schemas/kept-trials.schema.json``. The Markdown is redacted *before* it is compressed: the
comment's own redaction cannot see inside the digest. Sizes are bounded both ways
(:data:`KEPT_MARKDOWN_LIMIT`, :data:`KEPT_DIGEST_LIMIT`), so a comment carrying kept trials still
leaves room for the scan within GitHub's 65,536 characters; a digest that is malformed, oversized
or not valid against its schema is ignored (the comment then shows the scan alone), never trusted.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
import zlib
from collections.abc import Sequence
from dataclasses import dataclass

from ..redact import environment_secrets, redact_text
from ..report import markdown_link_url
from ..schemas import validator
from ._rest import GitHubClient, GitHubError
from ._sticky import author_login, search_comments, signing_key

KEPT_SCHEMA_VERSION = 1
KEPT_MARKDOWN_LIMIT = 30_000
"""Characters of trial Markdown a digest keeps (whole sections, in the comment's order)."""
KEPT_DIGEST_LIMIT = 12_000
"""Characters the hidden digest block may take in the comment."""
_OPEN = "<!-- aces-ci:kept-trials v1 "
_CLOSE = " -->"
_DIGEST = re.compile(r"<!-- aces-ci:kept-trials v1 ([A-Za-z0-9+/=]{1,20000}) -->")


@dataclass(frozen=True)
class KeptTrials:
    """The trial sections of an earlier run of this pull request, and the commit they measured."""

    commit: str
    """The pull request's head commit the trials measured."""
    verdict: str
    """That run's gate verdict (``pass``, ``warn``, ``fail``, ``error``: an outage)."""
    markdown: str
    """The trial sections as that run rendered them (redacted)."""
    run_url: str | None = None
    """The run that measured them (its artifacts hold the full trial reports)."""

    def digest(self) -> str:
        """The hidden block that carries these trials to the next comment."""
        data = {
            "schema_version": KEPT_SCHEMA_VERSION,
            "commit": self.commit,
            "verdict": self.verdict,
            "run_url": self.run_url,
            "markdown": self.markdown,
        }
        packed = zlib.compress(json.dumps(data, sort_keys=True, separators=(",", ":")).encode(), 9)
        return f"{_OPEN}{base64.b64encode(packed).decode('ascii')}{_CLOSE}\n"

    def section(self, head: str | None) -> str:
        """The kept sections under a heading that says which commit they measured, and whether it is still the head."""
        at = f"`{self.commit[:12]}`"
        url = markdown_link_url(self.run_url)
        run = f" ([that run]({url}))" if url else ""
        if head is not None and head != self.commit:
            title = f"#### Paired trials measured at {at} — stale: the pull request changed since\n\n"
            what = f"the earlier commit {at}{run}, not of this head (`{head[:12]}`)"
        else:
            title = f"#### Paired trials measured at {at} (this commit), from an earlier run\n\n"
            what = f"this commit, from an earlier run{run}"
        note = (
            f"> This run did the static scan only. The trials below are of {what}; they do not gate this run. "
            f"That run's gate: **{self.verdict}**. Add the trial label again to measure the current version.\n\n"
        )
        return title + note + self.markdown


def keep_trials(
    commit: str | None, verdict: str, sections: Sequence[str], run_url: str | None, secrets: Sequence[str] = ()
) -> KeptTrials | None:
    """The digest of a run's trial ``sections``: whole sections from the first, as many as the limits allow.

    None when there is nothing to keep or no commit to say it measured.
    """
    if commit is None:
        return None
    hidden = (*environment_secrets(), *secrets)
    chosen: list[str] = []
    for section in sections:
        if sum(map(len, chosen)) + len(section) > KEPT_MARKDOWN_LIMIT:
            break
        chosen.append(section)
    while chosen:
        kept = KeptTrials(commit, verdict, redact_text("".join(chosen), hidden), run_url)
        if len(kept.digest()) <= KEPT_DIGEST_LIMIT:
            return kept
        chosen.pop()
    return None


def read_kept(body: str) -> KeptTrials | None:
    """The kept trials in one of our comment bodies; None when it has none or the digest is not one of ours."""
    found = _DIGEST.search(body)
    if found is None or len(found.group(0)) > KEPT_DIGEST_LIMIT:
        return None
    try:
        packed = base64.b64decode(found.group(1), validate=True)
        inflater = zlib.decompressobj()
        raw = inflater.decompress(packed, 8 * KEPT_MARKDOWN_LIMIT)
        if inflater.unconsumed_tail:
            return None
        data = json.loads(raw.decode("utf-8"))
    except (binascii.Error, zlib.error, UnicodeDecodeError, json.JSONDecodeError):
        return None
    if any(True for _ in validator("kept-trials").iter_errors(data)):
        return None
    return KeptTrials(data["commit"], data["verdict"], data["markdown"], data["run_url"])


@dataclass(frozen=True)
class EarlierTrials:
    """What our earlier comment on the pull request kept, and the look-alike comments that were not read."""

    kept: KeptTrials | None = None
    ignored: tuple[str, ...] = ()
    """A note per comment that carries our marker by our author but is not ours (see :mod:`._sticky`)."""


def earlier_trials(client: GitHubClient, repository: str, number: int, marker: str) -> EarlierTrials:
    """The kept trials of our comment on pull request ``number`` (none when there is no such comment or digest).

    A token that may not read the comments (GitHub's 401/403/404) gives none: the comment then
    shows this run's results alone, as it would have without this module.
    """
    try:
        found = search_comments(client, repository, number, marker, author_login(client), key=signing_key())
    except GitHubError as exc:
        if exc.denied:
            return EarlierTrials()
        raise
    body = found.ours.get("body") if found.ours is not None else None
    return EarlierTrials(read_kept(body) if isinstance(body, str) else None, found.ignored)
