"""The results branch: files committed with git plumbing to a branch of origin, the checkout left as it was."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from aces_ci.github import ResultsBranch, ResultsBranchError


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True).stdout.strip()


def _clone(tmp_path: Path, name: str, origin: Path) -> Path:
    path = tmp_path / name
    subprocess.run(["git", "clone", "-q", str(origin), str(path)], check=True, capture_output=True)
    return path


@pytest.fixture
def origin(tmp_path: Path) -> Path:
    bare = tmp_path / "origin.git"
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(bare)], check=True)
    seed = tmp_path / "seed"
    subprocess.run(["git", "init", "-q", "-b", "main", str(seed)], check=True)
    (seed / "README.md").write_text("skills\n")
    _git(seed, "add", "-A")
    _git(seed, "-c", "user.email=t@example.com", "-c", "user.name=t", "commit", "-qm", "first")
    _git(seed, "push", "-q", str(bare), "main")
    return bare


def test_the_first_write_creates_the_branch_and_later_writes_build_on_it(tmp_path: Path, origin: Path) -> None:
    repo = _clone(tmp_path, "job", origin)
    head, status = _git(repo, "rev-parse", "HEAD"), _git(repo, "status", "--porcelain")
    branch = ResultsBranch(repo)
    assert branch.read("baseline.json") is None  # no branch yet

    first = branch.write(lambda read: {"baseline.json": b"one\n", "releases/v1.json": b"r1\n"}, "v1")
    second = branch.write(lambda read: {"baseline.json": (read("baseline.json") or b"") + b"two\n"}, "v2")

    other = ResultsBranch(_clone(tmp_path, "later-job", origin))
    assert other.read("baseline.json") == b"one\ntwo\n"
    assert other.read("releases/v1.json") == b"r1\n"  # earlier files stay
    log = _git(origin, "log", "--format=%H %P %an", "aces-results").splitlines()
    assert [line.split()[0] for line in log] == [second.commit, first.commit]
    assert log[-1].split()[1] == "github-actions[bot]", "the first commit has no parent: an orphan branch"
    assert (_git(repo, "rev-parse", "HEAD"), _git(repo, "status", "--porcelain")) == (head, status)
    assert "aces-results" not in _git(repo, "branch", "--list")


def test_a_push_that_lost_a_race_is_rebuilt_on_the_new_tip(tmp_path: Path, origin: Path) -> None:
    mine, theirs = ResultsBranch(_clone(tmp_path, "a", origin)), ResultsBranch(_clone(tmp_path, "b", origin))
    mine.write(lambda read: {"baseline.json": b"base\n"}, "start")
    raced = False

    def build(read: object) -> dict[str, bytes]:
        nonlocal raced
        current = read("baseline.json")  # type: ignore[operator]
        if not raced:  # another run pushes between this run's fetch and its push
            raced = True
            theirs.write(lambda r: {"baseline.json": (r("baseline.json") or b"") + b"theirs\n"}, "theirs")
        return {"baseline.json": current + b"mine\n"}

    mine.write(build, "mine")

    assert ResultsBranch(_clone(tmp_path, "c", origin)).read("baseline.json") == b"base\ntheirs\nmine\n"


def test_no_remote_is_an_error_that_names_git(tmp_path: Path) -> None:
    lonely = tmp_path / "lonely"
    subprocess.run(["git", "init", "-q", str(lonely)], check=True)
    with pytest.raises(ResultsBranchError, match="git ls-remote"):
        ResultsBranch(lonely).read("baseline.json")


def test_a_folder_is_read_from_one_fetch_with_the_files_the_caller_picks(tmp_path: Path, origin: Path) -> None:
    branch = ResultsBranch(_clone(tmp_path, "job", origin))
    assert branch.read_folder("reruns", lambda names: names) == {}  # no branch yet
    files = {f"reruns/2026-11-0{i}-{i}.json": f"r{i}\n".encode() for i in range(1, 5)}
    branch.write(lambda read: {**files, "baseline.json": b"b\n"}, "four reruns")

    picked = branch.read_folder("reruns", lambda names: sorted(names)[-2:])

    assert picked == {"reruns/2026-11-03-3.json": b"r3\n", "reruns/2026-11-04-4.json": b"r4\n"}
    assert branch.read_folder("releases", lambda names: names) == {}


def test_an_oversized_stored_file_is_refused_by_name_and_never_merged_from_nothing(
    tmp_path: Path, origin: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Anyone who can push to the branch can plant a huge blob; a reader names it instead of loading it,
    and a write that would merge from it fails rather than overwrite the baseline with nothing."""
    import aces_ci.github._results_branch as results_branch

    branch = ResultsBranch(_clone(tmp_path, "job", origin))
    branch.write(lambda read: {"baseline.json": b"x" * 2048, "small.json": b"{}"}, "planted")
    monkeypatch.setattr(results_branch, "MAX_STORED_BYTES", 1024)
    with pytest.raises(ResultsBranchError, match=r"aces-results:baseline\.json is 2,048 bytes, over the 1,024 allowed"):
        branch.read("baseline.json")
    assert branch.read("small.json") == b"{}"
    with pytest.raises(ResultsBranchError, match=r"baseline\.json"):
        branch.write(lambda read: {"baseline.json": (read("baseline.json") or b"") + b"new"}, "merge")
    assert ResultsBranch(_clone(tmp_path, "later", origin)).read("small.json") == b"{}"
