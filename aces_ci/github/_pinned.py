"""A pull request's approved commit as data: fetched as git objects, unpacked as plain files, never checked out.

The approved trial (:mod:`aces_ci.app._ci_approved`) runs in a checkout of the base branch.
The fork's commit is brought in with ``git fetch origin +refs/pull/N/head:…`` — objects only, the
work tree, index and HEAD stay the base's — and its tree is unpacked with ``git archive`` into a
private temporary folder through the tar ``data`` filter (a link leaving the folder, a device or
an absolute path is skipped, not followed). That folder then gets an empty git directory whose
object store borrows the checkout's (``objects/info/alternates``), so the same git reads that serve
``trial --against`` (the base version of a skill, the diff of the change) work there; no hook, no
config and no checkout is involved, and nothing from the fork's tree is ever executed.
"""

from __future__ import annotations

import subprocess
import tarfile
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from ..errors import InfraError, InputError
from ..skill import extract_data

GIT_TIMEOUT_S = 300.0
MAX_TREE_BYTES = 256 * 1024 * 1024
"""The pinned commit's whole tree as a tar; a skills repository is far below this."""
PULL_REF = "refs/aces-ci/pull/{number}"
"""Where the fetched head is kept in the checkout (outside refs/heads: no branch is created)."""


def _git(repo: Path, *args: str, timeout: float = GIT_TIMEOUT_S) -> tuple[int, str]:
    try:
        done = subprocess.run(
            ["git", "-C", str(repo), *args],
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
            stdin=subprocess.DEVNULL,
            encoding="utf-8",
            errors="replace",
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise InfraError(f"git {' '.join(args[:2])} failed: {exc}") from exc
    return done.returncode, (done.stdout if done.returncode == 0 else done.stderr).strip()


def fetch_pull_head(repo: Path, number: int, remote: str = "origin") -> None:
    """Fetch pull request ``number``'s head (``refs/pull/N/head``) into ``repo``'s object store."""
    refspec = f"+refs/pull/{number}/head:{PULL_REF.format(number=number)}"
    code, out = _git(repo, "fetch", "--no-tags", "--quiet", "--no-recurse-submodules", remote, refspec)
    if code != 0:
        raise InfraError(f"git fetch of pull request #{number} from {remote} failed: {out[:300]}")


def has_commit(repo: Path, sha: str) -> bool:
    """Whether ``sha`` names a commit in ``repo``'s object store."""
    code, _ = _git(repo, "cat-file", "-e", f"{sha}^{{commit}}")
    return code == 0


@contextmanager
def pinned_tree(repo: Path, sha: str) -> Iterator[Path]:
    """The tree of ``sha`` (a commit in ``repo``) as plain files in a scratch folder sharing ``repo``'s objects."""
    with tempfile.TemporaryDirectory(prefix="aces-approved-") as tmp:
        archive, tree = Path(tmp) / "tree.tar", Path(tmp) / "tree"
        tree.mkdir()
        code, out = _git(repo, "archive", "--format=tar", f"--output={archive}", f"{sha}^{{tree}}")
        if code != 0:
            raise InfraError(f"git archive of {sha[:12]} failed: {out[:300]}")
        if archive.stat().st_size > MAX_TREE_BYTES:
            raise InputError(f"the tree of {sha[:12]} is larger than {MAX_TREE_BYTES:,} bytes: not read")
        with tarfile.open(archive, mode="r:") as tar:
            extract_data(tar, tree)  # a member the data rules refuse is skipped: one hostile link costs that link
        archive.unlink()
        code, common = _git(repo, "rev-parse", "--path-format=absolute", "--git-common-dir")
        if code != 0:
            raise InfraError(f"the git directory of {repo} cannot be found: {common[:300]}")
        code, out = _git(tree, "init", "--quiet", "--template=")
        if code != 0:
            raise InfraError(f"git init of the scratch folder failed: {out[:300]}")
        (tree / ".git" / "objects" / "info").mkdir(parents=True, exist_ok=True)
        (tree / ".git" / "objects" / "info" / "alternates").write_text(str(Path(common) / "objects") + "\n")
        yield tree
