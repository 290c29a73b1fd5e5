"""Fixture files: resolving ``files`` entries in both conventions, and reading them for a rollout."""

from __future__ import annotations

import os

import pytest

import aces_ci.evals._fixtures as fixtures_module
from aces_ci.errors import InputError
from aces_ci.evals import EvalCase, load_fixtures
from tests.evals.helpers import load, write_skill


def dataset(files, *, aces=False):
    case = {"id": "c1", "question" if aces else "prompt": "use the file", "files": files}
    return {"skill_name": "demo", "cases" if aces else "evals": [case]}


def test_agentskills_paths_are_relative_to_the_skill(tmp_path):
    evalset = load(tmp_path, dataset(["evals/files/in.csv"]), files={"evals/files/in.csv": "a\n"})
    assert evalset.problems == ()
    assert evalset.cases[0].files == ("evals/files/in.csv",)


def test_skillevaluator_paths_are_relative_to_evals(tmp_path):
    evalset = load(tmp_path, dataset(["files/in.csv"], aces=True), files={"evals/files/in.csv": "a\n"})
    assert evalset.problems == ()
    assert evalset.cases[0].files == ("evals/files/in.csv",)


def test_either_convention_is_accepted_in_either_dialect(tmp_path):
    evalset = load(tmp_path, dataset(["in.csv"]), files={"evals/in.csv": "a\n"})
    assert evalset.problems == ()
    assert evalset.cases[0].files == ("evals/in.csv",)


@pytest.mark.parametrize(("aces", "expected"), [(False, "evals/x.csv"), (True, "evals/evals/x.csv")])
def test_when_both_exist_the_dialects_own_convention_wins(tmp_path, aces, expected):
    files = {"evals/x.csv": "root-relative", "evals/evals/x.csv": "evals-relative"}
    evalset = load(tmp_path, dataset(["evals/x.csv"], aces=aces), files=files)
    assert evalset.cases[0].files == (expected,)


def test_missing_fixture_is_reported_at_its_line(tmp_path):
    text = '{\n  "evals": [\n    {"id": 1, "prompt": "p",\n     "files": [\n'
    text += '       "evals/files/gone.csv"\n     ]}\n  ]\n}\n'
    evalset = load(tmp_path, text)
    (problem,) = evalset.problems
    assert (problem.code, problem.line) == ("fixture-missing", 5)
    assert problem.message == "case '1': fixture 'evals/files/gone.csv' does not exist"
    assert evalset.cases[0].files == ("evals/files/gone.csv",)


def test_missing_evals_relative_fixture_names_where_it_was_looked_for(tmp_path):
    (problem,) = load(tmp_path, dataset(["files/gone.csv"], aces=True)).problems
    assert problem.message == "case 'c1': fixture 'files/gone.csv' does not exist (read as 'evals/files/gone.csv')"


@pytest.mark.parametrize(
    "entry",
    [
        "../../secrets.env",
        "/etc/passwd",
        "C:/Users/me/data.csv",
        "evals\\files\\in.csv",
        "SKILL.md",
        "scripts/run.py",
        "evals/../SKILL.md",
        "../SKILL.md",
    ],
)
def test_fixtures_outside_evals_are_refused(tmp_path, entry):
    files = {"scripts/run.py": "print(1)\n", "evals/files/in.csv": "a\n"}
    evalset = load(tmp_path, dataset([entry]), files=files)
    (problem,) = evalset.problems
    assert problem.code == "fixture-escapes", problem


def test_a_symlink_leading_out_of_evals_is_refused(tmp_path):
    skill_dir = write_skill(tmp_path, {"references/guide.md": "the skill's own knowledge"})
    (skill_dir / "evals" / "files").mkdir(parents=True)
    os.symlink(skill_dir / "references" / "guide.md", skill_dir / "evals" / "files" / "guide.md")
    evalset = load(tmp_path, dataset(["evals/files/guide.md"]))
    (problem,) = evalset.problems
    assert problem.code == "fixture-escapes"
    with pytest.raises(InputError, match="outside evals/"):
        load_fixtures(skill_dir, evalset.cases[0])


def test_load_fixtures_returns_workspace_paths_and_bytes(tmp_path):
    skill_dir = write_skill(tmp_path, {"evals/files/in.csv": "a,b\n", "evals/files/logo.png": b"\x89PNG\x00\x01"})
    case = EvalCase("c1", "p", files=("evals/files/in.csv", "evals/files/logo.png"))
    assert load_fixtures(skill_dir, case) == {
        "evals/files/in.csv": b"a,b\n",
        "evals/files/logo.png": b"\x89PNG\x00\x01",
    }


def test_a_directory_entry_stands_for_every_file_under_it(tmp_path):
    files = {"evals/files/a.txt": "a", "evals/files/sub/b.txt": "b", "evals/other.txt": "not listed"}
    skill_dir = write_skill(tmp_path, files)
    os.symlink(skill_dir / "evals" / "files" / "a.txt", skill_dir / "evals" / "files" / "sub" / "again.txt")
    os.symlink(skill_dir / "evals" / "files", skill_dir / "evals" / "files" / "sub" / "loop")
    staged = load_fixtures(skill_dir, EvalCase("c1", "p", files=("evals/files",)))
    assert staged == {"evals/files/a.txt": b"a", "evals/files/sub/b.txt": b"b", "evals/files/sub/again.txt": b"a"}


def test_a_directory_holding_a_link_out_of_evals_is_refused(tmp_path):
    skill_dir = write_skill(tmp_path, {"evals/files/a.txt": "a"})
    os.symlink(skill_dir / "SKILL.md", skill_dir / "evals" / "files" / "skill.md")
    with pytest.raises(InputError) as raised:
        load_fixtures(skill_dir, EvalCase("c1", "p", files=("evals/files",)))
    assert raised.value.path == f"{skill_dir}/evals/files/skill.md"
    assert "outside evals/" in str(raised.value)


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ("evals/files/gone.csv", "fixture does not exist"),
        ("../outside.txt", "fixture path points outside evals/"),
        ("/etc/hostname", "fixture path points outside evals/"),
        ("SKILL.md", "fixture path points outside evals/"),
    ],
)
def test_load_fixtures_names_the_file_it_cannot_stage(tmp_path, entry, message):
    skill_dir = write_skill(tmp_path, {})
    with pytest.raises(InputError) as raised:
        load_fixtures(skill_dir, EvalCase("case-7", "p", files=(entry,)))
    assert message in str(raised.value)
    assert "case 'case-7'" in str(raised.value)
    assert raised.value.field == "files"


def test_a_fifo_is_not_staged(tmp_path):
    skill_dir = write_skill(tmp_path, {})
    (skill_dir / "evals").mkdir()
    os.mkfifo(skill_dir / "evals" / "pipe")
    with pytest.raises(InputError, match="not a regular file"):
        load_fixtures(skill_dir, EvalCase("c1", "p", files=("evals/pipe",)))


def test_fixtures_over_the_size_limit_are_refused(tmp_path, monkeypatch):
    monkeypatch.setattr(fixtures_module, "MAX_FIXTURE_BYTES", 10)
    skill_dir = write_skill(tmp_path, {"evals/a.txt": "123456", "evals/b.txt": "123456"})
    assert load_fixtures(skill_dir, EvalCase("c1", "p", files=("evals/a.txt",))) == {"evals/a.txt": b"123456"}
    with pytest.raises(InputError, match="exceed"):
        load_fixtures(skill_dir, EvalCase("c1", "p", files=("evals/a.txt", "evals/b.txt")))


def test_a_case_without_files_stages_nothing(tmp_path):
    skill_dir = write_skill(tmp_path, {"evals/files/a.txt": "a"})
    assert load_fixtures(skill_dir, EvalCase("c1", "p")) == {}
